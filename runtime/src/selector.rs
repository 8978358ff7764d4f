//! Label and field selectors, parsed the way the apiserver parses them. Listers filter
//! with them; the in-memory server serves them.

use std::collections::BTreeMap;

use serde_json::Value;

/// One requirement of a label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// `key=value`, `key==value`, `key in (a,b)`.
    In(String, Vec<String>),
    /// `key!=value`, `key notin (a,b)`.
    NotIn(String, Vec<String>),
    /// `key`.
    Exists(String),
    /// `!key`.
    DoesNotExist(String),
}

/// A parsed label selector: every requirement must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector(pub Vec<Requirement>);

/// Splits on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

fn valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
}

fn value_list(s: &str) -> Result<Vec<String>, String> {
    let inner = s
        .trim()
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("expected a parenthesized value list, found `{s}`"))?;
    Ok(inner
        .split(',')
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect())
}

impl LabelSelector {
    /// The selector that matches everything.
    pub fn everything() -> Self {
        Self(Vec::new())
    }

    /// Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut reqs = Vec::new();
        if s.trim().is_empty() {
            return Ok(Self(reqs));
        }
        for part in split_top_level(s) {
            let p = part.trim();
            let req = if let Some(k) = p.strip_prefix('!') {
                Requirement::DoesNotExist(k.trim().to_owned())
            } else if let Some((k, v)) = p.split_once("!=") {
                Requirement::NotIn(k.trim().to_owned(), vec![v.trim().to_owned()])
            } else if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
                Requirement::In(k.trim().to_owned(), vec![v.trim().to_owned()])
            } else if let Some((k, rest)) = p.split_once(" notin ") {
                Requirement::NotIn(k.trim().to_owned(), value_list(rest)?)
            } else if let Some((k, rest)) = p.split_once(" in ") {
                Requirement::In(k.trim().to_owned(), value_list(rest)?)
            } else {
                Requirement::Exists(p.to_owned())
            };
            let key = match &req {
                Requirement::In(k, _)
                | Requirement::NotIn(k, _)
                | Requirement::Exists(k)
                | Requirement::DoesNotExist(k) => k,
            };
            if !valid_key(key) {
                return Err(format!("invalid label selector `{s}`: bad key `{key}`"));
            }
            reqs.push(req);
        }
        Ok(Self(reqs))
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|r| match r {
            Requirement::In(k, vs) => labels.get(k).is_some_and(|v| vs.contains(v)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|v| !vs.contains(v)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        })
    }
}

/// A parsed field selector: `path=value`, `path==value`, `path!=value`, comma-separated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector(pub Vec<(String, bool, String)>);

impl FieldSelector {
    /// Parses a field selector, accepting only the given field paths (without leading dot).
    pub fn parse(s: &str, allowed: &[String]) -> Result<Self, String> {
        let mut terms = Vec::new();
        if s.trim().is_empty() {
            return Ok(Self(terms));
        }
        for part in s.split(',') {
            let (path, equal, value) = if let Some((k, v)) = part.split_once("!=") {
                (k, false, v)
            } else if let Some((k, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                (k, true, v)
            } else {
                return Err(format!(
                    "invalid field selector `{s}`: `{part}` has no operator"
                ));
            };
            let path = path.trim().to_owned();
            if !allowed.contains(&path) {
                return Err(format!("field label not supported: {path}"));
            }
            terms.push((path, equal, value.trim().to_owned()));
        }
        Ok(Self(terms))
    }

    /// Whether the object's fields satisfy every term; a missing field reads as "".
    pub fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|(path, equal, value)| {
            let pointer = format!("/{}", path.replace('.', "/"));
            let actual = match object.pointer(&pointer) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            (actual == *value) == *equal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn label_selector_operators() {
        let l = labels(&[("app", "web"), ("tier", "front"), ("env", "prod")]);
        for (sel, expected) in [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app in (web,api)", true),
            ("app notin (web,api)", false),
            ("tier", true),
            ("!tier", false),
            ("missing", false),
            ("!missing", true),
            ("missing!=x", true),
            ("app=web,env in (prod, staging),!debug", true),
            ("app=web,env=dev", false),
            ("", true),
        ] {
            assert_eq!(
                LabelSelector::parse(sel).unwrap().matches(&l),
                expected,
                "{sel}"
            );
        }
        assert!(LabelSelector::parse("app in web").is_err());
        assert!(LabelSelector::parse("a b=c").is_err());
    }

    #[test]
    fn field_selector_paths() {
        let allowed = vec!["metadata.name".to_string(), "spec.color".to_string()];
        let obj = serde_json::json!({"metadata": {"name": "a"}, "spec": {"color": "red"}});
        assert!(
            FieldSelector::parse("metadata.name=a,spec.color!=blue", &allowed)
                .unwrap()
                .matches(&obj)
        );
        assert!(
            !FieldSelector::parse("spec.color=blue", &allowed)
                .unwrap()
                .matches(&obj)
        );
        assert_eq!(
            FieldSelector::parse("spec.size=1", &allowed).unwrap_err(),
            "field label not supported: spec.size"
        );
    }
}
