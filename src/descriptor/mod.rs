//! Games described in RON (`games/*.ron`): rules chosen from a vocabulary instead of
//! programmed. See `docs/descriptors.md`.
//!
//! A descriptor is read with serde (unknown fields and misspelt variants are errors with line
//! and column), then checked as a whole (impossible combinations are errors too), and becomes
//! a [`DescriptorGame`], which implements [`Game`] like a script does.

use crate::game::{
    Capabilities, ClosedForm, Game, GameError, GameExt, GameInfo, GameResult, Hints, Keys, Kind, MAX_MOVES, Parallel,
    Replica, Shortcut, Split, Value, View,
};
use crate::grid::Grid;
use crate::script::ScriptHook;
use crate::script::helpers::parse_heaps;
use crate::solve::sequence::{HeapRules, NimSequence};
use rhai::Dynamic;
use std::path::Path;

mod board;
pub use board::MoveSym;
mod load;
use board::BMove;
use load::{Checked, Family, GridMove, GridText, Pattern, Place, Shape, Symmetry, parse_octal};
mod domino_sum;
mod heap_keys;
mod heap_tiers;
mod points;
mod pos;
mod stacks;
pub use pos::DPos;
mod tiers;
pub use tiers::{BoardTiers, MAX_TIER_CELLS};

// --- The game ----------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DMove {
    /// Replace heap `index` by these heaps (none, one or two).
    Heap { index: usize, take: u64, into: Vec<u64> },
    /// Take `take` from heaps `a` and `b`.
    Equal { a: usize, b: usize, take: u64 },
    /// Merge heaps `a` and `b` into one.
    Merge { a: usize, b: usize },
    /// Chomp: the square at column `col`, row `row` (from the bottom).
    Bite { col: usize, row: u64 },
    /// Remove the run of cells from (r0, c0) to (r1, c1).
    Run([usize; 4]),
    /// Press a cell (index in reading order); `free` when a person typed it out of order.
    Press { cell: usize, free: bool },
    /// A piece or a domino on a board.
    Cells(BMove),
    /// A move on points joined by lines.
    Points(points::PMove),
    /// A piece of several sizes placed or moved (`stacks.rs`).
    Stacks(stacks::SMove),
}

pub struct DescriptorGame {
    /// The nim-sequence of a one-heap-at-a-time game (octal and subtraction games, Nim),
    /// computed as far as positions need it.
    sequence: Option<std::cell::RefCell<NimSequence>>,
    file: String,
    info: GameInfo,
    start: Option<String>,
    shape: Shape,
    misere: bool,
    primitive_hook: Option<ScriptHook>,
    /// The descriptor's text and folder, for a copy of the game on another thread.
    source: std::sync::Arc<(String, Option<std::path::PathBuf>)>,
    /// The memory budget its numbers were checked against.
    budget: usize,
    /// Positions by index, for a board game whose rules qualify (`tiers.rs`).
    tiers: Option<Box<dyn crate::game::tier::Tiers<Pos = DPos> + Send>>,
}

impl DescriptorGame {
    /// A board whose pieces move (`Step`, `Jump`, `Slide`, `Hanoi`): the symmetries its rules
    /// keep on `pos`'s board, derived from the board and the rules (the identity first; see
    /// `board/`, `BoardRules::moving_symmetries`); empty for every other game.
    pub fn moving_symmetries(&self, pos: &DPos) -> Vec<MoveSym> {
        match (pos, &self.shape) {
            (DPos::Board(p), Shape::Board(b)) => b.moving_symmetries(p.rows, p.cols).into_owned(),
            _ => Vec::new(),
        }
    }

    /// The image of a position of a board whose pieces move under the transform `s` of its
    /// board, whether the rules keep it or not (`None` for other games).
    pub fn board_image(&self, pos: &DPos, s: &MoveSym) -> Option<DPos> {
        match (pos, &self.shape) {
            (DPos::Board(p), Shape::Board(b)) => Some(DPos::Board(b.image(p, s))),
            _ => None,
        }
    }

    /// Load and check a descriptor. Every error names the file, and the line and column
    /// where there is one.
    pub fn load(path: &Path) -> GameResult<DescriptorGame> {
        Self::load_within(path, crate::solve::DEFAULT_MAX_MEMORY)
    }

    /// [`DescriptorGame::load`], with every number the descriptor gives checked against a
    /// memory budget of `budget` bytes (and the file itself at most a sixteenth of it).
    pub fn load_within(path: &Path, budget: usize) -> GameResult<DescriptorGame> {
        let file = path.display().to_string();
        let text = crate::input::read_definition(path, budget)
            .map_err(|e| GameError::Definition(format!("{file}: cannot read the descriptor: {e}")))?;
        Self::from_source_within(&file, &text, path.parent(), budget)
    }

