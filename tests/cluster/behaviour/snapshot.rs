//! What the cluster holds after a step, normalized so that two clusters that did the same
//! compare equal: uids, resourceVersions and times blanked, names the cluster generated
//! written by their pattern (a random suffix is `*`; a template hash is `<hash-N>`, numbered
//! in the order the objects carrying it were created; a CronJob's scheduled-time suffix is
//! `<time-N>`), objects compared as a sorted list, events as the set of what they say.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

/// Labels whose values are hashes the controllers compute from a template.
const HASH_LABELS: [&str; 2] = ["pod-template-hash", "controller-revision-hash"];
/// The sources of events from kube-controller-manager's controllers the in-memory server does
/// not run: the persistent-volume binder reports every claim it cannot bind (a cluster
/// without volumes or a storage class), which changes nothing else.
const UNMODELLED_SOURCES: [&str; 1] = ["persistentvolume-controller"];
/// Characters of Kubernetes' random suffixes (`utilrand.String`).
const RANDOM_ALPHABET: &str = "bcdfghjklmnpqrstvwxz2456789";

/// A scenario's memory of the generated names and hashes it has seen, so that they keep
/// their placeholder from step to step.
#[derive(Default)]
pub struct Normalizer {
    /// Names the scenario itself gave.
    pub known: BTreeSet<String>,
    hashes: BTreeMap<String, String>,
    times: BTreeMap<String, String>,
}

impl Normalizer {
    /// Learns the hashes `objects` carry, in the order of their creation.
    fn learn(&mut self, objects: &[Value]) {
        let mut carriers: Vec<(&str, u64, &str)> = Vec::new();
        for o in objects {
            let meta = &o["metadata"];
            let created = meta["creationTimestamp"].as_str().unwrap_or("");
            let rv = meta["resourceVersion"]
                .as_str()
                .and_then(|r| r.parse().ok())
                .unwrap_or(0);
            for label in HASH_LABELS {
                if let Some(hash) = meta["labels"][label].as_str() {
                    carriers.push((created, rv, hash));
                }
            }
        }
        carriers.sort();
        for (_, _, hash) in carriers {
            if !self.hashes.contains_key(hash) {
                let n = self.hashes.len() + 1;
                self.hashes.insert(hash.to_owned(), format!("<hash-{n}>"));
            }
        }
    }

    /// The pattern of a name the cluster may have generated.
    fn name(&mut self, name: &str) -> String {
        if self.known.contains(name) {
            return name.to_owned();
        }
        let mut parts: Vec<String> = name.split('-').map(str::to_owned).collect();
        for part in parts.iter_mut() {
            if let Some(h) = self.hashes.get(part.as_str()) {
                *part = h.clone();
            }
        }
        // A CronJob's Job is named for its scheduled minute, and so are its Pods.
        for j in 1..parts.len() {
            let part = parts[j].clone();
            let minutes = part.len() >= 8 && part.chars().all(|c| c.is_ascii_digit());
            if minutes && self.known.contains(&parts[..j].join("-")) {
                let count = self.times.len() + 1;
                parts[j] = self
                    .times
                    .entry(part)
                    .or_insert_with(|| format!("<time-{count}>"))
                    .clone();
            }
        }
        let n = parts.len() - 1;
        let last = &parts[n];
        if n > 0 && last.len() == 5 && last.chars().all(|c| RANDOM_ALPHABET.contains(c)) {
            parts[n] = "*".into();
        }
        parts.join("-")
    }
}

