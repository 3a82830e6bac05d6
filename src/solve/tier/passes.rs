//! A tier that a move may stay in, solved in passes over its indices ([`solve_tier_passes`]):
//! no reversed edges, no counters, no lists of levels; only the tier's records (2 bytes an
//! index) and its child tiers' arrays are held. Each pass takes the tier a slice at a time,
//! each slice on every core, and asks the game for the children of every position still
//! undecided.

use super::{CHUNK, SLICE_MIN};
use crate::db::array::{MAX_REMOTENESS, Rec, TierArray, rec, unrec};
use crate::game::tier::{Tier, TierSpace};
use crate::game::{GameError, GameResult, Value};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::AtomicU16;
use std::sync::atomic::Ordering::Relaxed;

/// Marks an index that is not a representative while the tier is solved (never a record: a
/// record's value is 1 to 4 in the top 4 bits); written as 0.
const NOT_REP: Rec = 0xF000;

/// What one pass did.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Pass {
    /// Whether it decided a position.
    pub changed: bool,
    /// The largest remoteness of a losing (in the tie passes: tying) child it met.
    pub seen: u32,
    /// Representatives it met (the first pass).
    pub reps: u64,
}

impl Pass {
    pub fn join(self, o: Pass) -> Pass {
        Pass { changed: self.changed || o.changed, seen: self.seen.max(o.seen), reps: self.reps + o.reps }
    }
}

/// What a pass does with a position still undecided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Representatives and primitives marked.
    First,
    /// Wins and losses: a position with a losing child at remoteness r ≤ s is a win in r + 1;
    /// one all of whose children are wins is a loss one more than the slowest.
    WinLose(u32),
    /// Ties: a position with a tying child at remoteness r ≤ s is a tie in r + 1.
    Tie(u32),
}

/// The order of the passes: the first, then win-loss passes s = 0, 1, 2, … until one
/// decides nothing and s has reached every losing child's remoteness it met, then the tie
/// passes the same way. Given what each pass did (over the whole tier), it says which pass
/// comes next, or that none does (what is left undecided is a draw).
pub fn next_stage(done: Stage, p: Pass) -> Option<Stage> {
    match done {
        Stage::First => Some(Stage::WinLose(0)),
        Stage::WinLose(s) if p.changed || s < p.seen => Some(Stage::WinLose(s + 1)),
        Stage::WinLose(_) => Some(Stage::Tie(0)),
        Stage::Tie(s) if p.changed || s < p.seen => Some(Stage::Tie(s + 1)),
        Stage::Tie(_) => None,
    }
}

