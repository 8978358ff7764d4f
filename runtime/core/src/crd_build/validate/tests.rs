//! One case per rule: a CRD changed in one place, and the apiserver's error for it (each
//! message as kube-apiserver v1.36.2 returned it; tests/crd/refusals.rs compares them live).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

use super::validate;

fn base() -> Value {
    json!({
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object",
                "properties": {"spec": {"type": "object", "properties": {"color": {"type": "string"}}}},
            }}}],
        },
    })
}

fn errors(crd: Value) -> Vec<String> {
    let crd: CustomResourceDefinition = serde_json::from_value(crd).expect("a CRD");
    validate(&crd).iter().map(|r| r.error.to_string()).collect()
}

fn changed(change: impl FnOnce(&mut Value)) -> Vec<String> {
    let mut crd = base();
    change(&mut crd);
    errors(crd)
}

fn field(crd: &mut Value, node: Value) {
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["f"] =
        node;
}

const F: &str = "spec.validation.openAPIV3Schema.properties[spec].properties[f]";

#[test]
fn a_valid_crd_passes() {
    assert_eq!(errors(base()), Vec::<String>::new());
}

#[test]
fn protected_groups_need_an_approval() {
    let protected = |annotation: Option<&str>| {
        changed(|c| {
            c["spec"]["group"] = json!("x.k8s.io");
            c["metadata"]["name"] = json!("widgets.x.k8s.io");
            if let Some(a) = annotation {
                c["metadata"]["annotations"] = json!({"api-approved.kubernetes.io": a});
            }
        })
    };
    assert_eq!(
        protected(None),
        [
            "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111"
        ]
    );
    assert_eq!(
        protected(Some("soon")),
        [
            "metadata.annotations[api-approved.kubernetes.io]: Invalid value: \"soon\": protected groups must have approval annotation \"api-approved.kubernetes.io\" with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"
        ]
    );
    assert!(protected(Some("unapproved, testing")).is_empty());
    assert!(protected(Some("https://github.com/kubernetes/enhancements/pull/1111")).is_empty());
    let other = changed(|c| {
        c["spec"]["group"] = json!("k8s.iox.com");
        c["metadata"]["name"] = json!("widgets.k8s.iox.com");
    });
    assert!(other.is_empty(), "{other:?}");
}

#[test]
fn metadata_follows_object_meta_rules() {
    let found = changed(|c| {
        c["metadata"]["labels"] = json!({"bad key": "ok", "ok": "bad value"});
        c["metadata"]["annotations"] = json!({"Example.com/Fine": "x", "bad/key/twice": "x"});
    });
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        found[0]
            .starts_with("metadata.labels: Invalid value: \"bad key\": name part must consist of")
    );
    assert!(
        found[1]
            .starts_with("metadata.labels: Invalid value: \"bad value\": a valid label must be")
    );
    assert!(found[2].starts_with(
        "metadata.annotations: Invalid value: \"bad/key/twice\": a valid label key must consist of"
    ));
    let long = format!(
        "{}.com",
        [
            "a".repeat(63),
            "b".repeat(63),
            "c".repeat(63),
            "d".repeat(51)
        ]
        .join(".")
    );
    let found = changed(|c| {
        c["spec"]["group"] = json!(long);
        c["metadata"]["name"] = json!(format!("widgets.{long}"));
    });
    assert_eq!(
        found,
        [format!(
            "metadata.name: Invalid value: \"widgets.{long}\": must be no more than 253 characters"
        )]
    );
    assert_eq!(
        changed(|c| c["metadata"]["name"] = json!("gadgets.example.com")),
        [
            "metadata.name: Invalid value: \"gadgets.example.com\": must be spec.names.plural+\".\"+spec.group"
        ]
    );
}

