//! Games on points joined by lines (`rules: Points(...)`): a board of points and the straight
//! lines through them (a row, a grid with or without diagonals, the Morris boards, Kaooa's
//! star, or lines given one by one), pieces of one kind a side, placed from a hand and then
//! moved, stepping along a line, jumping over an opponent's piece (capturing it or not),
//! flying, flanking and turning lines of the opponent's pieces (Othello), removing a piece
//! after forming a mill, passing when stuck; ends by a line of K, by a unit square of one's
//! pieces, by the count of pieces, by pieces lost, or by having no move. See "Games on
//! points" in `docs/descriptors.md`.
//!
//! Points are joined where they follow each other on a line; a jump goes over the next point
//! of a line to the one after it.

mod boards;
mod rules;
pub(super) mod symmetry;

use crate::game::packed::PackedPlay;
use crate::game::tier::{Ranker, Tier, TierSpace, Tiers};
use crate::game::{GameResult, Value};
pub use boards::BoardSpec;
pub use rules::{Along, MoveKind, PMove, PPos, PointsEnd, PointsRules, PointsSpec, Towards};
use rules::{bit, points_of};

// --- Keys and tiers -------------------------------------------------------------------
// A points game's positions as integer keys (the searches of value and remoteness run on
// them) and by tier and index (the tier solver and the array database).
//
// A key: the first player's points in bits `0..n`, the second's in `n..2n`, the side to move
// in bit `2n`, the pieces in hand in the 7 bits from `2n + 1` and from `2n + 8` (boards of
// at most 56 points). A tier: the pieces of each side on the board and in hand; the index in
// a tier: the combinatorial rank of the two masks among the boards with those counts, times
// two, plus the side to move.
//
// A tier of a board with symmetries whose numbering would pass 2^24 indices (Teeko, Nine
// Men's Morris from four men a side) is numbered by classes instead: the first player's points
// are one of the representatives of their class (the least image under the symmetries),
// numbered in the table of those representatives, and the second player's are ranked
// among the points left, as before. A position is numbered by its representative, the
// least image of the two masks; where the first player's points are symmetric, some
// indices hold another image of a representative (their records are those of no class).

/// The most points a keyed board may have (two masks, the side and two hands in 128 bits).
pub const MAX_KEY_POINTS: usize = 56;
/// The most points a board numbered by tiers may have: a tier holds at most 2·3^n indices
/// (each point empty or either side's, and the side to move), below 2^64 for n ≤ 39 (a
/// bound: the largest tier passes 2^64 only at 44 points).
pub const MAX_TIER_POINTS: usize = 39;

/// The keys of a points game, over the game's own position type `P` (which wraps a `PPos`).
pub struct PointsKeys<P> {
    rules: PointsRules,
    n: u32,
    wrap: fn(PPos) -> P,
    unwrap: fn(&P) -> Option<&PPos>,
}

impl<P> PointsKeys<P> {
    /// `None` for a board of more than [`MAX_KEY_POINTS`] points.
    pub fn new(rules: &PointsRules, wrap: fn(PPos) -> P, unwrap: fn(&P) -> Option<&PPos>) -> Option<Self> {
        (rules.n <= MAX_KEY_POINTS).then(|| PointsKeys { rules: rules.clone(), n: rules.n as u32, wrap, unwrap })
    }

    pub fn key(&self, p: &PPos) -> u128 {
        let n = self.n;
        u128::from(p.own[0])
            | u128::from(p.own[1]) << n
            | u128::from(p.side & 1) << (2 * n)
            | u128::from(p.hand[0] & 127) << (2 * n + 1)
            | u128::from(p.hand[1] & 127) << (2 * n + 8)
    }

    pub fn position(&self, key: u128) -> PPos {
        let n = self.n;
        let mask = (1u128 << n) - 1;
        PPos {
            own: [(key & mask) as u64, ((key >> n) & mask) as u64],
            side: (key >> (2 * n)) as u8 & 1,
            hand: [(key >> (2 * n + 1)) as u8 & 127, (key >> (2 * n + 8)) as u8 & 127],
        }
    }
}

impl<P: 'static> PackedPlay<P> for PointsKeys<P> {
    fn pack(&self, pos: &P) -> Option<u128> {
        (self.unwrap)(pos).map(|p| self.key(p))
    }
    fn unpack(&self, key: u128) -> P {
        (self.wrap)(self.position(key))
    }
    /// The key of the position's representative under the board's symmetries.
    fn canonical(&self, key: u128) -> u128 {
        if self.rules.syms.is_empty() {
            return key;
        }
        self.key(&self.rules.canonical(&self.position(key)))
    }
    fn children(&self, key: u128, out: &mut Vec<u128>) {
        let p = self.position(key);
        out.extend(self.rules.children(&p).iter().map(|c| self.key(c)));
    }
    fn primitive(&self, key: u128) -> Option<Value> {
        self.rules.primitive(&self.position(key))
    }
    fn move_count(&self, key: u128) -> u32 {
        self.rules.move_weight(&self.position(key))
    }
    /// A key is the position's masks, side and hands; the children are the rules' own.
    fn exact(&self) -> bool {
        true
    }
}

