//! Reading a descriptor: parse (RON into the vocabulary, errors with line and column), then
//! check (impossible combinations, numbers past the memory budget) into the game's shape,
//! kind, end and metadata; `DescriptorGame::from_source_within` then builds the game.

use super::board::{self, BoardRules, BoardSpec};
use super::points::{self, PointsRules, PointsSpec};
use super::stacks::StacksRules;
use crate::game::{GameError, GameInfo, GameResult, Kind};
use crate::script::ScriptHook;
use crate::solve::sequence::HeapRules;
use serde::Deserialize;
use std::path::Path;

// --- The vocabulary (what a .ron file says) ---------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Descriptor {
    name: String,
    #[serde(default)]
    description: String,
    /// Optional: follows from the rules; when given it must agree with them.
    #[serde(default)]
    kind: Option<KindSpec>,
    #[serde(default)]
    start: Option<String>,
    #[serde(default)]
    native: Option<String>,
    #[serde(default)]
    end: End,
    rules: Rules,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub(super) enum KindSpec {
    Impartial,
    Partisan,
    Puzzle,
}

/// The terminal rule.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) enum End {
    /// Whoever cannot move loses (a puzzle: solved when every light is off).
    #[default]
    Normal,
    /// Whoever cannot move wins.
    Misere,
    /// The escape hatch: a Rhai function `primitive(pos)` returning "win", "lose", "tie" or
    /// () (not over); a position with no moves that it says is not over is a normal-play loss.
    Script { file: String, function: Option<String> },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) enum Rules {
    Heaps {
        moves: Vec<HeapMove>,
        /// Exactly this many heaps (Wythoff's game: 2). Default: any number.
        #[serde(default)]
        heaps: Option<usize>,
    },
    Grid {
        moves: GridMove,
        /// The symmetries that map a position to an equivalent one.
        #[serde(default)]
        symmetry: Symmetry,
        /// A position is the sum of its 4-connected components.
        #[serde(default)]
        components: bool,
        /// How positions are written.
        #[serde(default)]
        text: GridText,
    },
    /// Pieces or dominoes placed on a board, or pieces that move (`board/`).
    Board {
        #[serde(default)]
        size: Option<String>,
        #[serde(default)]
        shape: board::BoardShape,
        moves: board::BoardMove,
        #[serde(default)]
        pieces: Option<board::Pieces>,
        #[serde(default)]
        ends: Vec<board::BoardEnd>,
        #[serde(default)]
        cells: Option<String>,
    },
    /// Pieces on points joined by lines, placed and moved (`points/`).
    Points {
        board: points::BoardSpec,
        #[serde(default)]
        marks: Option<String>,
        moves: (Vec<points::MoveKind>, Vec<points::MoveKind>),
        #[serde(default)]
        hand: (u32, u32),
        #[serde(default)]
        towards: (points::Towards, points::Towards),
        #[serde(default)]
        mill: Option<usize>,
        #[serde(default)]
        pass: bool,
        #[serde(default)]
        ends: Vec<points::PointsEnd>,
        #[serde(default)]
        order: Option<Vec<u8>>,
    },
    /// Pieces of several sizes that stack and cover, placed and moved (`stacks.rs`).
    Stacks {
        board: points::BoardSpec,
        #[serde(default)]
        marks: Option<String>,
        sizes: Vec<u32>,
        line: usize,
    },
}

#[derive(Debug, Deserialize, Clone)]
pub(super) enum HeapMove {
    /// Take any number from one heap (Nim).
    TakeAny,
    /// Take a number in this set from one heap.
    Subtract(Vec<u64>),
    /// An octal code such as "0.77" (Kayles): digit k says whether k tokens may be taken
    /// leaving no heap (1), one heap (2), or two heaps (4).
    Octal(String),
    /// Take the same positive number from two heaps (Wythoff's game).
    TakeEqual,
    /// Split one heap into two unequal non-empty heaps, taking nothing (Grundy's game).
    Split,
    /// Split one heap into two or more equal heaps, taking nothing (Fair Shares).
    SplitEqual,
    /// Merge two heaps of different sizes into one (Varied Pairs).
    MergeUnequal,
}

