//! A game definition checked against itself: the hooks a definition may give (`children`,
//! `canonical`, `split`) must agree with its moves, and every solved value must follow from
//! the values of the position's moves (`gamesman check` on a game with nothing to compare it
//! with).

use super::analyzer::Analyzer;
use super::solution::Solution;
use crate::game::{Game, GameError, GameExt, GameResult, Kind, Value};

/// Position text on one line.
fn one_line<G: Game>(game: &G, pos: &G::Pos) -> String {
    game.format(pos).map_or_else(|e| format!("<{e}>"), |t| t.trim_end().replace('\n', "/"))
}

/// The value a position must have given its children's (`None`: no moves), by the rules the
/// solvers follow: a win if some move leads to a loss, else a tie if some move leads to a tie,
/// else a draw if some move leads to a draw, else a loss. Remoteness: a win 1 + the least of
/// its losing children's, a tie 1 + the least of its tying children's, a loss 1 + the greatest.
fn expected(children: &[Solution]) -> Solution {
    let least = |v: Value| children.iter().filter(|c| c.value == v).map(|c| c.remoteness).min();
    if let Some(r) = least(Value::Lose) {
        return Solution { value: Value::Win, remoteness: r.map(|r| r + 1) };
    }
    if let Some(r) = least(Value::Tie) {
        return Solution { value: Value::Tie, remoteness: r.map(|r| r + 1) };
    }
    if children.iter().any(|c| c.value == Value::Draw) {
        return Solution { value: Value::Draw, remoteness: None };
    }
    let most = children.iter().map(|c| c.remoteness).try_fold(0u32, |m, r| r.map(|r| m.max(r)));
    Solution { value: Value::Lose, remoteness: most.map(|r| r + 1) }
}

/// A puzzle: solvable when a move leads to a solvable position, in one more move than the
/// nearest.
fn expected_puzzle(children: &[Solution]) -> Solution {
    match children.iter().filter(|c| c.value == Value::Win).filter_map(|c| c.remoteness).min() {
        Some(r) => Solution { value: Value::Win, remoteness: Some(r + 1) },
        None => Solution { value: Value::Lose, remoteness: None },
    }
}

fn show_solution(s: &Solution, g: Option<u64>) -> String {
    let mut out = s.value.to_string();
    if let Some(r) = s.remoteness {
        out += &format!(" in {r}");
    }
    if let Some(g) = g {
        out += &format!(", grundy {g}");
    }
    out
}

