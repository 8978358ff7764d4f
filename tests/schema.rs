//! The generated schema for every serde shape and every marker, compared as JSON.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubegen::prelude::*;
use kubegen::schema::structural;
use serde_json::{Value, json};

mod serde_reads;

fn schema<T: JsonSchema>() -> Value {
    kubegen::schema::schema_for::<T>().to_value()
}

fn prop<T: JsonSchema>(name: &str) -> Value {
    schema::<T>()["properties"][name].clone()
}

/// Doc of the struct.
#[derive(ApiType, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Renames {
    /// Own doc.
    first_name: String,
    #[serde(rename = "LAST")]
    last_name: String,
    #[serde(skip)]
    _hidden: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    maybe: Option<String>,
    nullable_maybe: Option<String>,
    #[serde(default)]
    defaulted: String,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    list: Vec<String>,
    inner: Documented,
}

/// The type's doc, which must not leak onto fields.
#[derive(ApiType, Serialize, Deserialize)]
struct Documented {
    x: i32,
}

#[test]
fn renames_skips_requiredness_and_nullability() {
    assert_eq!(
        schema::<Renames>(),
        json!({
            "type": "object",
            "description": "Doc of the struct.",
            "properties": {
                "firstName": {"type": "string", "description": "Own doc."},
                "LAST": {"type": "string"},
                "maybe": {"type": "string"},
                "nullableMaybe": {"type": "string", "nullable": true},
                "defaulted": {"type": "string"},
                "list": {"type": "array", "items": {"type": "string"}},
                "inner": {"type": "object", "properties": {"x": {"type": "integer", "format": "int32"}}, "required": ["x"]},
            },
            "required": ["firstName", "LAST", "inner"],
        })
    );
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(default)]
#[derive(Default)]
struct ContainerDefault {
    a: String,
    b: i64,
}

#[test]
fn container_default_makes_every_field_optional() {
    assert!(schema::<ContainerDefault>().get("required").is_none());
}

#[derive(ApiType, Serialize, Deserialize)]
struct Flattened {
    own: String,
    #[serde(flatten)]
    common: Documented,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

#[test]
fn flatten_merges_fields_and_keeps_unknown_fields_for_maps() {
    assert_eq!(
        schema::<Flattened>(),
        json!({
            "type": "object",
            "properties": {
                "own": {"type": "string"},
                "x": {"type": "integer", "format": "int32"},
            },
            "required": ["own", "x"],
            "x-kubernetes-preserve-unknown-fields": true,
        })
    );
}

/// A port number.
#[derive(ApiType, Serialize, Deserialize)]
#[validate(minimum = 1)]
struct PortNumber(u16);

#[derive(ApiType, Serialize, Deserialize)]
#[serde(transparent)]
struct Transparent {
    #[validate(max_length = 5)]
    value: String,
}

#[test]
fn newtype_and_transparent_serialize_as_their_field() {
    assert_eq!(
        schema::<PortNumber>(),
        json!({"type": "integer", "format": "int32", "minimum": 1, "maximum": 65535, "description": "A port number."})
    );
    assert_eq!(
        schema::<Transparent>(),
        json!({"type": "string", "maxLength": 5})
    );
}

/// Colours.
#[derive(ApiType, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Colour {
    DarkRed,
    #[serde(rename = "GREEN")]
    Green,
    #[serde(skip)]
    _Internal,
}

#[derive(ApiType, Serialize, Deserialize)]
enum Open {
    Known,
    #[serde(other)]
    Unknown,
}

