//! Strategic merge patches recorded against kube-apiserver v1.36.2
//! (`builtin/testdata/smp/smp-*.json`, written by `observe_smp.py`): each case created the
//! same Deployment (or Service), sent one patch and recorded the answer. The answer is the
//! patched object after decoding and defaulting, so the comparison allows the fields
//! defaulting adds to new items and the empty values decoding drops.

use serde_json::{Value, json};

use super::*;
use crate::builtin::resolve;

const DEPLOYMENT: &str = "io.k8s.api.apps.v1.Deployment";
const SERVICE: &str = "io.k8s.api.core.v1.Service";

/// Fields the apiserver's defaulting fills in on the items a patch adds.
const DEFAULTED: &[&str] = &[
    "resources",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "protocol",
    "targetPort",
    "defaultMode",
];

fn observed(name: &str) -> Value {
    let path = format!(
        "{}/src/builtin/testdata/smp/smp-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The object as the apiserver stored it before `case`'s patch: the spec and the metadata
/// patches touch.
fn stored(response: &Value) -> Value {
    let metadata = &response["metadata"];
    let mut kept = json!({"name": metadata["name"]});
    for key in ["annotations", "finalizers"] {
        if let Some(value) = metadata.get(key) {
            kept[key] = value.clone();
        }
    }
    json!({
        "apiVersion": response["apiVersion"],
        "kind": response["kind"],
        "metadata": kept,
        "spec": response["spec"],
    })
}

/// The stored Deployment: the answer to a patch whose one field was unknown, so dropped.
fn deployment() -> Value {
    stored(&observed("unknown-field")["response"]["body"])
}

/// The stored Service (`SBASE` defaulted) `case` patched: the answer to the patch of
/// `http`'s targetPort, with the port it had and the cluster IPs `case`'s Service got.
fn service(case: &str) -> Value {
    let mut service = stored(&observed("service-ports-merge-by-port")["response"]["body"]);
    service["spec"]["ports"][1]["targetPort"] = json!(80);
    let answer = observed(case)["response"]["body"]["spec"].clone();
    for key in ["clusterIP", "clusterIPs"] {
        service["spec"][key] = answer[key].clone();
    }
    service
}

fn is_empty(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(_) => false,
    }
}

/// `ours` equals `theirs` but for empty values theirs dropped and [`DEFAULTED`] fields
/// theirs added.
fn assert_same_but_defaults(ours: &Value, theirs: &Value, path: &str) {
    match (ours, theirs) {
        (Value::Object(o), Value::Object(t)) => {
            for key in o.keys().chain(t.keys()) {
                let here = format!("{path}.{key}");
                match (o.get(key), t.get(key)) {
                    (Some(a), Some(b)) => assert_same_but_defaults(a, b, &here),
                    (a @ Some(_), None) => {
                        assert!(is_empty(a), "{here}: ours has {a:?}, the apiserver none")
                    }
                    (None, Some(b)) => assert!(
                        DEFAULTED.contains(&key.as_str()),
                        "{here}: the apiserver has {b}, ours none"
                    ),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(o), Value::Array(t)) => {
            assert_eq!(
                o.len(),
                t.len(),
                "{path}: ours {ours}, the apiserver's {theirs}"
            );
            for (i, (a, b)) in o.iter().zip(t).enumerate() {
                assert_same_but_defaults(a, b, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(ours, theirs, "{path}"),
    }
}

/// Applies the recorded patch to `original` and compares the parts patches touch with
/// the recorded answer (when it is the object), returning our result.
fn check(name: &str, original: &Value, schema: &str) -> Value {
    let case = observed(name);
    let result = apply(original, &case["request"]["body"], &resolve(schema))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let response = &case["response"];
    if response["code"] == 200 {
        let answer = &response["body"];
        assert_same_but_defaults(&result["spec"], &answer["spec"], "spec");
        for key in ["annotations", "finalizers"] {
            let ours = result["metadata"].get(key).unwrap_or(&Value::Null);
            let theirs = answer["metadata"].get(key).unwrap_or(&Value::Null);
            if is_empty(Some(ours)) || is_empty(Some(theirs)) {
                assert!(
                    is_empty(Some(ours)) && is_empty(Some(theirs)),
                    "{name}: {key}"
                );
            } else {
                assert_same_but_defaults(ours, theirs, key);
            }
        }
    }
    result
}

fn check_deployment(name: &str) -> Value {
    check(name, &deployment(), DEPLOYMENT)
}

fn names(list: &Value) -> Vec<&str> {
    let list = list.as_array().expect("a list");
    list.iter()
        .map(|item| item["name"].as_str().or(item.as_str()).unwrap_or("?"))
        .collect()
}

fn pod_spec(object: &Value) -> &Value {
    &object["spec"]["template"]["spec"]
}

#[test]
fn containers_merge_by_name() {
    let result = check_deployment("containers-merge-by-name");
    let containers = &pod_spec(&result)["containers"];
    assert_eq!(names(containers), ["a", "b"]);
    assert_eq!(containers[0]["image"], "nginx:1.28");
    assert_eq!(containers[0]["args"], json!(["x", "y"]));
}

#[test]
fn a_new_item_comes_before_the_items_the_patch_does_not_name() {
    let result = check_deployment("containers-add");
    assert_eq!(names(&pod_spec(&result)["containers"]), ["c", "a", "b"]);
    let result = check_deployment("env-merge-by-name");
    let env = &pod_spec(&result)["containers"][0]["env"];
    assert_eq!(names(env), ["A", "C", "B"]);
    assert_eq!(env[0]["value"], "changed");
    let result = check_deployment("finalizers-merge-add");
    assert_eq!(
        result["metadata"]["finalizers"],
        json!(["example.com/c", "example.com/a", "example.com/b"])
    );
    let result = check_deployment("volumes-merge-by-name");
    assert_eq!(names(&pod_spec(&result)["volumes"]), ["v2", "v1"]);
}

#[test]
fn patch_directives_in_list_items() {
    let result = check_deployment("containers-delete-directive");
    assert_eq!(names(&pod_spec(&result)["containers"]), ["a"]);
    let result = check_deployment("env-delete-one");
    assert_eq!(names(&pod_spec(&result)["containers"][0]["env"]), ["A"]);
    let result = check_deployment("containers-replace-directive");
    assert_eq!(
        pod_spec(&result)["containers"],
        json!([{"name": "z", "image": "redis:7"}])
    );
}

#[test]
fn set_element_order_orders_the_merged_list() {
    let result = check_deployment("containers-setelementorder");
    let containers = &pod_spec(&result)["containers"];
    assert_eq!(names(containers), ["b", "a"]);
    assert_eq!(containers[1]["image"], "nginx:1.28");
}

#[test]
fn patch_directives_in_maps_and_nulls() {
    let result = check_deployment("annotations-patch-replace-map");
    assert_eq!(result["metadata"]["annotations"], json!({"only": "this"}));
    // An empty map, which the decoder drops: the answer has no annotations.
    let result = check_deployment("annotations-patch-delete-map");
    assert_eq!(result["metadata"]["annotations"], json!({}));
    let result = check_deployment("annotations-null-key");
    assert_eq!(result["metadata"]["annotations"], json!({"keep": "1"}));
    let result = check_deployment("env-null-clears");
    assert!(pod_spec(&result)["containers"][0].get("env").is_none());
}

#[test]
fn delete_from_primitive_list() {
    let result = check_deployment("finalizers-deletefromprimitivelist");
    assert_eq!(result["metadata"]["finalizers"], json!(["example.com/b"]));
}

#[test]
fn lists_without_a_strategy_are_replaced() {
    let result = check_deployment("args-atomic-replace");
    assert_eq!(pod_spec(&result)["containers"][0]["args"], json!(["z"]));
    let result = check_deployment("tolerations-atomic-replace");
    assert_eq!(
        pod_spec(&result)["tolerations"],
        json!([{"key": "k2", "operator": "Exists"}])
    );
}

#[test]
fn ports_merge_on_container_port_alone() {
    let result = check_deployment("ports-merge-by-containerport");
    let ports = &pod_spec(&result)["containers"][0]["ports"];
    assert_eq!(ports.as_array().unwrap().len(), 3);
    assert_eq!(ports[0], json!({"containerPort": 82}));
    let result = check_deployment("ports-same-port-other-protocol");
    let ports = &pod_spec(&result)["containers"][0]["ports"];
    assert_eq!(
        ports[0],
        json!({"name": "http", "containerPort": 80, "protocol": "UDP"})
    );
}

#[test]
fn retain_keys_clears_what_it_does_not_list() {
    let result = check_deployment("strategy-recreate-retainkeys");
    assert_eq!(result["spec"]["strategy"], json!({"type": "Recreate"}));
    let result = check_deployment("strategy-recreate-null-rollingupdate");
    assert_eq!(result["spec"]["strategy"], json!({"type": "Recreate"}));
    let result = check_deployment("volumes-retainkeys-switch-source");
    assert_eq!(
        pod_spec(&result)["volumes"],
        json!([{"name": "v1", "configMap": {"name": "cm"}}])
    );
}

#[test]
fn without_retain_keys_the_old_fields_stay_and_validation_refuses() {
    // The answers are validation's 422s; the patched objects are what it refused.
    let result = check_deployment("strategy-recreate-without-retainkeys");
    assert_eq!(
        result["spec"]["strategy"],
        json!({"type": "Recreate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
    );
    let result = check_deployment("volumes-switch-source-without-retainkeys");
    assert_eq!(
        pod_spec(&result)["volumes"],
        json!([{"name": "v1", "emptyDir": {}, "configMap": {"name": "cm"}}])
    );
}

#[test]
fn an_unknown_field_is_left_for_the_decoder() {
    let case = observed("unknown-field");
    let mut result = apply(
        &deployment(),
        &case["request"]["body"],
        &resolve(DEPLOYMENT),
    )
    .unwrap();
    assert_eq!(result["spec"]["bogus"], 1);
    result["spec"].as_object_mut().unwrap().remove("bogus");
    assert_eq!(result, deployment());
}

#[test]
fn service_ports_merge_by_port() {
    let case = "service-ports-merge-by-port";
    let result = check(case, &service(case), SERVICE);
    assert_eq!(result["spec"]["ports"][1]["targetPort"], 8080);
    let case = "service-ports-add";
    let result = check(case, &service(case), SERVICE);
    assert_eq!(names(&result["spec"]["ports"]), ["https", "dns", "http"]);
}

/// A recorded refusal: our error answers with its code and message.
fn check_refusal(name: &str) {
    let case = observed(name);
    let error = apply(
        &deployment(),
        &case["request"]["body"],
        &resolve(DEPLOYMENT),
    )
    .expect_err(name);
    let response = &case["response"];
    assert_eq!(u64::from(error.code()), response["code"], "{name}");
    let status = error.api_error();
    assert_eq!(status.message, response["body"]["message"], "{name}");
    assert_eq!(
        status.reason,
        response["body"]["reason"].as_str().unwrap_or(""),
        "{name}"
    );
}

#[test]
fn refusals_answer_as_the_apiserver_does() {
    check_refusal("containers-missing-merge-key");
    check_refusal("bad-patch-directive");
}

fn apply_to_deployment(patch: Value) -> Result<Value, SmpError> {
    apply(&deployment(), &patch, &resolve(DEPLOYMENT))
}

fn template(spec: Value) -> Value {
    json!({"spec": {"template": {"spec": spec}}})
}

#[test]
fn malformed_directives() {
    let internal = |m: &str| Err(SmpError::Internal(m.into()));
    let bad_request = |m: &str| Err(SmpError::BadRequest(m.into()));
    assert_eq!(
        apply_to_deployment(json!({"metadata": {"annotations": {"$patch": "merge"}}})),
        internal("unknown patch type: merge in map: map[$patch:merge]")
    );
    assert_eq!(
        apply_to_deployment(template(json!({"containers": [{"$patch": "merge"}]}))),
        internal("merging lists cannot yet be specified in the patch")
    );
    assert_eq!(
        apply_to_deployment(template(
            json!({"containers": [{"name": "a", "$patch": 5}]})
        )),
        internal("unknown patch type: %!s(int64=5) in map: map[$patch:5 name:a]")
    );
    assert_eq!(
        apply_to_deployment(
            json!({"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {}}}})
        ),
        bad_request("invalid patch format of retainKeys")
    );
    assert_eq!(
        apply_to_deployment(json!({"spec": {"strategy": {"$retainKeys": "type"}}})),
        bad_request("invalid patch format of retainKeys")
    );
    assert_eq!(
        apply_to_deployment(json!({"metadata": {"$deleteFromPrimitiveList": ["x"]}})),
        bad_request("invalid patch format of primitive list")
    );
    assert_eq!(
        apply_to_deployment(json!({"metadata": {"$setElementOrder": []}})),
        bad_request("invalid patch format of setElementOrder list")
    );
    assert_eq!(
        apply_to_deployment(json!({"metadata": {"finalizers": [1]}})),
        internal("list element types are not identical: [[example.com/a example.com/b] [1]]")
    );
    assert_eq!(
        apply_to_deployment(json!({"metadata": {"finalizers": [["x"]]}})).map_err(|e| e.code()),
        Err(500)
    );
    assert_eq!(
        apply_to_deployment(json!([])),
        bad_request("json: cannot unmarshal array into Go value of type map[string]interface {}")
    );
    let order = json!({"$setElementOrder/containers": [{"name": "a"}], "containers": [{"name": "b", "image": "x"}]});
    assert_eq!(
        apply_to_deployment(template(order)),
        internal(
            "The order in patch list:\n[map[image:x name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n"
        )
    );
}

#[test]
fn lists_of_lists() {
    // A list item that is a list where the schema has scalars: 422 when it comes first.
    let schema = resolve(DEPLOYMENT);
    let original = json!({"metadata": {"finalizers": []}});
    let patch = json!({"metadata": {"finalizers": [["x"]]}});
    let error = apply(&original, &patch, &schema).unwrap_err();
    assert_eq!(
        error,
        SmpError::Unprocessable("lists of lists are not supported".into())
    );
    assert_eq!(error.api_error().code, 422);
    assert_eq!(
        error.api_error().message,
        "the server rejected our request due to an error in our request"
    );
    // A field declared a list of lists fails the strategy lookup first.
    let schema = json!({"type": "object", "properties": {"l": {
        "type": "array", "x-kubernetes-patch-strategy": "merge",
        "items": {"type": "array", "items": {"type": "string"}}}}});
    let error = apply(&json!({"l": [["a"]]}), &json!({"l": [["b"]]}), &schema);
    assert_eq!(
        error,
        Err(SmpError::Internal("unexpected slice of slice".into()))
    );
}

#[test]
fn merging_inside_fields_the_schema_does_not_describe() {
    // CertificateSigningRequest.spec.extra is a map of lists: the apiserver cannot look
    // up the patch strategy of one of its lists.
    let csr = "io.k8s.api.certificates.v1.CertificateSigningRequest";
    let original = json!({"spec": {"extra": {"k": ["a"]}, "usages": ["digital signature"]}});
    let error = apply(
        &original,
        &json!({"spec": {"extra": {"k": ["b"]}}}),
        &resolve(csr),
    );
    assert_eq!(
        error,
        Err(SmpError::Internal(
            "merging an object in json but data type is not struct, instead is: map".into()
        ))
    );
    // Replacing a value, or adding one, needs no lookup.
    let patched = apply(
        &original,
        &json!({"spec": {"extra": {"j": ["b"]}}}),
        &resolve(csr),
    )
    .unwrap();
    assert_eq!(patched["spec"]["extra"], json!({"k": ["a"], "j": ["b"]}));
    // ControllerRevision.data is a RawExtension: a struct without fields.
    let revision = "io.k8s.api.apps.v1.ControllerRevision";
    let original = json!({"data": {"spec": {"a": 1}}, "revision": 1});
    let error = apply(
        &original,
        &json!({"data": {"spec": {"b": 2}}}),
        &resolve(revision),
    );
    assert_eq!(
        error,
        Err(SmpError::Internal(
            "unable to find api field in struct RawExtension for the json field \"spec\"".into()
        ))
    );
}

#[test]
fn primitive_lists_merge_as_sets() {
    let patch = json!({"metadata": {"finalizers": ["example.com/b", "example.com/c"]}});
    let result = apply_to_deployment(patch).unwrap();
    // `a`, only the object's, goes before `b`, which it precedes there.
    assert_eq!(
        result["metadata"]["finalizers"],
        json!(["example.com/a", "example.com/b", "example.com/c"])
    );
    let patch = json!({"metadata": {
        "$setElementOrder/finalizers": ["example.com/b", "example.com/c", "example.com/a"],
        "finalizers": ["example.com/c"]}});
    let result = apply_to_deployment(patch).unwrap();
    assert_eq!(
        result["metadata"]["finalizers"],
        json!(["example.com/b", "example.com/c", "example.com/a"])
    );
}

#[test]
fn set_element_order_alone_reorders_and_new_lists_lose_their_directives() {
    let patch = template(json!({"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}]}));
    let result = apply_to_deployment(patch).unwrap();
    assert_eq!(names(&pod_spec(&result)["containers"]), ["b", "a"]);
    let patch = template(
        json!({"hostAliases": [{"ip": "1.2.3.4"}, {"ip": "5.6.7.8", "$patch": "delete"}]}),
    );
    let result = apply_to_deployment(patch).unwrap();
    assert_eq!(pod_spec(&result)["hostAliases"], json!([{"ip": "1.2.3.4"}]));
}

#[test]
fn the_patch_is_left_as_the_apiserver_prints_it() {
    let mut patch = json!({"spec": {
        "strategy": {"$retainKeys": ["type"], "type": "Recreate"},
        "template": {"spec": {
            "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
            "containers": [{"name": "a", "image": "x"}]}},
        "bogus": {"x": null, "y": 1}}});
    apply_leaving_patch(&deployment(), &mut patch, &resolve(DEPLOYMENT)).unwrap();
    assert_eq!(
        patch_value_for_message(&patch),
        "map[spec:map[bogus:map[y:1] strategy:map[type:Recreate] template:map[spec:map[]]]]"
    );
    assert_eq!(patch_value_for_message(&Value::Null), "map[]");
}

#[test]
fn a_new_map_carrying_a_directive_is_dropped() {
    // `annotations` is new: the apiserver copies the patch's value less its directives,
    // and a map carrying `$patch` is one.
    let original = json!({"metadata": {"name": "n"}});
    let patch = json!({"metadata": {"annotations": {"$patch": "replace", "a": "b"}}});
    let result = apply(&original, &patch, &resolve(DEPLOYMENT)).unwrap();
    assert_eq!(result, original);
}

#[test]
fn the_replace_strategy_replaces_a_struct() {
    // PodDisruptionBudgetSpec.selector is `patchStrategy:"replace"`.
    let pdb = "io.k8s.api.policy.v1.PodDisruptionBudget";
    let original = json!({"spec": {"minAvailable": 1, "selector": {
        "matchLabels": {"a": "1"},
        "matchExpressions": [{"key": "k", "operator": "Exists"}]}}});
    let patch = json!({"spec": {"selector": {"matchLabels": {"b": "2"}}}});
    let result = apply(&original, &patch, &resolve(pdb)).unwrap();
    assert_eq!(
        result["spec"],
        json!({"minAvailable": 1, "selector": {"matchLabels": {"b": "2"}}})
    );
    // Without the strategy (a Deployment's selector) the maps merge.
    let patch = json!({"spec": {"selector": {"matchLabels": {"b": "2"}}}});
    let result = apply_to_deployment(patch).unwrap();
    assert_eq!(
        result["spec"]["selector"],
        json!({"matchLabels": {"app": "smp", "b": "2"}})
    );
}
