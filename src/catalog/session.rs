//! One game behind position text, whatever its type: what every front end holds.
//!
//! [`Session`] is object-safe: the CLI, the web server and sums hold a `Box<dyn Session>` and
//! never name a game's type. [`Live`] is the one implementation over any [`Game`]: an
//! [`Analyzer`] that owns the game, the game's database, and the whole-game work (`analyze`,
//! `--save`, `export`, `strategy`, the self-check).

use super::how::{Database, How};
use super::tier_count;
use crate::db::array::ArrayDb;
use crate::db::{self, Identity, Record, Store};
use crate::game::{Board, Game, GameError, GameInfo, GameResult, Kind, Value};
use crate::progress::Progress;
use crate::solve::census::{Census, census, census_threaded, census_up_to_symmetry};
use crate::solve::{Analyzer, MoveInfo, Report, Solution, consistency, mover_value, strategy, tier};
use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use serde_json::Value as Json;
use std::path::PathBuf;
use std::time::Instant;

/// Bytes a tier costs the walk of the tier graph (its entry in the set of tiers seen and in
/// the order, and its child tiers on the walk's stack).
const TIER_WALK_BYTES: u64 = 64;

/// A cell of a drawn position, and what a click on it does.
#[derive(Clone, Debug)]
pub struct Cell {
    pub text: String,
    /// The move a click makes (its `name` is the click's text) and the value it leads to.
    pub click: Option<MoveInfo>,
}

/// A position drawn as a grid, each cell's click valued.
#[derive(Clone, Debug)]
pub struct BoardView {
    pub rows: usize,
    pub cols: usize,
    pub cells: Vec<Cell>,
}

/// What a save wrote.
#[derive(Clone, Debug)]
pub struct Saved {
    /// Positions saved: for a tier save, those reachable from the root (symmetry classes
    /// where `classes_only`), not the tiers' index slots.
    pub positions: u64,
    pub path: PathBuf,
    pub bytes: u64,
    pub seconds: f64,
    /// A tier save: the index slots of its tiers (every index, reachable or not) and its tiers.
    pub indices: Option<(u64, usize)>,
    /// A tier save whose root has symmetric images: `positions` counts symmetry classes.
    pub classes_only: bool,
}

/// What `gamesman db bench` measures.
#[derive(Clone, Debug)]
pub struct DbBench {
    pub path: PathBuf,
    pub positions: usize,
    pub bytes: u64,
    pub open_seconds: f64,
    pub lookup_seconds: f64,
    pub samples: usize,
    pub move_mean_seconds: f64,
    pub move_worst_seconds: f64,
    pub moves_per_position: f64,
    /// The same moves again, the blocks they read now cached (a tier solve's arrays).
    pub move_warm_seconds: Option<f64>,
}

/// A game behind position text. Positions go in and out as the game writes them.
pub trait Session {
    fn info(&self) -> &GameInfo;
    fn kind(&self) -> Kind {
        self.info().kind
    }
    /// "script", "descriptor", "native" or "sum": which engine answers.
    fn engine(&self) -> &'static str;
    /// What names the game's database (`None` for a game that has none, such as a sum).
    fn identity(&self) -> Option<&Identity>;
    /// The path of the game's database, saved or not.
    fn database_path(&self) -> Result<PathBuf>;

    // --- Positions ---

    /// The start position's text, if the game has one.
    fn start(&self) -> GameResult<Option<String>>;
    /// Position text as the game writes it (checked by reading it).
    fn normalize(&self, text: &str) -> GameResult<String>;
    /// One representative of the positions symmetric to `text`.
    fn canonical(&self, text: &str) -> GameResult<String>;
    /// The position drawn for a person.
    fn show(&self, text: &str) -> GameResult<String>;
    /// Whose turn: 0, 1, or `None` where the game does not say.
    fn to_move(&self, text: &str) -> GameResult<Option<usize>>;
    /// The value for the player to move if the game is over here (primitive).
    fn primitive(&self, text: &str) -> GameResult<Option<Value>>;
    /// The value if the game is over: primitive, or no moves left.
    fn ended(&self, text: &str) -> GameResult<Option<Value>>;
    /// The value of a non-primitive position with no moves.
    fn stalemate(&self) -> Value;
    /// The legal moves' names.
    fn move_names(&self, text: &str) -> GameResult<Vec<String>>;
    /// Every move's name and the position it leads to; none where the game is over.
    fn children(&self, text: &str) -> GameResult<Vec<(String, String)>>;
    /// A move as a person types it: its name as the game writes it, and the position after it.
    fn play(&self, text: &str, mv: &str) -> GameResult<(String, String)>;
    /// The `i`-th legal move (in the order of `move_names` and `moves`).
    fn play_nth(&self, text: &str, i: usize) -> GameResult<(String, String)>;
    /// `count` positions reached by random play (0 to `depth` moves) from `from`, or from the
    /// start position.
    fn random_positions(
        &self,
        from: Option<&str>,
        rng: &mut fastrand::Rng,
        count: usize,
        depth: usize,
    ) -> Result<Vec<String>>;

    // --- Answers (the database first, then the game's closed form, then search) ---

