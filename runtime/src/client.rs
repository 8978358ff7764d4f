//! client-gen: typed clients over kube's `Api`.
//!
//! The derive gives each kind an extension trait on `kube::Client` (`client.cron_jobs("ns")`,
//! `client.widgets()` for cluster-scoped kinds) returning a [`ResourceClient`]. Status
//! methods exist only for kinds that declare a status subresource, scale methods only with
//! scale: calling them on another kind does not compile.
//!
//! Use it for every write a controller makes and for reads that must see the server's
//! current state (a conflict retry, a check before a delete). Reads inside a reconcile
//! usually come from the shared cache instead ([`informer`](crate::informer), listers),
//! which costs no request. Errors are [`ClientError`]s that keep the apiserver's `Status`
//! (reason, code, causes), so `is_conflict()` or a 404 is a match, not a string search.
//! `kube::Api` works on the same kinds unchanged, when a generic call is easier.
//!
//! ```
//! # mod api {
//! #     use kubegen::prelude::*;
//! #     #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #     #[resource(group = "clients.example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
//! #     pub struct WidgetSpec {
//! #         pub size: i32,
//! #     }
//! #     #[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
//! #     pub struct WidgetStatus {
//! #         pub seen: i32,
//! #     }
//! # }
//! # use api::*;
//! use kubegen::client::{Patch, PatchParams};
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let server = kubegen::testing::ApiServer::new(); // or kube::Client::try_default()
//! server.create_namespace("demo").unwrap();
//! let client = server.client();
//!
//! let widgets = client.widgets("demo");
//! widgets.create(&Widget::new("w", WidgetSpec { size: 1 })).await?;
//! let patch = Patch::Merge(serde_json::json!({"spec": {"size": 2}}));
//! widgets.patch("w", &PatchParams::default(), &patch).await?;
//! // Read, change and write back, again on a conflict.
//! let w = widgets.retry_on_conflict("w", 5, |w| w.spec.size += 1).await?;
//! assert_eq!(w.spec.size, 3);
//!
//! let missing = widgets.get("nope").await.unwrap_err();
//! assert_eq!(missing.status().map(|s| s.code), Some(404));
//! # Ok::<(), kubegen::client::ClientError>(())
//! # }).unwrap();
//! ```

use std::fmt::Debug;

use futures::{Stream, StreamExt, TryStreamExt};
use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::api::autoscaling::v1::Scale;
use kube::api::Api;
use kube::core::Status;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use kube::api::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy,
    WatchEvent, WatchParams,
};

use crate::apply::{Apply, ObjectConfiguration};
use crate::defaults::Defaults;
use crate::resource::List;

/// One field-level cause of an `Invalid` error, as the apiserver reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldCause {
    /// The field path, e.g. `spec.replicas`.
    pub field: String,
    /// `FieldValueInvalid`, `FieldValueRequired`, ...
    pub reason: String,
    /// What is wrong.
    pub message: String,
}

/// A typed client error.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// 404: the object (or its kind) does not exist.
    #[error("not found: {}", .0.message)]
    NotFound(Box<Status>),
    /// 409 AlreadyExists: create of a name that exists.
    #[error("already exists: {}", .0.message)]
    AlreadyExists(Box<Status>),
    /// 409 Conflict: a stale resourceVersion, a failed precondition or an apply conflict.
    #[error("conflict: {}", .0.message)]
    Conflict(Box<Status>),
    /// 422: the object failed validation; `causes` name each field.
    #[error("invalid: {}", status.message)]
    Invalid {
        /// The full status.
        status: Box<Status>,
        /// One entry per failing field.
        causes: Vec<FieldCause>,
    },
    /// 400: the request was malformed.
    #[error("bad request: {}", .0.message)]
    BadRequest(Box<Status>),
    /// 401 or 403.
    #[error("forbidden: {}", .0.message)]
    Forbidden(Box<Status>),
    /// 410: the resourceVersion is too old (relist) or a continue token expired.
    #[error("gone: {}", .0.message)]
    Gone(Box<Status>),
    /// 504 or reason Timeout.
    #[error("timeout: {}", .0.message)]
    Timeout(Box<Status>),
    /// 429, with the server's Retry-After when it gave one.
    #[error("too many requests: {}", status.message)]
    TooManyRequests {
        /// The full status.
        status: Box<Status>,
        /// Seconds to wait, from the status details.
        retry_after_seconds: Option<u32>,
    },
    /// Any other error status (5xx, 405, 415, ...).
    #[error("server error {}: {}", .0.code, .0.message)]
    Server(Box<Status>),
    /// The request never got an apiserver answer: connection, TLS, decoding.
    #[error("transport: {0}")]
    Transport(#[source] kube::Error),
}

