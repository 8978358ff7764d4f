//! ServiceAccount tokens: the TokenRequest subresource (`serviceaccounts/<name>/token`)
//! issues them, a TokenReview reads them back as the apiserver's ServiceAccount token
//! authenticator does (`pkg/serviceaccount`, `pkg/registry/authentication/tokenreview`).
//!
//! A real token is a signed JWT; here it is an opaque random string the server remembers.
//! Either authenticates as `system:serviceaccount:NS:NAME` with the groups
//! `system:serviceaccounts`, `system:serviceaccounts:NS` and `system:authenticated`, for the
//! audiences it was issued for, until it expires or its ServiceAccount is deleted.

use base64::Engine as _;
use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use super::State;
use crate::status::ApiError;
use kubegen_runtime::validation::{BadValue, FieldError};

/// The apiserver's own audience (`--api-audiences`, by default its issuer), which a token
/// requested without audiences gets and a review without audiences asks for.
pub(super) const API_AUDIENCE: &str = "https://kubernetes.default.svc";

/// `TokenRequestSpec.expirationSeconds`' default.
const DEFAULT_EXPIRATION_SECONDS: i64 = 3600;
/// The shortest lifetime a token may be requested for: ten minutes.
const MIN_EXPIRATION_SECONDS: i64 = 600;
/// The longest: 2^32 seconds.
const MAX_EXPIRATION_SECONDS: i64 = 1 << 32;

/// What the server remembers of a token it issued.
#[derive(Clone, Debug)]
pub(crate) struct IssuedToken {
    namespace: String,
    name: String,
    /// The ServiceAccount's uid: a token outlives neither its account nor a new one of the
    /// same name.
    uid: String,
    /// The token's id, in the reviewed user's `authentication.kubernetes.io/credential-id`.
    jti: String,
    audiences: Vec<String>,
    expires: Timestamp,
}

impl State {
    /// Creates a TokenRequest for ServiceAccount `namespace/name`: the request `body` with
    /// its spec defaulted and the token in its status.
    pub(crate) fn request_token(
        &mut self,
        namespace: &str,
        name: &str,
        body: Value,
    ) -> Result<Value, ApiError> {
        let Some(account) = self.stored_object("", "serviceaccounts", namespace, name) else {
            return Err(ApiError::not_found("", "serviceaccounts", name));
        };
        let spec = &body["spec"];
        let seconds = spec["expirationSeconds"]
            .as_i64()
            .unwrap_or(DEFAULT_EXPIRATION_SECONDS);
        let too = |detail: &str| {
            ApiError::invalid(
                "authentication.k8s.io",
                "TokenRequest",
                "",
                &[FieldError::invalid(
                    "spec.expirationSeconds",
                    BadValue::Int(seconds),
                    detail,
                )],
            )
        };
        if seconds < MIN_EXPIRATION_SECONDS {
            return Err(too("may not specify a duration less than 10 minutes"));
        }
        if seconds > MAX_EXPIRATION_SECONDS {
            return Err(too("may not specify a duration larger than 2^32 seconds"));
        }
        let audiences: Vec<String> = match strings(&spec["audiences"]) {
            requested if requested.is_empty() => vec![API_AUDIENCE.to_owned()],
            requested => requested,
        };
        let now = self.clock.now();
        let expires = now
            .checked_add(SignedDuration::from_secs(seconds))
            .map_err(|e| ApiError::internal(e.to_string()))?;
        self.sequence += 1;
        let uid = account["metadata"]["uid"].as_str().unwrap_or("").to_owned();
        let issued = IssuedToken {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            uid: uid.clone(),
            jti: format!("00000000-0000-4000-9000-{:012x}", self.sequence),
            audiences: audiences.clone(),
            expires,
        };
        let token = random_token()?;
        self.tokens.insert(token.clone(), issued);
        let time = |t: Timestamp| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        Ok(json!({
            "kind": "TokenRequest",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": uid,
                "creationTimestamp": time(now),
            },
            "spec": {
                "audiences": audiences,
                "expirationSeconds": seconds,
                "boundObjectRef": spec.get("boundObjectRef").cloned().unwrap_or(Value::Null),
            },
            "status": {"token": token, "expirationTimestamp": time(expires)},
        }))
    }

    /// Answers a TokenReview: `body` with its status, authenticated or not.
    pub(crate) fn review_token(&self, mut body: Value) -> Result<Value, ApiError> {
        let token = body["spec"]["token"].as_str().unwrap_or("");
        if token.is_empty() {
            return Err(ApiError::bad_request(
                "token is required for TokenReview in authentication",
            ));
        }
        let wanted = match strings(&body["spec"]["audiences"]) {
            wanted if wanted.is_empty() => vec![API_AUDIENCE.to_owned()],
            wanted => wanted,
        };
        let status = match self.authenticate(token) {
            None => json!({"user": {}, "error": "invalid bearer token"}),
            Some(issued) => {
                let audiences: Vec<&String> = wanted
                    .iter()
                    .filter(|a| issued.audiences.contains(a))
                    .collect();
                if audiences.is_empty() {
                    let error = format!(
                        "[invalid bearer token, token audiences {} is invalid for the target audiences {}]",
                        go_quoted(&issued.audiences),
                        go_quoted(&wanted)
                    );
                    json!({"user": {}, "error": error})
                } else {
                    let ns = &issued.namespace;
                    json!({
                        "authenticated": true,
                        "user": {
                            "username": format!("system:serviceaccount:{ns}:{}", issued.name),
                            "uid": issued.uid,
                            "groups": [
                                "system:serviceaccounts",
                                format!("system:serviceaccounts:{ns}"),
                                "system:authenticated",
                            ],
                            "extra": {
                                "authentication.kubernetes.io/credential-id":
                                    [format!("JTI={}", issued.jti)],
                            },
                        },
                        "audiences": audiences,
                    })
                }
            }
        };
        if let Some(object) = body.as_object_mut() {
            object.entry("metadata").or_insert_with(|| json!({}));
            object.insert("status".into(), status);
        }
        Ok(body)
    }

    /// The token's record while it is valid: issued here, not expired, its ServiceAccount
    /// still the one it was issued for.
    fn authenticate(&self, token: &str) -> Option<&IssuedToken> {
        let issued = self.tokens.get(token)?;
        if issued.expires <= self.clock.now() {
            return None;
        }
        let account = self.stored_object("", "serviceaccounts", &issued.namespace, &issued.name)?;
        (account["metadata"]["uid"].as_str() == Some(issued.uid.as_str())).then_some(issued)
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// A list as Go's `%q` prints a `[]string`: `["a" "b"]`.
fn go_quoted(list: &[String]) -> String {
    let quoted: Vec<String> = list
        .iter()
        .map(|s| kubegen_core::go_print::quote(s))
        .collect();
    format!("[{}]", quoted.join(" "))
}

/// 32 random bytes, URL-safe base64: as hard to guess as a signed token.
fn random_token() -> Result<String, ApiError> {
    let mut bytes = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .map_err(|_| ApiError::internal("no randomness for a token"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}
