//! Controllers on every backend: owned children and mapped watches queue the right key,
//! errors back off per key and `RequeueAfter` comes back (checked against the metrics too),
//! and a Manager's rules hold exactly what its parts declared.

mod common;
mod reconcilers;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::api::{Gadget, GadgetClientExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::Api;
use kubegen::controller::{Action, Controller, ObjectKey, Reconciler};
use kubegen::testing::TestEnv;
use reconcilers::{
    Calls, Part, PartSpec, Record, calls_for, eventually, fast_election, gadget, manager, start,
};

/// Records calls; makes sure every Gadget has a Part it controls.
struct Parts {
    client: kube::Client,
    calls: Calls,
}

impl Reconciler<Gadget> for Parts {
    type Error = kube::Error;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        gadget: Option<Arc<Gadget>>,
    ) -> Result<Action, kube::Error> {
        self.calls
            .lock()
            .unwrap()
            .push((key.clone(), Instant::now()));
        let Some(gadget) = gadget else {
            return Ok(Action::Done);
        };
        let namespace = key.namespace().unwrap_or_default();
        let parts = Api::<Part>::namespaced(self.client.clone(), namespace);
        let name = format!("{}-part", key.name());
        if parts.get_opt(&name).await?.is_none() {
            let mut part = Part::new(
                &name,
                PartSpec {
                    gadget: key.name().into(),
                },
            );
            part.metadata.owner_references = Some(vec![OwnerReference {
                api_version: "client.kubegen.dev/v1".into(),
                kind: "Gadget".into(),
                name: key.name().into(),
                uid: gadget.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                block_owner_deletion: None,
            }]);
            parts.create(&Default::default(), &part).await?;
        }
        Ok(Action::Done)
    }
}

#[kubegen::test]
async fn an_owned_childs_events_reconcile_its_owner(e: TestEnv) {
    let calls = Calls::default();
    let reconciler = Parts {
        client: e.client.clone(),
        calls: calls.clone(),
    };
    let (stop, run) = start(manager(&e).add(
        Controller::<Gadget>::new("gadget").owns::<Part>(),
        reconciler,
    ));
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("g")).await.unwrap();
    let parts = Api::<Part>::namespaced(e.client.clone(), &e.namespace);
    let key = ObjectKey::new(Some(&e.namespace), "g");
    eventually("the Part exists", || calls_for(&calls, &key).len() >= 2).await;
    assert!(parts.get_opt("g-part").await.unwrap().is_some());
    // Deleting the child wakes its owner, which puts it back.
    let before = calls_for(&calls, &key).len();
    parts.delete("g-part", &Default::default()).await.unwrap();
    eventually("the owner is reconciled again", || {
        calls_for(&calls, &key).len() > before
    })
    .await;
    let mut back = None;
    for _ in 0..100 {
        back = parts.get_opt("g-part").await.unwrap();
        if back.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(back.is_some(), "the owner recreated its Part");
    // The recreated Part's own event reconciles the owner once more; after that, quiet.
    eventually("the recreated Part's event is handled", || {
        calls_for(&calls, &key).len() >= before + 2
    })
    .await;
    // A Part nobody controls wakes no one.
    let settled = calls.lock().unwrap().len();
    parts
        .create(
            &Default::default(),
            &Part::new("stray", PartSpec { gadget: "g".into() }),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(calls.lock().unwrap().len(), settled);
    stop.cancel();
    run.await.unwrap().unwrap();
}

#[kubegen::test]
async fn a_mapped_watch_reconciles_the_keys_its_function_names(e: TestEnv) {
    let calls = Calls::default();
    let controller = Controller::<Gadget>::new("gadget").watches(|part: &Part| {
        vec![ObjectKey::new(
            part.metadata.namespace.as_deref(),
            &part.spec.gadget,
        )]
    });
    let (stop, run) = start(manager(&e).add(controller, Record(calls.clone())));
    let parts = Api::<Part>::namespaced(e.client.clone(), &e.namespace);
    parts
        .create(
            &Default::default(),
            &Part::new(
                "p",
                PartSpec {
                    gadget: "named".into(),
                },
            ),
        )
        .await
        .unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "named");
    eventually("the named key is reconciled", || {
        !calls_for(&calls, &key).is_empty()
    })
    .await;
    stop.cancel();
    run.await.unwrap().unwrap();
}

/// Fails a key's first `failures` reconciles, then succeeds; the last success asks to come
/// back after `again`.
struct Flaky {
    calls: Calls,
    failures: usize,
    again: Duration,
}

#[derive(Debug, thiserror::Error)]
#[error("flaky failure {0}")]
struct Failure(usize);

