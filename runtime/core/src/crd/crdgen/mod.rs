//! `crdgen`: prints every registered CRD, and with a webhook endpoint the conversion and
//! admission webhook manifests (see [`WebhookArgs`]).
//!
//! A user's binary is one line:
//!
//! ```no_run
//! // src/bin/crdgen.rs
//! kubegen_core::crdgen::main()
//! ```

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::crd::CrdError;
use crate::crd::webhooks::WebhookManifestError;
use crate::registry;

mod webhooks;

pub use webhooks::WebhookArgs;

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Multi-document YAML, `---` before each document.
    Yaml,
    /// JSON: one object, or a `v1` `List` when there are several.
    Json,
}

/// Prints the CustomResourceDefinitions of every kind registered in this binary.
///
/// With a webhook endpoint (--webhook-service or --webhook-url), kinds with generated
/// conversions get `spec.conversion` strategy Webhook, and --mutating / --validating add a
/// MutatingWebhookConfiguration / ValidatingWebhookConfiguration after the CRDs.
#[derive(Clone, Debug, Parser)]
#[command(name = "crdgen", version)]
pub struct Args {
    /// Only these kinds: a kind (`CronJob`), a plural (`cronjobs`) or a CRD name
    /// (`cronjobs.batch.example.com`). Repeatable.
    #[arg(long = "kind", value_name = "KIND")]
    pub kinds: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Yaml)]
    pub format: Format,
    /// Write one file per CRD (`<crd-name>.yaml` or `.json`) and per webhook configuration
    /// (`<configuration-name>.yaml`) into this folder instead of printing to standard output.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Cut every description to at most this many characters (0 drops them), to keep large
    /// CRDs under the apiserver's annotation limit for `kubectl apply`.
    #[arg(long, value_name = "N")]
    pub max_description_length: Option<usize>,
    /// List the registered kinds instead of printing CRDs.
    #[arg(long)]
    pub list: bool,
    /// The conversion and admission webhooks.
    #[command(flatten)]
    pub webhooks: WebhookArgs,
}

/// Why crdgen failed.
#[derive(Debug, thiserror::Error)]
pub enum CrdgenError {
    /// A kind's CRD could not be built.
    #[error(transparent)]
    Crd(#[from] CrdError),
    /// A webhook manifest could not be built (a bad URL or CA bundle, an unknown kind, ...).
    #[error(transparent)]
    Webhook(#[from] WebhookManifestError),
    /// A webhook option was given without an endpoint to call.
    #[error(
        "{0} needs the webhook server's address: give --webhook-service NAMESPACE/NAME[:PORT] or --webhook-url URL"
    )]
    NeedsEndpoint(&'static str),
    /// `--kind` named nothing registered.
    #[error("no registered kind matches `{0}` (run with --list to see them)")]
    UnknownKind(String),
    /// Writing failed.
    #[error("cannot write {what}: {source}")]
    Io {
        /// What was being written.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Serializing failed.
    #[error("cannot serialize {crd}: {message}")]
    Serialize {
        /// The CRD name.
        crd: String,
        /// The serializer's message.
        message: String,
    },
}

/// Runs crdgen with the process arguments; prints errors and exits non-zero on failure.
pub fn main() {
    let code = run_cli(
        std::env::args_os(),
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    std::process::exit(code);
}

/// Runs crdgen as a command line would: parses `args` (the first is the program name),
/// writes output to `out` and messages to `err`, and returns the exit code.
pub fn run_cli<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    run_command("crdgen", args, out, err, |args: Args, out| run(&args, out))
}

/// A command line's life: parses `args` as `A` (clap's help and version go to `out`, its
/// errors to `err`, with clap's exit code), then `run`s, printing a failure as
/// `program: error` to `err` with exit code 1. crdgen and rbacgen both run through it.
pub(crate) fn run_command<A, E, I, T>(
    program: &str,
    args: I,
    out: &mut dyn Write,
    err: &mut dyn Write,
    run: impl FnOnce(A, &mut dyn Write) -> Result<(), E>,
) -> i32
where
    A: Parser,
    E: std::fmt::Display,
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args = match A::try_parse_from(args) {
        Ok(args) => args,
        Err(e) => {
            let target: &mut dyn Write = if e.use_stderr() { err } else { out };
            let _ = write!(target, "{e}");
            return e.exit_code();
        }
    };
    match run(args, out) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "{program}: {e}");
            1
        }
    }
}