#[test]
fn names_are_dns_1035_labels() {
    let found = changed(|c| {
        c["spec"]["names"] = json!({"kind": "W".repeat(60), "listKind": format!("{}List", "W".repeat(60)),
            "plural": "widgets", "singular": "1widget", "shortNames": ["w", "2w"], "categories": ["-c"]});
    });
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(found[0].starts_with(
        "spec.names.singular: Invalid value: \"1widget\": a DNS-1035 label must consist of"
    ));
    assert!(found[1].ends_with("List\": may have mixed case, but should otherwise match: must be no more than 63 characters"));
    assert!(found[2].starts_with("spec.names.shortNames[1]: Invalid value: \"2w\""));
    assert!(found[3].starts_with("spec.names.categories[0]: Invalid value: \"-c\""));
    assert_eq!(
        changed(|c| {
            c["spec"]["group"] = json!("widgets");
            c["metadata"]["name"] = json!("widgets.widgets");
        }),
        ["spec.group: Invalid value: \"widgets\": should be a domain with at least one dot"]
    );
    assert_eq!(
        changed(|c| c["spec"]["scope"] = json!("Global")),
        [
            "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\""
        ]
    );
    let version = changed(|c| c["spec"]["versions"][0]["name"] = json!("V1"));
    assert_eq!(version.len(), 2, "{version:?}");
    assert!(version[0].starts_with("spec.versions[0].name: Invalid value: \"V1\""));
    assert!(version[1].starts_with("spec.version: Invalid value: \"V1\""));
}

#[test]
fn deprecation_warnings_are_short_printable_lines() {
    let warning = |deprecated: bool, w: &str| {
        changed(|c| {
            c["spec"]["versions"][0]["deprecated"] = json!(deprecated);
            c["spec"]["versions"][0]["deprecationWarning"] = json!(w);
        })
    };
    let at = "spec.versions[0].deprecationWarning: Invalid value:";
    assert_eq!(
        warning(true, ""),
        [format!("{at} \"\": must not be an empty string")]
    );
    assert_eq!(
        warning(false, "x"),
        [format!(
            "{at} \"x\": can only be set for deprecated versions"
        )]
    );
    assert_eq!(
        warning(true, &"w".repeat(257)),
        [format!(
            "{at} \"{}\": must be <= 256 characters long",
            "w".repeat(257)
        )]
    );
    assert_eq!(
        warning(true, "a\u{200b}<b>"),
        [format!(
            "{at} \"a\u{200b}\\u003cb\\u003e\": must only contain printable UTF-8 characters; non-printable character found at index 1"
        )]
    );
    assert!(warning(true, "use v2, it's better: ünïcode").is_empty());
}

#[test]
fn columns_and_scale_paths() {
    let found = changed(|c| {
        let v = &mut c["spec"]["versions"][0];
        v["additionalPrinterColumns"] =
            json!([{"name": "", "type": "int", "format": "uuid", "jsonPath": "spec.x"}]);
        v["subresources"] = json!({"scale": {"specReplicasPath": ".status.r", "statusReplicasPath": "", "labelSelectorPath": ".metadata.l"}});
    });
    assert_eq!(
        found,
        [
            "spec.subresources.scale.specReplicasPath: Invalid value: \".status.r\": should be a json path under .spec",
            "spec.subresources.scale.statusReplicasPath: Required value",
            "spec.subresources.scale.labelSelectorPath: Invalid value: \".metadata.l\": should be a json path under either .spec or .status",
            "spec.additionalPrinterColumns[0].name: Required value",
            "spec.additionalPrinterColumns[0].type: Invalid value: \"int\": must be one of boolean,date,integer,number,string",
            "spec.additionalPrinterColumns[0].format: Invalid value: \"uuid\": must be one of byte,date,date-time,double,float,int32,int64,password",
            "spec.additionalPrinterColumns[0].JSONPath: Invalid value: \"spec.x\": must be a simple json path starting with .",
        ]
    );
}

#[test]
fn selectable_fields_name_scalar_fields_of_the_schema() {
    let select = |paths: &[&str]| {
        changed(|c| {
            field(c, json!({"type": "array", "items": {"type": "string"}}));
            c["spec"]["versions"][0]["selectableFields"] =
                paths.iter().map(|p| json!({"jsonPath": p})).collect();
        })
    };
    let at = "spec.selectableFields[0].jsonPath: Invalid value:";
    let scalar = "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.";
    assert_eq!(
        select(&[".spec.f"]),
        [format!("{at} \".spec.f\": {scalar}")]
    );
    assert_eq!(select(&[".spec"]), [format!("{at} \".spec\": {scalar}")]);
    assert_eq!(
        select(&[".spec.nope"]),
        [format!(
            "{at} \".spec.nope\": is an invalid path: does not refer to a valid field"
        )]
    );
    assert_eq!(
        select(&[".spec['color']"]),
        [format!(
            "{at} \".spec['color']\": is an invalid path: array notation is not allowed"
        )]
    );
    assert_eq!(
        select(&[""]),
        ["spec.selectableFields[0].jsonPath: Required value"]
    );
    assert_eq!(
        select(&[".spec.color", ".spec.color"]),
        ["spec.selectableFields[1].jsonPath: Duplicate value: \".spec.color\""]
    );
    let many: Vec<String> = (0..9).map(|i| format!(".spec.s{i}")).collect();
    let found = changed(|c| {
        for i in 0..9 {
            c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
                [format!("s{i}")] = json!({"type": "integer"});
        }
        c["spec"]["versions"][0]["selectableFields"] =
            many.iter().map(|p| json!({"jsonPath": p})).collect();
    });
    assert_eq!(
        found,
        ["spec.selectableFields: Too many: 9: must have at most 8 items"]
    );
}

