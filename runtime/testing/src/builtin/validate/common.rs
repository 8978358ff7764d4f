//! Checks shared by many kinds: apimachinery's `ValidateNonnegativeField`,
//! `ValidateImmutableField`, label selectors (`ValidateLabelSelector`,
//! `LabelSelectorAsSelector`), `IsValidPortNum`, `IsValidPortName`, `IsConfigMapKey`,
//! `IsValidPercent` and int-or-percent values, with the apiserver's messages.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use kubegen_core::go_print;
use kubegen_runtime::validation::field::{child, index};
use kubegen_runtime::validation::names::{label_value, qualified_name};
use kubegen_runtime::validation::{BadValue, FieldError};

/// `object[key]` as a string, `""` when missing or not a string.
pub(super) fn text<'v>(object: &'v Value, key: &str) -> &'v str {
    object.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `object[key]` as an integer, when it is one.
pub(super) fn int(object: &Value, key: &str) -> Option<i64> {
    object.get(key).and_then(Value::as_i64)
}

/// `object[key]` as a list (empty when missing).
pub(super) fn list<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `object[key]` as a map (empty when missing).
pub(super) fn map<'v>(object: &'v Value, key: &str) -> Vec<(&'v str, &'v Value)> {
    object
        .get(key)
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.as_str(), v)).collect())
        .unwrap_or_default()
}

/// Whether `object[key]` is set (present and not null): a Go pointer that is not nil.
pub(super) fn set(object: &Value, key: &str) -> bool {
    object.get(key).is_some_and(|v| !v.is_null())
}

/// `object[key]`, `null` when missing.
pub(super) fn get<'v>(object: &'v Value, key: &str) -> &'v Value {
    object.get(key).unwrap_or(&Value::Null)
}

/// Owned copies of `values` (the supported values of a `NotSupported` error).
pub(super) fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|s| (*s).to_owned()).collect()
}

/// An enum field that must be set to one of `values` (`Required` when empty).
pub(super) fn enum_required(
    object: &Value,
    key: &str,
    path: &str,
    values: &[&str],
) -> Option<FieldError> {
    let value = text(object, key);
    let path = child(path, key);
    if value.is_empty() {
        Some(FieldError::required(&path, ""))
    } else if !values.contains(&value) {
        Some(FieldError::not_supported(
            &path,
            BadValue::str(value),
            &strings(values),
        ))
    } else {
        None
    }
}

/// `ValidateNonnegativeField`.
pub(super) fn nonnegative(value: i64, path: &str) -> Option<FieldError> {
    (value < 0).then(|| {
        FieldError::invalid(
            path,
            BadValue::Int(value),
            "must be greater than or equal to 0",
        )
    })
}

/// `ValidateNonnegativeField` of `object[key]` when it is set.
pub(super) fn nonnegative_field(object: &Value, key: &str, parent: &str) -> Option<FieldError> {
    int(object, key).and_then(|v| nonnegative(v, &child(parent, key)))
}

/// `ValidateImmutableField`: `new` must equal `old`; the error shows `shown`.
pub(super) fn immutable(
    new: &Value,
    old: &Value,
    path: &str,
    shown: BadValue,
) -> Option<FieldError> {
    (new != old).then(|| FieldError::invalid(path, shown, "field is immutable"))
}

const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

/// `IsValidPortNum`.
pub(super) fn port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec![PORT_RANGE.to_owned()]
    }
}

/// `IsValidPortName` (an IANA service name).
pub(super) fn port_name(name: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if name.len() > 15 {
        errs.push("must be no more than 15 characters".to_owned());
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errs.push(
            "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".to_owned(),
        );
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".to_owned());
    }
    if name.contains("--") {
        errs.push("must not contain consecutive hyphens".to_owned());
    }
    if name.starts_with('-') || name.ends_with('-') {
        errs.push("must not begin or end with a hyphen".to_owned());
    }
    errs
}

/// `ValidatePortNumOrName` of an int-or-string port at `path`.
pub(super) fn port_num_or_name(port: &Value, path: &str) -> Vec<FieldError> {
    match port {
        Value::String(name) => port_name(name)
            .into_iter()
            .map(|m| FieldError::invalid(path, BadValue::str(name.as_str()), m))
            .collect(),
        other => {
            let n = other.as_i64().unwrap_or(0);
            port_num(n)
                .into_iter()
                .map(|m| FieldError::invalid(path, BadValue::Int(n), m))
                .collect()
        }
    }
}

static CONFIG_KEY: LazyLock<Regex> = LazyLock::new(|| {
    // A constant pattern; the tests run it.
    Regex::new("^[-._a-zA-Z0-9]+$").unwrap_or_else(|e| panic!("{e}"))
});

/// `IsConfigMapKey`: the keys of a ConfigMap's or Secret's data.
pub(super) fn config_map_key(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if key.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    if !CONFIG_KEY.is_match(key) {
        errs.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')".to_owned());
    }
    if key == "." {
        errs.push("must not be '.'".to_owned());
    } else if key == ".." {
        errs.push("must not be '..'".to_owned());
    } else if key.starts_with("..") {
        errs.push("must not start with '..'".to_owned());
    }
    errs
}

