//! What the apiserver checks in an object's `metadata` (apimachinery's
//! `ValidateObjectMetaAccessor` and `ValidateObjectMetaAccessorUpdate`), and in the
//! metadata of resources embedded in a custom resource (`x-kubernetes-embedded-resource`).
//!
//! Maps (labels, annotations) are walked in key order; Go walks them in random order.

use serde_json::{Map, Value};

use super::field::{self, BadValue, FieldError};
use super::names::{self, NameRule};
use super::schema::{Additional, Schema};
use crate::go_print;

const TOTAL_ANNOTATION_SIZE: usize = 256 * 1024;

fn string<'a>(meta: &'a Value, key: &str) -> &'a str {
    meta.get(key).and_then(Value::as_str).unwrap_or("")
}

fn string_map<'a>(meta: &'a Value, key: &str) -> Vec<(&'a str, &'a str)> {
    match meta.get(key) {
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or("")))
            .collect(),
        _ => Vec::new(),
    }
}

fn strings<'a>(meta: &'a Value, key: &str) -> Vec<&'a str> {
    match meta.get(key) {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// `ValidateObjectMetaAccessor`: name (or generateName), namespace, generation, labels,
/// annotations, owner references, finalizers and managed fields. `path` is the metadata's
/// field path (`metadata`).
pub fn validate(meta: &Value, namespaced: bool, rule: NameRule, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let generate_name = string(meta, "generateName");
    if !generate_name.is_empty() {
        for msg in rule.check(generate_name, true) {
            errs.push(FieldError::invalid(
                &field::child(path, "generateName"),
                BadValue::str(generate_name),
                msg,
            ));
        }
    }
    let name = string(meta, "name");
    if name.is_empty() {
        errs.push(FieldError::required(
            &field::child(path, "name"),
            "name or generateName is required",
        ));
    } else {
        for msg in rule.check(name, false) {
            errs.push(FieldError::invalid(
                &field::child(path, "name"),
                BadValue::str(name),
                msg,
            ));
        }
    }
    let namespace = string(meta, "namespace");
    let ns_path = field::child(path, "namespace");
    if namespaced {
        if namespace.is_empty() {
            errs.push(FieldError::required(&ns_path, ""));
        } else {
            for msg in NameRule::DnsLabel.check(namespace, false) {
                errs.push(FieldError::invalid(&ns_path, BadValue::str(namespace), msg));
            }
        }
    } else if !namespace.is_empty() {
        errs.push(FieldError::forbidden(&ns_path, "not allowed on this type"));
    }
    if let Some(generation) = meta.get("generation").and_then(Value::as_i64)
        && generation < 0
    {
        errs.push(FieldError::invalid(
            &field::child(path, "generation"),
            BadValue::Int(generation),
            "must be greater than or equal to 0",
        ));
    }
    errs.extend(labels(meta, path));
    errs.extend(annotations(meta, path));
    errs.extend(owner_references(meta, path));
    errs.extend(finalizers(meta, path));
    errs.extend(managed_fields(meta, path));
    errs
}

/// Labels, annotations, owner references and managed fields: checked again on update.
fn common(meta: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = labels(meta, path);
    errs.extend(annotations(meta, path));
    errs.extend(owner_references(meta, path));
    errs.extend(managed_fields(meta, path));
    errs
}

fn labels(meta: &Value, path: &str) -> Vec<FieldError> {
    let p = field::child(path, "labels");
    let mut errs = Vec::new();
    for (k, v) in string_map(meta, "labels") {
        for msg in names::qualified_name(k) {
            errs.push(FieldError::invalid(&p, BadValue::str(k), msg));
        }
        for msg in names::label_value(v) {
            errs.push(FieldError::invalid(&p, BadValue::str(v), msg));
        }
    }
    errs
}

fn annotations(meta: &Value, path: &str) -> Vec<FieldError> {
    let p = field::child(path, "annotations");
    let mut errs = Vec::new();
    let all = string_map(meta, "annotations");
    for (k, _) in &all {
        for msg in names::qualified_name(&k.to_lowercase()) {
            errs.push(FieldError::invalid(&p, BadValue::str(*k), msg));
        }
    }
    let size: usize = all.iter().map(|(k, v)| k.len() + v.len()).sum();
    if size > TOTAL_ANNOTATION_SIZE {
        errs.push(FieldError::too_long(&p, TOTAL_ANNOTATION_SIZE as i64));
    }
    errs
}

/// An owner reference marshalled as Go marshals the struct (declaration order, empty
/// optional fields left out).
fn marshal_owner(r: &Map<String, Value>) -> String {
    let mut out = String::from("{");
    for (i, key) in ["apiVersion", "kind", "name", "uid"].iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        go_print::json_string(key, &mut out);
        out.push(':');
        go_print::json_string(r.get(*key).and_then(Value::as_str).unwrap_or(""), &mut out);
    }
    for key in ["controller", "blockOwnerDeletion"] {
        if let Some(Value::Bool(b)) = r.get(key) {
            out.push_str(&format!(",\"{key}\":{b}"));
        }
    }
    out.push('}');
    out
}

