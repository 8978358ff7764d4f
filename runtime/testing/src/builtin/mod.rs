//! The built-in API of kube-apiserver v1.36.2, as the in-memory server serves it: every
//! resource its discovery lists by default (`table.json`, written by `generate.py` from a
//! recording of the real apiserver), each kind's schema from the apiserver's OpenAPI v3, and
//! the Go code the apiserver runs for built-in kinds, ported: defaulting ([`defaults`]), the
//! registry strategies ([`strategy`]) and validation ([`validate`]).

pub(crate) mod admission;
pub(crate) mod convert;
pub(crate) mod defaults;
pub(crate) mod strategy;
pub(crate) mod validate;

pub(super) use defaults::zero_values;

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::{Map, Value};

/// One top-level resource of the built-in API.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Resource {
    /// The API group; `""` for the core group.
    pub group: String,
    pub version: String,
    /// The plural resource name.
    pub resource: String,
    pub kind: String,
    pub singular: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Discovery's verbs: a resource without `list` is a virtual one (reviews, Binding).
    pub verbs: Vec<String>,
    /// Whether this is the group's preferred version.
    pub preferred: bool,
    pub subresources: Vec<Subresource>,
    /// The kind's OpenAPI definition.
    pub definition: String,
    /// The field labels a list or watch may select on; `None` for a resource that cannot
    /// be listed.
    pub field_selectors: Option<Vec<String>>,
    /// The apiserver's answer to an unknown field label, with `{label}` for the label.
    pub field_selector_refusal: Option<String>,
}

/// A subresource of a built-in resource.
#[derive(Debug, Deserialize)]
pub(super) struct Subresource {
    pub name: String,
    pub verbs: Vec<String>,
}

impl Resource {
    /// Whether the resource is stored (it can be listed), not a virtual one.
    pub(super) fn stored(&self) -> bool {
        self.verbs.iter().any(|v| v == "list")
    }

    pub(super) fn subresource(&self, name: &str) -> Option<&Subresource> {
        self.subresources.iter().find(|s| s.name == name)
    }

    /// The kind's schema with every reference resolved.
    pub(super) fn schema(&self) -> Value {
        resolve(&self.definition)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Table {
    /// `/apis`' groups, in the apiserver's order.
    groups: Vec<Value>,
    /// Each group-version's discovery list (`/api/v1`, `/apis/<group>/<version>`).
    resource_lists: BTreeMap<String, Vec<Value>>,
    resources: Vec<Resource>,
    definitions: BTreeMap<String, Value>,
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    serde_json::from_str(include_str!("table.json")).expect("table.json is the generator's JSON")
});

/// Every resource kube-apiserver v1.36.2 serves by default, in discovery's order.
pub(super) fn resources() -> &'static [Resource] {
    &TABLE.resources
}

/// The built-in groups of `/apis`, in the apiserver's order.
pub(super) fn groups() -> &'static [Value] {
    &TABLE.groups
}

/// The discovery list of the built-in `group_version` (`v1` for the core group).
pub(super) fn resource_list(group_version: &str) -> Option<&'static [Value]> {
    TABLE.resource_lists.get(group_version).map(Vec::as_slice)
}

/// The built-in resource `group/version` `resource`.
#[cfg(test)]
pub(super) fn resource(group: &str, version: &str, resource: &str) -> Option<&'static Resource> {
    resources()
        .iter()
        .find(|r| r.group == group && r.version == version && r.resource == resource)
}

/// The OpenAPI definition `name` (as `io.k8s.api.apps.v1.Deployment`) with its references
/// resolved: a `$ref` is replaced by the definition it names, and a property written as
/// `allOf: [{$ref}]` beside its own keywords (`default`) gets the definition's keywords with
/// its own on top. A definition met again inside itself (JSONSchemaProps) is an object of
/// any fields there.
pub(super) fn resolve(name: &str) -> Value {
    let mut stack = Vec::new();
    definition(name, &mut stack)
}

/// Go keeps a `RawExtension`'s JSON as it came (a ControllerRevision's `data`, a device
/// configuration's parameters): nothing in it is pruned, and it is owned whole.
const RAW_EXTENSION: &str = "io.k8s.apimachinery.pkg.runtime.RawExtension";

fn definition(name: &str, stack: &mut Vec<String>) -> Value {
    if name == RAW_EXTENSION {
        return serde_json::json!({
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": true,
            "x-kubernetes-map-type": "atomic",
        });
    }
    let Some(schema) = TABLE.definitions.get(name) else {
        return Value::Object(Map::new());
    };
    if stack.iter().any(|n| n == name) {
        return serde_json::json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    }
    stack.push(name.to_owned());
    let resolved = inline(schema, stack);
    stack.pop();
    resolved
}

fn reference(value: &Value) -> Option<&str> {
    value.get("$ref")?.as_str()?.rsplit('/').next()
}

fn inline(schema: &Value, stack: &mut Vec<String>) -> Value {
    match schema {
        Value::Object(m) => {
            if let Some(name) = reference(schema) {
                return definition(name, stack);
            }
            let mut out = Map::new();
            if let Some([only]) = m.get("allOf").and_then(Value::as_array).map(Vec::as_slice)
                && let Value::Object(base) = inline(only, stack)
            {
                out = base;
            }
            for (k, v) in m {
                if k == "allOf" && !out.is_empty() {
                    continue;
                }
                // `properties` and `x-kubernetes-*` maps hold names, not schemas, at their
                // first level; their values are schemas.
                out.insert(k.clone(), inline(v, stack));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline(v, stack)).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_serves_what_the_apiserver_serves() {
        let all = resources();
        assert_eq!(all.len(), 68);
        assert_eq!(all.iter().filter(|r| r.stored()).count(), 61);
        let deployments = resource("apps", "v1", "deployments").unwrap();
        assert_eq!(deployments.kind, "Deployment");
        assert_eq!(deployments.short_names, ["deploy"]);
        assert_eq!(
            deployments.subresource("scale").unwrap().verbs,
            ["get", "patch", "update"]
        );
        let hpa = resource("autoscaling", "v2", "horizontalpodautoscalers").unwrap();
        assert!(hpa.preferred);
    }

    #[test]
    fn references_are_resolved() {
        let deployment = resource("apps", "v1", "deployments").unwrap().schema();
        let container = &deployment["properties"]["spec"]["properties"]["template"]["properties"]["spec"]
            ["properties"]["containers"];
        assert_eq!(container["x-kubernetes-patch-merge-key"], "name");
        assert_eq!(container["items"]["properties"]["image"]["type"], "string");
        // `spec` is `allOf: [{$ref}]` with `default: {}` beside it.
        assert_eq!(
            deployment["properties"]["spec"]["default"],
            serde_json::json!({})
        );
        assert_eq!(deployment["properties"]["spec"]["type"], "object");
        let crd = resolve(
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
        );
        assert!(
            crd.to_string()
                .contains("x-kubernetes-preserve-unknown-fields")
        );
        assert!(!deployment.to_string().contains("$ref"));
    }

    #[test]
    fn zero_values_are_what_go_writes_for_unset_fields() {
        let schema = resource("apps", "v1", "deployments").unwrap().schema();
        let mut d = serde_json::json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}}}});
        zero_values(&schema, &mut d);
        assert_eq!(d["status"], serde_json::json!({}));
        assert_eq!(d["spec"]["strategy"], serde_json::json!({}));
        let container = &d["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(container["resources"], serde_json::json!({}));
        assert_eq!(container["ports"][0]["protocol"], "TCP");
    }
}
