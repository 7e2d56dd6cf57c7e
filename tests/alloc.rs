//! Memory of a run: observing a message allocates nothing once the run is warm, and
//! a run's state does not grow with its length.
//!
//! Its own test binary, without the test harness: the allocator counts every
//! thread's allocations, and the harness's threads would add theirs. Run with
//! `cargo test --test alloc`; it also prints each monitor's run-state size, and checks
//! that the README gives the sizes it measures.
//!
//! The stream's 10 KB non-ASCII message matches none of the regexes: one that did,
//! in a set holding a Unicode `\b`, would allocate the regex engine's 16-byte error
//! box when its DFA gives up on a non-ASCII byte (regex-automata 0.4's design; the
//! README says so).
//!
//! The counting allocator is `stats_alloc`'s (a wrapper around `System`, no unsafe
//! code here: the crate forbids it in every target).

use std::alloc::System;
use std::mem::size_of_val;

use doneseq::{Message, Monitor, Role, TaskConfig, ToolCall};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, Stats, StatsAlloc};

#[path = "common/grouped.rs"]
mod grouped;
use grouped::grouped;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Sequences that use every kind of row the automaton has (base kinds, tool names,
/// responders, regexes alone and in compounds, `F`, `E`, negations, repeats), each
/// ending in an element no message satisfies, so that nothing ever stops: a stop
/// allocates its outcome, which is not the steady state. The first `k` of them; past
/// the ninth, generated ones spread the automaton over more words.
fn config(k: usize) -> TaskConfig {
    let mut texts: Vec<String> = [
        "calc: T[calculator], A@Calculator & !E",
        // Backtracking patterns (look-behind, backreference) run per message too.
        "L & C[(?<!not )\\bquit\\b]",
        "F & !E & !C[(stop)\\1]",
        "T[search]{2}",
        "!T[search] & T, A",
        "C[paris|london] & C[capital]",
        "!A@Calculator, E",
        "_{3}",
        "L@SubTask & !F",
    ]
    .iter()
    .map(|s| format!("{s}, U@nobody"))
    .collect();
    texts.extend((0..k.saturating_sub(texts.len())).map(|i| match i % 3 {
        0 => format!("T[tool_{i}], A, U@nobody"),
        1 => format!("C[stopword_{i}], U@nobody"),
        _ => format!("L@agent_{i}, U@nobody"),
    }));
    texts.truncate(k);
    TaskConfig::from_dsl(texts).expect("the sequences parse")
}

/// About 10 KB of prose with non-ASCII text (Unicode word boundaries are the
/// regex engine's slow path).
fn long_text() -> String {
    "The café’s totals — see “context” — differ by 3.5 % from last year’s. ".repeat(140)
}

/// Every kind of message: tool calls (one, several, unknown), text, regex matches,
/// FINAL answers, errors, responders, no response, a system message, 10 KB.
fn stream() -> Vec<Message<'static>> {
    vec![
        Message::system("You are a calculator agent."),
        Message::user("What is 6*7? Then quit."),
        Message::llm("").with_tool_call(ToolCall::new("calculator", r#"{"x": "6*7"}"#)),
        Message::agent("42").with_responder("Calculator"),
        Message::agent("")
            .with_responder("Calculator")
            .with_error("division by zero"),
        Message::llm("The capital is Paris. FINAL(\"Paris\")"),
        Message::llm("")
            .with_tool_call(ToolCall::new("search", "{}"))
            .with_tool_call(ToolCall::new("calculator", "{}"))
            .with_tool_call(ToolCall::new("search", "{}")),
        Message::llm("").with_tool_call(ToolCall::new("unknown_tool", "{}")),
        Message::no_response(Role::Llm),
        Message::agent(long_text()),
        Message::user("I will quit now; stopstopword_1 finished."),
        Message::llm("Summing up.").with_responder("SubTask"),
        Message::llm("FINAL_VAR(result)").with_responder("agent_2"),
        Message::agent("PASS"),
    ]
}

/// Every kind of condition that does not fire on the stream (a loop over calls
/// parses arguments, which allocates: not here).
const STOP: &str = r#"max_turns(1000000) | tokens(1000000000) | timeout(1h)
    | consecutive_errors(50) | tool(never) | tool(never, executed)
    | text("zzz", from=[llm]) | confidence(2.0, fallback_final=false) | reward(1000000000)
    | seq("T[never], A") | cancelled | (tool(never2) & !max_turns(3))
    | loop(over=texts, period=3, repeats=40)"#;

fn steady_state_observe_allocates_nothing() {
    for (k, with_stop) in [(9, false), (300, false), (9, true)] {
        let mut config = config(k);
        if with_stop {
            config.stop = Some(STOP.parse().expect("the stop condition parses"));
        }
        let monitor = Monitor::new(config).expect("the task compiles");
        let messages = stream();
        // The stream exercises what it should (this allocates: before the region).
        let labels: Vec<String> = messages
            .iter()
            .flat_map(|m| monitor.classify(m).labels())
            .collect();
        for expected in [
            "T[calculator]",
            "T[search]",
            "C[(?<!not )\\bquit\\b]",
            "C[(stop)\\1]",
            "C[paris|london]",
            "C[capital]",
            "F",
            "E",
            "N",
            "@Calculator",
            "@SubTask",
        ] {
            assert!(labels.iter().any(|l| l == expected), "no {expected}");
        }

        let mut run = monitor.start();
        // Warm up: the regex engine's caches fill on first use.
        for m in messages.iter().cycle().take(2 * messages.len()) {
            assert!(!monitor.observe(&mut run, m).is_stop(), "{m:?}");
        }
        let region = Region::new(GLOBAL);
        let mut stops = 0;
        for m in messages.iter().cycle().take(100 * messages.len()) {
            stops += usize::from(monitor.observe(&mut run, m).is_stop());
        }
        let change = region.change();
        assert_eq!(stops, 0);
        assert_eq!(
            (change.allocations, change.reallocations),
            (0, 0),
            "{k} sequences: {change:?}"
        );
    }
}

/// Reading a transcript with `Reader::next_borrowed` copies no text: a message's only
/// allocations are its list of tool calls, when it has some, and the box of the fields
/// few messages have (here an error and a tool name), when it has one.
fn borrowed_reading_copies_no_text() {
    use doneseq::transcript::{Format, Reader};

    const CYCLE: [&str; 4] = [
        r#"{"role": "user", "content": "What is 17 times 23?"}"#,
        r#"{"role": "llm", "responder": "Main", "content": "Computing.", "tool_calls": [{"id": "c1", "name": "calculator", "arguments": {"expression": "17 * 23"}}], "usage": {"input_tokens": 61, "output_tokens": 22}}"#,
        r#"{"role": "tool", "tool_call_id": "c1", "name": "Calculator", "content": "391", "error": "none", "tool_name": "calculator"}"#,
        r#"{"role": "assistant", "content": "It is 391.", "function_call": {"name": "done", "arguments": "{}"}}"#,
    ];
    let rounds = 200;
    let text: String = CYCLE
        .iter()
        .cycle()
        .take(4 * rounds)
        .map(|l| format!("{l}\n"))
        .collect();
    let mut reader = Reader::new(text.as_bytes(), Format::Jsonl);
    // Warm up: the line buffer grows to the longest line.
    for _ in 0..CYCLE.len() {
        reader
            .next_borrowed()
            .expect("a message")
            .expect("it reads");
    }
    let region = Region::new(GLOBAL);
    let (mut messages, mut with_calls, mut with_rare, mut tokens) = (0, 0, 0, 0);
    while let Some(message) = reader.next_borrowed() {
        let message = message.expect("it reads");
        messages += 1;
        with_calls += usize::from(!message.tool_calls().is_empty());
        with_rare += usize::from(message.error().is_some() || message.tool_name().is_some());
        tokens += message.usage().map_or(0, |u| u.input_tokens);
    }
    let change = region.change();
    assert_eq!(messages, 4 * (rounds - 1));
    assert_eq!((with_calls, with_rare), (2 * (rounds - 1), rounds - 1));
    assert_eq!(tokens, 61 * (rounds as u64 - 1));
    assert_eq!(
        (change.allocations, change.reallocations),
        (with_calls + with_rare, 0),
        "{change:?}"
    );
}

/// What reading `rounds` times the bench's `cycle` (of six messages) under `auto`
/// with `Reader::next_borrowed` allocates after the first cycle (the warm-up: the
/// buffers grow to the longest line, the queue to its longest, the log learns its
/// kinds of record), and what it read then: messages, tool calls, messages with text.
fn reading_after_a_cycle(cycle: &str, rounds: usize) -> (Stats, [usize; 3]) {
    reading_after_the_first("", cycle, rounds)
}

/// [`reading_after_a_cycle`] of a log that starts with `header`.
fn reading_after_the_first(header: &str, cycle: &str, rounds: usize) -> (Stats, [usize; 3]) {
    use doneseq::transcript::{Format, Reader};

    let text = format!("{header}{}", cycle.repeat(rounds));
    let mut reader = Reader::new(text.as_bytes(), Format::Auto);
    for _ in 0..6 {
        reader
            .next_borrowed()
            .expect("a message")
            .expect("it reads");
    }
    let region = Region::new(GLOBAL);
    let (mut messages, mut calls, mut texts) = (0, 0, 0);
    while let Some(message) = reader.next_borrowed() {
        let message = message.expect("it reads");
        messages += 1;
        calls += message.tool_calls().len();
        texts += usize::from(!message.content().is_empty());
    }
    (region.change(), [messages, calls, texts])
}

/// Reading OpenAI Responses items with `Reader::next_borrowed`: a model turn borrows
/// the texts of the line that opens it, and a tool's output borrows its line. What is
/// left to allocate, each cycle of the conversation: the two turns' lists of calls, the
/// name, id and arguments of the call on the line after the turn's first (copied, the
/// arguments decoded: that line is gone when the turn ends; the other call's
/// arguments, a string of JSON, are kept as written), and the user's message read
/// after the last turn (copied to wait, the turn given first).
fn responses_turns_borrow_their_first_line() {
    // The cycle `cargo bench --bench formats` reads (its allocations are the README's).
    const CYCLE: &str = include_str!("../benches/cycles/openai-responses.jsonl");
    assert_eq!(CYCLE.lines().count(), 7, "the cycle's items");
    let rounds = 200;
    let (change, [messages, calls, texts]) = reading_after_a_cycle(CYCLE, rounds);
    let cycles = rounds - 1;
    // Six messages a cycle: the user's, two turns with a call each (the first with
    // its text), two outputs, the answer.
    assert_eq!(
        (messages, calls, texts),
        (6 * cycles, 2 * cycles, 5 * cycles)
    );
    let (lists, arguments, copied_call, copied_message) = (2, 1, 2, 1);
    assert_eq!(
        (change.allocations, change.reallocations),
        // (The last answer ends the input: no user's message waits after it.)
        (
            cycles * (lists + arguments + copied_call + copied_message) - copied_message,
            0
        ),
        "{change:?}"
    );
}

/// Reading OpenAI chat completions and AutoGen messages with `Reader::next_borrowed`:
/// a call's arguments, written as a string of JSON (`"{\"expression\": ...}"`), are
/// kept as written, not decoded into a new string; they are decoded when asked for.
/// What is left to allocate, each cycle of the conversation (the bench's): the two
/// calls' lists, and in AutoGen's the two tool results' rarer fields (the tool's name,
/// which few messages carry, boxed).
fn string_arguments_are_kept_as_written() {
    use doneseq::transcript::{Format, Reader};

    for (format, cycle, rare) in [
        ("openai", include_str!("../benches/cycles/openai.jsonl"), 0),
        (
            "autogen",
            include_str!("../benches/cycles/autogen.jsonl"),
            2,
        ),
    ] {
        assert_eq!(cycle.lines().count(), 6, "{format}: the cycle's messages");
        let rounds = 200;
        let (change, [messages, calls, _]) = reading_after_a_cycle(cycle, rounds);
        let cycles = rounds - 1;
        assert_eq!((messages, calls), (6 * cycles, 2 * cycles), "{format}");
        assert_eq!(
            (change.allocations, change.reallocations),
            (cycles * (2 + rare), 0),
            "{format}: {change:?}"
        );
    }
    // Asked for, they are the text serde_json decodes.
    let line = include_str!("../benches/cycles/openai.jsonl")
        .lines()
        .nth(1)
        .expect("a completion");
    let mut reader = Reader::new(line.as_bytes(), Format::Auto);
    let message = reader
        .next_borrowed()
        .expect("a message")
        .expect("it reads");
    assert_eq!(
        message.tool_calls()[0].arguments(),
        r#"{"expression": "17 * 23 + 4"}"#
    );
}

/// Reading Google ADK's events with `Reader::next_borrowed`: every text, call and
/// result borrows its line (the responder is the event's author, borrowed; a
/// response compact as written is not copied). What is left to allocate, each cycle
/// of the conversation (the bench's): each event's list of parts (six), the two
/// calls' lists, and the two tool results' rarer fields (the tool's name, boxed).
fn adk_events_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/gemini.jsonl");
    assert_eq!(CYCLE.lines().count(), 6, "the cycle's events");
    let (parts, lists, rare) = (6, 2, 2);
    each_cycle_allocates("", CYCLE, [6, 2, 5], parts + lists + rare);
}

/// Reading `cycle` (after `header`) over and over: what each cycle after the first
/// reads (`read`: messages, tool calls, messages with text) and allocates
/// (`allocations`, none of them a reallocation).
fn each_cycle_allocates(header: &str, cycle: &str, read: [usize; 3], allocations: usize) {
    let rounds = 200;
    let (change, counts) = reading_after_the_first(header, cycle, rounds);
    let cycles = rounds - 1;
    assert_eq!(counts, read.map(|n| n * cycles));
    assert_eq!(
        (change.allocations, change.reallocations),
        (cycles * allocations, 0),
        "{change:?}"
    );
}

/// Reading Langroid's task log with `Reader::next_borrowed`: every text and call
/// borrows its line, the tool calls found in the content too; the lines that are not
/// messages (the attempts Langroid logs between steps) cost nothing. What is left to
/// allocate, each cycle of the conversation (the bench's): the two calls' lists.
fn langroid_task_logs_borrow_their_lines() {
    const LOG: &str = include_str!("../benches/cycles/langroid-tsv.tsv");
    let (header, cycle) = LOG.split_at(LOG.find('\n').expect("a header line") + 1);
    assert_eq!(cycle.lines().count(), 13, "the cycle's lines");
    each_cycle_allocates(header, cycle, [6, 2, 6], 2);
}

/// Reading Bedrock Converse messages as Strands Agents keeps them with
/// `Reader::next_borrowed`: every text, call and result borrows its line (the
/// scanner folds each block into its message as it reads it: no list of blocks).
/// What is left to allocate, each cycle of the conversation (the bench's): the two
/// calls' lists.
fn converse_messages_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/bedrock.jsonl");
    assert_eq!(CYCLE.lines().count(), 6, "the cycle's messages");
    each_cycle_allocates("", CYCLE, [6, 2, 5], 2);
}

