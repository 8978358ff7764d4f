//! The scale subresource: an autoscaling/v1 Scale view of the object's replica paths.

use super::*;

impl State {
    pub(super) fn scale_of(&self, t: &Target, object: &Value) -> Result<Value, ApiError> {
        let scale = self
            .version(t)
            .scale
            .ok_or_else(|| ApiError::no_route("scale"))?;
        let spec = object
            .pointer(&pointer(scale.spec_replicas_path))
            .cloned()
            .unwrap_or(json!(0));
        let status = object
            .pointer(&pointer(scale.status_replicas_path))
            .cloned()
            .unwrap_or(json!(0));
        let mut s = json!({
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": {
                "name": meta(object)["name"], "namespace": meta(object)["namespace"], "uid": meta(object)["uid"],
                "resourceVersion": meta(object)["resourceVersion"], "creationTimestamp": meta(object)["creationTimestamp"],
            },
            "spec": {"replicas": spec},
            "status": {"replicas": status},
        });
        if let Some(path) = scale.label_selector_path
            && let Some(sel) = object.pointer(&pointer(path))
        {
            s["status"]["selector"] = sel.clone();
        }
        // A built-in workload's Scale shows its spec's selector as a selector string.
        if self.entry(t).builtin.is_some()
            && let Some(selector) = label_selector_string(&object["spec"]["selector"])
        {
            s["status"]["selector"] = json!(selector);
        }
        if s["metadata"]["namespace"].is_null()
            && let Value::Object(m) = &mut s["metadata"]
        {
            m.remove("namespace");
        }
        Ok(s)
    }

    pub(super) fn write_scale(
        &mut self,
        t: &Target,
        existing: Value,
        change: Change,
        w: &WriteOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Value, ApiError> {
        let scale_info = self
            .version(t)
            .scale
            .ok_or_else(|| ApiError::no_route("scale"))?;
        let mut live = self.scale_of(t, &existing)?;
        let managed = self.scale_managed_fields(t, &existing);
        if !managed.is_null() {
            live["metadata"]["managedFields"] = managed;
        }
        let (mut scale, applied) = match change {
            Change::Replace(body) => (body, false),
            // A Scale has no patch strategies: a strategic merge is a merge.
            Change::MergePatch(p, _) | Change::Strategic(p) => {
                let mut s = live.clone();
                crate::jsonpatch::merge(&mut s, &p);
                (s, false)
            }
            Change::JsonPatch(p, _) => {
                let mut s = live.clone();
                p.apply(&mut s)
                    .map_err(|_| ApiError::patch_not_applicable())?;
                (s, false)
            }
            Change::Apply(a, _) => {
                let applied = self.apply(t, &live, &a, w)?;
                // The apiserver cannot turn an applied Scale back into the resource: an apply
                // that changes the Scale fails after its conflicts were checked.
                if without_managed_fields(&applied) != without_managed_fields(&live) {
                    return Err(ApiError {
                        code: 500,
                        reason: "",
                        message: format!(
                            "failed to convert new object ({}/{}; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1",
                            meta_str(&a, "namespace").unwrap_or(""),
                            meta_str(&a, "name").unwrap_or(""),
                        ),
                        details: None,
                        retry_after: None,
                    });
                }
                (applied, true)
            }
        };
        if !applied {
            self.track_update(t, &live, &mut scale, w);
        }
        let managed = self.managed_fields_from_scale(t, &existing, &scale);
        let replicas = scale["spec"]["replicas"].clone();
        if !replicas.is_i64() {
            return Err(ApiError::bad_request("spec.replicas must be an integer"));
        }
        let mut object = existing;
        let path = pointer(scale_info.spec_replicas_path);
        set_pointer(&mut object, &path, replicas);
        if let Some(rv) = meta_str(&scale, "resourceVersion") {
            object["metadata"]["resourceVersion"] = json!(rv);
        }
        let main = Target {
            subresource: None,
            ..t.clone()
        };
        let (_, updated) =
            self.write_change(&main, Change::Replace(object), w, warnings, Some(managed))?;
        let stored = self
            .objects
            .get(&self.key(t, meta_str(&updated, "name").unwrap_or("")))
            .cloned()
            .unwrap_or(updated);
        self.scale_of(t, &self.present(t, &stored)?)
    }
}

fn without_managed_fields(object: &Value) -> Value {
    let mut o = object.clone();
    if let Value::Object(m) = &mut o["metadata"] {
        m.remove("managedFields");
    }
    o
}

pub(super) fn set_pointer(object: &mut Value, pointer: &str, value: Value) {
    let mut node = object;
    let parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        if !node.is_object() {
            *node = json!({});
        }
        if i == parts.len() - 1 {
            node[*part] = value;
            return;
        }
        node = &mut node[*part];
    }
}

pub(super) fn pointer(json_path: &str) -> String {
    json_path.replace('.', "/")
}

/// A `metav1.LabelSelector` as `LabelSelectorAsSelector(...).String()` writes it: its
/// requirements sorted by key, values sorted. `None` when it is not a selector.
fn label_selector_string(selector: &Value) -> Option<String> {
    let selector = selector.as_object()?;
    let mut terms = Vec::new();
    for (key, value) in selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        terms.push(format!("{key}={}", value.as_str()?));
    }
    for e in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = e["key"].as_str()?;
        let mut values: Vec<&str> = e["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        values.sort_unstable();
        terms.push(match e["operator"].as_str()? {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_owned(),
            "DoesNotExist" => format!("!{key}"),
            _ => return None,
        });
    }
    let parsed = kubegen_runtime::selector::LabelSelector::parse(&terms.join(",")).ok()?;
    Some(parsed.to_string())
}
