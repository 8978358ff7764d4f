//! Admission webhooks, in process (feature `webhook`): the mutator and validator registered
//! for a kind ([`kubegen_runtime::webhook::Webhooks`]) run where the apiserver calls its webhooks —
//! mutating after decoding and field tracking, validating after the schema and CEL
//! validation, and on DELETE with the old object — with the `AdmissionRequest` it builds
//! (`request.CreateV1AdmissionReview`) and its answers to denials and failures.
//!
//! Webhooks match as crdgen's configurations register them: `matchPolicy: Equivalent`,
//! rules on the plural only (no subresources), `sideEffects: None` (dry runs call them). A
//! handler registered at another version of the kind gets the object converted to its
//! version, and its result is converted back.

use super::*;

/// What a write asks admission about.
#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
pub(super) struct Review<'a> {
    pub operation: &'static str,
    /// The object as the request's version has it (`None` on DELETE).
    pub object: Option<&'a Value>,
    /// The stored object at the request's version (`None` on CREATE).
    pub old_object: Option<&'a Value>,
    /// The request's options, written out only for a webhook that is called.
    options: Options<'a>,
    pub dry_run: bool,
}

/// What a review's `CreateOptions`, `UpdateOptions` or `DeleteOptions` are made from.
#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
struct Options<'a> {
    kind: &'static str,
    write: &'a WriteOptions,
    /// A DELETE's `DeleteOptions` body.
    body: Option<&'a Value>,
}

impl<'a> Review<'a> {
    /// A CREATE of `object`.
    pub(super) fn create(object: &'a Value, w: &'a WriteOptions) -> Self {
        Review {
            operation: "CREATE",
            object: Some(object),
            old_object: None,
            options: Options {
                kind: "CreateOptions",
                write: w,
                body: None,
            },
            dry_run: w.dry_run,
        }
    }

    /// An UPDATE of `old` to `object`.
    pub(super) fn update(object: &'a Value, old: &'a Value, w: &'a WriteOptions) -> Self {
        Review {
            operation: "UPDATE",
            object: Some(object),
            old_object: Some(old),
            options: Options {
                kind: "UpdateOptions",
                write: w,
                body: None,
            },
            dry_run: w.dry_run,
        }
    }

    /// A DELETE of `old`, with the request's `DeleteOptions` body.
    pub(super) fn delete(old: &'a Value, w: &'a WriteOptions, body: &'a Value) -> Self {
        Review {
            operation: "DELETE",
            object: None,
            old_object: Some(old),
            options: Options {
                kind: "DeleteOptions",
                write: w,
                body: Some(body),
            },
            dry_run: w.dry_run,
        }
    }
}

#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
impl Review<'_> {
    /// The name the apiserver's admission attributes carry: the object's (empty on a create
    /// by generateName: names are generated after admission), else the old object's.
    fn name(&self) -> &str {
        self.object
            .or(self.old_object)
            .and_then(|o| o["metadata"]["name"].as_str())
            .unwrap_or("")
    }
}

/// `CreateOptions`, `UpdateOptions` or `DeleteOptions` as admission shows them.
#[cfg_attr(not(feature = "webhook"), allow(dead_code))]
fn options(o: &Options<'_>) -> Value {
    let (kind, w) = (o.kind, o.write);
    let mut options = o
        .body
        .cloned()
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({}));
    options["kind"] = json!(kind);
    options["apiVersion"] = json!("meta.k8s.io/v1");
    if w.dry_run {
        options["dryRun"] = json!(["All"]);
    }
    if kind != "DeleteOptions"
        && let Some(manager) = &w.field_manager
    {
        options["fieldManager"] = json!(manager);
    }
    options
}

#[cfg(feature = "webhook")]
mod calls {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::FailurePolicy;
    use kubegen_runtime::webhook::{AdmissionType, WebhookKind, webhook_name};

    static REQUESTS: AtomicU64 = AtomicU64::new(0);