    /// The octal game of `code` ("0.77", "0.3…") as a descriptor named by its code, with no file:
    /// what `gamesman sequence 0.137` and the sequence benchmarks solve. A code that is not
    /// octal is refused in its own words (which also leaves no quote to break the RON).
    pub fn octal(code: &str) -> GameResult<DescriptorGame> {
        parse_octal(code).map_err(GameError::Definition)?;
        let src = format!(r#"(name: "{code}", rules: Heaps(moves: [Octal("{code}")]))"#);
        Self::from_source(code, &src, None)
    }

    pub fn from_source(file: &str, text: &str, dir: Option<&Path>) -> GameResult<DescriptorGame> {
        Self::from_source_within(file, text, dir, crate::solve::DEFAULT_MAX_MEMORY)
    }

    /// [`DescriptorGame::from_source`] within a memory budget of `budget` bytes: a number
    /// that would cost more (`heaps`, a take of `Subtract`) is refused before anything is made.
    pub fn from_source_within(file: &str, text: &str, dir: Option<&Path>, budget: usize) -> GameResult<DescriptorGame> {
        let place = Place { file, text, budget };
        let d = load::parse(&place)?;
        let checked = load::check(&place, d, dir)?;
        Self::build(&place, checked, dir)
    }

    /// The game of a checked descriptor: its nim-sequence engine, its tiers, and its start
    /// position (a board's empty one when it gives none), which must read.
    fn build(place: &Place, c: Checked, dir: Option<&Path>) -> GameResult<DescriptorGame> {
        let sequence = match (&c.shape, c.misere, &c.primitive_hook) {
            (Shape::Heaps { families, .. }, false, None) => heap_rules(families).map(|r| NimSequence::new(r).into()),
            _ => None,
        };
        let mut game = DescriptorGame {
            sequence,
            file: place.file.to_string(),
            info: c.info,
            start: c.start,
            shape: c.shape,
            misere: c.misere,
            primitive_hook: c.primitive_hook,
            source: std::sync::Arc::new((place.text.to_string(), dir.map(Path::to_path_buf))),
            budget: place.budget,
            tiers: None,
        };
        if let (Shape::Board(b), None) = (&game.shape, &game.primitive_hook) {
            game.tiers = BoardTiers::new(b).ok().map(|t| Box::new(t) as _);
        }
        if let (Shape::Points(r), None, false) = (&game.shape, &game.primitive_hook, game.misere) {
            game.tiers = points::PointsTiers::new(r, DPos::Points, unwrap_points).ok().map(|t| Box::new(t) as _);
        }
        if let (Shape::Stacks(r), None, false) = (&game.shape, &game.primitive_hook, game.misere) {
            game.tiers = stacks::StacksTiers::new(r, DPos::Stacks, unwrap_stacks).map(|t| Box::new(t) as _);
        }
        if let (Shape::Heaps { families, count: None, split: false }, None, false) =
            (&game.shape, &game.primitive_hook, game.misere)
        {
            game.tiers = heap_tiers::HeapTiers::new(families).map(|t| Box::new(t) as _);
        }
        // A fixed size with nothing placed yet is a start of its own (tic-tac-toe's `3x3`).
        if let (None, Shape::Board(b)) = (&game.start, &game.shape) {
            game.start = b.empty_start();
        }
        if let (None, Shape::Points(r)) = (&game.start, &game.shape) {
            game.start = Some(r.empty_start());
        }
        if let (None, Shape::Stacks(r)) = (&game.start, &game.shape) {
            game.start = Some(r.empty_start());
        }
        if let Some(s) = &game.start {
            game.parse(s).map_err(|e| place.bad_at("start", format!("the start position: {e}")))?;
        }
        Ok(game)
    }

    pub fn file(&self) -> &str {
        &self.file
    }

    fn wrong_shape(&self) -> GameError {
        GameError::Definition(format!("{}: a position of the wrong shape", self.file))
    }

    /// The game's nim-sequence engine, for heap games whose moves touch one heap and leave at
    /// most two (`Octal`, `Subtract`, `TakeAny`) under normal play.
    pub fn nim_sequence(&self) -> Option<std::cell::RefMut<'_, NimSequence>> {
        self.sequence.as_ref().map(|s| s.borrow_mut())
    }

    /// A position as the escape-hatch script sees it: heaps and heights as arrays of
    /// integers, boards as `Grid`s.
    fn to_dynamic(pos: &DPos) -> Dynamic {
        match pos {
            DPos::Heaps(v) | DPos::Heights(v) => {
                Dynamic::from_array(v.iter().map(|&n| Dynamic::from_int(n as i64)).collect())
            }
            DPos::Grid(g) | DPos::Lights(g, _) => Dynamic::from(g.clone()),
            DPos::Board(_) | DPos::Points(_) | DPos::Stacks(_) => Dynamic::UNIT,
        }
    }

    fn heap_moves(&self, families: &[Family], h: &[u64]) -> GameResult<Vec<DMove>> {
        // Bound the list before making it: a heap of 10^12 under TakeAny has 10^12 moves.
        let mut count: u64 = 0;
        for f in families {
            for &n in h {
                count = count.saturating_add(match f {
                    Family::TakeAny => n,
                    Family::Subtract(set) => set.len() as u64,
                    Family::Octal(r) => octal_takes(r, n).saturating_mul(if r.splits() { n / 2 + 2 } else { 2 }),
                    Family::TakeEqual => n.saturating_mul(h.len() as u64),
                    Family::Split => n / 2,
                    // The heaps made, over all the splits: about n.
                    Family::SplitEqual => n,
                    Family::MergeUnequal => h.len() as u64,
                });
            }
        }
        if count > MAX_MOVES {
            return Err(GameError::Unsupported(format!(
                "this position has about {count} moves, more than the {MAX_MOVES} a search can list \
                 (a native module may still answer: see `native` in docs/descriptors.md)"
            )));
        }
        let mut out = Vec::new();
        for (i, &n) in h.iter().enumerate() {
            for f in families {
                match f {
                    Family::TakeAny => {
                        out.extend((1..=n).map(|k| DMove::Heap { index: i, take: k, into: single(n - k) }));
                    }
                    Family::Subtract(set) => {
                        out.extend(set.iter().filter(|&&k| k <= n).map(|&k| DMove::Heap {
                            index: i,
                            take: k,
                            into: single(n - k),
                        }));
                    }
                    Family::Octal(r) => {
                        for k in 1..=octal_takes(r, n) {
                            let digit = r.digit(k as usize);
                            if digit & 1 != 0 && n == k {
                                out.push(DMove::Heap { index: i, take: k, into: vec![] });
                            }
                            if digit & 2 != 0 && n > k {
                                out.push(DMove::Heap { index: i, take: k, into: vec![n - k] });
                            }
                            if digit & 4 != 0 && n >= k + 2 {
                                let rest = n - k;
                                for a in 1..=rest / 2 {
                                    out.push(DMove::Heap { index: i, take: k, into: vec![a, rest - a] });
                                }
                            }
                        }
                    }
                    Family::Split => {
                        out.extend((1..=n.saturating_sub(1) / 2).map(|a| DMove::Heap {
                            index: i,
                            take: 0,
                            into: vec![a, n - a],
                        }));
                    }
                    Family::SplitEqual => {
                        out.extend((1..=n / 2).filter(|y| n % y == 0).map(|y| DMove::Heap {
                            index: i,
                            take: 0,
                            into: vec![y; (n / y) as usize],
                        }));
                    }
                    Family::TakeEqual | Family::MergeUnequal => {}
                }
            }
        }
        if families.iter().any(|f| matches!(f, Family::MergeUnequal)) {
            for a in 0..h.len() {
                for b in a + 1..h.len() {
                    if h[a] != h[b] && h[a] > 0 && h[b] > 0 {
                        out.push(DMove::Merge { a, b });
                    }
                }
            }
        }
        if families.iter().any(|f| matches!(f, Family::TakeEqual)) {
            for a in 0..h.len() {
                for b in a + 1..h.len() {
                    out.extend((1..=h[a].min(h[b])).map(|take| DMove::Equal { a, b, take }));
                }
            }
        }
        Ok(out)
    }
}

