//! Field ownership on writes: `metadata.managedFields` for Update operations, and
//! server-side apply (merge, conflicts, force), through [`kubegen_runtime::fieldpath::managed`] with
//! each endpoint's settings — the fields the status subresource and the main resource reset,
//! and the scale subresource's translation of replicas ownership.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use super::*;
use kubegen_runtime::fieldpath::managed::{
    ApplyError, FieldManager, SCALE_API_VERSION, ScaleHandler, relabel,
};
use kubegen_runtime::fieldpath::schema::KindTypes;
use kubegen_runtime::fieldpath::{Path, Set};
use kubegen_runtime::validation::defaulting::{apply_defaults, drop_nulls};
use kubegen_runtime::validation::openapi;

static SCALE_SCHEMA: LazyLock<KindTypes> = LazyLock::new(KindTypes::scale);

fn scale_schema(api_version: &str) -> Option<&'static KindTypes> {
    (api_version == SCALE_API_VERSION).then_some(&*SCALE_SCHEMA)
}

/// The field types of the kind's version `api_version` (`group/version`).
fn version_schema<'a>(kind: &'a KindEntry, api_version: &str) -> Option<&'a KindTypes> {
    kind.versions
        .iter()
        .find(|v| kind.api_version(v.name) == api_version)
        .map(|v| &v.types)
}

