//! What the server answers for: converters per group and kind, admission handlers per
//! resource, and the paths the webhook configurations name.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use either::Either;

use super::admission::{Mutator, Validator};
use super::convert::Converter;
use crate::webhook_paths::CORE_GROUP_SEGMENT;
pub use crate::webhook_paths::{AdmissionType, WebhookKind, admission_path, webhook_name};

/// Reads an admission path back: `None` for any other path.
pub(super) fn parse_admission_path(path: &str) -> Option<(AdmissionType, WebhookKind)> {
    let mut segments = path.strip_prefix('/')?.split('/');
    let admission = match segments.next()? {
        "mutate" => AdmissionType::Mutating,
        "validate" => AdmissionType::Validating,
        _ => return None,
    };
    let (group, version, plural) = (segments.next()?, segments.next()?, segments.next()?);
    if segments.next().is_some() || [group, version, plural].iter().any(|s| s.is_empty()) {
        return None;
    }
    let group = if group == CORE_GROUP_SEGMENT {
        ""
    } else {
        group
    };
    Some((admission, WebhookKind::new(group, version, plural)))
}

/// The handlers a [`WebhookServer`](super::WebhookServer) serves: a converter per group and
/// kind, and a mutator and a validator per resource.
#[derive(Clone, Default)]
pub struct Webhooks {
    converters: HashMap<(String, String), Arc<dyn Converter>>,
    mutators: HashMap<WebhookKind, Arc<dyn Mutator>>,
    validators: HashMap<WebhookKind, Arc<dyn Validator>>,
}

impl Webhooks {
    /// No handlers yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Converts objects of `kind` in `group` between its versions (replacing an earlier
    /// converter for the same kind).
    pub fn converter(
        mut self,
        group: impl Into<String>,
        kind: impl Into<String>,
        converter: impl Converter,
    ) -> Self {
        self.converters
            .insert((group.into(), kind.into()), Arc::new(converter));
        self
    }

    /// Mutates `kind`'s objects on [`admission_path`]`(Mutating, kind)`.
    pub fn mutator(mut self, kind: WebhookKind, mutator: impl Mutator) -> Self {
        self.mutators.insert(kind, Arc::new(mutator));
        self
    }

    /// Validates `kind`'s objects on [`admission_path`]`(Validating, kind)`.
    pub fn validator(mut self, kind: WebhookKind, validator: impl Validator) -> Self {
        self.validators.insert(kind, Arc::new(validator));
        self
    }

    /// The registered paths, sorted: `/convert` when there is a converter, then every
    /// admission path.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self
            .mutators
            .keys()
            .map(|k| admission_path(AdmissionType::Mutating, k))
            .chain(
                self.validators
                    .keys()
                    .map(|k| admission_path(AdmissionType::Validating, k)),
            )
            .collect();
        paths.sort();
        if !self.converters.is_empty() {
            paths.insert(0, super::CONVERT_PATH.to_owned());
        }
        paths
    }

    pub(super) fn converter_for(&self, group: &str, kind: &str) -> Option<&Arc<dyn Converter>> {
        self.converters.get(&(group.to_owned(), kind.to_owned()))
    }

    pub(super) fn mutator_for(&self, kind: &WebhookKind) -> Option<&Arc<dyn Mutator>> {
        self.mutators.get(kind)
    }

    pub(super) fn validator_for(&self, kind: &WebhookKind) -> Option<&Arc<dyn Validator>> {
        self.validators.get(kind)
    }

    /// The resources with a handler of type `admission`.
    pub(super) fn admission_kinds(
        &self,
        admission: AdmissionType,
    ) -> impl Iterator<Item = &WebhookKind> {
        match admission {
            AdmissionType::Mutating => Either::Left(self.mutators.keys()),
            AdmissionType::Validating => Either::Right(self.validators.keys()),
        }
    }
}

impl fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Webhooks")
            .field("paths", &self.paths())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admission_paths_read_back() {
        for (group, segment) in [("example.com", "example.com"), ("", "core")] {
            let kind = WebhookKind::new(group, "v1", "widgets");
            let path = admission_path(AdmissionType::Validating, &kind);
            assert_eq!(path, format!("/validate/{segment}/v1/widgets"));
            assert_eq!(
                parse_admission_path(&path),
                Some((AdmissionType::Validating, kind))
            );
        }
        for bad in [
            "/mutate/a/v1",
            "/mutate/a/v1/x/y",
            "/other/a/v1/x",
            "/mutate//v1/x",
            "mutate/a/v1/x",
        ] {
            assert_eq!(parse_admission_path(bad), None, "{bad}");
        }
    }
}
