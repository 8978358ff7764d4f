//! The `x-kubernetes-*` extensions the apiserver's own OpenAPI gives its built-in types.
//!
//! k8s-openapi's schemas carry no list types, list-map keys or map types, so a Pod template
//! embedded in a CRD would have atomic `containers`, `env` and `ports` under server-side
//! apply, where a Deployment merges them by key. [`TABLE`] holds those extensions for every
//! definition the apiserver gives any, derived from what kube-apiserver serves at
//! `/openapi/v3` by `k8s_extensions/generate.py` (see its header for the command), and
//! [`apply`] puts them on a k8s-openapi definition kubegen inlines.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The table, as committed: `{"kubernetes": "<version>", "definitions": {"<definition>":
/// {"x-kubernetes-map-type": ..., "properties": {"<property>": {<extensions>, "default": ...}}}}}`.
///
/// A property's `default` is there only when some list map uses the property as a key: the
/// apiserver refuses a CRD whose list-map keys are neither required nor defaulted.
pub const TABLE: &str = include_str!("k8s_extensions/table.json");

/// The extension keys the table carries.
pub const EXTENSION_KEYS: [&str; 3] = [
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
];

#[derive(Debug, Default, Deserialize)]
struct Table {
    definitions: BTreeMap<String, Definition>,
}

#[derive(Debug, Default, Deserialize)]
struct Definition {
    #[serde(rename = "x-kubernetes-map-type")]
    map_type: Option<String>,
    #[serde(default)]
    properties: BTreeMap<String, Map<String, Value>>,
}

static PARSED: LazyLock<Table> = LazyLock::new(|| {
    // TABLE is a file of this crate, not input: the unit test `the_table_parses` proves it
    // deserializes, so this cannot fail in a build that passed its tests.
    serde_json::from_str(TABLE).expect("k8s_extensions/table.json is a valid table")
});

/// Puts the apiserver's extensions for `definition` (a k8s-openapi schema name such as
/// `io.k8s.api.core.v1.PodSpec`) on its `schema`, before kubegen inlines what it refers to.
///
/// The definition's own map type goes on the node; each property's list type, list-map keys
/// and map type go on the property's node, where they outlive the inlining of a `$ref` (a
/// node's own keys win over the definition it refers to, as `claimRef`'s `granular` over
/// `ObjectReference`'s `atomic`). A list-map key's default is set only where the key is not
/// required: a default on a required key would let an object without the key through.
/// Properties the table knows but the schema lacks (another Kubernetes version) are skipped.
/// Returns whether the table knows the definition.
pub fn apply(definition: &str, schema: &mut Value) -> bool {
    let Some(entry) = PARSED.definitions.get(definition) else {
        return false;
    };
    let Value::Object(node) = schema else {
        return true;
    };
    if let Some(map_type) = &entry.map_type {
        node.insert("x-kubernetes-map-type".into(), json!(map_type));
    }
    let required: Vec<String> = match node.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).map(Into::into).collect(),
        _ => Vec::new(),
    };
    let Some(Value::Object(properties)) = node.get_mut("properties") else {
        return true;
    };
    for (name, extensions) in &entry.properties {
        let Some(Value::Object(property)) = properties.get_mut(name) else {
            continue;
        };
        for (key, value) in extensions {
            if key == "default" && required.contains(name) {
                continue;
            }
            property.insert(key.clone(), value.clone());
        }
    }
    true
}

/// After the definition's properties were inlined: a list map the table declared whose items
/// lack a key the apiserver accepts (one that is required or defaulted, and not nullable)
/// becomes atomic again. The built-in type gets away with such keys (k8s-openapi makes
/// `ServiceAccount.secrets[].name` optional, with no default); a CRD may not, and an atomic
/// list is what the CRD had without the table.
pub fn settle_list_maps(definition: &str, schema: &mut Value) {
    let Some(entry) = PARSED.definitions.get(definition) else {
        return;
    };
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for name in entry.properties.keys() {
        let Some(Value::Object(property)) = properties.get_mut(name) else {
            continue;
        };
        if property.get("x-kubernetes-list-type") != Some(&json!("map")) || keyed(property) {
            continue;
        }
        property.insert("x-kubernetes-list-type".into(), json!("atomic"));
        property.remove("x-kubernetes-list-map-keys");
    }
}

