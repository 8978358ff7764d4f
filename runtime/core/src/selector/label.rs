//! Label selectors: `app=web,tier in (a,b),!canary,replicas>2`, parsed, checked and matched
//! the way the apiserver does it.

use std::collections::BTreeMap;
use std::fmt;

use super::lexer::{Item, Token, tokens};
use super::names::{label_key_problems, label_value_problems};
use super::{InvalidValue, InvalidValues};

/// How a requirement relates a label to its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `key=value`: the label is set to the value.
    Equals,
    /// `key==value`: the same as `=`.
    DoubleEquals,
    /// `key!=value`: the label is unset or set to another value.
    NotEquals,
    /// `key in (a,b)`: the label is set to one of the values.
    In,
    /// `key notin (a,b)`: the label is unset or set to none of the values.
    NotIn,
    /// `key`: the label is set.
    Exists,
    /// `!key`: the label is unset.
    DoesNotExist,
    /// `key>n`: the label is an integer greater than `n`.
    GreaterThan,
    /// `key<n`: the label is an integer less than `n`.
    LessThan,
}

/// One requirement of a label selector: a key, an operator and its values. Built by
/// [`LabelSelector::parse`] or [`Requirement::new`], so always valid.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Requirement {
    key: String,
    operator: Operator,
    values: Vec<String>,
}

impl Requirement {
    /// A requirement, checked as the apiserver checks one: the key must be a label key,
    /// `in`/`notin` need at least one value, `=`/`==`/`!=` exactly one, `>`/`<` exactly one
    /// integer, exists/does-not-exist none, and every value must be a label value.
    ///
    /// ```
    /// use kubegen_core::selector::{Operator, Requirement};
    /// let r = Requirement::new("replicas", Operator::GreaterThan, ["2"]).unwrap();
    /// assert_eq!(r.to_string(), "replicas>2");
    /// assert!(Requirement::new("replicas", Operator::GreaterThan, ["two"]).is_err());
    /// ```
    pub fn new<V: Into<String>>(
        key: impl Into<String>,
        operator: Operator,
        values: impl IntoIterator<Item = V>,
    ) -> Result<Self, InvalidValues> {
        let key = key.into();
        let values: Vec<String> = values.into_iter().map(Into::into).collect();
        let mut errors = Vec::new();
        let key_problems = label_key_problems(&key);
        if !key_problems.is_empty() {
            errors.push(InvalidValue::new("key", &key, key_problems.join("; ")));
        }
        let count_error = |detail: &str| InvalidValue::list("values", &values, detail);
        match operator {
            Operator::In | Operator::NotIn if values.is_empty() => errors.push(count_error(
                "for 'in', 'notin' operators, values set can't be empty",
            )),
            Operator::Equals | Operator::DoubleEquals | Operator::NotEquals
                if values.len() != 1 =>
            {
                errors.push(count_error(
                    "exact-match compatibility requires one single value",
                ))
            }
            Operator::Exists | Operator::DoesNotExist if !values.is_empty() => errors.push(
                count_error("values set must be empty for exists and does not exist"),
            ),
            Operator::GreaterThan | Operator::LessThan => {
                if values.len() != 1 {
                    errors.push(count_error(
                        "for 'Gt', 'Lt' operators, exactly one value is required",
                    ));
                }
                for (i, v) in values.iter().enumerate() {
                    if v.parse::<i64>().is_err() {
                        errors.push(InvalidValue::new(
                            format!("values[{i}]"),
                            v,
                            "for 'Gt', 'Lt' operators, the value must be an integer",
                        ));
                    }
                }
            }
            _ => {}
        }
        for (i, v) in values.iter().enumerate() {
            let problems = label_value_problems(v);
            if !problems.is_empty() {
                errors.push(InvalidValue::new(
                    format!("values[{i}][{key}]"),
                    v,
                    problems.join("; "),
                ));
            }
        }
        match errors.is_empty() {
            true => Ok(Self {
                key,
                operator,
                values,
            }),
            false => Err(InvalidValues::new(errors)),
        }
    }

    /// The label key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// The values, as given (parsed `in`/`notin` lists are sorted and without duplicates).
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// Whether `labels` satisfy the requirement. `!=` and `notin` hold for objects without
    /// the label; `>` and `<` only for labels that are integers.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(&self.key);
        let listed = |v: &String| self.values.contains(v);
        match self.operator {
            Operator::Equals | Operator::DoubleEquals | Operator::In => value.is_some_and(listed),
            Operator::NotEquals | Operator::NotIn => !value.is_some_and(listed),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                // The bound parses: `new` checked it. A label that is no integer never matches.
                let actual = value.and_then(|v| v.parse::<i64>().ok());
                let bound = self.values.first().and_then(|b| b.parse::<i64>().ok());
                match (actual, bound, self.operator) {
                    (Some(a), Some(b), Operator::GreaterThan) => a > b,
                    (Some(a), Some(b), _) => a < b,
                    _ => false,
                }
            }
        }
    }
}

