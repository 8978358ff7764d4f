use kubegen::prelude::*;

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Size {
    Flag(bool),
    Words(Vec<String>),
}

fn main() {}
