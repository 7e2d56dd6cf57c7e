//! The detector's own rules, beyond the documented examples: tokens, nesting, negation, ambiguity,
//! rejections, values, code.

use doneseq::answer::{
    AnswerValue, FinalDetector, FinalOptions, MAX_SUBMIT_FIELDS, RejectReason,
    detect_final_in_code, detect_final_in_text,
};

use super::{Ambiguous, DIRECT, Expect, Found, Nothing, SUBMIT, VARIABLE, check_table};

#[test]
fn names_are_whole_case_sensitive_words() {
    let rows: &[(&str, Expect)] = &[
        ("FINALIZE(3)", Nothing),
        ("FINAL_VALUE(3)", Nothing),
        ("FINAL_VARS(x)", Nothing),
        ("XSUBMIT(a=1)", Nothing),
        ("SUBMITTED(a=1)", Nothing),
        ("final(3)", Nothing),
        ("Final(3)", Nothing),
        ("submit(a=1)", Nothing),
        ("\u{e9}FINAL(3)", Nothing),
        ("3FINAL(3)", Nothing),
        // Punctuation is a boundary.
        ("\u{2014}FINAL(3)", Found(DIRECT, "3")),
        ("(FINAL(3))", Found(DIRECT, "3")),
        ("Done.FINAL(3)", Found(DIRECT, "3")),
        // A name without a parenthesis is prose.
        ("The FINAL answer is below.", Nothing),
        ("FINAL\n(3)", Nothing),
        ("FINAL: 3", Nothing),
    ];
    check_table(FinalOptions::text(), rows);
}

