//! Why Go refuses a pattern, worded as `regexp/syntax` words it.

use std::fmt;

/// What is wrong with a pattern: one of `regexp/syntax`'s error codes (`syntax.ErrorCode`).
///
/// Its `Display` is Go's text for the code, such as `missing closing ]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A range whose ends are out of order (`[z-a]`), or an unknown class name (`\p{Foo}`,
    /// `[[:foo:]]`).
    InvalidCharRange,
    /// A backslash before a letter or digit Go gives no meaning (`\i`, `\1`, `\<` is fine).
    InvalidEscape,
    /// `(?P<name>` or `(?<name>` with a name that is not `[A-Za-z0-9_]+`.
    InvalidNamedCapture,
    /// `(?` followed by anything but the flags `i`, `m`, `s`, `U`, a `-`, and `:` or `)`.
    InvalidPerlOp,
    /// A repetition of a repetition (`a**`, `a{2}{3}`).
    InvalidRepeatOp,
    /// A count above 1000, `{max,min}`, or nested counts whose product passes 1000.
    InvalidRepeatSize,
    /// A `[` class that never closes.
    MissingBracket,
    /// A `(` that never closes.
    MissingParen,
    /// A repetition with nothing before it (`*a`, `(+)`, `a|*`).
    MissingRepeatArgument,
    /// A pattern that ends in a lone backslash.
    TrailingBackslash,
    /// A `)` with no `(`.
    UnexpectedParen,
    /// Groups nested more than 1000 deep.
    NestingDepth,
    /// A pattern whose program or classes would pass Go's size limits.
    Large,
}

impl ErrorCode {
    /// Go's text for the code.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidCharRange => "invalid character class range",
            ErrorCode::InvalidEscape => "invalid escape sequence",
            ErrorCode::InvalidNamedCapture => "invalid named capture",
            ErrorCode::InvalidPerlOp => "invalid or unsupported Perl syntax",
            ErrorCode::InvalidRepeatOp => "invalid nested repetition operator",
            ErrorCode::InvalidRepeatSize => "invalid repeat count",
            ErrorCode::MissingBracket => "missing closing ]",
            ErrorCode::MissingParen => "missing closing )",
            ErrorCode::MissingRepeatArgument => "missing argument to repetition operator",
            ErrorCode::TrailingBackslash => "trailing backslash at end of expression",
            ErrorCode::UnexpectedParen => "unexpected )",
            ErrorCode::NestingDepth => "expression nests too deeply",
            ErrorCode::Large => "expression too large",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A pattern Go's `regexp.Compile` refuses: the code and the part of the pattern Go names.
///
/// Displays exactly as Go's `*syntax.Error` does:
///
/// ```
/// let err = kubegen_go::regexp::Regexp::new("(?x)a b").unwrap_err();
/// assert_eq!(err.to_string(), "error parsing regexp: invalid or unsupported Perl syntax: `(?x`");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    expr: String,
}

impl Error {
    pub(super) fn new(code: ErrorCode, expr: &str) -> Self {
        Error {
            code,
            expr: expr.to_owned(),
        }
    }

    /// What is wrong.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The part of the pattern the error is about (the whole pattern for some codes, empty
    /// for a trailing backslash), as Go reports it.
    pub fn expr(&self) -> &str {
        &self.expr
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

impl std::error::Error for Error {}
