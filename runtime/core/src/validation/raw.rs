//! Validating raw objects: a JSON value or YAML documents of a kubegen kind, checked as the
//! apiserver checks a create or update of them — decoded (its `metadata` through Go's
//! `ObjectMeta`, unknown fields pruned and reported per `fieldValidation`), named (a
//! `generateName` gets a name), stripped of what the server owns, defaulted, then validated
//! against the kind's schema and CEL rules. Objects that do not decode into the Rust type
//! get the apiserver's causes too: this is the path for admission webhooks, CLIs and tests
//! of YAML files. The typed [`Validate`](super::Validate) methods run the same steps on
//! what the type serializes to; the in-memory server writes through the same decoding,
//! preparation and validator.
//!
//! What a server fills in is assumed: a namespaced object without a namespace is checked as
//! if created in `default`; an update is checked as a PUT to the old object (its name and
//! namespace), carrying its uid, creation time and resourceVersion when the new one lacks
//! them.

use std::cell::OnceCell;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::local::{self, Prepared, Refusal, ValidateError, verdict};
use crate::checks::decode::{self, FieldValidation};
use crate::checks::request;
use crate::registry;
use crate::resource::{CustomResource, ResourceInfo, Scope};

/// An object the apiserver would accept, as it would hold it after validation.
#[derive(Clone, Debug, PartialEq)]
pub struct Accepted {
    /// The object decoded, pruned, named and defaulted (without the uid, creation time and
    /// resourceVersion a store would add).
    pub object: Value,
    /// The apiserver's `Warning` headers: unknown and duplicate fields under
    /// `fieldValidation=Warn`, errors of CEL rules an update ratcheted.
    pub warnings: Vec<String>,
}

/// Validates `object`, a raw object of kind `K`, as the apiserver validates creating it:
/// `Invalid` with the apiserver's causes whether or not the object decodes into `K`, or
/// the apiserver's refusal of a body it cannot decode (a wrong type in `metadata`, another
/// apiVersion, an unknown field under [`FieldValidation::Strict`], which is what kubectl
/// sends).
///
/// ```ignore
/// use kubegen::validation::{FieldValidation, validate_json};
///
/// let object = serde_json::json!({
///     "apiVersion": "example.com/v1", "kind": "Widget",
///     "metadata": {"generateName": "w-"},
///     "spec": {"size": "eleven", "colour": "mauve"},
/// });
/// let invalid = validate_json::<Widget>(&object, FieldValidation::Warn)
///     .unwrap_err()
///     .into_invalid()
///     .unwrap();
/// // spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"
/// // spec.colour: Unsupported value: "mauve": supported values: "red", "green"
/// ```
pub fn validate_json<K: CustomResource>(
    object: &Value,
    field_validation: FieldValidation,
) -> Result<Accepted, ValidateError> {
    create(K::INFO, object.clone(), field_validation)
}

/// Validates replacing `old` (an object of kind `K` as stored) with `object`, as the
/// apiserver validates a PUT of `object` to `old`: ratcheting and transition rules included.
pub fn validate_json_update<K: CustomResource>(
    object: &Value,
    old: &Value,
    field_validation: FieldValidation,
) -> Result<Accepted, ValidateError> {
    update(K::INFO, object.clone(), old.clone(), field_validation)
}

/// Validates writing `object`'s status through the status subresource over `old`: only the
/// status changes, and the schema of `status` and every CEL rule are checked.
pub fn validate_json_status_update<K: CustomResource>(
    object: &Value,
    old: &Value,
    field_validation: FieldValidation,
) -> Result<Accepted, ValidateError> {
    status_update(K::INFO, object.clone(), old.clone(), field_validation)
}

