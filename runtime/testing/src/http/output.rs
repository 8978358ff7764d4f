//! Responses in the media type the client accepts: JSON (indented when asked), YAML, and
//! objects transformed to `PartialObjectMetadata`; errors negotiated as the apiserver's
//! error writer negotiates them.

use std::sync::Arc;

use bytes::Bytes;
use http::{Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use serde_json::{Map, Value, json};

use super::ResponseBody;
use super::media::{self, Convert, Encoding, Endpoint};
use super::query::Query;
use crate::state::event_line;
use crate::status::ApiError;

/// How a request's successful answer is written.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Output {
    pub encoding: Encoding,
    pub pretty: bool,
    pub convert: Option<Convert>,
}

impl Output {
    /// The apiserver's `NegotiateOutputMediaType` for a resource's handler: 406 when
    /// nothing in `accept` is served. `pretty` is the request's own wish
    /// ([`pretty_requested`]).
    pub(super) fn negotiate(accept: &str, pretty: bool) -> Result<Output, ApiError> {
        Self::negotiate_for(accept, pretty, Endpoint::Resource)
    }

    /// [`Output::negotiate`] for `endpoint`'s restrictions (discovery has the default ones).
    pub(super) fn negotiate_for(
        accept: &str,
        pretty: bool,
        endpoint: Endpoint,
    ) -> Result<Output, ApiError> {
        let n = media::negotiate(accept, endpoint).ok_or_else(|| media::not_acceptable(false))?;
        Ok(Output {
            encoding: n.encoding,
            pretty: n.encoding == Encoding::Json && (n.pretty || pretty),
            convert: n.convert,
        })
    }

    /// `value` with `code`, transformed as asked.
    pub(super) fn write(&self, code: u16, value: impl Into<Arc<Value>>) -> Response<ResponseBody> {
        let value: Arc<Value> = value.into();
        let value = match &self.convert {
            Some(convert) => match transform(Arc::unwrap_or_clone(value), convert) {
                Ok(v) => Arc::new(v),
                Err(e) => return self.error(&e),
            },
            None => value,
        };
        match self.encoding {
            Encoding::Yaml => encoded(code, "application/yaml", yaml(&value).into_bytes()),
            // Protobuf is not rendered here: JSON instead.
            Encoding::Json | Encoding::Protobuf => {
                encoded(code, "application/json", json(&value, self.pretty))
            }
        }
    }

    fn error(&self, e: &ApiError) -> Response<ResponseBody> {
        Output {
            convert: None,
            ..self.clone()
        }
        .write(e.code, e.to_status())
    }

    /// Applies the transformation asked for to one watch event's object.
    pub(super) fn watch_event(&self, frame: Bytes) -> Bytes {
        let Some(convert) = &self.convert else {
            return frame;
        };
        let Ok(Value::Object(mut event)) = serde_json::from_slice::<Value>(&frame) else {
            return frame;
        };
        let (Some(Value::String(event_type)), Some(object)) =
            (event.remove("type"), event.remove("object"))
        else {
            return frame;
        };
        let single = Convert {
            kind: "PartialObjectMetadata".into(),
            api_version: convert.api_version.clone(),
        };
        match transform(object, &single) {
            Ok(object) => event_line(&event_type, &object),
            Err(_) => frame,
        }
    }
}

/// The apiserver's `isPrettyPrint`: `?pretty=<bool>` when given and not empty, otherwise a
/// User-Agent of a browser, curl or wget.
pub(super) fn pretty_requested(raw_query: Option<&str>, query: &Query, user_agent: &str) -> bool {
    if raw_query.is_some_and(|q| q.contains("pretty"))
        && let Some(value) = query.first("pretty").filter(|v| !v.is_empty())
    {
        return matches!(value, "1" | "t" | "T" | "TRUE" | "true" | "True");
    }
    ["curl", "Wget", "Mozilla/5.0"]
        .iter()
        .any(|p| user_agent.starts_with(p))
}

