use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Disk")]
pub struct DiskSpec {
    pub size: String,
    pub backup: Option<String>,
}

mod v1alpha1 {
    use kubegen::prelude::*;

    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
    #[resource(group = "example.com", version = "v1alpha1", kind = "Disk", storage = false)]
    #[convert(hub = super::DiskSpec)]
    pub struct DiskSpec {
        pub size: String,
    }
}

fn main() {}
