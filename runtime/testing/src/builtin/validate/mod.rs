//! The registry strategies' validation of the built-in kinds (`Validate`, `ValidateUpdate`
//! and the status strategy's `ValidateUpdate`), ported from kube-apiserver v1.36's
//! `pkg/apis/*/validation` with the apiserver's field paths, messages and order.
//!
//! [`validate`] takes an object already decoded and defaulted as Go defaults it, and
//! prepared by the strategy; it returns every error the apiserver would report, object
//! metadata (with the kind's name rule) in the place each kind's Go code checks it. Kinds
//! without a port of their own get object metadata only. Each group's kinds live in a file
//! of their own; `common` holds what several share.
//!
//! ```ignore
//! let errors = validate("apps", "v1", "Deployment", true, &deployment, Write::Create);
//! let status = ApiError::invalid(error_group("apps", "Deployment"), "Deployment", name, &errors);
//! ```

mod apps;
mod autoscaling;
mod batch;
mod common;
mod container;
mod coordination;
mod core;
pub(crate) mod cron;
mod diff;
mod events;
mod networking;
mod pod;
mod policy;
mod quantity;
mod rbac;
mod service;

#[cfg(test)]
mod tests;

pub(crate) use batch::generate_selector as generate_job_selector;
pub(crate) use common::Selector as LabelSelector;

use serde_json::Value;

use kubegen_runtime::validation::FieldError;
use kubegen_runtime::validation::field::index;
use kubegen_runtime::validation::names::{NameRule, qualified_name};
use kubegen_runtime::validation::{BadValue, objectmeta};

/// What is being validated.
#[derive(Clone, Copy)]
pub(crate) enum Write<'a> {
    Create,
    /// An update of the main resource; the stored object.
    Update(&'a Value),
    /// An update through `/status`; the stored object.
    Status(&'a Value),
}

/// Every error the apiserver reports for `object`, a `group/version` `kind` after
/// defaulting and the strategy's preparation, in the apiserver's order: object metadata
/// (with the kind's name rule), then the kind's own checks.
pub(crate) fn validate(
    group: &str,
    version: &str,
    kind: &str,
    namespaced: bool,
    object: &Value,
    write: Write<'_>,
) -> Vec<FieldError> {
    let _ = version;
    let meta = Meta {
        object,
        namespaced,
        rule: name_rule(group, kind),
    };
    let own = match group {
        "" => core::validate(kind, object, write, &meta),
        "apps" => apps::validate(kind, object, write, &meta),
        "batch" => batch::validate(kind, object, write, &meta),
        "networking.k8s.io" => networking::validate(kind, object, write, &meta),
        "policy" => policy::validate(kind, object, write),
        "rbac.authorization.k8s.io" => rbac::validate(kind, object, write, &meta),
        "autoscaling" => autoscaling::validate(kind, object, write, &meta),
        "coordination.k8s.io" => coordination::validate(kind, object, write, &meta),
        "events.k8s.io" => events::validate(kind, object, write, &meta),
        _ => None,
    };
    own.unwrap_or_else(|| meta.first(write, Vec::new()))
}

/// The group the apiserver's `Invalid` status names for `group` `kind`: its own, except for
/// events.k8s.io Events, which are validated as the core Event (`Event "x" is invalid`).
pub(crate) fn error_group<'g>(group: &'g str, kind: &str) -> &'g str {
    if group == "events.k8s.io" && kind == "Event" {
        ""
    } else {
        group
    }
}

/// The rule a kind's `metadata.name` follows (the name function its `ValidateObjectMeta`
/// call passes).
pub(crate) fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        // RelaxedServiceNameValidation (on by default) checks Service names as DNS labels.
        ("", "Namespace" | "Service") => NameRule::DnsLabel,
        ("apps", "StatefulSet") => NameRule::DnsLabel,
        ("rbac.authorization.k8s.io", _) => NameRule::PathSegment,
        _ => NameRule::DnsSubdomain,
    }
}

/// The object metadata checks of the object being validated, for the kinds to place where
/// their Go code does.
pub(super) struct Meta<'a> {
    object: &'a Value,
    namespaced: bool,
    rule: NameRule,
}

impl Meta<'_> {
    /// Core's `ValidateObjectMeta`: apimachinery's checks, then each finalizer's name.
    fn create(&self) -> Vec<FieldError> {
        let meta = &self.object["metadata"];
        let mut errs = objectmeta::validate(meta, self.namespaced, self.rule, "metadata");
        errs.extend(kube_finalizers(meta));
        errs
    }

    /// Core's `ValidateObjectMetaUpdate`.
    fn update(&self, old: &Value) -> Vec<FieldError> {
        let meta = &self.object["metadata"];
        let mut errs = objectmeta::validate_update(meta, &old["metadata"], "metadata");
        errs.extend(kube_finalizers(meta));
        errs
    }

    /// The common shape: metadata (`create` on create, `update` otherwise), then `own`.
    fn first(&self, write: Write<'_>, own: Vec<FieldError>) -> Vec<FieldError> {
        let mut errs = match write {
            Write::Create => self.create(),
            Write::Update(old) | Write::Status(old) => self.update(old),
        };
        errs.extend(own);
        errs
    }
}

/// `validateKubeFinalizerName` of every finalizer: a qualified name, and one of the
/// standard finalizers when it has no domain.
fn kube_finalizers(meta: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let finalizers = meta.get("finalizers").and_then(Value::as_array);
    for (i, f) in finalizers.into_iter().flatten().enumerate() {
        let f = f.as_str().unwrap_or("");
        let path = index("metadata.finalizers", i);
        for msg in qualified_name(f) {
            errs.push(FieldError::invalid(&path, BadValue::str(f), msg));
        }
        if !f.contains('/') && !["kubernetes", "orphan", "foregroundDeletion"].contains(&f) {
            errs.push(FieldError::invalid(
                &path,
                BadValue::str(f),
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
    errs
}
