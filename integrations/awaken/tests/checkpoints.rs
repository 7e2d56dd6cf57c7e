//! The run's doneseq state is awaken state: it survives a checkpoint (its JSON) into
//! another store, and a checkpoint that does not fit the plugin's monitor is an
//! error, not a silent restart. Phases run one at a time through awaken's phase
//! runtime, as awaken's own plugin tests run them.

use std::sync::Arc;

use awaken_runtime::PhaseContext;
use awaken_runtime::agent::state::{RunLifecycle, RunLifecycleUpdate};
use awaken_runtime::loop_runner::LoopStatePlugin;
use awaken_runtime::phase::{ExecutionEnv, PhaseRuntime};
use awaken_runtime::plugins::Plugin;
use awaken_runtime::state::{MutationBatch, StateStore};
use awaken_runtime_contract::contract::inference::{LLMResponse, StopReason, StreamResult};
use awaken_runtime_contract::contract::message::{Message, ToolCall};
use awaken_runtime_contract::contract::tool::ToolResult;
use awaken_runtime_contract::model::Phase;
use doneseq::{Monitor, TaskConfig, VerdictKind};
use doneseq_awaken::{DoneseqPlugin, DoneseqRun, DoneseqRunKey};
use serde_json::json;

struct Phases {
    store: StateStore,
    runtime: PhaseRuntime,
    env: ExecutionEnv,
}

fn phases(plugin: &DoneseqPlugin) -> Phases {
    let store = StateStore::new();
    let runtime = PhaseRuntime::new(store.clone()).unwrap();
    store.install_plugin(LoopStatePlugin).unwrap();
    store.install_plugin(plugin.clone()).unwrap();
    let mut patch = MutationBatch::new();
    patch.update::<RunLifecycle>(RunLifecycleUpdate::Start {
        run_id: "run".into(),
        updated_at: 0,
    });
    store.commit(patch).unwrap();
    let plugins: Vec<Arc<dyn Plugin>> = vec![Arc::new(plugin.clone())];
    let env = ExecutionEnv::from_plugins(&plugins, &Default::default()).unwrap();
    Phases {
        store,
        runtime,
        env,
    }
}

impl Phases {
    async fn run(&self, ctx: PhaseContext) -> Result<(), awaken_runtime_contract::StateError> {
        self.runtime
            .run_phase_with_context(&self.env, ctx)
            .await
            .map(drop)
    }

    fn ctx(&self, phase: Phase) -> PhaseContext {
        PhaseContext::new(phase, self.store.snapshot())
    }

    fn restore(&self, saved: &serde_json::Value) {
        let mut patch = MutationBatch::new();
        patch.update::<DoneseqRunKey>(serde_json::from_value::<DoneseqRun>(saved.clone()).unwrap());
        self.store.commit(patch).unwrap();
    }

    fn tool_result(&self) -> PhaseContext {
        self.ctx(Phase::AfterToolExecute)
            .with_tool_info("add", "c1", Some(json!({"a": 2, "b": 3})))
            .with_tool_result(ToolResult::success("add", json!(5)))
    }
}

fn plugin(sequences: &[&str]) -> DoneseqPlugin {
    let config = TaskConfig::from_dsl(sequences.iter().copied()).unwrap();
    DoneseqPlugin::new(Monitor::new(config).unwrap())
}

/// The run so far: its input and a model call requesting `add`, checkpointed.
async fn checkpoint(plugin: &DoneseqPlugin) -> serde_json::Value {
    let first = phases(plugin);
    first
        .run(
            first
                .ctx(Phase::RunStart)
                .with_messages(vec![Arc::new(Message::user("add 2 and 3"))]),
        )
        .await
        .unwrap();
    let call = StreamResult {
        content: vec![],
        tool_calls: vec![ToolCall::new("c1", "add", json!({"a": 2, "b": 3}))],
        usage: None,
        stop_reason: Some(StopReason::ToolUse),
        has_incomplete_tool_calls: false,
    };
    first
        .run(
            first
                .ctx(Phase::AfterInference)
                .with_llm_response(LLMResponse::success(call)),
        )
        .await
        .unwrap();
    assert!(DoneseqPlugin::outcome(&first.store).is_none());
    serde_json::to_value(first.store.read::<DoneseqRunKey>().unwrap()).unwrap()
}

#[tokio::test]
async fn a_checkpointed_run_goes_on_in_another_store() {
    let plugin = plugin(&["T[add], A"]);
    let saved = checkpoint(&plugin).await;
    let second = phases(&plugin);
    second.restore(&saved);
    second.run(second.tool_result()).await.unwrap();
    let outcome = DoneseqPlugin::outcome(&second.store).unwrap();
    assert_eq!((outcome.kind, outcome.at), (VerdictKind::Done, 1));
    assert_eq!(outcome.fired[0].matched, 0..=1);
    // The stop is awaken's too.
    let lifecycle = second.store.read::<RunLifecycle>().unwrap();
    assert_eq!(
        lifecycle.status_reason.as_deref(),
        Some("stopped:done_sequence")
    );
    // And the outcome in the state reads back from its JSON.
    let stored = serde_json::to_value(second.store.read::<DoneseqRunKey>().unwrap()).unwrap();
    let back: DoneseqRun = serde_json::from_value(stored).unwrap();
    assert_eq!(back.outcome, Some(outcome));
}

#[tokio::test]
async fn a_checkpoint_of_another_monitor_is_an_error() {
    let saved = checkpoint(&plugin(&["T[add], A"])).await;
    let many: Vec<String> = (0..80).map(|i| format!("T[tool{i}], A")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let other = phases(&plugin(&many));
    other.restore(&saved);
    let error = other
        .run(other.tool_result())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("doneseq.run") && error.contains("does not fit this monitor"),
        "{error}"
    );
}
