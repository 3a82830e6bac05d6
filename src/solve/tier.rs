//! The tier solver: a game with tiers ([`crate::game::tier`]) solved whole, one tier at a
//! time, into the array database ([`crate::db::array`]).
//!
//! The tiers are solved leaves first (a tier after every tier it moves to). Inside a tier:
//!
//! 1. **Scan** (on every core): each representative position (symmetry:
//!    [`TierSpace::canonical_index`]) is either primitive, or has children. A child in another
//!    tier is already solved: its record is read from that tier's array, loaded from the
//!    database for this tier and dropped after. A child in the same tier is an edge of the
//!    tier's graph, kept reversed (parent lists, as indices).
//! 2. **Retrograde analysis**, level by level of remoteness, with a counter of undecided
//!    children a position: a loss found at remoteness r makes its undecided parents wins at
//!    r + 1; a win decrements its parents' counters, and a parent whose children are all
//!    wins is a loss one move slower than its slowest child. Children in other tiers enter
//!    at their own level. Then ties, the same way; what is left goes round in circles: a
//!    draw.
//! 3. **Write** the tier's array (under a temporary name, then renamed). Only representatives
//!    have records; the other indices hold 0 (no record), which compresses to almost nothing:
//!    a lookup reads the record of the position's representative.
//!
//! A tier whose array is already saved is not solved again, so a killed solve resumes at the
//! first tier left unsolved. The solver knows nothing of any particular game.

use crate::db::array::{ArrayDb, MAX_REMOTENESS, Rec, rec, unrec};
use crate::game::tier::{Tier, TierSpace, tier_order};
use crate::game::{GameError, GameResult, Value};
use crate::progress::Progress;
use rayon::prelude::*;
use std::collections::HashMap;

/// What a tier solve did.
#[derive(Clone, Debug, Default)]
pub struct TierStats {
    /// Tiers reachable from the root's tier.
    pub tiers: usize,
    /// Tiers solved in this run (the rest were saved before).
    pub solved: usize,
    /// Positions (indices) of every tier, symmetric ones included.
    pub positions: u64,
    /// Representatives solved in this run.
    pub representatives: u64,
    /// Bytes the arrays take on disk.
    pub bytes: u64,
}

/// Positions a scan job takes at once.
const CHUNK: usize = 1 << 14;

/// Environment variable: stop after solving this many tiers (to test resuming).
pub const STOP_AFTER_ENV: &str = "GAMESMAN_STOP_AFTER_TIERS";

/// Solve every tier reachable from `root` into `db` (skipping tiers saved already).
pub fn solve(space: &dyn TierSpace, root: Tier, db: &ArrayDb, progress: &Progress) -> GameResult<TierStats> {
    let order = tier_order(space, root);
    if let Some(e) = space.failure() {
        return Err(e);
    }
    // A tier must come after every tier it moves to: a game whose child tiers go round in a
    // circle (a script's `child_tiers`) is refused before anything is solved.
    let place: HashMap<Tier, usize> = order.iter().enumerate().map(|(k, &t)| (t, k)).collect();
    for (k, &t) in order.iter().enumerate() {
        if let Some(&c) = space.child_tiers(t).iter().find(|c| place.get(c).is_some_and(|&j| j >= k)) {
            return Err(GameError::Definition(format!(
                "the tiers go round in a circle: tier {} moves to tier {}, which moves back to it (child tiers \
                 must never lead back)",
                space.tier_name(t),
                space.tier_name(c)
            )));
        }
    }
    let stop_after: Option<usize> = std::env::var(STOP_AFTER_ENV).ok().and_then(|v| v.trim().parse().ok());
    let mut stats = TierStats { tiers: order.len(), ..TierStats::default() };
    for &tier in &order {
        stats.positions += space.tier_size(tier);
        if db.has(tier)? {
            continue;
        }
        if stop_after.is_some_and(|k| stats.solved >= k) {
            return Err(GameError::Unsupported(format!(
                "stopped after {} tiers, as {STOP_AFTER_ENV} asks (run again to resume)",
                stats.solved
            )));
        }
        if progress.expired() {
            return Err(GameError::TimeLimit(format!(
                "the time limit ran out after {} of {} tiers (the solved tiers are saved: run again to resume)",
                order.iter().take_while(|&&t| db.has(t).unwrap_or(false)).count(),
                order.len()
            )));
        }
        let (records, reps) = solve_tier(space, tier, &mut |c| Ok(db.load(c)?))?;
        db.write(tier, &records)?;
        stats.representatives += reps;
        stats.solved += 1;
        progress.tick(stats.representatives, 0)?;
    }
    stats.bytes = db.bytes();
    Ok(stats)
}

/// What the scan learns of one position from its children in other tiers.
#[derive(Default)]
struct Outside {
    lose_min: Option<u32>,
    tie_min: Option<u32>,
    /// One more than the slowest win (0: no child in another tier).
    win_max1: u32,
    draw: bool,
}

