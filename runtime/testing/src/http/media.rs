//! Media types, as the apiserver negotiates them for custom resources
//! (`apiserver:pkg/endpoints/handlers/negotiation`): the `Content-Type` of a create or
//! update body (Go's `mime.ParseMediaType`), of a patch (compared exactly), and the
//! `Accept` header (`github.com/munnerz/goautoneg` and `NegotiateMediaTypeOptions`).

use std::collections::BTreeMap;

use crate::status::ApiError;

/// The media types a custom resource is served in, in the apiserver's order.
const SERVED: [&str; 3] = [
    "application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
];

/// What a create, update or delete body is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BodyFormat {
    Json,
    Yaml,
}

/// The `Content-Type` of a create, update or delete body: an empty one is JSON; otherwise
/// it must parse as Go's `mime.ParseMediaType` parses it and name JSON or YAML. Protobuf,
/// which the apiserver also reads (and on which it panics without `fieldValidation=Ignore`),
/// is refused here.
pub(super) fn body_format(content_type: &str) -> Result<BodyFormat, ApiError> {
    if content_type.is_empty() {
        return Ok(BodyFormat::Json);
    }
    match parse_media_type(content_type).as_deref() {
        Some("application/json") => Ok(BodyFormat::Json),
        Some("application/yaml") => Ok(BodyFormat::Yaml),
        _ => Err(ApiError::unsupported_media_type_of(&SERVED)),
    }
}

/// What a patch's `Content-Type` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PatchType {
    Json,
    Merge,
    Apply,
    /// `application/strategic-merge-patch+json`: built-in kinds only.
    Strategic,
}

/// The patch types of a custom resource.
const PATCH_TYPES: [&str; 3] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
];

/// A patch's `Content-Type`: cut at its first `;` (unless the `;` comes first) and compared
/// exactly, case and spaces included.
pub(super) fn patch_type(content_type: &str, builtin: bool) -> Result<PatchType, ApiError> {
    let media = match content_type.find(';') {
        Some(i) if i > 0 => &content_type[..i],
        _ => content_type,
    };
    match media {
        "application/json-patch+json" => Ok(PatchType::Json),
        "application/merge-patch+json" => Ok(PatchType::Merge),
        "application/apply-patch+yaml" => Ok(PatchType::Apply),
        "application/strategic-merge-patch+json" if builtin => Ok(PatchType::Strategic),
        // A built-in kind's route refuses what it does not consume in go-restful's words.
        _ if builtin => Err(ApiError::restful_unsupported_media_type()),
        _ => Err(ApiError::unsupported_media_type_of(&PATCH_TYPES)),
    }
}

/// Go's `mime.ParseMediaType`: the lowercased media type, or `None` where Go returns an
/// error (no type, a bad token, a malformed or conflicting parameter).
pub(super) fn parse_media_type(value: &str) -> Option<String> {
    let base = value.split(';').next().unwrap_or("");
    let mut rest = &value[base.len()..];
    let media = base.to_lowercase().trim().to_owned();
    let (kind, after) = split_token(&media);
    if kind.is_empty() {
        return None;
    }
    if !after.is_empty() {
        let subtype = after.strip_prefix('/')?;
        let (sub, tail) = split_token(subtype);
        if sub.is_empty() || !tail.is_empty() {
            return None;
        }
    }
    let mut params: BTreeMap<String, String> = BTreeMap::new();
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            break;
        }
        let Some((key, value, tail)) = media_param(rest) else {
            // Trailing semicolons are allowed; anything else is a parse error.
            if rest.trim() == ";" {
                break;
            }
            return None;
        };
        if params.get(&key).is_some_and(|v| *v != value) {
            return None;
        }
        params.insert(key, value);
        rest = tail;
    }
    Some(media)
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`{|}~".contains(c)
}

fn split_token(s: &str) -> (&str, &str) {
    let end = s.find(|c| !is_token_char(c)).unwrap_or(s.len());
    s.split_at(end)
}

/// `; key=value`: the lowercased key, the value (a token or a quoted string) and the rest.
fn media_param(s: &str) -> Option<(String, String, &str)> {
    let rest = s.trim_start().strip_prefix(';')?.trim_start();
    let (key, rest) = split_token(rest);
    if key.is_empty() {
        return None;
    }
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    let (value, tail) = param_value(rest)?;
    Some((key.to_lowercase(), value, tail))
}

fn param_value(s: &str) -> Option<(String, &str)> {
    let Some(quoted) = s.strip_prefix('"') else {
        let (token, tail) = split_token(s);
        return (!token.is_empty()).then(|| (token.to_owned(), tail));
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &quoted[i + 1..])),
            '\\' if quoted[i + 1..].starts_with(|n: char| "()<>@,;:\\\"/[]?=".contains(n)) => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '\r' | '\n' => return None,
            c => value.push(c),
        }
    }
    None
}

/// A response body's encoding, from `Accept`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Encoding {
    Json,
    Yaml,
    Protobuf,
}

/// A transformation `Accept` asks for (`as=...;g=meta.k8s.io;v=...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Convert {
    pub kind: String,
    /// `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`.
    pub api_version: String,
}

