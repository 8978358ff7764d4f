//! The operator as ServiceAccount `cronjob-operator`, bound to a ClusterRole holding
//! `operator_rules()`, on an Envtest apiserver with RBAC authorization and the
//! `OwnerReferencesPermissionEnforcement` admission plugin (which checks the rights behind an
//! ownerReference). CronJobs are created and deleted as admin, the way a user would: the
//! operator's role holds only what the operator calls.
//!
//! Three scenarios run side by side, each with its own namespace, ServiceAccount and
//! ClusterRole: the whole demo under the full role, then the role without `cronjobs/status`
//! patch, and without `batch` `jobs` create. Last, a Job that blocks its owner's deletion
//! shows why the role holds `cronjobs/finalizers`.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::authorization::v1::ResourceAttributes;
use k8s_openapi::api::batch::v1::Job;
use kube::api::{Api, Patch, PatchParams};
use kube::core::Status;
use kubegen::client::{ClientError, ResourceClient};
use kubegen::controller::{ObjectKey, Reconciler};
use kubegen::events::{EventRecorder, Reporter};
use kubegen::rbac::{Rules, Verb, cluster_role_binding};
use kubegen::testing::Envtest;
use kubegen::testing::envtest::wait_for_access;
use kubegen_examples::cronjob::{CronJob, CronJobClientExt};
use kubegen_examples::operator::{Log, Operator, demo_as};
use kubegen_examples::rbac::{OPERATOR, operator_rules};

use crate::demo_log;

/// The CronJob's API group.
const GROUP: &str = "batch.tutorial.kubebuilder.io";
/// The Jobs' API group.
const BATCH: &str = "batch";
/// How long the RBAC authorizer may take to see a role or binding change.
const SETTLE: Duration = Duration::from_secs(30);

#[test]
fn the_operator_runs_under_exactly_its_role_and_fails_without_one_rule() {
    if std::env::var_os("KUBEBUILDER_ASSETS").is_none_or(|v| v.is_empty()) {
        eprintln!(
            "skipping the operator's RBAC test: it needs a real apiserver, and \
             KUBEBUILDER_ASSETS is not set (KUBEBUILDER_ASSETS=$(../shared/k8s/install) runs \
             it); the in-memory server does not authorize requests"
        );
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let env = Envtest::builder()
            .apiserver_flag("--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
            .start()
            .await
            .expect("Envtest starts");
        let (log, status, create) = tokio::join!(
            the_demo_under(&env, "rbac-full"),
            reconcile_without(
                &env,
                "rbac-no-status",
                GROUP,
                "cronjobs/status",
                Verb::Patch
            ),
            reconcile_without(&env, "rbac-no-create", BATCH, "jobs", Verb::Create),
        );

        let ns = "rbac-full";
        for line in demo_log::reconciled(ns) {
            assert!(log.contains(&line), "missing {line:?} in {log:#?}");
        }
        assert!(
            !log.iter().any(|l| l.contains("failed")),
            "no call was refused under the full role: {log:#?}"
        );
        let runs = jobs(env.client(), ns).list(&Default::default()).await;
        assert_eq!(runs.unwrap().items.len(), 1, "nightly's Job stays");

        assert_forbidden(&status, "rbac-no-status", GROUP, "patch", "cronjobs/status");
        assert_forbidden(&create, "rbac-no-create", BATCH, "create", "jobs");

        blocking_owner_deletion_needs_the_finalizers_rule(&env, ns).await;
    });
}

/// The `batch/v1` Jobs in `ns`. Not `BuiltinClientExt::jobs`: that trait's `cron_jobs` would
/// clash with the CRD's.
fn jobs(client: kube::Client, ns: &str) -> ResourceClient<Job> {
    ResourceClient::namespaced(client, ns)
}

/// A Job that blocks its owner's deletion (as `set_controller_reference` makes it) needs
/// update on `cronjobs/finalizers` under the `OwnerReferencesPermissionEnforcement` admission
/// plugin: refused with the role less that rule, created under the operator's role, which
/// holds it because the controller `owns` Jobs.
async fn blocking_owner_deletion_needs_the_finalizers_rule(env: &Envtest, ns: &str) {
    let client = env.service_account_client(ns, OPERATOR).await.unwrap();
    let nightly = env.client().cron_jobs(ns).get("nightly").await.unwrap();
    let mut run = Job {
        spec: nightly.spec.job_template.spec.clone(),
        ..Job::default()
    };
    run.metadata.name = Some("blocking".into());
    run.metadata.namespace = Some(ns.into());
    kubegen::controller::util::set_controller_reference(&nightly, &mut run).unwrap();
    let full = operator_rules();
    let without = full
        .clone()
        .revoke_resource(GROUP, "cronjobs/finalizers", &[Verb::Update]);
    assert_ne!(without, full, "owns() grants update on cronjobs/finalizers");
    apply(env, &without.cluster_role(&role_name(ns))).await;
    wait_for_rules(&client, ns, &without).await;
    let runs = jobs(client.clone(), ns);
    match runs.create(&run).await {
        Err(ClientError::Forbidden(status)) => {
            eprintln!(
                "blockOwnerDeletion without cronjobs/finalizers: {}",
                status.message
            );
            assert!(
                status.message.contains("cannot set blockOwnerDeletion"),
                "{}",
                status.message
            );
        }
        other => panic!("blockOwnerDeletion should need cronjobs/finalizers: {other:?}"),
    }
    apply(env, &full.cluster_role(&role_name(ns))).await;
    wait_for_rules(&client, ns, &full).await;
    runs.create(&run).await.unwrap();
}

