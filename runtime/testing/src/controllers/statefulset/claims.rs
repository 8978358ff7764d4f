//! A StatefulSet's PersistentVolumeClaims (`stateful_set_utils.go`, `stateful_pod_control.go`):
//! one per claim template and ordinal, and their owner references under
//! `persistentVolumeClaimRetentionPolicy` — the StatefulSet while it should delete them with
//! the set, the Pod once scaled down if they go with it. The garbage collector deletes them
//! through those references; the controller never does.

use serde_json::{Value, json};

use super::identity::{in_ordinal_range, ordinal};
use super::{API_VERSION, KIND};
use crate::controllers::api::{Api, PERSISTENT_VOLUME_CLAIMS};
use crate::controllers::ownership::controller_ref;
use crate::controllers::podutil::meta;

/// `getPersistentVolumeClaims`: per claim template (by its name), the claim of `ordinal`:
/// the template named `<template>-<set>-<ordinal>`, labelled with the selector's labels.
pub(super) fn claims_for(set: &Value, ordinal: i64) -> Vec<(String, Value)> {
    let templates = set["spec"]["volumeClaimTemplates"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    templates
        .into_iter()
        .map(|template| {
            let template_name = meta(&template, "name").to_owned();
            let mut claim = template;
            claim["metadata"]["name"] =
                json!(format!("{template_name}-{}-{ordinal}", meta(set, "name")));
            claim["metadata"]["namespace"] = json!(meta(set, "namespace"));
            let match_labels = &set["spec"]["selector"]["matchLabels"];
            match claim["metadata"]["labels"].as_object_mut() {
                Some(labels) => {
                    for (k, v) in match_labels.as_object().into_iter().flatten() {
                        labels.insert(k.clone(), v.clone());
                    }
                }
                None if match_labels.is_object() => {
                    claim["metadata"]["labels"] = match_labels.clone();
                }
                None => {}
            }
            claim["apiVersion"] = json!("v1");
            claim["kind"] = json!("PersistentVolumeClaim");
            (template_name, claim)
        })
        .collect()
}

/// `whenDeleted` / `whenScaled` is `Delete` (both `Retain` by default).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Policy {
    delete_with_set: bool,
    delete_when_scaled: bool,
}

fn policy(set: &Value) -> Policy {
    let p = &set["spec"]["persistentVolumeClaimRetentionPolicy"];
    Policy {
        delete_with_set: p["whenDeleted"] == "Delete",
        delete_when_scaled: p["whenScaled"] == "Delete",
    }
}

/// What an owner reference must match to be the set's or the Pod's: apiVersion, kind and
/// name (`matchesRef`).
#[derive(Clone, Copy)]
struct Owner<'a> {
    object: &'a Value,
    api_version: &'static str,
    kind: &'static str,
}

impl Owner<'_> {
    fn named_by(&self, reference: &Value) -> bool {
        reference["apiVersion"] == self.api_version
            && reference["kind"] == self.kind
            && reference["name"] == meta(self.object, "name")
    }

    fn uid(&self) -> &str {
        meta(self.object, "uid")
    }

    /// `hasOwnerRef`: a reference with the owner's uid.
    fn owns(&self, claim: &Value) -> bool {
        !self.uid().is_empty() && refs(claim).iter().any(|r| r["uid"] == self.uid())
    }

    /// `hasStaleOwnerRef`: the first reference naming the owner has another uid.
    fn stale_in(&self, claim: &Value) -> bool {
        refs(claim)
            .iter()
            .find(|r| self.named_by(r))
            .is_some_and(|r| r["uid"] != self.uid())
    }
}

fn refs(claim: &Value) -> Vec<Value> {
    claim["metadata"]["ownerReferences"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn owners<'a>(set: &'a Value, pod: &'a Value) -> (Owner<'a>, Owner<'a>) {
    (
        Owner {
            object: set,
            api_version: API_VERSION,
            kind: KIND,
        },
        Owner {
            object: pod,
            api_version: "v1",
            kind: "Pod",
        },
    )
}

/// `hasUnexpectedController`: under a policy other than Retain/Retain, a reference naming
/// the set or the Pod with another uid, or a controller that is neither.
pub(super) fn has_unexpected_controller(claim: &Value, set: &Value, pod: &Value) -> bool {
    if policy(set)
        == (Policy {
            delete_with_set: false,
            delete_when_scaled: false,
        })
    {
        return false;
    }
    let (set, pod) = owners(set, pod);
    refs(claim).iter().any(|r| {
        if set.named_by(r) {
            return r["uid"] != set.uid();
        }
        if pod.named_by(r) {
            return r["uid"] != pod.uid();
        }
        r["controller"] == true
    })
}

/// `hasNonControllerOwner`: the set or the Pod own the claim without controlling it.
fn has_non_controller_owner(claim: &Value, set: &Value, pod: &Value) -> bool {
    let (set, pod) = owners(set, pod);
    refs(claim).iter().any(|r| {
        let ours = (!set.uid().is_empty() && r["uid"] == set.uid())
            || (!pod.uid().is_empty() && r["uid"] == pod.uid());
        ours && r["controller"] != true
    })
}

/// `isClaimOwnerUpToDate`: the claim's references are what the policy asks for.
pub(super) fn owner_up_to_date(claim: &Value, set: &Value, pod: &Value) -> bool {
    let (set_owner, pod_owner) = owners(set, pod);
    if set_owner.stale_in(claim) || pod_owner.stale_in(claim) {
        return true;
    }
    if has_unexpected_controller(claim, set, pod) {
        return !(set_owner.owns(claim) || pod_owner.owns(claim));
    }
    if has_non_controller_owner(claim, set, pod) {
        return false;
    }
    let scaled_down = !in_ordinal_range(pod, set);
    let p = policy(set);
    match (p.delete_when_scaled, p.delete_with_set) {
        (false, false) => !set_owner.owns(claim) && !pod_owner.owns(claim),
        (false, true) => set_owner.owns(claim) && !pod_owner.owns(claim),
        (true, false) => !set_owner.owns(claim) && scaled_down == pod_owner.owns(claim),
        (true, true) => {
            scaled_down != set_owner.owns(claim) && scaled_down == pod_owner.owns(claim)
        }
    }
}

/// `updateClaimOwnerRefForSetAndPod`: the references naming the set or the Pod replaced
/// by the policy's.
pub(super) fn update_owner_refs(claim: &mut Value, set: &Value, pod: &Value) {
    let unexpected = has_unexpected_controller(claim, set, pod);
    let (set_owner, pod_owner) = owners(set, pod);
    let mut kept: Vec<Value> = refs(claim)
        .into_iter()
        .filter(|r| !set_owner.named_by(r) && !pod_owner.named_by(r))
        .collect();
    if !unexpected {
        let scaled_down = !in_ordinal_range(pod, set);
        let p = policy(set);
        let add = |refs: &mut Vec<Value>, owner: Owner<'_>| {
            if !refs.iter().any(|r| r["uid"] == owner.uid()) {
                refs.push(controller_ref(owner.object, owner.api_version, owner.kind));
            }
        };
        if p.delete_when_scaled && scaled_down {
            add(&mut kept, pod_owner);
        }
        if p.delete_with_set && !(p.delete_when_scaled && scaled_down) {
            add(&mut kept, set_owner);
        }
    }
    if kept.is_empty() {
        if let Some(m) = claim["metadata"].as_object_mut() {
            m.remove("ownerReferences");
        }
    } else {
        claim["metadata"]["ownerReferences"] = Value::Array(kept);
    }
}

