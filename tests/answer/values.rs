//! `AnswerValue`, `format_final_answer`, `resolve_final_var` beyond the documented
//! examples.

use std::collections::HashMap;

use doneseq::answer::{AnswerValue, LiteralError, format_final_answer, resolve_final_var};

#[test]
fn python_and_json_literals() {
    let p = |s: &str| AnswerValue::parse(s).unwrap();
    assert_eq!(
        p("{\"a\": [true, null, 1.5e3]}"),
        p("{'a': [True, None, 1500.0]}")
    );
    assert_eq!(p("  'x'  ").as_str(), Some("x"));
    assert_eq!("42".parse::<AnswerValue>(), Ok(AnswerValue::Int(42)));
    assert_eq!(
        AnswerValue::parse("x + 1"),
        Err(LiteralError::Invalid { at: 0 })
    );
    assert_eq!(
        AnswerValue::parse("[1, x]"),
        Err(LiteralError::Invalid { at: 4 })
    );
    assert_eq!(
        LiteralError::TooDeep { at: 64 }.to_string(),
        "literal nested deeper than 64 levels (at byte 64)"
    );
}

#[test]
fn display_is_python_str() {
    let p = |s: &str| AnswerValue::parse(s).unwrap().to_string();
    assert_eq!(p("None"), "None");
    assert_eq!(p("true"), "True");
    assert_eq!(p("1e16"), "1e+16");
    assert_eq!(p("[1, 'a', \"it's\"]"), "[1, 'a', \"it's\"]");
    assert_eq!(p("{'k': {'n': 2}}"), "{'k': {'n': 2}}");
    assert_eq!(p("'plain'"), "plain");
}

#[test]
fn formatting_every_kind() {
    let f = |v: AnswerValue| format_final_answer(&v);
    assert_eq!(f(AnswerValue::Null), "None");
    assert_eq!(f(AnswerValue::Bool(false)), "False");
    assert_eq!(f(AnswerValue::Float(0.1)), "0.1");
    assert_eq!(f(AnswerValue::Expr("x * 2".into())), "x * 2");
    assert_eq!(
        f(AnswerValue::parse("{'answer': {'a': 1}}").unwrap()),
        "{'a': 1}"
    );
    assert_eq!(
        f(AnswerValue::parse("{'caf\u{e9}': [1.0, None, 'x']}").unwrap()),
        "{\n  \"caf\u{e9}\": [\n    1.0,\n    null,\n    \"x\"\n  ]\n}"
    );
    assert_eq!(
        f(AnswerValue::Object(vec![(
            "e".into(),
            AnswerValue::Expr("a + b".into())
        )])),
        "{\n  \"e\": \"a + b\"\n}"
    );
}

#[test]
fn resolution_with_a_hash_map() {
    let mut namespace = HashMap::new();
    namespace.insert("answer".to_string(), AnswerValue::from(7));
    assert_eq!(
        resolve_final_var("answer", &namespace),
        Ok(&AnswerValue::Int(7))
    );
    let err = resolve_final_var("nope", &namespace).unwrap_err();
    assert_eq!(err.available(), ["answer"]);
    // An empty namespace, and a long one, read well.
    let empty: HashMap<String, i32> = HashMap::new();
    assert_eq!(
        resolve_final_var("x", &empty).unwrap_err().to_string(),
        "FINAL_VAR referenced variable 'x', which is not in the REPL namespace (available variables: [])"
    );
    let many: Vec<(String, i32)> = (0..60).map(|i| (format!("v{i}"), i)).collect();
    let err = resolve_final_var("x", many.iter().map(|(k, v)| (k, v))).unwrap_err();
    assert!(
        err.to_string().ends_with("'v49', ... and 10 more])"),
        "{err}"
    );
    assert_eq!(err.available().len(), 60);
}
