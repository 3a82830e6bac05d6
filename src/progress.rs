//! The watch over a long solve: its progress indicator and its time budget.
//!
//! Solvers call [`Progress::tick`] as they visit positions. Nothing is shown for the first
//! second; after that, when stderr is a terminal, a spinner shows the positions visited, the
//! rate and the memory the solver's tables hold. With `--progress` (for logs and pipes) a
//! plain line says the same every few seconds instead. With `--time-limit`, `tick` returns
//! [`GameError::TimeLimit`] once the time is up, and the solver stops.

use crate::game::{GameError, GameResult};
use indicatif::{ProgressBar, ProgressStyle};
use std::cell::RefCell;
use std::io::IsTerminal;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// A rate for people: `850/s`, `12.5k/s`, `3.2M/s`.
pub fn per_second(rate: f64) -> String {
    if rate < 1e3 {
        format!("{rate:.0}/s")
    } else if rate < 1e6 {
        format!("{:.1}k/s", rate / 1e3)
    } else {
        format!("{:.1}M/s", rate / 1e6)
    }
}

/// How long a solve runs before the indicator appears.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// The processor time this process has used so far, all its threads together (zero where
/// the system does not say).
pub fn cpu_time() -> Duration {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid timespec for the call to write into.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0 {
            return Duration::new(ts.tv_sec.max(0) as u64, ts.tv_nsec.clamp(0, 999_999_999) as u32);
        }
    }
    Duration::ZERO
}

/// How often `--progress` writes a line.
const LINE_EVERY: Duration = Duration::from_secs(5);

/// Ticks between two looks at the clock (a script visits a few thousand positions a second).
const TICKS: u32 = 255;

