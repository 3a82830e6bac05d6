//! `gamesman check`: the same random positions through two definitions of one game: a script
//! or descriptor and its native module, or a descriptor and the script of the same name (or a
//! script and the descriptor of the same name). A game with nothing to compare it with is
//! checked against itself: the solved values must follow from the moves (see [`self_check`]).

use super::{EngineChoice, Loaded, load, load_path, native_for, with_loaded, with_native};
use crate::game::Value;
use crate::game::{Game, GameInfo, Kind, Misere};
use crate::native::NativeKind;
use crate::native::{chomp::Chomp, lightsout::LightsOut, nim::Nim, nimrod::Nimrod, tactix::TacTix};
use crate::solve::Solution;
use crate::solve::{Analyzer, Options, Report};
use anyhow::{Result, bail};
use clap::Args;

#[derive(Args)]
pub struct CheckArgs {
    /// A game. It is compared with its native module (a script's `const NATIVE`, a
    /// descriptor's `native`) and with the definition of the same name beside it (.ron for a
    /// .rhai, .rhai for a .ron); with neither, it is checked against itself: `children` must
    /// agree with `moves` + `play`, `canonical` must keep values, `split` parts must add up,
    /// and every solved value must follow from the values of the position's moves
    #[arg(value_name = "GAME")]
    game: String,
    /// Play the random games from this position instead of the game's start position
    #[arg(long, value_name = "POSITION")]
    from: Option<String>,
    /// How many random positions
    #[arg(long, default_value_t = 300)]
    count: usize,
    /// Seed for the random positions (default: random)
    #[arg(long)]
    seed: Option<u64>,
    /// Compare under misère play
    #[arg(long)]
    misere: bool,
}

/// A random small position of a native game, as text.
pub fn sample(kind: NativeKind, rng: &mut fastrand::Rng) -> String {
    let join = |v: Vec<u32>| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    match kind {
        NativeKind::Nim => join((0..rng.usize(1..=4)).map(|_| rng.u32(0..=7)).collect()),
        NativeKind::Nimrod => join(vec![rng.u32(0..=24), rng.u32(0..=24)]),
        NativeKind::Chomp => {
            let mut h: Vec<u32> = (0..rng.usize(1..=5)).map(|_| rng.u32(0..=6)).collect();
            h.sort_unstable_by(|a, b| b.cmp(a));
            h[0] = h[0].max(1);
            h.iter().map(u32::to_string).collect()
        }
        NativeKind::TacTix => {
            // Small enough for the script to search whole (remoteness included).
            let (rows, cols) = (rng.usize(1..=3), rng.usize(1..=4));
            let board: Vec<String> =
                (0..rows).map(|_| (0..cols).map(|_| if rng.u8(0..3) > 0 { '1' } else { '0' }).collect()).collect();
            board.join("/")
        }
        NativeKind::LightsOut => {
            let (rows, cols) = (rng.usize(1..=4), rng.usize(1..=4));
            let board: Vec<String> =
                (0..rows).map(|_| (0..cols).map(|_| if rng.bool() { '#' } else { '0' }).collect()).collect();
            // Mostly whole boards; sometimes a position part-way through, as the script has them.
            let next = if rng.u8(0..4) == 0 { rng.usize(0..=rows * cols) } else { 0 };
            if next == 0 { board.join("/") } else { format!("{} @{next}", board.join("/")) }
        }
    }
}

/// What must agree: the value, remoteness, Grundy value and the positions the winning moves
/// lead to, as a set of canonical forms (two definitions may order moves differently, list a
/// move twice, or write a heap left empty as 0 or not at all). `canon` is one game's
/// canonical form, used for both sides. For a puzzle, one shortest solution among several may
/// differ: its length is compared.
fn summary<G: Game>(canon: &G, r: &Report, puzzle: bool) -> Result<String> {
    let grundy = r.grundy.map_or("-".into(), |g| g.to_string());
    let remoteness = r.remoteness.map_or("-".into(), |g| g.to_string());
    if puzzle {
        return Ok(format!("value {} remoteness {remoteness}", r.value));
    }
    let mut moves = Vec::new();
    for m in &r.winning_moves {
        let pos = canon.canonical(&canon.parse(&m.position)?)?;
        moves.push(canon.format(&pos)?.replace('\n', "/"));
    }
    moves.sort();
    moves.dedup();
    Ok(format!("value {} remoteness {remoteness} grundy {grundy} winning moves to [{}]", r.value, moves.join(" ")))
}

