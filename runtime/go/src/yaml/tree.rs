//! The node tree go-yaml v2 builds from the events of the first document before decoding it:
//! scalars, sequences, mappings, and aliases resolved to the node their anchor named when
//! the alias was read (`unknown anchor 'x' referenced` otherwise).

use std::collections::HashMap;

use super::Error;
use super::events::{EventKind, Parser};

pub(super) type Id = usize;

pub(super) enum Kind {
    Scalar {
        tag: String,
        value: String,
        implicit: bool,
    },
    Sequence(Vec<Id>),
    /// Keys and values, alternating.
    Mapping(Vec<Id>),
    Alias {
        name: String,
        target: Id,
    },
}

pub(super) struct Node {
    pub(super) kind: Kind,
    /// The line the node starts on, counted from 0.
    pub(super) line: usize,
}

/// The first document's nodes (the root is the last one built), or `None` for a stream
/// without documents. Events after the first document are never read, as go-yaml stops.
pub(super) fn parse(data: &[u8]) -> Result<Option<(Vec<Node>, Id)>, Error> {
    let mut parser = Parser::new(data);
    // The stream start, then a document or the end of the stream.
    parser.next()?;
    if matches!(parser.next()?.kind, EventKind::StreamEnd) {
        return Ok(None);
    }
    let mut nodes: Vec<Node> = Vec::new();
    let mut anchors: HashMap<String, Id> = HashMap::new();
    // Open collections: the node, and its children so far.
    let mut open: Vec<(Id, Vec<Id>)> = Vec::new();
    let mut root = None;
    loop {
        let event = parser.next()?;
        let line = event.line;
        let done = match event.kind {
            EventKind::Scalar(s) => {
                let id = nodes.len();
                nodes.push(Node {
                    kind: Kind::Scalar {
                        tag: s.tag,
                        value: s.value,
                        implicit: s.implicit,
                    },
                    line,
                });
                if let Some(a) = s.anchor {
                    anchors.insert(a, id);
                }
                Some(id)
            }
            EventKind::Alias(name) => {
                let Some(&target) = anchors.get(&name) else {
                    return Err(Error::new(format!(
                        "yaml: unknown anchor '{name}' referenced"
                    )));
                };
                nodes.push(Node {
                    kind: Kind::Alias { name, target },
                    line,
                });
                Some(nodes.len() - 1)
            }
            EventKind::SequenceStart(anchor, _) => {
                let id = open_collection(&mut nodes, Kind::Sequence(Vec::new()), line);
                if let Some(a) = anchor {
                    anchors.insert(a, id);
                }
                open.push((id, Vec::new()));
                None
            }
            EventKind::MappingStart(anchor, _) => {
                let id = open_collection(&mut nodes, Kind::Mapping(Vec::new()), line);
                // An anchor names its collection before the children are read.
                if let Some(a) = anchor {
                    anchors.insert(a, id);
                }
                open.push((id, Vec::new()));
                None
            }
            EventKind::SequenceEnd | EventKind::MappingEnd => {
                let (id, children) = open.pop().unwrap_or_default();
                match &mut nodes[id].kind {
                    Kind::Sequence(c) | Kind::Mapping(c) => *c = children,
                    _ => {}
                }
                Some(id)
            }
            // The end of the first document: go-yaml reads no further.
            EventKind::DocumentEnd => return Ok(root.map(|r| (nodes, r))),
            EventKind::StreamStart | EventKind::StreamEnd | EventKind::DocumentStart => None,
        };
        match (done, open.last_mut()) {
            (Some(id), Some((_, children))) => children.push(id),
            (Some(id), None) => root = Some(id),
            _ => {}
        }
    }
}

fn open_collection(nodes: &mut Vec<Node>, kind: Kind, line: usize) -> Id {
    nodes.push(Node { kind, line });
    nodes.len() - 1
}