/// Solve `tier` in passes over slices of `slice` indices (a multiple of [`SLICE_MIN`]),
/// handing its records to `sink` in order once solved: how many representatives it has.
///
/// After a first pass (representatives and primitives), pass s = 0, 1,
/// 2, … decides every undecided position that has a losing child at remoteness at most s (a
/// win one slower than its fastest losing child) or whose children are all wins (a loss one
/// slower than its slowest winning child), until a pass decides nothing and s has reached
/// every losing child's remoteness; then ties the same way; what is left goes round in
/// circles and is a draw. By pass s every win and loss of remoteness at most s is decided, so
/// the fastest losing child is known when the win is taken, and a decision seen early in a
/// pass (by a position after it) changes nothing: the records are those of the retrograde
/// analysis ([`super::solve_tier_full`]) for any number of threads and any slice, and the file
/// the same byte for byte. The same holds for a tier split across MPI workers, each passing
/// over its part and seeing the others' decisions one pass late: a win or loss of remoteness
/// r is still decided by pass r and seen by the next, before any win that its loss makes
/// faster can be taken, and a pass in which no part decides anything saw the whole tier. The price: every pass asks the game again for the
/// children of the positions still undecided.
pub fn solve_tier_passes(
    space: &dyn TierSpace,
    tier: Tier,
    slice: u64,
    child: &mut dyn FnMut(Tier) -> GameResult<TierArray>,
    sink: &mut dyn FnMut(&[Rec]) -> GameResult<()>,
) -> GameResult<u64> {
    if slice == 0 || !slice.is_multiple_of(SLICE_MIN) {
        return Err(GameError::Unsupported(format!("a slice of {slice} indices is not a multiple of {SLICE_MIN}")));
    }
    let n = space.tier_size(tier);
    let name = space.tier_name(tier);
    let mut phases = super::Phases::new(|| format!("tier {name}: {n} indices in passes of slices of {slice}"));
    let children_of = super::load_children(space, tier, child)?;
    phases.end("load");
    let recs = new_records(n)?;
    let ctx = Ctx { space, tier, name: &name, recs: &recs, children_of: &children_of };
    let mut stage = Stage::First;
    let mut reps = 0;
    loop {
        let p = ctx.pass(stage, 0..n, slice)?;
        reps += p.reps;
        let next = next_stage(stage, p);
        match (stage, next) {
            (Stage::First, _) => phases.end("first"),
            (Stage::WinLose(s), Some(Stage::Tie(_))) => phases.end(&format!("win-lose ({} passes)", s + 1)),
            (Stage::Tie(s), None) => phases.end(&format!("ties ({} passes)", s + 1)),
            _ => {}
        }
        match next {
            Some(n) => stage = n,
            None => break,
        }
    }
    drop(children_of);
    let recs = finish_records(recs);
    for part in recs.chunks(slice as usize) {
        sink(part)?;
    }
    phases.end("write");
    phases.print();
    Ok(reps)
}

/// The records of a tier of `n` indices solved in passes, all undecided.
pub fn new_records(n: u64) -> GameResult<Vec<AtomicU16>> {
    let len = usize::try_from(n)
        .map_err(|_| GameError::OutOfMemory(format!("a tier of {n} positions, more than this machine addresses")))?;
    Ok(std::iter::repeat_with(|| AtomicU16::new(0)).take(len).collect())
}

/// A record once the passes are done: what is left undecided is a draw, and the mark of an
/// index that is not a representative goes (0, no record).
pub fn finished(r: Rec) -> Rec {
    match r {
        0 => rec(Value::Draw, 0),
        NOT_REP => 0,
        r => r,
    }
}

/// Every record once the passes are done ([`finished`]).
pub fn finish_records(recs: Vec<AtomicU16>) -> Vec<Rec> {
    recs.par_iter().for_each(|r| r.store(finished(r.load(Relaxed)), Relaxed));
    // The same allocation, its atomics taken as plain records.
    recs.into_iter().map(AtomicU16::into_inner).collect()
}

/// Whether a record set by a pass is a decision (a value), not a mark.
pub fn is_decided(r: Rec) -> bool {
    r != 0 && r != NOT_REP
}

/// What every pass reads: the tier, its records (all of them: a pass over part of the tier
/// reads the rest as the other parts' passes left it), and its child tiers' arrays.
pub struct Ctx<'a> {
    pub space: &'a dyn TierSpace,
    pub tier: Tier,
    pub name: &'a str,
    pub recs: &'a [AtomicU16],
    pub children_of: &'a HashMap<Tier, TierArray>,
}

