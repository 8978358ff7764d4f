//! conversion-gen: a kind whose versions really differ (v1alpha1 `size: String`, v1
//! `storage: Quantity` and a `backup` block), converted through the hub, typed and as JSON.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kubegen::convert::{CONVERSION_DATA_ANNOTATION, ConvertError, Convertible};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::fixtures::store;

use store::{v1, v1alpha1};

fn spoke(size: &str) -> v1alpha1::Store {
    v1alpha1::Store::new(
        "s",
        v1alpha1::StoreSpec {
            engine: v1::Engine::Mysql,
            version: "8".into(),
            size: size.into(),
            tuning: Some(v1alpha1::Tuning {
                max_connections: Some(100),
                parameters: None,
            }),
            users: vec!["app".into()],
        },
    )
}

#[test]
fn spoke_to_hub_converts_by_name_and_by_hand() {
    let mut old = spoke("10Gi");
    old.status = Some(v1::StoreStatus {
        ready: true,
        endpoint: Some("db:5432".into()),
    });
    let hub = old.to_hub().unwrap();
    assert_eq!(hub.metadata, old.metadata);
    assert_eq!(hub.spec.engine, v1::Engine::Mysql);
    assert_eq!(hub.spec.version, "8");
    assert_eq!(hub.spec.storage, Quantity("10Gi".into()));
    assert_eq!(hub.spec.backup, None);
    assert_eq!(hub.spec.tuning.as_ref().unwrap().max_connections, Some(100));
    assert_eq!(hub.spec.users, vec!["app".to_owned()]);
    assert_eq!(hub.status, old.status);
}

#[test]
fn hub_to_spoke_keeps_backup_in_the_annotation_and_restores_it() {
    let mut hub = spoke("5Gi").to_hub().unwrap();
    hub.spec.backup = Some(v1::Backup {
        schedule: "0 3 * * *".into(),
        retention_days: Some(7),
    });
    let old = v1alpha1::Store::from_hub(&hub).unwrap();
    assert_eq!(old.spec.size, "5Gi");
    let annotations = old.metadata.annotations.as_ref().unwrap();
    let kept: serde_json::Value =
        serde_json::from_str(&annotations[CONVERSION_DATA_ANNOTATION]).unwrap();
    assert_eq!(
        kept,
        serde_json::json!({"spec": {"backup": {"schedule": "0 3 * * *", "retentionDays": 7}}})
    );
    // An update through the old version changes size; backup survives, the annotation does not.
    let mut updated = old.clone();
    updated.spec.size = "20Gi".into();
    let back = updated.to_hub().unwrap();
    assert_eq!(back.spec.backup, hub.spec.backup);
    assert_eq!(back.spec.storage, Quantity("20Gi".into()));
    assert_eq!(back.metadata.annotations, None);
}

#[test]
fn an_unparsable_size_is_a_typed_error() {
    let err = spoke("ten gigs").to_hub().unwrap_err();
    assert!(
        matches!(&err, ConvertError::Field { field, .. } if field == "spec.size"),
        "{err:?}"
    );
    let mut bad = spoke("1Gi");
    bad.metadata.annotations =
        Some([(CONVERSION_DATA_ANNOTATION.to_owned(), "{".to_owned())].into());
    assert!(matches!(bad.to_hub(), Err(ConvertError::Annotation(_))));
}

fn random_string(rng: &mut ChaCha8Rng) -> String {
    let len = rng.random_range(0..8);
    (0..len)
        .map(|_| char::from(rng.random_range(b'a'..=b'z')))
        .collect()
}

fn random_size(rng: &mut ChaCha8Rng) -> String {
    let suffix = ["", "Ki", "Mi", "Gi", "Ti"][rng.random_range(0..5)];
    format!("{}{suffix}", rng.random_range(0..100_000u32))
}

fn random_tuning(rng: &mut ChaCha8Rng) -> Option<v1::Tuning> {
    rng.random_bool(0.5).then(|| v1::Tuning {
        max_connections: rng.random_bool(0.5).then(|| rng.random_range(-5..5000)),
        parameters: rng.random_bool(0.5).then(|| {
            (0..rng.random_range(0..4))
                .map(|_| (random_string(rng), random_string(rng)))
                .collect()
        }),
    })
}

