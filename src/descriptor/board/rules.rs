//! The checked rules of a board game (`BoardRules`), its positions (`BPos`) and moves
//! (`BMove`): every impossible combination of the vocabulary refused in one line.

use super::bits::{parse_size, triangle_size};
use super::vocab::{BoardEnd, BoardMove, BoardShape, BoardSpec, Orientation, Pieces};
use crate::game::Kind;

// --- The checked rules -------------------------------------------------------------------

#[derive(Clone)]
pub struct BoardRules {
    pub(super) fixed: Option<(u8, u8)>,
    pub(in crate::descriptor) shape: BoardShape,
    pub(in crate::descriptor) moves: BoardMove,
    pub(in crate::descriptor) pieces: Pieces,
    /// The default k of `InRow` (a position text may give another: `4x4k3`); 0 without it.
    pub(super) k: u8,
    pub(super) connect: bool,
    /// The empty cell, the first player's mark, the second's (the same when shared).
    pub(super) chars: [char; 3],
    pub(in crate::descriptor) kind: Kind,
    pub(in crate::descriptor) misere: bool,
    /// `Step`: each player's directions (forward first), and whether forward leaves the board.
    pub(super) steps: [Vec<(i8, i8)>; 2],
    pub(in crate::descriptor) off: bool,
    /// `Gone`: a player with no piece left has won.
    pub(super) gone: bool,
    /// A puzzle's ends: the goal position, or the number of pieces left.
    pub(super) goal: Option<BPos>,
    pub(super) left: Option<u32>,
    /// `Slide`: the tiles' labels (a tile's code is its index + 1; 0 is the blank), and the
    /// goal's labels sorted (every position holds the same tiles).
    pub(super) labels: Vec<char>,
    pub(super) tiles: Vec<char>,
    /// Pieces that move on a board of fixed size: its size and the symmetries the rules keep
    /// there (derived once).
    pub(super) fixed_syms: Option<((u8, u8), Vec<MoveSym>)>,
}

/// A position: the first player's (or the shared) marks, the second player's, the size, k,
/// and whose turn it is (0 the first player; always 0 in an impartial game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BPos {
    pub(in crate::descriptor) rows: u8,
    pub(in crate::descriptor) cols: u8,
    pub(in crate::descriptor) a: u128,
    pub(in crate::descriptor) b: u128,
    pub(in crate::descriptor) k: u8,
    pub(in crate::descriptor) turn: u8,
}

/// A move: the cells it covers (the same cell twice for a piece).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BMove(pub(super) u8, pub(super) u8);

/// Each player's step directions, as (row, column) deltas.
type Steps = [Vec<(i8, i8)>; 2];

/// What a board's `ends` say (see [`BoardRules::new`]).
struct Ends {
    k: u8,
    connect: bool,
    gone: bool,
    goal_text: Option<String>,
    left: Option<u32>,
}

