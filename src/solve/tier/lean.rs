//! A tier that a move may stay in, of a game that gives parent positions, solved by the
//! retrograde analysis in 3 bytes an index ([`solve_tier_lean`]): its records (2 bytes) and
//! its counters of undecided children (1 byte), and no lists.
//!
//! What the whole solve keeps in lists is kept in the records themselves until it is final:
//! a **pending** record (top bit set) is a win at r (a losing child in another tier at
//! r − 1), a tie at r (a tying child there) or, for a position that may yet be a loss, the
//! slowest win among its children in other tiers (one more). A level's positions are found
//! by reading every record, on every core, instead of from a list; a pending win or tie at
//! the level read is final then.

use super::{CHUNK, Phases, TierOptions, scan_chunk};
use crate::db::array::{MAX_REMOTENESS, Rec, TierArray, rec, unrec};
use crate::game::tier::{Tier, TierSpace};
use crate::game::{GameError, GameResult, Value};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32};

/// The bit of a pending record (a record's value is 1 to 4 in bits 12–14).
const PENDING: Rec = 0x8000;

/// Bytes an index the lean solve holds besides the child tiers' arrays.
pub const LEAN_BYTES_AN_INDEX: u64 = 3;

fn pending(value: Value, r: u32) -> Rec {
    PENDING | rec(value, r)
}

/// A pending record's value and remoteness, or `None` for one that is not pending.
fn pended(r: Rec) -> Option<(Value, u32)> {
    (r & PENDING != 0).then(|| unrec(r & !PENDING).map(|(v, x)| (v, x.unwrap_or(0)))).flatten()
}

/// Whether `r` is a value found for good.
fn is_final(r: Rec) -> bool {
    r != 0 && r & PENDING == 0
}

/// Make the slot `value` at `r` unless it is final, or pending at least as good for the same
/// value (a win or tie no slower): whether it changed. A pending win stays against a tie.
fn claim(slot: &AtomicU16, value: Value, r: u32) -> bool {
    let new = rec(value, r);
    slot.fetch_update(Relaxed, Relaxed, |cur| match pended(cur) {
        _ if cur == 0 => Some(new),
        None => None,
        Some((v, x)) if v == value && x <= r => None,
        Some((Value::Win, _)) if value == Value::Tie => None,
        Some(_) => Some(new),
    })
    .is_ok()
}

