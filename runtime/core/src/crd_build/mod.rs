//! Building CustomResourceDefinitions from what the derive knows of each version, and the
//! apiserver's checks of them: [`crd`](crate::crd)'s items, held apart from `crdgen` and the
//! webhook manifests, which read the registry and the conversions above it.

mod validate;

pub use validate::{Refusal, validate};

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceSubresourceScale,
    CustomResourceSubresourceStatus, CustomResourceSubresources, CustomResourceValidation,
    JSONSchemaProps, SelectableField,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::kind_info::ResourceInfo;
use crate::schema::cel_cost::{self, CostViolation};
use crate::schema::structural;

/// Why a CRD could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CrdError {
    /// The schema breaks the apiserver's rules.
    #[error("{kind} {version}: the schema breaks the apiserver's rules:\n{}", list(.violations))]
    Structural {
        /// The kind.
        kind: String,
        /// The version.
        version: String,
        /// Every broken rule, with its path.
        violations: Vec<structural::Violation>,
    },
    /// The apiserver would refuse the schema's CEL rules as too expensive to run (its static
    /// cost estimate, see [`cel_cost`]).
    #[error("{kind} {version}: the apiserver would refuse these CEL rules as too expensive:\n{}", costs(.schema_field, .violations))]
    CelCost {
        /// The kind.
        kind: String,
        /// The version.
        version: String,
        /// The apiserver's field path of the version's schema: `spec.validation.openAPIV3Schema`
        /// when every version has the same schema (the apiserver then checks it once), else
        /// `spec.versions[i].schema.openAPIV3Schema`.
        schema_field: String,
        /// Each rule over its budget (and the schema's total, if over its own), with the bound
        /// that fixes it.
        violations: Vec<CostViolation>,
    },
    /// The apiserver would refuse the CRD: each refusal is its field error (field path and
    /// message, as `kubectl apply` prints them) with what to write instead (see
    /// [`validate`](crate::crd::validate)).
    #[error("{crd}: the apiserver would refuse this CRD:\n{}", list_refusals(.refusals))]
    Invalid {
        /// The CRD name.
        crd: String,
        /// What the apiserver would refuse, in its order.
        refusals: Vec<Refusal>,
    },
    /// The schema could not be read as a k8s-openapi `JSONSchemaProps`.
    #[error("{kind} {version}: the schema is not a valid JSONSchemaProps: {source}")]
    Schema {
        /// The kind.
        kind: String,
        /// The version.
        version: String,
        /// The decoding error.
        source: serde_json::Error,
    },
    /// No version of a kind is marked as the storage version.
    #[error("{crd}: no version is the storage version; mark exactly one with `storage = true`")]
    NoStorageVersion {
        /// The CRD name.
        crd: String,
    },
    /// Several versions of a kind claim to be the storage version.
    #[error("{crd}: versions {} are all storage versions; mark all but one `storage = false`", .versions.join(", "))]
    ManyStorageVersions {
        /// The CRD name.
        crd: String,
        /// The versions that claim storage.
        versions: Vec<String>,
    },
    /// The same version is defined twice.
    #[error("{crd}: version {version} is defined by both {first} and {second}")]
    DuplicateVersion {
        /// The CRD name.
        crd: String,
        /// The version.
        version: String,
        /// One Rust type.
        first: String,
        /// The other.
        second: String,
    },
    /// Versions of one kind disagree on something the CRD holds once.
    #[error("{crd}: versions disagree on {what}: {detail}")]
    Conflict {
        /// The CRD name (or group/kind).
        crd: String,
        /// What they disagree on.
        what: &'static str,
        /// Which versions say what.
        detail: String,
    },
    /// Nothing to build.
    #[error("no versions given")]
    Empty,
    /// Several kinds failed; each error is listed.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Several(Vec<CrdError>),
}