/// The takes an octal code allows from a heap of `n` (up to its last digit, or to `n` when the
/// last digit repeats).
fn octal_takes(rules: &HeapRules, n: u64) -> u64 {
    if rules.repeats() { n } else { n.min(rules.explicit() as u64) }
}

/// One heap of `n` tokens, or none when it is empty.
fn single(n: u64) -> Vec<u64> {
    if n == 0 { vec![] } else { vec![n] }
}

fn parse_heights(text: &str) -> GameResult<Vec<u64>> {
    let t = text.trim();
    let h: Vec<u64> = if t.contains([',', ' ']) {
        parse_heaps(t).map_err(GameError::BadPosition)?.into_iter().map(|n| n as u64).collect()
    } else {
        if t.is_empty() {
            return Err(GameError::BadPosition("a Chomp state is column heights such as 4432".into()));
        }
        t.chars()
            .map(|c| {
                c.to_digit(10).map(u64::from).ok_or_else(|| {
                    GameError::BadPosition(format!(
                        "{c:?} is not a column height: a Chomp state is digits such as 4432"
                    ))
                })
            })
            .collect::<GameResult<_>>()?
    };
    if h.windows(2).any(|w| w[1] > w[0]) {
        return Err(GameError::BadPosition(format!(
            "column heights must not increase from left to right ({})",
            crate::input::quote(t)
        )));
    }
    Ok(h)
}

/// A heap game's moves as octal digits, when every kind of move touches one heap (the last
/// digit repeating for `TakeAny` and codes ending in "…").
fn heap_rules(families: &[Family]) -> Option<HeapRules> {
    let mut rules: Option<HeapRules> = None;
    for f in families {
        let r = match f {
            Family::Octal(r) => r.clone(),
            Family::Subtract(set) => HeapRules::subtract(set),
            Family::TakeAny => HeapRules::take_any(),
            Family::Split => HeapRules::split_unequal(),
            Family::TakeEqual | Family::SplitEqual | Family::MergeUnequal => return None,
        };
        rules = Some(match rules {
            Some(x) => x.union(&r),
            None => r,
        });
    }
    rules
}

/// About how many integer partitions there are of the numbers up to `n` (Hardy and
/// Ramanujan's p(k) ~ e^(π√(2k/3)) / (4k√3), summed), to size a heap game's search.
fn partitions_up_to(n: f64) -> f64 {
    // The sum is dominated by its last terms: a few times p(n).
    1.0 + partitions(n) * (1.0 + (n + 1.0).sqrt())
}

/// About how many integer partitions n has (Hardy and Ramanujan).
fn partitions(n: f64) -> f64 {
    if n < 1.0 { 1.0 } else { (std::f64::consts::PI * (2.0 * n / 3.0).sqrt()).exp() / (4.0 * n * 3f64.sqrt()) }
}

fn format_heights(h: &[u64]) -> String {
    if h.iter().any(|&x| x > 9) {
        let s = h.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
        // One tall column: "12" alone would read as two columns, 1 and 2.
        if h.len() == 1 { s + "," } else { s }
    } else {
        h.iter().map(u64::to_string).collect()
    }
}

fn offsets(pattern: Pattern) -> &'static [(i64, i64)] {
    match pattern {
        Pattern::Cell => &[(0, 0)],
        Pattern::Plus => &[(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)],
        Pattern::Square => &[(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 0), (0, 1), (1, -1), (1, 0), (1, 1)],
    }
}

/// The lights a press at (r, c) toggles.
fn toggled(rows: usize, cols: usize, pattern: Pattern, r: usize, c: usize) -> impl Iterator<Item = (usize, usize)> {
    offsets(pattern).iter().filter_map(move |&(dr, dc)| {
        let (nr, nc) = (r as i64 + dr, c as i64 + dc);
        (nr >= 0 && nr < rows as i64 && nc >= 0 && nc < cols as i64).then_some((nr as usize, nc as usize))
    })
}

fn press(g: &mut Grid, pattern: Pattern, r: usize, c: usize) {
    for (nr, nc) in toggled(g.rows(), g.cols(), pattern, r, c).collect::<Vec<_>>() {
        g.toggle(nr, nc);
    }
}

/// The presses worth trying from `next` on, deciding the cells in reading order ("light
/// chasing", for any pattern). Once the last cell whose press toggles a light has been
/// decided, nothing can change that light: it must be off by then. So a cell that is the last
/// toggler of some lights must be pressed if they are on (and all of them must agree), and
/// skipped if they are off; a cell that is no light's last toggler is free. The moves are
/// every free cell up to the first cell that must be pressed, and that one; a solution never
/// needs anything else, because presses commute and two presses of a cell cancel.
fn chase_moves(g: &Grid, next: usize, pattern: Pattern) -> Vec<DMove> {
    let (rows, cols) = (g.rows(), g.cols());
    let index = |r: usize, c: usize| r * cols + c;
    // The last toggler of the light at (r, c): the latest cell in reading order whose press
    // reaches it (the pattern is symmetric, so those are the cells the light's pattern reaches).
    let last_toggler = |r: usize, c: usize| toggled(rows, cols, pattern, r, c).map(|(a, b)| index(a, b)).max();
    let mut out = Vec::new();
    for cell in next..rows * cols {
        let (r, c) = (cell / cols, cell % cols);
        let (mut on, mut off) = (false, false);
        for (lr, lc) in toggled(rows, cols, pattern, r, c) {
            if last_toggler(lr, lc) == Some(cell) {
                if g.get(lr, lc) { on = true } else { off = true }
            }
        }
        match (on, off) {
            (false, false) => out.push(DMove::Press { cell, free: false }), // free: press or skip
            (true, false) => {
                out.push(DMove::Press { cell, free: false }); // must press, and go no further
                break;
            }
            (false, true) => {}    // must skip
            (true, true) => break, // stuck: some frozen light stays wrong either way
        }
    }
    out
}

