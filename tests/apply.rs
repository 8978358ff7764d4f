//! Apply configurations (applyconfiguration-gen) and the Extract functions, on every backend:
//! a configuration sends only what was set, so a manager owns only that; a full typed
//! object claims (and conflicts on) everything it serializes; extraction reads back exactly
//! what one manager applied, for read-modify-apply.

use std::collections::BTreeMap;

use kubegen::apply::ObjectConfiguration;
use kubegen::controller::conditions::{Conditions, StatusConditions, condition};
use kubegen::prelude::*;
use kubegen::testing::TestEnv;
use serde_json::{Value, json};

use crate::fixtures::managed::owned_fields;

/// A Deck: a spec with a required field, defaults, a map list, a map, an enum and a nested
/// struct, and a status.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[apply]
#[resource(
    group = "apply.kubegen.dev",
    version = "v1",
    kind = "Deck",
    status = "DeckStatus",
    derive = "PartialEq"
)]
#[serde(rename_all = "camelCase")]
pub struct DeckSpec {
    pub image: String,
    #[default(3)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub paused: bool,
    #[schema(list_type = "map", list_map_keys = ["name"])]
    #[serde(default)]
    pub slots: Vec<Slot>,
    #[serde(default)]
    pub selector: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
    #[apply(whole)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
}

/// A type that is neither an ApiType nor has an `Apply` impl (as if from another crate): a
/// field of it is set whole with `#[apply(whole)]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Window {
    pub start: String,
    pub hours: i32,
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[apply]
pub enum Mode {
    Fast,
    Safe,
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[apply]
#[serde(rename_all = "camelCase")]
pub struct Slot {
    pub name: String,
    #[serde(default)]
    pub size: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[apply]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    #[serde(default)]
    pub cpu: i32,
    #[serde(default)]
    pub memory: i32,
}

#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[apply]
#[serde(rename_all = "camelCase")]
pub struct DeckStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<StatusConditions>,
}

/// A cluster-scoped kind: its configuration takes a name only.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[apply]
#[resource(
    group = "apply.kubegen.dev",
    version = "v1",
    kind = "Rack",
    scope = "Cluster"
)]
pub struct RackSpec {
    pub size: Option<i32>,
}

/// A kind whose status implements `Clone` by hand: configurations are generated with their
/// own `Clone` and `Debug`, whatever the type does.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[apply]
#[resource(
    group = "apply.kubegen.dev",
    version = "v1",
    kind = "Tray",
    status = "TrayStatus"
)]
pub struct TraySpec {
    pub size: Option<i32>,
}

#[derive(ApiType, Debug, Default, Serialize, Deserialize)]
#[apply]
pub struct TrayStatus {
    pub full: Option<bool>,
}

impl Clone for TrayStatus {
    fn clone(&self) -> Self {
        TrayStatus { full: self.full }
    }
}

fn slot(name: &str, size: i32) -> SlotApplyConfiguration {
    SlotApplyConfiguration::new()
        .with_name(name)
        .with_size(size)
}

/// The `fieldsV1` of `manager`'s entry with `operation` (and `subresource`), or null.
fn owned(object: &Deck, manager: &str, operation: &str, subresource: &str) -> Value {
    owned_fields(&object.metadata, manager, operation, subresource).unwrap_or(Value::Null)
}

fn json_of<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