#[test]
fn unit_enums_are_string_enums() {
    assert_eq!(
        schema::<Colour>(),
        json!({"type": "string", "description": "Colours.", "enum": ["dark-red", "GREEN"]})
    );
    assert_eq!(
        schema::<Open>(),
        json!({"type": "string"}),
        "serde(other) accepts any string"
    );
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum External {
    Http { url: String },
    Port(i32),
}

#[test]
fn externally_tagged_enums_are_objects_with_one_of_required() {
    assert_eq!(
        schema::<External>(),
        json!({
            "type": "object",
            "properties": {
                "http": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
                "port": {"type": "integer", "format": "int32"},
            },
            "oneOf": [{"required": ["http"]}, {"required": ["port"]}],
        })
    );
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(tag = "type")]
enum Internal {
    A { a: String, shared: Option<i32> },
    B(Documented),
    C,
}

#[test]
fn internally_tagged_enums_merge_variant_fields() {
    assert_eq!(
        schema::<Internal>(),
        json!({
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["A", "B", "C"]},
                "a": {"type": "string"},
                "shared": {"type": "integer", "format": "int32", "nullable": true},
                "x": {"type": "integer", "format": "int32"},
            },
            "required": ["type"],
            "oneOf": [
                {"properties": {"type": {"enum": ["A"]}}, "required": ["type", "a"]},
                {"properties": {"type": {"enum": ["B"]}}, "required": ["type", "x"]},
                {"properties": {"type": {"enum": ["C"]}}, "required": ["type"]},
            ],
        })
    );
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Num(i64),
    Text(String),
    Nothing,
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(tag = "t", content = "c")]
enum AdjacentObjects {
    One { a: String },
    Two { a: String, b: bool },
}

#[test]
fn adjacently_tagged_enums_describe_tag_and_content() {
    assert_eq!(
        schema::<Adjacent>(),
        json!({
            "type": "object",
            "properties": {
                "t": {"type": "string", "enum": ["Num", "Text", "Nothing"]},
                "c": {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true},
            },
            "required": ["t"],
            "oneOf": [
                {"properties": {"t": {"enum": ["Num"]}}, "required": ["t", "c"]},
                {"properties": {"t": {"enum": ["Text"]}}, "required": ["t", "c"]},
                // serde refuses content for a unit variant.
                {"properties": {"t": {"enum": ["Nothing"]}}, "required": ["t"], "not": {"required": ["c"]}},
            ],
        })
    );
    let objects = schema::<AdjacentObjects>();
    assert_eq!(
        objects["properties"]["c"],
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "boolean"}}, "required": ["a"]})
    );
    assert_eq!(
        objects["oneOf"][1]["properties"]["c"],
        json!({"required": ["a", "b"]})
    );
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(untagged)]
enum Untagged {
    Full { name: String, size: i32 },
    Short { name: String },
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(untagged)]
enum CountOrName {
    Count(i32),
    Name(String),
}

#[test]
fn untagged_enums_accept_every_variant() {
    assert_eq!(
        schema::<Untagged>(),
        json!({
            "type": "object",
            "properties": {"name": {"type": "string"}, "size": {"type": "integer", "format": "int32"}},
            "required": ["name"],
        })
    );
    assert_eq!(
        schema::<CountOrName>(),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true,
               "minimum": i32::MIN, "maximum": i32::MAX})
    );
    // serde takes the first variant whose fields are all there: the object must have one
    // variant's required fields, not just the fields every variant shares.
    assert_eq!(
        schema::<Target>(),
        json!({
            "type": "object",
            "properties": {"host": {"type": "string"}, "port": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 65535}, "path": {"type": "string"}},
            "anyOf": [{"required": ["host", "port"]}, {"required": ["path"]}],
        })
    );
    // A variant that requires nothing takes any object.
    assert!(schema::<TargetOrAny>().get("anyOf").is_none());
    // Untagged string enums and an integer: the strings become a pattern (an `enum` would
    // refuse the integers), the integers keep their width's bounds.
    assert_eq!(
        schema::<SizeOrLevel>(),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true,
               "minimum": 0, "maximum": 255, "pattern": "^(?:Low|High)$"})
    );
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(untagged)]
enum Target {
    Host { host: String, port: u16 },
    Path { path: String },
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(untagged)]
enum TargetOrAny {
    Host { host: String, port: u16 },
    Anything { path: Option<String> },
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(untagged)]
enum SizeOrLevel {
    Size(u8),
    Level(Level),
}

#[derive(ApiType, Serialize, Deserialize)]
struct Toggle(bool);

/// The derive cannot see through `Toggle`, so the mix is caught when the schema is built
/// (the plain `Flag(bool)` form is a compile error, see tests/ui).
#[derive(ApiType, Serialize, Deserialize)]
#[serde(untagged)]
enum Mixed {
    Flag(Toggle),
    Words(Vec<String>),
}

