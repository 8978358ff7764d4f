use kubegen::prelude::*;

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum Size {
    Fixed(i32),
}

fn main() {}