/// Solve one tier, given the records of each of its child tiers (`child`, asked once a child
/// tier): its records, and how many representatives it has. The one-process solver reads the
/// child tiers from the database; the MPI solver (`tier_mpi`, with the feature `mpi`) from what
/// the manager sent.
pub fn solve_tier(
    space: &dyn TierSpace,
    tier: Tier,
    child: &mut dyn FnMut(Tier) -> GameResult<Vec<Rec>>,
) -> GameResult<(Vec<Rec>, u64)> {
    let size = space.tier_size(tier);
    if size > u32::MAX as u64 {
        return Err(GameError::OutOfMemory(format!(
            "tier {} has {size} positions, more than the tier solver indexes (2^32)",
            space.tier_name(tier)
        )));
    }
    let n = size as usize;
    // The child tiers' arrays, for this tier only.
    let mut children_of: HashMap<Tier, Vec<Rec>> = HashMap::new();
    for c in space.child_tiers(tier) {
        children_of.insert(c, child(c)?);
    }
    let name = space.tier_name(tier);
    if let Some(e) = space.failure() {
        return Err(e);
    }

    // 1. Scan.
    struct Chunk {
        /// (parent, child) edges inside the tier.
        edges: Vec<(u32, u32)>,
        /// (index, record) decided by the scan: primitives, stalemates, and positions all of
        /// whose children are in other tiers and are wins.
        decided: Vec<(u32, Rec)>,
        /// (index, same-tier children, blocked, win_max1): positions waiting on the tier.
        waiting: Vec<(u32, u8, bool, u16)>,
        /// (level, index): a losing child in another tier at that level.
        lose_events: Vec<(u32, u32)>,
        tie_events: Vec<(u32, u32)>,
        reps: u64,
        error: Option<String>,
    }
    let chunks: Vec<Chunk> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut out = Chunk {
                edges: Vec::new(),
                decided: Vec::new(),
                waiting: Vec::new(),
                lose_events: Vec::new(),
                tie_events: Vec::new(),
                reps: 0,
                error: None,
            };
            let mut kids = Vec::with_capacity(64);
            for i in (c * CHUNK) as u64..((c + 1) * CHUNK).min(n) as u64 {
                if space.canonical_index(tier, i) != i {
                    continue;
                }
                out.reps += 1;
                let i32_ = i as u32;
                if let Some(v) = space.primitive_at(tier, i) {
                    out.decided.push((i32_, rec(v, 0)));
                    continue;
                }
                kids.clear();
                space.children_at(tier, i, &mut kids);
                if kids.is_empty() {
                    out.decided.push((i32_, rec(space.stalemate_value(), 0)));
                    continue;
                }
                let mut same = 0u32;
                let mut o = Outside::default();
                for &(t, j) in &kids {
                    if t == tier {
                        out.edges.push((i32_, j as u32));
                        same += 1;
                        continue;
                    }
                    let Some(arr) = children_of.get(&t) else {
                        out.error = Some(format!("a move from tier {name} goes to a tier it does not list ({t:x})"));
                        return out;
                    };
                    let Some((v, r)) = arr.get(j as usize).and_then(|&r| unrec(r)) else {
                        out.error = Some(format!("a child of tier {name} is missing from tier {t:x}"));
                        return out;
                    };
                    let r = r.unwrap_or(0);
                    match v {
                        Value::Lose => o.lose_min = Some(o.lose_min.map_or(r, |m| m.min(r))),
                        Value::Tie => o.tie_min = Some(o.tie_min.map_or(r, |m| m.min(r))),
                        Value::Win => o.win_max1 = o.win_max1.max(r + 1),
                        Value::Draw => o.draw = true,
                    }
                }
                // The counter keeps its top bit for "blocked" (a child elsewhere that is not a win).
                if same > 0x7f {
                    out.error = Some(format!("a position of tier {name} has more than 127 moves within its tier"));
                    return out;
                }
                if let Some(l) = o.lose_min {
                    out.lose_events.push((l, i32_));
                }
                if let Some(t) = o.tie_min {
                    out.tie_events.push((t, i32_));
                }
                let blocked = o.lose_min.is_some() || o.tie_min.is_some() || o.draw;
                if same == 0 && !blocked {
                    out.decided.push((i32_, rec(Value::Lose, o.win_max1)));
                } else {
                    out.waiting.push((i32_, same as u8, blocked, o.win_max1 as u16));
                }
            }
            out
        })
        .collect();
    drop(children_of);
    if let Some(e) = space.failure() {
        return Err(e);
    }
    if let Some(e) = chunks.iter().find_map(|c| c.error.clone()) {
        return Err(GameError::Definition(e));
    }

    // The tier's state: records (0: undecided), counters of undecided same-tier children
    // (the top bit: never a loss), and the slowest outside win (+1) a waiting position has.
    let mut recs: Vec<Rec> = vec![0; n];
    let mut left: Vec<u8> = vec![0; n];
    let mut win_max1: HashMap<u32, u16> = HashMap::new();
    let mut levels: Vec<Vec<u32>> = Vec::new();
    let mut lose_at: Vec<Vec<u32>> = Vec::new();
    let mut tie_at: Vec<Vec<u32>> = Vec::new();
    let push = |v: &mut Vec<Vec<u32>>, level: u32, i: u32| {
        let l = level as usize;
        if v.len() <= l {
            v.resize_with(l + 1, Vec::new);
        }
        v[l].push(i);
    };
    let mut reps = 0;
    let mut ties: Vec<Vec<u32>> = Vec::new();
    let mut edge_count = 0usize;
    let mut waiting: Vec<u32> = Vec::new();
    for c in &chunks {
        waiting.extend(c.waiting.iter().map(|w| w.0));
        reps += c.reps;
        edge_count += c.edges.len();
        for &(i, r) in &c.decided {
            recs[i as usize] = r;
            let (v, rem) = unrec(r).expect("a record");
            match v {
                Value::Tie => push(&mut ties, 0, i),
                _ => push(&mut levels, rem.unwrap_or(0), i),
            }
        }
        for &(i, same, blocked, w) in &c.waiting {
            left[i as usize] = same | if blocked { 0x80 } else { 0 };
            if w > 0 {
                win_max1.insert(i, w);
            }
        }
        for &(l, i) in &c.lose_events {
            push(&mut lose_at, l, i);
        }
        for &(l, i) in &c.tie_events {
            push(&mut tie_at, l, i);
        }
    }
    // The reversed edges, as compressed rows: the parents of j are
    // parents[start[j]..start[j + 1]].
    let mut start: Vec<u32> = vec![0; n + 1];
    for c in &chunks {
        for &(_, j) in &c.edges {
            start[j as usize + 1] += 1;
        }
    }
    for j in 0..n {
        start[j + 1] += start[j];
    }
    let mut parents: Vec<u32> = vec![0; edge_count];
    {
        let mut fill = start.clone();
        for c in &chunks {
            for &(i, j) in &c.edges {
                parents[fill[j as usize] as usize] = i;
                fill[j as usize] += 1;
            }
        }
    }
    drop(chunks);

    // 2. Wins and losses, level by level.
    let too_far = || {
        GameError::Unsupported(format!("a remoteness in tier {name} passes {MAX_REMOTENESS}, more than a record holds"))
    };
    let mut level = 0usize;
    while level < levels.len() || level < lose_at.len() {
        if level as u32 >= MAX_REMOTENESS {
            return Err(too_far());
        }
        let next = level as u32 + 1;
        if let Some(list) = lose_at.get_mut(level).map(std::mem::take) {
            for i in list {
                if recs[i as usize] == 0 {
                    recs[i as usize] = rec(Value::Win, next);
                    push(&mut levels, next, i);
                }
            }
        }
        let here = levels.get_mut(level).map(std::mem::take).unwrap_or_default();
        for &p in &here {
            let lost = unrec(recs[p as usize]).map(|(v, _)| v) == Some(Value::Lose);
            for &q in &parents[start[p as usize] as usize..start[p as usize + 1] as usize] {
                let qi = q as usize;
                if recs[qi] != 0 {
                    continue;
                }
                if lost {
                    recs[qi] = rec(Value::Win, next);
                    push(&mut levels, next, q);
                } else {
                    left[qi] -= 1;
                    if left[qi] == 0 {
                        let r = next.max(win_max1.get(&q).copied().unwrap_or(0) as u32);
                        if r > MAX_REMOTENESS {
                            return Err(too_far());
                        }
                        recs[qi] = rec(Value::Lose, r);
                        push(&mut levels, r, q);
                    }
                }
            }
        }
        level += 1;
    }
    // 3. Ties, level by level; the undecided that reach no tie are draws.
    let mut level = 0usize;
    while level < ties.len() || level < tie_at.len() {
        let next = (level as u32 + 1).min(MAX_REMOTENESS);
        if let Some(list) = tie_at.get_mut(level).map(std::mem::take) {
            for i in list {
                if recs[i as usize] == 0 {
                    recs[i as usize] = rec(Value::Tie, next);
                    push(&mut ties, next, i);
                }
            }
        }
        let here = ties.get_mut(level).map(std::mem::take).unwrap_or_default();
        for &p in &here {
            for &q in &parents[start[p as usize] as usize..start[p as usize + 1] as usize] {
                if recs[q as usize] == 0 {
                    recs[q as usize] = rec(Value::Tie, next);
                    push(&mut ties, next, q);
                }
            }
        }
        level += 1;
    }
    drop((parents, start, left, win_max1));
    // What is left undecided goes round in circles: a draw.
    let draw = rec(Value::Draw, 0);
    for i in waiting {
        if recs[i as usize] == 0 {
            recs[i as usize] = draw;
        }
    }
    Ok((recs, reps))
}
