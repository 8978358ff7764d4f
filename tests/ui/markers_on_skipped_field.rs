use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub size: i32,
    #[serde(skip)]
    #[validate(minimum = 0)]
    pub cache: i32,
}

fn main() {}