/// Reading Agno's messages with `Reader::next_borrowed`: every text and call borrows
/// its line (the scanner reads them). What is left to allocate, each cycle of the
/// conversation (the bench's): the two calls' lists, and the two tool results' rarer
/// fields (the tool's name, boxed).
fn agno_messages_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/agno.jsonl");
    assert_eq!(CYCLE.lines().count(), 6, "the cycle's messages");
    let (lists, rare) = (2, 2);
    each_cycle_allocates("", CYCLE, [6, 2, 5], lists + rare);
}

/// Reading LlamaIndex's messages with `Reader::next_borrowed`: every text and call
/// borrows its line (the scanner folds each block as it reads it: no list of blocks;
/// the provider's copy of the calls is skipped). What is left to allocate, each cycle
/// of the conversation (the bench's): the two calls' lists.
fn llamaindex_messages_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/llamaindex.jsonl");
    assert_eq!(CYCLE.lines().count(), 6, "the cycle's messages");
    each_cycle_allocates("", CYCLE, [6, 2, 5], 2);
}

/// Reading Microsoft Agent Framework's history (its `FileHistoryProvider`'s lines)
/// with `Reader::next_borrowed`: every text, call, result and author borrows its line
/// (the scanner folds each content item into its message as it reads it: no list of
/// contents; a result's items are not read where it has a result). What is left to
/// allocate, each cycle of the conversation (the bench's): the two calls' lists.
fn agent_framework_messages_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/agent-framework.jsonl");
    assert_eq!(CYCLE.lines().count(), 6, "the cycle's messages");
    each_cycle_allocates("", CYCLE, [6, 2, 5], 2);
}

