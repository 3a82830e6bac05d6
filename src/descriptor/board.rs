//! Board games as descriptors (`rules: Board(...)`): pieces placed on a rectangle or a Hex
//! rhombus (optionally falling, as in Connect-Four), dominoes placed across or down, and the
//! ends k in a row, a chain between the owner's sides, a full board (a tie) and no move (a
//! loss, or a win under misère play). Pieces that move (the second half of this file): a
//! piece stepping in its owner's directions, maybe off the board (Dodgem); a peg jumping over
//! another and removing it, on a rectangle or a triangle (peg solitaire); a tile sliding into
//! the blank (the 8-puzzle); the top disc moving between pegs (the Tower of Hanoi); with the
//! ends "all of a player's pieces gone", a goal position and "n pieces left". See
//! `docs/descriptors.md`.
//!
//! Executed natively: a position is two bitboards in a `u128`, cell (r, c) at bit
//! `r * (cols + 1) + c` (a guard column of zeros stops lines and dominoes from wrapping round
//! a row), so a move, a line test or a flood fill is a few shifts and masks. A triangle of
//! side n is the lower-left half of an n × n board (cell (r, c) for c ≤ r). Tiles (`Slide`)
//! are labels, 5 bits a cell in reading order, with the blank's index beside them; a Hanoi
//! position is a board of pegs (rows) × discs (columns), bit (p, d) set when disc d + 1 is on
//! peg p.

use crate::game::{Board, Kind, Value};
use serde::Deserialize;

// --- The vocabulary ----------------------------------------------------------------------

/// The board's shape.
#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
pub enum BoardShape {
    /// Rows and columns; neighbours across, down and diagonally.
    #[default]
    Rectangle,
    /// The Hex rhombus: each cell touches six, (r, c±1), (r±1, c), (r-1, c+1), (r+1, c-1).
    Hex,
    /// A triangle of side n: row r (from the top) has r + 1 cells; a cell touches six,
    /// (r, c±1), (r±1, c), (r-1, c-1), (r+1, c+1) (peg solitaire).
    Triangle,
}

/// What a move is.
#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub enum BoardMove {
    /// Put a piece on any empty cell (tic-tac-toe, Hex).
    Place,
    /// Drop a piece into a column that is not full; it falls to the lowest empty cell
    /// (Connect-Four).
    Drop,
    /// Cover two adjacent empty cells with a domino.
    Domino(Orientation),
    /// Move one of your pieces one cell, in one of your directions, onto an empty cell; with
    /// `off: true` a piece whose step in its owner's first direction (forward) would leave the
    /// board may take it, and is gone (Dodgem).
    Step {
        first: Vec<Dir>,
        second: Vec<Dir>,
        #[serde(default)]
        off: bool,
    },
    /// A puzzle: a peg jumps over a neighbouring peg into the empty cell beyond, and the peg
    /// jumped over is removed (peg solitaire; across and down on a rectangle, also along the
    /// one diagonal on a triangle).
    Jump,
    /// A puzzle: a tile next to the blank slides into it (the 8-puzzle).
    Slide,
    /// A puzzle: the top disc of a peg moves onto an empty peg or a larger disc (the Tower
    /// of Hanoi).
    Hanoi,
}

/// A direction on the board: north is up (towards the first row), east is right.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    N,
    S,
    E,
    W,
    NE,
    NW,
    SE,
    SW,
}

impl Dir {
    /// (rows, columns) moved.
    fn delta(self) -> (i8, i8) {
        match self {
            Dir::N => (-1, 0),
            Dir::S => (1, 0),
            Dir::E => (0, 1),
            Dir::W => (0, -1),
            Dir::NE => (-1, 1),
            Dir::NW => (-1, -1),
            Dir::SE => (1, 1),
            Dir::SW => (1, -1),
        }
    }
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// Across or down, for both players (Cram).
    Either,
    /// The first player down (vertical), the second across (horizontal): Domineering.
    PerPlayer,
}

/// Whose marks the pieces are.
#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
pub enum Pieces {
    /// Each player has a mark (`x` and `o`).
    #[default]
    Own,
    /// Both players put down the same mark (Notakto, Cram, Domineering).
    Shared,
}

/// How a game ends, besides a full board (a tie, for pieces) or no move (a loss).
#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
pub enum BoardEnd {
    /// k of one mark in a row, across, down or diagonally: the player who made it wins
    /// (loses under misère play).
    InRow(u32),
    /// A chain of the player's pieces joining the player's two sides of a Hex board: the
    /// first player top and bottom, the second left and right.
    Connect,
    /// A player none of whose pieces is left on the board (all stepped off) has won, under
    /// normal and misère play alike (Dodgem).
    Gone,
    /// A puzzle is solved at this position (the 8-puzzle's `123/456/78.`).
    Goal(String),
    /// A puzzle is solved when this many pieces are left (peg solitaire: 1).
    Left(u32),
}

/// The board rules as written in a descriptor (the fields of `Board(...)`).
pub struct BoardSpec {
    pub size: Option<String>,
    pub shape: BoardShape,
    pub moves: BoardMove,
    /// `None` when the descriptor does not say (`Own` for pieces placed or stepped).
    pub pieces: Option<Pieces>,
    pub ends: Vec<BoardEnd>,
    pub cells: Option<String>,
}

// --- The checked rules -------------------------------------------------------------------

/// The most cells a board holds, counting one guard cell at the end of each row.
const BITS: usize = 128;

#[derive(Clone)]
pub struct BoardRules {
    fixed: Option<(u8, u8)>,
    pub(super) shape: BoardShape,
    pub(super) moves: BoardMove,
    pub(super) pieces: Pieces,
    /// The default k of `InRow` (a position text may give another: `4x4k3`); 0 without it.
    k: u8,
    connect: bool,
    /// The empty cell, the first player's mark, the second's (the same when shared).
    chars: [char; 3],
    pub(super) kind: Kind,
    pub(super) misere: bool,
    /// `Step`: each player's directions (forward first), and whether forward leaves the board.
    steps: [Vec<(i8, i8)>; 2],
    pub(super) off: bool,
    /// `Gone`: a player with no piece left has won.
    gone: bool,
    /// A puzzle's ends: the goal position, or the number of pieces left.
    goal: Option<BPos>,
    left: Option<u32>,
    /// `Slide`: the tiles' labels (a tile's code is its index + 1; 0 is the blank), and the
    /// goal's labels sorted (every position holds the same tiles).
    labels: Vec<char>,
    tiles: Vec<char>,
    /// Pieces that move on a board of fixed size: its size and the symmetries the rules keep
    /// there (derived once).
    fixed_syms: Option<((u8, u8), Vec<MoveSym>)>,
}

/// A position: the first player's (or the shared) marks, the second player's, the size, k,
/// and whose turn it is (0 the first player; always 0 in an impartial game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BPos {
    pub(super) rows: u8,
    pub(super) cols: u8,
    pub(super) a: u128,
    pub(super) b: u128,
    pub(super) k: u8,
    pub(super) turn: u8,
}

/// A move: the cells it covers (the same cell twice for a piece).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BMove(u8, u8);

/// Bit `r * w + c` set for every cell of a rows × cols board (w = cols + 1).
fn full_mask(rows: u8, cols: u8) -> u128 {
    let w = cols as usize + 1;
    let row = (1u128 << cols) - 1;
    (0..rows as usize).fold(0, |m, r| m | row << (r * w))
}

fn shr(x: u128, n: usize) -> u128 {
    if n >= BITS { 0 } else { x >> n }
}

fn shl(x: u128, n: usize) -> u128 {
    if n >= BITS { 0 } else { x << n }
}

/// k set cells in a row anywhere in `x` (guard columns hold no marks).
fn has_line(x: u128, cols: u8, k: u8) -> bool {
    if k == 0 {
        return false;
    }
    let w = cols as usize + 1;
    [1, w, w + 1, w - 1].iter().any(|&d| {
        if d == 0 {
            return false;
        }
        let mut y = x;
        for i in 1..k as usize {
            y &= shr(x, i * d);
            if y == 0 {
                return false;
            }
        }
        y != 0
    })
}

/// The cells of a Hex board next to the cells of `x`.
fn hex_spread(x: u128, cols: u8, full: u128) -> u128 {
    let w = cols as usize + 1;
    (x | x << 1 | x >> 1 | shl(x, w) | x >> w | shl(x, w - 1) | x >> (w - 1)) & full
}

/// Does `stones` (the first player's when `first`) join its owner's two sides?
fn joined(stones: u128, rows: u8, cols: u8, first: bool) -> bool {
    let w = cols as usize + 1;
    let full = full_mask(rows, cols);
    let (from, to) = if first {
        let top = (1u128 << cols) - 1;
        (top, top << ((rows as usize - 1) * w))
    } else {
        let left = (0..rows as usize).fold(0u128, |m, r| m | 1 << (r * w));
        (left, left << (cols - 1))
    };
    let mut reach = stones & from;
    loop {
        if reach & to != 0 {
            return true;
        }
        let next = hex_spread(reach, cols, full) & stones;
        if next == reach {
            return false;
        }
        reach = next;
    }
}

/// A board's shape, rows, columns and whether by the column alone: what an order is for.
type OrderKey = (BoardShape, u8, u8, bool);

