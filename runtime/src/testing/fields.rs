//! Field sets for server-side apply: which manager owns which fields, in the `FieldsV1` form
//! (`{"f:spec": {"f:replicas": {}}}`) the apiserver writes into `metadata.managedFields`.
//!
//! Lists are owned whole (as `atomic` lists are); that is coarser than the apiserver for
//! `map` and `set` lists, and is documented as such.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// A path of object keys from the root to an owned field.
pub type FieldPath = Vec<String>;

/// Metadata the server owns; never part of a manager's field set.
const SERVER_OWNED: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
];

/// The leaf fields set in `value`: scalars and lists. An empty object owns nothing, so
/// applying `spec: {}` does not claim fields other managers set inside it.
pub fn leaves(value: &Value) -> BTreeSet<FieldPath> {
    let mut out = BTreeSet::new();
    let mut path = Vec::new();
    walk(value, &mut path, &mut out);
    out
}

fn walk(value: &Value, path: &mut FieldPath, out: &mut BTreeSet<FieldPath>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let skip = match path.as_slice() {
                    [] => matches!(k.as_str(), "apiVersion" | "kind"),
                    [m] if m == "metadata" => SERVER_OWNED.contains(&k.as_str()),
                    _ => false,
                };
                if skip {
                    continue;
                }
                path.push(k.clone());
                walk(v, path, out);
                path.pop();
            }
        }
        _ if path.is_empty() => {}
        _ => {
            out.insert(path.clone());
        }
    }
}

/// The value at `path`.
pub fn get<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, k| v.get(k))
}

/// Removes the field at `path`, and any parent objects it leaves empty.
pub fn remove(value: &mut Value, path: &[String]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    if let Some(Value::Object(parent)) = parents.iter().try_fold(&mut *value, |v, k| v.get_mut(k)) {
        parent.remove(last);
        if parent.is_empty() && !parents.is_empty() {
            remove(value, parents);
        }
    }
}

/// Merges an applied configuration into `target`: objects merge key by key, everything else
/// (scalars, lists) is replaced.
pub fn merge(target: &mut Value, applied: &Value) {
    match (target, applied) {
        (Value::Object(t), Value::Object(a)) => {
            for (k, v) in a {
                match t.get_mut(k) {
                    Some(existing) if existing.is_object() && v.is_object() => merge(existing, v),
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (t, a) => *t = a.clone(),
    }
}

/// `FieldsV1` for a set of paths.
pub fn to_fields_v1(paths: &BTreeSet<FieldPath>) -> Value {
    let mut root = Map::new();
    for path in paths {
        let mut node = &mut root;
        for key in path {
            let entry = node.entry(format!("f:{key}")).or_insert_with(|| json!({}));
            let Value::Object(next) = entry else { break };
            node = next;
        }
    }
    Value::Object(root)
}

/// The paths a `FieldsV1` value names (its leaves).
pub fn from_fields_v1(fields: &Value) -> BTreeSet<FieldPath> {
    fn go(v: &Value, path: &mut FieldPath, out: &mut BTreeSet<FieldPath>) {
        let Value::Object(map) = v else { return };
        if map.is_empty() && !path.is_empty() {
            out.insert(path.clone());
        }
        for (k, child) in map {
            if let Some(key) = k.strip_prefix("f:") {
                path.push(key.to_owned());
                go(child, path, out);
                path.pop();
            }
        }
    }
    let mut out = BTreeSet::new();
    go(fields, &mut Vec::new(), &mut out);
    out
}

/// Whether two paths overlap (one is a prefix of the other).
pub fn overlaps(a: &[String], b: &[String]) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_round_trip_through_fields_v1() {
        let v = json!({"apiVersion": "x", "metadata": {"name": "n", "labels": {"a": "1"}}, "spec": {"r": 1, "l": [1, 2], "o": {}}});
        let set = leaves(&v);
        let expected: BTreeSet<FieldPath> = [
            vec!["metadata", "labels", "a"],
            vec!["spec", "l"],
            vec!["spec", "r"],
        ]
        .into_iter()
        .map(|p| p.into_iter().map(String::from).collect())
        .collect();
        assert_eq!(set, expected);
        assert_eq!(to_fields_v1(&set)["f:spec"]["f:r"], json!({}));
        assert_eq!(from_fields_v1(&to_fields_v1(&set)), set);
    }

    #[test]
    fn remove_prunes_empty_parents_and_merge_replaces_lists() {
        let mut v = json!({"spec": {"a": {"b": 1}, "c": 2}});
        remove(&mut v, &["spec".into(), "a".into(), "b".into()]);
        assert_eq!(v, json!({"spec": {"c": 2}}));
        let mut t = json!({"spec": {"l": [1, 2, 3], "k": {"x": 1}}});
        merge(&mut t, &json!({"spec": {"l": [9], "k": {"y": 2}}}));
        assert_eq!(t, json!({"spec": {"l": [9], "k": {"x": 1, "y": 2}}}));
    }
}