/// Whether every list-map key of `list` is a field of its items the apiserver accepts as one.
fn keyed(list: &Map<String, Value>) -> bool {
    let Some(Value::Array(keys)) = list.get("x-kubernetes-list-map-keys") else {
        return false;
    };
    let Some(items) = list.get("items") else {
        return false;
    };
    let required = |key: &str| {
        items
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|k| k == key))
    };
    keys.iter().filter_map(Value::as_str).all(|key| {
        items
            .get("properties")
            .and_then(|p| p.get(key))
            .is_some_and(|field| {
                (required(key) || field.get("default").is_some())
                    && field.get("nullable") != Some(&Value::Bool(true))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses() {
        let table: Table = serde_json::from_str(TABLE).unwrap();
        assert!(table.definitions.len() > 100, "{}", table.definitions.len());
        let raw: Value = serde_json::from_str(TABLE).unwrap();
        assert!(raw["kubernetes"].as_str().unwrap().starts_with('v'));
        // Only extensions and key defaults: a typo in the generator would show here.
        for (name, definition) in raw["definitions"].as_object().unwrap() {
            for key in definition.as_object().unwrap().keys() {
                assert!(
                    key == "properties" || key == "x-kubernetes-map-type",
                    "{name}: {key}"
                );
            }
            for (property, extensions) in definition["properties"].as_object().into_iter().flatten()
            {
                for key in extensions.as_object().unwrap().keys() {
                    assert!(
                        key == "default" || EXTENSION_KEYS.contains(&key.as_str()),
                        "{name}.{property}: {key}"
                    );
                }
            }
        }
    }

    #[test]
    fn pod_spec_lists_merge_by_key() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "containers": {"type": "array", "items": {"$ref": "#/definitions/io.k8s.api.core.v1.Container"}},
                "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
                "tolerations": {"type": "array", "items": {"$ref": "#/definitions/io.k8s.api.core.v1.Toleration"}},
                "hostname": {"type": "string"}
            },
            "required": ["containers"]
        });
        assert!(apply("io.k8s.api.core.v1.PodSpec", &mut schema));
        let p = &schema["properties"];
        assert_eq!(p["containers"]["x-kubernetes-list-type"], "map");
        assert_eq!(
            p["containers"]["x-kubernetes-list-map-keys"],
            json!(["name"])
        );
        assert_eq!(p["nodeSelector"]["x-kubernetes-map-type"], "atomic");
        assert_eq!(p["tolerations"]["x-kubernetes-list-type"], "atomic");
        assert_eq!(p["hostname"], json!({"type": "string"}));
        // Properties of other Kubernetes versions are not invented.
        assert!(p.get("volumes").is_none());
    }

    #[test]
    fn key_defaults_go_only_where_the_key_is_optional() {
        let mut port = json!({
            "type": "object",
            "properties": {
                "containerPort": {"type": "integer", "format": "int32"},
                "protocol": {"type": "string"},
                "name": {"type": "string"}
            },
            "required": ["containerPort"]
        });
        apply("io.k8s.api.core.v1.ContainerPort", &mut port);
        assert_eq!(port["properties"]["protocol"]["default"], "TCP");
        assert!(port["properties"]["containerPort"].get("default").is_none());
        assert!(port["properties"]["name"].get("default").is_none());
    }

    #[test]
    fn struct_map_types_and_unknown_definitions() {
        let mut reference = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        apply("io.k8s.api.core.v1.ObjectReference", &mut reference);
        assert_eq!(reference["x-kubernetes-map-type"], "atomic");

        let mut selector = json!({"type": "object", "properties": {
            "matchExpressions": {"type": "array", "items": {"type": "object"}}
        }});
        apply(
            "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
            &mut selector,
        );
        assert_eq!(selector["x-kubernetes-map-type"], "atomic");
        assert_eq!(
            selector["properties"]["matchExpressions"]["x-kubernetes-list-type"],
            "atomic"
        );

        let mut other = json!({"type": "object"});
        assert!(!apply("com.example.v1.Widget", &mut other));
        assert_eq!(other, json!({"type": "object"}));
    }

    #[test]
    fn a_list_map_without_usable_keys_becomes_atomic() {
        let object_reference =
            json!({"type": "object", "properties": {"name": {"type": "string"}}});
        let mut account = json!({"type": "object", "properties": {
            "secrets": {"type": "array", "items": object_reference}
        }});
        apply("io.k8s.api.core.v1.ServiceAccount", &mut account);
        assert_eq!(
            account["properties"]["secrets"]["x-kubernetes-list-type"],
            "map"
        );
        settle_list_maps("io.k8s.api.core.v1.ServiceAccount", &mut account);
        assert_eq!(
            account["properties"]["secrets"],
            json!({"type": "array", "items": object_reference, "x-kubernetes-list-type": "atomic"})
        );

        let container = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
        let mut pod = json!({"type": "object", "properties": {
            "containers": {"type": "array", "items": container}
        }});
        apply("io.k8s.api.core.v1.PodSpec", &mut pod);
        settle_list_maps("io.k8s.api.core.v1.PodSpec", &mut pod);
        assert_eq!(
            pod["properties"]["containers"]["x-kubernetes-list-type"],
            "map"
        );

        // A nullable key is refused by the apiserver even when defaulted.
        let mut nullable = pod.clone();
        nullable["properties"]["containers"]["items"]["properties"]["name"]["nullable"] =
            json!(true);
        settle_list_maps("io.k8s.api.core.v1.PodSpec", &mut nullable);
        assert_eq!(
            nullable["properties"]["containers"]["x-kubernetes-list-type"],
            "atomic"
        );
    }
}
