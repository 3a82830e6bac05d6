//! `gamesman sequence`: the nim-sequence of a heap game (one heap of each size), with its
//! period once the periodicity theorem confirms it.

use crate::catalog::{HEAP_OPTIONS_CHECKED, HeapGame, How, Session};
use crate::script::ScriptGame;
use crate::solve::sequence::{Method, Pattern, Rare, find_pattern};
use anyhow::{Result, bail};
use clap::Args;
use std::io::Write;

#[derive(Args)]
#[command(after_help = "Examples:\n  gamesman sequence kayles.ron --to 100000\n  \
gamesman sequence 0.137 --to 1000\n\n\
The game is an octal code (\"0.77\", or \"0.3…\" / \"0.3...\" whose last digit repeats), or a heap descriptor whose moves take from one heap and leave at most two (Octal, \
including codes with a repeating last digit such as \"0.3…\", Subtract, TakeAny, Split), under normal play, \
or an impartial script whose position `n` is one heap of n (its values by search, from its own rules; a period is reported as seen, not proved).")]
pub struct SequenceArgs {
    /// An octal code (0.77) or a heap game descriptor (games/kayles.ron, dawsons-kayles)
    #[arg(value_name = "GAME")]
    game: String,
    /// The last heap size to print
    #[arg(long, value_name = "N", default_value_t = 100)]
    to: usize,
    /// Print only the period, not the values
    #[arg(long)]
    quiet: bool,
    /// Read every split of every heap (no rare/common split), to measure the difference
    #[arg(long, hide = true)]
    plain: bool,
    /// Memory budget in MiB: the values and the engine's tables (a script's searches too)
    /// keep to it; past it, a clear error
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    max_memory: usize,
    #[command(flatten)]
    watch: super::args::WatchArgs,
}

