//! `gamesman moves`: every move with its value, the remoteness filled in later.
//!
//! Where the value-first search finds the values (two-player partisan games), each row is
//! printed as soon as its value is known, its remoteness shown as `…`; then the full search
//! for remoteness runs in its share of time, and when it finishes the table is printed again
//! with the remoteness (on a terminal, rewritten in place). `--no-remoteness` leaves the column
//! out and never runs that search; `--json` prints one array at the end.

use super::args::SolveArgs;
use super::output;
use crate::catalog::Session;
use crate::game::GameError;
use crate::progress::Progress;
use anyhow::Result;
use std::time::Instant;

/// `moves` on one game, from `pos`.
pub fn run(
    args: &SolveArgs,
    session: &mut dyn Session,
    pos: &str,
    progress: &Progress,
    started: Instant,
) -> Result<i32> {
    let mut table = output::MovesTable::new(session, !args.no_remoteness);
    let mut shown = 0usize;
    let values = session.move_values(pos, &mut |m, pending| {
        shown += 1;
        if !args.json {
            progress.suspend(|| table.row(m, pending));
        }
    });
    let mut list = match values {
        Ok(list) => list,
        Err(GameError::TimeLimit(_)) if shown > 0 => {
            progress.finish();
            let total = session.move_names(pos).map(|m| m.len().to_string()).unwrap_or_else(|_| "?".into());
            let limit =
                args.watch.time_limit.map_or_else(String::new, |l| format!("of {} ", crate::progress::seconds(l)));
            let listed = if args.json { "--json prints only a whole answer" } else { "listed above" };
            anyhow::bail!(
                "the time limit {limit}ran out (--time-limit) after the values of {shown} of {total} moves were found \
                 ({listed}); the others were not"
            );
        }
        Err(e) => {
            progress.finish();
            return Err(e.into());
        }
    };
    let pending = session.remoteness_pending();
    let filled = session.fill_remoteness(&mut list);
    progress.finish();
    filled?;
    let over = session.primitive(pos)?;
    if args.json {
        output::moves_json(&list);
    } else if pending && !table.rewrite(&list) && list.iter().any(|m| m.remoteness.is_some()) {
        // Not a terminal (or the table is no longer on its screen): the table again, whole.
        println!();
        table.all(&list);
    }
    if !args.json {
        output::moves_end(session, &list, over, session.visited(), started.elapsed());
        if let (Some(why), false) = (session.remoteness_note(), args.no_remoteness) {
            eprintln!("remoteness: {why}");
        }
    }
    Ok(0)
}