impl BoardRules {
    /// Check the rules: every impossible combination is a one-line message.
    pub fn new(spec: BoardSpec, misere: bool) -> Result<BoardRules, String> {
        let puzzle = matches!(spec.moves, BoardMove::Jump | BoardMove::Slide | BoardMove::Hanoi);
        let fixed = match &spec.size {
            Some(s) => {
                if matches!(spec.moves, BoardMove::Slide | BoardMove::Hanoi) {
                    return Err("the goal gives the board's size: leave `size` out".into());
                }
                let (r, c, k) = if spec.shape == BoardShape::Triangle { triangle_size(s)? } else { parse_size(s)? };
                if k.is_some() {
                    return Err(format!("`size: {s:?}`: k belongs in `ends: [InRow(k)]`"));
                }
                Some((r, c))
            }
            None => None,
        };
        let ends = Self::read_ends(&spec.ends)?;
        let Ends { k, connect, gone, left, .. } = ends;
        Self::check_ends(&spec, puzzle, &ends)?;
        let domino = matches!(spec.moves, BoardMove::Domino(_));
        let (steps, off) = Self::read_steps(&spec, gone)?;
        if connect {
            if spec.shape != BoardShape::Hex {
                return Err("`Connect` joins the sides of a Hex board: add `shape: Hex`".into());
            }
            if spec.pieces == Some(Pieces::Shared) {
                return Err("`Connect` needs each player's own pieces (a chain has an owner): `pieces: Own`".into());
            }
        }
        if let Some((r, c)) = fixed
            && k != 0
            && k > r.max(c)
        {
            return Err(format!("InRow({k}) cannot fit on a {r}x{c} board"));
        }
        let pieces = spec.pieces.unwrap_or(if puzzle { Pieces::Shared } else { Pieces::Own });
        let kind = match (&spec.moves, pieces) {
            (BoardMove::Jump | BoardMove::Slide | BoardMove::Hanoi, _) => Kind::Puzzle,
            (BoardMove::Domino(Orientation::PerPlayer), _) => Kind::Partisan,
            (BoardMove::Domino(Orientation::Either), _) => Kind::Impartial,
            (_, Pieces::Own) => Kind::Partisan,
            (_, Pieces::Shared) => Kind::Impartial,
        };
        let default = match (pieces, domino) {
            (Pieces::Own, _) => ".xo",
            (Pieces::Shared, false) => ".x",
            (Pieces::Shared, true) => ".#",
        };
        let chars = Self::read_cells(spec.cells.as_deref(), default, pieces)?;
        let rules = BoardRules {
            fixed,
            shape: spec.shape,
            moves: spec.moves,
            pieces,
            k,
            connect,
            chars,
            kind,
            misere,
            steps,
            off,
            gone,
            goal: None,
            left,
            labels: Vec::new(),
            tiles: Vec::new(),
            fixed_syms: None,
        };
        rules.finish(ends.goal_text)
    }

    /// `ends`: InRow's k (0: none), Connect, Gone, the goal's text and Left's count, each
    /// given at most once.
    fn read_ends(ends: &[BoardEnd]) -> Result<Ends, String> {
        let mut k = 0u8;
        let mut connect = false;
        let (mut gone, mut goal_text, mut left) = (false, None, None);
        for e in ends {
            match e {
                BoardEnd::InRow(n) => {
                    let n = *n;
                    if n == 0 || n > 15 {
                        return Err(format!("InRow({n}): k must be from 1 to 15"));
                    }
                    if k != 0 {
                        return Err("`ends` says InRow twice: give one k".into());
                    }
                    k = n as u8;
                }
                BoardEnd::Connect => connect = true,
                BoardEnd::Gone => gone = true,
                BoardEnd::Goal(g) => {
                    if goal_text.is_some() {
                        return Err("`ends` says Goal twice: give one goal".into());
                    }
                    goal_text = Some(g.clone());
                }
                BoardEnd::Left(n) => {
                    if *n == 0 {
                        return Err("Left(0): a puzzle ends with at least one piece left".into());
                    }
                    left = Some(*n);
                }
            }
        }
        Ok(Ends { k, connect, gone, goal_text, left })
    }