/// An error as the apiserver's error writer answers it: negotiated without
/// transformations, and as indented JSON when nothing in `accept` is served.
pub(super) fn error(e: &ApiError, accept: &str, pretty: bool) -> Response<ResponseBody> {
    let status = e.to_status();
    let mut response = match media::negotiate(accept, Endpoint::Default) {
        Some(n) if n.encoding == Encoding::Yaml => {
            encoded(e.code, "application/yaml", yaml(&status).into_bytes())
        }
        // A Status in protobuf is written as JSON here.
        Some(n) => encoded(
            e.code,
            "application/json",
            json(&status, n.pretty || pretty),
        ),
        None => encoded(e.code, "application/json", json(&status, true)),
    };
    if let Some(secs) = e.retry_after
        && let Ok(v) = header::HeaderValue::from_str(&secs.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
    response
}

fn encoded(code: u16, content_type: &'static str, body: Vec<u8>) -> Response<ResponseBody> {
    Response::builder()
        .status(StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header(header::CONTENT_TYPE, content_type)
        .body(Full::new(Bytes::from(body)).boxed_unsync())
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new()).boxed_unsync()))
}

fn json(value: &Value, pretty: bool) -> Vec<u8> {
    // Go's encoder, as the apiserver's `json.Encoder`, which ends the body with a newline.
    let mut body = match pretty {
        true => serde_json::to_vec_pretty(value).unwrap_or_default(),
        false => kubegen_go::json::to_vec(value),
    };
    body.push(b'\n');
    body
}

/// YAML with sorted keys. The apiserver's is yaml.v2's emitter, whose quoting and line
/// folding this does not reproduce byte for byte.
fn yaml(value: &Value) -> String {
    serde_yaml_ng::to_string(value).unwrap_or_default()
}

/// `doTransformObject`: a `Status` as it is; an object as `PartialObjectMetadata`, a list
/// as `PartialObjectMetadataList`, with the apiserver's errors for the wrong shape.
fn transform(value: Value, convert: &Convert) -> Result<Value, ApiError> {
    if value["kind"] == "Status" {
        return Ok(value);
    }
    let is_list = value.get("items").is_some_and(Value::is_array);
    let partial = |object: &Value| {
        json!({
            "kind": "PartialObjectMetadata",
            "apiVersion": convert.api_version,
            "metadata": object.get("metadata").cloned().unwrap_or_else(|| json!({})),
        })
    };
    match convert.kind.as_str() {
        "PartialObjectMetadata" if is_list => Err(ApiError::not_acceptable_message(
            "you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)",
        )),
        "PartialObjectMetadata" => Ok(partial(&value)),
        _ if !is_list => Err(ApiError::internal("content is not a list")),
        _ => {
            // A typed ListMeta: empty fields are omitted.
            let metadata: Map<String, Value> = value["metadata"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, v)| !matches!(v, Value::String(s) if s.is_empty()) && !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let items: Vec<Value> = value["items"]
                .as_array()
                .into_iter()
                .flatten()
                .map(partial)
                .collect();
            Ok(json!({
                "kind": "PartialObjectMetadataList",
                "apiVersion": convert.api_version,
                "metadata": metadata,
                "items": items,
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_transformed_as_the_apiserver_transforms_them() {
        let convert = |kind: &str| Convert {
            kind: kind.into(),
            api_version: "meta.k8s.io/v1".into(),
        };
        let object =
            json!({"kind": "Widget", "apiVersion": "g/v1", "metadata": {"name": "a"}, "spec": {}});
        assert_eq!(
            transform(object.clone(), &convert("PartialObjectMetadata")).unwrap(),
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"name": "a"}})
        );
        let list = json!({"kind": "WidgetList", "metadata": {"resourceVersion": "5", "continue": ""}, "items": [object]});
        assert_eq!(
            transform(list.clone(), &convert("PartialObjectMetadataList")).unwrap(),
            json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "5"},
                   "items": [{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": {"name": "a"}}]})
        );
        assert_eq!(
            transform(list, &convert("PartialObjectMetadata"))
                .unwrap_err()
                .code,
            406
        );
        let e = transform(
            json!({"kind": "Widget"}),
            &convert("PartialObjectMetadataList"),
        )
        .unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (500, "content is not a list"));
    }

    #[test]
    fn pretty_printing_is_asked_for_as_the_apiserver_reads_it() {
        let q = |s: &str| Query::parse(Some(s));
        assert!(pretty_requested(Some("pretty=true"), &q("pretty=true"), ""));
        assert!(!pretty_requested(
            Some("pretty=x"),
            &q("pretty=x"),
            "curl/8"
        ));
        assert!(pretty_requested(Some("pretty="), &q("pretty="), "curl/8"));
        assert!(pretty_requested(None, &q(""), "Mozilla/5.0 (X11)"));
        assert!(!pretty_requested(None, &q(""), "kube-rs/1"));
    }
}
