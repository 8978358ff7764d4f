//! `#[rule]`: what the apiserver would refuse when the CRD is created, found at compile time.
//!
//! Each rule is parsed once (in `parse::rule`); here its keys are checked as the apiserver's
//! CRD validation checks them, its expressions are walked against what the derive knows about
//! `self` ([`super::cel`]), and what only another type knows (its fields, its transition
//! rules) is left in [`Deferred`] for `expand` to turn into constants.

use darling::error::Accumulator;
use proc_macro2::Span;
use syn::Type;

use super::cel::{self, Foreign, View, Walk};
use super::markers::{TyClass, classify};
use crate::parse::rule::{Cel, Rule, SyntaxError};
use crate::parse::{Field, MarkerKind, Markers, Model, Shape, error_at};

const RULE_REASONS: &[&str] = &[
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueRequired",
    "FieldValueDuplicate",
];

/// What the derive leaves for the compiler: facts about other types that only constants can
/// check (`kubegen::ApiFields`).
#[derive(Default)]
pub struct Deferred<'a> {
    /// Fields of other types that rules name.
    pub rule_fields: Vec<RuleField<'a>>,
    /// Lists whose items the apiserver does not correlate, holding another type.
    pub correlations: Vec<Correlation<'a>>,
    /// The first of this type's own rules that uses `oldSelf`.
    pub old_self_rule: Option<String>,
}

/// `name` must be a field of `ty`.
pub struct RuleField<'a> {
    pub ty: &'a Type,
    pub name: String,
    /// Where the rule names it, for the message.
    pub context: String,
    pub span: Span,
}

/// `item` must have no rule using `oldSelf`: it is the item type of the list `field`.
pub struct Correlation<'a> {
    pub item: &'a Type,
    pub field: String,
    pub span: Span,
}

/// Checks every rule of the model: on the type and on each field.
pub fn rules<'a>(model: &'a Model, errors: &mut Accumulator) -> Deferred<'a> {
    let mut deferred = Deferred::default();
    let view = cel::of_model(model);
    let owner = model.input.ident.to_string();
    for rule in rules_of(&model.markers) {
        let uses_old_self = check(rule, &view, &owner, errors, &mut deferred);
        if uses_old_self && deferred.old_self_rule.is_none() {
            deferred.old_self_rule = Some(rule.rule.source.clone());
        }
    }
    let fields: Vec<&Field> = match &model.shape {
        Shape::Struct(fields) => fields.iter().collect(),
        Shape::Newtype(f) => vec![&**f],
        Shape::Enum(variants) => variants
            .iter()
            .filter(|v| !v.skipped)
            .flat_map(|v| &v.fields)
            .collect(),
        _ => Vec::new(),
    };
    // Skipped and flattened fields have no node: their markers are already reported.
    for f in fields.into_iter().filter(|f| !f.skipped && !f.flatten) {
        let view = cel::of_field(f);
        let owner = format!("{owner}.{}", f.name);
        for rule in rules_of(&f.markers) {
            check(rule, &view, &owner, errors, &mut deferred);
        }
        correlation(f, &mut deferred);
    }
    deferred
}

fn rules_of(markers: &Markers) -> impl Iterator<Item = &Rule> {
    markers.list.iter().filter_map(|m| match &m.kind {
        MarkerKind::Rule(rule) => Some(&**rule),
        _ => None,
    })
}

/// A list field whose items the apiserver cannot correlate between an object's versions
/// (every list but `list_type = "map"`) must not hold a type with a transition rule.
fn correlation<'a>(f: &'a Field, deferred: &mut Deferred<'a>) {
    let ty = f.schema_type();
    if classify(ty) != TyClass::List {
        return;
    }
    let list_type = f.markers.find("list_type");
    if matches!(list_type.map(|m| &m.kind), Some(MarkerKind::ListType(t)) if t == "map") {
        return;
    }
    let Some(item) = cel::list_item(ty) else {
        return;
    };
    if matches!(cel::of_type(item, false), View::Named { .. }) {
        deferred.correlations.push(Correlation {
            item,
            field: f.name.clone(),
            span: list_type.map_or(f.span, |m| m.span),
        });
    }
}

