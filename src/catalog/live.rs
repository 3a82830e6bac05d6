//! [`Live`]: a game of any type as a session. It holds an [`Analyzer`] that owns the game,
//! the game's database, and the whole-game work (`analyze`, `--save`, `export`, `strategy`,
//! the self-check). Its positions are answered here, its answers in `live_answers.rs`, its
//! store in `live_store.rs`.

use super::how::{Database, How};
use super::session::*;
use super::tier_count;
use crate::db::array::ArrayDb;
use crate::db::{self, Identity, Record, Store};
use crate::game::{Board, Game, GameError, GameExt, GameInfo, GameResult, Kind, Value};
use crate::progress::Progress;
use crate::solve::census::{Census, census_threaded, census_up_to_symmetry};
use crate::solve::{Analyzer, MoveInfo, tier};
use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use serde_json::Value as Json;
use std::path::PathBuf;
use std::time::Instant;

/// Bytes a tier costs the walk of the tier graph (its entry in the set of tiers seen and in
/// the order, and its child tiers on the walk's stack).
const TIER_WALK_BYTES: u64 = 64;

/// Where a session's database is, and whether it has been opened yet.
pub(super) struct DbState {
    pub(super) mode: Database,
    pub(super) path: Option<PathBuf>,
    /// Opened (or found absent) since the last save.
    pub(super) attached: bool,
}

/// The most indices the tiers of a command's own tier solve (no `--save`) hold: about 10
/// CPU-minutes at Teeko's rate.
pub const SCRATCH_INDICES: u64 = 1 << 30;

/// Environment variable: another bound than [`SCRATCH_INDICES`] (for tests).
pub const SCRATCH_ENV: &str = "GAMESMAN_SCRATCH_INDICES";

