//! Controllers on every backend: owned children and mapped watches queue the right key,
//! errors back off per key and `RequeueAfter` comes back (checked against the metrics too),
//! predicates decide per source which events reconcile, terminal errors are not retried and
//! reconciles past their timeout are stopped and retried, and a Manager's rules hold exactly
//! what its parts declared.

use crate::fixtures::gadgets;
use crate::fixtures::reconcilers;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use gadgets::api::{Gadget, GadgetClientExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, Patch, PatchParams};
use kubegen::controller::predicate::{GenerationChanged, Labels};
use kubegen::controller::util::{
    self, Finalizing, OperationResult, create_or_patch, create_or_update, finalize,
    set_controller_reference,
};
use kubegen::controller::{Action, Controller, ObjectKey, Reconciler, TerminalError};
use kubegen::metrics::Metrics;
use kubegen::selector::LabelSelector;
use kubegen::testing::TestEnv;
use reconcilers::{
    Calls, Part, PartSpec, Record, calls_for, eventually, fast_election, gadget, manager, note,
    start,
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
        note(&self.calls, key);
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
        match note(&self.calls, key) {
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
    let value = |name: &str| series(&metrics, name);
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
    expect("client.kubegen.dev/gadgets/finalizers", &["update"]);
    expect("manager.kubegen.dev/parts", &["list", "watch"]);
    expect("coordination.k8s.io/leases", &["create", "get", "update"]);
    expect("events.k8s.io/events", &["create", "patch"]);
    assert_eq!(rules.len(), 6, "{rules:#?}");
}

/// A series' value in the metrics text.
fn series(metrics: &Metrics, series: &str) -> f64 {
    let text = metrics.encode();
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.trim().parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no {series} in {text}"))
}

/// Waits long enough for any event in flight to have been handled, then says how many
/// reconciles `key` has had.
async fn settled_calls(calls: &Calls, key: &ObjectKey) -> usize {
    tokio::time::sleep(Duration::from_millis(400)).await;
    calls_for(calls, key).len()
}

#[kubegen::test]
async fn predicates_decide_per_source_which_events_reconcile(e: TestEnv) {
    let calls = Calls::default();
    let controller = Controller::<Gadget>::new("picky")
        .with_predicate(GenerationChanged)
        .owns_with::<Part>(Labels::new(LabelSelector::parse("wake=yes").unwrap()))
        .watches_with(
            |part: &Part| {
                vec![ObjectKey::new(
                    part.metadata.namespace.as_deref(),
                    &part.spec.gadget,
                )]
            },
            GenerationChanged,
        );
    let (stop, run) = start(manager(&e).add(controller, Record(calls.clone())));
    let gadgets = Api::<Gadget>::namespaced(e.client.clone(), &e.namespace);
    let created = e
        .client
        .gadgets(&e.namespace)
        .create(&gadget("p"))
        .await
        .unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "p");
    // A create passes GenerationChanged.
    eventually("the create is reconciled", || {
        calls_for(&calls, &key).len() == 1
    })
    .await;
    // A label leaves the generation alone: skipped.
    let label = serde_json::json!({"metadata": {"labels": {"touched": "yes"}}});
    gadgets
        .patch("p", &PatchParams::default(), &Patch::Merge(&label))
        .await
        .unwrap();
    assert_eq!(
        settled_calls(&calls, &key).await,
        1,
        "a label change is skipped"
    );
    // A spec change bumps it: reconciled.
    let spec = serde_json::json!({"spec": {"color": "blue"}});
    gadgets
        .patch("p", &PatchParams::default(), &Patch::Merge(&spec))
        .await
        .unwrap();
    eventually("the spec change is reconciled", || {
        calls_for(&calls, &key).len() == 2
    })
    .await;
    // An owned Part without the label wakes nobody (its mapped watch's create passes, but
    // it names another key); with the label, its owner.
    let parts = Api::<Part>::namespaced(e.client.clone(), &e.namespace);
    let owned = |name: &str, labels: serde_json::Value| {
        serde_json::from_value::<Part>(serde_json::json!({
            "apiVersion": "manager.kubegen.dev/v1", "kind": "Part",
            "metadata": {"name": name, "labels": labels, "ownerReferences": [{
                "apiVersion": "client.kubegen.dev/v1", "kind": "Gadget", "name": "p",
                "uid": created.metadata.uid.clone().unwrap(), "controller": true,
            }]},
            "spec": {"gadget": "elsewhere"},
        }))
        .unwrap()
    };
    parts
        .create(&Default::default(), &owned("quiet", serde_json::json!({})))
        .await
        .unwrap();
    assert_eq!(
        settled_calls(&calls, &key).await,
        2,
        "an unlabelled child is skipped"
    );
    parts
        .create(
            &Default::default(),
            &owned("loud", serde_json::json!({"wake": "yes"})),
        )
        .await
        .unwrap();
    eventually("the labelled child wakes its owner", || {
        calls_for(&calls, &key).len() == 3
    })
    .await;
    // The mapped watch's create passed: the key it names was reconciled, once per Part.
    let elsewhere = ObjectKey::new(Some(&e.namespace), "elsewhere");
    eventually("the mapped key is reconciled", || {
        calls_for(&calls, &elsewhere).len() == 2
    })
    .await;
    // A label on a Part: the owned source's Labels passes it (the Part still matches),
    // the mapped watch's GenerationChanged does not.
    parts
        .patch("loud", &PatchParams::default(), &Patch::Merge(&label))
        .await
        .unwrap();
    eventually("the relabelled child wakes its owner", || {
        calls_for(&calls, &key).len() == 4
    })
    .await;
    assert_eq!(
        settled_calls(&calls, &elsewhere).await,
        2,
        "the mapped update is skipped"
    );
    stop.cancel();
    run.await.unwrap().unwrap();
}

