//! CRDs kube-apiserver refuses, and `crd()`'s checks refusing the same.
//!
//! Each case changes one thing in a CRD `crd()` builds (the `Probe` kind below) into
//! something the apiserver refuses — or, for the `accepted_*` cases, something it accepts that
//! looks close — and sends it to the apiserver as a dry-run create. kubegen's verdict is
//! [`kubegen::crd::validate`] with the structural and CEL cost checks `crd()` runs before it.
//! For the rules `crd::validate` ports, its refusals must be the apiserver's causes exactly
//! (field path and message); for the rest the verdicts must agree. One CRD with every feature
//! must pass both.
//!
//! The apiserver's answers are recorded in `tests/crd/apiserver.json`, so a machine without
//! one still checks kubegen against them; with a real apiserver (`KUBEGEN_TEST_KUBECONFIG`, or
//! `KUBEBUILDER_ASSETS` with the `envtest` feature) they are asked live and must match the
//! recording; `KUBEGEN_CRD_RECORD=1` rewrites it.

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kubegen::prelude::*;
use kubegen::schema::{cel_cost, structural};
use serde_json::{Value, json};

use crate::fixtures::crd_recording::{self, Causes};

const RECORDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/crd/apiserver.json");
const RECORD_VARIABLE: &str = "KUBEGEN_CRD_RECORD";

/// The CRD every case changes.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "refusals.example.com",
    version = "v1",
    kind = "Probe",
    status = "ProbeStatus"
)]
pub struct ProbeSpec {
    /// A color.
    pub color: String,
}

/// The probe's status.
#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProbeStatus {
    /// Where it is.
    pub phase: Option<String>,
}

/// A kind with every feature `#[resource]` and the markers offer, which both accept.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "everything.k8s.io",
    version = "v1beta1",
    kind = "Everything",
    plural = "everythings",
    singular = "everything",
    shortname = "ev",
    category = "all",
    category = "kubegen-tests",
    scope = "Cluster",
    status = "EverythingStatus",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    ),
    printcolumn(
        name = "Replicas",
        json_path = ".spec.replicas",
        type = "integer",
        format = "int32"
    ),
    printcolumn(
        name = "Age",
        json_path = ".metadata.creationTimestamp",
        type = "date",
        priority = 1
    ),
    selectable = ".spec.color",
    selectable = ".spec.replicas",
    selectable = ".spec.enabled",
    selectable = ".spec.labels.team",
    selectable = ".status.phase",
    deprecated(warning = "everything.k8s.io/v1beta1 Everything is deprecated; use v1"),
    label("app.kubernetes.io/name", "everything"),
    label("tier", ""),
    annotation(
        "api-approved.kubernetes.io",
        "https://github.com/kubernetes/enhancements/pull/1111"
    ),
    annotation("Example.com/Owner", "team-a")
)]
pub struct EverythingSpec {
    /// Desired replicas.
    #[validate(minimum = 0)]
    pub replicas: i32,
    /// A color with a default its rule accepts.
    #[default("blue".to_string())]
    #[rule("self != 'red'", message = "no red")]
    pub color: Option<String>,
    /// A switch.
    pub enabled: bool,
    /// Labels, selectable by key.
    pub labels: std::collections::BTreeMap<String, String>,
    /// Ports, a map list.
    #[schema(list_type = "map", list_map_keys = ["name"])]
    pub ports: Vec<EverythingPort>,
    /// A set of strings.
    #[schema(list_type = "set")]
    pub tags: Vec<String>,
    /// An int-or-string.
    pub target: Option<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
    /// Any embedded object.
    #[schema(embedded_resource, preserve_unknown_fields)]
    pub template: Option<serde_json::Value>,
}

/// A port.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct EverythingPort {
    /// Its name, the key.
    pub name: String,
    /// Its number.
    #[default(80)]
    pub port: Option<i32>,
}

/// Everything's status.
#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct EverythingStatus {
    /// Observed replicas.
    #[serde(default)]
    pub replicas: i32,
    /// The selector, in string form.
    pub selector: Option<String>,
    /// The phase.
    pub phase: Option<String>,
}

/// How a case's verdicts are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// Both refuse, and `crd::validate`'s refusals are the apiserver's causes exactly.
    Same,
    /// Both refuse; `crd::validate`'s refusals are among the apiserver's causes, the structural
    /// check words the rest its own way.
    Refused,
    /// Both accept.
    Accepted,
    /// The apiserver accepts; kubegen refuses, knowingly (a CRD no object could satisfy).
    KubegenOnly,
}