fn random_hub(rng: &mut ChaCha8Rng) -> v1::Store {
    let mut hub = v1::Store::new(
        &random_string(rng),
        v1::StoreSpec {
            engine: if rng.random_bool(0.5) {
                v1::Engine::Postgres
            } else {
                v1::Engine::Mysql
            },
            version: random_string(rng),
            storage: Quantity(random_size(rng)),
            backup: rng.random_bool(0.5).then(|| v1::Backup {
                schedule: random_string(rng),
                retention_days: rng.random_bool(0.5).then(|| rng.random_range(1..365)),
            }),
            tuning: random_tuning(rng),
            users: (0..rng.random_range(0..3))
                .map(|_| random_string(rng))
                .collect(),
        },
    );
    if rng.random_bool(0.3) {
        hub.metadata.labels = Some([("app".to_owned(), random_string(rng))].into());
    }
    if rng.random_bool(0.5) {
        hub.status = Some(v1::StoreStatus {
            ready: rng.random_bool(0.5),
            endpoint: rng.random_bool(0.5).then(|| random_string(rng)),
        });
    }
    hub
}

#[test]
fn round_trips_are_lossless_on_random_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    for _ in 0..500 {
        let hub = random_hub(&mut rng);
        let old = v1alpha1::Store::from_hub(&hub).unwrap();
        assert_eq!(old.to_hub().unwrap(), hub, "hub → spoke → hub");
        // A spoke as a user writes it: no annotation.
        let mut fresh = old.clone();
        fresh.metadata.annotations = hub.metadata.annotations.clone();
        let again = v1alpha1::Store::from_hub(&fresh.to_hub().unwrap()).unwrap();
        assert_eq!(again.spec, fresh.spec, "spoke → hub → spoke");
        assert_eq!(again.status, fresh.status);
    }
}

#[test]
fn convert_any_registered_kind_as_json() {
    let mut hub = spoke("3Gi").to_hub().unwrap();
    hub.spec.backup = Some(v1::Backup {
        schedule: "@daily".into(),
        retention_days: None,
    });
    let hub_json = serde_json::to_value(&hub).unwrap();
    let old = kubegen::convert::convert(hub_json.clone(), "convert.example.com/v1alpha1").unwrap();
    assert_eq!(old["apiVersion"], "convert.example.com/v1alpha1");
    assert_eq!(old["spec"]["size"], "3Gi");
    assert!(old["spec"].get("storage").is_none());
    assert_eq!(
        old,
        serde_json::to_value(v1alpha1::Store::from_hub(&hub).unwrap()).unwrap()
    );
    let back = kubegen::convert::convert(old, "convert.example.com/v1").unwrap();
    assert_eq!(back, hub_json);
    // The same version: unchanged.
    assert_eq!(
        kubegen::convert::convert(hub_json.clone(), "convert.example.com/v1").unwrap(),
        hub_json
    );
    assert!(matches!(
        kubegen::convert::convert(hub_json.clone(), "convert.example.com/v2"),
        Err(ConvertError::UnknownVersion { .. })
    ));
    let mut bad = serde_json::to_value(spoke("lots")).unwrap();
    assert!(matches!(
        kubegen::convert::convert(bad.clone(), "convert.example.com/v1"),
        Err(ConvertError::Field { .. })
    ));
    bad["spec"]["size"] = serde_json::json!(7);
    assert!(matches!(
        kubegen::convert::convert(bad, "convert.example.com/v1"),
        Err(ConvertError::Decode { .. })
    ));
    assert!(matches!(
        kubegen::convert::convert(
            serde_json::json!({"kind": "Store"}),
            "convert.example.com/v1"
        ),
        Err(ConvertError::MissingTypeMeta("apiVersion"))
    ));
}

