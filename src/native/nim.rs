//! Nim by its closed form: the Grundy value of a position is the XOR of its heaps.
//! Heaps are arbitrary-precision integers.
//!
//! Misère Nim (whoever takes the last stone loses): when every heap is 0 or 1, the player
//! to move wins iff the number of 1-heaps is even; otherwise the winner is as in normal
//! play, and the winning moves are the normal ones, except that when only one heap is above
//! 1 the move on it must leave an odd number of 1-heaps.

use super::command::{Call, Io};
use super::common::{format_big_heaps, parse_big_heaps, too_many_moves};
use crate::game::{Capabilities, ClosedForm, Game, GameInfo, GameResult, Hints, Kind, Shortcut, Split, Value};
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};

pub struct Nim {
    info: GameInfo,
}

impl Nim {
    pub fn new(mut info: GameInfo) -> Nim {
        info.kind = Kind::Impartial;
        Nim { info }
    }
}

/// (heap index, stones taken)
pub type NimMove = (usize, BigUint);

fn xor(heaps: &[BigUint]) -> BigUint {
    heaps.iter().fold(BigUint::zero(), |acc, h| acc ^ h)
}

/// Normal play: every move to a zero XOR, in heap order.
pub fn normal_winning_moves(heaps: &[BigUint]) -> Vec<NimMove> {
    let x = xor(heaps);
    if x.is_zero() {
        return Vec::new();
    }
    heaps
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            let target = h ^ &x;
            (target < *h).then(|| (i, h - target))
        })
        .collect()
}

/// Misère play: the value for the player to move, and every winning move in heap order.
pub fn misere(heaps: &[BigUint]) -> (Value, Vec<NimMove>) {
    let one = BigUint::one();
    let big: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i] > one).collect();
    let ones = heaps.iter().filter(|h| **h == one).count();
    match big.len() {
        0 => {
            if ones % 2 == 0 {
                // Take a 1-heap, leaving an odd number of them (none when the board is empty).
                let moves = (0..heaps.len()).filter(|&i| heaps[i] == one).map(|i| (i, one.clone())).collect();
                (Value::Win, moves)
            } else {
                (Value::Lose, Vec::new())
            }
        }
        1 => {
            // Reduce the big heap to 0 or 1 so that an odd number of 1-heaps is left.
            let i = big[0];
            let keep = if ones % 2 == 0 { one.clone() } else { BigUint::zero() };
            (Value::Win, vec![(i, &heaps[i] - keep)])
        }
        _ => {
            let moves = normal_winning_moves(heaps);
            (if moves.is_empty() { Value::Lose } else { Value::Win }, moves)
        }
    }
}

impl Game for Nim {
    type Pos = Vec<BigUint>;
    type Move = NimMove;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<Self::Pos>> {
        Ok(Some([3u32, 4, 5].map(BigUint::from).to_vec()))
    }

    fn parse(&self, text: &str) -> GameResult<Self::Pos> {
        parse_big_heaps(text)
    }

    fn format(&self, pos: &Self::Pos) -> GameResult<String> {
        Ok(format_big_heaps(pos))
    }

    fn moves(&self, pos: &Self::Pos) -> GameResult<Vec<NimMove>> {
        let total: BigUint = pos.iter().sum();
        if total > BigUint::from(crate::game::MAX_MOVES) {
            return Err(too_many_moves(total));
        }
        let mut out = Vec::new();
        for (i, h) in pos.iter().enumerate() {
            let h = h.to_u64().expect("small");
            out.extend((1..=h).map(|k| (i, BigUint::from(k))));
        }
        Ok(out)
    }

    fn play(&self, pos: &Self::Pos, mv: &NimMove) -> GameResult<Self::Pos> {
        let mut p = pos.clone();
        p[mv.0] -= &mv.1;
        Ok(p)
    }

    fn move_name(&self, _pos: &Self::Pos, mv: &NimMove) -> GameResult<String> {
        Ok(format!("take {} from heap {}", mv.1, mv.0 + 1))
    }

    fn primitive(&self, _pos: &Self::Pos) -> GameResult<Option<Value>> {
        Ok(None)
    }

    fn canonical(&self, pos: &Self::Pos) -> GameResult<Self::Pos> {
        let mut p: Vec<BigUint> = pos.iter().filter(|h| !h.is_zero()).cloned().collect();
        p.sort();
        Ok(p)
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities { split: Some(self), closed_form: Some(self), hints: Some(self), ..Capabilities::none() }
    }
}

impl Split<Vec<BigUint>> for Nim {
    fn split(&self, pos: &Vec<BigUint>) -> GameResult<Option<Vec<Vec<BigUint>>>> {
        Ok(Some(pos.iter().filter(|h| !h.is_zero()).map(|h| vec![h.clone()]).collect()))
    }
}

impl ClosedForm<Vec<BigUint>, NimMove> for Nim {
    fn shortcut(&self, pos: &Vec<BigUint>) -> GameResult<Option<Shortcut<NimMove>>> {
        let winning_moves = normal_winning_moves(pos);
        let value = if winning_moves.is_empty() { Value::Lose } else { Value::Win };
        Ok(Some(Shortcut { value, remoteness: None, grundy: xor(pos).to_u64(), winning_moves }))
    }
    fn shortcut_misere(&self, pos: &Vec<BigUint>) -> GameResult<Option<Shortcut<NimMove>>> {
        let (value, winning_moves) = misere(pos);
        Ok(Some(Shortcut { value, remoteness: None, grundy: None, winning_moves }))
    }
}

