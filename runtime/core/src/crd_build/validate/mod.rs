//! What kube-apiserver refuses in a CustomResourceDefinition beyond its schema's structure:
//! a port of apiextensions-apiserver's `ValidateCustomResourceDefinition` (v1.36) for the
//! rules [`structural`](crate::schema::structural) and [`cel_cost`](crate::schema::cel_cost)
//! leave out — the CRD's metadata and the `api-approved.kubernetes.io` annotation
//! ([`meta`]), its group and names ([`names`]), each version's deprecation warning, printer
//! columns and scale paths ([`versions`]), selectable fields ([`selectable`]), the schema
//! rules the structural check does not word as the apiserver does ([`schema`], [`defaults`]),
//! and `spec.conversion` ([`conversion`]).
//!
//! Left to other checks: exactly one storage version and unique version names
//! ([`build`](super::build) refuses those), the conversion webhook's URL, service and CA
//! bundle ([`WebhookEndpoint`](super::webhooks::WebhookEndpoint)), CEL rules that do not
//! compile (the derive compiles each `#[rule]`), and defaults inside an embedded resource's
//! metadata.
//!
//! Each [`Refusal`] is the apiserver's own field error — the same field path and message a
//! `kubectl apply` of the CRD would print — with a hint saying what to write instead.
//!
//! The apiserver validates its internal form of a CRD, into which the v1 form is converted:
//! a schema, subresources, printer columns or selectable fields that every version has alike
//! move to `spec.validation`, `spec.subresources`, `spec.additionalPrinterColumns` and
//! `spec.selectableFields`, and its errors name those paths. [`Layout`] follows that move.
//!
//! ```
//! use kubegen_core::crd;
//! # use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
//! let crd: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "widgets.x.k8s.io"},
//!     "spec": {"group": "x.k8s.io", "scope": "Namespaced",
//!              "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
//!              "versions": [{"name": "v1", "served": true, "storage": true,
//!                            "schema": {"openAPIV3Schema": {"type": "object"}}}]},
//! })).unwrap();
//! let refusals = crd::validate(&crd);
//! assert_eq!(
//!     refusals[0].error.to_string(),
//!     "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have \
//!      approval annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111"
//! );
//! ```

mod conversion;
mod defaults;
mod go_schema;
mod meta;
mod names;
mod schema;
mod selectable;
mod versions;

use std::fmt;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionSpec, CustomResourceDefinitionVersion,
};
use serde_json::Value;

use crate::checks::FieldError;

/// One thing the apiserver would refuse in a CRD: its field error, and what to do instead.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// The apiserver's error: field path, type, value and message, as `kubectl` shows them.
    pub error: FieldError,
    /// What to write instead, in terms of `#[resource(...)]` and the schema markers.
    pub hint: String,
}

