//! `doneseq check`: replay a transcript against a task's done sequences and options.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::rows;
use doneseq::ConditionReport;
use doneseq::corpus::Runs;
use doneseq::stop::{Condition, LintOptions, TaskInput};
use doneseq::transcript::{Format, Reader};
use doneseq::{DoneSequence, Monitor, Outcome, Role, StopReason, TaskConfig, Verdict, VerdictKind};

/// Arguments of `doneseq check`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A done sequence in the DSL (repeatable; added after the config's).
    #[arg(long = "seq", value_name = "DSL")]
    sequences: Vec<String>,
    /// A task configuration (JSON, TOML or YAML, by the file's extension; JSON when
    /// it has none of .json, .toml, .yaml, .yml): done_sequences, done_if_tool,
    /// done_if_response, done_if_no_response, single_round, llm_delegate, max_turns,
    /// recognize_string_signals, stop, tool_classes, input.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A stop condition in the expression language, e.g.
    /// 'seq("T[calculator], A") | max_turns(10)'. With a config that has one too,
    /// the two are combined with '|'.
    #[arg(long, value_name = "EXPR")]
    stop: Option<String>,
    /// The agent's tools, comma-separated: the lint then reports stop conditions
    /// naming a tool that is not among them.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    tools: Option<Vec<String>>,
    /// The transcript's format: auto (detected from the content); jsonl (doneseq's
    /// messages, one a line); openai (Chat Completions messages, chat.completion objects,
    /// requests, as OpenAI and OpenAI-compatible providers write them; Ollama's chat
    /// responses); openai-responses (Responses API items, e.g. the Agents SDK's
    /// to_input_list(), response objects, requests); anthropic (messages with content
    /// blocks, requests with system, responses); autogen (AgentChat model_dump() messages,
    /// TaskResult); langroid (tool JSON in the content found as tool calls); langroid-tsv
    /// (Langroid's own task log, logs/<task>.tsv: the message each step ended with); otel
    /// (OTLP JSON exports of GenAI, OpenInference or Langfuse spans, and of GenAI log
    /// records); pydantic-ai (Pydantic AI's message history, e.g. a run's
    /// all_messages_json()); langchain (LangChain's messages, e.g. a LangGraph agent's:
    /// messages_to_dict(), model_dump(), dumpd(), a state's messages); gemini (Gemini's
    /// contents: a chat's history, generateContent requests and responses; Google ADK's
    /// events and saved sessions); smolagents (a run's memory steps, e.g.
    /// agent.memory.get_full_steps()); bedrock (Amazon Bedrock Converse messages, e.g. a
    /// Strands agent's agent.messages, its saved sessions and snapshots, requests,
    /// responses); agno (Agno's messages, runs, sessions, its database's rows of runs);
    /// llamaindex (LlamaIndex's chat messages, e.g. an agent's memory, chat stores);
    /// crewai (CrewAI's outputs: a crew's, a task's or an agent's, with its messages);
    /// rlm-code (rlm-code's run logs, .rlm_code/rlm/runs/<run_id>.jsonl: each step's
    /// action and observation); locus (locus's agent state: its checkpoints, a state,
    /// an AgentResult's model_dump()); claude-code (Claude Code's and the Claude Agent
    /// SDK's session logs, ~/.claude/projects/<project>/<session id>.jsonl); codex (Codex
    /// CLI's session logs, ~/.codex/sessions/<date>/rollout-*.jsonl); mini-swe-agent
    /// (mini-swe-agent's trajectories, <instance>.traj.json: each command a call of
    /// bash, the submission a stop); swe-agent (SWE-agent's trajectories, <instance>.traj:
    /// its history, each command the model ran a call, the submission a stop); inspect (Inspect AI's eval samples: a .eval log's,
    /// each a run of the corpus, a JSON log's too, or a sample's JSON); agent-framework
    /// (Microsoft Agent Framework's messages: a FileHistoryProvider's <session id>.jsonl,
    /// a list of to_dict()s, an agent's response, a session's state).
    /// All but jsonl, langroid and langroid-tsv also read JSON documents (an array, or
    /// one record on many lines; several one after another).
    #[arg(long, default_value = "auto", value_parser = parse_format)]
    format: Format,
    /// Which messages are the task's input, not steps (replaces the config's
    /// `input`): leading (the default: the user messages before the first response,
    /// as Langroid never counts or matches the message given to run()); marked (only
    /// messages with "input": true, e.g. a recorded Langroid response_sequence);
    /// steps (every message is a step: AutoGen's counting).
    #[arg(long, value_name = "MODE", value_parser = parse_input)]
    input: Option<TaskInput>,
    /// Keep going after the first stop and list every step where a sequence fired.
    #[arg(long)]
    all: bool,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Print only the verdict, the answer and how far each sequence got, with no row
    /// per message (for long transcripts: memory stays constant).
    #[arg(long)]
    summary: bool,
    /// Follow a live log: print each message's row (a JSON object with --json) as it
    /// arrives, flushed at once, and exit at the stop with the verdict. A file is
    /// read as it grows (polled); standard input until it closes.
    #[arg(long, conflicts_with = "all")]
    follow: bool,
    /// Also write a self-contained HTML report of the runs to FILE: the totals, a
    /// histogram of the steps to the stop per kind, the runs to look at, and each
    /// run's timeline (one transcript is a corpus of one).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["follow", "all"])]
    html: Option<PathBuf>,
    /// The transcript file, or '-' for standard input. Several paths, directories
    /// (searched recursively for .jsonl, .json, .tsv, .traj and .eval files) or globs
    /// ('logs/**/*.jsonl') check a corpus: one line per run, in parallel, then the
    /// totals. An Inspect AI eval log is a run a sample, a corpus even alone (a .eval
    /// log, and a JSON log of several samples).
    #[arg(required = true)]
    transcripts: Vec<String>,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

