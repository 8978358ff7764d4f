//! What a conversion webhook tells the apiserver when it cannot convert an object: the
//! [`ConversionError`] a converter returns, and the wording of the review's failure message,
//! which the apiserver shows after `conversion webhook for <group/version>, Kind=<kind>
//! failed: `. `kubegen::webhook` answers with it, and the in-memory server words its conversion
//! failures the same way, so both servers show the same message.

use super::ConvertError;

/// Why a converter could not convert an object (see `kubegen::webhook::Converter`).
#[derive(Debug, thiserror::Error)]
pub enum ConversionError {
    /// The object's or the desired `apiVersion` is not one the converter knows.
    #[error("unknown version {api_version}")]
    UnknownVersion {
        /// The `group/version` the converter does not know.
        api_version: String,
    },
    /// The object does not have the shape of its version.
    #[error("malformed object: {0}")]
    Malformed(String),
    /// The object cannot be represented at the desired version.
    #[error("{0}")]
    Failed(String),
}

impl From<ConvertError> for ConversionError {
    /// How the generated conversions' errors reach a webhook's answer.
    fn from(error: ConvertError) -> Self {
        match error {
            ConvertError::UnknownVersion { api_version, .. } => {
                ConversionError::UnknownVersion { api_version }
            }
            malformed @ (ConvertError::Decode { .. } | ConvertError::MissingTypeMeta(_)) => {
                ConversionError::Malformed(malformed.to_string())
            }
            other => ConversionError::Failed(other.to_string()),
        }
    }
}

/// The failure message of a review whose object `index` (of `kind`, at `from`) a converter
/// could not convert to `desired`.
#[doc(hidden)] // for the in-memory server
pub fn failure_message(
    index: usize,
    desired: &str,
    kind: &str,
    from: &str,
    error: &ConversionError,
) -> String {
    review_failure(index, desired, &format!("{kind} {from}: {error}"))
}

/// The failure message of a review whose object `index` could not be converted to
/// `desired`, for `cause`.
#[doc(hidden)] // for the in-memory server
pub fn review_failure(index: usize, desired: &str, cause: &str) -> String {
    format!("converting object {index} to {desired}: {cause}")
}