#[test]
fn untagged_enums_of_mixed_types_fail_the_structural_check() {
    let violations =
        structural::check(&json!({"type": "object", "properties": {"m": schema::<Mixed>()}}));
    assert_eq!(violations.len(), 2, "{violations:?}");
    assert!(
        violations[0]
            .rule
            .contains("different types (array, boolean)"),
        "{violations:?}"
    );
    assert_eq!(violations[0].path, ".m");
}

#[derive(ApiType, Serialize, Deserialize)]
struct Types {
    i8_: i8,
    u8_: u8,
    i16_: i16,
    u16_: u16,
    i32_: i32,
    u32_: u32,
    i64_: i64,
    u64_: u64,
    f32_: f32,
    f64_: f64,
    b: bool,
    map: BTreeMap<String, i32>,
    any: Value,
    int_or_string: IntOrString,
    quantity: Quantity,
    time: Time,
    boxed: Box<Documented>,
    nested: Vec<Option<String>>,
}

#[test]
fn rust_types_map_to_kubernetes_types_and_formats() {
    let p = schema::<Types>()["properties"].clone();
    assert_eq!(
        p["i8_"],
        json!({"type": "integer", "format": "int32", "minimum": -128, "maximum": 127})
    );
    assert_eq!(
        p["u8_"],
        json!({"type": "integer", "format": "int32", "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        p["i16_"],
        json!({"type": "integer", "format": "int32", "minimum": -32768, "maximum": 32767})
    );
    assert_eq!(
        p["u16_"],
        json!({"type": "integer", "format": "int32", "minimum": 0, "maximum": 65535})
    );
    assert_eq!(p["i32_"], json!({"type": "integer", "format": "int32"}));
    assert_eq!(
        p["u32_"],
        json!({"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295u64})
    );
    assert_eq!(p["i64_"], json!({"type": "integer", "format": "int64"}));
    assert_eq!(
        p["u64_"],
        json!({"type": "integer", "format": "int64", "minimum": 0})
    );
    assert_eq!(p["f32_"], json!({"type": "number", "format": "float"}));
    assert_eq!(p["f64_"], json!({"type": "number", "format": "double"}));
    assert_eq!(p["b"], json!({"type": "boolean"}));
    assert_eq!(
        p["map"],
        json!({"type": "object", "additionalProperties": {"type": "integer", "format": "int32"}})
    );
    assert_eq!(
        p["any"],
        json!({"x-kubernetes-preserve-unknown-fields": true})
    );
    // k8s-openapi's IntOrString holds an i32.
    assert_eq!(
        p["int_or_string"],
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true,
               "minimum": i32::MIN, "maximum": i32::MAX})
    );
    // controller-gen's Quantity pattern, so "abc" is refused as in a Pod.
    assert_eq!(
        p["quantity"],
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true,
               "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"})
    );
    // Time is a jiff timestamp: only the date-times it decodes are accepted.
    assert_eq!(
        p["time"],
        json!({"type": "string", "format": "date-time", "pattern": kubegen::schema::DECODABLE_DATE_TIME})
    );
    assert_eq!(p["boxed"]["properties"]["x"]["type"], "integer");
    assert_eq!(
        p["nested"],
        json!({"type": "array", "items": {"type": "string", "nullable": true}})
    );
}

#[derive(ApiType, Serialize, Deserialize)]
struct Template {
    metadata: ObjectMeta,
    selector: k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
    target: k8s_openapi::api::core::v1::ObjectReference,
}

#[test]
fn selectors_and_references_are_atomic_as_in_the_apiserver() {
    let s = schema::<Template>();
    assert_eq!(
        s["properties"]["selector"]["x-kubernetes-map-type"],
        "atomic"
    );
    assert_eq!(
        s["properties"]["selector"]["properties"]["matchExpressions"]["x-kubernetes-list-type"],
        "atomic"
    );
    assert_eq!(s["properties"]["target"]["x-kubernetes-map-type"], "atomic");
}

