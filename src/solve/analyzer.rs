//! The [`Analyzer`]: the answer to a position from the first source that has it (the saved
//! database, the game's closed form, the searches below it), and the report it writes.

use super::grundy::GrundySolver;
use super::solution::Solution;
use super::value::ValueSolver;
use super::{part_db, puzzle, quick};
use crate::game::{Game, GameError, GameExt, GameResult, Kind, Value};
use crate::progress::Progress;

/// A remoteness search expected to examine more moves than this is skipped (the game says
/// how many through `GameExt::search_size`): a few seconds of work.
pub const SEARCH_LIMIT: f64 = 3e7;

/// Default memory budget for the solvers' tables.
pub const DEFAULT_MAX_MEMORY: usize = 1 << 30;

#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes the memo tables may use, all solvers together.
    pub max_memory: usize,
    /// Search for remoteness. When false, an impartial game's value comes from its Grundy
    /// value alone (fast: decomposition applies), and remoteness is not reported.
    pub remoteness: bool,
    /// Where long solves show their progress (nowhere by default).
    pub progress: Progress,
    /// Search remoteness even where the game estimates the search too large.
    pub full_search: bool,
    /// `solve` lists the moves that keep the value (a puzzle: a shortest solution). When
    /// false, the report has the value, remoteness and Grundy value alone
    /// ([`Report::moves_listed`] false), and no search is spent on the moves.
    pub moves: bool,
    /// Threads for a large value search (see [`ValueSolver::with_threads`]).
    pub threads: usize,
    /// How long a value search runs on one thread before it goes over to all of them
    /// (default [`super::value::PARALLEL_AFTER`]).
    pub parallel_after: Option<std::time::Duration>,
    /// The endgame database of part nimbers the nimber search on keys asks first
    /// ([`part_db`]); `None`: none.
    pub endgame: Option<part_db::Endgame>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_memory: DEFAULT_MAX_MEMORY,
            remoteness: true,
            progress: Progress::default(),
            full_search: false,
            moves: true,
            threads: 1,
            parallel_after: None,
            endgame: None,
        }
    }
}

/// One move and what it leads to.
#[derive(Clone, Debug)]
pub struct MoveInfo {
    pub name: String,
    pub position: String,
    /// The child's value for the player who moves there next.
    pub value: Value,
    pub remoteness: Option<u32>,
    pub grundy: Option<u64>,
    /// The value of making the move, for the player who makes it (see [`mover_value`]).
    pub mover: Value,
}

impl MoveInfo {
    /// `{"move", "position", "value", "remoteness", "grundy"}`, as every front end writes it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "move": self.name,
            "position": self.position,
            "value": self.value.as_str(),
            "remoteness": self.remoteness,
            "grundy": self.grundy,
        })
    }

    /// The mover's remoteness after the move: one more than the child's.
    pub fn mover_remoteness(&self) -> Option<u32> {
        self.remoteness.map(|r| r + 1)
    }
}

/// The value of a move for the player who makes it, from the value of the position it leads
/// to (`child`, for the player then to move). Two players: the child's value seen from the
/// other side. A puzzle (`here`: the remoteness of the position the move is made from): `Win`
/// when the move brings the goal nearer, `Tie` when it keeps the distance, `Lose` otherwise.
pub fn mover_value(kind: Kind, here: Option<u32>, child: Value, child_remoteness: Option<u32>) -> Value {
    if kind != Kind::Puzzle {
        return child.flip();
    }
    match (here, child, child_remoteness) {
        (Some(r), Value::Win, Some(c)) if c < r => Value::Win,
        (Some(r), Value::Win, Some(c)) if c == r => Value::Tie,
        _ => Value::Lose,
    }
}

/// Everything `solve` reports about a position.
#[derive(Clone, Debug)]
pub struct Report {
    pub position: String,
    pub value: Value,
    pub remoteness: Option<u32>,
    pub grundy: Option<u64>,
    /// Why there is no Grundy value, where the game is impartial but it is undefined.
    pub grundy_note: Option<String>,
    /// Why there is no remoteness, where its search was skipped as too large.
    pub remoteness_note: Option<String>,
    /// Two players: the moves that keep the value (to a losing child from a win, to a tying
    /// child from a tie, to a drawing child from a draw). A puzzle: one shortest solution.
    pub winning_moves: Vec<MoveInfo>,
    /// Why `winning_moves` is empty though there may be such moves: the time limit ran out
    /// after the value was found, before the moves were, or they were not asked for.
    pub moves_note: Option<String>,
    /// Were the moves looked for? False where [`Options::moves`] is off: `winning_moves` is
    /// then empty whatever the position.
    pub moves_listed: bool,
    pub visited: u64,
    pub evicted: u64,
    /// Where the answer came from: "database" (a saved solve) or "search".
    pub source: &'static str,
}

/// Why a report has no moves where they were not asked for.
pub const NO_MOVES_NOTE: &str = "not asked for (--no-moves)";

/// Why a remoteness is missing where the command's time limit stopped its search after the
/// value was found.
const TIME_LIMIT_NOTE: &str =
    "not found: the time limit ran out (--time-limit) before the search for remoteness finished";

