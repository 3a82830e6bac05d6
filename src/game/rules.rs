//! The [`Game`] trait: the rules a solver needs, and one accessor for the capabilities a game
//! may have beyond them ([`super::capability`]).

use super::capability::{ClosedForm, Hints, Keys, Split, View};
use super::packed::{Packed, PackedPlay, PackedSum};
use super::tier::Tiers;
use super::value::{Board, Footprint, GameError, GameInfo, GameResult, Kind, Shortcut, Value};
use std::hash::Hash;

/// A position on its way between threads (see [`Replica`]).
pub type Wire = Box<dyn std::any::Any + Send>;

/// What a parallel solve needs of a game: a recipe for an independent copy of it on another
/// thread (a script engine is not shared between threads), and a way for positions to cross.
pub struct Replica<'a, G: Game> {
    pub make: std::sync::Arc<dyn Fn() -> GameResult<G> + Send + Sync + 'a>,
    pub send: fn(&G::Pos) -> Wire,
    pub receive: fn(Wire) -> G::Pos,
}

/// A game that can be copied onto other threads.
pub trait Parallel<G: Game> {
    fn replicate(&self) -> Replica<'_, G>;
}

/// The capabilities a game hands out ([`Game::capabilities`]); each `None` is the fallback
/// documented in [`super::capability`].
pub struct Capabilities<'a, G: Game> {
    pub split: Option<&'a dyn Split<G::Pos>>,
    pub closed_form: Option<&'a dyn ClosedForm<G::Pos, G::Move>>,
    pub hints: Option<&'a dyn Hints<G::Pos>>,
    pub view: Option<&'a dyn View<G::Pos, G::Move>>,
    pub tiers: Option<&'a dyn Tiers<Pos = G::Pos>>,
    pub keys: Option<&'a dyn Keys<G::Pos>>,
    pub parallel: Option<&'a dyn Parallel<G>>,
}

impl<'a, G: Game> Capabilities<'a, G> {
    /// None: a game of rules alone.
    pub fn none() -> Self {
        Capabilities {
            split: None,
            closed_form: None,
            hints: None,
            view: None,
            tiers: None,
            keys: None,
            parallel: None,
        }
    }

    /// The same capabilities for a wrapper `H` with the same positions and moves, less the
    /// copy for other threads (a wrapper makes its own).
    pub fn forward<H: Game<Pos = G::Pos, Move = G::Move>>(self) -> Capabilities<'a, H> {
        Capabilities {
            split: self.split,
            closed_form: self.closed_form,
            hints: self.hints,
            view: self.view,
            tiers: self.tiers,
            keys: self.keys,
            parallel: None,
        }
    }
}

/// A game, as the solvers see it: the rules. Everything else a game can do is a capability
/// ([`Game::capabilities`]); the solvers ask through [`GameExt`], which falls back where a
/// game has none.
///
/// Required: position text in and out, moves, play, move names, the primitive value. Provided,
/// with their fallbacks: [`Game::start`] (none: a position must be given),
/// [`Game::stalemate`] (a position that is not primitive and has no moves is a loss for the
/// player to move: normal play, or a puzzle's dead end), [`Game::children`] (`moves` then
/// `play`), [`Game::canonical`] (the position itself: no symmetry),
/// [`Game::capabilities`] (none).
pub trait Game: Sized {
    /// A position. Memo tables key on it, so equality must mean "same position".
    type Pos: Clone + Eq + Hash + Footprint;
    /// A move from some position.
    type Move: Clone;

    fn info(&self) -> &GameInfo;

    /// The usual starting position, if the game has one.
    fn start(&self) -> GameResult<Option<Self::Pos>> {
        Ok(None)
    }

    /// Read position text.
    fn parse(&self, text: &str) -> GameResult<Self::Pos>;

    /// Write position text that [`Game::parse`] reads back.
    fn format(&self, pos: &Self::Pos) -> GameResult<String>;

    /// The legal moves from `pos` (empty at the end of the game).
    fn moves(&self, pos: &Self::Pos) -> GameResult<Vec<Self::Move>>;