thread_local! {
    /// [`centre_first`]'s orders, one a board size and shape met on this thread.
    static CENTRE_FIRST: std::cell::RefCell<Vec<(OrderKey, Vec<u8>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Calls `f` with the cells (bit indices) of a rows × cols board nearest its centre first
/// (on a Hex rhombus by the hexagons' distance, elsewhere by the straight-line one, or by
/// the column's alone with `columns`; ties in reading order). Worked out once a size and
/// kept for the thread.
fn centre_first(shape: BoardShape, rows: u8, cols: u8, columns: bool, f: impl FnOnce(&[u8])) {
    CENTRE_FIRST.with(|cache| {
        let mut cache = cache.borrow_mut();
        let at = match cache.iter().position(|(k, _)| *k == (shape, rows, cols, columns)) {
            Some(at) => at,
            None => {
                let w = cols as usize + 1;
                let mut cells: Vec<(i32, u8)> = Vec::with_capacity(rows as usize * cols as usize);
                for r in 0..rows as i32 {
                    for c in 0..cols as i32 {
                        // Doubled offsets from the centre, so that an even side has one too.
                        let (dr, dc) = (2 * r - (rows as i32 - 1), 2 * c - (cols as i32 - 1));
                        let far = match shape {
                            _ if columns => dc.abs(),
                            BoardShape::Hex => dr.abs() + dc.abs() + (dr + dc).abs(),
                            _ => dr * dr + dc * dc,
                        };
                        cells.push((far, (r as usize * w + c as usize) as u8));
                    }
                }
                cells.sort();
                cache.push(((shape, rows, cols, columns), cells.into_iter().map(|c| c.1).collect()));
                cache.len() - 1
            }
        };
        f(&cache[at].1)
    })
}

/// The image of the cells of `x` (a rows × cols board) under symmetry `t`: bit 1 turns the
/// board upside down, bit 2 mirrors it left-right, bit 4 transposes it (rows become columns).
pub(super) fn transform(x: u128, rows: u8, cols: u8, t: u8) -> u128 {
    if x == 0 {
        return 0;
    }
    let x = match t & 3 {
        0 => x,
        1 => flip_rows(x, rows, cols),
        2 => half_turn(flip_rows(x, rows, cols), rows, cols),
        _ => half_turn(x, rows, cols),
    };
    if t & 4 == 0 {
        return x;
    }
    let (w, rows, cols) = (cols as usize + 1, rows as usize, cols as usize);
    // Row r's cells go to column r of the transposed board (w' = rows + 1): each byte of
    // the row, spread by a table to every w'-th bit, shifted into place.
    let nw = rows + 1;
    let row_mask = (1u128 << cols) - 1;
    let mut out = 0u128;
    match spread_table(nw) {
        Some(spread) => {
            for r in 0..rows {
                let mut bits = (x >> (r * w)) & row_mask;
                let mut at = r;
                while bits != 0 {
                    out |= spread[(bits & 0xff) as usize] << at;
                    bits >>= 8;
                    at += 8 * nw;
                }
            }
        }
        None => {
            for r in 0..rows {
                let mut bits = (x >> (r * w)) & row_mask;
                while bits != 0 {
                    let c = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    out |= 1 << (c * nw + r);
                }
            }
        }
    }
    out
}

/// The board upside down: row r to row rows-1-r (on a 64-bit word where the board fits).
fn flip_rows(x: u128, rows: u8, cols: u8) -> u128 {
    let (w, rows) = (cols as usize + 1, rows as usize);
    if rows * w <= 64 {
        let (x, row) = (x as u64, (1u64 << cols) - 1);
        let mut out = 0u64;
        for r in 0..rows {
            out |= ((x >> (r * w)) & row) << ((rows - 1 - r) * w);
        }
        return u128::from(out);
    }
    let row = (1u128 << cols) - 1;
    (0..rows).fold(0u128, |m, r| m | ((x >> (r * w)) & row) << ((rows - 1 - r) * w))
}

/// The half turn, (r, c) to (rows-1-r, cols-1-c): the whole word reversed.
fn half_turn(x: u128, rows: u8, cols: u8) -> u128 {
    let n = rows as usize * (cols as usize + 1) - 1;
    if n <= 64 {
        return u128::from((x as u64).reverse_bits() >> (64 - n));
    }
    x.reverse_bits() >> (BITS - n)
}

/// The images of `x` under the symmetries 0 to 3 of `transform` (none, upside down, the
/// other flip, the half turn), with one flip of the rows for all four.
fn flips(x: u128, rows: u8, cols: u8) -> [u128; 4] {
    if x == 0 {
        return [0; 4];
    }
    let f = flip_rows(x, rows, cols);
    [x, f, half_turn(f, rows, cols), half_turn(x, rows, cols)]
}

/// A transpose spreads a row a byte (8 columns) at a time: bit j of the byte goes to bit
/// j × w', w' the transposed board's row width. One table of 256 for each w' up to 16 (boards
/// of up to 15 rows), made at first use; wider ones go cell by cell.
fn spread_table(nw: usize) -> Option<&'static [u128; 256]> {
    static TABLES: [std::sync::OnceLock<[u128; 256]>; 17] = [const { std::sync::OnceLock::new() }; 17];
    let cell = TABLES.get(nw)?;
    Some(cell.get_or_init(|| {
        let mut t = [0u128; 256];
        for (byte, slot) in t.iter_mut().enumerate() {
            for j in 0..8 {
                if byte >> j & 1 != 0 && j * nw < BITS {
                    *slot |= 1u128 << (j * nw);
                }
            }
        }
        t
    }))
}

/// The transpose of the cells of `x` (`transform` 4), cell by cell over the fewer of the
/// board's set and clear cells.
fn transpose(x: u128, rows: u8, cols: u8) -> u128 {
    let full = full_mask(rows, cols);
    if (x & full).count_ones() * 2 <= rows as u32 * cols as u32 {
        transform(x, rows, cols, 4)
    } else {
        full_mask(cols, rows) & !transform(full & !x, rows, cols, 4)
    }
}

/// "RxC" (also "R×C"), with an optional "kK" after it.
fn parse_size(head: &str) -> Result<(u8, u8, Option<u8>), String> {
    let h = head.to_ascii_lowercase().replace('×', "x");
    let bad = || format!("{head:?} is not a board size: write rows x columns, such as 3x3 (or 4x5k4 with k)");
    let (r, rest) = h.split_once('x').ok_or_else(bad)?;
    let (c, k) = match rest.split_once('k') {
        Some((c, k)) => (c, Some(k)),
        None => (rest, None),
    };
    let num = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
    let (r, c) = (num(r)?, num(c)?);
    if r == 0 || c == 0 {
        return Err(format!("a board needs at least one row and one column (got {r}x{c})"));
    }
    if (r as u64) * (c as u64 + 1) > BITS as u64 {
        return Err(format!(
            "a {r}x{c} board is too big: a board has at most {BITS} cells counting one more a row \
             (rows × (columns + 1) ≤ {BITS}; 11x10, 8x15 and 7x15 fit)"
        ));
    }
    let k = match k {
        None => None,
        Some(k) => match k.trim().parse::<u32>() {
            Ok(k) if (1..=r.max(c)).contains(&k) => Some(k as u8),
            _ => return Err(format!("in {head:?}, k must be a number from 1 to {} (the longer side)", r.max(c))),
        },
    };
    Ok((r as u8, c as u8, k))
}

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

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// No end but the stalemate rule (no line to make, no chain, no pieces to lose).
    pub(super) fn no_ends(&self) -> bool {
        self.k == 0 && !self.connect && !self.gone && self.goal.is_none() && self.left.is_none()
    }

    fn domino(&self) -> bool {
        matches!(self.moves, BoardMove::Domino(_))
    }

    fn cells_per_move(&self) -> u32 {
        if self.domino() { 2 } else { 1 }
    }

    /// Whose turn the marks imply when the first player began: 0 or 1.
    fn implied_turn(&self, a: u128, b: u128) -> u8 {
        if matches!(self.moves, BoardMove::Step { .. }) {
            // Pieces that move keep their number: the turn is written when it is the second's.
            return 0;
        }
        match self.pieces {
            Pieces::Own => u8::from(a.count_ones() != b.count_ones()),
            Pieces::Shared => ((a.count_ones() / self.cells_per_move()) & 1) as u8,
        }
    }

    fn char_of(&self, ch: char) -> Option<u8> {
        let same = |x: char| x == ch || (x.is_alphabetic() && x.to_lowercase().eq(ch.to_lowercase()));
        (0..3u8).find(|&i| same(self.chars[i as usize]))
    }

    /// Position text: `RxC` (the empty board; `RxCkK` with k), or rows top to bottom
    /// separated by `/` (after `RxC/` or alone), one character a cell, and then, where the
    /// marks do not imply it, the player to move (` x` or ` o`).
    pub fn parse(&self, text: &str) -> Result<BPos, String> {
        let p = match self.moves {
            BoardMove::Slide => self.parse_tiles(text)?,
            BoardMove::Hanoi => self.parse_pegs(text)?,
            _ if self.shape == BoardShape::Triangle => self.parse_triangle(text)?,
            _ => self.parse_cells(text)?,
        };
        if let Some(g) = &self.goal
            && (g.rows, g.cols) != (p.rows, p.cols)
        {
            return Err(match self.moves {
                BoardMove::Hanoi => format!("this puzzle has {} discs on {} pegs, as its goal", g.cols, g.rows),
                _ if self.shape == BoardShape::Triangle => {
                    format!("this puzzle's board is a triangle of side {}", g.rows)
                }
                _ => format!("this puzzle's board is {}x{}, as its goal", g.rows, g.cols),
            });
        }
        Ok(p)
    }

    /// Rectangles and Hex boards: see [`BoardRules::parse`].
    fn parse_cells(&self, text: &str) -> Result<BPos, String> {
        let mut t = text.trim().replace(['\n', '\r'], "/");
        let mut turn = None;
        if let Some((body, last)) = t.rsplit_once(char::is_whitespace)
            && self.kind != Kind::Puzzle
            && matches!(last.to_ascii_lowercase().as_str(), "x" | "o")
        {
            turn = Some(u8::from(last.eq_ignore_ascii_case("o")));
            t = body.trim().to_string();
        }
        let t: String = t.chars().filter(|c| !c.is_whitespace()).collect();
        let (head, body) = if t.starts_with(|c: char| c.is_ascii_digit()) {
            match t.split_once('/') {
                Some((h, b)) => (Some(h.to_string()), b.to_string()),
                None => (Some(t.clone()), String::new()),
            }
        } else {
            (None, t.clone())
        };
        let mut size = self.fixed;
        let mut k = self.k;
        if let Some(h) = &head {
            let (r, c, hk) = parse_size(h)?;
            if let Some(f) = self.fixed
                && f != (r, c)
            {
                return Err(format!("this game is played on a {}x{} board, not {r}x{c}", f.0, f.1));
            }
            if let Some(hk) = hk {
                if self.k == 0 {
                    return Err(format!("{h:?}: this game has no k in a row"));
                }
                k = hk;
            }
            size = Some((r, c));
        }
        let mut rows: Vec<Vec<char>> = if body.is_empty() {
            Vec::new()
        } else {
            body.trim_end_matches('/').split('/').map(|r| r.chars().collect()).collect()
        };
        if head.is_none() && rows.is_empty() {
            return Err("an empty position: write the size (3x3) or the rows (.../.../...)".into());
        }
        if let (Some((r, c)), 1) = (size, rows.len())
            && rows[0].len() == r as usize * c as usize
            && r > 1
        {
            // One line of every cell, row by row ("x.o......").
            rows = rows[0].chunks(c as usize).map(<[char]>::to_vec).collect();
        }
        let (r, c) = match size {
            Some(s) => s,
            None => {
                let c = rows[0].len();
                if c == 0 {
                    return Err("a row with no cells".into());
                }
                let (r, c, _) = parse_size(&format!("{}x{c}", rows.len()))?;
                (r, c)
            }
        };
        let w = c as usize + 1;
        let (mut a, mut b) = (0u128, 0u128);
        if !rows.is_empty() {
            if rows.len() != r as usize {
                return Err(format!("a {r}x{c} board has {r} rows separated by '/', got {}", rows.len()));
            }
            for (i, row) in rows.iter().enumerate() {
                if row.len() != c as usize {
                    return Err(format!("row {} has {} cells, not {c}", i + 1, row.len()));
                }
                for (j, &ch) in row.iter().enumerate() {
                    let bit = 1u128 << (i * w + j);
                    match self.char_of(ch) {
                        Some(0) => {}
                        Some(1) => a |= bit,
                        Some(_) => b |= bit,
                        None => {
                            let [e, x, o] = self.chars;
                            let marks = if x == o { format!("{x:?}") } else { format!("{x:?} or {o:?}") };
                            return Err(format!("{ch:?} is not a cell: use {marks}, or {e:?} for an empty cell"));
                        }
                    }
                }
            }
        }
        if self.moves == BoardMove::Drop {
            let below = (a | b) >> w;
            let floating = (a | b) & !below & full_mask(r - 1, c);
            if floating != 0 {
                let i = floating.trailing_zeros() as usize;
                return Err(format!("the piece at row {}, column {} floats above an empty cell", i / w + 1, i % w + 1));
            }
        }
        if k != 0 && k > r.max(c) {
            return Err(format!("{k} in a row cannot fit on a {r}x{c} board"));
        }
        let turn = if self.kind != Kind::Partisan {
            0
        } else {
            match turn {
                Some(t) => t,
                None => {
                    if self.pieces == Pieces::Own && !self.domino() && !matches!(self.moves, BoardMove::Step { .. }) {
                        let (x, o) = (a.count_ones(), b.count_ones());
                        if x != o && x != o + 1 {
                            return Err(format!(
                                "the first player moves first, so {:?} has as many pieces as {:?} or one more \
                                 ({x} and {o}); write \" o\" or \" x\" after the board to say who moves",
                                self.chars[1], self.chars[2]
                            ));
                        }
                    }
                    self.implied_turn(a, b)
                }
            }
        };
        let p = BPos { rows: r, cols: c, a, b, k: if self.k == 0 { 0 } else { k }, turn };
        self.reachable(&p)?;
        Ok(p)
    }

    /// The start a descriptor without `start:` gets: the empty board of its fixed size, for
    /// games whose pieces are placed, dropped or dominoes (pieces that move need them set out).
    pub fn empty_start(&self) -> Option<String> {
        let (r, c) = self.fixed?;
        (matches!(self.moves, BoardMove::Place | BoardMove::Drop | BoardMove::Domino(_))
            && self.shape != BoardShape::Triangle)
            .then(|| format!("{r}x{c}"))
    }

    /// A two-player position no game reaches: the game ends when a player makes the line
    /// (joins their sides, moves their last piece off), so the player to move never has one.
    /// Only where each player has pieces of their own (with shared marks a line is anyone's).
    fn reachable(&self, p: &BPos) -> Result<(), String> {
        if self.kind != Kind::Partisan || self.pieces != Pieces::Own {
            return Ok(());
        }
        let first = p.turn == 0;
        let (mover, mark) = if first { (p.a, self.chars[1]) } else { (p.b, self.chars[2]) };
        let ended = if p.k != 0 && has_line(mover, p.cols, p.k) {
            format!("{mark:?} has {} in a row", p.k)
        } else if self.connect && joined(mover, p.rows, p.cols, first) {
            format!("{mark:?} has joined its sides")
        } else if self.gone && mover == 0 {
            format!("{mark:?} has no piece left")
        } else {
            return Ok(());
        };
        Err(format!(
            "{ended} but is to move: the game ended on the move that made it, so no game reaches this position"
        ))
    }

    fn rows_text(&self, p: &BPos, sep: &str) -> String {
        let w = p.cols as usize + 1;
        let mut out = Vec::new();
        for r in 0..p.rows as usize {
            out.push(
                (0..p.cols as usize)
                    .map(|c| {
                        let bit = 1u128 << (r * w + c);
                        self.chars[if p.a & bit != 0 {
                            1
                        } else if p.b & bit != 0 {
                            2
                        } else {
                            0
                        }]
                    })
                    .collect::<String>(),
            );
        }
        out.join(sep)
    }

    pub fn format(&self, p: &BPos) -> String {
        match self.moves {
            BoardMove::Slide => return self.tiles_text(p, "/"),
            BoardMove::Hanoi => return self.pegs_text(p, "/"),
            _ if self.shape == BoardShape::Triangle => return self.triangle_text(p, "/"),
            _ => {}
        }
        let mut s = self.rows_text(p, "/");
        if self.fixed.is_none() && self.k != 0 {
            s = format!("{}x{}k{}/{s}", p.rows, p.cols, p.k);
        }
        if self.kind == Kind::Partisan && p.turn != self.implied_turn(p.a, p.b) {
            s.push_str(if p.turn == 0 { " x" } else { " o" });
        }
        s
    }

    pub fn show(&self, p: &BPos) -> String {
        match self.moves {
            BoardMove::Slide => return self.tiles_text(p, "\n"),
            BoardMove::Hanoi => return self.pegs_text(p, "\n"),
            // Each row half a cell further left than the next: the triangle drawn.
            _ if self.shape == BoardShape::Triangle => {
                let rows = self.triangle_text(p, "/");
                let n = p.rows as usize;
                let lines = rows.split('/').enumerate().map(|(r, row)| {
                    let spaced: Vec<String> = row.chars().map(String::from).collect();
                    format!("{}{}", " ".repeat(n - 1 - r), spaced.join(" "))
                });
                return lines.collect::<Vec<_>>().join("\n");
            }
            _ => {}
        }
        let mut s = self.rows_text(p, "\n");
        if self.moves == BoardMove::Drop {
            s.push('\n');
            s.extend((0..p.cols).map(|c| char::from_digit(u32::from(c + 1) % 10, 10).unwrap_or(' ')));
        }
        s
    }

    pub fn board(&self, p: &BPos) -> Board {
        if let Some(b) = self.moving_board(p) {
            return b;
        }
        let text = self.rows_text(p, "");
        let (r, c) = (p.rows as usize, p.cols as usize);
        let cells = text.chars().map(|ch| match (self.domino(), ch == self.chars[0]) {
            (true, true) => ".".to_string(),
            (true, false) => "#".to_string(),
            (false, _) => ch.to_string(),
        });
        let mut board = Board::new(r, c, cells.collect());
        match self.moves {
            BoardMove::Drop => board.clicks = (0..r * c).map(|i| Some(format!("{}", i % c + 1))).collect(),
            BoardMove::Domino(_) | BoardMove::Step { .. } => board.clicks = vec![None; r * c],
            _ => {}
        }
        board
    }

    pub fn to_move(&self, p: &BPos) -> Option<usize> {
        (self.kind == Kind::Partisan).then_some(p.turn as usize)
    }

    pub fn moves(&self, p: &BPos) -> Vec<BMove> {
        if self.moving() {
            let mut out = Vec::new();
            self.moving_moves(p, |m| out.push(m));
            return out;
        }
        let full = full_mask(p.rows, p.cols);
        let empty = full & !(p.a | p.b);
        let w = p.cols as usize + 1;
        let mut out = Vec::new();
        let mut push_all = |mut bits: u128, d: usize| {
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                out.push(BMove(i as u8, (i + d) as u8));
            }
        };
        match self.moves {
            BoardMove::Place => push_all(empty, 0),
            BoardMove::Drop => {
                // The lowest empty cell of each column: empty, with no empty cell below.
                let floor = empty & !(empty >> w);
                push_all(floor, 0);
            }
            BoardMove::Domino(o) => {
                let across = empty & (empty >> 1);
                let down = empty & (empty >> w);
                match (o, p.turn) {
                    (Orientation::Either, _) => {
                        push_all(across, 1);
                        push_all(down, w);
                    }
                    (Orientation::PerPlayer, 0) => push_all(down, w),
                    (Orientation::PerPlayer, _) => push_all(across, 1),
                }
            }
            _ => {}
        }
        out
    }

    pub fn play(&self, p: &BPos, m: BMove) -> Option<BPos> {
        if self.moving() {
            // A move from elsewhere (a person, the page) is checked against the list first.
            let mut legal = false;
            self.moving_moves(p, |x| legal |= x == m);
            return legal.then(|| self.apply(p, m));
        }
        if m.0 as usize >= BITS || m.1 as usize >= BITS {
            return None;
        }
        let cells = 1u128 << m.0 | 1u128 << m.1;
        if cells & !full_mask(p.rows, p.cols) != 0 || (p.a | p.b) & cells != 0 {
            return None;
        }
        let mut q = *p;
        if self.pieces == Pieces::Shared || p.turn == 0 {
            q.a |= cells;
        } else {
            q.b |= cells;
        }
        if self.kind != Kind::Impartial {
            q.turn ^= 1;
        }
        Some(q)
    }

    /// How many moves `moves` lists, counted without listing them where that is cheap.
    pub fn move_count(&self, p: &BPos) -> usize {
        let empty = full_mask(p.rows, p.cols) & !(p.a | p.b);
        let w = p.cols as usize + 1;
        let (across, down) = ((empty & (empty >> 1)).count_ones(), (empty & (empty >> w)).count_ones());
        match self.moves {
            BoardMove::Place => empty.count_ones() as usize,
            BoardMove::Drop => (empty & !(empty >> w)).count_ones() as usize,
            BoardMove::Domino(Orientation::Either) => (across + down) as usize,
            BoardMove::Domino(Orientation::PerPlayer) if p.turn == 0 => down as usize,
            BoardMove::Domino(Orientation::PerPlayer) => across as usize,
            #[allow(unreachable_patterns)] // moves added later are counted by listing them
            _ => self.moves(p).len(),
        }
    }

    /// The positions one move away. Pieces placed or dropped come nearest the centre first
    /// (the value-first search tries children in the order listed, among those with as
    /// many replies: in Hex, Connect-Four and tic-tac-toe the central cells are the strong
    /// ones, and a winning move found first spares the search of its siblings); `moves`
    /// keeps reading order.
    pub fn children(&self, p: &BPos) -> Vec<BPos> {
        if self.moving() {
            let mut out = Vec::new();
            self.moving_moves(p, |m| out.push(self.apply(p, m)));
            return out;
        }
        if matches!(self.moves, BoardMove::Place | BoardMove::Drop) {
            let empty = full_mask(p.rows, p.cols) & !(p.a | p.b);
            let w = p.cols as usize + 1;
            let targets = if self.moves == BoardMove::Drop { empty & !(empty >> w) } else { empty };
            let mut out = Vec::with_capacity(targets.count_ones() as usize);
            centre_first(self.shape, p.rows, p.cols, self.moves == BoardMove::Drop, |order| {
                for &i in order {
                    if targets >> i & 1 != 0 {
                        out.extend(self.play(p, BMove(i, i)));
                    }
                }
            });
            return out;
        }
        self.moves(p).into_iter().filter_map(|m| self.play(p, m)).collect()
    }

    pub fn move_name(&self, p: &BPos, m: BMove) -> String {
        let w = p.cols as usize + 1;
        let (r0, c0, r1, c1) = (m.0 as usize / w, m.0 as usize % w, m.1 as usize / w, m.1 as usize % w);
        match self.moves {
            BoardMove::Drop => format!("{}", c0 + 1),
            BoardMove::Place => format!("{r0}:{c0}"),
            BoardMove::Domino(_) => format!("{r0}:{c0}-{r1}:{c1}"),
            _ => self.moving_name(p, m),
        }
    }

    /// The value for the player to move when the game is over: the player who just moved
    /// made k in a row or joined their sides (a loss here, a win under misère play), or the
    /// board is full (a tie). A domino game ends by having no move (the stalemate rule).
    pub fn primitive(&self, p: &BPos) -> Option<Value> {
        if self.kind == Kind::Puzzle {
            return self.solved(p).then_some(Value::Win);
        }
        if self.gone && (if p.turn == 1 { p.a } else { p.b }) == 0 {
            // The player who just moved has no piece left: they have won, whatever `end` says.
            return Some(Value::Lose);
        }
        let last = if self.pieces == Pieces::Shared || p.turn == 1 { p.a } else { p.b };
        let made = (p.k != 0 && has_line(last, p.cols, p.k))
            || (self.connect && joined(last, p.rows, p.cols, self.pieces == Pieces::Shared || p.turn == 1));
        if made {
            return Some(if self.misere { Value::Win } else { Value::Lose });
        }
        if !self.domino() && !self.moving() && (p.a | p.b) == full_mask(p.rows, p.cols) {
            return Some(Value::Tie);
        }
        None
    }

    /// An impartial domino game under normal play is the sum of its 4-connected regions of
    /// empty cells (a domino never crosses a covered cell).
    pub fn splits(&self) -> bool {
        self.kind == Kind::Impartial && self.domino() && !self.misere
    }

    pub fn split(&self, p: &BPos) -> Option<Vec<BPos>> {
        if !self.splits() {
            return None;
        }
        let full = full_mask(p.rows, p.cols);
        let w = p.cols as usize + 1;
        let mut empty = full & !(p.a | p.b);
        let mut parts = Vec::new();
        while empty != 0 {
            let mut region = empty & empty.wrapping_neg();
            loop {
                let next = (region | region << 1 | region >> 1 | shl(region, w) | region >> w) & empty;
                if next == region {
                    break;
                }
                region = next;
            }
            empty &= !region;
            // A region with no two adjacent cells is worth nothing: leave it out.
            if region & (region >> 1 | region >> w) != 0 {
                parts.push(BPos { a: full & !region, ..*p });
            }
        }
        Some(parts)
    }

    /// The symmetries the rules keep: the 8 of the square (4 on a rectangle that is not
    /// square: the two mirrors and the half turn) for pieces and dominoes either way; the
    /// mirrors and the half turn for Domineering (a quarter turn would swap the players'
    /// directions); the left-right mirror with gravity; the half turn on a Hex rhombus.
    pub(super) fn symmetries(&self, rows: u8, cols: u8) -> &'static [u8] {
        match (self.shape, &self.moves) {
            (BoardShape::Hex, _) => &[0, 3],
            (_, BoardMove::Drop) => &[0, 2],
            (_, BoardMove::Domino(Orientation::PerPlayer)) => &[0, 1, 2, 3],
            // The quarter turns make a rows × cols board cols × rows: only where that fits.
            (_, BoardMove::Domino(Orientation::Either)) if cols as usize * (rows as usize + 1) <= BITS => {
                &[0, 1, 2, 3, 4, 5, 6, 7]
            }
            (_, BoardMove::Domino(Orientation::Either)) => &[0, 1, 2, 3],
            _ if rows == cols => &[0, 1, 2, 3, 4, 5, 6, 7],
            _ => &[0, 1, 2, 3],
        }
    }

    /// One representative of the positions equal under the symmetries; a domino board is
    /// also cut to the rows and columns that hold empty cells (covered cells are walls).
    pub fn canonical(&self, p: &BPos) -> BPos {
        if self.moving() {
            return self.moving_canonical(p);
        }
        let mut p = *p;
        if self.domino() {
            p = crop(&p);
        }
        let mut best = p;
        let syms = self.symmetries(p.rows, p.cols);
        // The images that transpose are the flips of one transposed board: one transpose
        // (cell by cell) instead of four.
        let turned = (syms.len() == 8).then(|| BPos {
            rows: p.cols,
            cols: p.rows,
            a: transpose(p.a, p.rows, p.cols),
            b: transpose(p.b, p.rows, p.cols),
            ..p
        });
        // The flips of each base board (itself, and transposed where the symmetries turn it)
        // made together: one flip of the rows serves four images.
        if syms.len() < 4 {
            for &t in &syms[1..] {
                let q = BPos { a: transform(p.a, p.rows, p.cols, t), b: transform(p.b, p.rows, p.cols, t), ..p };
                best = best.min(q);
            }
            return best;
        }
        let images = |from: &BPos| (flips(from.a, from.rows, from.cols), flips(from.b, from.rows, from.cols));
        let plain = images(&p);
        let across = turned.as_ref().map(images);
        for &t in &syms[1..] {
            let (from, (a, b)) = match (t & 4 != 0, &turned, &across) {
                (true, Some(q), Some(im)) => (q, im),
                _ => (&p, &plain),
            };
            let q = BPos { a: a[(t & 3) as usize], b: b[(t & 3) as usize], ..*from };
            if q < best {
                best = q;
            }
        }
        best
    }

    /// Roughly how many positions a search meets: 3 (or 2) states a cell.
    pub fn search_size(&self, p: &BPos) -> f64 {
        if self.moving() {
            return self.moving_size(p);
        }
        let empty = (full_mask(p.rows, p.cols) & !(p.a | p.b)).count_ones() as f64;
        let states = if self.pieces == Pieces::Own && !self.domino() { 3f64 } else { 2f64 };
        states.powf(empty) * empty.max(1.0)
    }
}

