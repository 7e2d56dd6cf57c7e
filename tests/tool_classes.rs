//! `T[ClassName]` as Langroid resolves it: `TaskConfig::tool_classes` and Langroid's
//! orchestration tools.

use doneseq::stop::{LintKind, LintOptions};
use doneseq::{CompileError, Message, Monitor, TaskConfig, ToolCall};

fn call(name: &str) -> Message<'_> {
    Message::llm("").with_tool_call(ToolCall::new(name, "{}"))
}

fn stops(config: TaskConfig, messages: &[Message]) -> Option<usize> {
    let monitor = Monitor::new(config).unwrap();
    let mut run = monitor.start();
    messages
        .iter()
        .position(|m| monitor.observe(&mut run, m).is_stop())
}

fn config(sequence: &str, classes: &[(&str, &str)]) -> TaskConfig {
    let mut config = TaskConfig::from_dsl([sequence]).unwrap();
    config.recognize_string_signals = false;
    config.tool_classes = classes
        .iter()
        .map(|(c, r)| ((*c).to_owned(), (*r).to_owned()))
        .collect();
    config
}

#[test]
fn a_class_name_stands_for_its_request_name() {
    let messages = [call("submit_edit"), Message::agent("ok")];
    let classes = [("EditTool", "submit_edit")];
    assert_eq!(
        stops(config("T[EditTool], A", &classes), &messages),
        Some(1)
    );
    // Without the class, the name is taken as written: it never fires.
    assert_eq!(stops(config("T[EditTool], A", &[]), &messages), None);
    // The monitor's sequences stay as written.
    let monitor = Monitor::new(config("edit: T[EditTool], A", &classes)).unwrap();
    assert_eq!(monitor.sequences()[0].to_string(), "edit: T[EditTool], A");
}

#[test]
fn langroids_orchestration_tools_are_built_in() {
    let messages = [call("done_tool")];
    assert_eq!(stops(config("T[DoneTool]", &[]), &messages), Some(0));
    assert_eq!(stops(config("T[done_tool]", &[]), &messages), Some(0));
}

#[test]
fn a_request_name_wins_over_a_class_name() {
    // `search` is the request name of one class and the class name of another: as a
    // request name, it stays.
    let classes = [("Search", "search"), ("search", "web_search")];
    let c = config("T[search]", &classes);
    assert_eq!(c.tool_request("search"), None);
    assert_eq!(c.tool_request("Search"), Some("search"));
    assert_eq!(stops(c, &[call("search")]), Some(0));
}

#[test]
fn tool_classes_read_from_json_and_refuse_empty_names() {
    let json =
        r#"{"done_sequences": ["T[EditTool], A"], "tool_classes": {"EditTool": "submit_edit"}}"#;
    let config: TaskConfig = serde_json::from_str(json).unwrap();
    assert_eq!(config.tool_request("EditTool"), Some("submit_edit"));
    let written = serde_json::to_value(&config).unwrap();
    assert_eq!(written["tool_classes"]["EditTool"], "submit_edit");
    let bad: TaskConfig = serde_json::from_str(r#"{"tool_classes": {"EditTool": ""}}"#).unwrap();
    assert!(matches!(
        Monitor::new(bad),
        Err(CompileError::InvalidToolClass { .. })
    ));
}

#[test]
fn lint_checks_a_class_as_its_request_name() {
    let c = config("T[EditTool], A", &[("EditTool", "submit_edit")]);
    let lowered = c.lowered();
    let tools = LintOptions::default().with_tools(["submit_edit"]);
    let with_classes = tools.clone().with_tool_classes(c.tool_classes.clone());
    assert!(lowered.lint(&with_classes).is_empty());
    let without: Vec<LintKind> = lowered.lint(&tools).into_iter().map(|l| l.kind).collect();
    assert_eq!(without, [LintKind::UnknownTool]);
}
