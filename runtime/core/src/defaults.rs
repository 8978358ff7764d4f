//! defaulter-gen: filling unset fields from `#[default(expr)]` markers.
//!
//! Generated code implements [`Defaults`] for every kubegen type. The impls here recurse
//! through std containers so a default declared deep inside a list of structs is applied,
//! the same top-down order the apiserver uses when it defaults a custom object.

use std::collections::{BTreeMap, HashMap, VecDeque};

/// A type whose unset fields can be filled with their declared defaults.
pub trait Defaults {
    /// Sets every unset field that declares a default, then recurses into nested values.
    fn set_defaults(&mut self);
}

impl<T: Defaults> Defaults for Option<T> {
    fn set_defaults(&mut self) {
        if let Some(v) = self {
            v.set_defaults();
        }
    }
}

impl<T: Defaults> Defaults for Box<T> {
    fn set_defaults(&mut self) {
        (**self).set_defaults();
    }
}

impl<T: Defaults> Defaults for Vec<T> {
    fn set_defaults(&mut self) {
        self.iter_mut().for_each(Defaults::set_defaults);
    }
}

impl<T: Defaults> Defaults for VecDeque<T> {
    fn set_defaults(&mut self) {
        self.iter_mut().for_each(Defaults::set_defaults);
    }
}

impl<K, V: Defaults> Defaults for BTreeMap<K, V> {
    fn set_defaults(&mut self) {
        self.values_mut().for_each(Defaults::set_defaults);
    }
}

impl<K, V: Defaults, S> Defaults for HashMap<K, V, S> {
    fn set_defaults(&mut self) {
        self.values_mut().for_each(Defaults::set_defaults);
    }
}

/// Defaults a field whose type may or may not implement [`Defaults`].
///
/// Generated code calls `(&mut &mut DefaultsProbe(field)).probe_set_defaults()`: types
/// with defaults (kubegen types and containers of them) recurse, every other type (strings,
/// numbers, k8s-openapi types, whose defaults belong to the apiserver) is left alone.
#[doc(hidden)]
pub struct DefaultsProbe<'a, T>(pub &'a mut T);

#[doc(hidden)]
pub trait ViaDefaults {
    fn probe_set_defaults(&mut self);
}

impl<T: Defaults> ViaDefaults for &mut DefaultsProbe<'_, T> {
    #[inline]
    fn probe_set_defaults(&mut self) {
        self.0.set_defaults()
    }
}

#[doc(hidden)]
pub trait NoDefaults {
    fn probe_set_defaults(&mut self);
}

impl<T> NoDefaults for DefaultsProbe<'_, T> {
    #[inline]
    fn probe_set_defaults(&mut self) {}
}
