use std::collections::HashMap;
use std::time::Duration;

use super::{Metrics, ReconcileOutcome};
use crate::workqueue::WorkQueue;

/// The samples of an OpenMetrics text: `name{labels}` → value.
fn samples(text: &str) -> HashMap<String, f64> {
    assert!(
        text.ends_with("# EOF\n"),
        "not a complete exposition:\n{text}"
    );
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect("a sample line");
            (series.to_owned(), value.parse::<f64>().expect("a number"))
        })
        .collect()
}

fn value(text: &str, series: &str) -> f64 {
    *samples(text)
        .get(series)
        .unwrap_or_else(|| panic!("no {series} in\n{text}"))
}

const Q: &str = r#"{name="c",controller="c"}"#;

fn queue_series(name: &str) -> String {
    format!("{name}{Q}")
}

#[tokio::test(start_paused = true)]
async fn a_driven_queue_reports_client_gos_metrics() {
    let metrics = Metrics::new();
    let q: WorkQueue<&str> = WorkQueue::new().with_metrics(metrics.workqueue("c"));
    let depth = r#"workqueue_depth{name="c",controller="c",priority=""}"#;

    q.add("a");
    q.add("b");
    q.add("a"); // already queued: not an add
    let text = metrics.encode();
    assert_eq!(value(&text, depth), 2.0);
    assert_eq!(value(&text, &queue_series("workqueue_adds_total")), 2.0);

    tokio::time::advance(Duration::from_secs(2)).await;
    let a = q.get().await.unwrap();
    let text = metrics.encode();
    assert_eq!(value(&text, depth), 1.0);
    assert_eq!(
        value(
            &text,
            &queue_series("workqueue_queue_duration_seconds_count")
        ),
        1.0
    );
    assert_eq!(
        value(&text, &queue_series("workqueue_queue_duration_seconds_sum")),
        2.0
    );
    let bucket = |le: &str| {
        value(
            &text,
            &format!(
                r#"workqueue_queue_duration_seconds_bucket{{le="{le}",name="c",controller="c"}}"#
            ),
        )
    };
    assert_eq!(bucket("1.0"), 0.0);
    assert_eq!(bucket("10.0"), 1.0);

    q.add(a); // while processing: counted now, as client-go counts it
    let text = metrics.encode();
    assert_eq!(value(&text, &queue_series("workqueue_adds_total")), 3.0);
    assert_eq!(value(&text, depth), 2.0);

    tokio::time::advance(Duration::from_secs(3)).await;
    q.done(&a); // queued again: no second add
    let text = metrics.encode();
    assert_eq!(value(&text, &queue_series("workqueue_adds_total")), 3.0);
    assert_eq!(value(&text, depth), 2.0);
    assert_eq!(
        value(
            &text,
            &queue_series("workqueue_work_duration_seconds_count")
        ),
        1.0
    );
    assert_eq!(
        value(&text, &queue_series("workqueue_work_duration_seconds_sum")),
        3.0
    );

    q.add_after("c", Duration::ZERO);
    q.add_after("d", Duration::from_millis(10));
    q.add_rate_limited("e");
    let text = metrics.encode();
    assert_eq!(value(&text, &queue_series("workqueue_retries_total")), 3.0);
    assert_eq!(value(&text, depth), 3.0, "only c is due");
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(value(&metrics.encode(), depth), 5.0);
}

#[tokio::test(start_paused = true)]
async fn unfinished_work_is_updated_every_half_second() {
    let metrics = Metrics::new();
    let q: WorkQueue<&str> = WorkQueue::new().with_metrics(metrics.workqueue("c"));
    q.add("a");
    q.add("b");
    let a = q.get().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let b = q.get().await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // The last update ran 2 s after `a` was taken and 1 s after `b`.
    let text = metrics.encode();
    assert_eq!(
        value(&text, &queue_series("workqueue_unfinished_work_seconds")),
        3.0
    );
    assert_eq!(
        value(
            &text,
            &queue_series("workqueue_longest_running_processor_seconds")
        ),
        2.0
    );
    q.done(&a);
    q.done(&b);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let text = metrics.encode();
    assert_eq!(
        value(&text, &queue_series("workqueue_unfinished_work_seconds")),
        0.0
    );
    q.add("c");
    let _c = q.get().await.unwrap();
    q.shut_down();
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        value(
            &metrics.encode(),
            &queue_series("workqueue_unfinished_work_seconds")
        ),
        0.0,
        "no updates after shutdown"
    );
}

