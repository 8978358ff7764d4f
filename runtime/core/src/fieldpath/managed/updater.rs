//! structured-merge-diff's updater: which fields an Update takes from whom, and the apply
//! merge with its conflicts and the removal of fields a manager stopped applying.

use std::collections::BTreeMap;

use serde_json::Value;

use super::conflict::{Conflict, Conflicts};
use super::entries::VersionedSet;
use crate::fieldpath::Set;
use crate::fieldpath::schema::KindTypes;
use crate::fieldpath::typed::{Comparison, Duplicates};
use crate::fieldpath::value;

/// Managers' field sets by identifier.
pub(super) type Managers = BTreeMap<String, VersionedSet>;

/// Why an Update or Apply could not be tracked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrackError {
    /// The apply changes fields other managers own (and was not forced).
    #[error(transparent)]
    Conflicts(#[from] Conflicts),
    /// An object does not fit its schema, or another internal failure, in the apiserver's
    /// words.
    #[error("{0}")]
    Failed(String),
}

/// Converts an object of the kind to another of its apiVersions (`group/version`), as the
/// apiserver's version converter does: for a CRD, through the storage version, each step a
/// conversion-webhook call (or a relabelling, for the `None` strategy). The object may be
/// partial (see [`crate::convert::convert`]).
pub type Convert<'a> = dyn Fn(&Value, &str) -> Result<Value, String> + 'a;

/// The `None` conversion strategy: the same object under the other apiVersion.
pub fn relabel(object: &Value, api_version: &str) -> Result<Value, String> {
    let mut relabelled = object.clone();
    if let Value::Object(fields) = &mut relabelled {
        fields.insert("apiVersion".into(), Value::String(api_version.to_owned()));
    }
    Ok(relabelled)
}

/// Tracks ownership across the versions of one kind.
pub struct Updater<'a> {
    /// The schema of each apiVersion of the kind; `None` for versions that do not exist
    /// (their managers are dropped).
    pub schemas: &'a dyn Fn(&str) -> Option<&'a KindTypes>,
    /// Converts objects between the kind's versions.
    pub convert: &'a Convert<'a>,
    /// Fields never tracked, per apiVersion: what the endpoint resets (status on the main
    /// resource, everything but status on the status subresource).
    pub ignored: &'a BTreeMap<String, Set>,
}

/// An object at one version, with that version's schema.
struct Typed<'a> {
    value: Value,
    schema: &'a KindTypes,
}