#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub(super) enum GridMove {
    /// Remove a contiguous run of tokens from one row or one column (TacTix), of at least
    /// `min` (default 1) and at most `max` (default: any) tokens. Cram: `min: 2, max: 2`.
    RemoveRun {
        #[serde(default)]
        min: Option<usize>,
        #[serde(default)]
        max: Option<usize>,
    },
    /// Take a square and every square above and right of it; the bottom-left square is
    /// poisoned and never taken, so a player left with only it loses (Chomp).
    Chomp,
    /// A puzzle: a press toggles the cell and a neighbourhood; solved when all are off.
    Toggle { pattern: Pattern },
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pattern {
    /// The cell alone.
    Cell,
    /// The cell and its up/down/left/right neighbours (Lights Out).
    Plus,
    /// The cell and its 8 neighbours.
    Square,
}

#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum Symmetry {
    #[default]
    None,
    /// Mirror images left-right and top-bottom (and the half turn).
    Reflections,
    /// The 8 symmetries of the square (rotations and reflections).
    Square,
}

#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum GridText {
    /// Rows of `#` (token, light on) and `0`, separated by newlines or `/`.
    #[default]
    Rows,
    /// A plain PBM (P1) image; rows are read too.
    Pbm,
    /// Column heights from left to right, as digits (`4432`) or comma-separated (Chomp).
    Heights,
}

/// An octal code such as "0.77", or "0.3…" (or "0.3...") whose last digit repeats for ever.
pub(super) fn parse_octal(code: &str) -> Result<HeapRules, String> {
    let Some(rest) = code.strip_prefix("0.") else {
        return Err(format!("octal code {code:?} must start with \"0.\" (e.g. \"0.77\" for Kayles)"));
    };
    let (rest, repeating) = match rest.strip_suffix('…').or_else(|| rest.strip_suffix("...")) {
        Some(r) => (r, true),
        None => (rest, false),
    };
    if rest.is_empty() {
        return Err(format!("octal code {code:?} has no digits after \"0.\""));
    }
    let mut digits = vec![0];
    for ch in rest.chars() {
        match ch.to_digit(8) {
            Some(d) => digits.push(d as u8),
            None => {
                return Err(format!(
                    "octal code {code:?}: {ch:?} is not an octal digit (0-7; a code may end in \"…\" or \"...\" \
                     when its last digit repeats for ever)"
                ));
            }
        }
    }
    Ok(if repeating { HeapRules::repeating(&digits) } else { HeapRules::octal(&digits) })
}

#[derive(Clone, Debug)]
pub(super) enum Family {
    TakeAny,
    Subtract(Vec<u64>),
    Octal(HeapRules),
    TakeEqual,
    Split,
    SplitEqual,
    MergeUnequal,
}

impl Family {
    /// Whether every move of this family keeps the number of tokens (it only splits or
    /// merges heaps), so that the positions below a start are partitions of its total.
    pub(super) fn keeps_tokens(&self) -> bool {
        matches!(self, Family::Split | Family::SplitEqual | Family::MergeUnequal)
    }
}

pub(super) enum Shape {
    Heaps { families: Vec<Family>, count: Option<usize>, split: bool },
    Grid { moves: GridMove, symmetry: Symmetry, components: bool, text: GridText },
    Board(Box<BoardRules>),
    Points(Box<PointsRules>),
    Stacks(Box<StacksRules>),
}

// --- The loader ---------------------------------------------------------------------------

/// The descriptor being read: its file's name, its text and the memory budget, for errors
/// that say where.
pub(super) struct Place<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
    pub(super) budget: usize,
}