/// Checks one rule against the value it sits on; returns whether it uses `oldSelf`.
fn check<'a>(
    rule: &Rule,
    view: &View<'a>,
    owner: &str,
    errors: &mut Accumulator,
    deferred: &mut Deferred<'a>,
) -> bool {
    arguments(rule, view, owner, errors, deferred);
    let source = &rule.rule;
    if source.source.trim().is_empty() {
        errors.push(error_at(source.span, "the CEL rule is empty"));
        return false;
    }
    if let View::Hidden = view {
        errors.push(error_at(
            source.span,
            "a rule cannot sit on a field that holds any JSON: a `serde_json::Value` has no schema type, \
             so the apiserver has no CEL type for `self`; give the field a type, or put the rule on the \
             struct around it",
        ));
        return false;
    }
    let Some(walk) = expression(source, view, "rule", owner, errors, deferred) else {
        return false;
    };
    if let Ok(expr) = &source.parsed
        && let Some(kind) = cel::result_kind(expr)
        && kind != "a bool"
    {
        errors.push(error_at(
            source.span,
            format!(
                "a rule must evaluate to a bool, but this one is {kind}; state the condition, e.g. `self.x > 0` or `has(self.x)`"
            ),
        ));
    }
    if let Some(message) = &rule.message_expression
        && !message.source.trim().is_empty()
        && expression(message, view, "message_expression", owner, errors, deferred).is_some()
        && let Ok(expr) = &message.parsed
        && let Some(kind) = cel::result_kind(expr)
        && kind != "a string"
    {
        errors.push(error_at(
            message.span,
            format!(
                "a message_expression must evaluate to a string, but this one is {kind}; \
                 build the message from strings with `+`, e.g. `'bad name: ' + self.name`"
            ),
        ));
    }
    if let Some(optional) = &rule.args.optional_old_self
        && !walk.uses_old_self
    {
        errors.push(error_at(
            optional.span(),
            "`optional_old_self` applies to transition rules, and this rule does not use oldSelf \
             (the apiserver refuses it); drop `optional_old_self`, or compare with oldSelf in the rule",
        ));
    }
    walk.uses_old_self
}

/// Parses and walks one expression, reporting its problems at its literal; `None` when it
/// does not parse.
fn expression<'v, 'a>(
    cel: &Cel,
    view: &'v View<'a>,
    what: &str,
    owner: &str,
    errors: &mut Accumulator,
    deferred: &mut Deferred<'a>,
) -> Option<Walk<'v, 'a>> {
    let expr = match &cel.parsed {
        Ok(expr) => expr,
        Err(e) => {
            errors.push(error_at(cel.span, syntax(e, &cel.source, what)));
            return None;
        }
    };
    let mut walk = Walk::run(expr, view);
    // The parser expands `existsOne(x, p)` as `exists_one(x, p)`; Kubernetes knows
    // `existsOne` only with two variables.
    if cel.source.matches("existsOne").count() > cel::calls_named(expr, "existsOne") {
        walk.problems.push(
            "`existsOne` with one variable is not in Kubernetes' CEL (only `existsOne(k, v, ...)` with two); \
             write `exists_one(x, ...)`"
                .into(),
        );
    }
    for problem in &walk.problems {
        let prefix = if what == "rule" {
            String::new()
        } else {
            format!("in the {what}: ")
        };
        errors.push(error_at(cel.span, format!("{prefix}{problem}")));
    }
    for Foreign { ty, name, text } in walk.foreign.drain(..) {
        deferred.rule_fields.push(RuleField {
            ty,
            name,
            context: format!("`{text}` in the {what} on `{owner}`"),
            span: cel.span,
        });
    }
    Some(walk)
}

/// `reason`, `message`, `message_expression` and `field_path` as the apiserver checks them.
fn arguments<'a>(
    rule: &Rule,
    view: &View<'a>,
    owner: &str,
    errors: &mut Accumulator,
    deferred: &mut Deferred<'a>,
) {
    let a = &rule.args;
    if let Some(reason) = &a.reason
        && !RULE_REASONS.contains(&reason.as_str())
    {
        errors.push(error_at(
            reason.span(),
            format!("`reason` must be one of {}", RULE_REASONS.join(", ")),
        ));
    }
    let message = a.message.as_ref().map(|m| m.trim());
    if let Some(m) = &a.message {
        if m.contains('\n') {
            errors.push(error_at(m.span(), "a rule message must be one line"));
        } else if m.trim().is_empty() {
            errors.push(error_at(
                m.span(),
                "a rule message must not be blank; leave `message` out for the default message",
            ));
        }
    }
    let source = rule.rule.source.trim();
    if source.contains(['\n', '\r']) && message.is_none_or(str::is_empty) {
        errors.push(error_at(
            rule.rule.span,
            "a rule written over several lines needs a `message` (the apiserver refuses it without one)",
        ));
    }
    if let Some(m) = &a.message_expression
        && m.trim().is_empty()
    {
        errors.push(error_at(
            m.span(),
            "`message_expression` must not be blank; leave it out, or write a CEL expression giving a string",
        ));
    }
    if let Some(path) = &a.field_path {
        let problem = if path.contains(['\n', '\r']) {
            Some("`field_path` must be one line".to_owned())
        } else if path.trim().is_empty() {
            Some("`field_path` must not be blank; leave it out to report on this node".to_owned())
        } else {
            field_path(path, view, owner, path.span(), deferred).err()
        };
        if let Some(problem) = problem {
            errors.push(error_at(path.span(), problem));
        }
    }
}

