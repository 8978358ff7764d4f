//! What a `#[resource(...)]` declares, as data the runtime reads.
//!
//! The derive turns the attribute into one `static ResourceInfo` per kind; CRD assembly,
//! the registry and crdgen all read that value, so the generated code only names things.
//!
//! Read it when code must work for any kind: a generic reconciler's names and paths, a
//! printer of columns, a check that a kind has the status subresource before writing it.
//!
//! ```
//! # mod api {
//! #     use kubegen::prelude::*;
//! #     #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #     #[resource(group = "resources.example.com", version = "v1", kind = "Widget",
//! #                status = "WidgetStatus", shortname = "wd")]
//! #     pub struct WidgetSpec {
//! #         pub size: i32,
//! #     }
//! #     #[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
//! #     pub struct WidgetStatus {
//! #         pub seen: i32,
//! #     }
//! # }
//! # use api::*;
//! use kubegen::{CustomResource, Scope};
//!
//! fn describe<K: CustomResource>() -> String {
//!     let info = K::INFO;
//!     let scope = match info.scope {
//!         Scope::Namespaced => "namespaced",
//!         Scope::Cluster => "cluster-scoped",
//!     };
//!     format!("{}.{} ({scope}, status: {})", info.plural, info.group, info.status)
//! }
//!
//! assert_eq!(describe::<Widget>(), "widgets.resources.example.com (namespaced, status: true)");
//! assert_eq!(Widget::INFO.short_names, ["wd"]);
//! // The same data builds the kind's CRD.
//! let crd = Widget::crd().unwrap();
//! assert_eq!(crd.metadata.name.as_deref(), Some("widgets.resources.example.com"));
//! ```

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta};
use serde::de::{self, DeserializeOwned, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

/// A Kubernetes kind generated by kubegen.
///
/// Implemented by the `#[derive(CustomResource)]` kind struct; `crd()` builds its
/// CustomResourceDefinition from [`ResourceInfo`].
pub trait CustomResource: k8s_openapi::Resource + Sized {
    /// The spec type the derive was written on.
    type Spec;
    /// The status type, or `()` when the kind has no status subresource.
    type Status;
    /// What `#[resource(...)]` declared.
    const INFO: &'static ResourceInfo;

    /// A new object with the given name and spec.
    fn new(name: &str, spec: Self::Spec) -> Self;

    /// This version's CRD, with its schema checked against the apiserver's structural rules.
    fn crd() -> Result<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition, crate::CrdError>{
        crate::crd::build(&[Self::INFO])
    }
}

/// Writes a kind in wire form: `apiVersion`, `kind`, `metadata`, `spec`, then `status` if set.
#[doc(hidden)]
pub fn serialize_object<K, Spec, Status, S>(
    metadata: &ObjectMeta,
    spec: &Spec,
    status: Option<&Status>,
    serializer: S,
) -> Result<S::Ok, S::Error>
where
    K: k8s_openapi::Resource,
    Spec: Serialize,
    Status: Serialize,
    S: Serializer,
{
    let mut s = serializer.serialize_struct(K::KIND, 5)?;
    s.serialize_field("apiVersion", K::API_VERSION)?;
    s.serialize_field("kind", K::KIND)?;
    s.serialize_field("metadata", metadata)?;
    s.serialize_field("spec", spec)?;
    match status {
        Some(status) => s.serialize_field("status", status)?,
        None => s.skip_field("status")?,
    }
    s.end()
}

/// A list of objects of one kind, as the apiserver returns it (`CronJobList`, ...).
///
/// Generated code names it: `pub type CronJobList = kubegen::List<CronJob>;`.
#[derive(Clone, Debug, PartialEq)]
pub struct List<K> {
    /// `resourceVersion` and `continue` of the list.
    pub metadata: ListMeta,
    /// The objects.
    pub items: Vec<K>,
}

impl<K> Default for List<K> {
    fn default() -> Self {
        List {
            metadata: ListMeta::default(),
            items: Vec::new(),
        }
    }
}

impl<K: k8s_openapi::Resource + Serialize> Serialize for List<K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let kind = format!("{}List", K::KIND);
        let mut s = serializer.serialize_struct("List", 4)?;
        s.serialize_field("apiVersion", K::API_VERSION)?;
        s.serialize_field("kind", &kind)?;
        s.serialize_field("metadata", &self.metadata)?;
        s.serialize_field("items", &self.items)?;
        s.end()
    }
}

impl<'de, K: DeserializeOwned> Deserialize<'de> for List<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor<K>(PhantomData<K>);

        impl<'de, K: DeserializeOwned> Visitor<'de> for ListVisitor<K> {
            type Value = List<K>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a Kubernetes list object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<List<K>, A::Error> {
                let mut metadata = None;
                let mut items = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "metadata" => metadata = Some(map.next_value()?),
                        // The apiserver writes `null` for an empty list.
                        "items" => {
                            items = Some(map.next_value::<Option<Vec<K>>>()?.unwrap_or_default())
                        }
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(List {
                    metadata: metadata.unwrap_or_default(),
                    items: items.ok_or_else(|| de::Error::missing_field("items"))?,
                })
            }
        }

        deserializer.deserialize_map(ListVisitor(PhantomData))
    }
}
