//! CEL validation rules (`x-kubernetes-validations`) evaluated as the apiserver evaluates
//! them (apiextensions-apiserver's `schema/cel`), on the cel crate with kube-cel's
//! Kubernetes libraries.
//!
//! [`Validator::new`] compiles every rule of a CRD version once; [`Validator::validate`]
//! walks an object with its structural schema and returns the apiserver's field errors in
//! its order: a node's rules, then those of its `allOf` branches, then its properties, map
//! values and list items. `self` is typed by the schema (see the `values` module); transition rules
//! (those naming `oldSelf`) run on updates where the old value correlates — objects by
//! field, maps by key, `map` lists by their keys, never atomic lists or sets — and
//! `optionalOldSelf` rules also run without one, `oldSelf` being an optional; errors of
//! other rules on values that did not change become warnings (`CRDValidationRatcheting`).
//!
//! Error details are the apiserver's: `message`, else `failed rule: <rule>`; a usable
//! `messageExpression` result instead; `reason` sets the cause type; `fieldPath` the
//! field; runtime errors (`no such key`, `division by zero`, an invalid regex, ...) in
//! cel-go's words.
//!
//! Where the apiserver measures cost, kubegen does not: the cel crate cannot count cost as
//! cel-go does, so neither the per-call limit nor the per-object budget is enforced.
//! Other known differences from the apiserver are listed in the guide (`docs/src/kinds.md`).

mod compile;
mod errors;
mod fieldpath;
mod formats;
mod library;
mod regex;
mod values;
mod walk;

use serde_json::Value;

pub use compile::ValidationRule;
pub(crate) use fieldpath::resolve as resolve_field_path;

use super::field::FieldError;
use super::schema::Schema;
use compile::Node;
use walk::{Ratchet, Walk};

/// The compiled rules of one CRD version's schema.
pub struct Validator {
    root: Option<Node>,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator")
            .field("has_rules", &self.root.is_some())
            .finish()
    }
}

/// What validation found: errors, and warnings for errors ratcheted away (the apiserver
/// sends those as `Warning` headers).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The field errors, in the apiserver's order.
    pub errors: Vec<FieldError>,
    /// `Warning` texts (`spec.x: Invalid value: ...`).
    pub warnings: Vec<String>,
}

impl Validator {
    /// Compiles the rules of `schema`, a custom resource's root schema. Rules that do not
    /// compile are reported when they would run, as the apiserver reports them.
    pub fn new(schema: &Schema) -> Self {
        // The apiserver builds no validator when no property, item or map value has rules.
        let root = match schema.has_rules() {
            true => Node::build(schema, schema, true, true),
            false => None,
        };
        Validator { root }
    }

    /// Compiles the rules of one schema node and those below it, as the apiserver compiles
    /// them to check the node's `default` (the node is a resource root when it is an
    /// embedded resource).
    pub fn for_node(schema: &Schema) -> Self {
        Validator {
            root: Node::build(schema, schema, schema.embedded_resource, true),
        }
    }

    /// Whether the schema has any rule.
    pub fn has_rules(&self) -> bool {
        self.root.is_some()
    }

    /// Runs the rules on `object`, an update of `old` when given.
    pub fn validate(&self, schema: &Schema, object: &Value, old: Option<&Value>) -> Outcome {
        self.validate_at(schema, "", object, old)
    }

    /// [`validate`](Self::validate) with errors placed below the field path `path` (the
    /// apiserver reports a `default`'s errors at `<node>.default...`).
    pub fn validate_at(
        &self,
        schema: &Schema,
        path: &str,
        object: &Value,
        old: Option<&Value>,
    ) -> Outcome {
        let mut walk = Walk::default();
        if let Some(root) = &self.root {
            let ratchet = match old {
                Some(old) => Ratchet::root(object, old, schema),
                None => Ratchet::default(),
            };
            walk.node(root, schema, path, object, old, ratchet);
        }
        Outcome {
            errors: walk.errors,
            warnings: walk.warnings,
        }
    }
}

#[cfg(test)]
mod tests;
