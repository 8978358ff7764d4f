use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
#[rule(
    "self.min <= self.max
     && self.max <= 100"
)]
pub struct WidgetSpec {
    pub min: i32,
    pub max: i32,
}

fn main() {}
