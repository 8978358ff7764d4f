use kubegen::prelude::*;

/// An apply configuration built by hand would lack apiVersion and kind: only `new` makes one.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[apply]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    pub size: i32,
}

fn main() {
    let _ = WidgetApplyConfiguration {
        metadata: Default::default(),
        spec: Some(WidgetSpecApplyConfiguration::new().with_size(1)),
    };
}