/// The requirement as a selector would write it: `app in (a,b)`, `!canary`, `n>2`.
impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.operator {
            Operator::Exists => return f.write_str(&self.key),
            Operator::DoesNotExist => return write!(f, "!{}", self.key),
            Operator::Equals => "=",
            Operator::DoubleEquals => "==",
            Operator::NotEquals => "!=",
            Operator::GreaterThan => ">",
            Operator::LessThan => "<",
            Operator::In => " in ",
            Operator::NotIn => " notin ",
        };
        let mut values: Vec<&str> = self.values.iter().map(String::as_str).collect();
        values.sort_unstable();
        match self.operator {
            Operator::In | Operator::NotIn => write!(f, "{}{op}({})", self.key, values.join(",")),
            _ => write!(f, "{}{op}{}", self.key, values.join(",")),
        }
    }
}

/// A parsed label selector: every requirement must hold. Empty, it selects everything.
///
/// ```
/// use std::collections::BTreeMap;
/// use kubegen_core::selector::LabelSelector;
/// let s = LabelSelector::parse("app in (web,api),!canary").unwrap();
/// let labels = BTreeMap::from([("app".to_string(), "web".to_string())]);
/// assert!(s.matches(&labels));
/// assert_eq!(
///     LabelSelector::parse("app in web").unwrap_err().to_string(),
///     "unable to parse requirement: found 'web' expected: '('"
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LabelSelector(pub Vec<Requirement>);

impl LabelSelector {
    /// The selector that matches everything.
    pub fn everything() -> Self {
        Self(Vec::new())
    }

    /// Whether the selector has no requirements (and so matches everything).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The requirements, sorted by key.
    pub fn requirements(&self) -> &[Requirement] {
        &self.0
    }

    /// Parses a selector as the apiserver does (`labelSelector=` of a list or watch), with its
    /// error for anything it refuses. Requirements are comma-separated:
    /// `key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (v,...)`, `key notin (v,...)`,
    /// `key>n`, `key<n`. An empty or blank string selects everything.
    pub fn parse(selector: &str) -> Result<Self, LabelSelectorError> {
        let items = tokens(selector);
        let mut parser = Parser {
            items: &items,
            position: 0,
        };
        let mut requirements = parser.selector()?;
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Self(requirements))
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|r| r.matches(labels))
    }
}

/// The selector as a `labelSelector=` parameter would carry it.
impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::write_joined(f, &self.0)
    }
}

/// Why a label selector was refused; its text is the apiserver's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LabelSelectorError {
    /// Something other than a requirement where one must start, or other than `,` or the end
    /// after one.
    #[error("found '{found}', expected: {expected}")]
    Unexpected {
        /// The text found (empty at the end of the selector).
        found: String,
        /// What could have stood there.
        expected: Expected,
    },
    /// A requirement that does not parse, or is not valid.
    #[error("unable to parse requirement: {0}")]
    Requirement(#[from] RequirementError),
}

/// Why one requirement of a label selector was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RequirementError {
    /// `in` or `notin` without a `(`.
    #[error("found '{0}' expected: '('")]
    OpenParenExpected(String),
    /// An unexpected token inside the requirement.
    #[error("found '{found}', expected: {expected}")]
    Unexpected {
        /// The text found (empty at the end of the selector).
        found: String,
        /// What could have stood there.
        expected: Expected,
    },
    /// The key or a value is not valid.
    #[error("{0}")]
    Invalid(#[from] InvalidValues),
}

/// What the parser was looking for when it found something else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A requirement or the end of the selector.
    RequirementOrEnd,
    /// A requirement after a comma.
    IdentifierAfterComma,
    /// A comma or the end of the selector, after a requirement.
    CommaOrEnd,
    /// A key or a value.
    Identifier,
    /// An operator after a key.
    Operator,
    /// The start of a value list.
    ValueListStart,
    /// A comma or `)` after a value in a list.
    CommaOrCloseParen,
    /// A value or a comma in a list.
    CommaOrIdentifier,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::RequirementOrEnd => "!, identifier, or 'end of string'",
            Expected::IdentifierAfterComma => "identifier after ','",
            Expected::CommaOrEnd => "',' or 'end of string'",
            Expected::Identifier => "identifier",
            Expected::Operator => "in, notin, =, ==, !=, gt, lt",
            Expected::ValueListStart => "',', ')' or identifier",
            Expected::CommaOrCloseParen => "',' or ')'",
            Expected::CommaOrIdentifier => "',', or identifier",
        })
    }
}

/// A recursive-descent parser over the tokens. Where a value may stand, `in` and `notin`
/// are plain identifiers; only right after a key are they operators.
struct Parser<'t, 'a> {
    items: &'t [Item<'a>],
    position: usize,
}

