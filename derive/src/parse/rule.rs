//! `#[rule]`: its arguments, and its CEL expressions parsed once for every check.
//!
//! The `cel` crate's parser is the ANTLR grammar cel-go uses, so a syntax error here is one
//! the apiserver reports too. It is configured as Kubernetes configures cel-go: optional
//! syntax (`self.?field`, `[?index]`) on, cel-go's recursion limit.

use darling::util::SpannedValue;
use proc_macro2::Span;

use super::markers::RuleArgs;

/// cel-go's default parser recursion limit, which Kubernetes keeps.
const MAX_RECURSION_DEPTH: u16 = 250;

/// A `#[rule(...)]` as written, with its expressions parsed.
#[derive(Clone, Debug)]
pub struct Rule {
    pub args: RuleArgs,
    /// The rule itself.
    pub rule: Cel,
    /// `message_expression`, when given.
    pub message_expression: Option<Cel>,
}

impl Rule {
    /// Parses the rule's expressions.
    pub fn new(args: RuleArgs, rule: &SpannedValue<String>) -> Rule {
        let message_expression = args.message_expression.as_ref().map(Cel::parse);
        Rule {
            rule: Cel::parse(rule),
            message_expression,
            args,
        }
    }
}

/// One CEL expression and where it was written.
#[derive(Clone, Debug)]
pub struct Cel {
    pub source: String,
    /// The string literal that holds it.
    pub span: Span,
    pub parsed: Result<cel::IdedExpr, SyntaxError>,
}

/// The first error the parser reports, at a 1-based line and column of the expression.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    /// The parser's message, cel-go's wording (`Syntax error: mismatched input ...`).
    pub message: String,
    /// How many more errors followed (often consequences of the first).
    pub more: usize,
}

impl Cel {
    fn parse(source: &SpannedValue<String>) -> Cel {
        let parsed = cel::parser::Parser::new()
            .enable_optional_syntax(true)
            .max_recursion_depth(MAX_RECURSION_DEPTH)
            .parse(source.as_str())
            .map_err(|errors| {
                let more = errors.errors.len().saturating_sub(1);
                match errors.errors.into_iter().next() {
                    Some(first) => SyntaxError {
                        line: usize::try_from(first.pos.0).unwrap_or(0).max(1),
                        column: usize::try_from(first.pos.1).unwrap_or(0).max(1),
                        message: first.msg,
                        more,
                    },
                    None => SyntaxError {
                        line: 1,
                        column: 1,
                        message: "the expression does not parse".into(),
                        more,
                    },
                }
            });
        Cel {
            source: source.as_str().to_owned(),
            span: source.span(),
            parsed,
        }
    }
}
