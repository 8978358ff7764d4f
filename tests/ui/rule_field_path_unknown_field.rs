use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
#[rule("self.replicas <= 10", message = "at most 10", field_path = ".replica")]
pub struct WidgetSpec {
    pub replicas: i32,
}

fn main() {}
