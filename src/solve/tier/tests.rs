//! The tier solver's tests: a small game solved whole and in slices against a second
//! evaluator of its rules, and the index arithmetic past 2^32.

use super::*;

/// A game of four tiers of 40,000 indices (three chunks of the scan, the last one short),
/// every move one tier up: index i of tier t < 3 moves to indices (7i + 1) and (13i + 5)
/// (mod 40,000) of tier t + 1; tier 3 is all primitives, by i mod 4 a loss, win, tie and
/// draw for the player to move. In tier 1 an odd index is the image of the even one below
/// it (symmetry), and in tier 2 an index that is 6 mod 10 has no moves (a stalemate).
struct Ladder;

const SIZE: u64 = 40_000;

impl TierSpace for Ladder {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        if tier < 3 { vec![tier + 1] } else { Vec::new() }
    }
    fn tier_size(&self, _tier: Tier) -> u64 {
        SIZE
    }
    fn tier_name(&self, tier: Tier) -> String {
        format!("rung {tier}")
    }
    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        if tier == 1 { index & !1 } else { index }
    }
    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        (tier == 3).then(|| [Value::Lose, Value::Win, Value::Tie, Value::Draw][(index % 4) as usize])
    }
    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        if tier == 2 && index % 10 == 6 {
            return;
        }
        for j in [(7 * index + 1) % SIZE, (13 * index + 5) % SIZE] {
            out.push((tier + 1, self.canonical_index(tier + 1, j)));
        }
    }
    fn moves_within(&self, _tier: Tier) -> bool {
        false
    }
}

/// Each tier of the ladder solved whole, leaves first.
fn whole() -> HashMap<Tier, Vec<Rec>> {
    let mut done: HashMap<Tier, Vec<Rec>> = HashMap::new();
    for t in (0..4).rev() {
        let (a, _) = solve_tier(&Ladder, t, &mut |c| Ok(done[&c].clone())).unwrap();
        done.insert(t, a);
    }
    done
}

/// The records of the ladder's tiers by the rules themselves, one position at a time
/// (a second implementation of the values the solvers must find).
fn by_hand(t: Tier, i: u64, below: &[Rec]) -> Rec {
    if let Some(v) = Ladder.primitive_at(t, i) {
        return rec(v, 0);
    }
    let mut kids = Vec::new();
    Ladder.children_at(t, i, &mut kids);
    if kids.is_empty() {
        return rec(Value::Lose, 0);
    }
    let seen: Vec<(Value, u32)> =
        kids.iter().map(|&(_, j)| unrec(below[j as usize]).map(|(v, r)| (v, r.unwrap_or(0))).unwrap()).collect();
    let of = |want: Value| seen.iter().filter(move |s| s.0 == want).map(|s| s.1);
    if let Some(r) = of(Value::Lose).min() {
        rec(Value::Win, r + 1)
    } else if let Some(r) = of(Value::Tie).min() {
        rec(Value::Tie, r + 1)
    } else if of(Value::Draw).next().is_some() {
        rec(Value::Draw, 0)
    } else {
        rec(Value::Lose, of(Value::Win).max().unwrap() + 1)
    }
}

