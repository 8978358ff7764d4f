//! Objects decoded as the apiserver decodes a custom resource's create or update body, with
//! its errors: the bytes read as Go reads them (kubegen-go's `json` and `yaml`: syntax errors,
//! depth, U+FFFD for what is not text, numbers, duplicate keys, YAML 1.1), the body's
//! `apiVersion` and `kind`, `metadata` through Go's `ObjectMeta`, fields the schema does not
//! declare pruned (reported by `fieldValidation` as warnings or refused), embedded resources'
//! identity and metadata. The in-memory server decodes its request bodies here, and
//! [`validate_json`](crate::validation::validate_json) the objects it is given.

#[doc(hidden)]
pub mod coerce;
#[doc(hidden)]
pub mod gotime;
mod objectmeta;

use kubegen_go::json as gojson;
use kubegen_go::yaml;
use serde_json::Value;

use super::{BadValue, FieldError};
use crate::go_print;

#[doc(hidden)]
pub use coerce::{coerce, prune_unreported as prune};

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
pub fn strict_errors(duplicates: &[String], unknown: &[String]) -> Vec<String> {
    duplicates
        .iter()
        .map(|p| format!("duplicate field {}", go_print::quote(p)))
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
        Some(b'{') => format!("{}{more}", gojson::lossy(shown)),
        Some(_) => {
            let hex: String = shown.iter().map(|b| format!("{b:02x}")).collect();
            format!("{hex}{more}")
        }
    }
}

/// The message of a body that is no object of kind `kind`, `why` saying what is wrong.
pub fn unrecognized(kind: &str, data: &[u8], why: &str) -> String {
    format!(
        "the object provided is unrecognized (must be of type {kind}): {why} ({})",
        summarize(data)
    )
}

/// The Go type the apiserver first decodes a body into, to find its apiVersion and kind.
pub const TYPE_META: &str = r#"struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }"#;

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
                    gojson::lossy(data)
                ));
            }
            Ok(())
        }
        Value::Null => Err(format!(
            "Object 'Kind' is missing in '{}'",
            gojson::lossy(data)
        )),
        other => Err(format!(
            "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go value of type {TYPE_META}",
            gojson::type_name(other)
        )),
    }
}

/// A create or update body read into an object, before coercion.
#[doc(hidden)] // for the in-memory server
pub struct Parsed {
    /// The object (past [`type_meta`]).
    pub object: Value,
    /// The paths of keys the body repeats.
    pub duplicates: Vec<String>,
}

/// Why a create or update body is no object: the apiserver's decoder errors, before the
/// request's kind is known to the message.
#[doc(hidden)] // for the in-memory server
pub enum Unreadable {
    /// `the object provided is unrecognized (must be of type <Kind>): <why> (<summary>)`.
    Unrecognized(String),
    /// `<kind> in version "<version>" cannot be handled as a <Kind>: <why>`: the body named its
    /// kind and version (or they default to the request's), but its object does not decode.
    Undecodable {
        kind: Option<String>,
        version: Option<String>,
        why: String,
    },
}

impl Unreadable {
    /// The message for a request for kind `kind` served at `api_version`, `data` as sent.
    #[doc(hidden)] // for the in-memory server
    pub fn message(&self, kind: &str, api_version: &str, data: &[u8]) -> String {
        match self {
            Unreadable::Unrecognized(why) => unrecognized(kind, data, why),
            Unreadable::Undecodable {
                kind: body_kind,
                version,
                why,
            } => {
                let served = api_version.rsplit_once('/').map_or(api_version, |(_, v)| v);
                format!(
                    "{} in version {} cannot be handled as a {kind}: {why}",
                    body_kind.as_deref().unwrap_or(kind),
                    go_print::quote(version.as_deref().unwrap_or(served))
                )
            }
        }
    }
}