/// Fails every reconcile of a Gadget whose color is `black` for good; counts the rest.
struct Strict(Calls);

impl Reconciler<Gadget> for Strict {
    type Error = TerminalError;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        gadget: Option<Arc<Gadget>>,
    ) -> Result<Action, TerminalError> {
        note(&self.0, key);
        match gadget {
            Some(g) if g.spec.color == "black" => Err(TerminalError::new("black is not a color")),
            _ => Ok(Action::Done),
        }
    }
}

#[kubegen::test]
async fn a_terminal_error_is_counted_and_not_retried_until_the_next_event(e: TestEnv) {
    let calls = Calls::default();
    let controller = Controller::<Gadget>::new("strict")
        .backoff(Duration::from_millis(5), Duration::from_millis(50));
    let manager = manager(&e).add(controller, Strict(calls.clone()));
    let metrics = manager.metrics().clone();
    let (stop, run) = start(manager);
    let mut black = gadget("t");
    black.spec.color = "black".into();
    e.client.gadgets(&e.namespace).create(&black).await.unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "t");
    eventually("the first reconcile", || calls_for(&calls, &key).len() == 1).await;
    // With a 5 ms backoff a retried error would have come back many times by now.
    assert_eq!(
        settled_calls(&calls, &key).await,
        1,
        "a terminal error is not retried"
    );
    let terminal = r#"controller_runtime_terminal_reconcile_errors_total{controller="strict"}"#;
    assert_eq!(series(&metrics, terminal), 1.0);
    assert_eq!(
        series(
            &metrics,
            r#"controller_runtime_reconcile_errors_total{controller="strict"}"#
        ),
        1.0
    );
    assert_eq!(
        series(
            &metrics,
            r#"controller_runtime_reconcile_total{controller="strict",result="error"}"#
        ),
        1.0
    );
    // The next event brings the key back; fixed, it succeeds.
    let fixed = serde_json::json!({"spec": {"color": "white"}});
    Api::<Gadget>::namespaced(e.client.clone(), &e.namespace)
        .patch("t", &PatchParams::default(), &Patch::Merge(&fixed))
        .await
        .unwrap();
    eventually("the fixed object is reconciled", || {
        calls_for(&calls, &key).len() == 2
    })
    .await;
    assert_eq!(
        series(
            &metrics,
            r#"controller_runtime_reconcile_total{controller="strict",result="success"}"#
        ),
        1.0
    );
    assert_eq!(series(&metrics, terminal), 1.0);
    stop.cancel();
    run.await.unwrap().unwrap();
}

/// Hangs on a key's first reconcile; later ones return at once.
struct Hangs(Calls);

