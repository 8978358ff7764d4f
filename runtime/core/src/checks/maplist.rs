//! Correlating an update's new value with its old one for ratcheting (the apiserver's
//! `CorrelatedObject` and `MapList`): only `map` lists correlate items, by their key fields,
//! which must all be present and scalar. The old list is indexed once, so correlating a list
//! of n items costs n lookups, not n scans.

use std::collections::HashMap;

use serde_json::Value;

use super::schema::Schema;

/// An old `map` list's items by key (`MapList`). Where two items share a key, the first one
/// is the one found.
pub(super) struct MapList<'a> {
    schema: &'a Schema,
    by_key: HashMap<String, &'a Value>,
}

impl<'a> MapList<'a> {
    /// The index of `old`, when `s` is a `map` list with keys and `old` a list.
    pub(super) fn new(s: &'a Schema, old: &'a Value) -> Option<Self> {
        if s.list_type.as_deref() != Some("map") || s.list_map_keys.is_empty() {
            return None;
        }
        let mut by_key = HashMap::new();
        for item in old.as_array()? {
            if let Some(key) = item_key(s, item) {
                by_key.entry(key).or_insert(item);
            }
        }
        Some(MapList { schema: s, by_key })
    }

    /// The old item with `item`'s keys.
    pub(super) fn get(&self, item: &Value) -> Option<&'a Value> {
        self.by_key.get(&item_key(self.schema, item)?).copied()
    }
}

/// `item`'s key fields as one string (their JSON, which tells an integer from a float as the
/// values themselves do); `None` when one is missing or not a scalar.
fn item_key(s: &Schema, item: &Value) -> Option<String> {
    let o = item.as_object()?;
    let keys = s
        .list_map_keys
        .iter()
        .map(|k| {
            o.get(k)
                .filter(|v| matches!(v, Value::Bool(_) | Value::Number(_) | Value::String(_)))
        })
        .collect::<Option<Vec<&Value>>>()?;
    serde_json::to_string(&keys).ok()
}

/// The ratcheting comparison (`CorrelatedObject.CachedDeepEqual`): objects are equal when
/// every member correlates (has a schema) and is equal; `map` lists when every item
/// correlates by key and is equal; other lists and scalars by plain equality.
pub(super) fn correlated_equal(s: &Schema, new: &Value, old: &Value) -> bool {
    match (new, old) {
        (Value::Object(n), Value::Object(o)) => {
            n.len() == o.len()
                && n.iter().all(|(k, v)| match (o.get(k), s.member(k)) {
                    (Some(ov), Some(child)) => correlated_equal(child, v, ov),
                    _ => false,
                })
        }
        (Value::Array(n), Value::Array(o)) if s.list_type.as_deref() == Some("map") => {
            let Some(item) = &s.items else {
                return new == old;
            };
            let Some(old_items) = MapList::new(s, old) else {
                return false;
            };
            n.len() == o.len()
                && n.iter().all(|v| match old_items.get(v) {
                    Some(ov) => correlated_equal(item, v, ov),
                    None => false,
                })
        }
        _ => new == old,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn items_correlate_by_their_scalar_keys() {
        let s = Schema::new(&json!({
            "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}},
        }));
        let old =
            json!([{"name": "a", "v": 1}, {"name": "b", "v": 2}, {"name": "a", "v": 3}, {"v": 4}]);
        let index = MapList::new(&s, &old).unwrap();
        assert_eq!(
            index.get(&json!({"name": "a"})),
            Some(&json!({"name": "a", "v": 1}))
        );
        assert_eq!(
            index.get(&json!({"name": "b", "v": 9})),
            Some(&json!({"name": "b", "v": 2}))
        );
        assert_eq!(index.get(&json!({"name": "c"})), None);
        assert_eq!(index.get(&json!({"v": 4})), None);
        assert!(correlated_equal(
            &s,
            &json!([{"name": "b", "v": 2}, {"name": "a", "v": 1}]),
            &json!([{"name": "a", "v": 1}, {"name": "b", "v": 2}])
        ));
        assert!(!correlated_equal(
            &s,
            &json!([{"name": "b", "v": 3}, {"name": "a", "v": 1}]),
            &json!([{"name": "a", "v": 1}, {"name": "b", "v": 2}])
        ));
    }
}