#[test]
fn a_configuration_serializes_only_what_was_set() {
    let apply = DeckApplyConfiguration::new("d", "default")
        .with_labels([("team", "blue")])
        .with_annotations([("note", "x")])
        .with_finalizers(["example.com/f", "example.com/f"])
        .with_spec(
            DeckSpecApplyConfiguration::new()
                .with_replicas(2)
                .with_slots([slot("a", 1)])
                .with_slots([SlotApplyConfiguration::new().with_name("b")])
                .with_selector([("app", "web")])
                .with_mode(Mode::Safe)
                .with_limits(LimitsApplyConfiguration::new().with_cpu(2))
                .with_type("t")
                .with_window(Window {
                    start: "02:00".into(),
                    hours: 2,
                }),
        );
    assert_eq!(
        json_of(&apply),
        json!({
            "apiVersion": "apply.kubegen.dev/v1",
            "kind": "Deck",
            "metadata": {
                "name": "d", "namespace": "default",
                "labels": {"team": "blue"}, "annotations": {"note": "x"},
                "finalizers": ["example.com/f"],
            },
            // No image, paused or memory: nothing set them. Lists appended, maps merged.
            "spec": {
                "replicas": 2,
                "slots": [{"name": "a", "size": 1}, {"name": "b"}],
                "selector": {"app": "web"},
                "mode": "Safe",
                "limits": {"cpu": 2},
                "type": "t",
                "window": {"start": "02:00", "hours": 2},
            },
        })
    );
    // The same object as a typed value would send every field it has.
    let typed = json_of(&Deck::new(
        "d",
        DeckSpec {
            image: String::new(),
            replicas: Some(2),
            paused: false,
            slots: vec![],
            selector: BTreeMap::new(),
            mode: None,
            limits: None,
            r#type: None,
            window: None,
        },
    ));
    assert_eq!(
        typed["spec"],
        json!({"image": "", "replicas": 2, "paused": false, "slots": [], "selector": {}})
    );
    // Clone and Debug, as the spec derives them.
    let copy = apply.clone();
    assert!(
        format!("{copy:?}")
            .starts_with("DeckApplyConfiguration { api_version: \"apply.kubegen.dev/v1\"")
    );
    // A configuration reads back what it wrote.
    let back: DeckApplyConfiguration = serde_json::from_value(json_of(&apply)).unwrap();
    assert_eq!(json_of(&back), json_of(&apply));
    assert_eq!(back.name(), "d");

    let tray = TrayApplyConfiguration::new("t", "default")
        .with_status(TrayStatusApplyConfiguration::new().with_full(true));
    assert_eq!(json_of(&tray)["status"], json!({"full": true}));
    assert!(format!("{:?}", tray.clone()).contains("full: Some(true)"));

    let rack =
        RackApplyConfiguration::new("s").with_spec(RackSpecApplyConfiguration::new().with_size(1));
    assert_eq!(
        json_of(&rack),
        json!({"apiVersion": "apply.kubegen.dev/v1", "kind": "Rack", "metadata": {"name": "s"}, "spec": {"size": 1}})
    );
}

