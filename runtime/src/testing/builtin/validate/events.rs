//! `events.k8s.io/v1` Event. The apiserver converts it to the core Event and validates
//! that (`ValidateEventCreate` / `ValidateEventUpdate` with the strict checks of newer APIs),
//! so its errors name core fields: `involvedObject` for `regarding`, `message` for `note`.

use serde_json::{Map, Value};

use super::{Meta, Write, core};
use crate::validation::FieldError;

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
        Write::Create => core::strict_event(&event, write, meta),
        Write::Update(old) => core::strict_event(&event, Write::Update(&as_core(old)), meta),
        Write::Status(old) => core::strict_event(&event, Write::Status(&as_core(old)), meta),
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