    impl State {
        /// The webhook of type `admission` a request to `t` calls: one registered (or
        /// marked unavailable) at the request's version, else at the storage version, else
        /// at the first other version, as `matchPolicy: Equivalent` picks it.
        fn webhook_for(&self, t: &Target, admission: AdmissionType) -> Option<WebhookKind> {
            let e = self.entry(t);
            let mut kinds = self
                .webhooks
                .as_ref()
                .map(|w| w.admission_kinds_of(admission, e.group, e.plural))
                .unwrap_or_default();
            kinds.extend(
                self.unavailable
                    .iter()
                    .filter(|(a, k, _)| {
                        *a == admission && k.group == e.group && k.plural == e.plural
                    })
                    .map(|(_, k, _)| k.clone()),
            );
            kinds.retain(|k| e.version(&k.version).is_some());
            let pick = |version: &str| kinds.iter().find(|k| k.version == version).cloned();
            pick(&t.version)
                .or_else(|| pick(e.storage))
                .or_else(|| kinds.first().cloned())
        }

        /// Runs the webhook of type `admission` for a write to the main resource; a mutated
        /// object replaces `review.object`'s value in `mutated`.
        fn call_webhook(
            &self,
            t: &Target,
            admission: AdmissionType,
            review: &Review<'_>,
            warnings: &mut Vec<String>,
        ) -> Result<Option<Value>, ApiError> {
            if t.subresource.is_some() {
                return Ok(None);
            }
            let Some(webhook) = self.webhook_for(t, admission) else {
                return Ok(None);
            };
            let name = webhook_name(admission, &webhook);
            if let Some((_, _, policy)) = self
                .unavailable
                .iter()
                .find(|(a, k, _)| *a == admission && *k == webhook)
            {
                return match policy {
                    FailurePolicy::Ignore => Ok(None),
                    FailurePolicy::Fail => Err(ApiError::internal_error(format!(
                        "failed calling webhook {name:?}: failed to call webhook: the in-memory server has it unavailable"
                    ))),
                };
            }
            let Some(webhooks) = &self.webhooks else {
                return Ok(None);
            };
            let e = self.entry(t);
            // A failing conversion to the webhook's version is wrapped as an internal error by
            // the versioned-attributes accessor, then again by the dispatcher.
            let at_webhook = |o: Option<&Value>| -> Result<Value, ApiError> {
                o.map(|o| e.convert(o, &webhook.version))
                    .transpose()
                    .map(Option::unwrap_or_default)
                    .map_err(|e| {
                        ApiError::internal_error(ApiError::internal_error(e.message).message)
                    })
            };
            let uid = REQUESTS.fetch_add(1, Ordering::Relaxed) + 1;
            let request = json!({
                "uid": format!("00000000-0000-4000-a000-{uid:012x}"),
                "kind": {"group": e.group, "version": webhook.version, "kind": e.kind},
                "resource": {"group": e.group, "version": webhook.version, "resource": e.plural},
                "requestKind": {"group": e.group, "version": t.version, "kind": e.kind},
                "requestResource": {"group": e.group, "version": t.version, "resource": e.plural},
                "name": review.name(),
                "namespace": t.namespace.clone().unwrap_or_default(),
                "operation": review.operation,
                "userInfo": {"username": "system:admin", "groups": ["system:masters", "system:authenticated"]},
                "object": at_webhook(review.object)?,
                "oldObject": at_webhook(review.old_object)?,
                "dryRun": review.dry_run,
                "options": options(&review.options),
            });
            let answer = match webhooks.call(admission, &webhook, request) {
                None => return Ok(None),
                Some(Ok(answer)) => answer,
                Some(Err(why)) => {
                    return Err(ApiError::internal(format!(
                        "failed calling webhook {name:?}: {why}"
                    )));
                }
            };
            warnings.extend(answer.warnings);
            if let Some(status) = answer.denial {
                return Err(rejection(&name, &status));
            }
            match answer.object {
                Some(mut mutated) => {
                    // The apiserver defaults the patched object in the webhook's version,
                    // then converts it back to the request's.
                    if let Some(v) = e.versions.iter().find(|v| v.name == webhook.version) {
                        apply_defaults(&v.schema, &mut mutated);
                    }
                    e.convert(&mutated, &t.version).map(Some)
                }
                None => Ok(None),
            }
        }