impl<'a> Parser<'_, 'a> {
    fn peek(&self, operator_position: bool) -> Item<'a> {
        let item = self.items.get(self.position).copied().unwrap_or(Item {
            token: Token::End,
            text: "",
        });
        match item.token {
            Token::In | Token::NotIn if !operator_position => Item {
                token: Token::Identifier,
                ..item
            },
            _ => item,
        }
    }

    fn take(&mut self, operator_position: bool) -> Item<'a> {
        let item = self.peek(operator_position);
        self.position += 1;
        item
    }

    fn selector(&mut self) -> Result<Vec<Requirement>, LabelSelectorError> {
        let mut requirements = Vec::new();
        loop {
            let next = self.peek(false);
            match next.token {
                Token::End => return Ok(requirements),
                Token::Identifier | Token::Not => {}
                _ => return Err(unexpected(next, Expected::RequirementOrEnd)),
            }
            requirements.push(self.requirement()?);
            let after = self.take(false);
            match after.token {
                Token::End => return Ok(requirements),
                Token::Comma => {
                    let next = self.peek(false);
                    if !matches!(next.token, Token::Identifier | Token::Not) {
                        return Err(unexpected(next, Expected::IdentifierAfterComma));
                    }
                }
                _ => return Err(unexpected(after, Expected::CommaOrEnd)),
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, RequirementError> {
        let mut key = self.take(false);
        let negated = key.token == Token::Not;
        if negated {
            key = self.take(false);
        }
        if key.token != Token::Identifier {
            return Err(requirement_unexpected(key, Expected::Identifier));
        }
        let problems = label_key_problems(key.text);
        if !problems.is_empty() {
            // The apiserver checks the key before the requirement, without a field path.
            return Err(InvalidValues::new(vec![InvalidValue::new(
                "<nil>",
                key.text,
                problems.join("; "),
            )])
            .into());
        }
        let alone = matches!(self.peek(false).token, Token::End | Token::Comma);
        if negated || alone {
            let operator = match negated {
                true => Operator::DoesNotExist,
                false => Operator::Exists,
            };
            return Ok(Requirement::new(key.text, operator, Vec::<String>::new())?);
        }
        let op = self.take(true);
        let operator = match op.token {
            Token::In => Operator::In,
            Token::NotIn => Operator::NotIn,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::NotEquals => Operator::NotEquals,
            Token::Greater => Operator::GreaterThan,
            Token::Less => Operator::LessThan,
            _ => return Err(requirement_unexpected(op, Expected::Operator)),
        };
        let values = match operator {
            Operator::In | Operator::NotIn => self.value_list()?,
            _ => vec![self.exact_value()?],
        };
        Ok(Requirement::new(key.text, operator, values)?)
    }

    /// `(a,b,...)`; empty entries (`(,a)`, `()`) are the empty value. Sorted, no duplicates.
    fn value_list(&mut self) -> Result<Vec<String>, RequirementError> {
        let open = self.take(false);
        if open.token != Token::OpenParen {
            return Err(RequirementError::OpenParenExpected(open.text.to_owned()));
        }
        let first = self.peek(false);
        let mut values = Vec::new();
        match first.token {
            Token::CloseParen => {
                self.position += 1;
                values.push(String::new());
            }
            Token::Identifier | Token::Comma => {
                self.list_entries(&mut values)?;
                // The entries end just before `)`.
                self.position += 1;
            }
            _ => return Err(requirement_unexpected(first, Expected::ValueListStart)),
        }
        values.sort_unstable();
        values.dedup();
        Ok(values)
    }

    /// The entries of a value list, up to (not including) its `)`.
    fn list_entries(&mut self, values: &mut Vec<String>) -> Result<(), RequirementError> {
        loop {
            let item = self.take(false);
            match item.token {
                Token::Identifier => {
                    values.push(item.text.to_owned());
                    let next = self.peek(false);
                    match next.token {
                        Token::Comma => {}
                        Token::CloseParen => return Ok(()),
                        _ => return Err(requirement_unexpected(next, Expected::CommaOrCloseParen)),
                    }
                }
                Token::Comma => {
                    // A comma first, last or doubled stands for an empty value.
                    if values.is_empty() {
                        values.push(String::new());
                    }
                    match self.peek(false).token {
                        Token::CloseParen => {
                            values.push(String::new());
                            return Ok(());
                        }
                        Token::Comma => values.push(String::new()),
                        _ => {}
                    }
                }
                _ => return Err(requirement_unexpected(item, Expected::CommaOrIdentifier)),
            }
        }
    }

    /// The value after `=`, `==`, `!=`, `>` or `<`; nothing there is the empty value.
    fn exact_value(&mut self) -> Result<String, RequirementError> {
        if matches!(self.peek(false).token, Token::End | Token::Comma) {
            return Ok(String::new());
        }
        let item = self.take(false);
        match item.token {
            Token::Identifier => Ok(item.text.to_owned()),
            _ => Err(requirement_unexpected(item, Expected::Identifier)),
        }
    }
}

fn unexpected(item: Item<'_>, expected: Expected) -> LabelSelectorError {
    LabelSelectorError::Unexpected {
        found: item.text.to_owned(),
        expected,
    }
}

fn requirement_unexpected(item: Item<'_>, expected: Expected) -> RequirementError {
    RequirementError::Unexpected {
        found: item.text.to_owned(),
        expected,
    }
}
