//! Writes: create and update (PUT and patches), with the status subresource's rules.

use super::*;
use crate::decode;
use kubegen_runtime::validation::request;
use kubegen_runtime::validation::{BadValue, FieldError};

impl State {
    pub(crate) fn create(
        &mut self,
        t: &Target,
        body: Value,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Arc<Value>, ApiError> {
        self.create_object(t, body, w, None, warnings)
    }

    /// Creates an object; `applied` holds the managed fields of an apply that creates it
    /// (otherwise the create is tracked as an Update). A Service's addresses and ports are
    /// given back when the create fails or is a dry run.
    fn create_object(
        &mut self,
        t: &Target,
        body: Value,
        w: &WriteOptions,
        applied: Option<Value>,
        warnings: &mut Vec<String>,
    ) -> Result<Arc<Value>, ApiError> {
        let services = self.is_service(t).then(|| self.services.clone());
        let created = self.create_unallocated(t, body, w, applied, warnings);
        if let Some(services) = services
            && (created.is_err() || w.dry_run)
        {
            self.services = services;
        }
        created
    }

    fn create_unallocated(
        &mut self,
        t: &Target,
        mut body: Value,
        w: &WriteOptions,
        applied: Option<Value>,
        warnings: &mut Vec<String>,
    ) -> Result<Arc<Value>, ApiError> {
        if !body.is_object() {
            return Err(ApiError::bad_request("the body must be a JSON object"));
        }
        self.check_type(t, &body)?;
        if !body["metadata"].is_object() {
            body["metadata"] = json!({});
        }
        let e = self.entry(t);
        let (group, plural, kind) = (e.group, e.plural, e.kind);
        match (&t.namespace, meta_str(&body, "namespace")) {
            (Some(path), Some(b)) if path != b => {
                return Err(ApiError::bad_request(request::NAMESPACE_MISMATCH));
            }
            (Some(path), _) => body["metadata"]["namespace"] = json!(path),
            (None, _) => {
                if let Value::Object(m) = &mut body["metadata"] {
                    m.remove("namespace");
                }
            }
        }
        // Without a name or generateName, validation reports the missing name.
        let sent_name = meta_str(&body, "name").unwrap_or("").to_owned();
        if sent_name.is_empty() && !meta_str(&body, "generateName").unwrap_or("").is_empty() {
            self.sequence += 1;
        }
        let name = request::name_for_create(&body, self.sequence);
        self.admit_into_namespace(t, &name)?;
        // What the field manager cannot type as sent (a `status` of the wrong type the
        // strategy then drops) leaves the object without managed fields.
        let untyped = applied.is_none() && !self.field_manager_types(t, &body);
        if self.version(t).status
            && let Value::Object(m) = &mut body
        {
            m.remove("status");
        }
        body["apiVersion"] = json!(self.entry(t).api_version(&t.version));
        if !body["kind"].is_string() {
            body["kind"] = json!(kind);
        }
        self.sequence += 1;
        let requested_managed_fields = body["metadata"].get("managedFields").cloned();
        let requested_rv = meta_str(&body, "resourceVersion").unwrap_or("").to_owned();
        let applied_create = applied.as_ref().map(|_| ());
        // Custom resources get a generation here; a built-in kind's strategy sets its own.
        let generation = self.entry(t).builtin.is_none();
        let uid = format!("00000000-0000-4000-8000-{:012x}", self.sequence);
        // An apply that creates goes through the update path's `BeforeCreate`, which does not
        // wipe what the create handler wipes: deletion fields it sets are kept (observed on
        // kube-apiserver v1.36.2).
        let deletion: Vec<(&str, Value)> = match applied {
            Some(_) => ["deletionTimestamp", "deletionGracePeriodSeconds"]
                .into_iter()
                .filter_map(|k| Some((k, body["metadata"].get(k)?.clone())))
                .filter(|(_, v)| !v.is_null())
                .collect(),
            None => Vec::new(),
        };
        request::fill_create_metadata(
            &mut body,
            name.clone(),
            Some((uid, self.clock.rfc3339())),
            generation,
        );
        for (k, v) in deletion {
            body["metadata"][k] = v;
        }
        self.prepare(t, &mut body, applied.is_some())?;
        match applied {
            Some(managed) => set_managed_fields(&mut body, managed),
            None => {
                if let Some(requested) = requested_managed_fields {
                    body["metadata"]["managedFields"] = requested;
                }
                let mut live = json!({"apiVersion": body["apiVersion"], "kind": body["kind"]});
                if let Some(builtin) = self.entry(t).builtin {
                    builtin.zero_object(&self.version(t).schema, &mut live);
                }
                match untyped {
                    true => set_managed_fields(&mut body, Value::Null),
                    false => self.track_update(t, &live, &mut body, w),
                }
            }
        }
        if let Some(builtin) = self.entry(t).builtin {
            self.admit_builtin(t, builtin, &name, &mut body)?;
        }
        if let Some(mutated) = self.admit_create(t, &body, &sent_name, w, warnings)? {
            body = mutated;
        }
        if let Some(builtin) = self.entry(t).builtin {
            builtin.prepare_for_create(&t.version, &mut body);
            if builtin.is_service() {
                let mut services = std::mem::take(&mut self.services);
                let allocated = services.allocate(&mut body);
                self.services = services;
                allocated.map_err(|e| self.allocation_error(t, &body, e))?;
            }
        }
        self.validate(t, &body, Admission::Create, warnings)?;
        if let Some(builtin) = self.entry(t).builtin {
            warnings.extend(builtin.warnings_on_create(&body));
        }
        let review = admission::Review::create(&body, w);
        self.validating_admission(t, &review, warnings)?;
        // Validation comes first: an invalid object is refused as invalid even when its name
        // is taken.
        let key = self.key(t, &name);
        if self.objects.contains_key(&key) {
            let mut error = ApiError::already_exists(group, plural, &name);
            if self.objects[&key]["metadata"]["deletionTimestamp"].is_string() {
                error.message = format!("object is being deleted: {}", error.message);
            }
            return Err(error);
        }
        if w.dry_run {
            return self.present(t, &body).map(Arc::new);
        }
        // The storage refuses a create that names a resourceVersion (a number other than 0;
        // anything else is ignored). An apply that creates is an update to storage.
        if applied_create.is_none()
            && request::resource_version(&requested_rv).is_ok_and(|rv| rv != 0)
        {
            return Err(ApiError::internal(
                "resourceVersion should not be set on objects to be created",
            ));
        }
        let mut stored = self.to_storage(t, body)?;
        self.fit_storage(&key, &mut stored, None, applied_create.is_none())?;
        let stored = self.commit(key, stored, None);
        self.present_stored(t, &stored)
    }

    /// Applies a write to an existing object (or creates it, for apply).
    pub(crate) fn write(
        &mut self,
        t: &Target,
        change: Change,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
    ) -> Result<(u16, Arc<Value>), ApiError> {
        self.write_change(t, change, w, warnings, None)
    }

    /// A write whose managed fields are `preset` (a scale write translated them), or tracked
    /// from the change.
    pub(super) fn write_change(
        &mut self,
        t: &Target,
        change: Change,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
        preset: Option<Value>,
    ) -> Result<(u16, Arc<Value>), ApiError> {
        let name = self.name(t)?.to_owned();
        let key = self.key(t, &name);
        if let Change::Replace(body) = &change
            && t.subresource.as_deref() != Some("scale")
        {
            self.check_update_body(t, &name, body)?;
        }
        // The stored object, shared: the write reads it and makes a new one.
        let existing = match self.objects.get(&key) {
            Some(o) => self.present_stored(t, o)?,
            None => {
                return match change {
                    Change::Apply(applied, duplicates) if t.subresource.is_none() => {
                        let e = self.entry(t);
                        let live = json!({"apiVersion": e.api_version(&t.version), "kind": e.kind});
                        let mut body = self.apply(t, &live, &applied, w)?;
                        warnings.extend(decode::apply_duplicates(&duplicates, w.field_validation)?);
                        if !body["metadata"].is_object() {
                            body["metadata"] = json!({});
                        }
                        self.check_patched(t, &name, &mut body)?;
                        // The store reads the resourceVersion before it finds nothing to
                        // update; a number is then dropped, as a create's storage drops it.
                        request::resource_version(meta_str(&body, "resourceVersion").unwrap_or(""))
                            .map_err(ApiError::internal)?;
                        let managed = body["metadata"]["managedFields"].take();
                        let created = self.create_object(t, body, w, Some(managed), warnings)?;
                        Ok((201, created))
                    }
                    _ => Err(self.not_found(t, &name)),
                };
            }
        };
        if t.subresource.as_deref() == Some("scale") {
            return self
                .write_scale(t, Arc::unwrap_or_clone(existing), change, w, warnings)
                .map(|v| (200, Arc::new(v)));
        }
        let status_only = t.subresource.as_deref() == Some("status");
        let finalize = t.subresource.as_deref() == Some("finalize");
        let api_version = self.entry(t).api_version(&t.version);
        let replaced = matches!(change, Change::Replace(_));
        let (mut new, applied) = match change {
            Change::Replace(body) => {
                let current_uid = meta_str(&existing, "uid").unwrap_or("");
                if let Some(uid) =
                    meta_str(&body, "uid").filter(|u| !u.is_empty() && *u != current_uid)
                {
                    // The store's precondition, checked before the update itself.
                    let e = self.entry(t);
                    let why =
                        request::uid_precondition_failed(&self.etcd_key(&key), uid, current_uid);
                    return Err(ApiError::conflict(e.group, e.plural, &name, &why));
                }
                (body, false)
            }
            Change::MergePatch(patch, complaints) => {
                let mut doc = Value::clone(&existing);
                crate::jsonpatch::merge(&mut doc, &patch);
                warnings.extend(self.decode_patched(t, &mut doc, &complaints, w, None)?);
                (doc, false)
            }
            Change::Strategic(mut patch) => {
                let schema = &self.version(t).schema;
                let mut doc = crate::smp::apply_leaving_patch(&existing, &mut patch, schema)
                    .map_err(|e| e.api_error())?;
                let quoted = crate::smp::patch_value_for_message(&patch);
                warnings.extend(self.decode_patched(t, &mut doc, &[], w, Some(&quoted))?);
                (doc, false)
            }
            Change::JsonPatch(patch, complaints) => {
                let mut doc = Value::clone(&existing);
                patch
                    .apply(&mut doc)
                    .map_err(|_| ApiError::patch_not_applicable())?;
                warnings.extend(self.decode_patched(t, &mut doc, &complaints, w, None)?);
                (doc, false)
            }
            Change::Apply(applied, duplicates) => {
                let applied = self.apply(t, &existing, &applied, w)?;
                // The strict decoding of an apply body runs after the apply succeeded.
                warnings.extend(decode::apply_duplicates(&duplicates, w.field_validation)?);
                (applied, true)
            }
        };
        if !replaced {
            self.check_patched(t, &name, &mut new)?;
        }
        let current_rv = meta_str(&existing, "resourceVersion")
            .unwrap_or("")
            .to_owned();
        self.check_resource_version(t, &name, &new, &current_rv)?;
        // `BeforeUpdate` reads the object's kind first: without a version it has none.
        let version = new["apiVersion"].as_str().unwrap_or("");
        if version
            .rsplit_once('/')
            .map_or(version, |(_, v)| v)
            .is_empty()
        {
            return Err(ApiError::internal_error(
                "Object 'apiVersion' is missing in 'object has no apiVersion field'",
            ));
        }
        request::ensure_namespace(&mut new, t.namespace.as_deref())
            .map_err(ApiError::bad_request)?;
        // The field manager sees the object as the request made it, before the strategy
        // resets what the endpoint does not write (status, or all but status): if it cannot
        // type that object, the object loses its managed fields (`UpdateNoErrors`).
        let untyped = preset.is_none() && !applied && !self.field_manager_types(t, &new);
        // Server-owned metadata comes from the stored object.
        let mut result = if status_only {
            let mut r = request::with_status_of(&existing, &new);
            let taken = self.entry(t).builtin.map(Builtin::status_update_metadata);
            for field in taken.into_iter().flatten() {
                match new["metadata"].get(*field) {
                    Some(v) if !v.is_null() => r["metadata"][*field] = v.clone(),
                    _ => {
                        if let Some(m) = r["metadata"].as_object_mut() {
                            m.remove(*field);
                        }
                    }
                }
            }
            // An apply's managed fields come with its result; an Update tracks from the live ones.
            if applied {
                set_managed_fields(&mut r, new["metadata"]["managedFields"].clone());
            }
            r
        } else {
            request::keep_server_fields(&mut new, &existing, self.version(t).status);
            if finalize {
                self.prepare_finalize(&mut new);
            }
            new
        };
        if status_only {
            // The status strategy keeps the stored object, apiVersion and kind included.
            result["apiVersion"] = json!(api_version);
        }
        result["metadata"]["resourceVersion"] = json!(current_rv);
        self.prepare(t, &mut result, applied)?;
        let webhooks = preset.is_none() && !status_only;
        match preset {
            Some(managed) => set_managed_fields(&mut result, managed),
            None if untyped => set_managed_fields(&mut result, Value::Null),
            None if !applied => self.track_update(t, &existing, &mut result, w),
            None => {}
        }
        if webhooks {
            let review = admission::Review::update(&result, &existing, w);
            if let Some(mutated) = self.mutating_admission(t, &review, warnings)? {
                result = mutated;
            }
        }
        // The strategy's PrepareForUpdate, after mutating admission: spec changes bump the
        // generation.
        let mut allocated = None;
        match self.entry(t).builtin {
            // The finalize strategy keeps what the request wrote (see above).
            Some(_) if finalize => {}
            Some(builtin) if !status_only => {
                builtin.prepare_for_update(&t.version, &mut result, &existing);
                // The allocation is kept once the update is stored.
                if builtin.is_service() {
                    let mut services = self.services.clone();
                    services
                        .update(&mut result, &existing)
                        .map_err(|e| self.allocation_error(t, &result, e))?;
                    allocated = Some(services);
                }
            }
            Some(_) => {}
            None => {
                let spec_changed = !equal_but_for(&result, &existing, &["metadata", "status"]);
                if spec_changed && !status_only {
                    let generation = existing["metadata"]["generation"].as_i64().unwrap_or(1);
                    result["metadata"]["generation"] = json!(generation + 1);
                }
            }
        }
        let admission = if status_only {
            Admission::Status(&existing)
        } else {
            Admission::Update(&existing)
        };
        self.validate(t, &result, admission, warnings)?;
        if webhooks {
            let review = admission::Review::update(&result, &existing, w);
            self.validating_admission(t, &review, warnings)?;
        }
        if equal_but_for(&result, &existing, &["metadata"])
            && result["metadata"] == existing["metadata"]
        {
            return Ok((200, existing));
        }
        let finalizers_done = self.deleted_by_update(t, &existing, &result);
        if w.dry_run {
            kubegen_go::json::through_storage(&mut result);
            return Ok((200, Arc::new(result)));
        }
        if finalizers_done {
            // The apiserver deletes the stored object rather than storing the update: watchers
            // see it DELETED as it was, the writer gets its update back (at the
            // resourceVersion it updated).
            if let Some(removed) = self.remove(key)
                && self.is_service(t)
            {
                self.services.release(&removed);
            }
            return Ok((200, Arc::new(self.present(t, &result)?)));
        }
        let mut stored = self.to_storage(t, result)?;
        self.fit_storage(&key, &mut stored, Some(&current_rv), !applied)?;
        let old = self.objects.get(&key).cloned();
        let stored = self.commit(key, stored, old);
        if let Some(services) = allocated {
            self.services = services;
        }
        Ok((200, self.present_stored(t, &stored)?))
    }
}

impl State {
    /// Mutating admission of a create. The webhook sees the object as the apiserver holds it
    /// before `BeforeCreate`: without uid, creationTimestamp and generation, and without the
    /// name a generateName will get; those are set again after it.
    /// The apiserver's own mutating admission plugins for a built-in kind's create (see
    /// `builtin::admission`); a refusal is a 403 naming the object.
    fn admit_builtin(
        &self,
        t: &Target,
        builtin: Builtin,
        name: &str,
        body: &mut Value,
    ) -> Result<(), ApiError> {
        let namespace = t.namespace.clone().unwrap_or_default();
        let accounts = self.core_kind("serviceaccounts");
        let exists = |account: &str| {
            accounts.is_some_and(|k| {
                self.objects
                    .contains_key(&(k, namespace.clone(), account.to_owned()))
            })
        };
        // Go picks five characters at random; here they follow the server's sequence.
        let suffix = || request::generated_suffix(self.sequence);
        builtin
            .admit_create(body, exists, suffix)
            .map_err(|refusal| {
                let e = self.entry(t);
                ApiError::forbidden(e.group, e.plural, name, &refusal.0)
            })
    }

