use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    /// Rust's `(?x)` (spaces and comments ignored) is not in Go's RE2 syntax.
    #[validate(pattern = "(?x) ^ [a-z]+ $")]
    pub name: String,
    /// Nor are repetitions of repetitions, which Rust's regex accepts.
    #[validate(pattern = "^(ab){2}{3}$")]
    pub code: String,
}

fn main() {}
