//! Shared informers and listers, on the in-memory server and on a real apiserver when one is
//! configured (`#[kubegen::test]`); the fault-injection cases run in memory only.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kubegen::client::{DeleteParams, ListParams};
use kubegen::informer::{Handlers, ResourceEventHandler, SharedInformerFactory};
use kubegen::selector::LabelSelector;

use crate::fixtures::gadgets;

use gadgets::api::*;
use gadgets::gadget;
use kubegen::testing::TestEnv;

/// Applies handler events to its own view and records anything inconsistent: an add for an
/// object it already has, an update or delete for one it does not.
#[derive(Default)]
struct Recorder {
    view: Mutex<BTreeMap<String, String>>,
    problems: Mutex<Vec<String>>,
    log: Mutex<Vec<String>>,
}

fn name(g: &Gadget) -> String {
    format!(
        "{}/{}",
        g.metadata.namespace.clone().unwrap_or_default(),
        g.metadata.name.clone().unwrap_or_default()
    )
}

impl ResourceEventHandler<Gadget> for Arc<Recorder> {
    fn on_add(&self, o: &Arc<Gadget>, _: bool) {
        let previous = self.view.lock().unwrap().insert(
            name(o),
            o.metadata.resource_version.clone().unwrap_or_default(),
        );
        if previous.is_some() {
            self.problems
                .lock()
                .unwrap()
                .push(format!("duplicate add of {}", name(o)));
        }
        self.log.lock().unwrap().push(format!("add {}", name(o)));
    }
    fn on_update(&self, old: &Arc<Gadget>, new: &Arc<Gadget>) {
        if name(old) != name(new) {
            self.problems.lock().unwrap().push(format!(
                "update across objects {} -> {}",
                name(old),
                name(new)
            ));
        }
        let previous = self.view.lock().unwrap().insert(
            name(new),
            new.metadata.resource_version.clone().unwrap_or_default(),
        );
        if previous.is_none() {
            self.problems
                .lock()
                .unwrap()
                .push(format!("update of unknown {}", name(new)));
        }
        self.log
            .lock()
            .unwrap()
            .push(format!("update {}", name(new)));
    }
    fn on_delete(&self, o: &Arc<Gadget>) {
        if self.view.lock().unwrap().remove(&name(o)).is_none() {
            self.problems
                .lock()
                .unwrap()
                .push(format!("delete of unknown {}", name(o)));
        }
        self.log.lock().unwrap().push(format!("delete {}", name(o)));
    }
}

