//! Time for `timeout(...)`: a clock the monitor reads, replaceable in tests.

use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A monotonic clock: the time since some fixed, arbitrary origin.
///
/// A [`crate::Monitor`] reads it once per message, only when its stop conditions
/// need the time, and a run's elapsed time is the sum of the differences between
/// readings (so the origin does not matter). Replace it with
/// [`crate::Monitor::with_clock`], e.g. with a [`ManualClock`] in tests.
pub trait Clock: Send + Sync + RefUnwindSafe + UnwindSafe + fmt::Debug {
    /// The time since this clock's origin.
    fn now(&self) -> Duration;
}

/// The system's monotonic clock ([`Instant`]); the default.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed()
    }
}

/// A clock that moves only when told to: for tests and simulations.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use doneseq::stop::{Clock, ManualClock};
///
/// let clock = Arc::new(ManualClock::default());
/// clock.advance(Duration::from_secs(5));
/// assert_eq!(clock.now(), Duration::from_secs(5));
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    micros: AtomicU64,
}

impl ManualClock {
    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let micros = u64::try_from(by.as_micros()).unwrap_or(u64::MAX);
        let _ = self
            .micros
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |m| {
                Some(m.saturating_add(micros))
            });
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_micros(self.micros.load(Ordering::Relaxed))
    }
}