/// Validates every document of a YAML stream as a create of its kind: each names its
/// `apiVersion` and `kind`, which must be a kubegen kind this program registered (linked
/// with `#[derive(CustomResource)]`). One result per non-empty document, in order; reading
/// stops at the first document that does not parse. YAML is read as YAML 1.2 (kubectl reads
/// 1.1, where unquoted `yes`, `no`, `on` and `off` are booleans).
pub fn validate_yaml(
    text: &str,
    field_validation: FieldValidation,
) -> Vec<Result<Accepted, ValidateError>> {
    let mut results = Vec::new();
    for document in serde_yaml_ng::Deserializer::from_str(text) {
        let object = match Value::deserialize(document) {
            Ok(Value::Null) => continue,
            Ok(object) => object,
            Err(e) => {
                results.push(Err(ValidateError::Yaml(e)));
                break;
            }
        };
        results.push(match registered(&object) {
            Some(info) => create(info, object, field_validation),
            None => Err(ValidateError::UnknownKind {
                api_version: string(&object, "apiVersion"),
                kind: string(&object, "kind"),
            }),
        });
    }
    results
}

fn string(object: &Value, key: &str) -> String {
    object[key].as_str().unwrap_or("").to_owned()
}

/// The registered kind version an object names.
fn registered(object: &Value) -> Option<&'static ResourceInfo> {
    let (api_version, kind) = (object["apiVersion"].as_str()?, object["kind"].as_str()?);
    registry::registered()
        .into_iter()
        .find(|i| i.kind == kind && api_version_of(i) == api_version)
}

fn api_version_of(info: &ResourceInfo) -> String {
    format!("{}/{}", info.group, info.version)
}

/// The decoding a create or update body gets, with `info`'s schema (or that of the version
/// of the same kind the body names).
fn decode(
    info: &'static ResourceInfo,
    prepared: &Prepared,
    object: Value,
    field_validation: FieldValidation,
) -> Result<(Value, Vec<String>), ValidateError> {
    if let Err(why) = decode::type_meta(&object, &[]) {
        // The message quotes the body; only an object that fails needs it written out.
        let data = kubegen_go::json::to_vec(&object);
        let why = decode::type_meta(&object, &data).err().unwrap_or(why);
        return Err(Refusal::bad_request(decode::unrecognized(
            info.kind, &data, &why,
        )));
    }
    // The kind's other versions, looked up only for a body that names one.
    let others: OnceCell<Vec<(&str, Arc<Prepared>)>> = OnceCell::new();
    let schema = |version: &str| {
        if version == info.version {
            return Some(&prepared.schema);
        }
        others
            .get_or_init(|| {
                registry::registered()
                    .into_iter()
                    .filter(|i| i.group == info.group && i.kind == info.kind)
                    .filter_map(|i| Some((i.version, local::prepared(i).ok()?)))
                    .collect()
            })
            .iter()
            .find(|(v, _)| *v == version)
            .map(|(_, p)| &p.schema)
    };
    decode::body(
        object,
        info.kind,
        &api_version_of(info),
        schema,
        &[],
        field_validation,
    )
    .map_err(Refusal::bad_request)
}

/// The object's `apiVersion` and `kind`, as the apiserver sets them on a write.
fn type_meta(info: &ResourceInfo, object: &mut Value) {
    object["apiVersion"] = json!(api_version_of(info));
    if !object["kind"].is_string() {
        object["kind"] = json!(info.kind);
    }
}

/// A create: the object as the apiserver holds it when its strategy validates it.
pub(crate) fn create(
    info: &'static ResourceInfo,
    object: Value,
    field_validation: FieldValidation,
) -> Result<Accepted, ValidateError> {
    let prepared = local::prepared(info)?;
    let (mut object, mut warnings) = decode(info, &prepared, object, field_validation)?;
    request::check_api_version(&object, &api_version_of(info)).map_err(Refusal::bad_request)?;
    if !object["metadata"].is_object() {
        object["metadata"] = json!({});
    }
    let meta = &mut object["metadata"];
    match info.scope {
        Scope::Namespaced if meta["namespace"].as_str().is_none_or(str::is_empty) => {
            meta["namespace"] = json!("default");
        }
        Scope::Namespaced => {}
        Scope::Cluster => {
            if let Value::Object(m) = meta {
                m.remove("namespace");
            }
        }
    }
    if info.status
        && let Value::Object(m) = &mut object
    {
        m.remove("status");
    }
    type_meta(info, &mut object);
    let name = request::name_for_create(&object, 1);
    request::fill_create_metadata(&mut object, name, None, true);
    request::prepare(&prepared.schema, &mut object);
    let checked = prepared.check_create(&object);
    verdict(info, &object, checked.errors)?;
    warnings.extend(checked.warnings);
    Ok(Accepted { object, warnings })
}

