//! A kind whose `pattern`s and CEL regular expressions read differently in Go's RE2 and in
//! Rust's `regex`: the apiserver's verdicts are Go's, and the in-memory server must give them.

use kubegen::prelude::*;

/// One field per difference between Go's and Rust's patterns, and CEL's `find` and `findAll`
/// on a pattern the object carries, checked against the answers Go gives (`found`, `count`,
/// `second`).
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "Patterned")]
#[serde(rename_all = "camelCase")]
#[rule(
    "!has(self.text) || !has(self.re) || !has(self.found) || self.text.find(self.re) == self.found",
    message = "find differs"
)]
#[rule(
    "!has(self.text) || !has(self.re) || !has(self.count) || self.text.findAll(self.re).size() == self.count",
    message = "findAll's count differs"
)]
#[rule(
    "!has(self.text) || !has(self.re) || !has(self.second) || self.text.findAll(self.re)[1] == self.second",
    message = "findAll's second match differs"
)]
pub struct PatternedSpec {
    /// `\w` is ASCII in Go.
    #[validate(pattern = r"^\w+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word: Option<String>,
    /// `\b` sits between ASCII word characters and the rest: `é` is not a word character.
    #[validate(pattern = r"\bcat\b")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary: Option<String>,
    /// `\d` is `[0-9]`.
    #[validate(pattern = r"^\d+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digits: Option<String>,
    /// `\s` is `[\t\n\f\r ]`: no vertical tab.
    #[validate(pattern = r"^\s$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<String>,
    /// POSIX classes are ASCII.
    #[validate(pattern = r"^[[:word:]]+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub posix: Option<String>,
    /// `(?i)` folds `k`, `K` and the Kelvin sign together, and `s` with `ſ`, even for `\w`.
    #[validate(pattern = r"^(?i)\w+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded: Option<String>,
    /// No set operations in classes: `&&` is two runes.
    #[validate(pattern = r"^[a&&b]+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ampersands: Option<String>,
    /// `\<` and `\>` are `<` and `>`, not word edges.
    #[validate(pattern = r"^\<[a-z]+\>$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub angle: Option<String>,
    /// `\Q...\E` quotes.
    #[validate(pattern = r"^\Qa.b\E$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoted: Option<String>,
    /// `{,2}` is not a count: the runes `{,2}`.
    #[validate(pattern = r"^a{,2}$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brace: Option<String>,
    /// `\101` is octal for `A`.
    #[validate(pattern = r"^\101$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub octal: Option<String>,
    /// `\pL` from Go's Unicode tables (17.0: Sidetic letters count).
    #[validate(pattern = r"^\pL+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub letters: Option<String>,
    /// Scripts by name.
    #[validate(pattern = r"^\p{Greek}+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub greek: Option<String>,
    /// `$` is the end of the text, not before a final newline.
    #[validate(pattern = r"^[a-z]+$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub re: Option<String>,
    /// What `find` returns, as Go's regexp answers.
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// How many matches `findAll` returns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    /// `findAll`'s second match.
    #[validate(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<String>,
}
