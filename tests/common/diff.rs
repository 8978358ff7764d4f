//! Where two JSON values differ, as `path: ours != <theirs> value` lines: what the conformance
//! suites print for an answer or a snapshot that differs from the real server's.

use serde_json::Value;

/// The differences between `ours` and `theirs` under `path`, `who` naming the other side.
pub fn diff(path: &str, ours: &Value, theirs: &Value, who: &str) -> Vec<String> {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            let missing = Value::String("(missing)".into());
            keys.into_iter()
                .flat_map(|k| {
                    diff(
                        &format!("{path}/{k}"),
                        a.get(k).unwrap_or(&missing),
                        b.get(k).unwrap_or(&missing),
                        who,
                    )
                })
                .collect()
        }
        // Lists of objects: matched by kind and name.
        (Value::Array(a), Value::Array(b))
            if a.iter().chain(b).all(|v| v.get("name").is_some()) =>
        {
            let key = |v: &Value| {
                format!(
                    "{} {}",
                    v["kind"].as_str().unwrap_or(""),
                    v["name"].as_str().unwrap_or("")
                )
            };
            let mut keys: Vec<String> = a.iter().chain(b).map(key).collect();
            keys.sort();
            keys.dedup();
            let missing = Value::String("(missing)".into());
            keys.into_iter()
                .flat_map(|k| {
                    let x: Vec<&Value> = a.iter().filter(|v| key(v) == k).collect();
                    let y: Vec<&Value> = b.iter().filter(|v| key(v) == k).collect();
                    match (x.len(), y.len()) {
                        (1, 1) => diff(&format!("{path}[{k}]"), x[0], y[0], who),
                        (0, _) => diff(
                            &format!("{path}[{k}]"),
                            &missing,
                            &Value::from(y.len()),
                            who,
                        ),
                        (_, 0) => diff(
                            &format!("{path}[{k}]"),
                            &Value::from(x.len()),
                            &missing,
                            who,
                        ),
                        // Several of one name (a generated one's pattern): compared in order.
                        (n, m) if n == m => {
                            let mut x = x;
                            let mut y = y;
                            x.sort_by_key(|v| v.to_string());
                            y.sort_by_key(|v| v.to_string());
                            x.iter()
                                .zip(&y)
                                .enumerate()
                                .flat_map(|(i, (p, q))| {
                                    diff(&format!("{path}[{k}#{i}]"), p, q, who)
                                })
                                .collect()
                        }
                        (n, m) => diff(
                            &format!("{path}[{k}]"),
                            &Value::from(n),
                            &Value::from(m),
                            who,
                        ),
                    }
                })
                .collect()
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .flat_map(|(i, (x, y))| diff(&format!("{path}/{i}"), x, y, who))
            .collect(),
        (a, b) if a == b => Vec::new(),
        (a, b) => vec![format!("{path}: ours {a} != {who} {b}")],
    }
}
