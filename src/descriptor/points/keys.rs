//! A points game's positions as integer keys (the searches of value and remoteness run on
//! them) and by tier and index (the tier solver and the array database).
//!
//! A key: the first player's points in bits `0..n`, the second's in `n..2n`, the side to move
//! in bit `2n`, the pieces in hand in the 7 bits from `2n + 1` and from `2n + 8` (boards of
//! at most 56 points). A tier: the pieces of each side on the board and in hand; the index in
//! a tier: the combinatorial rank of the two masks among the boards with those counts, times
//! two, plus the side to move.

use super::{MoveKind, PPos, PointsRules};
use crate::game::Value;
use crate::game::packed::PackedPlay;
use crate::game::tier::{Ranker, Tier, TierSpace, Tiers};

/// The most points a keyed board may have (two masks, the side and two hands in 128 bits).
pub const MAX_KEY_POINTS: usize = 56;
/// The most points a board numbered by tiers may have (an index below 2^64).
pub const MAX_TIER_POINTS: usize = 32;

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
    /// The rules of a points game keep no symmetry (`canonical` is the position itself).
    fn canonical(&self, key: u128) -> u128 {
        key
    }
    fn children(&self, key: u128, out: &mut Vec<u128>) {
        let p = self.position(key);
        out.extend(self.rules.children(&p).iter().map(|c| self.key(c)));
    }
    fn primitive(&self, key: u128) -> Option<Value> {
        self.rules.primitive(&self.position(key))
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

/// A points game by tiers, over the game's own position type `P`.
pub struct PointsTiers<P> {
    rules: PointsRules,
    ranker: Ranker,
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
        Ok(PointsTiers { rules: rules.clone(), ranker: Ranker::new(rules.n as u32), wrap, unwrap })
    }

    /// The tier and index of a position.
    pub fn place(&self, p: &PPos) -> (Tier, u64) {
        let c = [p.own[0].count_ones(), p.own[1].count_ones()];
        let tier = tier_of(c, [u32::from(p.hand[0]), u32::from(p.hand[1])]);
        (tier, self.ranker.rank(&p.own) * 2 + u64::from(p.side & 1))
    }

    /// The position at `index` of `tier`.
    pub fn at(&self, tier: Tier, index: u64) -> PPos {
        let (c, h) = counts(tier);
        let mut own = [0u64; 2];
        self.ranker.unrank(&c, index / 2, &mut own);
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
                        MoveKind::Capture => deltas.push((0, 1, false)),
                        MoveKind::Step | MoveKind::Jump | MoveKind::Fly(_) => {}
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
        self.ranker.count(&c).map_or(0, |k| k * 2)
    }

    fn tier_name(&self, tier: Tier) -> String {
        let (c, h) = counts(tier);
        let m = self.rules.marks;
        format!("{}{}-{}{}-hand{}-{}", c[0], m[0], c[1], m[1], h[0], h[1])
    }

    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        self.rules.primitive(&self.at(tier, index))
    }

    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.at(tier, index);
        out.extend(self.rules.children(&p).iter().map(|c| self.place(c)));
    }

    /// Only a step, a jump, a flight or a pass keeps the counts, and a side with pieces in
    /// hand only places: with both hands full no move stays in the tier.
    fn moves_within(&self, tier: Tier) -> bool {
        let (_, h) = counts(tier);
        let keeps = |s: usize| {
            h[s] == 0
                && (self.rules.pass
                    || self.rules.moves[s]
                        .iter()
                        .any(|m| matches!(m, MoveKind::Step | MoveKind::Jump | MoveKind::Fly(_))))
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
}

#[cfg(test)]
mod tests {
    use super::super::{BoardSpec, PointsEnd, PointsSpec, Towards};
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
