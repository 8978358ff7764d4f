//! Versions of a kind: objects stored at the storage version and served at the version each request
//! names, through the kind's registered conversions ([`kubegen_runtime::convert::convert`]), as the
//! apiserver serves a CRD whose conversion strategy is `Webhook`.
//!
//! The apiserver converts on its way to and from etcd: a write is decoded, defaulted,
//! admitted and validated at the request's version, then converted to the storage version
//! and pruned with that version's schema; a read converts the stored object to the version
//! asked for and prunes it with that version's schema. A webhook may change only the
//! labels and annotations of `metadata`; the rest is restored from the object sent. Kinds
//! without registered conversions keep the `None` strategy: the same JSON relabelled.

use std::borrow::Cow;

use super::*;

impl KindEntry {
    /// `object`, at any version of this kind, at `version`, as the apiserver serves it: one
    /// conversion (a webhook call, or a relabelling for the `None` strategy), then the nulls
    /// the schema does not allow dropped and unknown fields pruned. A conversion error is a
    /// 500, as the apiserver answers a failing conversion webhook.
    pub(crate) fn convert(&self, object: &Value, version: &str) -> Result<Value, ApiError> {
        self.converted(object, version).map(Cow::into_owned)
    }

    /// [`KindEntry::convert`], borrowing `object` when it is already at `version`.
    pub(super) fn converted<'o>(
        &self,
        object: &'o Value,
        version: &str,
    ) -> Result<Cow<'o, Value>, ApiError> {
        let desired = self.api_version(version);
        if self.is_hpa() {
            // Through the internal form even at the same version: its round-trip
            // annotations are dropped on every write.
            return crate::builtin::convert::hpa(object, &desired)
                .map(Cow::Owned)
                .map_err(ApiError::internal);
        }
        if object["apiVersion"].as_str() == Some(desired.as_str()) {
            return Ok(Cow::Borrowed(object));
        }
        if !self.converted {
            return kubegen_runtime::fieldpath::managed::relabel(object, &desired)
                .map(Cow::Owned)
                .map_err(ApiError::internal);
        }
        let mut converted = self
            .call_webhook(object, &desired)
            .map_err(ApiError::internal)?;
        if let Some(v) = self.versions.iter().find(|v| v.name == version) {
            drop_nulls(&v.schema, &mut converted);
            crate::decode::prune(&v.schema, &mut converted);
        }
        Ok(Cow::Owned(converted))
    }

    /// `object` at `api_version` as the apiserver's field manager converts it (its version
    /// converter): to the storage version, then to `api_version`, each step a webhook call,
    /// nothing pruned. The object may be partial.
    pub(crate) fn convert_for_field_manager(
        &self,
        object: &Value,
        api_version: &str,
    ) -> Result<Value, String> {
        let step = |object: &Value, to: &str| {
            if object["apiVersion"].as_str() == Some(to) {
                Ok(object.clone())
            } else if self.is_hpa() {
                crate::builtin::convert::hpa(object, to)
            } else if self.converted {
                self.call_webhook(object, to)
            } else {
                kubegen_runtime::fieldpath::managed::relabel(object, to)
            }
        };
        let hub = step(object, &self.api_version(self.storage))?;
        step(&hub, api_version)
    }

    /// Whether this is the built-in HorizontalPodAutoscaler, whose versions differ in shape
    /// ([`crate::builtin::convert::hpa`]).
    fn is_hpa(&self) -> bool {
        self.builtin.is_some_and(|b| {
            let r = b.resource();
            r.group == "autoscaling" && r.kind == "HorizontalPodAutoscaler"
        })
    }

    /// One call of the kind's conversion webhook, as the apiserver makes it and checks its
    /// answer (`webhook_converter.go`): an object with nothing but `apiVersion` and `kind` is
    /// relabelled without a call; the converted object keeps the original's `metadata` but
    /// for the labels and annotations the conversion set. The error is the apiserver's.
    fn call_webhook(&self, object: &Value, desired: &str) -> Result<Value, String> {
        let from = object["apiVersion"].as_str().unwrap_or("");
        if object
            .as_object()
            .is_some_and(|o| o.len() == 2 && o.contains_key("apiVersion") && o.contains_key("kind"))
        {
            return kubegen_runtime::fieldpath::managed::relabel(object, desired);
        }
        let mut converted =
            kubegen_runtime::convert::convert(object.clone(), desired).map_err(|e| {
                // The message kubegen's webhook answers with, after the apiserver's prefix, which
                // prints the object's `GroupVersionKind`.
                let cause = kubegen_runtime::convert::failure_message(
                    0,
                    desired,
                    self.kind,
                    from,
                    &e.into(),
                );
                format!(
                    "conversion webhook for {from}, Kind={} failed: {cause}",
                    self.kind
                )
            })?;
        restore_metadata(object, &mut converted);
        converted["apiVersion"] = json!(desired);
        converted["kind"] = json!(self.kind);
        Ok(converted)
    }
}

/// `metadata` as sent, but for the labels and annotations the conversion set (the
/// apiserver's `restoreObjectMeta`).
fn restore_metadata(original: &Value, converted: &mut Value) {
    let mut metadata = match original.get("metadata") {
        Some(m) => m.clone(),
        None => json!({}),
    };
    if let Value::Object(m) = &mut metadata {
        for key in ["labels", "annotations"] {
            match converted["metadata"]
                .get(key)
                .filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
            {
                Some(v) => {
                    m.insert(key.to_owned(), v.clone());
                }
                None => {
                    m.remove(key);
                }
            }
        }
    }
    converted["metadata"] = metadata;
}

impl State {
    /// The stored object as the requested version.
    pub(super) fn present(&self, t: &Target, object: &Value) -> Result<Value, ApiError> {
        let mut presented = self.entry(t).convert(object, &t.version)?;
        // A dry run answers what storage would have read back too.
        kubegen_go::json::through_storage(&mut presented);
        Ok(presented)
    }

    /// A stored object at the request's version: shared with the store when that is its
    /// version (storage already gave it Go's numbers), otherwise [`State::present`]ed.
    pub(super) fn present_stored(
        &self,
        t: &Target,
        stored: &Arc<Value>,
    ) -> Result<Arc<Value>, ApiError> {
        match self.entry(t).converted(stored, &t.version)? {
            Cow::Borrowed(_) => Ok(stored.clone()),
            Cow::Owned(mut presented) => {
                kubegen_go::json::through_storage(&mut presented);
                Ok(Arc::new(presented))
            }
        }
    }

    /// A written object (at the request's version) as it is stored: converted, and pruned
    /// with the storage version's schema (which also drops what a mutating webhook added
    /// that the schema does not declare).
    pub(super) fn to_storage(&self, t: &Target, object: Value) -> Result<Value, ApiError> {
        let e = self.entry(t);
        let mut stored = match e.converted(&object, e.storage)? {
            Cow::Borrowed(_) => object,
            Cow::Owned(converted) => converted,
        };
        if let Some(v) = e.versions.iter().find(|v| v.name == e.storage) {
            drop_nulls(&v.schema, &mut stored);
            crate::decode::prune(&v.schema, &mut stored);
        }
        // Written with Go's encoder and read back keeping integers: integral floats are ints.
        kubegen_go::json::through_storage(&mut stored);
        Ok(stored)
    }
}
