//! Namespaces as kube-apiserver has them (`pkg/registry/core/namespace`): objects that
//! exist before anything is written into them (NamespaceLifecycle admission), the four the
//! apiserver creates at start, and a deletion that leaves a namespace `Terminating` until
//! `/finalize` empties its `spec.finalizers` — the namespace controller takes its
//! `kubernetes` finalizer off there once the namespace's content is gone (in memory with
//! the controllers on, see `controllers/namespace.rs`). An update that leaves a terminating
//! namespace without finalizers, in its spec or its metadata, deletes it.

use super::delete::Deletion;
use super::*;

/// The namespaces the apiserver's system-namespaces controller creates.
const SYSTEM: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// The namespaces that may never be deleted.
const IMMORTAL: [&str; 3] = ["default", "kube-public", "kube-system"];

impl State {
    /// The index of the core Namespace kind.
    pub(super) fn namespace_kind(&self) -> Option<usize> {
        self.core_kind("namespaces")
    }

    /// Whether `t` addresses the core Namespace kind.
    pub(super) fn is_namespace(&self, t: &Target) -> bool {
        self.namespace_kind() == Some(t.kind)
    }

    /// Creates the system namespaces, as the apiserver does when it starts.
    pub(super) fn seed_namespaces(&mut self) {
        let Some(kind) = self.namespace_kind() else {
            return;
        };
        for name in SYSTEM {
            self.sequence += 1;
            let time = self.clock.rfc3339();
            let object = json!({
                "kind": "Namespace",
                "apiVersion": "v1",
                "metadata": {
                    "name": name,
                    "uid": format!("00000000-0000-4000-8000-{:012x}", self.sequence),
                    "creationTimestamp": time,
                    "labels": {"kubernetes.io/metadata.name": name},
                    "managedFields": [{
                        "manager": "kube-apiserver",
                        "operation": "Update",
                        "apiVersion": "v1",
                        "time": time,
                        "fieldsType": "FieldsV1",
                        "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/metadata.name": {}}}},
                    }],
                },
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            });
            self.commit((kind, String::new(), name.to_owned()), object, None);
        }
    }

    /// NamespaceLifecycle's admission of a create of `name` into `t`'s namespace: the
    /// namespace must exist (404 naming it) and not be terminating (403).
    pub(super) fn admit_into_namespace(&self, t: &Target, name: &str) -> Result<(), ApiError> {
        let (Some(kind), Some(namespace)) = (self.namespace_kind(), t.namespace.as_deref()) else {
            return Ok(());
        };
        let Some(ns) = self
            .objects
            .get(&(kind, String::new(), namespace.to_owned()))
        else {
            return Err(ApiError::not_found("", "namespaces", namespace));
        };
        if ns["metadata"]["deletionTimestamp"].is_string() {
            let e = self.entry(t);
            let mut error = ApiError::forbidden(
                e.group,
                e.plural,
                name,
                &format!(
                    "unable to create new content in namespace {namespace} because it is being terminated"
                ),
            );
            if let Some(details) = &mut error.details {
                details["causes"] = json!([{
                    "reason": "NamespaceTerminating",
                    "message": format!("namespace {namespace} is being terminated"),
                    "field": "metadata.namespace",
                }]);
            }
            return Err(error);
        }
        Ok(())
    }

    /// DELETE of a Namespace (`pkg/registry/core/namespace/storage`): the system namespaces
    /// are refused; the first DELETE marks the namespace Terminating — its deletion time
    /// set, `orphan` and `foregroundDeletion` in its metadata's finalizers as the
    /// propagation policy asks — and answers it; further ones answer it as it is while
    /// `spec.finalizers` hold it, and delete it as any object once they are empty (the
    /// answer being the deleted namespace).
    pub(super) fn delete_namespace_request(
        &mut self,
        t: &Target,
        options: &Value,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Value, ApiError> {
        let (name, key, existing) = self.stored(t)?;
        let conflict = |why: String| ApiError::conflict("", "namespaces", &name, &why);
        let uid = meta_str(&existing, "uid").unwrap_or("");
        if let Some(sent) = options["preconditions"]["uid"].as_str()
            && sent != uid
        {
            return Err(conflict(format!(
                "Precondition failed: UID in precondition: {sent}, UID in object meta: {uid}"
            )));
        }
        let rv = meta_str(&existing, "resourceVersion").unwrap_or("");
        if let Some(sent) = options["preconditions"]["resourceVersion"].as_str()
            && sent != rv
        {
            return Err(conflict(format!(
                "Precondition failed: ResourceVersion in precondition: {sent}, ResourceVersion in meta: {rv}"
            )));
        }
        if existing["metadata"]["deletionTimestamp"].is_string() {
            if has_spec_finalizers(&existing) {
                return self.present(t, &existing);
            }
            // The store's delete, which finalizers in the metadata still hold.
            return match self.delete_object(t, options, w, warnings)? {
                Deletion::Gone(last) => Ok(Arc::unwrap_or_clone(last)),
                Deletion::Terminating(last) => Ok(last),
            };
        }
        // Admission (NamespaceLifecycle first) runs inside the update, after the
        // preconditions.
        if IMMORTAL.contains(&name.as_str()) {
            return Err(ApiError::forbidden(
                "",
                "namespaces",
                &name,
                "this namespace may not be deleted",
            ));
        }
        let old_object = self.present(t, &existing)?;
        let review = admission::Review::delete(&old_object, w, options);
        self.validating_admission(t, &review, warnings)?;
        let mut marked = Value::clone(&existing);
        marked["metadata"]["deletionTimestamp"] = json!(self.clock.rfc3339());
        marked["status"]["phase"] = json!("Terminating");
        propagation_finalizers(&mut marked, options);
        if w.dry_run {
            return self.present(t, &marked);
        }
        let old = self.objects.get(&key).cloned();
        let stored = self.commit(key, marked, old);
        self.present(t, &stored)
    }

    /// A namespace DELETE that reached the generic store delete: only once the namespace is
    /// terminating with nothing left in `spec.finalizers` (see
    /// [`State::delete_namespace_request`]); the system namespaces are refused.
    pub(super) fn delete_namespace(
        &mut self,
        t: &Target,
        key: &Key,
        existing: &Value,
        _: &WriteOptions,
    ) -> Result<Option<Value>, ApiError> {
        let name = key.2.as_str();
        if IMMORTAL.contains(&name) {
            return Err(ApiError::forbidden(
                "",
                "namespaces",
                name,
                "this namespace may not be deleted",
            ));
        }
        if has_spec_finalizers(existing) {
            return self.present(t, existing).map(Some);
        }
        Ok(None)
    }

    /// Whether an update of `existing` to `object` deletes it instead
    /// (`ShouldDeleteDuringUpdate`): it was marked for deletion, no grace period is running
    /// (a Pod inside its own stays), and the update leaves no finalizer — for a Namespace,
    /// none in its spec either.
    pub(super) fn deleted_by_update(&self, t: &Target, existing: &Value, object: &Value) -> bool {
        let empty = |v: &Value| v.as_array().is_none_or(|f| f.is_empty());
        existing["metadata"]["deletionTimestamp"].is_string()
            && existing["metadata"]["deletionGracePeriodSeconds"]
                .as_i64()
                .is_none_or(|g| g == 0)
            && empty(&object["metadata"]["finalizers"])
            && !(self.is_namespace(t) && has_spec_finalizers(object))
    }

    /// The finalize strategy (`namespaceFinalizeStrategy`) on a PUT of `/finalize`: the
    /// body's `spec.finalizers` (none left is none written) and metadata, the stored status.
    pub(super) fn prepare_finalize(&self, object: &mut Value) {
        if !has_spec_finalizers(object)
            && let Value::Object(spec) = &mut object["spec"]
        {
            spec.remove("finalizers");
        }
    }

    /// Creates namespace `name` unless it exists (see `ApiServer::create_namespace`).
    pub(crate) fn create_namespace(&mut self, name: &str) -> Result<(), ApiError> {
        let Some(kind) = self.namespace_kind() else {
            return Ok(());
        };
        if self
            .objects
            .contains_key(&(kind, String::new(), name.to_owned()))
        {
            return Ok(());
        }
        let t = Target {
            kind,
            version: "v1".into(),
            namespace: None,
            name: None,
            subresource: None,
        };
        let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        let options = WriteOptions {
            field_manager: Some("kubegen".into()),
            ..WriteOptions::default()
        };
        self.create(&t, body, &options, &mut Vec::new()).map(|_| ())
    }
}

