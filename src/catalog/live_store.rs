//! What a [`Live`] session keeps: its database, written and read back.

use super::live::Live;
use super::session::*;
use crate::db::{self, Record};
use crate::game::{Game, GameExt};
use crate::solve::census::census;
use anyhow::{Result, bail};
use serde_json::Value as Json;
use std::path::PathBuf;
use std::time::Instant;

impl<G: Game> SessionStore for Live<G> {
    fn database_path(&self) -> Result<PathBuf> {
        match &self.db.path {
            Some(p) => Ok(p.clone()),
            None => match &self.identity {
                Some(id) => Ok(db::default_dir()?.join(id.file_name())),
                None => bail!("{}: this game has no database", self.info().name),
            },
        }
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

    fn save(&mut self, text: &str, how: SaveHow) -> Result<Saved> {
        let started = Instant::now();
        let root = self.parse(text)?;
        if self.game().tiers().is_some() {
            return self.save_tiers(&root, how);
        }
        let c = self.census_of(&root, how.threads, false)?;
        let report = c.report(self.game(), self.engine, started.elapsed().as_secs_f64())?;
        self.write(&c, &report)
    }

    #[cfg(not(feature = "mpi"))]
    fn save_mpi(&mut self, _text: &str, _how: SaveHow) -> Result<Option<Saved>> {
        bail!(
            "this gamesman was built without MPI: --mpi needs a build with the feature `mpi` \
             (`cargo build --release --features mpi`, see docs/mpi.md); --save alone solves on this machine"
        )
    }

    #[cfg(feature = "mpi")]
    fn save_mpi(&mut self, text: &str, how: SaveHow) -> Result<Option<Saved>> {
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
        let open = || Ok(crate::db::array::ArrayDb::create(&dir, &id.hash)?);
        let opts = crate::solve::tier::TierOptions::for_space(tiers, self.grundy_in_tiers());
        let stats = crate::solve::tier_mpi::solve(tiers, root_tier, &id.hash, &open, how.threads, opts, &progress)?;
        match stats {
            Some(stats) => Ok(Some(self.tiers_saved(&root, dir, &id, &stats, started, how.pack)?)),
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
