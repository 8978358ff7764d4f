//! The core group (`pkg/apis/core/validation`): ConfigMap, Secret, ServiceAccount,
//! PersistentVolumeClaim and Namespace here; Pod in [`super::pod`], Service in
//! [`super::service`], Event in [`super::events`].

use base64::Engine;
use serde_json::Value;

use super::common::{config_map_key, get, list, map, set, strings, text};
use super::{Meta, Write, events, pod, quantity, service};
use kubegen_runtime::validation::field::key;
use kubegen_runtime::validation::names::{dns1123_subdomain, qualified_name};
use kubegen_runtime::validation::{BadValue, FieldError};

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    Some(match (kind, write) {
        ("Pod", Write::Create) => meta.first(write, pod::pod_create(object)),
        ("Pod", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(meta.create());
            errs.extend(pod::pod_update(object, old));
            errs
        }
        ("ConfigMap", Write::Create) => meta.first(write, config_map(object)),
        ("ConfigMap", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(immutable_data(object, old, &["data", "binaryData"]));
            errs.extend(meta.create());
            errs.extend(config_map(object));
            errs
        }
        ("Secret", Write::Create) => meta.first(write, secret(object)),
        ("Secret", Write::Update(old)) => {
            let mut errs = meta.update(old);
            let t = get(object, "type");
            errs.extend(super::common::immutable(
                t,
                get(old, "type"),
                "type",
                BadValue::of(t),
            ));
            errs.extend(immutable_data(object, old, &["data"]));
            errs.extend(meta.create());
            errs.extend(secret(object));
            errs
        }
        ("ServiceAccount", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(meta.create());
            errs
        }
        ("Service", Write::Create) => meta.first(write, service::service(object)),
        ("Service", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(service::service_update(
                get(object, "spec"),
                get(old, "spec"),
            ));
            errs.extend(meta.create());
            errs.extend(service::service(object));
            errs
        }
        ("PersistentVolumeClaim", Write::Create) => {
            meta.first(write, pvc_spec(get(object, "spec")))
        }
        ("PersistentVolumeClaim", Write::Update(old)) => {
            let mut errs = meta.update(old);
            errs.extend(meta.create());
            errs.extend(pvc_spec(get(object, "spec")));
            errs.extend(pvc_update(object, old));
            errs
        }
        ("Namespace", Write::Create) => meta.first(write, namespace_finalizers(object)),
        // A main-resource update keeps the stored finalizers; `/finalize` writes them.
        ("Namespace", Write::Update(_)) => meta.first(write, namespace_finalize(object)),
        // A core v1 request gets the legacy checks only, without object metadata.
        ("Event", Write::Create | Write::Update(_)) => events::legacy_event(object, false),
        _ => return None,
    })
}

const MAX_SECRET_SIZE: i64 = 1024 * 1024;

/// `ValidateConfigMap` after the metadata (maps in key order).
fn config_map(cm: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let binary = map(cm, "binaryData");
    let mut size = 0;
    for (k, v) in map(cm, "data") {
        let p = key("data", k);
        for msg in config_map_key(k) {
            errs.push(FieldError::invalid(&p, BadValue::str(k), msg));
        }
        if binary.iter().any(|(b, _)| *b == k) {
            errs.push(FieldError::invalid(
                &p,
                BadValue::str(k),
                "duplicate of key present in binaryData",
            ));
        }
        size += v.as_str().map_or(0, str::len);
    }
    for (k, v) in &binary {
        for msg in config_map_key(k) {
            errs.push(FieldError::invalid(
                &key("binaryData", k),
                BadValue::str(*k),
                msg,
            ));
        }
        size += decoded(v).len();
    }
    if size as i64 > MAX_SECRET_SIZE {
        errs.push(FieldError::too_long("", MAX_SECRET_SIZE));
    }
    errs
}

/// The bytes of a base64 `[]byte` field (empty when it is not base64: the decoder has
/// refused those already).
fn decoded(value: &Value) -> Vec<u8> {
    let s = value.as_str().unwrap_or("");
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .unwrap_or_default()
}

