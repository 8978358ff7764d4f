//! JSON patches (RFC 6902) applied as the apiserver applies them: with
//! `gopkg.in/evanphx/json-patch.v4` (`patch.go`), which is more lenient than the RFC and than
//! the `json-patch` crate. What a client can observe of it:
//!
//! - a path is split at every `/` and its first segment ignored, so `spec/s` names the
//!   top-level `s`, and `~2` is no error (only `~0` and `~1` are escapes);
//! - `add` and `replace` without a `value` write `null`; `replace` of a missing key adds it;
//! - `copy` from a missing key writes `null`; `test` of a missing key against `null` passes;
//! - array indexes are Go's `strconv.Atoi` numbers (`+1`, `01`), negative ones counting from
//!   the end;
//! - `copy` may add at most 3 MiB (the apiserver's `JSONPatchMaxCopyBytes`).
//!
//! Any failure is the same answer to a client (422, see
//! [`ApiError::patch_not_applicable`](super::status::ApiError::patch_not_applicable)); the
//! error says which rule refused, for tests and debugging.

use serde_json::{Map, Value};

/// The most bytes `copy` operations of one patch may add (`JSONPatchMaxCopyBytes`).
const MAX_COPY_BYTES: usize = 3 * 1024 * 1024;

/// The most operations the apiserver applies from one patch (`maxJSONPatchOperations`).
pub(super) const MAX_OPERATIONS: usize = 10_000;

/// A decoded JSON patch: its operations as sent (objects, or `null`).
#[derive(Clone, Debug, Default)]
pub(super) struct Patch(pub Vec<Value>);

/// Why a patch does not apply.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(super) struct NotApplicable(String);

fn fail<T>(why: impl Into<String>) -> Result<T, NotApplicable> {
    Err(NotApplicable(why.into()))
}

impl Patch {
    /// Applies every operation to `doc` in order; on failure `doc` is left part-patched
    /// (callers discard it, as the apiserver does).
    pub(super) fn apply(&self, doc: &mut Value) -> Result<(), NotApplicable> {
        let mut copied = 0;
        for op in &self.0 {
            let op = Operation(op.as_object());
            match op.kind() {
                "add" => add(doc, &op.path()?, op.value()),
                "remove" => remove(doc, &op.path()?).map(drop),
                "replace" => replace(doc, &op.path()?, op.value()),
                "move" => {
                    let from = op.from()?;
                    let value = take(doc, &from)?;
                    add(doc, &op.path()?, value)
                }
                "copy" => {
                    let from = op.from()?;
                    let value = get(doc, &from)?.cloned().unwrap_or(Value::Null);
                    // A missing value copies as nothing (Go's nil): no bytes counted.
                    if !value.is_null() {
                        copied += kubegen_go::json::to_vec(&value).len();
                    }
                    if copied > MAX_COPY_BYTES {
                        return fail(format!(
                            "Unable to complete the copy, the accumulated size increase of copy is {copied}, exceeding the limit {MAX_COPY_BYTES}"
                        ));
                    }
                    add(doc, &op.path()?, value)
                }
                "test" => test(doc, &op.path()?, op.0.and_then(|o| o.get("value"))),
                other => fail(format!("Unexpected kind: {other}")),
            }?;
        }
        Ok(())
    }
}

/// One operation: a JSON object (`None` for `null`), read field by field as Go's
/// `map[string]*json.RawMessage`.
struct Operation<'a>(Option<&'a Map<String, Value>>);

impl Operation<'_> {
    fn field(&self, name: &str) -> Option<&Value> {
        self.0.and_then(|o| o.get(name)).filter(|v| !v.is_null())
    }

    /// `op`, or `unknown` when it is missing or no string.
    fn kind(&self) -> &str {
        self.field("op")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
    }

    fn path(&self) -> Result<String, NotApplicable> {
        self.text("path")
    }

    fn from(&self) -> Result<String, NotApplicable> {
        self.text("from")
    }

    fn text(&self, name: &str) -> Result<String, NotApplicable> {
        match self.field(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => fail(format!("operation {name} field is no string")),
            None => fail(format!("missing value: operation missing {name} field")),
        }
    }

    /// `value`: a missing value and `null` both write `null`.
    fn value(&self) -> Value {
        self.field("value").cloned().unwrap_or(Value::Null)
    }
}

