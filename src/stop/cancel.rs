//! External cancellation: a flag another thread sets and the next step reads.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A handle that cancels one run (AutoGen's `ExternalTermination`, rlm-code's cancel
/// flag).
///
/// Get it with [`crate::RunState::cancel_handle`]; clone it into another thread and
/// call [`CancelHandle::cancel`]. The next message the monitor observes for that run
/// stops it with [`crate::VerdictKind::Cancelled`] and a `cancelled` condition in
/// [`crate::Outcome::conditions`], whether or not the task's stop tree mentions
/// `cancelled` (a cancel is never ignored). Observing is the only place the flag is
/// read: cancelling does not interrupt a model or tool call in flight, which is the
/// caller's to abort.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<AtomicBool>);

impl CancelHandle {
    /// Asks the run to stop at its next message.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether [`CancelHandle::cancel`] was called.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}