impl Reconciler<Gadget> for Flaky {
    type Error = Failure;

    async fn reconcile(&self, key: &ObjectKey, _: Option<Arc<Gadget>>) -> Result<Action, Failure> {
        let n = {
            let mut calls = self.calls.lock().unwrap();
            calls.push((key.clone(), Instant::now()));
            calls.iter().filter(|(k, _)| k == key).count()
        };
        match n {
            n if n <= self.failures => Err(Failure(n)),
            n if n == self.failures + 1 => Ok(Action::RequeueAfter(self.again)),
            _ => Ok(Action::Done),
        }
    }
}

#[kubegen::test]
async fn errors_back_off_per_key_and_requeue_after_comes_back(e: TestEnv) {
    let calls = Calls::default();
    let reconciler = Flaky {
        calls: calls.clone(),
        failures: 4,
        again: Duration::from_millis(300),
    };
    let controller = Controller::<Gadget>::new("flaky")
        .backoff(Duration::from_millis(40), Duration::from_secs(10))
        .concurrency(2);
    let manager = manager(&e).add(controller, reconciler);
    let metrics = manager.metrics().clone();
    let (stop, run) = start(manager);
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("f"))
        .await
        .unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "f");
    eventually("four failures, a success and the requeue", || {
        calls_for(&calls, &key).len() >= 6
    })
    .await;
    let at = calls_for(&calls, &key);
    // The gaps after failures 1..4 are at least the doubling backoff: 40, 80, 160, 320 ms.
    for (i, min) in [40u64, 80, 160, 320].into_iter().enumerate() {
        let gap = at[i + 1] - at[i];
        assert!(
            gap >= Duration::from_millis(min),
            "gap {i} was {gap:?}, below {min} ms"
        );
    }
    // The success forgot the backoff; RequeueAfter brought the key back after its delay.
    assert!(at[5] - at[4] >= Duration::from_millis(300));
    let text = metrics.encode();
    let value = |series: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.trim().parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no {series} in {text}"))
    };
    assert_eq!(
        value(r#"controller_runtime_reconcile_total{controller="flaky",result="error"}"#),
        4.0
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_total{controller="flaky",result="requeue_after"}"#),
        1.0
    );
    assert!(
        value(r#"controller_runtime_reconcile_total{controller="flaky",result="success"}"#) >= 1.0
    );
    assert_eq!(
        value(r#"controller_runtime_reconcile_errors_total{controller="flaky"}"#),
        4.0
    );
    assert!(value(r#"workqueue_retries_total{name="flaky",controller="flaky"}"#) >= 5.0);
    assert_eq!(
        value(r#"controller_runtime_max_concurrent_reconciles{controller="flaky"}"#),
        2.0
    );
    stop.cancel();
    run.await.unwrap().unwrap();
}

#[kubegen::test]
async fn manager_rules_cover_every_declared_read_and_write(e: TestEnv) {
    let mut manager = manager(&e).leader_election(fast_election(&e, "rules"));
    let _recorder = manager.event_recorder("gadget-controller");
    let manager = manager.add(
        Controller::<Gadget>::new("gadget").owns::<Part>().writes(
            kubegen::rbac::Rules::new()
                .grant_subresource::<Gadget>("status", &[kubegen::rbac::Verb::Patch]),
        ),
        Record(Calls::default()),
    );
    let rules: BTreeMap<String, Vec<String>> = manager
        .rules()
        .policy_rules()
        .into_iter()
        .flat_map(|r| {
            let groups = r.api_groups.unwrap_or_default();
            let verbs = r.verbs;
            r.resources
                .unwrap_or_default()
                .into_iter()
                .flat_map(move |res| {
                    let verbs = verbs.clone();
                    groups
                        .clone()
                        .into_iter()
                        .map(move |g| (format!("{g}/{res}"), verbs.clone()))
                })
        })
        .collect();
    let expect = |key: &str, verbs: &[&str]| {
        assert_eq!(
            rules.get(key).map(|v| v.as_slice()),
            Some(&verbs.iter().map(|v| v.to_string()).collect::<Vec<_>>()[..]),
            "{key} in {rules:#?}"
        );
    };
    expect("client.kubegen.dev/gadgets", &["list", "watch"]);
    expect("client.kubegen.dev/gadgets/status", &["patch"]);
    expect("manager.kubegen.dev/parts", &["list", "watch"]);
    expect("coordination.k8s.io/leases", &["create", "get", "update"]);
    expect("events.k8s.io/events", &["create", "patch"]);
    assert_eq!(rules.len(), 5, "{rules:#?}");
}