/// The new object of an update, decoded, checked against the request (a PUT to `old`) and
/// given what the server fills in; `old` is prepared as stored.
fn updated(
    info: &'static ResourceInfo,
    prepared: &Prepared,
    new: Value,
    old: &mut Value,
    field_validation: FieldValidation,
) -> Result<(Value, Vec<String>), ValidateError> {
    let (mut new, warnings) = decode(info, prepared, new, field_validation)?;
    request::prepare(&prepared.schema, old);
    if info.scope == Scope::Namespaced
        && old["metadata"]["namespace"]
            .as_str()
            .is_none_or(str::is_empty)
    {
        old["metadata"]["namespace"] = json!("default");
    }
    if !new["metadata"].is_object() {
        new["metadata"] = json!({});
    }
    for key in ["uid", "creationTimestamp", "namespace", "resourceVersion"] {
        if new["metadata"].get(key).is_none_or(Value::is_null)
            && let Some(v) = old["metadata"].get(key).cloned()
        {
            new["metadata"][key] = v;
        }
    }
    for object in [&mut new, &mut *old] {
        if object["metadata"]["resourceVersion"]
            .as_str()
            .is_none_or(str::is_empty)
        {
            object["metadata"]["resourceVersion"] = json!("1");
        }
    }
    let name = old["metadata"]["name"].as_str().unwrap_or("").to_owned();
    let namespace = old["metadata"]["namespace"].as_str();
    request::check_update_body(&new, &api_version_of(info), namespace, &name)
        .map_err(Refusal::bad_request)?;
    let current_uid = old["metadata"]["uid"].as_str().unwrap_or("");
    if let Some(uid) = new["metadata"]["uid"]
        .as_str()
        .filter(|u| !u.is_empty() && *u != current_uid)
    {
        // A custom resource's etcd key names its group.
        let key = match namespace {
            Some(ns) => format!("/registry/{}/{}/{ns}/{name}", info.group, info.plural),
            None => format!("/registry/{}/{}/{name}", info.group, info.plural),
        };
        let why = request::uid_precondition_failed(&key, uid, current_uid);
        return Err(Refusal::conflict(info, &name, &why));
    }
    if new["metadata"]["resourceVersion"] != old["metadata"]["resourceVersion"] {
        return Err(Refusal::conflict(info, &name, request::MODIFIED));
    }
    Ok((new, warnings))
}

/// An update of the main resource.
pub(crate) fn update(
    info: &'static ResourceInfo,
    new: Value,
    mut old: Value,
    field_validation: FieldValidation,
) -> Result<Accepted, ValidateError> {
    let prepared = local::prepared(info)?;
    let (mut object, mut warnings) = updated(info, &prepared, new, &mut old, field_validation)?;
    request::keep_server_fields(&mut object, &old, info.status);
    type_meta(info, &mut object);
    request::prepare(&prepared.schema, &mut object);
    let checked = prepared.check_update(&object, &old);
    verdict(info, &object, checked.errors)?;
    warnings.extend(checked.warnings);
    Ok(Accepted { object, warnings })
}

/// A write through the status subresource.
pub(crate) fn status_update(
    info: &'static ResourceInfo,
    new: Value,
    mut old: Value,
    field_validation: FieldValidation,
) -> Result<Accepted, ValidateError> {
    let prepared = local::prepared(info)?;
    let (new, mut warnings) = updated(info, &prepared, new, &mut old, field_validation)?;
    let mut object = request::with_status_of(&old, &new);
    type_meta(info, &mut object);
    request::prepare(&prepared.schema, &mut object);
    let checked = prepared.check_status_update(&object, &old);
    verdict(info, &object, checked.errors)?;
    warnings.extend(checked.warnings);
    Ok(Accepted { object, warnings })
}