#[kubegen::test]
async fn a_configuration_owns_only_what_it_sets_and_a_typed_object_owns_everything(e: TestEnv) {
    let decks = e.client.decks(&e.namespace);
    let ns = e.namespace.as_str();
    let owner = DeckApplyConfiguration::new("d", ns).with_spec(
        DeckSpecApplyConfiguration::new()
            .with_image("web:1")
            .with_slots([slot("a", 1)])
            .with_selector([("app", "web")]),
    );
    let created = decks.apply_config(&owner, "owner", false).await.unwrap();
    // The schema default filled replicas; nobody applied it, so nobody owns it.
    assert_eq!(created.spec.replicas, Some(3));
    assert_eq!(
        owned(&created, "owner", "Apply", ""),
        json!({"f:spec": {
            "f:image": {},
            "f:selector": {"f:app": {}},
            "f:slots": {"k:{\"name\":\"a\"}": {".": {}, "f:name": {}, "f:size": {}}},
        }})
    );

    // A scaler applies replicas alone and a second slot: no conflict, each owns its part.
    let scaler = DeckApplyConfiguration::new("d", ns).with_spec(
        DeckSpecApplyConfiguration::new()
            .with_replicas(5)
            .with_slots([slot("b", 2)]),
    );
    let scaled = decks.apply_config(&scaler, "scaler", false).await.unwrap();
    assert_eq!(scaled.spec.replicas, Some(5));
    assert_eq!(scaled.spec.image, "web:1");
    let names: Vec<_> = scaled.spec.slots.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(
        owned(&scaled, "scaler", "Apply", ""),
        json!({"f:spec": {
            "f:replicas": {},
            "f:slots": {"k:{\"name\":\"b\"}": {".": {}, "f:name": {}, "f:size": {}}},
        }})
    );
    assert_eq!(
        owned(&scaled, "owner", "Apply", ""),
        owned(&created, "owner", "Apply", "")
    );

    // The same intent as a full typed object claims image, paused, slots and selector too,
    // and conflicts with the owner over the image it does not mean to change.
    let mut typed = Deck::new("d", scaled.spec.clone());
    typed.metadata.namespace = Some(e.namespace.clone());
    typed.spec.image = "web:2".into();
    let err = decks.apply(&typed, "scaler", false).await.unwrap_err();
    assert!(err.is_conflict(), "{err:?}");
    let status = err.status().unwrap();
    assert_eq!(
        status.message,
        "Apply failed with 1 conflict: conflict with \"owner\": .spec.image"
    );

    // A conflicting configuration fails the same way; force takes the field.
    let takeover = DeckApplyConfiguration::new("d", ns)
        .with_spec(DeckSpecApplyConfiguration::new().with_image("web:3"));
    let err = decks
        .apply_config(&takeover, "deployer", false)
        .await
        .unwrap_err();
    assert!(err.is_conflict(), "{err:?}");
    let forced = decks
        .apply_config(&takeover, "deployer", true)
        .await
        .unwrap();
    assert_eq!(forced.spec.image, "web:3");
    assert_eq!(
        owned(&forced, "deployer", "Apply", ""),
        json!({"f:spec": {"f:image": {}}})
    );
    assert_eq!(
        owned(&forced, "owner", "Apply", ""),
        json!({"f:spec": {
            "f:selector": {"f:app": {}},
            "f:slots": {"k:{\"name\":\"a\"}": {".": {}, "f:name": {}, "f:size": {}}},
        }})
    );
}

#[kubegen::test]
async fn extract_reads_back_what_a_manager_applied(e: TestEnv) {
    let decks = e.client.decks(&e.namespace);
    let ns = e.namespace.as_str();
    let owner = DeckApplyConfiguration::new("d", ns)
        .with_labels([("team", "blue")])
        .with_spec(
            DeckSpecApplyConfiguration::new()
                .with_image("web:1")
                .with_paused(false)
                .with_slots([slot("a", 1)])
                .with_limits(LimitsApplyConfiguration::new().with_cpu(2)),
        );
    decks.apply_config(&owner, "owner", false).await.unwrap();
    let scaler = DeckApplyConfiguration::new("d", ns)
        .with_spec(DeckSpecApplyConfiguration::new().with_replicas(4));
    let object = decks.apply_config(&scaler, "scaler", false).await.unwrap();

    // Exactly what each applied, whatever else the object holds.
    assert_eq!(
        json_of(&extract_deck(&object, "owner").unwrap()),
        json_of(&owner)
    );
    assert_eq!(
        json_of(&extract_deck(&object, "scaler").unwrap()),
        json_of(&scaler)
    );
    // A manager that never applied gets the identity alone.
    assert_eq!(
        json_of(&extract_deck(&object, "nobody").unwrap()),
        json_of(&DeckApplyConfiguration::new("d", ns))
    );
    // As an informer keeping only some managers' entries holds them (fieldsV1 as its JSON
    // text), the same; text that is not JSON is an error saying so.
    let mut held = object.clone();
    for entry in held.metadata.managed_fields.iter_mut().flatten() {
        if let Some(fields) = &mut entry.fields_v1 {
            fields.0 = serde_json::Value::String(fields.0.to_string());
        }
    }
    assert_eq!(
        json_of(&extract_deck(&held, "owner").unwrap()),
        json_of(&owner)
    );
    for entry in held.metadata.managed_fields.iter_mut().flatten() {
        if let Some(fields) = &mut entry.fields_v1 {
            fields.0 = serde_json::Value::String("{\"f:spec\":".into());
        }
    }
    let err = extract_deck(&held, "owner").unwrap_err();
    assert!(err.to_string().contains("fieldsV1 held as text"), "{err}");

    // Read-modify-apply: the owner adds a slot to what it has, and owns both.
    let mut mine = extract_deck(&object, "owner").unwrap();
    let spec = mine.spec.take().unwrap_or_default();
    mine = mine.with_spec(spec.with_slots([slot("b", 2)]));
    let object = decks.apply_config(&mine, "owner", false).await.unwrap();
    let names: Vec<_> = object.spec.slots.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(object.spec.replicas, Some(4));
    assert_eq!(
        json_of(&extract_deck(&object, "owner").unwrap()),
        json_of(&mine)
    );

    // Status, applied through the status subresource by a controller.
    let status = DeckApplyConfiguration::new("d", ns).with_status(
        DeckStatusApplyConfiguration::new()
            .with_ready(2)
            .with_phase("Running"),
    );
    let object = decks
        .apply_config_status(&status, "controller", false)
        .await
        .unwrap();
    assert_eq!(
        object.status,
        Some(DeckStatus {
            ready: Some(2),
            phase: Some("Running".into()),
            conditions: None,
        })
    );
    assert_eq!(
        owned(&object, "controller", "Apply", "status"),
        json!({"f:status": {"f:phase": {}, "f:ready": {}}})
    );
    assert_eq!(
        json_of(&extract_deck_status(&object, "controller").unwrap()),
        json_of(&status)
    );
    // Through the main resource, the controller applied nothing.
    assert_eq!(
        json_of(&extract_deck(&object, "controller").unwrap()),
        json_of(&DeckApplyConfiguration::new("d", ns))
    );
    // Stopping to apply a field gives it up: the controller drops phase.
    let fewer = DeckApplyConfiguration::new("d", ns)
        .with_status(DeckStatusApplyConfiguration::new().with_ready(3));
    let object = decks
        .apply_config_status(&fewer, "controller", false)
        .await
        .unwrap();
    assert_eq!(
        object.status,
        Some(DeckStatus {
            ready: Some(3),
            phase: None,
            conditions: None,
        })
    );
}

