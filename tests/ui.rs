//! Misuse the derives reject: one trybuild case per mistake, each `.rs` with the `.stderr`
//! showing the error at the offending tokens.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
