//! The GAMESMAN Universal Web API (the JSON API GamesmanUni, the GamesCrafters' web front end,
//! reads; documented in the README of GamesCrafters/GamesCraftersUWAPI), over the same
//! [`Served`] games as the rest of the server:
//! - `/uwapi/`: the games, `[{id, name, type, gui}]`;
//! - `/uwapi/GAME/`: its variants;
//! - `/uwapi/GAME/VARIANT/`: the variant's start and its board's drawing data (AutoGUI);
//! - `/uwapi/GAME/VARIANT/positions/?p=POSITION`: value, remoteness and every move, sorted
//!   best first, each with its `moveValue` and `deltaRemoteness` as UWAPI's `server.py` works
//!   them out, from the game's saved database where there is one (`source` says which);
//! - `/uwapi/GAME/VARIANT/instructions/`: the game's own description, as markdown.
//!
//! A position is written `T_BOARD~TEXT`: `T` the player to move (1 or 2; a game that does
//! not say whose turn it is alternates, and the turn travels in the string), `BOARD` one
//! character a cell of the game's grid (empty where it has none) and `TEXT` the position as
//! the game writes it, every byte outside `[A-Za-z0-9.-]` written `_XX` (hex). GamesmanUni
//! pastes the position into `?p=` unescaped, so nothing in it may mean anything in a URL.
//!
//! The board is derived from what the game already draws ([`Session::grid`]): a move that
//! slides a piece into an empty cell is an arrow (an 8-puzzle tile into the blank), a move
//! named `r:c-off` an arrow off the board, a move that a cell's click makes a point on that
//! cell (the cell where the child differs, for a column of Connect-Four), a move named
//! `r:c-r:c` a line (a domino placed, a row taken) or an arrow (a piece moved), a move that
//! changes one cell a point there; any other move is listed as a button. The only per-game
//! data are the sizes and starts offered as variants, two board shapes and the edges pieces
//! leave the board by ([`variants_of`], [`layout`], [`exits`]).
//!
//! An impartial game has a `misere` variant too: the same start, played misère (whoever
//! makes the last move loses), its values from the misère game ([`offers_misere`]).

use super::served::{MAX_REPLY, Reply, Served, error, game_error};
use crate::catalog::Session;
use crate::game::{Board, GameError, Kind};
use serde_json::{Value as Json, json};
use std::collections::HashSet;

/// Ids GamesmanUni draws with its own components (not from AutoGUI data): a game served under
/// one of them is listed with [`RENAMED`] after it.
const RESERVED: [&str; 3] = ["tictactoe", "quarto", "sim"];
const RENAMED: &str = "-gamesman";

/// The id a served game has in this API.
pub fn public_id(id: &str) -> String {
    if RESERVED.contains(&id) { format!("{id}{RENAMED}") } else { id.to_string() }
}

/// The served game an id of this API names.
pub fn served_id(public: &str) -> String {
    match public.strip_suffix(RENAMED) {
        Some(base) if RESERVED.contains(&base) => base.to_string(),
        _ => public.to_string(),
    }
}

/// The id of the misère variant.
pub const MISERE: &str = "misere";

/// Does the game offer a misère variant? Every impartial game but Notakto, whose rule is
/// already the misère form of a game (three X in a row loses): played misère it would be
/// "three X in a row wins", which the first player wins at the fifth move.
pub fn offers_misere(session: &dyn Session) -> bool {
    session.kind() == Kind::Impartial && session.info().name != "notakto"
}

/// The edge a piece leaves the board by, by game and piece (its cell's text): a move
/// `r:c-off` is drawn as an arrow to a point beyond that edge.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Edge {
    North,
    East,
}

fn exits(name: &str) -> &'static [(&'static str, Edge)] {
    match name {
        // Dodgem: X's cars leave east, O's north.
        "dodgem" => &[("x", Edge::East), ("o", Edge::North)],
        _ => &[],
    }
}

/// What a request of this API asks of one game.
#[derive(Clone, Debug)]
pub enum Route {
    Game,
    Variant(String),
    /// A position; `false`: answer without searching (every value `unsolved`), for a
    /// request whose search ran past the server's limit.
    Position(String, Option<String>, bool),
    Instructions(String),
}