    fn solve(&mut self, text: &str) -> GameResult<Report>;
    /// Value and remoteness, and the Grundy value where defined.
    fn value(&mut self, text: &str) -> GameResult<(Solution, Option<u64>)>;
    /// "database" where the saved database holds the position, else "search".
    fn source(&mut self, text: &str) -> GameResult<&'static str>;
    /// Every move with the value of the position it leads to.
    fn moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>>;
    /// `moves` in two steps, the first: every move with its value, `each` called with each
    /// as soon as it is known (and whether its remoteness is still to come). A remoteness
    /// that needs a full search is left out (`None`) for [`Session::fill_remoteness`].
    fn move_values(&mut self, text: &str, each: &mut dyn FnMut(&MoveInfo, bool)) -> GameResult<Vec<MoveInfo>>;
    /// `moves` in two steps, the second: the remoteness `move_values` left out, filled in
    /// `list` where the full search finishes in its share of time (else
    /// [`Session::remoteness_note`] says why). Nothing to do when none was left out.
    fn fill_remoteness(&mut self, list: &mut [MoveInfo]) -> GameResult<()>;
    /// Did `move_values` leave a remoteness for later?
    fn remoteness_pending(&self) -> bool;
    /// The Grundy value: the game's closed form where it has one, else by search.
    fn grundy(&mut self, text: &str) -> GameResult<Option<u64>>;
    /// Every move with the Grundy value of the position it leads to (what a sum needs).
    fn grundy_moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>>;
    /// The position as a grid whose cells are clicked as moves, each click valued.
    fn board(&mut self, text: &str) -> GameResult<Option<BoardView>>;
    /// The position as the game draws it (cells and the move each cell's click types),
    /// nothing valued: as cheap as reading the position.
    fn grid(&self, text: &str) -> GameResult<Option<Board>>;
    /// Positions searched so far.
    fn visited(&self) -> u64;
    /// Why a remoteness search was skipped, if one was.
    fn remoteness_note(&self) -> Option<String>;
    /// Forget every search (after an error); the database stays.
    fn reset(&mut self);

    // --- The whole game ---

    /// `analyze`: the report of everything reachable (saved with the database when `save`,
    /// read from it when it holds one), as JSON.
    fn analyze(&mut self, text: &str, threads: usize, save: bool) -> Result<(Json, Option<Saved>)>;
    /// Solve everything reachable and save it in the game's database.
    fn save(&mut self, text: &str, threads: usize) -> Result<Saved>;
    /// `--save --mpi`: the tier solver over MPI, run under `mpirun` (docs/mpi.md). On rank 0,
    /// the manager, what was saved; on a worker rank, `None` once the manager has stopped it.
    /// Workers solve with `threads` threads. An error in a build without the feature `mpi`.
    fn save_mpi(&mut self, text: &str, threads: usize) -> Result<Option<Saved>>;
    /// Every position of the saved database (`text` = `None`), or of everything reachable from
    /// `text` (or the start) solved now.
    fn export(&mut self, text: Option<&str>, emit: &mut dyn FnMut(&str, Record) -> Result<()>) -> Result<()>;
    /// A winning strategy from `text`, as a tree (at most `max_nodes` positions).
    fn strategy(&mut self, text: &str, max_nodes: usize) -> GameResult<Vec<strategy::Node>>;
    /// The first way the game disagrees with its own moves at one of `positions`.
    fn self_check(&mut self, positions: &[String]) -> GameResult<Option<String>>;
    /// Time the saved database: opening, lookups, `play` moves.
    /// `root`: the position a tier solve was saved from (default: the start).
    fn db_bench(&mut self, samples: usize, root: Option<&str>) -> Result<DbBench>;
    /// What the game's engine can do (`gamesman info`).
    fn features(&self) -> Features;
}

/// What a game's engine can do, and whether its database is saved.
#[derive(Clone, Debug)]
pub struct Features {
    /// Solved tier by tier (`--save` writes an array database).
    pub tiers: bool,
    /// A position splits into parts whose Grundy values add up.
    pub split: bool,
    /// The saved database (a file, or a folder of tiers), if there is one.
    pub saved: Option<PathBuf>,
}

/// Where a session's database is, and whether it has been opened yet.
struct DbState {
    mode: Database,
    path: Option<PathBuf>,
    /// Opened (or found absent) since the last save.
    attached: bool,
}

/// A tier solve made for this command alone (no `--save`), in the temporary directory:
/// removed when the session ends.
struct Scratch {
    dir: PathBuf,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A game of type `G` as a [`Session`].
pub struct Live<G: Game> {
    a: Analyzer<G>,
    engine: &'static str,
    identity: Option<Identity>,
    db: DbState,
    /// The tier solve of this command, where the search could not answer without it.
    scratch: Option<Scratch>,
}

impl<G: Game> Live<G> {
    pub fn new(game: G, engine: &'static str, how: &How, identity: Option<Identity>) -> Result<Self> {
        let path = match (&how.database, &identity) {
            (Database::Off, _) => None,
            (Database::At(p), _) => Some(p.clone()),
            (_, Some(id)) => db::default_dir().ok().map(|d| d.join(id.file_name())),
            (_, None) => None,
        };
        // The endgame database of parts lives beside the solved-game databases, named by the
        // same identity (`--no-db`: none).
        let mut options = how.options.clone();
        if let Some(e) = options.endgame.as_mut() {
            match (&how.database, &identity) {
                (Database::Off, _) => options.endgame = None,
                (_, Some(id)) => {
                    e.dir = db::default_dir().ok();
                    e.game = id.file_name().trim_end_matches(".redb").to_string();
                }
                (_, None) => e.dir = None,
            }
        }
        Ok(Live {
            a: Analyzer::new(game, options),
            engine,
            identity,
            db: DbState { mode: how.database.clone(), path, attached: false },
            scratch: None,
        })
    }

    fn game(&self) -> &G {
        self.a.game()
    }

