use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
#[rule("self.size > 0", reason = "Invalid")]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {}
