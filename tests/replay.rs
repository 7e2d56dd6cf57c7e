//! Snapshot tests of whole runs, as a library user writes them: `Monitor::replay`
//! gives every step's classification and verdict, and the outcome serializes in a
//! documented shape, so `insta::assert_yaml_snapshot!` reviews a run like code.

use doneseq::stop::Condition;
use doneseq::{Message, Monitor, TaskConfig, ToolCall, Usage};

/// The calculator task: a failed call, a retry, the answer.
fn calculator() -> (Monitor, Vec<Message<'static>>) {
    let mut config = TaskConfig::from_dsl(["calc: T[calculator], A@Calculator & !E"]).unwrap();
    config.stop = Some(
        "tokens(10000) | consecutive_errors(3)"
            .parse::<Condition>()
            .unwrap(),
    );
    let call = || Message::llm("").with_tool_call(ToolCall::new("calculator", r#"{"x": "395"}"#));
    let messages = vec![
        Message::system("You are a calculator."),
        Message::user("What is 79 * 5?"),
        call().with_usage(Usage {
            input_tokens: 50,
            output_tokens: 9,
        }),
        Message::agent("")
            .with_responder("Calculator")
            .with_error("division by zero"),
        call().with_usage(Usage {
            input_tokens: 60,
            output_tokens: 9,
        }),
        Message::agent("395").with_responder("Calculator"),
    ];
    (Monitor::new(config).unwrap(), messages)
}

/// The example the crate documents: a whole replay as YAML.
#[test]
fn a_replay_snapshots_as_yaml() {
    let (monitor, messages) = calculator();
    let replay = monitor.replay(&messages);
    insta::assert_yaml_snapshot!(replay);
}

/// The outcome's serialized shape is the one `Outcome`'s docs describe.
#[test]
fn an_outcome_serializes_in_its_documented_shape() {
    let (monitor, messages) = calculator();
    let outcome = monitor.replay(&messages).outcome.unwrap();
    let json = serde_json::to_value(&outcome).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        ["answer", "at", "conditions", "fired", "kind", "reason"]
    );
    assert_eq!(json["kind"], "done");
    assert_eq!(
        json["reason"],
        serde_json::json!({"type": "sequence", "value": 0})
    );
    assert_eq!(
        json["fired"][0]["matched"],
        serde_json::json!({"start": 2, "end": 3})
    );
    assert_eq!(
        json["answer"],
        serde_json::json!({"text": "395", "source": "message"})
    );
    let condition = &json["conditions"][0];
    assert_eq!(condition["id"], "seq");
    assert_eq!(
        condition["rule"],
        serde_json::json!({"type": "sequence", "value": 0})
    );
    assert_eq!(condition["evidence"]["type"], "sequence");
    assert_eq!(condition["detail"], "matched steps 2..=3");
    // The node is the condition's place in the lowered tree.
    let node = doneseq::NodeId(u32::try_from(condition["node"].as_u64().unwrap()).unwrap());
    assert_eq!(
        monitor.condition(node).unwrap().to_string(),
        r#"seq("calc: T[calculator], A@Calculator & !E")"#
    );
}
