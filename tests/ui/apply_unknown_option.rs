use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[apply]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[apply(atomic)]
    pub size: i32,
}

fn main() {}
