//! How results are printed: text for people, JSON for programs.

use crate::catalog::{Saved, Session};
use crate::solve::{MoveInfo, Report};
use serde_json::{Value as Json, json};
use std::time::Duration;

/// "1 position", "3 positions": a count and a noun that agrees with it.
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// Position text on one line, or indented on the lines below when it has several.
fn block(text: &str) -> String {
    let t = text.trim_end();
    if t.contains('\n') { format!("\n    {}", t.replace('\n', "\n    ")) } else { t.to_string() }
}

fn move_json(m: &MoveInfo) -> Json {
    m.to_json()
}

/// A database's size for each position it holds: the bytes on disk (the file, or every file
/// of a tier directory) divided by the positions, to one decimal. The one definition that
/// `--save`, `db info` and `db bench` print.
pub fn bytes_a_position(bytes: u64, positions: u64) -> String {
    format!("{:.1}", bytes as f64 / positions.max(1) as f64)
}

/// A time in seconds since 1970 as an ISO 8601 date and time in UTC: `2026-11-25T16:26:31Z`.
pub fn date_time(secs: u64) -> String {
    humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs)).to_string()
}

/// What `--save` wrote, on stderr.
pub fn saved(s: &Saved) {
    if let Some((indices, tiers)) = s.indices {
        eprintln!(
            "saved: {} reachable from the root{} ({} in {}) in {} ({:.1} MiB, {} bytes a position{}) in {:.2} s",
            count(s.positions, "position"),
            if s.classes_only { " up to symmetry (one a class)" } else { "" },
            count(indices, "index slot"),
            count(tiers as u64, "tier"),
            s.path.display(),
            s.bytes as f64 / (1 << 20) as f64,
            bytes_a_position(s.bytes, s.positions),
            if s.packed > 0 {
                format!("; {} in tiers.pack", count(s.packed as u64, "small tier"))
            } else {
                String::new()
            },
            s.seconds
        );
        return;
    }
    eprintln!(
        "saved: {} in {} ({:.1} MiB, {} bytes a position) in {:.2} s",
        count(s.positions, "position"),
        s.path.display(),
        s.bytes as f64 / (1 << 20) as f64,
        bytes_a_position(s.bytes, s.positions),
        s.seconds
    );
}

pub fn report(game: &dyn Session, r: &Report, as_json: bool, elapsed: Duration) {
    let info = game.info();
    let engine = game.engine();
    if as_json {
        let obj = json!({
            "game": info.name,
            "kind": info.kind.as_str(),
            "position": r.position,
            "value": r.value.as_str(),
            "remoteness": r.remoteness,
            "remoteness_note": r.remoteness_note,
            "grundy": r.grundy,
            "winning_moves": r.moves_listed.then(|| r.winning_moves.iter().map(move_json).collect::<Vec<_>>()),
            "winning_moves_note": r.moves_note,
            "engine": engine,
            "source": r.source,
            "positions_visited": r.visited,
            "memo_evictions": r.evicted,
            "seconds": elapsed.as_secs_f64(),
        });
        println!("{obj}");
        return;
    }
    println!("game:        {} ({}, {engine})", info.name, info.kind);
    println!("position:    {}", block(&r.position));
    println!("value:       {}", r.value.name_in(info.kind));
    match (&r.remoteness, &r.remoteness_note) {
        (None, Some(why)) => println!("remoteness:  - ({why})"),
        _ => println!("remoteness:  {}", opt(r.remoteness)),
    }
    if info.kind == crate::game::Kind::Impartial {
        match (&r.grundy, &r.grundy_note) {
            (Some(g), _) => println!("grundy:      {g}"),
            (None, Some(why)) => println!("grundy:      - ({why})"),
            (None, None) => println!("grundy:      - (not defined here)"),
        }
    }
    let title = match (info.kind, r.value) {
        (crate::game::Kind::Puzzle, _) => "solution",
        (_, crate::game::Value::Tie) => "tying moves",
        (_, crate::game::Value::Draw) => "drawing moves",
        _ => "winning moves",
    };
    if let (true, Some(why)) = (r.winning_moves.is_empty(), &r.moves_note) {
        println!("{title}: - ({why})");
    } else if r.winning_moves.is_empty() {
        println!("{title}: none");
    } else {
        println!("{title}:");
        for m in &r.winning_moves {
            if m.position.is_empty() {
                println!("  {}", m.name); // positions left out: too large to list them all
            } else {
                // The position the move leads to, and its remoteness (as `--json` gives it).
                match m.remoteness {
                    Some(r) if m.position.contains('\n') => {
                        println!("  {:<12} (remoteness {r}) -> {}", m.name, block(&m.position))
                    }
                    Some(r) => println!("  {:<12} -> {}   (remoteness {r})", m.name, block(&m.position)),
                    None => println!("  {:<12} -> {}", m.name, block(&m.position)),
                }
            }
        }
    }
    if r.source == "database" {
        println!("source:      the saved database");
    } else if r.source == "bounded" {
        println!(
            "source:      depth-bounded searches: what is reachable outgrew --max-memory; a win or a loss is proved \
             this way, and the winning moves listed are those that win soonest"
        );
        println!("visited:     {}", count(r.visited, "position"));
    } else {
        println!("visited:     {}", count(r.visited, "position"));
    }
    if r.evicted > 0 {
        println!("evicted:     {} memo entries (memory budget)", r.evicted);
    }
    println!("time:        {:.3} s", elapsed.as_secs_f64());
}

