use kubegen::prelude::*;

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Wrapper<T> {
    pub value: T,
}

fn main() {}
