//! `doneseq check`: replay a transcript against a task's done sequences and options.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use doneseq::transcript::{Format, Reader};
use doneseq::{DoneSequence, Monitor, Outcome, Role, StopReason, TaskConfig, Verdict, VerdictKind};
use serde_json::{Value, json};

/// Arguments of `doneseq check`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A done sequence in the DSL (repeatable; added after the config's).
    #[arg(long = "seq", value_name = "DSL")]
    sequences: Vec<String>,
    /// A task configuration (JSON): done_sequences, done_if_tool, done_if_response,
    /// done_if_no_response, single_round, max_turns, recognize_string_signals.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The transcript's format.
    #[arg(long, default_value = "auto", value_parser = parse_format)]
    format: Format,
    /// Keep going after the first stop and list every step where a sequence fired.
    #[arg(long)]
    all: bool,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// The transcript file, or '-' for standard input.
    transcript: String,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

pub(crate) fn run(args: &Args) -> ExitCode {
    match check(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

/// One row of the report.
struct Step {
    index: usize,
    role: Role,
    responder: Option<String>,
    /// `None` for a system message (not a step).
    events: Option<Vec<String>>,
    progress: Vec<usize>,
}

fn check(args: &Args) -> Result<(), String> {
    let monitor = load(args)?;
    let input: Box<dyn BufRead> = if args.transcript == "-" {
        Box::new(io::stdin().lock())
    } else {
        let file = File::open(&args.transcript)
            .map_err(|e| format!("cannot open {}: {e}", args.transcript))?;
        Box::new(BufReader::with_capacity(1 << 16, file))
    };
    let mut run = monitor.start();
    let mut steps: Vec<Step> = Vec::new();
    // Step index -> transcript index (system messages are not steps).
    let mut step_lines: Vec<usize> = Vec::new();
    let mut first: Option<(usize, Outcome)> = None;
    let mut all_matches: Vec<usize> = Vec::new();
    let count = monitor.sequences().len();
    for (index, message) in Reader::new(input, args.format).enumerate() {
        let message = message.map_err(|e| format!("{}: {e}", args.transcript))?;
        let verdict = monitor.observe(&mut run, &message);
        let events = (message.role() != Role::System).then(|| {
            step_lines.push(index);
            monitor.classify(&message).labels()
        });
        let fired = verdict.outcome().is_some_and(|o| !o.fired.is_empty());
        steps.push(Step {
            index,
            role: message.role(),
            responder: message.responder().map(str::to_owned),
            events,
            progress: (0..count).map(|s| monitor.progress(&run, s)).collect(),
        });
        if fired {
            all_matches.push(index);
        }
        if let Verdict::Stop(outcome) = verdict {
            if first.is_none() {
                first = Some((index, outcome));
            }
            if !args.all {
                break;
            }
        }
    }
    let report = Report {
        monitor: &monitor,
        steps: &steps,
        step_lines: &step_lines,
        first: first.as_ref(),
        all_matches: args.all.then_some(&all_matches[..]),
        explain: &monitor.explain(&run),
    };
    let out = if args.json {
        report.json().to_string() + "\n"
    } else {
        report.text()
    };
    io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write: {e}"))
}

/// The largest configuration file read, in bytes (a task's configuration is a few
/// kilobytes; this keeps `--config /dev/zero` from growing without bound).
const MAX_CONFIG_LEN: usize = 16 << 20;

/// The whole file at `path`, if it is UTF-8 and at most [`MAX_CONFIG_LEN`] bytes.
fn read_config(path: &std::path::Path) -> Result<String, String> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|file| file.take(MAX_CONFIG_LEN as u64 + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() > MAX_CONFIG_LEN {
        return Err(format!(
            "{}: longer than {MAX_CONFIG_LEN} bytes",
            path.display()
        ));
    }
    String::from_utf8(bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn load(args: &Args) -> Result<Monitor, String> {
    let mut config = match &args.config {
        Some(path) => {
            let text = read_config(path)?;
            serde_json::from_str::<TaskConfig>(&text)
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => TaskConfig::default(),
    };
    let mut sequences = config.done_sequences.clone().into_vec();
    for (i, text) in args.sequences.iter().enumerate() {
        let sequence = DoneSequence::parse(text).map_err(|e| {
            // The one-line message, then the caret drawing of `{:#}` without its
            // own "error:" line.
            let drawn = format!("{e:#}");
            let caret = drawn.split_once('\n').map_or("", |(_, rest)| rest);
            format!("--seq {}: {e}\n{caret}", i + 1)
        })?;
        sequences.push(sequence);
    }
    if sequences.is_empty() && args.config.is_none() {
        return Err("nothing to check: give --seq DSL or --config FILE".to_owned());
    }
    config.done_sequences = sequences.into();
    Monitor::new(config).map_err(|e| e.to_string())
}

struct Report<'a> {
    monitor: &'a Monitor,
    steps: &'a [Step],
    step_lines: &'a [usize],
    first: Option<&'a (usize, Outcome)>,
    all_matches: Option<&'a [usize]>,
    explain: &'a [doneseq::SequenceProgress],
}

fn reason_name(reason: &StopReason) -> &'static str {
    match reason {
        StopReason::DoneIfTool => "done_if_tool",
        StopReason::Sequence(_) => "sequence",
        StopReason::StringSignal => "string_signal",
        StopReason::DoneIfResponse(_) => "done_if_response",
        StopReason::DoneIfNoResponse(_) => "done_if_no_response",
        StopReason::SingleRound => "single_round",
        StopReason::MaxTurns(_) => "max_turns",
        _ => "other",
    }
}

impl Report<'_> {
    fn line_of(&self, step: u64) -> usize {
        usize::try_from(step)
            .ok()
            .and_then(|s| self.step_lines.get(s).copied())
            .unwrap_or(usize::MAX)
    }

    fn sequence_json(&self, s: usize, matched: &std::ops::RangeInclusive<u64>) -> Value {
        let sequence = &self.monitor.sequences()[s];
        let lines: Vec<usize> = matched.clone().map(|m| self.line_of(m)).collect();
        json!({
            "sequence": s,
            "name": sequence.name(),
            "canonical": sequence.to_string(),
            "matched": lines,
        })
    }

    fn json(&self) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|s| {
                json!({
                    "index": s.index,
                    "role": s.role.as_str(),
                    "responder": s.responder,
                    "events": s.events,
                    "progress": s.progress,
                })
            })
            .collect();
        let (at, outcome) = match self.first {
            Some((at, outcome)) => (Some(*at), Some(outcome)),
            None => (None, None),
        };
        let fired = outcome.and_then(|o| match o.reason {
            StopReason::Sequence(s) => o
                .fired
                .iter()
                .find(|f| f.sequence == s)
                .map(|f| self.sequence_json(s, &f.matched)),
            _ => None,
        });
        let mut report = json!({
            "done": outcome.is_some_and(|o| o.kind == VerdictKind::Done),
            "stopped": outcome.is_some(),
            "kind": outcome.map(|o| match o.kind {
                VerdictKind::Done => "done",
                VerdictKind::Exhausted => "exhausted",
                _ => "other",
            }),
            "reason": outcome.map(|o| reason_name(&o.reason)),
            "at": at,
            "fired": fired,
            "answer": outcome.and_then(|o| o.answer.as_ref()).map(|a| a.text.clone()),
            "steps": steps,
        });
        if let Some(all) = self.all_matches {
            report["all_matches"] = json!(all);
        }
        report
    }

    fn text(&self) -> String {
        let sequences = self.monitor.sequences();
        let headers: Vec<String> = sequences
            .iter()
            .enumerate()
            .map(|(i, s)| s.name().map_or_else(|| format!("#{i}"), str::to_owned))
            .collect();
        let widths: Vec<usize> = headers
            .iter()
            .zip(sequences)
            .map(|(h, s)| {
                h.chars()
                    .count()
                    .max(format!("{0}/{0} fired", s.len()).len())
            })
            .collect();
        let events: Vec<String> = self
            .steps
            .iter()
            .map(|s| {
                s.events
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), |e| e.join(" "))
            })
            .collect();
        let responder_width = self
            .steps
            .iter()
            .filter_map(|s| s.responder.as_ref().map(|r| r.chars().count()))
            .chain([9])
            .max()
            .unwrap_or(9);
        let events_width = events
            .iter()
            .map(|e| e.chars().count())
            .chain([6])
            .max()
            .unwrap_or(6);
        let index_width = self
            .steps
            .last()
            .map_or(1, |s| s.index.to_string().len())
            .max(1);
        let mut out = String::new();
        let _ = write!(
            out,
            "{:>index_width$}  {:<6} {:<responder_width$}  {:<events_width$}",
            "#", "role", "responder", "events"
        );
        for (h, width) in headers.iter().zip(&widths) {
            let _ = write!(out, "  {h:<width$}");
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
        for (step, events) in self.steps.iter().zip(&events) {
            let _ = write!(
                out,
                "{:>index_width$}  {:<6} {:<responder_width$}  {:<events_width$}",
                step.index,
                step.role.as_str(),
                step.responder.as_deref().unwrap_or("-"),
                events
            );
            for ((width, &p), seq) in widths.iter().zip(&step.progress).zip(sequences) {
                let cell = if step.events.is_none() {
                    String::new()
                } else if p == seq.len() {
                    format!("{p}/{} fired", seq.len())
                } else {
                    format!("{p}/{}", seq.len())
                };
                let _ = write!(out, "  {cell:<width$}");
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
        out.push('\n');
        match self.first {
            Some((at, outcome)) => {
                let kind = match outcome.kind {
                    VerdictKind::Done => "done",
                    _ => "exhausted",
                };
                let _ = write!(out, "{kind} at message {at}: ");
                let _ = match &outcome.reason {
                    StopReason::Sequence(s) => {
                        let f = outcome.fired.iter().find(|f| f.sequence == *s);
                        let (from, to) = f.map_or((0, 0), |f| {
                            (
                                self.line_of(*f.matched.start()),
                                self.line_of(*f.matched.end()),
                            )
                        });
                        writeln!(
                            out,
                            "sequence {s} \"{}\" matched messages {from}..={to}",
                            sequences[*s]
                        )
                    }
                    StopReason::DoneIfTool => writeln!(out, "done_if_tool (the LLM called a tool)"),
                    StopReason::StringSignal => writeln!(out, "the content says DONE"),
                    StopReason::DoneIfResponse(r) => {
                        writeln!(out, "done_if_response ({r} responded)")
                    }
                    StopReason::DoneIfNoResponse(r) => {
                        writeln!(out, "done_if_no_response ({r} gave no response)")
                    }
                    StopReason::SingleRound => writeln!(out, "single_round"),
                    StopReason::MaxTurns(n) => writeln!(out, "max_turns ({n} steps)"),
                    other => writeln!(out, "{other:?}"),
                };
                match &outcome.answer {
                    Some(answer) => {
                        let _ = writeln!(out, "answer: {}", answer.text);
                    }
                    None => out.push_str("answer: (none)\n"),
                }
            }
            None => {
                out.push_str("not done\n");
                for p in self.explain {
                    let _ = write!(
                        out,
                        "  sequence {} \"{}\": {} of {} elements",
                        p.sequence, sequences[p.sequence], p.satisfied, p.len
                    );
                    if let Some(f) = p.failure {
                        let _ = write!(
                            out,
                            "; element {} failed on message {}",
                            f.element + 1,
                            self.line_of(f.at)
                        );
                    }
                    out.push('\n');
                }
            }
        }
        if let Some(all) = self.all_matches {
            let list: Vec<String> = all.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                out,
                "all matches at: {}",
                if list.is_empty() {
                    "-".to_owned()
                } else {
                    list.join(", ")
                }
            );
        }
        out
    }
}
