//! `kubegen::testing::Envtest`: a real etcd + kube-apiserver from `KUBEBUILDER_ASSETS`, and
//! kube-controller-manager beside it when asked for (`controller_manager` module).
//!
//! Cases that run the binaries are skipped (with a note) when `KUBEBUILDER_ASSETS` is not set:
//! `KUBEBUILDER_ASSETS=$(../shared/k8s/install) cargo test --features envtest --test integration -- envtest::`.
//! The cases about missing assets always run.

mod controller_manager;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::testing::{Envtest, EnvtestError};

mod api {
    use kubegen::prelude::*;

    /// A Probe checks a target a number of times.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "envtest.kubegen.dev",
        version = "v1",
        kind = "Probe",
        status = "ProbeStatus",
        derive = "PartialEq"
    )]
    pub struct ProbeSpec {
        /// What to probe.
        #[validate(min_length = 1)]
        pub target: String,
        /// How many times; the apiserver fills in the default.
        #[default(3)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub attempts: Option<i32>,
    }

    #[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    pub struct ProbeStatus {
        #[serde(default)]
        pub passed: i32,
    }

    /// A cluster-scoped kind without subresources.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "envtest.kubegen.dev",
        version = "v1",
        kind = "Beacon",
        scope = "Cluster"
    )]
    pub struct BeaconSpec {
        /// Its color.
        pub color: String,
    }
}

use api::{Probe, ProbeClientExt, ProbeSpec};

/// Tests that start an environment of their own take turns: several apiservers starting at
/// once on a two-core machine would only measure the machine.
static OWN_INSTANCE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The assets directory, or `None` with a note that the case is skipped.
fn assets(case: &str) -> Option<PathBuf> {
    match std::env::var_os("KUBEBUILDER_ASSETS") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => {
            eprintln!(
                "skipping envtest case {case}: KUBEBUILDER_ASSETS is not set \
                 (KUBEBUILDER_ASSETS=$(../shared/k8s/install) runs it)"
            );
            None
        }
    }
}

fn registered_crd_names() -> Vec<String> {
    kubegen::registry::crds()
        .unwrap()
        .into_iter()
        .map(|crd| crd.metadata.name.unwrap())
        .collect()
}

#[tokio::test]
async fn start_serves_namespaces_and_establishes_the_registered_crds() {
    if assets("start").is_none() {
        return;
    }
    let env = Envtest::shared().await.expect("the shared envtest starts");
    println!(
        "envtest started in {:?} at {}",
        env.startup_time(),
        env.server_url()
    );
    assert!(env.startup_time() > Duration::ZERO);
    assert!(env.server_url().starts_with("https://127.0.0.1:"));

    let client = env.client();
    let namespaces: kube::Api<Namespace> = kube::Api::all(client.clone());
    let names: Vec<String> = namespaces
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|ns| ns.metadata.name)
        .collect();
    assert!(names.iter().any(|n| n == "default"), "{names:?}");
    assert!(names.iter().any(|n| n == "kube-system"), "{names:?}");

    let mut expected = registered_crd_names();
    expected.sort();
    let mut installed = env.crds().to_vec();
    installed.sort();
    assert_eq!(installed, expected);
    assert!(expected.contains(&"probes.envtest.kubegen.dev".to_string()));

    let crds: kube::Api<CustomResourceDefinition> = kube::Api::all(client);
    for name in &expected {
        let crd = crds.get(name).await.unwrap();
        assert!(
            kubegen::crd::is_established(&crd),
            "{name} is not Established: {:?}",
            crd.status
        );
    }
}

