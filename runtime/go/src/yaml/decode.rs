//! The node tree decoded into `interface{}` as go-yaml v2 decodes it (merge keys expanded,
//! aliases expanded and counted against its aliasing limit, the last of duplicate keys
//! winning while strict decoding reports them), then converted as sigs.k8s.io/yaml converts
//! it to JSON: keys become strings (`1`, `true`, `1.5`), `null` keys are refused, and floats
//! go through Go's JSON encoder, so integral ones come back as integers and NaN and
//! infinities are refused. An explicit stack: no nesting overflows the caller's stack.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Number, Value};

use super::Error;
use super::gosyntax::{format_g, go_syntax};
use super::resolve::{self, Scalar};
use super::tree::{Id, Kind, Node};
use crate::json::lossy;

/// A key of a Go `map[interface{}]interface{}`: compared as Go compares interface values.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Key {
    Nil,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(Vec<u8>),
}

impl Key {
    /// What identifies the key in a map (`None` for NaN, which equals no key).
    fn identity(&self) -> Option<(u8, Vec<u8>)> {
        Some(match self {
            Key::Nil => (0, Vec::new()),
            Key::Bool(b) => (1, vec![u8::from(*b)]),
            Key::Int(i) => (2, i.to_le_bytes().to_vec()),
            Key::Uint(u) => (3, u.to_le_bytes().to_vec()),
            Key::Float(f) if f.is_nan() => return None,
            // 0.0 and -0.0 are the same key.
            Key::Float(f) => (4, (f + 0.0).to_bits().to_le_bytes().to_vec()),
            Key::Str(s) => (5, s.clone()),
        })
    }
}

/// A mapping being decoded: Go's map, in the order keys arrived.
#[derive(Default)]
struct Builder {
    entries: Vec<(Key, Value)>,
    index: HashMap<(u8, Vec<u8>), usize>,
}

impl Builder {
    /// Sets `key`; `true` when it was set before.
    fn set(&mut self, key: Key, value: Value) -> bool {
        let Some(identity) = key.identity() else {
            self.entries.push((key, value));
            return false;
        };
        match self.index.get(&identity) {
            Some(&i) => {
                self.entries[i].1 = value;
                true
            }
            None => {
                self.index.insert(identity, self.entries.len());
                self.entries.push((key, value));
                false
            }
        }
    }
}

/// What a finished node hands to the one that contains it.
enum Done {
    Value(Value),
    /// A mapping merged into its parent's map (`<<`).
    Merged(Builder),
}

enum Frame {
    Sequence {
        children: Vec<Id>,
        next: usize,
        items: Vec<Value>,
    },
    Mapping {
        children: Vec<Id>,
        next: usize,
        map: Builder,
        merged: bool,
        /// The key whose value is being decoded, and the line of that value.
        key: Option<(Key, usize)>,
        /// Mappings still to merge in, in the order they are merged.
        merges: Vec<Id>,
    },
    /// An alias being expanded.
    Alias(Id),
}

pub(super) struct Decoded {
    pub(super) value: Value,
    pub(super) duplicates: Vec<String>,
    pub(super) depth: usize,
}

struct Decoder<'t> {
    nodes: &'t [Node],
    decodes: usize,
    aliased: usize,
    alias_depth: usize,
    active: HashSet<Id>,
    duplicates: Vec<String>,
    /// The first error of sigs.k8s.io/yaml's conversion or of Go's JSON encoder, reported
    /// only when go-yaml itself succeeds.
    conversion: Option<Error>,
}

/// Decodes the document whose root is `root` (`None`: an empty stream, which is `null`).
pub(super) fn decode(tree: Option<(Vec<Node>, Id)>) -> Result<Decoded, Error> {
    let Some((nodes, root)) = tree else {
        return Ok(Decoded {
            value: Value::Null,
            duplicates: Vec::new(),
            depth: 0,
        });
    };
    let mut d = Decoder {
        nodes: &nodes,
        decodes: 0,
        aliased: 0,
        alias_depth: 0,
        active: HashSet::new(),
        duplicates: Vec::new(),
        conversion: None,
    };
    // The document node is decoded too.
    d.count()?;
    let (value, depth) = d.run(root)?;
    if let Some(e) = d.conversion {
        crate::json::dismantle(value);
        return Err(e);
    }
    Ok(Decoded {
        value,
        duplicates: d.duplicates,
        depth,
    })
}