struct Inner {
    started: Instant,
    /// The spinner, on a terminal.
    terminal: bool,
    bar: Option<ProgressBar>,
    /// Plain lines (`--progress`), and when the last one was written.
    lines: bool,
    last_line: Instant,
    deadline: Option<(Instant, Duration)>,
    /// A share of work measured in the processor time of the process ([`Progress::share`]):
    /// when [`cpu_time`] reaches it, the work stops as at a time limit.
    work: Option<Duration>,
    countdown: u32,
    /// The positions a solver had visited when the time limit stopped it.
    stopped_at: Option<u64>,
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
        Self::new(false, None)
    }

    /// The watch of one command: a spinner when stderr is a terminal, plain lines every few
    /// seconds with `lines` otherwise, and a time budget of `limit`.
    pub fn new(lines: bool, limit: Option<Duration>) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        if !terminal && !lines && limit.is_none() {
            return Progress(None);
        }
        let now = Instant::now();
        Progress(Some(Rc::new(RefCell::new(Inner {
            started: now,
            terminal,
            bar: None,
            lines: lines && !terminal,
            // The first line comes as soon as the quiet second is over.
            last_line: now.checked_sub(LINE_EVERY).unwrap_or(now),
            deadline: limit.map(|l| (now + l, l)),
            work: None,
            countdown: 0,
            stopped_at: None,
        }))))
    }

    /// A time budget alone, shown nowhere (the web server's, one budget a request).
    pub fn budget(limit: Duration) -> Progress {
        Self::hidden(Some(limit))
    }

    /// A handle that shows nothing and has no time budget, but can be given one for a while
    /// ([`Progress::tighten`]).
    pub fn silent() -> Progress {
        Self::hidden(None)
    }

    /// A handle that shows nothing, with a time budget of `limit` if any.
    fn hidden(limit: Option<Duration>) -> Progress {
        let now = Instant::now();
        Progress(Some(Rc::new(RefCell::new(Inner {
            started: now,
            terminal: false,
            bar: None,
            lines: false,
            last_line: now,
            deadline: limit.map(|l| (now + l, l)),
            work: None,
            countdown: 0,
            stopped_at: None,
        }))))
    }

    /// Is this a handle that can be given a budget ([`Progress::tighten`])?
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Give the work from now on at most `limit` (or what is left of the time limit, if less):
    /// the budget before is returned, for [`Progress::restore`].
    pub fn tighten(&self, limit: Duration) -> Option<(Instant, Duration)> {
        let inner = self.0.as_ref()?;
        let mut inner = inner.borrow_mut();
        let before = inner.deadline;
        let at = Instant::now() + limit;
        if before.is_none_or(|(b, _)| at < b) {
            inner.deadline = Some((at, limit));
            inner.countdown = 0;
        }
        before
    }

    /// Give the work from now on at most `limit` of processor time (the process's, all its
    /// threads): a share measured in work, which a busy machine does not shorten (the command's
    /// own `--time-limit` still counts in wall-clock time). Returns the share before, for
    /// [`Progress::restore_share`]. A handle that is off has no share.
    pub fn share(&self, limit: Duration) -> Option<Duration> {
        let inner = self.0.as_ref()?;
        let mut inner = inner.borrow_mut();
        let before = inner.work;
        let at = cpu_time() + limit;
        if before.is_none_or(|b| at < b) {
            inner.work = Some(at);
            inner.countdown = 0;
        }
        before
    }

    /// Put back the share [`Progress::share`] replaced.
    pub fn restore_share(&self, before: Option<Duration>) {
        if let Some(inner) = &self.0 {
            inner.borrow_mut().work = before;
        }
    }

    /// End the work by `at` at the latest (a deadline set from outside: the web server's
    /// request's), its time limit named as before in the message; the budget before is
    /// returned, for [`Progress::restore`]. A handle that is off, or one with no time limit,
    /// is left as it is.
    pub fn until(&self, at: Instant) -> Option<(Instant, Duration)> {
        let inner = self.0.as_ref()?;
        let mut inner = inner.borrow_mut();
        let before = inner.deadline;
        if let Some((b, limit)) = before
            && at < b
        {
            inner.deadline = Some((at, limit));
            inner.countdown = 0;
        }
        before
    }

    /// The deadline of the time budget, if there is one.
    pub fn deadline(&self) -> Option<Instant> {
        self.0.as_ref()?.borrow().deadline.map(|(at, _)| at)
    }

    /// Put back the budget [`Progress::tighten`] replaced.
    pub fn restore(&self, before: Option<(Instant, Duration)>) {
        if let Some(inner) = &self.0 {
            inner.borrow_mut().deadline = before;
        }
    }

    /// The time left of the time budget, if there is one.
    pub fn time_left(&self) -> Option<Duration> {
        let inner = self.0.as_ref()?;
        inner.borrow().deadline.map(|(at, _)| at.saturating_duration_since(Instant::now()))
    }

    /// Has the time budget run out?
    pub fn expired(&self) -> bool {
        self.0.as_ref().is_some_and(|inner| inner.borrow().deadline.is_some_and(|(at, _)| Instant::now() >= at))
    }

    /// The positions the work had visited when the time limit stopped it (as its last
    /// [`Progress::tick`] counted them), if it did.
    pub fn stopped_at(&self) -> Option<u64> {
        self.0.as_ref().and_then(|inner| inner.borrow().stopped_at)
    }

    /// Run `f` (which writes to the terminal) with the indicator hidden, so that the two do
    /// not mix on one line.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        let bar = self.0.as_ref().and_then(|inner| inner.borrow().bar.clone());
        match bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Start the time budget afresh (the next request's).
    pub fn restart(&self) {
        if let Some(inner) = &self.0 {
            let mut inner = inner.borrow_mut();
            let now = Instant::now();
            inner.started = now;
            inner.countdown = 0;
            if let Some((_, limit)) = inner.deadline {
                inner.deadline = Some((now + limit, limit));
            }
        }
    }

    /// A solver has visited `positions` positions in all and its tables hold `bytes`.
    /// `Err` when the time limit has run out.
    pub fn tick(&self, positions: u64, bytes: usize) -> GameResult<()> {
        let Some(inner) = &self.0 else { return Ok(()) };
        let mut inner = inner.borrow_mut();
        if inner.countdown > 0 {
            inner.countdown -= 1;
            return Ok(());
        }
        inner.countdown = TICKS;
        let now = Instant::now();
        if let Some((deadline, limit)) = inner.deadline
            && now >= deadline
        {
            if let Some(bar) = inner.bar.take() {
                bar.finish_and_clear();
            }
            STOPPED.store(true, std::sync::atomic::Ordering::Relaxed);
            inner.stopped_at = Some(positions);
            return Err(GameError::TimeLimit(format!(
                "the time limit of {} ran out after {positions} positions visited (--time-limit); nothing was \
                 decided yet",
                seconds(limit)
            )));
        }
        if let Some(at) = inner.work
            && cpu_time() >= at
        {
            return Err(GameError::TimeLimit(format!(
                "the share of processor time ran out after {positions} positions visited"
            )));
        }
        let elapsed = now - inner.started;
        if elapsed < QUIET_FOR {
            return Ok(());
        }
        let rate = positions as f64 / elapsed.as_secs_f64();
        let message = format!(
            "{:.0} s: {positions} positions visited, {}, tables {:.1} MiB",
            elapsed.as_secs_f64(),
            per_second(rate),
            bytes as f64 / (1 << 20) as f64
        );
        if inner.terminal {
            let bar = inner.bar.get_or_insert_with(|| {
                let bar = ProgressBar::new_spinner();
                bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"));
                bar.enable_steady_tick(Duration::from_millis(200));
                bar
            });
            bar.set_message(message);
        } else if inner.lines && now - inner.last_line >= LINE_EVERY {
            inner.last_line = now;
            eprintln!("progress: {message}");
        }
        Ok(())
    }

    /// Say something about the work that the person watching it should know (a change of
    /// method, work thrown away): above the spinner on a terminal, a `progress:` line with
    /// `--progress`, nothing where progress is not shown.
    pub fn note(&self, what: &str) {
        let Some(inner) = &self.0 else { return };
        let inner = inner.borrow();
        if let Some(bar) = &inner.bar {
            bar.println(format!("note: {what}"));
        } else if inner.terminal || inner.lines {
            eprintln!("progress: note: {what}");
        }
    }

    /// Clear the indicator (before the answer is printed). The work is done: the time-limit
    /// watchdog ([`enforce`]) lets the command print and free its tables, however long that
    /// takes.
    pub fn finish(&self) {
        DONE.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(inner) = &self.0
            && let Some(bar) = inner.borrow_mut().bar.take()
        {
            bar.finish_and_clear();
        }
    }
}