fn solve<G: Game>(game: &G, text: &str) -> Result<Report> {
    let pos = game.parse(text)?;
    Ok(Analyzer::new(game, Options::default()).solve(&pos)?)
}

/// Random positions reached by random play (0 to `depth` moves) from `from` or the game's
/// start position.
fn walk_positions<G: Game>(
    game: &G,
    from: Option<&str>,
    rng: &mut fastrand::Rng,
    count: usize,
    depth: usize,
) -> Result<Vec<G::Pos>> {
    let start = match from {
        Some(text) => game.parse(text)?,
        None => game.start()?.ok_or_else(|| {
            anyhow::anyhow!(
                "{} has no start position to play random games from: give one with --from POSITION",
                game.info().name
            )
        })?,
    };
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let mut pos = start.clone();
        for _ in 0..rng.usize(0..=depth) {
            if game.primitive(&pos)?.is_some() {
                break;
            }
            let moves = game.moves(&pos)?;
            if moves.is_empty() {
                break;
            }
            pos = game.play(&pos, &moves[rng.usize(..moves.len())])?;
        }
        out.push(pos);
    }
    Ok(out)
}

/// Random positions as text (see [`walk_positions`]).
fn walk<G: Game>(game: &G, from: Option<&str>, rng: &mut fastrand::Rng, count: usize) -> Result<Vec<String>> {
    walk_positions(game, from, rng, count, 16)?.iter().map(|p| Ok(game.format(p)?)).collect()
}

/// Position text on one line.
fn one_line<G: Game>(game: &G, pos: &G::Pos) -> String {
    game.format(pos).map_or_else(|e| format!("<{e}>"), |t| t.trim_end().replace('\n', "/"))
}

/// The value a position must have given its children's (`None`: no moves), by the rules the
/// solvers follow: a win if some move leads to a loss, else a tie if some move leads to a tie,
/// else a draw if some move leads to a draw, else a loss. Remoteness: a win 1 + the least of
/// its losing children's, a tie 1 + the least of its tying children's, a loss 1 + the greatest.
fn expected(children: &[Solution]) -> Solution {
    let least = |v: Value| children.iter().filter(|c| c.value == v).map(|c| c.remoteness).min();
    if let Some(r) = least(Value::Lose) {
        return Solution { value: Value::Win, remoteness: r.map(|r| r + 1) };
    }
    if let Some(r) = least(Value::Tie) {
        return Solution { value: Value::Tie, remoteness: r.map(|r| r + 1) };
    }
    if children.iter().any(|c| c.value == Value::Draw) {
        return Solution { value: Value::Draw, remoteness: None };
    }
    let most = children.iter().map(|c| c.remoteness).try_fold(0u32, |m, r| r.map(|r| m.max(r)));
    Solution { value: Value::Lose, remoteness: most.map(|r| r + 1) }
}

/// A puzzle: solvable when a move leads to a solvable position, in one more move than the
/// nearest.
fn expected_puzzle(children: &[Solution]) -> Solution {
    match children.iter().filter(|c| c.value == Value::Win).filter_map(|c| c.remoteness).min() {
        Some(r) => Solution { value: Value::Win, remoteness: Some(r + 1) },
        None => Solution { value: Value::Lose, remoteness: None },
    }
}

fn show_solution(s: &Solution, g: Option<u64>) -> String {
    let mut out = s.value.to_string();
    if let Some(r) = s.remoteness {
        out += &format!(" in {r}");
    }
    if let Some(g) = g {
        out += &format!(", grundy {g}");
    }
    out
}