/// Whether a namespace has finalizers in its spec.
fn has_spec_finalizers(namespace: &Value) -> bool {
    namespace["spec"]["finalizers"]
        .as_array()
        .is_some_and(|f| !f.is_empty())
}

/// The metadata finalizers a namespace's first DELETE leaves: `orphan` when the options
/// orphan dependents (`orphanDependents`, else `propagationPolicy: Orphan`, else as it was),
/// `foregroundDeletion` when they delete them first (`orphanDependents: false`, else
/// `propagationPolicy: Foreground`, else as it was). Others keep their place; one added
/// goes last.
fn propagation_finalizers(namespace: &mut Value, options: &Value) {
    let mut finalizers: Vec<Value> = namespace["metadata"]["finalizers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let has = |list: &[Value], f: &str| list.iter().any(|x| x == f);
    let orphan_dependents = options["orphanDependents"].as_bool();
    let policy = options["propagationPolicy"].as_str();
    let orphan = orphan_dependents
        .or(policy.map(|p| p == "Orphan"))
        .unwrap_or_else(|| has(&finalizers, "orphan"));
    let foreground = orphan_dependents
        .map(|o| !o)
        .or(policy.map(|p| p == "Foreground"))
        .unwrap_or_else(|| has(&finalizers, "foregroundDeletion"));
    let before = finalizers.clone();
    for (finalizer, wanted) in [("orphan", orphan), ("foregroundDeletion", foreground)] {
        match (wanted, has(&finalizers, finalizer)) {
            (true, false) => finalizers.push(json!(finalizer)),
            (false, true) => finalizers.retain(|f| f != finalizer),
            _ => {}
        }
    }
    if finalizers == before {
        return;
    }
    match finalizers.is_empty() {
        true => {
            if let Value::Object(m) = &mut namespace["metadata"] {
                m.remove("finalizers");
            }
        }
        false => namespace["metadata"]["finalizers"] = json!(finalizers),
    }
}
