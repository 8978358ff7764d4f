//! Resource quantities as validation compares them (`resource.Quantity.Cmp`, `Sign`): the
//! decoder has already refused strings that are no quantity, so reading one here only needs
//! its value.

use std::cmp::Ordering;

/// The value of a quantity string (`500m`, `1Gi`, `1e3`), `None` for a string that is no
/// quantity.
pub(super) fn value(s: &str) -> Option<f64> {
    let s = s.trim();
    let number_end = s
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_digit() || *c == '.' || (*i == 0 && (*c == '+' || *c == '-'))))
        .map_or(s.len(), |(i, _)| i);
    let (number, suffix) = s.split_at(number_end);
    let number: f64 = number.parse().ok()?;
    let scale = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        exponent => {
            let e = exponent.strip_prefix(['e', 'E'])?;
            10f64.powi(e.parse().ok()?)
        }
    };
    Some(number * scale)
}

/// `a.Cmp(b)` of two quantity strings (strings that are no quantity count as 0).
pub(super) fn cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (value(a).unwrap_or(0.0), value(b).unwrap_or(0.0));
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

/// A quantity of a JSON value: a string, or a number as Go's decoder accepts one.
pub(super) fn text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_compare_by_value() {
        assert_eq!(cmp("2", "1"), Ordering::Greater);
        assert_eq!(cmp("1000m", "1"), Ordering::Equal);
        assert_eq!(cmp("1Gi", "1G"), Ordering::Greater);
        assert_eq!(cmp("1Mi", "1Gi"), Ordering::Less);
        assert_eq!(value("-1"), Some(-1.0));
        assert_eq!(value("1e3"), Some(1000.0));
        assert_eq!(value("abc"), None);
    }
}