thread_local! {
    /// The deadline of the work on this thread, if any ([`set_thread_deadline`]).
    static THREAD_DEADLINE: std::cell::Cell<Option<Instant>> = const { std::cell::Cell::new(None) };
}

/// Give the work on this thread a deadline (the web server's: the request's), or none. Work
/// that may go long between two [`Progress::tick`]s (a script call, every operation) looks at
/// it with [`past_thread_deadline`] now and then, so that the thread is free again by the
/// deadline.
pub fn set_thread_deadline(at: Option<Instant>) {
    THREAD_DEADLINE.with(|d| d.set(at));
}

/// Has this thread's deadline passed? With no deadline, one read of a thread-local.
pub fn past_thread_deadline() -> bool {
    THREAD_DEADLINE.with(|d| d.get()).is_some_and(|at| Instant::now() >= at)
}

/// Set when the work is done ([`Progress::finish`]): the answer is being printed.
static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set when a [`Progress::tick`] has reported the time limit: the work is stopping.
static STOPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The time limit of a whole command, held by the clock rather than by the work: a thread
/// that ends the process with the time-limit error (exit status 1) once `limit` and a grace
/// of a tenth of it (at most 0.3 s) have passed since this call. The work's own checks
/// ([`Progress::tick`]) stop it first wherever they are made; this catches every loop that
/// makes none (parsing a huge position, a native module's closed form, a sum's parts, a
/// database export). Where a check did stop the work on time, the work gets two seconds more
/// to leave with its own message (it may be freeing large tables or joining threads). For one-shot commands only (the web server has its own per-request
/// deadline); a second call does nothing.
pub fn enforce(limit: Duration) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let grace = (limit / 10).min(Duration::from_millis(300));
        let at = Instant::now() + limit + grace;
        let spawned = std::thread::Builder::new().name("time-limit".into()).spawn(move || {
            let wait_until = |at: Instant| {
                loop {
                    let now = Instant::now();
                    if now >= at {
                        break;
                    }
                    std::thread::sleep(at - now);
                }
            };
            wait_until(at);
            if DONE.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if STOPPED.load(std::sync::atomic::Ordering::Relaxed) {
                // The work stopped itself on time and is on its way out with its own
                // message (freeing its tables, joining its threads): a last while for that.
                wait_until(at + Duration::from_secs(2));
                if DONE.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
            }
            eprintln!(
                "gamesman: error: the time limit of {} ran out (--time-limit); nothing was decided yet",
                seconds(limit)
            );
            std::process::exit(1);
        });
        // Without the thread, the work's own checks still hold the limit where they are made.
        drop(spawned);
    });
}

/// "5 s", "0.5 s".
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0} s") } else { format!("{s} s") }
}

#[cfg(test)]
mod rate_tests {
    #[test]
    fn a_slow_rate_is_not_zero() {
        assert_eq!(super::per_second(850.0), "850/s");
        assert_eq!(super::per_second(12_500.0), "12.5k/s");
        assert_eq!(super::per_second(3_200_000.0), "3.2M/s");
    }
}