        /// Whether a write to `t` calls a mutating webhook (so the object it sends is worth
        /// making).
        pub(in crate::state) fn has_mutating_webhook(&self, t: &Target) -> bool {
            t.subresource.is_none() && self.webhook_for(t, AdmissionType::Mutating).is_some()
        }

        /// The mutating webhook of `t`'s kind, on CREATE or UPDATE of the main resource.
        pub(in crate::state) fn mutating_admission(
            &self,
            t: &Target,
            review: &Review<'_>,
            warnings: &mut Vec<String>,
        ) -> Result<Option<Value>, ApiError> {
            self.call_webhook(t, AdmissionType::Mutating, review, warnings)
        }

        /// The validating webhook of `t`'s kind.
        pub(in crate::state) fn validating_admission(
            &self,
            t: &Target,
            review: &Review<'_>,
            warnings: &mut Vec<String>,
        ) -> Result<(), ApiError> {
            self.call_webhook(t, AdmissionType::Validating, review, warnings)
                .map(|_| ())
        }
    }

    /// A webhook's denial as the apiserver answers it (`webhookerrors.ToStatusErr`): its
    /// status, at least a 400 and a failure, the message prefixed with the webhook's name.
    fn rejection(name: &str, status: &Value) -> ApiError {
        let denied = format!("admission webhook {name:?} denied the request");
        let code = status["code"]
            .as_u64()
            .and_then(|c| u16::try_from(c).ok())
            .filter(|c| *c >= 400)
            .unwrap_or(400);
        let message = status["message"].as_str().filter(|m| !m.is_empty());
        let reason = status["reason"].as_str().filter(|r| !r.is_empty());
        let message = match (message, reason) {
            (Some(m), _) => format!("{denied}: {m}"),
            (None, Some(r)) => format!("{denied}: {r}"),
            (None, None) => format!("{denied} without explanation"),
        };
        ApiError {
            code,
            reason: static_reason(reason.unwrap_or("")),
            message,
            details: status.get("details").filter(|d| !d.is_null()).cloned(),
            retry_after: None,
        }
    }

    /// The `StatusReason`s a webhook may answer with (others are sent without a reason).
    fn static_reason(reason: &str) -> &'static str {
        const REASONS: &[&str] = &[
            "Unauthorized",
            "Forbidden",
            "NotFound",
            "AlreadyExists",
            "Conflict",
            "Gone",
            "Invalid",
            "ServerTimeout",
            "StoreReadError",
            "Timeout",
            "TooManyRequests",
            "BadRequest",
            "MethodNotAllowed",
            "NotAcceptable",
            "RequestEntityTooLarge",
            "UnsupportedMediaType",
            "InternalError",
            "Expired",
            "ServiceUnavailable",
        ];
        REASONS
            .iter()
            .find(|r| **r == reason)
            .copied()
            .unwrap_or("")
    }
}

#[cfg(not(feature = "webhook"))]
impl State {
    /// Without the `webhook` feature there are no admission webhooks.
    pub(super) fn has_mutating_webhook(&self, _: &Target) -> bool {
        false
    }

    /// Without the `webhook` feature there are no admission webhooks.
    pub(super) fn mutating_admission(
        &self,
        _: &Target,
        _: &Review<'_>,
        _: &mut Vec<String>,
    ) -> Result<Option<Value>, ApiError> {
        Ok(None)
    }

    /// Without the `webhook` feature there are no admission webhooks.
    pub(super) fn validating_admission(
        &self,
        _: &Target,
        _: &Review<'_>,
        _: &mut Vec<String>,
    ) -> Result<(), ApiError> {
        Ok(())
    }
}