#[test]
fn a_tier_in_slices_is_the_tier_solved_whole() {
    let whole = whole();
    for t in 0..3 {
        // The whole solve against the rules, position by position.
        for i in 0..SIZE {
            let want = if Ladder.canonical_index(t, i) == i { by_hand(t, i, &whole[&(t + 1)]) } else { 0 };
            assert_eq!(whole[&t][i as usize], want, "rung {t}, index {i}");
        }
        // In slices of one chunk, two, and more than the tier.
        for slice in [SLICE_MIN, 2 * SLICE_MIN, 4 * SLICE_MIN] {
            let mut got: Vec<Rec> = Vec::new();
            let mut sizes = Vec::new();
            let reps = solve_tier_sliced(
                &Ladder,
                t,
                TierOptions::default(),
                slice,
                &mut |c| Ok(TierArray { records: whole[&c].clone(), grundy: None }),
                &mut |r| {
                    sizes.push(r.len() as u64);
                    got.extend_from_slice(r);
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(got, whole[&t], "rung {t} in slices of {slice}");
            assert_eq!(sizes.len() as u64, SIZE.div_ceil(slice), "slices of {slice}");
            assert!(sizes.iter().all(|&s| s <= slice));
            assert_eq!(reps, if t == 1 { SIZE / 2 } else { SIZE });
        }
    }
    // Every kind of record is met (the test covers each rule).
    let kinds: std::collections::HashSet<Value> =
        whole.values().flatten().filter_map(|&r| unrec(r).map(|(v, _)| v)).collect();
    assert_eq!(kinds.len(), 4);
}

#[test]
fn a_slice_that_is_not_whole_chunks_is_refused() {
    let whole = whole();
    let err = solve_tier_sliced(
        &Ladder,
        0,
        TierOptions::default(),
        SLICE_MIN + 1,
        &mut |c| Ok(TierArray { records: whole[&c].clone(), grundy: None }),
        &mut |_| Ok(()),
    )
    .unwrap_err();
    assert!(err.to_string().contains("multiple of 16384"), "{err}");
}

/// A tier past 2^32 indices: index i moves to index 50 × (i >> 32) + i mod 50 of a tier of
/// 100 primitives, wins below 50 and losses from 50, so an index below 2^32 is a loss in 1
/// and one past it a win in 1: a truncated index would read the wrong child.
struct Huge;

const HUGE: u64 = (1 << 32) + 2 * SLICE_MIN + 5;

impl TierSpace for Huge {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        if tier == 0 { vec![1] } else { Vec::new() }
    }
    fn tier_size(&self, tier: Tier) -> u64 {
        if tier == 0 { HUGE } else { 100 }
    }
    fn tier_name(&self, tier: Tier) -> String {
        format!("huge {tier}")
    }
    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        (tier == 1).then_some(if index < 50 { Value::Win } else { Value::Lose })
    }
    fn children_at(&self, _tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        out.push((1, 50 * (index >> 32) + index % 50));
    }
    fn moves_within(&self, _tier: Tier) -> bool {
        false
    }
}

#[test]
fn indices_past_2_to_the_32_are_64_bit() {
    let children: HashMap<Tier, TierArray> = [(
        1,
        TierArray {
            records: (0..100).map(|j| Huge.primitive_at(1, j).map_or(0, |v| rec(v, 0))).collect(),
            grundy: None,
        },
    )]
    .into();
    // The chunks on both sides of 2^32, and the last (5 indices).
    let first = (1u64 << 32) / SLICE_MIN - 1;
    let chunks = HUGE.div_ceil(SLICE_MIN);
    assert_eq!(chunks, first + 4);
    let opts = TierOptions::default();
    let (recs, reps) = slice_records(&Huge, 0, opts, &children, "huge 0", first..chunks).unwrap();
    assert_eq!(recs.len() as u64, 3 * SLICE_MIN + 5);
    assert_eq!(reps, recs.len() as u64);
    for (k, &r) in recs.iter().enumerate() {
        let i = first * SLICE_MIN + k as u64;
        let want = if i < 1 << 32 { rec(Value::Lose, 1) } else { rec(Value::Win, 1) };
        assert_eq!(r, want, "index {i}");
    }
    // Such a tier is solved only in slices, and only where no move stays in it.
    assert_eq!(slice_of(&Huge, 0, opts), Some(SLICE_UNBOUNDED));
    assert_eq!(fit_bytes(&Huge, 0), 200 + SLICE_MIN * TIER_BYTES_AN_INDEX);
    let whole = solve_tier(&Huge, 0, &mut |_| Ok(children[&1].records.clone())).unwrap_err();
    assert!(whole.to_string().contains("2^32"), "{whole}");
}