/// `schema.ParseGroupVersion`'s version: empty for `""`, `group/`, or more than one `/`.
fn version_of(api_version: &str) -> (&str, &str) {
    match api_version.split('/').collect::<Vec<_>>().as_slice() {
        [v] => ("", v),
        [g, v] => (g, v),
        _ => ("", ""),
    }
}

fn owner_references(meta: &Value, path: &str) -> Vec<FieldError> {
    let p = field::child(path, "ownerReferences");
    let Some(Value::Array(refs)) = meta.get("ownerReferences") else {
        return Vec::new();
    };
    let empty = Map::new();
    let mut errs = Vec::new();
    let mut first_controller: Option<String> = None;
    for r in refs {
        let r = r.as_object().unwrap_or(&empty);
        let get = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
        let (group, version) = version_of(get("apiVersion"));
        if version.is_empty() {
            errs.push(FieldError::invalid(
                &field::child(&p, "apiVersion"),
                BadValue::str(get("apiVersion")),
                "version must not be empty",
            ));
        }
        for key in ["kind", "name", "uid"] {
            if get(key).is_empty() {
                errs.push(FieldError::invalid(
                    &field::child(&p, key),
                    BadValue::str(""),
                    "must not be empty",
                ));
            }
        }
        if group.is_empty() && version == "v1" && get("kind") == "Event" {
            errs.push(FieldError::invalid(
                &p,
                BadValue::Marshalled(marshal_owner(r)),
                "/v1, Kind=Event is disallowed from being an owner",
            ));
        }
        if r.get("controller") == Some(&Value::Bool(true)) {
            let current = format!("{}/{}", get("kind"), get("name"));
            match &first_controller {
                Some(first) => {
                    let all: Vec<String> = refs
                        .iter()
                        .map(|r| marshal_owner(r.as_object().unwrap_or(&empty)))
                        .collect();
                    errs.push(FieldError::invalid(
                        &p,
                        BadValue::Marshalled(format!("[{}]", all.join(","))),
                        format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"),
                    ));
                }
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

fn finalizers(meta: &Value, path: &str) -> Vec<FieldError> {
    let p = field::child(path, "finalizers");
    let all = strings(meta, "finalizers");
    let mut errs = Vec::new();
    for f in &all {
        for msg in names::qualified_name(f) {
            errs.push(FieldError::invalid(&p, BadValue::str(*f), msg));
        }
    }
    if all.contains(&"orphan") && all.contains(&"foregroundDeletion") {
        errs.push(FieldError::invalid(
            &p,
            BadValue::Json(meta.get("finalizers").cloned().unwrap_or(Value::Null)),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    errs
}

fn managed_fields(meta: &Value, path: &str) -> Vec<FieldError> {
    let Some(Value::Array(entries)) = meta.get("managedFields") else {
        return Vec::new();
    };
    let mut errs = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let p = field::index(&field::child(path, "managedFields"), i);
        let operation = entry.get("operation").and_then(Value::as_str).unwrap_or("");
        if !matches!(operation, "Apply" | "Update") {
            errs.push(FieldError::invalid(
                &field::child(&p, "operation"),
                BadValue::str(operation),
                "must be `Apply` or `Update`",
            ));
        }
        let fields_type = entry
            .get("fieldsType")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            errs.push(FieldError::invalid(
                &field::child(&p, "fieldsType"),
                BadValue::str(fields_type),
                "must be `FieldsV1`",
            ));
        }
    }
    errs
}

/// `ValidateObjectMetaAccessorUpdate`: no new finalizers while deleting, a
/// resourceVersion, immutable identity fields, then labels, annotations and owner
/// references of the new metadata.
pub fn validate_update(new: &Value, old: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.get("deletionTimestamp").is_some_and(|t| !t.is_null()) {
        let before = strings(old, "finalizers");
        let mut extra: Vec<&str> = strings(new, "finalizers")
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        extra.sort_unstable();
        extra.dedup();
        if !extra.is_empty() {
            let quoted: Vec<String> = extra.iter().map(|f| go_print::quote(f)).collect();
            errs.push(FieldError::forbidden(
                &field::child(path, "finalizers"),
                format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                    quoted.join(", ")
                ),
            ));
        }
    }
    if string(new, "resourceVersion").is_empty() {
        errs.push(FieldError::invalid(
            &field::child(path, "resourceVersion"),
            BadValue::str(""),
            "must be specified for an update",
        ));
    }
    for key in [
        "name",
        "namespace",
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        let (n, o) = (new.get(key), old.get(key));
        let blank = |v: Option<&Value>| v.is_none_or(|v| v.is_null() || v == "");
        if n != o && !(blank(n) && blank(o)) {
            errs.push(FieldError::invalid(
                &field::child(path, key),
                n.map_or(BadValue::str(""), BadValue::of),
                "field is immutable",
            ));
        }
    }
    errs.extend(common(new, path));
    errs
}

/// The metadata checks for every `x-kubernetes-embedded-resource` node below the root of
/// `object` (`schemaobjectmeta.Validate`).
pub fn validate_embedded(schema: &Schema, object: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    embedded_node("", object, schema, &mut errs);
    errs
}

/// The metadata checks for `object` at `path` (not empty) when `schema` is an embedded
/// resource, and for every embedded resource below it: how the apiserver checks a schema's
/// `default` (`schemaobjectmeta.Validate` on the default).
pub fn validate_embedded_at(path: &str, schema: &Schema, object: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    embedded_node(path, object, schema, &mut errs);
    errs
}

fn embedded_node(path: &str, x: &Value, s: &Schema, errs: &mut Vec<FieldError>) {
    match x {
        Value::Object(members) => {
            if s.embedded_resource && !path.is_empty() {
                errs.extend(embedded_resource(path, members));
            }
            for (k, v) in members {
                if let Some(p) = s.property(k) {
                    embedded_node(&field::child(path, k), v, p, errs);
                } else if let Additional::Schema(a) = &s.additional {
                    embedded_node(&field::key(path, k), v, a, errs);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = &s.items {
                for (i, v) in items.iter().enumerate() {
                    embedded_node(&field::index(path, i), v, item, errs);
                }
            }
        }
        _ => {}
    }
}

fn embedded_resource(path: &str, x: &Map<String, Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for key in ["apiVersion", "kind"] {
        if !x.contains_key(key) {
            errs.push(FieldError::required(&field::child(path, key), ""));
        }
    }
    for (k, v) in x {
        let p = field::child(path, k);
        match (k.as_str(), v) {
            ("apiVersion" | "kind", Value::String(s)) if s.is_empty() => {
                errs.push(FieldError::invalid(
                    &p,
                    BadValue::str(""),
                    "must not be empty",
                ));
            }
            ("apiVersion" | "kind", v) if !v.is_string() => {
                errs.push(FieldError::invalid(&p, BadValue::of(v), "must be a string"));
            }
            ("apiVersion", Value::String(s)) if s.matches('/').count() > 1 => {
                errs.push(FieldError::invalid(
                    &p,
                    BadValue::str(s.as_str()),
                    format!("unexpected GroupVersion string: {s}"),
                ));
            }
            ("kind", Value::String(s)) => {
                let msgs = names::dns1035_label(&s.to_lowercase());
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(
                        &p,
                        BadValue::str(s.as_str()),
                        format!(
                            "may have mixed case, but should otherwise match: {}",
                            msgs.join(",")
                        ),
                    ));
                }
            }
            ("metadata", meta @ Value::Object(_)) => {
                let mut meta = meta.clone();
                if string(&meta, "name").is_empty() {
                    meta["name"] = Value::String("fakename".into());
                }
                let namespaced = !string(&meta, "namespace").is_empty();
                errs.extend(validate(&meta, namespaced, NameRule::PathSegment, &p));
            }
            _ => {}
        }
    }
    errs
}
