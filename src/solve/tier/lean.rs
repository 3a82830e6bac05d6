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
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU16};

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
/// Indices are 64-bit. Only levels a record was written at are read. A win or loss at the
/// largest remoteness a record holds (4095) is refused, and ties stop there, as in the
/// whole solve.
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
    let children_of = super::load_children(space, tier, child)?;
    phases.end("load");
    let recs = super::passes::new_records(n)?;
    let left: Vec<AtomicU8> = std::iter::repeat_with(|| AtomicU8::new(0)).take(recs.len()).collect();
    // The levels a win or loss (0), and a tie (1), was written at: the levels read.
    let present: [Vec<AtomicBool>; 2] =
        std::array::from_fn(|_| (0..=MAX_REMOTENESS).map(|_| AtomicBool::new(false)).collect());
    let mark = |r: Rec| {
        let phase = match unrec(r & !PENDING) {
            Some((Value::Win, _)) => 0,
            Some((Value::Lose, _)) if r & PENDING == 0 => 0,
            Some((Value::Tie, _)) => 1,
            _ => return,
        };
        present[phase][(r & 0xfff) as usize].store(true, Relaxed);
    };
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
            let set = |i: u32, r: Rec| {
                mark(r);
                recs[base + i as usize].store(r, Relaxed);
            };
            for &(i, r) in &ch.decided {
                set(i, r);
            }
            for &(i, same, blocked, w) in &ch.waiting {
                left[base + i as usize].store(same | if blocked { 0x80 } else { 0 }, Relaxed);
                if !blocked && w > 0 {
                    set(i, pending(Value::Lose, (w as u32).min(MAX_REMOTENESS)));
                }
            }
            for &(l, i) in &ch.tie_events {
                set(i, pending(Value::Tie, (l + 1).min(MAX_REMOTENESS)));
            }
            for &(l, i) in &ch.lose_events {
                set(i, pending(Value::Win, (l + 1).min(MAX_REMOTENESS)));
            }
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
    // The parents of `p` (at `level`, a loss when `lost`) told: a win (a tie) one slower, or
    // one child fewer to wait for, and a loss once none is left.
    let visit = |p: usize, level: u32, ties: bool, lost: bool, buf: &mut Vec<u64>, scratch: &mut Vec<(Tier, u64)>| {
        let next = (level + 1).min(MAX_REMOTENESS);
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
                if claim(slot, value, next) {
                    mark(rec(value, next));
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
                let r = (level + 1).max(w);
                if r > MAX_REMOTENESS {
                    return Err(too_far());
                }
                slot.store(rec(Value::Lose, r), Relaxed);
                mark(rec(Value::Lose, r));
            }
        }
        Ok(())
    };
    for ties in [false, true] {
        for level in 0..=MAX_REMOTENESS {
            if !present[ties as usize][level as usize].load(Relaxed) {
                continue;
            }
            // The last level a record holds: a win or loss there is refused (as the whole
            // solve does); the ties there tell their parents, whose ties stay at it.
            let at = |p: usize| level_of(recs[p].load(Relaxed), ties) == Some(level);
            if level == MAX_REMOTENESS {
                let here: Vec<usize> = (0..recs.len()).into_par_iter().filter(|&p| at(p)).collect();
                if !ties && !here.is_empty() {
                    return Err(too_far());
                }
                for &p in &here {
                    recs[p].fetch_and(!PENDING, Relaxed);
                }
                here.par_iter().try_for_each_init(
                    || (Vec::new(), Vec::new()),
                    |(buf, scratch), &p| visit(p, level, ties, false, buf, scratch),
                )?;
                break;
            }
            (0..chunks).into_par_iter().try_for_each_init(
                || (Vec::new(), Vec::new()),
                |(buf, scratch), c| -> GameResult<()> {
                    for (p, slot) in recs.iter().enumerate().skip(c * CHUNK).take(CHUNK) {
                        if level_of(slot.load(Relaxed), ties) != Some(level) {
                            continue;
                        }
                        // A pending win or tie at the level read is final.
                        let r = slot.fetch_and(!PENDING, Relaxed);
                        let lost = !ties && (r & !PENDING) >> 12 == 2;
                        visit(p, level, ties, lost, buf, scratch)?;
                    }
                    Ok(())
                },
            )?;
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
