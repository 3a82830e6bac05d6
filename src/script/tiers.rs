//! Positions by index for a script (docs/scripting.md, "Positions by index (tiers)"): the
//! adapter that lets the tier solver ([`crate::solve::tier`]) and the array database
//! ([`crate::db::array`]) run a Rhai script.
//!
//! The solver asks [`TierSpace`], which is `Sync` and is called from every rayon thread,
//! while a script's engine is not even `Send` (Rhai without its `sync` feature). So
//! [`ScriptTiers`] holds only the script's text and what it declared, and each thread that
//! asks gets its own copy of the game, compiled from that text on first use and kept in a
//! thread-local table keyed by the adapter (dropped with the adapter, at that thread's
//! next use of the table).
//!
//! A script gives its tiers one of two ways:
//!
//! - **a declared board**: `const TIER_BOARD = #{ cells: 9, kinds: ["x", "o"] };` and the
//!   hooks `pieces(pos)` (the cells each kind holds, as a map of cell lists, with `turn`
//!   when the board declares it) and `from_pieces(pieces)` (the position back). The native
//!   [`Ranker`] numbers the board; the tier is the counts of the kinds; the child tiers are
//!   the tier plus each of the board's `changes` (by default: one more piece of one kind);
//! - **hooks of its own**: `tier(pos)`, `index(pos)`, `position(tier, index)`,
//!   `tier_size(tier)` and `child_tiers(tier)`, optionally `tier_name(tier)`.
//!
//! The hooks' answers are checked: an index out of range, a count the board does not
//! hold, a child in a tier that is not declared, a round trip that does not come back are
//! each one line naming the hook. The [`TierSpace`] methods cannot fail, so the first error
//! is kept and handed over through [`TierSpace::failure`], which the solver asks after each
//! tier; after an error every answer is a harmless one, so the solve stops soon.

use super::game::{Maker, ScriptGame, TierSpaceOf};
use super::position::Key;
use crate::game::tier::{Ranker, Tier, TierSpace, Tiers};
use crate::game::{Game, GameError, GameExt, GameResult, Value};
use rhai::{Dynamic, Map};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Kinds of piece a declared board may have (each count takes 7 bits of the tier).
pub const MAX_KINDS: usize = 8;
/// Count changes a declared board may list.
const MAX_CHANGES: usize = 256;
/// Child tiers `child_tiers` may give for one tier.
const MAX_CHILD_TIERS: usize = 4096;
/// Tiers a script's own hooks may name in all (the tier graph is walked whole).
const MAX_TIERS: usize = 1 << 20;
/// Child tiers `child_tiers` may give in all, over every tier (what the adapter remembers).
const MAX_TIER_EDGES: usize = 1 << 22;

/// How a script numbers its positions.
pub(super) enum Layout {
    Board(BoardLayout),
    /// The script's own hooks; whether it has `tier_name`.
    Hooks {
        tier_name: bool,
    },
}

/// A declared board (`TIER_BOARD`).
pub(super) struct BoardLayout {
    cells: u32,
    kinds: Vec<String>,
    turn: bool,
    /// The changes of the counts a move may make (besides none).
    changes: Vec<Vec<i64>>,
    ranker: Ranker,
    /// `text`: the position is a string of a character a cell, read and written natively
    /// (no `pieces` or `from_pieces`), with its `symmetries`.
    text: Option<Box<Text>>,
    /// Whether the script has its own `canonical` (then a text board's canonical form is its).
    script_canonical: bool,
}

/// A board declared as text (`TIER_BOARD`'s `text`): cell `i` is character `i` of the
/// position's string, the name of the kind it holds or `empty`; with `turn`, one more
/// character says whose turn it is.
struct Text {
    empty: u8,
    /// Each kind's character (its one-character name).
    marks: Vec<u8>,
    /// The characters of turn 0 and turn 1 (with `turn: true`).
    turns: [u8; 2],
    /// `symmetries`: permutations of the cells, `image[i] = cell s[i]`; the canonical form of
    /// a position is its least image, made natively.
    symmetries: Vec<Vec<u8>>,
}

