//! Events as kube-controller-manager's controllers record them: client-go's `record`
//! package writing core/v1 Events, with its correlator in front — a token bucket per source
//! and object (25 events, then one per 5 minutes), similar events (differing in message
//! only) combined after 10 in 10 minutes, and a repeated event counted on the one already
//! written (a strategic merge patch of `count`, `lastTimestamp` and `message`).

use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use serde_json::{Value, json};

use super::api::{Api, EVENTS, Patch};

/// The token bucket's burst and refill rate per second.
const SPAM_BURST: f64 = 25.0;
const SPAM_QPS: f64 = 1.0 / 300.0;
/// Similar events past this many within the interval are combined.
const AGGREGATE_MAX: usize = 10;
const AGGREGATE_INTERVAL_SECONDS: i64 = 600;

/// `Normal` or `Warning`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventType {
    Normal,
    Warning,
}

impl EventType {
    fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

struct Bucket {
    tokens: f64,
    last: Timestamp,
}

struct Aggregate {
    messages: HashSet<String>,
    last: Timestamp,
}

/// What was written for an event key: its name and how often it happened.
struct Written {
    name: String,
    namespace: String,
    count: i64,
    first: String,
}

/// One controller's event recorder (its `source.component`).
pub(crate) struct Recorder {
    component: &'static str,
    spam: HashMap<String, Bucket>,
    aggregates: HashMap<String, Aggregate>,
    written: HashMap<String, Written>,
    /// The last name suffix used: names stay unique when the clock stands still.
    last_nanos: i128,
}

impl Recorder {
    pub(crate) fn new(component: &'static str) -> Self {
        Recorder {
            component,
            spam: HashMap::new(),
            aggregates: HashMap::new(),
            written: HashMap::new(),
            last_nanos: 0,
        }
    }

    /// Records an event about `object` (a stored object: apiVersion, kind and metadata).
    pub(crate) fn record(
        &mut self,
        api: &Api,
        object: &Value,
        kind: EventType,
        reason: &str,
        message: &str,
    ) {
        let now = api.clock().now();
        let meta = &object["metadata"];
        let reference = json!({
            "kind": object["kind"],
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta["uid"],
            "apiVersion": object["apiVersion"],
            "resourceVersion": meta["resourceVersion"],
        });
        let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
        let object_key = [
            self.component,
            "",
            &text(&reference["kind"]),
            &text(&reference["namespace"]),
            &text(&reference["name"]),
            &text(&reference["uid"]),
            &text(&reference["apiVersion"]),
        ]
        .concat();
        // Similar events: the same source, object, type and reason.
        let aggregate_key = [&object_key, kind.as_str(), reason, self.component, ""].concat();
        let mut event_key = [&object_key, "", kind.as_str(), reason, message].concat();
        let mut message = message.to_owned();
        let aggregate = self
            .aggregates
            .entry(aggregate_key.clone())
            .or_insert_with(|| Aggregate {
                messages: HashSet::new(),
                last: now,
            });
        if now.duration_since(aggregate.last).as_secs() > AGGREGATE_INTERVAL_SECONDS {
            aggregate.messages.clear();
        }
        aggregate.messages.insert(message.clone());
        aggregate.last = now;
        if aggregate.messages.len() >= AGGREGATE_MAX {
            if let Some(any) = aggregate.messages.iter().next().cloned() {
                aggregate.messages.remove(&any);
            }
            message = format!("(combined from similar events): {message}");
            event_key = aggregate_key;
        }
        // The spam filter has the last word, after the event was counted.
        let bucket = self.spam.entry(object_key).or_insert(Bucket {
            tokens: SPAM_BURST,
            last: now,
        });
        let elapsed = now.duration_since(bucket.last).as_secs_f64().max(0.0);
        bucket.tokens = (bucket.tokens + elapsed * SPAM_QPS).min(SPAM_BURST);
        bucket.last = now;
        let stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        let previous = self.written.get(&event_key);
        if bucket.tokens < 1.0 {
            return;
        }
        bucket.tokens -= 1.0;
        if let Some(previous) = previous {
            let patch =
                json!({"count": previous.count + 1, "lastTimestamp": stamp, "message": message});
            let (name, namespace) = (previous.name.clone(), previous.namespace.clone());
            match api.patch(EVENTS, &namespace, &name, None, Patch::Strategic, &patch) {
                Ok(_) => {
                    if let Some(w) = self.written.get_mut(&event_key) {
                        w.count += 1;
                    }
                    return;
                }
                // Gone meanwhile: written anew.
                Err(e) if e.is_not_found() => {}
                Err(_) => return,
            }
        }
        let first = previous.map_or_else(|| stamp.clone(), |p| p.first.clone());
        let count = previous.map_or(1, |p| p.count + 1);
        let nanos = now.as_nanosecond().max(self.last_nanos + 1);
        self.last_nanos = nanos;
        let namespace = match reference["namespace"].as_str() {
            Some(ns) if !ns.is_empty() => ns.to_owned(),
            _ => "default".to_owned(),
        };
        let name = format!("{}.{nanos:x}", text(&reference["name"]));
        let event = json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": reference,
            "reason": reason,
            "message": message,
            "source": {"component": self.component},
            "firstTimestamp": first,
            "lastTimestamp": stamp,
            "count": count,
            "type": kind.as_str(),
            "eventTime": null,
            "reportingComponent": self.component,
            "reportingInstance": "",
        });
        if api.create(EVENTS, &namespace, event).is_ok() {
            self.written.insert(
                event_key,
                Written {
                    name,
                    namespace,
                    count,
                    first,
                },
            );
        }
    }
}
