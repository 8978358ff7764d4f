use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "example.com",
    version = "v1",
    kind = "WidgetWithAVeryLongNameThatTheApiserverCannotListBecauseOfIt"
)]
pub struct WidgetSpec {
    pub color: String,
}

fn main() {}
