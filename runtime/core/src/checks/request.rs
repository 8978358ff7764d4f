//! What the apiserver does to a custom resource's create or update before its strategy
//! validates it: the request layer's checks (the body's apiVersion, namespace and name
//! against the request's), the name a `generateName` gets, the metadata the server owns, the
//! status a write of the main resource cannot change, and the schema's decoding work (nulls
//! dropped, unknown fields pruned, defaults applied). The in-memory server writes through
//! these, and local validation runs them on the objects it is given.

use serde_json::Value;

use crate::checks::defaulting::{apply_defaults, drop_nulls};

fn meta_str<'a>(object: &'a Value, key: &str) -> &'a str {
    object["metadata"][key].as_str().unwrap_or("")
}

/// The request layer's check of a body's `apiVersion` (a wrong kind is the strategy's to
/// report): the message of the apiserver's `400 BadRequest`. Observed on kube-apiserver
/// v1.36.2: a body without `apiVersion` is `the API version in the data () does not match`.
pub fn check_api_version(body: &Value, expected: &str) -> Result<(), String> {
    // A body without one names the empty version (a `null` one was refused when decoded).
    match body["apiVersion"].as_str().unwrap_or("") {
        v if v != expected => Err(format!(
            "the API version in the data ({v}) does not match the expected API version ({expected})"
        )),
        _ => Ok(()),
    }
}

/// The message of a body whose namespace is not the request's.
pub const NAMESPACE_MISMATCH: &str =
    "the namespace of the provided object does not match the namespace sent on the request";

/// The message of an update whose body names another object than its URL.
pub(crate) fn name_mismatch(body: &str, url: &str) -> String {
    format!("the name of the object ({body}) does not match the name on the URL ({url})")
}

/// What the apiserver checks in a PUT body before it reads the stored object: its
/// apiVersion, its namespace (when it names one) and its name, against the request's.
pub fn check_update_body(
    body: &Value,
    api_version: &str,
    namespace: Option<&str>,
    name: &str,
) -> Result<(), String> {
    check_api_version(body, api_version)?;
    let ns = meta_str(body, "namespace");
    if let Some(expected) = namespace
        && !ns.is_empty()
        && ns != expected
    {
        return Err(NAMESPACE_MISMATCH.to_owned());
    }
    check_name(meta_str(body, "name"), name)
}

/// `checkName`: the name of a PUT body or of a patched object against the URL's.
pub fn check_name(in_body: &str, url: &str) -> Result<(), String> {
    if in_body.is_empty() {
        return Err(format!(
            "the name of the object ({url} based on URL) was undeterminable: name must be provided"
        ));
    }
    if in_body != url {
        return Err(name_mismatch(in_body, url));
    }
    Ok(())
}

/// `EnsureObjectNamespaceMatchesRequestNamespace` on a patched or applied object: a
/// namespaced object takes the request's namespace unless it names another (refused); a
/// cluster-scoped object has none.
#[doc(hidden)] // for the in-memory server
pub fn ensure_namespace(object: &mut Value, namespace: Option<&str>) -> Result<(), String> {
    match namespace {
        Some(expected) => match meta_str(object, "namespace") {
            "" => object["metadata"]["namespace"] = Value::String(expected.to_owned()),
            ns if ns != expected => return Err(NAMESPACE_MISMATCH.to_owned()),
            _ => {}
        },
        None => {
            if let Value::Object(m) = &mut object["metadata"] {
                m.remove("namespace");
            }
        }
    }
    Ok(())
}

/// The resourceVersion of an object as the storage's versioner reads it: none is 0; anything
/// else is a decimal uint64 (Go's `strconv.ParseUint`), or the message of the apiserver's 500.
#[doc(hidden)] // for the in-memory server
pub fn resource_version(rv: &str) -> Result<u64, String> {
    if rv.is_empty() {
        return Ok(0);
    }
    let why = match rv.bytes().all(|b| b.is_ascii_digit()) {
        false => "invalid syntax",
        true => match rv.parse::<u64>() {
            Ok(n) => return Ok(n),
            Err(_) => "value out of range",
        },
    };
    Err(format!(
        "strconv.ParseUint: parsing {}: {why}",
        crate::go_print::quote(rv)
    ))
}

/// The name the apiserver gives an object created with `generateName` alone: the prefix,
/// cut to 58 bytes so the name stays within 63, then five random characters from its
/// alphabet (here the `n`th of a fixed sequence, so names are reproducible). Go cuts bytes,
/// so the cut may fall inside a character; its bytes before the cut are invalid UTF-8 there,
/// which Go's JSON encoder writes as U+FFFD each. Here the character is replaced by one U+FFFD
/// per byte kept, as clients see it (the name is invalid either way: names are ASCII).
pub(crate) fn generated_name(prefix: &str, n: u64) -> String {
    const MAX_PREFIX: usize = 63 - 5;
    let cut = prefix.len().min(MAX_PREFIX);
    let whole = super::names::floor_char_boundary(prefix, cut);
    let suffix = generated_suffix(n);
    let split = "\u{FFFD}".repeat(cut - whole);
    format!("{}{split}{suffix}", &prefix[..whole])
}

/// Five characters of the apiserver's random-name alphabet, the `n`th of a fixed sequence.
pub fn generated_suffix(n: u64) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..5)
        .map(|_| {
            let c = ALPHABET[(x % ALPHABET.len() as u64) as usize] as char;
            x /= ALPHABET.len() as u64;
            c
        })
        .collect()
}

