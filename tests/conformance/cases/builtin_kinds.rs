//! The built-in kinds: kube-apiserver's defaulting, strategies and validation of the kinds
//! operators own (Deployments, Jobs, Services, ConfigMaps, Secrets, RBAC, ...), strategic
//! merge patch, field selectors, namespace lifecycle and discovery.
//!
//! Most cases replay requests recorded from kube-apiserver v1.36.2 while the built-in kinds
//! were ported (`runtime/testing/src/builtin/testdata/`): each create as it was sent, each
//! update after a create of the object it updated. The recordings only supply the requests;
//! the answers compared are this run's (or `apiserver.json`'s).

use std::path::Path;

use http::Method;
use serde_json::{Value, json};

use super::{CONFIGMAPS, DEPLOYMENTS, SCALARS, SERVICE_ACCOUNTS};
use crate::conformance::script::{Case, JSON, JSON_PATCH, MERGE, Res, STRATEGIC};

/// The namespace the recordings were made in.
const RECORDED_NAMESPACE: &str = "i22";

const NAMESPACES: Res = Res {
    group: "",
    version: "v1",
    plural: "namespaces",
    namespaced: false,
};
const SECRETS: Res = Res {
    group: "",
    version: "v1",
    plural: "secrets",
    namespaced: true,
};
const SERVICES: Res = Res {
    group: "",
    version: "v1",
    plural: "services",
    namespaced: true,
};

/// A recorded request.
struct Recorded {
    stem: String,
    method: String,
    path: String,
    content_type: Option<String>,
    body: Value,
}

fn recordings(area: &str) -> Vec<Recorded> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("runtime/testing/src/builtin/testdata")
        .join(area);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let file: Value = serde_json::from_str(&text).unwrap();
            let request = &file["request"];
            Recorded {
                stem: path.file_stem().unwrap().to_string_lossy().into_owned(),
                method: request["method"].as_str().unwrap_or("").to_owned(),
                path: request["path"].as_str().unwrap_or("").to_owned(),
                content_type: request["contentType"].as_str().map(str::to_owned),
                body: request["body"].clone(),
            }
        })
        .collect()
}

/// A request path's resource, object name and query.
fn target(path: &str) -> Option<(Res, Option<String>, Option<String>)> {
    let (path, query) = match path.split_once('?') {
        Some((p, q)) => (p, Some(q.to_owned())),
        None => (path, None),
    };
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return None,
    };
    let (namespaced, rest) = match rest {
        ["namespaces", _, resource, rest @ ..] => (true, [&[*resource], rest].concat()),
        rest => (false, rest.to_vec()),
    };
    let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
    let res = Res {
        group: leak(group),
        version: leak(version),
        plural: leak(rest.first()?),
        namespaced,
    };
    Some((res, rest.get(1).map(|s| s.to_string()), query))
}

/// The recording's namespace replaced by the run's, and a cluster-scoped object's name made
/// the run's own (`{ns}-<name>`), in `value` and in an object name.
fn localize(value: &mut Value, cluster_scoped: bool) {
    fn walk(value: &mut Value) {
        match value {
            Value::String(s) if s == RECORDED_NAMESPACE => *s = "{ns}".into(),
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::Object(m) => m.values_mut().for_each(walk),
            _ => {}
        }
    }
    walk(value);
    if cluster_scoped && let Some(Value::String(name)) = value.pointer_mut("/metadata/name") {
        *name = format!("{{ns}}-{name}");
    }
}

fn local_name(name: &str, cluster_scoped: bool) -> String {
    match cluster_scoped {
        true => format!("{{ns}}-{name}"),
        false => name.to_owned(),
    }
}

/// A Pod's namespace needs its `default` ServiceAccount (the ServiceAccount admission of a
/// real apiserver refuses Pods without it; no controller-manager creates it here).
fn with_service_account(case: Case, res: &Res) -> Case {
    match (res.group, res.plural) {
        ("", "pods") => case.create(
            SERVICE_ACCOUNTS,
            "ServiceAccount",
            json!({"metadata": {"name": "default"}}),
        ),
        _ => case,
    }
}

fn create(case: Case, r: &Recorded) -> Option<Case> {
    let (res, _, query) = target(&r.path)?;
    let mut body = r.body.clone();
    localize(&mut body, !res.namespaced);
    let kind = body["kind"].as_str().unwrap_or("").to_owned();
    let case = with_service_account(case, &res);
    Some(case.create_with(res, &kind, query.as_deref(), body))
}

/// The content types the recordings use.
fn content_type(name: Option<&str>) -> &'static str {
    match name {
        Some("application/merge-patch+json") => MERGE,
        Some("application/json-patch+json") => JSON_PATCH,
        Some("application/strategic-merge-patch+json") => STRATEGIC,
        Some("application/xml") => "application/xml",
        _ => JSON,
    }
}

