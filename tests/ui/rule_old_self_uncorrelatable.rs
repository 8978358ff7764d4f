use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub steps: Vec<Step>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[rule("self.image == oldSelf.image", message = "a step's image cannot change")]
pub struct Step {
    pub image: String,
}

fn main() {}
