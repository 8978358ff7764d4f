//! ControllerRevisions, the template history StatefulSets and DaemonSets keep
//! (`pkg/controller/history`, and the `getPatch` both controllers share): a revision's data
//! is the owner's Pod template as a strategic merge patch that replaces it, written as Go's
//! `json.Marshal` writes a map (keys sorted, compact, HTML characters escaped), so two
//! revisions are equal exactly when their bytes are.

use std::cmp::Ordering;
use std::sync::Arc;

use serde_json::{Value, json};

use super::api::{Api, CONTROLLER_REVISIONS};
use super::ownership::controller_of;
use super::podutil::{labels, meta};
use crate::builtin::validate::LabelSelector;

/// The characters `rand.SafeEncodeString` maps a hash's decimal digits to.
const SAFE_ALPHABET: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";

/// `getPatch`: `{"spec":{"template":{...,"$patch":"replace"}}}` of an owner's template,
/// as Go marshals it.
pub(crate) fn template_patch(owner: &Value) -> Vec<u8> {
    let mut template = owner["spec"]["template"].clone();
    if let Some(t) = template.as_object_mut() {
        t.insert("$patch".into(), json!("replace"));
    }
    kubegen_go::json::to_vec(&json!({"spec": {"template": template}}))
}

/// A revision's data as Go compares it (`bytes.Equal` of `Data.Raw`).
pub(crate) fn data_bytes(revision: &Value) -> Vec<u8> {
    kubegen_go::json::to_vec(&revision["data"])
}

/// The Pod template a revision holds.
pub(crate) fn template_of(revision: &Value) -> Value {
    let mut template = revision["data"]["spec"]["template"].clone();
    if let Some(t) = template.as_object_mut() {
        t.remove("$patch");
    }
    template
}

/// A revision's `revision` number.
pub(crate) fn number(revision: &Value) -> i64 {
    revision["revision"].as_i64().unwrap_or(0)
}

/// `SortControllerRevisions`: by revision, then creation time, then name.
pub(crate) fn sort(revisions: &mut [Value]) {
    revisions.sort_by(|a, b| {
        number(a)
            .cmp(&number(b))
            .then_with(|| creation(a).cmp(&creation(b)))
            .then_with(|| meta(a, "name").cmp(meta(b, "name")))
    });
}