/// Follows a rule's `field_path` (`.spec.ports`, `['name']`) from the node the rule is on,
/// as the apiserver's `ValidFieldPath` does: through object fields (by serialized name) and
/// map keys, not into lists.
fn field_path<'a>(
    path: &str,
    view: &View<'a>,
    owner: &str,
    span: Span,
    deferred: &mut Deferred<'a>,
) -> Result<(), String> {
    let hint = "write it as `.field`, `.field.nested` or `['field']`";
    let mut view = view.clone();
    let mut rest = path;
    while !rest.is_empty() {
        let name = if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return Err(format!(
                    "`field_path` `{path}` has an empty field name; {hint}"
                ));
            }
            rest = &after[end..];
            after[..end].to_owned()
        } else if let Some(after) = rest.strip_prefix("['") {
            let Some(end) = quoted_end(after) else {
                return Err(format!(
                    "`field_path` `{path}` has an unterminated `['...']`; {hint}"
                ));
            };
            rest = &after[end + 2..];
            unescape(&after[..end])
                .ok_or_else(|| format!("`field_path` `{path}` has an invalid escape; {hint}"))?
        } else {
            return Err(format!(
                "`field_path` `{path}`: expected `.` or `['` at `{rest}`; {hint}"
            ));
        };
        view = match view {
            View::Object(object) => match object.fields.iter().find(|m| m.name == name) {
                Some(member) => member.view.clone(),
                None if object.open => View::Dyn,
                None => {
                    let names = object.fields.iter().map(|m| m.name.as_str());
                    let hint = match cel::closest(&name, names) {
                        Some(c) => format!("; did you mean `{c}`?"),
                        None => String::new(),
                    };
                    return Err(format!(
                        "`field_path` `{path}`: `{}` has no field `{name}` (paths name fields by their serde names){hint}",
                        object.type_name
                    ));
                }
            },
            View::Named { ty, .. } => {
                deferred.rule_fields.push(RuleField {
                    ty,
                    name: name.clone(),
                    context: format!("`field_path` `{path}` of the rule on `{owner}`"),
                    span,
                });
                View::Dyn
            }
            View::Map(value) => *value,
            View::List(_) | View::Scalar(_) => {
                return Err(format!(
                    "`field_path` `{path}`: `{name}` is not a field here: the path reaches {} \
                     (a path follows object fields and map keys, not list items)",
                    view.describe()
                ));
            }
            // A `serde_json::Value` map still has keys in the structural schema: lenient.
            View::Dyn | View::Hidden => View::Dyn,
        };
    }
    Ok(())
}

/// The index of the `']` closing a quoted path segment (after `['`), skipping `\'`.
fn quoted_end(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    (0..bytes.len()).find(|&i| {
        bytes[i] == b'\'' && (i == 0 || bytes[i - 1] != b'\\') && bytes.get(i + 1) == Some(&b']')
    })
}

/// The escapes a quoted field path segment may use (the apiserver's `unescapeSingleQuote`).
fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\'' => '\'',
            '\\' => '\\',
            _ => return None,
        });
    }
    Some(out)
}

/// The parser's first error, in words, with the line it is on and a caret under the column.
fn syntax(e: &SyntaxError, source: &str, what: &str) -> String {
    let message = e
        .message
        .strip_prefix("Syntax error: ")
        .unwrap_or(&e.message);
    let explained = explain(message);
    let line = source.lines().nth(e.line - 1).unwrap_or("");
    let at = if source.contains('\n') {
        format!("line {}, column {}", e.line, e.column)
    } else {
        format!("column {}", e.column)
    };
    let more = match e.more {
        0 => String::new(),
        1 => " (and 1 more error after it)".to_owned(),
        n => format!(" (and {n} more errors after it)"),
    };
    let caret = " ".repeat((e.column - 1).min(line.chars().count()));
    format!("the CEL {what} does not parse: {explained} at {at}{more}\n  {line}\n  {caret}^")
}