#[test]
fn selectable_fields_follow_where_the_apiserver_puts_the_schema() {
    let two = |same_schema: bool, same_fields: bool| {
        changed(|c| {
            c["spec"]["versions"][0]["selectableFields"] = json!([{"jsonPath": ".spec.color"}]);
            let mut v2 = c["spec"]["versions"][0].clone();
            v2["name"] = json!("v2");
            v2["storage"] = json!(false);
            if !same_schema {
                v2["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["x"] =
                    json!({"type": "string"});
            }
            if !same_fields {
                v2.as_object_mut().unwrap().remove("selectableFields");
            }
            c["spec"]["versions"].as_array_mut().unwrap().push(v2);
        })
    };
    assert!(two(true, true).is_empty());
    assert!(two(false, false).is_empty());
    assert_eq!(
        two(false, true),
        [
            "spec.selectableFields: Invalid value: \"\": may only be set when validations.schema is included"
        ]
    );
    assert_eq!(
        two(true, false),
        [
            "spec.versions[0].selectableFields: Invalid value: \"\": may only be set when `version.schema.openAPIV3Schema` is not included"
        ]
    );
}

#[test]
fn schema_rules_the_structural_check_leaves_out() {
    let cases = [
        (
            json!({"type": "object", "x-kubernetes-embedded-resource": true}),
            format!(
                "{F}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"
            ),
        ),
        (
            json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
                "additionalProperties": {"type": "string"}}),
            format!(
                "{F}.additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set"
            ),
        ),
        (
            json!({"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"apiVersion": {"type": "integer"}}}),
            format!("{F}.properties[apiVersion].type: Invalid value: \"integer\": must be string"),
        ),
        (
            json!({"x-kubernetes-int-or-string": true, "x-kubernetes-preserve-unknown-fields": true}),
            format!(
                "{F}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true"
            ),
        ),
        (
            json!({"type": "string", "x-kubernetes-map-type": "atomic"}),
            format!(
                "{F}.type: Invalid value: \"string\": must be object if x-kubernetes-map-type is specified"
            ),
        ),
        (
            json!({"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-list-type": "atomic"}),
            format!(
                "{F}.type: Required value: must be array if x-kubernetes-list-type is specified"
            ),
        ),
        (
            json!({"type": "array", "x-kubernetes-list-type": "set",
                "items": {"type": "array", "x-kubernetes-list-type": "map", "items": {"type": "string"}}}),
            format!(
                "{F}.items.x-kubernetes-list-type: Invalid value: \"map\": must be atomic as item of a list with x-kubernetes-list-type=set"
            ),
        ),
        (
            json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a", "a"],
                "items": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}}),
            format!(
                "{F}.x-kubernetes-list-map-keys: Invalid value: [\"a\",\"a\"]: must not contain duplicate entries"
            ),
        ),
        (
            json!({"type": "string", "oneOf": [{"title": "t"}]}),
            format!("{F}.oneOf[0].title: Forbidden: must be empty to be structural"),
        ),
        (
            json!({"type": "object", "properties": {"metadata": {"type": "object"}}, "not": {"properties": {"metadata": {}}}}),
            format!(
                "{F}.not.properties[metadata]: Forbidden: must not be specified in a nested context"
            ),
        ),
        (
            json!({"type": "string", "x-kubernetes-validations": [{"rule": "true", "message": "  "}]}),
            format!(
                "{F}.x-kubernetes-validations[0].message: Invalid value: \"  \": must be non-empty if specified"
            ),
        ),
        (
            json!({"type": "string", "x-kubernetes-validations": [{"rule": "true ||\nfalse"}]}),
            format!(
                "{F}.x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks"
            ),
        ),
        (
            json!({"type": "string", "x-kubernetes-validations": [{"rule": "true", "messageExpression": " "}]}),
            format!(
                "{F}.x-kubernetes-validations[0].messageExpression: Required value: messageExpression must be non-empty if specified"
            ),
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-validations": [{"rule": "true", "fieldPath": ".b"}]}),
            format!(
                "{F}.x-kubernetes-validations[0].fieldPath: Invalid value: \".b\": must be a valid path"
            ),
        ),
        (
            json!({"type": "string", "default": "red", "x-kubernetes-validations": [{"rule": "self != 'red'", "message": "no red"}]}),
            format!("{F}.default: Invalid value: \"red\": no red"),
        ),
        (
            json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
                "default": {"kind": "Pod"}}),
            format!("{F}.default.apiVersion: Required value"),
        ),
    ];
    for (node, expected) in cases {
        let found = changed(|c| field(c, node.clone()));
        assert_eq!(found, std::slice::from_ref(&expected), "for {node}");
    }
    let accepted = [
        json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "array", "items": {"type": "string"}}}),
        json!({"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}),
        json!({"type": "object", "properties": {"a": {"type": "string", "default": "red"}},
            "x-kubernetes-validations": [{"rule": "self.a != 'red'"}]}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-validations": [{"rule": "true", "fieldPath": ".a"}]}),
    ];
    for node in accepted {
        assert_eq!(
            changed(|c| field(c, node.clone())),
            Vec::<String>::new(),
            "for {node}"
        );
    }
}

#[test]
fn root_rules() {
    let root = |change: &dyn Fn(&mut Value)| {
        changed(|c| change(&mut c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]))
    };
    assert_eq!(
        root(&|s| s["nullable"] = json!(true)),
        [
            "spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root"
        ]
    );
    assert_eq!(
        root(&|s| {
            s.as_object_mut().unwrap().remove("properties");
            s["additionalProperties"] = json!({"type": "string"});
        }),
        [
            "spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root"
        ]
    );
    assert_eq!(
        root(
            &|s| s["properties"]["metadata"] = json!({"type": "object", "properties": {"name": {"type": "string", "default": "x"}}})
        ),
        [
            "spec.validation.openAPIV3Schema.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata"
        ]
    );
    let status = changed(|c| {
        c["spec"]["versions"][0]["subresources"] = json!({"status": {}});
        c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["minProperties"] = json!(1);
    });
    assert_eq!(status.len(), 1, "{status:?}");
    assert!(
        status[0].starts_with("spec.validation.openAPIV3Schema: Invalid value: {\"ID\":\"\",\"Schema\":\"\",\"Ref\":null,\"Description\":\"\",\"Type\":\"object\",")
            && status[0].contains(",\"MinProperties\":1,")
            && status[0].ends_with("\"XValidations\":null}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled"),
        "{}",
        status[0]
    );
}

#[test]
fn schemas_conversion_and_unknown_fields() {
    assert_eq!(
        changed(|c| {
            c["spec"]["versions"][0]
                .as_object_mut()
                .unwrap()
                .remove("schema");
        }),
        ["spec.versions[0].schema.openAPIV3Schema: Required value"]
    );
    assert_eq!(
        changed(|c| c["spec"]["preserveUnknownFields"] = json!(true)),
        [
            "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"
        ]
    );
    assert_eq!(
        changed(|c| c["spec"]["conversion"] = json!({"strategy": "Webhook"})),
        [
            "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
            "spec.conversion.conversionReviewVersions: Required value",
        ]
    );
    assert_eq!(
        changed(
            |c| c["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
            "conversionReviewVersions": ["v2", "v2"], "clientConfig": {"url": "https://x/convert"}}})
        ),
        [
            "spec.conversion.conversionReviewVersions[1]: Invalid value: \"v2\": duplicate version",
            "spec.conversion.conversionReviewVersions: Invalid value: [\"v2\",\"v2\"]: must include at least one of v1, v1beta1",
        ]
    );
    assert_eq!(
        changed(|c| c["spec"]["conversion"] =
            json!({"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}})),
        [
            "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook"
        ]
    );
}
