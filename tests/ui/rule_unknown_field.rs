use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
#[rule("self.replica <= self.maxReplicas", message = "too many replicas")]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    pub replicas: i32,
    pub max_replicas: i32,
}

fn main() {}