/// cel-go's (ANTLR's) syntax messages, reworded to say what was found and what fits there.
fn explain(message: &str) -> String {
    // ANTLR quotes the token once: `''abc'` is the token `'abc`.
    let quoted = |s: &str| {
        let s = s.strip_prefix('\'').unwrap_or(s);
        s.strip_suffix('\'').unwrap_or(s).to_owned()
    };
    let found = |token: &str| match token {
        "<EOF>" => "the end of the expression".to_owned(),
        t => format!("`{t}`"),
    };
    if let Some(rest) = message
        .strip_prefix("mismatched input ")
        .or_else(|| message.strip_prefix("extraneous input "))
        && let Some((token, expected)) = rest.split_once(" expecting ")
    {
        return format!(
            "found {} where CEL expects {}",
            found(&quoted(token)),
            expected_tokens(expected)
        );
    }
    if let Some(rest) = message.strip_prefix("missing ")
        && let Some((missing, at)) = rest.split_once(" at ")
    {
        return format!(
            "missing `{}` before {}",
            quoted(missing),
            found(&quoted(at))
        );
    }
    if let Some(token) = message.strip_prefix("token recognition error at: ") {
        let token = quoted(token);
        let hint = if token.starts_with(['\'', '"']) {
            " (a string without its closing quote?)"
        } else {
            ""
        };
        return format!("`{token}` is not CEL{hint}");
    }
    if let Some(input) = message.strip_prefix("no viable alternative at input ") {
        return format!("cannot read `{}`", quoted(input));
    }
    message.to_owned()
}

/// `{'[', '{', ..., IDENTIFIER}` in words; the full set that starts an operand is "a value".
fn expected_tokens(set: &str) -> String {
    let tokens: Vec<&str> = set
        .trim_matches(|c| c == '{' || c == '}')
        .split(", ")
        .map(str::trim)
        .collect();
    let operand = ["IDENTIFIER", "NUM_INT", "STRING", "'('", "'['", "'!'"];
    if operand.iter().all(|t| tokens.contains(t)) {
        return "a value (a name such as `self`, a literal, `(`, `[`, `{`, `-` or `!`)".into();
    }
    let words: Vec<String> = tokens
        .iter()
        .map(|t| match *t {
            "IDENTIFIER" => "a name".to_owned(),
            "NUM_INT" | "NUM_UINT" | "NUM_FLOAT" => "a number".to_owned(),
            "STRING" => "a string".to_owned(),
            "BYTES" => "bytes".to_owned(),
            "<EOF>" => "the end of the expression".to_owned(),
            t => format!("`{}`", t.trim_matches('\'')),
        })
        .fold(Vec::new(), |mut acc, w| {
            if !acc.contains(&w) {
                acc.push(w);
            }
            acc
        });
    match words.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
        [] => "something else".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_say_what_was_found_and_what_fits() {
        let e = SyntaxError {
            line: 1,
            column: 9,
            message: "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}".into(),
            more: 0,
        };
        assert_eq!(
            syntax(&e, "self.x >", "rule"),
            "the CEL rule does not parse: found the end of the expression where CEL expects a value \
             (a name such as `self`, a literal, `(`, `[`, `{`, `-` or `!`) at column 9\n  self.x >\n          ^"
        );
        assert_eq!(
            explain("mismatched input '<EOF>' expecting {']', ','}"),
            "found the end of the expression where CEL expects `]` or `,`"
        );
        assert_eq!(
            explain("missing ')' at '<EOF>'"),
            "missing `)` before the end of the expression"
        );
        assert_eq!(
            explain("token recognition error at: ''abc'"),
            "`'abc` is not CEL (a string without its closing quote?)"
        );
    }

    #[test]
    fn quoted_path_segments_unescape() {
        assert_eq!(quoted_end("a.b']"), Some(3));
        assert_eq!(quoted_end("it\\'s']"), Some(5));
        assert_eq!(unescape("it\\'s").as_deref(), Some("it's"));
        assert_eq!(unescape("bad\\q"), None);
    }
}