/// A tier solve made for this command alone (no `--save`), in the temporary directory:
/// removed when the session ends.
pub(super) struct Scratch {
    pub(super) dir: PathBuf,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A game of type `G` as a [`Session`].
pub struct Live<G: Game> {
    pub(super) a: Analyzer<G>,
    pub(super) engine: &'static str,
    pub(super) identity: Option<Identity>,
    pub(super) db: DbState,
    /// The tier solve of this command, where the search could not answer without it.
    pub(super) scratch: Option<Scratch>,
    /// The last root tier asked of [`Live::tiers_for_one_command`], and its answer.
    pub(super) scratch_ok: std::cell::Cell<Option<(crate::game::tier::Tier, bool)>>,
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
            scratch_ok: std::cell::Cell::new(None),
        })
    }

    pub(super) fn game(&self) -> &G {
        self.a.game()
    }

    /// Open the game's database before the first answer (and after a save).
    pub(super) fn attach(&mut self) -> GameResult<()> {
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

    pub(super) fn parse(&self, text: &str) -> GameResult<G::Pos> {
        self.game().parse(text)
    }

    /// Where a game with tiers keeps its array database: beside the redb file of the same
    /// name with `.tiers` (a directory), or the `--db` path itself. `None` for a game
    /// without tiers.
    pub(super) fn tiers_dir(&self) -> Option<PathBuf> {
        self.game().tiers()?;
        let path = self.db.path.clone()?;
        Some(if matches!(self.db.mode, Database::At(_)) { path } else { path.with_extension("tiers") })
    }

    /// `--save` of a game with tiers: the tier solver on `how.threads` threads, into the
    /// array database (refused first when a tier would not fit the memory budget).
    pub(super) fn save_tiers(&mut self, root: &G::Pos, how: SaveHow) -> Result<Saved> {
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
            threads: how.threads.max(1),
            memory: self.budget() as u64,
            ..tier::TierOptions::for_space(tiers, self.grundy_in_tiers())
        };
        let stats = tier::solve_with(tiers, root_tier, &arrays, &self.progress(), opts)?;
        drop(arrays);
        self.tiers_saved(root, dir, &id, &stats, started, how.pack)
    }

    /// The root's tier, once every tier reachable from it is known to fit the memory budget
    /// of the tier solver (checked before anything is solved or created).
    pub(super) fn tiers_fit(&self, root: &G::Pos) -> GameResult<crate::game::tier::Tier> {
        let Some(tiers) = self.game().tiers() else {
            return Err(GameError::Unsupported(format!("{}: this game has no tiers", self.info().name)));
        };
        let root_tier = tiers.try_locate(root)?.0;
        // The solver holds a tier's state and its child tiers' arrays (2 bytes an index); a
        // tier that does not fit whole is solved in slices or in passes (`tier::fit_bytes`).
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
    pub(super) fn or_by_tiers<T>(
        &mut self,
        pos: &G::Pos,
        mut ask: impl FnMut(&mut Analyzer<G>) -> GameResult<T>,
    ) -> GameResult<(T, bool)> {
        let unsaved_tiers = self.game().tiers().is_some() && self.a.arrays().is_none();
        let scratch = unsaved_tiers && self.tiers_for_one_command(pos);
        self.a.prove_past_memory(!scratch);
        match ask(&mut self.a) {
            // Tiers too many for one command: the way to an answer is to save them once.
            Err(GameError::OutOfMemory(why)) if unsaved_tiers && !scratch => Err(GameError::OutOfMemory(format!(
                "{why}; {} has tiers, too many to solve for one command: `solve --save` of it solves them once \
                 into its database (docs/tiers.md), and every command then answers from it",
                self.info().name
            ))),
            Err(GameError::OutOfMemory(why)) if scratch => {
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

    /// Whether the tiers reachable from `pos`'s tier hold at most [`SCRATCH_INDICES`] indices
    /// ([`SCRATCH_ENV`] sets another bound) and each fits the memory budget: few enough to
    /// solve for one command and throw away. More (the full Gobblet Gobblers, Connect-Four 6×5) are left to `--save`, and a
    /// search past the budget proves what it can by depth-bounded searches instead.
    fn tiers_for_one_command(&self, pos: &G::Pos) -> bool {
        let Some(tiers) = self.game().tiers() else { return false };
        let Ok((root, _)) = tiers.try_locate(pos) else { return false };
        if let Some((t, ok)) = self.scratch_ok.get()
            && t == root
        {
            return ok;
        }
        let bound = std::env::var(SCRATCH_ENV).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(SCRATCH_INDICES);
        let mut total = 0u64;
        let mut walked = 0u64;
        let budget = self.budget() as u64;
        // A tier the solver would refuse (`tiers_fit`) leaves the question to the proofs too.
        let mut check = |t: crate::game::tier::Tier| -> GameResult<()> {
            let size = tiers.tier_size(t);
            total = total.saturating_add(size);
            walked += 1;
            if total > bound
                || walked.saturating_mul(TIER_WALK_BYTES) > budget
                || (size > u32::MAX as u64 && tiers.moves_within(t))
                || tier::fit_bytes(tiers, t) > budget
            {
                return Err(GameError::OutOfMemory(String::new()));
            }
            Ok(())
        };
        let small = crate::game::tier::tier_order_checked(tiers, root, &mut check).is_ok();
        let _ = tiers.failure();
        self.scratch_ok.set(Some((root, small)));
        small
    }

    /// The tier solve of everything reachable from `pos`'s tier, into a temporary directory
    /// that lives as long as the session; read first from then on.
    pub(super) fn solve_tiers_now(&mut self, pos: &G::Pos) -> GameResult<()> {
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

    /// After a tier save: put its small tiers into one pack where `pack` and that takes fewer
    /// bytes, count the positions reachable from `root` through the arrays (a tier solve
    /// solves every index, reachable or not), write the save's `meta` file (what `gamesman
    /// db list` and `db info` print), and say what was saved.
    pub(super) fn tiers_saved(
        &mut self,
        root: &G::Pos,
        dir: PathBuf,
        id: &Identity,
        stats: &tier::TierStats,
        started: Instant,
        pack: bool,
    ) -> Result<Saved> {
        let arrays = ArrayDb::open(&dir, Some(&id.hash))?;
        let packed = match crate::db::pack_budget(self.budget() as u64) {
            Some(raw) if pack => arrays.pack(raw)?.tiers,
            _ => 0,
        };
        self.a.set_arrays(Some(arrays));
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
            packed,
        })
    }

    /// Whether an `analyze` report from the arrays counted the positions themselves (not
    /// only their symmetry classes).
    pub(super) fn counts_images(report: &Option<Json>) -> bool {
        report.as_ref().and_then(|r| r["counted"].as_str()).is_some_and(|c| !c.contains("up to symmetry"))
    }

    /// Whether a tier solve of this game computes Grundy values: an impartial game under
    /// normal play (a position with no moves lost).
    pub(super) fn grundy_in_tiers(&self) -> bool {
        self.game().kind() == Kind::Impartial && self.game().stalemate() == Value::Lose
    }

    /// `analyze` from a saved tier solve: the positions reachable from the root, counted
    /// from the arrays ([`super::tier_count`]); `None` without a finished tier solve.
    pub(super) fn analyze_tiers(&mut self, root: &G::Pos, started: Instant) -> Result<Option<Json>> {
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
    pub(super) fn alone_in_class(
        tiers: &dyn crate::game::tier::TierSpace,
        root: (crate::game::tier::Tier, u64),
    ) -> bool {
        (0..tiers.tier_size(root.0))
            .into_par_iter()
            .filter(|&i| tiers.canonical_index(root.0, i) == root.1)
            .map(|i| tiers.positions_at(root.0, i))
            .sum::<u64>()
            == 1
    }

    /// `export` from a saved tier solve: every position reachable from `root`, found by
    /// walking the arrays; the positions themselves when the root is alone in its symmetry
    /// class (as the census a redb store is written from), else one a class. `false` when
    /// there is no finished tier solve to read.
    pub(super) fn export_tiers(
        &mut self,
        root: &G::Pos,
        emit: &mut dyn FnMut(&str, Record) -> Result<()>,
    ) -> Result<bool> {
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
                        if !reached.has(rep) {
                            continue;
                        }
                        let (r, g) = (records[rep as usize], array.grundy_at(rep as usize));
                        match tiers.positions_at(t, i) {
                            0 => {}
                            1 => out(&tiers.try_position(t, i)?, r, g, &mut failed)?,
                            _ => {
                                for pos in tiers.try_positions(t, i)? {
                                    out(&pos, r, g, &mut failed)?;
                                }
                            }
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
    pub(super) fn bench_tiers(
        &mut self,
        samples: usize,
        root: Option<&str>,
        started: Instant,
    ) -> Result<Option<DbBench>> {
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
    pub(super) fn time_moves(&mut self, positions: &[G::Pos]) -> Result<(f64, f64, f64)> {
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

    pub(super) fn fmt(&self, pos: &G::Pos) -> GameResult<String> {
        self.game().format(pos)
    }

    pub(super) fn progress(&self) -> Progress {
        self.a.options().progress.clone()
    }

    pub(super) fn budget(&self) -> usize {
        self.a.options().max_memory
    }

    /// Solve everything reachable from `root` on `threads` threads; for a report alone,
    /// up to the symmetries that fix the root where the game packs its positions (a save
    /// keeps every position).
    pub(super) fn census_of(&self, root: &G::Pos, threads: usize, report_only: bool) -> GameResult<Census<G::Pos>> {
        if report_only {
            census_up_to_symmetry(self.game(), root, self.budget(), &self.progress(), threads)
        } else {
            census_threaded(self.game(), root, self.budget(), &self.progress(), threads)
        }
    }

    /// Save a solved census and its report in the game's database.
    pub(super) fn write(&mut self, c: &Census<G::Pos>, report: &Json) -> Result<Saved> {
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
            packed: 0,
        })
    }

    pub(super) fn move_info(&mut self, pos: &G::Pos, mv: &G::Move, here: Option<u32>) -> GameResult<MoveInfo> {
        Ok(self.a.describe(pos, mv, here)?.0)
    }
}

impl<G: Game> SessionPositions for Live<G> {
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

    fn grid(&self, text: &str) -> GameResult<Option<Board>> {
        self.game().board(&self.parse(text)?)
    }

    fn features(&self) -> Features {
        let file = self.database_path().ok().filter(|p| p.is_file());
        let tiers = self.tiers_dir().filter(|d| d.is_dir());
        Features { tiers: self.game().tiers().is_some(), split: self.game().has_split(), saved: file.or(tiers) }
    }
}
