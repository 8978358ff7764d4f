//! CRDs: every `#[resource]` key, version merging, the registry and crdgen's failure path,
//! and the kind's wire format and kube-rs compatibility.

use kubegen::prelude::*;
use kubegen::{CrdError, crd};
use serde_json::json;

mod refusals;

/// Every key at once.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "keys.example.com",
    version = "v1beta1",
    kind = "Policy",
    plural = "policyset",
    singular = "onepolicy",
    shortname = "pol",
    shortname = "pl",
    category = "all",
    category = "security",
    scope = "Cluster",
    status = PolicyStatus,
    scale(spec_replicas_path = ".spec.replicas", status_replicas_path = ".status.replicas", label_selector_path = ".status.selector"),
    printcolumn(name = "Replicas", json_path = ".spec.replicas", type = "integer", description = "desired", format = "int32", priority = 0),
    printcolumn(name = "Age", json_path = ".metadata.creationTimestamp", type = "date", priority = 1),
    selectable = ".spec.owner",
    selectable = ".spec.replicas",
    served = false,
    storage = true,
    deprecated(warning = "use v1"),
    label("app.kubernetes.io/name", "policy"),
    annotation("example.com/owner", "team-a")
)]
pub struct PolicySpec {
    pub replicas: i32,
    pub owner: String,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct PolicyStatus {
    #[serde(default)]
    pub replicas: i32,
    pub selector: Option<String>,
}

#[test]
fn every_resource_key_reaches_the_crd() {
    let crd = serde_json::to_value(Policy::crd().unwrap()).unwrap();
    assert_eq!(crd["metadata"]["name"], "policyset.keys.example.com");
    assert_eq!(
        crd["metadata"]["labels"],
        json!({"app.kubernetes.io/name": "policy"})
    );
    assert_eq!(
        crd["metadata"]["annotations"],
        json!({"example.com/owner": "team-a"})
    );
    let spec = &crd["spec"];
    assert_eq!(spec["group"], "keys.example.com");
    assert_eq!(spec["scope"], "Cluster");
    assert_eq!(
        spec["names"],
        json!({
            "kind": "Policy", "listKind": "PolicyList", "plural": "policyset", "singular": "onepolicy",
            "shortNames": ["pol", "pl"], "categories": ["all", "security"],
        })
    );
    let v = &spec["versions"][0];
    assert_eq!(v["name"], "v1beta1");
    assert_eq!(
        (v["served"].clone(), v["storage"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(
        (v["deprecated"].clone(), v["deprecationWarning"].clone()),
        (json!(true), json!("use v1"))
    );
    assert_eq!(
        v["additionalPrinterColumns"],
        json!([
            {"name": "Replicas", "jsonPath": ".spec.replicas", "type": "integer", "description": "desired", "format": "int32", "priority": 0},
            {"name": "Age", "jsonPath": ".metadata.creationTimestamp", "type": "date", "priority": 1},
        ])
    );
    assert_eq!(
        v["selectableFields"],
        json!([{"jsonPath": ".spec.owner"}, {"jsonPath": ".spec.replicas"}])
    );
    assert_eq!(
        v["subresources"],
        json!({
            "status": {},
            "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".status.selector"},
        })
    );
    let schema = &v["schema"]["openAPIV3Schema"];
    assert_eq!(schema["required"], json!(["spec"]));
    assert_eq!(schema["properties"]["metadata"], json!({"type": "object"}));
    assert_eq!(
        schema["properties"]["status"]["properties"]["selector"]["nullable"],
        true
    );
}

/// Defaults: plural, singular and scope.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "defaults.example.com", version = "v1", kind = "Ingress")]
pub struct IngressSpec {
    pub host: String,
}

#[test]
fn names_and_scope_default_like_kubernetes_tooling() {
    let crd = Ingress::crd().unwrap();
    assert_eq!(crd.spec.names.plural, "ingresses");
    assert_eq!(crd.spec.names.singular.as_deref(), Some("ingress"));
    assert_eq!(crd.spec.scope, "Namespaced");
    let v = &crd.spec.versions[0];
    assert!(v.served && v.storage && v.subresources.is_none() && v.deprecated.is_none());
    assert_eq!(crd.spec.names.short_names, None);
}

mod thing_v1 {
    use kubegen::prelude::*;
    /// Thing, version one.
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[resource(
        group = "things.example.com",
        version = "v1",
        kind = "Thing",
        register = false
    )]
    pub struct ThingSpec {
        pub a: String,
    }
}

mod thing_v2alpha1 {
    use kubegen::prelude::*;
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[resource(
        group = "things.example.com",
        version = "v2alpha1",
        kind = "Thing",
        storage = false,
        register = false
    )]
    pub struct ThingSpec {
        pub a: String,
        pub b: Option<i32>,
    }
}

mod thing_v2 {
    use kubegen::prelude::*;
    // A second storage version: building it with v1 must fail.
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[resource(
        group = "things.example.com",
        version = "v2",
        kind = "Thing",
        register = false
    )]
    pub struct ThingSpec {
        pub a: String,
    }
}

mod thing_cluster {
    use kubegen::prelude::*;
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[resource(
        group = "things.example.com",
        version = "v3",
        kind = "Thing",
        scope = "Cluster",
        storage = false,
        register = false
    )]
    pub struct ThingSpec {
        pub a: String,
    }
}

mod thing_v1_again {
    use kubegen::prelude::*;
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[resource(
        group = "things.example.com",
        version = "v1",
        kind = "Thing",
        storage = false,
        register = false
    )]
    pub struct ThingSpec {
        pub a: String,
    }
}

#[test]
fn versions_merge_into_one_crd_in_priority_order() {
    let crd = crd::build(&[thing_v2alpha1::Thing::INFO, thing_v1::Thing::INFO]).unwrap();
    let versions: Vec<(&str, bool)> = crd
        .spec
        .versions
        .iter()
        .map(|v| (v.name.as_str(), v.storage))
        .collect();
    assert_eq!(versions, [("v1", true), ("v2alpha1", false)]);
    let v2 = serde_json::to_value(&crd.spec.versions[1]).unwrap();
    assert!(
        v2["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
            .get("b")
            .is_some()
    );
}

#[test]
fn version_merge_errors_name_the_problem() {
    let err = crd::build(&[thing_v1::Thing::INFO, thing_v2::Thing::INFO]).unwrap_err();
    assert!(
        matches!(&err, CrdError::ManyStorageVersions { versions, .. } if versions == &["v1", "v2"]),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "things.things.example.com: versions v1, v2 are all storage versions; mark all but one `storage = false`"
    );

    let err = crd::build(&[thing_v2alpha1::Thing::INFO]).unwrap_err();
    assert!(matches!(err, CrdError::NoStorageVersion { .. }), "{err}");

    let err = crd::build(&[thing_v1::Thing::INFO, thing_cluster::Thing::INFO]).unwrap_err();
    assert!(
        matches!(err, CrdError::Conflict { what: "scope", .. }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "things.things.example.com: versions disagree on scope: v1 says \"Namespaced\", v3 says \"Cluster\""
    );

    let err = crd::build(&[thing_v1::Thing::INFO, thing_v1_again::Thing::INFO]).unwrap_err();
    assert!(matches!(err, CrdError::DuplicateVersion { .. }), "{err}");
    assert!(
        err.to_string().contains("thing_v1::Thing")
            && err.to_string().contains("thing_v1_again::Thing"),
        "{err}"
    );
}

/// What crdgen prints for a broken API crate (two definitions of one kind version, a schema
/// the apiserver refuses): every problem, each naming its kind. These kinds are kept out of
/// this binary's registry, so they are given to `crds_of` as such a crate would register them.
#[test]
fn bad_kinds_fail_crd_generation_with_every_kind_and_problem() {
    let err = kubegen::registry::crds_of([
        thing_v1_again::Thing::INFO,
        Broken::INFO,
        thing_v1::Thing::INFO,
        Account::INFO,
    ])
    .unwrap_err();
    assert!(
        matches!(&err, CrdError::Several(all) if all.len() == 3),
        "{err}"
    );
    let message = err.to_string();
    assert!(
        message.starts_with("Broken v1: the schema breaks the apiserver's rules:\n"),
        "{message}"
    );
    assert!(
        message.contains("\nthings.things.example.com: version v1 is defined by both"),
        "{message}"
    );
    assert!(
        message.contains("\nAccount v1: the schema breaks the apiserver's rules:\n  - .spec.alias: pattern: Invalid value: \"^(?=[a-z])[a-z0-9]+$\": must be a valid regular expression"),
        "{message}"
    );
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Alias(String);

/// The derive sees a user type here; the schema builder sees a string.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "broken.example.com",
    version = "v1",
    kind = "Broken",
    register = false
)]
pub struct BrokenSpec {
    #[validate(min_items = 1)]
    pub name: Alias,
    #[default(-1)]
    #[validate(minimum = 0)]
    pub count: Option<i32>,
}

#[test]
fn crd_refuses_a_schema_the_apiserver_would_reject() {
    let err = Broken::crd().unwrap_err();
    let CrdError::Structural {
        kind,
        version,
        violations,
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!((kind.as_str(), version.as_str()), ("Broken", "v1"));
    let found: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        [
            // kube-apiserver v1.36.2 words an invalid default this way (after the path).
            ".spec.count: default is invalid: Invalid value: -1:  in body should be greater than or equal to 0",
            ".spec.name: `min_items` cannot apply to a node of type string",
        ]
    );
}

/// A handle whose schema is written by hand, not by the derive: its pattern has a look-ahead,
/// which Go's regexp (and so the apiserver) refuses.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Handle(String);

impl JsonSchema for Handle {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Handle".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "pattern": "^(?=[a-z])[a-z0-9]+$"})
    }
}

/// Patterns the derive never sees: a foreign type's schema, and `#[schema(with)]`.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "patterns.example.com",
    version = "v1",
    kind = "Account",
    register = false
)]
pub struct AccountSpec {
    pub handle: Handle,
    #[schema(with = Handle)]
    pub alias: String,
}

#[test]
fn crd_refuses_a_pattern_go_cannot_parse_in_the_apiserver_s_words() {
    let err = Account::crd().unwrap_err();
    let CrdError::Structural { violations, .. } = &err else {
        panic!("{err}")
    };
    let found: Vec<String> = violations.iter().map(ToString::to_string).collect();
    // kube-apiserver v1.36.2 refuses such a CRD with this message (after the field path).
    let refused = "pattern: Invalid value: \"^(?=[a-z])[a-z0-9]+$\": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?=`";
    assert_eq!(
        found,
        [
            format!(".spec.alias: {refused}"),
            format!(".spec.handle: {refused}")
        ]
    );
}

/// What the derive cannot see: the type of a status field, and a default against its rule.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "refused.example.com",
    version = "v1",
    kind = "Refused",
    status = "RefusedStatus",
    selectable = ".status.conditions",
    label("team", "a"),
    annotation("team", "b"),
    register = false
)]
pub struct RefusedSpec {
    #[default("red".to_string())]
    #[rule("self != 'red'", message = "no red")]
    pub color: Option<String>,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct RefusedStatus {
    #[serde(default)]
    pub conditions: Vec<String>,
}

#[test]
fn crd_refuses_what_the_apiserver_refuses_with_its_words_and_a_fix() {
    let err = Refused::crd().unwrap_err();
    let CrdError::Invalid { crd, refusals } = &err else {
        panic!("{err}")
    };
    assert_eq!(crd, "refuseds.refused.example.com");
    let errors: Vec<String> = refusals.iter().map(|r| r.error.to_string()).collect();
    assert_eq!(
        errors,
        [
            // As kube-apiserver v1.36.2 words them (tests/crd/refusals.rs checks them live).
            "spec.validation.openAPIV3Schema.properties[spec].properties[color].default: Invalid value: \"red\": no red",
            "spec.selectableFields[0].jsonPath: Invalid value: \".status.conditions\": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
        ]
    );
    let text = err.to_string();
    assert!(
        text.starts_with("refuseds.refused.example.com: the apiserver would refuse this CRD:\n  - spec.validation")
            && text.contains("\n    fix: a `#[default]` must be a value the field accepts"),
        "{text}"
    );
}

#[test]
fn objects_serialize_with_api_version_and_kind() {
    let mut p = Policy::new(
        "p1",
        PolicySpec {
            replicas: 2,
            owner: "me".into(),
        },
    );
    let value = serde_json::to_value(&p).unwrap();
    assert_eq!(
        value,
        json!({"apiVersion": "keys.example.com/v1beta1", "kind": "Policy", "metadata": {"name": "p1"}, "spec": {"replicas": 2, "owner": "me"}})
    );
    p.status = Some(PolicyStatus {
        replicas: 1,
        selector: None,
    });
    let back: Policy = serde_json::from_value(serde_json::to_value(&p).unwrap()).unwrap();
    assert_eq!(back.status.unwrap().replicas, 1);

    let list = PolicyList {
        metadata: Default::default(),
        items: vec![p],
    };
    let value = serde_json::to_value(&list).unwrap();
    assert_eq!(
        (value["apiVersion"].clone(), value["kind"].clone()),
        (json!("keys.example.com/v1beta1"), json!("PolicyList"))
    );
    let back: PolicyList = serde_json::from_value(
        json!({"kind": "PolicyList", "metadata": {"resourceVersion": "7"}, "items": null}),
    )
    .unwrap();
    assert!(back.items.is_empty());
    assert_eq!(back.metadata.resource_version.as_deref(), Some("7"));
}

#[test]
fn kinds_work_with_kube_rs() {
    use kube::Resource;
    use kube::core::object::{HasSpec, HasStatus};
    assert_eq!(Ingress::kind(&()), "Ingress");
    assert_eq!(Ingress::api_version(&()), "defaults.example.com/v1");
    assert_eq!(Ingress::plural(&()), "ingresses");
    assert_eq!(
        Ingress::url_path(&(), Some("ns")),
        "/apis/defaults.example.com/v1/namespaces/ns/ingresses"
    );
    assert_eq!(
        Policy::url_path(&(), None),
        "/apis/keys.example.com/v1beta1/policyset"
    );
    let mut p = Policy::new(
        "p",
        PolicySpec {
            replicas: 1,
            owner: String::new(),
        },
    );
    p.spec_mut().replicas = 4;
    *p.status_mut() = Some(PolicyStatus::default());
    assert_eq!(p.spec().replicas, 4);
    assert!(p.status().is_some());

    // These only need to compile: kube's Api accepts the generated kinds, with the scope
    // each declared (namespaced: Api::namespaced; cluster-scoped: Api::all).
    fn _apis(client: kube::Client) {
        let _: kube::Api<Ingress> = kube::Api::namespaced(client.clone(), "ns");
        let _: kube::Api<Policy> = kube::Api::all(client);
    }
}
