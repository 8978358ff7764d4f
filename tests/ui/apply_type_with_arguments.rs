use kubegen::prelude::*;

/// On a type, `#[apply]` is a bare word.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[apply(whole)]
pub struct Part {
    pub size: i32,
}

fn main() {}