/// The outcome of `Accept` negotiation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Negotiated {
    pub encoding: Encoding,
    /// `pretty=1` in the media type.
    pub pretty: bool,
    pub convert: Option<Convert>,
}

/// Who asks: a custom resource's handlers (JSON and YAML, and the PartialObjectMetadata
/// transformations), or one with the apiserver's default restrictions, the error writer and
/// discovery (any served type, no transformation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Endpoint {
    Resource,
    Default,
}

/// One clause of an `Accept` header, as goautoneg parses it.
#[derive(Clone, Debug)]
struct Clause {
    kind: String,
    subtype: String,
    q: f64,
    params: BTreeMap<String, String>,
}

/// goautoneg's `ParseAccept`: clauses split on `,` and `;`, spaces trimmed, `q` read as a
/// 32-bit float (0 when malformed), sorted by its comparison (higher `q`, then concrete
/// types before wildcards) with the insertion sort Go's `sort.Sort` uses for up to 12
/// elements (longer headers are sorted the same way).
fn parse_accept(header: &str) -> Vec<Clause> {
    let trim = |s: &str| s.trim_matches(' ').to_owned();
    let mut clauses = Vec::new();
    for part in split_all(header, ',') {
        let part = part.trim_matches(' ');
        let (range, params) = split_once_go(part, ';');
        let (kind, rest) = split_once_go(range, '/');
        let kind = trim(kind);
        let subtype = match rest {
            "" if kind == "*" => "*".to_owned(),
            "" => continue,
            rest => match split_once_go(rest, '/') {
                (sub, "") => trim(sub),
                _ => continue,
            },
        };
        let mut clause = Clause {
            kind,
            subtype,
            q: 1.0,
            params: BTreeMap::new(),
        };
        for param in split_all(params, ';') {
            let (key, rest) = split_once_go(param, '=');
            let (value, extra) = split_once_go(rest, '=');
            if rest.is_empty() || !extra.is_empty() {
                continue;
            }
            let key = trim(key);
            match key.as_str() {
                "q" => clause.q = value.parse::<f32>().map_or(0.0, f64::from),
                _ => {
                    clause.params.insert(key, trim(value));
                }
            }
        }
        clauses.push(clause);
    }
    let less = |a: &Clause, b: &Clause| {
        a.q > b.q || (a.kind != "*" && b.kind == "*") || (a.subtype != "*" && b.subtype == "*")
    };
    for i in 1..clauses.len() {
        let mut j = i;
        while j > 0 && less(&clauses[j], &clauses[j - 1]) {
            clauses.swap(j, j - 1);
            j -= 1;
        }
    }
    clauses
}

/// goautoneg's `nextSplitElement`: the text before the first `sep` and after it (`""` when
/// there is none, or nothing after it).
fn split_once_go(s: &str, sep: char) -> (&str, &str) {
    s.split_once(sep).unwrap_or((s, ""))
}

/// Every element, as goautoneg's loops over `nextSplitElement` see them: a trailing
/// separator adds no empty element.
fn split_all(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let (item, tail) = split_once_go(rest, sep);
        out.push(item);
        rest = tail;
    }
    out
}

