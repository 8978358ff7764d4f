use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[validate(unique_items)]
    #[schema(list_type = "atomic")]
    pub zones: Vec<String>,
}

fn main() {}