/// Solves positions of one game with all the solvers that apply to it.
pub struct Analyzer<G: Game> {
    /// Shared with the solvers below (so that an analyzer may own its game).
    game: std::rc::Rc<G>,
    opts: Options,
    values: ValueSolver<G>,
    grundy: Option<GrundySolver<G>>,
    grundy_note: Option<String>,
    remoteness_note: Option<String>,
    puzzle_visited: u64,
    /// The last puzzle solution found by search: (from, its moves).
    last_path: Option<(G::Pos, Vec<G::Move>)>,
    /// A saved solve of this game, read before any search.
    db: Option<crate::db::Store>,
    /// The value-first search of a two-player game ([`quick`]), unless `--full-search`.
    quick: Option<quick::QuickSolver<G>>,
    /// A remoteness search ran out of its share of time in this command: later positions
    /// get their value alone.
    remoteness_cut: bool,
    /// Positions the value-first search expanded for the position whose remoteness is
    /// searched next, each once (nothing forgotten meanwhile): all reachable from it.
    reached: u64,
    /// `moves` in two steps ([`Analyzer::move_values`]): the value-first search leaves the
    /// remoteness for later; how many times it did, and the time the values took.
    defer: bool,
    deferred: u64,
    deferred_took: std::time::Duration,
    /// The value-first search met a loop in this `moves` (the game is loopy).
    loopy: bool,
    /// The value of the position `solve` reports was proved by depth-bounded searches
    /// ([`Analyzer::prove`]): the full solver could not hold what is reachable.
    proved: bool,
    /// Past the memory budget, prove by depth-bounded searches even though the game has
    /// tiers: the session will not solve them for one command ([`Analyzer::prove_past_memory`]).
    prove_with_tiers: bool,
    /// The position this `moves` lists the moves of.
    moves_from: Option<G::Pos>,
    /// The moves whose remoteness was left for later: (their place in the list, the position
    /// they lead to, its value).
    pending: Vec<(usize, G::Pos, Value)>,

    /// A saved tier solve (the array database) of a game with tiers, read first.
    arrays: Option<crate::db::array::ArrayDb>,
}

impl<G: Game> Analyzer<G> {
    /// An analyzer of `game`: a game it owns, or a borrowed one (`&G` is a game too).
    pub fn new(game: G, opts: Options) -> Self {
        Self::with_shared(std::rc::Rc::new(game), opts)
    }

    fn with_shared(game: std::rc::Rc<G>, mut opts: Options) -> Self {
        let partisan = game.kind() == Kind::Partisan;
        // The value-first search gives the full search a share of time: that needs a handle
        // that can carry a budget.
        let splits = game.kind() == Kind::Impartial && game.has_split();
        if (partisan || splits) && !opts.full_search && !opts.progress.is_on() {
            opts.progress = Progress::silent();
        }
        let half = opts.max_memory / 2;
        let impartial = game.kind() == Kind::Impartial;
        let normal_play = impartial && game.stalemate() == Value::Lose;
        // Without `split`, the value search walks the same positions as a Grundy search
        // would, so it computes both in one pass; with `split`, the Grundy solver works on
        // the parts (much smaller) and the value search on whole positions.
        let separate = impartial && (game.has_split() || !opts.remoteness);
        let grundy = separate.then(|| {
            GrundySolver::new(game.clone(), half)
                .with_endgame(opts.endgame.clone())
                .with_progress(opts.progress.clone())
        });
        let with_grundy = normal_play && !separate;
        let quick_on = partisan && !opts.full_search;
        let values =
            ValueSolver::new(game.clone(), if separate || quick_on { half } else { opts.max_memory }, with_grundy)
                .with_progress(opts.progress.clone())
                .with_threads(opts.threads, opts.parallel_after);
        // The two searches share the memory budget when both run.
        let quick = quick_on.then(|| quick::QuickSolver::new(game.clone(), half, opts.progress.clone()));
        Analyzer {
            game,
            opts,
            values,
            grundy,
            grundy_note: None,
            remoteness_note: None,
            puzzle_visited: 0,
            last_path: None,
            db: None,
            quick,
            remoteness_cut: false,
            reached: 0,
            defer: false,
            deferred: 0,
            deferred_took: std::time::Duration::ZERO,
            loopy: false,
            proved: false,
            prove_with_tiers: false,
            moves_from: None,
            pending: Vec::new(),

            arrays: None,
        }
    }

    /// The game answered for.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// The game, shared (to ask it questions while the analyzer searches).
    pub fn shared_game(&self) -> std::rc::Rc<G> {
        self.game.clone()
    }

    /// The options it was made with.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Forget every search (after an error, a search that stopped half way is not trusted);
    /// the database, if any, stays open.
    pub fn reset(&mut self) {
        let db = self.db.take();
        let arrays = self.arrays.take();
        let game = self.game.clone();
        let prove_with_tiers = self.prove_with_tiers;
        *self = Self::with_shared(game, self.opts.clone());
        self.db = db;
        self.arrays = arrays;
        self.prove_with_tiers = prove_with_tiers;
    }

    /// Whether a two-player game with tiers whose reachable positions outgrow the memory
    /// budget gets depth-bounded searches (as a game without tiers does) rather than the
    /// error that sends the session to its tiers: set where those are too many to solve for
    /// one command.
    pub fn prove_past_memory(&mut self, yes: bool) {
        self.prove_with_tiers = yes;
    }

