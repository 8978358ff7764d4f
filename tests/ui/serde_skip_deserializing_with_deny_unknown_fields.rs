use kubegen::prelude::*;

// serde writes `cache` but refuses it on read.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
#[serde(deny_unknown_fields)]
pub struct WidgetSpec {
    pub size: i32,
    #[serde(skip_deserializing)]
    pub cache: i32,
}

fn main() {}
