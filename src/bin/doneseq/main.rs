//! `doneseq`: the command-line tool.
//!
//! `doneseq parse` checks done-sequence DSL text and prints its canonical form (or a
//! JSON report per input with `--json`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod parse_cmd;

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
    /// lines and lines starting with '#' are skipped. Exits with 1 if any input failed
    /// to parse, 2 if the input could not be read.
    Parse(parse_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Parse(args) => parse_cmd::run(&args),
    }
}
