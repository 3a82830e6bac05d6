//! `gamesman solve 'chomp:4432 + nim:3,5 + kayles:10'`: a disjunctive sum of positions of
//! impartial games, each answered by its own engine (`crate::catalog::sum`).

use super::args::SolveArgs;
use super::output;
use crate::catalog::sum::{SumGame, Term, solve_sum};
use crate::catalog::{Database, How, open_game};
use anyhow::{Result, bail};
use serde_json::json;
use std::time::Instant;

pub fn run(args: &SolveArgs, terms: &[(String, String)], moves: bool) -> Result<i32> {
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
    let how = How { database: Database::Off, ..args.g.how(opts.clone()) };
    let mut list = super::args::catalog().open_sum(terms, &how)?;
    let engines: Vec<&'static str> = list.iter().map(|t| t.session().engine()).collect();
    let expr = list.iter().map(Term::label).collect::<Vec<_>>().join(" + ");

    if args.g.misere {
        // Misère values do not add: the sum is one game, searched whole.
        let note = "misère play: the sum is searched whole (misère values of components do not add up)";
        let game = SumGame::new(list);
        let root = game.root().0.join(" + ");
        let progress = opts.progress.clone();
        let how = How { misere: true, database: Database::Off, options: opts, ..How::default() };
        let mut session = open_game(game, "sum", &how, None)?;
        let report = session.solve(&root);
        progress.finish();
        let report = report?;
        if !args.json {
            println!("sum:         {expr}");
            println!("note:        {note}");
        }
        output::report(&*session, &report, args.json, started.elapsed());
        return Ok(0);
    }

    let progress = opts.progress.clone();
    let r = solve_sum(&mut list, !args.no_moves);
    progress.finish();
    let r = r?;
    let value = if r.total != 0 { "win" } else { "lose" };
    let note = "not searched: the value of a sum comes from its components' Grundy values (a search of the whole sum \
                would multiply their sizes)";
    if args.json {
        let obj = json!({
            "sum": list.iter().zip(&r.grundy).zip(&engines).map(|((t, g), e)| json!({
                "game": t.session().info().name,
                "position": t.position,
                "engine": e,
                "grundy": g,
            })).collect::<Vec<_>>(),
            "value": value,
            "grundy": r.total,
            "remoteness": null,
            "remoteness_note": note,
            "winning_moves": (!args.no_moves).then(|| r.winning_moves.iter().map(|(i, m)| {
                let mut whole: Vec<String> = list.iter().map(|t| t.position.clone()).collect();
                whole[*i] = m.position.clone();
                json!({
                    "component": i + 1,
                    "game": list[*i].session().info().name,
                    "move": m.name,
                    "position": m.position,
                    "grundy": m.grundy,
                    "sum": whole.join(" + "),
                })
            }).collect::<Vec<_>>()),
            "winning_moves_note": args.no_moves.then_some(crate::solve::NO_MOVES_NOTE),
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
            format!("{} {}", t.session().info().name, t.position.trim_end().replace('\n', "/"))
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
    if args.no_moves {
        println!("winning moves: - ({})", crate::solve::NO_MOVES_NOTE);
    } else if r.total != 0 {
        println!("winning moves (to a sum of Grundy value 0):");
        const SHOWN: usize = 20;
        for (i, m) in r.winning_moves.iter().take(SHOWN) {
            println!(
                "  {}. {}: {:<12} -> {}",
                i + 1,
                list[*i].session().info().name,
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
