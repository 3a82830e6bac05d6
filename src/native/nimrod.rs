//! Nimrod (Wythoff's game) by its closed form, in exact integer arithmetic.
//!
//! The losing positions are (⌊nφ⌋, ⌊nφ²⌋) = (⌊nφ⌋, ⌊nφ⌋ + n) for n = 0, 1, 2, …, and
//! ⌊nφ⌋ = ⌊(n + ⌊n√5⌋) / 2⌋ with ⌊n√5⌋ = isqrt(5n²): no floating point, piles of any size.
//! Every positive integer is in exactly one losing pair, which gives the winning moves.
//! Grundy values have no closed form: they come from a table for piles up to
//! [`GRUNDY_TABLE`], and are not claimed beyond.

use super::command::{Call, Io, Work};
use super::common::{format_big_heaps, parse_big_heaps, too_many_moves};
use crate::game::{
    Capabilities, ClosedForm, Footprint, Game, GameError, GameInfo, GameResult, Hints, Kind, Shortcut, Value, View,
};
use crate::solve::grundy::mex;
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use std::sync::OnceLock;

/// Grundy values are tabulated for piles up to this size.
pub const GRUNDY_TABLE: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piles(pub BigUint, pub BigUint);

impl Footprint for Piles {
    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes() + self.1.heap_bytes()
    }
}

/// (taken from pile A, taken from pile B)
pub type NimrodMove = (BigUint, BigUint);

/// ⌊nφ⌋
pub fn lower(n: &BigUint) -> BigUint {
    (n + (n * n * 5u32).sqrt()) >> 1
}

/// The n-th losing position (n from 0).
pub fn losing_pair(n: &BigUint) -> (BigUint, BigUint) {
    let a = lower(n);
    let b = &a + n;
    (a, b)
}

pub fn is_losing(a: &BigUint, b: &BigUint) -> bool {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    lower(&(hi - lo)) == *lo
}

/// The other member of the losing pair that contains `x`.
pub fn partner(x: &BigUint) -> BigUint {
    if x.is_zero() {
        return BigUint::zero();
    }
    let s = (x * x * 5u32).sqrt(); // ⌊x√5⌋
    // x = ⌊nφ⌋ for n ≈ x/φ = x(√5 − 1)/2 …
    let n0 = (&s - x.min(&s)) >> 1;
    for d in 0..4u32 {
        let cand: BigUint = &n0 + d;
        if cand <= BigUint::from(1u32) {
            continue;
        }
        let n = cand - 1u32;
        if lower(&n) == *x {
            return x + n;
        }
    }
    // … or x = ⌊mφ⌋ + m for m ≈ x/φ² = x(3 − √5)/2.
    let m0 = (x * 3u32 - &s) >> 1;
    for d in 0..4u32 {
        let cand: BigUint = &m0 + d;
        if cand <= BigUint::from(1u32) {
            continue;
        }
        let m = cand - 1u32;
        if lower(&m) + &m == *x {
            return lower(&m);
        }
    }
    unreachable!("every positive integer is in exactly one losing pair ({x})")
}

/// Every winning move from (a, b), in the script's order: from pile A, from pile B, from both.
pub fn winning_moves(a: &BigUint, b: &BigUint) -> Vec<NimrodMove> {
    let zero = BigUint::zero();
    let mut out = Vec::new();
    if is_losing(a, b) {
        return out;
    }
    let pa = partner(b);
    if pa < *a {
        out.push((a - pa, zero.clone()));
    }
    let pb = partner(a);
    if pb < *b {
        out.push((zero.clone(), b - pb));
    }
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    let target = lower(&(hi - lo));
    if target < *lo {
        let k = lo - target;
        out.push((k.clone(), k));
    }
    out
}

/// Grundy values of Wythoff's game for piles up to [`GRUNDY_TABLE`] (computed once).
fn grundy_table() -> &'static Vec<Vec<u32>> {
    static TABLE: OnceLock<Vec<Vec<u32>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let n = GRUNDY_TABLE + 1;
        let mut g = vec![vec![0u32; n]; n];
        let mut seen = Vec::new();
        for a in 0..n {
            for b in 0..n {
                seen.clear();
                seen.extend((0..a).map(|x| g[x][b] as u64));
                seen.extend((0..b).map(|y| g[a][y] as u64));
                seen.extend((1..=a.min(b)).map(|k| g[a - k][b - k] as u64));
                g[a][b] = mex(&seen) as u32;
            }
        }
        g
    })
}

pub fn grundy(a: &BigUint, b: &BigUint) -> Option<u64> {
    let (a, b) = (a.to_usize()?, b.to_usize()?);
    (a <= GRUNDY_TABLE && b <= GRUNDY_TABLE).then(|| grundy_table()[a][b] as u64)
}

pub struct Nimrod {
    info: GameInfo,
}

impl Nimrod {
    pub fn new(mut info: GameInfo) -> Nimrod {
        info.kind = Kind::Impartial;
        Nimrod { info }
    }
}