struct Case {
    name: &'static str,
    expect: Expect,
    crd: Value,
}

fn base() -> Value {
    serde_json::to_value(Probe::crd().expect("the base CRD")).unwrap()
}

fn case(name: &'static str, expect: Expect, change: impl FnOnce(&mut Value)) -> Case {
    let mut crd = base();
    change(&mut crd);
    Case { name, expect, crd }
}

fn schema(crd: &mut Value) -> &mut Value {
    &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
}

/// Adds the field `f` to the spec's schema.
fn field(crd: &mut Value, node: Value) {
    schema(crd)["properties"]["spec"]["properties"]["f"] = node;
}

fn version(crd: &mut Value) -> &mut Value {
    &mut crd["spec"]["versions"][0]
}

fn group(crd: &mut Value, group: &str) {
    crd["spec"]["group"] = json!(group);
    crd["metadata"]["name"] = json!(format!("probes.{group}"));
}

fn annotate(crd: &mut Value, key: &str, value: &str) {
    crd["metadata"]["annotations"][key] = json!(value);
}

fn label(crd: &mut Value, key: &str, value: &str) {
    crd["metadata"]["labels"][key] = json!(value);
}

fn selectable(crd: &mut Value, paths: &[&str]) {
    version(crd)["selectableFields"] = paths.iter().map(|p| json!({"jsonPath": p})).collect();
}

/// A second version `v2` like the first, then changed.
fn second_version(crd: &mut Value, change: impl FnOnce(&mut Value)) {
    let mut v2 = version(crd).clone();
    v2["name"] = json!("v2");
    v2["storage"] = json!(false);
    change(&mut v2);
    crd["spec"]["versions"].as_array_mut().unwrap().push(v2);
}

fn rule(node: Value, rule: Value) -> Value {
    let mut node = node;
    node["x-kubernetes-validations"] = json!([rule]);
    node
}

