//! What a request addresses, read from its path as the apiserver reads it: the path
//! percent-decoded as Go's `net/url` decodes it (a bad escape is the HTTP server's plain
//! `400 Bad Request`), then cut into segments and read as `RequestInfoFactory` reads them
//! (`apiserver:pkg/endpoints/request/requestinfo.go`).

use kubegen_core::checks::go_url;

use super::query::Query;
pub(super) use kubegen_runtime::rbac::Verb;

/// What the path and method say about a request under `/apis/<group>/<version>/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ResourceRequest {
    pub group: String,
    pub version: String,
    /// Empty for a cluster-level URL (and for `namespaces//…`, as the apiserver reads it).
    pub namespace: String,
    pub resource: String,
    pub name: String,
    pub subresource: String,
    /// `None` for a method the apiserver has no verb for (`OPTIONS`, ...).
    pub verb: Option<Verb>,
}

/// A path with an escape Go's URL parser refuses (`%zz`, a lone `%`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct BadEscape;

/// The path's segments after percent-decoding, leading and trailing slashes trimmed and
/// empty segments kept, as the apiserver splits them: `a%2Fb` is two segments, `a//b`
/// three. Decoded bytes that are not UTF-8 become U+FFFD, as Go's JSON encoder writes them.
pub(super) fn segments(raw_path: &str) -> Result<Vec<String>, BadEscape> {
    let decoded = go_url::unescape_path(raw_path).ok_or(BadEscape)?;
    let path = String::from_utf8_lossy(&decoded);
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    Ok(trimmed.split('/').map(str::to_owned).collect())
}

/// The apiserver's reading of a path under `/api/v1/` or `/apis/`: `None` for anything that
/// is not a resource request (no resource, another prefix).
pub(super) fn resource_request(
    segments: &[String],
    method: &http::Method,
    query: &Query,
) -> Option<ResourceRequest> {
    // `/api/v1/...` is the core group's, `/apis/<group>/<version>/...` every other's.
    let empty = String::new();
    let (group, version, rest) = match segments {
        [prefix, version, rest @ ..] if prefix == "api" => (&empty, version, rest),
        [prefix, group, version, rest @ ..] if prefix == "apis" => (group, version, rest),
        _ => return None,
    };
    if rest.is_empty() {
        return None;
    }
    // `/namespaces/<ns>/<resource>/...`; a namespace's own subresources stay under the
    // `namespaces` resource.
    let mut parts = rest;
    let mut namespace = String::new();
    if parts[0] == "namespaces" && parts.len() > 1 {
        namespace = parts[1].clone();
        if parts.len() > 2 && !matches!(parts[2].as_str(), "status" | "finalize") {
            parts = &parts[2..];
        }
    }
    let part = |i: usize| parts.get(i).cloned().unwrap_or_default();
    let (resource, name, subresource) = (part(0), part(1), part(2));
    let request = |verb| ResourceRequest {
        group: group.clone(),
        version: version.clone(),
        namespace: namespace.clone(),
        resource: resource.clone(),
        name: name.clone(),
        subresource: subresource.clone(),
        verb,
    };
    let verb = Some(match *method {
        http::Method::POST => Verb::Create,
        http::Method::GET | http::Method::HEAD if name.is_empty() => match query.go_bool("watch") {
            Some(true) => Verb::Watch,
            _ => Verb::List,
        },
        http::Method::GET | http::Method::HEAD => Verb::Get,
        http::Method::PUT => Verb::Update,
        http::Method::PATCH => Verb::Patch,
        http::Method::DELETE if name.is_empty() => Verb::DeleteCollection,
        http::Method::DELETE => Verb::Delete,
        _ => return Some(request(None)),
    });
    Some(request(verb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(path: &str, method: http::Method, query: &str) -> Option<ResourceRequest> {
        let segments = segments(path).unwrap();
        resource_request(&segments, &method, &Query::parse(Some(query)))
    }

    #[test]
    fn paths_are_decoded_then_split() {
        assert_eq!(segments("/a%2Fb/c%20d/").unwrap(), ["a", "b", "c d"]);
        assert_eq!(segments("/a//b").unwrap(), ["a", "", "b"]);
        assert_eq!(segments("/a+b").unwrap(), ["a+b"]);
        assert_eq!(segments("///").unwrap(), Vec::<String>::new());
        assert_eq!(segments("/%ff").unwrap(), ["\u{fffd}"]);
        for bad in ["/a%zzb", "/a%", "/a%2", "/%g0"] {
            assert_eq!(segments(bad), Err(BadEscape), "{bad}");
        }
    }

    #[test]
    fn requests_are_read_as_the_apiserver_reads_them() {
        let r = request(
            "/apis/g/v/namespaces/ns/things/a/status/x",
            http::Method::PUT,
            "",
        )
        .unwrap();
        assert_eq!(
            (r.namespace.as_str(), r.resource.as_str(), r.name.as_str()),
            ("ns", "things", "a")
        );
        assert_eq!(
            (r.subresource.as_str(), r.verb),
            ("status", Some(Verb::Update))
        );
        let r = request("/apis/g/v/namespaces//things", http::Method::GET, "").unwrap();
        assert_eq!((r.namespace.as_str(), r.verb), ("", Some(Verb::List)));
        let r = request("/apis/g/v/things", http::Method::GET, "watch=x").unwrap();
        assert_eq!(r.verb, Some(Verb::Watch));
        let r = request("/apis/g/v/things", http::Method::GET, "watch=False").unwrap();
        assert_eq!(r.verb, Some(Verb::List));
        let r = request("/apis/g/v/things", http::Method::DELETE, "").unwrap();
        assert_eq!(r.verb, Some(Verb::DeleteCollection));
        let r = request("/apis/g/v/things/a", http::Method::OPTIONS, "").unwrap();
        assert_eq!(r.verb, None);
        let r = request("/apis/g/v/namespaces/ns/status", http::Method::GET, "").unwrap();
        assert_eq!((r.resource.as_str(), r.name.as_str()), ("namespaces", "ns"));
        assert_eq!(request("/apis/g/v", http::Method::GET, ""), None);
        let r = request("/api/v1/namespaces/ns/pods/p", http::Method::GET, "").unwrap();
        assert_eq!((r.group.as_str(), r.version.as_str()), ("", "v1"));
        assert_eq!((r.namespace.as_str(), r.resource.as_str()), ("ns", "pods"));
        assert_eq!(request("/api/v1", http::Method::GET, ""), None);
        assert_eq!(request("/apis/v1/pods", http::Method::GET, ""), None);
    }
}
