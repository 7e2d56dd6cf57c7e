//! `DoneseqHook` in real rig agent runs: rig's own scripted completion model
//! (`MockCompletionModel`, rig-agent's test utilities) drives the agent loop, a
//! counting tool records what really ran, and doneseq decides where the run ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use doneseq::{AnswerSource, Monitor, TaskConfig, VerdictKind};
use doneseq_rig::DoneseqHook;
use rig_agent::agent::AgentBuilder;
use rig_agent::completion::Usage;
use rig_agent::test_utils::{MockCompletionModel, MockToolError, MockTurn};
use rig_agent::tool::{Tool, ToolContext};
use serde_json::json;

/// `add(x, y)`, counting its calls.
#[derive(Clone, Default)]
struct CountingAdd {
    calls: Arc<AtomicUsize>,
}

impl Tool for CountingAdd {
    const NAME: &'static str = "add";
    type Error = MockToolError;
    type Args = serde_json::Value;
    type Output = i64;

    fn description(&self) -> String {
        "Adds x and y".to_owned()
    }

    fn parameters(&self) -> serde_json::Value {
        json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}})
    }

    async fn call(
        &self,
        _context: &mut ToolContext,
        args: Self::Args,
    ) -> Result<Self::Output, Self::Error> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(args["x"].as_i64().unwrap_or(0) + args["y"].as_i64().unwrap_or(0))
    }
}

fn hook(sequences: &[&str], stop: Option<&str>) -> DoneseqHook {
    let mut config = TaskConfig::from_dsl(sequences.iter().copied()).unwrap();
    config.stop = stop.map(|s| s.parse().unwrap());
    DoneseqHook::new(Monitor::new(config).unwrap())
}

fn usage(input: u64, output: u64) -> Usage {
    let mut usage = Usage::new();
    usage.input_tokens = Some(input);
    usage.output_tokens = Some(output);
    usage
}

fn add_call(id: &str, x: i64, y: i64) -> MockTurn {
    MockTurn::tool_call(id, "add", json!({"x": x, "y": y}))
}

/// The model adds 2 and 3, then 5 and 8, then answers.
fn two_additions() -> Vec<MockTurn> {
    vec![
        add_call("c1", 2, 3),
        add_call("c2", 5, 8),
        MockTurn::text("13"),
    ]
}

/// Runs `turns` with the counting tool and `hook`: rig's result as text (the
/// response, or the error) and how many times the tool ran.
async fn run(
    turns: Vec<MockTurn>,
    hook: &DoneseqHook,
    max_turns: usize,
) -> (Result<String, String>, usize) {
    let tool = CountingAdd::default();
    let calls = Arc::clone(&tool.calls);
    let result = AgentBuilder::new(MockCompletionModel::from_turns(turns))
        .tool(tool)
        .add_hook(hook.clone())
        .build()
        .prompt("add 2 and 3, then 5 and 8")
        .max_turns(max_turns)
        .run()
        .await
        .map(|response| response.output().to_string())
        .map_err(|e| e.to_string());
    (result, calls.load(Ordering::SeqCst))
}

#[tokio::test]
async fn a_done_sequence_ends_the_run_at_the_tool_result() {
    let hook = hook(&["T[add], A"], None);
    let (result, calls) = run(two_additions(), &hook, 10).await;
    let outcome = hook.outcome().expect("doneseq stopped the run");
    assert_eq!(outcome.kind, VerdictKind::Done);
    assert_eq!(outcome.answer.as_ref().map(|a| a.text.as_str()), Some("5"));
    assert_eq!(calls, 1, "the second call never ran");
    let error = result.expect_err("rig reports the hook's stop");
    assert!(
        error.contains("doneseq:done: sequence 0 \"T[add], A\""),
        "{error}"
    );
}

#[tokio::test]
async fn a_token_budget_stops_before_the_next_tool_runs() {
    let hook = hook(&[], Some("tokens(100)"));
    let (result, calls) = run(
        vec![
            add_call("c1", 2, 3).with_usage(usage(40, 10)),
            add_call("c2", 5, 8).with_usage(usage(50, 10)),
            MockTurn::text("13").with_usage(usage(60, 5)),
        ],
        &hook,
        10,
    )
    .await;
    let outcome = hook.outcome().expect("the budget ran out");
    assert_eq!(outcome.kind, VerdictKind::Exhausted);
    // The second model turn (step 2, 110 tokens in all) is where the budget runs
    // out: its call is not run.
    assert_eq!(outcome.at, 2, "{outcome:?}");
    assert_eq!(calls, 1);
    assert!(
        result
            .unwrap_err()
            .contains("doneseq:exhausted: tokens(100)")
    );
}

#[tokio::test]
async fn a_loop_is_stuck() {
    let hook = hook(&[], Some("loop"));
    let turns = (0..8).map(|i| add_call(&format!("c{i}"), 2, 3)).collect();
    let (result, calls) = run(turns, &hook, 20).await;
    let outcome = hook.outcome().expect("the loop was seen");
    assert_eq!(outcome.kind, VerdictKind::Stuck);
    assert!(calls < 8, "the loop was cut: {calls} calls");
    assert!(result.unwrap_err().contains("doneseq:stuck"));
}

#[tokio::test]
async fn a_final_answer_ends_the_run_with_its_value() {
    let hook = hook(&[], Some("final"));
    let (result, calls) = run(
        vec![
            add_call("c1", 2, 3),
            MockTurn::text("The sum is 5. FINAL(5)"),
        ],
        &hook,
        10,
    )
    .await;
    let outcome = hook.outcome().expect("FINAL was seen");
    assert_eq!(outcome.kind, VerdictKind::Done);
    let answer = outcome.answer.expect("an answer");
    assert_eq!(
        (answer.text.as_str(), answer.source),
        ("5", AnswerSource::Final)
    );
    assert_eq!(calls, 1);
    // A turn without tool calls is rig's last anyway: it ends normally.
    assert_eq!(result.unwrap(), "The sum is 5. FINAL(5)");
}

#[tokio::test]
async fn a_tool_condition_stops_the_call_before_it_runs() {
    let hook = hook(&[], Some("tool(add)"));
    let (result, calls) = run(vec![add_call("c1", 2, 3), MockTurn::text("5")], &hook, 10).await;
    let outcome = hook.outcome().expect("the request fired");
    assert_eq!(outcome.kind, VerdictKind::Done);
    // Steps count from 0: the model turn that requests the call.
    assert_eq!(outcome.at, 0);
    assert_eq!(calls, 0, "the tool never ran");
    assert!(result.unwrap_err().contains("doneseq:done: tool(add)"));
}

#[tokio::test]
async fn a_run_doneseq_does_not_stop_ends_as_rig_ends_it_and_the_next_starts_fresh() {
    let hook = hook(&["T[add], A, T[add], A"], Some("max_turns(10)"));
    let (result, calls) = run(vec![add_call("c1", 2, 3), MockTurn::text("5")], &hook, 10).await;
    assert_eq!(result.unwrap(), "5");
    assert_eq!(calls, 1);
    assert!(hook.outcome().is_none());
    assert_eq!(
        hook.run_state().steps(),
        3,
        "the model turn, the result, the answer"
    );
    // The same hook on a second run: the sequence needs two calls of this run.
    let (result, _) = run(two_additions(), &hook, 10).await;
    assert!(result.unwrap_err().contains("doneseq:done"));
    // At the second result: step 3 of this run (the first run's steps do not count).
    assert_eq!(hook.outcome().unwrap().at, 3);
}