    /// Open the game's database before the first answer (and after a save).
    fn attach(&mut self) -> GameResult<()> {
        if self.db.attached {
            return Ok(());
        }
        self.db.attached = true;
        let Some(path) = self.db.path.clone() else { return Ok(()) };
        let hash = self.identity.as_ref().map(|id| id.hash.as_str());
        if let Some(dir) = self.tiers_dir()
            && dir.exists()
        {
            match ArrayDb::open(&dir, hash) {
                Ok(arrays) => self.a.set_arrays(Some(arrays)),
                Err(e) if self.db.mode == Database::SavedOrSearch => {
                    eprintln!("gamesman: warning: {e} (searching instead)");
                }
                Err(e) => return Err(e.into()),
            }
            if matches!(self.db.mode, Database::At(_)) {
                return Ok(());
            }
        }
        if !path.exists() {
            if matches!(self.db.mode, Database::At(_)) {
                return Err(GameError::Database(format!(
                    "{}: no such database (write one with `--save`)",
                    path.display()
                )));
            }
            return Ok(());
        }
        match Store::open(&path, hash) {
            Ok(store) => self.a.set_database(Some(store)),
            Err(e) if self.db.mode == Database::SavedOrSearch => {
                eprintln!("gamesman: warning: {e} (searching instead)");
            }
            Err(e) => return Err(e.into()),
        }
        Ok(())
    }

    fn parse(&self, text: &str) -> GameResult<G::Pos> {
        self.game().parse(text)
    }

    /// Where a game with tiers keeps its array database: beside the redb file of the same
    /// name with `.tiers` (a directory), or the `--db` path itself. `None` for a game
    /// without tiers.
    fn tiers_dir(&self) -> Option<PathBuf> {
        self.game().tiers()?;
        let path = self.db.path.clone()?;
        Some(if matches!(self.db.mode, Database::At(_)) { path } else { path.with_extension("tiers") })
    }

    /// `--save` of a game with tiers: the tier solver on `threads` threads, into the array
    /// database (refused first when a tier would not fit the memory budget).
    fn save_tiers(&mut self, root: &G::Pos, threads: usize) -> Result<Saved> {
        let started = Instant::now();
        let Some(dir) = self.tiers_dir() else { bail!("{}: this game has no database", self.info().name) };
        let Some(id) = self.identity.clone() else { bail!("{}: this game has no database", self.info().name) };
        // Lookups must not hold tier files the solve rewrites.
        self.a.set_arrays(None);
        self.db.attached = false;
        let root_tier = self.tiers_fit(root)?;
        let tiers = self.game().tiers().expect("a game with tiers");
        let arrays = ArrayDb::create(&dir, &id.hash)?;
        let opts = tier::TierOptions {
            threads: threads.max(1),
            memory: self.budget() as u64,
            ..tier::TierOptions::for_space(tiers, self.grundy_in_tiers())
        };
        let stats = tier::solve_with(tiers, root_tier, &arrays, &self.progress(), opts)?;
        drop(arrays);
        self.tiers_saved(root, dir, &id, &stats, started)
    }

    /// The root's tier, once every tier reachable from it is known to fit the memory budget
    /// of the tier solver (checked before anything is solved or created).
    fn tiers_fit(&self, root: &G::Pos) -> GameResult<crate::game::tier::Tier> {
        let Some(tiers) = self.game().tiers() else {
            return Err(GameError::Unsupported(format!("{}: this game has no tiers", self.info().name)));
        };
        let root_tier = tiers.try_locate(root)?.0;
        // The solver holds a tier's state (at most about 32 bytes an index; 24–27 on
        // Connect-Four) and its child tiers' arrays (2 bytes an index).
        // The walk of the tier graph is held too: each tier is checked as the walk meets it,
        // and the walk itself (some 64 bytes a tier) keeps to the budget.
        let budget = self.budget() as u64;
        let name = self.info().name.clone();
        let mut walked = 0u64;
        let mut over = false;
        let mut check = |t: crate::game::tier::Tier| -> GameResult<()> {
            walked += 1;
            if walked.saturating_mul(TIER_WALK_BYTES) > budget {
                return Err(GameError::OutOfMemory(format!(
                    "{name}: more than {walked} tiers are reachable, and their walk alone takes more than the memory \
                     budget of {} MiB (--max-memory)",
                    budget >> 20
                )));
            }
            let size = tiers.tier_size(t);
            // Past 2^32 a tier is solved only in slices: where no move stays in it.
            if size > u32::MAX as u64 && tiers.moves_within(t) {
                return Err(GameError::OutOfMemory(format!(
                    "{name}: the tier {} has {}, more than the 2^32 positions the tier solver indexes in a tier",
                    tiers.tier_name(t),
                    if size == u64::MAX { "2^64 positions or more".to_string() } else { format!("{size} positions") }
                )));
            }
            // Past the budget: named once the walk is done (the first such tier in the order
            // the solver takes them), unless a tier past 2^32 is met on the way.
            over |= tier::fit_bytes(tiers, t) > budget;
            Ok(())
        };
        let order = crate::game::tier::tier_order_checked(tiers, root_tier, &mut check)?;
        if let Some(&t) = order.iter().find(|&&t| over && tier::fit_bytes(tiers, t) > budget) {
            let need = tier::fit_bytes(tiers, t);
            return Err(GameError::OutOfMemory(format!(
                "{name}: the tier {} has {} positions, and solving it takes at least {} MiB ({} bytes a position, or \
                 of a slice of it, and 2 for each of its child tiers'), more than the memory budget of {} MiB \
                 (--max-memory)",
                tiers.tier_name(t),
                tiers.tier_size(t),
                need.div_ceil(1 << 20),
                tier::TIER_BYTES_AN_INDEX,
                budget >> 20
            )));
        }
        if let Some(e) = tiers.failure() {
            return Err(e);
        }
        Ok(root_tier)
    }

    /// Answer by `ask`; where the search needs more than the memory budget and the game has
    /// tiers (and no saved tier solve is open), solve the tiers from `pos` for this command
    /// alone (into the temporary directory, removed at the end) and ask again, from the arrays.
    fn or_by_tiers<T>(
        &mut self,
        pos: &G::Pos,
        mut ask: impl FnMut(&mut Analyzer<G>) -> GameResult<T>,
    ) -> GameResult<(T, bool)> {
        match ask(&mut self.a) {
            Err(GameError::OutOfMemory(why)) if self.game().tiers().is_some() && self.a.arrays().is_none() => {
                self.a.reset();
                if let Err(e) = self.solve_tiers_now(pos) {
                    return Err(match e {
                        GameError::OutOfMemory(tiers) => {
                            GameError::OutOfMemory(format!("{why}; and by tiers: {tiers}"))
                        }
                        e => e,
                    });
                }
                Ok((ask(&mut self.a)?, true))
            }
            r => r.map(|t| (t, false)),
        }
    }