/// Runs crdgen, writing to `out` unless `--out-dir` is given.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<(), CrdgenError> {
    let io = |what: &str| {
        let what = what.to_owned();
        move |source| CrdgenError::Io { what, source }
    };
    if args.list {
        for info in registry::registered() {
            writeln!(
                out,
                "{}\t{}\t{}\t{}",
                info.crd_name(),
                info.api_version(),
                info.kind,
                info.rust_type
            )
            .map_err(io("standard output"))?;
        }
        return Ok(());
    }
    let mut crds = select(registry::crds()?, &args.kinds)?;
    let manifests = webhooks::apply(&args.webhooks, &mut crds)?;
    let mut documents = Vec::with_capacity(crds.len() + manifests.len());
    for crd in &crds {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let mut value = serde_json::to_value(crd).map_err(|e| CrdgenError::Serialize {
            crd: name.clone(),
            message: e.to_string(),
        })?;
        if let Some(max) = args.max_description_length {
            truncate_descriptions(&mut value, max);
        }
        integral_floats_as_integers(&mut value);
        documents.push((name, value));
    }
    documents.extend(manifests);
    match &args.out_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(io(&dir.display().to_string()))?;
            for (name, value) in &documents {
                let (text, ext) = render_one(args.format, name, value)?;
                let path = dir.join(format!("{name}.{ext}"));
                std::fs::write(&path, text).map_err(io(&path.display().to_string()))?;
            }
        }
        None => {
            let text = render_all(args.format, &documents)?;
            out.write_all(text.as_bytes())
                .map_err(io("standard output"))?;
        }
    }
    Ok(())
}

fn select(
    crds: Vec<CustomResourceDefinition>,
    wanted: &[String],
) -> Result<Vec<CustomResourceDefinition>, CrdgenError> {
    if wanted.is_empty() {
        return Ok(crds);
    }
    for w in wanted {
        if !crds.iter().any(|c| matches(c, w)) {
            return Err(CrdgenError::UnknownKind(w.clone()));
        }
    }
    Ok(crds
        .into_iter()
        .filter(|c| wanted.iter().any(|w| matches(c, w)))
        .collect())
}

fn matches(crd: &CustomResourceDefinition, wanted: &str) -> bool {
    let names = &crd.spec.names;
    names.kind == wanted || names.plural == wanted || crd.metadata.name.as_deref() == Some(wanted)
}

/// A document crdgen (or rbacgen) could not serialize.
#[derive(Debug, thiserror::Error)]
#[error("cannot serialize {document}: {message}")]
pub struct SerializeError {
    /// The document's name: a CRD's, or a kind.
    pub document: String,
    /// The serializer's message.
    pub message: String,
}

impl From<SerializeError> for CrdgenError {
    fn from(e: SerializeError) -> Self {
        CrdgenError::Serialize {
            crd: e.document,
            message: e.message,
        }
    }
}

fn render_one(
    format: Format,
    name: &str,
    value: &Value,
) -> Result<(String, &'static str), SerializeError> {
    let serialize = |e: String| SerializeError {
        document: name.to_owned(),
        message: e,
    };
    Ok(match format {
        Format::Yaml => (
            serde_yaml_ng::to_string(value).map_err(|e| serialize(e.to_string()))?,
            "yaml",
        ),
        Format::Json => {
            let mut text =
                serde_json::to_string_pretty(value).map_err(|e| serialize(e.to_string()))?;
            text.push('\n');
            (text, "json")
        }
    })
}

/// `documents` (name, object) in `format`: YAML documents each after `---`, or JSON (a `v1`
/// `List` when there are several). rbacgen prints with it too.
pub(crate) fn render_all(
    format: Format,
    documents: &[(String, Value)],
) -> Result<String, SerializeError> {
    match (format, documents) {
        (Format::Json, [(name, one)]) => Ok(render_one(format, name, one)?.0),
        (Format::Json, many) => {
            let list = serde_json::json!({
                "apiVersion": "v1",
                "kind": "List",
                "items": many.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
            });
            Ok(render_one(format, "List", &list)?.0)
        }
        (Format::Yaml, many) => {
            let mut text = String::new();
            for (name, value) in many {
                text.push_str("---\n");
                text.push_str(&render_one(format, name, value)?.0);
            }
            Ok(text)
        }
    }
}

/// Cuts every schema `description` to `max` characters; 0 removes them.
pub fn truncate_descriptions(value: &mut Value, max: usize) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(d)) = map.get_mut("description") {
                if max == 0 {
                    map.remove("description");
                } else if d.chars().count() > max {
                    *d = d.chars().take(max).collect();
                }
            }
            for (key, child) in map.iter_mut() {
                // `properties` maps field names to schemas: a field may itself be named
                // "description", and its schema must be kept.
                if key == "properties" {
                    if let Value::Object(props) = child {
                        props
                            .values_mut()
                            .for_each(|s| truncate_descriptions(s, max));
                    }
                } else {
                    truncate_descriptions(child, max);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| truncate_descriptions(v, max)),
        _ => {}
    }
}

/// k8s-openapi holds `minimum`, `maximum` and `multipleOf` as `f64`, which would print as
/// `0.0`; write whole numbers as integers, as controller-gen and `kubectl get -o yaml` do.
fn integral_floats_as_integers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9_007_199_254_740_992.0
            {
                *value = Value::from(f as i64);
            }
        }
        Value::Object(map) => map.values_mut().for_each(integral_floats_as_integers),
        Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}
