use kubegen::prelude::*;

// serde requires the field on read but never writes it.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[serde(skip_serializing)]
    pub token: String,
}

fn main() {}
