//! Prints the CRDs of the example APIs: `cargo run --bin crdgen > crd.yaml`.

// Linking the example APIs is what registers them.
use kubegen_examples as _;

fn main() {
    kubegen::crdgen::main()
}
