//! A strategy as a tree (`gamesman strategy`): from a won or lost position, the winner's move
//! at each step and, under it, every reply of the loser, down to the end of the game; from a
//! drawn position (a loopy game), the drawing strategy of the player to move: a move that
//! keeps the draw at each step (never one to a lost position) and every reply of the other,
//! a reply that loses the draw answered by the win it gives. A position met again with the
//! same player to move is not expanded twice: it is a leaf marked `again`, whose strategy is
//! the one given where it first appears (above it in the tree, depth first); a drawing
//! strategy goes round such a cycle for ever.

use super::analyzer::Analyzer;
use crate::game::{Game, GameError, GameResult, Value};
use serde_json::{Value as Json, json};
use std::collections::HashSet;

/// One position of a strategy tree: the positions of the player whose strategy it is (the
/// winner, or the player drawing) have one move (the chosen one), the other player's every
/// move.
pub struct Node {
    pub position: String,
    /// Is the player whose strategy this is to move here?
    pub winner_to_move: bool,
    /// The value of the position for the player to move.
    pub value: Value,
    /// `None` for a draw.
    pub remoteness: Option<u32>,
    /// (move, index of the node it leads to); children always come after their parent.
    pub moves: Vec<(String, usize)>,
    /// The same position, with the same player to move, is expanded elsewhere in the tree
    /// (before this one, depth first): this one is a leaf.
    pub again: bool,
}

/// The tree from `root`, built iteratively: node 0 is the root. At most `max_nodes` positions.
pub fn tree<G: Game>(a: &mut Analyzer<G>, root: &G::Pos, max_nodes: usize) -> GameResult<Vec<Node>> {
    let (s, _) = a.value(root)?;
    let winner_first = match s.value {
        Value::Win | Value::Draw => true,
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
        value: s.value,
        remoteness: s.remoteness,
        moves: Vec::new(),
        again: false,
    }];
    // Expanded (position, whose strategy is to move): each once.
    let mut expanded: HashSet<(String, bool)> = HashSet::new();
    let mut todo = vec![(0usize, root.clone())];
    while let Some((i, pos)) = todo.pop() {
        if !expanded.insert((nodes[i].position.clone(), nodes[i].winner_to_move)) {
            nodes[i].again = true;
            continue;
        }
        if a.game().primitive(&pos)?.is_some() {
            continue;
        }
        // A position with no move is an end too, whatever its value (a win under misère play).
        let legal = a.game().moves(&pos)?;
        if legal.is_empty() {
            continue;
        }
        let winner_turn = nodes[i].winner_to_move;
        // The strategy's player keeps the value: to a lost child from a win (the nearest), to
        // a drawing child from a draw.
        let want = nodes[i].value.flip();
        let mut chosen: Option<(String, G::Pos, Value, Option<u32>)> = None;
        let mut all = Vec::new();
        for mv in legal {
            let child = a.game().play(&pos, &mv)?;
            let (cs, _) = a.value(&child)?;
            if !winner_turn {
                all.push((a.game().move_name(&pos, &mv)?, child, cs.value, cs.remoteness));
            } else if cs.value == want
                && chosen.as_ref().is_none_or(|c| cs.remoteness.unwrap_or(u32::MAX) < c.3.unwrap_or(u32::MAX))
            {
                chosen = Some((a.game().move_name(&pos, &mv)?, child, cs.value, cs.remoteness));
            }
        }
        if winner_turn {
            match chosen {
                Some(c) => all.push(c),
                None => {
                    return Err(GameError::Definition(format!(
                        "internal error: a position that is a {} has no move that keeps it: {}",
                        nodes[i].value, nodes[i].position
                    )));
                }
            }
        }
        let first = nodes.len();
        for (name, child, value, remoteness) in &all {
            if nodes.len() >= max_nodes {
                return Err(GameError::OutOfMemory(format!(
                    "the strategy tree has more than {max_nodes} positions (raise --max-nodes)"
                )));
            }
            let id = nodes.len();
            nodes.push(Node {
                position: a.game().format(child)?,
                winner_to_move: !winner_turn,
                value: *value,
                remoteness: *remoteness,
                moves: Vec::new(),
                again: false,
            });
            nodes[i].moves.push((name.clone(), id));
        }
        // Depth first in the order of the moves: the first child is expanded first.
        for (k, (_, child, _, _)) in all.into_iter().enumerate().rev() {
            todo.push((first + k, child));
        }
    }
    Ok(nodes)
}

/// The tree as nested JSON, built bottom-up (no recursion).
/// The roles are "winner" and "loser" in a won or lost tree, "player" (whose drawing
/// strategy it is) and "opponent" in a drawn one.
pub fn to_json(nodes: &[Node]) -> Json {
    let draw = nodes.first().is_some_and(|n| n.value == Value::Draw);
    let mut built: Vec<Option<Json>> = (0..nodes.len()).map(|_| None).collect();
    // Children always have larger indices than their parent.
    for i in (0..nodes.len()).rev() {
        let n = &nodes[i];
        let moves: Vec<Json> =
            n.moves.iter().map(|(mv, c)| json!({"move": mv, "next": built[*c].take().unwrap_or(Json::Null)})).collect();
        built[i] = Some(json!({
            "position": n.position,
            "to_move": match (n.winner_to_move, draw) {
                (true, false) => "winner",
                (false, false) => "loser",
                (true, true) => "player",
                (false, true) => "opponent",
            },
            "value": n.value.as_str(),
            "remoteness": n.remoteness,
            "moves": moves,
            "again": n.again,
        }));
    }
    built.first_mut().and_then(Option::take).unwrap_or(Json::Null)
}