/// An update of an object the case first creates as `base` created it.
fn update(case: Case, r: &Recorded, base: &Recorded) -> Option<Case> {
    let case = create(case, base)?;
    let (res, name, query) = target(&r.path)?;
    let name = local_name(&name?, !res.namespaced);
    let mut body = r.body.clone();
    localize(&mut body, !res.namespaced);
    Some(match r.method.as_str() {
        "PUT" => {
            if body["metadata"]["resourceVersion"].is_string() {
                body["metadata"]["resourceVersion"] = json!("{rv}");
            }
            let kind = body["kind"].as_str().unwrap_or("").to_owned();
            case.put(res, &kind, &name, None, body)
        }
        _ => case.patch(
            res,
            &name,
            None,
            content_type(r.content_type.as_deref()),
            query.as_deref(),
            body,
        ),
    })
}

/// The recorded create of the object `r` updates: a POST to its collection of an object of
/// its name.
fn base_of<'r>(r: &Recorded, all: &'r [Recorded]) -> Option<&'r Recorded> {
    let (res, name, _) = target(&r.path)?;
    let name = name?;
    all.iter().find(|b| {
        b.method == "POST"
            && target(&b.path).is_some_and(|(bres, _, _)| bres.collection() == res.collection())
            && b.body["metadata"]["name"] == name.as_str()
    })
}

/// Creates, updates and refusals recorded while defaulting and validation were ported.
fn recorded_cases() -> Vec<Case> {
    let mut all = recordings("defaults");
    for r in recordings("validate") {
        if !all.iter().any(|a| a.stem == r.stem) {
            all.push(r);
        }
    }
    let mut cases = Vec::new();
    for r in &all {
        let case = Case::new(format!("builtin: {}", r.stem));
        let case = match r.method.as_str() {
            "POST" => create(case, r),
            "PUT" | "PATCH" => base_of(r, &all).and_then(|base| update(case, r, base)),
            _ => None,
        };
        cases.extend(case);
    }
    cases
}

/// The Deployment every strategic-merge-patch recording patched.
fn smp_deployment() -> Value {
    json!({
        "metadata": {"name": "smp", "finalizers": ["example.com/a", "example.com/b"],
                     "annotations": {"keep": "1", "other": "2"}},
        "spec": {"selector": {"matchLabels": {"app": "smp"}},
                 "template": {"metadata": {"labels": {"app": "smp"}}, "spec": {
                     "containers": [
                         {"name": "a", "image": "nginx:1.27", "args": ["x", "y"],
                          "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                          "ports": [{"name": "http", "containerPort": 80}, {"containerPort": 81}]},
                         {"name": "b", "image": "busybox:1"}],
                     "volumes": [{"name": "v1", "emptyDir": {}}],
                     "tolerations": [{"key": "k1", "operator": "Exists"}]}}},
    })
}

/// The Service the strategic-merge-patch recordings of ports patched.
fn smp_service() -> Value {
    json!({"metadata": {"name": "smp-svc"},
           "spec": {"ports": [{"name": "dns", "port": 53, "protocol": "UDP"}, {"name": "http", "port": 80}]}})
}

/// Strategic merge patches (and the other patch types beside them) of the recorded bases.
fn smp_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for r in recordings("smp") {
        let Some((res, Some(name), query)) = target(&r.path) else {
            continue;
        };
        let case = Case::new(format!("builtin: {}", r.stem));
        let case = match (res.plural, name.as_str()) {
            ("deployments", "smp") => case.create(DEPLOYMENTS, "Deployment", smp_deployment()),
            ("services", "smp-svc") => case.create(SERVICES, "Service", smp_service()),
            _ => continue,
        };
        let case = match &r.body {
            Value::String(text) => case.raw(
                Method::PATCH,
                &res.object(&name),
                Some(content_type(r.content_type.as_deref())),
                text.as_bytes(),
            ),
            body => case.patch(
                res,
                &name,
                None,
                content_type(r.content_type.as_deref()),
                query.as_deref(),
                body.clone(),
            ),
        };
        cases.push(case);
    }
    cases.push(
        Case::new("builtin: a strategic merge patch of a custom resource is a 415")
            .create(
                SCALARS,
                "Scalar",
                json!({"metadata": {"name": "s"}, "spec": {}}),
            )
            .patch(SCALARS, "s", None, STRATEGIC, None, json!({"spec": {}})),
    );
    cases
}