/// Reading Claude Code's session log with `Reader::next_borrowed`: the user's prompt
/// borrows its line; a model turn, which Claude Code writes a content block a record
/// and which is given only once a record not its own follows, keeps its own copies
/// meanwhile (its records' lines are gone by then), and so do the tools' results
/// that wait for it. What is allocated, each cycle of the conversation (the bench's,
/// seven records): each turn's id (a turn's later record compared with it
/// borrowed); the first turn's text, its call's name, id and arguments, and its list
/// of calls (the call's record's, moved); the second turn's call and list the same;
/// the last turn's text; each of the two results' text and call id, and its list
/// (the one it was read into, the turn's then).
fn claude_code_turns_keep_their_own_copies() {
    const CYCLE: &str = include_str!("../benches/cycles/claude-code.jsonl");
    assert_eq!(CYCLE.lines().count(), 7, "the cycle's records");
    let ids = 3;
    let call = 3 + 1;
    let turns = (1 + call) + call + 1;
    let results = 2 * 3;
    each_cycle_allocates("", CYCLE, [6, 2, 5], ids + turns + results);
}

/// Reading Codex CLI's rollout with `Reader::next_borrowed`: its Responses items are
/// read as the Responses API's are, a model call's items joined into one turn (each
/// call's usage record added to it) and given once an item from outside the model
/// follows. The turn keeps its own copies meanwhile (its records' lines are gone by
/// then), and a message read as it is given waits as a copy. What is allocated, each
/// cycle of the conversation (the bench's, ten records): the first turn's text and
/// the answer's; each call's name, id and arguments, and its turn's list of calls;
/// each tool's output, read as its turn is given, its text and call id; the user's
/// message read as the answer is given, its text. (The usage records cost nothing.)
fn codex_turns_keep_their_own_copies() {
    const CYCLE: &str = include_str!("../benches/cycles/codex.jsonl");
    assert_eq!(CYCLE.lines().count(), 10, "the cycle's records");
    let rounds = 200;
    let (change, counts) = reading_after_a_cycle(CYCLE, rounds);
    let cycles = rounds - 1;
    assert_eq!(counts, [6, 2, 5].map(|n| n * cycles));
    let (texts, calls, outputs, user) = (2, 2 * (3 + 1), 2 * 2, 1);
    assert_eq!(
        (change.allocations, change.reallocations),
        // (The last answer ends the input: no user's message waits after it.)
        (cycles * (texts + calls + outputs + user) - user, 0),
        "{change:?}"
    );
}