/// What the server holds for the test namespace, as name → resourceVersion.
async fn server_state(e: &TestEnv) -> BTreeMap<String, String> {
    e.client
        .gadgets(&e.namespace)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .iter()
        .map(|g| {
            (
                name(g),
                g.metadata.resource_version.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// A cache's keys, sorted.
fn names<K: kube::Resource + Send + Sync + 'static>(
    store: &kubegen::cache::Store<K>,
) -> Vec<String> {
    let mut n: Vec<String> = store.keys().iter().map(|k| k.to_string()).collect();
    n.sort();
    n
}

/// Waits until the recorder's view and the informer's cache equal the server's state.
async fn converges(e: &TestEnv, recorder: &Arc<Recorder>, lister: &GadgetLister) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let want = server_state(e).await;
        let view = recorder.view.lock().unwrap().clone();
        let cached: BTreeMap<String, String> = lister
            .gadgets(&e.namespace)
            .list(&LabelSelector::everything())
            .iter()
            .map(|g| {
                (
                    name(g),
                    g.metadata.resource_version.clone().unwrap_or_default(),
                )
            })
            .collect();
        if view == want && cached == want {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no convergence:\nserver {want:?}\nhandlers {view:?}\ncache {cached:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(*recorder.problems.lock().unwrap(), Vec::<String>::new());
}

fn factory(e: &TestEnv) -> SharedInformerFactory {
    SharedInformerFactory::new(e.client.clone()).namespace(&e.namespace)
}

#[kubegen::test]
async fn listers_read_the_synced_cache(e: TestEnv) {
    for (n, color) in [("a", "red"), ("b", "blue"), ("c", "red")] {
        let mut g = gadget(n, color);
        g.metadata.labels = Some(BTreeMap::from([("color".to_string(), color.to_string())]));
        e.client.gadgets(&e.namespace).create(&g).await.unwrap();
    }
    let f = factory(&e);
    let informer = f.gadgets();
    informer
        .add_indexer("by-color", |g: &Gadget| vec![g.spec.color.clone()])
        .unwrap();
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    assert!(informer.has_synced());
    assert!(
        informer.add_indexer("late", |_: &Gadget| vec![]).is_err(),
        "indexers are added before start"
    );

    let lister = GadgetLister::from(&informer);
    assert_eq!(lister.list(&LabelSelector::everything()).len(), 3);
    assert_eq!(
        lister
            .list(&LabelSelector::parse("color=red").unwrap())
            .len(),
        2
    );
    assert_eq!(
        lister.gadgets(&e.namespace).get("b").unwrap().spec.color,
        "blue"
    );
    assert!(lister.gadgets("elsewhere").get("b").is_none());
    assert_eq!(
        lister
            .gadgets(&e.namespace)
            .list(&LabelSelector::parse("color!=red").unwrap())
            .len(),
        1
    );
    assert_eq!(lister.by_index("by-color", "red").len(), 2);
    // A field index within a namespace (controller-runtime's MatchingFields + InNamespace).
    assert_eq!(
        lister
            .gadgets(&e.namespace)
            .by_index("by-color", "red")
            .len(),
        2
    );
    assert!(
        lister
            .gadgets("elsewhere")
            .by_index("by-color", "red")
            .is_empty()
    );
    assert_eq!(lister.by_index("namespace", &e.namespace).len(), 3);
    f.shutdown();
}

#[kubegen::test]
async fn strip_managed_fields_leaves_them_out_of_the_cache(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets
        .apply(&gadget("a", "red"), "kubegen-test", false)
        .await
        .unwrap();
    let f = factory(&e).strip_managed_fields();
    let informer = f.gadgets();
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    assert!(
        !informer.strip_managed_fields(),
        "too late once the informer runs"
    );
    // Objects that arrive by watch as well as by the initial list.
    gadgets
        .apply(&gadget("b", "blue"), "kubegen-test", false)
        .await
        .unwrap();
    let lister = GadgetLister::from(&informer);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while lister.gadgets(&e.namespace).get("b").is_none() {
        assert!(tokio::time::Instant::now() < deadline, "b never arrived");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for n in ["a", "b"] {
        let mut on_server = gadgets.get(n).await.unwrap();
        assert!(
            !on_server
                .metadata
                .managed_fields
                .clone()
                .unwrap_or_default()
                .is_empty(),
            "the server tracks managed fields for {n}"
        );
        on_server.metadata.managed_fields = None;
        let cached = lister.gadgets(&e.namespace).get(n).unwrap();
        assert_eq!(*cached, on_server, "everything but managedFields is cached");
    }
    f.shutdown();
}

#[kubegen::test]
async fn a_packed_cache_reads_back_whole_objects_that_extract_works_on(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets
        .apply(&gadget("a", "red"), "kubegen-test", false)
        .await
        .unwrap();
    let f = factory(&e).pack_objects();
    let informer = f.gadgets();
    let recorder = Arc::new(Recorder::default());
    informer.add_event_handler(recorder.clone());
    informer
        .add_indexer("by-color", |g: &Gadget| vec![g.spec.color.clone()])
        .unwrap();
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    assert!(informer.store().is_packed());
    assert!(!informer.pack_objects(), "too late once the informer runs");
    gadgets
        .apply(&gadget("b", "blue"), "kubegen-test", false)
        .await
        .unwrap();
    gadgets
        .apply(&gadget("a", "blue"), "kubegen-test", false)
        .await
        .unwrap();
    let lister = GadgetLister::from(&informer);
    converges(&e, &recorder, &lister).await;
    assert_eq!(lister.by_index("by-color", "blue").len(), 2);
    assert!(lister.by_index("by-color", "red").is_empty());
    for n in ["a", "b"] {
        let on_server = gadgets.get(n).await.unwrap();
        let cached = lister.gadgets(&e.namespace).get(n).unwrap();
        assert_eq!(
            *cached, on_server,
            "the whole object, managedFields included"
        );
        let applied = kubegen::apply::extract(&*cached, "kubegen-test").unwrap();
        assert_eq!(
            serde_json::to_value(&applied).unwrap(),
            serde_json::to_value(kubegen::apply::extract(&on_server, "kubegen-test").unwrap())
                .unwrap()
        );
        assert_eq!(
            serde_json::to_value(&applied).unwrap()["spec"]["color"],
            "blue",
            "{n} as applied last"
        );
    }
    gadgets.delete("b", &DeleteParams::default()).await.unwrap();
    converges(&e, &recorder, &lister).await;
    f.shutdown();
}

#[kubegen::test]
async fn a_read_after_an_observed_write_sees_at_least_that_write(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("a", "red")).await.unwrap();
    for packed in [false, true] {
        let f = factory(&e);
        let f = if packed { f.pack_objects() } else { f };
        let informer = f.gadgets();
        f.start();
        assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
        let lister = GadgetLister::from(&informer);
        for i in 0..20u8 {
            let color = format!("c{}", char::from(b'a' + i));
            let written = gadgets
                .apply(&gadget("a", &color), "kubegen-test", true)
                .await
                .unwrap();
            informer.store().observe(Arc::new(written.clone()));
            // At once, before the watch may have delivered it: what was written, or newer.
            let cached = lister.gadgets(&e.namespace).get("a").unwrap();
            assert!(
                gadgets::rv(&*cached) >= gadgets::rv(&written),
                "write {i}: the cache shows {} after writing {}",
                gadgets::rv(&*cached),
                gadgets::rv(&written)
            );
            assert_eq!(cached.spec.color, color);
        }
        // The watch catches up and the cache goes on following it.
        let last = gadgets
            .apply(&gadget("a", "final"), "kubegen-test", true)
            .await
            .unwrap();
        kubegen::testing::Eventually::default()
            .timeout(Duration::from_secs(30))
            .until("the watch catches up", || async {
                lister
                    .gadgets(&e.namespace)
                    .get("a")
                    .map(|g| gadgets::rv(&*g))
                    == Some(gadgets::rv(&last))
            })
            .await;
        f.shutdown();
    }
}

#[kubegen::test]
async fn kinds_have_their_own_options_and_start_and_stop_at_run_time(e: TestEnv) {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kubegen::informer::KindCache;
    let labelled = |team: &str| Some(BTreeMap::from([("team".to_string(), team.to_string())]));
    let gadgets = e.client.gadgets(&e.namespace);
    let maps: kube::Api<ConfigMap> = kube::Api::namespaced(e.client.clone(), &e.namespace);
    for (n, team) in [("a", "shop"), ("b", "bank")] {
        let mut g = gadget(n, "red");
        g.metadata.labels = labelled(team);
        gadgets.create(&g).await.unwrap();
        let mut m = ConfigMap::default();
        m.metadata.name = Some(n.into());
        m.metadata.labels = labelled(team);
        maps.create(&Default::default(), &m).await.unwrap();
    }
    let f = factory(&e).label_selector("team=bank").for_kind::<Gadget>(
        KindCache::new()
            .label_selector("team=shop")
            .pack_objects(true),
    );
    let informer = f.gadgets();
    let config_maps = f.informer::<ConfigMap>();
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    let ns = &e.namespace;
    assert_eq!(
        names(informer.store()),
        vec![format!("{ns}/a")],
        "Gadget's own selector"
    );
    assert!(informer.store().is_packed(), "and its own packing");
    assert_eq!(
        names(config_maps.store()),
        vec![format!("{ns}/b")],
        "the factory's selector"
    );
    assert!(!config_maps.store().is_packed());

    // Stopped at run time: the cache keeps what it saw and sees nothing more.
    assert!(f.remove_informer::<Gadget>());
    assert!(!f.remove_informer::<Gadget>(), "already gone");
    assert!(informer.is_stopped());
    let mut c = gadget("c", "blue");
    c.metadata.labels = labelled("shop");
    gadgets.create(&c).await.unwrap();
    let mut d = ConfigMap::default();
    d.metadata.name = Some("d".into());
    d.metadata.labels = labelled("bank");
    maps.create(&Default::default(), &d).await.unwrap();
    let want = vec![format!("{ns}/b"), format!("{ns}/d")];
    kubegen::testing::eventually("the ConfigMap informer sees d", || async {
        names(config_maps.store()) == want
    })
    .await;
    assert_eq!(
        names(informer.store()),
        vec![format!("{ns}/a")],
        "no more events"
    );

    // Watched again from here on: a new informer, started by the same factory.
    let again = f.gadgets();
    assert!(!Arc::ptr_eq(again.store(), informer.store()));
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    assert_eq!(
        names(again.store()),
        vec![format!("{ns}/a"), format!("{ns}/c")]
    );
    f.shutdown();
}

#[kubegen::test]
async fn a_metadata_only_informer_caches_metadata(e: TestEnv) {
    use kube::core::PartialObjectMeta;
    let gadgets = e.client.gadgets(&e.namespace);
    let mut a = gadget("a", "red");
    a.metadata.labels = Some(BTreeMap::from([("team".to_string(), "shop".to_string())]));
    let a = gadgets.create(&a).await.unwrap();
    let f = factory(&e);
    let informer = f.metadata_informer::<Gadget>();
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    gadgets.create(&gadget("b", "blue")).await.unwrap();
    let want = vec![format!("{}/a", e.namespace), format!("{}/b", e.namespace)];
    kubegen::testing::eventually("b arrives by watch", || async {
        names(informer.store()) == want
    })
    .await;
    let cached: Arc<PartialObjectMeta<Gadget>> =
        informer.store().get(Some(&e.namespace), "a").unwrap();
    assert_eq!(cached.metadata.labels, a.metadata.labels);
    assert_eq!(cached.metadata.uid, a.metadata.uid);
    assert_eq!(
        cached.metadata.resource_version,
        a.metadata.resource_version
    );
    let types = cached.types.clone().unwrap();
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("meta.k8s.io/v1", "PartialObjectMetadata"),
        "what the server sent is the metadata alone"
    );
    f.shutdown();
}

#[kubegen::test]
async fn only_the_managers_this_process_writes_as_keep_their_managed_fields(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets
        .apply(&gadget("a", "red"), "kubegen-test", false)
        .await
        .unwrap();
    let mut labelled = gadgets.get("a").await.unwrap();
    labelled.metadata.labels = Some(BTreeMap::from([("team".to_string(), "shop".to_string())]));
    labelled.metadata.managed_fields = None;
    gadgets.update(&labelled).await.unwrap();
    let f = factory(&e).keep_managed_fields_of(&["kubegen-test"]);
    let informer = f.gadgets();
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    assert!(
        !informer.keep_managed_fields_of(&["late"]),
        "too late once running"
    );
    let on_server = gadgets.get("a").await.unwrap();
    let managers = |g: &Gadget| -> Vec<String> {
        g.metadata
            .managed_fields
            .iter()
            .flatten()
            .filter_map(|m| m.manager.clone())
            .collect()
    };
    assert_eq!(managers(&on_server).len(), 2, "{:?}", managers(&on_server));
    let lister = GadgetLister::from(&informer);
    let cached = lister.gadgets(&e.namespace).get("a").unwrap();
    assert_eq!(managers(&cached), vec!["kubegen-test"]);
    let fields_of = |g: &Gadget| {
        let entries = g.metadata.managed_fields.iter().flatten();
        entries
            .filter(|m| m.manager.as_deref() == Some("kubegen-test"))
            .find_map(|m| m.fields_v1.clone())
            .unwrap()
            .0
    };
    let held = fields_of(&cached);
    let text = held
        .as_str()
        .expect("the kept entry's fieldsV1 is held as its JSON text");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(text).unwrap(),
        fields_of(&on_server)
    );
    assert_eq!(
        serde_json::to_value(kubegen::apply::extract(&*cached, "kubegen-test").unwrap()).unwrap(),
        serde_json::to_value(kubegen::apply::extract(&on_server, "kubegen-test").unwrap()).unwrap(),
        "extract works for the kept manager"
    );
    assert_eq!(cached.metadata.labels, on_server.metadata.labels);
    f.shutdown();
}

#[kubegen::test]
async fn one_watch_per_kind_however_many_callers(e: TestEnv) {
    let f = factory(&e);
    let first = f.gadgets();
    let second = f.gadgets();
    assert!(
        Arc::ptr_eq(first.store(), second.store()),
        "the same informer"
    );
    let _plains = f.plains();
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    if let Some(server) = &e.server {
        // Synced means listed: each watch opens right after its list.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while server.open_watches() < 2 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            server.open_watches(),
            2,
            "one watch for Gadget, one for Plain"
        );
        f.shutdown();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while server.open_watches() > 0 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "shutdown closes the watches"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[kubegen::test]
async fn handlers_see_adds_updates_and_deletes(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("before", "red")).await.unwrap();
    let f = factory(&e);
    let informer = f.gadgets();
    let recorder = Arc::new(Recorder::default());
    informer.add_event_handler(recorder.clone());
    let updates = Arc::new(Mutex::new(Vec::new()));
    let seen = updates.clone();
    informer.add_event_handler(Handlers::new().on_update(
        move |old: &Arc<Gadget>, new: &Arc<Gadget>| {
            seen.lock()
                .unwrap()
                .push((old.spec.color.clone(), new.spec.color.clone()));
        },
    ));
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    gadgets.create(&gadget("a", "red")).await.unwrap();
    gadgets
        .retry_on_conflict("a", 3, |g| g.spec.color = "blue".into())
        .await
        .unwrap();
    gadgets
        .delete("before", &DeleteParams::default())
        .await
        .unwrap();
    converges(&e, &recorder, &GadgetLister::from(&informer)).await;
    assert_eq!(
        *updates.lock().unwrap(),
        [("red".to_string(), "blue".to_string())]
    );
    let log = recorder.log.lock().unwrap().clone();
    assert_eq!(
        log,
        [
            format!("add {}/before", e.namespace),
            format!("add {}/a", e.namespace),
            format!("update {}/a", e.namespace),
            format!("delete {}/before", e.namespace)
        ]
    );

    // A handler added later first gets the cached objects as adds.
    let late = Arc::new(Recorder::default());
    informer.add_event_handler(late.clone());
    assert_eq!(late.view.lock().unwrap().len(), 1);
    f.shutdown();
}

#[kubegen::test]
async fn periodic_resync_replays_the_cache(e: TestEnv) {
    e.client
        .gadgets(&e.namespace)
        .create(&gadget("a", "red"))
        .await
        .unwrap();
    let f = factory(&e).resync(Duration::from_millis(100));
    let informer = f.gadgets();
    let resyncs = Arc::new(Mutex::new(0usize));
    let count = resyncs.clone();
    informer.add_event_handler(Handlers::new().on_update(
        move |old: &Arc<Gadget>, new: &Arc<Gadget>| {
            if Arc::ptr_eq(old, new) {
                *count.lock().unwrap() += 1;
            }
        },
    ));
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    tokio::time::sleep(Duration::from_millis(450)).await;
    let n = *resyncs.lock().unwrap();
    assert!((2..=6).contains(&n), "about one resync per 100 ms, saw {n}");
    f.shutdown();
}

/// Starts an informer with a consistency recorder, for the resilience cases.
async fn watched(e: &TestEnv) -> (SharedInformerFactory, Arc<Recorder>, GadgetLister) {
    let f = factory(e);
    let informer = f.gadgets();
    let recorder = Arc::new(Recorder::default());
    informer.add_event_handler(recorder.clone());
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    (f, recorder, GadgetLister::from(&informer))
}

#[kubegen::test(in_memory)]
async fn recovers_from_dropped_watches(e: TestEnv) {
    let server = e.in_memory_server();
    let gadgets = e.client.gadgets(&e.namespace);
    let (_f, recorder, lister) = watched(&e).await;
    gadgets.create(&gadget("a", "red")).await.unwrap();
    server.faults().drop_watches();
    gadgets.create(&gadget("b", "red")).await.unwrap();
    gadgets
        .retry_on_conflict("a", 3, |g| g.spec.color = "blue".into())
        .await
        .unwrap();
    converges(&e, &recorder, &lister).await;
}

#[kubegen::test(in_memory)]
async fn relists_after_410_and_reports_deletes_missed_while_disconnected(e: TestEnv) {
    let server = e.in_memory_server();
    let gadgets = e.client.gadgets(&e.namespace);
    for n in ["keep", "change", "gone"] {
        gadgets.create(&gadget(n, "red")).await.unwrap();
    }
    let (_f, recorder, lister) = watched(&e).await;
    converges(&e, &recorder, &lister).await;
    // A restart that loses watch state, with the watch kept down while objects change.
    server.faults().fail_watches(u64::MAX);
    server.faults().restart();
    gadgets
        .delete("gone", &DeleteParams::default())
        .await
        .unwrap();
    gadgets
        .retry_on_conflict("change", 3, |g| g.spec.color = "blue".into())
        .await
        .unwrap();
    gadgets.create(&gadget("new", "red")).await.unwrap();
    server.faults().fail_watches(0);
    converges(&e, &recorder, &lister).await;
    let log = recorder.log.lock().unwrap().join(", ");
    assert!(
        log.contains(&format!("delete {}/gone", e.namespace)),
        "the missed delete was reported: {log}"
    );
    assert!(
        log.contains(&format!("update {}/change", e.namespace)),
        "{log}"
    );
}

#[kubegen::test(in_memory)]
async fn rides_out_500_and_429_bursts(e: TestEnv) {
    let server = e.in_memory_server();
    let gadgets = e.client.gadgets(&e.namespace);
    let (_f, recorder, lister) = watched(&e).await;
    for round in 0..2 {
        if round == 0 {
            server.faults().fail_watches(3);
        } else {
            server.faults().expire_history();
        }
        server.faults().drop_watches();
        gadgets
            .create(&gadget(&format!("r{round}"), "red"))
            .await
            .unwrap();
        converges(&e, &recorder, &lister).await;
    }
    // 500s and 429s for every request (the informer's and ours) for a moment.
    server.faults().fail_next(4, 500);
    server.faults().drop_watches();
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.faults().throttle_next(3, 1);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut created = false;
    while !created {
        created = gadgets.create(&gadget("after-burst", "red")).await.is_ok();
    }
    converges(&e, &recorder, &lister).await;
}

/// Built-in kinds have shared informers the kubegen way (`factory.leases()`), whose store a
/// `Lister` reads: the Lease both servers serve.
#[kubegen::test]
async fn builtin_kinds_have_shared_informers(e: TestEnv) {
    use k8s_openapi::api::coordination::v1::Lease;
    use kubegen::builtin::{BuiltinClientExt, BuiltinInformersExt};
    use kubegen::cache::Lister;
    let mut lease = Lease::default();
    lease.metadata.name = Some("cached".into());
    e.client.leases(&e.namespace).create(&lease).await.unwrap();
    let f = factory(&e);
    let informer = f.leases();
    f.start();
    assert!(f.wait_for_cache_sync(Duration::from_secs(30)).await);
    let lister = Lister::new(informer.store().clone());
    assert!(lister.namespace(&e.namespace).get("cached").is_some());
    assert_eq!(lister.list(&LabelSelector::everything()).len(), 1);
}