#[test]
fn embedded_object_meta_is_compact() {
    let meta = prop::<Template>("metadata");
    let fields: Vec<&String> = meta["properties"].as_object().unwrap().keys().collect();
    assert_eq!(
        fields,
        ["annotations", "finalizers", "labels", "name", "namespace"]
    );
    assert_eq!(
        meta["properties"]["labels"]["additionalProperties"],
        json!({"type": "string"})
    );
    // As in the apiserver's ObjectMeta.
    assert_eq!(
        meta["properties"]["finalizers"]["x-kubernetes-list-type"],
        "set"
    );
}

#[derive(ApiType, Serialize, Deserialize)]
struct Embeds {
    template: k8s_openapi::api::core::v1::PodTemplateSpec,
    volume: k8s_openapi::api::core::v1::PersistentVolumeSpec,
    account: k8s_openapi::api::core::v1::ServiceAccount,
}

#[test]
fn embedded_kubernetes_types_keep_the_apiservers_list_and_map_types() {
    let s = schema::<Embeds>();
    assert_eq!(
        structural::check(&json!({"type": "object", "properties": {"spec": s}})),
        []
    );
    let pod = &s["properties"]["template"]["properties"]["spec"]["properties"];
    for (list, keys) in [
        ("containers", json!(["name"])),
        ("initContainers", json!(["name"])),
        ("volumes", json!(["name"])),
        (
            "topologySpreadConstraints",
            json!(["topologyKey", "whenUnsatisfiable"]),
        ),
    ] {
        assert_eq!(pod[list]["x-kubernetes-list-type"], "map", "{list}");
        assert_eq!(pod[list]["x-kubernetes-list-map-keys"], keys, "{list}");
    }
    assert_eq!(pod["tolerations"]["x-kubernetes-list-type"], "atomic");
    assert_eq!(pod["nodeSelector"]["x-kubernetes-map-type"], "atomic");
    let container = &pod["containers"]["items"]["properties"];
    assert_eq!(
        container["env"]["x-kubernetes-list-map-keys"],
        json!(["name"])
    );
    assert_eq!(container["args"]["x-kubernetes-list-type"], "atomic");
    // Ports are keyed by port and protocol; the protocol is optional, so it gets the
    // apiserver's default (a CRD's list-map keys must be required or defaulted).
    let ports = &container["ports"];
    assert_eq!(
        ports["x-kubernetes-list-map-keys"],
        json!(["containerPort", "protocol"])
    );
    assert_eq!(ports["items"]["required"], json!(["containerPort"]));
    assert_eq!(ports["items"]["properties"]["protocol"]["default"], "TCP");
    assert!(
        ports["items"]["properties"]["containerPort"]
            .get("default")
            .is_none()
    );
    // A property's own map type wins over its type's: ObjectReference is atomic, but
    // PersistentVolumeSpec.claimRef is granular.
    let volume = &s["properties"]["volume"]["properties"];
    assert_eq!(volume["claimRef"]["x-kubernetes-map-type"], "granular");
    assert_eq!(
        pod["volumes"]["items"]["properties"]["ephemeral"]["properties"]["volumeClaimTemplate"]["properties"]
            ["spec"]["properties"]["dataSource"]["x-kubernetes-map-type"],
        "atomic"
    );
    // ServiceAccount.secrets is a list map keyed by an ObjectReference's optional, undefaulted
    // name: the apiserver would refuse it in a CRD, so it stays atomic.
    assert_eq!(
        s["properties"]["account"]["properties"]["secrets"]["x-kubernetes-list-type"],
        "atomic"
    );
    assert!(
        s["properties"]["account"]["properties"]["secrets"]
            .get("x-kubernetes-list-map-keys")
            .is_none()
    );
}

#[derive(ApiType, Serialize, Deserialize)]
struct Tree {
    children: Vec<Tree>,
}

#[test]
fn recursive_types_are_reported_not_looped() {
    let violations =
        structural::check(&json!({"type": "object", "properties": {"t": schema::<Tree>()}}));
    assert!(
        violations
            .iter()
            .any(|v| v.rule.contains("contains itself")),
        "{violations:?}"
    );
}

