use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", scope = "cluster")]
pub struct WidgetSpec {
    #[validate(minimum = 1)]
    pub name: String,
    #[default(3)]
    pub size: i32,
    #[validate(max_items = 2)]
    pub flag: bool,
}

fn main() {}