#[test]
fn the_budget_sets_the_slices() {
    // Whole: 40,000 × 32 bytes and the child's 80,000.
    let whole = 40_000 * TIER_BYTES_AN_INDEX + 80_000;
    assert_eq!(tier_bytes(&Ladder, 0), whole);
    let opts = |memory| TierOptions { memory, ..TierOptions::default() };
    assert_eq!(slice_of(&Ladder, 0, opts(whole)), None);
    assert_eq!(slice_of(&Ladder, 0, opts(0)), None);
    // Room for 30,000 indices: one chunk a slice; for 35,000: two chunks.
    assert_eq!(slice_of(&Ladder, 0, opts(80_000 + 30_000 * 32)), Some(SLICE_MIN));
    assert_eq!(slice_of(&Ladder, 0, opts(80_000 + 35_000 * 32)), Some(2 * SLICE_MIN));
    // Too little room for a chunk: one chunk all the same (what fit_bytes checks first).
    assert_eq!(slice_of(&Ladder, 0, opts(1)), Some(SLICE_MIN));
    assert_eq!(fit_bytes(&Ladder, 0), 80_000 + SLICE_MIN * 32);
    // Grundy values are computed only whole.
    assert_eq!(slice_of(&Ladder, 0, TierOptions { grundy: true, ..opts(1) }), None);
}

/// A tier of 40,000 indices that moves stay in, over a tier of primitives (by i mod 4 a loss,
/// win, tie and draw): index i of tier 0 moves to (3i + 1) and (5i + 2) (mod 40,000) in its
/// own tier, and where i is a multiple of 3 to 7i (mod 40,000) of tier 1; a multiple of 11 is
/// a primitive loss, 6 mod 13 has no move; from 39,000 on, i moves only to the next even
/// index of a ring of 1,000 (a loop: draws). An odd index is the image of the even one below
/// it. The tier below gives ties.
struct Loops;

impl TierSpace for Loops {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        if tier == 0 { vec![1] } else { Vec::new() }
    }
    fn tier_size(&self, _tier: Tier) -> u64 {
        SIZE
    }
    fn tier_name(&self, tier: Tier) -> String {
        format!("loops {tier}")
    }
    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        if tier == 0 { index & !1 } else { index }
    }
    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        match tier {
            0 => (index < 39_000 && index.is_multiple_of(11)).then_some(Value::Lose),
            _ => Some([Value::Lose, Value::Win, Value::Tie, Value::Draw][(index % 4) as usize]),
        }
    }
    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        if tier != 0 {
            return;
        }
        if index >= 39_000 {
            out.push((0, (39_000 + (index - 39_000 + 2) % 1_000) & !1));
            return;
        }
        if index % 13 == 6 {
            return;
        }
        for j in [(3 * index + 1) % SIZE, (5 * index + 2) % SIZE] {
            out.push((0, j & !1));
        }
        if index.is_multiple_of(3) {
            out.push((1, (7 * index) % SIZE));
        }
    }
    fn moves_within(&self, tier: Tier) -> bool {
        tier == 0
    }
}

/// A tier that moves stay in, solved in passes (slices of one chunk, and the whole tier at
/// once, on one thread and on three) gives the records of the retrograde analysis, with
/// every value among them.
#[test]
fn a_tier_in_passes_is_the_tier_solved_whole() {
    let below: Vec<Rec> = (0..SIZE).map(|j| rec(Loops.primitive_at(1, j).unwrap(), 0)).collect();
    let child = || TierArray { records: below.clone(), grundy: None };
    let opts = TierOptions::for_space(&Loops, false);
    let (whole, reps) = solve_tier_full(&Loops, 0, opts, &mut |_| Ok(child())).unwrap();
    assert_eq!(reps, SIZE / 2);
    for v in [Value::Win, Value::Lose, Value::Tie, Value::Draw] {
        assert!(whole.records.iter().any(|&r| unrec(r).map(|x| x.0) == Some(v)), "no {v}");
    }
    assert!(whole.records.iter().any(|&r| matches!(unrec(r), Some((Value::Lose, Some(x))) if x > 2)));
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for slice in [SLICE_MIN, 3 * SLICE_MIN] {
            let mut got: Vec<Rec> = Vec::new();
            let reps_passes = pool
                .install(|| {
                    solve_tier_passes(&Loops, 0, slice, &mut |_| Ok(child()), &mut |r| {
                        got.extend_from_slice(r);
                        Ok(())
                    })
                })
                .unwrap();
            assert_eq!(reps_passes, reps);
            assert_eq!(got, whole.records, "{threads} threads, slices of {slice}");
        }
    }
    // Asked for slices (the budget or SLICE_ENV), such a tier goes in passes, which take 2
    // bytes an index and the child tiers' arrays.
    // (Whole, this small tier takes less.)
    assert_eq!(tier_bytes(&Loops, 0), SIZE * WITHIN_BYTES_AN_INDEX + 2 * SIZE);
    assert_eq!(fit_bytes(&Loops, 0), (2 * SIZE + 2 * SIZE + PASS_SLACK).min(tier_bytes(&Loops, 0)));
    assert_eq!(slice_of(&Loops, 0, TierOptions { memory: 1, ..opts }), Some(SLICE_MIN));
}