    fn admit_create(
        &self,
        t: &Target,
        body: &Value,
        sent_name: &str,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Value>, ApiError> {
        if !self.has_mutating_webhook(t) {
            return Ok(None);
        }
        let mut sent = body.clone();
        sent["metadata"]["name"] = json!(sent_name);
        if let Value::Object(m) = &mut sent["metadata"] {
            for k in ["uid", "creationTimestamp", "generation"] {
                m.remove(k);
            }
        }
        let review = admission::Review::create(&sent, w);
        let Some(mut mutated) = self.mutating_admission(t, &review, warnings)? else {
            return Ok(None);
        };
        if !mutated["metadata"].is_object() {
            mutated["metadata"] = json!({});
        }
        for k in ["uid", "creationTimestamp", "generation", "namespace"] {
            match body["metadata"].get(k) {
                Some(v) => mutated["metadata"][k] = v.clone(),
                None => {
                    if let Value::Object(m) = &mut mutated["metadata"] {
                        m.remove(k);
                    }
                }
            }
        }
        if meta_str(&mutated, "name").is_none_or(str::is_empty) {
            mutated["metadata"]["name"] = body["metadata"]["name"].clone();
        }
        if self.version(t).status
            && let Value::Object(m) = &mut mutated
        {
            m.remove("status");
        }
        Ok(Some(mutated))
    }
}

impl State {
    /// A patched object decoded as the apiserver decodes it (the status subresource's
    /// patches included): coerced with the schema, unknown fields reported or refused.
    fn decode_patched(
        &self,
        t: &Target,
        doc: &mut Value,
        patch_errors: &[String],
        w: &WriteOptions,
        quoted: Option<&str>,
    ) -> Result<Vec<String>, ApiError> {
        let e = self.entry(t);
        decode::patched_object(
            doc,
            e.kind,
            &e.api_version(&t.version),
            |version| e.version(version).map(|v| &v.schema),
            patch_errors,
            w.field_validation,
            quoted,
        )
    }