impl Game for DescriptorGame {
    type Pos = DPos;
    type Move = DMove;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn children(&self, pos: &DPos) -> GameResult<Vec<DPos>> {
        if let (DPos::Board(p), Shape::Board(b)) = (pos, &self.shape) {
            return Ok(b.children(p).into_iter().map(DPos::Board).collect());
        }
        if let (DPos::Points(p), Shape::Points(r)) = (pos, &self.shape) {
            return Ok(r.children(p).into_iter().map(DPos::Points).collect());
        }
        if let (DPos::Stacks(p), Shape::Stacks(r)) = (pos, &self.shape) {
            return Ok(r.children(p).into_iter().map(DPos::Stacks).collect());
        }
        let moves = self.moves(pos)?;
        moves.iter().map(|m| self.play(pos, m)).collect()
    }

    fn start(&self) -> GameResult<Option<DPos>> {
        self.start.as_deref().map(|t| self.parse(t)).transpose()
    }

    fn parse(&self, text: &str) -> GameResult<DPos> {
        match &self.shape {
            Shape::Heaps { count, .. } => {
                let h: Vec<u64> =
                    parse_heaps(text).map_err(GameError::BadPosition)?.into_iter().map(|n| n as u64).collect();
                if let Some(n) = count
                    && h.len() != *n
                {
                    let example = if *n <= 8 {
                        format!("e.g. \"{}\"", vec!["3"; *n].join(","))
                    } else {
                        format!("{n} heap sizes separated by commas")
                    };
                    return Err(GameError::BadPosition(format!(
                        "{} has {n} heaps, {example} (got {})",
                        self.info.name,
                        h.len()
                    )));
                }
                Ok(DPos::Heaps(h))
            }
            Shape::Grid { moves, text: fmt, .. } => match (moves, fmt) {
                (GridMove::Chomp, _) => Ok(DPos::Heights(parse_heights(text)?)),
                (GridMove::Toggle { .. }, _) => {
                    let (g, next) = Grid::parse_at(text).map_err(GameError::BadPosition)?;
                    Ok(DPos::Lights(g, next))
                }
                _ => Ok(DPos::Grid(Grid::parse(text).map_err(GameError::BadPosition)?)),
            },
            Shape::Board(b) => Ok(DPos::Board(b.parse(text).map_err(GameError::BadPosition)?)),
            Shape::Points(r) => Ok(DPos::Points(r.parse(text).map_err(GameError::BadPosition)?)),
            Shape::Stacks(r) => Ok(DPos::Stacks(r.parse(text).map_err(GameError::BadPosition)?)),
        }
    }

    fn format(&self, pos: &DPos) -> GameResult<String> {
        Ok(match pos {
            DPos::Heaps(h) if h.is_empty() => "0".into(),
            DPos::Heaps(h) => h.iter().map(u64::to_string).collect::<Vec<_>>().join(","),
            DPos::Heights(h) => format_heights(h),
            DPos::Grid(g) => match &self.shape {
                Shape::Grid { text: GridText::Pbm, .. } => g.to_pbm(),
                _ => g.to_rows('#', '0', "\n"),
            },
            DPos::Lights(g, next) => {
                let rows = g.to_rows('#', '0', "\n");
                if *next == 0 { rows } else { format!("{rows} @{next}") }
            }
            DPos::Board(p) => match &self.shape {
                Shape::Board(b) => b.format(p),
                _ => return Err(self.wrong_shape()),
            },
            DPos::Points(p) => match &self.shape {
                Shape::Points(r) => r.format(p),
                _ => return Err(self.wrong_shape()),
            },
            DPos::Stacks(p) => match &self.shape {
                Shape::Stacks(r) => r.format(p),
                _ => return Err(self.wrong_shape()),
            },
        })
    }

    fn moves(&self, pos: &DPos) -> GameResult<Vec<DMove>> {
        Ok(match (pos, &self.shape) {
            (DPos::Heaps(h), Shape::Heaps { families, .. }) => self.heap_moves(families, h)?,
            (DPos::Heights(h), _) => {
                let squares = h.iter().fold(0u64, |a, &x| a.saturating_add(x));
                if squares > MAX_MOVES {
                    return Err(GameError::Unsupported(format!(
                        "this board has {squares} squares to take, more than the {MAX_MOVES} a search can list"
                    )));
                }
                let mut out = Vec::new();
                for (col, &height) in h.iter().enumerate() {
                    for row in 0..height {
                        if col > 0 || row > 0 {
                            out.push(DMove::Bite { col, row });
                        }
                    }
                }
                out
            }
            (DPos::Grid(g), Shape::Grid { moves: GridMove::RemoveRun { min, max }, .. }) => {
                let count = g.segment_count();
                if count > MAX_MOVES {
                    return Err(GameError::Unsupported(format!(
                        "this position has {count} runs to remove, more than the {MAX_MOVES} a search can list \
                         (a native module may still answer: see `native` in docs/descriptors.md)"
                    )));
                }
                g.segments()
                    .into_iter()
                    .filter(|s| {
                        let len = (s[2] - s[0]) + (s[3] - s[1]) + 1;
                        len >= min.unwrap_or(1) && max.is_none_or(|m| len <= m)
                    })
                    .map(DMove::Run)
                    .collect()
            }
            (DPos::Lights(g, next), Shape::Grid { moves: GridMove::Toggle { pattern }, .. }) => {
                chase_moves(g, *next, *pattern)
            }
            (DPos::Board(p), Shape::Board(b)) => b.moves(p).into_iter().map(DMove::Cells).collect(),
            (DPos::Points(p), Shape::Points(r)) => r.moves(p).into_iter().map(DMove::Points).collect(),
            (DPos::Stacks(p), Shape::Stacks(r)) => r.moves(p).into_iter().map(DMove::Stacks).collect(),
            _ => return Err(self.wrong_shape()),
        })
    }