impl Reconciler<Gadget> for Hangs {
    type Error = kube::Error;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        _: Option<Arc<Gadget>>,
    ) -> Result<Action, kube::Error> {
        if note(&self.0, key) == 1 {
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Ok(Action::Done)
    }
}

#[kubegen::test]
async fn a_reconcile_past_its_timeout_is_stopped_counted_and_retried(e: TestEnv) {
    let calls = Calls::default();
    let controller = Controller::<Gadget>::new("slow")
        .reconcile_timeout(Duration::from_millis(200))
        .backoff(Duration::from_millis(20), Duration::from_secs(1));
    let manager = manager(&e).add(controller, Hangs(calls.clone()));
    let metrics = manager.metrics().clone();
    let (stop, run) = start(manager);
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("s"))
        .await
        .unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "s");
    eventually("the retry after the timeout", || {
        calls_for(&calls, &key).len() == 2
    })
    .await;
    let at = calls_for(&calls, &key);
    assert!(
        at[1] - at[0] >= Duration::from_millis(200),
        "retried after {:?}",
        at[1] - at[0]
    );
    assert_eq!(
        series(
            &metrics,
            r#"controller_runtime_reconcile_timeouts_total{controller="slow"}"#
        ),
        1.0
    );
    assert_eq!(
        series(
            &metrics,
            r#"controller_runtime_reconcile_total{controller="slow",result="error"}"#
        ),
        1.0
    );
    eventually("the retry succeeded", || {
        series(
            &metrics,
            r#"controller_runtime_reconcile_total{controller="slow",result="success"}"#,
        ) == 1.0
    })
    .await;
    assert_eq!(settled_calls(&calls, &key).await, 2);
    // A stopped manager waits for no hung reconcile: the one that timed out is gone.
    stop.cancel();
    run.await.unwrap().unwrap();
}

#[kubegen::test]
async fn create_or_update_and_create_or_patch_say_what_they_did(e: TestEnv) {
    let gadgets = Api::<Gadget>::namespaced(e.client.clone(), &e.namespace);
    let owner = e
        .client
        .gadgets(&e.namespace)
        .create(&gadget("owner"))
        .await
        .unwrap();
    let parts = Api::<Part>::namespaced(e.client.clone(), &e.namespace);
    let part = || {
        let mut part = Part::new(
            "owned",
            PartSpec {
                gadget: String::new(),
            },
        );
        part.metadata.namespace = Some(e.namespace.clone());
        part
    };
    let controlled = |gadget: &str| {
        let (owner, gadget) = (owner.clone(), gadget.to_owned());
        move |p: &mut Part| {
            p.spec.gadget = gadget;
            set_controller_reference(&owner, p).unwrap();
        }
    };
    let (created, did) = create_or_update(&parts, part(), controlled("owner"))
        .await
        .unwrap();
    assert_eq!(did, OperationResult::Created);
    let reference = &created.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(reference.uid, owner.metadata.uid.clone().unwrap());
    assert_eq!(
        (reference.controller, reference.block_owner_deletion),
        (Some(true), Some(true))
    );
    let (_, did) = create_or_update(&parts, part(), controlled("owner"))
        .await
        .unwrap();
    assert_eq!(did, OperationResult::Unchanged);
    let (updated, did) = create_or_update(&parts, part(), controlled("other"))
        .await
        .unwrap();
    assert_eq!(
        (did, updated.spec.gadget.as_str()),
        (OperationResult::Updated, "other")
    );
    let renamed = create_or_update(&parts, part(), |p| p.metadata.name = Some("x".into())).await;
    assert!(
        matches!(renamed, Err(util::WriteError::Renamed)),
        "{renamed:?}"
    );
    // Patches: the spec, the status, both.
    let named = || {
        let mut g = gadget("owner");
        g.metadata.namespace = Some(e.namespace.clone());
        g
    };
    let (_, did) = create_or_patch(&gadgets, named(), |_| {}).await.unwrap();
    assert_eq!(did, OperationResult::Unchanged);
    let (patched, did) = create_or_patch(&gadgets, named(), |g| g.spec.color = "blue".into())
        .await
        .unwrap();
    assert_eq!(
        (did, patched.spec.color.as_str()),
        (OperationResult::Updated, "blue")
    );
    let phase = |phase: &str| {
        let phase = phase.to_owned();
        move |g: &mut Gadget| g.status.get_or_insert_with(Default::default).phase = Some(phase)
    };
    let (patched, did) = create_or_patch(&gadgets, named(), phase("Ready"))
        .await
        .unwrap();
    assert_eq!(did, OperationResult::UpdatedStatusOnly);
    assert_eq!(patched.status.unwrap().phase.as_deref(), Some("Ready"));
    let (patched, did) = create_or_patch(&gadgets, named(), |g| {
        g.spec.color = "green".into();
        phase("Done")(g);
    })
    .await
    .unwrap();
    assert_eq!(did, OperationResult::UpdatedStatus);
    assert_eq!(patched.spec.color, "green");
    assert_eq!(patched.status.unwrap().phase.as_deref(), Some("Done"));
    let (created, did) = create_or_patch(
        &gadgets,
        {
            let mut g = gadget("fresh");
            g.metadata.namespace = Some(e.namespace.clone());
            g
        },
        |g| g.spec.color = "teal".into(),
    )
    .await
    .unwrap();
    assert_eq!(
        (did, created.spec.color.as_str()),
        (OperationResult::Created, "teal")
    );
}

