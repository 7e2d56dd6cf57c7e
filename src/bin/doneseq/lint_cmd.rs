//! `doneseq lint`: what can never work in a task configuration, before any run.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use doneseq::stop::{Lint, LintOptions, Registry, Severity};
use doneseq::{Monitor, TaskConfig};

/// Arguments of `doneseq lint`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A task configuration (JSON, TOML or YAML, by the file's extension).
    config: PathBuf,
    /// The agent's tools, comma-separated: a condition or sequence that names
    /// another tool is then an error.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    tools: Option<Vec<String>>,
    /// Print one JSON object per finding, one per line.
    #[arg(long)]
    json: bool,
}

/// A lint's place in the lowered tree: `root`, then the child indices (`root.1.0`).
pub(crate) fn path_text(path: &[usize]) -> String {
    std::iter::once("root".to_owned())
        .chain(path.iter().map(ToString::to_string))
        .collect::<Vec<_>>()
        .join(".")
}

/// One finding as JSON: its severity, kind, place and message.
#[derive(serde::Serialize)]
struct FindingJson<'a> {
    severity: String,
    kind: &'static str,
    path: &'a [usize],
    message: &'a str,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let config = match TaskConfig::from_file(&args.config) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(1);
        }
    };
    let mut options = LintOptions::default()
        .with_custom(Registry::default().names())
        .with_tool_classes(config.tool_classes.clone());
    if let Some(tools) = &args.tools {
        options = options.with_tools(tools.iter().cloned());
    }
    let lints: Vec<Lint> = config.lowered().lint(&options);
    let mut out = std::io::stdout().lock();
    for lint in &lints {
        let written = if args.json {
            let finding = FindingJson {
                severity: lint.severity().to_string(),
                kind: lint.kind.name(),
                path: &lint.path,
                message: &lint.message,
            };
            serde_json::to_string(&finding)
                .map_err(std::io::Error::from)
                .and_then(|line| writeln!(out, "{line}"))
        } else {
            writeln!(out, "{lint}")
        };
        if written.is_err() {
            return ExitCode::from(2);
        }
    }
    // A configuration that reads but does not compile is an error too.
    let compiled = Monitor::new(config);
    if let Err(e) = &compiled {
        eprintln!("error: {e}");
    }
    if compiled.is_err() || lints.iter().any(|l| l.severity() == Severity::Error) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