/// Reading CrewAI's task outputs with `Reader::next_borrowed`: a line stands for six
/// messages, the five after its first given at the next calls, borrowing the line
/// then (kept as spans of it meanwhile, not copied). What is left to allocate, each
/// cycle of the conversation (the bench's, a task's output a line): the two calls'
/// lists, and the two tool results' rarer fields (the tool's name, boxed), boxed
/// again as they are given (the tool's name a span meanwhile). The reader's list of
/// the line's messages (the scanner adds the task's to it as it reads them) is the
/// last line's, kept.
fn crewai_tasks_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/crewai.jsonl");
    assert_eq!(CYCLE.lines().count(), 1, "the cycle's lines");
    let (calls, rare, given) = (2, 2, 2);
    each_cycle_allocates("", CYCLE, [6, 2, 5], calls + rare + given);
}

/// Reading LangChain's messages (`messages_to_dict()`) with `Reader::next_borrowed`:
/// every text and call borrows its line (the scanner reads them). What is left to
/// allocate, each cycle of the conversation (the bench's): the two calls' lists, as
/// read (LangChain's calls) and as converted, and the two tool results' rarer fields
/// (the tool's name, boxed).
fn langchain_messages_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/langchain.jsonl");
    assert_eq!(CYCLE.lines().count(), 6, "the cycle's messages");
    let (read, converted, rare) = (2, 2, 2);
    each_cycle_allocates("", CYCLE, [6, 2, 5], read + converted + rare);
}