    /// The moves, the shape and the ends against each other.
    fn check_ends(spec: &BoardSpec, puzzle: bool, ends: &Ends) -> Result<(), String> {
        let Ends { k, connect, gone, ref goal_text, left } = *ends;
        let domino = matches!(spec.moves, BoardMove::Domino(_));
        if domino && !spec.ends.is_empty() {
            return Err("a domino game ends when no domino fits (the player who cannot move loses): \
                        `ends` must be empty"
                .into());
        }
        if spec.shape == BoardShape::Hex {
            if spec.moves != BoardMove::Place {
                return Err("a Hex board takes `moves: Place` (no gravity, no dominoes on a rhombus)".into());
            }
            if k != 0 {
                return Err("InRow is for rectangles; a Hex board ends with `Connect`".into());
            }
        }
        if spec.shape == BoardShape::Triangle && spec.moves != BoardMove::Jump {
            return Err("a triangular board takes `moves: Jump` (peg solitaire)".into());
        }
        if puzzle {
            if k != 0 || connect || gone {
                return Err("a puzzle ends at its goal: `ends: [Goal(\"...\")]` (or `Left(n)` for jumps), \
                            not InRow, Connect or Gone"
                    .into());
            }
            match (&spec.moves, &goal_text, left) {
                (BoardMove::Jump, None, None) => {
                    return Err("a jumping puzzle needs an end: `ends: [Left(1)]` (one peg left) or \
                                `ends: [Goal(\"...\")]`"
                        .into());
                }
                (BoardMove::Slide | BoardMove::Hanoi, None, _) => {
                    return Err("a sliding or Hanoi puzzle needs its goal: `ends: [Goal(\"...\")]`".into());
                }
                (BoardMove::Slide | BoardMove::Hanoi, _, Some(_)) => {
                    return Err("`Left(n)` counts pegs of a jumping puzzle; this puzzle ends at its `Goal`".into());
                }
                _ => {}
            }
            if matches!(spec.moves, BoardMove::Slide | BoardMove::Hanoi) {
                if spec.shape != BoardShape::Rectangle {
                    return Err("sliding and Hanoi puzzles take no `shape` (their goal gives the board)".into());
                }
                if spec.pieces.is_some() || spec.cells.is_some() {
                    return Err("tiles and discs are written as their labels: `pieces` and `cells` do not apply".into());
                }
            }
            if spec.pieces == Some(Pieces::Own) {
                return Err("a puzzle's pieces are all alike: `pieces: Shared` (or leave it out)".into());
            }
        } else if goal_text.is_some() || left.is_some() {
            return Err("`Goal` and `Left` end puzzles (`moves: Jump`, `Slide` or `Hanoi`)".into());
        }
        if gone && !matches!(spec.moves, BoardMove::Step { .. }) {
            return Err("`Gone` is for pieces that step off the board: `moves: Step(..., off: true)`".into());
        }
        Ok(())
    }

    /// A `Step` game's directions for each player (as deltas) and whether pieces may step
    /// off; none for other moves.
    fn read_steps(spec: &BoardSpec, gone: bool) -> Result<(Steps, bool), String> {
        let mut steps: Steps = [Vec::new(), Vec::new()];
        let mut off = false;
        if let BoardMove::Step { first, second, off: o } = &spec.moves {
            for (who, dirs) in [("first", first), ("second", second)] {
                if dirs.is_empty() {
                    return Err(format!("Step: the {who} player needs at least one direction (such as `{who}: [N]`)"));
                }
                let mut seen = Vec::new();
                for d in dirs {
                    if seen.contains(d) {
                        return Err(format!("Step: the {who} player's directions list {d:?} twice"));
                    }
                    seen.push(*d);
                }
            }
            if spec.shape != BoardShape::Rectangle {
                return Err("pieces step on a rectangle: leave `shape` out".into());
            }
            if spec.pieces == Some(Pieces::Shared) {
                return Err("Step moves each player's own pieces: `pieces: Own` (or leave it out)".into());
            }
            if gone && !o {
                return Err("`Gone` needs pieces that can leave the board: `Step(..., off: true)`".into());
            }
            steps = [first.iter().map(|d| d.delta()).collect(), second.iter().map(|d| d.delta()).collect()];
            off = *o;
        }
        Ok((steps, off))
    }