    /// The tier solve of everything reachable from `pos`'s tier, into a temporary directory
    /// that lives as long as the session; read first from then on.
    fn solve_tiers_now(&mut self, pos: &G::Pos) -> GameResult<()> {
        let root_tier = self.tiers_fit(pos)?;
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("gamesman-{}-{stamp}.tiers", std::process::id()));
        let scratch = Scratch { dir: dir.clone() };
        let hash = self.identity.as_ref().map_or("scratch", |id| id.hash.as_str());
        let arrays = ArrayDb::create(&dir, hash)?;
        let tiers = self.game().tiers().expect("a game with tiers");
        let opts = tier::TierOptions {
            memory: self.budget() as u64,
            ..tier::TierOptions::for_space(tiers, self.grundy_in_tiers())
        };
        tier::solve_with(tiers, root_tier, &arrays, &self.progress(), opts)?;
        self.a.set_arrays(Some(arrays));
        self.scratch = Some(scratch);
        Ok(())
    }

    /// After a tier save: count the positions reachable from `root` through the arrays (a
    /// tier solve solves every index, reachable or not), write the save's `meta` file (what
    /// `gamesman db list` and `db info` print), and say what was saved.
    fn tiers_saved(
        &mut self,
        root: &G::Pos,
        dir: PathBuf,
        id: &Identity,
        stats: &tier::TierStats,
        started: Instant,
    ) -> Result<Saved> {
        self.a.set_arrays(Some(ArrayDb::open(&dir, Some(&id.hash))?));
        self.db.attached = true;
        let report = self.analyze_tiers(root, Instant::now())?;
        let count = |k: &str| report.as_ref().and_then(|r| r[k].as_u64());
        let (positions, classes) = (count("positions").unwrap_or(stats.positions), count("classes"));
        let classes_only = report.is_some() && !Self::counts_images(&report);
        let bytes = crate::db::array::dir_bytes(&dir);
        let mut meta = vec![
            ("game", id.game.clone()),
            ("file", id.file.clone()),
            ("engine", id.engine.clone()),
            ("misere", if id.misere { "yes" } else { "no" }.to_string()),
            ("root", self.fmt(root)?.trim_end().replace('\n', "/")),
            ("positions", positions.to_string()),
        ];
        if let Some(c) = classes {
            meta.push(("classes", c.to_string()));
        }
        meta.push(("indices", stats.positions.to_string()));
        meta.push(("tiers", stats.tiers.to_string()));
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        meta.push(("created", secs.to_string()));
        crate::db::array::write_meta(&dir, &meta)?;
        Ok(Saved {
            positions,
            bytes,
            path: dir,
            seconds: started.elapsed().as_secs_f64(),
            indices: Some((stats.positions, stats.tiers)),
            classes_only,
        })
    }

    /// Whether an `analyze` report from the arrays counted the positions themselves (not
    /// only their symmetry classes).
    fn counts_images(report: &Option<Json>) -> bool {
        report.as_ref().and_then(|r| r["counted"].as_str()).is_some_and(|c| !c.contains("up to symmetry"))
    }

    /// Whether a tier solve of this game computes Grundy values: an impartial game under
    /// normal play (a position with no moves lost).
    fn grundy_in_tiers(&self) -> bool {
        self.game().kind() == Kind::Impartial && self.game().stalemate() == Value::Lose
    }

    /// `analyze` from a saved tier solve: the positions reachable from the root, counted
    /// from the arrays ([`super::tier_count`]); `None` without a finished tier solve.
    fn analyze_tiers(&mut self, root: &G::Pos, started: Instant) -> Result<Option<Json>> {
        let (Some(tiers), Some(arrays)) = (self.game().tiers(), self.a.arrays()) else { return Ok(None) };
        let (root_tier, root_index) = tiers.try_locate(&self.game().canonical(root)?)?;
        let Some((here_rec, here_grundy)) = arrays.lookup(root_tier, tiers.tier_size(root_tier), root_index)? else {
            return Ok(None);
        };
        let Some(here) = crate::db::array::unrec(here_rec) else { return Ok(None) };
        let counted = tier_count::count(tiers, arrays, (root_tier, root_index), self.budget(), &self.progress())?;
        // A game whose numbering can fail (a script's hooks) keeps its error until asked.
        if let Some(e) = tiers.failure() {
            return Err(e.into());
        }
        let Some(counted) = counted else { return Ok(None) };
        let root = tier_count::Root {
            game: &self.info().name,
            kind: self.game().kind(),
            engine: self.engine,
            position: self.fmt(root)?,
            value: here.0,
            remoteness: here.1,
            grundy: here_grundy,
        };
        Ok(Some(tier_count::report(&counted, root, started.elapsed().as_secs_f64())))
    }

    /// Whether `root` (a representative, as tier and index) is the only member of its
    /// symmetry class: then, the rules being symmetric, every image of a reachable position
    /// is reachable too.
    fn alone_in_class(tiers: &dyn crate::game::tier::TierSpace, root: (crate::game::tier::Tier, u64)) -> bool {
        (0..tiers.tier_size(root.0)).into_par_iter().filter(|&i| tiers.canonical_index(root.0, i) == root.1).count()
            == 1
    }

