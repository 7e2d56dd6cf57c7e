//! Reading each transcript format, in nanoseconds per message: the same conversation
//! (a user question, a model turn with text and a calculator call, the result, a model
//! turn with a search call, the result, the model's answer; with usage) written in
//! each format as JSON Lines (`benches/cycles/`; Langroid's task log as Langroid writes
//! it, tab-separated, with the attempts it logs between steps and no usage), 50,000
//! cycles (about 300,000 messages), read with `Reader::next_borrowed` and nothing else. Run with
//! `cargo bench --bench formats`; the target is every format within 1.5x of
//! doneseq's JSONL per message.
//!
//! Beside each reading, the floor of reading that format's JSON at all: each line split
//! at memchr's `\n`, checked as UTF-8 and parsed by serde_json into `IgnoredAny` (the
//! JSON checked, nothing built; a Langroid task log's lines are split at their tabs).
//! A format whose records are longer has a higher floor;
//! the floors' ratios say how much of a format's ratio to JSONL is its JSON's.
//!
//! Timings on a shared machine vary by a third from run to run; instructions do not.
//! With `DONESEQ_READ_ONCE=<format>:<times>[:floor]` in the environment the binary only
//! builds that format's transcript and reads it (or, with `:floor`, parses its lines
//! as the floor does) that many times, for `scripts/count-reads`, which counts the
//! instructions per message under valgrind. With `DONESEQ_BEST_OF=<rounds>` it times
//! one reading of each format in turn (and one parse of its lines, the floor), that
//! many rounds, and prints each format's fastest, for `scripts/time-reads`: the
//! formats interleaved, so that the machine's load weighs on all alike, and the best
//! of many, which the load can only slow.

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_main};
use doneseq::transcript::{Format, Reader};

const CYCLES: usize = 50_000;

/// One cycle in `format`, as lines (`benches/cycles/`, which the allocation test reads
/// too).
fn cycle(format: Format) -> Vec<String> {
    let text = match format {
        Format::Jsonl => include_str!("cycles/jsonl.jsonl"),
        Format::OpenAi => include_str!("cycles/openai.jsonl"),
        Format::Responses => include_str!("cycles/openai-responses.jsonl"),
        Format::Anthropic => include_str!("cycles/anthropic.jsonl"),
        Format::AutoGen => include_str!("cycles/autogen.jsonl"),
        Format::PydanticAi => include_str!("cycles/pydantic-ai.jsonl"),
        Format::LangChain => include_str!("cycles/langchain.jsonl"),
        Format::Gemini => include_str!("cycles/gemini.jsonl"),
        Format::Smolagents => include_str!("cycles/smolagents.jsonl"),
        // As Strands Agents keeps it (its usage and a tracking id on each message).
        Format::Bedrock => include_str!("cycles/bedrock.jsonl"),
        // As Agno's `Message.to_dict()` writes it (its ids, flags, metrics and times).
        Format::Agno => include_str!("cycles/agno.jsonl"),
        // As LlamaIndex's `ChatMessage.model_dump()` writes it (no usage: LlamaIndex's
        // messages keep none).
        Format::LlamaIndex => include_str!("cycles/llamaindex.jsonl"),
        // A task's output (`TaskOutput.model_dump()`) a line, its six messages in it.
        Format::CrewAi => include_str!("cycles/crewai.jsonl"),
        // The run rlm-code 0.1.13's runner logged (generic environment): two
        // `run_python` steps and the `final` action, the run's end.
        Format::RlmCode => include_str!("cycles/rlm-code.jsonl"),
        // The conversation's records as Claude Code 2.1.332 writes them (a model turn
        // a record a content block: seven records for six messages); a session's
        // other records (attachments, request shapes, costs) are not in it.
        Format::ClaudeCode => include_str!("cycles/claude-code.jsonl"),
        // The conversation's records as Codex CLI 0.163.0 writes them (its items, each
        // call's usage record: ten records for six messages); the events it writes
        // beside them (`event_msg`) are not in it.
        Format::Codex => include_str!("cycles/codex.jsonl"),
        // A trajectory a line, as mini-swe-agent 2.4.6 writes one (each model message
        // with the API response it repeats, each output with its raw text, return
        // code and time; the answer a submitting command, the run's end; its `info`
        // without the run's configuration, which a run writes once, whatever its
        // length).
        Format::MiniSweAgent => include_str!("cycles/mini-swe-agent.jsonl"),
        // A trajectory a line, as SWE-agent 1.1.0 writes one (a function-calling
        // model's: its history, each step again in its trajectory with the query it
        // sent, the history so far; the answer the text of a call of `submit`, whose
        // output is the submission, the run's end; no usage, which SWE-agent keeps
        // only as the run's totals; no replay configuration, which a run writes once,
        // whatever its length).
        Format::SweAgent => include_str!("cycles/swe-agent.jsonl"),
        // A sample a line, as Inspect AI 0.3.285 logs one (`use_tools` and
        // `generate(tool_calls="loop")`, its scripted model): its messages, and its
        // events, which are most of its bytes (each model call's input, tools,
        // configuration and output; each tool call's; the state's changes).
        Format::Inspect => include_str!("cycles/inspect.jsonl"),
        // The session's history as Microsoft Agent Framework 1.23.0's
        // FileHistoryProvider keeps it, a message a line (no usage: the framework
        // keeps none in its messages).
        Format::AgentFramework => include_str!("cycles/agent-framework.jsonl"),
        // doneseq's JSONL with Langroid's roles and tool JSON in the content.
        Format::Langroid => include_str!("cycles/langroid.jsonl"),
        // Its header first: written once, before the cycles.
        Format::LangroidTsv => include_str!("cycles/langroid-tsv.tsv"),
        _ => unreachable!("not benchmarked"),
    };
    text.lines().map(str::to_owned).collect()
}

