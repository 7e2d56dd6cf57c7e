//! serde (feature `serde`): the answer as JSON, the detection with rlm-code's field
//! names, the policy's configuration.

use doneseq::answer::{AnswerValue, FinalPatternConfig, FinalPatternPolicy, detect_final_in_text};
use serde_json::json;

#[test]
fn answer_values_are_plain_json() {
    let v = AnswerValue::parse("{'a': [1, 2.5, None, True, 'x'], 'b': {}}").unwrap();
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json, json!({"a": [1, 2.5, null, true, "x"], "b": {}}));
    let back: AnswerValue = serde_json::from_value(json).unwrap();
    assert_eq!(back, v);
    assert_eq!(
        serde_json::to_value(AnswerValue::Expr("f(x)".into())).unwrap(),
        json!("f(x)")
    );
    let big: AnswerValue = serde_json::from_str("18446744073709551615").unwrap();
    assert!(matches!(big, AnswerValue::Float(_)));
    // Key order is kept; a repeated key keeps its place and its last value.
    let v: AnswerValue = serde_json::from_str(r#"{"z": 1, "a": 2, "z": 3}"#).unwrap();
    assert_eq!(v, AnswerValue::parse("{'z': 3, 'a': 2}").unwrap());
}

#[test]
fn detections_serialize_with_rlm_code_names() {
    let d = detect_final_in_text("ok FINAL(42)");
    assert_eq!(
        serde_json::to_value(&d).unwrap(),
        json!({"detected": true, "final_type": "direct", "content": "42",
               "raw_match": "FINAL(42)", "span": [3, 12], "value": 42,
               "ambiguity": null, "rejected": []})
    );
    let d = detect_final_in_text("FINAL(1) FINAL(2) FINAL()");
    assert_eq!(
        serde_json::to_value(&d).unwrap(),
        json!({"detected": false, "final_type": null, "content": null, "raw_match": null,
               "span": null, "value": null,
               "ambiguity": {"first": [0, 8], "second": [9, 17]}, "rejected": []})
    );
    let d = detect_final_in_text("FINAL()");
    assert_eq!(
        serde_json::to_value(&d).unwrap()["rejected"],
        json!([{"span": [0, 7], "reason": "empty_argument"}])
    );
}

#[test]
fn policy_configuration() {
    let config: FinalPatternConfig =
        serde_json::from_str(r#"{"final_patterns": ["ANSWER:\\s*(.+)"], "case_sensitive": true}"#)
            .unwrap();
    assert_eq!(config.final_patterns, ["ANSWER:\\s*(.+)"]);
    assert!(config.case_sensitive && config.extract_answer && !config.strict);
    let config: FinalPatternConfig = serde_json::from_str("{}").unwrap();
    assert_eq!(config, FinalPatternConfig::default());
    assert!(serde_json::from_str::<FinalPatternConfig>(r#"{"patterns": []}"#).is_err());
    let policy: FinalPatternPolicy =
        serde_json::from_str(r#"{"final_patterns": ["DONE"]}"#).unwrap();
    assert_eq!(
        serde_json::to_value(&policy).unwrap()["final_patterns"],
        json!(["DONE"])
    );
    let err =
        serde_json::from_str::<FinalPatternPolicy>(r#"{"final_patterns": ["("]}"#).unwrap_err();
    assert!(
        err.to_string()
            .contains("final pattern 0 is not a valid regex"),
        "{err}"
    );
}