fn list(violations: &[structural::Violation]) -> String {
    violations
        .iter()
        .map(|v| format!("  - {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn list_refusals(refusals: &[Refusal]) -> String {
    refusals
        .iter()
        .map(|r| format!("  - {r}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn costs(schema_field: &str, violations: &[CostViolation]) -> String {
    violations
        .iter()
        .map(|v| {
            let field = if v.field.is_empty() {
                schema_field.to_owned()
            } else {
                format!("{schema_field}.{}", v.field)
            };
            format!("  - {v} (the apiserver: {field})")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Builds one CRD from the versions of one group/kind.
///
/// Checks every version's schema against the apiserver's structural rules, that exactly one
/// version is the storage version, and that the versions agree on names, scope, labels and
/// annotations.
pub fn build(versions: &[&ResourceInfo]) -> Result<CustomResourceDefinition, CrdError> {
    let first = *versions.first().ok_or(CrdError::Empty)?;
    let crd = first.crd_name();
    let mut seen: BTreeMap<&str, &ResourceInfo> = BTreeMap::new();
    for info in versions {
        if let Some(other) = seen.insert(info.version, info) {
            return Err(CrdError::DuplicateVersion {
                crd,
                version: info.version.into(),
                first: other.rust_type.into(),
                second: info.rust_type.into(),
            });
        }
        agree(&crd, first, info)?;
    }
    let storage: Vec<String> = versions
        .iter()
        .filter(|v| v.storage)
        .map(|v| v.version.to_owned())
        .collect();
    match storage.len() {
        0 => return Err(CrdError::NoStorageVersion { crd }),
        1 => {}
        _ => {
            return Err(CrdError::ManyStorageVersions {
                crd,
                versions: storage,
            });
        }
    }

    let mut sorted: Vec<&ResourceInfo> = versions.to_vec();
    sorted.sort_by_key(|info| std::cmp::Reverse(version_priority(info.version)));
    let built = sorted
        .iter()
        .map(|info| version(info))
        .collect::<Result<Vec<_>, _>>()?;
    // The apiserver hoists a schema all versions share to `spec.validation` and checks it once.
    let shared = built.windows(2).all(|w| w[0].0.schema == w[1].0.schema);
    let cost = sorted
        .iter()
        .zip(&built)
        .enumerate()
        .find(|(index, (_, (_, violations)))| {
            // A shared schema is reported once, with the first version.
            !violations.is_empty() && (!shared || *index == 0)
        })
        .map(|(index, (info, (_, violations)))| CrdError::CelCost {
            kind: info.kind.into(),
            version: info.version.into(),
            schema_field: if shared {
                "spec.validation.openAPIV3Schema".into()
            } else {
                format!("spec.versions[{index}].schema.openAPIV3Schema")
            },
            violations: violations.clone(),
        });
    let crd_versions: Vec<_> = built.into_iter().map(|(v, _)| v).collect();

    let mut labels = BTreeMap::new();
    let mut annotations = BTreeMap::new();
    for info in versions {
        labels.extend(
            info.labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        annotations.extend(
            info.annotations
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
    }
    let strings = |s: &[&str]| (!s.is_empty()).then(|| s.iter().map(|x| x.to_string()).collect());
    let crd = CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some(crd),
            labels: (!labels.is_empty()).then_some(labels),
            annotations: (!annotations.is_empty()).then_some(annotations),
            ..ObjectMeta::default()
        },
        spec: CustomResourceDefinitionSpec {
            group: first.group.into(),
            names: CustomResourceDefinitionNames {
                kind: first.kind.into(),
                list_kind: Some(format!("{}List", first.kind)),
                plural: first.plural.into(),
                singular: Some(first.singular.into()),
                short_names: strings(first.short_names),
                categories: strings(first.categories),
            },
            scope: first.scope.as_str().into(),
            versions: crd_versions,
            conversion: None,
            preserve_unknown_fields: None,
        },
        status: None,
    };
    let refusals = validate(&crd);
    let invalid = (!refusals.is_empty()).then(|| CrdError::Invalid {
        crd: crd.metadata.name.clone().unwrap_or_default(),
        refusals,
    });
    match (invalid, cost) {
        (None, None) => Ok(crd),
        (Some(e), None) | (None, Some(e)) => Err(e),
        (Some(invalid), Some(cost)) => Err(CrdError::Several(vec![invalid, cost])),
    }
}

fn agree(crd: &str, a: &ResourceInfo, b: &ResourceInfo) -> Result<(), CrdError> {
    let conflict = |what: &'static str, x: String, y: String| CrdError::Conflict {
        crd: crd.into(),
        what,
        detail: format!("{} says {x:?}, {} says {y:?}", a.version, b.version),
    };
    let checks: [(&'static str, String, String); 6] = [
        ("group", a.group.into(), b.group.into()),
        ("kind", a.kind.into(), b.kind.into()),
        ("plural", a.plural.into(), b.plural.into()),
        ("singular", a.singular.into(), b.singular.into()),
        ("scope", a.scope.as_str().into(), b.scope.as_str().into()),
        (
            "short names and categories",
            format!("{:?} {:?}", a.short_names, a.categories),
            format!("{:?} {:?}", b.short_names, b.categories),
        ),
    ];
    for (what, x, y) in checks {
        if x != y {
            return Err(conflict(what, x, y));
        }
    }
    for (what, ours, theirs) in [
        ("a label", a.labels, b.labels),
        ("an annotation", a.annotations, b.annotations),
    ] {
        for (key, value) in ours {
            if let Some((_, other)) = theirs.iter().find(|(k, v)| k == key && v != value) {
                return Err(conflict(
                    what,
                    format!("{key}={value}"),
                    format!("{key}={other}"),
                ));
            }
        }
    }
    Ok(())
}

/// Kubernetes' version priority: GA before beta before alpha, higher numbers first, and
/// versions that do not follow the pattern last.
pub fn version_priority(version: &str) -> (u8, u64, u64) {
    let Some(rest) = version.strip_prefix('v') else {
        return (0, 0, 0);
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let Ok(major) = rest[..digits].parse::<u64>() else {
        return (0, 0, 0);
    };
    let tail = &rest[digits..];
    let (stage, minor_text) = if tail.is_empty() {
        return (3, major, 0);
    } else if let Some(t) = tail.strip_prefix("beta") {
        (2, t)
    } else if let Some(t) = tail.strip_prefix("alpha") {
        (1, t)
    } else {
        return (0, 0, 0);
    };
    match minor_text.parse::<u64>() {
        Ok(minor) => (stage, major, minor),
        Err(_) => (0, 0, 0),
    }
}

/// One version of the CRD, and what the apiserver would refuse of its rules' cost.
fn version(
    info: &ResourceInfo,
) -> Result<(CustomResourceDefinitionVersion, Vec<CostViolation>), CrdError> {
    let schema = (info.schema)().to_value();
    let violations = structural::check(&schema);
    if !violations.is_empty() {
        return Err(CrdError::Structural {
            kind: info.kind.into(),
            version: info.version.into(),
            violations,
        });
    }
    // The apiserver estimates rule costs only for schemas that pass the structural rules.
    let cost_violations = cel_cost::check_schema(&schema);
    let props: JSONSchemaProps =
        serde_json::from_value(schema).map_err(|source| CrdError::Schema {
            kind: info.kind.into(),
            version: info.version.into(),
            source,
        })?;
    let columns = info
        .printer_columns
        .iter()
        .map(|c| CustomResourceColumnDefinition {
            name: c.name.into(),
            json_path: c.json_path.into(),
            type_: c.type_.into(),
            description: c.description.map(Into::into),
            format: c.format.map(Into::into),
            priority: c.priority,
        })
        .collect::<Vec<_>>();
    let selectable = info
        .selectable_fields
        .iter()
        .map(|p| SelectableField {
            json_path: (*p).into(),
        })
        .collect::<Vec<_>>();
    let subresources = (info.status || info.scale.is_some()).then(|| CustomResourceSubresources {
        status: info.status.then(|| {
            CustomResourceSubresourceStatus(serde_json::Value::Object(Default::default()))
        }),
        scale: info.scale.map(|s| CustomResourceSubresourceScale {
            spec_replicas_path: s.spec_replicas_path.into(),
            status_replicas_path: s.status_replicas_path.into(),
            label_selector_path: s.label_selector_path.map(Into::into),
        }),
    });
    let built = CustomResourceDefinitionVersion {
        name: info.version.into(),
        served: info.served,
        storage: info.storage,
        deprecated: info.deprecated.map(|_| true),
        deprecation_warning: info.deprecated.flatten().map(Into::into),
        additional_printer_columns: (!columns.is_empty()).then_some(columns),
        selectable_fields: (!selectable.is_empty()).then_some(selectable),
        schema: Some(CustomResourceValidation {
            open_api_v3_schema: Some(props),
        }),
        subresources,
    };
    Ok((built, cost_violations))
}

#[cfg(test)]
mod tests {
    use super::version_priority;

    #[test]
    fn version_priority_orders_like_kubernetes() {
        let mut versions = vec![
            "v1alpha1",
            "foo",
            "v2",
            "v1beta2",
            "v1",
            "v11alpha2",
            "v1beta1",
            "v10",
        ];
        versions.sort_by_key(|v| std::cmp::Reverse(version_priority(v)));
        assert_eq!(
            versions,
            [
                "v10",
                "v2",
                "v1",
                "v1beta2",
                "v1beta1",
                "v11alpha2",
                "v1alpha1",
                "foo"
            ]
        );
    }
}
