//! The in-memory server serves a kind whose versions really differ through its registered
//! conversions (stored at v1, served at v1alpha1 and v1), and runs in-process admission
//! webhooks in the apiserver's order.

use std::sync::{Arc, Mutex};

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kubegen::testing::{ApiServer, FailurePolicy};
use kubegen::validation::{BadValue, FieldError};
use kubegen::webhook::{Admission, AdmissionType, Verdict, WebhookKind, Webhooks};
use serde_json::{Value, json};

use crate::fixtures::store;

use store::{v1, v1alpha1};

fn alpha(name: &str, size: &str) -> v1alpha1::Store {
    v1alpha1::Store::new(
        name,
        v1alpha1::StoreSpec {
            engine: v1::Engine::Mysql,
            version: "8.0".into(),
            size: size.into(),
            ..Default::default()
        },
    )
}

fn apis(client: &kube::Client) -> (Api<v1alpha1::Store>, Api<v1::Store>) {
    (
        Api::namespaced(client.clone(), "default"),
        Api::namespaced(client.clone(), "default"),
    )
}

fn api_error(e: kube::Error) -> (u16, String, String) {
    match e {
        kube::Error::Api(s) => (s.code, s.reason.clone(), s.message.clone()),
        other => panic!("not a Status: {other}"),
    }
}

#[tokio::test]
async fn objects_are_stored_at_the_storage_version_and_served_at_each() {
    let server = ApiServer::new();
    let client = server.client();
    let (alphas, v1s) = apis(&client);

    let created = alphas
        .create(&PostParams::default(), &alpha("db", "10Gi"))
        .await
        .unwrap();
    assert_eq!(created.spec.size, "10Gi");

    let hub = v1s.get("db").await.unwrap();
    assert_eq!(hub.spec.storage, Quantity("10Gi".into()));
    assert_eq!(hub.spec.engine, v1::Engine::Mysql);
    assert_eq!(hub.metadata.uid, created.metadata.uid);
    assert_eq!(
        hub.metadata.resource_version,
        created.metadata.resource_version
    );

    let listed = v1s.list(&Default::default()).await.unwrap();
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items[0].spec.storage, Quantity("10Gi".into()));

    // v1-only fields survive an update through v1alpha1 (the conversion-data annotation).
    let mut with_backup = hub.clone();
    with_backup.spec.backup = Some(v1::Backup {
        schedule: "@daily".into(),
        retention_days: Some(7),
    });
    v1s.replace("db", &PostParams::default(), &with_backup)
        .await
        .unwrap();
    let mut seen = alphas.get("db").await.unwrap();
    seen.spec.size = "20Gi".into();
    let updated = alphas
        .replace("db", &PostParams::default(), &seen)
        .await
        .unwrap();
    assert_eq!(updated.spec.size, "20Gi");
    let hub = v1s.get("db").await.unwrap();
    assert_eq!(hub.spec.storage, Quantity("20Gi".into()));
    assert_eq!(
        hub.spec.backup.as_ref().map(|b| b.schedule.as_str()),
        Some("@daily")
    );
    assert!(
        hub.metadata.annotations.unwrap_or_default().is_empty(),
        "the hub never carries the conversion data"
    );

    // A merge patch addressed to v1alpha1 patches the object as v1alpha1 shows it.
    let patched = alphas
        .patch(
            "db",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": "30Gi"}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.spec.size, "30Gi");
    let hub = v1s.get("db").await.unwrap();
    assert_eq!(hub.spec.storage, Quantity("30Gi".into()));
    assert!(hub.spec.backup.is_some());
    assert_eq!(hub.metadata.generation, Some(4));
}