// --- Pieces that move: Step, Jump, Slide, Hanoi --------------------------------------------

/// The most tiles a sliding puzzle holds: 5 bits a cell in 128.
const MAX_TILES: usize = 25;

/// The most discs: labelled 1 to 9, then a to z.
const MAX_DISCS: usize = 35;

/// The six neighbours of a triangle's cell, and the four of a rectangle's: the directions
/// of a jump.
const ACROSS_DOWN: [(i8, i8); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const TRIANGLE: [(i8, i8); 6] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)];

/// "5": a triangle's side (1 to 10, so that n × (n + 1) cells fit in 128 bits).
fn triangle_size(s: &str) -> Result<(u8, u8, Option<u8>), String> {
    match s.trim().parse::<u32>() {
        Ok(n) if (1..=10).contains(&n) => Ok((n as u8, n as u8, None)),
        Ok(n) => Err(format!("a triangle of side {n} does not fit: the side is 1 to 10")),
        Err(_) => Err(format!("{s:?} is not a triangle's size: write its side, such as 5")),
    }
}

/// A disc's label: 1 to 9, then a to z for 10 to 35.
fn disc_label(n: usize) -> char {
    if n < 10 { char::from(b'0' + n as u8) } else { char::from(b'a' + (n - 10) as u8) }
}