/// `IsValidPercent`.
pub(super) fn percent(value: &str) -> Vec<String> {
    let digits = value.strip_suffix('%').unwrap_or("");
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        Vec::new()
    } else {
        vec!["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')".to_owned()]
    }
}

/// An `IntOrString` as Go shows it in an error (a number or a quoted string).
pub(super) fn int_or_string(value: &Value) -> BadValue {
    match value {
        Value::String(s) => BadValue::str(s.as_str()),
        other => BadValue::Int(other.as_i64().unwrap_or(0)),
    }
}

/// The number a percent string or integer stands for (`getIntOrPercentValue`): a percent
/// string its number, an integer itself, anything else 0.
pub(super) fn int_or_percent_value(value: &Value) -> i64 {
    match value {
        Value::String(s) if percent(s).is_empty() => s[..s.len() - 1].parse().unwrap_or(0),
        Value::String(s) => s.parse().unwrap_or(0),
        other => other.as_i64().unwrap_or(0),
    }
}

/// `ValidatePositiveIntOrPercent`.
pub(super) fn positive_int_or_percent(value: &Value, path: &str) -> Vec<FieldError> {
    match value {
        Value::String(s) => percent(s)
            .into_iter()
            .map(|m| FieldError::invalid(path, BadValue::str(s.as_str()), m))
            .collect(),
        Value::Null => Vec::new(),
        other => nonnegative(other.as_i64().unwrap_or(0), path)
            .into_iter()
            .collect(),
    }
}

/// `IsNotMoreThan100Percent`.
pub(super) fn not_more_than_100_percent(value: &Value, path: &str) -> Option<FieldError> {
    let Value::String(s) = value else { return None };
    if !percent(s).is_empty() {
        return None;
    }
    let n: i64 = s[..s.len() - 1].parse().unwrap_or(0);
    (n > 100).then(|| {
        FieldError::invalid(
            path,
            BadValue::str(s.as_str()),
            "must not be greater than 100%",
        )
    })
}

/// `ValidateLabels` of `labels` at `path` (key errors, then value errors, key by key).
pub(super) fn labels(labels: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Value::Object(m) = labels {
        for (k, v) in m {
            for msg in qualified_name(k) {
                errs.push(FieldError::invalid(path, BadValue::str(k.as_str()), msg));
            }
            let v = v.as_str().unwrap_or("");
            for msg in label_value(v) {
                errs.push(FieldError::invalid(path, BadValue::str(v), msg));
            }
        }
    }
    errs
}

const OPERATORS: [&str; 4] = ["In", "NotIn", "Exists", "DoesNotExist"];