/// `NegotiateMediaTypeOptions` with the custom resource serializers (JSON, YAML, protobuf):
/// the first clause, in goautoneg's order, whose type one of them matches and whose
/// parameters the endpoint allows. `None` is the apiserver's 406. An empty header is JSON.
/// A watch streams what this chooses, and has no YAML stream: see [`not_acceptable`].
pub(super) fn negotiate(accept: &str, endpoint: Endpoint) -> Option<Negotiated> {
    if accept.is_empty() {
        return Some(Negotiated {
            encoding: Encoding::Json,
            pretty: false,
            convert: None,
        });
    }
    for clause in parse_accept(accept) {
        for (encoding, subtype) in [
            (Encoding::Json, "json"),
            (Encoding::Yaml, "yaml"),
            (Encoding::Protobuf, "vnd.kubernetes.protobuf"),
        ] {
            let matches = (clause.kind == "application"
                && (clause.subtype == subtype || clause.subtype == "*"))
                || (clause.kind == "*" && clause.subtype == "*");
            if !matches {
                continue;
            }
            if let Some(n) = accept_options(&clause.params, encoding, endpoint) {
                return Some(n);
            }
        }
    }
    None
}

/// `acceptMediaTypeOptions`: whether the endpoint allows a clause's parameters for
/// `encoding`, and what they ask for.
fn accept_options(
    params: &BTreeMap<String, String>,
    encoding: Encoding,
    endpoint: Endpoint,
) -> Option<Negotiated> {
    let mut convert: Option<(String, String, String)> = None;
    let mut pretty = false;
    for (key, value) in params {
        match key.as_str() {
            "as" => convert.get_or_insert_with(Default::default).0 = value.clone(),
            "g" => convert.get_or_insert_with(Default::default).1 = value.clone(),
            "v" => convert.get_or_insert_with(Default::default).2 = value.clone(),
            // Only JSON and protobuf have stream serializers, and only watches stream.
            "stream" if !value.is_empty() && (encoding == Encoding::Yaml || value != "watch") => {
                return None;
            }
            "sv" if !value.is_empty() && (endpoint == Endpoint::Default || value != "v1") => {
                return None;
            }
            "pretty" => pretty = value == "1",
            _ => {}
        }
    }
    let convert = match (endpoint, convert) {
        // A resource's handlers serve JSON and YAML as themselves (protobuf only for a
        // transformation), the error writer every type and no transformation.
        (Endpoint::Resource, None) if encoding == Encoding::Protobuf => return None,
        (_, None) => None,
        (Endpoint::Default, Some(_)) => return None,
        (Endpoint::Resource, Some((kind, group, version))) => {
            let meta = group == "meta.k8s.io" && (version == "v1" || version == "v1beta1");
            // The in-memory server renders no Tables: it skips a Table clause as the
            // apiserver skips it for a resource without a table convertor.
            let allowed = matches!(
                kind.as_str(),
                "PartialObjectMetadata" | "PartialObjectMetadataList"
            );
            if !meta || !allowed {
                return None;
            }
            Some(Convert {
                kind,
                api_version: format!("{group}/{version}"),
            })
        }
    };
    Some(Negotiated {
        encoding,
        pretty,
        convert,
    })
}

