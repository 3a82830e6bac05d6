//! One-player puzzles: the fewest moves to a solved position, and one such solution.
//!
//! Breadth-first search from the position. A position is solved when the game's primitive
//! value is `win`; a primitive `lose` (or a position with no moves) is a dead end. Positions
//! are de-duplicated under their canonical form, but the solution is made of the real moves.

use crate::game::{Footprint, Game, GameError, GameResult, Value};
use crate::progress::Progress;
use hashbrown::HashSet;
use std::collections::VecDeque;

pub struct PuzzleSolution<P, M> {
    /// `Some(moves)` when solvable: each move with the position it leads to.
    pub path: Option<Vec<(M, P)>>,
    pub visited: u64,
}

pub fn solve_puzzle<G: Game>(
    game: &G,
    start: &G::Pos,
    budget: usize,
    progress: &Progress,
) -> GameResult<PuzzleSolution<G::Pos, G::Move>> {
    match game.primitive(start)? {
        Some(Value::Win) => return Ok(PuzzleSolution { path: Some(Vec::new()), visited: 1 }),
        Some(_) => return Ok(PuzzleSolution { path: None, visited: 1 }),
        None => {}
    }
    // Arena of reached positions: (position, parent, move from the parent).
    let mut arena: Vec<(G::Pos, u32, Option<G::Move>)> = vec![(start.clone(), u32::MAX, None)];
    let mut seen: HashSet<G::Pos> = HashSet::new();
    seen.insert(game.canonical(start)?);
    let mut queue: VecDeque<u32> = VecDeque::from([0]);
    let mut bytes = 0usize;
    while let Some(i) = queue.pop_front() {
        let pos = arena[i as usize].0.clone();
        for mv in game.moves(&pos)? {
            let child = game.play(&pos, &mv)?;
            let key = game.canonical(&child)?;
            if seen.contains(&key) {
                continue;
            }
            bytes += 2 * (2 * std::mem::size_of::<G::Pos>() + std::mem::size_of::<G::Move>() + 16)
                + child.heap_bytes()
                + key.heap_bytes();
            if bytes > budget {
                return Err(GameError::OutOfMemory(format!(
                    "the puzzle search reached {} positions without a solution and needs more than \
                     the memory budget (raise --max-memory)",
                    arena.len()
                )));
            }
            seen.insert(key);
            progress.tick(arena.len() as u64, bytes)?;
            let solved = game.primitive(&child)?;
            arena.push((child, i, Some(mv)));
            let id = (arena.len() - 1) as u32;
            match solved {
                Some(Value::Win) => {
                    let visited = arena.len() as u64;
                    let mut path = Vec::new();
                    let mut at = id as usize;
                    while at != 0 {
                        let (p, parent, m) = &mut arena[at];
                        path.push((m.take().expect("every non-root position has a move"), p.clone()));
                        at = *parent as usize;
                    }
                    path.reverse();
                    return Ok(PuzzleSolution { path: Some(path), visited });
                }
                Some(_) => {} // a dead end
                None => queue.push_back(id),
            }
        }
    }
    Ok(PuzzleSolution { path: None, visited: arena.len() as u64 })
}
