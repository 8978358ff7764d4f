//! Typed validation: [`TypedValidator`], [`LocalValidation`] and the validator behind
//! [`Webhooks::typed_validator`].

use std::marker::PhantomData;

use kube_core::admission::Operation;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{decode, internal_error};
use crate::resource::CustomResource;
use crate::validation::{Invalid, ValidateError, check_locally};
use crate::webhook::admission::{Admission, Validator, Verdict};
use crate::webhook::registry::{WebhookKind, Webhooks};

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
/// update — and denies with those field errors
/// ([`Denial::Invalid`](crate::webhook::Denial::Invalid)) before asking the next validator. The warnings of ratcheted CEL rules become the answer's warnings.
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
    local: Result<(Result<(), Invalid>, Vec<String>), ValidateError>,
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
    use crate::validation::FieldError;
    use crate::webhook::admission::Denial;
    use crate::webhook::typed::test_request as request;
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

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
