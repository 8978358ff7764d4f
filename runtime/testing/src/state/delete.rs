//! DELETE as the apiserver's generic registry store does it (`Store.Delete`,
//! `Store.DeleteCollection`, `rest.BeforeDelete`): preconditions, a Pod's graceful
//! deletion, the garbage collector's `orphan` and `foregroundDeletion` finalizers chosen from
//! the options, the object's finalizers and its kind's default policy, and an object held by
//! finalizers marked for deletion rather than removed.
//!
//! Which dependents go with the object is the garbage collector's business (an in-memory
//! controller, `Controller::GarbageCollector`); the server only sets the finalizers it acts
//! on, as kube-apiserver does with or without a controller-manager.

use std::borrow::Cow;

use jiff::{SignedDuration, Timestamp};

use super::*;

/// The finalizer asking the garbage collector to orphan an object's dependents.
pub(crate) const ORPHAN: &str = "orphan";
/// The finalizer asking the garbage collector to delete an object's dependents first.
pub(crate) const FOREGROUND: &str = "foregroundDeletion";

/// The warning a DELETE of a batch/v1 Job (or of their collection) gets when it names no
/// policy: its Pods are orphaned by default.
const JOB_ORPHANS_PODS: &str = "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning";

/// What a kind's strategy says should happen to an object's dependents when a DELETE names no
/// policy (`DefaultGarbageCollectionPolicy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GcPolicy {
    /// Background deletion: nothing to set.
    DeleteDependents,
    /// The `orphan` finalizer.
    OrphanDependents,
    /// Never collected: the propagation finalizers are never set (and are taken off).
    Unsupported,
}

/// What a DELETE did to one object.
pub(super) enum Deletion {
    /// Removed; its last state (shared with what watchers were sent, when it is shown at its
    /// storage version).
    Gone(Arc<Value>),
    /// Marked for deletion and held by finalizers or a grace period; its state now.
    Terminating(Value),
}

/// `rest.BeforeDelete`'s verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Grace {
    /// Not a graceful deletion: removed now, or marked if finalizers hold it.
    No,
    /// Written with its (new) deletionTimestamp and grace period first.
    Graceful,
    /// Already deleting gracefully and not hastened: nothing changes.
    Pending,
}

impl State {
    /// DELETE of one object: the `Status` the apiserver answers when the object is gone (a
    /// Pod answers itself), or the object while finalizers or its grace period hold it; and
    /// the code (202 when `orphanDependents: false` could not delete it at once).
    pub(crate) fn delete(
        &mut self,
        t: &Target,
        options: &Value,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
    ) -> Result<(u16, Value), ApiError> {
        if self.is_namespace(t) {
            return Ok((200, self.delete_namespace_request(t, options, w, warnings)?));
        }
        self.warn_of_orphaned_pods(t, options, warnings);
        match self.delete_object(t, options, w, warnings)? {
            Deletion::Gone(last) => Ok((200, self.deleted_answer(t, last))),
            Deletion::Terminating(object) => {
                let code = match options["orphanDependents"] {
                    Value::Bool(false) => 202,
                    _ => 200,
                };
                Ok((code, object))
            }
        }
    }