#[tokio::test]
async fn watches_see_writes_of_any_version_in_their_own() {
    use futures::{StreamExt, TryStreamExt};
    let server = ApiServer::new();
    let client = server.client();
    let (alphas, v1s) = apis(&client);
    let mut events = alphas
        .watch(&WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    let mut hub = v1::Store::new(
        "w",
        v1::StoreSpec {
            version: "16".into(),
            storage: Quantity("5Gi".into()),
            ..Default::default()
        },
    );
    hub = v1s.create(&PostParams::default(), &hub).await.unwrap();
    hub.spec.storage = Quantity("6Gi".into());
    v1s.replace("w", &PostParams::default(), &hub)
        .await
        .unwrap();
    let mut sizes = Vec::new();
    while sizes.len() < 2 {
        match events.try_next().await.unwrap().expect("the watch goes on") {
            WatchEvent::Added(s) | WatchEvent::Modified(s) => sizes.push(s.spec.size),
            WatchEvent::Bookmark(_) => {}
            other => panic!("unexpected event {other:?}"),
        }
    }
    assert_eq!(sizes, ["5Gi", "6Gi"]);
}

#[tokio::test]
async fn a_failing_conversion_answers_as_a_failing_conversion_webhook() {
    let server = ApiServer::new();
    let client = server.client();
    let (_, v1s) = apis(&client);
    // "1.5Gi" is a valid quantity that v1alpha1's size cannot hold.
    let hub = v1::Store::new(
        "odd",
        v1::StoreSpec {
            version: "16".into(),
            storage: Quantity("1.5Gi".into()),
            ..Default::default()
        },
    );
    v1s.create(&PostParams::default(), &hub).await.unwrap();
    let alphas: Api<v1alpha1::Store> = Api::namespaced(client.clone(), "default");
    // Reading at v1alpha1 works (the size is kept as written); writing it back fails on the
    // way to the hub.
    let mut seen = alphas.get("odd").await.unwrap();
    seen.spec.size = "lots".into();
    let (code, _, message) = api_error(
        alphas
            .replace("odd", &PostParams::default(), &seen)
            .await
            .unwrap_err(),
    );
    assert_eq!(code, 500);
    // The apiserver's prefix, then what kubegen's webhook answers it.
    assert_eq!(
        message,
        "conversion webhook for convert.example.com/v1alpha1, Kind=Store failed: \
         converting object 0 to convert.example.com/v1: Store convert.example.com/v1alpha1: \
         spec.size: \"lots\" is not a size such as \"10Gi\""
    );
}

/// What the webhooks saw: (operation, kind version, request kind version, dry run).
type Calls = Arc<Mutex<Vec<(String, String, String, bool)>>>;

fn webhooks(calls: &Calls) -> Webhooks {
    let kind = WebhookKind::new("convert.example.com", "v1", "stores");
    let (mutations, validations) = (calls.clone(), calls.clone());
    let record = |calls: &Calls, a: &Admission<'_>| {
        let request = a.request;
        calls.lock().unwrap().push((
            format!("{:?}", request.operation),
            request.kind.version.clone(),
            request
                .request_kind
                .as_ref()
                .map(|k| k.version.clone())
                .unwrap_or_default(),
            request.dry_run,
        ));
    };
    Webhooks::new()
        .mutator(kind.clone(), move |a: &Admission<'_>, o: &mut Value| {
            record(&mutations, a);
            // A default only the webhook knows, and a change the schema refuses on request.
            if o["spec"]["tuning"].is_null() {
                o["spec"]["tuning"] = json!({"maxConnections": 100});
            }
            if o["metadata"]["labels"]["break"] == "engine" {
                o["spec"]["engine"] = json!("oracle");
            }
            Verdict::allow().with_warning("tuned by the webhook")
        })
        .validator(kind, move |a: &Admission<'_>| {
            record(&validations, a);
            let object = a.object.or(a.old_object).expect("an object");
            if a.object.is_none() && object["metadata"]["labels"]["protected"] == "true" {
                return Verdict::forbidden("protected stores cannot be deleted");
            }
            let storage = object["spec"]["storage"].as_str().unwrap_or("");
            Verdict::from_errors(match storage {
                "13Gi" => vec![FieldError::invalid(
                    "spec.storage",
                    BadValue::str(storage),
                    "unlucky size",
                )],
                _ => vec![],
            })
        })
}

