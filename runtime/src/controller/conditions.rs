//! Status conditions as apimachinery's `meta` helpers keep them (`SetStatusCondition` and
//! the rest), on a `Vec<Condition>` (k8s-openapi's `metav1.Condition`, the type kubebuilder
//! puts in a status's `conditions`).
//!
//! A condition's `lastTransitionTime` moves only when its `status` changes; its reason,
//! message and `observedGeneration` follow every set. [`Conditions::set_condition`] says whether
//! anything changed, so a reconciler writes the status only then.
//!
//! ```
//! use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
//! use kubegen_runtime::controller::conditions::{Conditions, condition};
//!
//! let mut conditions: Vec<Condition> = Vec::new();
//! assert!(conditions.set_condition(condition("Ready", true, "Deployed", "3 of 3 ready", 4)));
//! let first = conditions.find_condition("Ready").unwrap().last_transition_time.clone();
//! // The same again: no change, nothing to write.
//! assert!(!conditions.set_condition(condition("Ready", true, "Deployed", "3 of 3 ready", 4)));
//! // A new message is a change, but not a transition.
//! assert!(conditions.set_condition(condition("Ready", true, "Deployed", "3 of 3 ready, 1 updated", 5)));
//! assert_eq!(conditions.find_condition("Ready").unwrap().last_transition_time, first);
//! assert!(conditions.is_condition_true("Ready"));
//! ```

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

/// `metav1.ConditionTrue`.
pub const TRUE: &str = "True";
/// `metav1.ConditionFalse`.
pub const FALSE: &str = "False";
/// `metav1.ConditionUnknown`.
pub const UNKNOWN: &str = "Unknown";

/// A condition of type `type_`, `True` or `False`, with its reason, message and the
/// generation it was computed from; its transition time is left for [`Conditions::set_condition`]
/// to decide.
pub fn condition(
    type_: &str,
    status: bool,
    reason: &str,
    message: &str,
    observed_generation: i64,
) -> Condition {
    Condition {
        type_: type_.to_owned(),
        status: if status { TRUE } else { FALSE }.to_owned(),
        reason: reason.to_owned(),
        message: message.to_owned(),
        observed_generation: Some(observed_generation),
        last_transition_time: unset(),
    }
}

/// The zero time Go's `metav1.Time{}` is: "not given".
fn unset() -> Time {
    Time(jiff::Timestamp::UNIX_EPOCH)
}

/// Now, to the second, as the time reads back from the apiserver.
fn now() -> Time {
    let seconds = jiff::Timestamp::now().as_second();
    Time(jiff::Timestamp::from_second(seconds).unwrap_or(jiff::Timestamp::UNIX_EPOCH))
}

/// apimachinery's condition helpers on a status's conditions.
pub trait Conditions {
    /// Sets `condition` by its type (`SetStatusCondition`): a new type is appended, stamped
    /// now unless it carries a transition time; an existing one takes the new status (and a
    /// new transition time, the one given or now, only if the status changed), reason,
    /// message and observed generation. Whether anything changed.
    fn set_condition(&mut self, condition: Condition) -> bool;

    /// Removes the condition of type `type_` (`RemoveStatusCondition`); whether there was one.
    fn remove_condition(&mut self, type_: &str) -> bool;

    /// The condition of type `type_` (`FindStatusCondition`).
    fn find_condition(&self, type_: &str) -> Option<&Condition>;

    /// Whether the condition of type `type_` is there with `status`
    /// (`IsStatusConditionPresentAndEqual`).
    fn is_condition_present_and_equal(&self, type_: &str, status: &str) -> bool {
        self.find_condition(type_)
            .is_some_and(|c| c.status == status)
    }

    /// Whether the condition of type `type_` is `True` (`IsStatusConditionTrue`).
    fn is_condition_true(&self, type_: &str) -> bool {
        self.is_condition_present_and_equal(type_, TRUE)
    }

    /// Whether the condition of type `type_` is `False` (`IsStatusConditionFalse`).
    fn is_condition_false(&self, type_: &str) -> bool {
        self.is_condition_present_and_equal(type_, FALSE)
    }
}

impl Conditions for Vec<Condition> {
    fn set_condition(&mut self, mut condition: Condition) -> bool {
        let given = (condition.last_transition_time != unset())
            .then(|| condition.last_transition_time.clone());
        let Some(existing) = self.iter_mut().find(|c| c.type_ == condition.type_) else {
            condition.last_transition_time = given.unwrap_or_else(now);
            self.push(condition);
            return true;
        };
        let mut changed = false;
        if existing.status != condition.status {
            existing.status = condition.status;
            existing.last_transition_time = given.unwrap_or_else(now);
            changed = true;
        }
        if existing.reason != condition.reason {
            existing.reason = condition.reason;
            changed = true;
        }
        if existing.message != condition.message {
            existing.message = condition.message;
            changed = true;
        }
        if existing.observed_generation != condition.observed_generation {
            existing.observed_generation = condition.observed_generation;
            changed = true;
        }
        changed
    }

    fn remove_condition(&mut self, type_: &str) -> bool {
        let before = self.len();
        self.retain(|c| c.type_ != type_);
        self.len() != before
    }

