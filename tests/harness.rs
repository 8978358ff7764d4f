//! `#[kubegen::test(setup = f)]`: the server a test describes — its kinds, further namespaces,
//! seed objects, the namespaces' `default` ServiceAccount and hooks on the in-memory server —
//! is the same on every backend (in memory, and on the apiserver `KUBEBUILDER_ASSETS` or
//! `KUBEGEN_TEST_KUBECONFIG` names).

use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod, ServiceAccount};
use kube::api::{Api, ListParams, PostParams};
use kubegen::CustomResource as _;
use kubegen::testing::backend::TestSetup;
use kubegen::testing::{Backend, Eventually, TestEnv, eventually};
use serde_json::json;

mod kinds {
    use kubegen::prelude::*;

    /// A namespaced kind with a status subresource.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(
        group = "harness.kubegen.dev",
        version = "v1",
        kind = "Widget",
        status = "WidgetStatus"
    )]
    pub struct WidgetSpec {
        pub size: i32,
    }

    #[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    pub struct WidgetStatus {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub phase: Option<String>,
    }

    /// A kind served at two versions (the same schema, relabelled between them).
    pub mod sprocket {
        pub mod v1 {
            use kubegen::prelude::*;

            #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
            #[resource(group = "harness.kubegen.dev", version = "v1", kind = "Sprocket")]
            pub struct SprocketSpec {
                pub teeth: i32,
            }
        }

        pub mod v1beta1 {
            use kubegen::prelude::*;

            #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
            #[resource(
                group = "harness.kubegen.dev",
                version = "v1beta1",
                kind = "Sprocket",
                storage = false
            )]
            pub struct SprocketSpec {
                pub teeth: i32,
            }
        }
    }

    /// A second kind, registered in this binary but left out where a setup names its kinds.
    #[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[resource(group = "harness.kubegen.dev", version = "v1", kind = "Gizmo")]
    pub struct GizmoSpec {
        pub color: String,
    }
}

use kinds::sprocket::{v1, v1beta1};
use kinds::{Gizmo, GizmoSpec, Widget, WidgetSpec, WidgetStatus};

fn widget(name: &str, size: i32) -> Widget {
    Widget::new(name, WidgetSpec { size })
}

/// The HTTP code of a failed request.
fn code(result: Result<impl std::fmt::Debug, kube::Error>) -> u16 {
    match result {
        Err(kube::Error::Api(status)) => status.code,
        other => panic!("expected an API error, got {other:?}"),
    }
}

fn only_widgets(setup: &mut TestSetup) {
    setup.kinds(&[&[Widget::INFO]]);
}

#[kubegen::test(setup = only_widgets)]
async fn kinds_serves_only_the_kinds_named(env: TestEnv) {
    let widgets: Api<Widget> = Api::namespaced(env.client.clone(), &env.namespace);
    let created = widgets
        .create(&PostParams::default(), &widget("a", 1))
        .await;
    assert_eq!(created.unwrap().spec.size, 1);
    // Built-in kinds are always served.
    let maps: Api<ConfigMap> = Api::namespaced(env.client.clone(), &env.namespace);
    maps.list(&ListParams::default()).await.unwrap();

    // An existing cluster keeps serving the other kinds it has.
    if env.backend == Backend::Cluster {
        return;
    }
    let gizmos: Api<Gizmo> = Api::namespaced(env.client.clone(), &env.namespace);
    assert_eq!(code(gizmos.list(&ListParams::default()).await), 404);
    let gizmo = Gizmo::new(
        "g",
        GizmoSpec {
            color: "red".into(),
        },
    );
    let refused = gizmos.create(&PostParams::default(), &gizmo).await;
    assert_eq!(code(refused), 404);
}

fn sprockets_at_v1(setup: &mut TestSetup) {
    setup.kinds(&[&[v1::Sprocket::INFO]]);
}

/// A kind narrowed to some of its versions is a CRD other than the registered one: on envtest
/// the test gets an apiserver of its own, and on a cluster other tests share it is not run.
#[kubegen::test(setup = sprockets_at_v1)]
async fn kinds_can_narrow_a_kind_to_some_versions(env: TestEnv) {
    let at_v1: Api<v1::Sprocket> = Api::namespaced(env.client.clone(), &env.namespace);
    let sprocket = v1::Sprocket::new("s", v1::SprocketSpec { teeth: 12 });
    at_v1
        .create(&PostParams::default(), &sprocket)
        .await
        .unwrap();
    let at_v1beta1: Api<v1beta1::Sprocket> = Api::namespaced(env.client.clone(), &env.namespace);
    assert_eq!(code(at_v1beta1.get("s").await), 404);
}

