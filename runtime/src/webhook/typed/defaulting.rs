//! Typed defaulting: [`Defaulter`] and the mutator behind [`Webhooks::defaulter`].

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{decode, internal_error};
use crate::defaults::Defaults;
use crate::webhook::admission::{Admission, Mutator, Verdict};
use crate::webhook::registry::{WebhookKind, Webhooks};

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhook::admission::Denial;
    use crate::webhook::typed::test_request as request;
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

    /// A ConfigMap whose `immutable` defaults to `false`: the test's own type, since
    /// `Defaults` (kubegen-core's) cannot be implemented on k8s-openapi's ConfigMap here.
    #[derive(Clone, Debug, Default, serde::Deserialize, serde::Serialize)]
    #[serde(transparent)]
    struct Settings(ConfigMap);

    impl std::ops::Deref for Settings {
        type Target = ConfigMap;
        fn deref(&self) -> &ConfigMap {
            &self.0
        }
    }

    impl std::ops::DerefMut for Settings {
        fn deref_mut(&mut self) -> &mut ConfigMap {
            &mut self.0
        }
    }

    impl kube::Resource for Settings {
        type DynamicType = ();
        type Scope = <ConfigMap as kube::Resource>::Scope;
        fn kind(_: &()) -> std::borrow::Cow<'_, str> {
            ConfigMap::kind(&())
        }
        fn group(_: &()) -> std::borrow::Cow<'_, str> {
            ConfigMap::group(&())
        }
        fn version(_: &()) -> std::borrow::Cow<'_, str> {
            ConfigMap::version(&())
        }
        fn plural(_: &()) -> std::borrow::Cow<'_, str> {
            ConfigMap::plural(&())
        }
        fn meta(&self) -> &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            &self.0.metadata
        }
        fn meta_mut(&mut self) -> &mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            &mut self.0.metadata
        }
    }

    impl Defaults for Settings {
        fn set_defaults(&mut self) {
            self.0.immutable.get_or_insert(false);
        }
    }

    fn mutate(defaulter: impl Defaulter<Settings>, object: &Value) -> (Verdict, Value) {
        let request = request("CREATE");
        let admission = Admission {
            request: &request,
            object: Some(object),
            old_object: None,
        };
        let mut mutated = object.clone();
        let mutator = Defaulting {
            defaulter,
            kind: PhantomData::<fn() -> Settings>,
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
            |_: &Admission<'_>, cm: &mut Settings| {
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
            |_: &Admission<'_>, cm: &mut Settings| {
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
            |_: &Admission<'_>, _: &mut Settings| Verdict::allow(),
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
}