/// Reading Pydantic AI's messages (a `ModelRequest` or `ModelResponse` a line) with
/// `Reader::next_borrowed`: every text and call borrows its line (the scanner reads
/// them). What is left to allocate, each cycle of the conversation (the bench's):
/// each message's list of parts (six), the two calls' lists, and the two tool
/// returns' rarer fields (the tool's name, boxed).
fn pydantic_ai_messages_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/pydantic-ai.jsonl");
    assert_eq!(CYCLE.lines().count(), 6, "the cycle's messages");
    let (parts, lists, rare) = (6, 2, 2);
    each_cycle_allocates("", CYCLE, [6, 2, 5], parts + lists + rare);
}

/// Reading smolagents' steps with `Reader::next_borrowed`: every text and call
/// borrows its line (the scanner reads them; the model message's copy of the step's
/// calls is checked, not kept). What is left to allocate, each cycle of the
/// conversation (the bench's: the task, three action steps, the last the final
/// answer's): each action step's list of calls (converted in place: smolagents'
/// call and doneseq's are one size), its result's rarer fields (the tool's name,
/// boxed), boxed again to wait for the next call (the step's turn is given first).
fn smolagents_steps_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/smolagents.jsonl");
    assert_eq!(CYCLE.lines().count(), 4, "the cycle's steps");
    let rounds = 200;
    let (change, counts) = reading_after_the_first("", CYCLE, rounds);
    let cycles = rounds - 1;
    // Seven messages a cycle, six read before counting: the first cycle's last (the
    // final answer's result, with text) is counted too.
    assert_eq!(counts, [7 * cycles + 1, 3 * cycles, 5 * cycles + 1]);
    let (lists, rare, waiting) = (3, 3, 3);
    assert_eq!(
        (change.allocations, change.reallocations),
        (cycles * (lists + rare + waiting), 0),
        "{change:?}"
    );
}