#[derive(ApiType, Serialize, Deserialize)]
#[rule(
    "self.max >= self.min",
    message = "max below min",
    reason = "FieldValueInvalid",
    field_path = ".max"
)]
#[validate(min_properties = 1, max_properties = 4)]
#[schema(title = "Markers", struct_type = "atomic")]
struct Markers {
    #[validate(minimum = -5, maximum = 5.5, exclusive_maximum, multiple_of = 0.5)]
    min: Option<f64>,
    #[validate(minimum = 0, exclusive_minimum)]
    max: Option<i64>,
    #[validate(
        min_length = 1,
        max_length = 63,
        pattern = "^[a-z]+$",
        format = "hostname"
    )]
    host: Option<String>,
    #[validate(min_items = 1, max_items = 3, unique_items)]
    set: Option<Vec<String>>,
    #[schema(list_type = "atomic")]
    atomic: Option<Vec<String>>,
    #[schema(list_type = "map", list_map_keys = ["name", "port"])]
    ports: Option<Vec<NamedPort>>,
    #[schema(map_type = "granular")]
    #[validate(max_properties = 2)]
    labels: Option<BTreeMap<String, String>>,
    #[schema(preserve_unknown_fields)]
    blob: Option<BTreeMap<String, Value>>,
    #[schema(embedded_resource, preserve_unknown_fields)]
    object: Option<Value>,
    #[schema(int_or_string)]
    surge: Option<String>,
    #[schema(nullable = false, title = "T", example = "e.g.", format = "password")]
    secret: Option<String>,
    #[schema(example = 3)]
    count: Option<i32>,
    #[rule(
        "!oldSelf.hasValue() || self.size() >= oldSelf.value().size()",
        message_expression = "'bad ' + self",
        optional_old_self = true
    )]
    name: Option<String>,
    #[required]
    must: Option<String>,
    #[optional]
    #[serde(default)]
    may: String,
    #[default(5)]
    five: Option<i32>,
    #[default(Level::High)]
    level: Option<Level>,
}

#[derive(ApiType, Clone, Debug, Serialize, Deserialize)]
enum Level {
    Low,
    High,
}

#[derive(ApiType, Serialize, Deserialize)]
struct NamedPort {
    name: String,
    port: i32,
    protocol: Option<String>,
}

#[test]
fn every_marker_lands_at_its_node() {
    let s = schema::<Markers>();
    assert_eq!(
        s["x-kubernetes-validations"],
        json!([{"rule": "self.max >= self.min", "message": "max below min", "reason": "FieldValueInvalid", "fieldPath": ".max"}])
    );
    assert_eq!(
        (
            s["minProperties"].clone(),
            s["maxProperties"].clone(),
            s["title"].clone()
        ),
        (json!(1), json!(4), json!("Markers"))
    );
    assert_eq!(s["x-kubernetes-map-type"], "atomic");
    let p = &s["properties"];
    assert_eq!(
        p["min"],
        json!({"type": "number", "format": "double", "nullable": true, "minimum": -5, "maximum": 5.5, "exclusiveMaximum": true, "multipleOf": 0.5})
    );
    assert_eq!(
        p["max"],
        json!({"type": "integer", "format": "int64", "nullable": true, "minimum": 0, "exclusiveMinimum": true})
    );
    assert_eq!(
        p["host"],
        json!({"type": "string", "nullable": true, "minLength": 1, "maxLength": 63, "pattern": "^[a-z]+$", "format": "hostname"})
    );
    assert_eq!(
        p["set"],
        json!({"type": "array", "items": {"type": "string"}, "nullable": true, "minItems": 1, "maxItems": 3, "x-kubernetes-list-type": "set"})
    );
    assert_eq!(p["atomic"]["x-kubernetes-list-type"], "atomic");
    assert_eq!(p["ports"]["x-kubernetes-list-type"], "map");
    assert_eq!(
        p["ports"]["x-kubernetes-list-map-keys"],
        json!(["name", "port"])
    );
    assert_eq!(p["labels"]["x-kubernetes-map-type"], "granular");
    assert_eq!(p["labels"]["maxProperties"], 2);
    assert_eq!(p["blob"]["x-kubernetes-preserve-unknown-fields"], true);
    assert_eq!(
        p["object"],
        json!({"type": "object", "nullable": true, "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true})
    );
    assert_eq!(
        p["surge"],
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "nullable": true, "x-kubernetes-int-or-string": true})
    );
    assert_eq!(
        p["secret"],
        json!({"type": "string", "title": "T", "example": "e.g.", "format": "password"})
    );
    assert_eq!(p["count"]["example"], 3);
    assert_eq!(
        p["name"]["x-kubernetes-validations"],
        json!([{"rule": "!oldSelf.hasValue() || self.size() >= oldSelf.value().size()", "messageExpression": "'bad ' + self", "optionalOldSelf": true}])
    );
    assert_eq!(p["five"]["default"], 5);
    assert_eq!(p["level"]["default"], "High");
    assert_eq!(
        s["required"],
        json!(["must"]),
        "#[required] forces, #[optional] relaxes"
    );
}