    /// The position after `mv`.
    fn play(&self, pos: &Self::Pos, mv: &Self::Move) -> GameResult<Self::Pos>;

    /// A short name for `mv` that a person can type.
    fn move_name(&self, pos: &Self::Pos, mv: &Self::Move) -> GameResult<String>;

    /// The value of `pos` for the player to move if the game is over there, else `None`.
    fn primitive(&self, pos: &Self::Pos) -> GameResult<Option<Value>>;

    /// The value of a non-primitive position with no moves.
    fn stalemate(&self) -> Value {
        Value::Lose
    }

    /// Every position one move away. Override when it is cheaper than `moves` + `play`.
    fn children(&self, pos: &Self::Pos) -> GameResult<Vec<Self::Pos>> {
        let moves = self.moves(pos)?;
        moves.iter().map(|m| self.play(pos, m)).collect()
    }

    /// Symmetry: one representative of the positions equivalent to `pos`.
    fn canonical(&self, pos: &Self::Pos) -> GameResult<Self::Pos> {
        Ok(pos.clone())
    }

    /// What this game can do beyond its rules (see [`super::capability`]). Cheap: it is
    /// asked in the searches' inner loops, so it hands out references only.
    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities::none()
    }
}

/// What the solvers and front ends ask of a game beyond its rules: each question answered by
/// the game's capability where it has one, else by the fallback written here once.
pub trait GameExt: Game {
    fn kind(&self) -> Kind {
        self.info().kind
    }

    /// True when the game splits positions into sums ([`Split`]).
    fn has_split(&self) -> bool {
        self.capabilities().split.is_some()
    }

    /// [`Split::split`]; `None` without the capability.
    fn split(&self, pos: &Self::Pos) -> GameResult<Option<Vec<Self::Pos>>> {
        match self.capabilities().split {
            Some(s) => s.split(pos),
            None => Ok(None),
        }
    }

    /// [`ClosedForm::shortcut`]; `None` without the capability.
    fn shortcut(&self, pos: &Self::Pos) -> GameResult<Option<Shortcut<Self::Move>>> {
        match self.capabilities().closed_form {
            Some(c) => c.shortcut(pos),
            None => Ok(None),
        }
    }

    /// [`ClosedForm::shortcut_value`]; `None` without the capability.
    fn shortcut_value(&self, pos: &Self::Pos) -> GameResult<Option<Shortcut<Self::Move>>> {
        match self.capabilities().closed_form {
            Some(c) => c.shortcut_value(pos),
            None => Ok(None),
        }
    }

    /// [`ClosedForm::shortcut_misere`]; `None` without the capability.
    fn shortcut_misere(&self, pos: &Self::Pos) -> GameResult<Option<Shortcut<Self::Move>>> {
        match self.capabilities().closed_form {
            Some(c) => c.shortcut_misere(pos),
            None => Ok(None),
        }
    }

    /// [`Hints::move_count`], else the number of moves listed.
    fn move_count(&self, pos: &Self::Pos) -> GameResult<usize> {
        if let Some(h) = self.capabilities().hints
            && let Some(n) = h.move_count(pos)?
        {
            return Ok(n);
        }
        Ok(self.moves(pos)?.len())
    }

    /// [`Hints::search_size`]; `None` (unknown) without the capability.
    fn search_size(&self, pos: &Self::Pos) -> Option<f64> {
        self.capabilities().hints.and_then(|h| h.search_size(pos))
    }

