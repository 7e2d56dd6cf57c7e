//! Langroid's own task log (`--format langroid-tsv`): the `logs/<task>.tsv` a Langroid
//! `Task` writes, read as the task's `response_sequence`; what is not a message of the
//! run, tools, and errors.

use doneseq::transcript::{Format, Reader, TranscriptErrorKind};
use doneseq::{DoneSequence, Monitor, TaskConfig, VerdictKind};

use crate::formats::{read, sample, sample_text, summary};

/// Langroid 0.69's header line.
const HEADER: &str =
    " \tTask\tResponder\tsender_entity\tsender_name\trecipient\tblock\ttool_type\ttool\tcontent";

/// A log of `rows`, each a line's fields after the mark, written `|`-separated.
fn log(rows: &[(&str, &str)]) -> String {
    let mut out = format!("{HEADER}\n");
    for (mark, fields) in rows {
        out.push_str(mark);
        for field in fields.split('|') {
            out.push('\t');
            out.push_str(field);
        }
        out.push('\n');
    }
    out
}

/// The summary of the log of `rows`.
fn messages(rows: &[(&str, &str)]) -> String {
    summary(&read(&log(rows), Format::LangroidTsv).unwrap())
}

#[test]
fn a_task_with_a_sub_task_as_langroid_logs_it() {
    // Written by Langroid 0.69.16 (`logs/calc.tsv`): a ChatAgent with a calculator
    // tool as JSON, whose first call fails; its sub-task `helper` (OpenAI tool calls,
    // two in parallel, then `DONE 42`), whose result comes back as the user's; a long
    // answer, which the log shortens; then steps that find no valid response (the
    // answer logged again each time) until Langroid gives up. What the run reads as
    // is Langroid's own `response_sequence` for it, after the set-up.
    insta::assert_snapshot!(sample("langroid-task.tsv", Format::LangroidTsv));
    let messages = read(&sample_text("langroid-task.tsv"), Format::Auto).unwrap();
    let inputs: Vec<Option<bool>> = messages.iter().map(doneseq::Message::input).collect();
    assert_eq!(
        inputs,
        [None, Some(true), None, None, None, None, None, None, None]
    );
}

#[test]
fn the_sample_stops_as_langroid_would_at_its_last_step() {
    // Langroid's sequence for the run is L(tool), A, L(tool), A, L, U (the sub-task's
    // result), L: a done sequence ending there matches at the last message.
    let mut config = TaskConfig::default();
    config.done_sequences = vec![DoneSequence::parse("T[calculator], A, L, U, L").unwrap()].into();
    let monitor = Monitor::new(config).unwrap();
    let messages = read(&sample_text("langroid-task.tsv"), Format::LangroidTsv).unwrap();
    let replay = monitor.replay(&messages);
    let outcome = replay.outcome.expect("done");
    // The seventh step (the set-up is not counted): the run's last message.
    assert_eq!((outcome.kind, outcome.at), (VerdictKind::Done, 6));
    assert!(
        outcome
            .answer
            .unwrap()
            .text
            .starts_with("The answer is 42.")
    );
}

#[test]
fn attempts_sub_tasks_and_a_pending_message_logged_again_are_not_messages() {
    let rows = [
        ("*", "main|Entity.USER|Entity.USER|main||None|||Go."),
        (
            " ",
            "main|Entity.USER|Entity.USER|Entity.USER||None|||[CANNOT RESPOND]",
        ),
        ("*", "main|Entity.LLM|Entity.LLM|||None|||Asking."),
        (
            "*",
            "sub|Entity.SYSTEM|Entity.SYSTEM|sub||None|||Be a helper.",
        ),
        ("*", "sub|Entity.USER|Entity.USER|||None|||Asking."),
        ("*", "sub|Entity.LLM|Entity.LLM|||None|||DONE 1"),
        ("*", "main|sub|Entity.USER|sub||None|||1"),
        ("*", "main|Entity.LLM|Entity.LLM|||None|||Thanks."),
        // A step with no valid response: the attempts, then the same pending message.
        (" ", "main|Entity.AGENT|Entity.USER|||None|||"),
        ("*", "main|Entity.LLM|Entity.LLM|||None|||Thanks."),
        // A new message that differs only in its content is one.
        ("*", "main|Entity.LLM|Entity.LLM|||None|||Thanks!"),
    ];
    assert_eq!(
        messages(&rows),
        "0 user \"Go.\"\n1 llm \"Asking.\"\n2 user @sub \"1\"\n3 llm \"Thanks.\"\n4 llm \"Thanks!\"\n"
    );
}

