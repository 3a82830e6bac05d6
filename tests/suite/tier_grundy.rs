//! Grundy values in the tier arrays, and parent positions, proven on a game written outside
//! the crate through its public API: Kayles on a row of pins (issue #28, items 2 and 3).
//!
//! Kayles: a row of pins; a move knocks down one pin, or two adjacent ones; whoever cannot
//! move loses (normal play). A position is the set of pins left, a bitmask. Its tiers here
//! group the positions by pins left, `width` counts to a tier, so that with `width` > 1 a
//! move often stays in its tier (the solver's waves within a tier are exercised), and the
//! left–right mirror is its symmetry. It gives parent positions (a pin, or two adjacent
//! ones, stood up again) when asked to.
//!
//! Expected values come from outside the solver: the Grundy value of a row of n pins is
//! Kayles's nim-sequence (OEIS A002186, the first 84 terms below, checked against a plain mex
//! over the ways a move splits a row), a position's is the XOR of its runs' (Sprague–Grundy),
//! and value and remoteness come from a plain recursion over every bitmask in increasing
//! order (a move only clears bits, so every child comes first).

use crate::common;
use gamesman::catalog::{Database, Engine, How};
use gamesman::catalog::{Live, SaveHow, SessionAnswers, SessionStore};
use gamesman::db::Identity;
use gamesman::db::array::{ArrayDb, NO_GRUNDY, unrec};
use gamesman::game::tier::{Ranker, Tier, TierSpace, Tiers, tier_order};
use gamesman::game::{Capabilities, Game, GameError, GameInfo, GameResult, Kind, Value};
use gamesman::progress::Progress;
use gamesman::solve::Options;
use gamesman::solve::tier::{TierOptions, solve_with};
use std::path::PathBuf;

/// OEIS A002186, Kayles's nim-sequence, G(0) to G(83).
const A002186: [u64; 84] = [
    0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1, 2, 8, 5, 4, 7, 2, 1, 8, 6, 7, 4, 1,
    2, 3, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 4, 2, 7, 4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 6, 7, 4, 1, 2, 8,
    1, 4, 7, 2, 1, 8, 2, 7,
];

/// Kayles on `n` pins, `width` pin counts a tier.
struct Kayles {
    info: GameInfo,
    n: u32,
    width: u32,
    ranker: Ranker,
    parents: bool,
}

impl Kayles {
    fn new(n: u32, width: u32, parents: bool) -> Kayles {
        assert!((1..=24).contains(&n) && width >= 1);
        let info = GameInfo {
            name: "kayles-test".into(),
            description: "Kayles on a row of pins (a test game)".into(),
            kind: Kind::Impartial,
            native: None,
            move_verb: None,
            solved_message: None,
            players: None,
        };
        Kayles { info, n, width, ranker: Ranker::new(n), parents }
    }

    fn full(&self) -> u32 {
        (1u32 << self.n) - 1
    }

    fn mirror(&self, m: u32) -> u32 {
        m.reverse_bits() >> (32 - self.n)
    }

    fn canon(&self, m: u32) -> u32 {
        m.min(self.mirror(m))
    }

    /// The pins a move knocks down: one pin, or two adjacent ones.
    fn knocks(&self, m: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for i in 0..self.n {
            if m >> i & 1 == 1 {
                out.push(1 << i);
                if i + 1 < self.n && m >> (i + 1) & 1 == 1 {
                    out.push(3 << i);
                }
            }
        }
        out
    }

    /// The pin counts of tier `t`.
    fn counts(&self, t: Tier) -> std::ops::RangeInclusive<u32> {
        let lo = t as u32 * self.width;
        lo..=(lo + self.width - 1).min(self.n)
    }

    fn tier_of(&self, pins: u32) -> Tier {
        (pins / self.width) as Tier
    }
}

impl Game for Kayles {
    type Pos = u32;
    type Move = u32;