    fn play(&self, pos: &DPos, mv: &DMove) -> GameResult<DPos> {
        let illegal = || GameError::BadMove(format!("{mv:?} does not fit {}", self.format(pos).unwrap_or_default()));
        Ok(match (pos, mv) {
            (DPos::Heaps(h), DMove::Heap { index, take, into }) => {
                let n = *h.get(*index).ok_or_else(illegal)?;
                if *take > n {
                    return Err(illegal());
                }
                let mut out = h.clone();
                let Shape::Heaps { families, .. } = &self.shape else { return Err(illegal()) };
                if families.iter().any(|f| matches!(f, Family::Octal(_) | Family::Split | Family::SplitEqual)) {
                    // Take-and-break (Kayles): the row is taken out and what is left of it
                    // (none, one or two rows) goes at the end, as kayles.rhai does.
                    out.remove(*index);
                    out.extend_from_slice(into);
                } else {
                    // Taking from a heap (Nim): heaps keep their places, an emptied one as 0.
                    out[*index] = into.first().copied().unwrap_or(0);
                }
                DPos::Heaps(out)
            }
            (DPos::Heaps(h), DMove::Merge { a, b }) => {
                let (x, y) = match (h.get(*a), h.get(*b)) {
                    (Some(&x), Some(&y)) if a != b && x != y => (x, y),
                    _ => return Err(illegal()),
                };
                // The two heaps are taken out and their sum goes at the end.
                let mut out: Vec<u64> =
                    h.iter().enumerate().filter(|&(i, _)| i != *a && i != *b).map(|(_, &n)| n).collect();
                out.push(x + y);
                DPos::Heaps(out)
            }
            (DPos::Heaps(h), DMove::Equal { a, b, take }) => {
                let mut out = h.clone();
                if out.get(*a).is_none_or(|&n| n < *take) || out.get(*b).is_none_or(|&n| n < *take) {
                    return Err(illegal());
                }
                out[*a] -= take;
                out[*b] -= take;
                DPos::Heaps(out)
            }
            (DPos::Heights(h), DMove::Bite { col, row }) => {
                let mut out = h.clone();
                for x in out.iter_mut().skip(*col) {
                    *x = (*x).min(*row);
                }
                DPos::Heights(out)
            }
            (DPos::Grid(g), DMove::Run(seg)) => DPos::Grid(g.without(*seg)),
            (DPos::Board(p), DMove::Cells(m)) => {
                let Shape::Board(b) = &self.shape else { return Err(illegal()) };
                DPos::Board(b.play(p, *m).ok_or_else(illegal)?)
            }
            (DPos::Points(p), DMove::Points(m)) => {
                let Shape::Points(r) = &self.shape else { return Err(illegal()) };
                DPos::Points(r.play(p, *m).ok_or_else(illegal)?)
            }
            (DPos::Stacks(p), DMove::Stacks(m)) => {
                let Shape::Stacks(r) = &self.shape else { return Err(illegal()) };
                DPos::Stacks(r.play(p, *m).ok_or_else(illegal)?)
            }
            (DPos::Lights(g, next), DMove::Press { cell, free }) => {
                let Shape::Grid { moves: GridMove::Toggle { pattern }, .. } = &self.shape else {
                    return Err(illegal());
                };
                if *cell >= g.rows() * g.cols() {
                    return Err(illegal());
                }
                let mut board = g.clone();
                press(&mut board, *pattern, cell / g.cols(), cell % g.cols());
                let next = if *free || *cell < *next { 0 } else { cell + 1 };
                DPos::Lights(board, next)
            }
            _ => return Err(illegal()),
        })
    }

    fn move_name(&self, pos: &DPos, mv: &DMove) -> GameResult<String> {
        Ok(match mv {
            DMove::Heap { index, take: 0, into } if into.len() == 2 => {
                format!("heap {index}: split {}+{}", into[0], into[1])
            }
            DMove::Heap { index, take: 0, into } if into.len() > 2 => {
                format!("heap {index}: split {}x{}", into.len(), into[0])
            }
            DMove::Merge { a, b } => format!("heaps {a} and {b}: merge"),
            DMove::Heap { index, take, .. } => format!("heap {index}: take {take}"),
            DMove::Equal { a, b, take } => format!("heaps {a} and {b}: take {take}"),
            DMove::Bite { col, row } => format!("{col}:{row}"),
            DMove::Run([r0, c0, r1, c1]) => {
                if (r0, c0) == (r1, c1) {
                    format!("{r0}:{c0}")
                } else {
                    format!("{r0}:{c0}-{r1}:{c1}")
                }
            }
            DMove::Press { cell, .. } => {
                let cols = match pos {
                    DPos::Lights(g, _) => g.cols().max(1),
                    _ => 1,
                };
                format!("{}:{}", cell / cols, cell % cols)
            }
            DMove::Cells(m) => match (pos, &self.shape) {
                (DPos::Board(p), Shape::Board(b)) => b.move_name(p, *m),
                _ => return Err(self.wrong_shape()),
            },
            DMove::Points(m) => match (pos, &self.shape) {
                (DPos::Points(p), Shape::Points(r)) => r.move_name(p, *m),
                _ => return Err(self.wrong_shape()),
            },
            DMove::Stacks(m) => match &self.shape {
                Shape::Stacks(r) => r.move_name(*m),
                _ => return Err(self.wrong_shape()),
            },
        })
    }

    fn primitive(&self, pos: &DPos) -> GameResult<Option<Value>> {
        if let Some(hook) = &self.primitive_hook {
            let d = hook.call((Self::to_dynamic(pos),))?;
            if d.is_unit() {
                return Ok(None);
            }
            return match d.to_string().as_str() {
                "win" => Ok(Some(Value::Win)),
                "lose" => Ok(Some(Value::Lose)),
                "tie" => Ok(Some(Value::Tie)),
                other => Err(GameError::Definition(format!(
                    "{}: primitive must return \"win\", \"lose\", \"tie\" or () (game not over), not {other:?}",
                    hook.file()
                ))),
            };
        }
        if let (DPos::Board(p), Shape::Board(b)) = (pos, &self.shape) {
            return Ok(b.primitive(p)); // misère is in the board's rules
        }
        if let (DPos::Points(p), Shape::Points(r)) = (pos, &self.shape) {
            return Ok(r.primitive(p));
        }
        if let (DPos::Stacks(p), Shape::Stacks(r)) = (pos, &self.shape) {
            return Ok(r.primitive(p));
        }
        let v = match pos {
            // Chomp: an empty board means the opponent just ate the poison.
            DPos::Heights(h) if h.first().is_none_or(|&x| x == 0) => Some(Value::Win),
            DPos::Lights(g, _) if g.is_empty() => Some(Value::Win),
            _ => None,
        };
        // Misère play swaps who wins at the end, as `Misere` does.
        Ok(if self.misere { v.map(Value::flip) } else { v })
    }