fn disc_of(ch: char) -> Option<usize> {
    match ch.to_ascii_lowercase() {
        c @ '1'..='9' => Some(c as usize - '0' as usize),
        c @ 'a'..='z' => Some(c as usize - 'a' as usize + 10),
        _ => None,
    }
}

impl BoardRules {
    /// Do pieces move (rather than being placed)?
    fn moving(&self) -> bool {
        matches!(self.moves, BoardMove::Step { .. } | BoardMove::Jump | BoardMove::Slide | BoardMove::Hanoi)
    }

    /// The board's cells: every cell of a rectangle, the lower-left half of a triangle.
    fn cell_mask(&self, rows: u8, cols: u8) -> u128 {
        if self.shape != BoardShape::Triangle {
            return full_mask(rows, cols);
        }
        let w = cols as usize + 1;
        (0..rows as usize).fold(0, |m, r| m | ((1u128 << (r + 1)) - 1) << (r * w))
    }

    /// Is (r, c) a cell of the board?
    fn inside(&self, p: &BPos, r: i32, c: i32) -> bool {
        r >= 0
            && c >= 0
            && r < i32::from(p.rows)
            && c < i32::from(p.cols)
            && (self.shape != BoardShape::Triangle || c <= r)
    }

    /// A puzzle's end: its goal reached, or its number of pieces left.
    fn solved(&self, p: &BPos) -> bool {
        self.goal.is_some_and(|g| g.a == p.a && g.b == p.b) || self.left.is_some_and(|n| p.a.count_ones() == n)
    }