/// Sizes and starts offered as variants, by game name: (id, name, position text).
fn variants_of(name: &str) -> &'static [(&'static str, &'static str, &'static str)] {
    match name {
        "connect4" => &[
            ("4x4", "4 × 4", "4x4k4"),
            ("4x5", "4 rows × 5 columns", "4x5k4"),
            ("5x4", "5 rows × 4 columns", "5x4k4"),
            ("5x5", "5 × 5", "5x5k4"),
        ],
        "quixo" => &[("3x3", "3 × 3", ".../.../... X"), ("4x4", "4 × 4", "..../..../..../.... X")],
        "cram" => &[
            ("3x3", "3 × 3", "###/###/###"),
            ("3x4", "3 × 4", "####/####/####"),
            ("4x4", "4 × 4", "####/####/####/####"),
            ("4x5", "4 × 5", "#####/#####/#####/#####"),
        ],
        "domineering" => &[
            ("3x3", "3 × 3", ".../.../..."),
            ("4x4", "4 × 4", "..../..../..../...."),
            ("5x5", "5 × 5", "...../...../...../...../....."),
        ],
        "hex" => &[
            ("3x3", "3 × 3", ".../.../..."),
            ("4x4", "4 × 4", "..../..../..../...."),
            ("5x5", "5 × 5", "...../...../...../...../....."),
        ],
        "8-puzzle" => &[
            ("scrambled", "Scrambled (the farthest start, 31 moves)", "867/254/3.1"),
            ("near", "Two moves from solved", "123/456/.78"),
        ],
        "lightsout" => &[
            ("3x3", "3 × 3, all on", "###/###/###"),
            ("4x4", "4 × 4, a cross", "0#00/###0/0#00/0000"),
            ("5x5", "5 × 5, all on", "#####/#####/#####/#####/#####"),
        ],
        "tactix" => &[
            ("3x3", "3 × 3", "P1\n3 3\n1 1 1\n1 1 1\n1 1 1\n"),
            ("4x4", "4 × 4", "P1\n4 4\n1 1 1 1\n1 1 1 1\n1 1 1 1\n1 1 1 1\n"),
        ],
        _ => &[],
    }
}

/// Where each cell of a `rows` × `cols` grid is drawn: (width, height, centers). A game with
/// [`exits`] has a margin of one cell beyond each edge pieces leave by, and after the cells'
/// centers one point beyond that edge for each row (east) or column (north), in order: the
/// targets of the moves off the board ([`off_target`]).
fn layout(name: &str, rows: usize, cols: usize) -> (f64, f64, Vec<[f64; 2]>) {
    let edges: Vec<Edge> = exits(name).iter().map(|e| e.1).collect();
    if !edges.is_empty() {
        let top = if edges.contains(&Edge::North) { 1.0 } else { 0.0 };
        let right = if edges.contains(&Edge::East) { 1.0 } else { 0.0 };
        let mut centers = Vec::with_capacity(rows * cols + rows + cols);
        for r in 0..rows {
            for c in 0..cols {
                centers.push([c as f64 + 0.5, r as f64 + 0.5 + top]);
            }
        }
        if right > 0.0 {
            centers.extend((0..rows).map(|r| [cols as f64 + 0.5, r as f64 + 0.5 + top]));
        }
        if top > 0.0 {
            centers.extend((0..cols).map(|c| [c as f64 + 0.5, 0.5]));
        }
        return (cols as f64 + right, rows as f64 + top, centers);
    }
    let row_step = 0.866;
    let mut centers = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            let (r, c) = (r as f64, c as f64);
            centers.push(match name {
                // Hex: each row half a cell right of the one above.
                "hex" => [c + 0.5 + r * 0.5, r * row_step + 0.5],
                // Triangular peg solitaire: row r holds r + 1 holes, centred.
                // (a cell past the end of its row is no hole: kept inside the board, never drawn).
                "peg-solitaire" => {
                    [(c + 0.5 + ((rows as f64) - 1.0 - r) * 0.5).min(cols as f64 - 0.5), r * row_step + 0.5]
                }
                _ => [c + 0.5, r + 0.5],
            });
        }
    }
    let (w, h) = match name {
        "hex" => (cols as f64 + (rows.max(1) - 1) as f64 * 0.5, (rows.max(1) - 1) as f64 * row_step + 1.0),
        "peg-solitaire" => (cols as f64, (rows.max(1) - 1) as f64 * row_step + 1.0),
        _ => (cols as f64, rows as f64),
    };
    (w, h, centers)
}

