//! A StatefulSet Pod's identity (`stateful_set_utils.go`): its ordinal and name, its labels,
//! hostname and subdomain, the claims mounted as its volumes, and the Pod made for an
//! ordinal at the current or the update revision.

use serde_json::{Value, json};

use super::claims::claims_for;
use crate::controllers::ownership::controller_ref;
use crate::controllers::podutil::{label, meta, pod_from_template};

/// The label naming a StatefulSet Pod.
pub(super) const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
/// The label carrying a StatefulSet Pod's ordinal.
pub(super) const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";
/// The label naming the revision a Pod was made from.
pub(super) const REVISION_LABEL: &str = "controller-revision-hash";

/// `getParentNameAndOrdinal`: `(.*)-([0-9]+)$` over a Pod's name; the ordinal is -1 when
/// the name does not end so or its number does not fit an int32.
pub(super) fn parent_and_ordinal(name: &str) -> (&str, i64) {
    let Some((parent, digits)) = name.rsplit_once('-') else {
        return ("", -1);
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return ("", -1);
    }
    let ordinal = digits.parse::<i32>().map(i64::from).unwrap_or(-1);
    (parent, ordinal)
}

/// A Pod's ordinal (-1 if its name has none).
pub(super) fn ordinal(pod: &Value) -> i64 {
    parent_and_ordinal(meta(pod, "name")).1
}

/// `isMemberOf`: the Pod's name is `<set>-<ordinal>`.
pub(super) fn is_member_of(set: &Value, pod: &Value) -> bool {
    parent_and_ordinal(meta(pod, "name")).0 == meta(set, "name")
}

/// The set's first ordinal (`spec.ordinals.start`, 0 by default).
pub(super) fn start_ordinal(set: &Value) -> i64 {
    set["spec"]["ordinals"]["start"].as_i64().unwrap_or(0)
}

/// `spec.replicas` (defaulted to 1).
pub(super) fn replicas(set: &Value) -> i64 {
    set["spec"]["replicas"].as_i64().unwrap_or(1)
}

/// The set's last ordinal.
pub(super) fn end_ordinal(set: &Value) -> i64 {
    start_ordinal(set) + replicas(set) - 1
}

/// `podInOrdinalRange`.
pub(super) fn in_ordinal_range(pod: &Value, set: &Value) -> bool {
    let ordinal = ordinal(pod);
    ordinal >= start_ordinal(set) && ordinal <= end_ordinal(set)
}

/// `<set>-<ordinal>`.
pub(super) fn pod_name(set: &Value, ordinal: i64) -> String {
    format!("{}-{ordinal}", meta(set, "name"))
}

/// The revision a Pod was made from (its `controller-revision-hash`).
pub(super) fn revision_of(pod: &Value) -> &str {
    label(pod, REVISION_LABEL).unwrap_or("")
}

/// `identityMatches`: the Pod's name, namespace and pod-name label are its ordinal's.
pub(super) fn identity_matches(set: &Value, pod: &Value) -> bool {
    let (parent, ordinal) = parent_and_ordinal(meta(pod, "name"));
    ordinal >= 0
        && parent == meta(set, "name")
        && meta(pod, "name") == pod_name(set, ordinal)
        && meta(pod, "namespace") == meta(set, "namespace")
        && label(pod, POD_NAME_LABEL) == Some(meta(pod, "name"))
}

/// `storageMatches`: every claim template is mounted, as the ordinal's claim.
pub(super) fn storage_matches(set: &Value, pod: &Value) -> bool {
    let ordinal = ordinal(pod);
    if ordinal < 0 {
        return false;
    }
    let volumes = pod["spec"]["volumes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    claims_for(set, ordinal).iter().all(|(template, claim)| {
        volumes.iter().any(|v| {
            v["name"] == template.as_str()
                && v["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
        })
    })
}

/// `updateIdentity`: the ordinal's name and namespace, and the labels naming it.
pub(super) fn update_identity(set: &Value, pod: &mut Value) {
    let ordinal = ordinal(pod);
    let name = pod_name(set, ordinal);
    pod["metadata"]["name"] = json!(name);
    pod["metadata"]["namespace"] = json!(meta(set, "namespace"));
    if !pod["metadata"]["labels"].is_object() {
        pod["metadata"]["labels"] = json!({});
    }
    pod["metadata"]["labels"][POD_NAME_LABEL] = json!(name);
    pod["metadata"]["labels"][POD_INDEX_LABEL] = json!(ordinal.to_string());
}

