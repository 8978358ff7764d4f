//! Serves the Cache kind's conversion, defaulting and validating webhooks over HTTPS.
//!
//! ```text
//! cache_webhook --cert /tls/tls.crt --key /tls/tls.key [--addr 0.0.0.0:9443]
//! cache_webhook --self-signed DIR [--addr 127.0.0.1:9443]   # development: writes DIR/ca.crt
//! ```
//!
//! With `--self-signed` a CA and a certificate for `localhost` and `127.0.0.1` are generated
//! and the CA is written to `DIR/ca.crt`: give it to crdgen (`--ca-bundle DIR/ca.crt`) for the
//! CRD's and the webhook configurations' `caBundle`. Certificate files given with `--cert`
//! and `--key` are reloaded when they change. Ctrl-C drains requests in flight and stops.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use kubegen::webhook::{SelfSigned, Tls, WebhookServer};
use kubegen_examples::cache;

const USAGE: &str =
    "usage: cache_webhook (--cert FILE --key FILE | --self-signed DIR) [--addr ADDR]";

/// Where the certificate comes from.
enum Source {
    Files { cert: PathBuf, key: PathBuf },
    SelfSigned(PathBuf),
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<(Source, SocketAddr), String> {
    let (mut cert, mut key, mut dir) = (None, None, None);
    let mut addr: SocketAddr = ([0, 0, 0, 0], 9443).into();
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value\n{USAGE}"));
        match flag.as_str() {
            "--cert" => cert = Some(PathBuf::from(value()?)),
            "--key" => key = Some(PathBuf::from(value()?)),
            "--self-signed" => dir = Some(PathBuf::from(value()?)),
            "--addr" => {
                let text = value()?;
                addr = text
                    .parse()
                    .map_err(|e| format!("--addr {text:?}: {e}\n{USAGE}"))?;
            }
            "--help" | "-h" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other:?}\n{USAGE}")),
        }
    }
    let source = match (cert, key, dir) {
        (Some(cert), Some(key), None) => Source::Files { cert, key },
        (None, None, Some(dir)) => Source::SelfSigned(dir),
        _ => return Err(USAGE.into()),
    };
    Ok((source, addr))
}

fn tls(source: &Source) -> Result<Tls, String> {
    match source {
        Source::Files { cert, key } => Tls::from_files(cert, key).map_err(|e| e.to_string()),
        Source::SelfSigned(dir) => {
            let generated =
                SelfSigned::generate(&["localhost", "127.0.0.1"]).map_err(|e| e.to_string())?;
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            let ca = dir.join("ca.crt");
            std::fs::write(&ca, &generated.ca_pem).map_err(|e| format!("{}: {e}", ca.display()))?;
            eprintln!(
                "cache_webhook: CA for the caBundle written to {}",
                ca.display()
            );
            generated.tls().map_err(|e| e.to_string())
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let run = async {
        let (source, addr) = parse(std::env::args().skip(1))?;
        let server = WebhookServer::new(cache::webhook::webhooks(), tls(&source)?)
            .map_err(|e| e.to_string())?
            .bind(addr)
            .await
            .map_err(|e| e.to_string())?;
        eprintln!("cache_webhook: serving on https://{}", server.local_addr());
        let shutdown = async {
            // Without a signal handler the server runs until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        server.serve(shutdown).await.map_err(|e| e.to_string())
    };
    match run.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("cache_webhook: {message}");
            ExitCode::FAILURE
        }
    }
}
