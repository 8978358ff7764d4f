//! `kubegen::webhook`: one HTTPS server for a CRD's conversion webhook and its mutating and
//! validating admission webhooks (feature `webhook`).
//!
//! - `POST /convert` answers `ConversionReview`s (`apiextensions.k8s.io/v1`) through the
//!   [`Converter`] registered for each group and kind.
//! - `POST /mutate/<group>/<version>/<plural>` and `POST /validate/<group>/<version>/<plural>`
//!   answer `AdmissionReview`s (`admission.k8s.io/v1`) through a [`Mutator`] or a
//!   [`Validator`]; [`admission_path`] gives the path to put in a webhook configuration.
//! - `GET /healthz` and `GET /readyz`.
//!
//! TLS comes from certificate and key files that are reloaded when they change (cert-manager
//! rotates them), or from a [`SelfSigned`] certificate for development and tests.
//!
//! ```no_run
//! # async fn run() -> Result<(), kubegen_runtime::webhook::WebhookError> {
//! use kubegen_runtime::webhook::{Tls, Verdict, WebhookServer, Webhooks, WebhookKind};
//!
//! let webhooks = Webhooks::new().validator(
//!     WebhookKind::new("example.com", "v1", "widgets"),
//!     |admission: &kubegen_runtime::webhook::Admission<'_>| Verdict::allow(),
//! );
//! let tls = Tls::from_files("/tls/tls.crt", "/tls/tls.key")?;
//! let server = WebhookServer::new(webhooks, tls)?.bind("0.0.0.0:9443".parse().unwrap()).await?;
//! server.serve(std::future::pending()).await
//! # }
//! ```

mod admission;
mod convert;
mod error;
mod generated;
#[doc(hidden)]
pub mod inprocess;
mod registry;
mod response;
mod server;
mod tls;
mod typed;

pub use crate::webhook_paths::CONVERT_PATH;
pub use admission::{Admission, Denial, Mutator, Validator, Verdict};
pub use convert::{ConversionError, Converter};
pub use error::WebhookError;
pub use generated::GeneratedConverter;
pub use registry::{AdmissionType, WebhookKind, Webhooks, admission_path, webhook_name};
pub use server::{
    BoundServer, DEFAULT_ADMISSION_BODY_LIMIT, DEFAULT_CONVERSION_BODY_LIMIT, WebhookServer,
};
pub use tls::{DEFAULT_RELOAD_INTERVAL, SelfSigned, Tls};
pub use typed::{Defaulter, LocalValidation, TypedValidator};