/// [`Loops`] giving parents: the moves of its representatives within tier 0, inverted.
struct LoopsUp(Vec<Vec<u64>>);

impl LoopsUp {
    fn new() -> LoopsUp {
        let mut up = vec![Vec::new(); SIZE as usize];
        let mut kids = Vec::new();
        for i in (0..SIZE).filter(|&i| Loops.canonical_index(0, i) == i) {
            kids.clear();
            Loops.children_at(0, i, &mut kids);
            for &(t, j) in &kids {
                if t == 0 {
                    up[j as usize].push(i);
                }
            }
        }
        LoopsUp(up)
    }
}

impl TierSpace for LoopsUp {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        Loops.child_tiers(tier)
    }
    fn tier_size(&self, tier: Tier) -> u64 {
        Loops.tier_size(tier)
    }
    fn tier_name(&self, tier: Tier) -> String {
        Loops.tier_name(tier)
    }
    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        Loops.canonical_index(tier, index)
    }
    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        Loops.primitive_at(tier, index)
    }
    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        Loops.children_at(tier, index, out)
    }
    fn moves_within(&self, tier: Tier) -> bool {
        Loops.moves_within(tier)
    }
    fn has_parents(&self) -> bool {
        true
    }
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        if tier == 0 {
            out.extend(self.0[index as usize].iter().map(|&q| (0, q)));
        }
    }
}