/// A JSON create or update body as the apiserver's serializer reads it: Go's
/// `encoding/json` finds its `apiVersion` and `kind` (keys matched case-insensitively), then
/// sigs.k8s.io/json reads the object (keys exact, integers kept, duplicates noted).
/// `original` is the body as sent (it differs for a YAML body converted to JSON).
#[doc(hidden)] // for the in-memory server
pub fn parse_json(data: &[u8], original: &[u8]) -> Result<Parsed, Unreadable> {
    let version_kind = |why: String| {
        Unreadable::Unrecognized(format!(
            "couldn't get version/kind; json parse error: {why}"
        ))
    };
    let decoded =
        gojson::decode(data, &["apiVersion", "kind"]).map_err(|e| version_kind(e.to_string()))?;
    let fields = decoded.fields.map_err(|e| version_kind(e.to_string()))?;
    let (api_version, body_kind) = (&fields[0], &fields[1]);
    // schema.ParseGroupVersion: at most one `/`.
    if api_version.matches('/').count() > 1 && api_version != "/" {
        return Err(Unreadable::Unrecognized(format!(
            "unexpected GroupVersion string: {api_version}"
        )));
    }
    let object = decoded.value.map_err(|e| Unreadable::Undecodable {
        kind: Some(body_kind.clone()).filter(|k| !k.is_empty()),
        version: api_version
            .rsplit_once('/')
            .map_or(Some(api_version.as_str()), |(_, v)| Some(v))
            .filter(|v| !v.is_empty())
            .map(str::to_owned),
        why: e.to_string(),
    })?;
    if let Err(why) = type_meta(&object, original) {
        gojson::dismantle(object);
        return Err(Unreadable::Unrecognized(why));
    }
    Ok(Parsed {
        object,
        duplicates: decoded.duplicates,
    })
}

/// What the apiserver's decoder refuses in a patched object before its schema is applied
/// (read from `doc` as Go writes it, as [`parse_json`] reads a body): an apiVersion or kind
/// that is no string, an apiVersion with more than one `/`, no kind.
#[doc(hidden)] // for the in-memory server
pub fn patched_type_meta(doc: &Value) -> Result<(), String> {
    match plainly_typed(doc) {
        true => Ok(()),
        false => type_meta_read_back(doc),
    }
}

/// [`patched_type_meta`] the long way: `doc` written with Go's encoder and read back.
fn type_meta_read_back(doc: &Value) -> Result<(), String> {
    let json = gojson::to_vec(doc);
    match parse_json(&json, &json) {
        Ok(parsed) => {
            gojson::dismantle(parsed.object);
            Ok(())
        }
        Err(Unreadable::Unrecognized(why) | Unreadable::Undecodable { why, .. }) => Err(why),
    }
}

/// Whether `doc` is an object that Go's decoders plainly read, so that writing it out and
/// reading it back ([`patched_type_meta`]'s long way) could find nothing wrong: a string
/// `apiVersion` with at most one `/`, a non-empty string `kind`, no other key that Go's
/// case-insensitive matching could take for either (only ASCII keys are judged here), and no
/// nesting near the decoder's depth limit.
fn plainly_typed(doc: &Value) -> bool {
    let Value::Object(m) = doc else {
        return false;
    };
    let lookalike = |k: &str| {
        !k.is_ascii()
            || (k != "apiVersion" && k.eq_ignore_ascii_case("apiVersion"))
            || (k != "kind" && k.eq_ignore_ascii_case("kind"))
    };
    let api_version = m.get("apiVersion").and_then(Value::as_str);
    let kind = m.get("kind").and_then(Value::as_str);
    api_version.is_some_and(|v| v.matches('/').count() <= 1)
        && kind.is_some_and(|k| !k.is_empty())
        && !m.keys().any(|k| lookalike(k))
        && within_depth(doc, gojson::MAX_DEPTH / 2)
}

