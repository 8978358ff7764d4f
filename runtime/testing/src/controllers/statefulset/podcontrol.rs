//! The StatefulSet controller's writes to Pods and claims, and the events it records about
//! them (`StatefulPodControl`): `Create Pod web-0 in StatefulSet web successful`,
//! `Create Claim data-web-0 Pod web-0 in StatefulSet web success`, and their failures.

use serde_json::Value;

use super::claims::{
    claims_for, has_unexpected_controller, match_retention_policy, owner_up_to_date,
    update_owner_refs,
};
use super::identity::{
    identity_matches, ordinal, storage_matches, update_identity, update_storage,
};
use crate::controllers::api::{PERSISTENT_VOLUME_CLAIMS, PODS};
use crate::controllers::ownership::aggregate;
use crate::controllers::podutil::{is_terminating, meta};
use crate::controllers::{Cx, EventType};

/// `cases.Title` of a verb.
fn title(verb: &str) -> String {
    let mut chars = verb.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `recordPodEvent`.
pub(super) fn record_pod_event(
    cx: &mut Cx<'_>,
    verb: &str,
    set: &Value,
    pod: &Value,
    error: Option<&str>,
) {
    let (pod_name, set_name) = (meta(pod, "name"), meta(set, "name"));
    let verb = title(verb);
    match error {
        None => cx.event(
            set,
            EventType::Normal,
            &format!("Successful{verb}"),
            &format!("{verb} Pod {pod_name} in StatefulSet {set_name} successful"),
        ),
        Some(e) => cx.event(
            set,
            EventType::Warning,
            &format!("Failed{verb}"),
            &format!("{verb} Pod {pod_name} in StatefulSet {set_name} failed error: {e}"),
        ),
    }
}

/// `recordClaimEvent` for a creation.
fn record_claim_created(
    cx: &mut Cx<'_>,
    set: &Value,
    pod: &Value,
    claim: &Value,
    error: Option<&str>,
) {
    let (claim_name, pod_name, set_name) =
        (meta(claim, "name"), meta(pod, "name"), meta(set, "name"));
    match error {
        None => cx.event(
            set,
            EventType::Normal,
            "SuccessfulCreate",
            &format!("Create Claim {claim_name} Pod {pod_name} in StatefulSet {set_name} success"),
        ),
        Some(e) => cx.event(
            set,
            EventType::Warning,
            "FailedCreate",
            &format!(
                "Create Claim {claim_name} for Pod {pod_name} in StatefulSet {set_name} failed error: {e}"
            ),
        ),
    }
}

/// `createPersistentVolumeClaims`: the Pod's claims that do not exist yet, created.
pub(super) fn create_claims(cx: &mut Cx<'_>, set: &Value, pod: &Value) -> Result<(), String> {
    let mut errors = Vec::new();
    for (_, claim) in claims_for(set, ordinal(pod)) {
        let name = meta(&claim, "name");
        match cx
            .api
            .get(PERSISTENT_VOLUME_CLAIMS, meta(set, "namespace"), name)
        {
            None => match cx
                .api
                .create(PERSISTENT_VOLUME_CLAIMS, meta(set, "namespace"), &claim)
            {
                Ok(_) => record_claim_created(cx, set, pod, &claim, None),
                Err(e) => {
                    let error = format!("failed to create PVC {name}: {}", e.message);
                    if !e.is_already_exists() {
                        record_claim_created(cx, set, pod, &claim, Some(&error));
                    }
                    errors.push(error);
                }
            },
            Some(existing) if is_terminating(&existing) => {
                errors.push(format!("pvc {name} is being deleted"));
            }
            Some(_) => {}
        }
    }
    aggregate(&errors)
}

/// `UpdatePodClaimForRetentionPolicy`: the Pod's existing claims given the references the
/// policy asks for.
pub(super) fn update_claims_for_policy(
    cx: &mut Cx<'_>,
    set: &Value,
    pod: &Value,
) -> Result<(), String> {
    for (_, claim) in claims_for(set, ordinal(pod)) {
        let name = meta(&claim, "name").to_owned();
        let Some(mut existing) =
            cx.api
                .get_owned(PERSISTENT_VOLUME_CLAIMS, meta(set, "namespace"), &name)
        else {
            continue;
        };
        if has_unexpected_controller(&existing, set, pod) {
            cx.event(
                set,
                EventType::Warning,
                "ConflictingController",
                &format!(
                    "PersistentVolumeClaim {name} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim"
                ),
            );
        }
        if owner_up_to_date(&existing, set, pod) {
            continue;
        }
        update_owner_refs(&mut existing, set, pod);
        if let Err(e) = cx.api.update(
            PERSISTENT_VOLUME_CLAIMS,
            meta(set, "namespace"),
            &name,
            &existing,
        ) {
            return Err(format!(
                "could not update claim {name} for delete policy ownerRefs: {}",
                e.message
            ));
        }
    }
    Ok(())
}

/// `CreateStatefulPod`: the claims, then the Pod, then the claims' references.
pub(super) fn create_pod(cx: &mut Cx<'_>, set: &Value, pod: &Value) -> Result<(), String> {
    if let Err(e) = create_claims(cx, set, pod) {
        record_pod_event(cx, "create", set, pod, Some(&e));
        return Err(e);
    }
    let created = cx.api.create(PODS, meta(set, "namespace"), pod);
    if let Err(e) = &created
        && e.is_already_exists()
    {
        return Err(e.message.clone());
    }
    if let Err(e) = update_claims_for_policy(cx, set, pod) {
        record_pod_event(cx, "update", set, pod, Some(&e));
        return Err(e);
    }
    let error = created.err().map(|e| e.message);
    record_pod_event(cx, "create", set, pod, error.as_deref());
    error.map_or(Ok(()), Err)
}

/// `UpdateStatefulPod`: the Pod's identity, storage and claims' references put right, and
/// the Pod written (retried on a conflict with the current Pod).
pub(super) fn update_pod(cx: &mut Cx<'_>, set: &Value, pod: &Value) -> Result<(), String> {
    let mut pod = pod.clone();
    let mut attempted = false;
    let mut result = Ok(());
    // retry.DefaultBackoff: four attempts.
    for _ in 0..4 {
        let mut consistent = true;
        if !identity_matches(set, &pod) {
            update_identity(set, &mut pod);
            consistent = false;
        }
        if !storage_matches(set, &pod) {
            update_storage(set, &mut pod);
            consistent = false;
            if let Err(e) = create_claims(cx, set, &pod) {
                record_pod_event(cx, "update", set, &pod, Some(&e));
                result = Err(e);
                break;
            }
        }
        if !match_retention_policy(cx.api, set, &pod) {
            if let Err(e) = update_claims_for_policy(cx, set, &pod) {
                record_pod_event(cx, "update", set, &pod, Some(&e));
                result = Err(e);
                break;
            }
            consistent = false;
        }
        if consistent {
            result = Ok(());
            break;
        }
        attempted = true;
        let (namespace, name) = (
            meta(&pod, "namespace").to_owned(),
            meta(&pod, "name").to_owned(),
        );
        match cx.api.update(PODS, &namespace, &name, &pod) {
            Ok(_) => {
                result = Ok(());
                break;
            }
            Err(e) => {
                if let Some(current) = cx.api.get_owned(PODS, &namespace, &name) {
                    pod = current;
                }
                result = Err(e.message.clone());
                if !e.is_conflict() {
                    break;
                }
            }
        }
    }
    if attempted {
        record_pod_event(
            cx,
            "update",
            set,
            &pod,
            result.as_ref().err().map(String::as_str),
        );
    }
    result
}

/// `DeleteStatefulPod`: a Pod already gone counts as deleted.
pub(super) fn delete_pod(cx: &mut Cx<'_>, set: &Value, pod: &Value) -> Result<(), String> {
    match cx.api.delete(
        PODS,
        meta(pod, "namespace"),
        meta(pod, "name"),
        &Value::Null,
    ) {
        Ok(_) => {}
        Err(e) if e.is_not_found() => {}
        Err(e) => {
            record_pod_event(cx, "delete", set, pod, Some(&e.message));
            return Err(e.message);
        }
    }
    record_pod_event(cx, "delete", set, pod, None);
    Ok(())
}