/// Normalizes one snapshot: `objects` are the stored objects (the Namespace, cluster-scoped
/// ones and every watched kind's in the namespace), `events` the namespace's core Events.
pub fn normalize(
    norm: &mut Normalizer,
    namespace: &str,
    objects: Vec<Value>,
    events: Vec<Value>,
) -> Value {
    norm.learn(&objects);
    // Every generated name seen, with its pattern, replaced wherever it appears.
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    let mut uids = BTreeSet::new();
    for o in &objects {
        if let Some(name) = o["metadata"]["name"].as_str() {
            renames.insert(name.to_owned(), norm.name(name));
        }
        if let Some(uid) = o["metadata"]["uid"].as_str() {
            uids.insert(uid.to_owned());
        }
    }
    for e in &events {
        if let Some(name) = e["involvedObject"]["name"].as_str() {
            renames.insert(name.to_owned(), norm.name(name));
        }
        // Names an event mentions of objects already gone ("Deleted pod: web-x2k9p").
        let message = e["message"].as_str().unwrap_or("");
        for word in message.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.')) {
            if word.contains('-') && !renames.contains_key(word) {
                let pattern = norm.name(word);
                if pattern != word {
                    renames.insert(word.to_owned(), pattern);
                }
            }
        }
    }
    let hashes = norm.hashes.clone();
    let fix = |s: &str| -> String {
        if looks_like_time(s) {
            return "<time>".into();
        }
        if uids.contains(s) || looks_like_uid(s) {
            return "<uid>".into();
        }
        let mut out = blank_uids(&s.replace(namespace, "{ns}"));
        for (from, to) in renames.iter().rev() {
            if from != to && out.contains(from.as_str()) {
                out = replace_word(&out, from, to);
            }
        }
        // A hash also stands between dashes in a name no object holds any more (a deleted
        // Pod's `web-<hash>-*`, a pruned ReplicaSet's `web-<hash>`).
        let mut out = random_suffixes(&out);
        for (from, to) in &hashes {
            if out.contains(from.as_str()) {
                out = replace_segment(&out, from, to);
            }
        }
        random_suffixes(&out)
    };
    let mut items: Vec<Value> = objects
        .into_iter()
        .filter(|o| o["metadata"]["name"] != "openshift-service-ca.crt")
        .map(|o| summary(o, &fix))
        .collect();
    items.sort_by_key(|v| v.to_string());
    let mut said: BTreeSet<String> = BTreeSet::new();
    for e in events {
        if UNMODELLED_SOURCES.contains(&e["source"]["component"].as_str().unwrap_or("")) {
            continue;
        }
        let line = json!({
            "on": format!("{} {}", e["involvedObject"]["kind"].as_str().unwrap_or(""), fix(e["involvedObject"]["name"].as_str().unwrap_or(""))),
            "type": e["type"],
            "reason": e["reason"],
            "message": fix(e["message"].as_str().unwrap_or("")),
            "source": e["source"]["component"],
        });
        said.insert(line.to_string());
    }
    json!({
        "objects": items,
        "events": said.into_iter().map(|l| serde_json::from_str::<Value>(&l).unwrap_or_default()).collect::<Vec<_>>(),
    })
}

