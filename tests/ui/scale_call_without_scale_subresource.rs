use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
pub struct WidgetSpec {
    pub replicas: i32,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct WidgetStatus {
    pub replicas: i32,
}

async fn misuse(client: kube::Client) {
    let _ = client.widgets("default").get_scale("w").await;
}

fn main() {}