/// A tier that moves stay in, of a game that gives parents, solved lean (3 bytes an index,
/// on one thread and on three) gives the records of the retrograde analysis over reversed
/// edges, every value among them, with losses slower than the tier's own moves make them;
/// under a budget that holds it lean and not whole, the solver takes it lean, with the same
/// records.
#[test]
fn a_tier_solved_lean_is_the_tier_solved_whole() {
    // The tier below at remoteness j mod 23, so that wins, losses and ties from it wait at
    // many levels and some are overtaken by faster ones within the tier.
    let below: Vec<Rec> = (0..SIZE)
        .map(|j| match Loops.primitive_at(1, j).unwrap() {
            Value::Draw => rec(Value::Draw, 0),
            v => rec(v, (j % 23) as u32),
        })
        .collect();
    let child = || TierArray { records: below.clone(), grundy: None };
    let edges = TierOptions { parents: false, ..TierOptions::default() };
    let (whole, reps) = solve_tier_full(&Loops, 0, edges, &mut |_| Ok(child())).unwrap();
    for v in [Value::Win, Value::Lose, Value::Tie, Value::Draw] {
        assert!(whole.records.iter().any(|&r| unrec(r).map(|x| x.0) == Some(v)), "no {v}");
    }
    assert!(whole.records.iter().any(|&r| matches!(unrec(r), Some((Value::Lose, Some(x))) if x > 3)));
    let up = LoopsUp::new();
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let (lean, lean_reps) = pool.install(|| solve_tier_lean(&up, 0, &mut |_| Ok(child()))).unwrap();
        assert_eq!(lean_reps, reps);
        assert_eq!(lean, whole.records, "{threads} threads");
    }
    let opts = TierOptions::for_space(&up, false);
    if !opts.parents {
        return;
    }
    let budget = TierOptions { memory: lean_bytes(&up, 0, 2), threads: 2, ..opts };
    assert!(tier_bytes(&up, 0) > budget.memory && lean_of(&up, 0, budget));
    assert!(!lean_of(&up, 0, TierOptions { memory: budget.memory - 1, ..budget }), "passes below it");
    assert!(!lean_of(&up, 0, TierOptions { memory: tier_bytes(&up, 0), ..budget }), "whole where it fits");
    let dir = std::env::temp_dir().join(format!("gamesman-lean-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = ArrayDb::create(&dir, "h").unwrap();
    db.write_full(1, &below, None).unwrap();
    solve_with(&up, 0, &db, &Progress::silent(), budget).unwrap();
    assert_eq!(db.load_full(0, SIZE).unwrap().records, whole.records);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One tier where index i moves to the next `moves` indices (mod [`SIZE`]), and every 7th is
/// a primitive loss (and the game gives parents or not).
struct Crowd {
    moves: u64,
    parents: bool,
}

impl TierSpace for Crowd {
    fn child_tiers(&self, _tier: Tier) -> Vec<Tier> {
        Vec::new()
    }
    fn tier_size(&self, _tier: Tier) -> u64 {
        SIZE
    }
    fn tier_name(&self, _tier: Tier) -> String {
        "crowd".into()
    }
    fn primitive_at(&self, _tier: Tier, index: u64) -> Option<Value> {
        index.is_multiple_of(7).then_some(Value::Lose)
    }
    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        out.extend((1..=self.moves).map(|k| (tier, (index + k) % SIZE)));
    }
    fn has_parents(&self) -> bool {
        self.parents
    }
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        out.extend((1..=self.moves).map(|k| (tier, (index + SIZE - k) % SIZE)));
    }
}

/// A tier whose moves within it (20 an index, 12 bytes each once kept) pass a budget that
/// holds the tier at the bytes foreseen for it ([`WITHIN_BYTES_AN_INDEX`]): the scan gives
/// it up, and the solve under that budget (in passes) writes the records of the tier solved
/// whole with no budget. Where the game gives parents no edges are kept, and the tier is
/// foreseen at [`TIER_BYTES_AN_INDEX`].
#[test]
fn a_tier_whose_moves_pass_the_budget_goes_to_passes() {
    let many = Crowd { moves: 20, parents: false };
    let opts = TierOptions::for_space(&many, false);
    assert_eq!(tier_bytes(&many, 0), SIZE * WITHIN_BYTES_AN_INDEX);
    let (whole, _) = solve_tier_full(&many, 0, opts, &mut |_| unreachable!()).unwrap();
    for v in [Value::Win, Value::Lose] {
        assert!(whole.records.iter().any(|&r| unrec(r).map(|x| x.0) == Some(v)), "no {v}");
    }
    let fits = TierOptions { memory: tier_bytes(&many, 0), ..opts };
    assert!(slice_of(&many, 0, fits).is_none(), "foreseen to fit whole");
    assert!(solve_tier_whole(&many, 0, fits, &mut |_| unreachable!()).unwrap().is_none());
    let dir = std::env::temp_dir().join(format!("gamesman-crowd-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = ArrayDb::create(&dir, "h").unwrap();
    solve_with(&many, 0, &db, &Progress::silent(), TierOptions { threads: 2, ..fits }).unwrap();
    assert_eq!(db.load_full(0, SIZE).unwrap().records, whole.records);
    let _ = std::fs::remove_dir_all(&dir);
    let undo = Crowd { moves: 20, parents: true };
    if TierOptions::for_space(&undo, false).parents {
        assert_eq!(tier_bytes(&undo, 0), SIZE * TIER_BYTES_AN_INDEX);
        let (by_parents, _) =
            solve_tier_full(&undo, 0, TierOptions::for_space(&undo, false), &mut |_| unreachable!()).unwrap();
        assert_eq!(by_parents.records, whole.records);
    }
}