/// What is compared of one object.
fn summary(mut o: Value, fix: &impl Fn(&str) -> String) -> Value {
    let kind = o["kind"].as_str().unwrap_or("").to_owned();
    let meta = o["metadata"].take();
    let mut managers: Vec<String> = meta["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            format!(
                "{} {}{}",
                m["manager"].as_str().unwrap_or(""),
                m["operation"].as_str().unwrap_or(""),
                m["subresource"]
                    .as_str()
                    .map(|s| format!(" /{s}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    managers.sort();
    managers.dedup();
    let mut annotations = meta["annotations"].clone();
    if let Some(a) = annotations.as_object_mut() {
        a.remove("kubectl.kubernetes.io/last-applied-configuration");
    }
    let mut out = json!({
        "kind": kind,
        "name": meta["name"],
        "labels": meta["labels"],
        "annotations": annotations,
        "ownerReferences": meta["ownerReferences"].as_array().map(|refs| refs.iter().map(|r| json!({
            "kind": r["kind"], "name": r["name"], "controller": r["controller"], "blockOwnerDeletion": r["blockOwnerDeletion"],
        })).collect::<Vec<_>>()),
        "finalizers": meta["finalizers"],
        "deleting": meta["deletionTimestamp"].is_string(),
        "generation": meta["generation"],
        "managers": managers,
    });
    // A Pod's spec is its template's (and the recorded build's token volume differs, see
    // the guide, `docs/src/cluster.md`); its status says what happened.
    if kind != "Pod" {
        out["spec"] = o["spec"].take();
        out["data"] = o["data"].take();
    }
    out["status"] = o["status"].take();
    if kind == "Pod" && out["status"].is_object() {
        blank_addresses(&mut out["status"]);
    }
    if kind == "ConfigMap" && out["name"] == "kube-root-ca.crt" {
        out["data"] = json!("<ca>");
    }
    strip_nulls(&mut out);
    visit(&mut out, fix);
    out
}

/// The addresses and container ids the test's kubelet hands out follow the order in which
/// Pods met their fate across the run, and which Ready Pod a scale-down picks among equals
/// is random (by uid): they are not compared.
fn blank_addresses(status: &mut Value) {
    if status["podIP"].is_string() {
        status["podIP"] = json!("<pod-ip>");
    }
    if let Some(ips) = status["podIPs"].as_array_mut() {
        ips.iter_mut().for_each(|ip| ip["ip"] = json!("<pod-ip>"));
    }
    for field in ["containerStatuses", "initContainerStatuses"] {
        for container in status[field].as_array_mut().into_iter().flatten() {
            if container["containerID"].is_string() {
                container["containerID"] = json!("<container-id>");
            }
            for state in ["state", "lastState"] {
                if container[state]["terminated"]["containerID"].is_string() {
                    container[state]["terminated"]["containerID"] = json!("<container-id>");
                }
            }
        }
    }
}

/// Leaves out nulls, and resourceVersions (of object references in a status), which
/// differ between clusters.
fn strip_nulls(v: &mut Value) {
    if let Value::Object(m) = v {
        m.retain(|k, x| !x.is_null() && k != "resourceVersion");
        for x in m.values_mut() {
            strip_nulls(x);
        }
    } else if let Value::Array(a) = v {
        a.iter_mut().for_each(strip_nulls);
    }
}

fn visit(v: &mut Value, fix: &impl Fn(&str) -> String) {
    match v {
        Value::String(s) => *s = fix(s),
        Value::Array(a) => a.iter_mut().for_each(|x| visit(x, fix)),
        Value::Object(m) => {
            let old = std::mem::take(m);
            for (k, mut x) in old {
                visit(&mut x, fix);
                m.insert(fix(&k), x);
            }
        }
        _ => {}
    }
}

/// Generated names the snapshot no longer holds (a deleted Pod an event names): a name
/// ending in `-` and five characters of the random alphabet ends in `-*`.
fn random_suffixes(text: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '.';
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let random = chars[i] == '-'
            && i > 0
            && word(chars[i - 1])
            && i + 6 <= chars.len()
            && chars[i + 1..i + 6]
                .iter()
                .all(|c| RANDOM_ALPHABET.contains(*c))
            && chars.get(i + 6).is_none_or(|c| !word(*c));
        if random {
            out.push_str("-*");
            i += 6;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Replaces `from` where it stands as a whole name or a whole part of one between dashes.
fn replace_segment(text: &str, from: &str, to: &str) -> String {
    replace_bounded(text, from, to, |c| !c.is_ascii_alphanumeric())
}

/// Replaces `from` where it stands as a whole name (not inside a longer one).
fn replace_word(text: &str, from: &str, to: &str) -> String {
    replace_bounded(text, from, to, |c| !(c.is_ascii_alphanumeric() || c == '-'))
}

/// Replaces `from` where the characters around it (if any) are boundaries.
fn replace_bounded(text: &str, from: &str, to: &str, bounds: impl Fn(char) -> bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    let boundary = |c: Option<char>| c.is_none_or(&bounds);
    while let Some(i) = rest.find(from) {
        let before = match i {
            0 => out.chars().last(),
            _ => rest[..i].chars().last(),
        };
        let after = rest[i + from.len()..].chars().next();
        out.push_str(&rest[..i]);
        if boundary(before) && boundary(after) {
            out.push_str(to);
        } else {
            out.push_str(from);
        }
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}

fn looks_like_time(s: &str) -> bool {
    s.len() >= 20
        && s.as_bytes()[4] == b'-'
        && s.as_bytes()[10] == b'T'
        && s.parse::<k8s_openapi::jiff::Timestamp>().is_ok()
}

/// A message quoting a uid (the garbage collector's `ownerRef [..., uid: ...]`) with it
/// blanked.
fn blank_uids(s: &str) -> String {
    static UID: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap()
    });
    UID.replace_all(s, "<uid>").into_owned()
}

fn looks_like_uid(s: &str) -> bool {
    s.len() == 36
        && s.chars().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_become_patterns() {
        let mut n = Normalizer::default();
        n.known.insert("web".into());
        n.hashes.insert("7d4b9c8d5f".into(), "<hash-1>".into());
        assert_eq!(n.name("web-7d4b9c8d5f-x2k9p"), "web-<hash-1>-*");
        assert_eq!(n.name("web-7d4b9c8d5f"), "web-<hash-1>");
        assert_eq!(n.name("web"), "web");
        assert_eq!(n.name("web-0"), "web-0");
        assert_eq!(n.name("web-29012345"), "web-<time-1>");
        assert_eq!(n.name("web-29012345-x2k9p"), "web-<time-1>-*");
        assert_eq!(n.name("web-29012346-x2k9p"), "web-<time-2>-*");
        assert_eq!(
            replace_word("Created pod: web-abc", "web", "x"),
            "Created pod: web-abc"
        );
        assert_eq!(
            replace_word("Created pod: web", "web", "x"),
            "Created pod: x"
        );
        assert_eq!(
            replace_segment("Deleted pod: web-7d4b9c8d5f-*", "7d4b9c8d5f", "<hash-1>"),
            "Deleted pod: web-<hash-1>-*"
        );
        assert_eq!(
            random_suffixes("Deleted pod: agent-b64xf, web-0 and agent-b64xfz"),
            "Deleted pod: agent-*, web-0 and agent-b64xfz"
        );
    }
}