/// `ValidateLabelSelector` (label values checked strictly).
pub(super) fn label_selector(selector: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = labels(get(selector, "matchLabels"), &child(path, "matchLabels"));
    for (i, requirement) in list(selector, "matchExpressions").iter().enumerate() {
        let p = index(&child(path, "matchExpressions"), i);
        let operator = text(requirement, "operator");
        let values = list(requirement, "values");
        match operator {
            "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
                &child(&p, "values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
                &child(&p, "values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            op if OPERATORS.contains(&op) => {}
            op => errs.push(FieldError::invalid(
                &child(&p, "operator"),
                BadValue::str(op),
                "not a valid selector operator",
            )),
        }
        let key = text(requirement, "key");
        for msg in qualified_name(key) {
            errs.push(FieldError::invalid(
                &child(&p, "key"),
                BadValue::str(key),
                msg,
            ));
        }
        for (j, value) in values.iter().enumerate() {
            let value = value.as_str().unwrap_or("");
            for msg in label_value(value) {
                errs.push(FieldError::invalid(
                    &index(&child(&p, "values"), j),
                    BadValue::str(value),
                    msg,
                ));
            }
        }
    }
    errs
}

/// A label selector as `LabelSelectorAsSelector` turns it into one (the in-memory
/// controllers match their Pods and revisions with it too).
pub(crate) enum Selector {
    /// A nil selector: matches nothing.
    Nothing,
    /// Every requirement must hold; none at all matches everything (`Empty()`).
    Requirements(Vec<(String, String, Vec<String>)>),
}

impl Selector {
    /// `LabelSelectorAsSelector`; `None` where Go returns an error (an unknown operator, a
    /// requirement whose values do not fit its operator, an invalid key or value).
    pub(crate) fn parse(selector: &Value) -> Option<Selector> {
        if selector.is_null() {
            return Some(Selector::Nothing);
        }
        let mut requirements = Vec::new();
        for (k, v) in map(selector, "matchLabels") {
            let v = v.as_str().unwrap_or("");
            if !qualified_name(k).is_empty() || !label_value(v).is_empty() {
                return None;
            }
            requirements.push((k.to_owned(), "In".to_owned(), vec![v.to_owned()]));
        }
        for r in list(selector, "matchExpressions") {
            let op = text(r, "operator");
            let values: Vec<String> = list(r, "values")
                .iter()
                .map(|v| v.as_str().unwrap_or("").to_owned())
                .collect();
            let fits = match op {
                "In" | "NotIn" => !values.is_empty(),
                "Exists" | "DoesNotExist" => values.is_empty(),
                _ => false,
            };
            if !fits
                || !qualified_name(text(r, "key")).is_empty()
                || values.iter().any(|v| !label_value(v).is_empty())
            {
                return None;
            }
            requirements.push((text(r, "key").to_owned(), op.to_owned(), values));
        }
        Some(Selector::Requirements(requirements))
    }

    /// `selector.Empty()`: a selector without requirements.
    pub(crate) fn is_empty(&self) -> bool {
        matches!(self, Selector::Requirements(r) if r.is_empty())
    }

    /// Whether `labels` (an object of strings, or null) satisfy the selector.
    pub(crate) fn matches(&self, labels: &Value) -> bool {
        let Selector::Requirements(requirements) = self else {
            return false;
        };
        let label = |k: &str| labels.get(k).and_then(Value::as_str);
        requirements
            .iter()
            .all(|(key, op, values)| match op.as_str() {
                "In" => label(key).is_some_and(|v| values.iter().any(|x| x == v)),
                "NotIn" => label(key).is_none_or(|v| values.iter().all(|x| x != v)),
                "Exists" => label(key).is_some(),
                _ => label(key).is_none(),
            })
    }
}

/// A `*metav1.LabelSelector` as `json.Marshal` writes it (`matchLabels` before
/// `matchExpressions`, empty ones left out), or `null`.
pub(super) fn marshal_selector(selector: &Value) -> BadValue {
    if selector.is_null() {
        return BadValue::Json(Value::Null);
    }
    let mut parts = Vec::new();
    if let Some(Value::Object(m)) = selector.get("matchLabels")
        && !m.is_empty()
    {
        parts.push(format!(
            "\"matchLabels\":{}",
            go_print::marshal(&Value::Object(m.clone()))
        ));
    }
    let expressions = list(selector, "matchExpressions");
    if !expressions.is_empty() {
        let items: Vec<String> = expressions
            .iter()
            .map(|r| {
                let mut s = String::from("{\"key\":");
                go_print::json_string(text(r, "key"), &mut s);
                s.push_str(",\"operator\":");
                go_print::json_string(text(r, "operator"), &mut s);
                let values = list(r, "values");
                if !values.is_empty() {
                    s.push_str(",\"values\":");
                    s.push_str(&go_print::marshal(&Value::Array(values.to_vec())));
                }
                s.push('}');
                s
            })
            .collect();
        parts.push(format!("\"matchExpressions\":[{}]", items.join(",")));
    }
    BadValue::Marshalled(format!("{{{}}}", parts.join(",")))
}

/// A map of labels as Go shows a `map[string]string` (JSON, `null` when nil).
pub(super) fn marshal_map(value: &Value) -> BadValue {
    match value {
        Value::Object(_) => BadValue::Json(value.clone()),
        _ => BadValue::Json(Value::Null),
    }
}

/// A Go struct marshalled with its fields in the order given, as `json.Marshal` writes a
/// struct without `json` tags (Go field names, every field present).
pub(super) fn go_struct(fields: &[(&str, Value)]) -> BadValue {
    let mut out = String::from("{");
    for (i, (name, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        go_print::json_string(name, &mut out);
        out.push(':');
        out.push_str(&go_print::marshal(value));
    }
    out.push('}');
    BadValue::Marshalled(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_match_like_labels_selectors() {
        let s = Selector::parse(&json!({"matchLabels": {"app": "a"}})).unwrap();
        assert!(s.matches(&json!({"app": "a", "x": "y"})));
        assert!(!s.matches(&json!({"app": "b"})));
        assert!(!s.matches(&Value::Null));
        assert!(Selector::parse(&json!({})).unwrap().is_empty());
        assert!(!Selector::parse(&Value::Null).unwrap().matches(&json!({})));
        let bad = json!({"matchExpressions": [{"key": "app", "operator": "Is", "values": ["a"]}]});
        assert!(Selector::parse(&bad).is_none());
        assert_eq!(
            marshal_selector(&bad),
            BadValue::Marshalled(
                r#"{"matchExpressions":[{"key":"app","operator":"Is","values":["a"]}]}"#.into()
            )
        );
    }

    #[test]
    fn names_ports_and_percents() {
        assert_eq!(
            port_name("abcdefghijklmnop"),
            ["must be no more than 15 characters"]
        );
        assert!(port_name("http").is_empty());
        assert!(port_num(70000)[0].contains("65535"));
        assert!(config_map_key("a b")[0].starts_with("a valid config key"));
        assert!(config_map_key("key.name").is_empty());
        assert!(percent("25%").is_empty());
        assert!(!percent("120x").is_empty());
        assert_eq!(int_or_percent_value(&json!("25%")), 25);
        assert_eq!(int_or_percent_value(&json!("120x")), 0);
    }
}
