//! Every example of rlm-code's documentation (the FINAL protocol, the
//! `final_pattern` policy), with the documented result.

use std::collections::BTreeMap;

use doneseq::answer::{
    AnswerValue, FinalDetection, FinalKind, FinalOptions, detect_final_in_code,
    detect_final_in_text, extract_code_blocks, format_final_answer, resolve_final_var,
};

use super::{DIRECT, Expect, Found, Nothing, VARIABLE, check_table};

fn v(literal: &str) -> AnswerValue {
    AnswerValue::parse(literal).unwrap()
}

/// 001, `detect_final_in_text`: its three examples, its pattern tables (each "Example
/// Match"), whitespace tolerance and the detection priority.
#[test]
fn detect_final_in_text_examples() {
    let rows: &[(&str, Expect)] = &[
        // The examples.
        (r#"Based on my analysis, FINAL("42")"#, Found(DIRECT, "42")),
        (
            r#"I have stored the answer. FINAL_VAR("result")"#,
            Found(VARIABLE, "result"),
        ),
        ("Let me continue analyzing...", Nothing),
        // FINAL patterns table.
        ("FINAL(The answer is 42)", Found(DIRECT, "The answer is 42")),
        (
            r#"FINAL("The answer is 42")"#,
            Found(DIRECT, "The answer is 42"),
        ),
        (
            r#"FINAL("""Multi-line answer""")"#,
            Found(DIRECT, "Multi-line answer"),
        ),
        // FINAL_VAR patterns table.
        ("FINAL_VAR(result)", Found(VARIABLE, "result")),
        (r#"FINAL_VAR("result")"#, Found(VARIABLE, "result")),
        ("FINAL_VAR('result')", Found(VARIABLE, "result")),
        // Regex Pattern Reference: multiline, quoted, triple quoted.
        ("FINAL(\n  multi\n  line\n)", Found(DIRECT, "multi\n  line")),
        (r#"FINAL("quoted string")"#, Found(DIRECT, "quoted string")),
        (
            r#"FINAL("""triple quoted""")"#,
            Found(DIRECT, "triple quoted"),
        ),
        ("FINAL('''a\nb''')", Found(DIRECT, "a\nb")),
        // Whitespace tolerance.
        ("FINAL( answer )", Found(DIRECT, "answer")),
        ("FINAL (answer)", Found(DIRECT, "answer")),
        ("FINAL(answer)", Found(DIRECT, "answer")),
        ("FINAL_VAR ( result )", Found(VARIABLE, "result")),
        // Detection priority: FINAL_VAR("x") is never FINAL with `VAR("x")`.
        (r#"FINAL_VAR("x")"#, Found(VARIABLE, "x")),
    ];
    check_table(FinalOptions::text(), rows);
}

/// 001, `FINAL(answer)`: the three argument shapes, as values.
#[test]
fn final_answer_values() {
    let value = |t: &str| detect_final_in_text(t).value.unwrap();
    assert_eq!(
        value(r#"FINAL("The answer is 42")"#),
        AnswerValue::from("The answer is 42")
    );
    assert_eq!(
        value(r#"FINAL({"sentiment": "positive", "confidence": 0.95})"#),
        AnswerValue::Object(vec![
            ("sentiment".into(), "positive".into()),
            ("confidence".into(), 0.95.into()),
        ])
    );
    assert_eq!(
        value(r#"FINAL(["item1", "item2", "item3"])"#),
        AnswerValue::List(vec!["item1".into(), "item2".into(), "item3".into()])
    );
    // The same in code.
    let d = detect_final_in_code(r#"FINAL({"sentiment": "positive", "confidence": 0.95})"#);
    assert_eq!(
        d.value.unwrap().get("confidence"),
        Some(&AnswerValue::Float(0.95))
    );
}

/// 001, `detect_final_in_code`: its examples, the word-boundary note, and the
/// Examples section's programs.
#[test]
fn detect_final_in_code_examples() {
    let rows: &[(&str, Expect)] = &[
        ("answer = 42\nFINAL(answer)", Found(DIRECT, "answer")),
        (r#"FINAL_VAR("my_result")"#, Found(VARIABLE, "my_result")),
        // "word-boundary-aware patterns to avoid false positives from FINALIZE or
        // FINAL_VALUE".
        ("FINALIZE(x)\nFINAL_VALUE = 3\nprint(FINAL_VALUE)", Nothing),
        // Basic Task Completion.
        (
            "data = [1, 2, 3, 4, 5]\ntotal = sum(data)\naverage = total / len(data)\n\
             FINAL(f\"The average is {average}\")",
            Found(DIRECT, "f\"The average is {average}\""),
        ),
        // Variable-Based Completion.
        (
            "import json\n\nresults = {}\nfor key in context.keys():\n    \
             results[key] = analyze(context[key])\n\n# Store in variable to avoid token-window bloat\n\
             final_report = json.dumps(results, indent=2)\nFINAL_VAR(\"final_report\")",
            Found(VARIABLE, "final_report"),
        ),
        // Multi-Step Analysis with Sub-LLM.
        (
            "chunks = [context[i:i+1000] for i in range(0, len(context), 1000)]\nsummaries = []\n\n\
             for chunk in chunks:\n    summary = llm_query(f\"Summarize: {chunk}\")\n    \
             summaries.append(summary)\n\ncombined = \"\\n\".join(summaries)\n\
             final_answer = llm_query(f\"Synthesize these summaries: {combined}\")\nFINAL(final_answer)",
            Found(DIRECT, "final_answer"),
        ),
        // Conditional Termination: two calls; which runs is decided at run time, the
        // first in source order is reported (rlm-code would report the FINAL_VAR, as
        // it tries FINAL_VAR patterns first).
        (
            "word_count = len(context.split())\n\nif word_count < 100:\n    \
             FINAL(\"Document too short for meaningful analysis\")\n\n\
             # If we get here, document is long enough\nanalysis = perform_detailed_analysis(context)\n\
             FINAL_VAR(\"analysis\")",
            Found(DIRECT, "Document too short for meaningful analysis"),
        ),
        // The module docs' usage lines.
        (
            r#"FINAL("The answer is 42")"#,
            Found(DIRECT, "The answer is 42"),
        ),
        (
            "result = analyze_document(context)\nsummary = result[\"summary\"]\nFINAL_VAR(\"summary\")",
            Found(VARIABLE, "summary"),
        ),
    ];
    check_table(FinalOptions::code(), rows);
    let d = detect_final_in_code("data = [1]\nFINAL(f\"The average is {average}\")");
    assert_eq!(
        d.value,
        Some(AnswerValue::Expr("f\"The average is {average}\"".into()))
    );
}

/// 001, `FinalDetection`: the constructed example's fields.
#[test]
fn final_detection_fields() {
    let d: FinalDetection = detect_final_in_text(r#"FINAL("42")"#);
    assert!(d.detected);
    assert_eq!(d.kind.map(FinalKind::as_str), Some("direct"));
    assert_eq!(d.content.as_deref(), Some("42"));
    assert_eq!(d.raw_match.as_deref(), Some(r#"FINAL("42")"#));
    assert_eq!(d.span, Some(0..11));
    let nothing = detect_final_in_text("no signal");
    assert_eq!(
        (
            nothing.detected,
            nothing.kind,
            nothing.content,
            nothing.raw_match
        ),
        (false, None, None, None)
    );
}

/// 001, `resolve_final_var`: the value, and the error listing the variables.
#[test]
fn resolve_final_var_example() {
    let namespace = [("result", v("42")), ("data", v("[1, 2, 3]"))];
    let pairs = || namespace.iter().map(|(k, v)| (*k, v));
    assert_eq!(
        resolve_final_var("result", pairs()),
        Ok(&AnswerValue::Int(42))
    );
    let err = resolve_final_var("missing_var", pairs()).unwrap_err();
    assert_eq!(err.name(), "missing_var");
    assert_eq!(err.available(), ["result", "data"]);
    assert_eq!(
        err.to_string(),
        "FINAL_VAR referenced variable 'missing_var', which is not in the REPL namespace \
         (available variables: ['result', 'data'])"
    );
    // Any map works; values of any type.
    let map = BTreeMap::from([("x".to_string(), 1u8)]);
    assert_eq!(resolve_final_var("x", &map), Ok(&1));
}

/// 001, `extract_code_blocks`: the example, the search order, the fallback heuristic.
#[test]
fn extract_code_blocks_example() {
    let response = "\nLet me analyze the data.\n\n```python\nresult = sum(data)\nprint(result)\n```\n\n\
                    And then finalize:\n\n```repl\nFINAL(result)\n```\n";
    assert_eq!(
        extract_code_blocks(response, "repl"),
        ["result = sum(data)\nprint(result)", "FINAL(result)"]
    );
    // Untagged blocks only when no tagged one; and only if they look like Python.
    let untagged = "```\nprint(1)\n```\n```\nplain words\n```\n```\nimport os\n```";
    assert_eq!(
        extract_code_blocks(untagged, "repl"),
        ["print(1)", "import os"]
    );
    for marker in [
        "import x",
        "def f(): pass",
        "class A: pass",
        "print(2)",
        "x=1",
    ] {
        let text = format!("```\n{marker}\n```");
        assert_eq!(extract_code_blocks(&text, "repl"), [marker], "{marker}");
    }
    let mixed = "```\nx = 1\n```\n```python\ny = 2\n```";
    assert_eq!(extract_code_blocks(mixed, "repl"), ["y = 2"]);
}

/// 001, `format_final_answer`: the five examples and the type table.
#[test]
fn format_final_answer_examples() {
    let rows: &[(&str, &str)] = &[
        ("'hello'", "hello"),
        ("{'answer': 42}", "42"),
        (
            "{'key': 'value', 'count': 10}",
            "{\n  \"key\": \"value\",\n  \"count\": 10\n}",
        ),
        ("['line1', 'line2']", "line1\nline2"),
        ("42", "42"),
    ];
    for &(literal, expected) in rows {
        assert_eq!(format_final_answer(&v(literal)), expected, "{literal}");
    }
}

/// 001, End-to-End Flow: blocks, then detection in code; or detection in text.
#[test]
fn end_to_end_flow() {
    let response = "I computed it.\n\n```repl\nanswer = 6 * 7\nFINAL(answer)\n```\n";
    let blocks = extract_code_blocks(response, "repl");
    let d = detect_final_in_code(blocks[0]);
    assert!(d.detected);
    assert_eq!(d.kind, Some(FinalKind::Direct));

    let d = detect_final_in_text("No code this time. FINAL(answer)");
    assert_eq!(d.content.as_deref(), Some("answer"));
}
