//! TacTix through the `tactix` crate's solver (bitboards, components, symmetry; see
//! `crates/tactix`). Positions, moves and their names are the script's (`games/tactix.rhai`).

use super::command::{Call, Io};
use crate::game::{
    Capabilities, ClosedForm, Game, GameError, GameInfo, GameResult, Hints, Kind, MAX_MOVES, Shortcut, Split, Value,
    View,
};
use crate::grid::{Grid, Segment};
use std::cell::RefCell;
use std::io::{Read, Write};
use tactix::Solver;

/// Memory for the solver's tables.
pub const TABLE_BYTES: usize = 256 << 20;

pub struct TacTix {
    info: GameInfo,
    solver: RefCell<Solver>,
}

impl TacTix {
    pub fn new(mut info: GameInfo) -> TacTix {
        info.kind = Kind::Impartial;
        TacTix { info, solver: RefCell::new(Solver::new(TABLE_BYTES, None)) }
    }

    /// With a memory budget of `budget` bytes: the solver's tables take half of it (at most
    /// [`TABLE_BYTES`]), the searches above it the rest. (A fixed 256 MiB table reached
    /// 205 MB with `--max-memory 16`.)
    pub fn within(info: GameInfo, budget: usize) -> TacTix {
        let table = (budget / 2).clamp(1 << 20, TABLE_BYTES);
        TacTix { info, solver: RefCell::new(Solver::new(table, None)) }
    }

    /// The nimsum of a board.
    pub fn nimsum(&self, g: &Grid) -> GameResult<u64> {
        let mut board = g.to_board();
        self.solver.borrow_mut().board(&mut board).map_err(|e| GameError::Unsupported(e.to_string()))
    }
}

impl Game for TacTix {
    type Pos = Grid;
    type Move = Segment;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<Grid>> {
        Ok(Some(Grid::full(4, 4)))
    }

    fn parse(&self, text: &str) -> GameResult<Grid> {
        Grid::parse(text).map_err(GameError::BadPosition)
    }

    fn format(&self, g: &Grid) -> GameResult<String> {
        Ok(g.to_pbm())
    }

    fn moves(&self, g: &Grid) -> GameResult<Vec<Segment>> {
        too_many_moves(g)?;
        Ok(g.segments())
    }

    fn play(&self, g: &Grid, seg: &Segment) -> GameResult<Grid> {
        Ok(g.without(*seg))
    }

    fn move_name(&self, _g: &Grid, s: &Segment) -> GameResult<String> {
        Ok(if s[0] == s[2] && s[1] == s[3] {
            format!("{}:{}", s[0], s[1])
        } else {
            format!("{}:{}-{}:{}", s[0], s[1], s[2], s[3])
        })
    }

    fn primitive(&self, _g: &Grid) -> GameResult<Option<Value>> {
        Ok(None)
    }

    fn canonical(&self, g: &Grid) -> GameResult<Grid> {
        Ok(g.canonical())
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities {
            view: Some(self),
            split: Some(self),
            closed_form: Some(self),
            hints: Some(self),
            ..Capabilities::none()
        }
    }
}

impl View<Grid, Segment> for TacTix {
    fn board(&self, g: &Grid) -> GameResult<Option<crate::game::Board>> {
        Ok(super::common::grid_board(g))
    }
    fn show(&self, g: &Grid) -> GameResult<Option<String>> {
        Ok(Some(g.to_rows('#', '.', "\n")))
    }
}

impl Split<Grid> for TacTix {
    fn split(&self, g: &Grid) -> GameResult<Option<Vec<Grid>>> {
        Ok(Some(g.components()))
    }
}

impl ClosedForm<Grid, Segment> for TacTix {
    fn shortcut_value(&self, g: &Grid) -> GameResult<Option<Shortcut<Segment>>> {
        let total = self.nimsum(g)?;
        let value = if total != 0 { Value::Win } else { Value::Lose };
        Ok(Some(Shortcut { value, remoteness: None, grundy: Some(total), winning_moves: Vec::new() }))
    }
    fn shortcut(&self, g: &Grid) -> GameResult<Option<Shortcut<Segment>>> {
        let total = self.nimsum(g)?;
        let mut winning_moves = Vec::new();
        if total != 0 {
            too_many_moves(g)?;
            for seg in g.segments() {
                if self.nimsum(&g.without(seg))? == 0 {
                    winning_moves.push(seg);
                }
            }
        }
        let value = if total != 0 { Value::Win } else { Value::Lose };
        Ok(Some(Shortcut { value, remoteness: None, grundy: Some(total), winning_moves }))
    }
}

