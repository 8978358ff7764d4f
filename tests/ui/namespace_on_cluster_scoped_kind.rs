use kubegen::prelude::*;

/// Cluster-scoped: its typed client takes no namespace.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", scope = "Cluster")]
pub struct WidgetSpec {
    pub size: i32,
}

fn misuse(client: kube::Client) {
    let _ = client.widgets("default");
}

fn main() {}