    fn stalemate(&self) -> Value {
        if self.misere { Value::Win } else { Value::Lose }
    }

    fn canonical(&self, pos: &DPos) -> GameResult<DPos> {
        if self.primitive_hook.is_some() {
            // The script may look at the order of heaps or the place of tokens.
            return Ok(pos.clone());
        }
        Ok(match (pos, &self.shape) {
            (DPos::Heaps(h), Shape::Heaps { count, .. }) => {
                let mut h = h.clone();
                if count.is_none() {
                    h.retain(|&n| n > 0);
                }
                h.sort_unstable();
                DPos::Heaps(h)
            }
            (DPos::Grid(g), Shape::Grid { symmetry, .. }) => match symmetry {
                Symmetry::None => DPos::Grid(g.crop()),
                Symmetry::Square => DPos::Grid(g.canonical()),
                Symmetry::Reflections => {
                    let c = g.crop();
                    // `gridkit::symmetry` without the transpose (bit 2): the top-bottom
                    // mirror (1), the left-right mirror (2) and the half turn (3).
                    let best = [1u8, 2, 3].iter().map(|&t| c.transform(t)).fold(c.clone(), |b, x| b.min(x));
                    DPos::Grid(best)
                }
            },
            (DPos::Board(p), Shape::Board(b)) => DPos::Board(b.canonical(p)),
            (DPos::Points(p), Shape::Points(r)) => DPos::Points(r.canonical(p)),
            (DPos::Stacks(p), Shape::Stacks(r)) => DPos::Stacks(r.canonical(p)),
            _ => pos.clone(),
        })
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities {
            parallel: Some(self),
            tiers: self.own_tiers(),
            view: Some(self),
            hints: Some(self),
            split: self.splits().then_some(self),
            closed_form: Some(self),
            keys: Some(self),
        }
    }
}
impl Parallel<DescriptorGame> for DescriptorGame {
    /// The same descriptor read again (its script hook, if any, is not shared between threads).
    fn replicate(&self) -> Replica<'_, Self> {
        let (file, source, budget) = (self.file.clone(), self.source.clone(), self.budget);
        Replica {
            make: std::sync::Arc::new(move || {
                DescriptorGame::from_source_within(&file, &source.0, source.1.as_deref(), budget)
            }),
            send: |p| Box::new(p.clone()),
            receive: |w| match w.downcast::<DPos>() {
                Ok(p) => *p,
                Err(_) => unreachable!("a descriptor position crosses threads as a DPos"),
            },
        }
    }
}

impl DescriptorGame {
    /// A two-player board game numbered by `tiers.rs` (see `docs/tiers.md`); `None` for
    /// the rest (the redb store).
    pub(crate) fn own_tiers(&self) -> Option<&dyn crate::game::tier::Tiers<Pos = DPos>> {
        self.tiers.as_deref().map(|t| t as &dyn crate::game::tier::Tiers<Pos = DPos>)
    }
}

impl View<DPos, DMove> for DescriptorGame {
    fn to_move(&self, pos: &DPos) -> GameResult<Option<usize>> {
        Ok(match (pos, &self.shape) {
            (DPos::Board(p), Shape::Board(b)) => b.to_move(p),
            (DPos::Points(p), Shape::Points(r)) => Some(r.to_move(p)),
            (DPos::Stacks(p), Shape::Stacks(r)) => Some(r.to_move(p)),
            _ => None,
        })
    }
    fn board(&self, pos: &DPos) -> GameResult<Option<crate::game::Board>> {
        Ok(match (pos, &self.shape) {
            (DPos::Board(p), Shape::Board(b)) => Some(b.board(p)),
            _ => None,
        })
    }
    fn show(&self, pos: &DPos) -> GameResult<Option<String>> {
        Ok(match pos {
            DPos::Lights(g, _) => Some(g.to_rows('#', '0', "\n")),
            DPos::Grid(g) => Some(g.to_rows('#', '.', "\n")),
            DPos::Board(p) if let Shape::Board(b) = &self.shape => Some(b.show(p)),
            DPos::Points(p) if let Shape::Points(r) = &self.shape => Some(r.show(p)),
            DPos::Stacks(p) if let Shape::Stacks(r) = &self.shape => Some(r.show(p)),
            _ => None,
        })
    }
    /// A person may press any light of a toggle puzzle (`row:col`).
    fn parse_move(&self, pos: &DPos, text: &str) -> GameResult<Option<DMove>> {
        if let DPos::Lights(g, _) = pos {
            return Ok(Some(DMove::Press { cell: g.parse_cell(text).map_err(GameError::BadMove)?, free: true }));
        }
        Ok(None)
    }
}

impl Hints<DPos> for DescriptorGame {
    fn move_count(&self, pos: &DPos) -> GameResult<Option<usize>> {
        Ok(match (pos, &self.shape) {
            (DPos::Board(p), Shape::Board(b)) => Some(b.move_count(p)),
            _ => None,
        })
    }
    fn search_size(&self, pos: &DPos) -> Option<f64> {
        match (pos, &self.shape) {
            (DPos::Heaps(h), Shape::Heaps { families, .. }) => {
                // A move that leaves two heaps makes the positions below a heap of n the
                // multisets of smaller heaps: about the partitions of the numbers up to n.
                let splits =
                    families.iter().any(|f| matches!(f, Family::Octal(r) if r.splits()) || matches!(f, Family::Split));
                // Split alone keeps the tokens: below a heap of n are the partitions of n
                // (none below a heap of 1 or 2, which cannot be split).
                let only_split = families.iter().all(|f| matches!(f, Family::Split));
                if !only_split && families.iter().all(Family::keeps_tokens) {
                    // Splits and merges keep the tokens: the positions are the partitions
                    // of the total.
                    let total = h.iter().map(|&n| n as f64).sum::<f64>();
                    let moves = families.len() as f64 * (total + h.len() as f64 * h.len() as f64);
                    return Some(partitions(total) * moves.max(1.0));
                }
                let below = |n: f64| {
                    if only_split {
                        if n < 3.0 { 1.0 } else { partitions(n) }
                    } else if splits {
                        partitions_up_to(n)
                    } else {
                        n + 1.0
                    }
                };
                let positions: f64 = h.iter().map(|&n| below(n as f64)).product();
                let moves = h.iter().map(|&n| n as f64).sum::<f64>() * families.len() as f64;
                Some(positions * moves.max(1.0))
            }
            (DPos::Grid(g), Shape::Grid { moves: GridMove::RemoveRun { .. }, .. }) => {
                let n = g.count() as f64;
                Some(n.exp2() * n.max(1.0))
            }
            (DPos::Board(p), Shape::Board(b)) => Some(b.search_size(p)),
            _ => None,
        }
    }
}