/// Reading rlm-code's run events with `Reader::next_borrowed`: every text and call
/// borrows its line (the scanner reads the event, its action and observation in one
/// pass; a call's arguments are the action as written). What is left to allocate,
/// each cycle of the run (the bench's: two `run_python` steps, the `final` step, the
/// run's end): each step's list of one call, its result's rarer fields (the tool's
/// name and the reward, boxed), boxed again to wait (the step's turn is given
/// first), and the model's text decoded (its action's JSON, its quotes escaped); the
/// two code steps' output decoded (it ends with `\n`); the `final` step's observation
/// made compact (its JSON has spaces: one allocation of its size, not grown); and the
/// run's end's rarer fields (the stop).
fn rlm_code_events_borrow_their_lines() {
    const CYCLE: &str = include_str!("../benches/cycles/rlm-code.jsonl");
    assert_eq!(CYCLE.lines().count(), 4, "the cycle's events");
    let rounds = 200;
    let (change, counts) = reading_after_the_first("", CYCLE, rounds);
    let cycles = rounds - 1;
    // Seven messages a cycle (the task once, first), six read before counting: the
    // first cycle's last two (the final step's result, the run's end) are counted
    // too.
    assert_eq!(counts, [7 * cycles + 2, 3 * cycles, 7 * cycles + 2]);
    let (lists, rare, waiting, texts, outputs, compact, end) = (3, 3, 3, 3, 2, 1, 1);
    assert_eq!(
        (change.allocations, change.reallocations),
        // (And the first cycle's end, read after the six.)
        (
            cycles * (lists + rare + waiting + texts + outputs + compact + end) + end,
            0
        ),
        "{change:?}"
    );
}

/// How long the size test runs each monitor (CI builds this test without
/// optimizations: 5,000 steps, about 350 rounds of the stream, take seconds).
const STEPS: usize = 5_000;

