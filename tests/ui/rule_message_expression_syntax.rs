use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[rule(
        "self <= 10",
        message_expression = "'too many replicas: ' + string(self"
    )]
    pub replicas: i32,
}

fn main() {}
