use kubegen::prelude::*;

/// No status subresource: nothing can be applied through one.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[apply]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub size: i32,
}

async fn misuse(client: kube::Client) {
    let apply = WidgetApplyConfiguration::new("w", "default");
    let _ = client.widgets("default").apply_config_status(&apply, "me", false).await;
}

fn main() {}
