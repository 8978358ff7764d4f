//! The root-CA publisher: a `kube-root-ca.crt` ConfigMap in every namespace with the
//! cluster's CA bundle, made again when deleted and put back when changed
//! (`pkg/controller/certificates/rootcacertpublisher`).

use serde_json::{Value, json};

use super::api::CONFIG_MAPS;
use super::{Api, Change, ChangeType, Cx, Outcome, Queue, Run, SyncError};

/// The ConfigMap's name and key.
const NAME: &str = "kube-root-ca.crt";
const KEY: &str = "ca.crt";
const DESCRIPTION_ANNOTATION: &str = "kubernetes.io/description";
const DESCRIPTION: &str = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/// The in-memory cluster's CA: a self-signed certificate (its key was thrown away), for
/// code that reads the bundle; nothing serves TLS with it.
pub(crate) const CA_BUNDLE: &str = "-----BEGIN CERTIFICATE-----\nMIIBlDCCATugAwIBAgIUBRc4jRW8SOIWJ8IqVo7OFIrMJBIwCgYIKoZIzj0EAwIw\nHzEdMBsGA1UEAwwUa3ViZWdlbi1pbi1tZW1vcnktY2EwIBcNMjYxMTI4MDgwMjM5\nWhgPMjEyNjExMDQwODAyMzlaMB8xHTAbBgNVBAMMFGt1YmVnZW4taW4tbWVtb3J5\nLWNhMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5FGyjxTx9VEmTQOqHXB2QMgy\niHRkjhrej5EssuWStC+3GmmPlWqrPyMuVVSZ+tQQLEqSOFvC7fms2VSbQcOq56NT\nMFEwHQYDVR0OBBYEFPGivCMqC+gLHYMtKwAKCcAEcYLFMB8GA1UdIwQYMBaAFPGi\nvCMqC+gLHYMtKwAKCcAEcYLFMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwID\nRwAwRAIgNTZjMBVO4hyr8g7mH7TuVdVA7F/E2qxUYbibACaxsTICIB0N38bGFg56\nJ/n2vWPfhj5R7C5eAJmd0JLvK3xADpDF\n-----END CERTIFICATE-----\n";

pub(super) struct RootCaPublisher;

impl Run for RootCaPublisher {
    fn name(&self) -> &'static str {
        "root-ca-certificate-publisher-controller"
    }

    fn observe(&mut self, change: &Change, queue: &mut Queue, _: &Api) {
        // A namespace when it appears, and when it changes while active.
        let active = change.object["status"]["phase"] == "Active";
        let namespace = match change.change {
            ChangeType::Added => true,
            ChangeType::Modified => active,
            ChangeType::Deleted => false,
        };
        if change.is("", "namespaces") && namespace {
            queue.add(change.name());
        }
        if change.is("", "configmaps")
            && change.change != ChangeType::Added
            && change.name() == NAME
        {
            queue.add(change.namespace());
        }
    }

    /// The ConfigMap is made when missing (a namespace gone or terminating refuses it,
    /// which is let go) and put back when changed, also in a terminating namespace.
    fn sync(&mut self, namespace: &str, cx: &mut Cx<'_>) -> Result<Outcome, SyncError> {
        let data = json!({KEY: CA_BUNDLE});
        let Some(mut map) = cx.api.get_owned(CONFIG_MAPS, namespace, NAME) else {
            let map = json!({
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": NAME, "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION}},
                "data": data,
            });
            return match cx.api.create(CONFIG_MAPS, namespace, &map) {
                Ok(_) => Ok(Outcome::Done),
                Err(e) if e.is_not_found() || e.is_namespace_terminating() => Ok(Outcome::Done),
                Err(e) => Err(e.into()),
            };
        };
        let described = map["metadata"]["annotations"][DESCRIPTION_ANNOTATION]
            .as_str()
            .is_some_and(|d| !d.is_empty());
        if map["data"] == data && described {
            return Ok(Outcome::Done);
        }
        map["data"] = data;
        if !map["metadata"]["annotations"].is_object() {
            map["metadata"]["annotations"] = Value::Object(Default::default());
        }
        map["metadata"]["annotations"][DESCRIPTION_ANNOTATION] = json!(DESCRIPTION);
        match cx.api.update(CONFIG_MAPS, namespace, NAME, &map) {
            Ok(_) => Ok(Outcome::Done),
            Err(e) if e.is_not_found() => Ok(Outcome::Done),
            Err(e) => Err(e.into()),
        }
    }
}