    /// The patcher's checks of a patched or applied object (`patcher.applyPatch`): its
    /// namespace against the request's, then its name against the URL's.
    fn check_patched(&self, t: &Target, name: &str, object: &mut Value) -> Result<(), ApiError> {
        request::ensure_namespace(object, t.namespace.as_deref())
            .and_then(|()| request::check_name(meta_str(object, "name").unwrap_or(""), name))
            .map_err(ApiError::bad_request)
    }

    /// The store's checks of an update's resourceVersion against the stored `current`: a
    /// number (or a 500), not zero (unconditional updates are refused, in an `Invalid` that
    /// names the resource, not the kind), and the current one (or a conflict).
    fn check_resource_version(
        &self,
        t: &Target,
        name: &str,
        new: &Value,
        current: &str,
    ) -> Result<(), ApiError> {
        let e = self.entry(t);
        let rv = request::resource_version(meta_str(new, "resourceVersion").unwrap_or(""))
            .map_err(ApiError::internal)?;
        // Most built-in strategies allow unconditional updates: without a resourceVersion, a
        // PUT overwrites what is stored (a Lease's and a custom resource's refuse it).
        if rv == 0 && e.builtin.is_some_and(Builtin::allows_unconditional_update) {
            return Ok(());
        }
        if rv == 0 {
            let error = FieldError::invalid(
                "metadata.resourceVersion",
                BadValue::Int(0),
                "must be specified for an update",
            );
            return Err(ApiError::invalid(e.group, e.plural, name, &[error]));
        }
        if request::resource_version(current) != Ok(rv) {
            return Err(ApiError::conflict(
                e.group,
                e.plural,
                name,
                request::MODIFIED,
            ));
        }
        Ok(())
    }

    /// What the apiserver checks in a PUT body before it reads the stored object: the
    /// apiVersion, the namespace and the name.
    pub(super) fn check_update_body(
        &self,
        t: &Target,
        name: &str,
        body: &Value,
    ) -> Result<(), ApiError> {
        let api_version = self.entry(t).api_version(&t.version);
        request::check_update_body(body, &api_version, t.namespace.as_deref(), name)
            .map_err(ApiError::bad_request)
    }
}

/// Sets `metadata.managedFields` (removes it for `null`).
fn set_managed_fields(object: &mut Value, managed: Value) {
    if managed.is_null() {
        if let Value::Object(m) = &mut object["metadata"] {
            m.remove("managedFields");
        }
    } else {
        object["metadata"]["managedFields"] = managed;
    }
}
