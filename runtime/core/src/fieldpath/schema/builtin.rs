//! Kubernetes' own types that custom resources embed: `ObjectMeta` (the `metadata` of every
//! object) and `autoscaling/v1` `Scale`, in the OpenAPI form the apiserver types them from.

use serde_json::{Value, json};

/// How a schema node refers to `ObjectMeta`.
pub(super) const OBJECT_META_REF: &str =
    "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// `ObjectMeta`: labels and annotations granular maps, finalizers a set, owner references a
/// map list keyed by uid (each reference atomic), managed fields atomic.
pub(super) fn object_meta() -> Value {
    let string = json!({"type": "string"});
    let time = json!({"type": "string", "format": "date-time"});
    let string_map =
        json!({"type": "object", "additionalProperties": {"type": "string", "default": ""}});
    json!({
        "type": "object",
        "properties": {
            "annotations": string_map,
            "creationTimestamp": time,
            "deletionGracePeriodSeconds": {"type": "integer", "format": "int64"},
            "deletionTimestamp": time,
            "finalizers": {"type": "array", "items": {"type": "string", "default": ""}, "x-kubernetes-list-type": "set"},
            "generateName": string,
            "generation": {"type": "integer", "format": "int64"},
            "labels": string_map,
            "managedFields": {
                "type": "array",
                "x-kubernetes-list-type": "atomic",
                "items": {"type": "object", "properties": {
                    "apiVersion": string, "fieldsType": string, "fieldsV1": {"type": "object"},
                    "manager": string, "operation": string, "subresource": string, "time": time,
                }},
            },
            "name": string,
            "namespace": string,
            "ownerReferences": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["uid"],
                "items": {
                    "type": "object",
                    "x-kubernetes-map-type": "atomic",
                    "properties": {
                        "apiVersion": {"type": "string", "default": ""},
                        "blockOwnerDeletion": {"type": "boolean"},
                        "controller": {"type": "boolean"},
                        "kind": {"type": "string", "default": ""},
                        "name": {"type": "string", "default": ""},
                        "uid": {"type": "string", "default": ""},
                    },
                },
            },
            "resourceVersion": string,
            "selfLink": string,
            "uid": string,
        },
    })
}

/// `autoscaling/v1` `Scale`.
pub(super) fn scale() -> Value {
    json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "default": {}, "properties": {"replicas": {"type": "integer", "format": "int32"}}},
            "status": {"type": "object", "default": {}, "properties": {
                "replicas": {"type": "integer", "format": "int32", "default": 0},
                "selector": {"type": "string"},
            }},
        },
    })
}
