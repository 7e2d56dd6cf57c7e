//! The known edge cases of the peers' FINAL detection (rlm-code's regexes, its
//! `final_pattern` policy's bugs, the fixes of alexzhang13/rlm), each with
//! the sane result; a comment says where it differs from rlm-code and why.

use doneseq::answer::{
    AnswerValue, FinalOptions, RejectReason, detect_final_in_code, detect_final_in_text,
};

use super::{Ambiguous, DIRECT, Expect, Found, Nothing, SUBMIT, VARIABLE, check_table};

/// rlm-code's `detect_final_in_text` on its verified edge cases, lenient prose.
#[test]
fn edge_cases_in_text() {
    let rows: &[(&str, Expect)] = &[
        // rlm-code: not detected, because its bare pattern needs `)` at the end of a
        // line, which also misses real answers followed by text ("FINAL(42) — done").
        // Ours: a signal; strict mode rejects it (see below).
        (
            "I will call FINAL(answer) when done. More text",
            Found(DIRECT, "answer"),
        ),
        // Same as rlm-code.
        ("\u{2026}then FINAL(answer)\n", Found(DIRECT, "answer")),
        // rlm-code: detected, content `a") and FINAL("b`. Ours: two different answers
        // are ambiguous, not resolved.
        (r#"FINAL("a") and FINAL("b")"#, Ambiguous),
        // rlm-code: detected as a variable answer. Ours: negated prose is rejected.
        ("Do not call FINAL_VAR(x) yet", Nothing),
        // rlm-code: detected (no word boundary). Ours: `NOT_FINAL` is another name.
        ("NOT_FINAL(3)", Nothing),
        // rlm-code: `He said "hi` (quotes stripped at both ends). Ours: the argument is
        // not a literal but starts and ends with a quote, so those are its delimiters.
        (r#"FINAL("He said "hi"")"#, Found(DIRECT, r#"He said "hi""#)),
        // rlm-code: `f(x` (lazy up to the first `)`). Ours: parentheses balance.
        ("SUBMIT(answer=f(x))", Found(SUBMIT, "answer=f(x)")),
    ];
    check_table(FinalOptions::text(), rows);
    let d = detect_final_in_text("SUBMIT(answer=f(x))");
    assert_eq!(
        d.submit_fields().unwrap(),
        [("answer".to_string(), AnswerValue::from("f(x)"))]
    );
    let d = detect_final_in_text(r#"FINAL("a") and FINAL("b")"#);
    let ambiguity = d.ambiguity.unwrap();
    assert_eq!((ambiguity.first, ambiguity.second), (0..10, 15..25));
    let d = detect_final_in_text("Do not call FINAL_VAR(x) yet");
    assert_eq!(d.rejected[0].reason, RejectReason::Negated);
}

/// The same table in strict prose: a signal must start its line.
#[test]
fn edge_cases_in_strict_text() {
    let rows: &[(&str, Expect)] = &[
        ("I will call FINAL(answer) when done. More text", Nothing),
        ("\u{2026}then FINAL(answer)\n", Nothing),
        ("\u{2026}then\nFINAL(answer)\n", Found(DIRECT, "answer")),
        (r#"FINAL("a") and FINAL("b")"#, Found(DIRECT, "a")),
        ("FINAL(\"a\")\nFINAL(\"b\")", Ambiguous),
        ("Do not call FINAL_VAR(x) yet", Nothing),
        ("NOT_FINAL(3)", Nothing),
        (r#"FINAL("He said "hi"")"#, Found(DIRECT, r#"He said "hi""#)),
        ("SUBMIT(answer=f(x))", Found(SUBMIT, "answer=f(x)")),
        // Not in quotes, not in inline code.
        ("`FINAL(42)`", Nothing),
        ("He wrote \"FINAL(42)\".", Nothing),
        ("> FINAL(42)", Nothing),
        ("  \tFINAL(42)", Found(DIRECT, "42")),
    ];
    check_table(FinalOptions::text().strict(true), rows);
}

/// rlm-code's detector, the last edge case: in code, a FINAL only inside a comment or a string
/// literal. rlm-code: detected (a regex over the source). Ours: not a call.
#[test]
fn edge_cases_in_code() {
    let rows: &[(&str, Expect)] = &[
        ("x = compute()  # then FINAL(x)", Nothing),
        ("# FINAL_VAR(\"x\")\npass", Nothing),
        ("msg = \"call FINAL(x) when done\"", Nothing),
        ("msg = 'SUBMIT(a=1)'", Nothing),
        ("doc = \"\"\"\nFINAL(x)\n\"\"\"", Nothing),
        ("doc = r'''FINAL(x)'''", Nothing),
        ("s = \"\\\"FINAL(x)\"", Nothing),
        // A real call after those is found.
        (
            "# FINAL(draft)\nmsg = 'FINAL(y)'\nFINAL(msg)",
            Found(DIRECT, "msg"),
        ),
        // rlm-code's code patterns treat these as calls too.
        ("obj.FINAL(x)", Nothing),
        ("def FINAL(x):\n    raise Done(x)", Nothing),
        ("NOT_FINAL(3)", Nothing),
        ("SUBMIT(answer=f(x))", Found(SUBMIT, "answer=f(x)")),
    ];
    check_table(FinalOptions::code(), rows);
    assert_eq!(
        detect_final_in_code("SUBMIT(answer=f(x))")
            .submit_fields()
            .unwrap(),
        [("answer".to_string(), AnswerValue::Expr("f(x)".into()))]
    );
}

/// rlm-code's policy bugs and alexzhang13/rlm's fixes, as detection.
#[test]
fn policy_bugs_and_reference_fixes() {
    let rows: &[(&str, Expect)] = &[
        // rlm-code: case-insensitive bare pattern. Ours: names are case-sensitive.
        ("This is the final (third) draft", Nothing),
        ("we are not final(ly) done", Nothing),
        // rlm-code: `f(x` (lazy). Ours: balanced.
        ("FINAL(f(x))", Found(DIRECT, "f(x)")),
        // alexzhang13/rlm #75: nested parentheses.
        (
            "FINAL(max(len(a), len(b)))",
            Found(DIRECT, "max(len(a), len(b))"),
        ),
        (r#"FINAL("a)b")"#, Found(DIRECT, "a)b")),
        // alexzhang13/rlm: FINAL_VAR is tried before FINAL.
        ("FINAL_VAR(result)", Found(VARIABLE, "result")),
        // Unquoted FINAL_VAR, which rlm-code's policy misses and its text
        // detector finds: one parser, one answer.
        (
            "The result is in FINAL_VAR(result)",
            Found(VARIABLE, "result"),
        ),
    ];
    check_table(FinalOptions::text(), rows);
}