#[tokio::test]
async fn custom_objects_of_registered_kinds_can_be_created_at_once() {
    if assets("custom objects").is_none() {
        return;
    }
    let env = Envtest::shared().await.expect("the shared envtest starts");
    let probes = env.client().probes("default");
    let created = probes
        .create(&Probe::new(
            "first",
            ProbeSpec {
                target: "db".into(),
                attempts: None,
            },
        ))
        .await
        .unwrap();
    // The real apiserver applied the CRD's default.
    assert_eq!(created.spec.attempts, Some(3));
    let got = probes.get("first").await.unwrap();
    assert_eq!(got.spec, created.spec);
    assert_eq!(got.metadata.uid, created.metadata.uid);

    // And validated the schema: min_length = 1.
    let invalid = probes
        .create(&Probe::new(
            "empty",
            ProbeSpec {
                target: String::new(),
                attempts: None,
            },
        ))
        .await;
    assert!(
        matches!(invalid, Err(kubegen::client::ClientError::Invalid { .. })),
        "{invalid:?}"
    );
}

#[tokio::test]
async fn kubectl_accepts_the_kubeconfig() {
    if assets("kubectl").is_none() {
        return;
    }
    let env = Envtest::shared().await.expect("the shared envtest starts");
    let kubectl = env.assets_dir().join("kubectl");
    if !kubectl.exists() {
        eprintln!(
            "skipping envtest case kubectl: no kubectl in {}",
            env.assets_dir().display()
        );
        return;
    }
    let output = Command::new(&kubectl)
        .arg("--kubeconfig")
        .arg(env.kubeconfig())
        .args(["get", "crds", "-o", "name"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "kubectl failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    for name in registered_crd_names() {
        assert!(
            stdout
                .lines()
                .any(|l| l == format!("customresourcedefinition.apiextensions.k8s.io/{name}")),
            "{name} not in {stdout}"
        );
    }
}

#[tokio::test]
async fn shared_is_one_instance_for_concurrent_callers() {
    if assets("shared").is_none() {
        return;
    }
    // Each caller runs its own runtime, as tests do.
    let callers: Vec<_> = (0..3)
        .map(|_| {
            std::thread::spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async {
                    let env = Envtest::shared().await.expect("shared starts");
                    // A client bound to this runtime works, whichever runtime started it.
                    kube::Api::<Namespace>::all(env.client())
                        .get("default")
                        .await
                        .unwrap();
                    env as *const Envtest as usize
                })
            })
        })
        .collect();
    let addresses: Vec<usize> = callers.into_iter().map(|c| c.join().unwrap()).collect();
    let here = Envtest::shared().await.unwrap() as *const Envtest as usize;
    assert!(
        addresses.iter().all(|&a| a == here),
        "{addresses:?} vs {here}"
    );
}

/// Whether `pid` is a process of the environment in `dir`: alive with a command line naming
/// `dir`, or exited but not yet reaped by this process. A pid reused by another process after
/// ours was reaped does not count, nor does a killed child already handed to init.
#[cfg(target_os = "linux")]
fn running(pid: u32, dir: &Path) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // State and parent pid follow the parenthesised command name.
    let mut fields = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .unwrap_or("")
        .split_whitespace();
    let (state, parent) = (fields.next(), fields.next());
    if state == Some("Z") {
        return parent == Some(std::process::id().to_string().as_str());
    }
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&cmdline).contains(dir.to_string_lossy().as_ref())
}