/// The first way in which `game` disagrees with itself at one of `positions`, if any:
/// - `children` lists other positions than `moves` + `play` (up to symmetry and repeats);
/// - `canonical` is not idempotent, or changes whether the game is over;
/// - the solved value, remoteness or Grundy value of a position does not follow from those of
///   the positions its moves lead to (a `canonical` that merges positions of different values,
///   or `split` parts whose Grundy values do not XOR to the whole, show up here).
fn self_check<G: Game>(game: &G, positions: &[G::Pos], analyzer: &mut Analyzer<'_, G>) -> Result<Option<String>> {
    let puzzle = game.kind() == Kind::Puzzle;
    for p in positions {
        let at = one_line(game, p);
        let moves = game.moves(p)?;
        let mut kids = Vec::with_capacity(moves.len());
        for m in &moves {
            kids.push(game.play(p, m)?);
        }
        // children against moves + play, as sets of canonical positions.
        let canon_set =
            |v: &[G::Pos]| -> Result<hashbrown::HashSet<G::Pos>> { v.iter().map(|c| Ok(game.canonical(c)?)).collect() };
        if game.primitive(p)?.is_none() {
            let by_children = canon_set(&game.children(p)?)?;
            if by_children != canon_set(&kids)? {
                return Ok(Some(format!("at {at}: children lists other positions than moves + play")));
            }
        }
        let c = game.canonical(p)?;
        if game.canonical(&c)? != c {
            return Ok(Some(format!(
                "at {at}: canonical is not stable: it gives {}, whose canonical form is {}",
                one_line(game, &c),
                one_line(game, &game.canonical(&c)?)
            )));
        }
        if game.primitive(&c)? != game.primitive(p)? {
            return Ok(Some(format!(
                "at {at}: canonical gives {}, but one is a finished game and the other is not (primitive differs)",
                one_line(game, &c)
            )));
        }
        let (got, g) = analyzer.value(p)?;
        let want = match game.primitive(p)? {
            Some(v) => Solution { value: v, remoteness: Some(0) },
            None if kids.is_empty() => Solution { value: game.stalemate(), remoteness: Some(0) },
            None => {
                let mut sols = Vec::with_capacity(kids.len());
                let mut grundies = Vec::with_capacity(kids.len());
                for k in &kids {
                    let (s, gk) = analyzer.value(k)?;
                    sols.push(s);
                    grundies.push(gk);
                }
                let want = if puzzle { expected_puzzle(&sols) } else { expected(&sols) };
                if let (Some(g), Some(gs)) = (g, grundies.iter().copied().collect::<Option<Vec<u64>>>()) {
                    let mex = crate::solve::grundy::mex(&gs);
                    if g != mex {
                        let mut why = format!(
                            "at {at}: the Grundy value is {g}, but its moves lead to Grundy values {gs:?}, whose mex is {mex}"
                        );
                        if let Some(parts) = game.split(p)? {
                            let mut pg = Vec::new();
                            for part in &parts {
                                pg.push(analyzer.grundy(part)?.map_or("-".into(), |g| g.to_string()));
                            }
                            let names: Vec<String> = parts.iter().map(|q| one_line(game, q)).collect();
                            why += &format!(
                                ". split gives the parts [{}] with Grundy values [{}]: the moves of a sum must be \
                                 the moves of one part, the others left as they are",
                                names.join(" | "),
                                pg.join(", ")
                            );
                        } else if c != *p {
                            why += &format!(
                                ". canonical maps it to {}: a symmetry must keep the value",
                                one_line(game, &c)
                            );
                        }
                        return Ok(Some(why));
                    }
                }
                want
            }
        };
        let remoteness_known = got.remoteness.is_some() && want.remoteness.is_some();
        if got.value != want.value || (remoteness_known && got.remoteness != want.remoteness) {
            let mut why = format!(
                "at {at}: solved as {}, but its moves say {}",
                show_solution(&got, None),
                show_solution(&want, None)
            );
            if c != *p {
                why += &format!(". canonical maps it to {}: a symmetry must keep the value", one_line(game, &c));
            }
            return Ok(Some(why));
        }
    }
    Ok(None)
}

