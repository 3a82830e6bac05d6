//! The small pieces of the value-first search ([`super::quick`]): the ordering of children,
//! what the depth-bounded searches have shown of a position, and the search for the least
//! depth.

use super::memo::Stored;
use crate::game::Value;

/// Whether children are searched fewest replies first.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// Not yet known to matter: this many positions had siblings all with as many replies.
    Trial(u32),
    On,
    Off,
}

/// Positions whose children all have as many replies, after which the ordering is dropped.
pub const ORDERING_TRIAL: u32 = 2000;

/// What depth-bounded searches have shown of one position: it is won within `win_at` moves
/// and not within fewer than `win_below` (likewise lost), `u32::MAX` for "never" and
/// "unknown" respectively.
#[derive(Clone, Copy)]
pub struct Bounds {
    win_below: u32,
    win_at: u32,
    lose_below: u32,
    lose_at: u32,
}

/// Each bound in 16 bits: every finite one is at most `REMOTENESS_CAP + 1`, and `u32::MAX`
/// is `u16::MAX`.
impl Stored for Bounds {
    const BYTES: usize = 8;
    #[inline]
    fn store(self, out: &mut [u8]) {
        let short = |v: u32| if v == u32::MAX { u16::MAX } else { v.min(u32::from(u16::MAX - 1)) as u16 };
        for (i, v) in [self.win_below, self.win_at, self.lose_below, self.lose_at].into_iter().enumerate() {
            out[2 * i..2 * i + 2].copy_from_slice(&short(v).to_le_bytes());
        }
    }
    #[inline]
    fn load(b: &[u8]) -> Self {
        let long = |i: usize| {
            let v = u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
            if v == u16::MAX { u32::MAX } else { u32::from(v) }
        };
        Bounds { win_below: long(0), win_at: long(1), lose_below: long(2), lose_at: long(3) }
    }
}

impl Bounds {
    pub const NONE: Bounds = Bounds { win_below: 0, win_at: u32::MAX, lose_below: 0, lose_at: u32::MAX };

    #[inline]
    fn of(&mut self, want: Value) -> (&mut u32, &mut u32) {
        if want == Value::Win {
            (&mut self.win_below, &mut self.win_at)
        } else {
            (&mut self.lose_below, &mut self.lose_at)
        }
    }

    /// Is the position `want` within `d` moves, as far as known?
    #[inline]
    pub fn decided(mut self, want: Value, d: u32) -> Option<bool> {
        let (below, at) = self.of(want);
        if d < *below {
            Some(false)
        } else if d >= *at {
            Some(true)
        } else {
            None
        }
    }

    #[inline]
    pub fn record(&mut self, want: Value, d: u32, within: bool) {
        let (below, at) = self.of(want);
        if within {
            *at = (*at).min(d);
        } else {
            *below = (*below).max(d.saturating_add(1));
        }
    }
}

/// The deepest remoteness [`super::quick::QuickSolver::remoteness`] looks for before leaving it to the full
/// search (each depth is one more search, and the search recurses that deep).
pub const REMOTENESS_CAP: u32 = 400;

/// What the value search has shown of a position's value for the player to move: it lies
/// between `lo` and `hi` in the order lose < tie < win (0, 1, 2), known exactly where they
/// meet. A move to a position worth `v` to the opponent is worth `2 - v` to the mover.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Known {
    pub lo: u8,
    pub hi: u8,
}

pub const LOSE: u8 = 0;
pub const TIE: u8 = 1;
pub const WIN: u8 = 2;

impl Known {
    pub const NOTHING: Known = Known { lo: LOSE, hi: WIN };

    /// A value known exactly; `None` for a draw, which is not in the order.
    #[inline]
    pub fn exact(v: Value) -> Option<Known> {
        let r = match v {
            Value::Lose => LOSE,
            Value::Tie => TIE,
            Value::Win => WIN,
            Value::Draw => return None,
        };
        Some(Known { lo: r, hi: r })
    }

    /// The value, where known exactly.
    #[inline]
    pub fn value(self) -> Option<Value> {
        (self.lo == self.hi).then(|| [Value::Lose, Value::Tie, Value::Win][usize::from(self.lo)])
    }

    /// What both show.
    #[inline]
    pub fn meet(self, other: Known) -> Known {
        Known { lo: self.lo.max(other.lo), hi: self.hi.min(other.hi) }
    }

    /// Known to be `v` (a win or a loss).
    #[inline]
    pub fn is(self, v: Value) -> bool {
        self.value() == Some(v)
    }

    /// Known not to be `v` (a win or a loss).
    #[inline]
    pub fn excludes(self, v: Value) -> bool {
        if v == Value::Win { self.hi < WIN } else { self.lo > LOSE }
    }
}

/// Both bounds in one byte.
impl Stored for Known {
    const BYTES: usize = 1;
    #[inline]
    fn store(self, out: &mut [u8]) {
        out[0] = self.lo | (self.hi << 2);
    }
    #[inline]
    fn load(b: &[u8]) -> Self {
        Known { lo: b[0] & 3, hi: b[0] >> 2 }
    }
}

/// The least depth `d` up to [`REMOTENESS_CAP`] at which `within(d)` holds (the depth-bounded
/// searches of growing depth, on positions or on keys), `None` past it; the first error
/// stops them.
pub fn least_depth<E>(mut within: impl FnMut(u32) -> Result<bool, E>) -> Result<Option<u32>, E> {
    for d in 0..=REMOTENESS_CAP {
        if within(d)? {
            return Ok(Some(d));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of bounds goes through its byte and back; the values known exactly are the
    /// three of the order, and what two searches show together is the narrower of the two.
    #[test]
    fn known_bounds_keep_through_their_byte() {
        for lo in LOSE..=WIN {
            for hi in lo..=WIN {
                let k = Known { lo, hi };
                let mut b = [0u8];
                k.store(&mut b);
                assert_eq!(Known::load(&b), k);
                assert_eq!(k.value().is_some(), lo == hi);
            }
        }
        for v in [Value::Lose, Value::Tie, Value::Win] {
            assert_eq!(Known::exact(v).and_then(Known::value), Some(v));
        }
        assert_eq!(Known::exact(Value::Draw), None);
        let at_least_tie = Known { lo: TIE, hi: WIN };
        let at_most_tie = Known { lo: LOSE, hi: TIE };
        assert_eq!(at_least_tie.meet(at_most_tie).value(), Some(Value::Tie));
        assert!(at_least_tie.excludes(Value::Lose) && !at_least_tie.excludes(Value::Win));
        assert!(at_most_tie.excludes(Value::Win) && !at_most_tie.is(Value::Lose));
    }
}
