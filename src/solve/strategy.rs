//! A winning strategy as a tree: the winner's move at each step and, under it, every reply of
//! the loser, down to the end of the game (`gamesman strategy`).

use super::Analyzer;
use crate::game::{Game, GameError, GameResult, Value};
use serde_json::{Value as Json, json};

/// One position of a strategy tree: the winner's positions have one move (the chosen one),
/// the loser's every move.
pub struct Node {
    pub position: String,
    pub winner_to_move: bool,
    pub remoteness: u32,
    /// (move, index of the node it leads to); children always come after their parent.
    pub moves: Vec<(String, usize)>,
}

/// The tree from `root`, built iteratively: node 0 is the root. At most `max_nodes` positions.
pub fn tree<G: Game>(a: &mut Analyzer<G>, root: &G::Pos, max_nodes: usize) -> GameResult<Vec<Node>> {
    let (s, _) = a.value(root)?;
    let winner_first = match s.value {
        Value::Win => true,
        Value::Lose => false,
        v => {
            return Err(GameError::Unsupported(format!(
                "no player can force a win from here: the position is a {v} with best play"
            )));
        }
    };
    let mut nodes = vec![Node {
        position: a.game().format(root)?,
        winner_to_move: winner_first,
        remoteness: s.remoteness.unwrap_or(0),
        moves: Vec::new(),
    }];
    let mut todo = vec![(0usize, root.clone())];
    while let Some((i, pos)) = todo.pop() {
        if a.game().primitive(&pos)?.is_some() {
            continue;
        }
        let winner_turn = nodes[i].winner_to_move;
        let mut chosen: Option<(u32, String, G::Pos, u32)> = None;
        let mut all = Vec::new();
        for mv in a.game().moves(&pos)? {
            let child = a.game().play(&pos, &mv)?;
            let (cs, _) = a.value(&child)?;
            let name = a.game().move_name(&pos, &mv)?;
            let r = cs.remoteness.ok_or_else(|| {
                GameError::Unsupported("a strategy needs remoteness, and it is not known here".into())
            })?;
            if winner_turn {
                if cs.value == Value::Lose && chosen.as_ref().is_none_or(|c| r < c.0) {
                    chosen = Some((r, name, child, r));
                }
            } else {
                all.push((name, child, r));
            }
        }
        if let Some((_, name, child, r)) = chosen {
            all.push((name, child, r));
        } else if winner_turn {
            return Err(GameError::Definition(format!(
                "internal error: a won position has no move to a lost one: {}",
                nodes[i].position
            )));
        }
        for (name, child, r) in all {
            if nodes.len() >= max_nodes {
                return Err(GameError::OutOfMemory(format!(
                    "the strategy tree has more than {max_nodes} positions (raise --max-nodes)"
                )));
            }
            let id = nodes.len();
            nodes.push(Node {
                position: a.game().format(&child)?,
                winner_to_move: !winner_turn,
                remoteness: r,
                moves: Vec::new(),
            });
            nodes[i].moves.push((name, id));
            todo.push((id, child));
        }
    }
    Ok(nodes)
}

/// The tree as nested JSON, built bottom-up (no recursion).
pub fn to_json(nodes: &[Node]) -> Json {
    let mut built: Vec<Option<Json>> = (0..nodes.len()).map(|_| None).collect();
    // Children always have larger indices than their parent.
    for i in (0..nodes.len()).rev() {
        let n = &nodes[i];
        let moves: Vec<Json> =
            n.moves.iter().map(|(mv, c)| json!({"move": mv, "next": built[*c].take().unwrap_or(Json::Null)})).collect();
        built[i] = Some(json!({
            "position": n.position,
            "to_move": if n.winner_to_move { "winner" } else { "loser" },
            "remoteness": n.remoteness,
            "moves": moves,
        }));
    }
    built.first_mut().and_then(Option::take).unwrap_or(Json::Null)
}