#[tokio::test]
async fn admission_runs_mutating_then_validation_then_validating() {
    let server = ApiServer::new();
    let calls = Calls::default();
    server.admission(webhooks(&calls));
    let client = server.client();
    let (alphas, v1s) = apis(&client);

    // The mutator (registered at v1) defaults a v1alpha1 create.
    let created = alphas
        .create(&PostParams::default(), &alpha("a", "1Gi"))
        .await
        .unwrap();
    assert_eq!(
        created.spec.tuning.as_ref().and_then(|t| t.max_connections),
        Some(100)
    );
    assert_eq!(
        calls.lock().unwrap().clone(),
        [
            (
                "Create".to_string(),
                "v1".to_string(),
                "v1alpha1".to_string(),
                false
            ),
            (
                "Create".to_string(),
                "v1".to_string(),
                "v1alpha1".to_string(),
                false
            ),
        ]
    );

    // A mutation the schema refuses is refused by validation, after the mutator. (At v1:
    // the typed conversion back to v1alpha1 would already refuse the value, as a 500.)
    let mut bad = v1::Store::new(
        "b",
        v1::StoreSpec {
            version: "1".into(),
            storage: Quantity("1Gi".into()),
            ..Default::default()
        },
    );
    bad.metadata.labels = Some([("break".to_string(), "engine".to_string())].into());
    let (code, reason, message) =
        api_error(v1s.create(&PostParams::default(), &bad).await.unwrap_err());
    assert_eq!((code, reason.as_str()), (422, "Invalid"));
    assert!(
        message.contains("spec.engine: Unsupported value: \"oracle\""),
        "{message}"
    );

    // The validator's denial, in the apiserver's words.
    let (code, reason, message) = api_error(
        alphas
            .create(&PostParams::default(), &alpha("c", "13Gi"))
            .await
            .unwrap_err(),
    );
    assert_eq!((code, reason.as_str()), (422, "Invalid"));
    assert_eq!(
        message,
        "admission webhook \"validate-v1.stores.convert.example.com\" denied the request: \
         Store.convert.example.com \"c\" is invalid: spec.storage: Invalid value: \"13Gi\": unlucky size"
    );
    assert!(v1s.get_opt("c").await.unwrap().is_none());

    // Dry runs call webhooks too, and store nothing.
    calls.lock().unwrap().clear();
    let dry = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let answered = v1s
        .create(
            &dry,
            &v1::Store::new(
                "d",
                v1::StoreSpec {
                    version: "1".into(),
                    storage: Quantity("2Gi".into()),
                    ..Default::default()
                },
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        answered.spec.tuning.and_then(|t| t.max_connections),
        Some(100)
    );
    assert!(calls.lock().unwrap().iter().all(|c| c.3 && c.2 == "v1"));
    assert_eq!(calls.lock().unwrap().len(), 2);
    assert!(v1s.get_opt("d").await.unwrap().is_none());

    // Updates are validated; deletes with the old object.
    let mut a = v1s.get("a").await.unwrap();
    a.spec.storage = Quantity("13Gi".into());
    let (code, _, _) = api_error(
        v1s.replace("a", &PostParams::default(), &a)
            .await
            .unwrap_err(),
    );
    assert_eq!(code, 422);
    let patch = Patch::Merge(json!({"metadata": {"labels": {"protected": "true"}}}));
    alphas
        .patch("a", &PatchParams::default(), &patch)
        .await
        .unwrap();
    let (code, reason, message) = api_error(
        alphas
            .delete("a", &DeleteParams::default())
            .await
            .unwrap_err(),
    );
    assert_eq!((code, reason.as_str()), (403, "Forbidden"));
    assert_eq!(
        message,
        "admission webhook \"validate-v1.stores.convert.example.com\" denied the request: protected stores cannot be deleted"
    );
    let last = calls.lock().unwrap().last().cloned().unwrap();
    assert_eq!((last.0.as_str(), last.2.as_str()), ("Delete", "v1alpha1"));
}

#[tokio::test]
async fn unavailable_webhooks_follow_their_failure_policy() {
    let server = ApiServer::new();
    let calls = Calls::default();
    server.admission(webhooks(&calls));
    let kind = WebhookKind::new("convert.example.com", "v1", "stores");
    let client = server.client();
    let (alphas, _) = apis(&client);

    server.admission_unavailable(AdmissionType::Mutating, kind.clone(), FailurePolicy::Fail);
    let (code, reason, message) = api_error(
        alphas
            .create(&PostParams::default(), &alpha("x", "1Gi"))
            .await
            .unwrap_err(),
    );
    assert_eq!((code, reason.as_str()), (500, "InternalError"));
    assert!(
        message.starts_with("Internal error occurred: failed calling webhook \"mutate-v1.stores.convert.example.com\": "),
        "{message}"
    );

    server.admission_unavailable(AdmissionType::Mutating, kind.clone(), FailurePolicy::Ignore);
    let created = alphas
        .create(&PostParams::default(), &alpha("x", "1Gi"))
        .await
        .unwrap();
    assert!(created.spec.tuning.is_none(), "the mutator was not called");

    server.admission_available(AdmissionType::Mutating, &kind);
    let created = alphas
        .create(&PostParams::default(), &alpha("y", "1Gi"))
        .await
        .unwrap();
    assert!(created.spec.tuning.is_some());
}
