//! Ending an awaken run from a hook: the one way both plugins say stop.

use awaken_runtime::agent::state::{RunLifecycle, RunLifecycleUpdate};
use awaken_runtime::state::StateCommand;
use awaken_runtime_contract::contract::lifecycle::TerminationReason;
use awaken_runtime_contract::now_ms;

/// Adds to `cmd` the lifecycle update that ends the run as awaken's
/// `TerminationReason::Stopped` (`stopped:<code>`), as awaken's own stop plugin does;
/// awaken checks it after the phase.
pub(crate) fn stop(cmd: &mut StateCommand, code: String, detail: String) {
    let (_, done_reason) = TerminationReason::stopped_with_detail(code, detail).to_run_status();
    cmd.update::<RunLifecycle>(RunLifecycleUpdate::Done {
        done_reason: done_reason.unwrap_or_default(),
        updated_at: now_ms(),
    });
}