    /// Answer from a saved solve where it holds the position, and search otherwise.
    pub fn with_database(mut self, db: crate::db::Store) -> Self {
        self.db = Some(db);
        self
    }

    /// Read this saved solve first (or none).
    pub fn set_database(&mut self, db: Option<crate::db::Store>) {
        self.db = db;
    }

    /// The saved solve read first, if any.
    pub fn database(&self) -> Option<&crate::db::Store> {
        self.db.as_ref()
    }

    /// Read this saved tier solve first (or none): the game must have tiers.
    pub fn set_arrays(&mut self, arrays: Option<crate::db::array::ArrayDb>) {
        self.arrays = arrays;
    }

    /// The saved tier solve read first, if any.
    pub fn arrays(&self) -> Option<&crate::db::array::ArrayDb> {
        self.arrays.as_ref()
    }

    /// The saved record of `pos`, if a database is open and holds it: the array database
    /// of a game with tiers (at the position's tier and index), else the redb store.
    pub fn saved(&self, pos: &G::Pos) -> GameResult<Option<crate::db::Record>> {
        if let (Some(arrays), Some(tiers)) = (&self.arrays, self.game.tiers()) {
            // Only representatives have records (the solver solves one position a class).
            let (tier, index) = tiers.try_locate(&self.game.canonical(pos)?)?;
            if let Some((r, grundy)) = arrays.lookup(tier, tiers.tier_size(tier), index)?
                && let Some((value, remoteness)) = crate::db::array::unrec(r)
            {
                return Ok(Some(crate::db::Record { value, remoteness, grundy }));
            }
        }
        match &self.db {
            None => Ok(None),
            Some(db) => Ok(db.get(&self.game.format(pos)?)?),
        }
    }

    pub fn visited(&self) -> u64 {
        self.values.visited()
            + self.grundy.as_ref().map_or(0, |g| g.visited())
            + self.quick.as_ref().map_or(0, |q| q.visited())
            + self.puzzle_visited
    }

    /// Why a remoteness search was skipped, if one was.
    pub fn remoteness_note(&self) -> Option<&str> {
        self.remoteness_note.as_deref()
    }

    pub fn evicted(&self) -> u64 {
        self.values.evicted() + self.grundy.as_ref().map_or(0, |g| g.evicted())
    }