/// `findObject`: the container the path's last segment is in, and that segment (unescaped).
/// The path's first segment is skipped whatever it says.
fn find<'d>(doc: &'d mut Value, path: &str) -> Option<(&'d mut Value, String)> {
    let mut segments: Vec<&str> = path.split('/').collect();
    if segments.len() < 2 {
        return None;
    }
    let key = unescape(segments.pop()?);
    let mut container = doc;
    for part in &segments[1..] {
        let part = unescape(part);
        let next = match container {
            Value::Object(m) => m.get_mut(&part),
            Value::Array(items) => {
                let i = index(&part, items.len()).ok()?;
                items.get_mut(i)
            }
            _ => None,
        }?;
        // Null is Go's nil (missing); scalars are no containers.
        if !(next.is_object() || next.is_array()) {
            return None;
        }
        container = next;
    }
    Some((container, key))
}

/// `~1` is `/` and `~0` is `~`, replaced left to right; other `~`s stay.
fn unescape(segment: &str) -> String {
    if !segment.contains('~') {
        return segment.to_owned();
    }
    let mut out = String::with_capacity(segment.len());
    let mut rest = segment;
    while let Some(at) = rest.find('~') {
        out.push_str(&rest[..at]);
        match rest.as_bytes().get(at + 1) {
            Some(b'1') => out.push('/'),
            Some(b'0') => out.push('~'),
            _ => {
                out.push('~');
                rest = &rest[at + 1..];
                continue;
            }
        }
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits within an int64.
fn atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Rust's parser takes the same sign and digits.
    s.parse().ok()
}

/// An index of an existing element of an array of `len` items (negative: from the end).
fn index(key: &str, len: usize) -> Result<usize, NotApplicable> {
    let Some(i) = atoi(key) else {
        return fail(format!("strconv.Atoi: parsing {key:?}: invalid syntax"));
    };
    let len = i64::try_from(len).unwrap_or(i64::MAX);
    let i = if i < 0 { i + len } else { i };
    match usize::try_from(i) {
        Ok(i) if i64::try_from(i).is_ok_and(|i| i < len) => Ok(i),
        _ => fail(format!("Unable to access invalid index: {key}")),
    }
}

/// The value at `path` (`None` where an object has no such key).
fn get<'d>(doc: &'d mut Value, path: &str) -> Result<Option<&'d Value>, NotApplicable> {
    let Some((container, key)) = find(doc, path) else {
        return fail(format!("doc is missing path: {path:?}"));
    };
    match container {
        Value::Object(m) => Ok(m.get(&key)),
        Value::Array(items) => {
            let i = index(&key, items.len())?;
            Ok(items.get(i))
        }
        _ => fail("unknown container"),
    }
}

fn add(doc: &mut Value, path: &str, value: Value) -> Result<(), NotApplicable> {
    let Some((container, key)) = find(doc, path) else {
        return fail(format!(
            "add operation does not apply: doc is missing path: {path:?}"
        ));
    };
    match container {
        Value::Object(m) => {
            m.insert(key, value);
            Ok(())
        }
        Value::Array(items) => {
            if key == "-" {
                items.push(value);
                return Ok(());
            }
            // One past the end is allowed; negative indexes count from the new length.
            let i = index(&key, items.len() + 1)?;
            items.insert(i, value);
            Ok(())
        }
        _ => fail("unknown container"),
    }
}

/// Removes and returns the value at `path` (an object's key must exist, `null` or not).
fn remove(doc: &mut Value, path: &str) -> Result<Value, NotApplicable> {
    let Some((container, key)) = find(doc, path) else {
        return fail(format!(
            "remove operation does not apply: doc is missing path: {path:?}"
        ));
    };
    match container {
        Value::Object(m) => match m.remove(&key) {
            Some(v) => Ok(v),
            None => fail(format!("Unable to remove nonexistent key: {key}")),
        },
        Value::Array(items) => {
            let i = index(&key, items.len())?;
            Ok(items.remove(i))
        }
        _ => fail("unknown container"),
    }
}

