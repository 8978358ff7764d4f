//! Conversions between the versions of built-in kinds that differ in shape. Only
//! HorizontalPodAutoscaler does among the kinds the server serves: `autoscaling/v1` keeps
//! one CPU target where `autoscaling/v2` (the storage version) has a list of metrics, a
//! behavior and conditions.
//!
//! The apiserver converts through its internal form, which has v2's shape
//! (`pkg/apis/autoscaling/v1/conversion.go`): v1's `targetCPUUtilizationPercentage` is a v2
//! `Resource` metric on `cpu` with a `Utilization` target, and `currentCPUUtilizationPercentage`
//! its current value. What v1 cannot hold travels in annotations, so a v1 client reading and
//! writing an object back loses nothing:
//!
//! - `autoscaling.alpha.kubernetes.io/metrics`: the metrics other than CPU utilization, as
//!   v1's (never served) `MetricSpec` JSON;
//! - `.../current-metrics`: every current metric, as v1's `MetricStatus` JSON;
//! - `.../conditions`: the conditions, as v1's `HorizontalPodAutoscalerCondition` JSON;
//! - `.../behavior`: the behavior, as Go marshals the *internal* type, which has no JSON tags
//!   (`{"ScaleUp":{"StabilizationWindowSeconds":0,...}}`).
//!
//! The annotations are written in Go's struct field order, as the apiserver writes them, and
//! read as Go's decoder reads them: keys matched without regard to case, a malformed
//! annotation ignored whole. Both directions drop these annotations (and v2beta2's tolerance
//! ones) from what they were given, so only the ones a conversion writes are ever seen.
//!
//! Not modelled: quantities are carried as written, where Go re-formats one it parsed
//! (`1000m` read from an annotation is served as `1`).

use serde_json::{Map, Value, json};

const V1: &str = "autoscaling/v1";
const V2: &str = "autoscaling/v2";

const METRICS: &str = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT_METRICS: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS: &str = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR: &str = "autoscaling.alpha.kubernetes.io/behavior";

/// The annotations `DropRoundTripHorizontalPodAutoscalerAnnotations` removes.
const ROUND_TRIP: [&str; 6] = [
    METRICS,
    BEHAVIOR,
    "autoscaling.alpha.kubernetes.io/scale-down-tolerance",
    "autoscaling.alpha.kubernetes.io/scale-up-tolerance",
    CURRENT_METRICS,
    CONDITIONS,
];

/// The CPU target a v1 object without one gets (`autoscaling.DefaultCPUUtilization`): the
/// conversion applies it, not v1's defaulting, since only it sees the metrics annotation.
const DEFAULT_CPU_UTILIZATION: i64 = 80;

/// A whole HorizontalPodAutoscaler (`autoscaling/v1` or `autoscaling/v2`) at
/// `to_api_version`, as the apiserver converts it through its internal form. `spec` and
/// `status` are converted when the object has them. The error names a version that is not
/// one of the two.
pub(crate) fn hpa(object: &Value, to_api_version: &str) -> Result<Value, String> {
    let from = object["apiVersion"].as_str().unwrap_or("");
    let internal = match from {
        V1 => v1_to_v2(object),
        V2 => {
            let mut same = object.clone();
            drop_round_trip_annotations(&mut same);
            same
        }
        _ => return Err(unregistered(from)),
    };
    match to_api_version {
        V2 => Ok(internal),
        V1 => Ok(v2_to_v1(&internal)),
        _ => Err(unregistered(to_api_version)),
    }
}

fn unregistered(api_version: &str) -> String {
    format!("no kind \"HorizontalPodAutoscaler\" is registered for version \"{api_version}\"")
}

/// `object[key]` unless it is absent or null.
fn present<'a>(object: &'a Value, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

fn annotations_mut(object: &mut Value) -> Option<&mut Map<String, Value>> {
    object
        .get_mut("metadata")?
        .get_mut("annotations")?
        .as_object_mut()
}

fn drop_round_trip_annotations(object: &mut Value) {
    let Some(annotations) = annotations_mut(object) else {
        return;
    };
    for key in ROUND_TRIP {
        annotations.remove(key);
    }
    if annotations.is_empty()
        && let Some(metadata) = object["metadata"].as_object_mut()
    {
        metadata.remove("annotations");
    }
}