/// A tier's number from the counts: pieces on the board, then in hand, a byte each.
fn tier_of(c: [u32; 2], h: [u32; 2]) -> Tier {
    u64::from(c[0]) | u64::from(c[1]) << 8 | u64::from(h[0]) << 16 | u64::from(h[1]) << 24
}

fn counts(t: Tier) -> ([u32; 2], [u32; 2]) {
    let b = |i: u32| (t >> (8 * i)) as u32 & 255;
    ([b(0), b(1)], [b(2), b(3)])
}

/// The largest tier numbered whole on a board with symmetries; past it, a tier is numbered
/// by classes (a table's lookup an index, for a tier smaller by about the number of
/// symmetries).
const CLASSES_ABOVE: u64 = 1 << 24;

/// The most sets of points a table of representatives is made from (C(24, 12) is 2.7
/// million, C(25, 12) 5.2 million); a tier past it is numbered whole.
const MAX_CLASS_TABLE: u64 = 1 << 23;

/// The classes of the sets of `k` points: the representatives' ranks (among the sets of
/// `k` points, in increasing order) and each set's class (`u32::MAX`: not a representative).
struct Classes {
    ranks: Vec<u32>,
    of_rank: Vec<u32>,
}

/// A points game by tiers, over the game's own position type `P`.
pub struct PointsTiers<P> {
    rules: PointsRules,
    ranker: Ranker,
    /// Whether the tier of `c[0]` and `c[1]` pieces on the board is numbered by classes, at
    /// `c[0] * (n + 1) + c[1]`.
    by_classes: Vec<bool>,
    /// For each count of the first player's pieces, the classes of their points (made at the
    /// first tier numbered by classes).
    classes: Vec<std::sync::OnceLock<Classes>>,
    /// Every move that keeps the counts can be undone (steps, jumps that take nothing,
    /// flights, none that closes a mill; no passes), each the way its side goes: the tiers
    /// give parents.
    undo: bool,
    wrap: fn(PPos) -> P,
    unwrap: fn(&P) -> Option<&PPos>,
}

impl<P> PointsTiers<P> {
    /// The tiers of `rules`, or why it has none: a board of more than [`MAX_TIER_POINTS`]
    /// points, or pieces that both come from a supply (`Place` with an empty hand, `Flank`)
    /// and leave the board (captures, mills), whose counts could go round in a circle.
    pub fn new(rules: &PointsRules, wrap: fn(PPos) -> P, unwrap: fn(&P) -> Option<&PPos>) -> Result<Self, String> {
        if rules.n > MAX_TIER_POINTS {
            return Err(format!("a board of {} points has no tiers (at most {MAX_TIER_POINTS})", rules.n));
        }
        let supply = rules.moves.iter().flatten().any(|m| matches!(m, MoveKind::Place | MoveKind::Flank));
        if supply && rules.removes {
            return Err("pieces that come from a supply and leave the board have no tiers".into());
        }
        let plain = |m: &MoveKind| !matches!(m, MoveKind::Straight(_) | MoveKind::Diagonal(_));
        let undo = !rules.pass && rules.moves.iter().flatten().all(plain);
        let ranker = Ranker::new(rules.n as u32);
        let classes = (0..=rules.n).map(|_| std::sync::OnceLock::new()).collect();
        let by_classes = Self::numbered_by_classes(rules, &ranker, CLASSES_ABOVE);
        Ok(PointsTiers { rules: rules.clone(), ranker, by_classes, classes, undo, wrap, unwrap })
    }

    /// For each count of pieces on the board, whether its tier is numbered by classes: a
    /// board with symmetries, a tier of more than `above` indices, and a table of classes
    /// made from at most [`MAX_CLASS_TABLE`] sets of points.
    fn numbered_by_classes(rules: &PointsRules, ranker: &Ranker, above: u64) -> Vec<bool> {
        let n = rules.n as u32;
        let mut out = vec![false; (rules.n + 1) * (rules.n + 1)];
        for c0 in 0..=n {
            for c1 in 0..=n - c0 {
                out[(c0 * (n + 1) + c1) as usize] = !rules.syms.is_empty()
                    && ranker.count(&[c0, c1]).is_some_and(|k| k.saturating_mul(2) > above)
                    && ranker.choose(n, c0) <= MAX_CLASS_TABLE;
            }
        }
        out
    }

    /// The same tiers, those of more than `above` indices numbered by classes (the tests
    /// number small tiers so, to check the numbering against the whole one).
    #[cfg(test)]
    fn with_classes_above(mut self, above: u64) -> Self {
        self.by_classes = Self::numbered_by_classes(&self.rules, &self.ranker, above);
        self
    }