pub(crate) fn parse_input(s: &str) -> Result<TaskInput, String> {
    s.parse()
        .map_err(|e: doneseq::stop::TaskInputError| e.to_string())
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let html = args.html.is_some();
    match args.transcripts.as_slice() {
        [one] if one == "-" && !html => {}
        // An Inspect eval log holds a run a sample: a corpus (a `.eval` log always,
        // a JSON log of several samples). Its runs are found once, here.
        [one] if std::path::Path::new(one).is_file() => {
            let paths = [PathBuf::from(one)];
            let runs = Runs::find(&paths);
            if !runs.is_one_transcript() || html {
                return corpus(args, Some(&runs));
            }
        }
        // Anything else but a directory or a glob is one transcript: a pipe
        // (`<(zcat log.gz)`, `/dev/stdin`), or a file that is not there, which then
        // cannot be opened (not a corpus, which `--follow` would refuse to follow).
        [one] if !html && !one.contains(['*', '?']) && !std::path::Path::new(one).is_dir() => {}
        _ => return corpus(args, None),
    }
    match check(args, &args.transcripts[0]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

/// Step index -> transcript index: system messages and the task's input are not
/// steps, and are usually few, so their indices (ascending) are all that is kept.
#[derive(Default)]
struct Lines {
    skipped: Vec<usize>,
}

impl Lines {
    /// The step plus the messages before it that are not steps: the first `k` of them
    /// such that `skipped[k] <= step + k`, a prefix (as `skipped[k] - k` never
    /// decreases), found by binary search. (A walk through them was quadratic with `--all` on a
    /// transcript where every other message is not a step.)
    fn line_of(&self, step: u64) -> usize {
        let step = usize::try_from(step).unwrap_or(usize::MAX);
        let (mut lo, mut hi) = (0, self.skipped.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            // Ascending and distinct: `skipped[mid] >= mid`.
            if self.skipped[mid] - mid <= step {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        step.saturating_add(lo)
    }
}

/// The first stop, with the transcript indices it refers to.
struct First {
    at: usize,
    outcome: Outcome,
    /// The transcript indices of the steps the first firing sequence matched.
    matched: Option<Vec<usize>>,
}

/// Many transcripts: one line per run, then the totals. `found`: the runs of a lone
/// file, found already.
fn corpus(args: &Args, found: Option<&Runs<'_, PathBuf>>) -> ExitCode {
    if args.follow || args.all {
        let log = if found.is_some_and(|runs| !runs.is_one_transcript()) {
            " (an Inspect AI eval log holds a run a sample: give one sample's JSON)"
        } else {
            ""
        };
        eprintln!("error: --follow and --all take one transcript{log}");
        return ExitCode::from(2);
    }
    if args.transcripts.iter().any(|t| t == "-") {
        eprintln!(
            "error: standard input ('-') is one transcript, checked alone: a corpus (or \
             --html) reads files, directories and globs"
        );
        return ExitCode::from(2);
    }
    let monitor = match load(args) {
        Ok(monitor) => monitor,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(1);
        }
    };
    let paths;
    let found_here;
    let found = match found {
        Some(found) => found,
        None => {
            paths = match crate::corpus::expand(&args.transcripts) {
                Ok(paths) => paths,
                Err(message) => {
                    eprintln!("error: {message}");
                    return ExitCode::from(1);
                }
            };
            found_here = Runs::find(&paths);
            &found_here
        }
    };
    let runs = crate::corpus::check_all(&monitor, found, args.format, args.html.is_some());
    crate::corpus::print_warnings(&runs, "");
    let total = crate::corpus::aggregate(&runs);
    if let Some(file) = &args.html {
        let side = crate::report::Side {
            label: "",
            rule: monitor.lowered().to_string(),
            runs: &runs,
            total: &total,
        };
        if let Err(e) = crate::report::write_file(file, &[side]) {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let written =
        crate::corpus::write(&mut out, &runs, &total, args.json).and_then(|()| out.flush());
    if written.is_err() {
        return ExitCode::from(2);
    }
    if runs.iter().any(|run| run.summary.failed()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn check(args: &Args, transcript: &str) -> Result<(), String> {
    let monitor = load(args)?;
    let input: Box<dyn BufRead> = if transcript == "-" {
        Box::new(io::stdin().lock())
    } else {
        let file = File::open(transcript).map_err(|e| format!("cannot open {transcript}: {e}"))?;
        if args.follow {
            Box::new(BufReader::new(crate::follow::Tail::new(file)))
        } else {
            Box::new(BufReader::with_capacity(1 << 16, file))
        }
    };
    let summary = args.summary || args.follow;
    // Locked only to follow: the `--json` rows' writer thread locks it otherwise.
    let mut live = args.follow.then(|| io::stdout().lock());
    let mut run = monitor.start();
    // The table keeps its rows (its columns are as wide as their widest cell);
    // `--json` writes each row as it comes, the verdict after them.
    let mut table = rows::Table::default();
    let mut json = (args.json && !summary).then(|| crate::json_rows::RowWriter::start(&monitor));
    let mut lines = Lines::default();
    let mut first: Option<First> = None;
    let mut all_matches: Vec<usize> = Vec::new();
    // Borrowed messages: a line's texts are not copied.
    let mut reader = Reader::new(input, args.format);
    let mut next_index = 0;
    let mut overrun_at = None;
    let cannot_write = |e: io::Error| format!("cannot write: {e}");
    while let Some(message) = reader.next_borrowed() {
        let index = next_index;
        next_index += 1;
        let message = match message {
            Ok(message) => message,
            Err(e) => {
                let message = format!("{transcript}: {e}");
                if let Some(rows) = json.take() {
                    // The rows read so far stay one JSON object, which says why it
                    // ends there.
                    let mut tail = b"],\"error\":".to_vec();
                    serde_json::to_writer(&mut tail, &message)
                        .map_err(io::Error::from)
                        .map_err(cannot_write)?;
                    tail.extend_from_slice(b"}\n");
                    rows.finish(tail).map_err(cannot_write)?;
                }
                return Err(message);
            }
        };
        let step = monitor.is_step(&run, &message);
        let input = monitor.is_input(&run, &message);
        let verdict = monitor.observe(&mut run, &message);
        if overrun_at.is_none() && run.pattern_overruns() > 0 {
            overrun_at = Some(index);
        }
        if !step {
            lines.skipped.push(index);
        }
        if let Some(live) = &mut live {
            let events = step.then(|| monitor.step_facts(&run, &message).labels());
            crate::follow::row(live, args.json, index, &message, events.as_deref(), input)
                .map_err(cannot_write)?;
        }
        if !summary {
            let kind = table.kinds.of(&monitor, &run, &message, step, input);
            match &mut json {
                Some(rows) => rows
                    .push(&table.kinds, index, kind, &monitor, &run)
                    .map_err(cannot_write)?,
                None => table.push(index, kind, monitor.progressing(&run)),
            }
        }
        let fired = verdict.outcome().is_some_and(|o| !o.fired.is_empty());
        if fired {
            all_matches.push(index);
        }
        if let Verdict::Stop(outcome) = verdict {
            if first.is_none() {
                let matched = match outcome.reason {
                    StopReason::Sequence(s) => outcome
                        .fired
                        .iter()
                        .find(|f| f.sequence == s)
                        .map(|f| f.matched.clone().map(|m| lines.line_of(m)).collect()),
                    _ => None,
                };
                first = Some(First {
                    at: index,
                    outcome,
                    matched,
                });
            }
            if !args.all {
                break;
            }
        }
    }
    drop(live);
    if next_index == 0 {
        // "not done" alone would read as a verdict on a run: the file had none.
        eprintln!("warning: {transcript}: {}", doneseq::corpus::NO_MESSAGE);
    }
    if let Some(warning) = doneseq::corpus::overrun_warning(&monitor, &run, overrun_at) {
        eprintln!("warning: {warning}");
    }
    let report = Report {
        monitor: &monitor,
        table: (!summary && !args.json).then_some(&table),
        lines: &lines,
        first: first.as_ref(),
        all_matches: args.all.then_some(&all_matches[..]),
        explain: &monitor.explain(&run),
        explain_stop: monitor.explain_stop(&run),
    };
    let written = match json {
        // After the rows: the verdict's fields close the object.
        Some(rows) => report.json_after_rows().and_then(|tail| rows.finish(tail)),
        None => {
            let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
            let written = if args.json {
                report.json(&mut out)
            } else {
                report.text(&mut out)
            };
            written.and_then(|()| out.flush())
        }
    };
    written.map_err(cannot_write)
}

fn load(args: &Args) -> Result<Monitor, String> {
    let mut config = match &args.config {
        Some(path) => TaskConfig::from_file(path).map_err(|e| e.to_string())?,
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
    if let Some(text) = &args.stop {
        let condition: Condition = text.parse().map_err(|e: doneseq::stop::ExprError| {
            let drawn = format!("{e:#}");
            let caret = drawn.split_once('\n').map_or("", |(_, rest)| rest);
            format!("--stop: {e}\n{caret}")
        })?;
        config.stop = Some(match config.stop.take() {
            Some(from_config) => from_config | condition,
            None => condition,
        });
    }
    if sequences.is_empty() && args.config.is_none() && args.stop.is_none() {
        return Err("nothing to check: give --seq DSL, --stop EXPR or --config FILE".to_owned());
    }
    config.done_sequences = sequences.into();
    if let Some(input) = args.input {
        config.input = input;
    }
    if let Some(stop) = &config.stop {
        let registry = doneseq::stop::Registry::default();
        let mut options = LintOptions::default()
            .with_custom(registry.names())
            .with_tool_classes(config.tool_classes.clone());
        if let Some(tools) = &args.tools {
            options = options.with_tools(tools.iter().cloned());
        }
        // Reported, not fatal: a lint says what cannot work, and replaying anyway
        // shows it.
        // Warnings here whatever their severity: `check` replays anyway, and
        // `doneseq lint` is the command that fails on an error.
        for lint in stop.lint(&options) {
            eprintln!(
                "warning: {} (at {})",
                lint.message,
                crate::lint_cmd::path_text(&lint.path)
            );
        }
    }
    Monitor::new(config).map_err(|e| e.to_string())
}

/// The role column, padded, in `role_index` order.
const ROLES: [&str; 4] = ["user  ", "llm   ", "agent ", "system"];

const fn role_index(role: Role) -> usize {
    match role {
        Role::User => 0,
        Role::Llm => 1,
        Role::Agent => 2,
        Role::System => 3,
    }
}

/// Writes `line` without its trailing blanks, and empties it for the next.
fn write_line(line: &mut String, out: &mut impl Write) -> io::Result<()> {
    line.truncate(line.trim_end().len());
    line.push('\n');
    let written = out.write_all(line.as_bytes());
    line.clear();
    written
}

struct Report<'a> {
    monitor: &'a Monitor,
    /// The table's rows; `None` with `--summary` and `--json`.
    table: Option<&'a rows::Table>,
    lines: &'a Lines,
    first: Option<&'a First>,
    all_matches: Option<&'a [usize]>,
    explain: &'a [doneseq::SequenceProgress],
    explain_stop: Option<ConditionReport>,
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
        StopReason::Condition(_) => "condition",
        StopReason::Cancelled => "cancelled",
        _ => "other",
    }
}

/// Whether a fired condition is listed under the reason: the stop tree's and the
/// cancel handle's (an option's rule is the reason itself).
fn shown(c: &doneseq::FiredCondition) -> bool {
    matches!(c.rule, None | Some(StopReason::Cancelled))
}

// The JSON of `check`: typed, borrowed views of the library's values in the CLI's
// terms (transcript indices where the library counts steps). Fields are declared in
// alphabetical order, the order the output has always had.

/// The verdict object (the steps follow it, written as they go).
#[derive(serde::Serialize)]
struct VerdictJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    all_matches: Option<&'a [usize]>,
    answer: Option<&'a str>,
    at: Option<usize>,
    condition: Option<&'a str>,
    conditions: Vec<FiredJson<'a>>,
    done: bool,
    fired: Option<SequenceJson<'a>>,
    kind: Option<&'static str>,
    reason: Option<&'static str>,
    stop: Option<ReportJson<'a>>,
    stopped: bool,
}

/// The done sequence that fired first, and the messages it matched.
#[derive(serde::Serialize)]
struct SequenceJson<'a> {
    canonical: String,
    matched: &'a [usize],
    name: Option<&'a str>,
    sequence: usize,
}

/// A condition of the stop tree (or the cancel handle) that fired.
#[derive(serde::Serialize)]
struct FiredJson<'a> {
    at: usize,
    condition: &'a str,
    detail: String,
    kind: &'static str,
    path: &'a [usize],
}

/// A condition report, children nested.
#[derive(serde::Serialize)]
struct ReportJson<'a> {
    children: Vec<ReportJson<'a>>,
    condition: &'a str,
    fired: bool,
    first_fired: Option<usize>,
    kind: Option<&'static str>,
    path: &'a [usize],
    progress: &'a str,
}

impl<'a> ReportJson<'a> {
    fn new(report: &'a ConditionReport, line_of: &dyn Fn(u64) -> usize) -> ReportJson<'a> {
        ReportJson {
            children: report
                .children
                .iter()
                .map(|c| ReportJson::new(c, line_of))
                .collect(),
            condition: &report.condition,
            fired: report.fired,
            first_fired: report.first_fired.map(line_of),
            kind: report.kind.map(VerdictKind::as_str),
            path: &report.path,
            progress: &report.progress,
        }
    }
}

impl Report<'_> {
    /// The verdict as JSON, without the steps.
    fn verdict_json(&self) -> VerdictJson<'_> {
        let (at, outcome) = match self.first {
            Some(first) => (Some(first.at), Some(&first.outcome)),
            None => (None, None),
        };
        let line_of = |s| self.lines.line_of(s);
        let fired = self
            .first
            .and_then(|first| match (&first.outcome.reason, &first.matched) {
                (StopReason::Sequence(s), Some(lines)) => {
                    let sequence = &self.monitor.sequences()[*s];
                    Some(SequenceJson {
                        canonical: sequence.to_string(),
                        matched: lines,
                        name: sequence.name(),
                        sequence: *s,
                    })
                }
                _ => None,
            });
        VerdictJson {
            all_matches: self.all_matches,
            answer: outcome
                .and_then(|o| o.answer.as_ref())
                .map(|a| a.text.as_str()),
            at,
            condition: outcome.and_then(|o| match &o.reason {
                StopReason::Condition(_) | StopReason::Cancelled => o.leading().map(|c| &*c.text),
                _ => None,
            }),
            // The stop tree's conditions and the cancel handle (the options' rules are
            // the reason and `fired`).
            conditions: outcome.map_or_else(Vec::new, |o| {
                o.conditions
                    .iter()
                    .filter(|c| shown(c))
                    .map(|c| FiredJson {
                        at: line_of(c.at),
                        condition: &c.text,
                        detail: c.evidence.to_string(),
                        kind: c.kind.as_str(),
                        path: &c.path,
                    })
                    .collect()
            }),
            done: outcome.is_some_and(|o| o.kind == VerdictKind::Done),
            fired,
            kind: outcome.map(|o| o.kind.as_str()),
            reason: outcome.map(|o| reason_name(&o.reason)),
            stop: self
                .explain_stop
                .as_ref()
                .map(|r| ReportJson::new(r, &line_of)),
            stopped: outcome.is_some(),
        }
    }

    /// The verdict as one JSON object (`--summary`).
    fn json(&self, out: &mut impl Write) -> io::Result<()> {
        serde_json::to_writer(&mut *out, &self.verdict_json())?;
        out.write_all(b"\n")
    }

    /// The verdict's fields that follow the rows (`"steps":[...` written before
    /// them) and close the one object.
    fn json_after_rows(&self) -> io::Result<Vec<u8>> {
        let verdict = serde_json::to_string(&self.verdict_json())?;
        let fields = verdict.strip_prefix('{').unwrap_or(&verdict);
        Ok(format!("],{fields}\n").into_bytes())
    }

    /// The table (unless `--summary`), then the verdict.
    fn text(&self, out: &mut impl Write) -> io::Result<()> {
        if let Some(table) = self.table {
            self.table(table, out)?;
            out.write_all(b"\n")?;
        }
        out.write_all(self.verdict_text().as_bytes())
    }

    /// One row per message: its events and each sequence's progress.
    fn table(&self, table: &rows::Table, out: &mut impl Write) -> io::Result<()> {
        let sequences = self.monitor.sequences();
        let headers: Vec<String> = sequences
            .iter()
            .enumerate()
            .map(|(i, s)| cut(&s.name().map_or_else(|| format!("#{i}"), str::to_owned)))
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
        // Per kind of row: its responder and events cells, cut.
        let kinds = table.kinds.all();
        let responders: Vec<Option<String>> = kinds
            .iter()
            .map(|k| k.responder.as_deref().map(cut))
            .collect();
        let events: Vec<Option<String>> = kinds
            .iter()
            .map(|k| k.events.as_ref().map(|e| cut(&e.join(" "))))
            .collect();
        let width = |cells: &[Option<String>], least: usize| {
            cells
                .iter()
                .flatten()
                .map(|c| c.chars().count())
                .chain([least])
                .max()
                .unwrap_or(least)
        };
        let responder_width = width(&responders, 9);
        let events_width = width(&events, 6);
        let index_width = table.last_index().map_or(1, |i| i.to_string().len()).max(1);
        // Each line is made in one buffer, reused, and written without its trailing
        // blanks.
        let mut line = String::new();
        // (The index is a number, narrow; every other cell is padded by `pad`, as
        // responders, events and headers come from the input and may be wider than
        // `format!` pads: 65,535.)
        let _ = write!(line, "{:>index_width$}  role   ", "#");
        line.push_str(&pad("responder", responder_width));
        line.push_str("  ");
        line.push_str(&pad("events", events_width));
        for (h, &width) in headers.iter().zip(&widths) {
            line.push_str("  ");
            line.push_str(&pad(h, width));
        }
        write_line(&mut line, out)?;
        // Every cell a row can hold is made once: a row is then its index and copies.
        let no_responder = pad("-", responder_width);
        let responders: Vec<String> = responders
            .iter()
            .map(|r| {
                r.as_deref()
                    .map_or_else(|| no_responder.clone(), |r| pad(r, responder_width))
            })
            .collect();
        let input_cell = pad("input", events_width);
        let no_events = pad("-", events_width);
        let event_cells: Vec<String> = events
            .iter()
            .zip(kinds)
            .map(|(e, kind)| match e {
                Some(e) => pad(e, events_width),
                None if kind.input => input_cell.clone(),
                None => no_events.clone(),
            })
            .collect();
        // Per sequence, per progress p: "  p/len" (and " fired" at len), padded.
        let progress_cells: Vec<Vec<String>> = sequences
            .iter()
            .zip(&widths)
            .map(|(seq, &width)| {
                (0..=seq.len())
                    .map(|p| {
                        let fired = if p == seq.len() { " fired" } else { "" };
                        format!("  {}", pad(&format!("{p}/{}{fired}", seq.len()), width))
                    })
                    .collect()
            })
            .collect();
        // A row's progress, dense: set from its sparse list, then cleared again.
        let mut dense = vec![0usize; sequences.len()];
        for (index, id, progress) in table.rows() {
            let kind = &kinds[id];
            let _ = write!(line, "{index:>index_width$}  ");
            line.push_str(ROLES[role_index(kind.role)]);
            line.push(' ');
            line.push_str(&responders[id]);
            line.push_str("  ");
            line.push_str(&event_cells[id]);
            if kind.events.is_some() {
                dense.fill(0);
                for (s, p) in progress {
                    dense[s] = p;
                }
                for (cells, &p) in progress_cells.iter().zip(&dense) {
                    line.push_str(cells.get(p).map_or("", String::as_str));
                }
            }
            write_line(&mut line, out)?;
        }
        Ok(())
    }

    /// The verdict and the answer, or how far each sequence got; every match with
    /// `--all`.
    fn verdict_text(&self) -> String {
        let sequences = self.monitor.sequences();
        let mut out = String::new();
        match self.first {
            Some(first) => {
                let outcome = &first.outcome;
                let kind = outcome.kind.as_str();
                let _ = write!(out, "{kind} at message {}: ", first.at);
                let _ = match &outcome.reason {
                    StopReason::Sequence(s) => {
                        let (from, to) = first.matched.as_ref().map_or((0, 0), |m| {
                            (
                                m.first().copied().unwrap_or(0),
                                m.last().copied().unwrap_or(0),
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
                    StopReason::Condition(_) | StopReason::Cancelled => writeln!(
                        out,
                        "{}",
                        outcome.leading().map_or("cancelled", |c| &*c.text)
                    ),
                    other => writeln!(out, "{other:?}"),
                };
                for c in outcome.conditions.iter().filter(|c| shown(c)) {
                    let _ = writeln!(
                        out,
                        "  fired: {} ({}, message {}): {}",
                        c.text,
                        c.kind,
                        self.lines.line_of(c.at),
                        c.evidence
                    );
                }
                match &outcome.answer {
                    Some(answer) => {
                        let _ = writeln!(out, "answer: {}", answer.text);
                    }
                    None => out.push_str("answer: (none)\n"),
                }
            }
            None => {
                out.push_str("not done\n");
                if let Some(report) = &self.explain_stop {
                    out.push_str("  stop conditions:\n");
                    for line in report.to_string().lines() {
                        let _ = writeln!(out, "    {line}");
                    }
                }
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
                            self.lines.line_of(f.at)
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

/// `text` and spaces to `width` characters. Not `format!`'s `{:<width$}`, which panics
/// past a width of 65,535, and these widths come from the transcript.
fn pad(text: &str, width: usize) -> String {
    let missing = width.saturating_sub(text.chars().count());
    let mut cell = String::with_capacity(text.len() + missing);
    cell.push_str(text);
    cell.extend(std::iter::repeat_n(' ', missing));
    cell
}

/// The widest a name, a responder or a step's events is drawn in the table, in
/// characters; longer ones are cut, ending in `…` (`--json` has them whole). Every
/// distinct cell is kept padded to its column's width, so an unbounded width made
/// memory and output grow with the longest name times the distinct ones (a 1 MB
/// transcript took 600 MB).
const MAX_CELL_CHARS: usize = 60;

/// `text`, cut to [`MAX_CELL_CHARS`].
fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_CELL_CHARS - 1) {
        Some((end, _)) if text[end..].chars().nth(1).is_some() => format!("{}…", &text[..end]),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::Lines;

    /// The binary search gives what walking the system messages gives.
    #[test]
    fn line_of_counts_the_system_messages_before_a_step() {
        let walk = |system: &[usize], step: usize| {
            let mut line = step;
            for &s in system {
                if s > line {
                    break;
                }
                line += 1;
            }
            line
        };
        // Transcripts of 12 messages: each subset of them as the system messages.
        for mask in 0u32..(1 << 12) {
            let system: Vec<usize> = (0..12).filter(|i| mask & (1 << i) != 0).collect();
            let lines = Lines {
                skipped: system.clone(),
            };
            for step in 0..(12 - system.len()) {
                assert_eq!(
                    lines.line_of(step as u64),
                    walk(&system, step),
                    "{system:?} {step}"
                );
            }
        }
    }
}
