use kubegen::prelude::*;

// No schema node describes what a variant's own functions read and write.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub enum Size {
    #[serde(with = "as_text")]
    Exact(u32),
    Range { min: u32, max: u32 },
}

mod as_text {
    pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let s: String = serde::Deserialize::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

fn main() {}
