//! Moore's Nim (E. H. Moore, "A generalization of the game called Nim", Annals of
//! Mathematics 11 (1910)): heaps of tokens; a move takes at least one token from each of one
//! to `k` heaps. Whoever cannot move loses. With `k = 1` it is Nim.
//!
//! A game written in Rust in its own crate: it implements [`gamesman::game::Game`], and
//! [`row`] makes it a row of gamesman's catalogue, so that `main` gets every command and the
//! web page with one call ([`gamesman::cli::main_with`]).
//!
//! Position text: `k=2 3,4,5` (`k=` and the heap sizes; `3,4,5` alone means `k=2`).

use gamesman::catalog::Native;
use gamesman::game::{Footprint, Game, GameError, GameInfo, GameResult, Kind, Value};

/// A position: how many heaps a move may touch, and the heaps.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    pub k: usize,
    pub heaps: Vec<u32>,
}

impl Footprint for Pos {
    fn heap_bytes(&self) -> usize {
        self.heaps.capacity() * 4
    }
}

/// A move: (heap, tokens taken) for each heap it touches.
pub type Move = Vec<(usize, u32)>;

/// The most heaps and the largest heap a position may have (the moves of a position grow as
/// the product of its heaps).
pub const MAX_HEAPS: usize = 8;
pub const MAX_HEAP: u32 = 64;

pub struct MooresNim {
    info: GameInfo,
}

impl MooresNim {
    pub fn new(info: GameInfo) -> Self {
        MooresNim { info }
    }
}

/// The catalogue row: found by the name `moores-nim`.
pub fn row() -> Native {
    let info =
        GameInfo::native("moores-nim", "Moore's Nim: take from up to k heaps at once (k=1 is Nim)", Kind::Impartial);
    Native::new("moores-nim", MooresNim::new).standalone(info).bench("k=2 3,4,5,6", "value + remoteness + Grundy")
}

/// Moore's theorem: the player to move loses exactly when, in every binary place, the number
/// of heaps with a 1 there is a multiple of k + 1.
pub fn moore_loses(k: usize, heaps: &[u32]) -> bool {
    (0..32).all(|bit| heaps.iter().filter(|&&h| h >> bit & 1 == 1).count() % (k + 1) == 0)
}

fn bad(what: String) -> GameError {
    GameError::BadPosition(what)
}

/// Text from a position, quoted and cut to a few characters for a message.
fn quote(s: &str) -> String {
    let cut: String = s.chars().take(20).collect();
    if cut.len() < s.len() { format!("{cut:?}…") } else { format!("{cut:?}") }
}

impl Game for MooresNim {
    type Pos = Pos;
    type Move = Move;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<Pos>> {
        Ok(Some(Pos { k: 2, heaps: vec![3, 4, 5] }))
    }

    fn parse(&self, text: &str) -> GameResult<Pos> {
        let text = text.trim();
        let (k, rest) = match text.strip_prefix("k=") {
            Some(r) => {
                let (k, rest) = r.split_once(' ').unwrap_or((r, ""));
                let k: usize = k.parse().map_err(|_| bad(format!("k={}: k is a whole number from 1", quote(k))))?;
                (k, rest)
            }
            None => (2, text),
        };
        if k == 0 || k > MAX_HEAPS {
            return Err(bad(format!("k={k}: k is from 1 to {MAX_HEAPS}")));
        }
        let heaps = rest
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| match s.parse::<u32>() {
                Ok(h) if h <= MAX_HEAP => Ok(h),
                _ => Err(bad(format!("{}: a heap is a whole number from 0 to {MAX_HEAP}", quote(s)))),
            })
            .collect::<GameResult<Vec<u32>>>()?;
        if heaps.len() > MAX_HEAPS {
            return Err(bad(format!("{} heaps: at most {MAX_HEAPS}", heaps.len())));
        }
        Ok(Pos { k, heaps })
    }

    fn format(&self, pos: &Pos) -> GameResult<String> {
        let heaps: Vec<String> = pos.heaps.iter().map(u32::to_string).collect();
        Ok(format!("k={} {}", pos.k, heaps.join(",")))
    }

    fn moves(&self, pos: &Pos) -> GameResult<Vec<Move>> {
        let live: Vec<usize> = (0..pos.heaps.len()).filter(|&i| pos.heaps[i] > 0).collect();
        let mut out = Vec::new();
        // Every non-empty set of at most k heaps, and every take from each.
        for set in 1u32..(1 << live.len()) {
            if set.count_ones() as usize > pos.k {
                continue;
            }
            let chosen: Vec<usize> = (0..live.len()).filter(|b| set >> b & 1 == 1).map(|b| live[b]).collect();
            let mut take = vec![1u32; chosen.len()];
            loop {
                out.push(chosen.iter().copied().zip(take.iter().copied()).collect());
                // The next take, odometer style.
                let mut i = 0;
                while i < take.len() && take[i] == pos.heaps[chosen[i]] {
                    take[i] = 1;
                    i += 1;
                }
                if i == take.len() {
                    break;
                }
                take[i] += 1;
            }
        }
        Ok(out)
    }

    fn play(&self, pos: &Pos, mv: &Move) -> GameResult<Pos> {
        let mut next = pos.clone();
        for &(h, n) in mv {
            let heap =
                next.heaps.get_mut(h).ok_or_else(|| GameError::BadMove(format!("there is no heap {}", h + 1)))?;
            *heap = heap.checked_sub(n).filter(|_| n > 0).ok_or_else(|| {
                GameError::BadMove(format!("cannot take {n} from heap {} of {}", h + 1, pos.heaps[h]))
            })?;
        }
        Ok(next)
    }

    fn move_name(&self, _pos: &Pos, mv: &Move) -> GameResult<String> {
        Ok(mv.iter().map(|(h, n)| format!("{}-{n}", h + 1)).collect::<Vec<_>>().join("+"))
    }

    fn primitive(&self, _pos: &Pos) -> GameResult<Option<Value>> {
        Ok(None)
    }

    /// The heaps' order does not matter, nor do empty heaps.
    fn canonical(&self, pos: &Pos) -> GameResult<Pos> {
        let mut heaps: Vec<u32> = pos.heaps.iter().copied().filter(|&h| h > 0).collect();
        heaps.sort_unstable();
        Ok(Pos { k: pos.k, heaps })
    }
}