impl Place<'_> {
    /// "file:line:column" of a top-level field, for errors found after parsing (the file
    /// alone when the field is not written).
    fn at(&self, field: &str) -> String {
        self.text.lines().enumerate().find(|(_, l)| l.trim_start().starts_with(&format!("{field}:"))).map_or_else(
            || self.file.to_string(),
            |(i, l)| format!("{}:{}:{}", self.file, i + 1, l.len() - l.trim_start().len() + 1),
        )
    }

    /// An error at a top-level field: one line, whatever text the message quotes (a start
    /// position with a newline in it).
    pub(super) fn bad_at(&self, field: &str, msg: String) -> GameError {
        GameError::Definition(format!("{}: {}", self.at(field), msg.replace('\n', "\\n").replace('\r', "\\r")))
    }

    /// A number the budget cannot afford, refused where it is written.
    fn too_big(&self, after: &str, label: &str, number: String, what: &str, most: usize) -> GameError {
        GameError::Definition(format!(
            "{}: {label}: {number} is more than the memory budget allows ({what}: at most {most} with \
             --max-memory {})",
            locate(self.file, self.text, after, &number),
            self.budget >> 20
        ))
    }
}

/// What a descriptor says once checked: all a game is made of.
pub(super) struct Checked {
    pub(super) shape: Shape,
    pub(super) info: GameInfo,
    pub(super) start: Option<String>,
    pub(super) misere: bool,
    pub(super) primitive_hook: Option<ScriptHook>,
}

/// Parse: the text as RON in the vocabulary (unknown fields and misspelt words are errors
/// with line and column, and a hint for the common ones).
pub(super) fn parse(place: &Place) -> GameResult<Descriptor> {
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    options.from_str(place.text).map_err(|e| {
        GameError::Definition(format!(
            "{}:{}:{}: {}{}",
            place.file,
            e.span.start.line,
            e.span.start.col,
            e.code,
            ron_hint(&e.code, place.text, e.span.start.line, e.span.start.col)
        ))
    })
}

/// Check: the rules as a whole, the declared kind against the rules', the end (a script's
/// `primitive` loaded from `dir`) and the name.
pub(super) fn check(place: &Place, d: Descriptor, dir: Option<&Path>) -> GameResult<Checked> {
    let (shape, kind) = match d.rules {
        Rules::Heaps { moves, heaps } => heap_shape(place, moves, heaps)?,
        Rules::Grid { moves, symmetry, components, text } => grid_shape(place, moves, symmetry, components, text)?,
        Rules::Board { size, shape, moves, pieces, ends, cells } => {
            if matches!(d.end, End::Script { .. }) {
                return Err(place.bad_at(
                    "end",
                    "a board game ends as its `ends` say: the escape hatch is for heaps and grids".into(),
                ));
            }
            let spec = BoardSpec { size, shape, moves, pieces, ends, cells };
            let rules = BoardRules::new(spec, matches!(d.end, End::Misere)).map_err(|e| place.bad_at("rules", e))?;
            let kind = rules.kind();
            (Shape::Board(Box::new(rules)), kind)
        }
        Rules::Points { board, marks, moves, hand, towards, mill, pass, ends, order } => {
            if !matches!(d.end, End::Normal) {
                return Err(place.bad_at("end", "a points game ends as its `ends` say".into()));
            }
            let spec = PointsSpec { board, marks, moves, hand, towards, mill, pass, ends, order };
            let rules = PointsRules::new(spec).map_err(|(field, e)| place.bad_at(field, e))?;
            (Shape::Points(Box::new(rules)), Kind::Partisan)
        }
        Rules::Stacks { board, marks, sizes, line } => {
            if !matches!(d.end, End::Normal) {
                return Err(place.bad_at("end", "a stacking game ends by a line of one side's top pieces".into()));
            }
            let rules = StacksRules::new(board, marks, sizes, line).map_err(|(field, e)| place.bad_at(field, e))?;
            (Shape::Stacks(Box::new(rules)), Kind::Partisan)
        }
    };
    if let Some(k) = d.kind {
        let declared = match k {
            KindSpec::Impartial => Kind::Impartial,
            KindSpec::Partisan => Kind::Partisan,
            KindSpec::Puzzle => Kind::Puzzle,
        };
        if declared != kind {
            return Err(place.bad_at("kind", format!("the rules make this game {kind}, but `kind` says {declared}")));
        }
    }
    let (misere, primitive_hook) = match d.end {
        End::Normal => (false, None),
        End::Misere if kind == Kind::Puzzle => {
            return Err(place.bad_at("end", "a puzzle has one player: misère play does not apply".into()));
        }
        End::Misere => (true, None),
        End::Script { file: script, function } => {
            let path = dir.map_or_else(|| Path::new(&script).to_path_buf(), |d| d.join(&script));
            let f = function.as_deref().unwrap_or("primitive");
            let hook = ScriptHook::load(&path, f, 1).map_err(|e| place.bad_at("end", e.to_string()))?;
            (false, Some(hook))
        }
    };
    if d.name.trim().is_empty() {
        return Err(place.bad_at("name", "the name is empty".into()));
    }
    // Pieces on points or stacks marked other than x and o: the players are named by their marks.
    let marks = match &shape {
        Shape::Points(r) => Some(r.marks()),
        Shape::Stacks(r) => Some(r.marks()),
        _ => None,
    };
    let players = marks
        .filter(|m| !m.iter().zip("xo".chars()).all(|(a, b)| a.eq_ignore_ascii_case(&b)))
        .map(|m| m.map(|c| c.to_ascii_uppercase().to_string()));
    let info = GameInfo {
        name: d.name,
        description: d.description,
        kind,
        native: d.native,
        move_verb: matches!(shape, Shape::Grid { moves: GridMove::Toggle { .. }, .. }).then(|| "Flipping".into()),
        solved_message: None,
        players,
    };
    Ok(Checked { shape, info, start: d.start, misere, primitive_hook })
}

