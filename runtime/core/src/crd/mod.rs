//! Assembling CustomResourceDefinitions, and merging the versions of one kind into one CRD.
//!
//! Every kind has `crd()` (its CRD, with every version of it registered in the binary) and
//! `INFO`, what the derive knows of one version. Use this module when the CRDs are needed
//! as values: [`build`] merges chosen versions into one CRD, [`validate`] runs the
//! apiserver's checks on a CRD (structural schema, CEL cost, names), and `crdgen` prints
//! what [`registry::crds`](crate::registry::crds) builds from every registered kind.
//! Installing CRDs on a cluster needs a client: kubegen-runtime's `crd::install_crds`.
//!
//! ```
//! # mod api {
//! #     use kubegen::prelude::*;
//! #     #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #     #[resource(group = "crds.example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
//! #     pub struct WidgetSpec {
//! #         pub size: i32,
//! #     }
//! #     #[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
//! #     pub struct WidgetStatus {
//! #         pub seen: i32,
//! #     }
//! # }
//! # use api::*;
//! use kubegen::CustomResource as _;
//!
//! let crd = kubegen::crd::build(&[Widget::INFO]).unwrap();
//! assert_eq!(crd.metadata.name.as_deref(), Some("widgets.crds.example.com"));
//! assert_eq!(crd.spec.versions[0].name, "v1");
//! assert!(crd.spec.versions[0].subresources.as_ref().unwrap().status.is_some());
//! assert_eq!(serde_json::to_value(&crd).unwrap(), serde_json::to_value(Widget::crd().unwrap()).unwrap());
//! ```

pub mod crdgen;
pub mod webhooks;

pub use crate::crd_build::*;