    /// Every move, in order, to `f`.
    fn moving_moves(&self, p: &BPos, mut f: impl FnMut(BMove)) {
        let w = p.cols as usize + 1;
        match &self.moves {
            BoardMove::Step { .. } => {
                let mine = if p.turn == 0 { p.a } else { p.b };
                let taken = p.a | p.b;
                let mut rest = mine;
                while rest != 0 {
                    let i = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let (r, c) = ((i / w) as i32, (i % w) as i32);
                    for (k, &(dr, dc)) in self.steps[p.turn as usize & 1].iter().enumerate() {
                        let (nr, nc) = (r + i32::from(dr), c + i32::from(dc));
                        if self.inside(p, nr, nc) {
                            let j = nr as usize * w + nc as usize;
                            if taken >> j & 1 == 0 {
                                f(BMove(i as u8, j as u8));
                            }
                        } else if k == 0 && self.off {
                            f(BMove(i as u8, i as u8)); // forward, off the board
                        }
                    }
                }
            }
            BoardMove::Jump => {
                let dirs: &[(i8, i8)] = if self.shape == BoardShape::Triangle { &TRIANGLE } else { &ACROSS_DOWN };
                let mut rest = p.a;
                while rest != 0 {
                    let i = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let (r, c) = ((i / w) as i32, (i % w) as i32);
                    for &(dr, dc) in dirs {
                        let (dr, dc) = (i32::from(dr), i32::from(dc));
                        let (tr, tc) = (r + 2 * dr, c + 2 * dc);
                        if !self.inside(p, tr, tc) {
                            continue;
                        }
                        let over = (r + dr) as usize * w + (c + dc) as usize;
                        let to = tr as usize * w + tc as usize;
                        if p.a >> over & 1 == 1 && p.a >> to & 1 == 0 {
                            f(BMove(i as u8, to as u8));
                        }
                    }
                }
            }
            BoardMove::Slide => {
                let (cols, blank) = (p.cols as usize, p.b as usize);
                let (r, c) = (blank / cols, blank % cols);
                if r > 0 {
                    f(BMove((blank - cols) as u8, blank as u8));
                }
                if r + 1 < p.rows as usize {
                    f(BMove((blank + cols) as u8, blank as u8));
                }
                if c > 0 {
                    f(BMove((blank - 1) as u8, blank as u8));
                }
                if c + 1 < cols {
                    f(BMove((blank + 1) as u8, blank as u8));
                }
            }
            BoardMove::Hanoi => {
                let row = (1u128 << p.cols) - 1;
                let peg = |i: usize| (p.a >> (i * w)) & row;
                for from in 0..p.rows as usize {
                    let top = peg(from).trailing_zeros();
                    if top >= 128 {
                        continue;
                    }
                    for to in 0..p.rows as usize {
                        if to != from && peg(to).trailing_zeros() > top {
                            f(BMove(from as u8, to as u8));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The position after `m`, a move `moving_moves` listed.
    fn apply(&self, p: &BPos, m: BMove) -> BPos {
        let mut q = *p;
        let (i, j) = (m.0 as usize, m.1 as usize);
        match self.moves {
            BoardMove::Step { .. } => {
                let mine = if p.turn == 0 { &mut q.a } else { &mut q.b };
                *mine &= !(1u128 << i);
                if i != j {
                    *mine |= 1u128 << j;
                }
                q.turn ^= 1;
            }
            BoardMove::Jump => {
                let over = (i + j) / 2;
                q.a = (q.a & !(1u128 << i | 1u128 << over)) | 1u128 << j;
            }
            BoardMove::Slide => {
                let tile = (p.a >> (5 * i)) & 31;
                q.a = (p.a & !(31u128 << (5 * i))) | tile << (5 * j);
                q.b = i as u128;
            }
            BoardMove::Hanoi => {
                let w = p.cols as usize + 1;
                let row = (1u128 << p.cols) - 1;
                let top = ((p.a >> (i * w)) & row).trailing_zeros() as usize;
                q.a = (p.a & !(1u128 << (i * w + top))) | 1u128 << (j * w + top);
            }
            _ => {}
        }
        q
    }

    fn moving_name(&self, p: &BPos, m: BMove) -> String {
        let w = p.cols as usize + 1;
        let (r0, c0, r1, c1) = (m.0 as usize / w, m.0 as usize % w, m.1 as usize / w, m.1 as usize % w);
        match self.moves {
            BoardMove::Step { .. } if m.0 == m.1 => format!("{r0}:{c0}-off"),
            BoardMove::Slide => self.label(p, m.0 as usize).to_string(),
            BoardMove::Hanoi => format!("{}-{}", m.0 + 1, m.1 + 1),
            _ => format!("{r0}:{c0}-{r1}:{c1}"),
        }
    }

    /// The label of a sliding puzzle's cell `i` ('.' the blank).
    fn label(&self, p: &BPos, i: usize) -> char {
        let code = ((p.a >> (5 * i)) & 31) as usize;
        if code == 0 { '.' } else { self.labels.get(code - 1).copied().unwrap_or('?') }
    }

    /// Roughly how many positions a search meets.
    fn moving_size(&self, p: &BPos) -> f64 {
        let cells = f64::from(self.cell_mask(p.rows, p.cols).count_ones());
        match self.moves {
            BoardMove::Slide => (2..=(p.rows as u32 * p.cols as u32)).map(f64::from).product::<f64>() / 2.0,
            BoardMove::Hanoi => f64::from(p.rows).powf(f64::from(p.cols)),
            BoardMove::Jump => cells.exp2(),
            _ => 2.0 * 3f64.powf(cells),
        }
    }

    /// Tiles: rows of labels separated by '/', '.' the blank (`123/456/78.`); the size alone
    /// (`3x3`) is the goal.
    fn parse_tiles(&self, text: &str) -> Result<BPos, String> {
        let t = text.trim().replace(['\n', '\r'], "/");
        let mut rows: Vec<Vec<char>> =
            t.trim_end_matches('/').split('/').map(|r| r.chars().filter(|c| !c.is_whitespace()).collect()).collect();
        if rows.len() == 1 {
            let line: String = rows[0].iter().collect();
            if let Ok((r, c, None)) = parse_size(&line)
                && line.contains(['x', 'X', '×'])
            {
                return match self.goal {
                    Some(g) if (g.rows, g.cols) == (r, c) => Ok(g),
                    _ => Err(format!("{line:?}: write the tiles, rows separated by '/' ('.' the blank)")),
                };
            }
            if let Some((r, c)) = self.fixed
                && rows[0].len() == r as usize * c as usize
                && r > 1
            {
                rows = rows[0].chunks(c as usize).map(<[char]>::to_vec).collect();
            }
        }
        let (r, c) = (rows.len(), rows[0].len());
        if c == 0 {
            return Err("an empty position: write the tiles, rows separated by '/' ('.' the blank)".into());
        }
        if let Some(i) = rows.iter().position(|row| row.len() != c) {
            return Err(format!("row {} has {} cells, not {c} as row 1", i + 1, rows[i].len()));
        }
        if r * c > MAX_TILES {
            return Err(format!("a {r}x{c} puzzle is too big: at most {MAX_TILES} cells (5x5)"));
        }
        if let Some((fr, fc)) = self.fixed
            && (fr as usize, fc as usize) != (r, c)
        {
            return Err(format!("this puzzle's board is {fr}x{fc}, as its goal (not {r}x{c})"));
        }
        let (mut a, mut blank, mut blanks) = (0u128, 0usize, 0);
        let mut seen: Vec<char> = Vec::new();
        for (i, &ch) in rows.iter().flatten().enumerate() {
            if ch == '.' {
                blank = i;
                blanks += 1;
                continue;
            }
            let Ok(code) = self.labels.binary_search(&ch) else {
                let tiles: String = self.labels.iter().collect();
                return Err(format!("{ch:?} is not a tile of this puzzle (its tiles: {tiles}; '.' the blank)"));
            };
            a |= ((code + 1) as u128) << (5 * i);
            seen.push(ch);
        }
        if blanks != 1 {
            return Err(format!("a sliding puzzle has one blank ('.'), not {blanks}"));
        }
        seen.sort_unstable();
        if self.goal.is_some() && seen != self.tiles {
            let want: String = self.tiles.iter().collect();
            let got: String = seen.iter().collect();
            return Err(format!("the tiles must be the goal's ({want}), not {got}"));
        }
        Ok(BPos { rows: r as u8, cols: c as u8, a, b: blank as u128, k: 0, turn: 0 })
    }

    fn tiles_text(&self, p: &BPos, sep: &str) -> String {
        let cols = p.cols as usize;
        let rows: Vec<String> =
            (0..p.rows as usize).map(|r| (0..cols).map(|c| self.label(p, r * cols + c)).collect()).collect();
        rows.join(sep)
    }

    /// Pegs separated by '/', each its discs from the bottom up (`654321//`: six discs on the
    /// first of three pegs; disc 1 the smallest); a number alone (`6`) is that many discs on
    /// the first peg.
    fn parse_pegs(&self, text: &str) -> Result<BPos, String> {
        let t: String = text.trim().replace(['\n', '\r'], "/").chars().filter(|c| !c.is_whitespace()).collect();
        let pegs: Vec<Vec<usize>> = if !t.contains('/') {
            let n = match t.parse::<usize>() {
                Ok(n) if (1..=MAX_DISCS).contains(&n) => n,
                _ => {
                    return Err(format!(
                        "{}: write the pegs separated by '/', each its discs from the bottom up \
                         (\"654321//\"), or the number of discs (1 to {MAX_DISCS}) to put on the first peg",
                        crate::input::quote(&t)
                    ));
                }
            };
            let count = self.goal.map_or(3, |g| g.rows as usize);
            let mut pegs = vec![Vec::new(); count];
            pegs[0] = (1..=n).rev().collect();
            pegs
        } else {
            let mut pegs = Vec::new();
            for (i, peg) in t.split('/').enumerate() {
                let mut discs = Vec::new();
                for ch in peg.chars() {
                    let d = disc_of(ch).ok_or_else(|| {
                        format!(
                            "{ch:?} is not a disc: discs are 1 to 9, then a to z (10 to 35), written from the bottom up"
                        )
                    })?;
                    if let Some(&below) = discs.last()
                        && below <= d
                    {
                        return Err(format!(
                            "peg {}: disc {} lies on disc {}: a disc lies only on larger ones (write each peg from \
                             the bottom up)",
                            i + 1,
                            disc_label(d),
                            disc_label(below)
                        ));
                    }
                    discs.push(d);
                }
                pegs.push(discs);
            }
            pegs
        };
        let n: usize = pegs.iter().map(Vec::len).sum();
        let mut count = vec![0; n + 2];
        for &d in pegs.iter().flatten() {
            if d > n {
                return Err(format!("the discs here are numbered 1 to {n}: there is no disc {}", disc_label(d)));
            }
            count[d] += 1;
        }
        if n == 0 {
            return Err("no discs: write at least one (\"1//\")".into());
        }
        if let Some(d) = (1..=n).find(|&d| count[d] != 1) {
            return Err(format!(
                "the discs are 1 to {n}, each once: disc {} is there {} times",
                disc_label(d),
                count[d]
            ));
        }
        if pegs.len() < 2 || pegs.len() * (n + 1) > BITS {
            return Err(format!(
                "{} pegs and {n} discs do not fit: at least 2 pegs, and pegs × (discs + 1) ≤ {BITS}",
                pegs.len()
            ));
        }
        let w = n + 1;
        let mut a = 0u128;
        for (i, peg) in pegs.iter().enumerate() {
            for &d in peg {
                a |= 1u128 << (i * w + d - 1);
            }
        }
        Ok(BPos { rows: pegs.len() as u8, cols: n as u8, a, b: 0, k: 0, turn: 0 })
    }

    fn pegs_text(&self, p: &BPos, sep: &str) -> String {
        let w = p.cols as usize + 1;
        let pegs: Vec<String> = (0..p.rows as usize)
            .map(|i| {
                (0..p.cols as usize).rev().filter(|d| p.a >> (i * w + d) & 1 == 1).map(|d| disc_label(d + 1)).collect()
            })
            .collect();
        pegs.join(sep)
    }

    /// A triangle: rows from the top separated by '/', row r with r + 1 cells
    /// (`./xx/xxx/xxxx/xxxxx`; spaces are ignored); the side alone (`5`) is the empty board.
    fn parse_triangle(&self, text: &str) -> Result<BPos, String> {
        let t = text.trim().replace(['\n', '\r'], "/");
        let rows: Vec<Vec<char>> =
            t.trim_end_matches('/').split('/').map(|r| r.chars().filter(|c| !c.is_whitespace()).collect()).collect();
        if rows.len() == 1 && rows[0].iter().all(char::is_ascii_digit) && !rows[0].is_empty() {
            let (n, _, _) = triangle_size(&rows[0].iter().collect::<String>())?;
            if let Some((f, _)) = self.fixed
                && f != n
            {
                return Err(format!("this game is played on a triangle of side {f}, not {n}"));
            }
            return Ok(BPos { rows: n, cols: n, a: 0, b: 0, k: 0, turn: 0 });
        }
        let n = rows.len();
        if n > 10 {
            return Err(format!("a triangle of side {n} does not fit: the side is 1 to 10"));
        }
        if let Some((f, _)) = self.fixed
            && f as usize != n
        {
            return Err(format!("this game is played on a triangle of side {f}, not {n}"));
        }
        let w = n + 1;
        let mut a = 0u128;
        for (r, row) in rows.iter().enumerate() {
            if row.len() != r + 1 {
                return Err(format!("a triangle's row {} has {} cells, not {}", r + 1, r + 1, row.len()));
            }
            for (c, &ch) in row.iter().enumerate() {
                match self.char_of(ch) {
                    Some(0) => {}
                    Some(_) => a |= 1u128 << (r * w + c),
                    None => {
                        return Err(format!(
                            "{ch:?} is not a cell: use {:?} for a peg, or {:?} for an empty hole",
                            self.chars[1], self.chars[0]
                        ));
                    }
                }
            }
        }
        Ok(BPos { rows: n as u8, cols: n as u8, a, b: 0, k: 0, turn: 0 })
    }

    fn triangle_text(&self, p: &BPos, sep: &str) -> String {
        let w = p.cols as usize + 1;
        let rows: Vec<String> = (0..p.rows as usize)
            .map(|r| (0..=r).map(|c| self.chars[(p.a >> (r * w + c) & 1) as usize]).collect())
            .collect();
        rows.join(sep)
    }

    /// The page's grid for jumps, tiles and discs (steps are drawn as placed pieces are).
    fn moving_board(&self, p: &BPos) -> Option<Board> {
        let (r, c) = (p.rows as usize, p.cols as usize);
        let mut board = match self.moves {
            BoardMove::Jump => {
                let w = c + 1;
                let cells = (0..r * c)
                    .map(|i| {
                        let (y, x) = (i / c, i % c);
                        if !self.inside(p, y as i32, x as i32) {
                            String::new()
                        } else {
                            self.chars[(p.a >> (y * w + x) & 1) as usize].to_string()
                        }
                    })
                    .collect();
                Board::new(r, c, cells)
            }
            BoardMove::Slide => {
                let cells: Vec<String> = (0..r * c).map(|i| self.label(p, i).to_string()).collect();
                let mut b = Board::new(r, c, cells.clone());
                b.clicks = cells.into_iter().map(|s| (s != ".").then_some(s)).collect();
                return Some(b);
            }
            BoardMove::Hanoi => {
                let pegs = self.pegs_text(p, "/");
                let cells = pegs
                    .split('/')
                    .flat_map(|peg| {
                        let mut v: Vec<String> = peg.chars().map(String::from).collect();
                        v.resize(c, ".".into());
                        v
                    })
                    .collect();
                Board::new(r, c, cells)
            }
            _ => return None,
        };
        board.clicks = vec![None; r * c];
        Some(board)
    }
}

// --- Symmetry of boards whose pieces move --------------------------------------------------

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

/// The triangle's 6 transforms: coordinate `i` of the image is coordinate `TRI_PERMS[t][i]`
/// of the cell, where a cell (r, c) of a side-n triangle has the coordinates
/// (c, r - c, n - 1 - r), its distances to the three sides (the left side, the right slant
/// and the bottom row), which sum to n - 1. 0 is the identity; 1, 2, 3 swap two coordinates
/// (the three mirrors); 4 and 5 are the two turns.
const TRI_PERMS: [[usize; 3]; 6] = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2, 0], [2, 0, 1]];

/// The most pegs whose permutations are tried as Hanoi's symmetries (6! = 720); on more pegs,
/// only the permutations of the first six (a subgroup: fewer symmetries, never a wrong one).
const MAX_PEG_PERMS: usize = 6;

impl MoveSym {
    /// Where cell (r, c) of a rows × cols board (or triangle of side rows) goes.
    fn cell(&self, rows: usize, cols: usize, r: usize, c: usize) -> (usize, usize) {
        match self {
            MoveSym::Square(t) => {
                let (mut a, mut b) = (r, c);
                if t & 1 != 0 {
                    a = rows - 1 - a;
                }
                if t & 2 != 0 {
                    b = cols - 1 - b;
                }
                if t & 4 != 0 {
                    (a, b) = (b, a);
                }
                (a, b)
            }
            MoveSym::Triangle(t) => {
                let x = [c, r - c, rows - 1 - r];
                let y = TRI_PERMS[*t as usize].map(|i| x[i]);
                (rows - 1 - y[2], y[0])
            }
            MoveSym::Pegs(to) => (to[r] as usize, c),
        }
    }

    /// Where a step of (dr, dc) goes (the linear part of [`MoveSym::cell`]).
    fn delta(&self, (dr, dc): (i8, i8)) -> (i8, i8) {
        match self {
            MoveSym::Square(t) => {
                let (mut a, mut b) = (dr, dc);
                if t & 1 != 0 {
                    a = -a;
                }
                if t & 2 != 0 {
                    b = -b;
                }
                if t & 4 != 0 {
                    (a, b) = (b, a);
                }
                (a, b)
            }
            MoveSym::Triangle(t) => {
                let x = [dc, dr - dc, -dr];
                let y = TRI_PERMS[*t as usize].map(|i| x[i]);
                (-y[2], y[0])
            }
            MoveSym::Pegs(_) => (dr, dc),
        }
    }
}

/// Every permutation of `0..n`, the identity first.
fn permutations(n: usize) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    for k in 0..n as u8 {
        out = out
            .into_iter()
            .flat_map(|p: Vec<u8>| {
                (0..=p.len()).rev().map(move |at| {
                    let mut q = p.clone();
                    q.insert(at, k);
                    q
                })
            })
            .collect();
    }
    out
}

/// Does `f` map the set `dirs` onto itself?
fn keeps_set(dirs: &[(i8, i8)], f: impl Fn((i8, i8)) -> (i8, i8)) -> bool {
    dirs.iter().all(|&d| dirs.contains(&f(d)))
}

impl BoardRules {
    /// The symmetries the rules of a board whose pieces move keep on a rows × cols board,
    /// derived from the board and the rules (the identity first): of the transforms of the
    /// board's shape (the square's 8, or the 4 that keep a rectangle that is not square; the
    /// triangle's 6; every permutation of Hanoi's pegs), those that
    /// - map the board's cells onto themselves,
    /// - map each player's directions (`Step`) onto that same player's, the first (forward,
    ///   the way off the board with `off: true`) onto the first; the jumps' directions (`Jump`:
    ///   across and down, and the slant on a triangle) onto themselves; the slides' (`Slide`:
    ///   across and down) onto themselves (Hanoi's moves, from any peg to any other, are kept
    ///   by every permutation of the pegs),
    /// - and map the goal (`Goal`) onto itself (`Left(n)` and `Gone` count pieces, which no
    ///   transform changes).
    ///
    /// Empty for the other boards (their symmetries are [`BoardRules::symmetries`]).
    pub fn moving_symmetries(&self, rows: u8, cols: u8) -> std::borrow::Cow<'_, [MoveSym]> {
        if let Some((size, syms)) = &self.fixed_syms
            && *size == (rows, cols)
        {
            return std::borrow::Cow::Borrowed(syms);
        }
        std::borrow::Cow::Owned(self.derive_symmetries(rows, cols))
    }

    /// [`BoardRules::moving_symmetries`], derived afresh.
    fn derive_symmetries(&self, rows: u8, cols: u8) -> Vec<MoveSym> {
        if !self.moving() {
            return Vec::new();
        }
        let (r, c) = (rows as usize, cols as usize);
        let candidates: Vec<MoveSym> = match (&self.moves, self.shape) {
            (BoardMove::Hanoi, _) => {
                let n = r.min(MAX_PEG_PERMS);
                permutations(n)
                    .into_iter()
                    .map(|mut p| {
                        p.extend(n as u8..rows);
                        MoveSym::Pegs(p)
                    })
                    .collect()
            }
            (_, BoardShape::Triangle) => (0..6).map(MoveSym::Triangle).collect(),
            _ => (0..8).map(MoveSym::Square).collect(),
        };
        candidates.into_iter().filter(|s| self.keeps(s, r, c)).collect()
    }

    /// Does the transform `s` keep the rules (see [`BoardRules::moving_symmetries`])?
    fn keeps(&self, s: &MoveSym, rows: usize, cols: usize) -> bool {
        // The board onto itself: each cell's image a cell (the map is one to one).
        let probe = BPos { rows: rows as u8, cols: cols as u8, a: 0, b: 0, k: 0, turn: 0 };
        let onto = match self.moves {
            BoardMove::Hanoi => true,
            _ => (0..rows).all(|r| {
                (0..cols).filter(|&c| self.inside(&probe, r as i32, c as i32)).all(|c| {
                    let (a, b) = s.cell(rows, cols, r, c);
                    a < rows && b < cols && self.inside(&probe, a as i32, b as i32)
                })
            }),
        };
        if !onto {
            return false;
        }
        let moves = match &self.moves {
            BoardMove::Step { .. } => self
                .steps
                .iter()
                .all(|dirs| keeps_set(dirs, |d| s.delta(d)) && (!self.off || s.delta(dirs[0]) == dirs[0])),
            BoardMove::Jump if self.shape == BoardShape::Triangle => keeps_set(&TRIANGLE, |d| s.delta(d)),
            BoardMove::Jump | BoardMove::Slide => keeps_set(&ACROSS_DOWN, |d| s.delta(d)),
            _ => true,
        };
        moves && self.goal.is_none_or(|g| self.image(&g, s) == g)
    }

    /// The image of a position under `s`, one of its board's symmetries.
    pub fn image(&self, p: &BPos, s: &MoveSym) -> BPos {
        let (rows, cols) = (p.rows as usize, p.cols as usize);
        let w = cols + 1;
        let bits = |x: u128| {
            if let (MoveSym::Square(t), false) = (s, matches!(self.moves, BoardMove::Hanoi)) {
                return transform(x, p.rows, p.cols, *t);
            }
            let mut out = 0u128;
            let mut rest = x;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let (a, b) = s.cell(rows, cols, i / w, i % w);
                out |= 1u128 << (a * w + b);
            }
            out
        };
        match self.moves {
            BoardMove::Slide => {
                let mut a = 0u128;
                for i in 0..rows * cols {
                    let (r, c) = s.cell(rows, cols, i / cols, i % cols);
                    a |= ((p.a >> (5 * i)) & 31) << (5 * (r * cols + c));
                }
                let blank = p.b as usize;
                let (r, c) = s.cell(rows, cols, blank / cols, blank % cols);
                BPos { a, b: (r * cols + c) as u128, ..*p }
            }
            _ => BPos { a: bits(p.a), b: bits(p.b), ..*p },
        }
    }

    /// A board whose pieces move: the least of the images of `p` under the symmetries its
    /// rules keep (`p` itself when they keep none but the identity).
    fn moving_canonical(&self, p: &BPos) -> BPos {
        let syms = self.moving_symmetries(p.rows, p.cols);
        syms.iter().skip(1).map(|s| self.image(p, s)).fold(*p, BPos::min)
    }
}

// --- Packed puzzles: keys and indices (src/game/packed.rs) ---------------------------------

/// How a packed puzzle numbers its positions.
enum Numbering {
    /// Peg solitaire: the set of cells holding pegs, cell by cell (2^cells): each row's
    /// cells (`(shift, mask, at)`: where on the board, where in the index).
    Cells(Vec<(u32, u128, u32)>),
    /// The Tower of Hanoi: each disc's peg, a digit in base `pegs` (pegs^discs).
    Pegs { pegs: u64, w: usize, row: u128, power: Vec<u64> },
    /// A sliding puzzle: the cells of each kind of tile, ranked among every arrangement of
    /// the same tiles (`Ranker`); `ones` when every tile is different, ranked then as a
    /// permutation (the same rank, with the number of cells in each set of at most 12 cells
    /// from a table, and each tile's weight in the rank: 9! for the 8-puzzle).
    Tiles { ranker: crate::game::tier::Ranker, kinds: usize, cells: usize, ones: Option<(Vec<u8>, Vec<u64>)> },
}

/// The positions of a puzzle reachable from one root (same board, same tiles or discs), as
/// 128-bit keys: the bitboard `a` (pegs, discs, or tiles 5 bits a cell), and for tiles the
/// blank's cell in the top 8 bits (at most 24 cells, 120 bits).
pub struct BoardPacking<'a> {
    rules: &'a BoardRules,
    proto: BPos,
    numbering: Numbering,
    size: Option<u64>,
    /// The symmetries the rules keep but the identity, as maps of keys.
    syms: Vec<KeyMap>,
    /// The goal's key (a puzzle ends there, or at its number of pegs left).
    goal: Option<u128>,
}

