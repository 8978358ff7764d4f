//! deepcopy-gen: copies are equal to their source and reuse the target's allocations.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodSpec;
use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[resource(
    group = "copy.example.com",
    version = "v1",
    kind = "Copied",
    status = "CopiedStatus",
    derive = "PartialEq"
)]
pub struct CopiedSpec {
    pub name: String,
    pub tags: Vec<String>,
    pub labels: BTreeMap<String, String>,
    pub nested: Option<Inner>,
    pub choice: Choice,
    pub pod: Option<PodSpec>,
    pub raw: serde_json::Value,
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inner {
    pub text: String,
    pub numbers: Vec<i64>,
}

#[derive(ApiType, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Choice {
    Words { words: Vec<String> },
    Count { n: u32 },
    Nothing,
}

#[derive(ApiType, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CopiedStatus {
    pub seen: Option<String>,
}

fn sample(n: usize) -> Copied {
    let mut c = Copied::new(
        "copied",
        CopiedSpec {
            name: "x".repeat(n),
            tags: (0..n).map(|i| format!("tag-{i}")).collect(),
            labels: (0..n).map(|i| (format!("k{i}"), format!("v{i}"))).collect(),
            nested: Some(Inner {
                text: "inner".into(),
                numbers: vec![1, 2, 3],
            }),
            choice: Choice::Words {
                words: vec!["a".into(), "b".into()],
            },
            pod: Some(PodSpec {
                hostname: Some("h".into()),
                ..Default::default()
            }),
            raw: serde_json::json!({"free": [1, {"form": true}]}),
        },
    );
    c.metadata.labels = Some([("app".to_string(), "demo".to_string())].into());
    c.status = Some(CopiedStatus {
        seen: Some("yes".into()),
    });
    c
}

#[test]
fn deep_copy_equals_source() {
    let src = sample(4);
    assert_eq!(src.deep_copy(), src);
}

#[test]
fn deep_copy_into_overwrites_every_field() {
    let src = sample(3);
    let mut dst = sample(10);
    dst.spec.choice = Choice::Count { n: 7 };
    dst.spec.nested = None;
    dst.status = None;
    dst.metadata.name = Some("other".into());
    src.deep_copy_into(&mut dst);
    assert_eq!(dst, src);
}

#[test]
fn deep_copy_into_reuses_buffers() {
    let src = sample(3);
    let mut dst = sample(50);
    let name_ptr = dst.spec.name.as_ptr();
    let tags_ptr = dst.spec.tags.as_ptr();
    let inner_ptr = dst.spec.nested.as_ref().unwrap().text.as_ptr();
    src.deep_copy_into(&mut dst);
    assert_eq!(dst, src);
    assert_eq!(
        dst.spec.name.as_ptr(),
        name_ptr,
        "the name's buffer was reused"
    );
    assert_eq!(
        dst.spec.tags.as_ptr(),
        tags_ptr,
        "the list's buffer was reused"
    );
    assert_eq!(dst.spec.nested.as_ref().unwrap().text.as_ptr(), inner_ptr);
}

#[test]
fn enum_variant_changes_are_copied() {
    for (a, b) in [
        (Choice::Nothing, Choice::Count { n: 1 }),
        (
            Choice::Count { n: 2 },
            Choice::Words {
                words: vec!["w".into()],
            },
        ),
        (
            Choice::Words { words: vec![] },
            Choice::Words {
                words: vec!["x".into(), "y".into()],
            },
        ),
    ] {
        let mut dst = a.clone();
        b.deep_copy_into(&mut dst);
        assert_eq!(dst, b);
        assert_eq!(b.deep_copy(), b);
    }
}