/// The name a create gives the object: its own, or one generated from `generateName`
/// (empty when it has neither, which validation then reports).
pub fn name_for_create(body: &Value, n: u64) -> String {
    match (meta_str(body, "name"), meta_str(body, "generateName")) {
        (name, _) if !name.is_empty() => name.to_owned(),
        (_, prefix) if !prefix.is_empty() => generated_name(prefix, n),
        _ => String::new(),
    }
}

/// The system fields a create sets in `metadata` (`BeforeCreate`): the name, the uid and
/// creation time a store assigns (`identity`; local validation has none to give), generation
/// 1 for a custom resource, and none of the fields only the server writes later.
pub fn fill_create_metadata(
    object: &mut Value,
    name: String,
    identity: Option<(String, String)>,
    generation: bool,
) {
    if !object["metadata"].is_object() {
        object["metadata"] = Value::Object(Default::default());
    }
    let m = &mut object["metadata"];
    m["name"] = Value::String(name);
    if let Some((uid, now)) = identity {
        m["uid"] = Value::String(uid);
        m["creationTimestamp"] = Value::String(now);
    }
    if generation {
        m["generation"] = Value::from(1);
    }
    if let Value::Object(m) = m {
        for k in [
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "resourceVersion",
            "selfLink",
            "managedFields",
        ] {
            m.remove(k);
        }
    }
}

/// What an update keeps of the stored object `existing` whatever the body says
/// (`BeforeUpdate`): the generation, the creation time, the uid when the body has none, the
/// deletion timestamp and grace period once they are set (a body that sets or changes them
/// otherwise is refused by validation: they are immutable), never a selfLink, and with a
/// status subresource the status.
pub fn keep_server_fields(new: &mut Value, existing: &Value, status_subresource: bool) {
    if !new["metadata"].is_object() {
        new["metadata"] = Value::Object(Default::default());
    }
    let old = &existing["metadata"];
    let set = |v: Option<&Value>| v.is_some_and(|v| !v.is_null() && v != "");
    let mut keep = vec!["generation", "creationTimestamp"];
    if !set(new["metadata"].get("uid")) {
        keep.push("uid");
    }
    if set(old.get("deletionTimestamp")) {
        keep.push("deletionTimestamp");
    }
    if set(old.get("deletionGracePeriodSeconds"))
        && !set(new["metadata"].get("deletionGracePeriodSeconds"))
    {
        keep.push("deletionGracePeriodSeconds");
    }
    for k in keep {
        match old.get(k) {
            Some(v) => new["metadata"][k] = v.clone(),
            None => {
                if let Value::Object(m) = &mut new["metadata"] {
                    m.remove(k);
                }
            }
        }
    }
    if let Value::Object(m) = &mut new["metadata"] {
        m.remove("selfLink");
        for k in ["uid", "deletionTimestamp", "deletionGracePeriodSeconds"] {
            if m.get(k).is_some_and(Value::is_null) {
                m.remove(k);
            }
        }
    }
    if status_subresource {
        match existing.get("status") {
            Some(s) => new["status"] = s.clone(),
            None => {
                if let Value::Object(m) = new {
                    m.remove("status");
                }
            }
        }
    }
}

/// A write through the status subresource: the stored object with the body's status.
pub fn with_status_of(existing: &Value, body: &Value) -> Value {
    let Value::Object(fields) = existing else {
        return existing.clone();
    };
    // The stored status is left behind rather than copied and replaced.
    let mut result: serde_json::Map<String, Value> = (fields.iter())
        .filter(|(k, _)| *k != "status")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(status) = body.get("status").filter(|s| !s.is_null()) {
        result.insert("status".to_owned(), status.clone());
    }
    Value::Object(result)
}

/// Why an update's uid precondition failed, in the store's words (naming the object's etcd
/// key).
pub fn uid_precondition_failed(key: &str, uid: &str, current: &str) -> String {
    format!(
        "StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, \
         AdditionalErrorMsg: Precondition failed: UID in precondition: {uid}, \
         UID in object meta: {current}"
    )
}

/// Why an update of a stale resourceVersion failed.
pub const MODIFIED: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

/// The schema's work on a written object, as decoding does it: nulls the schema does not
/// allow dropped, undeclared fields pruned, defaults applied.
pub fn prepare(schema: &Value, object: &mut Value) {
    drop_nulls(schema, object);
    super::decode::prune(schema, object);
    apply_defaults(schema, object);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_stay_within_63_characters() {
        let name = generated_name("web-", 1);
        assert_eq!(name.len(), 9);
        assert!(name.starts_with("web-"));
        let long = "a".repeat(100);
        let name = generated_name(&long, 1);
        assert_eq!(name.len(), 63);
        assert!(name.starts_with(&"a".repeat(58)));
        // 59 bytes: the dash after 58 is cut, as the apiserver cuts it.
        let name = generated_name(&format!("{}-", "a".repeat(58)), 1);
        assert_eq!(&name[..58], "a".repeat(58));
        assert!(!name.contains('-'));
    }

    #[test]
    fn a_cut_inside_a_character_keeps_its_bytes_as_replacement_characters() {
        // 81 bytes: the 58th byte is the first of an `é`.
        let prefix = format!("a{}", "é".repeat(40));
        let name = generated_name(&prefix, 7);
        let kept = format!("a{}\u{FFFD}", "é".repeat(28));
        assert!(name.starts_with(&kept), "{name}");
        assert_eq!(name.chars().count(), 28 + 2 + 5);
        // A cut on a boundary keeps whole characters only.
        let name = generated_name(&"é".repeat(40), 7);
        assert!(name.starts_with(&"é".repeat(29)) && !name.contains('\u{FFFD}'));
        for prefix in ["€".repeat(30), "😀".repeat(20), "fz-ä-".into()] {
            generated_name(&prefix, 3);
        }
    }
}
