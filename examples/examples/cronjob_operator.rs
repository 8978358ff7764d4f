//! The CronJob operator on kubegen's Manager (see `kubegen_examples::operator`).
//!
//! `cargo run --example cronjob_operator` runs it against an in-memory API server, seeding a
//! few CronJobs; `-- --kubeconfig PATH` runs it against a cluster; `-- --replicas 3` runs
//! three replicas in this process, campaigning for one Lease, and kills the leader to show
//! another take over; `-- --run` runs the operator alone, as a deployment would, until SIGTERM
//! or Ctrl-C (then it stops gracefully, releases its Lease and exits 0).

use kubegen::testing::ApiServer;

const USAGE: &str = "usage: cronjob_operator [--kubeconfig PATH] [--replicas N | --run]";

/// What the command line asks for.
struct Args {
    kubeconfig: Option<String>,
    replicas: usize,
    run: bool,
}

#[tokio::main]
async fn main() {
    let Args {
        kubeconfig,
        replicas,
        run,
    } = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("cronjob_operator: {e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let _server;
    let (client, namespace) = match kubeconfig {
        None => {
            println!("using an in-memory API server (kubegen::testing::ApiServer)");
            _server = ApiServer::new();
            // Objects can only be created in a namespace that exists, as on a real apiserver.
            if let Err(e) = _server.create_namespace("demo") {
                eprintln!("cronjob_operator: creating namespace demo: {}", e.message);
                std::process::exit(1);
            }
            (_server.client(), "demo".to_owned())
        }
        Some(path) => match kubegen_examples::cluster::prepare(&path, "cronjob-operator").await {
            Ok(prepared) => prepared,
            Err(e) => {
                eprintln!("cronjob_operator: {e}");
                std::process::exit(1);
            }
        },
    };
    if run {
        let metrics = std::net::SocketAddr::from(([127, 0, 0, 1], 8080));
        if let Err(e) = kubegen_examples::operator::run(client, &namespace, metrics).await {
            eprintln!("cronjob_operator: {e}");
            std::process::exit(1);
        }
        return;
    }
    match kubegen_examples::operator::demo(client, &namespace, replicas).await {
        Ok(report) => {
            report.log.iter().for_each(|l| println!("{l}"));
            println!("\nthe last leader's /metrics, reconciles:");
            report
                .metrics
                .lines()
                .filter(|l| l.starts_with("controller_runtime_reconcile_total"))
                .for_each(|l| println!("  {l}"));
        }
        Err(e) => {
            eprintln!("cronjob_operator: {e}");
            std::process::exit(1);
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        kubeconfig: None,
        replicas: 1,
        run: false,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--kubeconfig" => parsed.kubeconfig = Some(value()?),
            "--replicas" => {
                parsed.replicas = value()?
                    .parse()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or("--replicas takes a whole number of at least 1")?
            }
            "--run" => parsed.run = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if parsed.run && parsed.replicas > 1 {
        return Err("--run runs one replica; start more processes for more".into());
    }
    Ok(parsed)
}