impl State {
    /// Runs `f` with the field manager of the endpoint `t` addresses.
    fn with_field_manager<R>(&self, t: &Target, f: impl FnOnce(&FieldManager<'_>) -> R) -> R {
        let e = self.entry(t);
        let subresource = t.subresource.as_deref().unwrap_or("");
        let now = self.clock.rfc3339();
        if subresource == "scale" {
            let schemas = |v: &str| scale_schema(v);
            return f(&FieldManager {
                schemas: &schemas,
                convert: &relabel,
                api_version: SCALE_API_VERSION,
                kind: "Scale",
                subresource,
                reset: &BTreeMap::new(),
                now: &now,
            });
        }
        let schemas = |v: &str| version_schema(e, v);
        let convert = |object: &Value, to: &str| e.convert_for_field_manager(object, to);
        let api_version = e.api_version(&t.version);
        f(&FieldManager {
            schemas: &schemas,
            convert: &convert,
            api_version: &api_version,
            kind: e.kind,
            subresource,
            reset: &self.reset_fields(t, subresource),
            now: &now,
        })
    }

    /// What an endpoint resets, so nobody owns it through that endpoint: status on the main
    /// resource (of its own version), everything but status on the status subresource (of
    /// every version with one).
    fn reset_fields(&self, t: &Target, subresource: &str) -> BTreeMap<String, Set> {
        let e = self.entry(t);
        match subresource {
            "status" => e
                .versions
                .iter()
                .filter(|v| v.status)
                .map(|v| {
                    let set = Set::from_paths([Path::fields(["metadata"]), Path::fields(["spec"])]);
                    (e.api_version(v.name), set)
                })
                .collect(),
            "" if self.version(t).status => BTreeMap::from([(
                e.api_version(&t.version),
                Set::from_paths([Path::fields(["status"])]),
            )]),
            _ => BTreeMap::new(),
        }
    }

    /// Records an Update (create, PUT, merge or JSON patch) in `new`'s managed fields; `live`
    /// is the stored object, or an empty one on create.
    pub(super) fn track_update(&self, t: &Target, live: &Value, new: &mut Value, w: &WriteOptions) {
        let manager = w.field_manager.as_deref().unwrap_or("");
        self.with_field_manager(t, |fm| fm.update(live, new, manager));
    }

    /// Whether the field manager can type `object` (a version it knows, values its schema's
    /// types admit).
    pub(super) fn field_manager_types(&self, t: &Target, object: &Value) -> bool {
        self.with_field_manager(t, |fm| fm.types(object))
    }

    /// Server-side apply of `applied` to `live` (an empty object when creating): the merged
    /// object with its managed fields, or the conflict.
    pub(super) fn apply(
        &self,
        t: &Target,
        live: &Value,
        applied: &Value,
        w: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let manager = w.field_manager.as_deref().unwrap_or("");
        if manager.is_empty() {
            return Err(ApiError::bad_request(
                "PATCH with apply requires a fieldManager",
            ));
        }
        self.with_field_manager(t, |fm| fm.apply(live, applied, manager, w.force))
            .map(|merged| {
                // The result's metadata is written back as `ObjectMeta` serializes it (an
                // applied `labels: {}` is gone, as observed on kube-apiserver v1.36.2).
                let mut written = merged.clone();
                match kubegen_runtime::validation::decode::coerce::coerce_metadata(&mut written) {
                    Ok(_) => written,
                    Err(_) => merged,
                }
            })
            .map_err(|e| match e {
                ApplyError::Conflicts(c) => ApiError {
                    code: 409,
                    reason: "Conflict",
                    message: c.message(),
                    details: Some(json!({"causes": c.causes()})),
                    retry_after: None,
                },
                ApplyError::BadRequest(m) => ApiError::bad_request(m),
                ApplyError::Internal(m) => ApiError {
                    code: 500,
                    reason: "",
                    message: m,
                    details: None,
                    retry_after: None,
                },
            })
    }

    /// Schema work on an apply's result: the apiserver defaults it and validates it, but does
    /// not drop the nulls an applied configuration sets (it drops them only from bodies it
    /// decodes): a null where the schema has a default takes the default, a null the schema
    /// allows stays, any other null is invalid.
    pub(super) fn prepare_applied(&self, t: &Target, object: &mut Value) -> Result<(), ApiError> {
        let version = self.version(t);
        let schema = &version.schema;
        drop_defaulted_nulls(schema, object);
        let mut without_nulls = object.clone();
        drop_nulls(schema, &mut without_nulls);
        if without_nulls != *object {
            let mut checked = object.clone();
            crate::decode::prune(schema, &mut checked);
            apply_defaults(schema, &mut checked);
            let errors = openapi::validate(version.validator.schema(), &checked, None, None);
            if !errors.is_empty() {
                return Err(self.invalid(t, object, &errors));
            }
        }
        Ok(())
    }

    fn replicas_paths(&self, t: &Target) -> BTreeMap<String, Option<Path>> {
        let e = self.entry(t);
        e.versions
            .iter()
            .map(|v| {
                let path = v
                    .scale
                    .map(|s| Path::fields(s.spec_replicas_path.trim_start_matches('.').split('.')));
                (e.api_version(v.name), path)
            })
            .collect()
    }

    /// Runs `f` with the translator between `object`'s managed fields and its `Scale`'s.
    fn with_scale_handler<R>(
        &self,
        t: &Target,
        object: &Value,
        f: impl FnOnce(&ScaleHandler<'_>) -> R,
    ) -> R {
        let paths = self.replicas_paths(t);
        let api_version = self.entry(t).api_version(&t.version);
        f(&ScaleHandler {
            parent: object["metadata"].get("managedFields"),
            api_version: &api_version,
            replicas_paths: &paths,
        })
    }

    /// The managed fields a `Scale` view of `object` carries while it is written.
    pub(super) fn scale_managed_fields(&self, t: &Target, object: &Value) -> Value {
        let converted = self.with_scale_handler(t, object, |h| h.to_subresource());
        match converted {
            Ok(entries) if !entries.is_empty() => Value::Array(entries),
            _ => Value::Null,
        }
    }

    /// `object`'s managed fields after a scale write ended with `scale`.
    pub(super) fn managed_fields_from_scale(
        &self,
        t: &Target,
        object: &Value,
        scale: &Value,
    ) -> Value {
        let converted = self.with_scale_handler(t, object, |h| {
            h.to_parent(scale["metadata"].get("managedFields"))
        });
        match converted {
            Ok(entries) if !entries.is_empty() => Value::Array(entries),
            Ok(_) => Value::Null,
            Err(_) => object["metadata"]["managedFields"].clone(),
        }
    }
}

/// Removes nulls the schema replaces with a default (not nullable, with a `default`), so
/// defaulting fills them.
fn drop_defaulted_nulls(schema: &Value, value: &mut Value) {
    let Value::Object(node) = schema else { return };
    match value {
        Value::Object(fields) => {
            let properties = node.get("properties").and_then(Value::as_object);
            let additional = node.get("additionalProperties").filter(|a| a.is_object());
            let child_of = |name: &str| properties.and_then(|p| p.get(name)).or(additional);
            fields.retain(|name, v| {
                let defaulted = child_of(name).is_some_and(|c| {
                    c.get("default").is_some() && c.get("nullable") != Some(&Value::Bool(true))
                });
                !(v.is_null() && defaulted)
            });
            for (name, v) in fields.iter_mut() {
                if let Some(child) = child_of(name) {
                    drop_defaulted_nulls(child, v);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                items.iter_mut().for_each(|i| drop_defaulted_nulls(item, i));
            }
        }
        _ => {}
    }
}