/// A symmetry as a map of keys: the image of each byte of the key (a permutation of its
/// bits, ORed byte by byte), and for tiles where the blank goes.
struct KeyMap {
    bytes: Vec<[u128; 256]>,
    blank: Vec<u8>,
}

impl BoardRules {
    /// The packing of the positions reachable from `root`, for the puzzles (`Jump`, `Slide`,
    /// `Hanoi`); `None` for the rest, and for a sliding puzzle of more than 24 cells.
    pub fn packing(&self, root: &BPos) -> Option<BoardPacking<'_>> {
        let (rows, cols) = (root.rows as usize, root.cols as usize);
        let w = cols + 1;
        let (numbering, size) = match self.moves {
            BoardMove::Jump => {
                let mut parts = Vec::new();
                let mut cells = 0u32;
                for r in 0..rows {
                    let width = if self.shape == BoardShape::Triangle { r + 1 } else { cols };
                    parts.push(((r * w) as u32, (1u128 << width) - 1, cells.min(127)));
                    cells += width as u32;
                }
                (Numbering::Cells(parts), (cells < 64).then(|| 1u64 << cells))
            }
            BoardMove::Hanoi => {
                let pegs = rows as u64;
                let mut power = vec![1u64];
                let mut size = Some(1u64);
                for _ in 0..cols {
                    size = size.and_then(|s| s.checked_mul(pegs));
                    power.push(size.unwrap_or(0));
                }
                (Numbering::Pegs { pegs, w, row: (1u128 << cols) - 1, power }, size)
            }
            BoardMove::Slide => {
                let cells = rows * cols;
                if cells > 24 || cells > 64 {
                    return None;
                }
                let kinds = self.labels.len();
                let mut counts = vec![0u32; kinds];
                for i in 0..cells {
                    let code = ((root.a >> (5 * i)) & 31) as usize;
                    if code > 0 {
                        counts[code - 1] += 1;
                    }
                }
                let ranker = crate::game::tier::Ranker::new(cells as u32);
                let size = ranker.count(&counts);
                // Tile k's digit has radix cells - k (the cells left free): its weight is the
                // product of the radixes after it.
                let ones = (counts.iter().all(|&c| c == 1) && cells <= 12).then(|| {
                    let weight: Vec<u64> =
                        (0..kinds).map(|k| (k + 1..kinds).map(|j| (cells - j) as u64).product::<u64>()).collect();
                    ((0..1u32 << cells).map(|x| x.count_ones() as u8).collect(), weight)
                });
                (Numbering::Tiles { ranker, kinds, cells, ones }, size)
            }
            _ => return None,
        };
        // Each symmetry as a permutation of the key's bits, read off the image of each bit
        // of the board alone (a cell, a disc on a peg, a bit of a tile's label).
        let (used, blanks) = match self.moves {
            BoardMove::Slide => ((1u128 << (5 * rows * cols)) - 1, rows * cols),
            BoardMove::Hanoi => (full_mask(root.rows, root.cols), 0),
            _ => (self.cell_mask(root.rows, root.cols), 0),
        };
        let nbytes = (128 - used.leading_zeros() as usize).div_ceil(8);
        let syms = self
            .moving_symmetries(root.rows, root.cols)
            .iter()
            .skip(1)
            .map(|s| {
                let bit = |i: usize| self.image(&BPos { a: 1u128 << i, b: 0, ..*root }, s).a;
                let mut bytes = vec![[0u128; 256]; nbytes];
                for (j, table) in bytes.iter_mut().enumerate() {
                    for v in 1..256usize {
                        let low = v & v.wrapping_neg();
                        let i = 8 * j + low.trailing_zeros() as usize;
                        let one = if used >> i & 1 == 1 { bit(i) } else { 0 };
                        table[v] = table[v & (v - 1)] | one;
                    }
                }
                let blank = (0..blanks).map(|i| self.image(&BPos { a: 0, b: i as u128, ..*root }, s).b as u8).collect();
                KeyMap { bytes, blank }
            })
            .collect();
        let mut packing = BoardPacking { rules: self, proto: *root, numbering, size, syms, goal: None };
        packing.goal = self.goal.map(|g| packing.pack(&g));
        Some(packing)
    }
}

