use kubegen::prelude::*;

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Size {
    Auto,
    Fixed(i32),
}

fn main() {}