/// `ClaimsMatchRetentionPolicy`: every existing claim of the Pod's ordinal has the
/// references the policy asks for (missing claims are picked up later).
pub(super) fn match_retention_policy(api: &Api, set: &Value, pod: &Value) -> bool {
    claims_for(set, ordinal(pod)).iter().all(|(_, claim)| {
        api.get(
            PERSISTENT_VOLUME_CLAIMS,
            meta(set, "namespace"),
            meta(claim, "name"),
        )
        .is_none_or(|existing| owner_up_to_date(&existing, set, pod))
    })
}

/// `PodClaimIsStale`: under `whenScaled: Delete`, a claim of the ordinal still belongs to
/// an earlier Pod of the same name (the garbage collector has yet to delete it).
pub(super) fn pod_claim_is_stale(api: &Api, set: &Value, pod: &Value) -> bool {
    if !policy(set).delete_when_scaled {
        return false;
    }
    let (_, pod_owner) = owners(set, pod);
    claims_for(set, ordinal(pod)).iter().any(|(_, claim)| {
        api.get(
            PERSISTENT_VOLUME_CLAIMS,
            meta(set, "namespace"),
            meta(claim, "name"),
        )
        .is_some_and(|existing| pod_owner.stale_in(&existing))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(when_deleted: &str, when_scaled: &str, replicas: i64) -> Value {
        json!({
            "metadata": {"name": "web", "namespace": "ns", "uid": "set-uid"},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": "web"}},
                "persistentVolumeClaimRetentionPolicy": {"whenDeleted": when_deleted, "whenScaled": when_scaled},
                "volumeClaimTemplates": [{"metadata": {"name": "data", "labels": {"tier": "db"}}, "spec": {}}],
            },
        })
    }

    fn pod(ordinal: i64) -> Value {
        json!({"metadata": {"name": format!("web-{ordinal}"), "uid": format!("pod-{ordinal}")}})
    }

    #[test]
    fn claims_take_the_selector_labels() {
        let claims = claims_for(&set("Retain", "Retain", 1), 2);
        assert_eq!(claims[0].0, "data");
        assert_eq!(claims[0].1["metadata"]["name"], "data-web-2");
        assert_eq!(
            claims[0].1["metadata"]["labels"],
            json!({"tier": "db", "app": "web"})
        );
    }

    #[test]
    fn owner_references_follow_the_retention_policy() {
        let kinds = |claim: &Value| -> Vec<String> {
            refs(claim)
                .iter()
                .map(|r| r["kind"].as_str().unwrap_or("").to_owned())
                .collect()
        };
        let cases = [
            ("Retain", "Retain", 0, vec![]),
            ("Delete", "Retain", 0, vec!["StatefulSet"]),
            ("Delete", "Retain", 3, vec!["StatefulSet"]),
            ("Retain", "Delete", 0, vec![]),
            ("Retain", "Delete", 3, vec!["Pod"]),
            ("Delete", "Delete", 0, vec!["StatefulSet"]),
            ("Delete", "Delete", 3, vec!["Pod"]),
        ];
        for (deleted, scaled, ordinal, want) in cases {
            let set = set(deleted, scaled, 2);
            let pod = pod(ordinal);
            let mut claim = claims_for(&set, ordinal).remove(0).1;
            let fresh = want.is_empty();
            assert_eq!(
                owner_up_to_date(&claim, &set, &pod),
                fresh,
                "{deleted}/{scaled} {ordinal}"
            );
            update_owner_refs(&mut claim, &set, &pod);
            assert_eq!(kinds(&claim), want, "{deleted}/{scaled} {ordinal}");
            assert!(owner_up_to_date(&claim, &set, &pod));
        }
    }
}
