//! apps/v1 defaults (`pkg/apis/apps/v1/defaults.go`).

use serde_json::{Value, json};

use super::core::{persistent_volume_claim, pod_template_in};
use super::{child, child_or_insert, each, set_if_unset, set_if_zero};

/// `SetDefaults_Deployment`: one replica, a rolling update of 25%/25%, 10 revisions kept,
/// a 600 s progress deadline.
pub(super) fn deployment(deployment: &mut Value) {
    let Some(spec) = child(deployment, "spec") else {
        return;
    };
    set_if_unset(spec, "replicas", 1);
    if let Some(strategy) = child_or_insert(spec, "strategy") {
        set_if_zero(strategy, "type", "RollingUpdate");
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = child_or_insert(strategy, "rollingUpdate")
        {
            set_if_unset(rolling, "maxUnavailable", "25%");
            set_if_unset(rolling, "maxSurge", "25%");
        }
    }
    set_if_unset(spec, "revisionHistoryLimit", 10);
    set_if_unset(spec, "progressDeadlineSeconds", 600);
    pod_template_in(spec, "template");
}

/// `SetDefaults_DaemonSet`: a rolling update of 1 unavailable and 0 surge, 10 revisions.
pub(super) fn daemon_set(daemon_set: &mut Value) {
    // apps/v1 has no template generation: the conversion to the internal type and back
    // carries it in an annotation, which every decoded DaemonSet therefore has ("0" until
    // the strategy sets it), and the field manager sees.
    if let Some(metadata) = child_or_insert(daemon_set, "metadata")
        && let Some(annotations) = child_or_insert(metadata, "annotations")
        && let Some(annotations) = annotations.as_object_mut()
    {
        annotations
            .entry("deprecated.daemonset.template.generation")
            .or_insert_with(|| "0".into());
    }
    let Some(spec) = child(daemon_set, "spec") else {
        return;
    };
    if let Some(strategy) = child_or_insert(spec, "updateStrategy") {
        set_if_zero(strategy, "type", "RollingUpdate");
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = child_or_insert(strategy, "rollingUpdate")
        {
            set_if_unset(rolling, "maxUnavailable", 1);
            set_if_unset(rolling, "maxSurge", 0);
        }
    }
    set_if_unset(spec, "revisionHistoryLimit", 10);
    pod_template_in(spec, "template");
}

/// `SetDefaults_StatefulSet`, and the PersistentVolumeClaim defaults of its claim
/// templates (which also read back with their `apiVersion` and `kind`: Go writes the
/// embedded object's type meta).
pub(super) fn stateful_set(stateful_set: &mut Value) {
    let Some(spec) = child(stateful_set, "spec") else {
        return;
    };
    set_if_zero(spec, "podManagementPolicy", "OrderedReady");
    if let Some(strategy) = child_or_insert(spec, "updateStrategy") {
        if super::unset_or_zero(strategy, "type") {
            strategy["type"] = "RollingUpdate".into();
            set_if_unset(strategy, "rollingUpdate", json!({}));
        }
        if strategy["type"] == "RollingUpdate"
            && let Some(rolling) = child(strategy, "rollingUpdate")
        {
            set_if_unset(rolling, "partition", 0);
        }
    }
    if let Some(policy) = child_or_insert(spec, "persistentVolumeClaimRetentionPolicy") {
        set_if_zero(policy, "whenDeleted", "Retain");
        set_if_zero(policy, "whenScaled", "Retain");
    }
    set_if_unset(spec, "replicas", 1);
    set_if_unset(spec, "revisionHistoryLimit", 10);
    pod_template_in(spec, "template");
    each(spec, "volumeClaimTemplates", |claim| {
        set_if_zero(claim, "apiVersion", "v1");
        set_if_zero(claim, "kind", "PersistentVolumeClaim");
        set_if_unset(claim, "status", json!({}));
        persistent_volume_claim(claim);
    });
}

/// `SetDefaults_ReplicaSet`: one replica.
pub(super) fn replica_set(replica_set: &mut Value) {
    if let Some(spec) = child(replica_set, "spec") {
        set_if_unset(spec, "replicas", 1);
        pod_template_in(spec, "template");
    }
}
