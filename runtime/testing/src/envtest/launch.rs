//! What an envtest launches: its ports, the etcd and kube-apiserver command lines, and the
//! kubeconfig that reaches the apiserver (the controller manager's command line is in
//! `controller_manager.rs`).

use std::ffi::OsString;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use super::certs::{self, Pki};
use super::error::EnvtestError;
use super::process::ProcessSpec;

/// How many sets of ports are tried when one is taken.
pub(super) const PORT_ATTEMPTS: u32 = 3;

/// The loopback ports of one start attempt.
pub(super) struct Ports {
    pub apiserver: u16,
    etcd_client: u16,
    etcd_peer: u16,
}

impl Ports {
    /// Free ports, chosen by the kernel; the apiserver's is `apiserver` if given. The listeners
    /// are held until all are chosen so the three differ; another process may still take one
    /// before etcd or the apiserver binds it, which the start-up loop detects and retries.
    pub(super) fn pick(apiserver: Option<u16>) -> Result<Ports, EnvtestError> {
        let listeners = [bind_free()?, bind_free()?, bind_free()?];
        let mut ports = [0u16; 3];
        for (port, listener) in ports.iter_mut().zip(&listeners) {
            *port = port_of(listener)?;
        }
        Ok(Ports {
            apiserver: apiserver.unwrap_or(ports[0]),
            etcd_client: ports[1],
            etcd_peer: ports[2],
        })
    }
}

/// A loopback port free at the time of the call. Another process may take it before it is
/// bound; the caller detects that ("address already in use") and retries.
pub(super) fn free_port() -> Result<u16, EnvtestError> {
    port_of(&bind_free()?)
}

fn bind_free() -> Result<TcpListener, EnvtestError> {
    TcpListener::bind(("127.0.0.1", 0)).map_err(EnvtestError::io("finding a free loopback port"))
}

fn port_of(listener: &TcpListener) -> Result<u16, EnvtestError> {
    Ok(listener
        .local_addr()
        .map_err(EnvtestError::io("finding a free loopback port"))?
        .port())
}

/// `--name=PATH`, for paths that need not be UTF-8.
pub(super) fn path_flag(name: &str, value: &Path) -> OsString {
    let mut flag = OsString::from(format!("--{name}="));
    flag.push(value);
    flag
}

/// The command lines of etcd and kube-apiserver.
pub(super) fn process_specs(
    assets: &Path,
    dir: &Path,
    pki: &Pki,
    ports: &Ports,
    extra_flags: &[String],
) -> Vec<ProcessSpec> {
    let etcd_url = format!("http://127.0.0.1:{}", ports.etcd_client);
    let peer_url = format!("http://127.0.0.1:{}", ports.etcd_peer);
    let etcd_args: Vec<OsString> = vec![
        "--name=envtest".into(),
        path_flag("data-dir", &dir.join("etcd")),
        format!("--listen-client-urls={etcd_url}").into(),
        format!("--advertise-client-urls={etcd_url}").into(),
        format!("--listen-peer-urls={peer_url}").into(),
        format!("--initial-advertise-peer-urls={peer_url}").into(),
        format!("--initial-cluster=envtest={peer_url}").into(),
        // The data is thrown away after the test: no need to wait for the disk.
        "--unsafe-no-fsync".into(),
    ];
    let mut apiserver_args: Vec<OsString> = vec![
        format!("--etcd-servers={etcd_url}").into(),
        format!("--secure-port={}", ports.apiserver).into(),
        "--bind-address=127.0.0.1".into(),
        "--advertise-address=127.0.0.1".into(),
        // No Endpoints for the kubernetes service: nothing in a test routes to it.
        "--endpoint-reconciler-type=none".into(),
        "--authorization-mode=RBAC".into(),
        path_flag("cert-dir", dir),
        path_flag("client-ca-file", &pki.client_ca),
        path_flag("tls-cert-file", &pki.serving_cert),
        path_flag("tls-private-key-file", &pki.serving_key),
        path_flag("service-account-key-file", &pki.service_account_pub),
        path_flag("service-account-signing-key-file", &pki.service_account_key),
        "--service-account-issuer=https://kubernetes.default.svc".into(),
        "--service-cluster-ip-range=10.0.0.0/24".into(),
        "--allow-privileged=true".into(),
    ];
    apiserver_args.extend(extra_flags.iter().map(OsString::from));
    vec![
        ProcessSpec {
            name: "etcd",
            program: assets.join("etcd"),
            args: etcd_args,
            log: dir.join("etcd.log"),
        },
        ProcessSpec {
            name: "kube-apiserver",
            program: assets.join("kube-apiserver"),
            args: apiserver_args,
            log: dir.join("kube-apiserver.log"),
        },
    ]
}

/// Writes `dir/kubeconfig` for the admin identity; the certificates are referenced by path.
pub(super) fn write_kubeconfig(
    dir: &Path,
    server_url: &str,
    pki: &Pki,
) -> Result<PathBuf, EnvtestError> {
    // JSON strings are YAML strings: this quotes any character a path may hold.
    let quote = |path: &Path| -> Result<String, EnvtestError> {
        let text = path.to_str().ok_or_else(|| EnvtestError::Io {
            context: format!("the envtest directory {} is not valid UTF-8", dir.display()),
            source: std::io::ErrorKind::InvalidFilename.into(),
        })?;
        Ok(serde_json::Value::from(text).to_string())
    };
    let text = format!(
        "apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster:
    server: {server}
    certificate-authority: {ca}
users:
- name: {user}
  user:
    client-certificate: {cert}
    client-key: {key}
contexts:
- name: envtest
  context: {{cluster: envtest, user: {user}, namespace: default}}
current-context: envtest
",
        server = serde_json::Value::from(server_url),
        ca = quote(&pki.serving_ca)?,
        user = certs::ADMIN_USER,
        cert = quote(&pki.admin_cert)?,
        key = quote(&pki.admin_key)?,
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).map_err(EnvtestError::io(format!("writing {}", path.display())))?;
    Ok(path)
}

/// The client configuration, read back from the kubeconfig so both always agree.
pub(super) async fn load_config(kubeconfig: &Path) -> Result<kube::Config, EnvtestError> {
    let file = kube::config::Kubeconfig::read_from(kubeconfig)?;
    Ok(
        kube::Config::from_custom_kubeconfig(file, &kube::config::KubeConfigOptions::default())
            .await?,
    )
}

/// Removes etcd's data after a failed attempt: it records the peer URL, which the next attempt
/// changes.
pub(super) fn remove_etcd_data(dir: &Path) -> Result<(), EnvtestError> {
    let data = dir.join("etcd");
    match std::fs::remove_dir_all(&data) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(EnvtestError::Io {
            context: format!("removing {}", data.display()),
            source: e,
        }),
        _ => Ok(()),
    }
}
