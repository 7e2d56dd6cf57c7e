//! A rig agent stopped by doneseq, offline: rig's scripted completion model calls the
//! `add` tool twice; the done sequence `T[add], A` ends the run at the first result.
//!
//! `cargo run --manifest-path integrations/rig/Cargo.toml --example scripted`

use doneseq::{Monitor, TaskConfig};
use doneseq_rig::DoneseqHook;
use rig_agent::agent::AgentBuilder;
use rig_agent::test_utils::{MockAddTool, MockCompletionModel, MockTurn};
use serde_json::json;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut config = TaskConfig::from_dsl(["T[add], A"])?;
    config.stop = Some("tokens(20000) | loop".parse()?);
    let hook = DoneseqHook::new(Monitor::new(config)?);
    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call("c1", "add", json!({"x": 2, "y": 3})),
        MockTurn::tool_call("c2", "add", json!({"x": 5, "y": 8})),
        MockTurn::text("13"),
    ]);
    let agent = AgentBuilder::new(model)
        .tool(MockAddTool)
        .add_hook(hook.clone())
        .build();
    let result = agent.prompt("add 2 and 3").max_turns(10).run().await;
    println!(
        "rig: {}",
        result.map_or_else(|e| e.to_string(), |r| r.output())
    );
    if let Some(outcome) = hook.outcome() {
        let answer = outcome.answer.as_ref().map(|a| a.text.as_str());
        println!(
            "doneseq: {} at step {}, answer {answer:?}",
            outcome.kind, outcome.at
        );
    }
    Ok(())
}
