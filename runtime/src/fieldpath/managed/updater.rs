//! structured-merge-diff's updater: which fields an Update takes from whom, and the apply
//! merge with its conflicts and the removal of fields a manager stopped applying.

use std::collections::BTreeMap;

use serde_json::Value;

use super::conflict::{Conflict, Conflicts};
use super::entries::VersionedSet;
use crate::fieldpath::Set;
use crate::fieldpath::schema::Schema;
use crate::fieldpath::typed::{Comparison, Duplicates};
use crate::fieldpath::value;

/// Managers' field sets by identifier.
pub type Managers = BTreeMap<String, VersionedSet>;

/// Why an Update or Apply could not be tracked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UpdateError {
    /// The apply changes fields other managers own (and was not forced).
    #[error(transparent)]
    Conflicts(#[from] Conflicts),
    /// An object does not fit its schema, or another internal failure, in the apiserver's
    /// words.
    #[error("{0}")]
    Failed(String),
}

/// Tracks ownership across the versions of one kind.
pub struct Updater<'a> {
    /// The schema of each apiVersion of the kind; `None` for versions that do not exist
    /// (their managers are dropped).
    pub schemas: &'a dyn Fn(&str) -> Option<&'a Schema>,
    /// Fields never tracked, per apiVersion: what the endpoint resets (status on the main
    /// resource, everything but status on the status subresource).
    pub ignored: &'a BTreeMap<String, Set>,
}

