//! The exact text of every error, locked with inline snapshots: the one-line form
//! (what logs and serde show) and the caret form (`{:#}`, what the CLI shows).

use doneseq::DoneSequence;
use insta::assert_snapshot;

fn p(text: &str) -> String {
    DoneSequence::parse(text).unwrap_err().to_string()
}

fn caret(text: &str) -> String {
    format!("{:#}", DoneSequence::parse(text).unwrap_err())
}

#[test]
fn err_parse_separators() {
    assert_snapshot!(p("T A"), @r#"error parsing done sequence "T A" at 2..3: expected ',' or '&' after an event, found 'A' (separate events with ',')"#);
    assert_snapshot!(p("T;A"), @r#"error parsing done sequence "T;A" at 1..2: expected ',' or '&' after an event, found ';'"#);
    assert_snapshot!(p("T [calc]"), @r#"error parsing done sequence "T [calc]" at 2..3: expected ',' or '&' after an event, found '[' (no space is allowed before '[')"#);
    assert_snapshot!(p("T\\,A"), @r#"error parsing done sequence "T\\,A" at 1..2: expected ',' or '&' after an event, found '\' (a backslash escapes only inside brackets or quotes)"#);
    assert_snapshot!(p("T{2} & L"), @r#"error parsing done sequence "T{2} & L" at 5..6: expected ',' or '&' after an event, found '&' (a repeat '{n}' ends its element)"#);
    assert_snapshot!(p("T &"), @r#"error parsing done sequence "T &" at 3..3: expected an event, found end of input"#);
    assert_snapshot!(p("!"), @r#"error parsing done sequence "!" at 1..1: expected an event, found end of input"#);
    assert_snapshot!(p("(T"), @r#"error parsing done sequence "(T" at 0..1: expected an event, found '('"#);
}

#[test]
fn err_parse_codes() {
    assert_snapshot!(p("X"), @r#"error parsing done sequence "X" at 0..1: unknown event 'X' (valid events: T, T[name], A, L, U, N, C[regex], F, E, _ or the words TOOL, AGENT, LLM, USER, NO_RESPONSE, CONTENT[regex], FINAL, ERROR, ANY)"#);
    assert_snapshot!(p("t"), @r#"error parsing done sequence "t" at 0..1: unknown event 't' (event letters are case-sensitive: did you mean 'T'?)"#);
    assert_snapshot!(p("TOOLS"), @r#"error parsing done sequence "TOOLS" at 0..5: unknown event 'TOOLS' (valid events: T, T[name], A, L, U, N, C[regex], F, E, _ or the words TOOL, AGENT, LLM, USER, NO_RESPONSE, CONTENT[regex], FINAL, ERROR, ANY)"#);
    assert_snapshot!(p("\u{ff34}"), @r#"error parsing done sequence "Ｔ" at 0..3: unknown event 'Ｔ' (valid events: T, T[name], A, L, U, N, C[regex], F, E, _ or the words TOOL, AGENT, LLM, USER, NO_RESPONSE, CONTENT[regex], FINAL, ERROR, ANY)"#);
    assert_snapshot!(p("T,\u{200b}A"), @r#"error parsing done sequence "T,\u{200b}A" at 2..5: expected an event, found '\u{200b}'"#);
}

#[test]
fn err_parse_brackets() {
    assert_snapshot!(p("C"), @r#"error parsing done sequence "C" at 0..1: expected '[' after 'C', found no pattern (write the regex as C[quit|bye]; a bare 'C' can never match)"#);
    assert_snapshot!(p("A[x]"), @r#"error parsing done sequence "A[x]" at 1..4: 'A' takes no brackets (only T[name] and C[regex] do)"#);
    assert_snapshot!(p("T[]"), @r#"error parsing done sequence "T[]" at 1..3: expected a name or pattern inside the brackets, found nothing"#);
    assert_snapshot!(p("T[calc"), @r#"error parsing done sequence "T[calc" at 1..2: unclosed '[' (expected ']' before the end of input)"#);
    assert_snapshot!(p("T[calc]]"), @r#"error parsing done sequence "T[calc]]" at 7..8: unexpected ']' (inside brackets, write it as '\]')"#);
    assert_snapshot!(p("C[x]y]"), @r#"error parsing done sequence "C[x]y]" at 4..5: expected ',' or '&' after a bracket, found 'y' (if the ']' before it belongs inside, write it as '\]')"#);
}

#[test]
fn err_parse_regex() {
    assert_snapshot!(p("C[(]"), @r#"error parsing done sequence "C[(]" at 2..3: invalid content regex: unclosed group"#);
    assert_snapshot!(p("C[*]"), @r#"error parsing done sequence "C[*]" at 2..2: invalid content regex: repetition operator missing expression"#);
    assert_snapshot!(p("C[(?<=a|bc)b]"), @r#"error parsing done sequence "C[(?<=a|bc)b]" at 2..11: invalid content regex: a look-behind whose alternatives or repetitions match different numbers of characters (Python: "look-behind requires fixed-width pattern")"#);
    assert_snapshot!(p("C[(a)\\2]"), @r#"error parsing done sequence "C[(a)\\2]" at 5..7: invalid content regex: a backreference to group 2, which is not defined before it (Python: "invalid group reference 2")"#);
    assert_snapshot!(caret("C[x(a\\1)]"), @r#"
    error: invalid content regex: a backreference to a group that is still open (Python: "cannot refer to an open group")
      |
    1 | C[x(a\1)]
      |      ^^
    "#);
    assert_snapshot!(p("C[\\p{Nope}]"), @r#"error parsing done sequence "C[\\p{Nope}]" at 2..10: invalid content regex: Unicode property not found"#);
    assert_snapshot!(p("C[(?:\\w{1000}){1000}]"), @r#"error parsing done sequence "C[(?:\\w{1000}){1000}]" at 2..20: content regex compiles to more than 1048576 bytes (simplify it)"#);
}

#[test]
fn err_parse_structure() {
    assert_snapshot!(p(""), @r#"error parsing done sequence "" at 0..0: expected at least one event, found none (e.g. 'T, A')"#);
    assert_snapshot!(p(",,"), @r#"error parsing done sequence ",," at 0..2: expected at least one event, found none (e.g. 'T, A')"#);
    assert_snapshot!(p("name:"), @r#"error parsing done sequence "name:" at 5..5: expected at least one event, found none (e.g. 'T, A')"#);
    assert_snapshot!(p("\"name: T"), @r#"error parsing done sequence "\"name: T" at 0..1: unclosed '"' (expected '"' before the end of input)"#);
    assert_snapshot!(p("T{0}"), @r#"error parsing done sequence "T{0}" at 1..4: expected a repeat count of at least 1, found 0"#);
    assert_snapshot!(p("T{x}"), @r#"error parsing done sequence "T{x}" at 2..3: expected a repeat count, found 'x'"#);
    assert_snapshot!(p("T{3"), @r#"error parsing done sequence "T{3" at 3..3: expected '}' after the repeat count, found end of input"#);
    assert_snapshot!(p("A@"), @r#"error parsing done sequence "A@" at 2..2: expected a responder name after '@', found end of input"#);
    assert_snapshot!(p("L & A"), @r#"error parsing done sequence "L & A" at 0..5: no message can satisfy this element: 'L' (LLM response) and 'A' (agent response) exclude each other: a message is only one kind"#);
    assert_snapshot!(p("T & !T"), @r#"error parsing done sequence "T & !T" at 0..6: no message can satisfy this element: 'T' and '!T' contradict each other"#);
    assert_snapshot!(p("\"\": T"), @r#"error parsing done sequence "\"\": T" at 0..2: expected a name, found '""' (leave the name out instead)"#);
    assert_snapshot!(p("!T & T[x]"), @r#"error parsing done sequence "!T & T[x]" at 0..9: no message can satisfy this element: 'T[x]' and '!T' contradict each other"#);
    assert_snapshot!(p("A@x & A@y"), @r#"error parsing done sequence "A@x & A@y" at 0..9: no message can satisfy this element: 'A@x' and 'A@y' name different responders: a message has one"#);
    assert_snapshot!(p("!T & !L & !A & !U & !N"), @r#"error parsing done sequence "!T & !L & !A & !U & !N" at 0..22: no message can satisfy this element: every kind of message is negated"#);
    assert_snapshot!(p("!_"), @r#"error parsing done sequence "!_" at 0..2: no message can satisfy this element: '!_' matches no message"#);
}

#[test]
fn err_parse_limits() {
    assert_snapshot!(p("T{257}"), @r#"error parsing done sequence "T{257}" at 1..6: too many elements, the limit is 256 (counting each repeat)"#);
    assert_snapshot!(p("T{99999999999999999999999}"), @r#"error parsing done sequence "T{99999999999999999999999}" at 1..26: too many elements, the limit is 256 (counting each repeat)"#);
    assert_snapshot!(p(&vec!["T"; 17].join(" & ")), @r#"error parsing done sequence "...& T & T & T & T & T & T & T & T & T & T & T" at 62..63: too many events joined with '&', the limit is 16"#);
    assert_snapshot!(p(&format!("C[{}]", "a".repeat(1025))).split(" at ").nth(1).unwrap(), @"2..1027: content regex is 1025 bytes long, the limit is 1024");
    let many: Vec<String> = (0..33).map(|n| format!("C[w{n}]")).collect();
    assert_snapshot!(p(&many.join(",")).split(" at ").nth(1).unwrap(), @"214..220: too many content regexes in one sequence, the limit is 32");
    let long = "T, ".repeat(30_000);
    assert_snapshot!(p(&long), @r#"error parsing done sequence "...T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, ..." at 65536..90000: done sequence text is 90000 bytes long, the limit is 65536"#);
}

#[test]
fn err_render_caret() {
    assert_snapshot!(caret("T, A, X"), @"
    error: unknown event 'X' (valid events: T, T[name], A, L, U, N, C[regex], F, E, _ or the words TOOL, AGENT, LLM, USER, NO_RESPONSE, CONTENT[regex], FINAL, ERROR, ANY)
      |
    1 | T, A, X
      |       ^
    ");
    assert_snapshot!(caret("T, C[done(]"), @"
    error: invalid content regex: unclosed group
      |
    1 | T, C[done(]
      |          ^
    ");
    assert_snapshot!(caret("T,\nL & A"), @"
    error: no message can satisfy this element: 'L' (LLM response) and 'A' (agent response) exclude each other: a message is only one kind
      |
    2 | L & A
      | ^^^^^
    ");
    assert_snapshot!(caret("\tT[calc]]"), @r"
    error: unexpected ']' (inside brackets, write it as '\]')
      |
    1 | \tT[calc]]
      |          ^
    ");
    assert_snapshot!(caret("名前: T, X"), @"
    error: unknown event 'X' (valid events: T, T[name], A, L, U, N, C[regex], F, E, _ or the words TOOL, AGENT, LLM, USER, NO_RESPONSE, CONTENT[regex], FINAL, ERROR, ANY)
      |
    1 | 名前: T, X
      |        ^
    ");
}

/// A long line is cut around the span in the caret form, as in the one-line form. Its
/// column was a `format!` width, which panics past 65,535: a 90 KB line of `doneseq
/// parse` panicked in text mode.
#[test]
fn err_render_caret_cuts_long_lines() {
    let long = "T, ".repeat(30_000);
    assert_snapshot!(caret(&long), @"
    error: done sequence text is 90000 bytes long, the limit is 65536
      |
    1 | ...T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, ...
      |                                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    ");
    let far = format!("{}X, T", "T, ".repeat(50));
    assert_snapshot!(caret(&far), @"
    error: unknown event 'X' (valid events: T, T[name], A, L, U, N, C[regex], F, E, _ or the words TOOL, AGENT, LLM, USER, NO_RESPONSE, CONTENT[regex], FINAL, ERROR, ANY)
      |
    1 | ... T, T, T, T, T, T, T, T, T, T, T, T, T, X, T
      |                                            ^
    ");
    let many = format!("T,\n{}", "T & ".repeat(17));
    assert_snapshot!(caret(&many), @"
    error: too many events joined with '&', the limit is 16
      |
    2 | ...& T & T & T & T & T & T & T & T & T & T & T & 
      |                                            ^
    ");
    // Past 65,535 columns within the expression's length: tabs are drawn as `\t`.
    let stop = format!("final |{}oops(", "\t".repeat(40_000));
    let err = doneseq::stop::Condition::parse(&stop).unwrap_err();
    assert_eq!(err.span().start, 40_007, "{err}");
    assert_snapshot!(format!("{err:#}"), @r"
    error: unknown condition 'oops' (known conditions: seq, final, done_signal, max_turns, max_model_calls, max_messages, stop_message, handoff, tokens, timeout, consecutive_errors, tool, no_tool_calls, text, confidence, reward, loop, cancelled, response, no_response, single_round, custom, all, any, not)
      |
    1 | ...\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\toops(
      |                                                                                    ^^^^
    ");
}

#[test]
fn err_names_what_was_being_parsed() {
    assert_snapshot!(doneseq::ContentPattern::new("a]b").unwrap_err(), @r#"error parsing content pattern "a]b" at 1..2: unexpected ']' (inside brackets, write it as '\]')"#);
    assert_snapshot!(doneseq::ToolName::new("").unwrap_err(), @r#"error parsing tool name "" at 0..0: expected a name or pattern inside the brackets, found nothing"#);
    assert_snapshot!("T, A".parse::<doneseq::AgentEvent>().unwrap_err(), @r#"error parsing event "T, A" at 1..2: expected end of input after an event, found ','"#);
    let element = doneseq::Element::all([
        doneseq::Literal::new(doneseq::EventKind::Llm.into()),
        doneseq::Literal::new(doneseq::EventKind::Agent.into()),
    ]);
    assert_snapshot!(element.unwrap_err(), @r#"error parsing element "L & A" at 0..5: no message can satisfy this element: 'L' (LLM response) and 'A' (agent response) exclude each other: a message is only one kind"#);
}