/// Read what a script declares for tiers: `TIER_BOARD` (a constant, given as `board`), or
/// the hooks named in `defined` (name, parameters). `None`: no tiers (the fallback).
pub(super) fn declare(
    board: Option<&Dynamic>,
    defined: &[(String, usize)],
    kind: crate::game::Kind,
    def: &dyn Fn(&str) -> GameError,
) -> GameResult<Option<Layout>> {
    let has = |n: &str, a: usize| defined.iter().any(|(f, k)| f == n && *k == a);
    const HOOKS: [(&str, usize); 5] =
        [("tier", 1), ("index", 1), ("position", 2), ("tier_size", 1), ("child_tiers", 1)];
    let given: Vec<&str> = HOOKS.iter().filter(|&&(n, a)| has(n, a)).map(|&(n, _)| n).collect();
    if board.is_none() && given.is_empty() {
        return Ok(None);
    }
    if kind != crate::game::Kind::Partisan {
        return Err(def(
            "positions by index (TIER_BOARD or the tier hooks) are for partisan two-player games: the tier solver's \
             arrays hold value and remoteness, not Grundy values, and no puzzle goals (set KIND = \"partisan\", or \
             leave the tiers out)",
        ));
    }
    let Some(board) = board else {
        let missing: Vec<String> =
            HOOKS.iter().filter(|&&(n, a)| !has(n, a)).map(|&(n, a)| format!("`{n}` ({a} parameter(s))")).collect();
        if !missing.is_empty() {
            return Err(def(&format!(
                "defines the tier hook(s) {} but not {}: a script that numbers its own positions needs all five \
                 (or declare `const TIER_BOARD` instead)",
                given.join(", "),
                missing.join(", ")
            )));
        }
        return Ok(Some(Layout::Hooks { tier_name: has("tier_name", 1) }));
    };
    if !given.is_empty() {
        return Err(def(&format!(
            "declares TIER_BOARD and defines the tier hook(s) {}: choose one way of numbering positions",
            given.join(", ")
        )));
    }
    let bad = |why: &str| {
        def(&format!("TIER_BOARD must be a map such as #{{ cells: 9, kinds: [\"x\", \"o\"], turn: false }}: {why}"))
    };
    let Some(map) = board.read_lock::<Map>() else { return Err(bad("it is not a map")) };
    for k in map.keys() {
        if !["cells", "kinds", "turn", "changes", "text", "symmetries"].contains(&k.as_str()) {
            return Err(bad(&format!("`{k}` is not one of cells, kinds, turn, changes, text, symmetries")));
        }
    }
    let text_declared = map.get("text").is_some_and(|t| t.as_bool() != Ok(false));
    if map.contains_key("symmetries") && !text_declared {
        return Err(bad("`symmetries` are applied to the board's text: declare `text` too"));
    }
    piece_hooks(text_declared, &has, def)?;
    let cells = map
        .get("cells")
        .and_then(|v| v.as_int().ok())
        .filter(|c| (1..=64).contains(c))
        .ok_or_else(|| bad("`cells` must be a whole number from 1 to 64"))? as u32;
    let kinds = declare_kinds(&map, &bad)?;
    let turn = match map.get("turn") {
        None => false,
        Some(v) => v.as_bool().map_err(|_| bad("`turn` must be true or false"))?,
    };
    let changes = declare_changes(&map, kinds.len(), &bad)?;
    let text = match map.get("text") {
        None => None,
        Some(v) if v.as_bool() == Ok(false) => None,
        Some(v) => Some(Box::new(declare_text(v, &kinds, turn).map_err(|why| bad(&why))?)),
    };
    let symmetries = match map.get("symmetries") {
        None => Vec::new(),
        Some(v) => {
            if has("canonical", 1) {
                return Err(def(
                    "TIER_BOARD declares `symmetries`, which make the canonical form natively (the least image): \
                     remove `fn canonical` (or the symmetries)",
                ));
            }
            declare_symmetries(v, cells).map_err(|why| bad(&why))?
        }
    };
    Ok(Some(Layout::Board(BoardLayout {
        cells,
        kinds,
        turn,
        changes,
        ranker: Ranker::new(cells),
        text: text.map(|mut t| {
            t.symmetries = symmetries;
            t
        }),
        script_canonical: has("canonical", 1),
    })))
}

/// `pieces` and `from_pieces`: a board not written as `text` needs both, one written as
/// `text` neither.
fn piece_hooks(
    text_declared: bool,
    has: &dyn Fn(&str, usize) -> bool,
    def: &dyn Fn(&str) -> GameError,
) -> GameResult<()> {
    for (f, what) in [("pieces", "the cells each kind holds"), ("from_pieces", "the position back from them")] {
        if !text_declared && !has(f, 1) {
            return Err(def(&format!(
                "TIER_BOARD needs `fn {f}(..)`: {what} (or `text` for a board written one character a cell; see \
                 docs/scripting.md)"
            )));
        }
        if text_declared && has(f, 1) {
            return Err(def(&format!(
                "TIER_BOARD declares `text`, so the board is read and written natively and `fn {f}` would never be \
                 called: remove it (or remove `text`)"
            )));
        }
    }
    Ok(())
}

/// TIER_BOARD's `kinds`: from 1 to [`MAX_KINDS`] names of kinds of piece, none empty,
/// repeated or `turn`.
fn declare_kinds(map: &Map, bad: &dyn Fn(&str) -> GameError) -> GameResult<Vec<String>> {
    let kinds: Vec<String> = map
        .get("kinds")
        .and_then(|v| {
            v.read_lock::<rhai::Array>().map(|a| a.iter().map(|k| k.is_string().then(|| k.to_string())).collect())
        })
        .flatten()
        .ok_or_else(|| bad("`kinds` must be an array of names, one a kind of piece"))?;
    if kinds.is_empty() || kinds.len() > MAX_KINDS {
        return Err(bad(&format!("`kinds` must name from 1 to {MAX_KINDS} kinds of piece")));
    }
    for (i, k) in kinds.iter().enumerate() {
        if k.is_empty() || k == "turn" || kinds[..i].contains(k) {
            return Err(bad(&format!("the kind {k:?} is empty, repeated or `turn`")));
        }
    }
    Ok(kinds)
}