    /// `cells`: the empty cell and the marks (`default` when not given), distinct, and not
    /// digits, spaces or '/'.
    fn read_cells(given: Option<&str>, default: &str, pieces: Pieces) -> Result<[char; 3], String> {
        let cells = given.unwrap_or(default);
        let chars: Vec<char> = cells.chars().collect();
        let want = if pieces == Pieces::Own { 3 } else { 2 };
        if chars.len() != want {
            return Err(format!(
                "`cells: {cells:?}` must be {want} characters: the empty cell, then {}",
                if want == 3 {
                    if chars.len() == 2 {
                        "the first player's mark and the second's (\".xo\"); with one mark for both players \
                         (Cram, Notakto), write `pieces: Shared`"
                    } else {
                        "the first player's mark and the second's (\".xo\")"
                    }
                } else {
                    "the mark (\".x\")"
                }
            ));
        }
        for (i, &ch) in chars.iter().enumerate() {
            if ch.is_ascii_digit() || ch.is_whitespace() || ch == '/' || chars[..i].contains(&ch) {
                return Err(format!(
                    "`cells: {cells:?}`: {ch:?} cannot be a cell (cells are distinct, and not digits, spaces or '/')"
                ));
            }
        }
        Ok([chars[0], chars[1], *chars.last().unwrap_or(&chars[1])])
    }

    /// The goal (a slide puzzle's tiles first), Left against the board, and the symmetries of
    /// a fixed board whose pieces move.
    fn finish(mut self, goal_text: Option<String>) -> Result<BoardRules, String> {
        let (left, fixed) = (self.left, self.fixed);
        let rules = &mut self;
        if let Some(g) = goal_text {
            if rules.moves == BoardMove::Slide {
                let mut tiles: Vec<char> = g.chars().filter(|&c| !c.is_whitespace() && c != '/' && c != '.').collect();
                tiles.sort_unstable();
                let mut labels = tiles.clone();
                labels.dedup();
                if labels.len() > 31 {
                    return Err(format!("Goal({g:?}): at most 31 different tiles (got {})", labels.len()));
                }
                rules.labels = labels;
                rules.tiles = tiles;
            }
            let goal = rules.parse(&g).map_err(|e| format!("Goal({g:?}): {e}"))?;
            rules.fixed = Some((goal.rows, goal.cols));
            rules.goal = Some(goal);
        }
        if let (Some(n), Some((r, c))) = (left, fixed) {
            let cells = rules.cell_mask(r, c).count_ones();
            if n > cells {
                return Err(format!("Left({n}): a {r}x{c} board has only {cells} cells"));
            }
        }
        if let Some((r, c)) = rules.fixed
            && rules.moving()
        {
            rules.fixed_syms = Some(((r, c), rules.derive_symmetries(r, c)));
        }
        Ok(self)
    }

    #[inline]
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// No end but the stalemate rule (no line to make, no chain, no pieces to lose).
    #[inline]
    pub(in crate::descriptor) fn no_ends(&self) -> bool {
        self.k == 0 && !self.connect && !self.gone && self.goal.is_none() && self.left.is_none()
    }

    #[inline]
    pub(super) fn domino(&self) -> bool {
        matches!(self.moves, BoardMove::Domino(_))
    }

    #[inline]
    pub(super) fn cells_per_move(&self) -> u32 {
        if self.domino() { 2 } else { 1 }
    }

    /// Whose turn the marks imply when the first player began: 0 or 1.
    #[inline]
    pub(super) fn implied_turn(&self, a: u128, b: u128) -> u8 {
        if matches!(self.moves, BoardMove::Step { .. }) {
            // Pieces that move keep their number: the turn is written when it is the second's.
            return 0;
        }
        match self.pieces {
            Pieces::Own => u8::from(a.count_ones() != b.count_ones()),
            Pieces::Shared => ((a.count_ones() / self.cells_per_move()) & 1) as u8,
        }
    }

    #[inline]
    pub(super) fn char_of(&self, ch: char) -> Option<u8> {
        let same = |x: char| x == ch || (x.is_alphabetic() && x.to_lowercase().eq(ch.to_lowercase()));
        (0..3u8).find(|&i| same(self.chars[i as usize]))
    }
}

/// A transform of a board whose pieces move: one of the square's 8 (`t` as in `transform`:
/// bit 1 upside down, bit 2 left-right, bit 4 transposed after them), one of the triangle's 6
/// (a permutation of a cell's three distances to the sides), or a permutation of Hanoi's pegs
/// (the new place of each peg).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveSym {
    Square(u8),
    Triangle(u8),
    Pegs(Vec<u8>),
}