    fn find_condition(&self, type_: &str) -> Option<&Condition> {
        self.iter().find(|c| c.type_ == type_)
    }
}

impl Conditions for Option<Vec<Condition>> {
    fn set_condition(&mut self, condition: Condition) -> bool {
        self.get_or_insert_with(Vec::new).set_condition(condition)
    }

    fn remove_condition(&mut self, type_: &str) -> bool {
        self.as_mut().is_some_and(|c| c.remove_condition(type_))
    }

    fn find_condition(&self, type_: &str) -> Option<&Condition> {
        self.as_ref()?.find_condition(type_)
    }
}

/// A status's conditions, ready-made: `metav1.Condition`s with the markers kubebuilder
/// users write by hand (`+listType=map`, `+listMapKey=type`), so the CRD schema says
/// `x-kubernetes-list-type: map` keyed by `type`. Server-side apply then merges conditions
/// by type: managers applying different conditions keep each other's, and a manager owns
/// only the conditions it applied. Derefs to the `Vec`, and has the [`Conditions`] helpers.
///
/// ```
/// use kubegen_runtime::controller::conditions::{Conditions, StatusConditions, condition};
///
/// let mut conditions = StatusConditions::default();
/// assert!(conditions.set_condition(condition("Ready", true, "Deployed", "", 1)));
/// assert_eq!(conditions.len(), 1);
/// let schema = serde_json::to_value(schemars::schema_for!(StatusConditions)).unwrap();
/// assert_eq!(schema["x-kubernetes-list-type"], "map");
/// assert_eq!(schema["x-kubernetes-list-map-keys"], serde_json::json!(["type"]));
/// ```
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct StatusConditions(pub Vec<Condition>);

impl std::ops::Deref for StatusConditions {
    type Target = Vec<Condition>;
    fn deref(&self) -> &Vec<Condition> {
        &self.0
    }
}

impl std::ops::DerefMut for StatusConditions {
    fn deref_mut(&mut self) -> &mut Vec<Condition> {
        &mut self.0
    }
}

impl From<Vec<Condition>> for StatusConditions {
    fn from(conditions: Vec<Condition>) -> Self {
        StatusConditions(conditions)
    }
}

impl Conditions for StatusConditions {
    fn set_condition(&mut self, condition: Condition) -> bool {
        self.0.set_condition(condition)
    }

    fn remove_condition(&mut self, type_: &str) -> bool {
        self.0.remove_condition(type_)
    }

    fn find_condition(&self, type_: &str) -> Option<&Condition> {
        self.0.find_condition(type_)
    }
}

impl Conditions for Option<StatusConditions> {
    fn set_condition(&mut self, condition: Condition) -> bool {
        self.get_or_insert_with(StatusConditions::default)
            .set_condition(condition)
    }

    fn remove_condition(&mut self, type_: &str) -> bool {
        self.as_mut().is_some_and(|c| c.remove_condition(type_))
    }

    fn find_condition(&self, type_: &str) -> Option<&Condition> {
        self.as_ref()?.find_condition(type_)
    }
}

impl schemars::JsonSchema for StatusConditions {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StatusConditions".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = <Vec<Condition> as schemars::JsonSchema>::json_schema(generator);
        schema.insert("x-kubernetes-list-type".into(), "map".into());
        schema.insert(
            "x-kubernetes-list-map-keys".into(),
            serde_json::json!(["type"]),
        );
        schema
    }
}

/// Applied whole: a configuration is the conditions this manager sets (the list merges by
/// `type` on the server).
impl crate::apply::Apply for StatusConditions {
    type Configuration = Self;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions_move_only_with_the_status() {
        let mut conditions: Vec<Condition> = Vec::new();
        let given = Time(jiff::Timestamp::from_second(1_000).unwrap());
        let mut first = condition("Ready", false, "Starting", "", 1);
        first.last_transition_time = given.clone();
        assert!(conditions.set_condition(first));
        assert_eq!(conditions[0].last_transition_time, given);
        // Same status, new reason: changed, same transition.
        assert!(conditions.set_condition(condition("Ready", false, "Waiting", "", 1)));
        assert_eq!(conditions[0].last_transition_time, given);
        // New status: a transition, stamped now.
        assert!(conditions.set_condition(condition("Ready", true, "Waiting", "", 1)));
        assert!(conditions[0].last_transition_time != given);
        assert!(conditions.is_condition_true("Ready") && !conditions.is_condition_false("Ready"));
        assert!(!conditions.set_condition(condition("Ready", true, "Waiting", "", 1)));
        assert!(conditions.set_condition(condition("Ready", true, "Waiting", "", 2)));
        assert!(conditions.set_condition(condition("Degraded", false, "Fine", "", 2)));
        assert_eq!(conditions.len(), 2);
        assert!(conditions.remove_condition("Degraded"));
        assert!(!conditions.remove_condition("Degraded"));
        assert!(conditions.find_condition("Degraded").is_none());
        let mut none: Option<Vec<Condition>> = None;
        assert!(!none.remove_condition("Ready"));
        assert!(none.set_condition(condition("Ready", true, "Up", "", 1)));
        assert!(none.is_condition_present_and_equal("Ready", TRUE));
    }
}