/// Keeps a finalizer on every Gadget; counts applies and clean-ups.
struct Finalized {
    gadgets: Api<Gadget>,
    applied: Calls,
    cleaned: Calls,
}

const FINALIZER: &str = "controller.kubegen.dev/cleanup";

impl Reconciler<Gadget> for Finalized {
    type Error = util::FinalizeError<kube::Error>;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        gadget: Option<Arc<Gadget>>,
    ) -> Result<Action, Self::Error> {
        let Some(gadget) = gadget else {
            return Ok(Action::Done);
        };
        finalize(&self.gadgets, FINALIZER, gadget, |step| async move {
            let calls = match step {
                Finalizing::Apply(_) => &self.applied,
                Finalizing::Cleanup(_) => &self.cleaned,
            };
            note(calls, key);
            Ok(Action::Done)
        })
        .await
    }
}

#[kubegen::test]
async fn finalize_adds_the_finalizer_cleans_up_once_and_lets_the_object_go(e: TestEnv) {
    let gadgets = Api::<Gadget>::namespaced(e.client.clone(), &e.namespace);
    let (applied, cleaned) = (Calls::default(), Calls::default());
    let reconciler = Finalized {
        gadgets: gadgets.clone(),
        applied: applied.clone(),
        cleaned: cleaned.clone(),
    };
    let (stop, run) = start(manager(&e).add(Controller::<Gadget>::new("finalizing"), reconciler));
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("f"))
        .await
        .unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "f");
    // The apply follows the finalizer's write in the same reconcile.
    eventually("the apply after the finalizer", || {
        !calls_for(&applied, &key).is_empty()
    })
    .await;
    let held = gadgets.get("f").await.unwrap();
    assert_eq!(held.metadata.finalizers, Some(vec![FINALIZER.to_owned()]));
    assert!(calls_for(&cleaned, &key).is_empty());
    gadgets.delete("f", &Default::default()).await.unwrap();
    eventually("the clean-up", || !calls_for(&cleaned, &key).is_empty()).await;
    let mut gone = false;
    for _ in 0..100 {
        if gadgets.get_opt("f").await.unwrap().is_none() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(gone, "the object is deleted once its finalizer is removed");
    assert_eq!(settled_calls(&cleaned, &key).await, 1, "cleaned up once");
    stop.cancel();
    run.await.unwrap().unwrap();
}

/// Records calls, taking `hold` over each.
struct Steady {
    calls: Calls,
    hold: Duration,
}

impl Reconciler<Gadget> for Steady {
    type Error = kube::Error;

    async fn reconcile(
        &self,
        key: &ObjectKey,
        _: Option<Arc<Gadget>>,
    ) -> Result<Action, kube::Error> {
        note(&self.calls, key);
        tokio::time::sleep(self.hold).await;
        Ok(Action::Done)
    }
}