impl<'a> Updater<'a> {
    fn schema(&self, version: &str) -> Result<&'a KindTypes, TrackError> {
        (self.schemas)(version)
            .ok_or_else(|| TrackError::Failed(format!("no schema for version {version}")))
    }

    /// structured-merge-diff's `Converter.Convert`: `object` at version `to`, typed by `to`'s
    /// schema (the object itself when it is at `to` already); `Ok(None)` when `to` does not
    /// exist (its `IsMissingVersionError`).
    fn convert(&self, object: &Value, to: &str) -> Result<Option<Typed<'a>>, String> {
        let Some(schema) = (self.schemas)(to) else {
            return Ok(None);
        };
        if object["apiVersion"].as_str() == Some(to) {
            return Ok(Some(Typed {
                value: object.clone(),
                schema,
            }));
        }
        let value = (self.convert)(object, to)?;
        schema
            .validate(&value, Duplicates::Reject)
            .map_err(|e| e.to_string())?;
        Ok(Some(Typed { value, schema }))
    }

    fn filter(&self, version: &str, mut set: Set) -> Set {
        if let Some(ignored) = self.ignored.get(version) {
            set.remove_recursive(ignored);
        }
        set
    }

    /// Sets collapsed where the schema made containers atomic; managers of versions that no
    /// longer exist dropped (`reconcileManagedFieldsWithSchemaChanges`).
    fn reconcile(&self, live: &Value, managers: Managers) -> Result<Managers, TrackError> {
        let mut out = Managers::new();
        for (manager, vs) in managers {
            // Only the schema is needed: `live` is converted only to check that it converts.
            let schema = match live["apiVersion"].as_str() == Some(&vs.api_version) {
                true => (self.schemas)(&vs.api_version),
                false => self
                    .convert(live, &vs.api_version)
                    .map_err(TrackError::Failed)?
                    .map(|typed| typed.schema),
            };
            let Some(schema) = schema else {
                continue;
            };
            let set = schema.reconcile_field_set(&vs.set).unwrap_or(vs.set);
            out.insert(manager, VersionedSet { set, ..vs });
        }
        Ok(out)
    }

    /// Compares old and new for every manager but `workflow`, at the manager's version: fields
    /// it owns that changed are conflicts (taken from it when `force`), fields removed leave
    /// its set.
    fn update_managers(
        &self,
        old: &Value,
        new: &Value,
        version: &str,
        managers: &mut Managers,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, TrackError> {
        let compare = compare_at(self.schema(version)?, old, new)?;
        let compare = self.filtered(version, compare);
        // Comparisons at the other versions managers hold their fields in.
        let mut versions: BTreeMap<String, Comparison> = BTreeMap::new();
        let mut conflicts: Vec<(String, Set)> = Vec::new();
        let mut removed: Vec<(String, Set)> = Vec::new();
        let mut missing = Vec::new();
        for (manager, vs) in managers.iter() {
            if manager == workflow {
                continue;
            }
            if vs.api_version != version && !versions.contains_key(&vs.api_version) {
                let failed = |which: &str, e: String| {
                    TrackError::Failed(format!("failed to convert {which} object: {e}"))
                };
                let Some(old) = self
                    .convert(old, &vs.api_version)
                    .map_err(|e| failed("old", e))?
                else {
                    missing.push(manager.clone());
                    continue;
                };
                let Some(new) = self
                    .convert(new, &vs.api_version)
                    .map_err(|e| failed("new", e))?
                else {
                    missing.push(manager.clone());
                    continue;
                };
                let c = compare_at(old.schema, &old.value, &new.value)?;
                versions.insert(vs.api_version.clone(), self.filtered(&vs.api_version, c));
            }
            let c = versions.get(&vs.api_version).unwrap_or(&compare);
            let conflict = vs.set.intersection(&c.modified.union(&c.added));
            if !conflict.is_empty() {
                conflicts.push((manager.clone(), conflict));
            }
            if !c.removed.is_empty() {
                removed.push((manager.clone(), c.removed.clone()));
            }
        }
        for manager in missing {
            managers.remove(&manager);
        }
        if !force && !conflicts.is_empty() {
            let list = conflicts
                .iter()
                .flat_map(|(manager, set)| {
                    set.paths().into_iter().map(|path| Conflict {
                        manager: manager.clone(),
                        path,
                    })
                })
                .collect();
            return Err(TrackError::Conflicts(Conflicts(list)));
        }
        for (manager, set) in conflicts.iter().chain(&removed) {
            if let Some(vs) = managers.get_mut(manager) {
                vs.set.remove_all(set);
            }
        }
        managers.retain(|_, vs| !vs.set.is_empty());
        Ok(compare)
    }

    fn filtered(&self, version: &str, c: Comparison) -> Comparison {
        match self.ignored.get(version) {
            Some(ignored) => c.excluding(ignored),
            None => c,
        }
    }

    /// An Update from `live` to `new` by `manager`: it takes every field it added or changed
    /// (from whoever owned it), and nobody keeps fields that were removed.
    pub fn update(
        &self,
        live: &Value,
        new: &Value,
        version: &str,
        managers: Managers,
        manager: &str,
    ) -> Result<Managers, TrackError> {
        let mut managers = self.reconcile(live, managers)?;
        let compare = self.update_managers(live, new, version, &mut managers, manager, true)?;
        let previous = managers
            .remove(manager)
            .map(|vs| vs.set)
            .unwrap_or_default();
        let mut set = previous;
        set.remove_all(&compare.removed);
        set.insert_all(&compare.modified);
        set.insert_all(&compare.added);
        let set = self.filter(version, set);
        if !set.is_empty() {
            managers.insert(
                manager.to_owned(),
                VersionedSet {
                    set,
                    api_version: version.to_owned(),
                    applied: false,
                },
            );
        }
        Ok(managers)
    }

    /// Applies `config` to `live` as `manager`: the merged object (`None` when it equals
    /// `live`) and the new managers, or the conflicts.
    pub fn apply(
        &self,
        live: &Value,
        config: &Value,
        version: &str,
        managers: Managers,
        manager: &str,
        force: bool,
    ) -> Result<(Option<Value>, Managers), TrackError> {
        let schema = self.schema(version)?;
        let mut managers = self.reconcile(live, managers)?;
        let merged = schema
            .merge(live, config)
            .map_err(|e| TrackError::Failed(format!("failed to merge config: {e}")))?;
        let last = managers.get(manager).cloned();
        let set = schema
            .to_field_set(config)
            .map_err(|e| TrackError::Failed(format!("failed to get field set: {e}")))?;
        managers.insert(
            manager.to_owned(),
            VersionedSet {
                set: self.filter(version, set),
                api_version: version.to_owned(),
                applied: true,
            },
        );
        let merged = self
            .prune(merged, &managers, manager, last.as_ref())
            .map_err(|e| TrackError::Failed(format!("failed to prune fields: {e}")))?;
        self.update_managers(live, &merged, version, &mut managers, manager, force)?;
        let changed = !value::equals(live, &merged);
        Ok((changed.then_some(merged), managers))
    }

    /// Removes from `merged` what the applying manager applied last time (`last`), no longer
    /// applies, and nobody else owns: at the version it applied it in, putting back what any
    /// manager owns at any version; then converts the result back to the applier's version.
    fn prune(
        &self,
        merged: Value,
        managers: &Managers,
        applier: &str,
        last: Option<&VersionedSet>,
    ) -> Result<Value, String> {
        let Some(last) = last.filter(|l| !l.set.is_empty()) else {
            return Ok(merged);
        };
        let Some(at_last) = self
            .convert(&merged, &last.api_version)
            .map_err(|e| format!("failed to convert merged object to last applied version: {e}"))?
        else {
            return Ok(merged);
        };
        let sc = at_last.schema;
        let pruned = sc.remove_items(
            &at_last.value,
            &sc.ensure_named_fields_are_members(&last.set),
        );
        let pruned = self
            .add_back_owned(&at_last, pruned, &last.api_version, managers)
            .map_err(|e| format!("failed add back owned items: {e}"))?;
        let pruned = self
            .add_back_dangling(&at_last, &pruned, last)
            .map_err(|e| format!("failed add back dangling items: {e}"))?;
        let version = managers
            .get(applier)
            .map_or(last.api_version.as_str(), |vs| vs.api_version.as_str());
        match self.convert(&pruned, version)? {
            Some(typed) => Ok(typed.value),
            None => Err(format!("no schema for version {version}")),
        }
    }

    /// Puts back into `pruned` what some manager owns, version by version (the pruned
    /// version's managers first, so that the fields a conversion needs are there).
    fn add_back_owned(
        &self,
        merged: &Typed<'a>,
        pruned: Value,
        pruned_version: &str,
        managers: &Managers,
    ) -> Result<Value, String> {
        let mut by_version: BTreeMap<&str, Set> = BTreeMap::new();
        for vs in managers.values() {
            let entry = by_version.entry(vs.api_version.as_str()).or_default();
            entry.insert_all(&vs.set);
        }
        let first = by_version.remove_entry(pruned_version);
        let mut merged = Typed {
            value: merged.value.clone(),
            schema: merged.schema,
        };
        let mut pruned = pruned;
        for (version, owned) in first.into_iter().chain(by_version) {
            let Some(at_version) = self.convert(&merged.value, version).map_err(|e| {
                format!("failed to convert merged object at version {version}: {e}")
            })?
            else {
                continue;
            };
            let Some(pruned_at_version) = self.convert(&pruned, version).map_err(|e| {
                format!("failed to convert pruned object at version {version}: {e}")
            })?
            else {
                continue;
            };
            merged = at_version;
            let sc = merged.schema;
            let merged_set = field_set(sc, &merged.value).map_err(|e| {
                format!("failed to create field set from merged object at version {version}: {e}")
            })?;
            let pruned_set = field_set(sc, &pruned_at_version.value).map_err(|e| {
                format!("failed to create field set from pruned object at version {version}: {e}")
            })?;
            let keep = sc
                .ensure_named_fields_are_members(&pruned_set)
                .union(&sc.ensure_named_fields_are_members(&owned));
            let drop = sc
                .ensure_named_fields_are_members(&merged_set)
                .difference(&keep);
            pruned = sc.remove_items(&merged.value, &drop);
        }
        Ok(pruned)
    }

    /// `merged` without the fields the last applied set named that pruning removed and
    /// nobody added back.
    fn add_back_dangling(
        &self,
        merged: &Typed<'a>,
        pruned: &Value,
        last: &VersionedSet,
    ) -> Result<Value, String> {
        let Some(pruned) = self
            .convert(pruned, &last.api_version)
            .map_err(|e| format!("failed to convert pruned object to last applied version: {e}"))?
        else {
            return Ok(merged.value.clone());
        };
        let sc = merged.schema;
        let pruned_set = field_set(sc, &pruned.value).map_err(|e| {
            format!("failed to create field set from pruned object in last applied version: {e}")
        })?;
        let merged_set = field_set(sc, &merged.value).map_err(|e| {
            format!("failed to create field set from merged object in last applied version: {e}")
        })?;
        let pruned_set = sc.ensure_named_fields_are_members(&pruned_set);
        let merged_set = sc.ensure_named_fields_are_members(&merged_set);
        let last_set = sc.ensure_named_fields_are_members(&last.set);
        Ok(sc.remove_items(
            &merged.value,
            &merged_set.difference(&pruned_set).intersection(&last_set),
        ))
    }
}

fn compare_at(schema: &KindTypes, old: &Value, new: &Value) -> Result<Comparison, TrackError> {
    schema
        .compare(old, new)
        .map_err(|e| TrackError::Failed(format!("failed to compare objects: {e}")))
}

fn field_set(schema: &KindTypes, value: &Value) -> Result<Set, String> {
    schema.to_field_set(value).map_err(|e| e.to_string())
}
