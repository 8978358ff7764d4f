use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {}