impl Refusal {
    fn new(error: FieldError, hint: impl Into<String>) -> Self {
        Refusal {
            error,
            hint: hint.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\n    fix: {}", self.error, self.hint)
    }
}

/// Everything the apiserver would refuse in `crd` among the rules this module ports (see the
/// module documentation); empty when it would accept them.
///
/// The schema rules here assume a schema that passes
/// [`structural::check`](crate::schema::structural::check), as `crd()` checks first.
pub fn validate(crd: &CustomResourceDefinition) -> Vec<Refusal> {
    let spec = &crd.spec;
    let layout = Layout::of(spec);
    let mut out = meta::metadata(crd);
    out.extend(names::group_and_scope(spec));
    for (i, version) in spec.versions.iter().enumerate() {
        if schema_of(version).is_none() {
            out.push(Refusal::new(
                FieldError::required(&format!("spec.versions[{i}].schema.openAPIV3Schema"), ""),
                "every version of a v1 CRD needs a schema; kubegen builds it from the spec and status types",
            ));
        }
    }
    for (i, version) in spec.versions.iter().enumerate() {
        out.extend(names::version_name(
            &version.name,
            &format!("spec.versions[{i}].name"),
        ));
        out.extend(versions::deprecation(version, i));
        if !layout.schema_shared {
            out.extend(version_schema(
                version,
                &layout.schema_path(i),
                layout.status(spec, i),
            ));
        }
        if !layout.subresources_shared {
            out.extend(versions::subresources(
                version,
                &format!("spec.versions[{i}].subresources"),
            ));
        }
        if !layout.columns_shared {
            out.extend(versions::columns(
                version,
                &format!("spec.versions[{i}].additionalPrinterColumns"),
            ));
        }
        if !layout.selectable_shared {
            out.extend(selectable::per_version(version, i, layout.schema_shared));
        }
    }
    if let Some(first) = spec.versions.first() {
        // The internal form keeps the first version's name as `spec.version` and checks it too.
        out.extend(names::version_name(&first.name, "spec.version"));
    }
    out.extend(names::names(&spec.names));
    if let Some(first) = spec.versions.first() {
        if layout.schema_shared {
            out.extend(version_schema(
                first,
                &layout.schema_path(0),
                layout.status(spec, 0),
            ));
        }
        if layout.subresources_shared {
            out.extend(versions::subresources(first, "spec.subresources"));
        }
        if layout.columns_shared {
            out.extend(versions::columns(first, "spec.additionalPrinterColumns"));
        }
        if layout.selectable_shared {
            out.extend(selectable::shared(first, layout.schema_shared));
        }
    }
    out.extend(conversion::conversion(spec));
    out.extend(meta::api_approval(crd));
    out
}

/// The schema rules of one version's (or the shared) `openAPIV3Schema`.
fn version_schema(
    version: &CustomResourceDefinitionVersion,
    path: &str,
    status: bool,
) -> Vec<Refusal> {
    let Some(schema) = schema_of(version) else {
        return Vec::new();
    };
    let mut out = schema::check(&schema, path, status);
    if out.is_empty() {
        out = defaults::check(&schema, path);
    }
    out
}

/// A version's `openAPIV3Schema` as JSON.
fn schema_of(version: &CustomResourceDefinitionVersion) -> Option<Value> {
    let schema = version.schema.as_ref()?.open_api_v3_schema.as_ref()?;
    serde_json::to_value(schema).ok()
}

/// Which per-version parts the apiserver's internal form holds once, for all versions: those
/// every version has alike (`Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_...`).
#[derive(Clone, Copy, Debug)]
struct Layout {
    schema_shared: bool,
    subresources_shared: bool,
    columns_shared: bool,
    selectable_shared: bool,
}

impl Layout {
    fn of(spec: &CustomResourceDefinitionSpec) -> Self {
        fn alike<T: PartialEq>(
            versions: &[CustomResourceDefinitionVersion],
            part: impl Fn(&CustomResourceDefinitionVersion) -> T,
        ) -> bool {
            versions.windows(2).all(|w| part(&w[0]) == part(&w[1]))
        }
        let v = &spec.versions;
        // An absent list and an empty one are alike to Go's semantic equality.
        fn list<T: Clone>(l: &Option<Vec<T>>) -> Option<Vec<T>> {
            l.clone().filter(|l| !l.is_empty())
        }
        Layout {
            schema_shared: alike(v, |v| v.schema.clone()),
            subresources_shared: alike(v, |v| v.subresources.clone()),
            columns_shared: alike(v, |v| list(&v.additional_printer_columns)),
            selectable_shared: alike(v, |v| list(&v.selectable_fields)),
        }
    }

    /// Where the apiserver reports the schema of version `i`.
    fn schema_path(&self, i: usize) -> String {
        match self.schema_shared {
            true => "spec.validation.openAPIV3Schema".into(),
            false => format!("spec.versions[{i}].schema.openAPIV3Schema"),
        }
    }

    /// Whether the status subresource is on for the schema of version `i` (for a shared
    /// schema: on any version).
    fn status(&self, spec: &CustomResourceDefinitionSpec, i: usize) -> bool {
        let on = |v: &CustomResourceDefinitionVersion| {
            v.subresources.as_ref().is_some_and(|s| s.status.is_some())
        };
        match self.schema_shared {
            true => spec.versions.iter().any(on),
            false => spec.versions.get(i).is_some_and(on),
        }
    }
}

#[cfg(test)]
mod tests;
