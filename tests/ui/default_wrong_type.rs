use kubegen::prelude::*;

/// A count; it converts from nothing but itself, so the error below does not depend on which
/// crates happen to be in the build.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Count(pub i32);

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[default("three")]
    pub size: Option<Count>,
}

fn main() {}