/// The rules of a heap game: its families of moves, checked against each other and the budget.
fn heap_shape(place: &Place, moves: Vec<HeapMove>, heaps: Option<usize>) -> GameResult<(Shape, Kind)> {
    let budget = place.budget;
    // A position holds 8 bytes a heap (its text at least 2), and a search many.
    if let Some(n) = heaps
        && n > budget / 16
    {
        return Err(place.too_big("heaps:", "heaps", n.to_string(), "a position holds 16 bytes a heap", budget / 16));
    }
    if moves.is_empty() {
        return Err(place.bad_at("rules", "a heap game needs at least one kind of move".into()));
    }
    let mut families = Vec::new();
    for m in moves {
        families.push(match m {
            HeapMove::TakeAny => Family::TakeAny,
            HeapMove::TakeEqual => Family::TakeEqual,
            HeapMove::Split => Family::Split,
            HeapMove::SplitEqual => Family::SplitEqual,
            HeapMove::MergeUnequal => Family::MergeUnequal,
            HeapMove::Subtract(mut set) => {
                if set.is_empty() || set.contains(&0) {
                    return Err(place
                        .bad_at("rules", "a subtraction set needs positive numbers, e.g. Subtract([1, 3, 4])".into()));
                }
                set.sort_unstable();
                set.dedup();
                // The table of takes holds a byte for each number up to the largest, and the
                // nim-sequence that finds its period 8 more.
                let top = set[set.len() - 1];
                if top > (budget / 16) as u64 {
                    return Err(place.too_big(
                        "Subtract(",
                        "Subtract",
                        top.to_string(),
                        "a take of k makes tables of 16·k bytes",
                        budget / 16,
                    ));
                }
                Family::Subtract(set)
            }
            HeapMove::Octal(code) => Family::Octal(parse_octal(&code).map_err(|e| place.bad_at("rules", e))?),
        });
    }
    if heaps == Some(0) {
        return Err(place.bad_at("rules", "`heaps: Some(0)` leaves nothing to play with".into()));
    }
    for (family, name, does) in [
        (Family::Split, "Split", "makes two heaps of one"),
        (Family::SplitEqual, "SplitEqual", "makes several heaps of one"),
        (Family::MergeUnequal, "MergeUnequal", "makes one heap of two"),
    ] {
        if heaps.is_some() && families.iter().any(|f| std::mem::discriminant(f) == std::mem::discriminant(&family)) {
            return Err(
                place.bad_at("rules", format!("{name} {does}, so the number of heaps changes: `heaps` does not apply"))
            );
        }
    }
    let equal = families.iter().any(|f| matches!(f, Family::TakeEqual));
    if equal && heaps == Some(1) {
        return Err(place.bad_at("rules", "TakeEqual takes from two heaps, but `heaps` is 1".into()));
    }
    let merge = families.iter().any(|f| matches!(f, Family::MergeUnequal));
    // Heaps are independent games unless a move touches two of them.
    Ok((Shape::Heaps { families, count: heaps, split: !equal && !merge }, Kind::Impartial))
}