    /// What a DELETE answers for an object it removed: the object for kinds whose store
    /// returns it (Pods), otherwise a `Status` naming it (`finalizeDelete`).
    fn deleted_answer(&self, t: &Target, last: Arc<Value>) -> Value {
        let e = self.entry(t);
        if self.is_graceful(t) {
            return Arc::unwrap_or_clone(last);
        }
        let mut details = json!({
            "name": meta_str(&last, "name").unwrap_or(""),
            "group": e.group,
            "kind": e.plural,
            "uid": meta_str(&last, "uid").unwrap_or(""),
        });
        if e.group.is_empty() {
            details.as_object_mut().map(|d| d.remove("group"));
        }
        json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Success",
            "details": details,
        })
    }

    /// The Job store's warning when a DELETE leaves the policy to the default, which orphans
    /// the Job's Pods.
    fn warn_of_orphaned_pods(&self, t: &Target, options: &Value, warnings: &mut Vec<String>) {
        let unset = |key: &str| options.get(key).is_none_or(Value::is_null);
        let e = self.entry(t);
        if e.builtin.is_some()
            && (e.group, e.kind) == ("batch", "Job")
            && unset("propagationPolicy")
            && unset("orphanDependents")
            && self.default_policy(t) == GcPolicy::OrphanDependents
        {
            warnings.push(JOB_ORPHANS_PODS.to_owned());
        }
    }

    /// The kind's `DefaultGarbageCollectionPolicy` for a request at `t`'s version: the
    /// workload kinds of old API versions orphan for compatibility, as do core/v1
    /// ReplicationControllers and batch/v1 Jobs; Events are never collected.
    fn default_policy(&self, t: &Target) -> GcPolicy {
        let e = self.entry(t);
        if e.builtin.is_none() {
            return GcPolicy::DeleteDependents;
        }
        let version = t.version.as_str();
        match (e.group, e.kind, version) {
            (_, "Event", _) if matches!(e.group, "" | "events.k8s.io") => GcPolicy::Unsupported,
            ("", "ReplicationController", "v1") | ("batch", "Job", "v1") => {
                GcPolicy::OrphanDependents
            }
            (
                "apps" | "extensions",
                "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet",
                v,
            ) if v != "v1" => GcPolicy::OrphanDependents,
            ("batch", "CronJob", "v1beta1" | "v2alpha1") => GcPolicy::OrphanDependents,
            _ => GcPolicy::DeleteDependents,
        }
    }

    /// Whether the kind deletes gracefully (its strategy's `CheckGracefulDelete`): Pods.
    fn is_graceful(&self, t: &Target) -> bool {
        let e = self.entry(t);
        e.builtin.is_some() && (e.group, e.kind) == ("", "Pod")
    }

    pub(super) fn delete_object(
        &mut self,
        t: &Target,
        options: &Value,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Deletion, ApiError> {
        let (name, key, existing) = self.stored(t)?;
        self.check_delete_preconditions(t, &name, &existing, options)?;
        let mut grace = options["gracePeriodSeconds"].as_i64();
        // Copied only when the deletion changes it: most do not.
        let mut object = Cow::Borrowed(&*existing);
        let verdict = self.before_delete(t, &mut object, &mut grace);
        if verdict == Grace::Pending {
            // Finalizers cannot be changed by a DELETE while a graceful one is pending.
            return Ok(Deletion::Terminating(self.present(t, &existing)?));
        }
        let old_object = self.present_stored(t, &existing)?;
        let review = admission::Review::delete(&old_object, w, options);
        self.validating_admission(t, &review, warnings)?;
        if self.is_namespace(t)
            && let Some(namespace) = self.delete_namespace(t, &key, &existing, w)?
        {
            return Ok(Deletion::Terminating(namespace));
        }
        let finalizers = finalizers_of(&object);
        let gc_finalizers = self.gc_finalizers(t, &finalizers, options);
        let mut deleted = None;
        if verdict == Grace::Graceful || !finalizers.is_empty() || gc_finalizers.is_some() {
            if let Some(list) = gc_finalizers {
                object.to_mut()["metadata"]["finalizers"] = json!(list);
            }
            let held = !finalizers_of(&object).is_empty();
            if verdict == Grace::No && held {
                mark_as_deleting(object.to_mut(), self.clock.now());
            }
            if verdict == Grace::Graceful || held {
                if w.dry_run {
                    let answer = self.present(t, &object)?;
                    let now = verdict == Grace::Graceful && !held && grace == Some(0);
                    return Ok(match now {
                        true => Deletion::Gone(Arc::new(answer)),
                        false => Deletion::Terminating(answer),
                    });
                }
                // The storage writes nothing when nothing changed.
                let stored = self.objects.get(&key).cloned();
                let stored = match (*object == *existing, stored) {
                    (true, Some(stored)) => stored,
                    (_, stored) => self.commit(key.clone(), object.into_owned(), stored),
                };
                if held || grace.unwrap_or(0) > 0 {
                    return Ok(Deletion::Terminating(self.present(t, &stored)?));
                }
                deleted = Some(stored);
            }
        }
        if w.dry_run {
            let last = deleted.as_deref().unwrap_or(&existing);
            return Ok(Deletion::Gone(Arc::new(self.present(t, last)?)));
        }
        let removed = match self.remove(key) {
            Some(removed) => removed,
            None => deleted.unwrap_or(existing),
        };
        if self.is_service(t) {
            self.services.release(&removed);
        }
        Ok(Deletion::Gone(self.present_stored(t, &removed)?))
    }

    /// The preconditions of a DELETE, checked before anything else (`rest.BeforeDelete`).
    fn check_delete_preconditions(
        &self,
        t: &Target,
        name: &str,
        existing: &Value,
        options: &Value,
    ) -> Result<(), ApiError> {
        let e = self.entry(t);
        let conflict = |why: String| ApiError::conflict(e.group, e.kind, name, &why);
        let current_uid = meta_str(existing, "uid").unwrap_or("");
        if let Some(uid) = options["preconditions"]["uid"].as_str()
            && current_uid != uid
        {
            return Err(conflict(format!(
                "the UID in the precondition ({uid}) does not match the UID in record ({current_uid}). \
                 The object might have been deleted and then recreated"
            )));
        }
        let current_rv = meta_str(existing, "resourceVersion").unwrap_or("");
        if let Some(rv) = options["preconditions"]["resourceVersion"].as_str()
            && current_rv != rv
        {
            return Err(conflict(format!(
                "the ResourceVersion in the precondition ({rv}) does not match the ResourceVersion in record ({current_rv}). \
                 The object might have been modified"
            )));
        }
        Ok(())
    }

    /// `rest.BeforeDelete` past its preconditions: a negative grace period counts as one
    /// second; a Pod is deleted gracefully (`grace` becomes its period), and one already
    /// deleting may only have its grace period shortened.
    fn before_delete(
        &self,
        t: &Target,
        object: &mut Cow<'_, Value>,
        grace: &mut Option<i64>,
    ) -> Grace {
        if grace.is_some_and(|g| g < 0) {
            *grace = Some(1);
        }
        if object["metadata"]["deletionGracePeriodSeconds"]
            .as_i64()
            .is_some_and(|g| g < 0)
        {
            object.to_mut()["metadata"]["deletionGracePeriodSeconds"] = json!(1);
        }
        if !self.is_graceful(t) {
            return Grace::No;
        }
        let object = object.to_mut();
        let meta = &mut object["metadata"];
        let now = self.clock.now();
        if let Some(since) = meta["deletionTimestamp"].as_str() {
            let stored = match meta["deletionGracePeriodSeconds"].as_i64() {
                None | Some(0) => return Grace::No,
                Some(stored) => stored,
            };
            let Some(mut period) = *grace else {
                *grace = Some(stored);
                return Grace::Pending;
            };
            if period >= stored {
                return Grace::Pending;
            }
            let mut due = since
                .parse::<Timestamp>()
                .unwrap_or(now)
                .saturating_add(SignedDuration::from_secs(period - stored))
                .unwrap_or(now);
            // Shortening never moves the deletion into the past; a graceful one left with
            // no time gets a second, for whoever finishes it.
            if due < now {
                due = now;
                if period != 0 {
                    period = 1;
                }
            }
            meta["deletionTimestamp"] = json!(rfc3339(due));
            meta["deletionGracePeriodSeconds"] = json!(period);
            *grace = Some(period);
            return Grace::Graceful;
        }
        // The Pod strategy's grace period: the request's, else the Pod's own; none for a
        // Pod that never ran on a node or has finished.
        let mut period = grace.unwrap_or_else(|| {
            object["spec"]["terminationGracePeriodSeconds"]
                .as_i64()
                .unwrap_or(0)
        });
        let scheduled = object["spec"]["nodeName"]
            .as_str()
            .is_some_and(|n| !n.is_empty());
        let finished = matches!(
            object["status"]["phase"].as_str(),
            Some("Succeeded" | "Failed")
        );
        if !scheduled || finished {
            period = 0;
        }
        if period < 0 {
            period = 1;
        }
        *grace = Some(period);
        let due = now
            .saturating_add(SignedDuration::from_secs(period))
            .unwrap_or(now);
        let meta = &mut object["metadata"];
        meta["deletionTimestamp"] = json!(rfc3339(due));
        meta["deletionGracePeriodSeconds"] = json!(period);
        bump_generation(meta);
        Grace::Graceful
    }

    /// `deletionFinalizersForGarbageCollection`: the finalizers the object should have for the
    /// garbage collector — `orphan` or `foregroundDeletion` as the options ask, else as the
    /// object already asks, else as the kind's default says — or `None` when the set it has
    /// is already that.
    fn gc_finalizers(
        &self,
        t: &Target,
        current: &[String],
        options: &Value,
    ) -> Option<Vec<String>> {
        let policy = self.default_policy(t);
        let orphan_dependents = options["orphanDependents"].as_bool();
        let propagation = options["propagationPolicy"].as_str();
        let first_of_both = current
            .iter()
            .find(|f| *f == ORPHAN || *f == FOREGROUND)
            .map(String::as_str);
        let orphan = match (policy, orphan_dependents, propagation) {
            (GcPolicy::Unsupported, ..) => false,
            (_, Some(orphan), _) => orphan,
            (_, None, Some("Orphan")) => true,
            (_, None, Some("Background" | "Foreground")) => false,
            _ => match first_of_both {
                Some(f) => f == ORPHAN,
                None => policy == GcPolicy::OrphanDependents,
            },
        };
        let foreground = match (policy, orphan_dependents, propagation) {
            (GcPolicy::Unsupported, ..) | (_, Some(_), _) => false,
            (_, None, Some("Foreground")) => true,
            (_, None, Some("Background" | "Orphan")) => false,
            _ => first_of_both == Some(FOREGROUND),
        };
        let mut wanted: Vec<String> = current
            .iter()
            .filter(|f| *f != ORPHAN && *f != FOREGROUND)
            .cloned()
            .collect();
        if orphan {
            wanted.push(ORPHAN.to_owned());
        }
        if foreground {
            wanted.push(FOREGROUND.to_owned());
        }
        let set = |list: &[String]| {
            list.iter()
                .cloned()
                .collect::<std::collections::BTreeSet<_>>()
        };
        (set(&wanted) != set(current)).then_some(wanted)
    }

    pub(crate) fn delete_collection(
        &mut self,
        t: &Target,
        o: &ListOptions,
        options: &Value,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Value, ApiError> {
        self.warn_of_orphaned_pods(t, options, warnings);
        // The store lists first (one page when the request has a limit, else all of them)
        // and answers that list, then deletes each item with its own copy of the options.
        let list = self.list(t, o)?;
        let names: Vec<(String, String)> = list["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|item| {
                let text = |k: &str| meta_str(item, k).unwrap_or("").to_owned();
                (text("namespace"), text("name"))
            })
            .collect();
        for (ns, name) in names {
            let target = Target {
                name: Some(name),
                namespace: (!ns.is_empty()).then_some(ns),
                ..t.clone()
            };
            match self.delete_object(&target, options, w, warnings) {
                Ok(_) => {}
                Err(e) if e.code == 404 => {}
                Err(e) => return Err(e),
            }
        }
        Ok(list)
    }
}

/// `markAsDeleting`: an object held by finalizers is marked deleting now (an earlier mark
/// stays) with no grace period; the first mark bumps its generation.
fn mark_as_deleting(object: &mut Value, now: Timestamp) {
    let meta = &mut object["metadata"];
    let earlier = meta["deletionTimestamp"]
        .as_str()
        .and_then(|t| t.parse::<Timestamp>().ok());
    if meta["deletionTimestamp"].is_null() {
        bump_generation(meta);
    }
    if earlier.is_none_or(|t| t > now) {
        meta["deletionTimestamp"] = json!(rfc3339(now));
    }
    meta["deletionGracePeriodSeconds"] = json!(0);
}

/// The first mark for deletion changes the object: its generation goes up, if it has one.
fn bump_generation(meta: &mut Value) {
    if let Some(generation) = meta["generation"].as_i64().filter(|g| *g > 0) {
        meta["generation"] = json!(generation + 1);
    }
}

fn finalizers_of(object: &Value) -> Vec<String> {
    object["metadata"]["finalizers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect()
}

/// A time as `metav1.Time` is written: UTC, whole seconds.
fn rfc3339(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}
