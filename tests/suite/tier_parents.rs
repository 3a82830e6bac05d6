//! Parent positions (`TierSpace::parents_at`) of the native Connect-Four, and the tier
//! solver using them (issue #28).
//!
//! Expected values: the parents a position must have are found by inverting `children_at`
//! over every representative of every tier (so `parents_at` is checked against the game's
//! own moves, not against itself); the solves with parents are checked against the solves
//! with reversed edges (the same bytes), and the start against John Tromp's results (width 4
//! × height 4 a draw on move 16, 5 × 4 on move 20: https://tromp.github.io/c4/c4.html).
//!
//! Connect-Four's tiers (pieces played) have no move inside a tier, so its own solve never
//! asks for parents; `Paired` below puts two piece counts in one tier, so that every move
//! from an even count stays in its tier and the solver's retrograde analysis runs on
//! Connect-Four's parents.

use crate::common;
use gamesman::db::array::{ArrayDb, TierArray, unrec};
use gamesman::game::tier::{Tier, TierSpace, Tiers, tier_order};
use gamesman::game::{Game, Kind, Value};
use gamesman::native::connect4::Connect4;
use gamesman::progress::Progress;
use gamesman::solve::tier::{TierOptions, solve_with};
use std::collections::HashMap;

fn c4() -> Connect4 {
    Connect4::new(gamesman::game::GameInfo::native("connect4", "", Kind::Partisan))
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gamesman-tierparents-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
/// For every representative of every tier of 4×4 (k = 4 and 3): its parents are
/// exactly the representatives whose children include it (each child as `children_at`
/// lists it: a representative; a primitive board has none).
#[test]
fn connect4_parents_are_the_inverted_children() {
    let g = c4();
    for board in ["4x4k4", "4x4k3"] {
        let root = g.locate(&g.parse(board).unwrap()).0;
        let order = tier_order(&g, root);
        let mut want: HashMap<(Tier, u64), Vec<(Tier, u64)>> = HashMap::new();
        let mut kids = Vec::new();
        for &t in &order {
            for i in 0..g.tier_size(t) {
                if g.canonical_index(t, i) != i {
                    continue;
                }
                kids.clear();
                g.children_at(t, i, &mut kids);
                for &k in &kids {
                    want.entry(k).or_default().push((t, i));
                }
            }
        }
        let (mut checked, mut with_parents) = (0u64, 0u64);
        let mut got = Vec::new();
        for &t in &order {
            for i in 0..g.tier_size(t) {
                if g.canonical_index(t, i) != i {
                    continue;
                }
                got.clear();
                g.parents_at(t, i, &mut got);
                got.sort_unstable();
                got.dedup();
                let mut w = want.remove(&(t, i)).unwrap_or_default();
                w.sort_unstable();
                w.dedup();
                assert_eq!(got, w, "{board}: the parents of {}", g.format(&g.position(t, i)).unwrap());
                checked += 1;
                with_parents += !w.is_empty() as u64;
            }
        }
        assert!(want.is_empty(), "{board}: a child that is no representative");
        assert!(with_parents > checked / 4, "{board}: {with_parents} of {checked} have parents");
    }
}

/// Connect-Four with two piece counts a tier (2m and 2m + 1 pieces in tier m): a move from
/// an even count stays in its tier.
struct Paired<'a> {
    g: &'a Connect4,
    /// Connect-Four's tier of the empty board (its tier of n pieces is `base + n`).
    base: Tier,
    cells: u64,
}

impl Paired<'_> {
    fn inner(&self, tier: Tier, index: u64) -> (Tier, u64) {
        let even = self.base + 2 * tier;
        let low = self.g.tier_size(even);
        if index < low { (even, index) } else { (even + 1, index - low) }
    }
    fn outer(&self, (t, i): (Tier, u64)) -> (Tier, u64) {
        let n = t - self.base;
        (n / 2, if n % 2 == 1 { self.g.tier_size(t - 1) + i } else { i })
    }
}