/// The apiserver's 403 for `verb` on `resource` in `group`, naming the operator's
/// ServiceAccount.
fn assert_forbidden(status: &Status, ns: &str, group: &str, verb: &str, resource: &str) {
    eprintln!("without {verb} {resource}: {}", status.message);
    assert_eq!((status.code, status.reason.as_str()), (403, "Forbidden"));
    let expected = format!(
        "User \"system:serviceaccount:{ns}:{OPERATOR}\" cannot {verb} resource \"{resource}\" \
         in API group \"{group}\" in the namespace \"{ns}\""
    );
    assert!(status.message.contains(&expected), "{}", status.message);
}

/// The demo with the operator's replica as the ServiceAccount and the user as admin: three
/// CronJobs (one suspended) reconciled, one deleted and cleaned up, the Lease taken and
/// released, events recorded. The operator's log.
async fn the_demo_under(env: &Envtest, ns: &str) -> Vec<String> {
    let operator_client = operator_identity(env, ns, &operator_rules()).await;
    let report = demo_as(env.client(), operator_client, ns, 1).await.unwrap();
    report.log
}

/// Binds the operator's full role, takes `verb` on `resource` in `group` away and waits until
/// the authorizer denies it, then reconciles one CronJob until the operator gets an error:
/// the apiserver's Status for it.
async fn reconcile_without(
    env: &Envtest,
    ns: &str,
    group: &str,
    resource: &str,
    verb: Verb,
) -> Status {
    let full = operator_rules();
    let client = operator_identity(env, ns, &full).await;
    let reduced = full.clone().revoke_resource(group, resource, &[verb]);
    assert_ne!(
        reduced, full,
        "{verb} {resource} is one of the operator's rules"
    );
    apply(env, &reduced.cluster_role(&role_name(ns))).await;
    wait_for_access(
        &client,
        &attributes(ns, group, resource, verb),
        false,
        SETTLE,
    )
    .await
    .unwrap();
    wait_for_rules(&client, ns, &reduced).await;

    env.client()
        .cron_jobs(ns)
        .create(&cron_job("nightly", false))
        .await
        .unwrap();
    // The reconciler alone, handed the CronJob as the cache would hold it (read as admin,
    // since the operator's role has no get): the first pass adds the finalizer, the next
    // makes the Job and writes status.
    let reporter = Reporter {
        controller: OPERATOR.into(),
        instance: None,
    };
    let recorder = EventRecorder::new(client.clone(), reporter);
    let operator = Operator::new(client, recorder, Log::default());
    let key = ObjectKey::new(Some(ns), "nightly");
    let jobs = env.client().cron_jobs(ns);
    let mut error = None;
    for _ in 0..200 {
        let cached = jobs.get("nightly").await.unwrap();
        match operator.reconcile(&key, Some(Arc::new(cached))).await {
            Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    match error {
        Some(ClientError::Forbidden(status)) => *status,
        other => panic!("without {verb} {resource} the operator should be refused: {other:?}"),
    }
}

/// A client as ServiceAccount `ns/cronjob-operator`, bound to a ClusterRole holding `rules`,
/// once the authorizer allows every rule.
async fn operator_identity(env: &Envtest, ns: &str, rules: &Rules) -> kube::Client {
    let client = env.service_account_client(ns, OPERATOR).await.unwrap();
    let role = role_name(ns);
    apply(env, &rules.cluster_role(&role)).await;
    apply(env, &cluster_role_binding(&role, OPERATOR, ns)).await;
    wait_for_rules(&client, ns, rules).await;
    client
}

/// The ClusterRole and binding of one scenario: cluster-scoped, so named for its namespace.
fn role_name(ns: &str) -> String {
    format!("{ns}-{OPERATOR}")
}

async fn apply<K>(env: &Envtest, object: &K)
where
    K: kube::Resource<DynamicType = ()>
        + Clone
        + serde::Serialize
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
{
    let name = object.meta().name.clone().unwrap();
    Api::<K>::all(env.client())
        .patch(
            &name,
            &PatchParams::apply("rbac-test").force(),
            &Patch::Apply(object),
        )
        .await
        .unwrap();
}

/// Waits until the authorizer allows every verb of every rule in `rules` to `client`.
async fn wait_for_rules(client: &kube::Client, ns: &str, rules: &Rules) {
    for rule in rules.policy_rules() {
        for group in rule.api_groups.iter().flatten() {
            for resource in rule.resources.iter().flatten() {
                for verb in &rule.verbs {
                    let mut a = attributes(ns, group, resource, Verb::Get);
                    a.verb = Some(verb.clone());
                    wait_for_access(client, &a, true, SETTLE).await.unwrap();
                }
            }
        }
    }
}

/// `verb` on `resource` (`plural` or `plural/subresource`) in `group`, in namespace `ns`.
fn attributes(ns: &str, group: &str, resource: &str, verb: Verb) -> ResourceAttributes {
    let (resource, subresource) = resource.split_once('/').unwrap_or((resource, ""));
    ResourceAttributes {
        namespace: Some(ns.into()),
        verb: Some(verb.to_string()),
        group: Some(group.into()),
        resource: Some(resource.into()),
        subresource: Some(subresource.into()),
        ..ResourceAttributes::default()
    }
}

fn cron_job(name: &str, suspend: bool) -> CronJob {
    let spec = serde_json::json!({
        "schedule": "0 2 * * *",
        "suspend": suspend,
        "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "OnFailure",
            "containers": [{"name": "hello", "image": "busybox", "command": ["date"]}],
        }}}},
    });
    CronJob::new(name, serde_json::from_value(spec).unwrap())
}
