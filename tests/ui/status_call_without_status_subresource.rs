use kubegen::prelude::*;

/// No `status = ...`: no status subresource.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub size: i32,
}

async fn misuse(client: kube::Client) {
    let _ = client.widgets("default").get_status("w").await;
}

fn main() {}
