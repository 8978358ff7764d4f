//! A kind with two versions: v1alpha1 (deprecated, still served) and v1 (storage).
//! crdgen merges them into one CRD.

pub mod v1;
pub mod v1alpha1;
