//! Disjunctive sums of positions of different impartial games (`chomp:4432 + nim:3,5`).
//!
//! Each component is answered by its own game's engine (a native module, a descriptor, a
//! script), through [`Component`], which hides the game's types behind position text. Under
//! normal play the Sprague–Grundy theorem gives everything: the sum's Grundy value is the XOR
//! of the components', and a winning move is a move in one component to a position whose
//! Grundy value makes the XOR zero. Under misère play the values do not combine, so the sum
//! is a game of its own ([`SumGame`]), searched whole.

use super::{Analyzer, MoveInfo, Options};
use crate::game::{Footprint, Game, GameError, GameInfo, GameResult, Kind, Value};
use std::cell::RefCell;

/// One game of a sum, behind position text.
pub trait Component {
    fn info(&self) -> &GameInfo;
    /// The position's text as the game writes it (checked by reading it).
    fn normalize(&self, text: &str) -> GameResult<String>;
    /// The Grundy value of a position (`None` where the game does not define one).
    fn grundy(&mut self, text: &str) -> GameResult<Option<u64>>;
    /// Every move with the position it leads to and that position's Grundy value.
    fn moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>>;
    /// The positions one move away, as (move name, position text).
    fn children(&self, text: &str) -> GameResult<Vec<(String, String)>>;
}

/// A game of any type as a [`Component`]. The game lives for the rest of the process.
pub struct Dyn<G: Game + 'static> {
    game: &'static G,
    analyzer: Analyzer<'static, G>,
}

impl<G: Game + 'static> Dyn<G> {
    pub fn new(game: G, opts: Options) -> Self {
        let game: &'static G = Box::leak(Box::new(game));
        // Grundy values only: a component's remoteness is not what a sum needs.
        let analyzer = Analyzer::new(game, Options { remoteness: false, ..opts });
        Dyn { game, analyzer }
    }
}

impl<G: Game + 'static> Dyn<G> {
    /// Every move (its name) and the position it leads to; none where the game is over.
    fn moves_of(&self, pos: &G::Pos) -> GameResult<Vec<(String, G::Pos)>> {
        if self.game.primitive(pos)?.is_some() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for mv in self.game.moves(pos)? {
            out.push((self.game.move_name(pos, &mv)?, self.game.play(pos, &mv)?));
        }
        Ok(out)
    }

    /// From the game's own shortcut where it has one (a native module, a nim-sequence),
    /// else by the Grundy solver.
    fn grundy_of(&mut self, pos: &G::Pos) -> GameResult<Option<u64>> {
        if let Some(sc) = self.game.shortcut_value(pos)?
            && sc.grundy.is_some()
        {
            return Ok(sc.grundy);
        }
        self.analyzer.grundy(pos)
    }
}

impl<G: Game + 'static> Component for Dyn<G> {
    fn info(&self) -> &GameInfo {
        self.game.info()
    }

    fn normalize(&self, text: &str) -> GameResult<String> {
        self.game.format(&self.game.parse(text)?)
    }

    fn grundy(&mut self, text: &str) -> GameResult<Option<u64>> {
        let pos = self.game.parse(text)?;
        self.grundy_of(&pos)
    }

    fn moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>> {
        let pos = self.game.parse(text)?;
        let mut out = Vec::new();
        for (name, child) in self.moves_of(&pos)? {
            let grundy = self.grundy_of(&child)?;
            out.push(MoveInfo {
                name,
                position: self.game.format(&child)?,
                value: if grundy == Some(0) { Value::Lose } else { Value::Win },
                remoteness: None,
                grundy,
            });
        }
        Ok(out)
    }

    fn children(&self, text: &str) -> GameResult<Vec<(String, String)>> {
        let pos = self.game.parse(text)?;
        self.moves_of(&pos)?.into_iter().map(|(name, child)| Ok((name, self.game.format(&child)?))).collect()
    }
}

/// A component of a sum and its position.
pub struct Term {
    pub component: Box<dyn Component>,
    pub position: String,
}