    /// Whether the tier of `c` pieces on the board is numbered by classes.
    #[inline]
    fn by_classes(&self, c: [u32; 2]) -> bool {
        self.by_classes.get((c[0] * (self.rules.n as u32 + 1) + c[1]) as usize).copied().unwrap_or(false)
    }

    /// The classes of the sets of `k` points.
    fn classes(&self, k: u32) -> &Classes {
        self.classes[k as usize].get_or_init(|| {
            let all = self.ranker.choose(self.rules.n as u32, k);
            let mut c = Classes { ranks: Vec::new(), of_rank: vec![u32::MAX; all as usize] };
            let mut one = [0u64];
            for i in 0..all {
                self.ranker.unrank(&[k], i, &mut one);
                if self.rules.syms.iter().all(|g| g.apply(one[0]) >= one[0]) {
                    c.of_rank[i as usize] = c.ranks.len() as u32;
                    c.ranks.push(i as u32);
                }
            }
            c
        })
    }

    /// The tier and index of a position (of its class' representative in a tier numbered
    /// by classes).
    pub fn place(&self, p: &PPos) -> (Tier, u64) {
        let c = [p.own[0].count_ones(), p.own[1].count_ones()];
        let tier = tier_of(c, [u32::from(p.hand[0]), u32::from(p.hand[1])]);
        let side = u64::from(p.side & 1);
        if !self.by_classes(c) {
            return (tier, self.ranker.rank(&p.own) * 2 + side);
        }
        let q = self.rules.canonical(p);
        let rank = self.ranker.rank(&q.own);
        let second = self.ranker.choose(self.rules.n as u32 - c[0], c[1]);
        let class = u64::from(self.classes(c[0]).of_rank[(rank / second) as usize]);
        (tier, (class * second + rank % second) * 2 + side)
    }

    /// The distinct images of `p` under the board's symmetries, `p` among them.
    fn images(&self, p: &PPos) -> Vec<PPos> {
        let mut masks: Vec<[u64; 2]> = self.rules.syms.iter().map(|g| [g.apply(p.own[0]), g.apply(p.own[1])]).collect();
        masks.push(p.own);
        masks.sort_unstable();
        masks.dedup();
        masks.into_iter().map(|own| PPos { own, ..p.clone() }).collect()
    }

    /// The tier and index of the representative of `p`'s class.
    fn place_class(&self, p: &PPos) -> (Tier, u64) {
        let numbered_by_class = || self.by_classes([p.own[0].count_ones(), p.own[1].count_ones()]);
        if self.rules.syms.is_empty() || numbered_by_class() {
            self.place(p)
        } else {
            self.place(&self.rules.canonical(p))
        }
    }

    /// The position at `index` of `tier`.
    pub fn at(&self, tier: Tier, index: u64) -> PPos {
        let (c, h) = counts(tier);
        let mut own = [0u64; 2];
        let mut rank = index / 2;
        if self.by_classes(c) {
            let second = self.ranker.choose(self.rules.n as u32 - c[0], c[1]);
            let first = u64::from(self.classes(c[0]).ranks[(rank / second) as usize]);
            rank = first * second + rank % second;
        }
        self.ranker.unrank(&c, rank, &mut own);
        PPos { own, side: (index & 1) as u8, hand: [h[0] as u8, h[1] as u8] }
    }
}

impl<P> TierSpace for PointsTiers<P> {
    /// Side `s` to move: a piece from the hand (its hand down one, its board up one), else each
    /// kind of move it has (a step keeps the counts; a capture takes one of the opponent's; a
    /// placement from the supply adds one of its own; a flank turns some of the opponent's);
    /// a mill then removes one of the opponent's pieces. Either side may be to move.
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        let (c, h) = counts(tier);
        let n = self.rules.n as u32;
        let mill = !self.rules.mill_masks.is_empty();
        let mut out = Vec::new();
        for s in 0..2 {
            let o = 1 - s;
            // (own pieces added, opponent's taken) on the board, and whether from the hand.
            let mut deltas: Vec<(u32, u32, bool)> = Vec::new();
            if h[s] > 0 {
                deltas.push((1, 0, true));
            } else {
                for kind in &self.rules.moves[s] {
                    match kind {
                        MoveKind::Place => deltas.push((1, 0, false)),
                        MoveKind::Flank => deltas.extend((1..=c[o]).map(|f| (1 + f, f, false))),
                        k if matches!(k.along(), Some((Along::Chain, _))) => {
                            deltas.extend((1..=c[o]).map(|t| (0, t, false)));
                        }
                        k if k.takes() => deltas.push((0, 1, false)),
                        _ => {}
                    }
                }
                deltas.push((0, 0, false));
            }
            if mill {
                let more: Vec<_> = deltas.iter().map(|&(a, t, hand)| (a, t + 1, hand)).collect();
                deltas.extend(more);
            }
            for (add, take, hand) in deltas {
                if take > c[o] || c[0] + c[1] + add > n + take {
                    continue;
                }
                let (mut c2, mut h2) = (c, h);
                c2[s] += add;
                c2[o] -= take;
                if hand {
                    h2[s] -= 1;
                }
                let t = tier_of(c2, h2);
                if t != tier && !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        out
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        let (c, _) = counts(tier);
        if self.by_classes(c) {
            return self.classes(c[0]).ranks.len() as u64 * self.ranker.choose(self.rules.n as u32 - c[0], c[1]) * 2;
        }
        self.ranker.count(&c).map_or(0, |k| k * 2)
    }

    fn tier_name(&self, tier: Tier) -> String {
        let (c, h) = counts(tier);
        let m = self.rules.marks;
        format!("{}{}-{}{}-hand{}-{}", c[0], m[0], c[1], m[1], h[0], h[1])
    }

    /// The index of the position's representative under the board's symmetries (which keep
    /// the counts, and so the tier).
    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        if self.rules.syms.is_empty() {
            return index;
        }
        self.place_class(&self.at(tier, index)).1
    }