/// Every listable built-in resource refuses an unknown field label in its own words; the
/// labels it knows select.
fn field_selector_cases() -> Vec<Case> {
    let resources: &[(&str, &str, &str, bool)] = &[
        ("", "v1", "configmaps", true),
        ("", "v1", "endpoints", true),
        ("", "v1", "events", true),
        ("", "v1", "limitranges", true),
        ("", "v1", "namespaces", false),
        ("", "v1", "nodes", false),
        ("", "v1", "persistentvolumeclaims", true),
        ("", "v1", "persistentvolumes", false),
        ("", "v1", "pods", true),
        ("", "v1", "podtemplates", true),
        ("", "v1", "replicationcontrollers", true),
        ("", "v1", "resourcequotas", true),
        ("", "v1", "secrets", true),
        ("", "v1", "serviceaccounts", true),
        ("", "v1", "services", true),
        ("apps", "v1", "controllerrevisions", true),
        ("apps", "v1", "daemonsets", true),
        ("apps", "v1", "deployments", true),
        ("apps", "v1", "replicasets", true),
        ("apps", "v1", "statefulsets", true),
        ("autoscaling", "v2", "horizontalpodautoscalers", true),
        ("batch", "v1", "cronjobs", true),
        ("batch", "v1", "jobs", true),
        (
            "certificates.k8s.io",
            "v1",
            "certificatesigningrequests",
            false,
        ),
        ("coordination.k8s.io", "v1", "leases", true),
        ("discovery.k8s.io", "v1", "endpointslices", true),
        ("events.k8s.io", "v1", "events", true),
        ("networking.k8s.io", "v1", "ingresses", true),
        ("networking.k8s.io", "v1", "networkpolicies", true),
        ("policy", "v1", "poddisruptionbudgets", true),
        ("rbac.authorization.k8s.io", "v1", "clusterroles", false),
        ("rbac.authorization.k8s.io", "v1", "roles", true),
        ("resource.k8s.io", "v1", "resourceslices", false),
        ("scheduling.k8s.io", "v1", "priorityclasses", false),
        ("storage.k8s.io", "v1", "storageclasses", false),
    ];
    let mut case = Case::new("builtin: field selectors, an unknown label per resource");
    for (group, version, plural, namespaced) in resources {
        let res = Res {
            group,
            version,
            plural,
            namespaced: *namespaced,
        };
        case = case.list(res, "fieldSelector=bogus.field%3Dx");
    }
    let secret = |name: &str, kind: &str| json!({"metadata": {"name": name}, "type": kind});
    vec![
        case,
        Case::new("builtin: field selectors, a Secret's type")
            .create(SECRETS, "Secret", secret("opaque", "Opaque"))
            .create(
                SECRETS,
                "Secret",
                json!({"metadata": {"name": "token"}, "type": "kubernetes.io/basic-auth", "stringData": {"username": "u"}}),
            )
            .list(SECRETS, "fieldSelector=type%3DOpaque")
            .list(SECRETS, "fieldSelector=type!%3DOpaque")
            .list(SECRETS, "fieldSelector=metadata.name%3Dtoken"),
        Case::new("builtin: field selectors, namespaces by phase")
            .create(NAMESPACES, "Namespace", json!({"metadata": {"name": "{ns}-a"}}))
            .list(NAMESPACES, "fieldSelector=metadata.name%3D{ns}-a")
            .list(NAMESPACES, "fieldSelector=metadata.name%3D{ns}-a,status.phase%3DActive")
            .list(NAMESPACES, "fieldSelector=metadata.namespace%3Dx"),
    ]
}

