use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
#[rule("self.min_available <= self.replicas", message = "too few replicas")]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    pub replicas: i32,
    pub min_available: i32,
}

fn main() {}