impl Hints<Vec<BigUint>> for Nim {
    fn search_size(&self, pos: &Vec<BigUint>) -> Option<f64> {
        // Every position below: each heap at any size up to its own; on average half the
        // tokens are left, and a move takes any number from one heap.
        let heaps: Vec<f64> = pos.iter().map(|h| h.to_f64().unwrap_or(f64::INFINITY)).collect();
        let positions: f64 = heaps.iter().map(|h| h + 1.0).product();
        Some(positions * (heaps.iter().sum::<f64>() / 2.0).max(1.0))
    }
}

/// The usage text of the Nim assignment (with the misère form).
pub const USAGE: &str = "usage: nim [-m] n1 [n2 ...]

This program solves games of Nim. Nim is a two player game played with
an arbitrary number of heaps, each containing an arbitrary number of
stones. The two players take turns removing any number of stones from
any one pile. The player who removes the last stone wins.

Input is taken from the command line in the form of a list of numbers,
each representing a heap of stones.

For example, to solve a game of Nim with three heaps containing one,
two, and three stones, respectively, the following command line should
be used:
    nim 1 2 3

If the game is a loss for the first player, \"loss!\" is printed. For a
win, \"win!\" is printed, followed by a list of available winning moves.
";

/// `nim [-m] n1 [n2 ...]` exactly as the assignment prints it. `Err` is the usage text.
pub fn assignment(args: &[String]) -> Result<String, &'static str> {
    let (misere_play, rest) = match args.first().map(String::as_str) {
        Some("-m") => (true, &args[1..]),
        _ => (false, args),
    };
    if rest.is_empty() || rest.iter().any(|a| a.is_empty() || !a.bytes().all(|b| b.is_ascii_digit())) {
        return Err(USAGE);
    }
    let heaps: Vec<BigUint> = rest.iter().map(|a| a.parse().expect("digits")).collect();
    let (value, moves) = if misere_play {
        misere(&heaps)
    } else {
        let m = normal_winning_moves(&heaps);
        (if m.is_empty() { Value::Lose } else { Value::Win }, m)
    };
    let mut out = String::from(if value == Value::Win { "win!\n" } else { "loss!\n" });
    for (i, k) in moves {
        out += &format!("winning move: remove {k} from the {} pile\n", heaps[i]);
    }
    Ok(out)
}

/// A random small position (for `gamesman check`): up to four heaps of at most 7.
pub fn sample(rng: &mut fastrand::Rng) -> String {
    let heaps: Vec<String> = (0..rng.usize(1..=4)).map(|_| rng.u32(0..=7).to_string()).collect();
    heaps.join(",")
}

/// `gamesman nim [-m] n1 [n2 ...]`: the usage text (on stdout, exit 1) on no arguments, a
/// non-number or a negative number.
pub fn command(call: &Call, io: &mut Io) -> anyhow::Result<i32> {
    match assignment(&call.words) {
        Ok(out) => {
            io.out.write_all(out.as_bytes())?;
            Ok(0)
        }
        Err(usage) => {
            io.out.write_all(usage.as_bytes())?;
            Ok(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<String, &'static str> {
        assignment(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn examples_from_the_assignment() {
        assert_eq!(run(&["1", "1"]).unwrap(), "loss!\n");
        assert_eq!(
            run(&["5", "4", "1", "3", "2", "7"]).unwrap(),
            "win!\nwinning move: remove 2 from the 5 pile\nwinning move: remove 2 from the 4 pile\n\
             winning move: remove 6 from the 7 pile\n"
        );
        assert_eq!(
            run(&["2", "2", "2"]).unwrap(),
            "win!\nwinning move: remove 2 from the 2 pile\nwinning move: remove 2 from the 2 pile\n\
             winning move: remove 2 from the 2 pile\n"
        );
        assert_eq!(run(&["1"]).unwrap(), "win!\nwinning move: remove 1 from the 1 pile\n");
        assert_eq!(run(&["-m", "1"]).unwrap(), "loss!\n");
    }

    #[test]
    fn usage_on_bad_arguments() {
        for bad in [&[][..], &["x"], &["-3"], &["1", "2a"], &["-m"], &[""]] {
            assert_eq!(run(bad), Err(USAGE), "{bad:?}");
        }
        assert!(USAGE.starts_with("usage: nim [-m] n1 [n2 ...]\n"));
    }

    #[test]
    fn heaps_beyond_64_bits() {
        // 2^64 and 2^64 + 1: XOR is 1, so take 1 from the larger heap.
        let out = run(&["18446744073709551616", "18446744073709551617"]).unwrap();
        assert_eq!(out, "win!\nwinning move: remove 1 from the 18446744073709551617 pile\n");
        assert_eq!(
            run(&["340282366920938463463374607431768211456", "340282366920938463463374607431768211456"]).unwrap(),
            "loss!\n"
        );
    }
}