/// `immutable: true` freezes `fields` and `immutable` itself.
fn immutable_data(object: &Value, old: &Value, fields: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if old.get("immutable") != Some(&Value::Bool(true)) {
        return errs;
    }
    const FROZEN: &str = "field is immutable when `immutable` is set";
    if object.get("immutable") != Some(&Value::Bool(true)) {
        errs.push(FieldError::forbidden("immutable", FROZEN));
    }
    for field in fields {
        let empty = |v: &Value| v.is_null() || v.as_object().is_some_and(|m| m.is_empty());
        let (new, before) = (get(object, field), get(old, field));
        if new != before && !(empty(new) && empty(before) && new.is_null() == before.is_null()) {
            errs.push(FieldError::forbidden(field, FROZEN));
        }
    }
    errs
}

/// `ValidateSecret` after the metadata.
fn secret(secret: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let data = map(secret, "data");
    let mut size = 0;
    for (k, v) in &data {
        for msg in config_map_key(k) {
            errs.push(FieldError::invalid(&key("data", k), BadValue::str(*k), msg));
        }
        size += decoded(v).len();
    }
    if size as i64 > MAX_SECRET_SIZE {
        errs.push(FieldError::too_long("data", MAX_SECRET_SIZE));
    }
    let has = |k: &str| data.iter().any(|(d, _)| *d == k);
    let bytes = |k: &str| data.iter().find(|(d, _)| *d == k).map(|(_, v)| decoded(v));
    let required = |k: &str| FieldError::required(&key("data", k), "");
    match text(secret, "type") {
        "kubernetes.io/service-account-token" => {
            let annotations = get(get(secret, "metadata"), "annotations");
            if text(annotations, "kubernetes.io/service-account.name").is_empty() {
                errs.push(FieldError::required(
                    "metadata.annotations[kubernetes.io/service-account.name]",
                    "",
                ));
            }
        }
        "kubernetes.io/dockercfg" => errs.extend(json_key(&bytes(".dockercfg"), ".dockercfg")),
        "kubernetes.io/dockerconfigjson" => {
            errs.extend(json_key(&bytes(".dockerconfigjson"), ".dockerconfigjson"));
        }
        "kubernetes.io/basic-auth" if !has("username") && !has("password") => {
            errs.push(required("username"));
            errs.push(required("password"));
        }
        "kubernetes.io/ssh-auth" if bytes("ssh-privatekey").is_none_or(|b| b.is_empty()) => {
            errs.push(required("ssh-privatekey"));
        }
        "kubernetes.io/tls" => {
            for k in ["tls.crt", "tls.key"] {
                if !has(k) {
                    errs.push(required(k));
                }
            }
        }
        _ => {}
    }
    errs
}

/// A docker config key: present, and a JSON object.
fn json_key(bytes: &Option<Vec<u8>>, name: &str) -> Option<FieldError> {
    let path = key("data", name);
    let Some(bytes) = bytes else {
        return Some(FieldError::required(&path, ""));
    };
    let problem = match kubegen_go::json::decode(bytes, &[]) {
        Err(e) => Some(e.to_string()),
        Ok(d) => match d.value {
            Err(e) => Some(e.to_string()),
            Ok(Value::Object(_)) | Ok(Value::Null) => None,
            Ok(other) => Some(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                kubegen_go::json::type_name(&other)
            )),
        },
    };
    problem.map(|p| FieldError::invalid(&path, BadValue::str("<secret contents redacted>"), p))
}

/// `ValidateNamespace`'s `spec.finalizers`.
fn namespace_finalizers(ns: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for f in list(get(ns, "spec"), "finalizers") {
        errs.extend(finalizer_name(f.as_str().unwrap_or(""), "spec.finalizers"));
    }
    errs
}

/// `validateFinalizerName` of one of a namespace's `spec.finalizers`, at `path`.
fn finalizer_name(f: &str, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for msg in qualified_name(f) {
        errs.push(FieldError::invalid(path, BadValue::str(f), msg));
    }
    if !f.contains('/') && f != "kubernetes" {
        errs.push(FieldError::invalid(
            path,
            BadValue::str(f),
            "name is neither a standard finalizer name nor is it fully qualified",
        ));
    }
    errs
}

/// `ValidateNamespaceFinalizeUpdate`'s `spec.finalizers`, each at its index.
fn namespace_finalize(ns: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, f) in list(get(ns, "spec"), "finalizers").iter().enumerate() {
        let f = f.as_str().unwrap_or("");
        let path = format!("spec.finalizers[{i}]");
        errs.extend(finalizer_name(f, &path));
    }
    errs
}

