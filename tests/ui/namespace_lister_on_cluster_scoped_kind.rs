use kubegen::prelude::*;

/// Cluster-scoped: its lister has `get(name)`, no per-namespace lister.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", scope = "Cluster")]
pub struct WidgetSpec {
    pub size: i32,
}

fn misuse(lister: WidgetLister) {
    let _ = lister.widgets("default").get("w");
}

fn main() {}