#[test]
fn queue_histograms_have_client_gos_buckets() {
    let metrics = Metrics::new();
    let _wq = metrics.workqueue("c");
    let text = metrics.encode();
    let mut les: Vec<f64> = samples(&text)
        .keys()
        .filter(|series| series.starts_with("workqueue_work_duration_seconds_bucket{"))
        .map(|series| {
            let le = series
                .split("le=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().unwrap()
            }
        })
        .collect();
    les.sort_by(f64::total_cmp);
    let mut expected: Vec<f64> = (0..12).map(|i| 1e-8 * 10f64.powi(i)).collect();
    expected.push(f64::INFINITY);
    assert_eq!(les.len(), expected.len(), "{les:?}");
    for (got, want) in les.iter().zip(&expected) {
        assert!(
            (got / want - 1.0).abs() < 1e-9 || got == want,
            "{got} != {want}"
        );
    }
}

#[test]
fn reconcile_metrics_precreate_results_and_count_outcomes() {
    let metrics = Metrics::new();
    let r = metrics.reconcile("c");
    let total = |text: &str, result: &str| {
        value(
            text,
            &format!(r#"controller_runtime_reconcile_total{{controller="c",result="{result}"}}"#),
        )
    };
    let text = metrics.encode();
    for result in ["success", "error", "requeue", "requeue_after"] {
        assert_eq!(
            total(&text, result),
            0.0,
            "{result} exists before any reconcile"
        );
    }
    r.set_max_concurrent(4);
    r.observe(ReconcileOutcome::Success, Duration::from_millis(3));
    r.observe(ReconcileOutcome::Error, Duration::from_millis(70));
    r.observe(ReconcileOutcome::Error, Duration::from_secs(90));
    r.observe(ReconcileOutcome::RequeueAfter, Duration::from_millis(1));
    r.panicked();
    let worker = r.worker_started();
    let second = metrics.reconcile("c").worker_started();
    let text = metrics.encode();
    assert_eq!(total(&text, "success"), 1.0);
    assert_eq!(total(&text, "error"), 2.0);
    assert_eq!(total(&text, "requeue"), 0.0);
    assert_eq!(total(&text, "requeue_after"), 1.0);
    let c = r#"{controller="c"}"#;
    assert_eq!(
        value(
            &text,
            &format!("controller_runtime_reconcile_errors_total{c}")
        ),
        2.0
    );
    assert_eq!(
        value(
            &text,
            &format!("controller_runtime_reconcile_panics_total{c}")
        ),
        1.0
    );
    assert_eq!(
        value(
            &text,
            &format!("controller_runtime_max_concurrent_reconciles{c}")
        ),
        4.0
    );
    assert_eq!(
        value(&text, &format!("controller_runtime_active_workers{c}")),
        2.0
    );
    assert_eq!(
        value(
            &text,
            &format!("controller_runtime_reconcile_time_seconds_count{c}")
        ),
        4.0
    );
    let bucket = |le: &str| {
        value(
            &text,
            &format!(
                r#"controller_runtime_reconcile_time_seconds_bucket{{le="{le}",controller="c"}}"#
            ),
        )
    };
    assert_eq!(bucket("0.005"), 2.0);
    assert_eq!(bucket("0.1"), 3.0);
    assert_eq!(bucket("60.0"), 3.0);
    assert_eq!(bucket("+Inf"), 4.0);
    drop(worker);
    drop(second);
    assert_eq!(
        value(
            &metrics.encode(),
            &format!("controller_runtime_active_workers{c}")
        ),
        0.0
    );
}

#[test]
fn asking_twice_for_one_controller_shares_the_series() {
    let metrics = Metrics::new();
    metrics
        .reconcile("c")
        .observe(ReconcileOutcome::Requeue, Duration::ZERO);
    metrics
        .reconcile("c")
        .observe(ReconcileOutcome::Requeue, Duration::ZERO);
    metrics.workqueue("c");
    metrics.workqueue("c");
    metrics.reconcile("other");
    let text = metrics.encode();
    assert_eq!(
        value(
            &text,
            r#"controller_runtime_reconcile_total{controller="c",result="requeue"}"#
        ),
        2.0
    );
    for family in [
        "workqueue_depth",
        "controller_runtime_reconcile",
        "workqueue_adds",
    ] {
        let header = format!("# TYPE {family} ");
        assert_eq!(text.matches(&header).count(), 1, "{family} registered once");
    }
    assert!(
        text.contains(
            r#"controller_runtime_reconcile_total{controller="other",result="success"} 0"#
        )
    );
}

#[test]
fn leader_status_and_user_metrics_are_served() {
    let metrics = Metrics::new();
    let leader = metrics.leader_election("cronjob-operator");
    leader.set_leading(true);
    let series = r#"leader_election_master_status{name="cronjob-operator"}"#;
    assert_eq!(value(&metrics.encode(), series), 1.0);
    leader.set_leading(false);
    assert_eq!(value(&metrics.encode(), series), 0.0);

    let mine: prometheus_client::metrics::gauge::Gauge = Default::default();
    metrics
        .registry()
        .register("my_things", "Things", mine.clone());
    mine.set(7);
    assert_eq!(value(&metrics.encode(), "my_things"), 7.0);
}

#[cfg(feature = "manager")]
mod server {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_util::sync::CancellationToken;

    use super::super::{HealthChecks, Metrics, serve};

    async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, String, String) {
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: metrics\r\nConnection: close\r\n\r\n");
        tcp.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        tcp.read_to_string(&mut response).await.unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, head.to_owned(), body.to_owned())
    }

    #[tokio::test]
    async fn serves_metrics_and_health_over_loopback() {
        let metrics = Metrics::new();
        metrics.leader_election("lease").set_leading(true);
        let health = HealthChecks::new();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shutdown = CancellationToken::new();
        let server = tokio::spawn(serve(
            listener,
            metrics.clone(),
            health.clone(),
            shutdown.clone(),
        ));

        let (status, head, body) = get(addr, "/metrics").await;
        assert_eq!(status, 200);
        assert!(
            head.to_ascii_lowercase().contains(
                "content-type: application/openmetrics-text; version=1.0.0; charset=utf-8"
            ),
            "{head}"
        );
        assert!(
            body.contains("leader_election_master_status{name=\"lease\"} 1\n"),
            "{body}"
        );
        assert!(body.ends_with("# EOF\n"));

        // No checks: a built-in ping passes.
        assert_eq!(
            get(addr, "/healthz").await,
            (200, get(addr, "/healthz").await.1, "ok".into())
        );
        assert_eq!(
            get(addr, "/readyz?verbose").await.2,
            "[+]ping ok\nreadyz check passed\n"
        );
        assert_eq!(get(addr, "/healthz/ping").await.2, "ok");

        // Checks added after the server started are served.
        health.add_readyz("informers", || Ok(())).unwrap();
        health
            .add_readyz("leader", || Err("not leading".into()))
            .unwrap();
        assert!(
            health.add_readyz("leader", || Ok(())).is_err(),
            "names are unique"
        );
        let (status, _, body) = get(addr, "/readyz").await;
        assert_eq!(status, 500);
        assert_eq!(
            body,
            "[+]informers ok\n[-]leader failed: reason withheld\nreadyz check failed\n"
        );
        let (status, _, body) = get(addr, "/readyz?exclude=leader&exclude=nope").await;
        assert_eq!(status, 200);
        assert_eq!(body, "ok");
        let (status, _, body) = get(addr, "/readyz?exclude=leader&exclude=nope&verbose=1").await;
        assert_eq!(status, 200);
        assert_eq!(
            body,
            "[+]informers ok\n[+]leader excluded: ok\n\
             warn: some health checks cannot be excluded: no matches for \"nope\"\n\
             readyz check passed\n"
        );
        assert_eq!(get(addr, "/readyz/informers").await.0, 200);
        let (status, _, body) = get(addr, "/readyz/leader").await;
        assert_eq!(
            (status, body.as_str()),
            (500, "internal server error: not leading\n")
        );
        assert_eq!(get(addr, "/readyz/missing").await.0, 404);
        assert_eq!(
            get(addr, "/readyz/ping").await.0,
            404,
            "ping only stands in for no checks"
        );
        assert_eq!(
            get(addr, "/healthz").await.2,
            "ok",
            "liveness checks are separate"
        );
        assert_eq!(get(addr, "/other").await.0, 404);

        shutdown.cancel();
        server.await.unwrap().unwrap();
        assert!(
            tokio::net::TcpStream::connect(addr).await.is_err(),
            "no longer listening"
        );
    }
}
