//! doneseq's plugin in real awaken agent runs: awaken's loop, its scripted provider,
//! a real tool.

mod support;

use std::sync::Arc;

use awaken_runtime_contract::contract::lifecycle::{StoppedReason, TerminationReason};
use doneseq::stop::Condition;
use doneseq::{AnswerSource, Monitor, TaskConfig, VerdictKind};
use doneseq_awaken::DoneseqPlugin;
use support::{add_call, call, run, say};

fn plugin(dsl: &[&str], stop: Option<&str>) -> Arc<DoneseqPlugin> {
    let mut config = TaskConfig::from_dsl(dsl.iter().copied()).unwrap();
    config.stop = stop.map(|s| s.parse::<Condition>().unwrap());
    Arc::new(DoneseqPlugin::new(Monitor::new(config).unwrap()))
}

fn stopped(code: &str) -> TerminationReason {
    TerminationReason::Stopped(StoppedReason::new(code))
}

#[tokio::test]
async fn a_done_sequence_ends_the_run_at_the_tool_result() {
    let ran = run(
        "add 2 and 3",
        vec![add_call("c1", 2, 3, 5), say("The sum is 5.")],
        vec![plugin(&["T[add], A"], None)],
    )
    .await;
    assert_eq!(ran.result.termination, stopped("done_sequence"));
    assert_eq!(ran.adds, 1);
    // The model was not asked again: the answer is the tool's.
    assert_eq!(ran.unused_turns, 1);
    let outcome = DoneseqPlugin::outcome(&ran.store).unwrap();
    assert_eq!(outcome.kind, VerdictKind::Done);
    let answer = outcome.answer.unwrap();
    assert_eq!(
        (answer.text.as_str(), answer.source),
        ("5", AnswerSource::Message)
    );
    // Steps: the model's call (0) and the tool's result (1); the prompt is the input.
    assert_eq!(outcome.fired[0].matched, 0..=1);
}

#[tokio::test]
async fn a_token_budget_ends_the_run_before_the_next_tool_runs() {
    // 10 input + 50 output tokens a turn: the second turn reaches 100.
    let ran = run(
        "add twice",
        vec![add_call("c1", 1, 1, 50), add_call("c2", 2, 2, 50), say("4")],
        vec![plugin(&[], Some("tokens(100)"))],
    )
    .await;
    assert_eq!(ran.result.termination, stopped("token_budget"));
    assert_eq!(ran.adds, 1);
    let outcome = DoneseqPlugin::outcome(&ran.store).unwrap();
    assert_eq!(outcome.kind, VerdictKind::Exhausted);
    assert_eq!(outcome.at, 2);
    assert_eq!(
        outcome.leading().unwrap().evidence.to_string(),
        "tokens 120% (120/100 total)"
    );
}

#[tokio::test]
async fn a_loop_of_the_same_call_ends_the_run_as_stuck() {
    let script = (0..6)
        .map(|i| add_call(&format!("c{i}"), 1, 1, 5))
        .collect();
    let ran = run("add", script, vec![plugin(&[], Some("loop"))]).await;
    assert_eq!(ran.result.termination, stopped("loop_detection"));
    let outcome = DoneseqPlugin::outcome(&ran.store).unwrap();
    assert_eq!(outcome.kind, VerdictKind::Stuck);
    assert!(ran.unused_turns > 0, "the loop ran to the script's end");
}

#[tokio::test]
async fn a_final_answer_ends_the_run_with_its_value() {
    let ran = run(
        "add 2 and 3",
        vec![add_call("c1", 2, 3, 5), say("FINAL(5)")],
        vec![plugin(&[], Some("final"))],
    )
    .await;
    assert_eq!(ran.result.termination, stopped("final"));
    let answer = DoneseqPlugin::outcome(&ran.store).unwrap().answer.unwrap();
    assert_eq!(
        (answer.text.as_str(), answer.source),
        ("5", AnswerSource::Final)
    );
}

#[tokio::test]
async fn a_tool_condition_stops_the_run_before_the_tool_runs() {
    let ran = run(
        "add 2 and 3",
        vec![add_call("c1", 2, 3, 5), say("5")],
        vec![plugin(&[], Some("tool(add)"))],
    )
    .await;
    assert_eq!(ran.result.termination, stopped("stop_on_tool"));
    assert_eq!(ran.adds, 0);
    let outcome = DoneseqPlugin::outcome(&ran.store).unwrap();
    assert_eq!(
        outcome.leading().unwrap().evidence.to_string(),
        "add requested"
    );
}

#[tokio::test]
async fn a_failed_tool_result_fails_the_run_before_the_next_model_call() {
    let ran = run(
        "divide",
        vec![call("c1", "broken"), say("retrying"), say("gave up")],
        vec![plugin(&[], Some("consecutive_errors(1)"))],
    )
    .await;
    assert_eq!(ran.result.termination, stopped("consecutive_errors"));
    assert_eq!(ran.unused_turns, 2);
    let outcome = DoneseqPlugin::outcome(&ran.store).unwrap();
    assert_eq!((outcome.kind, outcome.at), (VerdictKind::Failed, 1));
    assert_eq!(
        outcome.leading().unwrap().evidence.to_string(),
        "errors in a row 1/1"
    );
}

#[tokio::test]
async fn a_run_the_rules_do_not_stop_ends_as_awaken_ends_it() {
    let ran = run(
        "add 2 and 3",
        vec![add_call("c1", 2, 3, 5), say("5")],
        vec![plugin(&[], Some("tokens(100000)"))],
    )
    .await;
    assert_eq!(ran.result.termination, TerminationReason::NaturalEnd);
    assert_eq!(ran.result.response, "5");
    assert!(DoneseqPlugin::outcome(&ran.store).is_none());
    // The run's doneseq state is there, with its counts.
    let state = DoneseqPlugin::run_state(&ran.store).unwrap();
    assert_eq!(state.stats().model_calls, 2);
}