fn every_kind(setup: &mut TestSetup) {
    // Naming every registered kind is the same as naming none: the shared server serves it.
    setup.kinds(&[
        &[Widget::INFO],
        &[Gizmo::INFO],
        &[v1::Sprocket::INFO, v1beta1::Sprocket::INFO],
    ]);
}

#[kubegen::test(setup = every_kind)]
async fn kinds_naming_every_registered_kind_serves_them_all(env: TestEnv) {
    let gizmos: Api<Gizmo> = Api::namespaced(env.client.clone(), &env.namespace);
    let gizmo = Gizmo::new(
        "g",
        GizmoSpec {
            color: "red".into(),
        },
    );
    gizmos.create(&PostParams::default(), &gizmo).await.unwrap();
    let at_v1beta1: Api<v1beta1::Sprocket> = Api::namespaced(env.client.clone(), &env.namespace);
    at_v1beta1.list(&ListParams::default()).await.unwrap();
}

fn other_namespace(test_namespace: &str) -> String {
    format!("{test_namespace}-other")
}

fn two_namespaces(setup: &mut TestSetup) {
    let other = other_namespace(setup.test_namespace());
    setup.namespace(other);
}

#[kubegen::test(setup = two_namespaces)]
async fn namespace_creates_further_namespaces(env: TestEnv) {
    let namespaces: Api<Namespace> = Api::all(env.client.clone());
    let other = other_namespace(&env.namespace);
    namespaces.get(&env.namespace).await.unwrap();
    namespaces.get(&other).await.unwrap();
    // Each with its `default` ServiceAccount, as the test's own.
    let accounts: Api<ServiceAccount> = Api::namespaced(env.client.clone(), &other);
    accounts.get("default").await.unwrap();
}

fn seeds(setup: &mut TestSetup) {
    let other = other_namespace(setup.test_namespace());
    let mut done = widget("done", 2);
    done.status = Some(WidgetStatus {
        phase: Some("Ready".into()),
    });
    setup
        // A namespace and an object in it: in order.
        .object(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": other}}))
        .object(json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "settings", "namespace": other},
            "data": {"mode": "fast"},
        }))
        // Typed objects without a namespace go into the test's.
        .objects([widget("plain", 1), done]);
}

#[kubegen::test(setup = seeds)]
async fn objects_are_created_before_the_body_in_order(env: TestEnv) {
    let other = other_namespace(&env.namespace);
    let maps: Api<ConfigMap> = Api::namespaced(env.client.clone(), &other);
    let settings = maps.get("settings").await.unwrap();
    assert_eq!(settings.data.unwrap()["mode"], "fast");

    let widgets: Api<Widget> = Api::namespaced(env.client.clone(), &env.namespace);
    assert_eq!(widgets.get("plain").await.unwrap().spec.size, 1);
    // A status is written through the status subresource after the create.
    let done = widgets.get("done").await.unwrap();
    assert_eq!(done.status.unwrap().phase.as_deref(), Some("Ready"));
}

fn nothing(_: &mut TestSetup) {}

#[kubegen::test(setup = nothing)]
async fn pods_can_be_created_in_the_test_namespace(env: TestEnv) {
    // A real apiserver refuses a Pod (403) in a namespace without a `default` ServiceAccount;
    // without kube-controller-manager the harness makes it.
    let accounts: Api<ServiceAccount> = Api::namespaced(env.client.clone(), &env.namespace);
    accounts.get("default").await.unwrap();
    let pods: Api<Pod> = Api::namespaced(env.client.clone(), &env.namespace);
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
}

#[kubegen::test]
async fn without_the_service_account_pods_are_refused(env: TestEnv) {
    let accounts: Api<ServiceAccount> = Api::namespaced(env.client.clone(), &env.namespace);
    accounts
        .delete("default", &Default::default())
        .await
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(env.client.clone(), &env.namespace);
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]},
    }))
    .unwrap();
    let created = pods.create(&PostParams::default(), &pod).await;
    match env.backend {
        Backend::InMemory | Backend::Envtest => assert_eq!(code(created), 403),
        // A cluster's controller-manager may have made the account again already.
        Backend::Cluster => {}
    }
}

#[kubegen::test]
async fn tests_without_setup_get_the_service_account_too(env: TestEnv) {
    let accounts: Api<ServiceAccount> = Api::namespaced(env.client.clone(), &env.namespace);
    accounts.get("default").await.unwrap();
}

