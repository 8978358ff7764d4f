//! Reads: label and field selectors, pagination, the all-namespaces client, and discovery.

use super::*;

#[kubegen::test]
async fn label_selectors(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    for (name, labels) in [
        ("a", vec![("app", "web"), ("tier", "front")]),
        ("b", vec![("app", "api")]),
        ("c", vec![("app", "web")]),
    ] {
        let mut g = gadget(name, "red");
        g.metadata.labels = Some(
            labels
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        gadgets.create(&g).await.unwrap();
    }
    let names = |list: kubegen::List<Gadget>| {
        list.items
            .into_iter()
            .map(|g| g.metadata.name.unwrap())
            .collect::<Vec<_>>()
    };
    for (selector, expected) in [
        ("app=web", vec!["a", "c"]),
        ("app==web", vec!["a", "c"]),
        ("app!=web", vec!["b"]),
        ("app in (api,web)", vec!["a", "b", "c"]),
        ("app notin (web)", vec!["b"]),
        ("tier", vec!["a"]),
        ("!tier", vec!["b", "c"]),
        ("app=web,!tier", vec!["c"]),
    ] {
        let list = gadgets
            .list(&ListParams::default().labels(selector))
            .await
            .unwrap();
        assert_eq!(names(list), expected, "{selector}");
    }
    let err = gadgets
        .list(&ListParams::default().labels("app in web"))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::BadRequest(_)), "{err}");
}

#[kubegen::test]
async fn field_selectors(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    gadgets.create(&gadget("a", "red")).await.unwrap();
    gadgets.create(&gadget("b", "blue")).await.unwrap();
    let one = |fields: &'static str| {
        let gadgets = gadgets.clone();
        async move {
            gadgets
                .list(&ListParams::default().fields(fields))
                .await
                .map(|l| l.items.len())
        }
    };
    assert_eq!(one("metadata.name=a").await.unwrap(), 1);
    assert_eq!(one("metadata.name!=a").await.unwrap(), 1);
    assert_eq!(
        one("spec.color=blue").await.unwrap(),
        1,
        "declared selectable fields work"
    );
    let ns_filter: &'static str =
        Box::leak(format!("metadata.namespace={}", e.namespace).into_boxed_str());
    assert_eq!(one(ns_filter).await.unwrap(), 2);
    assert!(
        matches!(one("spec.note=x").await, Err(ClientError::BadRequest(_))),
        "undeclared fields are refused"
    );
}

#[kubegen::test]
async fn pagination_with_limit_and_continue(e: TestEnv) {
    let gadgets = e.client.gadgets(&e.namespace);
    for i in 0..7 {
        gadgets
            .create(&gadget(&format!("g{i}"), "red"))
            .await
            .unwrap();
    }
    let first = gadgets.list(&ListParams::default().limit(3)).await.unwrap();
    assert_eq!(first.items.len(), 3);
    let token = first.metadata.continue_.clone().expect("a continue token");
    assert_eq!(first.metadata.remaining_item_count, Some(4));
    let mut params = ListParams::default().limit(3);
    params.continue_token = Some(token);
    let second = gadgets.list(&params).await.unwrap();
    assert_eq!(second.items[0].metadata.name.as_deref(), Some("g3"));
    let all = gadgets
        .list_all(&ListParams::default().limit(2))
        .await
        .unwrap();
    let names: Vec<String> = all
        .items
        .into_iter()
        .map(|g| g.metadata.name.unwrap())
        .collect();
    assert_eq!(names, (0..7).map(|i| format!("g{i}")).collect::<Vec<_>>());
}

#[kubegen::test]
async fn discovery_finds_the_kinds(e: TestEnv) {
    let discovery = kube::Discovery::new(e.client.clone())
        .filter(&["client.kubegen.dev"])
        .run()
        .await
        .unwrap();
    let group = discovery.get("client.kubegen.dev").expect("the group");
    let kinds: Vec<String> = group
        .recommended_resources()
        .into_iter()
        .map(|(r, _)| r.kind)
        .collect();
    assert!(
        kinds.contains(&"Gadget".to_string()) && kinds.contains(&"Plain".to_string()),
        "{kinds:?}"
    );
    let crds: kube::Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> = kube::Api::all(e.client.clone());
    let names: Vec<String> = crds
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    assert!(
        names.contains(&"gadgets.client.kubegen.dev".to_string()),
        "{names:?}"
    );
}

/// A CRD none of whose versions is served (`crd::Policy`, registered in this binary and so
/// installed on every backend) is stored, but its group is not discovered: not in `/apis`,
/// and `/apis/<group>` is 404.
#[kubegen::test]
async fn a_group_with_no_served_version_is_not_discovered(e: TestEnv) {
    let raw = |path: &str| http::Request::get(path).body(Vec::new()).unwrap();
    let groups: serde_json::Value = e.client.request(raw("/apis")).await.unwrap();
    let names: Vec<&str> = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert!(names.contains(&"client.kubegen.dev"), "{names:?}");
    assert!(!names.contains(&"keys.example.com"), "{names:?}");
    let missing = e
        .client
        .request::<serde_json::Value>(raw("/apis/keys.example.com"))
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, kube::Error::Api(status) if status.code == 404),
        "{missing:?}"
    );
}

#[kubegen::test]
async fn the_all_namespaces_client_lists_and_watches(e: TestEnv) {
    let ns2 = format!("{}-b", e.namespace);
    e.create_namespace(&ns2).await.unwrap();
    // Other tests share a real apiserver: this test's objects carry a label of their own.
    let label = ("test".to_string(), e.namespace.clone());
    let selector = format!("test={}", e.namespace);
    for (ns, name) in [(&e.namespace, "a"), (&ns2, "b")] {
        let mut g = gadget(name, "red");
        g.metadata.labels = Some(BTreeMap::from([label.clone()]));
        e.client.gadgets(ns).create(&g).await.unwrap();
    }
    let all = e.client.gadgets_all_namespaces();
    assert_eq!(
        all.list(&ListParams::default().labels(&selector))
            .await
            .unwrap()
            .items
            .len(),
        2
    );
    let mut stream = all
        .watch(
            &WatchParams::default().labels(&selector).disable_bookmarks(),
            "0",
        )
        .await
        .unwrap()
        .boxed();
    let mut seen = Vec::new();
    for _ in 0..2 {
        if let WatchEvent::Added(g) = next_event(&mut stream).await {
            seen.push(g.metadata.namespace.unwrap());
        }
    }
    seen.sort();
    assert_eq!(seen, [e.namespace.clone(), ns2]);
}