impl Game for Nimrod {
    type Pos = Piles;
    type Move = NimrodMove;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<Piles>> {
        Ok(Some(Piles(5u32.into(), 9u32.into())))
    }

    fn parse(&self, text: &str) -> GameResult<Piles> {
        let mut p = parse_big_heaps(text)?;
        if p.len() != 2 {
            return Err(GameError::BadPosition(format!("Nimrod has two piles, e.g. \"5,9\" (got {})", p.len())));
        }
        let b = p.pop().expect("two");
        let a = p.pop().expect("two");
        Ok(Piles(a, b))
    }

    fn format(&self, p: &Piles) -> GameResult<String> {
        Ok(format_big_heaps(&[p.0.clone(), p.1.clone()]))
    }

    fn moves(&self, p: &Piles) -> GameResult<Vec<NimrodMove>> {
        let total = &p.0 + &p.1 + (&p.0).min(&p.1);
        if total > BigUint::from(crate::game::MAX_MOVES) {
            return Err(too_many_moves(total));
        }
        let (a, b) = (p.0.to_u64().expect("small"), p.1.to_u64().expect("small"));
        let z = BigUint::zero;
        let mut out: Vec<NimrodMove> = (1..=a).map(|k| (k.into(), z())).collect();
        out.extend((1..=b).map(|k| (z(), k.into())));
        out.extend((1..=a.min(b)).map(|k| (k.into(), k.into())));
        Ok(out)
    }

    fn play(&self, p: &Piles, mv: &NimrodMove) -> GameResult<Piles> {
        Ok(Piles(&p.0 - &mv.0, &p.1 - &mv.1))
    }

    fn move_name(&self, _p: &Piles, mv: &NimrodMove) -> GameResult<String> {
        Ok(format!("take {} from pile A and {} from pile B", mv.0, mv.1))
    }

    fn primitive(&self, _p: &Piles) -> GameResult<Option<Value>> {
        Ok(None)
    }

    fn canonical(&self, p: &Piles) -> GameResult<Piles> {
        Ok(if p.0 <= p.1 { p.clone() } else { Piles(p.1.clone(), p.0.clone()) })
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities { view: Some(self), closed_form: Some(self), hints: Some(self), ..Capabilities::none() }
    }
}

impl View<Piles, NimrodMove> for Nimrod {
    /// What a person types: `A B` (or `A,B`), the rods taken from pile A and from pile B, as
    /// the assignment's human player enters them; or a move's full name.
    fn parse_move(&self, p: &Piles, text: &str) -> GameResult<Option<NimrodMove>> {
        self.typed_move(p, text).map(Some)
    }
}

impl Nimrod {
    fn typed_move(&self, p: &Piles, text: &str) -> GameResult<NimrodMove> {
        let text = text.trim();
        let nums: Vec<&str> = text.split([' ', ',']).filter(|t| !t.is_empty()).collect();
        let (Ok(a), Ok(b)) = (
            nums.first().copied().unwrap_or("").parse::<BigUint>(),
            nums.get(1).copied().unwrap_or("").parse::<BigUint>(),
        ) else {
            return crate::game::move_named(self, p, text).map_err(|_| {
                GameError::BadMove(format!(
                    "{}: a move is two numbers, the rods taken from pile A and from pile B (\"0 3\")",
                    crate::input::quote(text)
                ))
            });
        };
        if nums.len() != 2 {
            return Err(GameError::BadMove(format!("{}: a move is two numbers (\"0 3\")", crate::input::quote(text))));
        }
        let why = if a.is_zero() && b.is_zero() {
            Some("a move takes at least one rod".to_string())
        } else if !a.is_zero() && !b.is_zero() && a != b {
            Some("from both piles, a move takes the same number".to_string())
        } else if a > p.0 || b > p.1 {
            Some(format!("the piles hold only {} and {}", p.0, p.1))
        } else {
            None
        };
        match why {
            Some(why) => Err(GameError::BadMove(format!("{}: {why}", crate::input::quote(text)))),
            None => Ok((a, b)),
        }
    }
}

impl ClosedForm<Piles, NimrodMove> for Nimrod {
    fn shortcut(&self, p: &Piles) -> GameResult<Option<Shortcut<NimrodMove>>> {
        let winning_moves = winning_moves(&p.0, &p.1);
        let value = if winning_moves.is_empty() { Value::Lose } else { Value::Win };
        Ok(Some(Shortcut { value, remoteness: None, grundy: grundy(&p.0, &p.1), winning_moves }))
    }
}

impl Hints<Piles> for Nimrod {
    fn search_size(&self, p: &Piles) -> Option<f64> {
        // Every pair below, each with about a + b moves (from either pile, or both equally).
        let (a, b) = (p.0.to_f64()?, p.1.to_f64()?);
        Some((a + 1.0) * (b + 1.0) * ((a + b) / 2.0).max(1.0))
    }
}

/// `gamesman nimrod A B`: whether the player to move loses, and every winning move.
pub fn report(a: &BigUint, b: &BigUint) -> String {
    let moves = winning_moves(a, b);
    if moves.is_empty() {
        return "lose\n".to_string();
    }
    let mut out = String::from("win\n");
    for (x, y) in moves {
        out += &format!("take {x} from pile A and {y} from pile B\n");
    }
    out
}

