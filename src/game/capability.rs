//! What a game may do beyond its rules, each capability a small trait that a game hands out
//! through [`Game::capabilities`](super::Game::capabilities). A game that does not hand one
//! out gets its fallback, written once in [`GameExt`](super::GameExt):
//!
//! | capability | what it gives | fallback |
//! |---|---|---|
//! | [`Split`] | a position as a sum of independent games | one indivisible game: Grundy values are searched whole |
//! | [`ClosedForm`] | a value (and Grundy value, winning moves) without search | search |
//! | [`Hints`] | a cheap move count; the size of a search | count by listing the moves; size unknown |
//! | [`View`] | a grid for the page, a drawing, typed moves, whose turn | the position text; the legal move of that name; players alternate |
//! | [`Tiers`](super::tier::Tiers) | positions by index: the tier solver and the array database | `--save` explores the game whole into the redb store |
//! | [`Keys`] | positions packed in 64 or 128 bits: the searches run on keys | the searches run on the game's own positions |
//! | [`Parallel`](super::Parallel) | a copy of the game for another thread | the searches stay on one thread |
//!
//! Symmetry is a rule with a fallback of its own ([`Game::canonical`](super::Game::canonical):
//! the position itself), as are [`Game::start`](super::Game::start) (none) and
//! [`Game::stalemate`](super::Game::stalemate) (a loss).

use super::packed::{Packed, PackedPlay, PackedSum};
use super::value::{Board, GameResult, Shortcut};

/// Decomposition: a position that is a sum of independent games, for the Grundy searches.
pub trait Split<P> {
    /// `Some(parts)` when `pos` is a sum of independent games; an empty list is the empty
    /// game (Grundy value 0); `None` when this position does not split.
    fn split(&self, pos: &P) -> GameResult<Option<Vec<P>>>;
}

/// An answer without search (a closed form, a special algorithm), where the game has one.
pub trait ClosedForm<P, M> {
    /// The answer for `pos`, or `None` where the game has none (the solver searches).
    fn shortcut(&self, pos: &P) -> GameResult<Option<Shortcut<M>>>;

    /// [`ClosedForm::shortcut`] without its winning moves (left empty): all a position's
    /// value needs. A game whose winning moves cost a scan of every move overrides it, so
    /// that the value of each child of a position is not a scan of the child's moves too.
    fn shortcut_value(&self, pos: &P) -> GameResult<Option<Shortcut<M>>> {
        Ok(self.shortcut(pos)?.map(|sc| Shortcut { winning_moves: Vec::new(), ..sc }))
    }

    /// The same under misère play (see [`Misere`](super::Misere)); `None` by default.
    fn shortcut_misere(&self, _pos: &P) -> GameResult<Option<Shortcut<M>>> {
        Ok(None)
    }
}

/// What a search would like to know in advance.
pub trait Hints<P> {
    /// How many moves `pos` has, where counting is cheaper than listing them (the
    /// value-first search tries the children whose player has the fewest first); `None`:
    /// count by listing.
    fn move_count(&self, _pos: &P) -> GameResult<Option<usize>> {
        Ok(None)
    }

    /// Roughly how much work a search from `pos` would be, in moves examined (positions
    /// times the moves from each); a solver skips a remoteness search that could not finish.
    /// (One Nim heap of 100,000 has only 100,001 positions, but five billion moves.)
    fn search_size(&self, _pos: &P) -> Option<f64> {
        None
    }
}

/// What a person sees and types (`play`, the web page). Each method's `None` is its fallback.
pub trait View<P, M> {
    /// `pos` as a grid of cells for the web page; `None`: not drawn that way.
    fn board(&self, _pos: &P) -> GameResult<Option<Board>> {
        Ok(None)
    }

    /// How to draw `pos` for a person (several lines allowed); `None`: the position text.
    fn show(&self, _pos: &P) -> GameResult<Option<String>> {
        Ok(None)
    }

    /// The move a person typed; `None`: the legal move whose name it is (ignoring case and
    /// spaces). A game may accept moves its solver never generates (Lights Out lets a person
    /// press any light; its solver presses lights in reading order).
    fn parse_move(&self, _pos: &P, _text: &str) -> GameResult<Option<M>> {
        Ok(None)
    }

    /// Whose turn it is at `pos`: 0 for the first player, 1 for the second; `None` when the
    /// game does not say (players then alternate from whatever position play starts at).
    fn to_move(&self, _pos: &P) -> GameResult<Option<usize>> {
        Ok(None)
    }
}

/// Positions as integer keys, so that the searches run natively on them (see
/// [`packed`](super::packed)). Each must agree with the game's own rules.
pub trait Keys<P> {
    /// A puzzle's positions reachable from `root` packed in 128 bits, maybe numbered: the
    /// puzzle search and `analyze` then run on keys.
    fn packed(&self, _root: &P) -> Option<Box<dyn Packed<P> + '_>> {
        None
    }

    /// An impartial game's positions reachable from `root` as 64-bit keys that split into
    /// canonical parts: the Grundy search then runs on keys. Only for normal play; its parts,
    /// children and move counts agree with [`Split`], `canonical`, `children` and [`Hints`].
    fn packed_sum(&self, _root: &P) -> Option<Box<dyn PackedSum<P>>> {
        None
    }

    /// A two-player game's positions reachable from `root` as 128-bit keys: the full search
    /// of value and remoteness, and the value-first search, then run on keys. Its children,
    /// ends and symmetries agree with `children`, `primitive`, `stalemate` and `canonical`.
    fn packed_play(&self, _root: &P) -> Option<Box<dyn PackedPlay<P>>> {
        None
    }
}