/// Both processes are gone (and reaped) and the directory is removed.
#[cfg(target_os = "linux")]
fn assert_cleaned_up(apiserver: u32, etcd: u32, dir: &Path) {
    assert!(
        !running(apiserver, dir),
        "kube-apiserver {apiserver} still runs"
    );
    assert!(!running(etcd, dir), "etcd {etcd} still runs");
    assert!(!dir.exists(), "{} still exists", dir.display());
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_service_account_client_has_only_the_rights_bound_to_it() {
    use k8s_openapi::api::authentication::v1::SelfSubjectReview;
    use k8s_openapi::api::authorization::v1::ResourceAttributes;
    use kube::api::{Api, Patch, PatchParams, PostParams};
    use kubegen::client::ClientError;
    use kubegen::rbac::{Rules, Verb, cluster_role_binding};
    use kubegen::testing::envtest::wait_for_access;

    if assets("service account").is_none() {
        return;
    }
    let env = Envtest::shared().await.expect("the shared envtest starts");
    let (ns, name) = ("sa-test", "reader");
    let client = env.service_account_client(ns, name).await.unwrap();
    // Asking again finds the namespace and the ServiceAccount there, and makes a new token.
    env.service_account_client(ns, name).await.unwrap();
    let whoami = Api::<SelfSubjectReview>::all(client.clone())
        .create(&PostParams::default(), &SelfSubjectReview::default())
        .await
        .unwrap();
    let user = whoami.status.and_then(|s| s.user_info).unwrap_or_default();
    assert_eq!(
        user.username.as_deref(),
        Some("system:serviceaccount:sa-test:reader"),
        "the token, not the admin certificate, authenticates"
    );

    let list_probes = ResourceAttributes {
        namespace: Some(ns.into()),
        verb: Some("list".into()),
        group: Some("envtest.kubegen.dev".into()),
        resource: Some("probes".into()),
        ..ResourceAttributes::default()
    };
    wait_for_access(&client, &list_probes, false, Duration::from_secs(10))
        .await
        .unwrap();
    let probes = client.probes(ns);
    let denied = probes.list(&Default::default()).await.unwrap_err();
    assert!(matches!(denied, ClientError::Forbidden(_)), "{denied:?}");
    let err = wait_for_access(&client, &list_probes, true, Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            EnvtestError::AccessNotSettled {
                wanted: "allowed",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().starts_with("list probes in group \"envtest.kubegen.dev\" in namespace sa-test was not allowed within 300ms"), "{err}");

    let role = Rules::new()
        .grant::<Probe>(&[Verb::List])
        .cluster_role("sa-test-reader");
    let binding = cluster_role_binding("sa-test-reader", name, ns);
    let admin = env.client();
    let apply = PatchParams::apply("envtest-test").force();
    Api::<k8s_openapi::api::rbac::v1::ClusterRole>::all(admin.clone())
        .patch("sa-test-reader", &apply, &Patch::Apply(&role))
        .await
        .unwrap();
    Api::<k8s_openapi::api::rbac::v1::ClusterRoleBinding>::all(admin)
        .patch("sa-test-reader", &apply, &Patch::Apply(&binding))
        .await
        .unwrap();
    wait_for_access(&client, &list_probes, true, Duration::from_secs(30))
        .await
        .unwrap();
    probes.list(&Default::default()).await.unwrap();
    let create = probes
        .create(&Probe::new(
            "refused",
            ProbeSpec {
                target: "x".into(),
                attempts: None,
            },
        ))
        .await
        .unwrap_err();
    assert!(matches!(create, ClientError::Forbidden(_)), "{create:?}");
}

#[tokio::test]
async fn dropping_stops_both_processes_and_removes_the_directory() {
    if assets("drop").is_none() {
        return;
    }
    let _turn = OWN_INSTANCE.lock().await;
    let env = Envtest::builder().crds([]).start().await.unwrap();
    let (apiserver, etcd, dir) = (env.apiserver_pid(), env.etcd_pid(), env.dir().to_path_buf());
    assert!(running(apiserver, &dir) && running(etcd, &dir));
    assert!(dir.join("kube-apiserver.log").exists());
    drop(env);
    assert_cleaned_up(apiserver, etcd, &dir);
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_panicking_test_still_cleans_up() {
    if assets("panic").is_none() {
        return;
    }
    let _turn = OWN_INSTANCE.lock().await;
    let (tx, rx) = std::sync::mpsc::channel();
    let test = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let env = Envtest::builder().crds([]).start().await.unwrap();
            tx.send((env.apiserver_pid(), env.etcd_pid(), env.dir().to_path_buf()))
                .unwrap();
            panic!("the test fails while the envtest runs");
        })
    });
    assert!(test.join().is_err(), "the thread panicked");
    let (apiserver, etcd, dir) = rx.recv().expect("the envtest started before the panic");
    assert_cleaned_up(apiserver, etcd, &dir);
}

