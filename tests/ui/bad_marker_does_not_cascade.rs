use kubegen::prelude::*;

/// One mistake in a marker is the only error: the derive still emits the kind, its `new`
/// and its list, so the code that uses them reports nothing more.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget", status = "WidgetStatus")]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    #[validate(minimum = "one")]
    pub replicas: i32,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct WidgetStatus {
    pub ready: i32,
}

fn first(list: &WidgetList) -> Option<&Widget> {
    list.items.first()
}

fn main() {
    let mut widget = Widget::new("w", WidgetSpec { replicas: 1 });
    widget.status = Some(WidgetStatus::default());
    widget.metadata.namespace = Some("default".into());
    let _ = (widget.spec.replicas, first);
}