/// The rules of a grid game: its move, symmetry, components and text, checked together.
fn grid_shape(
    place: &Place,
    moves: GridMove,
    symmetry: Symmetry,
    components: bool,
    text: GridText,
) -> GameResult<(Shape, Kind)> {
    let kind = match moves {
        GridMove::Toggle { .. } => Kind::Puzzle,
        _ => Kind::Impartial,
    };
    let refuse = |msg: &str| Err(place.bad_at("rules", msg.to_string()));
    match moves {
        GridMove::RemoveRun { max: Some(0), .. } => return refuse("RemoveRun's `max` must be at least 1"),
        GridMove::RemoveRun { min: Some(0), .. } => return refuse("RemoveRun's `min` must be at least 1"),
        GridMove::RemoveRun { min: Some(lo), max: Some(hi) } if lo > hi => {
            return refuse(&format!("RemoveRun's `min` ({lo}) is more than its `max` ({hi}): no move would be legal"));
        }
        GridMove::Chomp => {
            if components {
                return refuse("Chomp boards are one piece (a staircase): `components: true` does not apply");
            }
            if symmetry != Symmetry::None {
                return refuse("Chomp's poisoned corner breaks the board's symmetry: use `symmetry: None`");
            }
            if text != GridText::Heights {
                return refuse("Chomp positions are column heights: use `text: Heights`");
            }
        }
        GridMove::Toggle { .. } if components => {
            return refuse(
                "a press reaches across components, so a toggle puzzle does not split: \
                 `components: true` does not apply",
            );
        }
        _ => {}
    }
    if text == GridText::Heights && !matches!(moves, GridMove::Chomp) {
        return refuse("`text: Heights` is for Chomp boards only");
    }
    Ok((Shape::Grid { moves, symmetry, components, text }, kind))
}

/// "file:line:column" of the first `number` written after `after` (outside comments), or
/// the file alone.
fn locate(file: &str, text: &str, after: &str, number: &str) -> String {
    let mut seen = false;
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut from = 0;
        if !seen && let Some(at) = code.find(after) {
            seen = true;
            from = at + after.len();
        }
        if seen && let Some(at) = code[from..].find(number) {
            let col = code[..from + at].chars().count() + 1;
            return format!("{file}:{}:{col}", i + 1);
        }
    }
    file.to_string()
}

/// What to write instead, for the RON errors a new user meets most (docs/descriptors.md,
/// "Errors you may meet"): RON's own message names the place but not the fix.
fn ron_hint(code: &ron::error::Error, text: &str, line: usize, col: usize) -> &'static str {
    use ron::error::Error as E;
    // The text from the error's place on (RON counts lines and columns from 1, in characters).
    let rest: String =
        text.lines().nth(line.saturating_sub(1)).unwrap_or("").chars().skip(col.saturating_sub(1)).collect();
    let rest = rest.trim_start();
    match code {
        E::ExpectedAttribute
            if rest.starts_with('#')
                || text.lines().any(|l| l.trim_start().starts_with('#') && !l.trim_start().starts_with("#!")) =>
        {
            " (`#` is not a comment in RON: write `// ...`)"
        }
        E::ExpectedString => " (texts are in double quotes: `size: \"3x3\"`, `start: \"...\"`)",
        E::ExpectedIdentifier if rest.starts_with('"') => {
            " (the words of the vocabulary are bare, without quotes: `kind: Partisan`)"
        }
        E::ExpectedStructLike => {
            let before: String =
                text.lines().nth(line.saturating_sub(1)).unwrap_or("").chars().take(col.saturating_sub(1)).collect();
            if before.trim_end().ends_with("Domino") || rest.starts_with("Domino") {
                " (`Domino` takes its orientation in parentheses: `Domino(Either)` or `Domino(PerPlayer)`)"
            } else {
                " (this word takes its parameters in parentheses, as in `InRow(3)`)"
            }
        }
        _ => "",
    }
}
