//! Timing for `gamesman bench`: the best of several runs.

use anyhow::Result;
use std::time::Instant;

/// Best time of `repeat` runs of `f` (each returns the time it measured), and what the last
/// run returned.
pub fn best<T>(repeat: u32, mut f: impl FnMut() -> Result<(f64, T)>) -> Result<(f64, T)> {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..repeat.max(1) {
        let (t, o) = f()?;
        out = Some(o);
        best = best.min(t);
    }
    Ok((best, out.expect("ran at least once")))
}

/// Run `f` and time it.
pub fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(f64, T)> {
    let started = Instant::now();
    let out = f()?;
    Ok((started.elapsed().as_secs_f64(), out))
}