impl ClientError {
    /// The apiserver's Status, when there is one.
    pub fn status(&self) -> Option<&Status> {
        match self {
            ClientError::NotFound(s)
            | ClientError::AlreadyExists(s)
            | ClientError::Conflict(s)
            | ClientError::BadRequest(s)
            | ClientError::Forbidden(s)
            | ClientError::Gone(s)
            | ClientError::Timeout(s)
            | ClientError::Server(s) => Some(s),
            ClientError::Invalid { status, .. } | ClientError::TooManyRequests { status, .. } => {
                Some(status)
            }
            ClientError::Transport(_) => None,
        }
    }

    /// Whether this is a 409 Conflict (what `retry_on_conflict` retries).
    pub fn is_conflict(&self) -> bool {
        matches!(self, ClientError::Conflict(_))
    }
}

impl From<kube::Error> for ClientError {
    fn from(e: kube::Error) -> Self {
        let kube::Error::Api(status) = e else {
            return ClientError::Transport(e);
        };
        from_status(status)
    }
}

/// Classifies an error `Status` the way client-go's `apierrors` does.
pub fn from_status(status: Box<Status>) -> ClientError {
    match (status.code, status.reason.as_str()) {
        (404, _) => ClientError::NotFound(status),
        (409, "AlreadyExists") => ClientError::AlreadyExists(status),
        (409, _) => ClientError::Conflict(status),
        (422, _) => {
            let causes = status
                .details
                .as_ref()
                .map(|d| {
                    d.causes
                        .iter()
                        .map(|c| FieldCause {
                            field: c.field.clone(),
                            reason: c.reason.clone(),
                            message: c.message.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            ClientError::Invalid { status, causes }
        }
        (400, _) => ClientError::BadRequest(status),
        (401 | 403, _) => ClientError::Forbidden(status),
        (410, _) => ClientError::Gone(status),
        (504, _) | (_, "Timeout") => ClientError::Timeout(status),
        (429, _) => {
            let retry_after_seconds = status
                .details
                .as_ref()
                .map(|d| d.retry_after_seconds)
                .filter(|s| *s > 0);
            ClientError::TooManyRequests {
                status,
                retry_after_seconds,
            }
        }
        _ => ClientError::Server(status),
    }
}

/// The result of every typed-client call.
pub type Result<T, E = ClientError> = std::result::Result<T, E>;

pub use kubegen_core::resource::{HasScaleSubresource, HasStatusSubresource};

/// What a delete did.
#[derive(Clone, Debug, PartialEq)]
pub enum Deleted<K> {
    /// The object is gone (the server returned its last state, or only a Status).
    Gone(Option<K>),
    /// Finalizers hold it: deletionTimestamp is set and it still exists.
    Terminating(K),
}

fn apply_params(field_manager: &str, force: bool) -> PatchParams {
    let mut params = PatchParams::apply(field_manager);
    params.force = force;
    params
}

/// The name an apply configuration addresses, and its JSON.
fn apply_patch<C: ObjectConfiguration>(configuration: &C) -> Result<(String, Value)> {
    let patch = serde_json::to_value(configuration)
        .map_err(|e| ClientError::Transport(kube::Error::SerdeError(e)))?;
    Ok((configuration.name().to_owned(), patch))
}

/// A typed client for one kind in one namespace, or for a cluster-scoped kind.
pub struct ResourceClient<K> {
    api: Api<K>,
    defaulter: Option<fn(&mut K)>,
}

impl<K: Clone> Clone for ResourceClient<K> {
    fn clone(&self) -> Self {
        Self {
            api: self.api.clone(),
            defaulter: self.defaulter,
        }
    }
}

/// The bounds every kubegen kind meets.
pub trait Kind:
    kube::Resource<DynamicType = ()>
    + Clone
    + Debug
    + Serialize
    + DeserializeOwned
    + Send
    + Sync
    + 'static
{
}

impl<K> Kind for K where
    K: kube::Resource<DynamicType = ()>
        + Clone
        + Debug
        + Serialize
        + DeserializeOwned
        + Send
        + Sync
        + 'static
{
}

impl<K: Kind> ResourceClient<K> {
    /// A client for a namespaced kind in `namespace`.
    pub fn namespaced(client: kube::Client, namespace: &str) -> Self
    where
        K: kube::Resource<Scope = NamespaceResourceScope>,
    {
        Self {
            api: Api::namespaced(client, namespace),
            defaulter: None,
        }
    }

    /// A client for a cluster-scoped kind.
    pub fn cluster(client: kube::Client) -> Self
    where
        K: kube::Resource<Scope = k8s_openapi::ClusterResourceScope>,
    {
        Self {
            api: Api::all(client),
            defaulter: None,
        }
    }

    /// Applies `set_defaults` to objects before `create` and `update` send them.
    pub fn with_defaults(mut self) -> Self
    where
        K: Defaults,
    {
        self.defaulter = Some(|k: &mut K| k.set_defaults());
        self
    }

    /// The underlying kube `Api`, for anything this client does not wrap.
    pub fn api(&self) -> &Api<K> {
        &self.api
    }

    fn prepared<'a>(&self, object: &'a K) -> std::borrow::Cow<'a, K> {
        match self.defaulter {
            Some(f) => {
                let mut owned = object.clone();
                f(&mut owned);
                std::borrow::Cow::Owned(owned)
            }
            None => std::borrow::Cow::Borrowed(object),
        }
    }

    /// GET an object.
    pub async fn get(&self, name: &str) -> Result<K> {
        Ok(self.api.get(name).await?)
    }

    /// GET an object, `None` when it does not exist.
    pub async fn get_opt(&self, name: &str) -> Result<Option<K>> {
        Ok(self.api.get_opt(name).await?)
    }

    /// LIST objects: label and field selectors, `limit` and `continue` in `params`.
    pub async fn list(&self, params: &ListParams) -> Result<List<K>> {
        let list = self.api.list(params).await?;
        Ok(List {
            metadata: list.metadata,
            items: list.items,
        })
    }

    /// Lists every page, following `continue` tokens.
    pub async fn list_all(&self, params: &ListParams) -> Result<List<K>> {
        let mut params = params.clone();
        let mut all = self.list(&params).await?;
        while let Some(token) = all.metadata.continue_.clone().filter(|t| !t.is_empty()) {
            params.continue_token = Some(token);
            let page = self.list(&params).await?;
            all.items.extend(page.items);
            all.metadata = page.metadata;
        }
        Ok(all)
    }

    /// POST a new object.
    pub async fn create(&self, object: &K) -> Result<K> {
        self.create_with(&PostParams::default(), object).await
    }

    /// POST a new object with options (dry run, field manager).
    pub async fn create_with(&self, params: &PostParams, object: &K) -> Result<K> {
        Ok(self.api.create(params, &self.prepared(object)).await?)
    }

    /// PUT an object (its resourceVersion is the precondition).
    pub async fn update(&self, object: &K) -> Result<K> {
        self.update_with(&PostParams::default(), object).await
    }

    /// PUT an object with options.
    pub async fn update_with(&self, params: &PostParams, object: &K) -> Result<K> {
        let name = object.meta().name.clone().unwrap_or_default();
        Ok(self
            .api
            .replace(&name, params, &self.prepared(object))
            .await?)
    }

    /// PATCH an object: merge (`Patch::Merge`), JSON (`Patch::Json`) or server-side apply
    /// (`Patch::Apply`, with `PatchParams::apply(manager)` and optionally `.force()`).
    pub async fn patch<P: Serialize + Debug>(
        &self,
        name: &str,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K> {
        Ok(self.api.patch(name, params, patch).await?)
    }

    /// Server-side apply of `object` as `field_manager`; `force` takes conflicting fields.
    pub async fn apply(&self, object: &K, field_manager: &str, force: bool) -> Result<K> {
        let name = object.meta().name.clone().unwrap_or_default();
        let params = apply_params(field_manager, force);
        Ok(self
            .api
            .patch(&name, &params, &Patch::Apply(object))
            .await?)
    }

    /// Server-side apply of an apply configuration as `field_manager`: only the fields the
    /// configuration sets are sent, so only they become the manager's; `force` takes fields
    /// another manager owns instead of failing with a conflict.
    pub async fn apply_config(
        &self,
        configuration: &K::Configuration,
        field_manager: &str,
        force: bool,
    ) -> Result<K>
    where
        K: Apply,
        K::Configuration: ObjectConfiguration,
    {
        let (name, patch) = apply_patch(configuration)?;
        let params = apply_params(field_manager, force);
        Ok(self.api.patch(&name, &params, &Patch::Apply(patch)).await?)
    }

    /// Server-side apply through the status subresource: only `status` (and nothing the
    /// configuration sets elsewhere) is applied.
    pub async fn apply_config_status(
        &self,
        configuration: &K::Configuration,
        field_manager: &str,
        force: bool,
    ) -> Result<K>
    where
        K: Apply + HasStatusSubresource,
        K::Configuration: ObjectConfiguration,
    {
        let (name, patch) = apply_patch(configuration)?;
        let params = apply_params(field_manager, force);
        Ok(self
            .api
            .patch_status(&name, &params, &Patch::Apply(patch))
            .await?)
    }

    /// DELETE an object (preconditions and propagation policy in `params`).
    pub async fn delete(&self, name: &str, params: &DeleteParams) -> Result<Deleted<K>> {
        Ok(match self.api.delete(name, params).await? {
            either::Either::Left(object) => {
                let meta = object.meta();
                let held = meta.deletion_timestamp.is_some()
                    && meta.finalizers.as_ref().is_some_and(|f| !f.is_empty());
                if held {
                    Deleted::Terminating(object)
                } else {
                    Deleted::Gone(Some(object))
                }
            }
            either::Either::Right(_) => Deleted::Gone(None),
        })
    }

    /// DELETE every object the selectors in `list` match; returns what was deleted.
    pub async fn delete_collection(
        &self,
        params: &DeleteParams,
        list: &ListParams,
    ) -> Result<List<K>> {
        Ok(match self.api.delete_collection(params, list).await? {
            either::Either::Left(list) => List {
                metadata: list.metadata,
                items: list.items,
            },
            either::Either::Right(_) => List::default(),
        })
    }

    /// WATCH from `resource_version` ("0" for "any"): a stream of typed events.
    pub async fn watch(
        &self,
        params: &WatchParams,
        resource_version: &str,
    ) -> Result<impl Stream<Item = Result<WatchEvent<K>>> + use<K>> {
        let stream = self.api.watch(params, resource_version).await?;
        Ok(stream.map_err(ClientError::from).boxed())
    }

    /// GET the status subresource.
    pub async fn get_status(&self, name: &str) -> Result<K>
    where
        K: HasStatusSubresource,
    {
        Ok(self.api.get_status(name).await?)
    }

    /// PUT the status subresource (only `status` changes; spec changes are ignored).
    pub async fn update_status(&self, object: &K) -> Result<K>
    where
        K: HasStatusSubresource,
    {
        let name = object.meta().name.clone().unwrap_or_default();
        Ok(self
            .api
            .replace_status(&name, &PostParams::default(), object)
            .await?)
    }

    /// PATCH the status subresource.
    pub async fn patch_status<P: Serialize + Debug>(
        &self,
        name: &str,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<K>
    where
        K: HasStatusSubresource,
    {
        Ok(self.api.patch_status(name, params, patch).await?)
    }

    /// GET the scale subresource.
    pub async fn get_scale(&self, name: &str) -> Result<Scale>
    where
        K: HasScaleSubresource,
    {
        Ok(self.api.get_scale(name).await?)
    }

    /// PUT the scale subresource.
    pub async fn update_scale(&self, name: &str, scale: &Scale) -> Result<Scale>
    where
        K: HasScaleSubresource,
    {
        Ok(self
            .api
            .replace_scale(name, &PostParams::default(), scale)
            .await?)
    }

    /// PATCH the scale subresource.
    pub async fn patch_scale<P: Serialize + Debug>(
        &self,
        name: &str,
        params: &PatchParams,
        patch: &Patch<P>,
    ) -> Result<Scale>
    where
        K: HasScaleSubresource,
    {
        Ok(self.api.patch_scale(name, params, patch).await?)
    }

    /// Reads the object, applies `mutate`, and updates it, starting over on a 409 Conflict
    /// (up to `attempts` times), like client-go's `retry.RetryOnConflict`.
    pub async fn retry_on_conflict<F>(&self, name: &str, attempts: u32, mut mutate: F) -> Result<K>
    where
        F: FnMut(&mut K),
    {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut object = self.get(name).await?;
            mutate(&mut object);
            match self.update(&object).await {
                Err(e) if e.is_conflict() && attempt < attempts.max(1) => continue,
                other => return other,
            }
        }
    }
}

/// A read-only client across all namespaces: list and watch, as client-go's
/// `Lister`-feeding clients use.
pub struct AllNamespacesClient<K> {
    api: Api<K>,
}

impl<K: Kind> AllNamespacesClient<K> {
    /// A client for a namespaced kind across all namespaces.
    pub fn new(client: kube::Client) -> Self
    where
        K: kube::Resource<Scope = NamespaceResourceScope>,
    {
        Self {
            api: Api::all(client),
        }
    }

    /// LIST across namespaces.
    pub async fn list(&self, params: &ListParams) -> Result<List<K>> {
        let list = self.api.list(params).await?;
        Ok(List {
            metadata: list.metadata,
            items: list.items,
        })
    }

    /// WATCH across namespaces.
    pub async fn watch(
        &self,
        params: &WatchParams,
        resource_version: &str,
    ) -> Result<impl Stream<Item = Result<WatchEvent<K>>> + use<K>> {
        let stream = self.api.watch(params, resource_version).await?;
        Ok(stream.map_err(ClientError::from).boxed())
    }
}