fn cases() -> Vec<Case> {
    use Expect::*;
    let string = || json!({"type": "string"});
    let mut cases = vec![
        // The CRD's metadata.
        case("protected_group_without_approval", Same, |c| {
            group(c, "widgets.k8s.io")
        }),
        case("protected_group_kubernetes_io", Same, |c| {
            group(c, "kubernetes.io")
        }),
        case("protected_group_approval_not_a_link", Same, |c| {
            group(c, "x.k8s.io");
            annotate(
                c,
                "api-approved.kubernetes.io",
                "github.com/kubernetes/enhancements/pull/1111",
            );
        }),
        case("accepted_protected_group_unapproved", Accepted, |c| {
            group(c, "x.k8s.io");
            annotate(c, "api-approved.kubernetes.io", "unapproved, experimental");
        }),
        case("accepted_protected_group_approved", Accepted, |c| {
            group(c, "x.kubernetes.io");
            annotate(
                c,
                "api-approved.kubernetes.io",
                "https://github.com/kubernetes/enhancements/pull/1111",
            );
        }),
        case("accepted_group_ending_in_k8s_io_label", Accepted, |c| {
            group(c, "notk8s.io")
        }),
        case("label_key_not_a_qualified_name", Same, |c| {
            label(c, "team name", "a")
        }),
        case("label_key_prefix_not_a_subdomain", Same, |c| {
            label(c, "Example.com/team", "a")
        }),
        case("label_value_invalid", Same, |c| label(c, "team", "a b")),
        case("label_value_too_long", Same, |c| {
            label(c, "team", &"a".repeat(64))
        }),
        case("annotation_key_not_a_qualified_name", Same, |c| {
            annotate(c, "owner!", "a")
        }),
        case("accepted_annotation_key_upper_case_prefix", Accepted, |c| {
            annotate(c, "Example.com/Owner", "a")
        }),
        case("annotations_too_large", Same, |c| {
            annotate(c, "a", &"x".repeat(256 * 1024))
        }),
        case("name_longer_than_253", Same, |c| {
            group(
                c,
                &format!(
                    "{}.{}.{}.{}.com",
                    "a".repeat(63),
                    "b".repeat(63),
                    "c".repeat(63),
                    "d".repeat(51)
                ),
            )
        }),
        case("accepted_group_label_longer_than_63", Accepted, |c| {
            group(c, &format!("{}.com", "a".repeat(64)))
        }),
        case("group_without_dot", Same, |c| group(c, "widgets")),
        case("group_upper_case", Same, |c| {
            c["spec"]["group"] = json!("Example.com");
            c["metadata"]["name"] = json!("probes.Example.com");
        }),
        // Names.
        case("plural_starts_with_digit", Same, |c| {
            c["spec"]["names"]["plural"] = json!("1probes");
            c["metadata"]["name"] = json!("1probes.refusals.example.com");
        }),
        case("singular_starts_with_digit", Same, |c| {
            c["spec"]["names"]["singular"] = json!("1probe")
        }),
        case("shortname_starts_with_digit", Same, |c| {
            c["spec"]["names"]["shortNames"] = json!(["1p"])
        }),
        case("category_starts_with_digit", Same, |c| {
            c["spec"]["names"]["categories"] = json!(["1c"])
        }),
        case("kind_longer_than_63", Same, |c| {
            c["spec"]["names"]["kind"] = json!("K".repeat(64));
            c["spec"]["names"]["listKind"] = json!(format!("{}List", "K".repeat(64)));
        }),
        case("list_kind_longer_than_63", Same, |c| {
            c["spec"]["names"]["kind"] = json!("K".repeat(60));
            c["spec"]["names"]["listKind"] = json!(format!("{}List", "K".repeat(60)));
        }),
        // Versions.
        case("version_name_starts_with_digit", Same, |c| {
            version(c)["name"] = json!("1v")
        }),
        case("deprecation_warning_empty", Same, |c| {
            version(c)["deprecated"] = json!(true);
            version(c)["deprecationWarning"] = json!("");
        }),
        case("deprecation_warning_longer_than_256", Same, |c| {
            version(c)["deprecated"] = json!(true);
            version(c)["deprecationWarning"] = json!("w".repeat(257));
        }),
        case("deprecation_warning_with_tab", Same, |c| {
            version(c)["deprecated"] = json!(true);
            version(c)["deprecationWarning"] = json!("use\tv2");
        }),
        case("deprecation_warning_with_zero_width_space", Same, |c| {
            version(c)["deprecated"] = json!(true);
            version(c)["deprecationWarning"] = json!("use\u{200b}v2");
        }),
        case("deprecation_warning_not_deprecated", Same, |c| {
            version(c)["deprecationWarning"] = json!("use v2")
        }),
        case("column_path_without_dot", Same, |c| {
            version(c)["additionalPrinterColumns"] =
                json!([{"name": "C", "type": "string", "jsonPath": "spec.color"}]);
        }),
        case("column_bad_type_and_format", Same, |c| {
            version(c)["additionalPrinterColumns"] =
                json!([{"name": "", "type": "int", "format": "uuid", "jsonPath": ".spec.color"}]);
        }),
        case("scale_paths_under_the_wrong_parts", Same, |c| {
            version(c)["subresources"]["scale"] = json!({"specReplicasPath": ".status.r",
                "statusReplicasPath": ".spec.r", "labelSelectorPath": ".metadata.labels"});
        }),
        // Selectable fields.
        case("selectable_field_not_in_schema", Same, |c| {
            selectable(c, &[".spec.colour"])
        }),
        case("selectable_field_list", Same, |c| {
            field(c, json!({"type": "array", "items": string()}));
            selectable(c, &[".spec.f"]);
        }),
        case("selectable_field_object", Same, |c| {
            selectable(c, &[".spec"])
        }),
        case("selectable_field_number", Same, |c| {
            field(c, json!({"type": "number"}));
            selectable(c, &[".spec.f"]);
        }),
        case("selectable_field_int_or_string", Same, |c| {
            field(c, json!({"x-kubernetes-int-or-string": true}));
            selectable(c, &[".spec.f"]);
        }),
        case("selectable_field_in_metadata", Same, |c| {
            selectable(c, &[".metadata.name"])
        }),
        case("selectable_field_twice", Same, |c| {
            selectable(c, &[".spec.color", ".spec.color"])
        }),
        case("selectable_field_without_dot", Same, |c| {
            selectable(c, &["spec.color"])
        }),
        case("selectable_field_array_notation", Same, |c| {
            selectable(c, &[".spec['color']"])
        }),
        case("selectable_field_empty", Same, |c| selectable(c, &[""])),
        case("selectable_fields_more_than_8", Same, |c| {
            let mut paths = Vec::new();
            for i in 0..9 {
                schema(c)["properties"]["spec"]["properties"][format!("s{i}")] = string();
                paths.push(format!(".spec.s{i}"));
            }
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            selectable(c, &paths);
        }),
        case("accepted_selectable_field_in_map", Accepted, |c| {
            field(
                c,
                json!({"type": "object", "additionalProperties": string()}),
            );
            selectable(c, &[".spec.f.team", ".status.phase"]);
        }),
        case("selectable_fields_alike_schemas_differ", Same, |c| {
            selectable(c, &[".spec.color"]);
            second_version(c, |v2| {
                v2["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["extra"] =
                    string();
            });
        }),
        case("selectable_fields_differ_schemas_alike", Same, |c| {
            selectable(c, &[".spec.color"]);
            second_version(c, |v2| {
                v2["selectableFields"] = json!([{"jsonPath": ".status.phase"}])
            });
        }),
        case(
            "accepted_selectable_fields_and_schemas_differ",
            Accepted,
            |c| {
                selectable(c, &[".spec.color"]);
                second_version(c, |v2| {
                    v2["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["extra"] =
                        string();
                    v2["selectableFields"] = json!([{"jsonPath": ".spec.extra"}]);
                });
            },
        ),
        case("column_bad_in_one_version", Same, |c| {
            second_version(c, |v2| {
                v2["additionalPrinterColumns"] =
                    json!([{"name": "C", "type": "text", "jsonPath": ".spec.color"}]);
                v2["subresources"]["scale"] =
                    json!({"specReplicasPath": ".spec.r", "statusReplicasPath": ".spec.r"});
            });
        }),
        case("default_fails_its_rule_in_one_version", Same, |c| {
            second_version(c, |v2| {
                v2["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["f"] = rule(
                    json!({"type": "integer", "default": 0}),
                    json!({"rule": "self > 0"}),
                );
            });
        }),
        // The schema.
        case("root_additional_properties", Same, |c| {
            let s = schema(c);
            s.as_object_mut().unwrap().remove("properties");
            s["additionalProperties"] = string();
        }),
        case("root_nullable", Same, |c| {
            schema(c)["nullable"] = json!(true)
        }),
        case("root_any_of_with_status", Same, |c| {
            schema(c)["anyOf"] = json!([{"required": ["spec"]}])
        }),
        case("accepted_root_any_of_without_status", Accepted, |c| {
            version(c).as_object_mut().unwrap().remove("subresources");
            schema(c)["anyOf"] = json!([{"required": ["spec"]}]);
        }),
        case("embedded_resource_without_properties", Same, |c| {
            field(
                c,
                json!({"type": "object", "x-kubernetes-embedded-resource": true}),
            );
        }),
        case("embedded_resource_map", Same, |c| {
            field(
                c,
                json!({"type": "object", "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true, "additionalProperties": string()}),
            );
        }),
        case("embedded_resource_kind_not_a_string", Same, |c| {
            field(
                c,
                json!({"type": "object", "x-kubernetes-embedded-resource": true,
                "properties": {"kind": {"type": "integer"}, "metadata": {"type": "string"}}}),
            );
        }),
        case("root_kind_not_a_string", Same, |c| {
            schema(c)["properties"]["kind"] = json!({"type": "integer"})
        }),
        case("int_or_string_preserving_unknown_fields", Same, |c| {
            field(
                c,
                json!({"x-kubernetes-int-or-string": true, "x-kubernetes-preserve-unknown-fields": true}),
            );
        }),
        case("int_or_string_embedded_resource", Refused, |c| {
            field(
                c,
                json!({"x-kubernetes-int-or-string": true, "x-kubernetes-embedded-resource": true}),
            );
        }),
        case("default_in_top_level_metadata", Same, |c| {
            schema(c)["properties"]["metadata"] = json!({"type": "object", "properties": {"name": {"type": "string", "default": "x"}}});
        }),
        case("default_in_top_level_kind", Same, |c| {
            schema(c)["properties"]["kind"]["default"] = json!("Probe")
        }),
        case("embedded_resource_in_metadata", Same, |c| {
            schema(c)["properties"]["metadata"] = json!({"type": "object", "properties": {"name": {"type": "object",
                "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}});
        }),
        case("map_type_on_a_string", Same, |c| {
            field(
                c,
                json!({"type": "string", "x-kubernetes-map-type": "atomic"}),
            )
        }),
        case("list_type_on_a_string", Same, |c| {
            field(
                c,
                json!({"type": "string", "x-kubernetes-list-type": "atomic"}),
            )
        }),
        case("set_of_sets", Same, |c| {
            field(
                c,
                json!({"type": "array", "x-kubernetes-list-type": "set",
                "items": {"type": "array", "x-kubernetes-list-type": "set", "items": string()}}),
            );
        }),
        case("accepted_set_of_atomic_lists", Accepted, |c| {
            field(
                c,
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "items": string()}}),
            );
        }),
        case("list_map_keys_repeated", Same, |c| {
            field(
                c,
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a", "a"],
                "items": {"type": "object", "required": ["a"], "properties": {"a": string()}}}),
            );
        }),
        case("title_in_junctor", Same, |c| {
            field(c, json!({"type": "string", "anyOf": [{"title": "t"}]}))
        }),
        case("metadata_in_junctor", Same, |c| {
            field(
                c,
                json!({"type": "object", "properties": {"metadata": {"type": "object"}},
                "anyOf": [{"properties": {"metadata": {}}}]}),
            );
        }),
        case("rule_message_blank", Same, |c| {
            field(
                c,
                rule(string(), json!({"rule": "self != ''", "message": " "})),
            )
        }),
        case("rule_over_lines_without_message", Same, |c| {
            field(c, rule(string(), json!({"rule": "self != ''\n&& true"})));
        }),
        case("rule_message_expression_blank", Same, |c| {
            field(
                c,
                rule(
                    string(),
                    json!({"rule": "self != ''", "messageExpression": " "}),
                ),
            );
        }),
        case("rule_field_path_blank", Same, |c| {
            field(
                c,
                rule(
                    json!({"type": "object", "properties": {"a": string()}}),
                    json!({"rule": "true", "fieldPath": " "}),
                ),
            );
        }),
        case("rule_field_path_unknown", Same, |c| {
            field(
                c,
                rule(
                    json!({"type": "object", "properties": {"a": string()}}),
                    json!({"rule": "true", "fieldPath": ".b"}),
                ),
            );
        }),
        case("rule_field_path_with_newline", Same, |c| {
            field(
                c,
                rule(
                    json!({"type": "object", "properties": {"a": string()}}),
                    json!({"rule": "true", "fieldPath": ".a\n"}),
                ),
            );
        }),
        case("default_fails_its_rule", Same, |c| {
            field(
                c,
                rule(
                    json!({"type": "string", "default": "red"}),
                    json!({"rule": "self != 'red'", "message": "no red"}),
                ),
            );
        }),
        case("default_fails_a_rule_below", Same, |c| {
            field(
                c,
                json!({"type": "object", "default": {"a": "red"}, "properties": {"a": rule(string(), json!({"rule": "self != 'red'"}))}}),
            );
        }),
        case("accepted_default_fails_a_rule_above", Accepted, |c| {
            field(
                c,
                rule(
                    json!({"type": "object", "properties": {"a": {"type": "string", "default": "red"}}}),
                    json!({"rule": "!has(self.a) || self.a != 'red'"}),
                ),
            );
        }),
        case("embedded_resource_default_without_kind", Same, |c| {
            field(
                c,
                json!({"type": "object", "x-kubernetes-embedded-resource": true,
                "x-kubernetes-preserve-unknown-fields": true, "default": {"apiVersion": "v1"}}),
            );
        }),
        // The rest of the spec.
        case("version_without_schema", Same, |c| {
            version(c).as_object_mut().unwrap().remove("schema");
        }),
        case("preserve_unknown_fields_true", Same, |c| {
            c["spec"]["preserveUnknownFields"] = json!(true)
        }),
        case("conversion_webhook_without_client", Same, |c| {
            c["spec"]["conversion"] = json!({"strategy": "Webhook"})
        }),
        case("conversion_review_versions_unknown", Same, |c| {
            c["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
                "conversionReviewVersions": ["v2", "v2"], "clientConfig": {"url": "https://x.example.com/convert"}}});
        }),
        case("conversion_none_with_review_versions", Same, |c| {
            c["spec"]["conversion"] =
                json!({"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}});
        }),
        case("conversion_strategy_unknown", Same, |c| {
            c["spec"]["conversion"] = json!({"strategy": "Manual"})
        }),
        // What kubegen refuses and the apiserver takes.
        case(
            "kubegen_only_enum_value_of_another_type",
            KubegenOnly,
            |c| {
                field(c, json!({"type": "integer", "enum": [1, "two"]}));
            },
        ),
        case("accepted_default_null", Accepted, |c| {
            field(c, json!({"type": "string", "default": null}))
        }),
        // Rules the structural check words its own way.
        case("unique_items", Refused, |c| {
            field(
                c,
                json!({"type": "array", "items": string(), "uniqueItems": true}),
            )
        }),
        case("type_not_a_type", Refused, |c| {
            field(c, json!({"type": "date"}))
        }),
        case("list_map_key_an_object", Refused, |c| {
            field(
                c,
                json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a"],
                "items": {"type": "object", "required": ["a"], "properties": {"a": {"type": "object"}}}}),
            );
        }),
        case("default_not_of_its_type", Refused, |c| {
            field(c, json!({"type": "integer", "default": "three"}))
        }),
    ];
    cases.push(Case {
        name: "accepted_everything",
        expect: Accepted,
        crd: serde_json::to_value(Everything::crd().expect("crd() accepts Everything")).unwrap(),
    });
    cases
}

/// kubegen's verdict: the refusals of `crd::validate` as causes, and the problems the
/// structural and cost checks find (in kubegen's words).
fn ours(crd: &Value) -> (Causes, Vec<String>) {
    let typed: CustomResourceDefinition = serde_json::from_value(crd.clone()).expect("a CRD");
    let mut causes: Causes = kubegen::crd::validate(&typed)
        .into_iter()
        .map(|r| (r.error.field.clone(), r.error.body()))
        .collect();
    causes.sort();
    causes.dedup();
    let mut others = Vec::new();
    for v in crd["spec"]["versions"].as_array().unwrap() {
        let schema = &v["schema"]["openAPIV3Schema"];
        if schema.is_null() {
            continue;
        }
        others.extend(structural::check(schema).iter().map(ToString::to_string));
        others.extend(
            cel_cost::check_schema(schema)
                .iter()
                .map(ToString::to_string),
        );
    }
    (causes, others)
}

async fn apiserver(client: &kube::Client, crd: &Value) -> Causes {
    let typed: CustomResourceDefinition = serde_json::from_value(crd.clone()).expect("a CRD");
    let mut causes = crd_recording::dry_run_create(client, &typed).await;
    causes.sort();
    causes.dedup();
    causes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crd_refuses_what_the_apiserver_refuses() {
    let cases = cases();
    let recorded = crd_recording::read(RECORDING);
    let record = std::env::var_os(RECORD_VARIABLE).is_some();
    let real = crd_recording::real_client().await;
    assert!(
        !record || real.is_some(),
        "{RECORD_VARIABLE} needs a real apiserver (KUBEGEN_TEST_KUBECONFIG, or KUBEBUILDER_ASSETS with the envtest feature)"
    );
    if real.is_none() {
        println!("no apiserver configured: checking against {RECORDING}");
    }
    let mut answers = BTreeMap::new();
    let mut failures = Vec::new();
    for c in &cases {
        let theirs = match &real {
            Some((client, _)) => {
                let live = apiserver(client, &c.crd).await;
                if !record && recorded.get(c.name) != Some(&live) {
                    failures.push(format!(
                        "{}: the apiserver now answers {live:?}, recorded {:?}",
                        c.name,
                        recorded.get(c.name)
                    ));
                }
                live
            }
            None => match recorded.get(c.name) {
                Some(r) => r.clone(),
                None => {
                    failures.push(format!(
                        "{}: not recorded (record with {RECORD_VARIABLE}=1)",
                        c.name
                    ));
                    continue;
                }
            },
        };
        answers.insert(c.name.to_owned(), theirs.clone());
        let (causes, others) = ours(&c.crd);
        let refused = !causes.is_empty() || !others.is_empty();
        let problem = match c.expect {
            Expect::Accepted if !theirs.is_empty() => Some("the apiserver refuses it"),
            Expect::Accepted if refused => Some("kubegen refuses it"),
            Expect::KubegenOnly if !theirs.is_empty() => Some("the apiserver refuses it now"),
            Expect::KubegenOnly if !refused => Some("kubegen accepts it"),
            Expect::Same | Expect::Refused if theirs.is_empty() => Some("the apiserver accepts it"),
            Expect::Same | Expect::Refused if !refused => Some("kubegen accepts it"),
            Expect::Same if causes != theirs || !others.is_empty() => {
                Some("kubegen's refusals differ from the apiserver's causes")
            }
            Expect::Refused if !causes.iter().all(|c| theirs.contains(c)) => {
                Some("kubegen refuses with causes the apiserver does not give")
            }
            _ => None,
        };
        if let Some(problem) = problem {
            failures.push(format!(
                "{}: {problem}\n    apiserver: {theirs:?}\n    kubegen:   {causes:?} {others:?}",
                c.name
            ));
        }
    }
    if record {
        crd_recording::write(RECORDING, &answers);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