impl TierSpace for Paired<'_> {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        if 2 * tier + 2 <= self.cells { vec![tier + 1] } else { vec![] }
    }
    fn tier_size(&self, tier: Tier) -> u64 {
        let even = self.base + 2 * tier;
        self.g.tier_size(even) + if 2 * tier < self.cells { self.g.tier_size(even + 1) } else { 0 }
    }
    fn tier_name(&self, tier: Tier) -> String {
        format!("pieces {} and {}", 2 * tier, 2 * tier + 1)
    }
    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        let (t, i) = self.inner(tier, index);
        self.outer((t, self.g.canonical_index(t, i))).1
    }
    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        let (t, i) = self.inner(tier, index);
        self.g.primitive_at(t, i)
    }
    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let (t, i) = self.inner(tier, index);
        let mut kids = Vec::new();
        self.g.children_at(t, i, &mut kids);
        out.extend(kids.into_iter().map(|k| self.outer(k)));
    }
    fn has_parents(&self) -> bool {
        true
    }
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let (t, i) = self.inner(tier, index);
        let mut ps = Vec::new();
        self.g.parents_at(t, i, &mut ps);
        out.extend(ps.into_iter().map(|p| self.outer(p)));
    }
}

/// 4×4 and 5×4 solved as Connect-Four (no move within a tier) and as `Paired` (moves within
/// tiers), each with parents and with reversed edges: with and without parents the arrays
/// are the same bytes; the paired records are Connect-Four's at the same boards; the start
/// is Tromp's draw on move 16 and 20.
#[test]
fn connect4_solved_with_parents_is_the_same_bytes() {
    let g = c4();
    for (board, cells) in [("4x4k4", 16u64), ("5x4k4", 20)] {
        let base = g.locate(&g.parse(board).unwrap()).0;
        let paired = Paired { g: &g, base, cells };
        let mut arrays: Vec<HashMap<Tier, TierArray>> = Vec::new();
        for (name, space, root) in [("plain", &g as &dyn TierSpace, base), ("paired", &paired, 0)] {
            let mut saves = Vec::new();
            for parents in [true, false] {
                let dir = tmp(&format!("{board}-{name}-{parents}"));
                let db = ArrayDb::create(&dir, "c4").unwrap();
                solve_with(
                    space,
                    root,
                    &db,
                    &Progress::silent(),
                    TierOptions { grundy: false, parents, ..TierOptions::default() },
                )
                .unwrap();
                saves.push((dir, db));
            }
            assert_eq!(
                common::files(&saves[0].0),
                common::files(&saves[1].0),
                "{board} {name}: parents or reversed edges"
            );
            let order = tier_order(space, root);
            arrays.push(order.iter().map(|&t| (t, saves[0].1.load_full(t, space.tier_size(t)).unwrap())).collect());
            for (dir, _) in saves {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        let (plain, pair) = (&arrays[0], &arrays[1]);
        let start = unrec(plain[&base].records[0]).unwrap();
        assert_eq!(start, (Value::Tie, Some(cells as u32)), "{board}: Tromp's draw");
        let mut same = 0u64;
        for (&t, a) in plain {
            for (i, &r) in a.records.iter().enumerate() {
                let (pt, pi) = paired.outer((t, i as u64));
                assert_eq!(pair[&pt].records[pi as usize], r, "{board}: tier {t:x} index {i}");
                same += 1;
            }
        }
        assert_eq!(same, (0..=cells).map(|n| g.tier_size(base + n)).sum::<u64>());
    }
}

/// A measurement, not a check: `Paired` Connect-Four (moves inside tiers) of the
/// board in `GAMESMAN_PAIRED_BOARD` (default `5x4k4`) solved once, with parents unless
/// `GAMESMAN_TIER_PARENTS=off`; run it under `/usr/bin/time -v` to read its peak memory.
#[test]
#[ignore]
fn measure_paired_solve() {
    let g = c4();
    let board = std::env::var("GAMESMAN_PAIRED_BOARD").unwrap_or_else(|_| "5x4k4".into());
    let p = g.parse(&board).unwrap();
    let base = g.locate(&p).0;
    let cells = board.split('k').next().unwrap().split('x').map(|n| n.parse::<u64>().unwrap()).product::<u64>();
    let paired = Paired { g: &g, base, cells };
    let opts = TierOptions::for_space(&paired, false);
    let dir = tmp(&format!("measure-{board}-{}", opts.parents));
    let db = ArrayDb::create(&dir, "c4").unwrap();
    let t = std::time::Instant::now();
    let stats = solve_with(&paired, 0, &db, &Progress::silent(), opts).unwrap();
    eprintln!(
        "{board} paired, parents {}: {} positions, {:.1} s",
        opts.parents,
        stats.positions,
        t.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