    fn info(&self) -> &GameInfo {
        &self.info
    }
    fn start(&self) -> GameResult<Option<u32>> {
        Ok(Some(self.full()))
    }
    /// `I` a pin, `.` a gap, one character a place: `II.III`.
    fn parse(&self, text: &str) -> GameResult<u32> {
        let t = text.trim();
        if t.chars().count() != self.n as usize {
            return Err(GameError::BadPosition(format!("{t:?}: a row of {} places", self.n)));
        }
        t.chars().enumerate().try_fold(0u32, |m, (i, c)| match c {
            'I' => Ok(m | 1 << i),
            '.' => Ok(m),
            _ => Err(GameError::BadPosition(format!("{c:?}: a place is I or ."))),
        })
    }
    fn format(&self, pos: &u32) -> GameResult<String> {
        Ok((0..self.n).map(|i| if pos >> i & 1 == 1 { 'I' } else { '.' }).collect())
    }
    fn moves(&self, pos: &u32) -> GameResult<Vec<u32>> {
        Ok(self.knocks(*pos))
    }
    fn play(&self, pos: &u32, mv: &u32) -> GameResult<u32> {
        Ok(pos & !mv)
    }
    fn move_name(&self, _pos: &u32, mv: &u32) -> GameResult<String> {
        let i = mv.trailing_zeros() + 1;
        Ok(if mv.count_ones() == 2 { format!("{i}+{}", i + 1) } else { i.to_string() })
    }
    fn primitive(&self, _pos: &u32) -> GameResult<Option<Value>> {
        Ok(None)
    }
    fn canonical(&self, pos: &u32) -> GameResult<u32> {
        Ok(self.canon(*pos))
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities { tiers: Some(self), ..Capabilities::none() }
    }
}

impl TierSpace for Kayles {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        let mut out: Vec<Tier> = self
            .counts(tier)
            .flat_map(|k| [k.checked_sub(1), k.checked_sub(2)])
            .flatten()
            .map(|k| self.tier_of(k))
            .filter(|&t| t != tier)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
    fn tier_size(&self, tier: Tier) -> u64 {
        self.counts(tier).map(|k| self.ranker.choose(self.n, k)).sum()
    }
    fn tier_name(&self, tier: Tier) -> String {
        format!("pins {:?}", self.counts(tier))
    }
    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        self.locate(&self.canon(self.position(tier, index))).1
    }
    fn primitive_at(&self, _tier: Tier, _index: u64) -> Option<Value> {
        None
    }
    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let m = self.position(tier, index);
        out.extend(self.knocks(m).into_iter().map(|k| self.locate(&self.canon(m & !k))));
    }
    fn has_parents(&self) -> bool {
        self.parents
    }
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        // A pin stood up again, or two adjacent ones: every such position has a move here.
        let m = self.position(tier, index);
        let gaps = self.full() & !m;
        for i in 0..self.n {
            if gaps >> i & 1 == 1 {
                out.push(self.locate(&self.canon(m | 1 << i)));
                if i + 1 < self.n && gaps >> (i + 1) & 1 == 1 {
                    out.push(self.locate(&self.canon(m | 3 << i)));
                }
            }
        }
    }
}

impl Tiers for Kayles {
    type Pos = u32;
    fn locate(&self, pos: &u32) -> (Tier, u64) {
        let k = pos.count_ones();
        let t = self.tier_of(k);
        let below: u64 = self.counts(t).take_while(|&j| j < k).map(|j| self.ranker.choose(self.n, j)).sum();
        (t, below + self.ranker.rank(&[*pos as u64]))
    }
    fn position(&self, tier: Tier, mut index: u64) -> u32 {
        for k in self.counts(tier) {
            let size = self.ranker.choose(self.n, k);
            if index < size {
                let mut b = [0u64];
                self.ranker.unrank(&[k], index, &mut b);
                return b[0] as u32;
            }
            index -= size;
        }
        panic!("index past tier {tier}")
    }
}

/// Kayles's nim-sequence by a plain mex: a move from a row of n takes one pin or two
/// adjacent ones, leaving rows of a and b pins (a + b = n - 1 or n - 2).
fn nim_sequence(len: usize) -> Vec<u64> {
    let mut g = vec![0u64; len];
    for n in 1..len {
        let mut seen = std::collections::HashSet::new();
        for take in 1..=2.min(n) {
            for a in 0..=n - take {
                seen.insert(g[a] ^ g[n - take - a]);
            }
        }
        g[n] = (0..).find(|x| !seen.contains(x)).unwrap();
    }
    g
}

/// A position's Grundy value: the XOR of its runs' (they are independent rows).
fn by_runs(m: u32, seq: &[u64]) -> u64 {
    let (mut g, mut run, mut m) = (0, 0, m);
    while m != 0 || run != 0 {
        if m & 1 == 1 {
            run += 1;
        } else {
            g ^= seq[run];
            run = 0;
        }
        m >>= 1;
    }
    g
}