/// `move`'s first half: the value at `from` (`null` where an object has the key as `null`),
/// removed.
fn take(doc: &mut Value, from: &str) -> Result<Value, NotApplicable> {
    get(doc, from)?;
    remove(doc, from)
}

fn replace(doc: &mut Value, path: &str, value: Value) -> Result<(), NotApplicable> {
    if path.is_empty() {
        // Only an object or an array replaces the document.
        if !(value.is_object() || value.is_array()) {
            return fail("replace operation value must be object or array");
        }
        *doc = value;
        return Ok(());
    }
    let Some((container, key)) = find(doc, path) else {
        return fail(format!(
            "replace operation does not apply: doc is missing path: {path}"
        ));
    };
    match container {
        // A missing key is added.
        Value::Object(m) => {
            m.insert(key, value);
            Ok(())
        }
        Value::Array(items) => {
            let i = index(&key, items.len())?;
            items[i] = value;
            Ok(())
        }
        _ => fail("unknown container"),
    }
}

/// `test`: the value at `path` equals `expected`; a missing or `null` value equals `null`.
fn test(doc: &mut Value, path: &str, expected: Option<&Value>) -> Result<(), NotApplicable> {
    let failed = || fail(format!("testing value {path} failed"));
    if path.is_empty() {
        return match expected {
            Some(e) if e == doc => Ok(()),
            _ => failed(),
        };
    }
    let actual = get(doc, path)?.filter(|v| !v.is_null());
    match (actual, expected) {
        (None, Some(Value::Null) | None) => Ok(()),
        (Some(a), Some(e)) if a == e => Ok(()),
        _ => failed(),
    }
}

/// A JSON merge patch (RFC 7386) applied as evanphx/json-patch v4's `MergePatch` applies it
/// (`merge.go`): a `null` removes its key; a value for a key the document lacks (or holds as
/// `null`), or one replacing a value that is no object, has its nulls pruned — in objects at
/// any depth, objects inside arrays included, though `null` items of an array stay; an array
/// or scalar replacing an object is taken as it is, nulls and all.
pub(super) fn merge(doc: &mut Value, patch: &Value) {
    let Value::Object(changes) = patch else {
        *doc = patch.clone();
        return;
    };
    if !doc.is_object() {
        *doc = Value::Object(Map::new());
    }
    // An iterative walk: a patch may be nested as deep as the decoder admits.
    let mut pending = vec![(doc, changes)];
    while let Some((target, changes)) = pending.pop() {
        let Value::Object(fields) = target else {
            continue;
        };
        for (key, change) in changes {
            match (fields.get(key), change) {
                (_, Value::Null) => {
                    fields.remove(key);
                }
                // Merged below.
                (Some(Value::Object(_)), Value::Object(_)) => {}
                (Some(Value::Object(_)), other) => {
                    fields.insert(key.clone(), other.clone());
                }
                _ => {
                    let mut value = change.clone();
                    prune_nulls(&mut value);
                    fields.insert(key.clone(), value);
                }
            }
        }
        for (key, value) in fields.iter_mut() {
            if let (Value::Object(_), Some(Value::Object(nested))) = (&*value, changes.get(key)) {
                pending.push((value, nested));
            }
        }
    }
}

