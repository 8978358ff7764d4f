use kubegen::prelude::*;
use std::collections::BTreeMap;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[schema(embedded_resource, preserve_unknown_fields)]
    pub object: BTreeMap<String, String>,
}

fn main() {}
