//! An awaken agent stopped by doneseq, offline: awaken's scripted provider calls the
//! `add` tool twice; the done sequence `T[add], A` ends the run at the first result.
//!
//! `cargo run --manifest-path integrations/awaken/Cargo.toml --example scripted`

use std::sync::Arc;

use async_trait::async_trait;
use awaken_runtime::RuntimeError;
use awaken_runtime::engine::{ProviderScriptEvent, ScriptedLlmExecutor};
use awaken_runtime::loop_runner::{
    AgentLoopParams, CommitWiring, LoopStatePlugin, build_agent_env, run_agent_loop,
};
use awaken_runtime::phase::PhaseRuntime;
use awaken_runtime::plugins::Plugin;
use awaken_runtime::registry::{AgentResolver, ResolvedAgent};
use awaken_runtime::state::StateStore;
use awaken_runtime_contract::contract::event_sink::VecEventSink;
use awaken_runtime_contract::contract::identity::{RunIdentity, RunOrigin};
use awaken_runtime_contract::contract::message::Message;
use awaken_runtime_contract::contract::tool::{
    Tool, ToolCallContext, ToolDescriptor, ToolError, ToolOutput, ToolResult,
};
use doneseq::{Monitor, TaskConfig};
use doneseq_awaken::DoneseqPlugin;
use serde_json::{Value, json};

struct Add;

#[async_trait]
impl Tool for Add {
    fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor::new("add", "add", "Adds two numbers")
    }

    async fn execute(&self, args: Value, _ctx: &ToolCallContext) -> Result<ToolOutput, ToolError> {
        let sum = args["x"].as_i64().unwrap_or(0) + args["y"].as_i64().unwrap_or(0);
        Ok(ToolResult::success("add", json!(sum)).into())
    }
}

/// Resolves the one agent, with the plugins its environment is built from.
struct Resolver {
    agent: ResolvedAgent,
    plugins: Vec<Arc<dyn Plugin>>,
}

impl AgentResolver for Resolver {
    fn resolve(&self, _agent_id: &str) -> Result<ResolvedAgent, RuntimeError> {
        let mut agent = self.agent.clone();
        agent.env = build_agent_env(&self.plugins, &agent)?;
        Ok(agent)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut config = TaskConfig::from_dsl(["T[add], A"])?;
    config.stop = Some("tokens(20000) | loop".parse()?);
    let plugin = Arc::new(DoneseqPlugin::new(Monitor::new(config)?));

    let call = |id: &str, x: i64, y: i64| ProviderScriptEvent::ToolCall {
        id: id.into(),
        name: "add".into(),
        arguments: json!({"x": x, "y": y}),
        tokens: Default::default(),
    };
    let model = Arc::new(ScriptedLlmExecutor::new([
        call("c1", 2, 3),
        call("c2", 5, 8),
        ProviderScriptEvent::ChatResponse {
            content: "13".into(),
            tokens: Default::default(),
            finish_reason: awaken_runtime_contract::contract::inference::StopReason::EndTurn,
        },
    ]));
    let agent =
        ResolvedAgent::new("calc", "scripted", "You add numbers.", model).with_tool(Arc::new(Add));
    let store = StateStore::new();
    let runtime = PhaseRuntime::new(store.clone())?;
    store.install_plugin(LoopStatePlugin)?;
    let resolver = Resolver {
        agent,
        plugins: vec![plugin],
    };
    let result = run_agent_loop(AgentLoopParams {
        resolver: &resolver,
        agent_id: "calc",
        runtime: &runtime,
        sink: Arc::new(VecEventSink::new()),
        checkpoint_store: None,
        messages: vec![Message::user("add 2 and 3")],
        run_identity: RunIdentity::new(
            "thread".into(),
            None,
            "run".into(),
            None,
            "calc".into(),
            RunOrigin::User,
        ),
        cancellation_token: None,
        decision_rx: None,
        overrides: None,
        frontend_tools: Vec::new(),
        inbox: None,
        is_continuation: false,
        initial_state_seed: None,
        commit: CommitWiring::default(),
    })
    .await?;
    println!(
        "awaken: {:?} after {} steps",
        result.termination, result.steps
    );
    if let Some(outcome) = DoneseqPlugin::outcome(&store) {
        let answer = outcome.answer.as_ref().map(|a| a.text.as_str());
        println!(
            "doneseq: {} at step {}, answer {answer:?}",
            outcome.kind, outcome.at
        );
    }
    Ok(())
}