impl<'a> Updater<'a> {
    fn schema(&self, version: &str) -> Result<&'a Schema, UpdateError> {
        (self.schemas)(version)
            .ok_or_else(|| UpdateError::Failed(format!("no schema for version {version}")))
    }

    /// `object` (at `from`) seen at `to`: the same value typed by `to`'s schema; `None` when
    /// `to` does not exist.
    fn convert(
        &self,
        object: &Value,
        from: &str,
        to: &str,
    ) -> Result<Option<&'a Schema>, UpdateError> {
        let Some(schema) = (self.schemas)(to) else {
            return Ok(None);
        };
        if from != to {
            schema
                .validate(object, Duplicates::Reject)
                .map_err(|e| UpdateError::Failed(e.to_string()))?;
        }
        Ok(Some(schema))
    }

    fn filter(&self, version: &str, set: Set) -> Set {
        match self.ignored.get(version) {
            Some(ignored) => set.recursive_difference(ignored),
            None => set,
        }
    }

    /// Sets collapsed where the schema made containers atomic; managers of versions that no
    /// longer exist dropped.
    fn reconcile(
        &self,
        live: &Value,
        version: &str,
        managers: &Managers,
    ) -> Result<Managers, UpdateError> {
        let mut out = Managers::new();
        for (manager, vs) in managers {
            let Some(schema) = self.convert(live, version, &vs.api_version)? else {
                continue;
            };
            let set = schema
                .reconcile_field_set(&vs.set)
                .unwrap_or_else(|| vs.set.clone());
            out.insert(manager.clone(), VersionedSet { set, ..vs.clone() });
        }
        Ok(out)
    }

    /// Compares old and new for every manager but `workflow`: fields it owns that changed are
    /// conflicts (taken from it when `force`), fields removed leave its set.
    fn update_managers(
        &self,
        old: &Value,
        new: &Value,
        version: &str,
        managers: &mut Managers,
        workflow: &str,
        force: bool,
    ) -> Result<Comparison, UpdateError> {
        let compare = self
            .schema(version)?
            .compare(old, new)
            .map_err(|e| UpdateError::Failed(format!("failed to compare objects: {e}")))?;
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
                let (Some(old_schema), Some(_)) = (
                    self.convert(old, version, &vs.api_version)?,
                    self.convert(new, version, &vs.api_version)?,
                ) else {
                    missing.push(manager.clone());
                    continue;
                };
                let c = old_schema
                    .compare(old, new)
                    .map_err(|e| UpdateError::Failed(format!("failed to compare objects: {e}")))?;
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
            return Err(UpdateError::Conflicts(Conflicts(list)));
        }
        for (manager, set) in conflicts.iter().chain(&removed) {
            if let Some(vs) = managers.get_mut(manager) {
                vs.set = vs.set.difference(set);
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
        managers: &Managers,
        manager: &str,
    ) -> Result<Managers, UpdateError> {
        let mut managers = self.reconcile(live, version, managers)?;
        let compare = self.update_managers(live, new, version, &mut managers, manager, true)?;
        let previous = managers
            .remove(manager)
            .map(|vs| vs.set)
            .unwrap_or_default();
        let set = previous
            .difference(&compare.removed)
            .union(&compare.modified)
            .union(&compare.added);
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
        managers: &Managers,
        manager: &str,
        force: bool,
    ) -> Result<(Option<Value>, Managers), UpdateError> {
        let schema = self.schema(version)?;
        let mut managers = self.reconcile(live, version, managers)?;
        let merged = schema
            .merge(live, config)
            .map_err(|e| UpdateError::Failed(format!("failed to merge config: {e}")))?;
        let last = managers.get(manager).cloned();
        let set = schema
            .to_field_set(config)
            .map_err(|e| UpdateError::Failed(format!("failed to get field set: {e}")))?;
        managers.insert(
            manager.to_owned(),
            VersionedSet {
                set: self.filter(version, set),
                api_version: version.to_owned(),
                applied: true,
            },
        );
        let merged = self.prune(merged, version, &managers, last.as_ref())?;
        self.update_managers(live, &merged, version, &mut managers, manager, force)?;
        let changed = !value::equals(live, &merged);
        Ok((changed.then_some(merged), managers))
    }

    /// Removes from `merged` what the applying manager applied last time (`last`), no longer
    /// applies, and nobody else owns.
    fn prune(
        &self,
        merged: Value,
        version: &str,
        managers: &Managers,
        last: Option<&VersionedSet>,
    ) -> Result<Value, UpdateError> {
        let Some(last) = last.filter(|l| !l.set.is_empty()) else {
            return Ok(merged);
        };
        let Some(sc) = self.convert(&merged, version, &last.api_version)? else {
            return Ok(merged);
        };
        let pruned = sc.remove_items(&merged, &sc.ensure_named_fields_are_members(&last.set));
        let pruned = self.add_back_owned(&merged, pruned, &last.api_version, managers)?;
        let pruned = self.add_back_dangling(sc, &merged, &pruned, last)?;
        Ok(pruned)
    }

    /// Puts back into `pruned` what some manager owns, version by version (the pruned
    /// version's managers first).
    fn add_back_owned(
        &self,
        merged: &Value,
        mut pruned: Value,
        pruned_version: &str,
        managers: &Managers,
    ) -> Result<Value, UpdateError> {
        let mut by_version: BTreeMap<&str, Set> = BTreeMap::new();
        for vs in managers.values() {
            let entry = by_version.entry(vs.api_version.as_str()).or_default();
            *entry = entry.union(&vs.set);
        }
        let first = by_version.remove_entry(pruned_version);
        for (version, owned) in first.into_iter().chain(by_version) {
            let Some(sc) = self.convert(merged, pruned_version, version)? else {
                continue;
            };
            if self.convert(&pruned, pruned_version, version)?.is_none() {
                continue;
            }
            let merged_set = sc.ensure_named_fields_are_members(&field_set(sc, merged)?);
            let pruned_set = sc.ensure_named_fields_are_members(&field_set(sc, &pruned)?);
            let owned = sc.ensure_named_fields_are_members(&owned);
            pruned = sc.remove_items(merged, &merged_set.difference(&pruned_set.union(&owned)));
        }
        Ok(pruned)
    }

    /// `merged` without the fields the last applied set named that pruning removed and
    /// nobody added back.
    fn add_back_dangling(
        &self,
        sc: &Schema,
        merged: &Value,
        pruned: &Value,
        last: &VersionedSet,
    ) -> Result<Value, UpdateError> {
        if self
            .convert(pruned, &last.api_version, &last.api_version)?
            .is_none()
        {
            return Ok(merged.clone());
        }
        let pruned_set = sc.ensure_named_fields_are_members(&field_set(sc, pruned)?);
        let merged_set = sc.ensure_named_fields_are_members(&field_set(sc, merged)?);
        let last_set = sc.ensure_named_fields_are_members(&last.set);
        Ok(sc.remove_items(
            merged,
            &merged_set.difference(&pruned_set).intersection(&last_set),
        ))
    }
}

fn field_set(schema: &Schema, value: &Value) -> Result<Set, UpdateError> {
    schema
        .to_field_set(value)
        .map_err(|e| UpdateError::Failed(format!("failed to create field set: {e}")))
}