impl Ctx<'_> {
    /// One pass (`stage`) over the indices `part`, `slice` indices at a time (a multiple of
    /// [`SLICE_MIN`]), each slice on every core.
    pub fn pass(&self, stage: Stage, part: std::ops::Range<u64>, slice: u64) -> GameResult<Pass> {
        let chunks = part.end.div_ceil(CHUNK as u64);
        let per = (slice / SLICE_MIN).max(1);
        let mut all = Pass::default();
        let mut first = part.start / CHUNK as u64;
        while first < chunks {
            let last = (first + per).min(chunks);
            let p = (first..last)
                .into_par_iter()
                .map_init(|| Vec::with_capacity(64), |kids, c| self.chunk(stage, c, &part, kids))
                .try_reduce(Pass::default, |a, b| Ok(a.join(b)))?;
            all = all.join(p);
            first = last;
        }
        if let Some(e) = self.space.failure() {
            return Err(e);
        }
        Ok(all)
    }

    /// One pass (`stage`) over the indices of chunk `c`.
    fn chunk(
        &self,
        stage: Stage,
        c: u64,
        part: &std::ops::Range<u64>,
        kids: &mut Vec<(Tier, u64)>,
    ) -> GameResult<Pass> {
        let (space, tier, name) = (self.space, self.tier, self.name);
        let too_far = || {
            GameError::Unsupported(format!(
                "a remoteness in tier {name} passes {MAX_REMOTENESS}, more than a record holds"
            ))
        };
        let n = space.tier_size(tier);
        let base = c * CHUNK as u64;
        let mut out = Pass::default();
        for i in base.max(part.start)..(base + CHUNK as u64).min(n).min(part.end) {
            let slot = &self.recs[i as usize];
            if let Stage::First = stage {
                if space.canonical_index(tier, i) != i {
                    slot.store(NOT_REP, Relaxed);
                    continue;
                }
                out.reps += 1;
                if let Some(v) = space.primitive_at(tier, i) {
                    slot.store(rec(v, 0), Relaxed);
                }
                continue;
            }
            if slot.load(Relaxed) != 0 {
                continue;
            }
            kids.clear();
            space.children_at(tier, i, kids);
            if kids.is_empty() {
                // No move (met in the first win-loss pass): decided at remoteness 0, which
                // changes no other position's record whether seen in this pass or the next.
                slot.store(rec(space.stalemate_value(), 0), Relaxed);
                out.changed = true;
                continue;
            }
            // The fastest losing (tying) child, the slowest win, whether every child is a win.
            let (mut lose_min, mut tie_min, mut win_max, mut all_win) = (u32::MAX, u32::MAX, 0u32, true);
            for &(t, j) in kids.iter() {
                let r = if t == tier {
                    // A child that is no representative stays undecided, as in the retrograde
                    // analysis.
                    self.recs.get(j as usize).map_or(0, |r| r.load(Relaxed))
                } else {
                    let Some(arr) = self.children_of.get(&t) else {
                        return Err(GameError::Definition(format!(
                            "a move from tier {name} goes to a tier it does not list ({t:x})"
                        )));
                    };
                    match arr.records.get(j as usize).copied().filter(|&r| unrec(r).is_some()) {
                        Some(r) => r,
                        None => {
                            return Err(GameError::Definition(format!(
                                "a child of tier {name} is missing from tier {t:x}"
                            )));
                        }
                    }
                };
                match unrec(r) {
                    Some((Value::Win, x)) => win_max = win_max.max(x.unwrap_or(0)),
                    Some((Value::Lose, x)) => {
                        lose_min = lose_min.min(x.unwrap_or(0));
                        all_win = false;
                    }
                    Some((Value::Tie, x)) => {
                        tie_min = tie_min.min(x.unwrap_or(0));
                        all_win = false;
                    }
                    _ => all_win = false,
                }
            }
            match stage {
                Stage::First => {}
                Stage::WinLose(s) => {
                    if lose_min != u32::MAX {
                        out.seen = out.seen.max(lose_min);
                    }
                    if lose_min <= s {
                        if lose_min + 1 >= MAX_REMOTENESS {
                            return Err(too_far());
                        }
                        slot.store(rec(Value::Win, lose_min + 1), Relaxed);
                        out.changed = true;
                    } else if all_win {
                        if win_max + 1 > MAX_REMOTENESS {
                            return Err(too_far());
                        }
                        slot.store(rec(Value::Lose, win_max + 1), Relaxed);
                        out.changed = true;
                    }
                }
                Stage::Tie(s) => {
                    if tie_min != u32::MAX {
                        out.seen = out.seen.max(tie_min);
                    }
                    if tie_min <= s {
                        slot.store(rec(Value::Tie, (tie_min + 1).min(MAX_REMOTENESS)), Relaxed);
                        out.changed = true;
                    }
                }
            }
        }
        Ok(out)
    }
}
