//! `gamesman solve 'chomp:4432 + nim:3,5 + kayles:10'`: a disjunctive sum of positions of
//! impartial games, each answered by its own engine (`crate::solve::sum`).

use super::{Loaded, SolveArgs, load, native_for, output, with_loaded, with_native};
use crate::game::{Game, GameInfo, Kind, Misere};
use crate::native::{NativeKind, chomp::Chomp, lightsout::LightsOut, nim::Nim, nimrod::Nimrod, tactix::TacTix};
use crate::solve::sum::{Component, Dyn, SumGame, Term, solve_sum};
use crate::solve::{Analyzer, Options};
use anyhow::{Result, bail};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Is GAME a sum (`game:position + game:position …`) rather than a game?
pub fn is_sum(game: &str) -> bool {
    game.contains(':') && !Path::new(game).exists()
}

/// The terms of a sum: (game, position text).
fn terms(expr: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for term in expr.split('+') {
        let term = term.trim();
        let Some((game, pos)) = term.split_once(':') else {
            bail!("{term:?} is not a term of a sum: write game:position, as in `chomp:4432 + nim:3,5 + kayles:10`");
        };
        let (game, pos) = (game.trim(), pos.trim());
        if game.is_empty() || pos.is_empty() {
            bail!("{term:?}: a term of a sum is game:position, both given (`nim:3,5`)");
        }
        out.push((game.to_string(), pos.to_string()));
    }
    Ok(out)
}

fn component(loaded: Loaded, args: &SolveArgs, opts: &Options) -> Result<(Box<dyn Component>, &'static str)> {
    fn boxed<G: Game + 'static>(g: G, opts: &Options) -> Box<dyn Component> {
        Box::new(Dyn::new(g, opts.clone()))
    }
    let file = loaded.file().to_string();
    if loaded.info().kind != Kind::Impartial {
        bail!(
            "{file}: {} is {}, and only impartial games add up in a sum (each player has the same moves)",
            loaded.info().name,
            loaded.info().kind
        );
    }
    Ok(match native_for(&loaded, args.g.engine)? {
        None => {
            let engine = loaded.engine_name();
            (with_loaded!(loaded, |g| boxed(g, opts)), engine)
        }
        Some(kind) => {
            let info: GameInfo = loaded.info().clone();
            (with_native!(kind, info, |g| boxed(g, opts)), "native")
        }
    })
}

pub fn run(args: &SolveArgs, moves: bool) -> Result<i32> {
    if moves {
        bail!("`moves` takes one game; a sum's winning moves are what `gamesman solve` lists");
    }
    if args.g.position.is_some() {
        bail!("a sum carries its positions in its terms (`nim:3,5`): give no POSITION after it");
    }
    if args.save {
        bail!("--save takes one game, not a sum");
    }
    let started = Instant::now();
    let opts = args.options();
    let mut list = Vec::new();
    let mut engines = Vec::new();
    for (game, pos) in terms(&args.g.game)? {
        let (c, engine) = component(load(&game)?, args, &opts)?;
        let position = c.normalize(&pos)?;
        list.push(Term { component: c, position });
        engines.push(engine);
    }
    let label = |t: &Term| format!("{} {}", t.component.info().name, t.position.trim_end().replace('\n', "/"));
    let expr = list.iter().map(label).collect::<Vec<_>>().join(" + ");

    if args.g.misere {
        // Misère values do not add: the sum is one game, searched whole.
        let note = "misère play: the sum is searched whole (misère values of components do not add up)";
        let game = Misere::new(SumGame::new(list));
        let root = game.inner().root();
        let progress = opts.progress.clone();
        let report = Analyzer::new(&game, opts).solve(&root);
        progress.finish();
        let report = report?;
        if !args.json {
            println!("sum:         {expr}");
            println!("note:        {note}");
        }
        output::report(&game, &report, args.json, "sum", started.elapsed());
        return Ok(0);
    }

    let progress = opts.progress.clone();
    let r = solve_sum(&mut list);
    progress.finish();
    let r = r?;
    let value = if r.total != 0 { "win" } else { "lose" };
    let note = "not searched: the value of a sum comes from its components' Grundy values (a search of the whole sum \
                would multiply their sizes)";
    if args.json {
        let obj = json!({
            "sum": list.iter().zip(&r.grundy).zip(&engines).map(|((t, g), e)| json!({
                "game": t.component.info().name,
                "position": t.position,
                "engine": e,
                "grundy": g,
            })).collect::<Vec<_>>(),
            "value": value,
            "grundy": r.total,
            "remoteness": null,
            "remoteness_note": note,
            "winning_moves": r.winning_moves.iter().map(|(i, m)| {
                let mut whole: Vec<String> = list.iter().map(|t| t.position.clone()).collect();
                whole[*i] = m.position.clone();
                json!({
                    "component": i + 1,
                    "game": list[*i].component.info().name,
                    "move": m.name,
                    "position": m.position,
                    "grundy": m.grundy,
                    "sum": whole.join(" + "),
                })
            }).collect::<Vec<_>>(),
            "seconds": started.elapsed().as_secs_f64(),
        });
        println!("{obj}");
        return Ok(0);
    }
    println!("sum:         {expr}");
    for (i, ((t, g), e)) in list.iter().zip(&r.grundy).zip(&engines).enumerate() {
        println!(
            "  {:>2}. {:<28} grundy {g:<4} ({e})",
            i + 1,
            format!("{} {}", t.component.info().name, t.position.trim_end().replace('\n', "/"))
        );
    }
    println!("value:       {value}");
    let parts: Vec<String> = r.grundy.iter().map(u64::to_string).collect();
    println!(
        "grundy:      {}{}",
        r.total,
        if parts.len() > 1 { format!(" = {}", parts.join(" xor ")) } else { String::new() }
    );
    println!("remoteness:  - ({note})");
    if r.total != 0 {
        println!("winning moves (to a sum of Grundy value 0):");
        const SHOWN: usize = 20;
        for (i, m) in r.winning_moves.iter().take(SHOWN) {
            println!(
                "  {}. {}: {:<12} -> {}",
                i + 1,
                list[*i].component.info().name,
                m.name,
                m.position.trim_end().replace('\n', "/")
            );
        }
        if r.winning_moves.len() > SHOWN {
            println!("  … and {} more (--json lists them all)", r.winning_moves.len() - SHOWN);
        }
    }
    println!("time:        {:.3} s", started.elapsed().as_secs_f64());
    Ok(0)
}
