//! The progress indicator of long solves.
//!
//! Solvers call [`Progress::tick`] as they visit positions. Nothing is shown for the first
//! second, nor ever when stderr is not a terminal (so pipes, files and tests see nothing);
//! after that a spinner on stderr shows the positions visited, the rate and the memory the
//! solver's tables hold.

use indicatif::{ProgressBar, ProgressStyle};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// How long a solve runs before the indicator appears.
const QUIET_FOR: Duration = Duration::from_secs(1);

struct Inner {
    started: Instant,
    bar: Option<ProgressBar>,
    /// Ticks between two looks at the clock.
    countdown: u32,
}

/// A handle to the indicator; cheap to clone, and a no-op when disabled.
#[derive(Clone, Default)]
pub struct Progress(Option<Rc<RefCell<Inner>>>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Progress(on)" } else { "Progress(off)" })
    }
}

impl Progress {
    /// An indicator on stderr when stderr is a terminal, else one that shows nothing.
    pub fn stderr() -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        Progress(Some(Rc::new(RefCell::new(Inner { started: Instant::now(), bar: None, countdown: 0 }))))
    }

    /// A solver has visited `positions` positions in all and its tables hold `bytes`.
    pub fn tick(&self, positions: u64, bytes: usize) {
        let Some(inner) = &self.0 else { return };
        let mut inner = inner.borrow_mut();
        if inner.countdown > 0 {
            inner.countdown -= 1;
            return;
        }
        inner.countdown = 4095;
        let elapsed = inner.started.elapsed();
        if elapsed < QUIET_FOR {
            return;
        }
        let bar = inner.bar.get_or_insert_with(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"));
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        let rate = positions as f64 / elapsed.as_secs_f64();
        bar.set_message(format!(
            "{:.0} s: {positions} positions visited, {:.0}k/s, tables {:.1} MiB",
            elapsed.as_secs_f64(),
            rate / 1e3,
            bytes as f64 / (1 << 20) as f64
        ));
    }

    /// Clear the indicator (before the answer is printed).
    pub fn finish(&self) {
        if let Some(inner) = &self.0
            && let Some(bar) = inner.borrow_mut().bar.take()
        {
            bar.finish_and_clear();
        }
    }
}
