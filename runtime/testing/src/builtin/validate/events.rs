//! `events.k8s.io/v1` Event. The apiserver converts it to the core Event and validates
//! that (`ValidateEventCreate` / `ValidateEventUpdate` with the strict checks of newer APIs),
//! so its errors name core fields: `involvedObject` for `regarding`, `message` for `note`.

use serde_json::{Map, Value};

use super::common::{get, int, set, text};
use super::{Meta, Write};
use kubegen_runtime::validation::names::{dns1123_subdomain, qualified_name};
use kubegen_runtime::validation::{BadValue, FieldError};

/// The kind's checks with object metadata in Go's place; `None` for another kind.
pub(super) fn validate(
    kind: &str,
    object: &Value,
    write: Write<'_>,
    meta: &Meta<'_>,
) -> Option<Vec<FieldError>> {
    if kind != "Event" {
        return None;
    }
    let event = as_core(object);
    Some(match write {
        Write::Create => strict_event(&event, write, meta),
        Write::Update(old) => strict_event(&event, Write::Update(&as_core(old)), meta),
        Write::Status(old) => strict_event(&event, Write::Status(&as_core(old)), meta),
    })
}

/// An events.k8s.io/v1 Event with its fields renamed to the core Event's.
fn as_core(event: &Value) -> Value {
    let Value::Object(fields) = event else {
        return event.clone();
    };
    let mut out = Map::new();
    for (key, value) in fields {
        let name = match key.as_str() {
            "regarding" => "involvedObject",
            "note" => "message",
            "deprecatedSource" => "source",
            "deprecatedFirstTimestamp" => "firstTimestamp",
            "deprecatedLastTimestamp" => "lastTimestamp",
            "deprecatedCount" => "count",
            "reportingController" => "reportingComponent",
            other => other,
        };
        out.insert(name.to_owned(), value.clone());
    }
    Value::Object(out)
}

/// The strict checks of an Event written through events.k8s.io, on the object converted to
/// the core shape (`involvedObject`, `message`, `reportingComponent`, ...):
/// `ValidateEventCreate` and `ValidateEventUpdate` for a request of a newer API than v1.
fn strict_event(event: &Value, write: Write<'_>, meta: &Meta<'_>) -> Vec<FieldError> {
    let mut errs = legacy_event(event, true);
    match write {
        Write::Create => {
            errs.extend(meta.create());
            errs.extend(event_series(event));
            if !set(event, "eventTime") {
                errs.push(FieldError::required("eventTime", ""));
            }
            let t = text(event, "type");
            if t != "Normal" && t != "Warning" {
                errs.push(FieldError::invalid(
                    "type",
                    BadValue::str(""),
                    format!("has invalid value: {t}"),
                ));
            }
        }
        Write::Update(old) | Write::Status(old) => {
            errs.extend(meta.update(old));
            if get(event, "series") != get(old, "series") {
                errs.extend(event_series(event));
            }
            // `reason` twice, as Go checks it.
            for key in [
                "involvedObject",
                "reason",
                "message",
                "source",
                "firstTimestamp",
                "lastTimestamp",
                "count",
                "reason",
                "type",
                "eventTime",
                "action",
                "related",
                "reportingComponent",
                "reportingInstance",
            ] {
                let (new, before) = (get(event, key), get(old, key));
                if new != before {
                    let path = if key == "reportingComponent" {
                        "reportingController"
                    } else {
                        key
                    };
                    let shown = match new {
                        Value::Object(_) => BadValue::Json(new.clone()),
                        other => BadValue::of(other),
                    };
                    errs.push(FieldError::invalid(path, shown, "field is immutable"));
                }
            }
        }
    }
    errs
}

/// `legacyValidateEvent`; `strict` for a request through events.k8s.io (its field is
/// named `reportingController` there).
pub(super) fn legacy_event(event: &Value, strict: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let namespace = text(get(event, "metadata"), "namespace");
    let involved_ns = text(get(event, "involvedObject"), "namespace");
    let mismatch = || {
        FieldError::invalid(
            "involvedObject.namespace",
            BadValue::str(involved_ns),
            "does not match event.namespace",
        )
    };
    if !set(event, "eventTime") {
        if involved_ns.is_empty() {
            if !namespace.is_empty() && namespace != "default" {
                errs.push(mismatch());
            }
        } else if namespace != involved_ns {
            errs.push(mismatch());
        }
    } else {
        if involved_ns.is_empty() && namespace != "default" && namespace != "kube-system" {
            errs.push(mismatch());
        }
        let controller_path = if strict {
            "reportingController"
        } else {
            "reportingComponent"
        };
        let controller = text(event, "reportingComponent");
        if controller.is_empty() {
            errs.push(FieldError::required(controller_path, ""));
        }
        for msg in qualified_name(controller) {
            errs.push(FieldError::invalid(
                controller_path,
                BadValue::str(controller),
                msg,
            ));
        }
        for (key, limit) in [("reportingInstance", 128), ("action", 128), ("reason", 128)] {
            let value = text(event, key);
            if value.is_empty() {
                errs.push(FieldError::required(key, ""));
            }
            if value.len() > limit {
                errs.push(at_most(key, limit));
            }
        }
        if text(event, "message").len() > 1024 {
            errs.push(at_most("message", 1024));
        }
    }
    for msg in dns1123_subdomain(namespace) {
        errs.push(FieldError::invalid(
            "namespace",
            BadValue::str(namespace),
            msg,
        ));
    }
    errs
}

fn at_most(path: &str, limit: usize) -> FieldError {
    FieldError::invalid(
        path,
        BadValue::str(""),
        format!("can have at most {limit} characters"),
    )
}

/// `validateV1EventSeries`.
fn event_series(event: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let series = get(event, "series");
    if series.is_object() {
        if int(series, "count").unwrap_or(0) < 2 {
            errs.push(FieldError::invalid(
                "series.count",
                BadValue::str(""),
                "should be at least 2",
            ));
        }
        if !set(series, "lastObservedTime") {
            errs.push(FieldError::required("series.lastObservedTime", ""));
        }
    }
    errs
}