#[test]
fn a_sub_tasks_own_lines_read_as_its_runs() {
    // A sub-task's lines (with the header) are its own log: run three times (once a
    // step of its caller's that found no other response), it logged three set-ups, each user message the input of a run, as Langroid never adds it to the
    // sequence.
    let text = sample_text("langroid-task.tsv");
    let own: String = text
        .lines()
        .filter(|line| {
            line.starts_with(' ') && line.contains("\tTask\t")
                || line.split('\t').nth(1) == Some("helper")
        })
        .map(|line| format!("{line}\n"))
        .collect();
    let messages = read(&own, Format::Auto).unwrap();
    let shape: Vec<(&str, Option<bool>)> = messages
        .iter()
        .map(|m| (m.role().as_str(), m.input()))
        .collect();
    assert_eq!(
        shape,
        [
            ("system", None),
            ("user", Some(true)),
            ("llm", None),
            ("agent", None),
            ("llm", None),
            ("system", None),
            ("user", Some(true)),
            ("llm", None),
            ("system", None),
            ("user", Some(true)),
            ("llm", None),
        ]
    );
    assert_eq!(messages[4].content(), "DONE 42");
    let names: Vec<&str> = messages[2]
        .tool_calls()
        .iter()
        .map(doneseq::ToolCall::name)
        .collect();
    assert_eq!(names, ["calculator", "calculator"]);
}

#[test]
fn tools_as_each_kind_is_logged() {
    let rows = [
        // Tool JSON the log kept whole: the calls, with their arguments.
        (
            "*",
            r#"m|Entity.LLM|Entity.LLM|||None|TOOL|add|{ "request": "add", "a": 1 } { "request": "sub", "b": 2 }"#,
        ),
        // Shortened (or not JSON): the tool the log names, its arguments unknown.
        (
            "*",
            r#"m|Entity.LLM|Entity.LLM|||None|TOOL|add|{ "request": "add", "a": "xxx...xxx" }"#,
        ),
        ("*", "m|Entity.LLM|Entity.LLM|||None|OAI_TOOL|add,sub|"),
        (
            "*",
            "m|Entity.LLM|Entity.LLM|||None|FUNC|add|name='add' arguments={}",
        ),
    ];
    assert_eq!(
        messages(&rows),
        "0 llm \"{ \\\"request\\\": \\\"add\\\", \\\"a\\\": 1 } { \\\"request\\\": \\\"sub\\\", \\\"b\\\": 2 }\" \
         call add({ \"request\": \"add\", \"a\": 1 }) id=None call sub({ \"request\": \"sub\", \"b\": 2 }) id=None\n\
         1 llm \"{ \\\"request\\\": \\\"add\\\", \\\"a\\\": \\\"xxx...xxx\\\" }\" call add({ \"request\": \"add\", \"a\": \"xxx...xxx\" }) id=None\n\
         2 llm call add() id=None call sub() id=None\n\
         3 llm \"name='add' arguments={}\" call add() id=None\n"
    );
    let rows = [(
        "*",
        r#"m|Entity.LLM|Entity.LLM|||None|TOOL|add|{ "request": "add", "a": 1 ... 2 }"#,
    )];
    assert_eq!(
        messages(&rows),
        "0 llm \"{ \\\"request\\\": \\\"add\\\", \\\"a\\\": 1 ... 2 }\" call add() id=None\n"
    );
}

#[test]
fn entities_by_value_and_windows_line_ends() {
    let text = log(&[
        ("*", "m|LLM|LLM|||None|||Hi.\r"),
        ("*", "m|Agent|Agent|||None|||42\r"),
    ]);
    assert_eq!(
        summary(&read(&text, Format::Auto).unwrap()),
        "0 llm \"Hi.\"\n1 agent \"42\"\n"
    );
}

#[test]
fn a_header_alone_and_its_detection() {
    let mut reader = Reader::new(HEADER.as_bytes(), Format::Auto);
    assert!(reader.next().is_none());
    assert_eq!(reader.format(), Format::LangroidTsv);
    // A JSON log is not read as one.
    let json = "{\"role\": \"user\", \"content\": \"hi\"}\n";
    let err = read(json, Format::LangroidTsv).unwrap_err();
    assert_eq!((err.line, err.kind), (1, TranscriptErrorKind::Message));
    assert!(
        err.message.contains("not a Langroid task log's header"),
        "{err}"
    );
}

