//! The data a `#[resource(...)]` declares about a kind, apart from the trait that carries it:
//! [`crd`](crate::crd) builds CustomResourceDefinitions from it and
//! [`resource`](crate::resource) re-exports it, so neither module needs the other's items.

/// Whether objects of a kind live in a namespace or across the cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `scope: Namespaced`, the default.
    Namespaced,
    /// `scope: Cluster`.
    Cluster,
}

impl Scope {
    /// The spelling the CRD uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Namespaced => "Namespaced",
            Scope::Cluster => "Cluster",
        }
    }
}

/// An `additionalPrinterColumns` entry, from `printcolumn(...)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrinterColumn {
    /// Column header.
    pub name: &'static str,
    /// JSON path into the object, starting with `.`.
    pub json_path: &'static str,
    /// One of integer, number, string, boolean, date.
    pub type_: &'static str,
    /// Optional human-readable description.
    pub description: Option<&'static str>,
    /// Optional format (int32, date-time, ...).
    pub format: Option<&'static str>,
    /// 0 shows in the standard view, higher only in wide output.
    pub priority: Option<i32>,
}

/// The scale subresource, from `scale(...)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScaleInfo {
    /// JSON path of the desired replicas in the object, e.g. `.spec.replicas`.
    pub spec_replicas_path: &'static str,
    /// JSON path of the observed replicas, e.g. `.status.replicas`.
    pub status_replicas_path: &'static str,
    /// JSON path of the label selector in string form, e.g. `.status.selector`.
    pub label_selector_path: Option<&'static str>,
}

/// Everything `#[resource(...)]` says about one version of a kind.
#[derive(Clone, Copy, Debug)]
pub struct ResourceInfo {
    /// API group, e.g. `batch.example.com`.
    pub group: &'static str,
    /// API version, e.g. `v1`.
    pub version: &'static str,
    /// Kind, e.g. `CronJob`.
    pub kind: &'static str,
    /// Plural resource name, e.g. `cronjobs`.
    pub plural: &'static str,
    /// Singular resource name, e.g. `cronjob`.
    pub singular: &'static str,
    /// Short names for kubectl.
    pub short_names: &'static [&'static str],
    /// Categories such as `all`.
    pub categories: &'static [&'static str],
    /// Namespaced or cluster-scoped.
    pub scope: Scope,
    /// Whether the status subresource is on.
    pub status: bool,
    /// The scale subresource, if declared.
    pub scale: Option<ScaleInfo>,
    /// Extra columns for `kubectl get`.
    pub printer_columns: &'static [PrinterColumn],
    /// JSON paths usable in field selectors.
    pub selectable_fields: &'static [&'static str],
    /// Whether this version is served.
    pub served: bool,
    /// Whether this version is the storage version.
    pub storage: bool,
    /// `Some` when deprecated, with the optional warning text.
    pub deprecated: Option<Option<&'static str>>,
    /// Labels put on the CRD object.
    pub labels: &'static [(&'static str, &'static str)],
    /// Annotations put on the CRD object.
    pub annotations: &'static [(&'static str, &'static str)],
    /// The Rust path of the kind, for error messages.
    pub rust_type: &'static str,
    /// Builds this version's OpenAPI schema.
    pub schema: fn() -> schemars::Schema,
}

impl ResourceInfo {
    /// `group/version`, or just `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The CRD's name: `plural.group`.
    pub fn crd_name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }
}
