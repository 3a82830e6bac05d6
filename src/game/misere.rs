//! Misère play as a wrapper on any normal-play game.

use super::{Game, GameInfo, GameResult, Shortcut, Value};

/// The same game, except that whoever makes the last move loses.
///
/// A stalemate (no moves) becomes a win for the player to move, and every primitive
/// win/lose is swapped (a tie stays a tie). Misère values of parts do not combine by XOR,
/// so `split` is switched off: a misère sum is searched whole. Symmetry still holds.
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
    /// A copy of the inner game, in misère play too.
    fn replicate(&self) -> Option<super::Replica<'_, Self>> {
        let inner = self.inner.replicate()?;
        let make = inner.make.clone();
        Some(super::Replica {
            make: std::sync::Arc::new(move || Ok(Misere::new(make()?))),
            send: inner.send,
            receive: inner.receive,
        })
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
    fn to_move(&self, pos: &G::Pos) -> GameResult<Option<usize>> {
        self.inner.to_move(pos)
    }
    fn children(&self, pos: &G::Pos) -> GameResult<Vec<G::Pos>> {
        self.inner.children(pos)
    }
    fn move_count(&self, pos: &G::Pos) -> GameResult<usize> {
        self.inner.move_count(pos)
    }
    fn shortcut(&self, pos: &G::Pos) -> GameResult<Option<Shortcut<G::Move>>> {
        self.inner.shortcut_misere(pos)
    }
    fn shortcut_misere(&self, pos: &G::Pos) -> GameResult<Option<Shortcut<G::Move>>> {
        self.inner.shortcut(pos)
    }
    fn search_size(&self, pos: &G::Pos) -> Option<f64> {
        self.inner.search_size(pos)
    }
    fn show(&self, pos: &G::Pos) -> GameResult<String> {
        self.inner.show(pos)
    }
    fn board(&self, pos: &G::Pos) -> GameResult<Option<crate::game::Board>> {
        self.inner.board(pos)
    }
    fn parse_move(&self, pos: &G::Pos, text: &str) -> GameResult<G::Move> {
        self.inner.parse_move(pos, text)
    }
}
