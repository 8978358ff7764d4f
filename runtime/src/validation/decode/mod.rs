//! Objects decoded as the apiserver decodes a custom resource's create or update body, with
//! its errors: the body's `apiVersion` and `kind`, `metadata` through Go's `ObjectMeta`,
//! fields the schema does not declare pruned (reported by `fieldValidation` as warnings or
//! refused), embedded resources' identity and metadata. The in-memory server decodes its
//! request bodies here, and [`validate_json`](super::validate_json) the objects it is given.

pub(crate) mod coerce;
pub(crate) mod gojson;
pub(crate) mod gotime;
mod objectmeta;

use serde_json::Value;

use super::gofmt;
use super::{BadValue, FieldError};

pub(crate) use coerce::{coerce, prune_unreported as prune};

/// `fieldValidation`: what the apiserver does with unknown and duplicate fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// Drop them silently.
    Ignore,
    /// Drop them and say so in `Warning` headers (the default).
    #[default]
    Warn,
    /// Refuse the request.
    Strict,
}

impl FieldValidation {
    /// The query parameter, checked as the apiserver checks its options: the cause of its
    /// `Invalid` answer when the value is none it knows.
    pub fn parse(value: Option<&str>) -> Result<Self, FieldError> {
        match value.unwrap_or("") {
            "" | "Warn" => Ok(FieldValidation::Warn),
            "Ignore" => Ok(FieldValidation::Ignore),
            "Strict" => Ok(FieldValidation::Strict),
            other => {
                let supported = ["", "Ignore", "Strict", "Warn"].map(String::from);
                Err(FieldError::not_supported(
                    "fieldValidation",
                    BadValue::str(other),
                    &supported,
                ))
            }
        }
    }
}

/// The strict decoder's complaints: duplicate fields, then unknown ones. A duplicate's
/// path is quoted with Go's `strconv.Quote` (sigs.k8s.io/json), an unknown field's written
/// raw between quotes (the CRD decoder's `unknown field "%s"`).
pub(crate) fn strict_errors(duplicates: &[String], unknown: &[String]) -> Vec<String> {
    duplicates
        .iter()
        .map(|p| format!("duplicate field {}", gofmt::quote(p)))
        .chain(unknown.iter().map(|p| format!("unknown field \"{p}\"")))
        .collect()
}

/// How the apiserver shows a body it could not make sense of: up to 30 bytes, as text when it
/// starts like an object, as hex otherwise.
pub(crate) fn summarize(data: &[u8]) -> String {
    const MAX: usize = 30;
    let (shown, more) = match data.len() > MAX {
        true => (&data[..MAX], " ..."),
        false => (data, ""),
    };
    match data.first() {
        None => "<empty>".to_owned(),
        Some(b'{') => format!("{}{more}", String::from_utf8_lossy(shown)),
        Some(_) => {
            let hex: String = shown.iter().map(|b| format!("{b:02x}")).collect();
            format!("{hex}{more}")
        }
    }
}

/// The message of a body that is no object of kind `kind`, `why` saying what is wrong.
pub(crate) fn unrecognized(kind: &str, data: &[u8], why: &str) -> String {
    format!(
        "the object provided is unrecognized (must be of type {kind}): {why} ({})",
        summarize(data)
    )
}

/// The Go type the apiserver first decodes a body into, to find its apiVersion and kind.
pub(crate) const TYPE_META: &str = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;

/// What the apiserver reads first from a parsed body, `data` as sent: an object with a
/// `kind`, and string `apiVersion` and `kind`. The error is why it is unrecognized.
pub(crate) fn type_meta(value: &Value, data: &[u8]) -> Result<(), String> {
    match value {
        Value::Object(m) => {
            for key in ["apiVersion", "kind"] {
                if let Some(v) = m.get(key).filter(|v| !v.is_string() && !v.is_null()) {
                    return Err(format!(
                        "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go struct field .{key} of type string",
                        gojson::type_name(v)
                    ));
                }
            }
            if m.get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .is_empty()
            {
                return Err(format!(
                    "Object 'Kind' is missing in '{}'",
                    String::from_utf8_lossy(data)
                ));
            }
            Ok(())
        }
        Value::Null => Err("Object 'Kind' is missing in 'null'".to_owned()),
        other => Err(format!(
            "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go value of type {TYPE_META}",
            gojson::type_name(other)
        )),
    }
}

/// A create or update body for a resource of kind `kind` (served at `api_version`), already
/// parsed and past [`type_meta`], decoded and coerced with `schema` — the schema of the
/// version the body names, `None` when no served version has that name. `duplicates` are
/// the duplicate fields the raw body had. Returns the object and the warnings to send; the
/// error is the message of the apiserver's `400 BadRequest`.
pub(crate) fn body<'s>(
    mut object: Value,
    kind: &str,
    api_version: &str,
    schema: impl Fn(&str) -> Option<&'s Value>,
    duplicates: &[String],
    directive: FieldValidation,
) -> Result<(Value, Vec<String>), String> {
    let body_kind = object["kind"].as_str().unwrap_or(kind).to_owned();
    let body_api_version = object["apiVersion"]
        .as_str()
        .unwrap_or(api_version)
        .to_owned();
    let (group, version) = body_api_version
        .rsplit_once('/')
        .unwrap_or(("", body_api_version.as_str()));
    let cannot = |why: String| {
        format!(
            "{body_kind} in version {} cannot be handled as a {kind}: {why}",
            gofmt::quote(version)
        )
    };
    let own_kind = body_kind == kind && Some(group) == api_version.rsplit_once('/').map(|g| g.0);
    // The apiserver prunes only objects of its own group and kind.
    let unknown = match own_kind {
        true => coerce(schema(version), &mut object),
        false => coerce::coerce_metadata(&mut object),
    }
    .map_err(cannot)?;
    let strict = strict_errors(duplicates, &unknown);
    match directive {
        FieldValidation::Strict if !strict.is_empty() => Err(cannot(format!(
            "strict decoding error: {}",
            strict.join(", ")
        ))),
        FieldValidation::Warn => Ok((object, strict)),
        _ => Ok((object, Vec::new())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_summarized_as_the_apiserver_does() {
        assert_eq!(summarize(b""), "<empty>");
        assert_eq!(summarize(b"{not json"), "{not json");
        assert_eq!(summarize(b"[1, 2]"), "5b312c20325d");
        assert_eq!(summarize(&[b'{'; 40]), format!("{} ...", "{".repeat(30)));
    }
}
