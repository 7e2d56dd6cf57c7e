//! `doneseq`: the command-line tool.
//!
//! `doneseq parse` checks done-sequence DSL text and prints its canonical form (or a
//! JSON report per input with `--json`). `doneseq check` replays a transcript against
//! a task's done sequences and options.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check_cmd;
mod compare_cmd;
mod corpus;
mod follow;
mod json_rows;
mod lint_cmd;
mod parse_cmd;
mod report;
mod rows;

/// Decide when an LLM agent's loop is done.
#[derive(Debug, Parser)]
#[command(name = "doneseq", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Parse done sequences and print their canonical form, or the error.
    ///
    /// With no DSL arguments, reads one sequence per line from standard input; blank
    /// lines, lines starting with '#' and a byte order mark that starts the input are
    /// skipped. Exits with 1 if any input failed to parse, 2 if the input could not be
    /// read.
    Parse(parse_cmd::Args),
    /// Replay a transcript against done sequences and task options, message by
    /// message: what each message was classified as, how far each sequence got, and
    /// the verdict.
    ///
    /// Exits with 0 when the transcript was processed (done or not), 1 on an input
    /// error (transcript, config or DSL), 2 on a usage error.
    Check(check_cmd::Args),
    /// Report what can never work in a task configuration: every finding with its
    /// place in the lowered tree and its severity.
    ///
    /// Exits with 1 when a finding is an error (or the configuration does not read or
    /// compile), 0 otherwise (notes and warnings), 2 on a usage error.
    Lint(lint_cmd::Args),
    /// Compare two configurations over a corpus: the runs where their verdicts differ
    /// (where each stopped, its kind and answer), then both sets of totals.
    ///
    /// Exits with 1 when a configuration or transcript could not be read, 0 otherwise.
    Compare(compare_cmd::Args),
    /// Print the JSON Schema of task configuration files (done sequences, task
    /// options, stop conditions), for editors to complete and check them.
    Schema,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Parse(args) => parse_cmd::run(&args),
        Command::Check(args) => check_cmd::run(&args),
        Command::Lint(args) => lint_cmd::run(&args),
        Command::Compare(args) => compare_cmd::run(&args),
        Command::Schema => {
            let schema = doneseq::stop::config_schema();
            match serde_json::to_string_pretty(&schema) {
                Ok(text) => {
                    println!("{text}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