#[kubegen::test]
async fn a_cluster_scoped_configuration(e: TestEnv) {
    let racks = e.client.racks();
    let name = format!("{}-rack", e.namespace);
    let apply = RackApplyConfiguration::new(name.as_str())
        .with_labels([("test", e.namespace.as_str())])
        .with_spec(RackSpecApplyConfiguration::new().with_size(4));
    let rack = racks.apply_config(&apply, "owner", false).await.unwrap();
    assert_eq!(rack.spec.size, Some(4));
    assert_eq!(rack.metadata.namespace, None);
    let value = serde_json::to_value(&rack).unwrap();
    let rack: Rack = serde_json::from_value(value).unwrap();
    assert_eq!(
        json_of(&extract_rack(&rack, "owner").unwrap()),
        json_of(&apply)
    );
    racks.delete(&name, &Default::default()).await.unwrap();
}

// A map list of 8,000 items is created, merge-patched and applied in time that grows with
// the list, not its square (the apiserver takes under a second for the create). The times are
// printed, not asserted: they depend on the machine.
#[kubegen::test]
async fn a_long_map_list_is_written_in_linear_time(e: TestEnv) {
    use kubegen::client::{Patch, PatchParams};
    const ITEMS: usize = 8000;
    let decks = e.client.decks(&e.namespace);
    // Names in descending order, so no structure gets them sorted for free.
    let slots: Vec<Slot> = (0..ITEMS)
        .rev()
        .map(|i| Slot {
            name: format!("slot-{i:05}"),
            size: 1,
            label: None,
        })
        .collect();
    let mut deck = Deck::new(
        "long",
        DeckSpec {
            image: "web:1".into(),
            replicas: None,
            paused: false,
            slots,
            selector: BTreeMap::new(),
            mode: None,
            limits: None,
            r#type: None,
            window: None,
        },
    );
    deck.metadata.namespace = Some(e.namespace.clone());
    let started = std::time::Instant::now();
    let created = decks.create(&deck).await.unwrap();
    let create = started.elapsed();
    assert_eq!(created.spec.slots.len(), ITEMS);

    let started = std::time::Instant::now();
    let patch = json!({"spec": {"slots": created.spec.slots.iter().map(|s| json!({"name": s.name, "size": 2})).collect::<Vec<_>>()}});
    let patched = decks
        .patch("long", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    let merge = started.elapsed();
    assert!(patched.spec.slots.iter().all(|s| s.size == 2));

    let mut config = patched.clone();
    config.metadata.managed_fields = None;
    let started = std::time::Instant::now();
    let applied = decks.apply(&config, "applier", true).await.unwrap();
    let apply = started.elapsed();
    assert_eq!(applied.spec.slots.len(), ITEMS);
    println!(
        "{ITEMS} map-list items on {:?}: create {create:.2?}, merge patch {merge:.2?}, apply {apply:.2?}",
        e.backend
    );
    decks.delete("long", &Default::default()).await.unwrap();
}

/// The example in `kubegen::apply`'s documentation, as written there.
mod documented {
    use kubegen::apply::ObjectConfiguration;
    use kubegen::prelude::*;

    // Unregistered: the cluster tests own `example.com/v1 Widget` as a kind nobody serves.
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[apply]
    #[resource(
        group = "example.com",
        version = "v1",
        kind = "Widget",
        register = false
    )]
    #[serde(rename_all = "camelCase")]
    pub struct WidgetSpec {
        pub size: i32,
        pub color: Option<String>,
        pub tags: Vec<String>,
    }

    #[test]
    fn the_documented_example() {
        let apply = WidgetApplyConfiguration::new("w", "default")
            .with_labels([("team", "blue")])
            .with_spec(
                WidgetSpecApplyConfiguration::new()
                    .with_size(3)
                    .with_tags(["a"]),
            );
        assert_eq!(
            serde_json::to_value(&apply).unwrap(),
            serde_json::json!({
                "apiVersion": "example.com/v1",
                "kind": "Widget",
                "metadata": {"name": "w", "namespace": "default", "labels": {"team": "blue"}},
                "spec": {"size": 3, "tags": ["a"]},
            }),
        );
    }
}