/// The first way in which `game` disagrees with itself at one of `positions`, if any:
/// - `children` lists other positions than `moves` + `play` (up to symmetry and repeats);
/// - `canonical` is not idempotent, or changes whether the game is over;
/// - the solved value, remoteness or Grundy value of a position does not follow from those of
///   the positions its moves lead to (a `canonical` that merges positions of different values,
///   or `split` parts whose Grundy values do not XOR to the whole, show up here).
pub fn self_check<G: Game>(analyzer: &mut Analyzer<G>, positions: &[G::Pos]) -> GameResult<Option<String>> {
    let shared = analyzer.shared_game();
    let game = &*shared;
    let puzzle = game.kind() == Kind::Puzzle;
    // A puzzle's value is a breadth-first search of its own, which would be repeated for every
    // position and every child (seconds each for the 8-puzzle as a script). So the values come
    // from one census of everything reachable from the first position (retrograde analysis of
    // the whole graph), and the search is compared with it at the first few positions.
    let table: Option<hashbrown::HashMap<G::Pos, Solution>> = match positions.first() {
        Some(first) if puzzle => {
            let opts = analyzer.options();
            match super::census::census(game, first, opts.max_memory, &opts.progress) {
                Ok(c) => Some(c.graph.nodes.into_positions().zip(c.solutions).collect()),
                Err(GameError::OutOfMemory(_)) => None,
                Err(e) => return Err(e),
            }
        }
        _ => None,
    };
    let mut searched = 0;
    for p in positions {
        let at = one_line(game, p);
        let moves = game.moves(p)?;
        let mut kids = Vec::with_capacity(moves.len());
        for m in &moves {
            kids.push(game.play(p, m)?);
        }
        // children against moves + play, as sets of canonical positions.
        let canon_set =
            |v: &[G::Pos]| -> GameResult<hashbrown::HashSet<G::Pos>> { v.iter().map(|c| game.canonical(c)).collect() };
        if game.primitive(p)?.is_none() {
            let by_children = canon_set(&game.children(p)?)?;
            if by_children != canon_set(&kids)? {
                return Ok(Some(format!("at {at}: children lists other positions than moves + play")));
            }
        }
        let c = game.canonical(p)?;
        if game.canonical(&c)? != c {
            return Ok(Some(format!(
                "at {at}: canonical is not stable: it gives {}, whose canonical form is {}",
                one_line(game, &c),
                one_line(game, &game.canonical(&c)?)
            )));
        }
        if game.primitive(&c)? != game.primitive(p)? {
            return Ok(Some(format!(
                "at {at}: canonical gives {}, but one is a finished game and the other is not (primitive differs)",
                one_line(game, &c)
            )));
        }
        let in_table = |q: &G::Pos| table.as_ref().and_then(|t| t.get(q)).map(|s| (*s, None));
        let (got, g) = match in_table(p) {
            Some(known) if searched >= 3 => known,
            Some(known) => {
                searched += 1;
                let by_search = analyzer.value(p)?;
                if by_search.0 != known.0 {
                    return Ok(Some(format!(
                        "at {at}: the puzzle search finds {}, but the census of everything reachable finds {}",
                        show_solution(&by_search.0, None),
                        show_solution(&known.0, None)
                    )));
                }
                known
            }
            None => analyzer.value(p)?,
        };
        let want = match game.primitive(p)? {
            Some(v) => Solution { value: v, remoteness: Some(0) },
            None if kids.is_empty() => Solution { value: game.stalemate(), remoteness: Some(0) },
            None => {
                let mut sols = Vec::with_capacity(kids.len());
                let mut grundies = Vec::with_capacity(kids.len());
                for k in &kids {
                    let (s, gk) = match in_table(k) {
                        Some(known) => known,
                        None => analyzer.value(k)?,
                    };
                    sols.push(s);
                    grundies.push(gk);
                }
                let want = if puzzle { expected_puzzle(&sols) } else { expected(&sols) };
                if let (Some(g), Some(gs)) = (g, grundies.iter().copied().collect::<Option<Vec<u64>>>()) {
                    let mex = super::grundy::mex(&gs);
                    if g != mex {
                        let mut why = format!(
                            "at {at}: the Grundy value is {g}, but its moves lead to Grundy values {gs:?}, whose mex is {mex}"
                        );
                        if let Some(parts) = game.split(p)? {
                            let mut pg = Vec::new();
                            for part in &parts {
                                pg.push(analyzer.grundy(part)?.map_or("-".into(), |g| g.to_string()));
                            }
                            let names: Vec<String> = parts.iter().map(|q| one_line(game, q)).collect();
                            why += &format!(
                                ". split gives the parts [{}] with Grundy values [{}]: the moves of a sum must be \
                                 the moves of one part, the others left as they are",
                                names.join(" | "),
                                pg.join(", ")
                            );
                        } else if c != *p {
                            why += &format!(
                                ". canonical maps it to {}: a symmetry must keep the value",
                                one_line(game, &c)
                            );
                        }
                        return Ok(Some(why));
                    }
                }
                want
            }
        };
        let remoteness_known = got.remoteness.is_some() && want.remoteness.is_some();
        if got.value != want.value || (remoteness_known && got.remoteness != want.remoteness) {
            let mut why = format!(
                "at {at}: solved as {}, but its moves say {}",
                show_solution(&got, None),
                show_solution(&want, None)
            );
            if c != *p {
                why += &format!(". canonical maps it to {}: a symmetry must keep the value", one_line(game, &c));
            }
            return Ok(Some(why));
        }
    }
    Ok(None)
}