/// Whether `value` nests less than `limit` levels deep (walked without recursion).
fn within_depth(value: &Value, limit: usize) -> bool {
    let mut pending = vec![(value, 0)];
    while let Some((value, depth)) = pending.pop() {
        let children: &mut dyn Iterator<Item = &Value> = match value {
            Value::Object(m) => &mut m.values(),
            Value::Array(a) => &mut a.iter(),
            _ => continue,
        };
        if depth >= limit {
            return false;
        }
        pending.extend(children.map(|c| (c, depth + 1)));
    }
    true
}

/// A YAML create or update body (`application/yaml`): converted to JSON as
/// sigs.k8s.io/yaml's `YAMLToJSON` does (go-yaml v2, the first document only), whose errors
/// are returned as they are, then read as JSON.
#[doc(hidden)] // for the in-memory server
pub fn parse_yaml(data: &[u8]) -> Result<Parsed, Unreadable> {
    let document = yaml::unmarshal(data).map_err(|e| Unreadable::Unrecognized(e.to_string()))?;
    let json = gojson::to_vec(&document.value);
    gojson::dismantle(document.value);
    parse_json(&json, data)
}

/// A server-side apply body as the apiserver reads it (`yaml.Unmarshal` into a map: go-yaml
/// v2, converted to JSON, decoded into `map[string]interface{}`): the object (`null` for an
/// empty body) and what strict decoding reports of duplicate keys (`line 7: key "s" already
/// set in map`). The error is the message of the apiserver's `400 BadRequest`.
#[doc(hidden)] // for the in-memory server
pub fn parse_apply(data: &[u8]) -> Result<(Value, Vec<String>), String> {
    let document = yaml::unmarshal(data)
        .map_err(|e| format!("error decoding YAML: error converting YAML to JSON: {e}"))?;
    let unmarshaling = |why: String| {
        format!("error decoding YAML: error unmarshaling JSON: while decoding JSON: {why}")
    };
    // Past the JSON decoder's depth, Go's scanner refuses the converted JSON.
    if document.depth > gojson::MAX_DEPTH {
        let json = gojson::to_vec(&document.value);
        gojson::dismantle(document.value);
        let why = gojson::decode(&json, &[])
            .err()
            .map_or_else(|| "exceeded max depth".to_owned(), |e| e.to_string());
        return Err(unmarshaling(why));
    }
    match document.value {
        Value::Object(_) | Value::Null => Ok((document.value, document.duplicates)),
        other => Err(unmarshaling(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            gojson::type_name(&other)
        ))),
    }
}

/// What the apiserver does with the duplicate keys of an apply body once the apply
/// succeeded: with `Strict` the `400 BadRequest` message, with `Warn` one warning each.
#[doc(hidden)] // for the in-memory server
pub fn apply_duplicates(
    duplicates: &[String],
    directive: FieldValidation,
) -> Result<Vec<String>, String> {
    match (directive, yaml::strict_error(duplicates)) {
        (_, None) | (FieldValidation::Ignore, _) => Ok(Vec::new()),
        (FieldValidation::Strict, Some(e)) => Err(format!(
            "error strict decoding YAML: error converting YAML to JSON: {e}"
        )),
        (FieldValidation::Warn, Some(_)) => Ok(duplicates.to_vec()),
    }
}

/// The schema coercion of a decoded object (a body, or a patched object) for a request of
/// kind `kind` served at `api_version`: the apiserver prunes only objects of its own group
/// and kind, with the schema of the version they name (`schema` gives it; with none, every
/// field but apiVersion, kind and metadata is unknown). Returns the unknown fields.
pub fn coerce_as_named<'s>(
    object: &mut Value,
    kind: &str,
    api_version: &str,
    schema: impl Fn(&str) -> Option<&'s Value>,
) -> Result<Vec<String>, String> {
    // Without an apiVersion the object names no group: it is not the kind's, and its
    // unknown fields go unreported (observed on kube-apiserver v1.36.2).
    let named = object["apiVersion"].as_str().unwrap_or("");
    let (group, version) = named.rsplit_once('/').unwrap_or(("", named));
    let own_kind = object["kind"].as_str().unwrap_or(kind) == kind
        && group == api_version.rsplit_once('/').map_or("", |g| g.0);
    match own_kind {
        true => coerce(schema(version), object),
        false => coerce::coerce_metadata(object),
    }
}