    /// `export` from a saved tier solve: every position reachable from `root`, found by
    /// walking the arrays; the positions themselves when the root is alone in its symmetry
    /// class (as the census a redb store is written from), else one a class. `false` when
    /// there is no finished tier solve to read.
    fn export_tiers(&mut self, root: &G::Pos, emit: &mut dyn FnMut(&str, Record) -> Result<()>) -> Result<bool> {
        use crate::db::array::unrec;
        let (Some(tiers), Some(arrays)) = (self.game().tiers(), self.a.arrays()) else { return Ok(false) };
        let game = self.a.game();
        let croot = tiers.try_locate(&game.canonical(root)?)?;
        if arrays.get(croot.0, tiers.tier_size(croot.0), croot.1)?.and_then(unrec).is_none() {
            return Ok(false);
        }
        let images = Self::alone_in_class(tiers, croot);
        let progress = self.progress();
        let mut failed: Option<anyhow::Error> = None;
        let mut out =
            |pos: &G::Pos, r: u16, grundy: Option<u64>, failed: &mut Option<anyhow::Error>| -> GameResult<()> {
                let Some((value, remoteness)) = unrec(r) else { return Ok(()) };
                if let Err(e) = emit(&game.format(pos)?, Record { value, remoteness, grundy }) {
                    *failed = Some(e);
                    return Err(GameError::Unsupported("export stopped".into()));
                }
                Ok(())
            };
        let walked =
            crate::solve::reach::walk(tiers, arrays, croot, self.budget(), &progress, &mut |t, array, reached| {
                let records = &array.records;
                if images {
                    for i in 0..tiers.tier_size(t) {
                        if i % 4096 == 0 && progress.expired() {
                            return Err(GameError::TimeLimit("the time limit ran out while exporting".into()));
                        }
                        let rep = tiers.canonical_index(t, i);
                        if reached.has(rep) {
                            out(
                                &tiers.try_position(t, i)?,
                                records[rep as usize],
                                array.grundy_at(rep as usize),
                                &mut failed,
                            )?;
                        }
                    }
                } else {
                    for (k, i) in reached.indices().enumerate() {
                        if k % 4096 == 0 && progress.expired() {
                            return Err(GameError::TimeLimit("the time limit ran out while exporting".into()));
                        }
                        out(&tiers.try_position(t, i)?, records[i as usize], array.grundy_at(i as usize), &mut failed)?;
                    }
                }
                Ok(())
            });
        if let Some(e) = failed {
            return Err(e);
        }
        if let Some(e) = tiers.failure() {
            return Err(e.into());
        }
        Ok(walked?.is_some())
    }

    /// `db bench` of a saved tier solve: lookups and `play` moves at positions drawn at
    /// random from the indices of the tiers reachable from `root` (default: the start),
    /// each replaced by its representative, read from the arrays.
    fn bench_tiers(&mut self, samples: usize, root: Option<&str>, started: Instant) -> Result<Option<DbBench>> {
        let start = match root {
            Some(t) => self.parse(t)?,
            None => match self.game().start()? {
                Some(s) => s,
                None => return Ok(None),
            },
        };
        let (Some(tiers), Some(arrays)) = (self.game().tiers(), self.a.arrays()) else { return Ok(None) };
        let order = crate::game::tier::tier_order(tiers, tiers.try_locate(&start)?.0);
        for &t in &order {
            if !arrays.has(t, tiers.tier_size(t))? {
                bail!(
                    "{}: tier {} is not saved (the solve did not finish: run it again)",
                    arrays.path().display(),
                    tiers.tier_name(t)
                );
            }
        }
        let open_seconds = started.elapsed().as_secs_f64();
        let sizes: Vec<u64> = order.iter().map(|&t| tiers.tier_size(t)).collect();
        let total: u64 = sizes.iter().sum();
        let mut rng = fastrand::Rng::with_seed(1);
        let mut sample = Vec::with_capacity(samples.clamp(1, 1 << 20));
        for _ in 0..samples.clamp(1, 1 << 20) {
            let mut u = rng.u64(..total);
            let mut k = 0;
            while u >= sizes[k] {
                u -= sizes[k];
                k += 1;
            }
            sample.push((order[k], tiers.canonical_index(order[k], u)));
        }
        let t0 = Instant::now();
        for &(t, i) in &sample {
            std::hint::black_box(arrays.get(t, tiers.tier_size(t), i)?);
        }
        let lookup_seconds = t0.elapsed().as_secs_f64() / sample.len() as f64;
        if let Some(e) = tiers.failure() {
            return Err(e.into());
        }
        let positions: Vec<G::Pos> =
            sample.iter().map(|&(t, i)| tiers.try_position(t, i)).collect::<GameResult<_>>()?;
        let bytes = arrays.bytes();
        let path = arrays.path().to_path_buf();
        let (mean, worst, per) = self.time_moves(&positions)?;
        // Again: the blocks read are cached now (as far as the cache holds them).
        let t = Instant::now();
        for p in &positions {
            let list = self.a.moves(p)?;
            std::hint::black_box(list.iter().min_by_key(|m| (m.value as u8, m.remoteness)));
        }
        let warm = t.elapsed().as_secs_f64() / positions.len() as f64;
        Ok(Some(DbBench {
            move_warm_seconds: Some(warm),
            path,
            positions: total as usize,
            bytes,
            open_seconds,
            lookup_seconds,
            samples: sample.len(),
            move_mean_seconds: mean,
            move_worst_seconds: worst,
            moves_per_position: per,
        }))
    }

    /// `db bench`'s timing of `moves` at each of `positions` and of what `play`'s perfect player
    /// does with the list (the best move for the mover): the mean and worst seconds a position,
    /// and the moves a position.
    fn time_moves(&mut self, positions: &[G::Pos]) -> Result<(f64, f64, f64)> {
        let (mut total, mut worst, mut moves) = (0.0f64, 0.0f64, 0usize);
        for p in positions {
            let t = Instant::now();
            let list = self.a.moves(p)?;
            std::hint::black_box(list.iter().min_by_key(|m| (m.value as u8, m.remoteness)));
            let dt = t.elapsed().as_secs_f64();
            total += dt;
            worst = worst.max(dt);
            moves += list.len();
        }
        let n = positions.len().max(1) as f64;
        Ok((total / n, worst, moves as f64 / n))
    }

