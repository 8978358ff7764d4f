//! List continue tokens in the apiserver's format: base64 (URL alphabet, unpadded) of
//! `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>"}`, where the key is the first one of the
//! next page, relative to the list's prefix. Decoding errors are worded as the apiserver's.

use base64::Engine as _;
use base64::alphabet::URL_SAFE;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::Value;

use kubegen_go::json as gojson;

const INVALID: &str = "continue key is not valid";

/// Go's `base64.RawURLEncoding`: no padding, and stray trailing bits ignored.
const RAW_URL: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true),
);

/// The token for a page starting at `start`, listed at resourceVersion `rv`.
pub(super) fn encode(rv: u64, start: &str) -> String {
    // Field order as Go's encoding/json writes the apiserver's struct.
    let json = format!(
        r#"{{"v":"meta.k8s.io/v1","rv":{rv},"start":{}}}"#,
        Value::String(start.to_owned())
    );
    RAW_URL.encode(json)
}

/// The start key a token names, or the apiserver's reason for refusing it.
pub(super) fn decode(token: &str) -> Result<String, String> {
    let bytes = RAW_URL.decode(token).map_err(|e| {
        let at = match e {
            base64::DecodeError::InvalidByte(at, _)
            | base64::DecodeError::InvalidLastSymbol { offset: at, .. }
            | base64::DecodeError::InvalidLength(at) => at,
            base64::DecodeError::InvalidPadding => token.len(),
        };
        format!("{INVALID}: illegal base64 data at input byte {at}")
    })?;
    let token: Value = gojson::decode(&bytes, &[])
        .map_err(|e| format!("{INVALID}: {e}"))?
        .value
        .map_err(|e| format!("{INVALID}: {e}"))?;
    if !token.is_object() {
        return Err(format!(
            "{INVALID}: json: cannot unmarshal {} into Go value of type storage.continueToken",
            gojson::type_name(&token)
        ));
    }
    match token["v"].as_str().unwrap_or("") {
        "meta.k8s.io/v1" => {}
        other => {
            return Err(format!(
                "{INVALID}: server does not recognize this encoded version {other}"
            ));
        }
    }
    if token["rv"].as_i64().unwrap_or(0) == 0 {
        return Err(format!(
            "{INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        ));
    }
    match token["start"].as_str() {
        Some(start) if !start.is_empty() => Ok(start.trim_start_matches('/').to_owned()),
        _ => Err(format!(
            "{INVALID}: encoded start key empty (version meta.k8s.io/v1)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_garbage_is_refused_as_the_apiserver_does() {
        let token = encode(42, "b\u{0}");
        assert_eq!(decode(&token).unwrap(), "b\u{0}");
        // Observed on kube-apiserver v1.36.2 for `continue=nonsense`.
        assert_eq!(
            decode("nonsense").unwrap_err(),
            "continue key is not valid: invalid character '\\u009e' looking for beginning of value"
        );
        assert!(
            decode("a!")
                .unwrap_err()
                .contains("illegal base64 data at input byte 1")
        );
    }
}
