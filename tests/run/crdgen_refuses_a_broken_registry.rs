//! crdgen in a binary whose registry is broken, as a broken API crate's would be: two
//! definitions of one kind version, and a schema the apiserver refuses. It fails with every
//! problem named, and prints no CRD. (A program of its own: the integration tests' registry
//! must stay installable.)

use kubegen::prelude::*;

mod thing_v1 {
    use kubegen::prelude::*;
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[resource(group = "things.example.com", version = "v1", kind = "Thing")]
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
        storage = false
    )]
    pub struct ThingSpec {
        pub a: String,
    }
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Alias(String);

/// The derive sees a user type here; the schema builder sees a string.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "broken.example.com", version = "v1", kind = "Broken")]
pub struct BrokenSpec {
    #[validate(min_items = 1)]
    pub name: Alias,
}

fn main() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = kubegen::crdgen::run_cli(["crdgen"], &mut out, &mut err);
    let message = String::from_utf8(err).unwrap();
    assert_eq!(code, 1, "{message}");
    assert!(out.is_empty());
    assert!(
        message.starts_with("crdgen: Broken v1: the schema breaks the apiserver's rules:\n  - .spec.name: `min_items` cannot apply to a node of type string\n"),
        "{message}"
    );
    assert!(
        message.contains("\nthings.things.example.com: version v1 is defined by both"),
        "{message}"
    );
}