/// Solve `tier` (its game gives parents; no Grundy values) given its child tiers' arrays: its
/// records and how many representatives it has. The records are those of
/// [`super::solve_tier_full`], for any number of threads: a level's outcome does not depend
/// on the order its positions are taken in (as there), and a position's level is the same.
/// Indices are 64-bit. A win, loss or tie at the largest remoteness a record holds is refused.
pub fn solve_tier_lean(
    space: &dyn TierSpace,
    tier: Tier,
    child: &mut dyn FnMut(Tier) -> GameResult<TierArray>,
) -> GameResult<(Vec<Rec>, u64)> {
    let opts = TierOptions { parents: true, ..TierOptions::default() };
    let n = space.tier_size(tier);
    let name = space.tier_name(tier);
    let too_far = || {
        GameError::Unsupported(format!("a remoteness in tier {name} passes {MAX_REMOTENESS}, more than a record holds"))
    };
    let mut phases = Phases::new(|| format!("tier {name}: {n} indices, 3 bytes each"));
    let mut children_of: HashMap<Tier, TierArray> = HashMap::new();
    for c in space.child_tiers(tier) {
        children_of.insert(c, child(c)?);
    }
    if let Some(e) = space.failure() {
        return Err(e);
    }
    phases.end("load");
    let recs = super::passes::new_records(n)?;
    let left: Vec<AtomicU8> = std::iter::repeat_with(|| AtomicU8::new(0)).take(recs.len()).collect();
    // The highest level of a win or loss, and of a tie, that a record holds or waits for.
    let top = [AtomicU32::new(0), AtomicU32::new(0)];
    let chunks = recs.len().div_ceil(CHUNK);
    // The scan: each chunk's findings written into the arrays at once, then dropped.
    let reps: u64 = (0..chunks)
        .into_par_iter()
        .map(|c| -> GameResult<u64> {
            let ch = scan_chunk(space, tier, opts, &children_of, &name, c);
            if let Some(e) = ch.error {
                return Err(GameError::Definition(e));
            }
            let base = ch.base as usize;
            let mut high = [0, 0];
            let mut set = |i: u32, r: Rec| {
                match unrec(r & !PENDING) {
                    Some((Value::Win, Some(x))) => high[0] = high[0].max(x),
                    Some((Value::Lose, Some(x))) if r & PENDING == 0 => high[0] = high[0].max(x),
                    Some((Value::Tie, Some(x))) => high[1] = high[1].max(x),
                    _ => {}
                }
                recs[base + i as usize].store(r, Relaxed);
            };
            for &(i, r) in &ch.decided {
                if matches!(unrec(r), Some((Value::Win | Value::Lose, Some(x))) if x >= MAX_REMOTENESS) {
                    return Err(too_far());
                }
                set(i, r);
            }
            for &(i, same, blocked, w) in &ch.waiting {
                left[base + i as usize].store(same | if blocked { 0x80 } else { 0 }, Relaxed);
                if !blocked && w > 0 {
                    if w as u32 >= MAX_REMOTENESS {
                        return Err(too_far());
                    }
                    set(i, pending(Value::Lose, w as u32));
                }
            }
            for &(l, i) in &ch.tie_events {
                set(i, pending(Value::Tie, (l + 1).min(MAX_REMOTENESS)));
            }
            for &(l, i) in &ch.lose_events {
                if l + 1 >= MAX_REMOTENESS {
                    return Err(too_far());
                }
                set(i, pending(Value::Win, l + 1));
            }
            top[0].fetch_max(high[0], Relaxed);
            top[1].fetch_max(high[1], Relaxed);
            Ok(ch.reps)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    if let Some(e) = space.failure() {
        return Err(e);
    }
    drop(children_of);
    phases.end("scan");
    let level_of = |r: Rec, ties: bool| -> Option<u32> {
        let (v, x) = unrec(r & !PENDING)?;
        let pend = r & PENDING != 0;
        match v {
            Value::Tie if ties => Some(x.unwrap_or(0)),
            Value::Win if !ties => Some(x.unwrap_or(0)),
            Value::Lose if !ties && !pend => Some(x.unwrap_or(0)),
            _ => None,
        }
    };
    for ties in [false, true] {
        let top = &top[ties as usize];
        let mut level = 0u32;
        while level <= top.load(Relaxed) {
            if level >= MAX_REMOTENESS {
                return Err(too_far());
            }
            let next = level + 1;
            (0..chunks).into_par_iter().try_for_each_init(
                || (Vec::<u64>::new(), Vec::<(Tier, u64)>::new()),
                |(buf, scratch), c| -> GameResult<()> {
                    for p in c * CHUNK..((c + 1) * CHUNK).min(recs.len()) {
                        let r = recs[p].load(Relaxed);
                        if level_of(r, ties) != Some(level) {
                            continue;
                        }
                        // A pending win or tie at the level read is final.
                        if r & PENDING != 0 {
                            recs[p].fetch_and(!PENDING, Relaxed);
                        }
                        let lost = !ties && (r & !PENDING) >> 12 == 2;
                        scratch.clear();
                        space.parents_at(tier, p as u64, scratch);
                        buf.clear();
                        buf.extend(scratch.iter().filter(|&&(t, _)| t == tier).map(|&(_, i)| i));
                        buf.sort_unstable();
                        buf.dedup();
                        for &q in buf.iter() {
                            let Some(slot) = recs.get(q as usize) else {
                                return Err(not_a_parent(&name, q, p));
                            };
                            let now = slot.load(Relaxed);
                            if is_final(now) {
                                continue;
                            }
                            if ties || lost {
                                let value = if ties { Value::Tie } else { Value::Win };
                                if next >= MAX_REMOTENESS {
                                    return Err(too_far());
                                }
                                if claim(slot, value, next) {
                                    top.fetch_max(next, Relaxed);
                                }
                                continue;
                            }
                            let before = left[q as usize].fetch_sub(1, Relaxed);
                            if before & 0x7f == 0 {
                                return Err(not_a_parent(&name, q, p));
                            }
                            if before == 1 {
                                // Every child is a win: a loss one slower than the slowest.
                                let w = match pended(now) {
                                    Some((Value::Lose, w)) => w,
                                    _ => 0,
                                };
                                let r = next.max(w);
                                if r >= MAX_REMOTENESS {
                                    return Err(too_far());
                                }
                                slot.store(rec(Value::Lose, r), Relaxed);
                                top.fetch_max(r, Relaxed);
                            }
                        }
                    }
                    Ok(())
                },
            )?;
            level += 1;
        }
        phases.end(if ties { "ties" } else { "win-lose" });
    }
    // What is left undecided goes round in circles: a draw; an index with no counter and no
    // record is not a representative (0, no record).
    let draw = rec(Value::Draw, 0);
    recs.par_iter().zip(left.par_iter()).for_each(|(r, l)| {
        let v = r.load(Relaxed);
        if !is_final(v) && l.load(Relaxed) != 0 {
            r.store(draw, Relaxed);
        }
    });
    drop(left);
    let recs: Vec<Rec> = recs.into_iter().map(AtomicU16::into_inner).collect();
    phases.end("finish");
    phases.print();
    Ok((recs, reps))
}

fn not_a_parent(name: &str, q: u64, p: usize) -> GameError {
    GameError::Definition(format!(
        "tier {name}: the game lists index {q} as a parent of index {p} (parents_at), but it has no move to it \
         (children_at)"
    ))
}