/// NamespaceLifecycle and the Namespace registry.
fn namespace_cases() -> Vec<Case> {
    let cm = |name: &str| json!({"metadata": {"name": name}, "data": {"a": "b"}});
    let in_namespace = |ns: &str| Res {
        group: "",
        version: "v1",
        plural: Box::leak(format!("namespaces/{ns}/configmaps").into_boxed_str()),
        namespaced: false,
    };
    vec![
        Case::new("builtin: namespaces, the system namespaces exist")
            .get(NAMESPACES, "default", None)
            .get(NAMESPACES, "kube-system", None)
            .get(NAMESPACES, "kube-public", None)
            .get(NAMESPACES, "kube-node-lease", None),
        Case::new("builtin: namespaces, a create into a missing one is a 404")
            .create(in_namespace("{ns}-missing"), "ConfigMap", cm("x"))
            .create_with(in_namespace("{ns}-missing"), "ConfigMap", Some("dryRun=All"), cm("x"))
            .get(in_namespace("{ns}-missing"), "x", None)
            .list(in_namespace("{ns}-missing"), ""),
        Case::new("builtin: namespaces, create sets the finalizer, label and phase").create(
            NAMESPACES,
            "Namespace",
            json!({"metadata": {"name": "{ns}-b", "labels": {"kubernetes.io/metadata.name": "wrong"}},
                   "spec": {"finalizers": ["example.com/f"]}, "status": {"phase": "Terminating"}}),
        ),
        Case::new("builtin: namespaces, a name must be a DNS label").create(
            NAMESPACES,
            "Namespace",
            json!({"metadata": {"name": "{ns}.dotted"}}),
        ),
        Case::new("builtin: namespaces, finalizers change only through /finalize")
            .create(NAMESPACES, "Namespace", json!({"metadata": {"name": "{ns}-c"}}))
            .merge(NAMESPACES, "{ns}-c", json!({"spec": {"finalizers": ["example.com/x"]}}))
            .merge(NAMESPACES, "{ns}-c", json!({"metadata": {"labels": null}})),
        Case::new("builtin: namespaces, deleting one leaves it terminating")
            .create(NAMESPACES, "Namespace", json!({"metadata": {"name": "{ns}-d"}}))
            .create(in_namespace("{ns}-d"), "ConfigMap", cm("before"))
            .delete(NAMESPACES, "{ns}-d", json!({}))
            .delete(NAMESPACES, "{ns}-d", json!({}))
            .create(in_namespace("{ns}-d"), "ConfigMap", cm("after"))
            .merge(in_namespace("{ns}-d"), "before", json!({"data": {"a": "c"}}))
            .create(NAMESPACES, "Namespace", json!({"metadata": {"name": "{ns}-d"}}))
            .put(
                NAMESPACES,
                "Namespace",
                "{ns}-d",
                Some("finalize"),
                json!({"metadata": {"name": "{ns}-d"}, "spec": {"finalizers": []}}),
            ),
        Case::new("builtin: namespaces, the system namespaces may not be deleted")
            .delete(NAMESPACES, "default", json!({}))
            .delete(NAMESPACES, "kube-system", json!({}))
            .delete(NAMESPACES, "kube-public", json!({})),
    ]
}

/// What every built-in group serves, as discovery lists it.
fn discovery_cases() -> Vec<Case> {
    let get = |case: Case, path: &str| case.raw(Method::GET, path, None, b"");
    let mut case = Case::new("builtin: discovery of the built-in groups");
    for path in [
        "/api",
        "/api/v1",
        "/apis/apps/v1",
        "/apis/batch/v1",
        "/apis/autoscaling/v1",
        "/apis/autoscaling/v2",
        "/apis/rbac.authorization.k8s.io/v1",
        "/apis/networking.k8s.io/v1",
        "/apis/policy/v1",
        "/apis/coordination.k8s.io/v1",
        "/apis/events.k8s.io/v1",
        "/apis/apps",
        "/apis/nope.example.com",
        "/apis/apps/v2",
    ] {
        case = get(case, path);
    }
    vec![case]
}

/// Deployments' subresources.
fn subresource_cases() -> Vec<Case> {
    let deployment = json!({"metadata": {"name": "d"}, "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "d"}},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    vec![
        Case::new("builtin: a Deployment's scale and status")
            .create(DEPLOYMENTS, "Deployment", deployment.clone())
            .get(DEPLOYMENTS, "d", Some("scale"))
            .patch(
                DEPLOYMENTS,
                "d",
                Some("scale"),
                MERGE,
                None,
                json!({"spec": {"replicas": 5}}),
            )
            .patch(
                DEPLOYMENTS,
                "d",
                Some("status"),
                MERGE,
                None,
                json!({"status": {"replicas": 5, "availableReplicas": 3, "observedGeneration": 2}}),
            )
            .merge(DEPLOYMENTS, "d", json!({"status": {"replicas": 9}}))
            .get(DEPLOYMENTS, "d", Some("status")),
        Case::new("builtin: a ConfigMap replaced without a resourceVersion")
            .create(
                CONFIGMAPS,
                "ConfigMap",
                json!({"metadata": {"name": "cm"}, "data": {"a": "1"}}),
            )
            .put(
                CONFIGMAPS,
                "ConfigMap",
                "cm",
                None,
                json!({"metadata": {"name": "cm"}, "data": {"a": "2"}}),
            ),
        Case::new("builtin: a ConfigMap applied, then strategically patched")
            .apply(
                CONFIGMAPS,
                "ConfigMap",
                "cm",
                "kubegen-test",
                false,
                json!({"metadata": {"name": "cm", "labels": {"a": "1"}}, "data": {"k": "v"}}),
            )
            .patch(
                CONFIGMAPS,
                "cm",
                None,
                STRATEGIC,
                None,
                json!({"data": {"k2": "v2"}}),
            )
            .apply(
                CONFIGMAPS,
                "ConfigMap",
                "cm",
                "kubegen-test",
                false,
                json!({"metadata": {"name": "cm"}, "data": {"k": "w"}}),
            ),
    ]
}

pub fn cases() -> Vec<Case> {
    let mut cases = recorded_cases();
    cases.extend(smp_cases());
    cases.extend(field_selector_cases());
    cases.extend(namespace_cases());
    cases.extend(discovery_cases());
    cases.extend(subresource_cases());
    cases
}