/// The sizes of a run's state, measured, for the README; and the state does not
/// grow with the run's length.
fn run_state_does_not_grow_with_the_run() {
    let messages = stream();
    println!("K sequences  stop condition  size_of::<RunState>  heap bytes");
    let mut sizes = Vec::new();
    for k in [1, 10, 100, 1000] {
        let monitor = Monitor::new(config(k)).expect("the task compiles");
        let region = Region::new(GLOBAL);
        let mut run = monitor.start();
        let change = region.change();
        let started = (size_of_val(&run), run.heap_bytes());
        // heap_bytes tells what the state really holds on the heap.
        assert_eq!(
            change.bytes_allocated - change.bytes_deallocated,
            started.1,
            "{k} sequences"
        );
        for (i, m) in messages.iter().cycle().take(STEPS).enumerate() {
            monitor.observe(&mut run, m);
            if i == 0 || i == 99 {
                assert_eq!((size_of_val(&run), run.heap_bytes()), started, "step {i}");
            }
        }
        assert_eq!((size_of_val(&run), run.heap_bytes()), started);
        println!("{k:>11}  {:>14}  {:>19}  {:>10}", "-", started.0, started.1);
        sizes.push(started);
    }

    // With a stop condition, the state keeps a copy of the last LLM text (for a
    // partial answer), whose buffer grows to the longest one seen, then no more.
    let mut config = config(9);
    config.stop = Some(STOP.parse().expect("the stop condition parses"));
    let monitor = Monitor::new(config).expect("the task compiles");
    let mut run = monitor.start();
    for m in &messages {
        monitor.observe(&mut run, m);
    }
    let warm = (size_of_val(&run), run.heap_bytes());
    for m in messages.iter().cycle().take(STEPS) {
        monitor.observe(&mut run, m);
    }
    assert_eq!((size_of_val(&run), run.heap_bytes()), warm);
    println!(
        "{:>11}  {:>14}  {:>19}  {:>10}",
        9, "14 conditions", warm.0, warm.1
    );
    sizes.push(warm);
    readme_gives(&sizes);
}

/// The README's figures of a run's state are the ones measured: its size (the same
/// for every monitor) in the text and the targets' table, and its heap bytes in the
/// table of the sizes above, in their order.
fn readme_gives(sizes: &[(usize, usize)]) {
    let readme = include_str!("../README.md");
    let size = sizes[0].0;
    assert!(sizes.iter().all(|&(s, _)| s == size), "{sizes:?}");
    for said in [
        format!("`size_of::<RunState>()` is {size} bytes"),
        format!(
            "| {size} bytes + {} to {} heap bytes |",
            grouped(sizes[0].1),
            grouped(sizes[3].1)
        ),
    ] {
        assert!(readme.contains(&said), "the README should say: {said}");
    }
    let row: Vec<String> = sizes.iter().map(|&(_, heap)| grouped(heap)).collect();
    let row = format!("| heap bytes | {} |", row.join(" | "));
    assert!(readme.contains(&row), "the README should say: {row}");
}

fn main() {
    let tests: [(&str, fn()); 18] = [
        (
            "borrowed_reading_copies_no_text",
            borrowed_reading_copies_no_text,
        ),
        (
            "responses_turns_borrow_their_first_line",
            responses_turns_borrow_their_first_line,
        ),
        (
            "string_arguments_are_kept_as_written",
            string_arguments_are_kept_as_written,
        ),
        (
            "adk_events_borrow_their_lines",
            adk_events_borrow_their_lines,
        ),
        (
            "langroid_task_logs_borrow_their_lines",
            langroid_task_logs_borrow_their_lines,
        ),
        (
            "converse_messages_borrow_their_lines",
            converse_messages_borrow_their_lines,
        ),
        (
            "agno_messages_borrow_their_lines",
            agno_messages_borrow_their_lines,
        ),
        (
            "llamaindex_messages_borrow_their_lines",
            llamaindex_messages_borrow_their_lines,
        ),
        (
            "agent_framework_messages_borrow_their_lines",
            agent_framework_messages_borrow_their_lines,
        ),
        (
            "claude_code_turns_keep_their_own_copies",
            claude_code_turns_keep_their_own_copies,
        ),
        (
            "codex_turns_keep_their_own_copies",
            codex_turns_keep_their_own_copies,
        ),
        (
            "crewai_tasks_borrow_their_lines",
            crewai_tasks_borrow_their_lines,
        ),
        (
            "langchain_messages_borrow_their_lines",
            langchain_messages_borrow_their_lines,
        ),
        (
            "pydantic_ai_messages_borrow_their_lines",
            pydantic_ai_messages_borrow_their_lines,
        ),
        (
            "smolagents_steps_borrow_their_lines",
            smolagents_steps_borrow_their_lines,
        ),
        (
            "rlm_code_events_borrow_their_lines",
            rlm_code_events_borrow_their_lines,
        ),
        (
            "steady_state_observe_allocates_nothing",
            steady_state_observe_allocates_nothing,
        ),
        (
            "run_state_does_not_grow_with_the_run",
            run_state_does_not_grow_with_the_run,
        ),
    ];
    for (name, test) in tests {
        test();
        println!("test {name} ... ok");
    }
    println!("{} passed, 0 failed", tests.len());
}
