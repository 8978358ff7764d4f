use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[rule("self.all(p, p.nmae != '')", message = "ports need names")]
    #[schema(list_type = "map", list_map_keys = ["port"])]
    pub ports: Vec<Port>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Port {
    pub port: i32,
    pub name: Option<String>,
}

fn main() {}
