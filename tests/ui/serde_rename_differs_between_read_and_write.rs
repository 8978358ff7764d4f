use kubegen::prelude::*;

// serde writes one name and reads another: no schema can describe both.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    #[serde(rename(serialize = "size", deserialize = "width"))]
    pub size: i32,
    pub mode: Mode,
    pub inner: Inner,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Mode {
    #[serde(rename(deserialize = "fast"))]
    Fast,
    Slow,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all(serialize = "camelCase", deserialize = "snake_case"))]
pub struct Inner {
    pub max_size: i32,
}

fn main() {}