#[test]
fn strings_and_parentheses() {
    let rows: &[(&str, Expect)] = &[
        (r#"FINAL("a)b")"#, Found(DIRECT, "a)b")),
        (r#"FINAL('a)b')"#, Found(DIRECT, "a)b")),
        (r#"FINAL("""a)"b""")"#, Found(DIRECT, "a)\"b")),
        (r#"FINAL("a\")b")"#, Found(DIRECT, "a\")b")),
        (r#"FINAL("tab\there")"#, Found(DIRECT, "tab\there")),
        (r#"FINAL(r"C:\new")"#, Found(DIRECT, "C:\\new")),
        (r#"FINAL("a" "b")"#, Found(DIRECT, "ab")),
        ("FINAL(g(h(1), (2)))", Found(DIRECT, "g(h(1), (2))")),
        // Apostrophes in prose are not strings.
        (
            "FINAL(It's 42, isn't it?)",
            Found(DIRECT, "It's 42, isn't it?"),
        ),
        ("FINAL(rock 'n' roll)", Found(DIRECT, "rock 'n' roll")),
        ("FINAL(the '90s)", Found(DIRECT, "the '90s")),
        // An unterminated quote in prose is a plain character.
        ("FINAL(5' 11\" tall)", Found(DIRECT, "5' 11\" tall")),
        ("FINAL(\"open) and more", Found(DIRECT, "\"open")),
        // A parenthesis inside a string does not close the call.
        ("FINAL(\"(\") done", Found(DIRECT, "(")),
        // `answer=` is FINAL's own parameter.
        ("FINAL(answer=\"42\")", Found(DIRECT, "42")),
    ];
    check_table(FinalOptions::text(), rows);
}

#[test]
fn nesting_and_unclosed_calls() {
    let rows: &[(&str, Expect)] = &[
        // A call inside a call's argument is part of it.
        (
            r#"FINAL("use FINAL(x) to finish")"#,
            Found(DIRECT, "use FINAL(x) to finish"),
        ),
        ("FINAL(f(FINAL(x)))", Found(DIRECT, "f(FINAL(x))")),
        ("SUBMIT(a=FINAL(1))", Found(SUBMIT, "a=FINAL(1)")),
        // An unclosed call is rejected, and what it holds is still read.
        ("FINAL(42", Nothing),
        ("FINAL(x and then FINAL(42)", Found(DIRECT, "42")),
        ("FINAL(x FINAL(1) FINAL(2)", Ambiguous),
        ("FINAL(x FINAL(1) FINAL(1)", Found(DIRECT, "1")),
        ("FINAL(a FINAL(b FINAL(1)", Found(DIRECT, "1")),
        ("FINAL(a FINAL(1) FINAL(b FINAL(2)", Ambiguous),
        // A rejected call swallows its argument.
        ("Do not call FINAL(FINAL(1)) yet", Nothing),
        // A known limitation, kept simple: an unbalanced `(` inside prose.
        ("FINAL(I'm sad :( but 42)", Nothing),
    ];
    check_table(FinalOptions::text(), rows);
    let d = detect_final_in_text("FINAL(x and then FINAL(42)");
    assert_eq!(d.rejected[0].reason, RejectReason::Unclosed);
    assert_eq!(d.rejected[0].span, 0..6);
    assert_eq!(d.span, Some(17..26));
}

#[test]
fn deep_unclosed_nesting_is_bounded() {
    // Eight calls may stay open inside one another; a call inside them is found.
    let seven = "FINAL(".repeat(7) + "FINAL(7)";
    let d = detect_final_in_text(&seven);
    assert_eq!(d.content.as_deref(), Some("7"));
    // Deeper names are plain parentheses (and say so): the innermost call is not seen.
    let deep = "FINAL(".repeat(20) + "FINAL(7)";
    let d = detect_final_in_text(&deep);
    assert!(!d.detected);
    assert!(
        d.rejected
            .iter()
            .any(|r| r.reason == RejectReason::NestedTooDeep)
    );
    // Balanced deep nesting is one signal, the outermost.
    let balanced = format!("{}1{}", "FINAL(".repeat(20), ")".repeat(20));
    assert_eq!(
        detect_final_in_text(&balanced).span,
        Some(0..balanced.len())
    );
}

#[test]
fn negation() {
    let rows: &[(&str, Expect)] = &[
        ("Do not call FINAL_VAR(x) yet", Nothing),
        ("Don't FINAL(x) yet", Nothing),
        ("don\u{2019}t use FINAL(x)", Nothing),
        ("I will never call FINAL(x)", Nothing),
        ("You must not ever call the FINAL(x)", Nothing),
        ("We cannot SUBMIT(a=1) now", Nothing),
        ("without FINAL(x)", Nothing),
        // Not negations.
        ("I'm not sure but FINAL(42)", Found(DIRECT, "42")),
        ("No, FINAL(42)", Found(DIRECT, "42")),
        ("It is not hard. FINAL(42)", Found(DIRECT, "42")),
        ("not done:\nFINAL(42)", Found(DIRECT, "42")),
        ("The answer is FINAL(42)", Found(DIRECT, "42")),
        ("Nothing left to do, FINAL(42)", Found(DIRECT, "42")),
    ];
    check_table(FinalOptions::text(), rows);
}

#[test]
fn ambiguity() {
    let rows: &[(&str, Expect)] = &[
        ("FINAL(1) FINAL(2)", Ambiguous),
        ("FINAL(1) FINAL_VAR(x)", Ambiguous),
        ("FINAL_VAR(x) SUBMIT(a=1)", Ambiguous),
        // The same signal twice is not a conflict.
        ("FINAL(42)\n\nTo repeat: FINAL(42)", Found(DIRECT, "42")),
        ("FINAL_VAR(x) FINAL_VAR( x )", Found(VARIABLE, "x")),
        // A variable's key is its name, quoted or not.
        ("FINAL_VAR(x) FINAL_VAR('x')", Found(VARIABLE, "x")),
        // An answer's key is its text: an int and a string differ.
        ("FINAL(42) FINAL(\"42\")", Ambiguous),
        // A rejected candidate is no conflict.
        ("FINAL(42) but do not call FINAL(43)", Found(DIRECT, "42")),
        ("FINAL(42) FINAL()", Found(DIRECT, "42")),
    ];
    check_table(FinalOptions::text(), rows);
    // In code, several calls are alternatives, not a conflict.
    check_table(
        FinalOptions::code(),
        &[("FINAL(1)\nFINAL(2)", Found(DIRECT, "1"))],
    );
}

#[test]
fn malformed_arguments_are_rejected_with_a_reason() {
    let reason = |t: &str| {
        let d = detect_final_in_text(t);
        assert!(!d.detected, "{t}");
        d.rejected.first().map(|r| r.reason)
    };
    assert_eq!(reason("FINAL()"), Some(RejectReason::EmptyArgument));
    assert_eq!(reason("FINAL_VAR()"), Some(RejectReason::EmptyArgument));
    assert_eq!(reason("SUBMIT()"), Some(RejectReason::EmptyArgument));
    assert_eq!(
        reason("FINAL_VAR(x[0])"),
        Some(RejectReason::InvalidVariableName)
    );
    assert_eq!(
        reason("FINAL_VAR(\"my var\")"),
        Some(RejectReason::InvalidVariableName)
    );
    assert_eq!(
        reason("FINAL_VAR(1x)"),
        Some(RejectReason::InvalidVariableName)
    );
    assert_eq!(
        reason("SUBMIT(42)"),
        Some(RejectReason::InvalidSubmitArguments)
    );
    assert_eq!(
        reason("SUBMIT(a=1, 2)"),
        Some(RejectReason::InvalidSubmitArguments)
    );
    assert_eq!(
        reason("SUBMIT(a=1, a=2)"),
        Some(RejectReason::DuplicateField)
    );
    assert_eq!(reason("FINAL(42"), Some(RejectReason::Unclosed));
    let many: Vec<String> = (0..=MAX_SUBMIT_FIELDS)
        .map(|i| format!("f{i}={i}"))
        .collect();
    assert_eq!(
        reason(&format!("SUBMIT({})", many.join(","))),
        Some(RejectReason::TooManyFields)
    );
    let strict = FinalDetector::new(FinalOptions::text().strict(true)).detect("x FINAL(1)");
    assert_eq!(strict.rejected[0].reason, RejectReason::NotAtLineStart);
    let code = detect_final_in_code("a.FINAL(1)\ndef FINAL(x): pass");
    let reasons: Vec<_> = code.rejected.iter().map(|r| r.reason).collect();
    assert_eq!(reasons, [RejectReason::Attribute, RejectReason::Definition]);
}

#[test]
fn rejections_are_capped() {
    let text = "FINAL() ".repeat(100);
    let d = detect_final_in_text(&text);
    assert_eq!(
        d.rejected.len(),
        doneseq::answer::FinalDetection::MAX_REJECTIONS
    );
}

#[test]
fn values_in_text_and_code() {
    let text = |t: &str| detect_final_in_text(t).value.unwrap();
    let code = |t: &str| detect_final_in_code(t).value.unwrap();
    assert_eq!(text("FINAL(42)"), AnswerValue::Int(42));
    assert_eq!(text("FINAL(-0.5)"), AnswerValue::Float(-0.5));
    assert_eq!(text("FINAL(True)"), AnswerValue::Bool(true));
    assert_eq!(text("FINAL(None)"), AnswerValue::Null);
    assert_eq!(text("FINAL((1, 2))"), AnswerValue::parse("[1, 2]").unwrap());
    // Not a literal: prose is text, code is an expression.
    assert_eq!(text("FINAL(total / n)"), AnswerValue::from("total / n"));
    assert_eq!(
        code("FINAL(total / n)"),
        AnswerValue::Expr("total / n".into())
    );
    assert_eq!(text("FINAL(007)"), AnswerValue::from("007"));
    // Content: a string's value, or the argument as written.
    let content = |t: &str| detect_final_in_text(t).content.unwrap();
    assert_eq!(content("FINAL([1,  2])"), "[1,  2]");
    assert_eq!(content("FINAL('a\\nb')"), "a\nb");
    assert_eq!(
        detect_final_in_code("FINAL('a\\nb')").content.unwrap(),
        "a\nb"
    );
    // SUBMIT fields are values too.
    let d = detect_final_in_text("SUBMIT(answer=\"Paris\", confidence=0.9, sources=['a', 'b'],)");
    let fields = d.submit_fields().unwrap();
    assert_eq!(fields.len(), 3);
    assert_eq!(fields[0], ("answer".into(), "Paris".into()));
    assert_eq!(fields[1], ("confidence".into(), 0.9.into()));
    assert_eq!(fields[2].1, AnswerValue::parse("['a', 'b']").unwrap());
    // A literal nested too deep is kept as text, not an error.
    let deep = format!("FINAL({}{})", "[".repeat(100), "]".repeat(100));
    let d = detect_final_in_text(&deep);
    assert_eq!(
        d.value,
        Some(AnswerValue::String(deep[6..deep.len() - 1].to_owned()))
    );
}

#[test]
fn code_is_lexed_as_python() {
    let rows: &[(&str, Expect)] = &[
        ("x = 'it''s'\nFINAL(x)", Found(DIRECT, "x")),
        ("x = \"\"\"\n)\n\"\"\"\nFINAL(x)", Found(DIRECT, "x")),
        // A comment inside the call does not end it.
        (
            "FINAL(\n  x  # the answer )\n)",
            Found(DIRECT, "x  # the answer )"),
        ),
        // Inside a function, a lambda, a condition.
        ("def done():\n    FINAL_VAR('r')", Found(VARIABLE, "r")),
        ("f = lambda: FINAL(1)", Found(DIRECT, "1")),
        ("if ok: SUBMIT(a=1)", Found(SUBMIT, "a=1")),
        // An unterminated string runs to the end of its line.
        ("s = 'abc\nFINAL(1)", Found(DIRECT, "1")),
        ("s = '''abc\nFINAL(1)", Nothing),
        // Stray closing parentheses at the top level are harmless.
        (")) FINAL(1)", Found(DIRECT, "1")),
    ];
    check_table(FinalOptions::code(), rows);
}

#[test]
fn find_spans() {
    let detector = FinalDetector::default();
    let text = "r\u{e9}sum\u{e9}: FINAL_VAR( \"r\u{e9}sultat\" ) ok";
    let m = detector.find(text).unwrap();
    assert_eq!(&text[m.span()], "FINAL_VAR( \"r\u{e9}sultat\" )");
    assert_eq!(&text[m.arg_span()], "r\u{e9}sultat");
    assert_eq!(m.conflict_span(), None);
    assert!(detector.find("nothing here").is_none());
    assert!(detector.find("").is_none());
}