fn compare<A: Game, B: Game>(a: &A, b: &B, names: [&str; 2], positions: &[String], misere: bool) -> Result<usize> {
    if misere {
        return compare_on(&Misere::new(a), &Misere::new(b), names, positions);
    }
    compare_on(a, b, names, positions)
}

fn compare_on<A: Game, B: Game>(a: &A, b: &B, names: [&str; 2], positions: &[String]) -> Result<usize> {
    let puzzle = a.kind() == Kind::Puzzle;
    let mut bad = 0;
    for text in positions {
        let x = summary(a, &solve(a, text)?, puzzle)?;
        let y = summary(a, &solve(b, text)?, puzzle)?;
        if x != y {
            bad += 1;
            println!("disagreement at {}\n  {}: {x}\n  {}: {y}", text.replace('\n', "/"), names[0], names[1]);
        }
    }
    Ok(bad)
}

/// The other definition beside a game (same directory and name): the `.rhai` script of a
/// `.ron` descriptor, or the `.ron` descriptor of a `.rhai` script, if there is one.
fn sibling(game: &Loaded) -> Option<std::path::PathBuf> {
    let ext = match game {
        Loaded::Descriptor(_) => "rhai",
        Loaded::Script(_) => "ron",
    };
    let p = std::path::Path::new(game.file()).with_extension(ext);
    p.is_file().then_some(p)
}

pub fn run(args: &CheckArgs) -> Result<i32> {
    let primary = load(&args.game)?;
    if args.misere && primary.info().kind == Kind::Puzzle {
        bail!("--misere applies to two-player games");
    }
    let native = native_for(&primary, EngineChoice::Auto)?;
    let other = sibling(&primary).map(|p| load_path(&p)).transpose()?;
    let seed = args.seed.unwrap_or_else(|| fastrand::u64(..));
    let mut rng = fastrand::Rng::with_seed(seed);
    let mode = if args.misere { " (misère)" } else { "" };
    if native.is_none() && other.is_none() {
        let found = with_loaded!(&primary, |g| {
            if args.misere {
                let m = Misere::new(g);
                let positions = walk_positions(&m, args.from.as_deref(), &mut rng, args.count, 64)?;
                self_check(&m, &positions, &mut Analyzer::new(&m, Options::default()))?
            } else {
                let positions = walk_positions(g, args.from.as_deref(), &mut rng, args.count, 64)?;
                self_check(g, &positions, &mut Analyzer::new(g, Options::default()))?
            }
        });
        let name = &primary.info().name;
        return Ok(match found {
            None => {
                println!(
                    "{name}{mode}: {} random positions (seed {seed}) checked against the game's own moves: \
                     no disagreement (nothing else to compare with: no native module, no .rhai/.ron of the same name)",
                    args.count
                );
                0
            }
            Some(why) => {
                println!("{}: {name}{mode} disagrees with itself {why} (seed {seed})", primary.file());
                1
            }
        });
    }
    let positions: Vec<String> = match native {
        Some(kind) => (0..args.count).map(|_| sample(kind, &mut rng)).collect(),
        None => with_loaded!(&primary, |g| walk(g, args.from.as_deref(), &mut rng, args.count)?),
    };
    let first = primary.engine_name();
    let mut total = 0;
    if let Some(other) = &other {
        let second = other.engine_name();
        let bad = with_loaded!(&primary, |a| with_loaded!(other, |b| compare(
            a,
            b,
            [first, second],
            &positions,
            args.misere
        )?));
        println!(
            "{}{mode}: {} random positions (seed {seed}), {bad} disagreements between the {first} ({}) and the {second} ({})",
            primary.info().name,
            positions.len(),
            primary.file(),
            other.file()
        );
        total += bad;
    }
    if let Some(kind) = native {
        let info: GameInfo = primary.info().clone();
        let bad = with_loaded!(&primary, |a| with_native!(kind, info, |n| compare(
            a,
            &n,
            [first, "native"],
            &positions,
            args.misere
        )?));
        println!(
            "{}{mode}: {} random positions (seed {seed}), {bad} disagreements between the {first} and the native module",
            kind.name(),
            positions.len()
        );
        total += bad;
    }
    Ok(if total == 0 { 0 } else { 1 })
}
