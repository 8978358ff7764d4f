//! Typed admission: defaulting and validating webhooks written against a kind's Rust type
//! rather than its JSON.
//!
//! [`Webhooks::defaulter`] decodes the object into the kind, applies its declared defaults
//! (`set_defaults`), calls the author's [`Defaulter`], and answers with a patch carrying only
//! what changed — fields the kind's type does not know stay as the apiserver sent them.
//! [`Webhooks::typed_validator`] calls a [`TypedValidator`] with the decoded new and old
//! objects, per operation; [`LocalValidation`] runs the kind's own schema and CEL
//! validation (`obj.validate()`) first.
//!
//! ```no_run
//! # use kubegen_runtime::webhook::{Admission, LocalValidation, TypedValidator, Verdict, Webhooks};
//! # use kubegen_runtime::validation::FieldError;
//! # use k8s_openapi::api::core::v1::ConfigMap as Widget;
//! struct Immutable;
//! impl TypedValidator<Widget> for Immutable {
//!     fn validate_create(&self, _: &Admission<'_>, _: &Widget) -> Verdict {
//!         Verdict::allow()
//!     }
//!     fn validate_update(&self, _: &Admission<'_>, old: &Widget, new: &Widget) -> Verdict {
//!         if old.data != new.data {
//!             return Verdict::from_errors(vec![FieldError::forbidden("data", "field is immutable")]);
//!         }
//!         Verdict::allow()
//!     }
//! }
//! let webhooks = Webhooks::new().typed_validator::<Widget>(Immutable);
//! ```

use std::marker::PhantomData;

use kube_core::admission::Operation;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::admission::{Admission, Denial, Mutator, Validator, Verdict};
use super::registry::{WebhookKind, Webhooks};
use crate::defaults::Defaults;
use crate::resource::CustomResource;
use crate::validation::{BadValue, FieldError, NIL_PATH, ValidateError, check_locally};

/// A kind's defaulting webhook, written against its type: it changes the decoded object in
/// place after the kind's declared defaults were applied. Any
/// `Fn(&Admission, &mut K) -> Verdict` is one.
///
/// It runs on CREATE and UPDATE (`admission.old_object` holds the old object's JSON).
pub trait Defaulter<K>: Send + Sync + 'static {
    /// Fills in `object` and says whether the request is admitted.
    fn default(&self, admission: &Admission<'_>, object: &mut K) -> Verdict;
}

