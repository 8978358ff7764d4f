use kubegen::prelude::*;

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Size {
    Auto,
    Fixed { value: i32 },
}

fn main() {}