/// Value, remoteness and Grundy value of every bitmask of `n` pins, by recursion over the
/// masks in increasing order.
fn oracle(g: &Kayles) -> Vec<(Value, u32, u64)> {
    let mut out: Vec<(Value, u32, u64)> = Vec::with_capacity(1 << g.n);
    for m in 0..=g.full() {
        let kids: Vec<(Value, u32, u64)> = g.knocks(m).into_iter().map(|k| out[(m & !k) as usize]).collect();
        let mut seen: Vec<u64> = kids.iter().map(|k| k.2).collect();
        seen.sort_unstable();
        seen.dedup();
        let mex = seen.iter().enumerate().take_while(|&(i, &x)| i as u64 == x).count() as u64;
        let rec = match kids.iter().filter(|k| k.0 == Value::Lose).map(|k| k.1).min() {
            Some(r) => (Value::Win, r + 1, mex),
            None => (Value::Lose, kids.iter().map(|k| k.1 + 1).max().unwrap_or(0), mex),
        };
        out.push(rec);
    }
    out
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gamesman-tiergrundy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn the_nim_sequence_by_mex_is_oeis_a002186() {
    assert_eq!(nim_sequence(84), A002186);
    // A few by hand. A row of 2 moves to a row of 1 (G 1) or to nothing (0): mex 2. A row of
    // 3 moves to 2 (G 2), 1+1 (1^1 = 0) or 1 (G 1): mex 3. A row of 4 moves to 3 (G 3),
    // 1+2 (1^2 = 3), 2 (G 2) or 1+1 (0): mex of {0, 2, 3} = 1.
    assert_eq!((A002186[2], A002186[3], A002186[4]), (2, 3, 1));
}

/// Kayles on 20 pins, 3 pin counts a tier: every representative of every tier has the
/// Grundy value of its runs (and of the recursion), and its value and remoteness; the
/// root, the full row, has G(20) = A002186[20] = 1. Solved with the game's parent positions
/// and again with reversed edges: the two saves are the same bytes.
#[test]
fn kayles_grundy_values_from_the_arrays() {
    let seq = nim_sequence(32);
    let with = Kayles::new(20, 3, true);
    let without = Kayles::new(20, 3, false);
    let truth = oracle(&with);
    let root = with.locate(&with.full()).0;
    let mut saves = Vec::new();
    for (game, parents) in [(&with, true), (&without, false)] {
        let dir = tmp(&format!("kayles20-{parents}"));
        let db = ArrayDb::create(&dir, "kayles").unwrap();
        let opts = TierOptions { grundy: true, parents, ..TierOptions::default() };
        let stats = solve_with(game, root, &db, &Progress::silent(), opts).unwrap();
        assert_eq!(stats.positions, 1 << 20);
        saves.push((dir, db));
    }
    assert_eq!(common::files(&saves[0].0), common::files(&saves[1].0), "parents or reversed edges: the same arrays");
    let db = &saves[0].1;
    let order = tier_order(&with, root);
    assert_eq!(order.len(), 7, "pins 0-2, 3-5, ..., 18-20");
    let mut reps = 0;
    for &t in &order {
        let a = db.load_full(t, with.tier_size(t)).unwrap();
        let grundy = a.grundy.as_ref().expect("a Grundy column in every tier");
        for i in 0..with.tier_size(t) {
            let m = with.position(t, i);
            if with.canonical_index(t, i) != i {
                assert_eq!((a.records[i as usize], grundy[i as usize]), (0, NO_GRUNDY), "not a representative");
                continue;
            }
            reps += 1;
            let (v, r, g) = truth[m as usize];
            assert_eq!(g, by_runs(m, &seq), "the recursion and the runs agree at {m:b}");
            assert_eq!(a.grundy_at(i as usize), Some(g), "Grundy value of {m:020b}");
            assert_eq!(unrec(a.records[i as usize]), Some((v, Some(r))), "value of {m:020b}");
        }
    }
    // 2^20 masks, 2^10 of them their own mirror: (2^20 + 2^10) / 2 classes.
    assert_eq!(reps, ((1 << 20) + (1 << 10)) / 2);
    let (t, i) = with.locate(&with.full());
    assert_eq!(db.lookup(t, with.tier_size(t), i).unwrap().unwrap().1, Some(A002186[20]));
    for (dir, _) in saves {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// The front ends' door (a session over the game): `--save` goes through the tier solver
/// with Grundy values, and `solve`, `moves`, `analyze` and `export` report them from the
/// arrays: each equal to the XOR of the runs' nim-values, and `analyze` counts every
/// position by Grundy value as the runs give them.
#[test]
fn solve_moves_analyze_and_export_report_grundy_from_the_arrays() {
    let seq = nim_sequence(32);
    let n = 12;
    let dir = tmp("session");
    let how =
        How { engine: Engine::Native, misere: false, options: Options::default(), database: Database::At(dir.clone()) };
    let id = Identity {
        game: "kayles-test".into(),
        file: "tests/tier_grundy.rs".into(),
        engine: "native".into(),
        misere: false,
        hash: "kayles-test-12".into(),
    };
    let mut s = Live::new(Kayles::new(n, 2, true), "native", &how, Some(id)).unwrap();
    let full = "I".repeat(n as usize);
    let saved = s.save(&full, SaveHow { threads: 2, pack: false }).unwrap();
    assert_eq!(saved.positions, 1 << n);
    let head = std::fs::read(dir.join(gamesman::db::array::tier_file(6))).unwrap();
    assert_eq!(&head[..8], b"GMTIER04", "the tier format");
    // After the mark, the tier (8 bytes), the records (8), block records (4) and blocks (4):
    // the flags, 1 for a tier with Grundy values.
    assert_eq!(u32::from_le_bytes(head[32..36].try_into().unwrap()), 1, "a tier with Grundy values");

    let report = s.solve(&full).unwrap();
    assert_eq!(report.source, "database");
    assert_eq!(report.grundy, Some(A002186[n as usize]));
    assert_eq!(report.value, Value::Win);
    for text in ["II.III.IIII.", "I.I.I.I.I.I.", "IIII..IIII.."] {
        let m = Kayles::new(n, 2, true).parse(text).unwrap();
        assert_eq!(s.solve(text).unwrap().grundy, Some(by_runs(m, &seq)), "{text}");
        for mv in s.moves(text).unwrap() {
            let c = Kayles::new(n, 2, true).parse(&mv.position).unwrap();
            assert_eq!(mv.grundy, Some(by_runs(c, &seq)), "{text} -> {}", mv.position);
        }
    }

    let (report, _) = s.analyze(&full, 2, false).unwrap();
    assert_eq!(report["source"], "database");
    assert_eq!(report["positions"], 1u64 << n, "every subset of the pins is reachable");
    assert_eq!(report["grundy"], A002186[n as usize]);
    let mut want = std::collections::BTreeMap::new();
    for m in 0..1u32 << n {
        *want.entry(by_runs(m, &seq)).or_insert(0u64) += 1;
    }
    let got: std::collections::BTreeMap<u64, u64> = report["by_grundy"]
        .as_array()
        .expect("by_grundy")
        .iter()
        .map(|b| (b["grundy"].as_u64().unwrap(), b["positions"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, want);

    let mut exported = 0u64;
    s.export(Some(&full), &mut |text, rec| {
        let m = Kayles::new(n, 2, true).parse(text).unwrap();
        assert_eq!(rec.grundy, Some(by_runs(m, &seq)), "{text}");
        assert_eq!(rec.value == Value::Win, by_runs(m, &seq) != 0, "{text}");
        exported += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(exported, 1 << n);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tier with a loop: three positions that move round a circle (tier 0: draws, no Grundy
/// value, so no Grundy column: format 2), and a tier above whose position 0 moves into the
/// circle or to position 1, which has no moves (a loss, Grundy value 0): position 0 wins
/// but has no Grundy value (a child has none).
#[test]
fn a_loop_leaves_grundy_values_undefined() {
    struct Loop;
    impl TierSpace for Loop {
        fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
            if tier == 1 { vec![0] } else { vec![] }
        }
        fn tier_size(&self, tier: Tier) -> u64 {
            if tier == 1 { 2 } else { 3 }
        }
        fn tier_name(&self, tier: Tier) -> String {
            tier.to_string()
        }
        fn primitive_at(&self, _: Tier, _: u64) -> Option<Value> {
            None
        }
        fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
            match (tier, index) {
                (0, i) => out.push((0, (i + 1) % 3)),
                (1, 0) => out.extend([(0, 0), (1, 1)]),
                _ => {}
            }
        }
    }
    let dir = tmp("loop");
    let db = ArrayDb::create(&dir, "loop").unwrap();
    solve_with(
        &Loop,
        1,
        &db,
        &Progress::silent(),
        TierOptions { grundy: true, parents: false, ..TierOptions::default() },
    )
    .unwrap();
    let low = db.load_full(0, Loop.tier_size(0)).unwrap();
    assert!(low.grundy.is_none());
    assert!(low.records.iter().all(|&r| unrec(r) == Some((Value::Draw, None))));
    let file = std::fs::read(dir.join(gamesman::db::array::tier_file(0))).unwrap();
    // No Grundy column: the header's flags (after mark, tier, records, block size, blocks) are 0.
    assert_eq!((&file[..8], file[32]), (&b"GMTIER04"[..], 0));
    let high = db.load_full(1, Loop.tier_size(1)).unwrap();
    assert_eq!(unrec(high.records[0]), Some((Value::Win, Some(1))));
    assert_eq!((high.grundy_at(0), high.grundy_at(1)), (None, Some(0)));
    let _ = std::fs::remove_dir_all(&dir);
}