fn creation(object: &Value) -> Option<jiff::Timestamp> {
    object["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(|t| t.parse().ok())
}

/// `rand.SafeEncodeString`: every character of `s` replaced by the alphabet's character at
/// its byte value modulo 27 (no vowels, no look-alike digits).
pub(crate) fn safe_encode(s: &str) -> String {
    s.bytes()
        .map(|b| SAFE_ALPHABET[usize::from(b) % SAFE_ALPHABET.len()] as char)
        .collect()
}

/// Go's `hash/fnv` `New32` (FNV-1) over `parts`.
fn fnv1_32(parts: &[&[u8]]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in parts.iter().flat_map(|p| p.iter()) {
        h = h.wrapping_mul(0x0100_0193);
        h ^= u32::from(*b);
    }
    h
}

/// FNV-1a 32 over `parts` (`hash/fnv` `New32a`).
fn fnv1a_32(parts: &[&[u8]]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in parts.iter().flat_map(|p| p.iter()) {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// `HashControllerRevision`: FNV-1 of the data and the collision count's decimal, safely
/// encoded (a StatefulSet's revisions: the same names kube-controller-manager gives).
pub(crate) fn revision_hash(data: &[u8], collision_count: Option<i64>) -> String {
    let probe = collision_count.map(|c| c.to_string()).unwrap_or_default();
    safe_encode(&fnv1_32(&[data, probe.as_bytes()]).to_string())
}

/// A Pod template's hash, standing in for `controller.ComputeHash` (FNV-1a of a deep print
/// of Go's structs, which only Go's memory layout reproduces): FNV-1a of the template's
/// JSON and the collision count, encoded the same way. A DaemonSet's revisions and Pods
/// carry it.
pub(crate) fn template_hash(template: &Value, collision_count: Option<i64>) -> String {
    let json = kubegen_go::json::to_vec(template);
    // ComputeHash writes the count as 8 bytes, the low 4 little-endian.
    let mut count = [0u8; 8];
    if let Some(c) = collision_count {
        count[..4].copy_from_slice(&(c as u32).to_le_bytes());
    }
    let parts: &[&[u8]] = match collision_count {
        Some(_) => &[&json, &count],
        None => &[&json],
    };
    safe_encode(&fnv1a_32(parts).to_string())
}

/// `ControllerRevisionName`: `<prefix>-<hash>`, the prefix cut to 223 characters.
pub(crate) fn revision_name(prefix: &str, hash: &str) -> String {
    let prefix = match prefix.char_indices().nth(223) {
        Some((i, _)) => &prefix[..i],
        None => prefix,
    };
    format!("{prefix}-{hash}")
}

/// A new revision of `owner`'s template (`NewControllerRevision`, DaemonSet's `snapshot`):
/// named `name`, labelled with the template's labels and `hash_label: hash`, annotated
/// with the owner's annotations, controlled by the owner.
pub(crate) fn new_revision(
    owner: &Value,
    owner_ref: Value,
    name: &str,
    (hash_label, hash): (&str, &str),
    revision: i64,
) -> Value {
    let mut labels = owner["spec"]["template"]["metadata"]["labels"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    labels.insert(hash_label.into(), json!(hash));
    let mut metadata = json!({"name": name, "labels": labels, "ownerReferences": [owner_ref]});
    if owner["metadata"]["annotations"]
        .as_object()
        .is_some_and(|a| !a.is_empty())
    {
        metadata["annotations"] = owner["metadata"]["annotations"].clone();
    }
    let data: Value = serde_json::from_slice(&template_patch(owner)).unwrap_or(Value::Null);
    json!({
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": metadata,
        "data": data,
        "revision": revision,
    })
}

/// `ListControllerRevisions`: the revisions in the owner's namespace that `selector`
/// matches and that the owner controls or nobody does.
pub(crate) fn list(api: &Api, owner: &Value, selector: &LabelSelector) -> Vec<Value> {
    let uid = &owner["metadata"]["uid"];
    api.list(CONTROLLER_REVISIONS, Some(meta(owner, "namespace")))
        .into_iter()
        .filter(|r| selector.matches(labels(r)))
        .filter(|r| controller_of(r).is_none_or(|c| &c["uid"] == uid))
        .map(Arc::unwrap_or_clone)
        .collect()
}

/// `UpdateControllerRevision`: the revision renumbered (nothing written when it has the
/// number already); a conflict is retried on the current object.
pub(crate) fn renumber(api: &Api, revision: &Value, to: i64) -> Result<Value, String> {
    let mut current = revision.clone();
    for _ in 0..4 {
        if number(&current) == to {
            return Ok(current);
        }
        current["revision"] = json!(to);
        let (namespace, name) = (meta(revision, "namespace"), meta(revision, "name"));
        match api.update(CONTROLLER_REVISIONS, namespace, name, &current) {
            Ok(updated) => return Ok(Arc::unwrap_or_clone(updated)),
            Err(e) if e.is_conflict() => match api.get_owned(CONTROLLER_REVISIONS, namespace, name)
            {
                Some(fresh) => current = fresh,
                None => return Err(e.message),
            },
            Err(e) => return Err(e.message),
        }
    }
    Err(format!(
        "Operation cannot be fulfilled on controllerrevisions.apps \"{}\": the object has been modified; please apply your changes to the latest version and try again",
        meta(revision, "name")
    ))
}

/// Deletes a revision (`DeleteControllerRevision`).
pub(crate) fn delete(api: &Api, revision: &Value) -> Result<(), String> {
    api.delete(
        CONTROLLER_REVISIONS,
        meta(revision, "namespace"),
        meta(revision, "name"),
        &Value::Null,
    )
    .map(drop)
    .map_err(|e| e.message)
}

/// Orders revisions by number alone (`historiesByRevision`).
pub(crate) fn by_number(a: &Value, b: &Value) -> Ordering {
    number(a).cmp(&number(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statefulset_revision_is_named_as_kube_controller_manager_names_it() {
        // Recorded: this template's revision is web-74b67c9cd8.
        let data = r#"{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{"mountPath":"/data","name":"data"}]}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}"#;
        assert_eq!(revision_hash(data.as_bytes(), Some(0)), "74b67c9cd8");
        let revision = json!({"data": serde_json::from_str::<Value>(data).unwrap()});
        let set = json!({"spec": {"template": template_of(&revision)}});
        assert_eq!(template_patch(&set), data.as_bytes());
    }

    #[test]
    fn names_and_hashes() {
        assert_eq!(safe_encode("0123456789"), "456789bcdf");
        assert_eq!(revision_name("web", "abc"), "web-abc");
        assert_eq!(revision_name(&"x".repeat(300), "h").len(), 225);
        let t = json!({"metadata": {"labels": {"a": "b"}}});
        assert_eq!(template_hash(&t, None), template_hash(&t, None));
        assert_ne!(template_hash(&t, None), template_hash(&t, Some(1)));
    }
}