/// The transcript: `CYCLES` cycles of `format` (a Langroid task log's header once,
/// first).
fn transcript(format: Format) -> String {
    let mut lines = cycle(format);
    let mut text = String::new();
    if format == Format::LangroidTsv {
        text.push_str(&lines.remove(0));
        text.push('\n');
    }
    for _ in 0..CYCLES {
        for line in &lines {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// Reads the whole transcript: how many messages, and their tokens.
fn read(text: &str, format: Format) -> (usize, u64) {
    let mut reader = Reader::new(text.as_bytes(), format);
    let (mut count, mut tokens) = (0, 0);
    while let Some(message) = reader.next_borrowed() {
        let usage = message.unwrap().usage();
        tokens += usage.map_or(0, |u| u.input_tokens + u.output_tokens);
        count += 1;
    }
    (count, tokens)
}

/// The floor: each line of `text` split at memchr's `\n`, checked as UTF-8 and parsed
/// by serde_json into `IgnoredAny`, as the reader splits and checks a line and then
/// at the least reads its JSON (a Langroid task log's, not JSON: split at its tabs).
/// How many lines.
fn parse_lines(text: &str, format: Format) -> usize {
    let bytes = text.as_bytes();
    let (mut start, mut lines) = (0, 0);
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let line = std::str::from_utf8(&bytes[start..end]).expect("UTF-8");
        if format == Format::LangroidTsv {
            std::hint::black_box(memchr::memchr_iter(b'\t', line.as_bytes()).count());
        } else {
            let _: serde::de::IgnoredAny = serde_json::from_str(line).expect("a JSON line");
        }
        lines += 1;
        start = end + 1;
    }
    lines
}

fn formats_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("read each format");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    let expected = read(&transcript(Format::Jsonl), Format::Jsonl);
    for format in FORMATS {
        let text = transcript(format);
        // The same messages and tokens in every format (the Responses items,
        // Langroid's task log, LlamaIndex's, CrewAI's and SWE-agent's messages carry no usage).
        // (smolagents' has one more message: its final answer is a call of its
        // `final_answer` tool and that call's result. rlm-code's too, its answer the
        // `final` action's call and result, then the run's end, a stop; but its task
        // once: the cycles are events of one run.)
        let (count, tokens) = read(&text, Format::Auto);
        let more = match format {
            Format::Smolagents => CYCLES,
            Format::RlmCode => CYCLES + 1,
            // The answer is a command's (its call, then its output: the submission).
            Format::MiniSweAgent | Format::SweAgent => CYCLES,
            _ => 0,
        };
        assert_eq!(count, expected.0 + more, "{format}");
        if !matches!(
            format,
            Format::Responses
                | Format::LangroidTsv
                | Format::LlamaIndex
                | Format::CrewAi
                | Format::SweAgent
        ) {
            assert_eq!(tokens, expected.1, "{format}");
        }
        group.throughput(Throughput::Elements(count as u64));
        group.bench_function(format.name(), |b| b.iter(|| read(&text, Format::Auto)));
        // Per message, as the reading: a format with more lines than messages
        // (Responses) pays its extra lines' parsing in each message's time.
        group.bench_function(
            format!("{} (floor: serde_json, nothing built)", format.name()),
            |b| b.iter(|| parse_lines(&text, format)),
        );
    }
    group.finish();
}

/// `DONESEQ_READ_ONCE=<format>:<times>[:floor]`: the transcript of that format built
/// and read (or with `:floor` its lines parsed as the floor parses them) that many
/// times, its messages printed (nothing measured here: the counting is valgrind's).
/// `false` if the variable is not set.
fn read_once() -> bool {
    let Ok(spec) = std::env::var("DONESEQ_READ_ONCE") else {
        return false;
    };
    let mut fields = spec.split(':');
    let (Some(name), Some(times)) = (fields.next(), fields.next()) else {
        panic!("DONESEQ_READ_ONCE is <format>:<times>[:floor]");
    };
    let floor = match fields.next() {
        None => false,
        Some("floor") => true,
        Some(other) => panic!("DONESEQ_READ_ONCE: `{other}` is not `floor`"),
    };
    let format: Format = name.parse().expect("a format's name");
    let times: usize = times.parse().expect("a number of reads");
    let text = transcript(format);
    // The messages are the reading's, also when only the floor runs: the counts
    // are per message.
    let messages = read(&text, Format::Auto).0;
    for _ in 0..times {
        let text = std::hint::black_box(text.as_str());
        if floor {
            std::hint::black_box(parse_lines(text, format));
        } else {
            std::hint::black_box(read(text, Format::Auto));
        }
    }
    println!("{messages}");
    true
}

/// The formats the bench reads, `jsonl` first.
const FORMATS: [Format; 22] = [
    Format::Jsonl,
    Format::OpenAi,
    Format::Responses,
    Format::Anthropic,
    Format::AutoGen,
    Format::PydanticAi,
    Format::LangChain,
    Format::Gemini,
    Format::Smolagents,
    Format::Langroid,
    Format::LangroidTsv,
    Format::Bedrock,
    Format::Agno,
    Format::LlamaIndex,
    Format::CrewAi,
    Format::RlmCode,
    Format::ClaudeCode,
    Format::Codex,
    Format::MiniSweAgent,
    Format::SweAgent,
    Format::Inspect,
    Format::AgentFramework,
];

/// `DONESEQ_BEST_OF=<rounds>`: each format's transcript read once in turn, and its
/// lines parsed once as the floor parses them, `rounds` times over; each format's
/// fastest reading and fastest floor printed in nanoseconds a message (of the
/// reading), with their ratios to `jsonl`'s and the reading's to its floor. `false`
/// if the variable is not set.
fn best_of() -> bool {
    let Ok(rounds) = std::env::var("DONESEQ_BEST_OF") else {
        return false;
    };
    let rounds: usize = rounds
        .parse()
        .expect("DONESEQ_BEST_OF is a number of rounds");
    let texts: Vec<String> = FORMATS.iter().map(|&f| transcript(f)).collect();
    let messages: Vec<usize> = texts.iter().map(|t| read(t, Format::Auto).0).collect();
    let mut best = [[Duration::MAX; 2]; FORMATS.len()];
    for _ in 0..rounds {
        for (i, text) in texts.iter().enumerate() {
            let text = std::hint::black_box(text.as_str());
            let start = Instant::now();
            std::hint::black_box(read(text, Format::Auto));
            best[i][0] = best[i][0].min(start.elapsed());
            let start = Instant::now();
            std::hint::black_box(parse_lines(text, FORMATS[i]));
            best[i][1] = best[i][1].min(start.elapsed());
        }
    }
    let per = |i: usize, floor: usize| best[i][floor].as_secs_f64() * 1e9 / messages[i] as f64;
    println!("format              ns/message  x jsonl   floor  x jsonl  x floor");
    for (i, format) in FORMATS.iter().enumerate() {
        println!(
            "{:<18} {:>11.1} {:>8.2} {:>7.1} {:>8.2} {:>8.2}",
            format.name(),
            per(i, 0),
            per(i, 0) / per(0, 0),
            per(i, 1),
            per(i, 1) / per(0, 1),
            per(i, 0) / per(i, 1),
        );
    }
    true
}

fn benches() {
    if read_once() || best_of() {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    formats_bench(&mut c);
}

criterion_main!(benches);