/// `gamesman nimrod --lose-positions K`: the first K losing positions, as in the assignment.
pub fn lose_positions(k: u64) -> String {
    let mut out = Vec::new();
    write_lose_positions(k, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("digits")
}

/// [`lose_positions`], written as it goes (a billion of them need no memory).
pub fn write_lose_positions(k: u64, out: &mut impl std::io::Write) -> std::io::Result<()> {
    for n in 0..k {
        let (a, b) = losing_pair(&BigUint::from(n));
        writeln!(out, "({a} {b})")?;
    }
    Ok(())
}

/// A random small position (for `gamesman check`): two piles of at most 24.
pub fn sample(rng: &mut fastrand::Rng) -> String {
    format!("{},{}", rng.u32(0..=24), rng.u32(0..=24))
}

fn pile(text: Option<&str>, name: &str) -> anyhow::Result<BigUint> {
    let Some(t) = text else { anyhow::bail!("give two piles, e.g. `gamesman nimrod 5 9` (pile {name} is missing)") };
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        anyhow::bail!("pile {name} must be a whole number of rods, not {t:?}");
    }
    Ok(t.parse().expect("digits"))
}

/// `gamesman nimrod A B`: `lose`, or `win` and every winning move;
/// `gamesman nimrod --lose-positions K` (the call's count): the first K losing positions.
pub fn command(call: &Call, io: &mut Io) -> anyhow::Result<i32> {
    if let Some(k) = call.count {
        let mut out = std::io::BufWriter::new(&mut *io.out);
        let written = write_lose_positions(k, &mut out).and_then(|()| std::io::Write::flush(&mut out));
        return match written {
            Ok(()) => Ok(0),
            // `| head`: the reader has what it wanted.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
            Err(e) => Err(e.into()),
        };
    }
    let a = pile(call.words.first().map(String::as_str), "A")?;
    let b = pile(call.words.get(1).map(String::as_str), "B")?;
    io.out.write_all(report(&a, &b).as_bytes())?;
    Ok(0)
}

/// What `gamesman bench` times of the assignment: its answer at piles near 10^30.
pub fn bench_work() -> Work {
    let a: BigUint = "1618033988749894848204586834365".parse().expect("digits");
    let b: BigUint = &a + 1_000_000_000_000_000_000_000_000_000_000u128 + 7u32;
    Work {
        what: "Nimrod, piles near 10^30".into(),
        decimals: 6,
        run: Box::new(move || Ok(report(&a, &b).trim_end().replace('\n', "; "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(s: &str) -> BigUint {
        s.parse().unwrap()
    }

    #[test]
    fn the_assignments_losing_positions() {
        assert_eq!(lose_positions(7), "(0 0)\n(1 2)\n(3 5)\n(4 7)\n(6 10)\n(8 13)\n(9 15)\n");
    }

    #[test]
    fn losing_pairs_by_the_assignments_own_rule() {
        // The i-th pair is (n, n + i) with n the smallest integer not yet used.
        let mut used = std::collections::HashSet::new();
        let mut n = 0u64;
        for i in 0..2000u64 {
            while used.contains(&n) {
                n += 1;
            }
            let (a, b) = losing_pair(&BigUint::from(i));
            assert_eq!((a.clone(), b.clone()), (BigUint::from(n), BigUint::from(n + i)), "pair {i}");
            used.insert(n);
            used.insert(n + i);
            assert!(is_losing(&a, &b) && is_losing(&b, &a));
            assert_eq!(partner(&a), b);
            assert_eq!(partner(&b), a);
        }
    }

    #[test]
    fn huge_piles() {
        // n = 10^30: the pair is (⌊nφ⌋, ⌊nφ⌋ + n); φ = 1.6180339887498948482045868343656381…
        let n = big("1000000000000000000000000000000");
        let (a, b) = losing_pair(&n);
        assert_eq!(a, big("1618033988749894848204586834365"));
        assert_eq!(b, big("2618033988749894848204586834365"));
        assert!(is_losing(&a, &b));
        assert!(!is_losing(&a, &(&b + 1u32)));
        // From (a, b + 5) the winning move takes 5 from pile B.
        let moves = winning_moves(&a, &(&b + 5u32));
        assert!(moves.contains(&(BigUint::zero(), BigUint::from(5u32))));
    }

    #[test]
    fn every_winning_move_reaches_a_losing_position() {
        for a in 0..60u32 {
            for b in 0..60u32 {
                let (a, b) = (BigUint::from(a), BigUint::from(b));
                for (x, y) in winning_moves(&a, &b) {
                    assert!(is_losing(&(&a - &x), &(&b - &y)));
                }
                assert_eq!(winning_moves(&a, &b).is_empty(), is_losing(&a, &b));
                assert_eq!(grundy(&a, &b) == Some(0), is_losing(&a, &b));
            }
        }
    }
}