fn set_annotation(object: &mut Value, key: &str, value: String) {
    if !object["metadata"].is_object() {
        object["metadata"] = json!({});
    }
    if !object["metadata"]["annotations"].is_object() {
        object["metadata"]["annotations"] = json!({});
    }
    object["metadata"]["annotations"][key] = Value::String(value);
}

// ---- v2 (internal) to v1 ----

/// A Go value as `encoding/json` writes it: a struct's fields in declaration order.
enum Go {
    Value(Value),
    Struct(Vec<(&'static str, Go)>),
    List(Vec<Go>),
}

impl Go {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Go::Value(v) => out.extend(kubegen_go::json::to_vec(v)),
            Go::Struct(fields) => {
                out.push(b'{');
                for (i, (name, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend(kubegen_go::json::to_vec(&json!(name)));
                    out.push(b':');
                    value.encode(out);
                }
                out.push(b'}');
            }
            Go::List(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.encode(out);
                }
                out.push(b']');
            }
        }
    }

    fn to_json(&self) -> String {
        let mut out = Vec::new();
        self.encode(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// The fields of a Go struct being written.
#[derive(Default)]
struct Fields(Vec<(&'static str, Go)>);

impl Fields {
    /// A field without `omitempty`: `zero` when unset.
    fn always(mut self, name: &'static str, value: Option<&Value>, zero: Value) -> Self {
        let value = value.filter(|v| !v.is_null()).cloned().unwrap_or(zero);
        self.0.push((name, Go::Value(value)));
        self
    }

    /// A pointer field with `omitempty`.
    fn optional(mut self, name: &'static str, value: Option<&Value>) -> Self {
        if let Some(v) = value.filter(|v| !v.is_null()) {
            self.0.push((name, Go::Value(v.clone())));
        }
        self
    }

    /// A string field with `omitempty`.
    fn nonempty(self, name: &'static str, value: Option<&Value>) -> Self {
        let value = value.filter(|v| v.as_str() != Some(""));
        self.optional(name, value)
    }

    fn nested(mut self, name: &'static str, value: Option<Go>) -> Self {
        if let Some(v) = value {
            self.0.push((name, v));
        }
        self
    }

    fn done(self) -> Go {
        Go::Struct(self.0)
    }
}

fn is_cpu(source: &Value) -> bool {
    source["name"].as_str() == Some("cpu")
}

/// A spec metric v1 carries as `targetCPUUtilizationPercentage`.
fn is_cpu_utilization(metric: &Value) -> bool {
    metric["type"].as_str() == Some("Resource")
        && present(metric, "resource")
            .is_some_and(|r| is_cpu(r) && present(&r["target"], "averageUtilization").is_some())
}

fn v2_to_v1(internal: &Value) -> Value {
    let mut out = json!({"apiVersion": V1, "kind": internal["kind"].clone()});
    if let Some(metadata) = present(internal, "metadata") {
        out["metadata"] = metadata.clone();
    }
    if let Some(spec) = present(internal, "spec") {
        let metrics = spec["metrics"].as_array().map_or(&[][..], Vec::as_slice);
        let mut v1 = json!({
            "scaleTargetRef": spec.get("scaleTargetRef").cloned().unwrap_or(json!({})),
            "maxReplicas": spec.get("maxReplicas").cloned().unwrap_or(json!(0)),
        });
        if let Some(min) = present(spec, "minReplicas") {
            v1["minReplicas"] = min.clone();
        }
        if let Some(cpu) = metrics.iter().find(|m| is_cpu_utilization(m)) {
            v1["targetCPUUtilizationPercentage"] =
                cpu["resource"]["target"]["averageUtilization"].clone();
        }
        out["spec"] = v1;
        let others: Vec<Go> = metrics
            .iter()
            .filter(|m| !is_cpu_utilization(m))
            .map(metric_spec_v1)
            .collect();
        if !others.is_empty() {
            set_annotation(&mut out, METRICS, Go::List(others).to_json());
        }
        if let Some(behavior) = present(spec, "behavior") {
            set_annotation(&mut out, BEHAVIOR, behavior_internal(behavior).to_json());
        }
    }
    if let Some(status) = present(internal, "status") {
        let current = status["currentMetrics"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        let mut v1 = json!({
            "currentReplicas": status.get("currentReplicas").cloned().unwrap_or(json!(0)),
            "desiredReplicas": status.get("desiredReplicas").cloned().unwrap_or(json!(0)),
        });
        for key in ["observedGeneration", "lastScaleTime"] {
            if let Some(v) = present(status, key) {
                v1[key] = v.clone();
            }
        }
        // The last CPU utilization wins, as the apiserver's loop has it.
        let cpu = current.iter().rev().find_map(|m| {
            let r = present(m, "resource").filter(|r| m["type"] == "Resource" && is_cpu(r))?;
            present(&r["current"], "averageUtilization")
        });
        if let Some(cpu) = cpu {
            v1["currentCPUUtilizationPercentage"] = cpu.clone();
        }
        out["status"] = v1;
        if !current.is_empty() {
            let statuses = Go::List(current.iter().map(metric_status_v1).collect());
            set_annotation(&mut out, CURRENT_METRICS, statuses.to_json());
        }
        let conditions = status["conditions"]
            .as_array()
            .map_or(&[][..], Vec::as_slice);
        if !conditions.is_empty() {
            let conditions = Go::List(conditions.iter().map(condition_v1).collect());
            set_annotation(&mut out, CONDITIONS, conditions.to_json());
        }
    }
    out
}

/// v1's `CrossVersionObjectReference`.
fn object_reference(reference: &Value) -> Go {
    Fields::default()
        .always("kind", reference.get("kind"), json!(""))
        .always("name", reference.get("name"), json!(""))
        .nonempty("apiVersion", reference.get("apiVersion"))
        .done()
}

/// v1's `MetricSpec`.
fn metric_spec_v1(metric: &Value) -> Go {
    let object = present(metric, "object").map(|o| {
        Fields::default()
            .nested("target", Some(object_reference(&o["describedObject"])))
            .always("metricName", o["metric"].get("name"), json!(""))
            .always("targetValue", o["target"].get("value"), json!("0"))
            .optional("selector", o["metric"].get("selector"))
            .optional("averageValue", o["target"].get("averageValue"))
            .done()
    });
    let pods = present(metric, "pods").map(|p| {
        Fields::default()
            .always("metricName", p["metric"].get("name"), json!(""))
            .always(
                "targetAverageValue",
                p["target"].get("averageValue"),
                json!("0"),
            )
            .optional("selector", p["metric"].get("selector"))
            .done()
    });
    let resource = |r: &Value, container: bool| {
        let fields = Fields::default()
            .always("name", r.get("name"), json!(""))
            .optional(
                "targetAverageUtilization",
                r["target"].get("averageUtilization"),
            )
            .optional("targetAverageValue", r["target"].get("averageValue"));
        match container {
            true => fields.always("container", r.get("container"), json!("")),
            false => fields,
        }
        .done()
    };
    let external = present(metric, "external").map(|e| {
        Fields::default()
            .always("metricName", e["metric"].get("name"), json!(""))
            .optional("metricSelector", e["metric"].get("selector"))
            .optional("targetValue", e["target"].get("value"))
            .optional("targetAverageValue", e["target"].get("averageValue"))
            .done()
    });
    Fields::default()
        .always("type", metric.get("type"), json!(""))
        .nested("object", object)
        .nested("pods", pods)
        .nested(
            "resource",
            present(metric, "resource").map(|r| resource(r, false)),
        )
        .nested(
            "containerResource",
            present(metric, "containerResource").map(|r| resource(r, true)),
        )
        .nested("external", external)
        .done()
}

/// v1's `MetricStatus`.
fn metric_status_v1(metric: &Value) -> Go {
    let object = present(metric, "object").map(|o| {
        Fields::default()
            .nested("target", Some(object_reference(&o["describedObject"])))
            .always("metricName", o["metric"].get("name"), json!(""))
            .always("currentValue", o["current"].get("value"), json!("0"))
            .optional("selector", o["metric"].get("selector"))
            .optional("averageValue", o["current"].get("averageValue"))
            .done()
    });
    let pods = present(metric, "pods").map(|p| {
        Fields::default()
            .always("metricName", p["metric"].get("name"), json!(""))
            .always(
                "currentAverageValue",
                p["current"].get("averageValue"),
                json!("0"),
            )
            .optional("selector", p["metric"].get("selector"))
            .done()
    });
    let resource = |r: &Value, container: bool| {
        let fields = Fields::default()
            .always("name", r.get("name"), json!(""))
            .optional(
                "currentAverageUtilization",
                r["current"].get("averageUtilization"),
            )
            .always(
                "currentAverageValue",
                r["current"].get("averageValue"),
                json!("0"),
            );
        match container {
            true => fields.always("container", r.get("container"), json!("")),
            false => fields,
        }
        .done()
    };
    let external = present(metric, "external").map(|e| {
        Fields::default()
            .always("metricName", e["metric"].get("name"), json!(""))
            .optional("metricSelector", e["metric"].get("selector"))
            .always("currentValue", e["current"].get("value"), json!("0"))
            .optional("currentAverageValue", e["current"].get("averageValue"))
            .done()
    });
    Fields::default()
        .always("type", metric.get("type"), json!(""))
        .nested("object", object)
        .nested("pods", pods)
        .nested(
            "resource",
            present(metric, "resource").map(|r| resource(r, false)),
        )
        .nested(
            "containerResource",
            present(metric, "containerResource").map(|r| resource(r, true)),
        )
        .nested("external", external)
        .done()
}

/// v1's `HorizontalPodAutoscalerCondition` (an unset time is Go's zero `metav1.Time`, which
/// writes `null`).
fn condition_v1(condition: &Value) -> Go {
    Fields::default()
        .always("type", condition.get("type"), json!(""))
        .always("status", condition.get("status"), json!(""))
        .always(
            "lastTransitionTime",
            condition.get("lastTransitionTime"),
            Value::Null,
        )
        .nonempty("reason", condition.get("reason"))
        .nonempty("message", condition.get("message"))
        .done()
}

/// The internal `HorizontalPodAutoscalerBehavior`: Go field names, every field written.
fn behavior_internal(behavior: &Value) -> Go {
    let rules = |rules: &Value| {
        let policies = rules["policies"].as_array().map(|policies| {
            Go::List(
                policies
                    .iter()
                    .map(|p| {
                        Fields::default()
                            .always("Type", p.get("type"), json!(""))
                            .always("Value", p.get("value"), json!(0))
                            .always("PeriodSeconds", p.get("periodSeconds"), json!(0))
                            .done()
                    })
                    .collect(),
            )
        });
        Fields::default()
            .always(
                "StabilizationWindowSeconds",
                rules.get("stabilizationWindowSeconds"),
                Value::Null,
            )
            .always("SelectPolicy", rules.get("selectPolicy"), Value::Null)
            .nested("Policies", Some(policies.unwrap_or(Go::Value(Value::Null))))
            .always("Tolerance", rules.get("tolerance"), Value::Null)
            .done()
    };
    let side = |key| Some(present(behavior, key).map_or(Go::Value(Value::Null), rules));
    Fields::default()
        .nested("ScaleUp", side("scaleUp"))
        .nested("ScaleDown", side("scaleDown"))
        .done()
}

// ---- v1 to v2 (internal) ----

/// A field of a Go struct being decoded: the key spelled exactly, else one equal without
/// regard to case, as `encoding/json` matches them; null reads as unset.
fn go_field<'a>(object: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    object
        .get(name)
        .or_else(|| {
            object
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        })
        .filter(|v| !v.is_null())
}

/// The decoder's refusal of an annotation that is not the Go type it holds: the annotation
/// is then ignored whole.
struct Malformed;

type Decoded<T> = Result<T, Malformed>;

/// A struct: an object (or null, its zero value).
fn go_struct(value: Option<&Value>) -> Decoded<Map<String, Value>> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(Malformed),
    }
}

fn go_string(object: &Map<String, Value>, name: &str) -> Decoded<Option<Value>> {
    match go_field(object, name) {
        None => Ok(None),
        Some(v @ Value::String(_)) => Ok(Some(v.clone())),
        Some(_) => Err(Malformed),
    }
}

fn go_int32(object: &Map<String, Value>, name: &str) -> Decoded<Option<Value>> {
    match go_field(object, name) {
        None => Ok(None),
        Some(v) => match v.as_i64() {
            Some(n) if i32::try_from(n).is_ok() => Ok(Some(json!(n))),
            _ => Err(Malformed),
        },
    }
}

/// A `resource.Quantity`: a string, or a bare number, which it reads as the same text.
fn go_quantity(object: &Map<String, Value>, name: &str) -> Decoded<Option<Value>> {
    match go_field(object, name) {
        None => Ok(None),
        Some(v @ Value::String(_)) => Ok(Some(v.clone())),
        Some(Value::Number(n)) => Ok(Some(Value::String(n.to_string()))),
        Some(_) => Err(Malformed),
    }
}

fn go_object(object: &Map<String, Value>, name: &str) -> Decoded<Option<Value>> {
    match go_field(object, name) {
        None => Ok(None),
        Some(v @ Value::Object(_)) => Ok(Some(v.clone())),
        Some(_) => Err(Malformed),
    }
}

fn go_list(value: &Value) -> Decoded<&[Value]> {
    match value {
        Value::Null => Ok(&[]),
        Value::Array(items) => Ok(items),
        _ => Err(Malformed),
    }
}

/// An annotation's JSON, `None` when it is absent.
fn annotation(object: &Value, key: &str) -> Option<Decoded<Value>> {
    let text = object["metadata"]["annotations"].get(key)?.as_str()?;
    Some(serde_json::from_str(text).map_err(|_| Malformed))
}

/// A JSON object of the given fields, the unset ones left out.
fn build(fields: &[(&str, Option<Value>)]) -> Value {
    Value::Object(
        fields
            .iter()
            .filter_map(|(k, v)| Some(((*k).to_owned(), v.clone()?)))
            .collect(),
    )
}

fn v1_to_v2(object: &Value) -> Value {
    let mut out = json!({"apiVersion": V2, "kind": object["kind"].clone()});
    if let Some(metadata) = present(object, "metadata") {
        out["metadata"] = metadata.clone();
    }
    if let Some(spec) = present(object, "spec") {
        let mut metrics: Vec<Value> = present(spec, "targetCPUUtilizationPercentage")
            .map(|cpu| cpu_utilization_metric(cpu.clone()))
            .into_iter()
            .collect();
        if let Some(Ok(others)) = annotation(object, METRICS).map(|a| metric_specs_v2(&a?)) {
            metrics = others.into_iter().chain(metrics).collect();
        }
        if metrics.is_empty() {
            metrics.push(cpu_utilization_metric(json!(DEFAULT_CPU_UTILIZATION)));
        }
        let mut v2 = json!({
            "scaleTargetRef": spec.get("scaleTargetRef").cloned().unwrap_or(json!({})),
            "maxReplicas": spec.get("maxReplicas").cloned().unwrap_or(json!(0)),
            "metrics": metrics,
        });
        if let Some(min) = present(spec, "minReplicas") {
            v2["minReplicas"] = min.clone();
        }
        if let Some(Ok(Some(behavior))) = annotation(object, BEHAVIOR).map(|a| behavior_v2(&a?)) {
            v2["behavior"] = behavior;
        }
        out["spec"] = v2;
    }
    if let Some(status) = present(object, "status") {
        let mut v2 = json!({
            "desiredReplicas": status.get("desiredReplicas").cloned().unwrap_or(json!(0)),
            "currentMetrics": null,
        });
        for key in ["observedGeneration", "lastScaleTime"] {
            if let Some(v) = present(status, key) {
                v2[key] = v.clone();
            }
        }
        if let Some(replicas) = present(status, "currentReplicas").filter(|r| **r != json!(0)) {
            v2["currentReplicas"] = replicas.clone();
        }
        if let Some(cpu) = present(status, "currentCPUUtilizationPercentage") {
            v2["currentMetrics"] = json!([{"type": "Resource", "resource": {
                "name": "cpu", "current": {"averageUtilization": cpu},
            }}]);
        }
        if let Some(Ok(current)) =
            annotation(object, CURRENT_METRICS).map(|a| metric_statuses_v2(&a?))
        {
            v2["currentMetrics"] = Value::Array(current);
        }
        if let Some(Ok(conditions)) = annotation(object, CONDITIONS).map(|a| conditions_v2(&a?))
            && !conditions.is_empty()
        {
            v2["conditions"] = Value::Array(conditions);
        }
        out["status"] = v2;
    }
    drop_round_trip_annotations(&mut out);
    out
}

fn cpu_utilization_metric(utilization: Value) -> Value {
    json!({"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization},
    }})
}

/// v1's `CrossVersionObjectReference` decoded, as v2's.
fn object_reference_v2(value: Option<&Value>) -> Decoded<Value> {
    let r = go_struct(value)?;
    Ok(build(&[
        ("kind", Some(go_string(&r, "kind")?.unwrap_or(json!("")))),
        ("name", Some(go_string(&r, "name")?.unwrap_or(json!("")))),
        (
            "apiVersion",
            go_string(&r, "apiVersion")?.filter(|v| v != ""),
        ),
    ]))
}

/// v2's `MetricIdentifier` from a v1 source's name and selector fields.
fn identifier(source: &Map<String, Value>, selector: &str) -> Decoded<Value> {
    Ok(build(&[
        (
            "name",
            Some(go_string(source, "metricName")?.unwrap_or(json!(""))),
        ),
        ("selector", go_object(source, selector)?),
    ]))
}

/// A v1 `MetricSpec` list (the metrics annotation) as v2's.
fn metric_specs_v2(list: &Value) -> Decoded<Vec<Value>> {
    go_list(list)?.iter().map(metric_spec_v2).collect()
}

fn metric_spec_v2(metric: &Value) -> Decoded<Value> {
    let m = go_struct(Some(metric))?;
    let mut out = build(&[("type", Some(go_string(&m, "type")?.unwrap_or(json!(""))))]);
    if let Some(o) = go_field(&m, "object") {
        let o = go_struct(Some(o))?;
        let average = go_quantity(&o, "averageValue")?;
        let kind = if average.is_some() {
            "AverageValue"
        } else {
            "Value"
        };
        let value = go_quantity(&o, "targetValue")?.unwrap_or(json!("0"));
        out["object"] = json!({
            "describedObject": object_reference_v2(go_field(&o, "target"))?,
            "metric": identifier(&o, "selector")?,
            "target": build(&[("type", Some(json!(kind))), ("value", Some(value)), ("averageValue", average)]),
        });
    }
    if let Some(p) = go_field(&m, "pods") {
        let p = go_struct(Some(p))?;
        let average = go_quantity(&p, "targetAverageValue")?.unwrap_or(json!("0"));
        out["pods"] = json!({
            "metric": identifier(&p, "selector")?,
            "target": {"type": "AverageValue", "averageValue": average},
        });
    }
    for (key, container) in [("resource", false), ("containerResource", true)] {
        if let Some(r) = go_field(&m, key) {
            let r = go_struct(Some(r))?;
            let utilization = go_int32(&r, "targetAverageUtilization")?;
            let kind = if utilization.is_some() {
                "Utilization"
            } else {
                "AverageValue"
            };
            let target = build(&[
                ("type", Some(json!(kind))),
                ("averageValue", go_quantity(&r, "targetAverageValue")?),
                ("averageUtilization", utilization),
            ]);
            let name = go_string(&r, "name")?.unwrap_or(json!(""));
            let mut source = json!({"name": name, "target": target});
            if container {
                source["container"] = go_string(&r, "container")?.unwrap_or(json!(""));
            }
            out[key] = source;
        }
    }
    if let Some(e) = go_field(&m, "external") {
        let e = go_struct(Some(e))?;
        let value = go_quantity(&e, "targetValue")?;
        let kind = if value.is_some() {
            "Value"
        } else {
            "AverageValue"
        };
        out["external"] = json!({
            "metric": identifier(&e, "metricSelector")?,
            "target": build(&[
                ("type", Some(json!(kind))),
                ("value", value),
                ("averageValue", go_quantity(&e, "targetAverageValue")?),
            ]),
        });
    }
    Ok(out)
}

/// A v1 `MetricStatus` list (the current-metrics annotation) as v2's.
fn metric_statuses_v2(list: &Value) -> Decoded<Vec<Value>> {
    go_list(list)?.iter().map(metric_status_v2).collect()
}

fn metric_status_v2(metric: &Value) -> Decoded<Value> {
    let m = go_struct(Some(metric))?;
    let mut out = build(&[("type", Some(go_string(&m, "type")?.unwrap_or(json!(""))))]);
    if let Some(o) = go_field(&m, "object") {
        let o = go_struct(Some(o))?;
        let value = go_quantity(&o, "currentValue")?.unwrap_or(json!("0"));
        out["object"] = json!({
            "describedObject": object_reference_v2(go_field(&o, "target"))?,
            "metric": identifier(&o, "selector")?,
            "current": build(&[("value", Some(value)), ("averageValue", go_quantity(&o, "averageValue")?)]),
        });
    }
    if let Some(p) = go_field(&m, "pods") {
        let p = go_struct(Some(p))?;
        let average = go_quantity(&p, "currentAverageValue")?.unwrap_or(json!("0"));
        out["pods"] = json!({
            "metric": identifier(&p, "selector")?,
            "current": {"averageValue": average},
        });
    }
    for (key, container) in [("resource", false), ("containerResource", true)] {
        if let Some(r) = go_field(&m, key) {
            let r = go_struct(Some(r))?;
            let current = build(&[
                (
                    "averageValue",
                    Some(go_quantity(&r, "currentAverageValue")?.unwrap_or(json!("0"))),
                ),
                (
                    "averageUtilization",
                    go_int32(&r, "currentAverageUtilization")?,
                ),
            ]);
            let name = go_string(&r, "name")?.unwrap_or(json!(""));
            let mut source = json!({"name": name, "current": current});
            if container {
                source["container"] = go_string(&r, "container")?.unwrap_or(json!(""));
            }
            out[key] = source;
        }
    }
    if let Some(e) = go_field(&m, "external") {
        let e = go_struct(Some(e))?;
        let value = go_quantity(&e, "currentValue")?.unwrap_or(json!("0"));
        out["external"] = json!({
            "metric": identifier(&e, "metricSelector")?,
            "current": build(&[("value", Some(value)), ("averageValue", go_quantity(&e, "currentAverageValue")?)]),
        });
    }
    Ok(out)
}

/// v1 conditions (the conditions annotation) as v2's.
fn conditions_v2(list: &Value) -> Decoded<Vec<Value>> {
    go_list(list)?
        .iter()
        .map(|c| {
            let c = go_struct(Some(c))?;
            let time = go_string(&c, "lastTransitionTime")?.unwrap_or(Value::Null);
            Ok(build(&[
                ("type", Some(go_string(&c, "type")?.unwrap_or(json!("")))),
                (
                    "status",
                    Some(go_string(&c, "status")?.unwrap_or(json!(""))),
                ),
                ("lastTransitionTime", Some(time)),
                ("reason", go_string(&c, "reason")?.filter(|v| v != "")),
                ("message", go_string(&c, "message")?.filter(|v| v != "")),
            ]))
        })
        .collect()
}

/// The behavior annotation (the internal type's JSON) as v2's behavior; `None` when it sets
/// neither direction, which the apiserver does not carry over.
fn behavior_v2(behavior: &Value) -> Decoded<Option<Value>> {
    let b = go_struct(Some(behavior))?;
    let rules = |key: &str| -> Decoded<Option<Value>> {
        let Some(r) = go_field(&b, key) else {
            return Ok(None);
        };
        let r = go_struct(Some(r))?;
        let policies = match go_field(&r, "Policies") {
            None => None,
            Some(list) => Some(Value::Array(
                go_list(list)?
                    .iter()
                    .map(|p| {
                        let p = go_struct(Some(p))?;
                        Ok(json!({
                            "type": go_string(&p, "Type")?.unwrap_or(json!("")),
                            "value": go_int32(&p, "Value")?.unwrap_or(json!(0)),
                            "periodSeconds": go_int32(&p, "PeriodSeconds")?.unwrap_or(json!(0)),
                        }))
                    })
                    .collect::<Decoded<Vec<_>>>()?,
            )),
        };
        Ok(Some(build(&[
            (
                "stabilizationWindowSeconds",
                go_int32(&r, "StabilizationWindowSeconds")?,
            ),
            ("selectPolicy", go_string(&r, "SelectPolicy")?),
            ("policies", policies),
            ("tolerance", go_quantity(&r, "Tolerance")?),
        ])))
    };
    let (up, down) = (rules("ScaleUp")?, rules("ScaleDown")?);
    if up.is_none() && down.is_none() {
        return Ok(None);
    }
    Ok(Some(build(&[("scaleUp", up), ("scaleDown", down)])))
}

#[cfg(test)]
mod tests;
