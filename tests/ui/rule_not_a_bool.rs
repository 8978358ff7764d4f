use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[rule("self.size()", message_expression = "self.size() > 3")]
    pub tags: Vec<String>,
}

fn main() {}