impl Hints<Grid> for TacTix {
    fn search_size(&self, g: &Grid) -> Option<f64> {
        // Up to every subset of the tokens, each with a run to take from every token.
        let n = g.count() as f64;
        Some(n.exp2() * n.max(1.0))
    }
}

/// Refuse to list the moves of a board with more than [`MAX_MOVES`] runs to take.
fn too_many_moves(g: &Grid) -> GameResult<()> {
    let n = g.segment_count();
    if n > MAX_MOVES {
        return Err(GameError::Unsupported(format!(
            "this board has {n} runs to take, more than the {MAX_MOVES} moves a position may list \
             (`gamesman tactix` gives its nimsum)"
        )));
    }
    Ok(())
}

/// A random small board (for `gamesman check`), small enough for the script to search
/// whole, remoteness included.
pub fn sample(rng: &mut fastrand::Rng) -> String {
    let (rows, cols) = (rng.usize(1..=3), rng.usize(1..=4));
    let board: Vec<String> =
        (0..rows).map(|_| (0..cols).map(|_| if rng.u8(0..3) > 0 { '1' } else { '0' }).collect()).collect();
    board.join("/")
}

/// `gamesman tactix [FILE]`: the contest program's contract with threads: the nimsum of the
/// P1 PBM board in the file (stdin when there is none, or `-`), or -1 with the reason on
/// stderr; exit 0 either way. The call's budget holds the board and the tables; its time
/// limit, when it runs out, gives -1 wherever the work is.
pub fn command(call: &Call, io: &mut Io) -> anyhow::Result<i32> {
    let threads = call.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let budget = call.budget;
    let limit = call.time_limit.and_then(::tactix::time_limit);
    if let Some(limit) = limit {
        watchdog(limit);
    }
    let started = std::time::Instant::now();
    let read = |r: &mut dyn Read| {
        let max_cells = (budget / 2 * 8) as u64;
        ::tactix::pbm::read(r, max_cells).map_err(|e| e.0)
    };
    let board = match call.words.first().map(String::as_str) {
        None | Some("-") => read(&mut std::io::stdin().lock()),
        Some(f) => match std::fs::File::open(f) {
            Ok(mut file) => read(&mut file),
            Err(e) => Err(format!("cannot read {f}: {e}")),
        },
    };
    let result = board.and_then(|mut b| {
        let tables = budget.saturating_sub(b.bytes());
        ::tactix::nimsum_parallel(&mut b, tables, limit.map(|l| started + l), threads).map_err(|e| e.to_string())
    });
    // One answer: the work's, or the watchdog's -1, whichever takes the lock first.
    let _answer = ANSWER.lock().unwrap_or_else(|e| e.into_inner());
    match result {
        Ok(g) => writeln!(io.out, "{g}")?,
        Err(e) => {
            writeln!(io.err, "gamesman tactix: {e}")?;
            writeln!(io.out, "-1")?;
        }
    }
    io.out.flush()?;
    Ok(0)
}

/// Held while `gamesman tactix` writes its answer, so that the watchdog's -1 and the work's
/// answer never both appear.
static ANSWER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The contest's contract for `--time-limit`: -1 (exit 0) when the limit runs out, wherever
/// the work is, reading a 100 MB board included (whose reading makes no check). A tenth of
/// the limit (at most 0.3 s) is left for the work's own checks to answer first.
fn watchdog(limit: std::time::Duration) {
    let at = std::time::Instant::now() + limit + (limit / 10).min(std::time::Duration::from_millis(300));
    let spawned = std::thread::Builder::new().name("time-limit".into()).spawn(move || {
        while let Some(left) = at.checked_duration_since(std::time::Instant::now()).filter(|d| !d.is_zero()) {
            std::thread::sleep(left);
        }
        // The work is writing its own answer: it exits once done.
        let Ok(_answer) = ANSWER.try_lock() else { return };
        eprintln!("gamesman tactix: the time limit ran out before the nimsum was found");
        println!("-1");
        let _ = std::io::stdout().flush();
        std::process::exit(0);
    });
    drop(spawned);
}