impl BoardPacking<'_> {
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    pub fn pack(&self, p: &BPos) -> u128 {
        match self.numbering {
            Numbering::Tiles { .. } => p.a | p.b << 120,
            _ => p.a,
        }
    }

    pub fn unpack(&self, key: u128) -> BPos {
        match self.numbering {
            Numbering::Tiles { .. } => BPos { a: key & ((1u128 << 120) - 1), b: key >> 120, ..self.proto },
            _ => BPos { a: key, ..self.proto },
        }
    }

    pub fn index(&self, key: u128) -> u64 {
        match &self.numbering {
            Numbering::Cells(parts) => {
                let mut index = 0u128;
                for &(shift, mask, at) in parts {
                    index |= ((key >> shift) & mask) << at;
                }
                index as u64
            }
            Numbering::Pegs { pegs, w, row, power } => {
                let mut index = 0u64;
                for p in 1..*pegs as usize {
                    let mut discs = (key >> (p * w)) & row;
                    while discs != 0 {
                        index += p as u64 * power[discs.trailing_zeros() as usize];
                        discs &= discs - 1;
                    }
                }
                index
            }
            Numbering::Tiles { kinds, cells, ones: Some((ones, weight)), .. } => {
                // Each tile's cell among the cells the tiles before it left free: the
                // Ranker's rank where every count is 1 (C(n, 1) = n), as a sum of digits
                // times their weights (the products of the later radixes) rather than one
                // long chain of multiplications. At most 12 cells: 60 bits, one word.
                let low = key as u64;
                let mut cell_of = [0u32; 32];
                for i in 0..*cells {
                    // Slot 0 takes the blank (no branch on where it is).
                    cell_of[((low >> (5 * i)) & 31) as usize] = i as u32;
                }
                let mut free = (1usize << cells) - 1;
                let mut index = 0u64;
                for (&c, &w) in cell_of[1..=*kinds].iter().zip(weight) {
                    index += w * u64::from(ones[free & ((1usize << c) - 1)]);
                    free &= !(1usize << c);
                }
                index
            }
            Numbering::Tiles { ranker, kinds, cells, .. } => {
                let mut boards = [0u64; 32];
                for i in 0..*cells {
                    let code = ((key >> (5 * i)) & 31) as usize;
                    if code > 0 {
                        boards[code - 1] |= 1u64 << i;
                    }
                }
                ranker.rank(&boards[..*kinds])
            }
        }
    }

    pub fn children(&self, key: u128, out: &mut Vec<u128>) {
        match (&self.rules.moves, &self.numbering) {
            (BoardMove::Jump, Numbering::Cells(_)) => return self.jumps(key, out),
            (BoardMove::Slide, Numbering::Tiles { .. }) => return self.slides(key, out),
            _ => {}
        }
        let p = self.unpack(key);
        self.rules.moving_moves(&p, |m| out.push(self.pack(&self.rules.apply(&p, m))));
    }

    /// A sliding puzzle's moves on keys: the tile above the blank, below, left, right (as
    /// `moving_moves` lists them) into the blank, whose cell becomes the tile's.
    fn slides(&self, key: u128, out: &mut Vec<u128>) {
        let (rows, cols) = (self.proto.rows as usize, self.proto.cols as usize);
        let blank = (key >> 120) as usize;
        let low = key & ((1u128 << 120) - 1);
        let mut slide = |i: usize| {
            let tile = (low >> (5 * i)) & 31;
            out.push((low & !(31u128 << (5 * i))) | tile << (5 * blank) | (i as u128) << 120);
        };
        let (r, c) = (blank / cols, blank % cols);
        if r > 0 {
            slide(blank - cols);
        }
        if r + 1 < rows {
            slide(blank + cols);
        }
        if c > 0 {
            slide(blank - 1);
        }
        if c + 1 < cols {
            slide(blank + 1);
        }
    }

    /// Peg solitaire's jumps on bitboards: for each direction, the pegs with a peg beside
    /// them and an empty cell beyond (a step off a row's end lands on the guard column, no
    /// cell); listed peg by peg, and for a peg in the order of the directions, as
    /// `moving_moves` lists them.
    fn jumps(&self, a: u128, out: &mut Vec<u128>) {
        let p = &self.proto;
        let w = p.cols as i32 + 1;
        let holes = self.rules.cell_mask(p.rows, p.cols) & !a;
        let dirs: &[(i8, i8)] = if self.rules.shape == BoardShape::Triangle { &TRIANGLE } else { &ACROSS_DOWN };
        let back = |x: u128, s: i32| if s >= 0 { shr(x, s as usize) } else { shl(x, (-s) as usize) };
        let mut from = [0u128; 6];
        let mut any = 0u128;
        for (k, &(dr, dc)) in dirs.iter().enumerate() {
            let s = i32::from(dr) * w + i32::from(dc);
            from[k] = a & back(a, s) & back(holes, 2 * s);
            any |= from[k];
        }
        while any != 0 {
            let i = any.trailing_zeros() as i32;
            any &= any - 1;
            for (k, &(dr, dc)) in dirs.iter().enumerate() {
                if from[k] >> i & 1 == 1 {
                    let s = i32::from(dr) * w + i32::from(dc);
                    out.push(a & !(1u128 << i) & !(1u128 << (i + s)) | 1u128 << (i + 2 * s));
                }
            }
        }
    }

    /// A puzzle's end on keys: the goal's key, or the number of pegs left (`solved`).
    pub fn primitive(&self, key: u128) -> Option<Value> {
        let solved = self.goal.is_some_and(|g| g == key) || self.rules.left.is_some_and(|n| key.count_ones() == n);
        solved.then_some(Value::Win)
    }

    /// How many symmetries the rules keep, the identity included.
    pub fn symmetries(&self) -> usize {
        self.syms.len() + 1
    }

    /// The key of the image of `key`'s position under symmetry `t` (0 the identity).
    pub fn image(&self, key: u128, t: usize) -> u128 {
        let Some(m) = t.checked_sub(1).and_then(|t| self.syms.get(t)) else { return key };
        let mut out = 0u128;
        for (j, table) in m.bytes.iter().enumerate() {
            out |= table[((key >> (8 * j)) & 255) as usize];
        }
        if !m.blank.is_empty() {
            out |= u128::from(m.blank[(key >> 120) as usize]) << 120;
        }
        out
    }
}

