//! Errors of the stop-expression language: a table of input -> kind and span, and a
//! snapshot of how each renders (the one-line form and the caret form).

use super::expr::cond_err;

/// Input, the kind's name, and the text the span covers.
const ERRORS: &[(&str, &str, &str)] = &[
    // Structure.
    ("", "empty", ""),
    ("   ", "empty", "   "),
    ("final |", "unexpected", ""),
    ("final || cancelled", "unexpected", "|"),
    ("& final", "unexpected", "&"),
    ("\"final\"", "unexpected", "\""),
    ("10", "unexpected", "1"),
    ("final final", "trailing_input", "f"),
    ("max_turns(3) x", "trailing_input", "x"),
    ("final)", "unmatched_paren", ")"),
    ("(final", "unclosed_paren", "("),
    ("(final cancelled)", "unexpected", "c"),
    ("max_turns(3", "unclosed_paren", "("),
    ("max_turns(3 4)", "unexpected", "4"),
    ("all(final", "unclosed_paren", "("),
    ("all(final cancelled)", "unexpected", "c"),
    ("all", "unexpected", ""),
    ("not()", "missing_argument", "not()"),
    (
        "not(final, cancelled)",
        "too_many_arguments",
        "not(final, cancelled)",
    ),
    ("seq(\"T, A)", "unclosed_string", "\""),
    ("text('x)", "unclosed_string", "'"),
    // Names and options.
    ("max_turn(3)", "unknown_condition", "max_turn"),
    ("MaxIterations(10)", "unknown_condition", "MaxIterations"),
    ("stop", "unknown_condition", "stop"),
    ("loop(perod=3)", "unknown_option", "perod"),
    ("final(x=1)", "unknown_option", "x"),
    ("loop(period=3, period=4)", "duplicate_option", "period"),
    ("tool(a, name=b)", "duplicate_option", "name"),
    ("max_turns", "missing_argument", "max_turns"),
    ("max_turns()", "missing_argument", "max_turns()"),
    ("text()", "missing_argument", "text()"),
    ("seq()", "missing_argument", "seq()"),
    ("custom(config={})", "missing_argument", "custom(config={})"),
    ("timeout", "missing_argument", "timeout"),
    ("max_turns(3, 4)", "too_many_arguments", "4"),
    ("final(1)", "too_many_arguments", "1"),
    ("loop(3)", "too_many_arguments", "3"),
    ("tool(x, executed, [1, 2])", "too_many_arguments", "[1, 2]"),
    ("tool(when=executed, x)", "positional_after_keyword", "x"),
    // Values.
    ("max_turns(\"3\")", "wrong_type", "\"3\""),
    ("max_turns(1.5)", "wrong_type", "1.5"),
    ("max_turns(-1)", "wrong_type", "-1"),
    ("max_turns(ten)", "wrong_type", "ten"),
    ("max_turns(5m)", "wrong_type", "5m"),
    ("confidence(high)", "wrong_type", "high"),
    ("confidence(0.9, fallback_final=yes)", "wrong_type", "yes"),
    ("text(DONE)", "wrong_type", "DONE"),
    ("seq(T)", "wrong_type", "T"),
    ("tool(x, args=[1])", "wrong_type", "[1]"),
    ("tool(x, args=\"q\")", "wrong_type", "\"q\""),
    ("tool([x])", "wrong_type", "[x]"),
    ("loop(exempt=[[a]])", "wrong_type", "[a]"),
    (
        "max_turns(99999999999999999999)",
        "number_too_large",
        "99999999999999999999",
    ),
    ("confidence(1e999)", "not_finite", "1e999"),
    ("reward(-1e400)", "not_finite", "-1e400"),
    ("timeout(5min)", "invalid_duration", "5min"),
    ("timeout(1.5s)", "invalid_duration", "1.5s"),
    ("timeout(-5s)", "invalid_duration", "-5s"),
    (
        "timeout(99999999999999999999h)",
        "invalid_duration",
        "99999999999999999999h",
    ),
    ("timeout(\"5m\")", "wrong_type", "\"5m\""),
    ("loop(over=tools)", "unknown_word", "tools"),
    ("tool(x, done)", "unknown_word", "done"),
    ("text(\"x\", from=[bot])", "unknown_word", "bot"),
    ("text(\"x\", from=[llm, '@'])", "empty_name", "'@'"),
    ("tool(\"\")", "empty_name", "\"\""),
    ("custom('')", "empty_name", "''"),
    ("loop(exempt=[poll, \"\"])", "empty_name", "\"\""),
    ("loop(period=0)", "out_of_range", "0"),
    ("loop(period=65)", "out_of_range", "65"),
    ("loop(repeats=1)", "out_of_range", "1"),
    ("loop(repeats=99999999999)", "out_of_range", "99999999999"),
    ("tokens()", "empty_budget", "tokens()"),
    // Inside strings and JSON: the span points into them.
    ("seq(\"T A\")", "invalid_sequence", "A"),
    ("max_turns(3) | seq('T, C[(]')", "invalid_sequence", "("),
    ("seq(\"\\\"x\\\": T, Q\")", "invalid_sequence", "Q"),
    ("seq(\"\")", "invalid_sequence", ""),
    ("text(\"(\")", "invalid_pattern", "("),
    ("text(\"a\\\"b(\")", "invalid_pattern", "("),
    ("text('(?<=a)b')", "invalid_pattern", "(?<="),
    ("text(\"\")", "invalid_pattern", ""),
    ("tool(x, args={a: 1})", "invalid_json", "a"),
    ("custom(x, config={\"a\": 1)", "invalid_json", ")"),
    ("custom(x, config={\"a\":\n  tru})", "invalid_json", "}"),
    ("custom(x, config=nul)", "invalid_json", "nul"),
    ("custom(x, config={\"a\": [1, 2", "invalid_json", ""),
    ("custom(x, config=)", "unexpected", ")"),
];

#[test]
fn each_error_has_its_kind_and_span() {
    for &(input, kind, covered) in ERRORS {
        let err = cond_err(input);
        assert_eq!(err.kind().name(), kind, "{input:?}: {err}");
        assert_eq!(&input[err.span()], covered, "{input:?}: {err}");
        assert_eq!(err.input(), input);
    }
}

/// Every row above, rendered both ways: the messages are part of the interface.
#[test]
fn rendered_errors() {
    let mut out = String::new();
    for &(input, _, _) in ERRORS {
        let err = cond_err(input);
        out.push_str(&format!("{input:?}\n{err}\n{err:#}\n"));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn messages_say_what_was_expected_and_found() {
    let message = |input| cond_err(input).to_string();
    assert!(message("max_turn(3)").contains("did you mean 'max_turns'?"));
    assert!(message("MaxIterations(10)").contains("did you mean 'max_iterations'?"));
    assert!(message("tokns(5)").contains("did you mean 'tokens'?"));
    assert!(message("stop").contains("known conditions: seq, final,"));
    assert!(!message("stop").contains("did you mean"));
    assert!(message("loop(perod=3)").contains("did you mean 'period'?"));
    assert!(message("loop(x=3)").contains("its options: period, repeats, over, exempt"));
    assert!(message("max_turns").contains("(usage: max_turns(10))"));
    assert!(
        message("max_turns(\"3\")")
            .contains("expected a whole number for 'turns', found the string \"3\"")
    );
}