impl Split<DPos> for DescriptorGame {
    fn split(&self, pos: &DPos) -> GameResult<Option<Vec<DPos>>> {
        if self.misere || self.primitive_hook.is_some() {
            return Ok(None);
        }
        Ok(match (pos, &self.shape) {
            (DPos::Heaps(h), Shape::Heaps { split: true, .. }) => {
                Some(h.iter().filter(|&&n| n > 0).map(|&n| DPos::Heaps(vec![n])).collect())
            }
            (DPos::Grid(g), Shape::Grid { components: true, .. }) => {
                Some(g.components().into_iter().map(DPos::Grid).collect())
            }
            (DPos::Board(p), Shape::Board(b)) => b.split(p).map(|v| v.into_iter().map(DPos::Board).collect()),
            _ => None,
        })
    }
}

impl ClosedForm<DPos, DMove> for DescriptorGame {
    /// Heap games with a nim-sequence: the Grundy value is the XOR of the heaps' values, read
    /// off the sequence (its period, once confirmed), and the winning moves are the moves to
    /// a position of value 0.
    fn shortcut(&self, pos: &DPos) -> GameResult<Option<Shortcut<DMove>>> {
        let Some(mut sc) = ClosedForm::shortcut_value(self, pos)? else { return Ok(None) };
        let (Some(seq), DPos::Heaps(h), Some(total)) = (&self.sequence, pos, sc.grundy) else { return Ok(None) };
        if total != 0 {
            let mut seq = seq.borrow_mut();
            for mv in self.moves(pos)? {
                let DMove::Heap { index, ref into, .. } = mv else { continue };
                let after = into.iter().fold(total ^ seq.get(h[index] as usize), |acc, &n| acc ^ seq.get(n as usize));
                if after == 0 {
                    sc.winning_moves.push(mv);
                }
            }
        }
        Ok(Some(sc))
    }
    /// The value and Grundy value alone: the heaps' values XORed.
    fn shortcut_value(&self, pos: &DPos) -> GameResult<Option<Shortcut<DMove>>> {
        let (Some(seq), DPos::Heaps(h)) = (&self.sequence, pos) else { return Ok(None) };
        let mut seq = seq.borrow_mut();
        let mut total = 0;
        for &n in h {
            let Some(v) = usize::try_from(n).ok().and_then(|n| seq.value(n)) else {
                let last = seq.limit() - 1;
                return Err(GameError::Unsupported(if seq.repeats() {
                    format!(
                        "this game's takes have no largest size (as with TakeAny or a code ending in \"…\"), so its \
                         nim-sequence has no period to confirm, and its values are computed up to n = {last} at most; \
                         a heap here has {n} tokens"
                    )
                } else {
                    format!(
                        "no period of this game's nim-sequence is confirmed up to n = {last}, the most values it \
                         computes, and a heap here has {n} tokens"
                    )
                }));
            };
            total ^= v;
        }
        let value = if total != 0 { Value::Win } else { Value::Lose };
        Ok(Some(Shortcut { value, remoteness: None, grundy: Some(total), winning_moves: Vec::new() }))
    }
}

impl DescriptorGame {
    fn splits(&self) -> bool {
        !self.misere
            && self.primitive_hook.is_none()
            && match &self.shape {
                Shape::Heaps { split, .. } => *split,
                Shape::Grid { components, .. } => *components,
                Shape::Board(b) => b.splits(),
                Shape::Points(_) | Shape::Stacks(_) => false,
            }
    }
}

impl Keys<DPos> for DescriptorGame {
    /// A board puzzle's positions as keys (`board/`), unless a script hook decides the ends.
    fn packed(&self, root: &DPos) -> Option<Box<dyn crate::game::packed::Packed<DPos> + '_>> {
        match (root, &self.shape) {
            (DPos::Board(p), Shape::Board(b)) if self.primitive_hook.is_none() => {
                Some(Box::new(PackedBoard(b.packing(p)?)))
            }
            _ => None,
        }
    }
    /// An impartial domino board of at most 64 cells (Cram) as 64-bit keys
    /// (`domino_sum.rs`); `None` for the rest, under misère play, or with a script hook.
    fn packed_sum(&self, root: &DPos) -> Option<Box<dyn crate::game::packed::PackedSum<DPos>>> {
        match (root, &self.shape) {
            (DPos::Board(p), Shape::Board(b)) if self.has_split() && b.splits() => {
                Some(Box::new(DominoKeys(domino_sum::DominoSum::new(p)?)))
            }
            _ => None,
        }
    }

    /// Heaps that split and merge, a board of pieces placed or dropped, or of dominoes with
    /// no other end, as keys for the
    /// full search (`board/`, `domino_sum.rs`); `None` for the rest, or with a script hook.
    fn packed_play(&self, root: &DPos) -> Option<Box<dyn crate::game::packed::PackedPlay<DPos>>> {
        // Heaps that merge (the game does not split into one game a heap) and only split or
        // merge: partitions of the total as keys (`heap_keys.rs`).
        if let (DPos::Heaps(h), Shape::Heaps { families, count: None, split: false }) = (root, &self.shape) {
            if self.primitive_hook.is_some() {
                return None;
            }
            return heap_keys::HeapKeys::new(families, h).map(|k| Box::new(HeapPlay(k)) as _);
        }
        if let (DPos::Points(_), Shape::Points(r)) = (root, &self.shape) {
            if self.primitive_hook.is_some() || self.misere {
                return None;
            }
            return points::PointsKeys::new(r, DPos::Points, unwrap_points).map(|k| Box::new(k) as _);
        }
        if let (DPos::Stacks(_), Shape::Stacks(r)) = (root, &self.shape) {
            if self.primitive_hook.is_some() || self.misere {
                return None;
            }
            return Some(Box::new(stacks::StacksKeys::new(r, DPos::Stacks, unwrap_stacks)));
        }
        let (DPos::Board(p), Shape::Board(b)) = (root, &self.shape) else { return None };
        if self.primitive_hook.is_some() || b.kind == Kind::Puzzle {
            return None;
        }
        if let board::BoardMove::Domino(o) = b.moves {
            // Dominoes of one mark, no line to make: the empty cells are the position.
            if b.pieces != board::Pieces::Shared || !b.no_ends() {
                return None;
            }
            let keys = domino_sum::DominoKeys::new(p, o == board::Orientation::PerPlayer)?;
            keys.pack(p)?;
            return Some(Box::new(PlayKeys::Domino(keys)));
        }
        let keys = b.piece_keys(p)?;
        keys.pack(p)?;
        Some(Box::new(PlayKeys::Pieces(keys)))
    }
}