// --- Pieces placed or dropped as keys, for the full search (src/game/packed.rs) -----------

/// The positions of a board of pieces placed or dropped (tic-tac-toe, Hex, Connect-Four,
/// Notakto) reachable from one root, as 128-bit keys: the first player's (or the shared)
/// bitboard in the low `n` bits, the second player's above it, the turn in bit `2n` (`n` the
/// board's bits, a guard column included). Children are listed on keys; the ends and the
/// symmetries are the board's own (`primitive`, `canonical`), on the position of the key.
#[derive(Clone)]
pub struct PieceKeys {
    rules: BoardRules,
    proto: BPos,
    n: u32,
    mask: u128,
    /// The cells of the board, and the player who is to move after a move (the turn
    /// toggled, or kept in an impartial game).
    full: u128,
    toggle: u128,
    /// The cells nearest the centre first (as `BoardRules::children` lists its children).
    order: Vec<u8>,
}

impl BoardRules {
    /// The keys of the positions of `root`'s board, for pieces placed or dropped with no more
    /// than 63 bits a board (a row's cells and a guard bit each: 7x8 but not 8x7; Hex 7x7);
    /// `None` for the rest.
    pub fn piece_keys(&self, root: &BPos) -> Option<PieceKeys> {
        if !matches!(self.moves, BoardMove::Place | BoardMove::Drop) || self.moving() {
            return None;
        }
        let n = root.rows as u32 * (root.cols as u32 + 1);
        if 2 * n + 1 > 128 {
            return None;
        }
        let toggle = if self.kind == Kind::Impartial { 0 } else { 1u128 << (2 * n) };
        let mut order = Vec::new();
        centre_first(self.shape, root.rows, root.cols, self.moves == BoardMove::Drop, |o| order.extend_from_slice(o));
        Some(PieceKeys {
            order,
            rules: self.clone(),
            proto: BPos { a: 0, b: 0, turn: 0, ..*root },
            n,
            mask: (1u128 << n) - 1,
            full: full_mask(root.rows, root.cols),
            toggle,
        })
    }
}

impl PieceKeys {
    pub fn pack(&self, p: &BPos) -> Option<u128> {
        if (p.rows, p.cols, p.k) != (self.proto.rows, self.proto.cols, self.proto.k) {
            return None;
        }
        Some(p.a | p.b << self.n | u128::from(p.turn & 1) << (2 * self.n))
    }

    pub fn unpack(&self, key: u128) -> BPos {
        BPos { a: key & self.mask, b: (key >> self.n) & self.mask, turn: (key >> (2 * self.n)) as u8 & 1, ..self.proto }
    }

    pub fn canonical(&self, key: u128) -> u128 {
        let p = self.rules.canonical(&self.unpack(key));
        p.a | p.b << self.n | u128::from(p.turn) << (2 * self.n)
    }

    /// The cells a piece may go to.
    fn targets(&self, key: u128) -> u128 {
        let (a, b) = (key & self.mask, (key >> self.n) & self.mask);
        let empty = self.full & !(a | b);
        let w = self.proto.cols as usize + 1;
        if self.rules.moves == BoardMove::Drop { empty & !(empty >> w) } else { empty }
    }

    /// The keys one move away, nearest the centre first (as `BoardRules::children` lists
    /// them: the value-first search tries them in this order among equals).
    pub fn children(&self, key: u128, out: &mut Vec<u128>) {
        let targets = self.targets(key);
        let second = self.rules.pieces == Pieces::Own && (key >> (2 * self.n)) & 1 == 1;
        let shift = if second { self.n } else { 0 };
        for &i in &self.order {
            if targets >> i & 1 != 0 {
                out.push((key | 1u128 << (u32::from(i) + shift)) ^ self.toggle);
            }
        }
    }

    /// How many keys [`PieceKeys::children`] lists.
    pub fn move_count(&self, key: u128) -> u32 {
        self.targets(key).count_ones()
    }

    pub fn primitive(&self, key: u128) -> Option<Value> {
        self.rules.primitive(&self.unpack(key))
    }
}

/// A domino board cut to the rows and columns holding empty cells (one covered cell when
/// none is left): the covered cells around it change nothing.
fn crop(p: &BPos) -> BPos {
    let (rows, cols) = (p.rows as usize, p.cols as usize);
    let w = cols + 1;
    let empty = full_mask(p.rows, p.cols) & !(p.a | p.b);
    if empty == 0 {
        return BPos { rows: 1, cols: 1, a: 1, b: 0, ..*p };
    }
    // The rows holding empty cells, and the columns (the rows ORed together).
    let row = (1u128 << cols) - 1;
    let (mut r0, mut r1, mut across) = (rows, 0, 0u128);
    for r in 0..rows {
        let bits = (empty >> (r * w)) & row;
        if bits != 0 {
            r0 = r0.min(r);
            r1 = r;
            across |= bits;
        }
    }
    let (c0, c1) = (across.trailing_zeros() as usize, 127 - across.leading_zeros() as usize);
    let (nr, nc) = (r1 - r0 + 1, c1 - c0 + 1);
    if (nr, nc) == (rows, cols) {
        return *p;
    }
    let nw = nc + 1;
    let row_mask = (1u128 << nc) - 1;
    let mut e = 0u128;
    for r in 0..nr {
        e |= ((empty >> ((r + r0) * w + c0)) & row_mask) << (r * nw);
    }
    let nfull = full_mask(nr as u8, nc as u8);
    BPos { rows: nr as u8, cols: nc as u8, a: nfull & !e, b: 0, ..*p }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The symmetry of one cell, by hand.
    fn naive(x: u128, rows: u8, cols: u8, t: u8) -> u128 {
        let (w, rows, cols) = (cols as usize + 1, rows as usize, cols as usize);
        let nw = if t & 4 != 0 { rows + 1 } else { w };
        let mut out = 0;
        for r in 0..rows {
            for c in 0..cols {
                if x >> (r * w + c) & 1 == 0 {
                    continue;
                }
                let (mut a, mut b) = (r, c);
                if t & 1 != 0 {
                    a = rows - 1 - a;
                }
                if t & 2 != 0 {
                    b = cols - 1 - b;
                }
                if t & 4 != 0 {
                    (a, b) = (b, a);
                }
                out |= 1u128 << (a * nw + b);
            }
        }
        out
    }

    #[test]
    fn symmetries_move_every_cell_where_they_should() {
        let mut rng = fastrand::Rng::with_seed(5);
        for (rows, cols) in [(1, 1), (3, 3), (4, 5), (6, 7), (5, 2), (11, 10), (1, 63)] {
            let full = full_mask(rows, cols);
            for _ in 0..50 {
                let x = (u128::from(rng.u64(..)) << 64 | u128::from(rng.u64(..))) & full;
                for t in 0..8 {
                    assert_eq!(transform(x, rows, cols, t), naive(x, rows, cols, t), "{rows}x{cols} t={t}");
                }
                assert_eq!(transpose(x, rows, cols), naive(x, rows, cols, 4), "{rows}x{cols} transpose");
                assert_eq!(transpose(full & !x, rows, cols), naive(full & !x, rows, cols, 4), "{rows}x{cols}");
            }
        }
    }

    #[test]
    fn cram_uses_a_quarter_turn_only_where_the_turned_board_fits() {
        let cram = BoardRules::new(
            BoardSpec {
                size: None,
                shape: BoardShape::Rectangle,
                moves: BoardMove::Domino(Orientation::Either),
                pieces: Some(Pieces::Shared),
                ends: Vec::new(),
                cells: Some("#.".into()),
            },
            false,
        )
        .unwrap();
        // 8×15 fits (8 rows of 16 bits) but turned it is 15 rows of 9 = 135 bits: no quarter
        // turn. 4×5 turned is 5 rows of 5: all 8. Every symmetry used maps cells as by hand.
        assert_eq!(cram.symmetries(8, 15).len(), 4);
        assert_eq!(cram.symmetries(1, 100).len(), 4);
        assert_eq!(cram.symmetries(4, 5).len(), 8);
        let mut rng = fastrand::Rng::with_seed(9);
        for (rows, cols) in [(8u8, 15u8), (1, 100), (9, 12), (4, 5)] {
            for _ in 0..20 {
                let x = (u128::from(rng.u64(..)) << 64 | u128::from(rng.u64(..))) & full_mask(rows, cols);
                for &t in cram.symmetries(rows, cols) {
                    assert_eq!(transform(x, rows, cols, t), naive(x, rows, cols, t), "{rows}x{cols} t={t}");
                }
            }
        }
    }

    #[test]
    fn lines_and_chains() {
        // 3 in a row across, down and on both diagonals of a 3×4 board (w = 5).
        let cell = |r: usize, c: usize| 1u128 << (r * 5 + c);
        assert!(has_line(cell(0, 1) | cell(0, 2) | cell(0, 3), 4, 3));
        assert!(has_line(cell(0, 3) | cell(1, 3) | cell(2, 3), 4, 3));
        assert!(has_line(cell(0, 1) | cell(1, 2) | cell(2, 3), 4, 3));
        assert!(has_line(cell(0, 3) | cell(1, 2) | cell(2, 1), 4, 3));
        // No wrapping round a row's end.
        assert!(!has_line(cell(0, 2) | cell(0, 3) | cell(1, 0), 4, 3));
        assert!(!has_line(cell(0, 3) | cell(1, 0), 4, 2));
        assert!(!has_line(cell(0, 0) | cell(1, 3) | cell(2, 2), 4, 3));
        // Hex 3×3 (w = 4): (0,2) (1,1) (2,0) is a chain for either player; (0,0) (1,1) is not.
        let hex = |r: usize, c: usize| 1u128 << (r * 4 + c);
        let diag = hex(0, 2) | hex(1, 1) | hex(2, 0);
        assert!(joined(diag, 3, 3, true) && joined(diag, 3, 3, false));
        assert!(!joined(hex(0, 0) | hex(1, 1) | hex(2, 2), 3, 3, true));
    }
}
