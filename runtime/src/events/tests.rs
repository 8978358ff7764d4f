use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use k8s_openapi::api::core::v1::{ConfigMap, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use parking_lot::Mutex;
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;

use super::spam::SpamFilter;
use super::{Event, EventRecorder, EventRecorderConfig, EventType, Published, SpamFilterConfig};
use crate::metrics::Metrics;

fn object(name: &str) -> ObjectReference {
    ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("ConfigMap".into()),
        namespace: Some("ns".into()),
        name: Some(name.into()),
        uid: Some(format!("uid-{name}")),
        ..Default::default()
    }
}

#[test]
fn the_filter_lets_a_burst_of_25_through_then_one_every_5_minutes() {
    let mut filter = SpamFilter::new(SpamFilterConfig::default());
    let start = Instant::now();
    let a = object("a");
    for i in 0..25 {
        assert!(
            filter.allow(&a, EventType::Warning, start),
            "event {i} of the burst"
        );
    }
    assert!(
        !filter.allow(&a, EventType::Warning, start),
        "the 26th is dropped"
    );
    let almost = start + Duration::from_secs(299);
    assert!(!filter.allow(&a, EventType::Warning, almost));
    let later = start + Duration::from_secs(300);
    assert!(
        filter.allow(&a, EventType::Warning, later),
        "one token back after 300 s"
    );
    assert!(!filter.allow(&a, EventType::Warning, later), "only one");
    // Denied attempts cost nothing: the next token still comes 300 s after the last one.
    assert!(filter.allow(&a, EventType::Warning, later + Duration::from_secs(300)));
    // An hour idle refills the whole burst, not more.
    let idle = later + Duration::from_secs(300 + 25 * 300 + 3600);
    for _ in 0..25 {
        assert!(filter.allow(&a, EventType::Warning, idle));
    }
    assert!(!filter.allow(&a, EventType::Warning, idle));
}

#[test]
fn objects_and_event_types_have_their_own_buckets() {
    let mut filter = SpamFilter::new(SpamFilterConfig {
        burst: 1,
        ..SpamFilterConfig::default()
    });
    let now = Instant::now();
    assert!(filter.allow(&object("a"), EventType::Warning, now));
    assert!(!filter.allow(&object("a"), EventType::Warning, now));
    assert!(
        filter.allow(&object("a"), EventType::Normal, now),
        "another type"
    );
    assert!(
        filter.allow(&object("b"), EventType::Warning, now),
        "another object"
    );
    let mut recreated = object("a");
    recreated.uid = Some("another-uid".into());
    assert!(
        filter.allow(&recreated, EventType::Warning, now),
        "a new object under the old name"
    );
}

#[test]
fn the_filter_forgets_the_least_recently_seen_object_past_its_bound() {
    let mut filter = SpamFilter::new(SpamFilterConfig {
        burst: 1,
        max_tracked: NonZeroUsize::new(2).unwrap(),
        ..SpamFilterConfig::default()
    });
    let now = Instant::now();
    assert!(filter.allow(&object("a"), EventType::Normal, now));
    assert!(filter.allow(&object("b"), EventType::Normal, now));
    assert!(
        !filter.allow(&object("a"), EventType::Normal, now),
        "a is used again: b is oldest"
    );
    assert!(
        filter.allow(&object("c"), EventType::Normal, now),
        "c evicts b"
    );
    assert_eq!(filter.tracked(), 2);
    assert!(
        !filter.allow(&object("a"), EventType::Normal, now),
        "a is still tracked"
    );
    assert!(
        filter.allow(&object("b"), EventType::Normal, now),
        "b starts over"
    );
}

#[test]
fn a_zero_burst_turns_the_filter_off() {
    let mut filter = SpamFilter::new(SpamFilterConfig {
        burst: 0,
        ..SpamFilterConfig::default()
    });
    let now = Instant::now();
    for _ in 0..100 {
        assert!(filter.allow(&object("a"), EventType::Warning, now));
    }
}

/// A request the fake apiserver received: method, path, JSON body.
type Seen = (http::Method, String, serde_json::Value);

/// A kube client over a fake apiserver that records every request and echoes its body back
/// (201 for POST, 200 otherwise; 500 when the event's reason is `Refused`). Each request
/// waits for a permit of `gate`; `arrived` gets a message as each one arrives.
fn fake_apiserver(
    gate: Arc<Semaphore>,
) -> (
    kube::Client,
    Arc<Mutex<Vec<Seen>>>,
    mpsc::UnboundedReceiver<()>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (arrived_tx, arrived) = mpsc::unbounded_channel();
    let service = tower::service_fn({
        let seen = seen.clone();
        move |request: http::Request<kube::client::Body>| {
            let seen = seen.clone();
            let gate = gate.clone();
            let arrived_tx = arrived_tx.clone();
            async move {
                let _ = arrived_tx.send(());
                let permit = gate.acquire().await;
                permit.expect("the gate stays open").forget();
                let method = request.method().clone();
                let path = request.uri().path().to_owned();
                let body = request.into_body().collect().await?.to_bytes();
                let json: serde_json::Value = serde_json::from_slice(&body)?;
                let status = if json["reason"] == "Refused" {
                    500
                } else if method == http::Method::POST {
                    201
                } else {
                    200
                };
                seen.lock().push((method, path, json));
                let response = http::Response::builder()
                    .status(status)
                    .header("content-type", "application/json")
                    .body(Full::new(body))?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(response)
            }
        }
    });
    (kube::Client::new(service, "default"), seen, arrived)
}