/// evanphx's `pruneNulls`: drops the `null` fields of every object in `value`, also inside
/// arrays; an array's `null` items stay.
fn prune_nulls(value: &mut Value) {
    let mut pending = vec![value];
    while let Some(v) = pending.pop() {
        match v {
            Value::Object(fields) => {
                fields.retain(|_, f| !f.is_null());
                pending.extend(fields.values_mut());
            }
            Value::Array(items) => pending.extend(items.iter_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn patched(doc: Value, ops: Value) -> Result<Value, NotApplicable> {
        let Value::Array(ops) = ops else {
            panic!("a list of operations")
        };
        let mut doc = doc;
        Patch(ops).apply(&mut doc)?;
        Ok(doc)
    }

    #[test]
    fn paths_skip_their_first_segment_and_keep_unknown_escapes() {
        let doc = json!({"spec": {"a": 1}});
        let out = patched(
            doc.clone(),
            json!([{"op": "add", "path": "spec/s", "value": 2}]),
        );
        assert_eq!(out, Ok(json!({"spec": {"a": 1}, "s": 2})));
        let out = patched(
            doc,
            json!([{"op": "add", "path": "/spec/a~2b~01", "value": 2}]),
        );
        assert_eq!(out, Ok(json!({"spec": {"a": 1, "a~2b~1": 2}})));
    }

    #[test]
    fn missing_values_are_null_and_replace_adds() {
        let doc = json!({"a": 1});
        let out = patched(
            doc,
            json!([
                {"op": "add", "path": "/b"},
                {"op": "replace", "path": "/c", "value": 3},
                {"op": "copy", "from": "/nope", "path": "/d"},
                {"op": "test", "path": "/nope", "value": null},
            ]),
        );
        assert_eq!(out, Ok(json!({"a": 1, "b": null, "c": 3, "d": null})));
    }

    #[test]
    fn what_does_not_apply() {
        let doc = json!({"a": {"b": "s"}, "l": [1]});
        for ops in [
            json!([{"op": "remove", "path": "/x"}]),
            json!([{"op": "move", "from": "/x", "path": "/y"}]),
            json!([{"op": "add", "path": "/x/y", "value": 1}]),
            json!([{"op": "add", "path": "/a/b/c", "value": 1}]),
            json!([{"op": "add", "path": "/l/2", "value": 1}]),
            json!([{"op": "remove", "path": "/l/-2"}]),
            json!([{"op": "add", "path": "", "value": 1}]),
            json!([{"op": "replace", "path": "", "value": "x"}]),
            json!([{"op": "test", "path": "/a/b", "value": "t"}]),
            json!([{"op": "test", "path": "/a/b"}]),
            json!([{"op": "bogus", "path": "/a"}]),
            json!([{"path": "/a"}]),
            json!([{"op": "add", "value": 1}]),
            json!([null]),
        ] {
            assert!(patched(doc.clone(), ops.clone()).is_err(), "{ops}");
        }
    }

    #[test]
    fn array_indexes_are_go_integers() {
        let doc = json!({"l": ["a"]});
        let out = patched(
            doc,
            json!([
                {"op": "add", "path": "/l/-", "value": "c"},
                {"op": "add", "path": "/l/+1", "value": "b"},
                {"op": "add", "path": "/l/-1", "value": "d"},
                {"op": "replace", "path": "/l/-4", "value": "A"},
                {"op": "test", "path": "/l/03", "value": "d"},
            ]),
        );
        assert_eq!(out, Ok(json!({"l": ["A", "b", "c", "d"]})));
        assert_eq!(atoi("99999999999999999999"), None);
        assert_eq!(atoi("-"), None);
    }

    #[test]
    fn copies_are_limited_to_3_mib() {
        let doc = json!({"a": "x".repeat(1024 * 1024)});
        let copy = |to: &str| json!({"op": "copy", "from": "/a", "path": to});
        assert!(patched(doc.clone(), json!([copy("/b"), copy("/c")])).is_ok());
        assert!(patched(doc, json!([copy("/b"), copy("/c"), copy("/d")])).is_err());
    }

    // Observed on kube-apiserver v1.36.2 (tests/fuzz): `{"three": null}` inside a new array
    // is stored as `{}`.
    #[test]
    fn merge_patches_prune_nulls_as_evanphx_does() {
        let merged = |mut doc: Value, patch: Value| {
            merge(&mut doc, &patch);
            doc
        };
        assert_eq!(
            merged(
                json!({"a": 1}),
                json!({"free": {"any": [1, null, {"three": null}]}})
            ),
            json!({"a": 1, "free": {"any": [1, null, {}]}})
        );
        // An array or scalar replacing an object is taken whole; one replacing a scalar is
        // pruned.
        assert_eq!(
            merged(
                json!({"o": {"k": 1}, "s": 1}),
                json!({"o": [{"x": null}], "s": [{"x": null}]})
            ),
            json!({"o": [{"x": null}], "s": [{}]})
        );
        // Objects merge key by key; nulls remove.
        assert_eq!(
            merged(
                json!({"o": {"k": 1, "j": 2}}),
                json!({"o": {"k": null, "n": {"z": null}}})
            ),
            json!({"o": {"j": 2, "n": {}}})
        );
    }
}