/// The 406 of a request whose `Accept` no served type matches.
pub(super) fn not_acceptable(stream: bool) -> ApiError {
    match stream {
        true => ApiError::not_acceptable(&[
            "application/json;stream=watch",
            "application/vnd.kubernetes.protobuf;stream=watch",
        ]),
        false => ApiError::not_acceptable(&SERVED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_bodies_are_typed_as_go_parses_media_types() {
        // Observed on kube-apiserver v1.36.2 (POST; PUT alike).
        for json in [
            "",
            "application/json",
            "application/json; charset=utf-8",
            "application/json;charset=latin1",
            "APPLICATION/JSON",
            "application/json ; foo=bar",
            "application/json;",
            "application/json; charset=\"utf-8\"",
            "application/json\t",
            "application/json; a=1; a=1",
        ] {
            assert_eq!(body_format(json), Ok(BodyFormat::Json), "{json:?}");
        }
        for yaml in ["application/yaml", "application/yaml; charset=utf-8"] {
            assert_eq!(body_format(yaml), Ok(BodyFormat::Yaml), "{yaml:?}");
        }
        for refused in [
            "application/x-yaml",
            "text/yaml",
            "application/merge-patch+json",
            "application/cbor",
            "garbage",
            "json",
            "application/jsonx",
            "application/json/x",
            "*/*",
            "application/json, text/plain",
            "application/json; charset",
            "application/json;;",
            "application/json; a=1; a=2",
            "application/json; a=\"1",
            "application/vnd.kubernetes.protobuf",
        ] {
            let e = body_format(refused).unwrap_err();
            assert_eq!(e.code, 415, "{refused:?}");
            assert_eq!(
                e.message,
                "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"
            );
        }
    }

    #[test]
    fn media_types_parse_as_go_parses_them() {
        // Each answer is go1.27.3's mime.ParseMediaType.
        for (input, parsed) in [
            ("", None),
            (" application/json", Some("application/json")),
            ("*/*", Some("*/*")),
            ("application/json; a=\"x\\;y\"", Some("application/json")),
            ("application/json; a*=x; a*=y", None),
            ("application/json;a=;", None),
            ("application/json; a=1;", Some("application/json")),
            ("application/json; a=1 ;", Some("application/json")),
            ("application/json; a=1; ;", None),
            ("application/json; charset", None),
            ("application/json/x", None),
        ] {
            assert_eq!(parse_media_type(input).as_deref(), parsed, "{input:?}");
        }
    }

    #[test]
    fn patch_types_are_compared_exactly() {
        assert_eq!(
            patch_type("application/merge-patch+json; charset=utf-8", false),
            Ok(PatchType::Merge)
        );
        assert_eq!(
            patch_type("application/apply-patch+yaml;x", false),
            Ok(PatchType::Apply)
        );
        for refused in [
            "",
            "application/merge-patch+json ;x=y",
            "Application/Merge-Patch+Json",
            "application/apply-patch+cbor",
            ";application/merge-patch+json",
            "application/json",
        ] {
            assert_eq!(
                patch_type(refused, false).unwrap_err().code,
                415,
                "{refused:?}"
            );
        }
    }

    fn served(accept: &str) -> Option<(Encoding, bool, Option<String>)> {
        negotiate(accept, Endpoint::Resource)
            .map(|n| (n.encoding, n.pretty, n.convert.map(|c| c.kind)))
    }

    #[test]
    fn accept_is_negotiated_as_the_apiserver_negotiates_it() {
        // Observed on kube-apiserver v1.36.2 (GET of one object).
        for json in [
            "application/json",
            "*/*",
            "application/*",
            "text/plain, */*;q=0.1",
            "application/json;stream=watch",
            "*",
        ] {
            assert_eq!(served(json), Some((Encoding::Json, false, None)), "{json}");
        }
        assert_eq!(
            served("application/yaml"),
            Some((Encoding::Yaml, false, None))
        );
        assert_eq!(
            served("application/json;pretty=1"),
            Some((Encoding::Json, true, None))
        );
        assert_eq!(
            served("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"),
            Some((Encoding::Json, false, Some("PartialObjectMetadata".into())))
        );
        // Tables are skipped (kept difference): kubectl's Accept falls back to JSON.
        assert_eq!(
            served("application/json;as=Table;g=meta.k8s.io;v=v1,application/json"),
            Some((Encoding::Json, false, None))
        );
        for refused in [
            "text/plain",
            "application/cbor",
            "garbage",
            "application/json;as=Bogus;g=meta.k8s.io;v=v1",
            "application/json;as=PartialObjectMetadata",
            "application/vnd.kubernetes.protobuf",
            "application/yaml;stream=watch",
            "application/",
        ] {
            assert_eq!(served(refused), None, "{refused}");
        }
        // The error writer takes protobuf, and no transformation.
        assert!(negotiate("application/vnd.kubernetes.protobuf", Endpoint::Default).is_some());
        assert!(
            negotiate(
                "application/json;as=Table;g=meta.k8s.io;v=v1",
                Endpoint::Default
            )
            .is_none()
        );
        assert!(negotiate("application/json;sv=v1", Endpoint::Resource).is_some());
        assert!(negotiate("application/json;sv=v1", Endpoint::Default).is_none());
        assert!(negotiate("application/json;x=1=", Endpoint::Resource).is_some());
    }

    #[test]
    fn clauses_are_sorted_as_goautoneg_sorts_them() {
        let kinds: Vec<String> = parse_accept("*/*;q=0.5, text/*, application/json;q=x, a/b")
            .into_iter()
            .map(|c| format!("{}/{}", c.kind, c.subtype))
            .collect();
        // As goautoneg sorts them (checked with its code and go1.27.3).
        assert_eq!(kinds, ["a/b", "application/json", "text/*", "*/*"]);
    }
}