    fn fmt(&self, pos: &G::Pos) -> GameResult<String> {
        self.game().format(pos)
    }

    fn progress(&self) -> Progress {
        self.a.options().progress.clone()
    }

    fn budget(&self) -> usize {
        self.a.options().max_memory
    }

    /// Solve everything reachable from `root` on `threads` threads; for a report alone,
    /// up to the symmetries that fix the root where the game packs its positions (a save
    /// keeps every position).
    fn census_of(&self, root: &G::Pos, threads: usize, report_only: bool) -> GameResult<Census<G::Pos>> {
        if report_only {
            census_up_to_symmetry(self.game(), root, self.budget(), &self.progress(), threads)
        } else {
            census_threaded(self.game(), root, self.budget(), &self.progress(), threads)
        }
    }

    /// Save a solved census and its report in the game's database.
    fn write(&mut self, c: &Census<G::Pos>, report: &Json) -> Result<Saved> {
        let started = Instant::now();
        let path = self.database_path()?;
        let Some(id) = self.identity.clone() else { bail!("{}: this game has no database", self.info().name) };
        let game = self.a.shared_game();
        let root = game.format(&c.graph.nodes.get(0).expect("the root"))?;
        let mut rows = (0..c.graph.len()).map(|i| -> Result<(String, Record)> {
            let s = c.solutions[i];
            let grundy = c.grundy.as_ref().map(|g| g[i]);
            Ok((
                game.format(&c.graph.nodes.get(i).expect("a node"))?,
                Record { value: s.value, remoteness: s.remoteness, grundy },
            ))
        });
        let n = db::save(&path, &id, &mut rows, Some((&root, &report.to_string())))
            .with_context(|| format!("saving the database {}", path.display()))?;
        // Read it from now on.
        self.a.set_database(None);
        self.db.attached = false;
        Ok(Saved {
            positions: n,
            bytes: std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
            path,
            seconds: started.elapsed().as_secs_f64(),
            indices: None,
            classes_only: false,
        })
    }

    fn move_info(&mut self, pos: &G::Pos, mv: &G::Move, here: Option<u32>) -> GameResult<MoveInfo> {
        Ok(self.a.describe(pos, mv, here)?.0)
    }
}

impl<G: Game> Session for Live<G> {
    fn info(&self) -> &GameInfo {
        self.game().info()
    }

    fn kind(&self) -> Kind {
        self.game().kind()
    }

