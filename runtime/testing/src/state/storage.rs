//! The size limits of the apiserver's storage: etcd refuses a request over
//! `--max-request-bytes` (1.5 MiB by default: `etcdserver: request is too large`), and the
//! apiserver's etcd client refuses to send a gRPC message over 2 MiB. What is stored is the
//! object's JSON without its resourceVersion, put in a transaction
//! (`kubernetes.OptimisticPut`) whose protobuf framing is counted here as etcd counts it. The
//! handlers retry a create, update, merge or JSON patch once without managedFields when the
//! object is too large (`isTooLargeError`); server-side apply is not retried.

use serde_json::Value;

use super::ApiError;

/// etcd's default `--max-request-bytes`.
const MAX_REQUEST_BYTES: usize = 1536 * 1024;

/// The apiserver's etcd client's largest gRPC message (`MaxCallSendMsgSize`).
const MAX_SEND_BYTES: usize = 2 * 1024 * 1024;

/// The bytes of the request header etcd adds before it checks the size: the header field
/// (two bytes of tag, one of length) around a request ID (a tag and a 9-byte varint for the
/// IDs etcd generates).
const RAFT_HEADER_BYTES: usize = 3 + 1 + 9;

/// Bytes of a protobuf varint holding `n`.
fn varint(n: usize) -> usize {
    let bits = usize::BITS - n.max(1).leading_zeros();
    bits.div_ceil(7) as usize
}

/// A length-delimited protobuf field of `len` bytes: tag, length, content.
fn field(len: usize) -> usize {
    1 + varint(len) + len
}

/// The size of the etcd transaction that stores `value` at `key`: a compare of the key's
/// mod revision with `revision` (0 for a create), the put, and for an update the get sent
/// back on failure.
fn transaction(key: usize, value: usize, revision: u64, update: bool) -> usize {
    let compare = 2 + field(key) + 1 + varint(usize::try_from(revision).unwrap_or(usize::MAX));
    let put = field(key) + field(value);
    let mut size = field(compare) + field(field(put));
    if update {
        size += field(field(field(key)));
    }
    size
}

/// Why the storage refuses to store `object` (its stored JSON, without resourceVersion)
/// at `key`: the apiserver's 500, with the message of the error etcd or its client gave.
pub(super) fn check(
    key: &str,
    object: &Value,
    revision: u64,
    update: bool,
) -> Result<(), ApiError> {
    // Most objects fit even at the longest their JSON could be; only the others are written
    // out to measure.
    let size = |value| transaction(key.len(), value, revision, update);
    fits(size(longest_json(object) + 1)).or_else(|_| fits(size(stored_len(object))))
}

/// Whether a transaction of `size` bytes gets through the apiserver's etcd client and etcd.
fn fits(size: usize) -> Result<(), ApiError> {
    if size > MAX_SEND_BYTES {
        return Err(ApiError::internal(format!(
            "rpc error: code = ResourceExhausted desc = trying to send message larger than max ({size} vs. {MAX_SEND_BYTES})"
        )));
    }
    if field(size) + RAFT_HEADER_BYTES > MAX_REQUEST_BYTES {
        return Err(ApiError::internal("etcdserver: request is too large"));
    }
    Ok(())
}

/// The length of `object`'s JSON as stored: Go's encoder's (with its closing newline),
/// without the resourceVersion.
fn stored_len(object: &Value) -> usize {
    let json = kubegen_go::json::to_vec(object).len() + 1;
    match object["metadata"]["resourceVersion"].as_str() {
        // `,"resourceVersion":"…"` or the same with the comma after it.
        Some(rv) => json - (r#","resourceVersion":"""#.len() + rv.len()),
        None => json,
    }
}

/// The most bytes Go's encoder could write for `value`: a string's byte at most as a
/// six-byte escape (`\u003c`, or `\ufffd` for invalid UTF-8) plus its quotes, a number in
/// at most 32 bytes. Counted without writing anything.
fn longest_json(value: &Value) -> usize {
    let string = |s: &str| 6 * s.len() + 2;
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 32,
        Value::String(s) => string(s),
        Value::Array(items) => 2 + items.len() + items.iter().map(longest_json).sum::<usize>(),
        Value::Object(fields) => {
            let each = fields.iter().map(|(k, v)| string(k) + 1 + longest_json(v));
            2 + fields.len() + each.sum::<usize>()
        }
    }
}

/// The etcd key of an object of a custom resource (`/registry/<group>/<plural>/[<ns>/]<name>`).
/// A built-in resource's etcd prefix: its resource name, or the legacy name a few kept.
pub(super) fn builtin_prefix(plural: &str) -> &str {
    match plural {
        "services" => "services/specs",
        "endpoints" => "services/endpoints",
        "nodes" => "minions",
        "replicationcontrollers" => "controllers",
        "ingresses" => "ingress",
        other => other,
    }
}

pub(super) fn key(group: &str, plural: &str, namespace: &str, name: &str) -> String {
    match namespace {
        "" if group.is_empty() => format!("/registry/{plural}/{name}"),
        "" => format!("/registry/{group}/{plural}/{name}"),
        ns if group.is_empty() => format!("/registry/{plural}/{ns}/{name}"),
        ns => format!("/registry/{group}/{plural}/{ns}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_fields() {
        assert_eq!(varint(0), 1);
        assert_eq!(varint(127), 1);
        assert_eq!(varint(128), 2);
        assert_eq!(varint(2_097_151), 3);
        assert_eq!(varint(2_097_152), 4);
        assert_eq!(field(44), 46);
    }

    #[test]
    fn objects_over_the_limits_are_refused() {
        let key = key("g.example", "widgets", "default", "w");
        let object = |n: usize| serde_json::json!({"metadata": {"name": "w"}, "s": "x".repeat(n)});
        assert!(check(&key, &object(1_000_000), 0, false).is_ok());
        let e = check(&key, &object(1_600_000), 0, false).unwrap_err();
        assert_eq!(e.message, "etcdserver: request is too large");
        let e = check(&key, &object(2_500_000), 7, true).unwrap_err();
        assert!(
            e.message.starts_with("rpc error: code = ResourceExhausted"),
            "{}",
            e.message
        );
        // An object whose longest JSON is over the limits is measured, and may fit.
        let plain = serde_json::json!({"metadata": {"name": "w"}, "s": "x".repeat(300_000)});
        assert!(longest_json(&plain) > MAX_REQUEST_BYTES);
        assert!(check(&key, &plain, 0, false).is_ok());
        // Go writes `<` as `\u003c`: the same length of it is too large.
        let escaped = serde_json::json!({"metadata": {"name": "w"}, "s": "<".repeat(300_000)});
        let e = check(&key, &escaped, 0, false).unwrap_err();
        assert_eq!(e.message, "etcdserver: request is too large");
    }

    /// The bound is never under what Go's encoder writes.
    #[test]
    fn the_longest_json_bounds_the_written_json() {
        let values = [
            serde_json::json!(null),
            serde_json::json!(false),
            serde_json::json!(-1.2345678901234567e-308),
            serde_json::json!(u64::MAX),
            serde_json::json!({"<a&>": ["\u{2028}", "\u{1}", {"": []}], "b": {}}),
            serde_json::json!([[], {}, "", 0, true]),
        ];
        for value in &values {
            let written = kubegen_go::json::to_vec(value).len();
            assert!(longest_json(value) >= written, "{value}: {written}");
        }
    }
}