/// What a sum is under normal play.
pub struct SumReport {
    /// Each component's Grundy value.
    pub grundy: Vec<u64>,
    /// The XOR of them.
    pub total: u64,
    /// (component index, the move, the position it leads to, its Grundy value).
    pub winning_moves: Vec<(usize, MoveInfo)>,
}

/// The normal-play answer from the components' Grundy values.
pub fn solve_sum(terms: &mut [Term]) -> GameResult<SumReport> {
    let mut grundy = Vec::with_capacity(terms.len());
    for t in terms.iter_mut() {
        let name = t.component.info().name.clone();
        match t.component.grundy(&t.position)? {
            Some(g) => grundy.push(g),
            None => {
                return Err(GameError::Unsupported(format!(
                    "{name} {}: no Grundy value here, so the sum cannot be added up",
                    t.position
                )));
            }
        }
    }
    let total = grundy.iter().fold(0, |a, g| a ^ g);
    let mut winning_moves = Vec::new();
    if total != 0 {
        for (i, t) in terms.iter_mut().enumerate() {
            let target = total ^ grundy[i];
            if target >= grundy[i] {
                continue;
            }
            for m in t.component.moves(&t.position)? {
                if m.grundy == Some(target) {
                    winning_moves.push((i, m));
                }
            }
        }
    }
    Ok(SumReport { grundy, total, winning_moves })
}

/// A sum as one game (for misère play): a position is every component's position text, a
/// move is a move in one of them.
pub struct SumGame {
    terms: RefCell<Vec<Term>>,
    info: GameInfo,
}

/// A sum's position: each component's position text, in order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SumPos(pub Vec<String>);

impl Footprint for SumPos {
    fn heap_bytes(&self) -> usize {
        self.0.iter().map(|s| s.capacity() + std::mem::size_of::<String>()).sum()
    }
}

impl SumGame {
    pub fn new(terms: Vec<Term>) -> Self {
        let name = terms.iter().map(|t| t.component.info().name.clone()).collect::<Vec<_>>().join(" + ");
        let info = GameInfo {
            name,
            description: "a disjunctive sum".into(),
            kind: Kind::Impartial,
            native: None,
            move_verb: None,
            solved_message: None,
            players: None,
        };
        SumGame { terms: RefCell::new(terms), info }
    }

    pub fn root(&self) -> SumPos {
        SumPos(self.terms.borrow().iter().map(|t| t.position.clone()).collect())
    }
}

impl Game for SumGame {
    type Pos = SumPos;
    /// (component, position it leads to, the move's name there)
    type Move = (usize, String, String);

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn parse(&self, text: &str) -> GameResult<SumPos> {
        let parts: Vec<&str> = text.split(" + ").collect();
        let terms = self.terms.borrow();
        if parts.len() != terms.len() {
            return Err(GameError::BadPosition(format!("a position of this sum has {} parts", terms.len())));
        }
        Ok(SumPos(parts.iter().zip(terms.iter()).map(|(p, t)| t.component.normalize(p)).collect::<GameResult<_>>()?))
    }

    fn format(&self, pos: &SumPos) -> GameResult<String> {
        Ok(pos.0.join(" + "))
    }

    fn moves(&self, pos: &SumPos) -> GameResult<Vec<Self::Move>> {
        let terms = self.terms.borrow();
        let mut out = Vec::new();
        for (i, (t, p)) in terms.iter().zip(&pos.0).enumerate() {
            for (name, child) in t.component.children(p)? {
                out.push((i, child, name));
            }
        }
        Ok(out)
    }

    fn play(&self, pos: &SumPos, mv: &Self::Move) -> GameResult<SumPos> {
        let mut next = pos.clone();
        *next.0.get_mut(mv.0).ok_or_else(|| GameError::BadMove("no such component".into()))? = mv.1.clone();
        Ok(next)
    }

    fn move_name(&self, _pos: &SumPos, mv: &Self::Move) -> GameResult<String> {
        Ok(format!("{}:{}", mv.0 + 1, mv.2))
    }

    /// A sum ends when no component has a move (a stalemate): never a primitive position.
    fn primitive(&self, _pos: &SumPos) -> GameResult<Option<Value>> {
        Ok(None)
    }
}
