use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[rule("self.length > 0", message = "the name must not be empty")]
    pub name: String,
}

fn main() {}