pub fn run(args: &SequenceArgs) -> Result<i32> {
    let progress = args.watch.progress();
    let budget = args.max_memory.saturating_mul(1 << 20);
    let mut how = How::default();
    how.options.max_memory = budget;
    how.options.progress = progress.clone();
    let game = match super::args::catalog().heap_game(&args.game, &how)? {
        HeapGame::Descriptor(game) => game,
        HeapGame::Script { file, mut session, options } => {
            return script(args, &file, &mut *session, options.as_deref(), budget);
        }
    };
    let file = game.file();
    let Some(mut seq) = game.nim_sequence() else {
        bail!(
            "{file}: not a heap game whose moves take from one heap and leave at most two (Octal, Subtract, TakeAny or Split, normal play)"
        );
    };
    if args.plain {
        seq.set_method(Method::Plain);
    }
    let last = seq.limit() - 1;
    if seq.repeats() && args.to > last {
        bail!(
            "{}: its takes have no largest size, so no period can be confirmed, and the engine computes its values \
             up to n = {last} at most; ask for --to {last} or less",
            file
        );
    }
    let started = std::time::Instant::now();
    seq.extend_within(args.to, budget, &progress).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
    if seq.period().is_none() && seq.computed() <= args.to {
        bail!(
            "{}: no period confirmed up to n = {last}, the most values the engine computes for this game; \
             ask for --to {last} or less",
            file
        );
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if !args.quiet {
        for row in (0..=args.to).step_by(12) {
            let values: Vec<String> = (row..=(row + 11).min(args.to)).map(|n| seq.get(n).to_string()).collect();
            writeln!(out, "{row:>8}: {}", values.join(" "))?;
        }
    }
    match seq.period() {
        Some((n0, p)) => writeln!(
            out,
            "period {p} from n = {n0}{}: confirmed by the periodicity theorem after {} values ({:.3} s)",
            if n0 > 0 { format!(" (the last value off the period is at n = {})", n0 - 1) } else { String::new() },
            seq.computed(),
            started.elapsed().as_secs_f64()
        )?,
        None if seq.repeats() => writeln!(
            out,
            "values computed up to n = {} ({:.3} s); takes of every size, so no period can be confirmed",
            seq.computed().saturating_sub(1),
            started.elapsed().as_secs_f64()
        )?,
        None if seq.splits_unequal() => writeln!(
            out,
            "values computed up to n = {} ({:.3} s); no period can be confirmed (the periodicity theorem does not \
             cover the unequal split)",
            seq.computed().saturating_sub(1),
            started.elapsed().as_secs_f64()
        )?,
        None => writeln!(
            out,
            "no period confirmed up to n = {} ({:.3} s)",
            seq.computed().saturating_sub(1),
            started.elapsed().as_secs_f64()
        )?,
    }
    match seq.pattern() {
        Some(Pattern { n0, period, saltus: 0, to }) => writeln!(
            out,
            "the values repeat with period {period} from n = {n0} as far as n = {to}: seen, not proved \
             (the periodicity theorem is for codes without a repeating digit)"
        )?,
        Some(Pattern { n0, period, saltus, to }) => writeln!(
            out,
            "arithmetic-periodic: g(n + {period}) = g(n) + {saltus} from n = {n0} as far as n = {to}: seen, not proved \
             (no theorem for codes with a repeating digit is applied)"
        )?,
        None if seq.repeats() => {
            writeln!(out, "no arithmetic period seen up to n = {}", seq.computed().saturating_sub(1))?
        }
        None => {}
    }
    if let Some(Rare { values: rare, heaps }) = seq.rare() {
        let shown: Vec<String> = rare
            .iter()
            .take(24)
            .map(|&(v, parity)| match parity {
                None => v.to_string(),
                Some(0) => format!("{v}(even)"),
                Some(_) => format!("{v}(odd)"),
            })
            .collect();
        writeln!(
            out,
            "rare values{}: {}{} at {heaps} heaps (the rest common); {} splits read",
            if rare.first().is_some_and(|r| r.1.is_some()) { ", paired with the heap's parity" } else { "" },
            shown.join(" "),
            if rare.len() > 24 { format!(" … ({} in all)", rare.len()) } else { String::new() },
            seq.splits_read()
        )?;
    }
    out.flush()?;
    Ok(0)
}

/// The sequence of an impartial script: position `n` for n = 0..=to, each Grundy value by
/// search (the script's `parts` make each distinct heap a search of its own, done once).
fn script(
    args: &SequenceArgs,
    file: &str,
    session: &mut dyn Session,
    options: Option<&ScriptGame>,
    budget: usize,
) -> Result<i32> {
    let started = std::time::Instant::now();
    // The values, 4 bytes a heap, and their copy for the report: refused before any work
    // when they alone would not fit the budget.
    let need = args.to.saturating_add(1).saturating_mul(8);
    if need > budget {
        bail!(
            "{file}: heaps to {}: their values take about {} MiB, more than the memory budget of {} MiB (--max-memory)",
            args.to,
            need.div_ceil(1 << 20),
            budget >> 20
        );
    }
    let by_options = HeapGame::script_values(file, session, options, args.to)?;
    let values = match &by_options {
        Some((values, _)) => values.clone(),
        None => by_search(args.to, file, session)?,
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if !args.quiet {
        for row in (0..=args.to).step_by(12) {
            let shown: Vec<String> = values[row..=(row + 11).min(args.to)].iter().map(u32::to_string).collect();
            writeln!(out, "{row:>8}: {}", shown.join(" "))?;
        }
    }
    match &by_options {
        Some((_, read)) => writeln!(
            out,
            "values computed up to n = {} from heap_options, one call a heap ({:.3} s, {read} options read; \
             the first {} heaps checked against the search of the script's moves, and {} more across the range \
             against the moves themselves)",
            args.to,
            started.elapsed().as_secs_f64(),
            HEAP_OPTIONS_CHECKED.min(args.to + 1),
            crate::catalog::heap_options_samples(args.to).len(),
        )?,
        None => writeln!(
            out,
            "values computed up to n = {} by search of the script's own moves ({:.3} s, {} positions)",
            args.to,
            started.elapsed().as_secs_f64(),
            session.visited()
        )?,
    }
    match find_pattern(&values) {
        Some(Pattern { n0, period, saltus: 0, to }) => writeln!(
            out,
            "the values repeat with period {period} from n = {n0} as far as n = {to}: seen, not proved (the \
             engine does not know a script's rules, so no periodicity theorem is applied)"
        )?,
        Some(Pattern { n0, period, saltus, to }) => writeln!(
            out,
            "arithmetic-periodic: g(n + {period}) = g(n) + {saltus} from n = {n0} as far as n = {to}: seen, not proved"
        )?,
        None => writeln!(out, "no period seen up to n = {}", args.to)?,
    }
    out.flush()?;
    Ok(0)
}

/// Heaps 0 to `to` of a script, each by the Grundy search of its own moves.
fn by_search(to: usize, file: &str, session: &mut dyn Session) -> Result<Vec<u32>> {
    let mut values: Vec<u32> = Vec::new();
    for n in 0..=to {
        let text = n.to_string();
        let g = session.grundy(&text).map_err(|e| anyhow::anyhow!("{file}: heap {n}: {e}"))?;
        let Some(g) = g else {
            let why = session.remoteness_note().unwrap_or_default();
            bail!("{file}: heap {n} has no Grundy value (normal play, no loops are needed){why}");
        };
        values.push(u32::try_from(g).map_err(|_| anyhow::anyhow!("{file}: heap {n}: Grundy value {g} too large"))?);
    }
    Ok(values)
}
