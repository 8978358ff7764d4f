//! libyaml's event parser, through `unsafe-libyaml` (libyaml translated to Rust).
//!
//! go-yaml v2, which kube-apiserver reads YAML with, is a port of libyaml to Go: the same
//! reader, scanner and parser state machines, the same problem texts ("did not find expected
//! ',' or '}'") and the same marks. Reading the events libyaml produces gives what go-yaml
//! reads; [`Parser::next`] words failures as go-yaml's `parser.fail` does, and adds what
//! go-yaml v2 changed: its depth limit of 10,000 and its refusal of `%YAML 1.2`.

use std::ffi::CStr;
use std::mem::MaybeUninit;
use std::ptr::addr_of_mut;

use unsafe_libyaml;

use super::Error;

/// How deep go-yaml v2 lets flow collections, and block indentation, nest.
const MAX_DEPTH: usize = 10_000;

/// One parser event, with the line it starts on (counted from 0).
pub(super) struct Event {
    pub(super) kind: EventKind,
    pub(super) line: usize,
}

pub(super) enum EventKind {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias(String),
    Scalar(Scalar),
    SequenceStart(Option<String>, bool),
    SequenceEnd,
    MappingStart(Option<String>, bool),
    MappingEnd,
}

/// A scalar as go-yaml's node keeps it.
pub(super) struct Scalar {
    pub(super) anchor: Option<String>,
    pub(super) tag: String,
    pub(super) value: String,
    /// Plain and untagged (or tagged `!`): its type is resolved from its text.
    pub(super) implicit: bool,
}

/// The libyaml parser and the input it reads (libyaml keeps pointers into both, so they
/// live in one heap allocation that never moves).
struct Pinned {
    sys: unsafe_libyaml::yaml_parser_t,
    input: Vec<u8>,
}

pub(super) struct Parser {
    pinned: Box<MaybeUninit<Pinned>>,
    /// Open flow collections, and open block collections.
    flow: usize,
    block: usize,
    /// Whether each open collection is in flow style.
    open: Vec<bool>,
}

impl Parser {
    /// A parser of `data`; an empty input reads as a newline, as go-yaml's does.
    pub(super) fn new(data: &[u8]) -> Self {
        let input = if data.is_empty() {
            b"\n".to_vec()
        } else {
            data.to_vec()
        };
        let mut pinned: Box<MaybeUninit<Pinned>> = Box::new(MaybeUninit::uninit());
        // SAFETY: `yaml_parser_initialize` fills the whole parser struct (it zeroes it first),
        // and the input is written before the parser reads it; both stay at this heap address
        // until `Drop`, which deletes the parser before the input is freed.
        unsafe {
            let p = pinned.as_mut_ptr();
            addr_of_mut!((*p).input).write(input);
            let parser = addr_of_mut!((*p).sys);
            // Initialization only fails when memory cannot be allocated, which aborts anyway.
            let _ = unsafe_libyaml::yaml_parser_initialize(parser);
            let input = &(*p).input;
            unsafe_libyaml::yaml_parser_set_input_string(
                parser,
                input.as_ptr(),
                input.len() as u64,
            );
        }
        Parser {
            pinned,
            flow: 0,
            block: 0,
            open: Vec::new(),
        }
    }

    fn sys(&mut self) -> *mut unsafe_libyaml::yaml_parser_t {
        // SAFETY: initialized in `new`.
        unsafe { addr_of_mut!((*self.pinned.as_mut_ptr()).sys) }
    }

    /// The next event, or go-yaml's error (`yaml: line 3: did not find expected key`).
    pub(super) fn next(&mut self) -> Result<Event, Error> {
        let parser = self.sys();
        let mut event = MaybeUninit::<unsafe_libyaml::yaml_event_t>::uninit();
        // SAFETY: the parser is initialized; after a successful `yaml_parser_parse` the event
        // is initialized, its pointers are valid until `yaml_event_delete`, and it is deleted
        // exactly once. A failed parse leaves the error fields of the parser set.
        let result = unsafe {
            let failed_before = (&*parser).error;
            if failed_before != unsafe_libyaml::YAML_NO_ERROR
                || unsafe_libyaml::yaml_parser_parse(parser, event.as_mut_ptr()).fail
            {
                return Err(failure(&*parser));
            }
            let event = event.as_mut_ptr();
            let converted = convert(&*event);
            unsafe_libyaml::yaml_event_delete(event);
            converted
        };
        self.track_depth(result?)
    }

    /// go-yaml v2's depth limits, which libyaml does not have: the scanner refuses the
    /// 10,001st nested flow collection, or indentation level, where it starts.
    fn track_depth(&mut self, event: Event) -> Result<Event, Error> {
        let exceeded = || {
            // A scanner error: shown counted from 1, and not at all on the first line.
            let line = if event.line == 0 { 0 } else { event.line + 1 };
            Err(Error::new(format!(
                "yaml: {}exceeded max depth of {MAX_DEPTH}",
                line_prefix(line)
            )))
        };
        match &event.kind {
            EventKind::SequenceStart(_, flow) | EventKind::MappingStart(_, flow) => {
                let flow = *flow;
                self.open.push(flow);
                if flow {
                    self.flow += 1;
                    if self.flow > MAX_DEPTH {
                        return exceeded();
                    }
                } else {
                    self.block += 1;
                    if self.block > MAX_DEPTH {
                        return exceeded();
                    }
                }
            }
            EventKind::SequenceEnd | EventKind::MappingEnd => match self.open.pop() {
                Some(true) => self.flow -= 1,
                Some(false) => self.block -= 1,
                None => {}
            },
            _ => {}
        }
        Ok(event)
    }
}

