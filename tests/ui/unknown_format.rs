use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[validate(format = "emial")]
    pub contact: String,
}

fn main() {}