    /// A tier numbered by classes: a representative stands for its class (the distinct
    /// images of its two masks), any other index for none.
    fn positions_at(&self, tier: Tier, index: u64) -> u64 {
        let (c, _) = counts(tier);
        if !self.by_classes(c) {
            return 1;
        }
        let p = self.at(tier, index);
        if self.place_class(&p).1 != index { 0 } else { self.images(&p).len() as u64 }
    }

    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        self.rules.primitive(&self.at(tier, index))
    }

    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        out.extend(self.rules.children(&p).iter().map(|c| self.place_class(c)));
    }

    fn has_parents(&self) -> bool {
        self.undo
    }

    /// The positions of the same tier one move before (the only ones the solver asks for):
    /// the side that moved last took one of its pieces back, along a step, a jump over one of
    /// the opponent's pieces, or a flight, to an empty point. A side with pieces in hand
    /// places, which leaves the tier, so then there are none; nor is there one by a piece that
    /// stands in a mill of its side, where the opponent has a piece to lose: that move closed
    /// the mill and took a piece, which leaves the tier too.
    fn parents_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        let (r, m) = (&self.rules, 1 - p.side as usize);
        if p.hand[m] > 0 {
            return;
        }
        let empty = !(p.own[0] | p.own[1]) & r.full;
        let count = p.own[m].count_ones();
        let flying = r.moves[m].iter().any(|k| matches!(k, MoveKind::Fly(f) if count <= *f));
        let step = !flying && r.moves[m].contains(&MoveKind::Step);
        let jump = r.moves[m].contains(&MoveKind::Jump);
        let mine = p.own[m];
        let closed = |to: u8| r.mill_masks.iter().any(|&k| k & bit(to) != 0 && k & mine == k);
        for to in points_of(mine) {
            if p.own[1 - m] != 0 && closed(to) {
                continue;
            }
            let mut from = 0u64;
            for ray in &r.rays[to as usize] {
                if step && empty & bit(ray[0]) != 0 && r.goes(m, ray[0], to) {
                    from |= bit(ray[0]);
                }
                if jump
                    && ray.len() >= 2
                    && p.own[1 - m] & bit(ray[0]) != 0
                    && empty & bit(ray[1]) != 0
                    && r.goes(m, ray[1], to)
                {
                    from |= bit(ray[1]);
                }
            }
            if flying {
                from = empty;
            }
            for a in points_of(from) {
                let mut q = p.clone();
                q.own[m] ^= bit(to) | bit(a);
                q.side = m as u8;
                out.push(self.place_class(&q));
            }
        }
    }

    /// Only a step, a jump, a flight or a pass keeps the counts, and a side with pieces in
    /// hand only places: with both hands full no move stays in the tier.
    fn moves_within(&self, tier: Tier) -> bool {
        let (_, h) = counts(tier);
        let keeps = |s: usize| {
            h[s] == 0
                && (self.rules.pass
                    || self.rules.moves[s].iter().any(|m| {
                        matches!(m, MoveKind::Fly(_)) || matches!(m.along(), Some((Along::Step | Along::Jump, _)))
                    }))
        };
        keeps(0) || keeps(1)
    }
}

