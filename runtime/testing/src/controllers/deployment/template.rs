//! A Deployment's Pod template as its ReplicaSets carry it: the `pod-template-hash` that
//! names the ReplicaSet and labels its Pods, and whether a ReplicaSet's template is the
//! Deployment's (`EqualIgnoreHash`).
//!
//! Go's hash (`controller.ComputeHash`) is FNV-1a over a deep print of the Go struct, which
//! no JSON reproduces. This one is FNV-1a over the template's JSON with its keys sorted,
//! then the collision count as Go adds it, encoded as Go encodes it (`SafeEncodeString` of
//! the decimal number): the same shape and the same properties — stable for a template,
//! different for another one — but other values than kube-controller-manager's.

use serde_json::{Map, Value};

/// The label the ReplicaSets and their Pods carry the hash in.
pub(super) const HASH_LABEL: &str = "pod-template-hash";

/// The characters of Kubernetes' generated names (`utilrand`'s alphabet).
const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// The `pod-template-hash` of `template` (a `PodTemplateSpec`'s JSON) with the
/// Deployment's `collisionCount`.
pub(crate) fn pod_template_hash(template: &Value, collision_count: Option<i64>) -> String {
    let mut hasher = Fnv32a::new();
    write_canonical(template, &mut hasher);
    if let Some(count) = collision_count {
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&(count as u32).to_le_bytes());
        hasher.write(&bytes);
    }
    safe_encode(&hasher.0.to_string())
}

/// `rand.SafeEncodeString`: each character mapped into the alphabet.
fn safe_encode(s: &str) -> String {
    s.chars()
        .map(|c| ALPHANUMS[c as usize % ALPHANUMS.len()] as char)
        .collect()
}

/// 32-bit FNV-1a.
struct Fnv32a(u32);

impl Fnv32a {
    fn new() -> Self {
        Fnv32a(0x811c_9dc5)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u32::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0193);
        }
    }
}

/// Writes `value` as JSON with object keys sorted, whatever order the map keeps.
fn write_canonical(value: &Value, out: &mut Fnv32a) {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.write(b"{");
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.write(b",");
                }
                out.write(Value::String(k.clone()).to_string().as_bytes());
                out.write(b":");
                write_canonical(&m[k], out);
            }
            out.write(b"}");
        }
        Value::Array(a) => {
            out.write(b"[");
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.write(b",");
                }
                write_canonical(v, out);
            }
            out.write(b"]");
        }
        other => out.write(other.to_string().as_bytes()),
    }
}

/// `generateReplicaSetName`: `<deployment>-<hash>`, the Deployment's name cut so that the
/// whole fits a DNS subdomain.
pub(super) fn replica_set_name(deployment: &str, hash: &str) -> String {
    let room = 253usize.saturating_sub(1 + hash.len());
    if deployment.len() > room && room > 0 {
        return format!("{}-{hash}", &deployment[..room]);
    }
    format!("{deployment}-{hash}")
}

/// `EqualIgnoreHash`: the templates are semantically equal once the hash label is gone.
pub(super) fn equal_ignore_hash(a: &Value, b: &Value) -> bool {
    semantic_eq_except(a, b, &["metadata", "labels", HASH_LABEL])
}

/// [`semantic_eq`] with the member at the path `skip` taken out of both sides, without
/// copying them. On the way to it, a missing or `null` object counts as an empty one.
fn semantic_eq_except(a: &Value, b: &Value, skip: &[&str]) -> bool {
    let Some((first, rest)) = skip.split_first() else {
        return semantic_eq(a, b);
    };
    let empty = Map::new();
    let (Some(x), Some(y)) = (object_or_null(a, &empty), object_or_null(b, &empty)) else {
        return semantic_eq(a, b);
    };
    x.iter().all(|(k, v)| match k == *first {
        true => rest.is_empty() || semantic_eq_except(v, member(y, k), rest),
        false => semantic_eq(v, member(y, k)),
    }) && y.iter().all(|(k, v)| match k == *first {
        true => rest.is_empty() || x.contains_key(k) || semantic_eq_except(&Value::Null, v, rest),
        false => x.contains_key(k) || blank(v),
    })
}

/// The member `k` of `m`, `null` when missing.
fn member<'a>(m: &'a Map<String, Value>, k: &str) -> &'a Value {
    m.get(k).unwrap_or(&Value::Null)
}

/// `v`'s members, `empty` for `null`, or `None` when `v` is neither an object nor `null`.
fn object_or_null<'a>(
    v: &'a Value,
    empty: &'a Map<String, Value>,
) -> Option<&'a Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        Value::Null => Some(empty),
        _ => None,
    }
}

/// Go's nil or empty: `null`, an empty list, an empty map.
fn blank(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// `apiequality.Semantic.DeepEqual` on JSON: an absent field, `null`, an empty list and an
/// empty map are the same (Go's nil and empty slices and maps, and omitted fields).
fn semantic_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.iter().all(|(k, v)| semantic_eq(v, member(y, k)))
                && y.iter().all(|(k, v)| x.contains_key(k) || blank(v))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| semantic_eq(v, w))
        }
        _ if blank(a) && blank(b) => true,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_hash_is_stable_and_encoded_as_go_encodes_it() {
        let t = json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "a", "image": "x"}]}});
        let same = json!({"spec": {"containers": [{"image": "x", "name": "a"}]}, "metadata": {"labels": {"app": "web"}}});
        let h = pod_template_hash(&t, None);
        assert_eq!(h, pod_template_hash(&same, None));
        assert_ne!(h, pod_template_hash(&t, Some(1)));
        assert!(h.chars().all(|c| ALPHANUMS.contains(&(c as u8))));
        assert!((1..=10).contains(&h.len()));
        // "0".."9" map to the alphabet from its 22nd character, then wrap.
        assert_eq!(safe_encode("0123456789"), "456789bcdf");
    }

    #[test]
    fn templates_equal_without_their_hash_label() {
        let a = json!({"metadata": {"labels": {"app": "web", "pod-template-hash": "abc"}}, "spec": {"volumes": []}});
        let b = json!({"metadata": {"labels": {"app": "web"}}, "spec": {}});
        assert!(equal_ignore_hash(&a, &b));
        let c = json!({"metadata": {"labels": {"app": "api"}}, "spec": {}});
        assert!(!equal_ignore_hash(&a, &c));
        // Missing, null and hash-only metadata and labels are all the same blank.
        let only_hash = json!({"metadata": {"labels": {"pod-template-hash": "abc"}}});
        for blank in [
            json!({}),
            json!({"metadata": null}),
            json!({"metadata": {"labels": null}}),
            json!({"metadata": {"labels": {}, "annotations": {}}}),
        ] {
            assert!(equal_ignore_hash(&only_hash, &blank), "{blank}");
            assert!(equal_ignore_hash(&blank, &only_hash), "{blank}");
        }
        let labelled = json!({"metadata": {"labels": {"app": ""}}});
        assert!(!equal_ignore_hash(&labelled, &json!({})));
        assert!(!equal_ignore_hash(&json!({}), &labelled));
        let annotated = json!({"metadata": {"annotations": {"a": "b"}}});
        assert!(!equal_ignore_hash(&annotated, &only_hash));
        assert_eq!(replica_set_name("web", "abc"), "web-abc");
        assert_eq!(replica_set_name(&"x".repeat(260), "abcde").len(), 253);
    }
}
