use kubegen::prelude::*;

/// `#[apply(whole)]` shapes an apply configuration this type does not ask for.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[apply(whole)]
    pub size: i32,
}

fn main() {}
