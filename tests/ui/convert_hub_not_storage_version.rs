use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Disk")]
pub struct DiskSpec {
    pub size: String,
}

mod v1beta1 {
    use kubegen::prelude::*;

    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
    #[resource(group = "example.com", version = "v1beta1", kind = "Disk", storage = false)]
    pub struct DiskSpec {
        pub size: String,
    }
}

mod v1alpha1 {
    use kubegen::prelude::*;

    #[derive(CustomResource, Clone, Debug, Default, Serialize, Deserialize)]
    #[resource(group = "example.com", version = "v1alpha1", kind = "Disk", storage = false)]
    #[convert(hub = super::v1beta1::DiskSpec)]
    pub struct DiskSpec {
        pub size: String,
    }
}

fn main() {}
