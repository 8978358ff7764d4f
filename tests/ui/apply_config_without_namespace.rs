use kubegen::prelude::*;

/// Namespaced: its apply configuration needs a namespace as well as a name.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[apply]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {
    let _ = WidgetApplyConfiguration::new("w");
}
