use kubegen::prelude::*;

// The apiserver would keep fields serde refuses.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[schema(preserve_unknown_fields)]
pub struct Settings {
    pub level: i32,
}

fn main() {}