/// `ValidatePersistentVolumeClaimSpec` at `spec`.
fn pvc_spec(spec: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let modes = list(spec, "accessModes");
    if modes.is_empty() {
        errs.push(FieldError::required(
            "spec.accessModes",
            "at least 1 access mode is required",
        ));
    }
    if set(spec, "selector") {
        errs.extend(super::common::label_selector(
            get(spec, "selector"),
            "spec.selector",
        ));
    }
    const SUPPORTED: [&str; 4] = [
        "ReadOnlyMany",
        "ReadWriteMany",
        "ReadWriteOnce",
        "ReadWriteOncePod",
    ];
    let (mut once_pod, mut other) = (false, false);
    for mode in modes {
        let mode = mode.as_str().unwrap_or("");
        if !SUPPORTED.contains(&mode) {
            errs.push(FieldError::not_supported(
                "spec.accessModes",
                BadValue::str(mode),
                &strings(&SUPPORTED),
            ));
        } else if mode == "ReadWriteOncePod" {
            once_pod = true;
        } else {
            other = true;
        }
    }
    if once_pod && other {
        errs.push(FieldError::forbidden(
            "spec.accessModes",
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    let storage_path = "spec.resources[storage]";
    match get(get(spec, "resources"), "requests").get("storage") {
        None => errs.push(FieldError::required(storage_path, "")),
        Some(q) => {
            let q = quantity::text(q);
            if quantity::value(&q).unwrap_or(0.0) <= 0.0 {
                errs.push(FieldError::invalid(
                    storage_path,
                    BadValue::str(q.as_str()),
                    "must be greater than zero",
                ));
            }
        }
    }
    let class = text(spec, "storageClassName");
    if !class.is_empty() {
        for msg in dns1123_subdomain(class) {
            errs.push(FieldError::invalid(
                "spec.storageClassName",
                BadValue::str(class),
                msg,
            ));
        }
    }
    if let Some(Value::String(mode)) = spec.get("volumeMode")
        && mode != "Block"
        && mode != "Filesystem"
    {
        errs.push(FieldError::not_supported(
            "spec.volumeMode",
            BadValue::str(mode.as_str()),
            &strings(&["Block", "Filesystem"]),
        ));
    }
    errs
}

/// The update rules of `ValidatePersistentVolumeClaimUpdate` after the new claim's checks.
fn pvc_update(pvc: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (spec, old_spec) = (get(pvc, "spec"), get(old, "spec"));
    let mut new_clone = spec.clone();
    let mut old_clone = old_spec.clone();
    if text(old_spec, "volumeName").is_empty() {
        set_or_remove(&mut old_clone, "volumeName", spec.get("volumeName"));
    }
    if old_spec.get("storageClassName").is_none() && spec.get("storageClassName").is_some() {
        set_or_remove(&mut new_clone, "storageClassName", None);
    }
    let bound = text(get(pvc, "status"), "phase") == "Bound";
    if bound {
        if let Some(Value::Object(requests)) = new_clone
            .get_mut("resources")
            .and_then(|r| r.get_mut("requests"))
        {
            match get(get(old_spec, "resources"), "requests").get("storage") {
                Some(s) => {
                    requests.insert("storage".into(), s.clone());
                }
                None => {
                    requests.remove("storage");
                }
            }
        }
        set_or_remove(
            &mut new_clone,
            "volumeAttributesClassName",
            old_spec.get("volumeAttributesClassName"),
        );
    }
    if new_clone != old_clone {
        errs.push(FieldError::forbidden(
            "spec",
            format!(
                "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n{}",
                super::diff::unified(&old_clone, &new_clone)
            ),
        ));
    }
    let size = |s: &Value| quantity::text(get(get(get(s, "resources"), "requests"), "storage"));
    let (new_size, status_size) = (
        size(spec),
        quantity::text(get(get(get(old, "status"), "capacity"), "storage")),
    );
    if quantity::cmp(&new_size, &size(old_spec)).is_lt()
        && quantity::cmp(&new_size, &status_size).is_le()
    {
        errs.push(FieldError::forbidden(
            "spec.resources.requests.storage",
            "field can not be less than status.capacity",
        ));
    }
    let mode = get(spec, "volumeMode");
    errs.extend(super::common::immutable(
        mode,
        get(old_spec, "volumeMode"),
        "volumeMode",
        BadValue::of(mode),
    ));
    errs
}

fn set_or_remove(object: &mut Value, key: &str, value: Option<&Value>) {
    if let Value::Object(m) = object {
        match value {
            Some(v) => {
                m.insert(key.to_owned(), v.clone());
            }
            None => {
                m.remove(key);
            }
        }
    }
}
