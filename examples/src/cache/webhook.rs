//! The Cache webhooks: what a schema cannot say, served by `cache_webhook` next to the
//! generated conversions.
//!
//! - Defaulting: a persistence volume twice the memory when none is given (a default that
//!   depends on another field).
//! - Validating: the schema and CEL rules first ([`LocalValidation`]), then at least 64Mi of
//!   memory, an engine that never changes, a warning when replicas drop to one, and no
//!   deleting a Cache labelled [`PROTECTED_LABEL`]`: "true"`.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kubegen::validation::{BadValue, FieldError};
use kubegen::webhook::{Admission, LocalValidation, TypedValidator, Verdict, Webhooks};

use super::v1::Cache;

/// A Cache with this label set to `"true"` cannot be deleted.
pub const PROTECTED_LABEL: &str = "cache.example.com/protected";

/// The least memory a replica may have, in bytes (64Mi).
const MIN_MEMORY: f64 = 64.0 * 1024.0 * 1024.0;

/// Every Cache webhook: the generated conversions, defaulting and validation.
pub fn webhooks() -> Webhooks {
    Webhooks::new()
        .generated_converters()
        .defaulter::<Cache>(default_cache)
        .typed_validator::<Cache>(LocalValidation::then(CacheChecks))
}

/// Gives persistence a volume twice the memory when it has none. Runs after the kind's
/// schema defaults (`set_defaults`).
pub fn default_cache(_: &Admission<'_>, cache: &mut Cache) -> Verdict {
    let memory = cache.spec.memory.clone();
    let Some(persistence) = cache.spec.persistence.as_mut() else {
        return Verdict::allow();
    };
    if persistence.volume_size.is_some() {
        return Verdict::allow();
    }
    match scaled(&memory, 2.0) {
        Some(size) => {
            persistence.volume_size = Some(size);
            Verdict::allow()
        }
        None => Verdict::allow().with_warning(format!(
            "spec.persistence.volumeSize: not defaulted, the memory {:?} is not a plain size",
            memory.0
        )),
    }
}

/// The checks a schema cannot say.
pub struct CacheChecks;

impl TypedValidator<Cache> for CacheChecks {
    fn validate_create(&self, _: &Admission<'_>, cache: &Cache) -> Verdict {
        Verdict::from_errors(memory_errors(cache))
    }

    fn validate_update(&self, _: &Admission<'_>, old: &Cache, new: &Cache) -> Verdict {
        let mut errors = memory_errors(new);
        if old.spec.engine != new.spec.engine {
            errors.push(FieldError::forbidden(
                "spec.engine",
                "the engine of a Cache cannot change: create a new Cache",
            ));
        }
        let verdict = Verdict::from_errors(errors);
        let replicas = |c: &Cache| c.spec.replicas.unwrap_or(1);
        if replicas(new) == 1 && replicas(old) > 1 {
            return verdict
                .with_warning("spec.replicas: a single replica loses its data on restart");
        }
        verdict
    }

    fn validate_delete(&self, _: &Admission<'_>, old: &Cache) -> Verdict {
        let protected = old
            .metadata
            .labels
            .as_ref()
            .and_then(|labels| labels.get(PROTECTED_LABEL))
            .is_some_and(|value| value == "true");
        if protected {
            let name = old.metadata.name.as_deref().unwrap_or_default();
            return Verdict::forbidden(format!(
                "Cache {name} is protected: remove the label {PROTECTED_LABEL} first"
            ));
        }
        Verdict::allow()
    }
}

fn memory_errors(cache: &Cache) -> Vec<FieldError> {
    let memory = &cache.spec.memory.0;
    match bytes(memory) {
        Some(b) if b >= MIN_MEMORY => Vec::new(),
        Some(_) => vec![FieldError::invalid(
            "spec.memory",
            BadValue::str(memory),
            "a replica needs at least 64Mi",
        )],
        // The schema's Quantity pattern refuses what is not a quantity; forms this simple
        // parser does not read (exponents) are left to it.
        None => Vec::new(),
    }
}

/// Binary and decimal suffixes and their factors.
const SUFFIXES: [(&str, f64); 9] = [
    ("Ki", 1024.0),
    ("Mi", 1048576.0),
    ("Gi", 1073741824.0),
    ("Ti", 1099511627776.0),
    ("k", 1e3),
    ("M", 1e6),
    ("G", 1e9),
    ("T", 1e12),
    ("", 1.0),
];

/// A quantity's number and suffix (`"1.5Gi"` → 1.5, `"Gi"`), for plain decimal forms.
fn split(quantity: &str) -> Option<(f64, &'static str, f64)> {
    SUFFIXES.iter().find_map(|&(suffix, factor)| {
        let number = quantity.strip_suffix(suffix)?;
        let valid = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        valid
            .then(|| number.parse::<f64>().ok())
            .flatten()
            .map(|n| (n, suffix, factor))
    })
}

fn bytes(quantity: &str) -> Option<f64> {
    split(quantity).map(|(n, _, factor)| n * factor)
}

/// `quantity` times `by`, in the same suffix (`"512Mi"` × 2 → `"1024Mi"`).
fn scaled(quantity: &Quantity, by: f64) -> Option<Quantity> {
    let (n, suffix, _) = split(&quantity.0)?;
    Some(Quantity(format!("{}{suffix}", n * by)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_scale_in_their_suffix() {
        let q = |s: &str| Quantity(s.into());
        assert_eq!(scaled(&q("512Mi"), 2.0), Some(q("1024Mi")));
        assert_eq!(scaled(&q("1.5Gi"), 2.0), Some(q("3Gi")));
        assert_eq!(scaled(&q("100M"), 2.0), Some(q("200M")));
        assert_eq!(scaled(&q("1e3"), 2.0), None);
        assert_eq!(bytes("64Mi"), Some(MIN_MEMORY));
        assert_eq!(bytes("63Mi").map(|b| b < MIN_MEMORY), Some(true));
    }
}