/// The images a board's characters are drawn with: GamesmanUni's own (a backend cannot ship
/// images), named as under its `src/models/images/svg/`.
pub const CHAR_IMAGES: [(char, &str); 14] = [
    ('x', "ttt/x.svg"),
    ('o', "ttt/o.svg"),
    ('h', "general/yellow_circle.svg"),
    ('p', "general/red_circle.svg"),
    ('q', "general/blue_circle.svg"),
    ('e', "general/basichitbox.svg"),
    ('1', "general/1.svg"),
    ('2', "general/2.svg"),
    ('3', "general/3.svg"),
    ('4', "general/4.svg"),
    ('5', "general/5.svg"),
    ('6', "general/6.svg"),
    ('7', "general/7.svg"),
    ('8', "general/8.svg"),
];

/// A cell's text as one board character (see [`CHAR_IMAGES`]); `-` draws nothing.
fn cell_char(text: &str) -> char {
    match text {
        "x" | "X" => 'x',
        "o" | "O" => 'o',
        "#" => 'h',
        "☠" => 'p',
        "." | "0" => 'e',
        "" => '-',
        t if t.len() == 1 && ('1'..='8').contains(&t.chars().next().unwrap_or(' ')) => t.chars().next().unwrap_or('-'),
        _ => 'q',
    }
}

fn is_empty_cell(text: &str) -> bool {
    matches!(text, "." | "0" | "")
}

/// `text` with every byte outside `[A-Za-z0-9.-]` written `_XX`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'-' {
            out.push(b as char);
        } else {
            out.push_str(&format!("_{b:02X}"));
        }
    }
    out
}

