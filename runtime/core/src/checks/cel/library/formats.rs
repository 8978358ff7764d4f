//! The named formats library (`format.dns1123Label()`, `format.named("uuid")`) with the
//! apiserver's checks and messages. kube-cel's `format.named` returns the format itself
//! where the apiserver returns an optional, and its messages are its own.

use std::sync::Arc;

use kube_cel::cel::extractors::This;
use kube_cel::cel::objects::Opaque;
use kube_cel::cel::{Context, ExecutionError, ResolveResult, Value};

use super::super::super::formats as strfmt;
use super::super::super::go_net;
use super::super::super::names::{self, NameRule};
use super::{opaque, optional};

/// The apiserver's named formats and what checks them.
/// A format's check: the reasons a string does not have it (none when it does).
type Check = fn(&str) -> Vec<String>;

const FORMATS: &[(&str, Check)] = &[
    ("dns1123Label", |s| NameRule::DnsLabel.check(s, false)),
    ("dns1123Subdomain", |s| {
        NameRule::DnsSubdomain.check(s, false)
    }),
    ("dns1035Label", |s| NameRule::Dns1035Label.check(s, false)),
    ("qualifiedName", names::qualified_name),
    ("dns1123LabelPrefix", |s| NameRule::DnsLabel.check(s, true)),
    ("dns1123SubdomainPrefix", |s| {
        NameRule::DnsSubdomain.check(s, true)
    }),
    ("dns1035LabelPrefix", |s| {
        NameRule::Dns1035Label.check(s, true)
    }),
    ("labelValue", names::label_value),
    ("uri", |s| {
        go_net::request_uri_error(s).into_iter().collect()
    }),
    ("uuid", |s| {
        check(
            strfmt::validates("uuid", s),
            "does not match the UUID format",
        )
    }),
    ("byte", |s| {
        check(strfmt::validates("byte", s), "invalid base64")
    }),
    ("date", |s| {
        check(strfmt::validates("date", s), "invalid date")
    }),
    ("datetime", |s| {
        check(strfmt::validates("datetime", s), "invalid datetime")
    }),
];

fn check(ok: bool, message: &str) -> Vec<String> {
    if ok {
        Vec::new()
    } else {
        vec![message.to_owned()]
    }
}

pub(super) fn register(ctx: &mut Context<'static>) {
    ctx.add_function("format.named", named);
    ctx.add_function("validate", validate);
    for (name, _) in FORMATS {
        let factory = move || -> ResolveResult { Ok(NamedFormat::value(name)) };
        ctx.add_function(&format!("format.{name}"), factory);
    }
}

/// A named format, a value whose `validate` checks strings.
#[derive(Debug, PartialEq, Eq)]
struct NamedFormat(&'static str);

impl Opaque for NamedFormat {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.NamedFormat"
    }
}

impl NamedFormat {
    fn value(name: &'static str) -> Value {
        Value::Opaque(Arc::new(NamedFormat(name)))
    }
}

/// `format.named(name)`: the format, or `optional.none()` for a name it does not know.
fn named(name: Arc<String>) -> ResolveResult {
    let found = FORMATS.iter().find(|(n, _)| *n == name.as_str());
    Ok(optional(found.map(|(n, _)| NamedFormat::value(n))))
}

/// `<format>.validate(s)`: `optional.none()` when valid, else the messages.
fn validate(This(this): This<Value>, s: Arc<String>) -> ResolveResult {
    let Some(format) = opaque::<NamedFormat>(&this) else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let Some((_, check)) = FORMATS.iter().find(|(n, _)| *n == format.0) else {
        return Err(ExecutionError::NoSuchOverload);
    };
    let errors = check(&s);
    Ok(optional((!errors.is_empty()).then(|| {
        Value::List(Arc::new(
            errors
                .into_iter()
                .map(|e| Value::String(Arc::new(e)))
                .collect(),
        ))
    })))
}