fn event(reason: &str) -> Event {
    Event {
        type_: EventType::Normal,
        reason: reason.into(),
        note: Some(format!("note of {reason}")),
        action: "Reconcile".into(),
        secondary: None,
    }
}

/// Publishes an event with `reason` about the object `name`.
fn send(recorder: &EventRecorder, reason: &str, name: &str) -> Published {
    recorder.publish(event(reason), object(name))
}

fn dropped(metrics: &Metrics, reason: &str) -> String {
    let series = format!("kubegen_events_dropped_total{{reporter=\"ctl\",reason=\"{reason}\"}} ");
    let text = metrics.encode();
    text.lines()
        .find_map(|line| line.strip_prefix(&series))
        .unwrap_or_else(|| panic!("no {series} in\n{text}"))
        .to_owned()
}

#[tokio::test]
async fn publishing_queues_and_flush_waits_until_sent() {
    let (client, seen, _arrived) = fake_apiserver(Arc::new(Semaphore::new(1000)));
    let recorder = EventRecorder::new(client, "ctl".into());
    assert_eq!(send(&recorder, "First", "a"), Published::Queued);
    assert_eq!(send(&recorder, "First", "a"), Published::Queued);
    let map = ConfigMap {
        metadata: ObjectMeta {
            name: Some("b".into()),
            namespace: Some("ns".into()),
            uid: Some("uid-b".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    recorder.publish_for(&map, EventType::Warning, "Second", "Check", None);
    recorder.flush().await;

    let seen = seen.lock();
    assert_eq!(seen.len(), 3, "{seen:#?}");
    let (method, path, body) = &seen[0];
    assert_eq!(method, http::Method::POST);
    assert_eq!(path, "/apis/events.k8s.io/v1/namespaces/ns/events");
    assert_eq!(body["reason"], "First");
    assert_eq!(body["note"], "note of First");
    assert_eq!(body["reportingController"], "ctl");
    assert_eq!(body["regarding"]["uid"], "uid-a");
    // kube's recorder turns a repeat into a series on the first event.
    let (method, path, body) = &seen[1];
    assert_eq!(method, http::Method::PATCH);
    assert!(
        path.starts_with("/apis/events.k8s.io/v1/namespaces/ns/events/a."),
        "{path}"
    );
    assert_eq!(body["series"]["count"], 2);
    let (_, _, body) = &seen[2];
    assert_eq!(body["type"], "Warning");
    assert_eq!(body["action"], "Check");
    assert_eq!(
        body["regarding"],
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "b", "namespace": "ns", "uid": "uid-b"})
    );
}

#[tokio::test]
async fn a_slow_apiserver_never_blocks_publish_and_a_full_queue_drops() {
    let gate = Arc::new(Semaphore::new(0));
    let (client, seen, mut arrived) = fake_apiserver(gate.clone());
    let metrics = Metrics::new();
    let recorder = EventRecorder::with_config(
        client,
        "ctl".into(),
        EventRecorderConfig {
            queue_capacity: 2,
            metrics: Some(metrics.clone()),
            ..EventRecorderConfig::default()
        },
    );
    assert_eq!(send(&recorder, "E0", "o0"), Published::Queued);
    arrived.recv().await.unwrap(); // the task holds E0, waiting on the apiserver
    assert_eq!(send(&recorder, "E1", "o1"), Published::Queued);
    assert_eq!(send(&recorder, "E2", "o2"), Published::Queued);
    assert_eq!(send(&recorder, "E3", "o3"), Published::QueueFull);
    assert_eq!(dropped(&metrics, "queue_full"), "1");

    gate.add_permits(100);
    recorder.flush().await;
    let reasons: Vec<_> = seen
        .lock()
        .iter()
        .map(|(_, _, body)| body["reason"].clone())
        .collect();
    assert_eq!(reasons, ["E0", "E1", "E2"]);
}

#[tokio::test]
async fn spam_filtered_and_refused_events_are_counted() {
    let (client, seen, _arrived) = fake_apiserver(Arc::new(Semaphore::new(1000)));
    let metrics = Metrics::new();
    let recorder = EventRecorder::with_config(
        client,
        "ctl".into(),
        EventRecorderConfig {
            spam_filter: SpamFilterConfig {
                burst: 2,
                ..SpamFilterConfig::default()
            },
            metrics: Some(metrics.clone()),
            ..EventRecorderConfig::default()
        },
    );
    assert_eq!(send(&recorder, "One", "a"), Published::Queued);
    assert_eq!(send(&recorder, "Refused", "a"), Published::Queued);
    assert_eq!(
        send(&recorder, "Three", "a"),
        Published::SpamFiltered,
        "another reason does not escape the filter"
    );
    recorder.flush().await;
    assert_eq!(seen.lock().len(), 2);
    assert_eq!(dropped(&metrics, "spam"), "1");
    assert_eq!(dropped(&metrics, "error"), "1");
    assert_eq!(dropped(&metrics, "queue_full"), "0");
}

#[tokio::test(start_paused = true)]
async fn the_recorder_filters_on_the_tokio_clock() {
    let (client, seen, _arrived) = fake_apiserver(Arc::new(Semaphore::new(1000)));
    let recorder = EventRecorder::new(client, "ctl".into());
    let published: Vec<_> = (0..26)
        .map(|i| recorder.publish(event(&format!("E{i}")), object("a")))
        .collect();
    assert!(published[..25].iter().all(|p| *p == Published::Queued));
    assert_eq!(published[25], Published::SpamFiltered);
    tokio::time::advance(Duration::from_secs(300)).await;
    assert_eq!(send(&recorder, "Later", "a"), Published::Queued);
    recorder.flush().await;
    assert_eq!(seen.lock().len(), 26);
}
