use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[schema(int_or_string, preserve_unknown_fields)]
    pub surge: Option<serde_json::Value>,
}

fn main() {}