#[test]
fn errors_name_the_line_the_column_and_the_format() {
    let cases: [(&str, usize, usize, &str); 7] = [
        (
            "*\tm\tEntity.LLM\tEntity.LLM\t\t\tNone\t\t\tHi.\textra",
            2,
            1,
            "11 tab-separated fields where the header names 10",
        ),
        (
            "+\tm\tEntity.LLM\tEntity.LLM\t\t\tNone\t\t\tHi.",
            2,
            1,
            "the mark is \"+\"",
        ),
        (
            "*\tm\tsub\tsomeone\t\t\tNone\t\t\tHi.",
            2,
            9,
            "sender_entity \"someone\" is not one of Langroid's entities",
        ),
        (
            "*\tm\tEntity.LLM\tEntity.LLM\t\t\tNone\tTOOL\t\tHi.",
            2,
            34,
            "tool_type \"TOOL\" with tool \"\": both or neither",
        ),
        (
            "*\tm\tEntity.LLM\tEntity.LLM\t\t\tNone\tMCP\tx\tHi.",
            2,
            34,
            "tool_type \"MCP\": expected TOOL, OAI_TOOL or FUNC",
        ),
        (
            "*\tm\tEntity.LLM\tEntity.LLM\t\t\tNone\tOAI_TOOL\ta,\t",
            2,
            43,
            "tool \"a,\" has an empty name",
        ),
        (HEADER, 2, 1, "a second header"),
    ];
    for (line, at, column, message) in cases {
        let text = format!("{HEADER}\n{line}\n");
        for format in [Format::Auto, Format::LangroidTsv] {
            let err = read(&text, format).unwrap_err();
            assert_eq!(
                (err.line, err.column, err.kind, err.format),
                (
                    at,
                    Some(column),
                    TranscriptErrorKind::Message,
                    Some(Format::LangroidTsv)
                ),
                "{line}"
            );
            assert!(err.message.contains(message), "{err}");
            let how = if format == Format::Auto {
                "detected"
            } else {
                "given"
            };
            assert!(
                err.message
                    .ends_with(&format!("format langroid-tsv ({how})")),
                "{err}"
            );
        }
    }
    let err = read(" \tTask\tResponder\tsender\n", Format::Auto).unwrap_err();
    assert_eq!((err.line, err.column), (1, Some(1)));
    assert!(
        err.message
            .contains("the header has no `sender_entity` column"),
        "{err}"
    );
}

#[test]
fn a_line_of_another_task_or_an_attempt_is_still_checked() {
    // Not a message of the run, but a line of the log: its shape is checked.
    for line in [" \tm\tEntity.LLM", "*\tother\tx"] {
        let text = format!("{HEADER}\n*\tm\tEntity.LLM\tEntity.LLM\t\t\tNone\t\t\tHi.\n{line}\n");
        let err = read(&text, Format::LangroidTsv).unwrap_err();
        assert_eq!(err.line, 3, "{line}");
        assert!(
            err.message.contains("fields where the header names 10"),
            "{err}"
        );
    }
}

/// What a Langroid task does in a generated run, as its log shows it.
#[derive(Clone, Debug)]
enum Event {
    /// A step whose message is from `role` (an entity: 0 LLM, 1 agent, 2 user),
    /// with content `text`, after `attempts` responders' attempts.
    Step {
        role: usize,
        text: u8,
        attempts: usize,
    },
    /// A step that found no valid response: the attempts, then the pending message
    /// logged again.
    Stall { attempts: usize },
    /// The sub-task runs (its own set-up, steps, a stall), then its result comes back
    /// as the user's step of the task, from the sub-task.
    SubTask { text: u8, steps: usize },
    /// The task is run again: its set-up logged again.
    Rerun,
}

fn events() -> impl proptest::strategy::Strategy<Value = Vec<Event>> {
    use proptest::prelude::*;
    let event = prop_oneof![
        4 => (0..3usize, 0..3u8, 0..3usize)
            .prop_map(|(role, text, attempts)| Event::Step { role, text, attempts }),
        2 => (0..3usize).prop_map(|attempts| Event::Stall { attempts }),
        1 => (0..3u8, 0..3usize).prop_map(|(text, steps)| Event::SubTask { text, steps }),
        1 => Just(Event::Rerun),
    ];
    proptest::collection::vec(event, 0..24)
}

/// A message as the generated runs' test compares it: role, responder, content, input.
type Expected = (String, Option<String>, String, Option<bool>);