/// The stacking position of a descriptor position, if it is one.
fn unwrap_stacks(p: &DPos) -> Option<&stacks::SPos> {
    if let DPos::Stacks(q) = p { Some(q) } else { None }
}

/// The points position of a descriptor position, if it is one.
fn unwrap_points(p: &DPos) -> Option<&points::PPos> {
    if let DPos::Points(q) = p { Some(q) } else { None }
}

/// Heaps that split and merge as keys (`heap_keys.rs`) over descriptor positions.
struct HeapPlay(heap_keys::HeapKeys);

impl crate::game::packed::PackedPlay<DPos> for HeapPlay {
    fn pack(&self, pos: &DPos) -> Option<u128> {
        let DPos::Heaps(h) = pos else { return None };
        self.0.pack(h)
    }
    /// The heaps smallest first, as the game's own `canonical` writes them.
    fn unpack(&self, key: u128) -> DPos {
        DPos::Heaps(self.0.unpack(key))
    }
    fn canonical(&self, key: u128) -> u128 {
        key
    }
    fn children(&self, key: u128, out: &mut Vec<u128>) {
        self.0.children(key, out)
    }
    /// No heap position ends but by having no move (the game's `stalemate`).
    fn primitive(&self, _key: u128) -> Option<Value> {
        None
    }
}

/// A domino board's keys (`domino_sum.rs`) over descriptor positions.
struct DominoKeys(domino_sum::DominoSum);

impl crate::game::packed::PackedSum<DPos> for DominoKeys {
    fn pack(&self, pos: &DPos) -> Option<u64> {
        match pos {
            DPos::Board(p) => self.0.key_of(p),
            _ => None,
        }
    }
    fn unpack(&self, key: u64) -> DPos {
        DPos::Board(self.0.position_of(key))
    }
    fn parts(&self, key: u64, out: &mut Vec<u64>) {
        self.0.parts_of(key, out)
    }
    fn children(&self, key: u64, out: &mut Vec<u64>) {
        self.0.children_of(key, out)
    }
    fn move_count(&self, key: u64) -> u32 {
        self.0.moves_of(key)
    }
    fn parts_within(&self, text: &str) -> Option<Result<Box<dyn crate::game::packed::PartBox>, String>> {
        Some(self.0.parts_within(text).map(|b| Box::new(b) as Box<dyn crate::game::packed::PartBox>))
    }
}

/// A two-player board's keys over descriptor positions: pieces (`board/`) or dominoes
/// (`domino_sum.rs`).
enum PlayKeys {
    Pieces(board::PieceKeys),
    Domino(domino_sum::DominoKeys),
}

impl crate::game::packed::PackedPlay<DPos> for PlayKeys {
    fn pack(&self, pos: &DPos) -> Option<u128> {
        let DPos::Board(p) = pos else { return None };
        match self {
            PlayKeys::Pieces(k) => k.pack(p),
            PlayKeys::Domino(k) => k.pack(p),
        }
    }
    fn unpack(&self, key: u128) -> DPos {
        DPos::Board(match self {
            PlayKeys::Pieces(k) => k.unpack(key),
            PlayKeys::Domino(k) => k.unpack(key),
        })
    }
    fn canonical(&self, key: u128) -> u128 {
        match self {
            PlayKeys::Pieces(k) => k.canonical(key),
            PlayKeys::Domino(k) => k.canonical(key),
        }
    }
    fn children(&self, key: u128, out: &mut Vec<u128>) {
        match self {
            PlayKeys::Pieces(k) => k.children(key, out),
            PlayKeys::Domino(k) => k.children(key, out),
        }
    }
    fn primitive(&self, key: u128) -> Option<Value> {
        match self {
            PlayKeys::Pieces(k) => k.primitive(key),
            PlayKeys::Domino(_) => None,
        }
    }
    fn move_count(&self, key: u128) -> u32 {
        match self {
            PlayKeys::Pieces(k) => k.move_count(key),
            PlayKeys::Domino(k) => k.move_count(key),
        }
    }
}

/// A board puzzle's packing (`board/`) over descriptor positions.
struct PackedBoard<'a>(board::BoardPacking<'a>);

impl crate::game::packed::Packed<DPos> for PackedBoard<'_> {
    fn size(&self) -> Option<u64> {
        self.0.size()
    }
    fn pack(&self, pos: &DPos) -> u128 {
        match pos {
            DPos::Board(p) => self.0.pack(p),
            _ => unreachable!("a board puzzle's positions are boards"),
        }
    }
    fn unpack(&self, key: u128) -> DPos {
        DPos::Board(self.0.unpack(key))
    }
    fn index(&self, key: u128) -> u64 {
        self.0.index(key)
    }
    fn children(&self, key: u128, out: &mut Vec<u128>) {
        self.0.children(key, out)
    }
    fn primitive(&self, key: u128) -> Option<Value> {
        self.0.primitive(key)
    }
    fn symmetries(&self) -> usize {
        self.0.symmetries()
    }
    fn image(&self, key: u128, t: usize) -> u128 {
        self.0.image(key, t)
    }
}