/// TIER_BOARD's `changes` of the `n` kinds' counts a move may make (default: one piece of
/// any kind added), all adding pieces or all taking some, so that the tiers never lead back.
fn declare_changes(map: &Map, n: usize, bad: &dyn Fn(&str) -> GameError) -> GameResult<Vec<Vec<i64>>> {
    let changes: Vec<Vec<i64>> = match map.get("changes") {
        None => (0..n).map(|k| (0..n).map(|j| i64::from(j == k)).collect()).collect(),
        Some(v) => {
            let list = v.read_lock::<rhai::Array>().ok_or_else(|| bad("`changes` must be an array of arrays"))?;
            if list.is_empty() || list.len() > MAX_CHANGES {
                return Err(bad(&format!("`changes` must list from 1 to {MAX_CHANGES} changes")));
            }
            let mut out = Vec::new();
            for c in list.iter() {
                let row: Option<Vec<i64>> = c
                    .read_lock::<rhai::Array>()
                    .and_then(|a| a.iter().map(|x| x.as_int().ok().filter(|x| (-64..=64).contains(x))).collect());
                match row {
                    Some(r) if r.len() == n && r.iter().any(|&x| x != 0) => out.push(r),
                    _ => {
                        return Err(bad(&format!(
                            "each of `changes` is {n} whole numbers from -64 to 64 (one a kind, not all 0), not {c}"
                        )));
                    }
                }
            }
            out
        }
    };
    // The tiers must never lead back: every change adds pieces, or every change takes some.
    let sums: Vec<i64> = changes.iter().map(|c| c.iter().sum()).collect();
    if !(sums.iter().all(|&s| s > 0) || sums.iter().all(|&s| s < 0)) {
        return Err(bad(
            "every one of `changes` must add pieces in all (its numbers' sum above 0), or every one take pieces away \
             (below 0), so that no move leads back to a tier it came from",
        ));
    }
    Ok(changes)
}

/// TIER_BOARD's `text`: `true`, or a map of `empty` (one character, default ".") and `turns`
/// (the characters of turn 0 and turn 1; default the first two kinds' names).
fn declare_text(v: &Dynamic, kinds: &[String], turn: bool) -> Result<Text, String> {
    let one = |s: &str, what: &str| -> Result<u8, String> {
        match s.as_bytes() {
            [c] if c.is_ascii_graphic() => Ok(*c),
            _ => Err(format!("with `text`, {what} is one printable ASCII character, not {s:?}")),
        }
    };
    let mut marks = Vec::with_capacity(kinds.len());
    for k in kinds {
        marks.push(one(k, "each kind's name")?);
    }
    let (mut empty, mut turns) = (b'.', None);
    if v.as_bool() != Ok(true) {
        let m =
            v.read_lock::<Map>().ok_or("`text` is true or a map such as #{ empty: \".\", turns: [\"x\", \"o\"] }")?;
        for (k, x) in m.iter() {
            match k.as_str() {
                "empty" => empty = one(&x.to_string(), "`empty`")?,
                "turns" => {
                    let a = x.read_lock::<rhai::Array>().ok_or("`turns` is an array of two characters")?;
                    let t: Vec<u8> =
                        a.iter().map(|c| one(&c.to_string(), "each of `turns`")).collect::<Result<_, _>>()?;
                    if t.len() != 2 || t[0] == t[1] {
                        return Err("`turns` is two different characters, the first player's and the second's".into());
                    }
                    turns = Some([t[0], t[1]]);
                }
                _ => return Err(format!("`text` has `{k}`, which is not `empty` or `turns`")),
            }
        }
    }
    if marks.contains(&empty) {
        return Err(format!("with `text`, the empty cell's character {:?} is also a kind's name", empty as char));
    }
    let turns = match (turn, turns) {
        (false, Some(_)) => return Err("`text` gives `turns` but the board does not declare `turn: true`".into()),
        (false, None) => [0, 0],
        (true, Some(t)) => t,
        (true, None) if marks.len() >= 2 => [marks[0], marks[1]],
        (true, None) => return Err("with `turn: true` and one kind, `text` must give `turns`".into()),
    };
    Ok(Text { empty, marks, turns, symmetries: Vec::new() })
}

/// TIER_BOARD's `symmetries`: permutations of the cells.
fn declare_symmetries(v: &Dynamic, cells: u32) -> Result<Vec<Vec<u8>>, String> {
    let list = v.read_lock::<rhai::Array>().ok_or("`symmetries` is an array of permutations of the cells")?;
    if list.len() > 256 {
        return Err("`symmetries` lists at most 256 permutations".into());
    }
    let mut out = Vec::with_capacity(list.len());
    for p in list.iter() {
        let perm: Option<Vec<u8>> = p.read_lock::<rhai::Array>().and_then(|a| {
            a.iter().map(|c| c.as_int().ok().filter(|c| (0..cells as i64).contains(c)).map(|c| c as u8)).collect()
        });
        let ok = perm.as_ref().is_some_and(|q| {
            q.len() == cells as usize && q.iter().fold(0u64, |m, &c| m | 1 << c).count_ones() == cells
        });
        match perm {
            Some(q) if ok => out.push(q),
            _ => {
                return Err(format!(
                    "each of `symmetries` is the {cells} cells 0..{cells} in some order (image[i] = cell s[i]), \
                     not {p}"
                ));
            }
        }
    }
    // The least image is one position's canonical form only when the symmetries are a group
    // (the identity understood): each one after another is one of them.
    let identity: Vec<u8> = (0..cells as u8).collect();
    let listed: std::collections::HashSet<&[u8]> =
        out.iter().map(Vec::as_slice).chain(std::iter::once(identity.as_slice())).collect();
    for (i, a) in out.iter().enumerate() {
        for (j, b) in out.iter().enumerate() {
            let both: Vec<u8> = b.iter().map(|&c| a[c as usize]).collect();
            if !listed.contains(both.as_slice()) {
                return Err(format!(
                    "`symmetries` must list every symmetry of the board (each one after another is one of them): \
                     symmetries[{i}] then symmetries[{j}] gives {both:?}, which is not listed"
                ));
            }
        }
    }
    Ok(out)
}

impl BoardLayout {
    /// The tier of these counts: 7 bits a count, the first kind lowest.
    fn tier(counts: &[u32]) -> Tier {
        counts.iter().enumerate().fold(0, |t, (k, &c)| t | (c as u64) << (7 * k))
    }

    fn counts(&self, tier: Tier) -> Vec<u32> {
        (0..self.kinds.len()).map(|k| ((tier >> (7 * k)) & 0x7f) as u32).collect()
    }