/// The text [`escape`] wrote, or `None` if `s` is not such a text.
pub fn unescape(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The position string of this API: turn, board, text.
fn encode(turn: u8, grid: Option<&Board>, text: &str) -> String {
    let board: String = grid.map(|g| g.cells.iter().map(|c| cell_char(c)).collect()).unwrap_or_default();
    format!("{turn}_{board}~{}", escape(text))
}

/// A position string of this API as (turn, the game's text); text that is not one is the
/// game's own text (turn 1).
fn decode(p: &str) -> Result<(u8, String), Reply> {
    let b = p.as_bytes();
    if b.len() >= 2
        && (b[0] == b'1' || b[0] == b'2')
        && b[1] == b'_'
        && let Some((_, text)) = p.split_once('~')
    {
        let text = unescape(text).ok_or_else(|| {
            error(400, "this position's text holds a '_' not followed by two hex digits, or is not UTF-8")
        })?;
        return Ok((b[0] - b'0', text));
    }
    Ok((1, p.to_string()))
}

/// A move's name as shown: no `:` (GamesmanUni's move history splits on it).
fn shown(name: &str) -> String {
    name.replace(": ", ", ").replace(':', ",")
}

/// UWAPI's sentinels: a remoteness not known but finite, and a draw's.
const FINITE_UNKNOWN: i64 = -100;
const INFINITY: i64 = -200;

/// A move on its way out.
struct Out {
    name: String,
    auto: String,
    position: String,
    value: &'static str,
    remoteness: i64,
    move_value: &'static str,
    delta: i64,
}

fn flip(v: &'static str) -> &'static str {
    match v {
        "win" => "lose",
        "lose" => "win",
        other => other,
    }
}

/// `moveValue` and `deltaRemoteness` of each move as UWAPI's `server.py` works them out
/// (`wrangle_move_objects_2Player` / `_1Player`), and the moves sorted best first.
fn wrangle(puzzle: bool, here_remoteness: i64, here_turn: u8, turns: &[u8], moves: &mut [Out]) {
    if puzzle {
        for m in moves.iter_mut() {
            if m.value == "unsolved" || here_remoteness < 0 {
                m.move_value = if m.value == "unsolved" { "unsolved" } else { "lose" };
                m.delta = 0;
            } else if m.remoteness < 0 {
                m.move_value = "lose";
                m.delta = 0;
            } else {
                m.delta = here_remoteness - m.remoteness;
                m.move_value = match m.delta.signum() {
                    1 => "win",
                    -1 => "lose",
                    _ => "tie",
                };
            }
        }
    } else {
        let of = |v: &str| -> (Vec<i64>, bool) {
            let rs: Vec<i64> =
                moves.iter().filter(|m| m.value == v && m.remoteness >= 0).map(|m| m.remoteness).collect();
            let unknown = moves.iter().any(|m| m.value == v && m.remoteness == FINITE_UNKNOWN);
            (rs, unknown)
        };
        let (wins, win_unknown) = of("win");
        let (loses, lose_unknown) = of("lose");
        let (ties, tie_unknown) = of("tie");
        let max_win = wins.iter().copied().max().unwrap_or(0) + i64::from(win_unknown);
        let (mut min_lose, mut max_lose) = (1, 1);
        if let (Some(&lo), Some(&hi)) = (loses.iter().min(), loses.iter().max()) {
            min_lose = lo;
            if lose_unknown {
                max_lose = hi + 1;
            }
        }
        let (mut min_tie, mut max_tie) = (1, 1);
        if let (Some(&lo), Some(&hi)) = (ties.iter().min(), ties.iter().max()) {
            min_tie = lo;
            if tie_unknown {
                max_tie = hi + 1;
            }
        }
        for (m, &t) in moves.iter_mut().zip(turns) {
            m.move_value = if t != here_turn { flip(m.value) } else { m.value };
            let known = |r: i64, instead: i64| if r == FINITE_UNKNOWN { instead } else { r };
            m.delta = match m.move_value {
                "win" => known(m.remoteness, max_lose) - min_lose,
                "lose" => max_win - known(m.remoteness, max_win),
                "tie" => known(m.remoteness, max_tie) - min_tie,
                _ => 0,
            };
        }
    }
    const ORDER: [&str; 6] = ["win", "tie", "draw", "lose", "unsolved", "undecided"];
    let rank = |v: &str| ORDER.iter().position(|o| *o == v).unwrap_or(ORDER.len());
    moves.sort_by_key(|m| (rank(m.move_value), m.delta));
}

/// The index in [`layout`]'s centers of the point beyond the edge that the piece in cell
/// `at` leaves by, if the game has one for it.
fn off_target(name: &str, grid: &Board, at: usize) -> Option<usize> {
    let (r, c) = (at / grid.cols.max(1), at % grid.cols.max(1));
    let edge = exits(name).iter().find(|(piece, _)| grid.cells[at].eq_ignore_ascii_case(piece))?.1;
    let n = grid.rows * grid.cols;
    let east = exits(name).iter().any(|e| e.1 == Edge::East);
    match edge {
        Edge::East => Some(n + r),
        Edge::North => Some(n + if east { grid.rows } else { 0 } + c),
    }
}

/// Where each move is drawn on the board (`None`: listed as a button), in the order of
/// `moves` ((name, child text, child's grid)).
fn board_moves(
    session: &dyn Session,
    pos: &str,
    grid: &Board,
    moves: &[(String, String, Option<Board>)],
) -> Vec<Option<String>> {
    let n = grid.cells.len();
    let game = &session.info().name;
    // The cells whose click makes each move.
    let mut clicked: Vec<Vec<usize>> = vec![Vec::new(); moves.len()];
    if n <= 1024 {
        for (i, click) in grid.clicks.iter().enumerate() {
            let Some(click) = click else { continue };
            if let Ok((name, child)) = session.play(pos, click)
                && let Some(k) = moves.iter().position(|(n, c, _)| *n == name || *c == child)
            {
                clicked[k].push(i);
            }
        }
    }
    let cell = |r: usize, c: usize| (r < grid.rows && c < grid.cols).then_some(r * grid.cols + c);
    let pair = |name: &str| -> Option<(usize, usize)> {
        let (a, b) = name.split_once('-')?;
        let point = |s: &str| -> Option<usize> {
            let (r, c) = s.split_once(':')?;
            cell(r.trim().parse().ok()?, c.trim().parse().ok()?)
        };
        Some((point(a)?, point(b)?))
    };
    moves
        .iter()
        .zip(&clicked)
        .map(|((name, _, child), cells)| {
            let child = child.as_ref().filter(|c| c.cells.len() == n);
            let changed: Vec<usize> = match child {
                Some(c) => (0..n).filter(|&i| grid.cells[i] != c.cells[i]).collect(),
                None => Vec::new(),
            };
            // A piece that slides into an empty cell: an arrow from it to where it goes.
            if let (Some(c), [a, b]) = (child, &changed[..]) {
                let slides = |from: usize, to: usize| {
                    !is_empty_cell(&grid.cells[from])
                        && is_empty_cell(&c.cells[from])
                        && c.cells[to] == grid.cells[from]
                };
                if slides(*a, *b) {
                    return Some(format!("M_{a}_{b}_x"));
                }
                if slides(*b, *a) {
                    return Some(format!("M_{b}_{a}_x"));
                }
            }
            // A piece that leaves the board: an arrow out, beyond its edge.
            if let Some((from, "off")) = name.split_once('-')
                && let Some((r, c)) = from.split_once(':')
                && let (Ok(r), Ok(c)) = (r.trim().parse::<usize>(), c.trim().parse::<usize>())
                && let Some(at) = cell(r, c)
                && let Some(to) = off_target(game, grid, at)
            {
                return Some(format!("M_{at}_{to}_x"));
            }
            if !cells.is_empty() {
                let at = cells.iter().copied().find(|i| changed.contains(i)).unwrap_or(cells[0]);
                return Some(format!("A_t_{at}_x"));
            }
            if let Some((i, j)) = pair(name).filter(|(i, j)| i != j) {
                let empty = |b: &Board, k: usize| is_empty_cell(&b.cells[k]);
                let line = child.is_some_and(|c| {
                    (empty(grid, i) && empty(grid, j) && !empty(c, i) && !empty(c, j))
                        || (!empty(grid, i) && !empty(grid, j) && empty(c, i) && empty(c, j))
                });
                return Some(if line { format!("L_{i}_{j}_x") } else { format!("M_{i}_{j}_x") });
            }
            match changed[..] {
                [i] => Some(format!("A_t_{i}_x")),
                _ => None,
            }
        })
        .collect()
}

/// Is `e` a limit of the server (an answer left unknown), rather than a fault?
fn gives_up(e: &GameError, last_try: bool) -> bool {
    matches!(e, GameError::OutOfMemory(_)) || (last_try && matches!(e, GameError::TimeLimit(_)))
}

impl Served {
    fn uw_name(&self, id: &str) -> String {
        let name = &self.session.info().name;
        if public_id(id) == *name { name.clone() } else { format!("{name} ({id})") }
    }

    /// The variants: (id, name, start text as the game writes it).
    fn uw_variants(&self) -> Vec<(String, String, String)> {
        let mut out: Vec<(String, String, String)> = Vec::new();
        if let Ok(Some(start)) = self.session.start() {
            out.push(("regular".into(), "Standard".into(), start));
        }
        for (id, name, text) in variants_of(&self.session.info().name) {
            if let Ok(p) = self.session.normalize(text)
                && !out.iter().any(|(_, _, q)| *q == p)
            {
                out.push((id.to_string(), name.to_string(), p));
            }
        }
        if self.misere.is_some()
            && let Some((_, _, start)) = out.first()
        {
            let start = start.clone();
            out.push((MISERE.into(), "Misère: whoever makes the last move loses".into(), start));
        }
        out
    }

    /// A variant by id: one of [`Served::uw_variants`], or a custom one (its id the start
    /// position's text, escaped as [`escape`] does).
    fn uw_variant(&self, variant: &str) -> Result<(String, String, String), Reply> {
        if let Some(v) = self.uw_variants().into_iter().find(|(id, _, _)| id == variant) {
            return Ok(v);
        }
        let sized = !variants_of(&self.session.info().name).is_empty();
        let text = unescape(variant).filter(|_| sized);
        match text.map(|t| self.session.normalize(&t)) {
            Some(Ok(p)) => Ok((variant.to_string(), format!("Custom: {}", shown(variant)), p)),
            _ => {
                let ids: Vec<String> = self.uw_variants().into_iter().map(|v| v.0).collect();
                Err(error(404, format!("no variant {variant:?} (there are: {})", ids.join(", "))))
            }
        }
    }

    fn uw_gui(&self, start: &str) -> &'static str {
        if matches!(self.session.grid(start), Ok(Some(_))) { "v2" } else { "v0" }
    }

    /// The game's line in `/uwapi/`.
    pub fn uw_entry(&self, id: &str) -> Json {
        let gui = self.uw_variants().first().map_or("v0", |v| self.uw_gui(&v.2));
        json!({
            "id": public_id(id),
            "name": self.uw_name(id),
            "type": if self.session.kind() == Kind::Puzzle { "onePlayer" } else { "twoPlayer" },
            "gui": gui,
        })
    }

    fn turn(&self, pos: &str, given: u8) -> Result<u8, Reply> {
        if self.session.kind() == Kind::Puzzle {
            return Ok(1);
        }
        Ok(match self.session.to_move(pos).map_err(game_error)? {
            Some(p) if p < 2 => p as u8 + 1,
            _ => given,
        })
    }

    /// Answer `route` for the game served as `id`; `last_try`: a search that runs out of
    /// time is answered `unsolved` (else it is an error, for the search pool to try again).
    pub fn uwapi(&mut self, id: &str, route: &Route, last_try: bool) -> Reply {
        self.answer(self.deadline, |s| match route {
            Route::Game => {
                let variants: Vec<Json> = s
                    .uw_variants()
                    .iter()
                    .map(|(vid, name, start)| json!({"id": vid, "name": name, "gui": s.uw_gui(start)}))
                    .collect();
                Ok(json!({
                    "id": public_id(id),
                    "name": s.uw_name(id),
                    "variants": variants,
                    "allowCustomVariantCreation": !variants_of(&s.session.info().name).is_empty(),
                    "supportsWinBy": false,
                }))
            }
            Route::Variant(v) => {
                let (vid, name, start) = s.uw_variant(v)?;
                let grid = s.session.grid(&start).map_err(game_error)?;
                let turn = s.turn(&start, 1)?;
                let data = grid.as_ref().map(|g| {
                    let (w, h, centers) = layout(&s.session.info().name, g.rows, g.cols);
                    let images: serde_json::Map<String, Json> = CHAR_IMAGES
                        .iter()
                        .map(|(c, path)| {
                            let scale = if *c == 'e' { 0.6 } else { 0.9 };
                            (c.to_string(), json!({"image": path, "scale": scale}))
                        })
                        .collect();
                    json!({
                        "defaultTheme": "gamesman",
                        "themes": {"gamesman": {
                            "space": [w, h],
                            "centers": centers,
                            "charImages": images,
                            "circleButtonRadius": 0.15,
                            "arrowWidth": 0.1,
                            "lineWidth": 0.12,
                        }},
                    })
                });
                let p = encode(turn, grid.as_ref(), &start);
                Ok(json!({
                    "id": vid,
                    "name": name,
                    "gui": if grid.is_some() { "v2" } else { "v0" },
                    "startPosition": p,
                    "autoguiStartPosition": p,
                    "imageAutoGUIData": data,
                }))
            }
            Route::Instructions(v) => {
                let (vid, _, _) = s.uw_variant(v)?;
                let info = s.session.info();
                let mut md = format!("# {}\n\n{}\n", info.name, info.description);
                if vid == MISERE && s.misere.is_some() {
                    md.push_str("\nPlayed misère: whoever makes the last move loses.\n");
                }
                if let Some(notes) = &s.notes {
                    md.push_str("\n```\n");
                    md.push_str(notes);
                    md.push_str("\n```\n");
                }
                Ok(json!({ "instructions": md }))
            }
            Route::Position(v, p, search) => {
                let (vid, _, start) = s.uw_variant(v)?;
                // The misère variant: its game answers, in the place of the game's own.
                let Some(misere) = s.misere.as_mut().filter(|_| vid == MISERE) else {
                    return s.uw_answer(p.as_deref(), &start, *search, last_try);
                };
                std::mem::swap(&mut s.session, misere);
                let answer = s.uw_answer(p.as_deref(), &start, *search, last_try);
                if answer.is_err() {
                    s.session.reset();
                }
                if let Some(misere) = s.misere.as_mut() {
                    std::mem::swap(&mut s.session, misere);
                }
                answer
            }
        })
    }

    /// A position's answer (see [`Route::Position`]).
    fn uw_answer(&mut self, p: Option<&str>, start: &str, search: bool, last_try: bool) -> Result<Json, Reply> {
        if !search {
            let before = self.progress.tighten(std::time::Duration::ZERO);
            let answer = self.uw_position(p, start, true);
            self.progress.restore(before);
            return answer;
        }
        // A last try gives the search half its time: a search that looks at its clock
        // seldom still ends, and the answer is `unsolved`, before the server's limit.
        let before = if last_try { self.progress.time_left().map(|t| self.progress.tighten(t / 2)) } else { None };
        let answer = self.uw_position(p, start, last_try);
        if let Some(b) = before {
            self.progress.restore(b);
        }
        answer
    }

    fn uw_position(&mut self, p: Option<&str>, start: &str, last_try: bool) -> Result<Json, Reply> {
        let (given, text) = match p {
            Some(p) => decode(p)?,
            None => (1, start.to_string()),
        };
        let pos = self.parse(Some(&text))?;
        let turn = self.turn(&pos, given)?;
        let puzzle = self.session.kind() == Kind::Puzzle;
        let grid = self.session.grid(&pos).map_err(game_error)?;
        let over = self.session.ended(&pos).map_err(game_error)?;
        let children = if over.is_some() { Vec::new() } else { self.session.children(&pos).map_err(game_error)? };
        let need = (2 * children.len() + 1).saturating_mul(2 * pos.len() + 256);
        if need > MAX_REPLY {
            return Err(error(
                413,
                format!("this position has {} moves: its answer would be too large", children.len()),
            ));
        }
        let remoteness = |value: &str, r: Option<u32>| match (value, r) {
            ("draw", _) => INFINITY,
            (_, Some(r)) => i64::from(r),
            _ => FINITE_UNKNOWN,
        };
        let source = self.session.source(&pos).map_err(game_error)?;
        let (value, here_r) = match self.session.value(&pos) {
            Ok((sol, _)) => (sol.value.as_str(), remoteness(sol.value.as_str(), sol.remoteness)),
            Err(e) if gives_up(&e, last_try) => {
                self.session.reset();
                ("unsolved", FINITE_UNKNOWN)
            }
            Err(e) => return Err(game_error(e)),
        };
        // Where the game ends (no move left, whatever its value) it ends now: remoteness 0.
        let here_r = if children.is_empty() && value != "unsolved" { 0 } else { here_r };
        let valued = if value == "unsolved" || children.is_empty() {
            None
        } else {
            match self.session.moves(&pos) {
                Ok(m) => Some(m),
                Err(e) if gives_up(&e, last_try) => {
                    self.session.reset();
                    None
                }
                Err(e) => return Err(game_error(e)),
            }
        };
        let mut list: Vec<(String, String, Option<Board>)> = Vec::with_capacity(children.len());
        let mut values: Vec<(&'static str, i64)> = Vec::with_capacity(children.len());
        for (name, child) in &children {
            let info = valued.as_ref().and_then(|v| v.iter().find(|m| m.name == *name && m.position == *child));
            values.push(match info {
                Some(m) => (m.value.as_str(), remoteness(m.value.as_str(), m.remoteness)),
                None => ("unsolved", FINITE_UNKNOWN),
            });
            list.push((name.clone(), child.clone(), self.session.grid(child).map_err(game_error)?));
        }
        let places = match &grid {
            Some(g) => board_moves(self.session.as_ref(), &pos, g, &list),
            None => vec![None; list.len()],
        };
        let mut used: HashSet<String> = HashSet::new();
        let mut names: HashSet<String> = HashSet::new();
        let mut turns = Vec::with_capacity(list.len());
        let mut out = Vec::with_capacity(list.len());
        for (((name, child, child_grid), place), (cv, cr)) in list.iter().zip(places).zip(values) {
            let t = if puzzle {
                1
            } else {
                match self.session.to_move(child).map_err(game_error)? {
                    Some(p) if p < 2 => p as u8 + 1,
                    _ => 3 - turn,
                }
            };
            turns.push(t);
            let mut shown_name = shown(name);
            while !names.insert(shown_name.clone()) {
                shown_name.push('\'');
            }
            let auto = match place {
                Some(a) if used.insert(a.clone()) => a,
                _ => {
                    let mut a = shown_name.clone();
                    while !used.insert(a.clone()) {
                        a.push('\'');
                    }
                    a
                }
            };
            out.push(Out {
                name: shown_name,
                auto,
                position: encode(t, child_grid.as_ref(), child),
                value: cv,
                remoteness: cr,
                move_value: "",
                delta: 0,
            });
        }
        wrangle(puzzle, here_r, turn, &turns, &mut out);
        let here = encode(turn, grid.as_ref(), &pos);
        let moves: Vec<Json> = out
            .iter()
            .map(|m| {
                json!({
                    "move": m.name,
                    "autoguiMove": m.auto,
                    "position": m.position,
                    "autoguiPosition": m.position,
                    "positionValue": m.value,
                    "remoteness": m.remoteness,
                    "moveValue": m.move_value,
                    "deltaRemoteness": m.delta,
                })
            })
            .collect();
        Ok(json!({
            "position": here,
            "autoguiPosition": here,
            "positionValue": value,
            "remoteness": here_r,
            "source": source,
            "moves": moves,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_text_reads_back_and_holds_nothing_a_url_reads() {
        for t in ["x../.o./...", "P1\n3 3\n1 1 1\n", "3,4,5", "a#b+c&d/e f~g_h%i", "☠"] {
            let e = escape(t);
            assert!(e.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)), "{e}");
            assert_eq!(unescape(&e).as_deref(), Some(t));
        }
        assert_eq!(escape("a b/"), "a_20b_2F");
        assert_eq!(unescape("_2"), None);
        assert_eq!(unescape("_zz"), None);
    }

    #[test]
    fn delta_remoteness_is_server_py_s() {
        // A win in 5 for the mover: children lose-in-4 and lose-in-6 (winning moves, deltas
        // 0 and 2), win-in-3 and win-in-1 (losing moves: max win remoteness 3 minus each).
        let mv = |value, remoteness| Out {
            name: String::new(),
            auto: String::new(),
            position: String::new(),
            value,
            remoteness,
            move_value: "",
            delta: 0,
        };
        let mut moves = vec![mv("win", 1), mv("lose", 6), mv("tie", 2), mv("lose", 4), mv("win", 3)];
        wrangle(false, 5, 1, &[2; 5], &mut moves);
        let got: Vec<(&str, i64, i64)> = moves.iter().map(|m| (m.move_value, m.remoteness, m.delta)).collect();
        assert_eq!(got, [("win", 4, 0), ("win", 6, 2), ("tie", 2, 0), ("lose", 3, 0), ("lose", 1, 2)]);
        // A puzzle 3 moves from solved: a child 2 away is a win (delta 1), 3 a tie, 4 a loss.
        let mut moves = vec![mv("win", 4), mv("win", 2), mv("win", 3)];
        wrangle(true, 3, 1, &[1; 3], &mut moves);
        let got: Vec<(&str, i64)> = moves.iter().map(|m| (m.move_value, m.delta)).collect();
        assert_eq!(got, [("win", 1), ("tie", 0), ("lose", -1)]);
    }
}