    /// A copy of this game for another thread ([`Parallel`]); `None` keeps the solvers on
    /// one thread.
    fn replicate(&self) -> Option<Replica<'_, Self>> {
        self.capabilities().parallel.map(|p| p.replicate())
    }

    /// [`View::board`]; `None` without the capability.
    fn board(&self, pos: &Self::Pos) -> GameResult<Option<Board>> {
        match self.capabilities().view {
            Some(v) => v.board(pos),
            None => Ok(None),
        }
    }

    /// [`View::show`], else the position text.
    fn show(&self, pos: &Self::Pos) -> GameResult<String> {
        if let Some(v) = self.capabilities().view
            && let Some(s) = v.show(pos)?
        {
            return Ok(s);
        }
        self.format(pos)
    }

    /// [`View::parse_move`], else the legal move whose [`Game::move_name`] `text` is.
    fn parse_move(&self, pos: &Self::Pos, text: &str) -> GameResult<Self::Move> {
        if let Some(v) = self.capabilities().view
            && let Some(m) = v.parse_move(pos, text)?
        {
            return Ok(m);
        }
        move_named(self, pos, text)
    }

    /// [`View::to_move`]; `None` (players alternate) without the capability.
    fn to_move(&self, pos: &Self::Pos) -> GameResult<Option<usize>> {
        match self.capabilities().view {
            Some(v) => v.to_move(pos),
            None => Ok(None),
        }
    }

    /// The game's [`Tiers`], if it numbers its positions.
    fn tiers(&self) -> Option<&dyn Tiers<Pos = Self::Pos>> {
        self.capabilities().tiers
    }

    /// [`Keys::packed`].
    fn packed(&self, root: &Self::Pos) -> Option<Box<dyn Packed<Self::Pos> + '_>> {
        self.capabilities().keys?.packed(root)
    }

    /// [`Keys::packed_sum`].
    fn packed_sum(&self, root: &Self::Pos) -> Option<Box<dyn PackedSum<Self::Pos>>> {
        self.capabilities().keys?.packed_sum(root)
    }

    /// [`Keys::packed_play`].
    fn packed_play(&self, root: &Self::Pos) -> Option<Box<dyn PackedPlay<Self::Pos>>> {
        self.capabilities().keys?.packed_play(root)
    }
}

impl<G: Game> GameExt for G {}

/// The legal move from `pos` whose name `text` is (ignoring case and surrounding spaces): the
/// fallback of [`View::parse_move`].
pub fn move_named<G: Game>(game: &G, pos: &G::Pos, text: &str) -> GameResult<G::Move> {
    let want = text.trim();
    let moves = game.moves(pos)?;
    let mut names = Vec::with_capacity(moves.len());
    for mv in moves {
        let name = game.move_name(pos, &mv)?;
        if name.eq_ignore_ascii_case(want) {
            return Ok(mv);
        }
        names.push(name);
    }
    Err(GameError::BadMove(if names.is_empty() {
        format!("{want:?}: there are no moves here")
    } else {
        format!("{want:?} is not a legal move here (legal: {})", names.join(", "))
    }))
}

/// A borrowed game is a game (so that wrappers such as [`Misere`](super::Misere) can borrow
/// one).
impl<G: Game> Game for &G {
    type Pos = G::Pos;
    type Move = G::Move;

    fn info(&self) -> &GameInfo {
        (**self).info()
    }
    fn start(&self) -> GameResult<Option<G::Pos>> {
        (**self).start()
    }
    fn parse(&self, text: &str) -> GameResult<G::Pos> {
        (**self).parse(text)
    }
    fn format(&self, pos: &G::Pos) -> GameResult<String> {
        (**self).format(pos)
    }
    fn moves(&self, pos: &G::Pos) -> GameResult<Vec<G::Move>> {
        (**self).moves(pos)
    }
    fn play(&self, pos: &G::Pos, mv: &G::Move) -> GameResult<G::Pos> {
        (**self).play(pos, mv)
    }
    fn move_name(&self, pos: &G::Pos, mv: &G::Move) -> GameResult<String> {
        (**self).move_name(pos, mv)
    }
    fn primitive(&self, pos: &G::Pos) -> GameResult<Option<Value>> {
        (**self).primitive(pos)
    }
    fn stalemate(&self) -> Value {
        (**self).stalemate()
    }
    fn children(&self, pos: &G::Pos) -> GameResult<Vec<G::Pos>> {
        (**self).children(pos)
    }
    fn canonical(&self, pos: &G::Pos) -> GameResult<G::Pos> {
        (**self).canonical(pos)
    }
    fn capabilities(&self) -> Capabilities<'_, Self> {
        (**self).capabilities().forward()
    }
}