/// The apiserver's field manager sends objects pruned to some managers' fields: without
/// `metadata`, without required fields. They convert to the image of what they hold.
#[test]
fn partial_objects_convert_to_the_image_of_what_they_hold() {
    use serde_json::json;
    let convert = |object: serde_json::Value, to: &str| {
        kubegen::convert::convert(object, &format!("convert.example.com/{to}"))
    };
    // Only a list another manager owns: nothing else appears in either direction.
    let users = json!({"apiVersion": "convert.example.com/v1alpha1", "kind": "Store",
                       "spec": {"users": ["app"]}});
    let hub = convert(users.clone(), "v1").unwrap();
    assert_eq!(
        hub,
        json!({"apiVersion": "convert.example.com/v1", "kind": "Store", "metadata": {},
               "spec": {"users": ["app"], "storage": ""}}),
        "absent required fields are not invented; the hand-converted `storage` is (from an empty size)"
    );
    let back = convert(hub, "v1alpha1").unwrap();
    assert_eq!(back["spec"], json!({"users": ["app"], "size": ""}));

    // A nested struct with its own conversion, and metadata, without the rest of the spec.
    let tuning = json!({"apiVersion": "convert.example.com/v1", "kind": "Store",
                        "metadata": {"name": "s", "labels": {"a": "b"}},
                        "spec": {"tuning": {"maxConnections": 5}, "backup": {"schedule": "@daily"}}});
    let old = convert(tuning, "v1alpha1").unwrap();
    assert_eq!(old["metadata"]["labels"], json!({"a": "b"}));
    assert_eq!(
        old["spec"],
        json!({"tuning": {"maxConnections": 5}, "size": ""})
    );
    let kept = old["metadata"]["annotations"][kubegen::convert::CONVERSION_DATA_ANNOTATION]
        .as_str()
        .unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(kept).unwrap(),
        json!({"spec": {"backup": {"schedule": "@daily"}}}),
        "a v1-only field the partial object had travels in the annotation"
    );

    // No spec at all (the applier owned all of it): a spec-less object comes back.
    let bare = json!({"apiVersion": "convert.example.com/v1", "kind": "Store",
                      "metadata": {"name": "s"}});
    let old = convert(bare, "v1alpha1").unwrap();
    assert_eq!(old["spec"], json!({"size": ""}));
    assert!(old["metadata"].get("annotations").is_none());
}

#[test]
fn a_manual_conversion_failing_on_a_partial_object_says_so() {
    use serde_json::json;
    let partial = json!({"apiVersion": "convert.example.com/v1alpha1", "kind": "Store",
                         "spec": {"size": "lots"}});
    let err = kubegen::convert::convert(partial, "convert.example.com/v1").unwrap_err();
    assert!(matches!(err, ConvertError::Partial { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "spec.size: \"lots\" is not a size such as \"10Gi\" (converting a partial object, whose absent fields read as their defaults)"
    );
}

/// On random objects with random fields taken away (as pruning takes away a manager's
/// fields), every field converted by name is in the result exactly when it was given, with
/// the value the whole object's conversion gives it, both ways.
#[test]
fn partial_objects_keep_exactly_what_they_were_given_on_random_values() {
    let mut rng = ChaCha8Rng::seed_from_u64(20);
    let by_name = ["engine", "version", "tuning", "users"];
    for _ in 0..500 {
        let hub = serde_json::to_value(random_hub(&mut rng)).unwrap();
        let whole = kubegen::convert::convert(hub.clone(), "convert.example.com/v1alpha1").unwrap();
        let mut partial = hub.clone();
        for field in ["engine", "version", "storage", "tuning", "users", "backup"] {
            if rng.random_bool(0.5)
                && let Some(spec) = partial["spec"].as_object_mut()
            {
                spec.remove(field);
            }
        }
        if rng.random_bool(0.3) {
            partial.as_object_mut().unwrap().remove("metadata");
        }
        let converted =
            kubegen::convert::convert(partial.clone(), "convert.example.com/v1alpha1").unwrap();
        assert!(converted["metadata"].is_object(), "{converted}");
        for field in by_name {
            let given = partial["spec"].get(field);
            let got = converted["spec"].get(field);
            assert_eq!(
                got.is_some(),
                given.is_some(),
                "{field} of {partial} → {converted}"
            );
            if got.is_some() {
                assert_eq!(got, whole["spec"].get(field), "{field} of {partial}");
            }
        }
        // And back to the hub: what the spoke holds, nothing more of what it was given.
        let back = kubegen::convert::convert(converted.clone(), "convert.example.com/v1").unwrap();
        for field in by_name {
            assert_eq!(
                back["spec"].get(field),
                partial["spec"].get(field),
                "{field} of {partial}"
            );
        }
    }
}
