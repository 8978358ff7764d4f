//! The conversion against kube-apiserver v1.36.2: the recorded create/read pairs of
//! `observed/`, and `pairs.json` (the same stored objects read at both versions: many
//! metrics of every source, behavior with tolerance, status with current metrics and
//! conditions, v1 objects written with round-trip annotations, malformed or empty ones).
//! `metadata.managedFields` are never converted: the apiserver serves each entry at the
//! version its manager wrote, whatever version is read, and so does [`hpa`].

use serde_json::{Value, json};

use super::hpa;

fn recorded(name: &str) -> Value {
    let path = format!(
        "{}/src/builtin/testdata/convert/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn pair(name: &str) -> (Value, Value) {
    let pairs = recorded("pairs.json");
    let pair = &pairs["objects"][name];
    (pair["v1"].clone(), pair["v2"].clone())
}

#[test]
fn v1_create_read_as_v2() {
    let created = recorded("defaults-hpa-v1.json")["response"]["body"].clone();
    let read = recorded("defaults-hpa-v1-read-as-v2.json")["response"]["body"].clone();
    assert_eq!(hpa(&created, "autoscaling/v2").unwrap(), read);
}

#[test]
fn v2_create_read_as_v1() {
    let created = recorded("defaults-hpa-v2.json")["response"]["body"].clone();
    let read = recorded("defaults-hpa-v2-read-as-v1.json")["response"]["body"].clone();
    assert_eq!(hpa(&created, "autoscaling/v1").unwrap(), read);
}

/// A v1 write without a CPU target is stored with the 80% one: the conversion's default,
/// not v1's defaulting (which sets only `minReplicas`).
#[test]
fn v1_without_target_gets_default_cpu() {
    let mut sent = recorded("defaults-hpa-v1.json")["request"]["body"].clone();
    sent["spec"]["minReplicas"] = json!(1);
    let stored = hpa(&sent, "autoscaling/v2").unwrap();
    let read = recorded("defaults-hpa-v1-read-as-v2.json")["response"]["body"].clone();
    assert_eq!(stored["spec"], read["spec"]);
}

#[test]
fn recorded_v2_read_as_v1() {
    for name in [
        "rich", "fromv1", "nocpu", "empty", "bad", "two", "ann", "tol",
    ] {
        let (v1, v2) = pair(name);
        assert_eq!(hpa(&v2, "autoscaling/v1").unwrap(), v1, "{name}");
    }
}

/// v1 to v2 is exact but where v1 cannot say "unset" (a current metric without an average
/// value or a value gains a zero one through the annotation) and for the order of metrics
/// (v1's CPU utilization target comes after the others).
#[test]
fn recorded_v1_read_as_v2() {
    for name in ["fromv1", "nocpu", "empty", "bad", "ann", "tol"] {
        let (v1, v2) = pair(name);
        assert_eq!(hpa(&v1, "autoscaling/v2").unwrap(), v2, "{name}");
    }
    let (v1, mut v2) = pair("rich");
    let metrics = v2["spec"]["metrics"].as_array_mut().unwrap();
    let cpu = metrics.remove(1);
    metrics.push(cpu);
    v2["status"]["currentMetrics"][4]["containerResource"]["current"]["averageValue"] = json!("0");
    v2["status"]["currentMetrics"][3]["external"]["current"]["value"] = json!("0");
    assert_eq!(hpa(&v1, "autoscaling/v2").unwrap(), v2);
}

#[test]
fn v2_round_trips_through_v1() {
    let (_, rich) = pair("rich");
    let mut spec_only = rich.clone();
    spec_only["status"] = json!({"desiredReplicas": 2, "currentMetrics": null});
    let v1 = hpa(&spec_only, "autoscaling/v1").unwrap();
    // Every metric but the CPU utilization one (moved last), and the behavior.
    let mut expected = spec_only.clone();
    let metrics = expected["spec"]["metrics"].as_array_mut().unwrap();
    let cpu = metrics.remove(1);
    metrics.push(cpu);
    assert_eq!(hpa(&v1, "autoscaling/v2").unwrap(), expected);
    assert_eq!(hpa(&expected, "autoscaling/v1").unwrap(), v1);
}

#[test]
fn behavior_annotation_is_the_internal_type() {
    let (v1, _) = pair("rich");
    let annotation = v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/behavior"]
        .as_str()
        .unwrap();
    assert!(annotation.starts_with(r#"{"ScaleUp":{"StabilizationWindowSeconds":0,"#));
}

#[test]
fn malformed_annotations_are_ignored() {
    let object = json!({
        "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "x", "annotations": {
            "autoscaling.alpha.kubernetes.io/metrics": r#"[{"type":"Pods","pods":{"metricName":7}}]"#,
            "autoscaling.alpha.kubernetes.io/behavior": r#"{"scaleUp":{"stabilizationWindowSeconds":1.5}}"#,
            "autoscaling.alpha.kubernetes.io/current-metrics": "[]",
            "other": "kept",
        }},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 2,
                 "targetCPUUtilizationPercentage": 50},
        "status": {"currentReplicas": 0, "desiredReplicas": 0, "currentCPUUtilizationPercentage": 9},
    });
    let v2 = hpa(&object, "autoscaling/v2").unwrap();
    assert_eq!(v2["metadata"]["annotations"], json!({"other": "kept"}));
    assert_eq!(
        v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        50
    );
    assert_eq!(v2["spec"]["metrics"].as_array().unwrap().len(), 1);
    assert!(v2["spec"].get("behavior").is_none());
    // A well-formed empty list replaces the CPU current metric.
    assert_eq!(v2["status"]["currentMetrics"], json!([]));
}

#[test]
fn unknown_version_is_refused() {
    let (_, v2) = pair("two");
    assert!(hpa(&v2, "autoscaling/v2beta2").is_err());
}