#[kubegen::test]
async fn eventually_waits_for_what_comes_later_and_says_what_never_came(env: TestEnv) {
    let configs: Api<ConfigMap> = Api::namespaced(env.client.clone(), &env.namespace);
    let later = configs.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        let config: ConfigMap =
            serde_json::from_value(json!({"metadata": {"name": "later"}, "data": {"k": "v"}}))
                .unwrap();
        later.create(&PostParams::default(), &config).await.unwrap();
    });
    let config = eventually("the ConfigMap is created", || {
        let configs = configs.clone();
        async move { configs.get_opt("later").await.ok().flatten() }
    })
    .await;
    assert_eq!(config.data.unwrap()["k"], "v");
    let short = Eventually::default().timeout(std::time::Duration::from_millis(300));
    let never = short
        .try_until("a ConfigMap nobody makes", || {
            let configs = configs.clone();
            async move { configs.get("never").await }
        })
        .await
        .unwrap_err();
    assert!(
        never.starts_with("timed out after 300ms waiting until a ConfigMap nobody makes: "),
        "{never}"
    );
    assert!(never.contains("not found"), "{never}");
}

fn a_fault_after_the_seeds(setup: &mut TestSetup) {
    setup
        .object(widget("seeded", 1))
        .in_memory(|server| server.faults().fail_next(1, 503));
}

#[kubegen::test(setup = a_fault_after_the_seeds)]
async fn in_memory_hooks_run_after_the_seeds_and_only_in_memory(env: TestEnv) {
    let widgets: Api<Widget> = Api::namespaced(env.client.clone(), &env.namespace);
    let first = widgets.get("seeded").await;
    match &env.server {
        // The seed was created before the fault was armed; the body's first request meets it.
        Some(_) => assert_eq!(code(first), 503),
        None => assert_eq!(first.unwrap().spec.size, 1),
    }
    widgets.get("seeded").await.unwrap();
}

#[cfg(feature = "webhook")]
mod admission {
    use kubegen::webhook::{Admission, Verdict, WebhookKind, Webhooks};

    use super::*;

    fn small_widgets_only(setup: &mut TestSetup) {
        let widgets = WebhookKind::new("harness.kubegen.dev", "v1", "widgets");
        let webhooks = Webhooks::new().validator(widgets, |a: &Admission<'_>| {
            let size = a.object.and_then(|o| o["spec"]["size"].as_i64());
            match size {
                Some(size) if size > 10 => Verdict::forbidden("widgets are small"),
                _ => Verdict::allow(),
            }
        });
        setup
            .kinds(&[&[Widget::INFO]])
            // Seeds are created before the hook: the webhook does not see them.
            .object(widget("big-seed", 11))
            .in_memory(move |server| server.admission(webhooks));
    }

    /// In-process admission lives in the in-memory hook; a real apiserver would need the
    /// webhook served, so the test is in memory only.
    #[kubegen::test(in_memory, setup = small_widgets_only)]
    async fn admission_webhooks_run_in_process(env: TestEnv) {
        let widgets: Api<Widget> = Api::namespaced(env.client.clone(), &env.namespace);
        widgets.get("big-seed").await.unwrap();
        widgets
            .create(&PostParams::default(), &widget("small", 3))
            .await
            .unwrap();
        let refused = widgets
            .create(&PostParams::default(), &widget("big", 12))
            .await;
        let Err(kube::Error::Api(status)) = refused else {
            panic!("expected a denial, got {refused:?}");
        };
        assert_eq!(status.code, 403);
        assert!(
            status
                .message
                .ends_with("denied the request: widgets are small"),
            "{}",
            status.message
        );
    }
}

fn an_unnamed_kind(setup: &mut TestSetup) {
    setup.object(json!({"apiVersion": "v1", "metadata": {"name": "x"}}));
}

#[kubegen::test(in_memory, setup = an_unnamed_kind)]
#[should_panic(
    expected = "the test's setup: seed object 0: an object needs its apiVersion and kind"
)]
async fn a_seed_without_a_kind_fails_the_test(_env: TestEnv) {}

fn an_invalid_seed(setup: &mut TestSetup) {
    setup.object(
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Not_A_Name"}}),
    );
}

#[kubegen::test(in_memory, setup = an_invalid_seed)]
#[should_panic(expected = "creating seed object 0 (ConfigMap \"Not_A_Name\"): ")]
async fn a_refused_seed_fails_the_test(_env: TestEnv) {}

/// The setup path resolves where the attribute is written: `super::`, `self::`, `crate::`.
mod paths {
    use super::*;

    #[kubegen::test(in_memory, setup = super::two_namespaces)]
    async fn a_path_through_super(env: TestEnv) {
        let namespaces: Api<Namespace> = Api::all(env.client.clone());
        namespaces
            .get(&other_namespace(&env.namespace))
            .await
            .unwrap();
    }

    fn local(setup: &mut TestSetup) {
        setup.kinds(&[&[Widget::INFO]]);
    }

    #[kubegen::test(in_memory, setup = self::local)]
    async fn a_path_through_self(env: TestEnv) {
        let gizmos: Api<Gizmo> = Api::namespaced(env.client.clone(), &env.namespace);
        assert_eq!(code(gizmos.list(&ListParams::default()).await), 404);
    }
}