impl<P> Tiers for PointsTiers<P> {
    type Pos = P;
    /// The tier and index of a position of this game (tier 0, index 0 for any other).
    fn locate(&self, pos: &P) -> (Tier, u64) {
        (self.unwrap)(pos).map_or((0, 0), |p| self.place(p))
    }
    fn position(&self, tier: Tier, index: u64) -> P {
        (self.wrap)(self.at(tier, index))
    }
    fn try_positions(&self, tier: Tier, index: u64) -> GameResult<Vec<P>> {
        let p = self.at(tier, index);
        let whole = !self.by_classes(counts(tier).0);
        Ok(if whole { vec![(self.wrap)(p)] } else { self.images(&p).into_iter().map(self.wrap).collect() })
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;

    fn morris(points: usize, pieces: u32) -> PointsRules {
        PointsRules::new(PointsSpec {
            board: BoardSpec::Morris(points),
            marks: None,
            moves: (vec![MoveKind::Step], vec![MoveKind::Step]),
            hand: (pieces, pieces),
            towards: (Towards::Any, Towards::Any),
            mill: (points > 3).then_some(3),
            pass: false,
            ends: if points > 3 { vec![PointsEnd::FewerThan(3)] } else { vec![PointsEnd::Line(3)] },
            order: None,
        })
        .unwrap()
    }

    /// Every index of every tier of a small board is a position that goes back to it, and
    /// every child of it lies in the tier itself or in one of the tier's child tiers.
    #[test]
    fn tiers_number_every_position_once() {
        let r = morris(3, 3);
        let t: PointsTiers<PPos> = PointsTiers::new(&r, |p| p, |p| Some(p)).unwrap();
        let k: PointsKeys<PPos> = PointsKeys::new(&r, |p| p, |p| Some(p)).unwrap();
        let mut seen = 0;
        for c0 in 0..=3 {
            for c1 in 0..=3 {
                for h0 in 0..=3 - c0 {
                    for h1 in 0..=3 - c1 {
                        let tier = tier_of([c0, c1], [h0, h1]);
                        let kids = t.child_tiers(tier);
                        let size = t.tier_size(tier);
                        // 9! / (c0! c1! (9 - c0 - c1)!) placements, each with either side to move.
                        let f = |n: u64| (1..=n).product::<u64>();
                        let (a, b) = (u64::from(c0), u64::from(c1));
                        assert_eq!(size, 2 * f(9) / (f(a) * f(b) * f(9 - a - b)));
                        for i in 0..size {
                            let p = t.at(tier, i);
                            assert_eq!(t.place(&p), (tier, i));
                            assert_eq!(k.position(k.key(&p)), p);
                            for ch in r.children(&p) {
                                let (ct, _) = t.place(&ch);
                                assert!(
                                    ct == tier || kids.contains(&ct),
                                    "{} -> {}",
                                    t.tier_name(tier),
                                    t.tier_name(ct)
                                );
                                if ct == tier {
                                    assert!(t.moves_within(tier));
                                }
                            }
                            seen += 1;
                        }
                    }
                }
            }
        }
        assert!(seen > 0);
    }

    /// Every tier of the largest board with tiers (39 points) has a size below 2^64, and a
    /// board of one point more has none, said so; Fox and Geese's 33-point cross has tiers.
    #[test]
    fn tiers_reach_39_points() {
        let on = |board: BoardSpec| {
            let r = PointsRules::new(PointsSpec {
                board,
                marks: None,
                moves: (vec![MoveKind::Step], vec![MoveKind::Step]),
                hand: (3, 3),
                towards: (Towards::Any, Towards::Any),
                mill: None,
                pass: false,
                ends: vec![PointsEnd::Line(3)],
                order: None,
            })
            .unwrap();
            PointsTiers::<PPos>::new(&r, |p| p, |p| Some(p))
        };
        let t = on(BoardSpec::Grid { rows: 3, cols: 13, diagonals: false }).unwrap();
        for c0 in 0..=39u32 {
            for c1 in 0..=39 - c0 {
                let n = t.ranker.count(&[c0, c1]).expect("below 2^64");
                assert!(n.checked_mul(2).is_some(), "{c0} {c1}");
            }
        }
        let refused = on(BoardSpec::Grid { rows: 5, cols: 8, diagonals: false }).err().unwrap();
        assert_eq!(refused, "a board of 40 points has no tiers (at most 39)");
        assert!(on(BoardSpec::Cross(7)).is_ok());
    }

    /// Six Men's Morris and Nine Men's flying at three (every index of the tiers of three and
    /// four men a side on the board, none in hand), Fox and Geese on `Cross(5)` (geese that
    /// never step up, the fox's chains of captures) and Toads and Frogs on a row of 7 (each
    /// side one way, stepping and jumping): each representative's parents in its tier are
    /// exactly the representatives of the tier whose children include it, the moves
    /// inverted; a move that closes a mill leaves the tier.
    #[test]
    fn morris_parents_are_the_inverted_moves() {
        use std::collections::{BTreeSet, HashMap};
        let flying = [MoveKind::Step, MoveKind::Fly(3)];
        let nine = PointsRules::new(PointsSpec {
            board: BoardSpec::Morris(9),
            marks: None,
            moves: (flying.to_vec(), flying.to_vec()),
            hand: (9, 9),
            towards: (Towards::Any, Towards::Any),
            mill: Some(3),
            pass: false,
            ends: vec![PointsEnd::FewerThan(3)],
            order: None,
        })
        .unwrap();
        let one_way = |board, moves: (Vec<MoveKind>, Vec<MoveKind>), hand, towards, ends| {
            let spec =
                PointsSpec { board, marks: None, moves, hand, towards, mill: None, pass: false, ends, order: None };
            PointsRules::new(spec).unwrap()
        };
        let fox = one_way(
            BoardSpec::Cross(5),
            (vec![MoveKind::Step], vec![MoveKind::Step, MoveKind::Chain]),
            (5, 1),
            (Towards::NotUp, Towards::Any),
            vec![PointsEnd::Captured(2)],
        );
        let both = vec![MoveKind::Step, MoveKind::Jump];
        let toads = one_way(BoardSpec::Row(7), (both.clone(), both), (0, 0), (Towards::Right, Towards::Left), vec![]);
        let cases = [
            (morris(6, 6), vec![[3, 3], [4, 3], [3, 4], [4, 4]]),
            (nine, vec![[3, 3]]),
            (fox, vec![[4, 1], [5, 1]]),
            (toads, vec![[3, 3], [2, 3]]),
        ];
        for ((r, counts), above) in cases.into_iter().flat_map(|rc| [(rc.clone(), CLASSES_ABOVE), (rc, 0)]) {
            // Numbered whole, then by classes.
            let t: PointsTiers<PPos> = PointsTiers::new(&r, |p| p, |p| Some(p)).unwrap().with_classes_above(above);
            assert!(t.has_parents());
            for c in counts {
                let tier = tier_of(c, [0, 0]);
                let size = t.tier_size(tier);
                let (mut want, mut kids): (HashMap<u64, BTreeSet<u64>>, _) = (HashMap::new(), Vec::new());
                for i in (0..size).filter(|&i| t.canonical_index(tier, i) == i && t.primitive_at(tier, i).is_none()) {
                    kids.clear();
                    t.children_at(tier, i, &mut kids);
                    for &(_, j) in kids.iter().filter(|&&(ct, _)| ct == tier) {
                        want.entry(j).or_default().insert(i);
                    }
                }
                assert!(!want.is_empty());
                let mut up = Vec::new();
                for i in (0..size).filter(|&i| t.canonical_index(tier, i) == i) {
                    up.clear();
                    t.parents_at(tier, i, &mut up);
                    assert!(up.iter().all(|&(ct, _)| ct == tier));
                    let got: BTreeSet<u64> = up.iter().map(|&(_, q)| q).collect();
                    assert_eq!(got, want.remove(&i).unwrap_or_default(), "{}", r.format(&t.at(tier, i)));
                }
            }
        }
    }

    /// Tiers numbered by classes (here small ones, to check them against the whole
    /// numbering): each position of a tier is placed on an index of its class, and each class
    /// has one index that is its own representative; each index holds a position whose first
    /// player's points are the least of their images; a representative's children and
    /// parents are those of the same position numbered whole.
    #[test]
    fn tiers_by_classes_number_each_class_once() {
        use crate::game::tier::Tiers;
        use std::collections::BTreeSet;
        let key = |p: &PPos| (p.own, p.side, p.hand);
        let r = morris(6, 6);
        let whole: PointsTiers<PPos> = PointsTiers::new(&r, |p| p, |p| Some(p)).unwrap();
        let classes: PointsTiers<PPos> = PointsTiers::new(&r, |p| p, |p| Some(p)).unwrap().with_classes_above(0);
        for (c, h) in [([3, 3], [0, 0]), ([4, 3], [0, 0]), ([2, 5], [0, 0]), ([4, 4], [1, 2]), ([0, 1], [6, 5])] {
            let tier = tier_of(c, h);
            let (n, m) = (whole.tier_size(tier), classes.tier_size(tier));
            assert!(classes.by_classes(c) && !whole.by_classes(c));
            assert!(m < n || c[0] == 0, "{}: {m} of {n}", whole.tier_name(tier));
            let mut want = BTreeSet::new();
            for i in 0..n {
                let p = whole.at(tier, i);
                let (t, j) = classes.place(&p);
                assert!(t == tier && j < m);
                assert_eq!(classes.at(tier, j), r.canonical(&p));
                assert_eq!(classes.canonical_index(tier, j), j);
                want.insert(key(&r.canonical(&p)));
            }
            let mut got = BTreeSet::new();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            // Counted by `positions_at` and listed by `try_positions`, the indices stand for
            // every position of the tier once.
            let mut all = BTreeSet::new();
            for j in 0..m {
                let stands = classes.try_positions(tier, j).unwrap();
                let n = classes.positions_at(tier, j);
                assert_eq!(if n == 0 { 0 } else { stands.len() as u64 }, n);
                all.extend(stands.iter().take(n as usize).map(key));
            }
            assert_eq!(all.len() as u64, n, "{}: every position once", whole.tier_name(tier));
            assert_eq!((0..m).map(|j| classes.positions_at(tier, j)).sum::<u64>(), n);
            for j in 0..m {
                let p = classes.at(tier, j);
                assert!(r.syms.iter().all(|g| g.apply(p.own[0]) >= p.own[0]));
                let k = classes.canonical_index(tier, j);
                assert_eq!(classes.at(tier, k), r.canonical(&p));
                if k != j {
                    continue;
                }
                got.insert(key(&p));
                let i = whole.place(&p).1;
                for (ours, theirs, up) in [(&classes, &whole, false), (&classes, &whole, true)] {
                    a.clear();
                    b.clear();
                    if up {
                        ours.parents_at(tier, j, &mut a);
                        theirs.parents_at(tier, i, &mut b);
                    } else {
                        ours.children_at(tier, j, &mut a);
                        theirs.children_at(tier, i, &mut b);
                    }
                    let x: BTreeSet<_> = a.iter().map(|&(t, q)| key(&ours.at(t, q))).collect();
                    let y: BTreeSet<_> = b.iter().map(|&(t, q)| key(&theirs.at(t, q))).collect();
                    assert_eq!(x, y, "{} {}", if up { "parents" } else { "children" }, r.format(&p));
                }
            }
            assert_eq!(got, want, "{}: one index a class", whole.tier_name(tier));
        }
    }

    /// Six Men's Morris: the tiers of mills and removals hold every child too.
    #[test]
    fn six_mens_children_lie_in_child_tiers() {
        let r = morris(6, 6);
        let t: PointsTiers<PPos> = PointsTiers::new(&r, |p| p, |p| Some(p)).unwrap();
        for (c, h) in [([3, 3], [3, 3]), ([5, 4], [1, 1]), ([6, 5], [0, 0]), ([3, 4], [0, 0]), ([2, 2], [4, 4])] {
            let tier = tier_of(c, h);
            let kids = t.child_tiers(tier);
            let size = t.tier_size(tier);
            for i in (0..size).step_by((size / 5000).max(1) as usize) {
                let p = t.at(tier, i);
                assert_eq!(t.place(&p), (tier, i));
                for ch in r.children(&p) {
                    let (ct, ci) = t.place(&ch);
                    assert!(ct == tier || kids.contains(&ct), "{} -> {}", t.tier_name(tier), t.tier_name(ct));
                    assert!(ci < t.tier_size(ct));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(board: BoardSpec, moves: Vec<MoveKind>, ends: Vec<PointsEnd>) -> PointsRules {
        let spec = PointsSpec {
            board,
            marks: None,
            moves: (moves.clone(), moves),
            hand: (0, 0),
            towards: (Towards::Any, Towards::Any),
            mill: None,
            pass: true,
            ends,
            order: None,
        };
        PointsRules::new(spec).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// Othello's flips by hand: on a row x o o . , x placing on point 3 turns 1 and 2.
    #[test]
    fn flank_turns_the_runs() {
        let r = rules(BoardSpec::Row(4), vec![MoveKind::Flank], vec![PointsEnd::MostPieces]);
        let p = r.parse("xoo. x").unwrap();
        let names: Vec<String> = r.moves(&p).into_iter().map(|m| r.move_name(&p, m)).collect();
        assert_eq!(names, ["3"]);
        let q = r.children(&p).remove(0);
        assert_eq!(r.format(&q), "xxxx o");
        // Neither can move now: x has 4, o none.
        assert_eq!(r.primitive(&q), Some(Value::Lose));
    }

    /// The star's lines: point 0 is joined to 5 and 9, and jumps from 0 land on 6 and 8.
    #[test]
    fn star_lines() {
        let r = rules(BoardSpec::Star, vec![MoveKind::Step, MoveKind::Capture], vec![]);
        let p = r.parse("x....o...o x").unwrap();
        let mut names: Vec<String> = r.moves(&p).into_iter().map(|m| r.move_name(&p, m)).collect();
        names.sort();
        assert_eq!(names, ["0-6", "0-8"]);
    }

    /// A mill removes a piece, one outside the opponent's mills while there is one.
    #[test]
    fn mill_removes_outside_mills() {
        let spec = PointsSpec {
            board: BoardSpec::Morris(3),
            marks: None,
            moves: (vec![MoveKind::Step], vec![MoveKind::Step]),
            hand: (4, 4),
            towards: (Towards::Any, Towards::Any),
            mill: Some(3),
            pass: false,
            ends: vec![],
            order: None,
        };
        let r = PointsRules::new(spec).unwrap();
        // x places its third man on 2, making the top row: o's men at 3, 4, 5 are a mill,
        // the one at 8 is not, so only 8 may go.
        let p = r.parse("xx.ooo..o x 2 0").unwrap();
        let names: Vec<String> = r.moves(&p).into_iter().map(|m| r.move_name(&p, m)).collect();
        assert!(names.contains(&"2x8".to_string()), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with("2x3") || n.starts_with("2x4")), "{names:?}");
    }
}

#[cfg(test)]
mod symmetry_tests {
    use super::symmetry::permute;
    use super::*;

    fn rules(board: BoardSpec, towards: (Towards, Towards), ends: Vec<PointsEnd>, mill: Option<usize>) -> PointsRules {
        let hand = if mill.is_some() { (6, 6) } else { (0, 0) };
        let spec = PointsSpec {
            board,
            marks: None,
            moves: (vec![MoveKind::Step, MoveKind::Jump], vec![MoveKind::Step, MoveKind::Capture]),
            hand,
            towards,
            mill,
            pass: false,
            ends,
            order: None,
        };
        PointsRules::new(spec).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// The size of each board's group, counted by hand: a square's 8 (turns and mirrors), a
    /// rectangle's 4, a row's 2; the Morris boards of two and three squares 16 (the square's
    /// 8, each also with the inner and outer squares swapped); the star's 10 (5 turns, 5
    /// mirrors); the cross's 8, and its left–right mirror alone when one side may not go up.
    /// A side that may only go right keeps no mirror of a row; a unit square (`Square`) is
    /// kept by the square's 8.
    #[test]
    fn groups_of_the_boards() {
        let any = (Towards::Any, Towards::Any);
        let grid = |rows, cols, diagonals| BoardSpec::Grid { rows, cols, diagonals };
        let cases = [
            (rules(grid(5, 5, true), any, vec![PointsEnd::Line(4), PointsEnd::Square], None), 8),
            (rules(grid(4, 4, false), any, vec![], None), 8),
            (rules(grid(3, 4, true), any, vec![], None), 4),
            (rules(BoardSpec::Row(8), any, vec![], None), 2),
            (rules(BoardSpec::Row(8), (Towards::Right, Towards::Left), vec![], None), 1),
            (rules(grid(4, 4, false), (Towards::Down, Towards::Up), vec![], None), 2),
            (rules(BoardSpec::Morris(3), any, vec![PointsEnd::Line(3)], None), 8),
            (rules(BoardSpec::Morris(6), any, vec![PointsEnd::FewerThan(3)], Some(3)), 16),
            (rules(BoardSpec::Morris(9), any, vec![PointsEnd::FewerThan(3)], Some(3)), 16),
            (rules(BoardSpec::Star, any, vec![], None), 10),
            (rules(BoardSpec::Cross(7), any, vec![], None), 8),
            (rules(BoardSpec::Cross(5), (Towards::NotUp, Towards::Any), vec![], None), 2),
        ];
        for (i, (r, n)) in cases.iter().enumerate() {
            assert_eq!(r.symmetry_count(), *n, "case {i}");
        }
        // Points on no line may be exchanged every way: the search gives up, and keeps the
        // identity alone.
        let loose = rules(BoardSpec::Lines { points: 20, lines: vec![vec![0, 1]] }, any, vec![], None);
        assert_eq!(loose.symmetry_count(), 1);
    }

    /// Each symmetry commutes with the rules, checked on the rules themselves: at positions
    /// spread over each board, the image's moves lead to the images of the children, and the
    /// image ends as the position does.
    #[test]
    fn symmetries_commute_with_the_rules() {
        let any = (Towards::Any, Towards::Any);
        let boards = [
            rules(
                BoardSpec::Grid { rows: 5, cols: 5, diagonals: true },
                any,
                vec![PointsEnd::Line(4), PointsEnd::Square],
                None,
            ),
            rules(BoardSpec::Morris(9), any, vec![PointsEnd::FewerThan(3)], Some(3)),
            rules(BoardSpec::Star, any, vec![PointsEnd::FewerThan(4)], None),
            rules(BoardSpec::Grid { rows: 4, cols: 4, diagonals: false }, (Towards::Down, Towards::Up), vec![], None),
            rules(BoardSpec::Cross(7), (Towards::NotUp, Towards::Any), vec![], None),
        ];
        for r in &boards {
            let mut next = symmetry::xorshift(12345);
            for _ in 0..300 {
                let (a, b) = (next() & r.full, next() & r.full);
                let p = PPos { own: [a & !b, b & !a & next()], side: (next() & 1) as u8, hand: [0, 0] };
                for sym in &r.syms {
                    let perm = &sym.perm;
                    // The tables a byte at a time map a mask as the permutation point by point.
                    assert_eq!(
                        (sym.apply(p.own[0]), sym.apply(p.own[1])),
                        (permute(perm, p.own[0]), permute(perm, p.own[1]))
                    );
                    let img = |q: &PPos| PPos { own: [permute(perm, q.own[0]), permute(perm, q.own[1])], ..q.clone() };
                    let mut want: Vec<_> = r.children(&p).iter().map(img).map(|q| (q.own, q.side)).collect();
                    let mut got: Vec<_> = r.children(&img(&p)).iter().map(|q| (q.own, q.side)).collect();
                    want.sort_unstable();
                    got.sort_unstable();
                    assert_eq!(got, want);
                    assert_eq!(r.primitive(&img(&p)), r.primitive(&p));
                    assert_eq!(r.canonical(&img(&p)), r.canonical(&p));
                }
            }
        }
    }
}