    /// Whether `tier` names counts that fit the board.
    fn fits(&self, tier: Tier) -> bool {
        tier >> (7 * self.kinds.len()) == 0 && self.counts(tier).iter().sum::<u32>() <= self.cells
    }

    fn size(&self, tier: Tier) -> u64 {
        if !self.fits(tier) {
            return 0;
        }
        let turns = if self.turn { 2 } else { 1 };
        self.ranker.count(&self.counts(tier)).map_or(u64::MAX, |c| c.saturating_mul(turns))
    }

    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        let counts = self.counts(tier);
        let mut out = Vec::new();
        for c in &self.changes {
            let next: Option<Vec<u32>> =
                counts.iter().zip(c).map(|(&n, &d)| u32::try_from(n as i64 + d).ok()).collect();
            if let Some(next) = next
                && next.iter().sum::<u32>() <= self.cells
            {
                let t = Self::tier(&next);
                if t != tier && !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        out
    }

    fn name(&self, tier: Tier) -> String {
        let counts = self.counts(tier);
        self.kinds.iter().zip(&counts).map(|(k, c)| format!("{k}{c}")).collect::<Vec<_>>().join(" ")
    }

    /// The boards (one a kind) and the turn of `index` of `tier`.
    fn unrank(&self, tier: Tier, index: u64) -> (Vec<u64>, u64) {
        let counts = self.counts(tier);
        let (rank, turn) = if self.turn { (index / 2, index % 2) } else { (index, 0) };
        let mut boards = vec![0u64; counts.len()];
        self.ranker.unrank(&counts, rank, &mut boards);
        (boards, turn)
    }

    /// The tier and index of these boards and turn.
    fn locate_boards(&self, boards: &[u64], turn: u64) -> (Tier, u64) {
        let counts: Vec<u32> = boards.iter().map(|x| x.count_ones()).collect();
        let rank = self.ranker.rank(boards);
        (Self::tier(&counts), if self.turn { rank * 2 + turn } else { rank })
    }

    /// The text of these boards and turn (see [`Text`]), into `out`.
    fn write_text(&self, t: &Text, boards: &[u64], turn: u64, out: &mut Vec<u8>) {
        out.clear();
        out.resize(self.cells as usize, t.empty);
        for (k, &b) in boards.iter().enumerate() {
            let mut b = b;
            while b != 0 {
                out[b.trailing_zeros() as usize] = t.marks[k];
                b &= b - 1;
            }
        }
        if self.turn {
            out.push(t.turns[turn as usize]);
        }
    }

    /// The boards and the turn a text says, or why it is not the board's text.
    fn read_text(&self, t: &Text, text: &[u8]) -> Result<(Vec<u64>, u64), String> {
        let cells = self.cells as usize;
        let n = cells + usize::from(self.turn);
        if text.len() != n {
            return Err(format!(
                "it has {} characters, where TIER_BOARD's text has {n} (one a cell{})",
                text.len(),
                if self.turn { ", then the turn" } else { "" }
            ));
        }
        let mut boards = vec![0u64; t.marks.len()];
        for (i, &c) in text[..cells].iter().enumerate() {
            if c == t.empty {
                continue;
            }
            match t.marks.iter().position(|&m| m == c) {
                Some(k) => boards[k] |= 1 << i,
                None => return Err(format!("cell {i} holds {:?}, which is no kind's name and not empty", c as char)),
            }
        }
        let turn = if self.turn {
            match t.turns.iter().position(|&m| m == text[cells]) {
                Some(k) => k as u64,
                None => return Err(format!("{:?} is not one of the turns", text[cells] as char)),
            }
        } else {
            0
        };
        Ok((boards, turn))
    }

    /// The least of the text and its images under the symmetries, compared character by
    /// character (as `least_image`), in place; the turn's character stays. `orig` is room.
    fn least_text(t: &Text, text: &mut [u8], orig: &mut Vec<u8>) {
        if t.symmetries.is_empty() {
            return;
        }
        orig.clear();
        orig.extend_from_slice(text);
        for s in &t.symmetries {
            let mut i = 0;
            while i < s.len() && orig[s[i] as usize] == text[i] {
                i += 1;
            }
            if i < s.len() && orig[s[i] as usize] < text[i] {
                for (j, &c) in s.iter().enumerate().skip(i) {
                    text[j] = orig[c as usize];
                }
            }
        }
    }

    /// The pieces of `index` of `tier`, as `pieces` gives them (a map of cell lists, and `turn`).
    fn pieces_at(&self, tier: Tier, index: u64) -> Map {
        let counts = self.counts(tier);
        let (rank, turn) = if self.turn { (index / 2, index % 2) } else { (index, 0) };
        let mut boards = vec![0u64; counts.len()];
        self.ranker.unrank(&counts, rank, &mut boards);
        let mut map = Map::new();
        for (k, b) in self.kinds.iter().zip(&boards) {
            let cells: rhai::Array = (0..64).filter(|c| b >> c & 1 == 1).map(|c| Dynamic::from_int(c as i64)).collect();
            map.insert(k.as_str().into(), cells.into());
        }
        if self.turn {
            map.insert("turn".into(), Dynamic::from_int(turn as i64));
        }
        map
    }
}

thread_local! {
    /// Room for a board's text and a copy of it (boards declared as `text`).
    static TEXT: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// A position that is not the declared board's text.
fn not_text(file: &str, pos: &str, why: &str) -> GameError {
    GameError::Definition(format!(
        "{file}: the position {pos} is not TIER_BOARD's text (a string of one character a cell: a kind's name or \
         the empty cell's, then the turn's when declared): {why}"
    ))
}

/// Gives each adapter its key in the threads' tables.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// One thread's copy of a script game, for one adapter.
struct Worker {
    game: ScriptGame,
    /// The last position decoded, by (tier, index): the solver asks `canonical_index`,
    /// `primitive_at` and `children_at` of the same index one after another.
    last: RefCell<Option<(Tier, u64, Key)>>,
}

/// Each thread's copies: (adapter's key, whether the adapter lives, the copy).
type Table = Vec<(u64, Weak<()>, Rc<Worker>)>;

thread_local! {
    static WORKERS: RefCell<Table> = const { RefCell::new(Vec::new()) };
}

/// A script's positions by index, for every thread (see the module's note).
pub struct ScriptTiers {
    id: u64,
    alive: Arc<()>,
    file: String,
    /// The loader's recipe for each thread's copy of the game.
    maker: Maker,
    layout: Layout,
    failed: AtomicBool,
    failure: Mutex<Option<GameError>>,
    /// The script's answers of `child_tiers` and `tier_size` (its own hooks), by tier (with
    /// the number of child tiers remembered in all).
    children_memo: Mutex<(HashMap<Tier, Vec<Tier>>, usize)>,
    size_memo: Mutex<HashMap<Tier, u64>>,
    /// Positions whose children were asked for (see [`ScriptTiers::sampled`]).
    asked: AtomicU64,
}

/// Every one of the first positions a solve expands is checked against its images under the
/// declared symmetries (or its canonical form), then one in [`IMAGES_CHECKED_EVERY`].
const IMAGES_CHECKED_FIRST: u64 = 4096;
const IMAGES_CHECKED_EVERY: u64 = 256;

impl ScriptTiers {
    pub(super) fn new(file: &str, maker: Maker, layout: Layout) -> ScriptTiers {
        ScriptTiers {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            alive: Arc::new(()),
            file: file.to_string(),
            maker,
            layout,
            failed: AtomicBool::new(false),
            failure: Mutex::new(None),
            children_memo: Mutex::new((HashMap::new(), 0)),
            size_memo: Mutex::new(HashMap::new()),
            asked: AtomicU64::new(0),
        }
    }

    /// Keep the first error for [`TierSpace::failure`].
    fn fail(&self, e: GameError) {
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(e);
        }
        self.failed.store(true, Ordering::Relaxed);
    }

    /// `f` answered, or `harmless` (the error kept) when it fails or an error is pending.
    fn answer<R>(&self, harmless: R, f: impl FnOnce() -> GameResult<R>) -> R {
        if self.failed.load(Ordering::Relaxed) {
            return harmless;
        }
        f().unwrap_or_else(|e| {
            self.fail(e);
            harmless
        })
    }

    /// This thread's copy of the game, compiled on first use.
    fn worker(&self) -> GameResult<Rc<Worker>> {
        let found = WORKERS.with(|w| w.borrow().iter().find(|e| e.0 == self.id).map(|e| e.2.clone()));
        if let Some(w) = found {
            return Ok(w);
        }
        let game: ScriptGame = (self.maker)()?;
        let worker = Rc::new(Worker { game, last: RefCell::new(None) });
        WORKERS.with(|w| {
            let mut w = w.borrow_mut();
            // The copies of adapters dropped since are dropped here.
            w.retain(|e| e.1.strong_count() > 0);
            w.push((self.id, Arc::downgrade(&self.alive), worker.clone()));
        });
        Ok(worker)
    }

    fn at(&self, hook: &str) -> String {
        format!("{}: {hook}", self.file)
    }

    /// A whole number a hook returned, in `0..=max`.
    fn number(&self, hook: &str, d: &Dynamic, what: &str, max: u64) -> GameResult<u64> {
        d.as_int().ok().and_then(|i| u64::try_from(i).ok()).filter(|&i| i <= max).ok_or_else(|| {
            GameError::Definition(format!(
                "{} returned {d} ({}), where {what} is a whole number from 0",
                self.at(hook),
                d.type_name()
            ))
        })
    }

    /// The pieces of `pos` on a declared board: one bitboard a kind, and the turn.
    fn read_pieces(&self, w: &Worker, b: &BoardLayout, pos: &Key) -> GameResult<(Vec<u64>, u64)> {
        let d = w.game.call("pieces", || (pos.to_dynamic(),))?;
        let show = || w.game.format(pos).unwrap_or_else(|_| format!("{pos:?}"));
        let bad = |why: String| GameError::Definition(format!("{}(pos) at {}: {why}", self.at("pieces"), show()));
        let t = d.type_name();
        let Some(map) = d.try_cast::<Map>() else {
            return Err(bad(format!("returned `{t}`, not a map of cell lists such as #{{ x: [0, 4], o: [8] }}")));
        };
        for k in map.keys() {
            if !(b.kinds.iter().any(|n| n == k.as_str()) || (b.turn && k == "turn")) {
                return Err(bad(format!("`{k}` is not a kind of TIER_BOARD ({})", b.kinds.join(", "))));
            }
        }
        let mut boards = Vec::with_capacity(b.kinds.len());
        let mut all = 0u64;
        for k in &b.kinds {
            let list = match map.get(k.as_str()) {
                None => return Err(bad(format!("no `{k}` (a list of the cells it holds, [] for none)"))),
                Some(v) => v
                    .read_lock::<rhai::Array>()
                    .map(|a| a.clone())
                    .ok_or_else(|| bad(format!("`{k}` is not an array of cells")))?,
            };
            let mut board = 0u64;
            for c in &list {
                let cell = c.as_int().ok().filter(|&c| (0..b.cells as i64).contains(&c)).ok_or_else(|| {
                    bad(format!("`{k}` holds {c}, which is no cell of the board (cells 0 to {})", b.cells - 1))
                })?;
                if all >> cell & 1 == 1 {
                    return Err(bad(format!("cell {cell} is given twice")));
                }
                all |= 1 << cell;
                board |= 1 << cell;
            }
            boards.push(board);
        }
        let turn = if b.turn {
            match map.get("turn").map(|v| v.as_int()) {
                Some(Ok(t @ 0..=1)) => t as u64,
                _ => return Err(bad("TIER_BOARD has `turn: true`, so `turn` must be 0 or 1".into())),
            }
        } else {
            0
        };
        Ok((boards, turn))
    }

    /// The tier and index of `pos`, by the script's numbering (checked).
    fn locate_in(&self, w: &Worker, pos: &Key) -> GameResult<(Tier, u64)> {
        match &self.layout {
            Layout::Board(b) => {
                let (boards, turn) = match &b.text {
                    Some(t) => TEXT.with_borrow_mut(|(text, _)| {
                        self.key_text(w, pos, text)?;
                        b.read_text(t, text).map_err(|why| self.not_text(w, pos, &why))
                    })?,
                    None => self.read_pieces(w, b, pos)?,
                };
                Ok(b.locate_boards(&boards, turn))
            }
            Layout::Hooks { .. } => {
                let d = w.game.call("tier", || (pos.to_dynamic(),))?;
                let tier = self.number("tier", &d, "a tier", i64::MAX as u64)?;
                let size = self.size_of(w, tier)?;
                let d = w.game.call("index", || (pos.to_dynamic(),))?;
                let index = self.number("index", &d, "an index", i64::MAX as u64)?;
                if index >= size {
                    return Err(GameError::Definition(format!(
                        "{}(pos) gave {index} at {}, of tier {}, whose tier_size is {size}: an index is below the \
                         tier's size",
                        self.at("index"),
                        w.game.format(pos).unwrap_or_default(),
                        self.name_of(w, tier)
                    )));
                }
                Ok((tier, index))
            }
        }
    }

    /// The position at `index` of `tier`, checked by the round trip (its tier and index are
    /// `tier` and `index`): one more call of `pieces` (or `tier` and `index`) a position, where
    /// its children take one a child.
    fn position_in(&self, w: &Worker, tier: Tier, index: u64) -> GameResult<Key> {
        if let Some((t, i, k)) = &*w.last.borrow()
            && (*t, *i) == (tier, index)
        {
            return Ok(k.clone());
        }
        let size = self.size_of(w, tier)?;
        if index >= size {
            return Err(GameError::Unsupported(format!(
                "index {index} is past tier {} ({size} positions)",
                self.name_of(w, tier)
            )));
        }
        if let Layout::Board(b @ BoardLayout { text: Some(t), .. }) = &self.layout {
            // Read and written natively: nothing to check.
            let (boards, turn) = b.unrank(tier, index);
            let pos = TEXT.with_borrow_mut(|(text, _)| {
                b.write_text(t, &boards, turn, text);
                Key::from_ascii(text)
            });
            *w.last.borrow_mut() = Some((tier, index, pos.clone()));
            return Ok(pos);
        }
        let (pos, hook) = match &self.layout {
            Layout::Board(b) => {
                let d = w.game.call("from_pieces", || (Dynamic::from_map(b.pieces_at(tier, index)),))?;
                (w.game.key("from_pieces", &d)?, "from_pieces")
            }
            Layout::Hooks { .. } => {
                let d = w.game.call("position", || (tier as i64, index as i64))?;
                (w.game.key("position", &d)?, "position")
            }
        };
        {
            let back = self.locate_in(w, &pos)?;
            if back != (tier, index) {
                let how = match &self.layout {
                    Layout::Board(b) => format!(
                        "the pieces {} give a position whose pieces are {} (pieces and from_pieces must undo each \
                         other)",
                        Dynamic::from_map(b.pieces_at(tier, index)),
                        Dynamic::from_map(b.pieces_at(back.0, back.1.min(b.size(back.0).saturating_sub(1)))),
                    ),
                    Layout::Hooks { .. } => format!(
                        "position({tier}, {index}) gives a position whose tier and index are {} and {} (tier, index \
                         and position must undo each other)",
                        back.0, back.1
                    ),
                };
                return Err(GameError::Definition(format!(
                    "{}: {how}: {}",
                    self.at(hook),
                    w.game.format(&pos).unwrap_or_default()
                )));
            }
        }
        *w.last.borrow_mut() = Some((tier, index, pos.clone()));
        Ok(pos)
    }

    fn size_of(&self, w: &Worker, tier: Tier) -> GameResult<u64> {
        match &self.layout {
            Layout::Board(b) => Ok(b.size(tier)),
            Layout::Hooks { .. } => {
                if let Some(&s) = self.size_memo.lock().unwrap_or_else(|p| p.into_inner()).get(&tier) {
                    return Ok(s);
                }
                let d = w.game.call("tier_size", || (tier as i64,))?;
                let s = self.number("tier_size", &d, "a tier's size", i64::MAX as u64)?;
                self.size_memo.lock().unwrap_or_else(|p| p.into_inner()).insert(tier, s);
                Ok(s)
            }
        }
    }

    fn children_of(&self, w: &Worker, tier: Tier) -> GameResult<Vec<Tier>> {
        match &self.layout {
            Layout::Board(b) => Ok(b.child_tiers(tier)),
            Layout::Hooks { .. } => {
                if let Some(c) = self.children_memo.lock().unwrap_or_else(|p| p.into_inner()).0.get(&tier) {
                    return Ok(c.clone());
                }
                let d = w.game.call("child_tiers", || (tier as i64,))?;
                let t = d.type_name();
                let list = d.try_cast::<rhai::Array>().ok_or_else(|| {
                    GameError::Definition(format!(
                        "{}({tier}) must return an array of tiers, not `{t}`",
                        self.at("child_tiers")
                    ))
                })?;
                if list.len() > MAX_CHILD_TIERS {
                    return Err(GameError::Definition(format!(
                        "{}({tier}) gives {} tiers, more than {MAX_CHILD_TIERS}",
                        self.at("child_tiers"),
                        list.len()
                    )));
                }
                let mut out = Vec::with_capacity(list.len());
                for c in &list {
                    let c = self.number("child_tiers", c, "a tier", i64::MAX as u64)?;
                    if c != tier && !out.contains(&c) {
                        out.push(c);
                    }
                }
                let mut memo = self.children_memo.lock().unwrap_or_else(|p| p.into_inner());
                if memo.0.len() >= MAX_TIERS || memo.1 + out.len() > MAX_TIER_EDGES {
                    return Err(GameError::Definition(format!(
                        "{}: the tiers reachable number more than {MAX_TIERS}, or their child tiers more than \
                         {MAX_TIER_EDGES} in all, more than the tier solver walks",
                        self.at("child_tiers")
                    )));
                }
                memo.1 += out.len();
                memo.0.insert(tier, out.clone());
                Ok(out)
            }
        }
    }

    fn name_of(&self, w: &Worker, tier: Tier) -> String {
        match &self.layout {
            Layout::Board(b) => b.name(tier),
            Layout::Hooks { tier_name: true } => {
                w.game.call("tier_name", || (tier as i64,)).map(|d| d.to_string()).unwrap_or_else(|_| tier.to_string())
            }
            Layout::Hooks { tier_name: false } => tier.to_string(),
        }
    }

    /// The representative of `pos` (the script's `canonical`, or the least image under the
    /// board's `symmetries`), located; it must stay in `tier`.
    fn canonical_in(&self, w: &Worker, pos: &Key) -> GameResult<(Tier, u64)> {
        if let Layout::Board(b @ BoardLayout { text: Some(t), script_canonical: false, .. }) = &self.layout {
            return TEXT.with_borrow_mut(|(text, room)| {
                self.key_text(w, pos, text)?;
                BoardLayout::least_text(t, text, room);
                let (boards, turn) = b.read_text(t, text).map_err(|why| self.not_text(w, pos, &why))?;
                Ok(b.locate_boards(&boards, turn))
            });
        }
        let c = w.game.canonical(pos)?;
        self.locate_in(w, &c)
    }

    /// The text of `pos` on a board declared as `text`, into `out`.
    fn key_text(&self, w: &Worker, pos: &Key, out: &mut Vec<u8>) -> GameResult<()> {
        if pos.string_into(out) {
            return Ok(());
        }
        Err(self.not_text(w, pos, "it is not a string"))
    }

    fn not_text(&self, w: &Worker, pos: &Key, why: &str) -> GameError {
        not_text(&self.file, &w.game.format(pos).unwrap_or_else(|_| format!("{pos:?}")), why)
    }

    /// The canonical form of `pos` when the board declares `symmetries` (the least image of
    /// its text), natively; `None` otherwise (the script's `canonical`, if any, gives it).
    fn native_canonical_of(&self, pos: &Key) -> Option<GameResult<Key>> {
        let Layout::Board(b @ BoardLayout { text: Some(t), .. }) = &self.layout else { return None };
        if t.symmetries.is_empty() {
            return None;
        }
        Some(TEXT.with_borrow_mut(|(text, room)| {
            if !pos.string_into(text) {
                return Err(not_text(&self.file, &format!("{pos:?}"), "it is not a string"));
            }
            if let Err(why) = b.read_text(t, text) {
                return Err(not_text(&self.file, &format!("{pos:?}"), &why));
            }
            BoardLayout::least_text(t, text, room);
            Ok(Key::from_ascii(text))
        }))
    }

    /// Whether the position at `index` of `tier` is checked against its images: every one of
    /// the first [`IMAGES_CHECKED_FIRST`] asked, then one in [`IMAGES_CHECKED_EVERY`], drawn by
    /// a hash of its place (so that every large tier has some).
    fn sampled(&self, tier: Tier, index: u64) -> bool {
        self.asked.fetch_add(1, Ordering::Relaxed) < IMAGES_CHECKED_FIRST
            || ((tier ^ index.rotate_left(23)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40)
                .is_multiple_of(IMAGES_CHECKED_EVERY)
    }

    /// A position and its images under the board's `symmetries` (or its form by the script's
    /// `canonical`) must agree on whether the game is over there and its value, and on the
    /// number of moves: a declared symmetry that the rules do not have is reported naming the
    /// hook, before it gives a wrong value.
    fn check_images(&self, w: &Worker, pos: &Key) -> GameResult<()> {
        let images: Vec<(String, Key)> = match &self.layout {
            Layout::Board(BoardLayout { text: Some(t), script_canonical: false, .. }) => {
                if t.symmetries.is_empty() {
                    return Ok(());
                }
                let mut text = Vec::new();
                self.key_text(w, pos, &mut text)?;
                let mut out = Vec::with_capacity(t.symmetries.len());
                for (k, sym) in t.symmetries.iter().enumerate() {
                    let mut image = text.clone();
                    for (j, &c) in sym.iter().enumerate() {
                        image[j] = text[c as usize];
                    }
                    out.push((format!("{}: TIER_BOARD's symmetries[{k}]", self.file), Key::from_ascii(&image)));
                }
                out
            }
            _ if w.game.hooks.canonical => vec![(w.game.at_fn("canonical"), w.game.canonical(pos)?)],
            _ => return Ok(()),
        };
        let what = |p: &Key| -> GameResult<String> {
            Ok(match w.game.primitive(p)? {
                Some(v) => format!("over: {}", v.as_str()),
                None => format!("{} moves", w.game.move_count(p)?),
            })
        };
        let here = what(pos)?;
        for (hook, image) in images {
            let there = what(&image)?;
            if there != here {
                return Err(GameError::Definition(format!(
                    "{hook} is not a symmetry of the game's rules: it maps {} ({here}) to {} ({there}); a symmetry \
                     must keep whether the game is over, its value and the number of moves",
                    w.game.format(pos).unwrap_or_default(),
                    w.game.format(&image).unwrap_or_default(),
                )));
            }
        }
        Ok(())
    }

    fn with<R>(&self, harmless: R, f: impl FnOnce(&Worker) -> GameResult<R>) -> R {
        self.answer(harmless, || {
            let w = self.worker()?;
            f(&w)
        })
    }
}

impl TierSpace for ScriptTiers {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        if let Layout::Board(b) = &self.layout {
            return b.child_tiers(tier);
        }
        self.with(Vec::new(), |w| self.children_of(w, tier))
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        if let Layout::Board(b) = &self.layout {
            return b.size(tier);
        }
        self.with(0, |w| self.size_of(w, tier))
    }

    fn tier_name(&self, tier: Tier) -> String {
        if let Layout::Board(b) = &self.layout {
            return b.name(tier);
        }
        match self.worker() {
            Ok(w) => self.name_of(&w, tier),
            Err(_) => tier.to_string(),
        }
    }

    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        if let Layout::Board(b @ BoardLayout { text: Some(t), script_canonical: false, .. }) = &self.layout {
            if t.symmetries.is_empty() {
                return index;
            }
            // All native: the position's text, its least image, that image's index.
            let (boards, turn) = b.unrank(tier, index);
            return TEXT.with_borrow_mut(|(text, room)| {
                b.write_text(t, &boards, turn, text);
                BoardLayout::least_text(t, text, room);
                match b.read_text(t, text) {
                    Ok((boards, turn)) => b.locate_boards(&boards, turn).1,
                    Err(_) => index,
                }
            });
        }
        self.with(index, |w| {
            if !w.game.hooks.canonical {
                return Ok(index);
            }
            let pos = self.position_in(w, tier, index)?;
            let (t, j) = self.canonical_in(w, &pos)?;
            if t != tier {
                return Err(GameError::Definition(format!(
                    "{}: canonical moves {} from tier {} to tier {}: a symmetry must keep a position's tier",
                    w.game.at_fn("canonical"),
                    w.game.format(&pos).unwrap_or_default(),
                    self.name_of(w, tier),
                    self.name_of(w, t)
                )));
            }
            Ok(j)
        })
    }

    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        self.with(Some(Value::Lose), |w| {
            let pos = self.position_in(w, tier, index)?;
            w.game.primitive(&pos)
        })
    }

    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let got = self.with(Vec::new(), |w| {
            let pos = self.position_in(w, tier, index)?;
            if self.sampled(tier, index) {
                self.check_images(w, &pos)?;
            }
            let kids = w.game.children(&pos)?;
            let declared = self.children_of(w, tier)?;
            let mut found = Vec::with_capacity(kids.len());
            for k in &kids {
                let (t, j) = self.canonical_in(w, k)?;
                if t != tier && !declared.contains(&t) {
                    let how = match &self.layout {
                        Layout::Board(_) => "which is not the tier plus one of TIER_BOARD's `changes`",
                        Layout::Hooks { .. } => "which child_tiers does not list for it",
                    };
                    return Err(GameError::Definition(format!(
                        "{}: a move from {} (tier {}) leads to {} in tier {}, {how}",
                        self.file,
                        w.game.format(&pos).unwrap_or_default(),
                        self.name_of(w, tier),
                        w.game.format(k).unwrap_or_default(),
                        self.name_of(w, t)
                    )));
                }
                found.push((t, j));
            }
            Ok(found)
        });
        out.extend(got);
    }

    fn failure(&self) -> Option<GameError> {
        let e = self.failure.lock().unwrap_or_else(|p| p.into_inner()).take();
        self.failed.store(false, Ordering::Relaxed);
        e
    }
}

impl Tiers for ScriptTiers {
    type Pos = Key;

    fn locate(&self, pos: &Key) -> (Tier, u64) {
        self.with((0, 0), |w| self.locate_in(w, pos))
    }

    fn position(&self, tier: Tier, index: u64) -> Key {
        self.with(Key::unit(), |w| self.position_in(w, tier, index))
    }

    fn try_locate(&self, pos: &Key) -> GameResult<(Tier, u64)> {
        let w = self.worker()?;
        self.locate_in(&w, pos)
    }

    fn try_position(&self, tier: Tier, index: u64) -> GameResult<Key> {
        let w = self.worker()?;
        self.position_in(&w, tier, index)
    }
}

impl TierSpaceOf for ScriptTiers {
    fn as_tiers(&self) -> &dyn Tiers<Pos = Key> {
        self
    }

    /// The least image of the position's text when the board declares `symmetries`.
    fn native_canonical(&self, pos: &Key) -> Option<GameResult<Key>> {
        self.native_canonical_of(pos)
    }
}