#[kubegen::test]
async fn status_conditions_merge_by_type_between_managers(e: TestEnv) {
    let ns = &e.namespace;
    let decks = e.client.decks(ns);
    let spec = DeckSpecApplyConfiguration::new().with_image("web:1");
    decks
        .apply_config(
            &DeckApplyConfiguration::new("c", ns).with_spec(spec),
            "owner",
            false,
        )
        .await
        .unwrap();
    let applying = |type_: &str, status: bool| {
        let mut conditions = StatusConditions::default();
        let mut c = condition(type_, status, "Checked", "", 1);
        c.last_transition_time = k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
            "2026-11-28T10:00:00Z".parse().unwrap(),
        );
        conditions.set_condition(c);
        DeckApplyConfiguration::new("c", ns)
            .with_status(DeckStatusApplyConfiguration::new().with_conditions(conditions))
    };
    decks
        .apply_config_status(&applying("Ready", true), "controller", false)
        .await
        .unwrap();
    let object = decks
        .apply_config_status(&applying("Degraded", false), "monitor", false)
        .await
        .unwrap();
    assert_eq!(
        owned(&object, "monitor", "Apply", "status"),
        json!({"f:status": {"f:conditions": {"k:{\"type\":\"Degraded\"}": {
            ".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:observedGeneration": {},
            "f:reason": {}, "f:status": {}, "f:type": {}
        }}}}),
        "each manager owns its own condition, by type"
    );
    let conditions = object.status.unwrap().conditions.unwrap();
    assert!(conditions.is_condition_true("Ready"), "{conditions:?}");
    assert!(
        conditions.is_condition_false("Degraded"),
        "kept side by side"
    );
    // The controller flips its condition; the monitor's stays.
    let object = decks
        .apply_config_status(&applying("Ready", false), "controller", false)
        .await
        .unwrap();
    let conditions = object.status.unwrap().conditions.unwrap();
    assert!(conditions.is_condition_false("Ready"));
    assert!(conditions.is_condition_false("Degraded"));
    assert_eq!(conditions.len(), 2);
}
