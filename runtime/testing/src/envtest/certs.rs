//! The certificates and keys an envtest apiserver runs with, generated in-process with rcgen.
//!
//! Two CAs keep the roles apart as in a real cluster: one signs the apiserver's serving
//! certificate (clients trust it), the other is the apiserver's `--client-ca-file` and signs the
//! admin client certificate, whose organization `system:masters` makes it cluster-admin under
//! RBAC. All keys are ECDSA P-256.
//!
//! The kube-controller-manager, when asked for, reads three of these files too: the
//! service-account key (to sign legacy token Secrets; the apiserver verifies them with its
//! public half), the serving CA (the `ca.crt` it publishes for Pods) and the client CA with its
//! key (to sign approved CertificateSigningRequests the apiserver then trusts).

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

use super::error::EnvtestError;

/// The names the serving certificate is valid for: loopback, and the in-cluster names of the
/// `kubernetes` service, so a client configured either way verifies it.
const SERVING_NAMES: [&str; 5] = [
    "127.0.0.1",
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
];

/// The admin client identity's user name; its group is `system:masters`.
pub(super) const ADMIN_USER: &str = "envtest-admin";

/// Paths of the generated files, all inside the envtest directory.
pub(super) struct Pki {
    /// The CA that signed the serving certificate: what clients trust.
    pub serving_ca: PathBuf,
    /// The apiserver's serving certificate and key.
    pub serving_cert: PathBuf,
    pub serving_key: PathBuf,
    /// The CA the apiserver trusts for client certificates, and its key.
    pub client_ca: PathBuf,
    pub client_ca_key: PathBuf,
    /// The admin client certificate and key.
    pub admin_cert: PathBuf,
    pub admin_key: PathBuf,
    /// The service-account token signing key, and its public half.
    pub service_account_key: PathBuf,
    pub service_account_pub: PathBuf,
}

/// Generates every certificate and key into `dir` (which must exist).
pub(super) fn generate(dir: &Path) -> Result<Pki, EnvtestError> {
    let pki = Pki {
        serving_ca: dir.join("serving-ca.crt"),
        serving_cert: dir.join("apiserver.crt"),
        serving_key: dir.join("apiserver.key"),
        client_ca: dir.join("client-ca.crt"),
        client_ca_key: dir.join("client-ca.key"),
        admin_cert: dir.join("admin.crt"),
        admin_key: dir.join("admin.key"),
        service_account_key: dir.join("sa.key"),
        service_account_pub: dir.join("sa.pub"),
    };

    let serving_ca = new_ca("kubegen-envtest-serving-ca", "serving CA")?;
    write(&pki.serving_ca, &serving_ca.pem())?;
    let (serving_cert, serving_key) = new_leaf(
        &serving_ca,
        &SERVING_NAMES,
        |params| {
            params
                .distinguished_name
                .push(DnType::CommonName, "kube-apiserver");
            params
                .extended_key_usages
                .push(ExtendedKeyUsagePurpose::ServerAuth);
        },
        "apiserver serving certificate",
    )?;
    write(&pki.serving_cert, &serving_cert)?;
    write(&pki.serving_key, &serving_key)?;

    let client_ca = new_ca("kubegen-envtest-client-ca", "client CA")?;
    write(&pki.client_ca, &client_ca.pem())?;
    write(&pki.client_ca_key, &client_ca.key().serialize_pem())?;
    let (admin_cert, admin_key) = new_leaf(
        &client_ca,
        &[],
        |params| {
            // The apiserver reads the user name from CN and the groups from O.
            params
                .distinguished_name
                .push(DnType::CommonName, ADMIN_USER);
            params
                .distinguished_name
                .push(DnType::OrganizationName, "system:masters");
            params
                .extended_key_usages
                .push(ExtendedKeyUsagePurpose::ClientAuth);
        },
        "admin client certificate",
    )?;
    write(&pki.admin_cert, &admin_cert)?;
    write(&pki.admin_key, &admin_key)?;

    let service_account = key_pair("service-account signing key")?;
    write(&pki.service_account_key, &service_account.serialize_pem())?;
    write(&pki.service_account_pub, &service_account.public_key_pem())?;
    Ok(pki)
}

/// A self-signed CA allowed to sign certificates.
fn new_ca(
    common_name: &str,
    what: &'static str,
) -> Result<CertifiedIssuer<'static, KeyPair>, EnvtestError> {
    let mut params = CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(DnType::CommonName, common_name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    CertifiedIssuer::self_signed(params, key_pair(what)?).map_err(certificate(what))
}

/// A certificate for `names` signed by `ca`, shaped by `configure`; returns the certificate
/// and its private key as PEM.
fn new_leaf(
    ca: &CertifiedIssuer<'static, KeyPair>,
    names: &[&str],
    configure: impl FnOnce(&mut CertificateParams),
    what: &'static str,
) -> Result<(String, String), EnvtestError> {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut params = CertificateParams::new(names).map_err(certificate(what))?;
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.use_authority_key_identifier_extension = true;
    configure(&mut params);
    let key = key_pair(what)?;
    let cert = params.signed_by(&key, ca).map_err(certificate(what))?;
    Ok((cert.pem(), key.serialize_pem()))
}

fn key_pair(what: &'static str) -> Result<KeyPair, EnvtestError> {
    KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(certificate(what))
}

fn certificate(what: &'static str) -> impl FnOnce(rcgen::Error) -> EnvtestError {
    move |source| EnvtestError::Certificate {
        what,
        source: Box::new(source),
    }
}

fn write(path: &Path, pem: &str) -> Result<(), EnvtestError> {
    std::fs::write(path, pem).map_err(EnvtestError::io(format!("writing {}", path.display())))
}
