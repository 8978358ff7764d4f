//! Namespaces as kube-apiserver has them: objects that exist before anything is written
//! into them (NamespaceLifecycle admission), the four the apiserver creates at start, and a
//! deletion that leaves a namespace `Terminating` until its `kubernetes` finalizer is taken
//! off through `/finalize` (by the namespace controller, on a real cluster).

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

    /// DELETE of a Namespace: the system namespaces are refused; one with finalizers in its
    /// spec is marked Terminating (and stays so until `/finalize` empties them); a second
    /// DELETE answers it as it is. `None`: delete it as any object.
    pub(super) fn delete_namespace(
        &mut self,
        t: &Target,
        key: &Key,
        existing: &Value,
        w: &WriteOptions,
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
        if existing["metadata"]["deletionTimestamp"].is_string() {
            return self.present(t, existing).map(Some);
        }
        let held = existing["spec"]["finalizers"]
            .as_array()
            .is_some_and(|f| !f.is_empty());
        if !held {
            return Ok(None);
        }
        let mut marked = existing.clone();
        marked["metadata"]["deletionTimestamp"] = json!(self.clock.rfc3339());
        marked["status"]["phase"] = json!("Terminating");
        if w.dry_run {
            return self.present(t, &marked).map(Some);
        }
        let stored = self.commit(key.clone(), marked, Some(existing.clone()));
        self.present(t, &stored).map(Some)
    }

    /// PUT of a Namespace's `/finalize`: only `spec.finalizers` changes; a namespace being
    /// deleted with none left (and no finalizers in its metadata) is removed, and the answer
    /// is the namespace as it was last.
    pub fn finalize(
        &mut self,
        t: &Target,
        body: Value,
        w: &WriteOptions,
    ) -> Result<Value, ApiError> {
        let (name, key, existing) = self.stored(t)?;
        self.check_update_body(t, &name, &body)?;
        let mut updated = existing.clone();
        updated["spec"]["finalizers"] = body["spec"]["finalizers"].clone();
        if updated["spec"]["finalizers"]
            .as_array()
            .is_none_or(|f| f.is_empty())
            && let Value::Object(spec) = &mut updated["spec"]
        {
            spec.remove("finalizers");
        }
        let empty = |v: &Value| v.as_array().is_none_or(|f| f.is_empty());
        let gone = existing["metadata"]["deletionTimestamp"].is_string()
            && empty(&updated["spec"]["finalizers"])
            && empty(&updated["metadata"]["finalizers"]);
        if w.dry_run || updated == existing {
            return self.present(t, &updated);
        }
        if gone {
            self.remove(key);
            return self.present(t, &updated);
        }
        let stored = self.commit(key, updated, Some(existing));
        self.present(t, &stored)
    }

    /// Creates namespace `name` unless it exists (see `ApiServer::create_namespace`).
    pub fn create_namespace(&mut self, name: &str) -> Result<(), ApiError> {
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