/// `updateStorage`: a volume per claim template, naming the ordinal's claim, first; the
/// Pod's other volumes after them.
pub(super) fn update_storage(set: &Value, pod: &mut Value) {
    let claims = claims_for(set, ordinal(pod));
    let mut volumes: Vec<Value> = claims
        .iter()
        .map(|(template, claim)| {
            json!({"name": template, "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}})
        })
        .collect();
    for volume in pod["spec"]["volumes"].as_array().into_iter().flatten() {
        let name = volume["name"].as_str().unwrap_or("");
        if !claims.iter().any(|(template, _)| template == name) {
            volumes.push(volume.clone());
        }
    }
    if volumes.is_empty() {
        if let Some(spec) = pod["spec"].as_object_mut() {
            spec.remove("volumes");
        }
    } else {
        pod["spec"]["volumes"] = Value::Array(volumes);
    }
}

/// `newStatefulSetPod`: the set's template as Pod `<set>-<ordinal>`, with its identity and
/// storage.
fn new_pod(set: &Value, ordinal: i64) -> Value {
    let reference = controller_ref(set, super::API_VERSION, super::KIND);
    let mut pod = pod_from_template(&set["spec"]["template"], set, reference);
    pod["metadata"]["name"] = json!(pod_name(set, ordinal));
    update_identity(set, &mut pod);
    let name = pod["metadata"]["name"].clone();
    let spec = pod["spec"]
        .as_object_mut()
        .expect("a Pod built with a spec");
    spec.insert("hostname".into(), name);
    match set["spec"]["serviceName"].as_str() {
        Some(service) if !service.is_empty() => {
            spec.insert("subdomain".into(), json!(service));
        }
        _ => {
            spec.remove("subdomain");
        }
    }
    update_storage(set, &mut pod);
    pod
}

/// `newVersionedStatefulSetPod`: below the partition (RollingUpdate) a Pod of the current
/// revision, otherwise of the update revision, labelled with the revision's name. The Go
/// condition's operator precedence is kept.
pub(super) fn new_versioned_pod(
    current_set: &Value,
    update_set: &Value,
    current_revision: &str,
    update_revision: &str,
    ordinal: i64,
) -> Value {
    let strategy = &current_set["spec"]["updateStrategy"];
    let rolling = strategy["type"] == "RollingUpdate";
    let start = start_ordinal(current_set);
    let below_current = strategy["rollingUpdate"].is_null()
        && ordinal
            < start
                + current_set["status"]["currentReplicas"]
                    .as_i64()
                    .unwrap_or(0);
    let below_partition = !strategy["rollingUpdate"].is_null()
        && ordinal < start + strategy["rollingUpdate"]["partition"].as_i64().unwrap_or(0);
    let (set, revision) = if (rolling && below_current) || below_partition {
        (current_set, current_revision)
    } else {
        (update_set, update_revision)
    };
    let mut pod = new_pod(set, ordinal);
    pod["metadata"]["labels"][REVISION_LABEL] = json!(revision);
    pod
}

/// The set with its template replaced by a revision's (`ApplyRevision`).
pub(super) fn with_template(set: &Value, template: Value) -> Value {
    let mut applied = set.clone();
    applied["spec"]["template"] = template;
    applied
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_are_read_as_the_regular_expression_reads_them() {
        assert_eq!(parent_and_ordinal("web-0"), ("web", 0));
        assert_eq!(parent_and_ordinal("web-0-12"), ("web-0", 12));
        assert_eq!(parent_and_ordinal("-5"), ("", 5));
        assert_eq!(parent_and_ordinal("web-"), ("", -1));
        assert_eq!(parent_and_ordinal("web-x"), ("", -1));
        assert_eq!(parent_and_ordinal("web"), ("", -1));
        assert_eq!(parent_and_ordinal("web-99999999999"), ("web", -1));
    }
}