impl Drop for Parser {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, deleted once; the input is dropped after it.
        unsafe {
            unsafe_libyaml::yaml_parser_delete(self.sys());
            self.pinned.assume_init_drop();
        }
    }
}

/// `line N: ` for a line counted from 1, nothing for line 0 (go-yaml's `fail` shows no line
/// when the mark's is 0).
pub(super) fn line_prefix(line: usize) -> String {
    match line {
        0 => String::new(),
        n => format!("line {n}: "),
    }
}

/// The error of a failed parse, as go-yaml's `parser.fail` words it: the problem, after the
/// line of its mark (scanner marks are counted from 0 and shown plus one, parser marks are
/// shown as they are), or the context's line when the problem's is 0.
///
/// # Safety
/// `parser` has failed a parse.
unsafe fn failure(parser: &unsafe_libyaml::yaml_parser_t) -> Error {
    let line = if parser.problem_mark.line != 0 {
        let line = parser.problem_mark.line as usize;
        let kind = parser.error;
        match kind == unsafe_libyaml::YAML_SCANNER_ERROR {
            true => line + 1,
            false => line,
        }
    } else {
        parser.context_mark.line as usize
    };
    let problem = match parser.problem.is_null() {
        true => "unknown problem parsing YAML content".to_owned(),
        // SAFETY: libyaml's problems are NUL-terminated static strings.
        false => unsafe { CStr::from_ptr(parser.problem) }
            .to_string_lossy()
            .into_owned(),
    };
    Error::new(format!("yaml: {}{problem}", line_prefix(line)))
}

/// A NUL-terminated string libyaml owns, or `None` for a null pointer.
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string.
unsafe fn optional(ptr: *const u8) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: by the contract above.
    let text = unsafe { CStr::from_ptr(ptr.cast()) };
    Some(String::from_utf8_lossy(text.to_bytes()).into_owned())
}

/// The event, copied out of libyaml's memory.
///
/// # Safety
/// `event` is a successfully parsed event, not yet deleted.
unsafe fn convert(event: &unsafe_libyaml::yaml_event_t) -> Result<Event, Error> {
    let line = event.start_mark.line as usize;
    // SAFETY (all union reads): the variant read is the one `type_` names.
    let kind = unsafe {
        match event.type_ {
            unsafe_libyaml::YAML_STREAM_START_EVENT => EventKind::StreamStart,
            unsafe_libyaml::YAML_STREAM_END_EVENT => EventKind::StreamEnd,
            unsafe_libyaml::YAML_DOCUMENT_START_EVENT => {
                let version = event.data.document_start.version_directive;
                // go-yaml v2 knows YAML 1.1 only (libyaml also takes 1.2).
                if !version.is_null() && ((*version).major != 1 || (*version).minor != 1) {
                    return Err(Error::new(format!(
                        "yaml: {}found incompatible YAML document",
                        line_prefix(line)
                    )));
                }
                EventKind::DocumentStart
            }
            unsafe_libyaml::YAML_DOCUMENT_END_EVENT => EventKind::DocumentEnd,
            unsafe_libyaml::YAML_ALIAS_EVENT => {
                EventKind::Alias(optional(event.data.alias.anchor).unwrap_or_default())
            }
            unsafe_libyaml::YAML_SCALAR_EVENT => {
                let s = &event.data.scalar;
                let bytes = std::slice::from_raw_parts(s.value, s.length as usize);
                EventKind::Scalar(Scalar {
                    anchor: optional(s.anchor),
                    tag: optional(s.tag).unwrap_or_default(),
                    value: String::from_utf8_lossy(bytes).into_owned(),
                    implicit: s.plain_implicit,
                })
            }
            unsafe_libyaml::YAML_SEQUENCE_START_EVENT => {
                let s = &event.data.sequence_start;
                EventKind::SequenceStart(
                    optional(s.anchor),
                    s.style == unsafe_libyaml::YAML_FLOW_SEQUENCE_STYLE,
                )
            }
            unsafe_libyaml::YAML_SEQUENCE_END_EVENT => EventKind::SequenceEnd,
            unsafe_libyaml::YAML_MAPPING_START_EVENT => {
                let m = &event.data.mapping_start;
                EventKind::MappingStart(
                    optional(m.anchor),
                    m.style == unsafe_libyaml::YAML_FLOW_MAPPING_STYLE,
                )
            }
            // The mapping end (a successful parse has no other event).
            _ => EventKind::MappingEnd,
        }
    };
    Ok(Event { kind, line })
}
