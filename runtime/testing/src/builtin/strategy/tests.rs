use serde_json::{Value, json};

use super::*;

fn deployment(replicas: i64, annotations: Value) -> Value {
    json!({
        "metadata": {"name": "d", "generation": 4, "annotations": annotations},
        "spec": {"replicas": replicas},
        "status": {"observedGeneration": 3},
    })
}

#[test]
fn generation_starts_at_one_for_kinds_that_have_it() {
    let mut cm = json!({"metadata": {"name": "c"}});
    prepare_for_create("", "v1", "ConfigMap", &mut cm);
    assert!(cm["metadata"].get("generation").is_none());
    let mut np = json!({"metadata": {"name": "n", "generation": 7}, "spec": {}});
    prepare_for_create("networking.k8s.io", "v1", "NetworkPolicy", &mut np);
    assert_eq!(np["metadata"]["generation"], 1);
}

#[test]
fn a_deployment_bumps_its_generation_on_spec_and_annotation_changes() {
    let old = deployment(1, json!({"a": "1"}));
    let mut same = deployment(1, json!({"a": "1"}));
    same["metadata"]["generation"] = 99.into();
    prepare_for_update("apps", "v1", "Deployment", &mut same, &old);
    assert_eq!(same["metadata"]["generation"], 4);
    let mut scaled = deployment(2, json!({"a": "1"}));
    prepare_for_update("apps", "v1", "Deployment", &mut scaled, &old);
    assert_eq!(scaled["metadata"]["generation"], 5);
    let mut annotated = deployment(1, json!({"a": "2"}));
    prepare_for_update("apps", "v1", "Deployment", &mut annotated, &old);
    assert_eq!(annotated["metadata"]["generation"], 5);
    // A ReplicaSet does not count annotations.
    let mut annotated = deployment(1, json!({"a": "2"}));
    prepare_for_update("apps", "v1", "ReplicaSet", &mut annotated, &old);
    assert_eq!(annotated["metadata"]["generation"], 4);
}

#[test]
fn an_empty_list_is_no_spec_change() {
    let old = json!({"metadata": {"generation": 1}, "spec": {"rules": null}});
    let mut new = json!({"metadata": {}, "spec": {"rules": []}});
    prepare_for_update("networking.k8s.io", "v1", "Ingress", &mut new, &old);
    assert_eq!(new["metadata"]["generation"], 1);
}

#[test]
fn a_daemon_set_counts_template_generations() {
    let mut ds = json!({"metadata": {"name": "ds"}, "spec": {"template": {"spec": {"containers": [{"image": "a"}]}}}});
    prepare_for_create("apps", "v1", "DaemonSet", &mut ds);
    assert_eq!(ds["metadata"]["annotations"][TEMPLATE_GENERATION], "1");
    assert_eq!(ds["status"]["numberReady"], 0);
    let mut changed = ds.clone();
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "b".into();
    prepare_for_update("apps", "v1", "DaemonSet", &mut changed, &ds);
    assert_eq!(changed["metadata"]["annotations"][TEMPLATE_GENERATION], "2");
    assert_eq!(changed["metadata"]["generation"], 2);
    let mut other = changed.clone();
    other["spec"]["minReadySeconds"] = 5.into();
    prepare_for_update("apps", "v1", "DaemonSet", &mut other, &changed);
    assert_eq!(other["metadata"]["annotations"][TEMPLATE_GENERATION], "2");
    assert_eq!(other["metadata"]["generation"], 3);
}

#[test]
fn a_namespace_keeps_its_finalizers_and_label_on_update() {
    let mut ns = json!({"metadata": {"name": "n"}, "spec": {"finalizers": ["x"]}, "status": {"phase": "Terminating"}});
    prepare_for_create("", "v1", "Namespace", &mut ns);
    assert_eq!(ns["spec"]["finalizers"], json!(["x", "kubernetes"]));
    assert_eq!(ns["status"], json!({"phase": "Active"}));
    assert_eq!(ns["metadata"]["labels"]["kubernetes.io/metadata.name"], "n");
    let mut update = json!({"metadata": {"name": "n", "labels": {"kubernetes.io/metadata.name": "wrong"}}, "spec": {}});
    prepare_for_update("", "v1", "Namespace", &mut update, &ns);
    assert_eq!(update["spec"]["finalizers"], json!(["x", "kubernetes"]));
    assert_eq!(
        update["metadata"]["labels"]["kubernetes.io/metadata.name"],
        "n"
    );
}

#[test]
fn a_job_with_labels_keeps_them_and_user_template_labels_win() {
    let mut job = json!({
        "metadata": {"name": "j", "uid": "u", "labels": {"mine": "x"}},
        "spec": {"template": {"metadata": {"labels": {"job-name": "other"}}}},
    });
    prepare_for_create("batch", "v1", "Job", &mut job);
    assert_eq!(job["metadata"]["labels"], json!({"mine": "x"}));
    let labels = &job["spec"]["template"]["metadata"]["labels"];
    assert_eq!(labels["job-name"], "other");
    assert_eq!(labels["batch.kubernetes.io/job-name"], "j");
    assert_eq!(
        job["spec"]["selector"],
        json!({"matchLabels": {"batch.kubernetes.io/controller-uid": "u"}})
    );
}

#[test]
fn a_pod_bumps_its_generation_on_spec_change() {
    let mut pod =
        json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "a"}]}});
    prepare_for_create("", "v1", "Pod", &mut pod);
    assert_eq!(pod["metadata"]["generation"], 1);
    assert_eq!(
        pod["status"],
        json!({"phase": "Pending", "qosClass": "BestEffort"})
    );
    let mut changed = pod.clone();
    changed["spec"]["containers"][0]["image"] = "b".into();
    prepare_for_update("", "v1", "Pod", &mut changed, &pod);
    assert_eq!(changed["metadata"]["generation"], 2);
}
