use kubegen::prelude::*;

#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "example.com", version = "v1", kind = "Widget")]
pub struct WidgetSpec {
    /// A look-ahead, which Go's RE2 syntax does not have.
    #[rule("self.matches('^(?=[a-z])')")]
    pub name: String,
    /// `\k<name>`, a back-reference.
    #[rule("self.find('(?P<w>a)\\\\k<w>') == ''")]
    pub code: String,
}

fn main() {}