/// A create or update body for a resource of kind `kind` (served at `api_version`), already
/// parsed and past `type_meta`, decoded and coerced with `schema` — the schema of the
/// version the body names, `None` when no served version has that name. `duplicates` are
/// the duplicate fields the raw body had. Returns the object and the warnings to send; the
/// error is the message of the apiserver's `400 BadRequest`.
pub fn body<'s>(
    mut object: Value,
    kind: &str,
    api_version: &str,
    schema: impl Fn(&str) -> Option<&'s Value>,
    duplicates: &[String],
    directive: FieldValidation,
) -> Result<(Value, Vec<String>), String> {
    let body_kind = object["kind"].as_str().unwrap_or(kind).to_owned();
    // The schema coercer reads `apiVersion` as a string; `null` is no string.
    if let Some(v) = object.get("apiVersion").filter(|v| !v.is_string()) {
        return Err(format!(
            "{body_kind} in version \"\" cannot be handled as a {kind}: .apiVersion accessor error: {} is of the type {}, expected string",
            go_print::print(v),
            go_print::type_name(v)
        ));
    }
    let body_api_version = object["apiVersion"]
        .as_str()
        .unwrap_or(api_version)
        .to_owned();
    let version = body_api_version
        .rsplit_once('/')
        .map_or(body_api_version.as_str(), |(_, v)| v);
    let cannot = |why: String| {
        format!(
            "{body_kind} in version {} cannot be handled as a {kind}: {why}",
            go_print::quote(version)
        )
    };
    let unknown = coerce_as_named(&mut object, kind, api_version, schema).map_err(cannot)?;
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

    /// The short way to a patched object's type meta never passes what writing it out and
    /// reading it back refuses, and it leaves every doubtful object to the long way.
    #[test]
    fn a_patched_objects_type_meta_is_read_the_short_way_only_when_plain() {
        // Values nested thousands deep are written, read and dropped recursively.
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn(type_meta_ways)
            .expect("a thread")
            .join()
            .expect("no failure");
    }

    fn type_meta_ways() {
        let nested = |depth: usize| {
            let mut v = serde_json::json!(1);
            for _ in 0..depth {
                v = serde_json::json!([v]);
            }
            serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "data": v})
        };
        let plain = [
            serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {}}),
            serde_json::json!({"apiVersion": "", "kind": "Pod"}),
            nested(100),
        ];
        for doc in &plain {
            assert!(plainly_typed(doc), "{doc}");
            assert_eq!(type_meta_read_back(doc), Ok(()), "{doc}");
        }
        let doubtful = [
            serde_json::json!({"apiVersion": "a/b/c", "kind": "Pod"}),
            serde_json::json!({"apiVersion": "v1", "kind": ""}),
            serde_json::json!({"apiVersion": "v1"}),
            serde_json::json!({"kind": "Pod"}),
            serde_json::json!({"apiVersion": 1, "kind": "Pod"}),
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "KIND": 2}),
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "apiversion": "x/y/z"}),
            // The Kelvin sign folds to `k` in Go's case-insensitive matching.
            serde_json::json!({"apiVersion": "v1", "kind": "Pod", "\u{212a}ind": ""}),
            serde_json::json!([]),
            nested(gojson::MAX_DEPTH / 2),
            nested(gojson::MAX_DEPTH + 1),
        ];
        for doc in &doubtful {
            assert!(!plainly_typed(doc), "{doc}");
            assert_eq!(patched_type_meta(doc), type_meta_read_back(doc), "{doc}");
        }
        for refused in [
            &doubtful[0],
            &doubtful[1],
            &doubtful[5],
            &doubtful[6],
            &doubtful[10],
        ] {
            assert!(patched_type_meta(refused).is_err(), "{refused}");
        }
    }
}
