//! Misère play as a wrapper on any normal-play game.

use super::capability::ClosedForm;
use super::rules::{Capabilities, Game, GameExt, Parallel, Replica};
use super::value::{GameInfo, GameResult, Shortcut, Value};

/// The same game, except that whoever makes the last move loses.
///
/// A stalemate (no moves) becomes a win for the player to move, and every primitive
/// win/lose is swapped (a tie stays a tie). Misère values of parts do not combine by XOR,
/// so the split is left out: a misère sum is searched whole. Symmetry still holds; the
/// game's closed form is asked for its misère answer; keys and tiers, which carry the normal
/// ends, are left out.
pub struct Misere<G> {
    inner: G,
    info: GameInfo,
}

impl<G: Game> Misere<G> {
    pub fn new(inner: G) -> Self {
        let mut info = inner.info().clone();
        info.name = format!("{} (misère)", info.name);
        Misere { inner, info }
    }

    pub fn inner(&self) -> &G {
        &self.inner
    }
}

impl<G: Game> Game for Misere<G> {
    type Pos = G::Pos;
    type Move = G::Move;

    fn info(&self) -> &GameInfo {
        &self.info
    }
    fn start(&self) -> GameResult<Option<G::Pos>> {
        self.inner.start()
    }
    fn parse(&self, text: &str) -> GameResult<G::Pos> {
        self.inner.parse(text)
    }
    fn format(&self, pos: &G::Pos) -> GameResult<String> {
        self.inner.format(pos)
    }
    fn moves(&self, pos: &G::Pos) -> GameResult<Vec<G::Move>> {
        self.inner.moves(pos)
    }
    fn play(&self, pos: &G::Pos, mv: &G::Move) -> GameResult<G::Pos> {
        self.inner.play(pos, mv)
    }
    fn move_name(&self, pos: &G::Pos, mv: &G::Move) -> GameResult<String> {
        self.inner.move_name(pos, mv)
    }
    fn primitive(&self, pos: &G::Pos) -> GameResult<Option<Value>> {
        Ok(self.inner.primitive(pos)?.map(Value::flip))
    }
    fn stalemate(&self) -> Value {
        self.inner.stalemate().flip()
    }
    fn canonical(&self, pos: &G::Pos) -> GameResult<G::Pos> {
        self.inner.canonical(pos)
    }
    fn children(&self, pos: &G::Pos) -> GameResult<Vec<G::Pos>> {
        self.inner.children(pos)
    }
    fn capabilities(&self) -> Capabilities<'_, Self> {
        let inner = self.inner.capabilities();
        Capabilities {
            closed_form: inner.closed_form.map(|_| self as &dyn ClosedForm<G::Pos, G::Move>),
            hints: inner.hints,
            view: inner.view,
            parallel: inner.parallel.map(|_| self as &dyn Parallel<Self>),
            ..Capabilities::none()
        }
    }
}

/// The inner game's misère answers, and its normal ones under misère of misère.
impl<G: Game> ClosedForm<G::Pos, G::Move> for Misere<G> {
    fn shortcut(&self, pos: &G::Pos) -> GameResult<Option<Shortcut<G::Move>>> {
        self.inner.shortcut_misere(pos)
    }
    fn shortcut_misere(&self, pos: &G::Pos) -> GameResult<Option<Shortcut<G::Move>>> {
        self.inner.shortcut(pos)
    }
}

/// A copy of the inner game, in misère play too.
impl<G: Game> Parallel<Misere<G>> for Misere<G> {
    fn replicate(&self) -> Replica<'_, Misere<G>> {
        let Some(inner) = self.inner.replicate() else { unreachable!("handed out only when the inner game has it") };
        let make = inner.make.clone();
        Replica {
            make: std::sync::Arc::new(move || Ok(Misere::new(make()?))),
            send: inner.send,
            receive: inner.receive,
        }
    }
}