type Name = String;

#[derive(ApiType, Serialize, Deserialize)]
struct HiddenMismatch {
    #[validate(minimum = 1)]
    name: Name,
}

#[test]
fn markers_the_derive_cannot_type_check_are_caught_at_run_time() {
    let s = schema::<HiddenMismatch>();
    let violations = structural::check(&json!({"type": "object", "properties": {"spec": s}}));
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].path, ".spec.name");
    assert!(
        violations[0]
            .rule
            .contains("`minimum` cannot apply to a node of type string")
    );
}

mod as_text {
    pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let s: String = serde::Deserialize::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(ApiType, Serialize, Deserialize)]
struct WireOverride {
    /// Written as text.
    #[serde(with = "as_text")]
    #[schema(with = String)]
    #[validate(pattern = "^[0-9]+$")]
    size: u32,
}

#[test]
fn schema_with_describes_a_custom_wire_format() {
    assert_eq!(
        prop::<WireOverride>("size"),
        json!({"type": "string", "description": "Written as text.", "pattern": "^[0-9]+$"})
    );
    let value = serde_json::to_value(WireOverride { size: 7 }).unwrap();
    let schema = kubegen::validation::Schema::new(&schema::<WireOverride>());
    assert!(kubegen::validation::openapi::validate(&schema, &value, None, None).is_empty());
}

#[derive(ApiType, Serialize, Deserialize)]
#[serde(tag = "kind")]
enum OpenShape {
    Circle {
        radius: f64,
    },
    #[serde(other)]
    Unknown,
}

#[test]
fn open_tagged_enums_keep_the_known_variants_requirements() {
    use kubegen::validation::{Schema, openapi};
    let s = Schema::new(&schema::<OpenShape>());
    let accepts = |v: Value| openapi::validate(&s, &v, None, None).is_empty();
    // serde decodes any other tag as `Unknown`, but a known tag needs its variant's fields.
    assert!(accepts(json!({"kind": "Square", "side": 1})));
    assert!(accepts(json!({"kind": "Circle", "radius": 1.0})));
    assert!(!accepts(json!({"kind": "Circle"})));
    assert!(serde_json::from_value::<OpenShape>(json!({"kind": "Circle"})).is_err());
}

/// Formats the apiserver added in later releases, spelled either way Go looks them up.
#[derive(ApiType, Serialize, Deserialize)]
struct NewerFormats {
    #[validate(format = "k8s-short-name")]
    label: Option<String>,
    #[validate(format = "k8s-long-name")]
    domain: Option<String>,
    #[validate(format = "datetime")]
    at: Option<String>,
}

#[test]
fn every_format_the_apiserver_validates_is_accepted_and_kept() {
    // The derive checks `format` against the list the runtime keeps in a CRD (kubegen-go's):
    // the apiserver v1.36 validates `k8s-short-name` and `k8s-long-name` (recorded in
    // `runtime/core/src/checks/testdata/apiserver.json`), which the derive once refused.
    let s = schema::<NewerFormats>();
    assert_eq!(s["properties"]["label"]["format"], "k8s-short-name");
    assert_eq!(s["properties"]["domain"]["format"], "k8s-long-name");
    assert_eq!(s["properties"]["at"]["format"], "datetime");
    assert!(kubegen_go::formats::names().all(kubegen_go::formats::is_known));
}