#[kubegen::test]
async fn a_new_object_is_reconciled_before_the_rest_of_the_first_list(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    for i in 0..150 {
        gadgets
            .create(&gadget(&format!("listed-{i}")))
            .await
            .unwrap();
    }
    let calls = Calls::default();
    let reconciler = Steady {
        calls: calls.clone(),
        hold: Duration::from_millis(10),
    };
    // One worker, 10 ms each: the first list alone takes 1.5 s.
    let controller = Controller::<Gadget>::new("steady");
    let (stop, run) = start(manager(&e).add(controller, reconciler));
    eventually("the first list is being worked through", || {
        !calls.lock().unwrap().is_empty()
    })
    .await;
    gadgets.create(&gadget("new")).await.unwrap();
    let key = ObjectKey::new(Some(&e.namespace), "new");
    eventually("the new object is reconciled", || {
        !calls_for(&calls, &key).is_empty()
    })
    .await;
    let before = calls
        .lock()
        .unwrap()
        .iter()
        .take_while(|(k, _)| *k != key)
        .count();
    // Its event came while the worker held one listed key, and perhaps the informer was
    // still delivering the list; never behind the whole of it.
    assert!(before < 75, "{before} listed objects were reconciled first");
    eventually("the whole first list is reconciled", || {
        calls.lock().unwrap().len() >= 151
    })
    .await;
    stop.cancel();
    run.await.unwrap().unwrap();
}

/// Reconcile spans, with the `reconcile-spans` feature (on by default).
#[cfg(feature = "reconcile-spans")]
mod spans {
    use super::*;

    /// The spans this process exported through OpenTelemetry: `tracing`'s spans turned into
    /// OpenTelemetry spans by `tracing-opentelemetry`, exported as each ends into memory, where an
    /// operator would send them to a collector over OTLP.
    fn exported_spans() -> opentelemetry_sdk::trace::InMemorySpanExporter {
        use opentelemetry::trace::TracerProvider as _;
        use tracing_subscriber::layer::SubscriberExt as _;
        static EXPORTER: std::sync::OnceLock<opentelemetry_sdk::trace::InMemorySpanExporter> =
            std::sync::OnceLock::new();
        EXPORTER
            .get_or_init(|| {
                let exporter = opentelemetry_sdk::trace::InMemorySpanExporter::default();
                let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
                    .with_simple_exporter(exporter.clone())
                    .build();
                let subscriber = tracing_subscriber::registry().with(
                    tracing_opentelemetry::layer().with_tracer(provider.tracer("kubegen-test")),
                );
                tracing::subscriber::set_global_default(subscriber)
                    .expect("no other subscriber in this test binary");
                exporter
            })
            .clone()
    }

    /// The attributes of each exported `reconcile` span, as strings.
    fn reconcile_spans() -> Vec<BTreeMap<String, String>> {
        exported_spans()
            .get_finished_spans()
            .unwrap_or_default()
            .into_iter()
            .filter(|span| span.name == "reconcile")
            .map(|span| {
                span.attributes
                    .iter()
                    .map(|kv| (kv.key.to_string(), kv.value.to_string()))
                    .collect()
            })
            .collect()
    }

    #[kubegen::test]
    async fn every_reconcile_is_a_span_with_its_controller_kind_key_and_result(e: TestEnv) {
        exported_spans();
        let controller = Controller::<Gadget>::new("traced")
            .backoff(Duration::from_millis(5), Duration::from_millis(50));
        let calls = Calls::default();
        let (stop, run) = start(manager(&e).add(controller, Strict(calls.clone())));
        let mut black = gadget("bad");
        black.spec.color = "black".into();
        e.client.gadgets(&e.namespace).create(&black).await.unwrap();
        e.client
            .gadgets(&e.namespace)
            .create(&gadget("good"))
            .await
            .unwrap();
        let ours = |name: &str| {
            reconcile_spans()
                .into_iter()
                .filter(|f| {
                    f.get("controller").map(String::as_str) == Some("traced")
                        && f.get("namespace") == Some(&e.namespace)
                        && f.get("name").map(String::as_str) == Some(name)
                })
                .collect::<Vec<_>>()
        };
        // A span is exported when it ends, with every field recorded by then.
        eventually("both reconciles are exported", || {
            !ours("bad").is_empty() && !ours("good").is_empty()
        })
        .await;
        let good = &ours("good")[0];
        assert_eq!(good["kind"], "Gadget");
        assert_eq!(good["result"], "success");
        assert_eq!(ours("bad")[0]["result"], "error");
        stop.cancel();
        run.await.unwrap().unwrap();
    }
}