/// The log Langroid writes of `events`, and the messages of its response sequences
/// (role, responder, content, whether input), as `langroid-tsv` must read them.
fn run_of(events: &[Event]) -> (String, Vec<Expected>) {
    const ENTITIES: [&str; 3] = ["Entity.LLM", "Entity.AGENT", "Entity.USER"];
    const ROLES: [&str; 3] = ["llm", "agent", "user"];
    let mut log = format!("{HEADER}\n");
    let mut expected = Vec::new();
    let mut last = String::new();
    // A line of `task`, its fields after the task `|`-separated.
    fn line(log: &mut String, mark: &str, task: &str, fields: &str) {
        log.push_str(&format!("{mark}\t{task}\t{}\n", fields.replace('|', "\t")));
    }
    // A run's set-up: its system message and its input.
    fn setup(log: &mut String, last: &mut String, expected: &mut Vec<Expected>, run: usize) {
        let system = format!("Entity.SYSTEM|Entity.SYSTEM|t||None|||Be brief ({run}).");
        let input = format!("Entity.USER|Entity.USER|t||None|||Question {run}");
        line(log, "*", "t", &system);
        line(log, "*", "t", &input);
        expected.push((
            "system".to_owned(),
            None,
            format!("Be brief ({run})."),
            None,
        ));
        expected.push((
            "user".to_owned(),
            None,
            format!("Question {run}"),
            Some(true),
        ));
        *last = input;
    }
    // `n` responders' attempts that were not taken.
    fn attempt(log: &mut String, n: usize) {
        for i in 0..n {
            let entity = ENTITIES[i % 3];
            line(
                log,
                " ",
                "t",
                &format!("{entity}|Entity.USER|{entity}||None|||[CANNOT RESPOND]"),
            );
        }
    }
    let mut runs = 0;
    setup(&mut log, &mut last, &mut expected, runs);
    for event in events {
        match *event {
            Event::Step {
                role,
                text,
                attempts,
            } => {
                attempt(&mut log, attempts);
                let mut content = format!("says {text}");
                let mut fields =
                    format!("{}|{}|||None|||{content}", ENTITIES[role], ENTITIES[role]);
                // Langroid's pending message changes at a step that found a response:
                // a new message never repeats the last one.
                if fields == last {
                    content.push('!');
                    fields.push('!');
                }
                line(&mut log, "*", "t", &fields);
                expected.push((ROLES[role].to_owned(), None, content, None));
                last = fields;
            }
            Event::Stall { attempts } => {
                attempt(&mut log, attempts.max(1));
                line(&mut log, "*", "t", &last);
            }
            Event::SubTask { text, steps } => {
                line(
                    &mut log,
                    "*",
                    "sub",
                    "Entity.SYSTEM|Entity.SYSTEM|sub||None|||Help.",
                );
                line(
                    &mut log,
                    "*",
                    "sub",
                    "Entity.USER|Entity.USER|||None|||Asked.",
                );
                for i in 0..steps {
                    line(
                        &mut log,
                        " ",
                        "sub",
                        "Entity.USER|Entity.USER|Entity.USER||None|||[CANNOT RESPOND]",
                    );
                    line(
                        &mut log,
                        "*",
                        "sub",
                        &format!("Entity.LLM|Entity.LLM|||None|||step {i}"),
                    );
                    line(
                        &mut log,
                        "*",
                        "sub",
                        &format!("Entity.LLM|Entity.LLM|||None|||step {i}"),
                    );
                }
                let mut content = format!("result {text}");
                let mut fields = format!("sub|Entity.USER|sub||None|||{content}");
                if fields == last {
                    content.push('!');
                    fields.push('!');
                }
                line(&mut log, "*", "t", &fields);
                expected.push(("user".to_owned(), Some("sub".to_owned()), content, None));
                last = fields;
            }
            Event::Rerun => {
                runs += 1;
                setup(&mut log, &mut last, &mut expected, runs);
            }
        }
    }
    (log, expected)
}

proptest::proptest! {
    /// Whatever a task does (steps after attempts, stalled steps, a sub-task's runs in
    /// its log, runs again), its log reads as its response sequences: each run's
    /// set-up, then each step's message once.
    #[test]
    fn a_generated_run_reads_as_its_response_sequence(events in events()) {
        let (log, expected) = run_of(&events);
        for format in [Format::Auto, Format::LangroidTsv] {
            let messages = read(&log, format).unwrap();
            let read: Vec<_> = messages
                .iter()
                .map(|m| {
                    let responder = m.responder().map(str::to_owned);
                    (m.role().as_str().to_owned(), responder, m.content().to_owned(), m.input())
                })
                .collect();
            proptest::prop_assert_eq!(&read, &expected, "{}", log);
        }
    }
}
