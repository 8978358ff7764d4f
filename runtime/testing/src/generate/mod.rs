//! Objects generated from a CRD schema, to property-test that a kind's Rust type decodes
//! everything its schema accepts (feature `testing`).
//!
//! A CRD's `openAPIV3Schema` is the contract the apiserver enforces: any object it accepts
//! ends up in front of informers and controllers, which decode it into the kind's Rust type.
//! When the schema is looser than the type (an untagged enum whose variants' required
//! fields were merged away, a date-time format wider than the time type parses), a valid
//! looking object breaks every client of the kind. [`Generator`] produces objects valid under
//! a schema as the apiserver judges validity, across the range it accepts (every `oneOf` and
//! `anyOf` branch, optional fields present and absent, nulls, boundary values, patterns in
//! Go's regex dialect, every format the apiserver checks, with its lenient corners), and
//! [`check_decodes`] and [`check_accepted`] turn that into one-line property tests (through
//! the `kubegen` facade, which this crate's doctests cannot use):
//!
//! ```ignore
//! use kubegen::prelude::*;
//!
//! #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
//! #[resource(group = "example.com", version = "v1", kind = "Tunnel")]
//! pub struct TunnelSpec {
//!     #[validate(minimum = 1, maximum = 65535)]
//!     pub port: u16,
//!     pub target: Option<String>,
//! }
//!
//! kubegen::testing::generate::check_decodes::<Tunnel>(200, 7).unwrap();
//! ```
//!
//! Generation is seeded: object `index` of seed `seed` is the same on every platform (a
//! ChaCha8 stream per object), so a failure names the seed and index that reproduce it.

mod check;
mod formats;
mod junctors;
mod pattern;
mod scalars;
mod value;

pub use check::{Check, Failure, Failures, Stage, check_accepted, check_decodes};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use kubegen_runtime::resource::CustomResource;

/// Why no value could be generated for a node (its constraints contradict each other, or a
/// pattern or format admits no string of the allowed length).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot generate a value at {path}: {reason}")]
pub struct GenerateError {
    /// The node's path in the object, such as `.spec.ports[0].name`.
    pub path: String,
    /// What could not be satisfied.
    pub reason: String,
}

/// Generates objects valid under one CRD version's `openAPIV3Schema`.
pub struct Generator {
    schema: Value,
    resource: Option<(String, String)>,
    patterns: value::Patterns,
}

impl Generator {
    /// A generator for objects of `schema` (a CRD version's `openAPIV3Schema`, as JSON).
    /// Objects get a random `apiVersion` and `kind` unless [`Generator::resource`] fixes them.
    pub fn new(schema: Value) -> Self {
        Generator {
            schema,
            resource: None,
            patterns: value::Patterns::default(),
        }
    }

    /// A generator for kind `K`, from the schema of its version as `K::crd()` builds it.
    pub fn for_kind<K: CustomResource>() -> Result<Self, kubegen_runtime::CrdError> {
        // Built alone, a version that is not the storage version would be refused for
        // lacking one; its schema is the same either way.
        let info = crate::ResourceInfo {
            storage: true,
            ..*K::INFO
        };
        let crd = kubegen_runtime::crd::build(&[&info])?;
        let schema = crd
            .spec
            .versions
            .iter()
            .find(|v| v.name == K::INFO.version)
            .and_then(|v| v.schema.as_ref())
            .and_then(|s| s.open_api_v3_schema.as_ref())
            .map(serde_json::to_value)
            .transpose()
            .map_err(|source| kubegen_runtime::CrdError::Schema {
                kind: K::INFO.kind.into(),
                version: K::INFO.version.into(),
                source,
            })?
            .unwrap_or_else(|| json!({"type": "object"}));
        Ok(Self::new(schema).resource(&K::INFO.api_version(), K::INFO.kind))
    }

    /// Gives every object this `apiVersion` and `kind`.
    pub fn resource(mut self, api_version: &str, kind: &str) -> Self {
        self.resource = Some((api_version.to_owned(), kind.to_owned()));
        self
    }

    /// The schema objects are generated from.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Object number `index` of the run seeded with `seed`.
    ///
    /// Every fifth object (index 0, 5, ...) has only required fields, the next one every
    /// optional field it can hold (fewer deeper down), the rest a random share.
    pub fn object(&mut self, seed: u64, index: u64) -> Result<Value, GenerateError> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(index);
        let presence = match index % 5 {
            0 => 0.0,
            1 => 1.0,
            _ => rng.random_range(0.2..0.9),
        };
        let mut walk = value::Walk {
            rng,
            patterns: &mut self.patterns,
            presence,
            nodes: 0,
        };
        // The apiserver treats the root as an embedded resource: apiVersion, kind and
        // metadata are checked as for one.
        let mut root = value::as_node(&self.schema).into_owned();
        root.insert("x-kubernetes-embedded-resource".into(), json!(true));
        let mut object = walk.node(&root, "", 0)?;
        if let Value::Object(fields) = &mut object {
            if let Some((api_version, kind)) = &self.resource {
                fields.insert("apiVersion".into(), json!(api_version));
                fields.insert("kind".into(), json!(kind));
            }
            fields.insert("metadata".into(), walk.metadata(true));
        }
        Ok(object)
    }

    /// Objects `0..count` of the run seeded with `seed`, each with its index.
    pub fn objects(
        &mut self,
        seed: u64,
        count: u64,
    ) -> impl Iterator<Item = (u64, Result<Value, GenerateError>)> + '_ {
        (0..count).map(move |index| (index, self.object(seed, index)))
    }
}

/// Object number `index` of the run seeded with `seed`, for `schema` (a CRD version's
/// `openAPIV3Schema`).
pub fn generate(schema: &Value, seed: u64, index: u64) -> Result<Value, GenerateError> {
    Generator::new(schema.clone()).object(seed, index)
}

#[cfg(test)]
mod tests;
