use kubegen::prelude::*;

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Tuning {
    pub max_connections: i32,
    pub buffers: Option<String>,
}

mod v1alpha1 {
    use kubegen::prelude::*;

    #[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
    #[convert(hub = super::Tuning, restored = ["buffers"])]
    pub struct Tuning {
        pub max_connections: i32,
    }
}

fn main() {}