/// The `moves` table, printed a row at a time as the values come, and again (or in place, on
/// a terminal) once the remoteness is filled in.
pub struct MovesTable {
    impartial: bool,
    /// Is the remoteness column shown (not with `--no-remoteness`)?
    remoteness: bool,
    /// Lines written on stdout so far, and the widest (to rewrite them on a terminal).
    lines: usize,
    widest: usize,
}

/// What the remoteness column shows while the search for it runs.
pub const PENDING: &str = "…";

impl MovesTable {
    pub fn new(game: &dyn Session, remoteness: bool) -> Self {
        MovesTable { impartial: game.info().kind == crate::game::Kind::Impartial, remoteness, lines: 0, widest: 0 }
    }

    fn header(&self) -> String {
        format!(
            "{:<14} {:<6}{}{}  position after the move (value is for the player then to move)",
            "move",
            "value",
            if self.remoteness { format!(" {:>10}", "remoteness") } else { String::new() },
            if self.impartial { "  grundy" } else { "" }
        )
    }

    fn line(&self, m: &MoveInfo, pending: bool) -> String {
        let r = match (self.remoteness, pending) {
            (false, _) => String::new(),
            (true, true) => format!(" {PENDING:>10}"),
            (true, false) => format!(" {:>10}", opt(m.remoteness)),
        };
        let g = if self.impartial { format!("  {:>6}", opt(m.grundy)) } else { String::new() };
        format!("{:<14} {:<6}{r}{g}  {}", m.name, m.value.as_str(), block(&m.position))
    }

    fn print(&mut self, text: &str) {
        println!("{text}");
        for l in text.lines() {
            self.lines += 1;
            self.widest = self.widest.max(console::measure_text_width(l));
        }
    }

    /// One row (the heading first, before the first): `pending` when its remoteness is still
    /// being searched for.
    pub fn row(&mut self, m: &MoveInfo, pending: bool) {
        if self.lines == 0 {
            self.print(&self.header());
        }
        self.print(&self.line(m, pending));
    }

    /// The whole table, its heading first.
    pub fn all(&mut self, list: &[MoveInfo]) {
        self.print(&self.header());
        for m in list {
            self.print(&self.line(m, false));
        }
    }

    /// On a terminal where the table printed so far is still on the screen (no line wrapped,
    /// fewer lines than the screen has): the table in its place, with `list`'s remoteness.
    /// `false` (nothing done) elsewhere.
    pub fn rewrite(&mut self, list: &[MoveInfo]) -> bool {
        use std::io::IsTerminal;
        let term = console::Term::stdout();
        if !std::io::stdout().is_terminal() || self.lines == 0 {
            return false;
        }
        let Some((rows, cols)) = term.size_checked() else { return false };
        if self.lines >= rows as usize || self.widest >= cols as usize || term.clear_last_lines(self.lines).is_err() {
            return false;
        }
        self.lines = 0;
        self.all(list);
        true
    }
}

/// What `moves` prints after its table: where the game is over (`over`: its value there, if
/// primitive), why there are no moves; on stderr, the work done.
pub fn moves_end(
    game: &dyn Session,
    list: &[MoveInfo],
    over: Option<crate::game::Value>,
    visited: u64,
    elapsed: Duration,
) {
    let puzzle = game.info().kind == crate::game::Kind::Puzzle;
    if list.is_empty() {
        match over {
            Some(crate::game::Value::Win) if puzzle => println!("no moves: the puzzle is solved here"),
            Some(v) => println!("no moves: the game is over here ({v} for the player to move)"),
            None if puzzle => println!("no moves: a dead end (unsolvable)"),
            None => println!("no moves: the game is over ({} for the player to move)", game.stalemate()),
        }
    }
    eprintln!("visited {} in {:.3} s", count(visited, "position"), elapsed.as_secs_f64());
}

/// `moves --json`: the list as one array.
pub fn moves_json(list: &[MoveInfo]) {
    println!("{}", Json::Array(list.iter().map(move_json).collect()));
}