    /// The Grundy value, or `None` where it is undefined (not impartial, misère, loopy).
    pub fn grundy(&mut self, pos: &G::Pos) -> GameResult<Option<u64>> {
        let Some(solver) = self.grundy.as_mut() else { return Ok(None) };
        match solver.grundy(pos) {
            Ok(g) => Ok(Some(g)),
            Err(GameError::Unsupported(why)) => {
                self.grundy_note = Some(why);
                self.grundy = None;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Would a remoteness search from `pos` be asked for, and could it finish? When it could
    /// not, the report says why.
    fn searchable(&mut self, pos: &G::Pos) -> bool {
        if !self.opts.remoteness {
            return false;
        }
        match self.game.search_size(pos) {
            Some(n) if n > SEARCH_LIMIT && !self.opts.full_search => {
                let size = if n.is_finite() { format!("about {n:.1e}") } else { "far too many".into() };
                self.remoteness_note.get_or_insert_with(|| {
                    format!(
                        "not searched: {size} moves to examine, more than the {SEARCH_LIMIT:.0e} a search takes by \
                         default; --full-search searches anyway"
                    )
                });
                false
            }
            _ => true,
        }
    }

    /// Value and remoteness of a two-player position (or of a puzzle position: `win` =
    /// solvable, remoteness = fewest moves), and the Grundy value where it is defined.
    pub fn value(&mut self, pos: &G::Pos) -> GameResult<(Solution, Option<u64>)> {
        if let Some(rec) = self.saved(pos)? {
            return Ok((Solution { value: rec.value, remoteness: rec.remoteness }, rec.grundy));
        }
        let Some(sc) = self.game.shortcut_value(pos)? else { return self.search(pos) };
        let mut s = Solution { value: sc.value, remoteness: sc.remoteness };
        let mut g = sc.grundy;
        let kind = self.game.kind();
        let want_grundy = g.is_none() && kind == Kind::Impartial && self.game.stalemate() == Value::Lose;
        // What the shortcut leaves out, a search fills in where it can finish.
        if kind != Kind::Puzzle && (s.remoteness.is_none() || want_grundy) && self.searchable(pos) {
            let (searched, g2) = self.search(pos)?;
            if searched.value != s.value {
                return Err(GameError::Definition(format!(
                    "internal error: the native module says {} but a search of its moves says {} at {}",
                    s.value,
                    searched.value,
                    self.game.format(pos)?
                )));
            }
            s.remoteness = s.remoteness.or(searched.remoteness);
            g = g.or(g2);
        }
        Ok((s, g))
    }

    /// Value, remoteness and Grundy value by search.
    fn search(&mut self, pos: &G::Pos) -> GameResult<(Solution, Option<u64>)> {
        if self.game.kind() == Kind::Puzzle {
            let sol = puzzle::solve_puzzle(&*self.game, pos, self.opts.max_memory, &self.opts.progress)?;
            self.puzzle_visited += sol.visited;
            let s = match sol.path {
                Some(p) => {
                    let n = p.len() as u32;
                    // Kept for `solve`, which lists the solution next.
                    self.last_path = Some((pos.clone(), p.into_iter().map(|(m, _)| m).collect()));
                    Solution { value: Value::Win, remoteness: Some(n) }
                }
                None => Solution { value: Value::Lose, remoteness: None },
            };
            return Ok((s, None));
        }
        let started = crate::progress::cpu_time();
        let g = self.grundy(pos)?;
        // The Grundy value gives the value at once where remoteness is not wanted, or where
        // its search (of the whole sum) could not finish.
        if let Some(g) = g
            && !self.searchable(pos)
        {
            let value = if g != 0 { Value::Win } else { Value::Lose };
            return Ok((Solution { value, remoteness: None }, Some(g)));
        }
        // Positions that split: the Grundy value came from the parts, each solved once; the
        // search for remoteness walks whole positions (every combination of the parts), so it
        // gets a share of time, not the whole command.
        if let Some(g) = g
            && self.game.has_split()
            && !self.opts.full_search
            && !self.values.knows(pos)?
        {
            let value = if g != 0 { Value::Win } else { Value::Lose };
            let why = "the value comes from the Grundy values of the position's parts";
            let s = self.remoteness_in_share(pos, value, crate::progress::cpu_time() - started, why, true)?;
            return Ok((s, Some(g)));
        }
        if let Some(s) = self.value_first(pos)? {
            return Ok((s, g));
        }
        let (s, g2) = match self.values.solve(pos) {
            // A two-player game (loopy, or with paths too long for the value-first search)
            // whose reachable positions outgrow the budget: a win or a loss may still be
            // proved by the depth-bounded searches, which hold only what they have shown (a
            // draw or a tie never is). A game with tiers is solved by them instead (the
            // session's fallback, `Live::or_by_tiers`) where they are few enough.
            Err(GameError::OutOfMemory(why))
                if self.quick.is_some() && (self.game.tiers().is_none() || self.prove_with_tiers) =>
            {
                return match self.prove(pos, crate::progress::cpu_time() - started)? {
                    Some(s) => Ok((s, None)),
                    None => Err(GameError::OutOfMemory(format!(
                        "{why}; nor did depth-bounded searches find a win or a loss in their time (what --time-limit leaves, \
                         else as much processor time as the search had, 60 s at least)"
                    ))),
                };
            }
            r => r?,
        };
        if self.grundy.is_none() && g2.is_none() && self.game.kind() == Kind::Impartial && self.grundy_note.is_none() {
            self.grundy_note = Some(if self.game.stalemate() != Value::Lose {
                "not defined under misère play".into()
            } else {
                "not defined here: a primitive position is not a normal-play loss, or the game is loopy".into()
            });
        }
        Ok((s, g.or(g2)))
    }

    /// The value of a two-player position by the search that stops at the first winning move
    /// ([`quick`]), then its remoteness where affordable ([`Analyzer::remoteness_in_share`]).
    /// `None`: the full solver answers (it already knows the position, the game is loopy, or
    /// `--full-search` asked for it).
    fn value_first(&mut self, pos: &G::Pos) -> GameResult<Option<Solution>> {
        let Some(quick) = self.quick.as_mut() else { return Ok(None) };
        // `moves` on a loopy game: once a move's position showed it, the full solver answers
        // the others (each one's loop would be found again, at a cost).
        if (self.defer && self.loopy) || self.values.knows(pos)? {
            return Ok(None);
        }
        let started = crate::progress::cpu_time();
        let (visited, evicted) = (quick.visited(), quick.evicted());
        let value = quick.value(pos);
        self.reached = if quick.evicted() == evicted { quick.visited() - visited } else { 0 };
        let value = match value {
            Ok(Some(value)) => value,
            // Loopy, or a path too deep for its share of the budget: the full solver answers.
            Ok(None) => {
                // `moves` on a loopy game: the full solver's analysis of everything reachable
                // from the position the moves are made from answers every move at once (one
                // move at a time, it would go over what they share again and again).
                if self.defer
                    && !self.loopy
                    && let Some(parent) = self.moves_from.take()
                {
                    self.loopy = true;
                    self.values.solve(&parent)?;
                }
                self.loopy = true;
                return Ok(None);
            }
            Err(GameError::OutOfMemory(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        if !self.opts.remoteness {
            self.remoteness_note.get_or_insert_with(|| "not searched (--no-remoteness)".into());
            return Ok(Some(Solution { value, remoteness: None }));
        }
        if self.defer {
            self.deferred += 1;
            self.deferred_took += crate::progress::cpu_time() - started;
            return Ok(Some(Solution { value, remoteness: None }));
        }
        let why = "the value comes from a search that stops at the first winning move";
        self.remoteness_in_share(pos, value, crate::progress::cpu_time() - started, why, false).map(Some)
    }

    /// The value and remoteness of `pos`, in a two-player game whose reachable positions
    /// outgrew the memory budget after `took` of processor time, where a win or a
    /// loss is proved by depth-bounded searches alone ([`quick::QuickSolver::prove`]): in what
    /// is left of `--time-limit`, or without one, in as much processor time again as the
    /// full search took (60 s at least). `None` when none is found in that time.
    fn prove(&mut self, pos: &G::Pos, took: std::time::Duration) -> GameResult<Option<Solution>> {
        let Some(quick) = self.quick.as_mut() else { return Ok(None) };
        let progress = &self.opts.progress;
        let before =
            progress.time_left().is_none().then(|| progress.share(took.max(std::time::Duration::from_secs(60))));
        let proof = quick.prove(pos);
        if let Some(before) = before {
            progress.restore_share(before);
        }
        match proof {
            Ok(found) => {
                self.proved = found.is_some();
                Ok(found.map(|(value, r)| Solution { value, remoteness: Some(r) }))
            }
            Err(GameError::OutOfMemory(_)) => Ok(None),
            Err(GameError::TimeLimit(_)) if !progress.expired() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `value` is known for `pos` (it took `took` of processor time): add its remoteness by a
    /// full search given four times as much processor time (10 s to 30 s, within the time
    /// limit): a share of work, so that a busy machine gets the same answer; when that does not finish, the
    /// value alone, with a note saying `why` the value is known without it. Once a search has
    /// run out of its share, later positions of the same command get their value alone.
    /// `from_parts`: the value came from the game's own `split`, which may be wrong (the full
    /// search then answers); otherwise a disagreement is an internal error.
    fn remoteness_in_share(
        &mut self,
        pos: &G::Pos,
        value: Value,
        took: std::time::Duration,
        why: &str,
        from_parts: bool,
    ) -> GameResult<Solution> {
        use std::time::Duration;
        let whole = (took * 4).clamp(Duration::from_secs(10), Duration::from_secs(30));
        let mut share = whole;
        // A win or a loss found by the value-first search: first the depth-bounded searches
        // for its remoteness alone (half the share), then the full search (what is left).
        if !self.remoteness_cut
            && !from_parts
            && let Some(quick) = self.quick.as_mut()
        {
            let started = crate::progress::cpu_time();
            let before = self.opts.progress.share(share / 2);
            let bounded = quick.remoteness(pos, value);
            self.opts.progress.restore_share(before);
            match bounded {
                Ok(Some(r)) => return Ok(Solution { value, remoteness: Some(r) }),
                Ok(None) | Err(GameError::OutOfMemory(_)) => {}
                Err(GameError::TimeLimit(_)) if !self.opts.progress.expired() => {}
                Err(e) => return Err(e),
            }
            share = share.saturating_sub(crate::progress::cpu_time() - started).max(Duration::from_secs(1));
        }
        if !self.remoteness_cut {
            let before = self.opts.progress.share(share);
            self.values.reaching_at_least(if from_parts { 0 } else { std::mem::take(&mut self.reached) });
            let full = self.values.solve(pos);
            self.opts.progress.restore_share(before);
            match full {
                Ok((s, _)) if s.value == value => return Ok(s),
                // A value from the parts that the whole position's search contradicts: the
                // game's `split` is wrong there (`gamesman check` says where); the search of
                // the rules themselves answers, as it did before the parts were asked.
                Ok((s, _)) if from_parts => return Ok(s),
                Ok((s, _)) => {
                    return Err(GameError::Definition(format!(
                        "internal error: {why} ({value}), but the full search says {} at {}",
                        s.value,
                        self.game.format(pos)?
                    )));
                }
                Err(GameError::TimeLimit(_)) if !self.opts.progress.expired() => {}
                // The command's own time limit: the value stands, the remoteness was not found.
                Err(GameError::TimeLimit(_)) => {
                    self.remoteness_cut = true;
                    self.remoteness_note = Some(TIME_LIMIT_NOTE.into());
                    return Ok(Solution { value, remoteness: None });
                }
                Err(GameError::OutOfMemory(_)) => {}
                Err(e) => return Err(e),
            }
            self.remoteness_cut = true;
        }
        self.remoteness_note.get_or_insert_with(|| {
            format!(
                "not computed: {why}, and the search for remoteness did not finish in its share of processor time ({:.0} s); \
                 --full-search waits for it",
                whole.as_secs_f64()
            )
        });
        Ok(Solution { value, remoteness: None })
    }

    /// `mv` from `pos`, described with the value of the position it leads to; `here` is the
    /// remoteness of `pos` (what a puzzle's move is measured against).
    pub fn describe(&mut self, pos: &G::Pos, mv: &G::Move, here: Option<u32>) -> GameResult<(MoveInfo, G::Pos)> {
        let child = self.game.play(pos, mv)?;
        let (s, g) = self.value(&child)?;
        let info = MoveInfo {
            name: self.game.move_name(pos, mv)?,
            position: self.game.format(&child)?,
            value: s.value,
            remoteness: s.remoteness,
            grundy: g,
            mover: mover_value(self.game.kind(), here, s.value, s.remoteness),
        };
        Ok((info, child))
    }

    /// The remoteness a puzzle's moves are measured against (`None` for two players, whose
    /// moves are valued by their children alone).
    pub fn here(&mut self, pos: &G::Pos) -> GameResult<Option<u32>> {
        if self.game.kind() != Kind::Puzzle {
            return Ok(None);
        }
        Ok(self.value(pos)?.0.remoteness)
    }

    /// Every move from `pos` with its child's value; none where the game is over (a
    /// primitive position, such as a finished board or a solved puzzle).
    pub fn moves(&mut self, pos: &G::Pos) -> GameResult<Vec<MoveInfo>> {
        self.remoteness_cut = false;
        self.move_list(pos)
    }

    /// `moves` in two steps, the first: every move from `pos` with the value of the position
    /// it leads to, `each` called with each move as soon as its value is known (and whether
    /// its remoteness is still to come). Where the value-first search ([`quick`]) found the
    /// value, the remoteness is left out (`None`) for [`Analyzer::fill_remoteness`]: it needs
    /// a full search, which may not finish in its share of time. Elsewhere (a database, a
    /// closed form, an impartial game, `--full-search`) each move comes complete.
    pub fn move_values(&mut self, pos: &G::Pos, each: &mut dyn FnMut(&MoveInfo, bool)) -> GameResult<Vec<MoveInfo>> {
        self.remoteness_cut = false;
        self.pending.clear();
        self.deferred_took = std::time::Duration::ZERO;
        self.loopy = false;
        self.moves_from = Some(pos.clone());
        self.defer = true;
        let result = self.move_values_deferred(pos, each);
        self.defer = false;
        self.moves_from = None;
        result
    }

    fn move_values_deferred(
        &mut self,
        pos: &G::Pos,
        each: &mut dyn FnMut(&MoveInfo, bool),
    ) -> GameResult<Vec<MoveInfo>> {
        if self.game.primitive(pos)?.is_some() {
            return Ok(Vec::new());
        }
        let here = self.here(pos)?;
        let mut out = Vec::new();
        for mv in self.game.moves(pos)? {
            let before = self.deferred;
            let (info, child) = self.describe(pos, &mv, here)?;
            let pending = self.deferred != before && info.remoteness.is_none();
            if pending {
                self.pending.push((out.len(), child, info.value));
            }
            each(&info, pending);
            out.push(info);
        }
        Ok(out)
    }

    /// Did [`Analyzer::move_values`] leave any remoteness for later?
    pub fn remoteness_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// `moves` in two steps, the second: the remoteness [`Analyzer::move_values`] left out,
    /// filled in `list` (what it returned), as `solve` finds one position's: a share of
    /// processor time four times what the values took, all the moves together (10 s to 30 s,
    /// within the time limit); first the depth-bounded searches for a win's or a loss's
    /// remoteness alone (half the share), then the full search for the rest. The searches
    /// keep what they learn from one move to the next (one memo each for all the moves). Where
    /// they do not finish, the rest stay `None` and [`Analyzer::remoteness_note`] says why.
    pub fn fill_remoteness(&mut self, list: &mut [MoveInfo]) -> GameResult<()> {
        use std::time::Duration;
        let pending = std::mem::take(&mut self.pending);
        if pending.is_empty() {
            return Ok(());
        }
        let share = (self.deferred_took * 4).clamp(Duration::from_secs(10), Duration::from_secs(30));
        let started = crate::progress::cpu_time();
        let mut left = Vec::new();
        match self.quick.as_mut() {
            None => left = pending,
            Some(quick) => {
                let before = self.opts.progress.share(share / 2);
                let mut rest = pending.into_iter();
                let mut failed = None;
                for (i, child, value) in rest.by_ref() {
                    match quick.remoteness(&child, value) {
                        Ok(Some(r)) => list[i].remoteness = Some(r),
                        Ok(None) | Err(GameError::OutOfMemory(_)) => left.push((i, child, value)),
                        // Out of its half: the full search tries the rest (and says so when
                        // the command's own time limit is what ran out).
                        Err(GameError::TimeLimit(_)) => {
                            left.push((i, child, value));
                            break;
                        }
                        Err(e) => {
                            failed = Some(e);
                            break;
                        }
                    }
                }
                left.extend(rest);
                self.opts.progress.restore_share(before);
                if let Some(e) = failed {
                    return Err(e);
                }
            }
        }
        let share = share.saturating_sub(crate::progress::cpu_time() - started).max(Duration::from_secs(1));
        let before = self.opts.progress.share(share);
        let mut stopped = None;
        for (i, child, value) in left {
            match self.values.solve(&child) {
                Ok((s, _)) if s.value == value => list[i].remoteness = s.remoteness,
                Ok((s, _)) => {
                    stopped = Some(Err(GameError::Definition(format!(
                        "internal error: the search that stops at the first winning move says {value}, but the full \
                         search says {} at {}",
                        s.value,
                        self.game.format(&child)?
                    ))));
                    break;
                }
                Err(GameError::TimeLimit(_)) => {
                    stopped = Some(Ok("time"));
                    break;
                }
                Err(GameError::OutOfMemory(_)) => {
                    stopped = Some(Ok("memory"));
                    break;
                }
                Err(e) => {
                    stopped = Some(Err(e));
                    break;
                }
            }
        }
        self.opts.progress.restore_share(before);
        let why = "the values come from a search that stops at the first winning move";
        let note = match stopped {
            None => return Ok(()),
            Some(Err(e)) => return Err(e),
            Some(Ok("time")) if self.opts.progress.expired() => TIME_LIMIT_NOTE.to_string(),
            Some(Ok("time")) => format!(
                "not computed: {why}, and the search for remoteness did not finish in its share of processor time ({:.0} s); \
                 --full-search waits for it",
                share.as_secs_f64()
            ),
            Some(Ok(_)) => format!(
                "not computed: {why}, and the search for remoteness needed more than its share of the memory budget \
                 (--max-memory)"
            ),
        };
        self.remoteness_note = Some(note);
        Ok(())
    }

    fn move_list(&mut self, pos: &G::Pos) -> GameResult<Vec<MoveInfo>> {
        if self.game.primitive(pos)?.is_some() {
            return Ok(Vec::new());
        }
        let here = self.here(pos)?;
        let mut out = Vec::new();
        for mv in self.game.moves(pos)? {
            out.push(self.describe(pos, &mv, here)?.0);
        }
        Ok(out)
    }

    /// A sequence of moves from `pos` (a puzzle solution), each with the position it leads to
    /// and the moves left after it.
    fn path(&mut self, pos: &G::Pos, moves: Vec<G::Move>) -> GameResult<Vec<MoveInfo>> {
        let n = moves.len();
        let mut at = pos.clone();
        let mut out = Vec::with_capacity(n);
        // Every step's position as text: a long solution of a big board (66,667 presses on a
        // row of 100,000 lights) would need gigabytes. Past a quarter of the budget, the
        // positions are left out (empty) and only the moves are listed.
        let with_positions = (n as f64) * (self.game.format(pos)?.len() as f64) <= self.opts.max_memory as f64 / 4.0;
        for (i, mv) in moves.into_iter().enumerate() {
            let child = self.game.play(&at, &mv)?;
            out.push(MoveInfo {
                name: self.game.move_name(&at, &mv)?,
                position: if with_positions { self.game.format(&child)? } else { String::new() },
                value: Value::Win,
                remoteness: Some((n - i - 1) as u32),
                grundy: None,
                mover: Value::Win,
            });
            at = child;
        }
        Ok(out)
    }

    /// Two players: the moves that keep the value `v` of `pos` (to a losing child from a win,
    /// a tying child from a tie, a drawing child from a draw): the game's closed form where it
    /// has one, else every move's value.
    fn keeping_moves(&mut self, pos: &G::Pos, v: Value) -> GameResult<Vec<MoveInfo>> {
        if let Some(sc) = self.game.shortcut(pos)? {
            let mut out = Vec::with_capacity(sc.winning_moves.len());
            for mv in &sc.winning_moves {
                out.push(self.describe(pos, mv, None)?.0);
            }
            return Ok(out);
        }
        let want = match v {
            Value::Win => Value::Lose,
            Value::Lose => return Ok(Vec::new()),
            other => other,
        };
        // An impartial game whose values come from Grundy values alone: the winning moves
        // are the moves to a Grundy value of 0, which the Grundy solver tells without solving
        // each child exactly; only those children are described.
        if want == Value::Lose
            && !self.opts.remoteness
            && self.db.is_none()
            && self.arrays.is_none()
            && self.game.primitive(pos)?.is_none()
            && let Some(solver) = self.grundy.as_mut()
        {
            let mut out = Vec::new();
            let mut undefined = false;
            for mv in self.game.moves(pos)? {
                let child = self.game.play(pos, &mv)?;
                match solver.is_zero(&child) {
                    Ok(true) => out.push(mv),
                    Ok(false) => {}
                    Err(GameError::Unsupported(_)) => {
                        undefined = true;
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
            if !undefined {
                let mut infos = Vec::with_capacity(out.len());
                for mv in &out {
                    infos.push(self.describe(pos, mv, None)?.0);
                }
                return Ok(infos);
            }
        }
        Ok(self.move_list(pos)?.into_iter().filter(|m| m.value == want).collect())
    }

    /// The moves from `pos`, proved won in `r` moves by depth-bounded searches, to positions
    /// lost within `r - 1`: those that win soonest. A slower win is not told from a draw by
    /// those searches, so it is not listed.
    fn soonest_wins(&mut self, pos: &G::Pos, r: u32) -> GameResult<Vec<MoveInfo>> {
        let mut out = Vec::new();
        for mv in self.game.moves(pos)? {
            let child = self.game.play(pos, &mv)?;
            let quick = self.quick.as_mut().expect("a position proved won by the value-first search's tables");
            if r > 0 && quick.lost_within(&child, r - 1)? {
                out.push(MoveInfo {
                    name: self.game.move_name(pos, &mv)?,
                    position: self.game.format(&child)?,
                    value: Value::Lose,
                    remoteness: Some(r - 1),
                    grundy: None,
                    mover: Value::Win,
                });
            }
        }
        Ok(out)
    }

    /// A puzzle's shortest solution from `pos` (`n` moves): from the database, else the game's
    /// closed form, else the search that found the value, else a new search.
    fn solution_path(&mut self, pos: &G::Pos, n: u32) -> GameResult<Vec<G::Move>> {
        if self.db.is_some()
            && let Some(path) = self.saved_path(pos, n)?
        {
            return Ok(path);
        }
        if let Some(sc) = self.game.shortcut(pos)? {
            return Ok(sc.winning_moves);
        }
        if let Some((at, path)) = self.last_path.take()
            && at == *pos
        {
            return Ok(path);
        }
        let sol = puzzle::solve_puzzle(&*self.game, pos, self.opts.max_memory, &self.opts.progress)?;
        self.puzzle_visited += sol.visited;
        Ok(sol.path.map(|p| p.into_iter().map(|(m, _)| m).collect()).unwrap_or_default())
    }

    /// A shortest solution of a puzzle from its saved distances: at each step, a move to a
    /// position one step nearer. `None` when the database does not hold every step.
    fn saved_path(&mut self, pos: &G::Pos, n: u32) -> GameResult<Option<Vec<G::Move>>> {
        let mut at = pos.clone();
        let mut path = Vec::with_capacity(n as usize);
        for left in (0..n).rev() {
            let mut next = None;
            for mv in self.game.moves(&at)? {
                let child = self.game.play(&at, &mv)?;
                if let Some(rec) = self.saved(&child)?
                    && rec.value == Value::Win
                    && rec.remoteness == Some(left)
                {
                    next = Some((mv, child));
                    break;
                }
            }
            let Some((mv, child)) = next else { return Ok(None) };
            path.push(mv);
            at = child;
        }
        Ok(Some(path))
    }

    /// Everything `solve` reports. The value comes from the first answer source that has it
    /// ([`Analyzer::value`]: the database, the game's closed form, search); the moves that
    /// keep it likewise (`keeping_moves`, `solution_path`).
    pub fn solve(&mut self, pos: &G::Pos) -> GameResult<Report> {
        // `--endgame` on a game that has no parts on keys, or with a bound it cannot hold.
        if let Some(bound) = self.opts.endgame.as_ref().and_then(|e| e.bound.as_deref()) {
            let space = self.grundy.as_ref().and_then(|_| self.game.packed_sum(pos));
            part_db::parts_within(space.as_deref(), bound)?;
        }
        self.remoteness_cut = false;
        let position = self.game.format(pos)?;
        let source = if self.saved(pos)?.is_some() { "database" } else { "search" };
        self.proved = false;
        let (s, grundy) = self.value(pos)?;
        let source = if self.proved { "bounded" } else { source };
        if grundy.is_none() && source == "database" && self.game.kind() == Kind::Impartial && self.grundy_note.is_none()
        {
            self.grundy_note = Some(
                "none in the saved database: a position on a loop, a misère game, or a primitive that is not a \
                 normal-play loss"
                    .into(),
            );
        }
        // None where they are not asked for (`--no-moves`).
        let moves = self.opts.moves.then(|| match (self.game.kind(), s.value) {
            (Kind::Puzzle, Value::Win) => {
                self.solution_path(pos, s.remoteness.unwrap_or(0)).and_then(|path| self.path(pos, path))
            }
            (Kind::Puzzle, _) => Ok(Vec::new()),
            (_, Value::Win) if source == "bounded" => self.soonest_wins(pos, s.remoteness.unwrap_or(0)),
            (_, v) => self.keeping_moves(pos, v),
        });
        // An answer read from a saved database is checked against its children's saved
        // values, read anyway to list the moves: one that contradicts itself (a win with no
        // move to a loss, a loss with a move to anything but a win) is a damaged database,
        // never printed.
        if source == "database" && self.opts.moves && self.game.kind() != Kind::Puzzle {
            let all = self.move_list(pos)?;
            let wrong = match s.value {
                _ if all.is_empty() => None,
                Value::Win if !all.iter().any(|m| m.value == Value::Lose) => Some("no move to a lost position"),
                Value::Lose if all.iter().any(|m| m.value != Value::Win) => Some("a move to a position not won"),
                Value::Tie | Value::Draw if all.iter().any(|m| m.value == Value::Lose) => {
                    Some("a move to a lost position")
                }
                _ => None,
            };
            if let Some(why) = wrong {
                let path = match (&self.arrays, &self.db) {
                    (Some(a), _) => a.path().display().to_string(),
                    (None, Some(d)) => d.path().display().to_string(),
                    (None, None) => "the database".to_string(),
                };
                return Err(GameError::Database(format!(
                    "{path}: the database is damaged: it says {} is a {} but lists {why}; remove it (`gamesman db rm \
                     {path}`) and save again",
                    position.trim_end().replace('\n', "/"),
                    s.value
                )));
            }
        }
        // The value stands when the time limit runs out while its moves are looked for.
        let (winning_moves, moves_note) = match moves {
            None => (Vec::new(), Some(NO_MOVES_NOTE.to_string())),
            Some(Ok(m)) => (m, None),
            Some(Err(GameError::TimeLimit(_))) => {
                (Vec::new(), Some("not found: the time limit ran out (--time-limit) before they were".to_string()))
            }
            Some(Err(e)) => return Err(e),
        };
        Ok(Report {
            position,
            value: s.value,
            remoteness: s.remoteness,
            grundy,
            grundy_note: self.grundy_note.clone(),
            remoteness_note: self.remoteness_note.clone(),
            winning_moves,
            moves_note,
            moves_listed: self.opts.moves,
            visited: self.visited(),
            evicted: self.evicted(),
            source,
        })
    }
}