impl<K, F> Defaulter<K> for F
where
    F: Fn(&Admission<'_>, &mut K) -> Verdict + Send + Sync + 'static,
{
    fn default(&self, admission: &Admission<'_>, object: &mut K) -> Verdict {
        self(admission, object)
    }
}

/// A kind's validating webhook, written against its type: one method per operation, with
/// the decoded objects (controller-runtime's `CustomValidator`).
pub trait TypedValidator<K>: Send + Sync + 'static {
    /// Says whether `object` may be created.
    fn validate_create(&self, admission: &Admission<'_>, object: &K) -> Verdict;

    /// Says whether `old` may be replaced with `new`.
    fn validate_update(&self, admission: &Admission<'_>, old: &K, new: &K) -> Verdict;

    /// Says whether `old` may be deleted. Allowed unless overridden.
    fn validate_delete(&self, admission: &Admission<'_>, old: &K) -> Verdict {
        let _ = (admission, old);
        Verdict::allow()
    }
}

/// Admits everything: the validator after [`LocalValidation::new`], which checks only what
/// the kind declares.
impl<K> TypedValidator<K> for () {
    fn validate_create(&self, _: &Admission<'_>, _: &K) -> Verdict {
        Verdict::allow()
    }

    fn validate_update(&self, _: &Admission<'_>, _: &K, _: &K) -> Verdict {
        Verdict::allow()
    }
}

/// A [`TypedValidator`] that first validates the object as the apiserver would — the kind's
/// schema and CEL rules, `obj.validate()` on create and `new.validate_update(&old)` on
/// update — and denies with those field errors ([`Denial::Invalid`]) before asking the
/// next validator. The warnings of ratcheted CEL rules become the answer's warnings.
///
/// Useful where objects reach the webhook before the apiserver's own validation would
/// catch them, and to give the same verdict in the webhook's tests; deletes are passed on
/// unchecked (the apiserver does not validate them either).
///
/// ```ignore
/// // `Widget` is a kubegen kind, `MyChecks` a `TypedValidator<Widget>`.
/// let webhooks = Webhooks::new()
///     .defaults::<Widget>()
///     .typed_validator::<Widget>(LocalValidation::then(MyChecks));
/// ```
#[derive(Clone, Debug, Default)]
pub struct LocalValidation<V = ()> {
    next: V,
}

impl LocalValidation<()> {
    /// The kind's own validation alone.
    pub fn new() -> Self {
        LocalValidation { next: () }
    }

    /// The kind's own validation, then `next` when the object passed it.
    pub fn then<V>(next: V) -> LocalValidation<V> {
        LocalValidation { next }
    }
}

impl<K, V> TypedValidator<K> for LocalValidation<V>
where
    K: CustomResource + Serialize,
    V: TypedValidator<K>,
{
    fn validate_create(&self, admission: &Admission<'_>, object: &K) -> Verdict {
        local_then(check_locally(object, None), || {
            self.next.validate_create(admission, object)
        })
    }

    fn validate_update(&self, admission: &Admission<'_>, old: &K, new: &K) -> Verdict {
        local_then(check_locally(new, Some(old)), || {
            self.next.validate_update(admission, old, new)
        })
    }

    fn validate_delete(&self, admission: &Admission<'_>, old: &K) -> Verdict {
        self.next.validate_delete(admission, old)
    }
}

/// The local verdict, or when it admits, `next`'s — with the local warnings first.
fn local_then(
    local: Result<(Result<(), crate::validation::Invalid>, Vec<String>), ValidateError>,
    next: impl FnOnce() -> Verdict,
) -> Verdict {
    let (outcome, warnings) = match local {
        Ok(checked) => checked,
        Err(error) => return internal_error(format!("validating the object: {error}")),
    };
    let mut verdict = match outcome {
        Err(invalid) => Verdict::from_errors(invalid.causes),
        Ok(()) => next(),
    };
    verdict.warnings.splice(0..0, warnings);
    verdict
}

/// A denial for a failure of the webhook itself rather than of the object (a kind whose
/// schema does not build, an object that does not serialize): `field.InternalError`.
fn internal_error(message: String) -> Verdict {
    Verdict {
        denial: Some(Denial::Invalid(vec![FieldError::internal(
            NIL_PATH, message,
        )])),
        warnings: Vec::new(),
    }
}

/// Decodes an admission object as `K`. An object that does not decode is answered as the
/// apiserver answers an object of the wrong shape: a 422 `Invalid` with one cause at the
/// field that failed — `Required value` for a missing field, `Invalid value` with serde's
/// message for a value of the wrong type (the apiserver's own 400 `BadRequest` decode errors
/// are for bodies that are not JSON at all, which never reach a webhook).
pub(crate) fn decode<K: DeserializeOwned>(
    object: &Value,
    kind: &str,
    which: &str,
) -> Result<K, FieldError> {
    match K::deserialize(object) {
        Ok(decoded) => Ok(decoded),
        // Decoding again only to learn where it failed keeps path tracking off the fast path.
        Err(plain) => Err(match serde_path_to_error::deserialize::<_, K>(object) {
            Ok(_) => FieldError::invalid(NIL_PATH, BadValue::Json(Value::Null), plain.to_string()),
            Err(error) => decode_error(object, kind, which, &error),
        }),
    }
}

fn decode_error(
    object: &Value,
    kind: &str,
    which: &str,
    error: &serde_path_to_error::Error<serde_json::Error>,
) -> FieldError {
    use serde_path_to_error::Segment;
    let mut field = String::new();
    let mut value = Some(object);
    for segment in error.path().iter() {
        match segment {
            Segment::Map { key } => {
                if !field.is_empty() {
                    field.push('.');
                }
                field.push_str(key);
                value = value.and_then(|v| v.get(key));
            }
            Segment::Seq { index } => {
                field.push_str(&format!("[{index}]"));
                value = value.and_then(|v| v.get(index));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    let message = error.inner().to_string();
    if let Some(missing) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        let path = if field.is_empty() {
            missing.to_owned()
        } else {
            format!("{field}.{missing}")
        };
        return FieldError::required(&path, format!("the {which} does not decode as {kind}"));
    }
    let path = if field.is_empty() { NIL_PATH } else { &field };
    let value = value.map_or(BadValue::Json(Value::Null), BadValue::of);
    FieldError::type_invalid(
        path,
        value,
        format!("the {which} does not decode as {kind}: {message}"),
    )
}

/// The [`Mutator`] behind [`Webhooks::defaulter`].
struct Defaulting<K, D> {
    defaulter: D,
    kind: PhantomData<fn() -> K>,
}

impl<K, D> Mutator for Defaulting<K, D>
where
    K: kube::Resource<DynamicType = ()> + DeserializeOwned + Serialize + Defaults + 'static,
    D: Defaulter<K>,
{
    fn mutate(&self, admission: &Admission<'_>, object: &mut Value) -> Verdict {
        let mut typed: K = match decode(object, &K::kind(&()), "object") {
            Ok(typed) => typed,
            Err(error) => return Verdict::from_errors(vec![error]),
        };
        // The object as the type sees it: the patch is what changes from here, so values the
        // type reads but writes differently, and fields it does not know, are left alone.
        let before = match serde_json::to_value(&typed) {
            Ok(before) => before,
            Err(error) => return internal_error(format!("serializing the object: {error}")),
        };
        typed.set_defaults();
        let verdict = self.defaulter.default(admission, &mut typed);
        if !verdict.is_allowed() {
            return verdict;
        }
        match serde_json::to_value(&typed) {
            Ok(after) => {
                carry_changes(object, &before, &after);
                verdict
            }
            Err(error) => internal_error(format!("serializing the defaulted object: {error}")),
        }
    }
}

/// Applies to `target` (the object as received) the changes from `before` to `after` (the
/// typed object re-serialized before and after defaulting). Members of objects recurse, so
/// members `before` never had (fields the type does not know) stay in `target`; lists of
/// the same length recurse by index; anything else that changed is replaced by `after`'s.
pub(crate) fn carry_changes(target: &mut Value, before: &Value, after: &Value) {
    if before == after {
        return;
    }
    match (target, before, after) {
        (Value::Object(target), Value::Object(before), Value::Object(after)) => {
            target.retain(|key, _| !before.contains_key(key) || after.contains_key(key));
            for (key, new) in after {
                match (before.get(key), target.get_mut(key)) {
                    (Some(old), _) if old == new => {}
                    (Some(old), Some(slot)) => carry_changes(slot, old, new),
                    _ => {
                        target.insert(key.clone(), new.clone());
                    }
                }
            }
        }
        (Value::Array(target), Value::Array(before), Value::Array(after))
            if target.len() == before.len() && before.len() == after.len() =>
        {
            for ((slot, old), new) in target.iter_mut().zip(before).zip(after) {
                carry_changes(slot, old, new);
            }
        }
        (target, _, after) => *target = after.clone(),
    }
}

/// The [`Validator`] behind [`Webhooks::typed_validator`].
struct TypedValidating<K, V> {
    validator: V,
    kind: PhantomData<fn() -> K>,
}

impl<K, V> Validator for TypedValidating<K, V>
where
    K: kube::Resource<DynamicType = ()> + DeserializeOwned + 'static,
    V: TypedValidator<K>,
{
    fn validate(&self, admission: &Admission<'_>) -> Verdict {
        let decoded = |object: Option<&Value>, which: &str| -> Result<K, Verdict> {
            let object = object.ok_or_else(|| {
                Verdict::forbidden(format!(
                    "the {:?} request carries no {which}",
                    admission.request.operation
                ))
            })?;
            decode(object, &K::kind(&()), which).map_err(|error| Verdict::from_errors(vec![error]))
        };
        let verdict = match admission.request.operation {
            Operation::Create => decoded(admission.object, "object")
                .map(|new| self.validator.validate_create(admission, &new)),
            Operation::Update => decoded(admission.object, "object").and_then(|new| {
                let old = decoded(admission.old_object, "old object")?;
                Ok(self.validator.validate_update(admission, &old, &new))
            }),
            Operation::Delete => decoded(admission.old_object, "old object")
                .map(|old| self.validator.validate_delete(admission, &old)),
            Operation::Connect => Ok(Verdict::allow()),
        };
        verdict.unwrap_or_else(|denied| denied)
    }
}

impl Webhooks {
    /// Defaults `K`'s objects on its mutating path: each object is decoded as `K`, given the
    /// kind's declared defaults (`set_defaults`), then handed to `defaulter`; the answer's
    /// patch carries only what those two changed. An object that does not decode as `K` is
    /// denied as invalid, naming the field.
    pub fn defaulter<K>(self, defaulter: impl Defaulter<K>) -> Self
    where
        K: kube::Resource<DynamicType = ()> + DeserializeOwned + Serialize + Defaults + 'static,
    {
        self.mutator(
            WebhookKind::of::<K>(),
            Defaulting {
                defaulter,
                kind: PhantomData::<fn() -> K>,
            },
        )
    }

    /// Defaults `K`'s objects with the kind's declared defaults only (`set_defaults`).
    pub fn defaults<K>(self) -> Self
    where
        K: kube::Resource<DynamicType = ()> + DeserializeOwned + Serialize + Defaults + 'static,
    {
        self.defaulter::<K>(|_: &Admission<'_>, _: &mut K| Verdict::allow())
    }

    /// Validates `K`'s objects on its validating path through `validator`, with the objects
    /// decoded as `K`: CREATE, UPDATE and DELETE each call their method (CONNECT is
    /// allowed). Wrap it in [`LocalValidation::then`] to check the kind's schema and rules
    /// first. An object that does not decode as `K` is denied as invalid, naming the field.
    pub fn typed_validator<K>(self, validator: impl TypedValidator<K>) -> Self
    where
        K: kube::Resource<DynamicType = ()> + DeserializeOwned + 'static,
    {
        self.validator(
            WebhookKind::of::<K>(),
            TypedValidating {
                validator,
                kind: PhantomData::<fn() -> K>,
            },
        )
    }

    /// Validates `K`'s objects with the kind's own schema and CEL validation only
    /// ([`LocalValidation::new`]).
    pub fn local_validation<K>(self) -> Self
    where
        K: kube::Resource<DynamicType = ()> + CustomResource + DeserializeOwned + Serialize,
        K: 'static,
    {
        self.typed_validator::<K>(LocalValidation::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube_core::DynamicObject;
    use kube_core::admission::{AdmissionRequest, AdmissionReview};
    use serde_json::json;

    impl Defaults for ConfigMap {
        fn set_defaults(&mut self) {
            self.immutable.get_or_insert(false);
        }
    }

    fn request(operation: &str) -> AdmissionRequest<DynamicObject> {
        let review: AdmissionReview<DynamicObject> = serde_json::from_value(json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "u",
                "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
                "resource": {"group": "", "version": "v1", "resource": "configmaps"},
                "operation": operation,
                "userInfo": {},
            },
        }))
        .unwrap();
        review.try_into().unwrap()
    }

    fn mutate(defaulter: impl Defaulter<ConfigMap>, object: &Value) -> (Verdict, Value) {
        let request = request("CREATE");
        let admission = Admission {
            request: &request,
            object: Some(object),
            old_object: None,
        };
        let mut mutated = object.clone();
        let mutator = Defaulting {
            defaulter,
            kind: PhantomData::<fn() -> ConfigMap>,
        };
        let verdict = mutator.mutate(&admission, &mut mutated);
        (verdict, mutated)
    }

    #[test]
    fn defaulting_changes_only_what_the_type_changed() {
        let object = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "labels": {"a": "1"}, "futureField": {"x": 1}},
            "data": {"k": "v"},
            "unknownTopLevel": [1, 2],
        });
        let (verdict, mutated) = mutate(
            |_: &Admission<'_>, cm: &mut ConfigMap| {
                cm.data
                    .get_or_insert_default()
                    .insert("added".into(), "yes".into());
                Verdict::allow().with_warning("added a key")
            },
            &object,
        );
        assert_eq!(verdict, Verdict::allow().with_warning("added a key"));
        let mut expected = object.clone();
        expected["immutable"] = json!(false);
        expected["data"]["added"] = json!("yes");
        assert_eq!(mutated, expected);
        let patch = json_patch::diff(&object, &mutated);
        assert_eq!(patch.0.len(), 2, "{patch:?}");
    }

    #[test]
    fn a_denial_leaves_the_object_alone() {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        let (verdict, mutated) = mutate(
            |_: &Admission<'_>, cm: &mut ConfigMap| {
                cm.data = Some([("x".to_owned(), "y".to_owned())].into());
                Verdict::forbidden("no")
            },
            &object,
        );
        assert_eq!(verdict, Verdict::forbidden("no"));
        assert_eq!(mutated, object);
    }

    #[test]
    fn an_object_that_does_not_decode_names_the_field() {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": 3}});
        let (verdict, mutated) = mutate(
            |_: &Admission<'_>, _: &mut ConfigMap| Verdict::allow(),
            &object,
        );
        assert_eq!(mutated, object);
        let Some(Denial::Invalid(errors)) = verdict.denial else {
            panic!("{verdict:?}")
        };
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "data.k");
        assert_eq!(
            errors[0].body(),
            "Invalid value: 3: the object does not decode as ConfigMap: invalid type: integer `3`, expected a string"
        );
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Spec {
            size: i32,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Sized {
            spec: Spec,
        }
        let missing = decode::<Sized>(&json!({"spec": {}}), "Sized", "object").unwrap_err();
        assert_eq!(missing.field, "spec.size");
        assert_eq!(
            missing.body(),
            "Required value: the object does not decode as Sized"
        );
    }

    #[test]
    fn changes_are_carried_into_lists_and_removals_too() {
        let mut target =
            json!({"items": [{"a": 1, "x": "keep"}, {"a": 2}], "gone": 1, "unknown": true});
        let before = json!({"items": [{"a": 1}, {"a": 2}], "gone": 1, "zero": 0});
        let after = json!({"items": [{"a": 1, "b": 1}, {"a": 3}], "zero": 5});
        carry_changes(&mut target, &before, &after);
        assert_eq!(
            target,
            json!({"items": [{"a": 1, "x": "keep", "b": 1}, {"a": 3}], "unknown": true, "zero": 5})
        );
        // A list whose length changed is the typed one.
        let mut target = json!({"items": [{"a": 1, "x": "lost"}]});
        carry_changes(
            &mut target,
            &json!({"items": [{"a": 1}]}),
            &json!({"items": [{"a": 1}, {"a": 2}]}),
        );
        assert_eq!(target, json!({"items": [{"a": 1}, {"a": 2}]}));
    }

    struct NoNewKeys;
    impl TypedValidator<ConfigMap> for NoNewKeys {
        fn validate_create(&self, _: &Admission<'_>, object: &ConfigMap) -> Verdict {
            Verdict::allow().with_warning(format!("created {:?}", object.metadata.name))
        }
        fn validate_update(&self, _: &Admission<'_>, old: &ConfigMap, new: &ConfigMap) -> Verdict {
            let keys = |c: &ConfigMap| {
                c.data
                    .clone()
                    .unwrap_or_default()
                    .into_keys()
                    .collect::<Vec<_>>()
            };
            let added = keys(new)
                .into_iter()
                .filter(|k| !keys(old).contains(k))
                .count();
            Verdict::from_errors(
                (added > 0)
                    .then(|| FieldError::forbidden("data", "no new keys"))
                    .into_iter()
                    .collect(),
            )
        }
    }

    #[test]
    fn a_typed_validator_gets_each_operation_decoded() {
        let validating = TypedValidating {
            validator: NoNewKeys,
            kind: PhantomData::<fn() -> ConfigMap>,
        };
        let old = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}});
        let new = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}});
        let run = |operation: &str, object: Option<&Value>, old_object: Option<&Value>| {
            let request = request(operation);
            validating.validate(&Admission {
                request: &request,
                object,
                old_object,
            })
        };
        assert_eq!(
            run("CREATE", Some(&new), None).warnings,
            ["created Some(\"c\")"]
        );
        let denied = run("UPDATE", Some(&new), Some(&old));
        assert!(matches!(denied.denial, Some(Denial::Invalid(ref e)) if e[0].field == "data"));
        assert!(run("UPDATE", Some(&old), Some(&new)).is_allowed());
        assert!(run("DELETE", None, Some(&old)).is_allowed());
        assert_eq!(
            run("UPDATE", Some(&new), None),
            Verdict::forbidden("the Update request carries no old object")
        );
        let broken = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 7}});
        let denied = run("DELETE", None, Some(&broken));
        let Some(Denial::Invalid(errors)) = denied.denial else {
            panic!("{denied:?}")
        };
        assert_eq!(errors[0].field, "metadata.name");
        assert!(
            errors[0].body().contains("the old object does not decode"),
            "{}",
            errors[0].body()
        );
    }
}