#[tokio::test]
async fn an_apiserver_that_exits_early_is_reported_with_its_log() {
    if assets("exits early").is_none() {
        return;
    }
    let _turn = OWN_INSTANCE.lock().await;
    let err = Envtest::builder()
        .crds([])
        .apiserver_flag("--no-such-flag=1")
        .start()
        .await
        .unwrap_err();
    assert_exited_on_an_unknown_flag(&err, "kube-apiserver");
}

/// `err` reports that `process` exited, quoting its complaint about `--no-such-flag`.
fn assert_exited_on_an_unknown_flag(err: &EnvtestError, expected: &str) {
    match err {
        EnvtestError::ProcessExited {
            process,
            status,
            log_tail,
        } => {
            assert_eq!(*process, expected);
            assert!(!status.success());
            assert!(
                log_tail.contains("unknown flag: --no-such-flag"),
                "{log_tail}"
            );
        }
        other => panic!("expected ProcessExited, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("{expected} exited early")),
        "{message}"
    );
    assert!(
        message.contains("unknown flag: --no-such-flag"),
        "{message}"
    );
}

#[tokio::test]
async fn a_taken_apiserver_port_is_retried_on_a_free_one() {
    if assets("port taken").is_none() {
        return;
    }
    let _turn = OWN_INSTANCE.lock().await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let env = Envtest::builder()
        .crds([])
        .apiserver_port(port)
        .start()
        .await
        .expect("starts on another port");
    assert_ne!(env.server_url(), format!("https://127.0.0.1:{port}"));
    kube::Api::<Namespace>::all(env.client())
        .get("default")
        .await
        .unwrap();
    drop(taken);
}

#[tokio::test]
async fn a_start_timeout_says_what_was_missing() {
    if assets("timeout").is_none() {
        return;
    }
    let _turn = OWN_INSTANCE.lock().await;
    // No apiserver answers within a millisecond of being spawned.
    let err = Envtest::builder()
        .crds([])
        .start_timeout(Duration::from_millis(1))
        .start()
        .await
        .unwrap_err();
    match &err {
        EnvtestError::Timeout {
            timeout,
            waiting_for,
            ..
        } => {
            assert_eq!(*timeout, Duration::from_millis(1));
            assert!(waiting_for.contains("/readyz"), "{waiting_for}");
        }
        other => panic!("expected Timeout, got {other:?}"),
    }
}

#[tokio::test]
async fn an_assets_dir_without_the_binaries_is_named() {
    let empty = tempfile::tempdir().unwrap();
    let err = Envtest::builder()
        .assets_dir(empty.path())
        .start()
        .await
        .unwrap_err();
    match &err {
        EnvtestError::AssetsMissing {
            origin,
            dir,
            dir_exists,
            missing,
        } => {
            assert_eq!(*origin, "EnvtestBuilder::assets_dir");
            assert_eq!(dir, empty.path());
            assert!(dir_exists);
            assert_eq!(missing, &["etcd", "kube-apiserver"]);
        }
        other => panic!("expected AssetsMissing, got {other:?}"),
    }

    // Only what is missing is named; a file that cannot be executed does not count.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let etcd = empty.path().join("etcd");
        std::fs::write(&etcd, "#!/bin/sh\n").unwrap();
        std::fs::write(empty.path().join("kube-apiserver"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&etcd, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = Envtest::builder()
            .assets_dir(empty.path())
            .start()
            .await
            .unwrap_err();
        assert!(
            matches!(&err, EnvtestError::AssetsMissing { missing, .. } if missing == &["kube-apiserver"]),
            "{err:?}"
        );
        assert!(
            err.to_string().starts_with("kube-apiserver missing from"),
            "{err}"
        );
    }
}

/// Runs this test binary again with only [`subprocess_entry`] selected, in `mode`, with
/// `KUBEBUILDER_ASSETS` as given (unset for `None`).
fn subprocess(mode: &str, assets: Option<&Path>) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", "envtest::subprocess_entry", "--nocapture"])
        .env("KUBEGEN_ENVTEST_SUBPROCESS", mode);
    match assets {
        Some(dir) => command.env("KUBEBUILDER_ASSETS", dir),
        None => command.env_remove("KUBEBUILDER_ASSETS"),
    };
    command
}

/// What a finished subprocess printed.
fn subprocess_output(mode: &str, assets: Option<&Path>) -> String {
    let output = subprocess(mode, assets).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Whether the subprocess's assets directory has a kube-controller-manager, so its environments
/// can run one too.
fn assets_have_a_controller_manager() -> bool {
    std::env::var_os("KUBEBUILDER_ASSETS")
        .is_some_and(|dir| Path::new(&dir).join("kube-controller-manager").exists())
}

/// The `controller-manager: PID` line a subprocess prints before its `envtest:` line when its
/// environment runs a controller manager.
fn parse_controller_manager_line(line: &str) -> Option<u32> {
    line.strip_prefix("controller-manager: ")?.parse().ok()
}

/// The `envtest: APISERVER_PID ETCD_PID DIR` line a subprocess prints.
fn parse_envtest_line(line: &str) -> Option<(u32, u32, PathBuf)> {
    let mut parts = line.strip_prefix("envtest: ")?.splitn(3, ' ');
    Some((
        parts.next()?.parse().ok()?,
        parts.next()?.parse().ok()?,
        PathBuf::from(parts.next()?),
    ))
}

/// Not a case of its own: the body of the subprocesses the cases below start, so they can
/// choose `KUBEBUILDER_ASSETS` and watch what happens when a test process ends.
#[tokio::test]
async fn subprocess_entry() {
    let Some(mode) = std::env::var_os("KUBEGEN_ENVTEST_SUBPROCESS") else {
        return;
    };
    match mode.to_str().unwrap() {
        "start" => {
            let err = Envtest::start().await.unwrap_err();
            println!("debug: {err:?}");
            println!("message: {err}");
        }
        // The shared instances are never dropped: the exit handler must clean up.
        "shared-then-exit" => {
            let mut envs = vec![Envtest::shared().await.unwrap()];
            if assets_have_a_controller_manager() {
                envs.push(Envtest::shared_with_controllers().await.unwrap());
            }
            for env in envs {
                print_envtest_lines(env);
            }
        }
        // Killed by the parent: no destructor or exit handler runs.
        "start-then-wait" => {
            let env = Envtest::builder()
                .crds([])
                .controller_manager(assets_have_a_controller_manager())
                .start()
                .await
                .unwrap();
            print_envtest_lines(&env);
            tokio::time::sleep(Duration::from_secs(600)).await;
        }
        other => panic!("unknown subprocess mode {other}"),
    }
}

/// The lines [`parse_controller_manager_line`] and [`parse_envtest_line`] read.
fn print_envtest_lines(env: &Envtest) {
    if let Some(pid) = env.controller_manager_pid() {
        println!("controller-manager: {pid}");
    }
    let (apiserver, etcd) = (env.apiserver_pid(), env.etcd_pid());
    println!("envtest: {apiserver} {etcd} {}", env.dir().display());
}

#[test]
fn missing_assets_name_kubebuilder_assets_and_the_binaries() {
    let unset = subprocess_output("start", None);
    assert!(unset.contains("debug: AssetsNotSet"), "{unset}");
    assert!(
        unset.contains("message: KUBEBUILDER_ASSETS is not set"),
        "{unset}"
    );
    assert!(unset.contains("setup-envtest"), "{unset}");

    let empty = tempfile::tempdir().unwrap();
    let missing = empty.path().join("nowhere");
    let out = subprocess_output("start", Some(&missing));
    assert!(
        out.contains(r#"origin: "KUBEBUILDER_ASSETS""#) && out.contains("dir_exists: false"),
        "{out}"
    );
    let expected = format!(
        "message: etcd and kube-apiserver missing from {} (named by KUBEBUILDER_ASSETS), which does not exist",
        missing.display()
    );
    assert!(out.contains(&expected), "{out}");
}

#[cfg(target_os = "linux")]
#[test]
fn the_shared_instance_is_stopped_and_removed_at_exit() {
    let Some(assets) = assets("shared at exit") else {
        return;
    };
    let _turn = OWN_INSTANCE.blocking_lock();
    let out = subprocess_output("shared-then-exit", Some(&assets));
    let envs: Vec<_> = out.lines().filter_map(parse_envtest_line).collect();
    // Envtest::shared(), and Envtest::shared_with_controllers() if the assets allow it.
    let with_controllers = assets.join("kube-controller-manager").exists();
    assert_eq!(envs.len(), 1 + usize::from(with_controllers), "{out}");
    let controller_manager = out.lines().find_map(parse_controller_manager_line);
    assert_eq!(controller_manager.is_some(), with_controllers, "{out}");
    // The subprocess has exited; its exit handler ran before that.
    for (apiserver, etcd, dir) in &envs {
        assert_cleaned_up(*apiserver, *etcd, dir);
    }
    if let (Some(pid), Some((_, _, dir))) = (controller_manager, envs.last()) {
        assert!(
            !running(pid, dir),
            "kube-controller-manager {pid} still runs"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn processes_die_with_a_killed_test_process() {
    use std::io::BufRead;
    let Some(assets) = assets("killed") else {
        return;
    };
    let _turn = OWN_INSTANCE.blocking_lock();
    let mut child = subprocess("start-then-wait", Some(&assets))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    // With a controller manager if the assets have one: it must die too.
    let mut controller_manager = None;
    let (apiserver, etcd, dir) = stdout
        .lines()
        .map_while(Result::ok)
        .find_map(|line| {
            controller_manager = controller_manager.or(parse_controller_manager_line(&line));
            parse_envtest_line(&line)
        })
        .expect("the subprocess started an envtest");
    assert_eq!(
        controller_manager.is_some(),
        assets.join("kube-controller-manager").exists()
    );
    let pids: Vec<u32> = [apiserver, etcd]
        .into_iter()
        .chain(controller_manager)
        .collect();
    assert!(pids.iter().all(|&pid| running(pid, &dir)));
    child.kill().unwrap(); // SIGKILL: no destructor, no exit handler
    child.wait().unwrap();
    // The kernel delivers the parent-death signal as the subprocess's threads exit; the
    // children then need a moment to be torn down.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while pids.iter().any(|&pid| running(pid, &dir)) {
        assert!(
            std::time::Instant::now() < deadline,
            "envtest processes outlived the killed test process"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Nobody removed the directory; do it here.
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Start-up time over five sequential starts (registered CRDs installed each time), without and
/// (if the assets have one) with the controller manager:
/// `cargo test --features envtest --test integration -- envtest::startup_time --ignored --nocapture`.
#[tokio::test]
#[ignore = "a measurement: five sequential starts, twice"]
async fn startup_time_over_five_starts() {
    let Some(assets) = assets("startup time") else {
        return;
    };
    let _turn = OWN_INSTANCE.lock().await;
    for controller_manager in [false, true] {
        if controller_manager && !assets.join("kube-controller-manager").exists() {
            continue;
        }
        let mut times = Vec::new();
        for _ in 0..5 {
            let env = Envtest::builder()
                .controller_manager(controller_manager)
                .start()
                .await
                .unwrap();
            assert_eq!(env.crds().len(), registered_crd_names().len());
            times.push(env.startup_time());
            let dir = env.dir().to_path_buf();
            drop(env);
            assert!(!dir.exists());
        }
        times.sort();
        println!(
            "envtest startup_time over 5 starts{}: min {:?}, median {:?}, max {:?}",
            if controller_manager {
                " with the controller manager"
            } else {
                ""
            },
            times[0],
            times[2],
            times[4]
        );
    }
}
