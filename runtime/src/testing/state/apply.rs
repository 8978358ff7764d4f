//! Server-side apply and `managedFields`: who owns which fields, conflicts, force.

use super::*;

pub(super) struct Entry {
    manager: String,
    operation: String,
    subresource: Option<String>,
    api_version: String,
    fields: BTreeSet<FieldPath>,
}

impl State {
    /// Server-side apply: conflicts with other managers, removal of fields this manager
    /// stopped applying, then the merge.
    pub(super) fn apply(
        &self,
        t: &Target,
        existing: &Value,
        applied: &Value,
        manager: &str,
        force: bool,
    ) -> Result<Value, ApiError> {
        if manager.is_empty() {
            return Err(ApiError::bad_request(
                "PATCH with apply requires a fieldManager",
            ));
        }
        let status_only = t.subresource.as_deref() == Some("status");
        let applied = strip_for_apply(applied, status_only, self.version(t).status);
        let applied_fields = fields::leaves(&applied);
        let subresource = status_only.then_some("status");
        let mut entries = entries(existing);
        let mut causes = Vec::new();
        for entry in entries
            .iter()
            .filter(|e| e.manager != manager && e.subresource.as_deref() == subresource)
        {
            for path in &entry.fields {
                let conflict = applied_fields.iter().any(|a| {
                    fields::overlaps(a, path)
                        && fields::get(existing, a) != fields::get(&applied, a)
                });
                if conflict {
                    causes.push(json!({
                        "reason": "FieldManagerConflict",
                        "message": format!("conflict with \"{}\"", entry.manager),
                        "field": format!(".{}", path.join(".")),
                    }));
                }
            }
        }
        if !causes.is_empty() && !force {
            let e = self.entry(t);
            return Err(ApiError::apply_conflict(
                e.group,
                e.plural,
                meta_str(existing, "name").unwrap_or(""),
                causes,
            ));
        }
        if force {
            for entry in entries.iter_mut().filter(|e| e.manager != manager) {
                entry
                    .fields
                    .retain(|p| !applied_fields.iter().any(|a| fields::overlaps(a, p)));
            }
        }
        let mut result = existing.clone();
        if let Some(previous) = entries.iter().find(|e| {
            e.manager == manager
                && e.operation == "Apply"
                && e.subresource.as_deref() == subresource
        }) {
            for path in previous.fields.difference(&applied_fields) {
                let owned_by_other = entries
                    .iter()
                    .any(|e| e.manager != manager && e.fields.contains(path));
                if !owned_by_other {
                    fields::remove(&mut result, path);
                }
            }
        }
        write_entries(&mut result, &entries);
        fields::merge(&mut result, &applied);
        Ok(result)
    }
}

pub(super) fn entries(object: &Value) -> Vec<Entry> {
    object["metadata"]["managedFields"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|e| Entry {
                    manager: e["manager"].as_str().unwrap_or("").to_owned(),
                    operation: e["operation"].as_str().unwrap_or("Update").to_owned(),
                    subresource: e["subresource"].as_str().map(str::to_owned),
                    api_version: e["apiVersion"].as_str().unwrap_or("").to_owned(),
                    fields: fields::from_fields_v1(&e["fieldsV1"]),
                })
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn write_entries(object: &mut Value, entries: &[Entry]) {
    let list: Vec<Value> = entries
        .iter()
        .filter(|e| !e.fields.is_empty())
        .map(|e| {
            let mut v = json!({
                "manager": e.manager, "operation": e.operation, "apiVersion": e.api_version, "time": now(),
                "fieldsType": "FieldsV1", "fieldsV1": fields::to_fields_v1(&e.fields),
            });
            if let Some(s) = &e.subresource {
                v["subresource"] = json!(s);
            }
            v
        })
        .collect();
    if let Value::Object(m) = &mut object["metadata"] {
        if list.is_empty() {
            m.remove("managedFields");
        } else {
            m.insert("managedFields".into(), Value::Array(list));
        }
    }
}

pub(super) fn set_entry(
    object: &mut Value,
    manager: &str,
    operation: &str,
    subresource: Option<&str>,
    owned: &BTreeSet<FieldPath>,
    api_version: &str,
) {
    let mut list = entries(object);
    list.retain(|e| {
        !(e.manager == manager
            && e.operation == operation
            && e.subresource.as_deref() == subresource)
    });
    list.push(Entry {
        manager: manager.into(),
        operation: operation.into(),
        subresource: subresource.map(Into::into),
        api_version: api_version.into(),
        fields: owned.clone(),
    });
    write_entries(object, &list);
}

/// An Update by `manager`: it takes ownership of every field it changed.
pub(super) fn record_update(
    object: &mut Value,
    old: &Value,
    manager: &str,
    api_version: &str,
    subresource: Option<&str>,
) {
    let new_leaves = fields::leaves(object);
    let old_leaves = fields::leaves(old);
    let changed: BTreeSet<FieldPath> = new_leaves
        .iter()
        .filter(|p| fields::get(object, p) != fields::get(old, p))
        .cloned()
        .collect();
    let removed: BTreeSet<FieldPath> = old_leaves.difference(&new_leaves).cloned().collect();
    if changed.is_empty() && removed.is_empty() {
        return;
    }
    let mut list = entries(object);
    for e in list.iter_mut() {
        e.fields.retain(|p| {
            !changed
                .iter()
                .chain(&removed)
                .any(|c| fields::overlaps(c, p))
        });
    }
    match list.iter_mut().find(|e| {
        e.manager == manager && e.operation == "Update" && e.subresource.as_deref() == subresource
    }) {
        Some(e) => e.fields.extend(changed),
        None => list.push(Entry {
            manager: manager.into(),
            operation: "Update".into(),
            subresource: subresource.map(Into::into),
            api_version: api_version.into(),
            fields: changed,
        }),
    }
    write_entries(object, &list);
}
