//! Misuse the derives reject: one trybuild case per mistake, each `.rs` with the `.stderr`
//! showing the error at the offending tokens. And programs that must run as binaries of
//! their own (`tests/run`), because what they check is a whole binary's registry.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/run/*.rs");
}