impl Decoder<'_> {
    /// go-yaml's count of decoded nodes, and its limit on how many come from aliases.
    fn count(&mut self) -> Result<(), Error> {
        self.decodes += 1;
        if self.alias_depth > 0 {
            self.aliased += 1;
        }
        let (low, high) = (400_000.0, 4_000_000.0);
        let decodes = self.decodes as f64;
        let allowed = if decodes <= low {
            0.99
        } else if decodes >= high {
            0.10
        } else {
            0.99 - 0.89 * ((decodes - low) / (high - low))
        };
        if self.aliased > 100 && self.decodes > 1000 && self.aliased as f64 / decodes > allowed {
            return Err(Error::new(
                "yaml: document contains excessive aliasing".into(),
            ));
        }
        Ok(())
    }

    fn enter_alias(&mut self, id: Id, name: &str) -> Result<(), Error> {
        if !self.active.insert(id) {
            return Err(Error::new(format!(
                "yaml: anchor '{name}' value contains itself"
            )));
        }
        self.alias_depth += 1;
        Ok(())
    }

    fn run(&mut self, root: Id) -> Result<(Value, usize), Error> {
        let mut frames: Vec<Frame> = Vec::new();
        // Sequences and mappings open (merged mappings add no level), and the most at once.
        let (mut nesting, mut depth) = (0, 0);
        let mut visit: Option<(Id, Option<Builder>)> = Some((root, None));
        let mut done: Option<Done> = None;
        loop {
            if let Some((id, into)) = visit.take() {
                self.count()?;
                match &self.nodes[id].kind {
                    Kind::Scalar {
                        tag,
                        value,
                        implicit,
                    } => {
                        let scalar = resolve::scalar(tag, value, *implicit)?;
                        done = Some(Done::Value(self.json(scalar)));
                    }
                    Kind::Alias { name, target } => {
                        self.enter_alias(id, name)?;
                        frames.push(Frame::Alias(id));
                        visit = Some((*target, into));
                        continue;
                    }
                    Kind::Sequence(children) => frames.push(Frame::Sequence {
                        children: children.clone(),
                        next: 0,
                        items: Vec::new(),
                    }),
                    Kind::Mapping(children) => frames.push(Frame::Mapping {
                        children: children.clone(),
                        next: 0,
                        merged: into.is_some(),
                        map: into.unwrap_or_default(),
                        key: None,
                        merges: Vec::new(),
                    }),
                }
                if matches!(
                    frames.last(),
                    Some(
                        Frame::Sequence { next: 0, .. }
                            | Frame::Mapping {
                                merged: false,
                                next: 0,
                                ..
                            }
                    )
                ) {
                    nesting += 1;
                    depth = depth.max(nesting);
                }
            }
            let Some(frame) = frames.last_mut() else {
                return match done {
                    Some(Done::Value(v)) => Ok((v, depth)),
                    _ => Ok((Value::Null, depth)),
                };
            };
            match frame {
                Frame::Alias(id) => {
                    self.active.remove(id);
                    self.alias_depth -= 1;
                    frames.pop();
                }
                Frame::Sequence {
                    children,
                    next,
                    items,
                } => {
                    if let Some(Done::Value(v)) = done.take() {
                        items.push(v);
                    }
                    match children.get(*next) {
                        Some(&child) => {
                            *next += 1;
                            visit = Some((child, None));
                        }
                        None => {
                            let items = std::mem::take(items);
                            frames.pop();
                            nesting -= 1;
                            done = Some(Done::Value(Value::Array(items)));
                        }
                    }
                }
                Frame::Mapping { .. } => match self.mapping_step(&mut frames, done.take())? {
                    Some(Ok(next)) => visit = Some(next),
                    Some(Err(finished)) => {
                        if matches!(finished, Done::Value(_)) {
                            nesting -= 1;
                        }
                        done = Some(finished);
                    }
                    None => {}
                },
            }
        }
    }

    /// Advances the mapping on top of `frames` with what its last child produced: the next
    /// node to visit (`Ok`), or the mapping itself when it is complete (`Err`, popped).
    #[allow(clippy::type_complexity)]
    fn mapping_step(
        &mut self,
        frames: &mut Vec<Frame>,
        done: Option<Done>,
    ) -> Result<Option<Result<(Id, Option<Builder>), Done>>, Error> {
        let Some(Frame::Mapping {
            children,
            next,
            map,
            merged,
            key,
            merges,
        }) = frames.last_mut()
        else {
            return Ok(None);
        };
        match done {
            Some(Done::Merged(builder)) => *map = builder,
            Some(Done::Value(v)) => {
                if let Some((k, line)) = key.take()
                    && map.set(k.clone(), v)
                {
                    self.duplicates.push(format!(
                        "line {}: key {} already set in map",
                        line + 1,
                        key_syntax(&k)
                    ));
                }
            }
            None => {}
        }
        if let Some(m) = merges.pop() {
            return Ok(Some(Ok((m, Some(std::mem::take(map))))));
        }
        while *next + 1 < children.len() {
            let (k, v) = (children[*next], children[*next + 1]);
            *next += 2;
            if self.is_merge(k) {
                let mut list = self.merge_sources(v)?;
                // Merged last is the one popped last.
                list.reverse();
                *merges = list;
                if let Some(m) = merges.pop() {
                    return Ok(Some(Ok((m, Some(std::mem::take(map))))));
                }
                continue;
            }
            let resolved = self.key(k)?;
            *key = Some((resolved, self.nodes[v].line));
            return Ok(Some(Ok((v, None))));
        }
        let map = std::mem::take(map);
        let merged = *merged;
        frames.pop();
        Ok(Some(Err(match merged {
            true => Done::Merged(map),
            false => Done::Value(self.object(map)),
        })))
    }

    fn is_merge(&self, id: Id) -> bool {
        matches!(&self.nodes[id].kind, Kind::Scalar { tag, value, implicit }
            if value == "<<" && (*implicit || tag == "tag:yaml.org,2002:merge"))
    }

    /// The mappings a `<<` value merges, in the order go-yaml merges them (a sequence's from
    /// its last: earlier ones win).
    fn merge_sources(&self, id: Id) -> Result<Vec<Id>, Error> {
        let want_map =
            || Error::new("yaml: map merge requires map or sequence of maps as the value".into());
        let is_map = |id: Id| match &self.nodes[id].kind {
            Kind::Mapping(_) => true,
            Kind::Alias { target, .. } => matches!(self.nodes[*target].kind, Kind::Mapping(_)),
            _ => false,
        };
        match &self.nodes[id].kind {
            Kind::Mapping(_) | Kind::Alias { .. } if is_map(id) => Ok(vec![id]),
            Kind::Sequence(items) => {
                let mut order: Vec<Id> = items.iter().rev().copied().collect();
                if order.iter().any(|&i| !is_map(i)) {
                    return Err(want_map());
                }
                order.shrink_to_fit();
                Ok(order)
            }
            _ => Err(want_map()),
        }
    }

    /// A mapping key, decoded (and counted) as go-yaml decodes it into `interface{}`.
    fn key(&mut self, mut id: Id) -> Result<Key, Error> {
        let mut entered = Vec::new();
        let result = loop {
            self.count()?;
            match &self.nodes[id].kind {
                Kind::Alias { name, target } => {
                    self.enter_alias(id, name)?;
                    entered.push(id);
                    id = *target;
                }
                Kind::Scalar {
                    tag,
                    value,
                    implicit,
                } => {
                    break Ok(match resolve::scalar(tag, value, *implicit)? {
                        Scalar::Null => Key::Nil,
                        Scalar::Bool(b) => Key::Bool(b),
                        Scalar::Int(i) => Key::Int(i),
                        Scalar::Uint(u) => Key::Uint(u),
                        Scalar::Float(f) => Key::Float(f),
                        Scalar::Str(s) => Key::Str(s),
                    });
                }
                _ => {
                    break Err(Error::new(format!(
                        "yaml: invalid map key: {}",
                        go_syntax(self.nodes, id, true)
                    )));
                }
            }
        };
        for alias in entered {
            self.active.remove(&alias);
            self.alias_depth -= 1;
        }
        result
    }

    /// A scalar as JSON reads back what Go's encoder writes of it.
    fn json(&mut self, scalar: Scalar) -> Value {
        match scalar {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::from(i),
            Scalar::Uint(u) => Value::from(u as f64),
            Scalar::Str(s) => Value::String(lossy(&s).into_owned()),
            Scalar::Float(f) if f.is_finite() => {
                let mut v = Value::Number(Number::from_f64(f).unwrap_or_else(|| Number::from(0)));
                crate::json::through_storage(&mut v);
                v
            }
            Scalar::Float(f) => {
                self.conversion.get_or_insert_with(|| {
                    Error::new(format!("json: unsupported value: {}", format_g(f, false)))
                });
                Value::Null
            }
        }
    }

    /// sigs.k8s.io/yaml's conversion of a finished map: keys become strings.
    fn object(&mut self, map: Builder) -> Value {
        let mut out = Map::new();
        for (key, value) in map.entries {
            let name = match &key {
                Key::Str(s) => lossy(s).into_owned(),
                Key::Int(i) => i.to_string(),
                Key::Bool(b) => b.to_string(),
                Key::Float(f) => match format_g(*f, true).as_str() {
                    "+Inf" => ".inf".to_owned(),
                    "-Inf" => "-.inf".to_owned(),
                    "NaN" => ".nan".to_owned(),
                    other => other.to_owned(),
                },
                Key::Nil | Key::Uint(_) => {
                    let (type_name, shown) = match &key {
                        Key::Uint(u) => ("uint64".to_owned(), format!("{u:#x}")),
                        _ => ("%!s(<nil>)".to_owned(), "<nil>".to_owned()),
                    };
                    self.conversion.get_or_insert_with(|| {
                        Error::new(format!(
                            "unsupported map key of type: {type_name}, key: {shown}, value: {}",
                            super::gosyntax::value_syntax(&value)
                        ))
                    });
                    crate::json::dismantle(value);
                    continue;
                }
            };
            if let Some(old) = out.insert(name, value) {
                crate::json::dismantle(old);
            }
        }
        Value::Object(out)
    }
}

/// A key as go-yaml's `%#v` shows it in `key … already set in map`.
fn key_syntax(key: &Key) -> String {
    match key {
        Key::Nil => "<nil>".to_owned(),
        Key::Bool(b) => b.to_string(),
        Key::Int(i) => i.to_string(),
        Key::Uint(u) => format!("{u:#x}"),
        Key::Float(f) => format_g(*f, false),
        Key::Str(s) => super::gosyntax::quote(&lossy(s)),
    }
}
