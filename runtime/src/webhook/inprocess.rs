//! In-process admission: a kind's registered [`Mutator`](super::Mutator) or
//! [`Validator`](super::Validator) called directly with the `AdmissionRequest` the apiserver
//! would send, for the in-memory API server. The handler sees exactly what it sees behind
//! the HTTPS server: the request read from an `AdmissionReview` v1, the objects as sent, and
//! a denial shaped into the same `Status`.

use kube_core::DynamicObject;
use kube_core::admission::{AdmissionRequest, AdmissionReview};
use serde_json::{Value, json};

use super::admission::{Admission, Verdict, denial_status};
use super::registry::{AdmissionType, WebhookKind, Webhooks};

/// What a handler answered.
#[derive(Debug)]
#[doc(hidden)] // for the in-memory server
pub struct Answer {
    /// The object a mutator left (`None` for validators and requests without an object).
    pub object: Option<Value>,
    /// Warnings for the client.
    pub warnings: Vec<String>,
    /// The webhook's `response.result` when it denied the request (a `Status`).
    pub denial: Option<Value>,
}

impl Webhooks {
    /// The resources of `group`/`plural` with a handler of type `admission`.
    #[doc(hidden)] // for the in-memory server
    pub fn admission_kinds_of(
        &self,
        admission: AdmissionType,
        group: &str,
        plural: &str,
    ) -> Vec<WebhookKind> {
        let mut kinds: Vec<WebhookKind> = self
            .admission_kinds(admission)
            .filter(|k| k.group == group && k.plural == plural)
            .cloned()
            .collect();
        kinds.sort_by(|a, b| a.version.cmp(&b.version));
        kinds
    }

    /// Calls the `admission` handler registered for `kind` with `request`, an
    /// `AdmissionRequest` v1 as JSON with its `object` and `oldObject`. `None` when no
    /// handler is registered; `Some(Err)` when the request does not read as one.
    #[doc(hidden)] // for the in-memory server
    pub fn call(
        &self,
        admission: AdmissionType,
        kind: &WebhookKind,
        mut request: Value,
    ) -> Option<Result<Answer, String>> {
        let mutator = self.mutator_for(kind);
        let validator = self.validator_for(kind);
        let registered = match admission {
            AdmissionType::Mutating => mutator.is_some(),
            AdmissionType::Validating => validator.is_some(),
        };
        if !registered {
            return None;
        }
        let mut take = |field: &str| {
            request
                .as_object_mut()
                .and_then(|r| r.remove(field))
                .filter(|v| !v.is_null())
        };
        let (object, old_object) = (take("object"), take("oldObject"));
        let review = json!({
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": request,
        });
        let read = serde_json::from_value::<AdmissionReview<DynamicObject>>(review)
            .map_err(|e| e.to_string())
            .and_then(|r| {
                r.try_into()
                    .map_err(|e: kube_core::admission::ConvertAdmissionReviewError| e.to_string())
            });
        let request: AdmissionRequest<DynamicObject> = match read {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let seen = Admission {
            request: &request,
            object: object.as_ref(),
            old_object: old_object.as_ref(),
        };
        let (verdict, mutated): (Verdict, Option<Value>) = match (admission, &object) {
            (AdmissionType::Mutating, None) => (Verdict::allow(), None),
            (AdmissionType::Mutating, Some(original)) => {
                let mut mutated = original.clone();
                let verdict = mutator.map(|m| m.mutate(&seen, &mut mutated))?;
                (verdict, Some(mutated))
            }
            (AdmissionType::Validating, _) => (validator.map(|v| v.validate(&seen))?, None),
        };
        let denial = verdict
            .denial
            .map(|d| serde_json::to_value(denial_status(&seen, d)).unwrap_or(Value::Null));
        Some(Ok(Answer {
            object: mutated,
            warnings: verdict.warnings,
            denial,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::{BadValue, FieldError};
    use crate::webhook::Verdict;

    fn request(object: Value) -> Value {
        json!({
            "uid": "u-1",
            "kind": {"group": "example.com", "version": "v1", "kind": "Widget"},
            "resource": {"group": "example.com", "version": "v1", "resource": "widgets"},
            "name": "w", "namespace": "default", "operation": "CREATE",
            "userInfo": {"username": "admin"},
            "object": object, "oldObject": null, "dryRun": false,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
        })
    }

    #[test]
    fn mutators_and_validators_answer_in_process() {
        let kind = WebhookKind::new("example.com", "v1", "widgets");
        let webhooks = Webhooks::new()
            .mutator(kind.clone(), |_: &Admission<'_>, o: &mut Value| {
                o["spec"]["size"] = json!(3);
                Verdict::allow().with_warning("defaulted size")
            })
            .validator(kind.clone(), |a: &Admission<'_>| {
                let size = a.object.and_then(|o| o["spec"]["size"].as_i64());
                Verdict::from_errors(match size {
                    Some(s) if s > 2 => vec![FieldError::invalid(
                        "spec.size",
                        BadValue::Int(s),
                        "too big",
                    )],
                    _ => vec![],
                })
            });
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {}});
        let mutated = webhooks
            .call(AdmissionType::Mutating, &kind, request(object))
            .expect("registered")
            .expect("reads");
        assert_eq!(mutated.object.as_ref().unwrap()["spec"]["size"], 3);
        assert_eq!(mutated.warnings, ["defaulted size"]);
        assert!(mutated.denial.is_none());

        let checked = webhooks
            .call(
                AdmissionType::Validating,
                &kind,
                request(mutated.object.unwrap()),
            )
            .expect("registered")
            .expect("reads");
        let denial = checked.denial.expect("denied");
        assert_eq!(denial["code"], 422);
        assert_eq!(denial["reason"], "Invalid");
        assert_eq!(
            denial["message"],
            "Widget.example.com \"w\" is invalid: spec.size: Invalid value: 3: too big"
        );

        let other = WebhookKind::new("example.com", "v2", "widgets");
        assert!(
            webhooks
                .call(AdmissionType::Validating, &other, request(json!({})))
                .is_none()
        );
        assert_eq!(
            webhooks.admission_kinds_of(AdmissionType::Mutating, "example.com", "widgets"),
            [kind]
        );
    }
}