    fn engine(&self) -> &'static str {
        self.engine
    }

    fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }

    fn database_path(&self) -> Result<PathBuf> {
        match &self.db.path {
            Some(p) => Ok(p.clone()),
            None => match &self.identity {
                Some(id) => Ok(db::default_dir()?.join(id.file_name())),
                None => bail!("{}: this game has no database", self.info().name),
            },
        }
    }

    fn start(&self) -> GameResult<Option<String>> {
        self.game().start()?.map(|p| self.fmt(&p)).transpose()
    }

    fn normalize(&self, text: &str) -> GameResult<String> {
        self.fmt(&self.parse(text)?)
    }

    fn canonical(&self, text: &str) -> GameResult<String> {
        self.fmt(&self.game().canonical(&self.parse(text)?)?)
    }

    fn show(&self, text: &str) -> GameResult<String> {
        self.game().show(&self.parse(text)?)
    }

    fn to_move(&self, text: &str) -> GameResult<Option<usize>> {
        self.game().to_move(&self.parse(text)?)
    }

    fn primitive(&self, text: &str) -> GameResult<Option<Value>> {
        self.game().primitive(&self.parse(text)?)
    }

    fn ended(&self, text: &str) -> GameResult<Option<Value>> {
        let pos = self.parse(text)?;
        if let Some(v) = self.game().primitive(&pos)? {
            return Ok(Some(v));
        }
        Ok(self.game().moves(&pos)?.is_empty().then(|| self.game().stalemate()))
    }

    fn stalemate(&self) -> Value {
        self.game().stalemate()
    }

    fn move_names(&self, text: &str) -> GameResult<Vec<String>> {
        let pos = self.parse(text)?;
        self.game().moves(&pos)?.iter().map(|m| self.game().move_name(&pos, m)).collect()
    }

    fn children(&self, text: &str) -> GameResult<Vec<(String, String)>> {
        let g = self.game();
        let pos = self.parse(text)?;
        if g.primitive(&pos)?.is_some() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for mv in g.moves(&pos)? {
            out.push((g.move_name(&pos, &mv)?, g.format(&g.play(&pos, &mv)?)?));
        }
        Ok(out)
    }

    fn play(&self, text: &str, mv: &str) -> GameResult<(String, String)> {
        let g = self.game();
        let pos = self.parse(text)?;
        let m = g.parse_move(&pos, mv)?;
        Ok((g.move_name(&pos, &m)?, g.format(&g.play(&pos, &m)?)?))
    }

    fn play_nth(&self, text: &str, i: usize) -> GameResult<(String, String)> {
        let g = self.game();
        let pos = self.parse(text)?;
        let moves = g.moves(&pos)?;
        let m = moves.get(i).ok_or_else(|| GameError::BadMove(format!("there is no move {i} here")))?;
        Ok((g.move_name(&pos, m)?, g.format(&g.play(&pos, m)?)?))
    }

    fn random_positions(
        &self,
        from: Option<&str>,
        rng: &mut fastrand::Rng,
        count: usize,
        depth: usize,
    ) -> Result<Vec<String>> {
        let g = self.game();
        let start = match from {
            Some(text) => g.parse(text)?,
            None => g.start()?.ok_or_else(|| {
                anyhow::anyhow!(
                    "{} has no start position to play random games from: give one with --from POSITION",
                    g.info().name
                )
            })?,
        };
        let mut out = Vec::with_capacity(count.min(1 << 16));
        for _ in 0..count {
            let mut pos = start.clone();
            for _ in 0..rng.usize(0..=depth) {
                if g.primitive(&pos)?.is_some() {
                    break;
                }
                let moves = g.moves(&pos)?;
                if moves.is_empty() {
                    break;
                }
                pos = g.play(&pos, &moves[rng.usize(..moves.len())])?;
            }
            out.push(g.format(&pos)?);
        }
        Ok(out)
    }

    fn solve(&mut self, text: &str) -> GameResult<Report> {
        self.attach()?;
        let pos = self.parse(text)?;
        let (mut report, by_tiers) = self.or_by_tiers(&pos, |a| a.solve(&pos))?;
        if by_tiers {
            report.source = "tiers";
        }
        Ok(report)
    }

    fn value(&mut self, text: &str) -> GameResult<(Solution, Option<u64>)> {
        self.attach()?;
        let pos = self.parse(text)?;
        Ok(self.or_by_tiers(&pos, |a| a.value(&pos))?.0)
    }

    fn source(&mut self, text: &str) -> GameResult<&'static str> {
        self.attach()?;
        let pos = self.parse(text)?;
        Ok(if self.a.saved(&pos)?.is_some() { "database" } else { "search" })
    }

    fn moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>> {
        self.attach()?;
        let pos = self.parse(text)?;
        Ok(self.or_by_tiers(&pos, |a| a.moves(&pos))?.0)
    }

    fn move_values(&mut self, text: &str, each: &mut dyn FnMut(&MoveInfo, bool)) -> GameResult<Vec<MoveInfo>> {
        self.attach()?;
        let pos = self.parse(text)?;
        Ok(self.or_by_tiers(&pos, |a| a.move_values(&pos, &mut *each))?.0)
    }

    fn fill_remoteness(&mut self, list: &mut [MoveInfo]) -> GameResult<()> {
        self.a.fill_remoteness(list)
    }

    fn remoteness_pending(&self) -> bool {
        self.a.remoteness_pending()
    }

    fn grundy(&mut self, text: &str) -> GameResult<Option<u64>> {
        let pos = self.parse(text)?;
        if let Some(sc) = self.game().shortcut_value(&pos)?
            && sc.grundy.is_some()
        {
            return Ok(sc.grundy);
        }
        self.a.grundy(&pos)
    }

    fn grundy_moves(&mut self, text: &str) -> GameResult<Vec<MoveInfo>> {
        let mut out = Vec::new();
        for (name, child) in self.children(text)? {
            let grundy = self.grundy(&child)?;
            let value = if grundy == Some(0) { Value::Lose } else { Value::Win };
            out.push(MoveInfo { name, position: child, value, remoteness: None, grundy, mover: value.flip() });
        }
        Ok(out)
    }

    fn board(&mut self, text: &str) -> GameResult<Option<BoardView>> {
        self.attach()?;
        let pos = self.parse(text)?;
        let Some(Board { rows, cols, cells, clicks }) = self.game().board(&pos)? else { return Ok(None) };
        let over = self.game().primitive(&pos)?.is_some();
        let here = self.a.here(&pos)?;
        let kind = self.game().kind();
        let mut out = Vec::with_capacity(cells.len());
        for (cell, click) in cells.into_iter().zip(clicks) {
            let mut c = Cell { text: cell, click: None };
            if let (false, Some(click)) = (over, click) {
                match self.game().parse_move(&pos, &click) {
                    Ok(mv) => {
                        let mut m = self.move_info(&pos, &mv, here)?;
                        m.mover = mover_value(kind, here, m.value, m.remoteness);
                        m.name = click;
                        c.click = Some(m);
                    }
                    Err(GameError::BadMove(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            out.push(c);
        }
        Ok(Some(BoardView { rows, cols, cells: out }))
    }

    fn grid(&self, text: &str) -> GameResult<Option<Board>> {
        self.game().board(&self.parse(text)?)
    }

    fn visited(&self) -> u64 {
        self.a.visited()
    }

    fn remoteness_note(&self) -> Option<String> {
        self.a.remoteness_note().map(str::to_string)
    }

    fn reset(&mut self) {
        self.a.reset();
    }

    fn analyze(&mut self, text: &str, threads: usize, save: bool) -> Result<(Json, Option<Saved>)> {
        let started = Instant::now();
        let root = self.parse(text)?;
        // The report saved with the database, unless this run is to save one.
        if !save {
            self.attach()?;
            if let Some(report) = self.analyze_tiers(&root, started)? {
                return Ok((report, None));
            }
            if let Some(store) = self.a.database()
                && let Some(saved) = store.census(&self.fmt(&root)?)?
            {
                let mut report: Json = serde_json::from_str(&saved)
                    .map_err(|e| anyhow::anyhow!("{}: a saved report is unreadable ({e})", store.path().display()))?;
                report["source"] = "database".into();
                report["seconds"] = started.elapsed().as_secs_f64().into();
                report["positions_visited"] = 0.into();
                return Ok((report, None));
            }
        }
        let c = self.census_of(&root, threads, !save)?;
        let mut report = c.report(self.game(), self.engine, started.elapsed().as_secs_f64())?;
        let saved = if save { Some(self.write(&c, &report)?) } else { None };
        report["source"] = "search".into();
        report["threads"] = c.threads.into();
        Ok((report, saved))
    }

    fn save(&mut self, text: &str, threads: usize) -> Result<Saved> {
        let started = Instant::now();
        let root = self.parse(text)?;
        if self.game().tiers().is_some() {
            return self.save_tiers(&root, threads);
        }
        let c = self.census_of(&root, threads, false)?;
        let report = c.report(self.game(), self.engine, started.elapsed().as_secs_f64())?;
        self.write(&c, &report)
    }

    #[cfg(not(feature = "mpi"))]
    fn save_mpi(&mut self, _text: &str, _threads: usize) -> Result<Option<Saved>> {
        bail!(
            "this gamesman was built without MPI: --mpi needs a build with the feature `mpi` \
             (`cargo build --release --features mpi`, see docs/mpi.md); --save alone solves on this machine"
        )
    }

    #[cfg(feature = "mpi")]
    fn save_mpi(&mut self, text: &str, threads: usize) -> Result<Option<Saved>> {
        let started = Instant::now();
        let root = self.parse(text)?;
        let name = self.info().name.clone();
        if self.game().tiers().is_none() {
            bail!(
                "{name}: --mpi runs the tier solver, and this game has no tiers (positions by index); use --save alone"
            );
        }
        let Some(dir) = self.tiers_dir() else { bail!("{name}: this game has no database") };
        let Some(id) = self.identity.clone() else { bail!("{name}: this game has no database") };
        // Lookups must not hold tier files the solve rewrites.
        self.a.set_arrays(None);
        self.db.attached = false;
        let progress = self.progress();
        let tiers = self.game().tiers().expect("a game with tiers");
        let root_tier = tiers.try_locate(&root)?.0;
        let open = || Ok(ArrayDb::create(&dir, &id.hash)?);
        let opts = tier::TierOptions::for_space(tiers, self.grundy_in_tiers());
        let stats = crate::solve::tier_mpi::solve(tiers, root_tier, &id.hash, &open, threads, opts, &progress)?;
        match stats {
            Some(stats) => Ok(Some(self.tiers_saved(&root, dir, &id, &stats, started)?)),
            None => Ok(None),
        }
    }

    fn export(&mut self, text: Option<&str>, emit: &mut dyn FnMut(&str, Record) -> Result<()>) -> Result<()> {
        if text.is_none() || self.game().tiers().is_some() {
            self.attach()?;
            // A saved tier solve: the positions reachable from the root, from its arrays.
            if self.a.arrays().is_some() {
                let root = match text {
                    Some(t) => Some(self.parse(t)?),
                    None => self.game().start()?,
                };
                if let Some(root) = root
                    && self.export_tiers(&root, emit)?
                {
                    return Ok(());
                }
            }
        }
        if text.is_none()
            && let Some(store) = self.a.database()
        {
            return store.for_each(|p, r| emit(p, r));
        }
        let root = match text {
            Some(t) => self.parse(t)?,
            None => self.game().start()?.ok_or_else(|| {
                anyhow::anyhow!(
                    "{} has no start position: give one, e.g. `gamesman export GAME POSITION`",
                    self.info().name
                )
            })?,
        };
        let c = census(self.game(), &root, self.budget(), &self.progress())?;
        for i in 0..c.graph.len() {
            let s = c.solutions[i];
            let grundy = c.grundy.as_ref().map(|g| g[i]);
            emit(
                &self.fmt(&c.graph.nodes.get(i).expect("a node"))?,
                Record { value: s.value, remoteness: s.remoteness, grundy },
            )?;
        }
        Ok(())
    }

    fn strategy(&mut self, text: &str, max_nodes: usize) -> GameResult<Vec<strategy::Node>> {
        self.attach()?;
        let pos = self.parse(text)?;
        strategy::tree(&mut self.a, &pos, max_nodes)
    }

    fn self_check(&mut self, positions: &[String]) -> GameResult<Option<String>> {
        let positions: Vec<G::Pos> = positions.iter().map(|t| self.parse(t)).collect::<GameResult<_>>()?;
        consistency::self_check(&mut self.a, &positions)
    }

    fn features(&self) -> Features {
        let file = self.database_path().ok().filter(|p| p.is_file());
        let tiers = self.tiers_dir().filter(|d| d.is_dir());
        Features { tiers: self.game().tiers().is_some(), split: self.game().has_split(), saved: file.or(tiers) }
    }

    fn db_bench(&mut self, samples: usize, root: Option<&str>) -> Result<DbBench> {
        let started = Instant::now();
        self.attach()?;
        if let Some(b) = self.bench_tiers(samples, root, started)? {
            return Ok(b);
        }
        let path = self.database_path()?;
        let Some(store) = self.a.database() else {
            bail!(
                "no database saved for {} (save one with `gamesman solve {} --save`)",
                self.info().name,
                self.info().name
            );
        };
        let open_seconds = started.elapsed().as_secs_f64();
        let bytes = std::fs::metadata(store.path()).map(|m| m.len()).unwrap_or(0);
        let mut keys = Vec::new();
        store.for_each(|k, _| {
            keys.push(k.to_string());
            Ok(())
        })?;
        if keys.is_empty() {
            bail!("{}: the database is empty", store.path().display());
        }
        let mut rng = fastrand::Rng::with_seed(1);
        let sample: Vec<&String> = (0..samples.max(1)).map(|_| &keys[rng.usize(..keys.len())]).collect();
        let t = Instant::now();
        for k in &sample {
            std::hint::black_box(store.get(k)?);
        }
        let lookup_seconds = t.elapsed().as_secs_f64() / sample.len() as f64;
        let positions: Vec<G::Pos> = sample.iter().map(|k| self.parse(k)).collect::<Result<_, _>>()?;
        let (mean, worst, per) = self.time_moves(&positions)?;
        Ok(DbBench {
            path,
            positions: keys.len(),
            bytes,
            open_seconds,
            lookup_seconds,
            samples: sample.len(),
            move_mean_seconds: mean,
            move_worst_seconds: worst,
            moves_per_position: per,
            move_warm_seconds: None,
        })
    }
}
