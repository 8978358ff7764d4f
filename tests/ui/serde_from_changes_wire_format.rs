use kubegen::prelude::*;

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[serde(from = "String")]
pub struct Name {
    pub value: String,
}

impl From<String> for Name {
    fn from(value: String) -> Self {
        Name { value }
    }
}

fn main() {}
