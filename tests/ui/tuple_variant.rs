use kubegen::prelude::*;

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Size {
    Range(i32, i32),
}

fn main() {}
