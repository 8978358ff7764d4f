//! The kinds of the CEL cases on rule semantics (`cases/cel.rs`) and updates
//! (`cases/cel_updates.rs`): type-level and nested rules, messages, reasons, field paths,
//! runtime errors and status (`CelRule`), transition rules (`CelChange`), and ratcheting
//! across two versions (`CelRatchet`).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::prelude::*;

use crate::conformance::cel_kinds::Word;

/// Rule semantics: type-level rules, `has()`, messages and message expressions, reasons,
/// field paths, runtime errors, int-or-string, timestamps, the status subresource, and the
/// aggregation with schema errors.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(
    group = "conformance.kubegen.dev",
    version = "v1",
    kind = "CelRule",
    status = "CelRuleStatus"
)]
#[serde(rename_all = "camelCase")]
#[rule("self.min <= self.max", message = "min must not exceed max")]
#[rule(
    "!has(self.replicas) || (self.replicas >= self.min && self.replicas <= self.max)",
    message = "replicas must lie within min and max",
    field_path = ".replicas"
)]
#[rule(
    "has(self.owner) == has(self.team)",
    message = "owner and team go together",
    reason = "FieldValueRequired",
    field_path = ".team"
)]
pub struct CelRuleSpec {
    #[validate(maximum = 100)]
    pub min: i64,
    pub max: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    #[rule(
        "self != 'root'",
        message = "root is forbidden",
        reason = "FieldValueForbidden"
    )]
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[rule("self != 'taken'", reason = "FieldValueDuplicate")]
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    #[rule("self.size() > 1", message = "too short", reason = "FieldValueInvalid")]
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nick: Option<String>,
    #[rule(
        "self <= 10",
        message = "static message",
        message_expression = "self > 100 ? 'size is far over 10' : 'size is over 10'"
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i64>,
    /// A message expression that may be empty: the message is used instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Note>,
    /// Int-or-string: rules see an int or a string. (The apiserver refuses a message
    /// expression that is not typed a string, so one cannot yield anything else.)
    #[schema(int_or_string)]
    #[rule(
        "type(self) == int ? self <= 10 : self.endsWith('%')",
        message = "a count up to 10 or a percentage",
        message_expression = "type(self) == string ? 'not a percentage' : 'a count over 10'"
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surge: Option<IntOrString>,
    /// A message expression that fails: the message is used instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<Ratio>,
    #[rule("10 / self > 1", message = "at most 9")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divisor: Option<i64>,
    #[rule("int(self) >= 0", message = "a non-negative number")]
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    #[rule("self * 2 < 1000", message = "small enough to double")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub big: Option<i64>,
    #[rule(
        "self > timestamp('2000-01-01T00:00:00Z')",
        message = "not before 2000"
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Time>,
    #[rule("duration(self) <= duration('1h')", message = "at most an hour")]
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// A property CEL names escaped: `self.x__dash__name`.
    #[serde(rename = "x-name", default, skip_serializing_if = "Option::is_none")]
    #[validate(max_length = 16)]
    pub x_name: Option<String>,
    /// A property named with a CEL reserved word.
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub names: Option<Names>,
    /// Field paths into a nested object and a map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[rule(
    "self.text.size() > 0",
    message = "a note needs text",
    message_expression = "self.hint"
)]
pub struct Note {
    #[validate(max_length = 16)]
    pub text: String,
    #[validate(max_length = 16)]
    pub hint: String,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[rule(
    "self.part <= self.whole",
    message = "part must not exceed whole",
    message_expression = "self.part / self.zero > 1 ? 'part is over twice the whole' : 'part is over the whole'"
)]
pub struct Ratio {
    pub part: i64,
    pub whole: i64,
    pub zero: i64,
}

/// Escaped property names.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[rule(
    "!has(self.x__dash__name) || self.x__dash__name == self.__namespace__",
    message = "x-name must equal namespace"
)]
#[rule(
    "!has(self.namespace) || self.namespace != 'kube-system'",
    message = "not kube-system"
)]
pub struct Names {
    #[serde(rename = "x-name", default, skip_serializing_if = "Option::is_none")]
    #[validate(max_length = 16)]
    pub x_name: Option<String>,
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[rule(
    "self.ports.all(k, self.ports[k] > 0)",
    message = "ports are positive",
    field_path = ".ports"
)]
#[rule(
    "!('http' in self.ports) || self.ports['http'] == 80",
    message = "http is on 80",
    field_path = ".ports['http']"
)]
#[rule(
    "self.inner.enabled || !has(self.inner.reason)",
    message = "a reason only when disabled",
    field_path = ".inner.reason",
    reason = "FieldValueForbidden"
)]
pub struct Target {
    #[validate(max_properties = 5)]
    pub ports: BTreeMap<String, i64>,
    pub inner: Inner,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
pub struct Inner {
    pub enabled: bool,
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(ApiType, Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[rule(
    "!has(self.ready) || !has(self.total) || self.ready <= self.total",
    message = "ready must not exceed total"
)]
pub struct CelRuleStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<i64>,
    #[rule("self in ['Pending', 'Ready']", message = "Pending or Ready")]
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

/// Transition rules: `oldSelf` on fields, nested objects and map-list items, and
/// `optional_old_self`.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "CelChange")]
#[serde(rename_all = "camelCase")]
#[rule("self.version >= oldSelf.version", message = "version may not go back")]
pub struct CelChangeSpec {
    pub version: i64,
    #[rule("self == oldSelf", message = "id is immutable")]
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<Template>,
    #[schema(list_type = "map", list_map_keys = ["name"])]
    #[validate(max_items = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<Vec<NamedPort>>,
    #[rule(
        "oldSelf.hasValue() ? self >= oldSelf.value() : self <= 10",
        message = "starts at most at 10 and only grows",
        optional_old_self = true
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counter: Option<i64>,
    #[rule(
        "self.all(w, w != 'locked') || self == oldSelf",
        message_expression = "'locked tags cannot change: was ' + oldSelf.join(',')"
    )]
    #[validate(max_items = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<Word>>,
}

/// A nested type whose `image` is immutable.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[rule("self.image == oldSelf.image", message = "the image is immutable")]
pub struct Template {
    #[validate(max_length = 32)]
    pub image: String,
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull: Option<String>,
}

/// A map-list item whose port is immutable once named.
#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
#[rule("self.port == oldSelf.port", message = "a named port keeps its number")]
pub struct NamedPort {
    #[validate(max_length = 16)]
    pub name: String,
    pub port: i64,
}

/// Ratcheting needs a value stored under a schema that allowed it: `v1` (the storage
/// version) has no rule, `v2` the same schema with one. An update through `v2` that leaves
/// the value as it was gets a warning, one that changes it an error.
#[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
#[resource(group = "conformance.kubegen.dev", version = "v1", kind = "CelRatchet")]
pub struct CelRatchetSpec {
    #[validate(max_items = 5)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<Word>>,
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[validate(max_length = 16)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
}

pub mod v2 {
    use super::*;

    /// `CelRatchet` at `v2`: the same fields with rules.
    #[derive(CustomResource, Clone, Debug, Serialize, Deserialize)]
    #[resource(
        group = "conformance.kubegen.dev",
        version = "v2",
        kind = "CelRatchet",
        storage = false
    )]
    pub struct CelRatchetSpec {
        #[rule("self.size() <= 2", message = "at most two tags")]
        #[validate(max_items = 5)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tags: Option<Vec<Word>>,
        #[validate(max_length = 16)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub note: Option<String>,
        #[rule("self in ['low', 'high']", message = "low or high")]
        #[validate(max_length = 16)]
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub level: Option<String>,
    }
}
