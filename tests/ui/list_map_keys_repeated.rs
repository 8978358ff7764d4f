use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[schema(list_type = "map", list_map_keys = ["name", "name"])]
    pub ports: Vec<Port>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Port {
    pub name: String,
}

fn main() {}
