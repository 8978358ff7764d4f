//! The `format` names the apiserver validates in a CRD's schema (kube-openapi's `strfmt`
//! registry as apiextensions-apiserver v1.36 uses it).
//!
//! The apiserver strips a format it does not know from a structural schema, so a typo is
//! never reported and never checked. The derive refuses such a format at compile time and the
//! runtime keeps the same ones a real apiserver keeps, from this one list. (How each string
//! format checks a value is the runtime's `validation` module.)
//!
//! ```
//! use kubegen_go::formats::{is_known, is_validated};
//!
//! assert!(is_known("date-time"));
//! assert!(is_known("int32"));
//! assert!(!is_known("datetime-local"));
//! assert!(is_validated(&["string".to_owned()], "uuid4"));
//! assert!(!is_validated(&["integer".to_owned()], "uuid4"));
//! ```

/// The string formats the apiserver validates, as schemas usually spell them. Go looks a
/// name up without its `-` ([`normalize`]), so `datetime` is `date-time` too.
pub const STRING_FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "date-time",
    "k8s-short-name",
    "k8s-long-name",
];

/// The formats that bound an integer's range.
pub const INTEGER_FORMATS: &[&str] = &["int32", "int64"];

/// The formats that bound a number's range.
pub const NUMBER_FORMATS: &[&str] = &["float", "double"];

/// A format's name as Go's registry looks it up: without `-` (`date-time` is `datetime`).
pub fn normalize(format: &str) -> String {
    format.replace('-', "")
}

/// Whether `format` is a string format the apiserver checks strings against.
pub fn is_string_format(format: &str) -> bool {
    STRING_FORMATS.iter().any(|known| same_name(known, format))
}

/// Whether two format names are one to Go's registry: equal once their `-` are dropped.
/// Validation asks for every string that has a format, so this allocates nothing.
fn same_name(a: &str, b: &str) -> bool {
    (a.bytes().filter(|&c| c != b'-')).eq(b.bytes().filter(|&c| c != b'-'))
}

/// Whether the apiserver keeps `format` on a schema node of these `types` (a node with no
/// single type reads as untyped): string formats on strings and untyped nodes, range formats
/// on integers and numbers. It strips every other format.
pub fn is_validated(types: &[String], format: &str) -> bool {
    let single = match types {
        [one] => one.as_str(),
        _ => "",
    };
    match single {
        "" | "string" => is_string_format(format),
        "integer" => INTEGER_FORMATS.contains(&format),
        "number" => NUMBER_FORMATS.contains(&format),
        _ => false,
    }
}

/// Every format the apiserver validates on a node of some type, as schemas spell them.
pub fn names() -> impl Iterator<Item = &'static str> {
    (STRING_FORMATS.iter())
        .chain(INTEGER_FORMATS)
        .chain(NUMBER_FORMATS)
        .copied()
}

/// Whether the apiserver validates `format` on a node of some type.
pub fn is_known(format: &str) -> bool {
    is_string_format(format)
        || INTEGER_FORMATS.contains(&format)
        || NUMBER_FORMATS.contains(&format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_is_kept_only_on_the_types_it_checks() {
        let string = ["string".to_owned()];
        let integer = ["integer".to_owned()];
        let number = ["number".to_owned()];
        assert!(is_validated(&string, "date-time"));
        assert!(is_validated(&string, "datetime"));
        assert!(is_validated(&string, "k8sshortname"));
        assert!(is_validated(&string, "k8s-short-name"));
        assert!(is_validated(&[], "email"));
        assert!(!is_validated(&string, "int32"));
        assert!(is_validated(&integer, "int64"));
        assert!(!is_validated(&integer, "double"));
        assert!(is_validated(&number, "float"));
        assert!(!is_validated(&number, "uuid"));
        // More than one type reads as no single type, as an untyped node does.
        assert!(is_validated(
            &[string[0].clone(), integer[0].clone()],
            "uuid"
        ));
        assert!(!is_validated(
            &[string[0].clone(), integer[0].clone()],
            "int32"
        ));
        assert!(!is_known("ipv5"));
        assert!(is_known("double"));
    }
}
