//! `doneseq compare`: two configurations over one corpus, the runs where they differ.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use doneseq::stop::TaskInput;
use doneseq::transcript::Format;
use doneseq::{Monitor, TaskConfig};

use crate::corpus::{self, Aggregate, RunSummary};

/// Arguments of `doneseq compare`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The two task configurations (JSON, TOML or YAML, by extension): `--config A
    /// --config B`.
    #[arg(long, value_name = "FILE", num_args = 1, required = true)]
    config: Vec<PathBuf>,
    /// The transcripts' format, as for check: auto, jsonl, openai, openai-responses,
    /// anthropic, autogen, langroid, langroid-tsv, otel, pydantic-ai, langchain, gemini,
    /// smolagents, bedrock, agno, llamaindex, crewai, rlm-code, locus, claude-code, codex,
    /// mini-swe-agent, swe-agent, inspect or agent-framework.
    #[arg(long, default_value = "auto", value_parser = |s: &str| s.parse::<Format>())]
    format: Format,
    /// Which messages are the task's input, not steps, as for check (replaces both
    /// configs' `input`): leading, marked or steps.
    #[arg(long, value_name = "MODE", value_parser = crate::check_cmd::parse_input)]
    input: Option<TaskInput>,
    /// Print JSON Lines: one object per differing run, then the totals.
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML report to FILE: both sets of totals and
    /// histograms, the runs stopped differently, and each run's timeline with where A
    /// and B stop it.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Transcript files, directories (searched recursively) or globs.
    #[arg(required = true)]
    transcripts: Vec<String>,
}

fn monitor(path: &std::path::Path, input: Option<TaskInput>) -> Result<Monitor, String> {
    let mut config = TaskConfig::from_file(path).map_err(|e| e.to_string())?;
    if let Some(input) = input {
        config.input = input;
    }
    Monitor::new(config).map_err(|e| format!("{}: {e}", path.display()))
}

/// One run where the two verdicts differ.
#[derive(serde::Serialize)]
struct Difference<'a> {
    path: &'a str,
    a: &'a RunSummary,
    b: &'a RunSummary,
}

/// The totals side by side.
#[derive(serde::Serialize)]
struct Totals<'a> {
    a: &'a Aggregate,
    b: &'a Aggregate,
    differing: usize,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let [a, b] = args.config.as_slice() else {
        eprintln!("error: compare takes two configurations: --config A --config B");
        return ExitCode::from(2);
    };
    let (a, b) = match (monitor(a, args.input), monitor(b, args.input)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let paths = match corpus::expand(&args.transcripts) {
        Ok(paths) => paths,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    // The runs found once (a JSON eval log is parsed whole to find its samples).
    let found = doneseq::corpus::Runs::find(&paths);
    let runs_a = corpus::check_all(&a, &found, args.format, args.html.is_some());
    let runs_b = corpus::check_all(&b, &found, args.format, false);
    corpus::print_warnings(&runs_a, "A: ");
    corpus::print_warnings(&runs_b, "B: ");
    let (total_a, total_b) = (corpus::aggregate(&runs_a), corpus::aggregate(&runs_b));
    if let Some(file) = &args.html {
        // One timeline per transcript (A's): B reads the same messages.
        let sides = [
            crate::report::Side {
                label: "A",
                rule: a.lowered().to_string(),
                runs: &runs_a,
                total: &total_a,
            },
            crate::report::Side {
                label: "B",
                rule: b.lowered().to_string(),
                runs: &runs_b,
                total: &total_b,
            },
        ];
        if let Err(e) = crate::report::write_file(file, &sides) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let differing: Vec<(&RunSummary, &RunSummary)> = runs_a
        .iter()
        .zip(&runs_b)
        .map(|(x, y)| (&x.summary, &y.summary))
        .filter(|(x, y)| x.differs(y))
        .collect();
    let mut out = BufWriter::new(io::stdout().lock());
    let written = (|| -> io::Result<()> {
        if args.json {
            for (x, y) in &differing {
                let line = Difference {
                    path: &x.path,
                    a: x,
                    b: y,
                };
                serde_json::to_writer(&mut out, &line)?;
                out.write_all(b"\n")?;
            }
            let totals = Totals {
                a: &total_a,
                b: &total_b,
                differing: differing.len(),
            };
            serde_json::to_writer(&mut out, &serde_json::json!({ "aggregate": totals }))?;
            out.write_all(b"\n")?;
        } else {
            for (x, y) in &differing {
                writeln!(out, "{}", x.path)?;
                writeln!(out, "  A: {}", x.verdict())?;
                writeln!(out, "  B: {}", y.verdict())?;
            }
            writeln!(out, "{} of {} runs differ", differing.len(), runs_a.len())?;
            for (lead, total) in [("A: ", &total_a), ("B: ", &total_b)] {
                corpus::write_totals(&mut out, total, lead)?;
            }
        }
        out.flush()
    })();
    if written.is_err() {
        return ExitCode::from(2);
    }
    if runs_a.iter().chain(&runs_b).any(|run| run.summary.failed()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
