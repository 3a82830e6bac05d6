//! `gamesman info`: what a game is, read from the game itself: its definition's own notes
//! (the comment it opens with: the rules, the position syntax, the sizes it takes), the
//! start, the players, the moves from the start, the engine that answers and what it can do.

use super::args::GameArgs;
use crate::catalog::Session;
use crate::game::Kind;
use crate::solve::Options;
use anyhow::Result;
use clap::Args;
use serde_json::json;
use std::path::Path;

#[derive(Args)]
pub struct InfoArgs {
    #[command(flatten)]
    g: GameArgs,
    #[command(flatten)]
    limit: super::args::LimitArgs,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
}

/// Move names shown as examples.
const EXAMPLES: usize = 12;

/// Positions one move away compared up to symmetry: past this many moves, not counted.
const MAX_COMPARED: usize = 10_000;

/// The comment a definition file opens with (`//` lines; blank lines before it skipped), as
/// text: the definition's own notes on its rules, its position text and the sizes it takes.
pub fn notes(file: &Path) -> Option<String> {
    // A definition file is a regular file of a reasonable size (a FIFO never ends).
    if !std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() <= 1 << 20) {
        return None;
    }
    let text = std::fs::read_to_string(file).ok()?;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_start)
        .skip_while(|l| l.is_empty())
        .take_while(|l| l.starts_with("//"))
        .map(|l| l.trim_start_matches('/').trim_start_matches('!'))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let notes = lines.join("\n").trim().to_string();
    (!notes.is_empty()).then_some(notes)
}

pub fn run(args: &InfoArgs) -> Result<i32> {
    let session = args.g.open(Options { remoteness: false, progress: args.limit.start(), ..Options::default() })?;
    let info = session.info().clone();
    let position = args.g.position(&*session, "info")?;
    let engine = session.engine();
    let file = session.identity().map(|id| id.file.clone()).filter(|f| Path::new(f).is_file());
    let also: Vec<String> = file
        .as_deref()
        .map(Path::new)
        .and_then(|f| {
            let other = f.with_extension(if f.extension().is_some_and(|e| e == "ron") { "rhai" } else { "ron" });
            other.is_file().then(|| other.display().to_string())
        })
        .into_iter()
        .collect();
    let children = session.children(&position)?;
    let distinct = (children.len() <= MAX_COMPARED)
        .then(|| -> Result<usize> {
            let mut forms = children.iter().map(|(_, p)| session.canonical(p)).collect::<Result<Vec<_>, _>>()?;
            forms.sort();
            forms.dedup();
            Ok(forms.len())
        })
        .transpose()?;
    let to_move = session.to_move(&position)?;
    let features = session.features();
    let database = session.database_path().ok();
    let players: Option<[String; 2]> =
        (info.kind != Kind::Puzzle).then(|| [info.player_name(0).to_string(), info.player_name(1).to_string()]);
    let about = file.as_deref().map(Path::new).and_then(notes);
    let names: Vec<&str> = children.iter().take(EXAMPLES).map(|(m, _)| m.as_str()).collect();
    if args.json {
        let obj = json!({
            "game": info.name,
            "description": info.description,
            "kind": info.kind.as_str(),
            "engine": engine,
            "file": file,
            "native_module": if engine == "native" { info.native.clone() } else { None },
            "other_definitions": also,
            "players": players,
            "position": position,
            "shown": session.show(&position)?,
            "to_move": to_move.map(|p| info.player_name(p).to_string()),
            "moves": children.len(),
            "move_names": names,
            "first_move": children.first().map(|(m, p)| json!({"move": m, "position": p})),
            "positions_up_to_symmetry": distinct,
            "tiers": features.tiers,
            "split": features.split,
            "database": database.as_ref().map(|p| p.display().to_string()),
            "database_saved": features.saved.is_some(),
            "about": about,
        });
        println!("{obj}");
        return Ok(0);
    }
    print(&*session, &position, &children, distinct, &also, &file, &about, &features, database)?;
    Ok(0)
}

#[allow(clippy::too_many_arguments)]
fn print(
    session: &dyn Session,
    position: &str,
    children: &[(String, String)],
    distinct: Option<usize>,
    also: &[String],
    file: &Option<String>,
    about: &Option<String>,
    features: &crate::catalog::Features,
    database: Option<std::path::PathBuf>,
) -> Result<()> {
    let info = session.info();
    let engine = session.engine();
    println!("{}: {}", info.name, info.description);
    let kind = match info.kind {
        Kind::Impartial => "impartial: both players have the same moves",
        Kind::Partisan => "partisan: each player has moves of their own",
        Kind::Puzzle => "puzzle: one player, solved by reaching the goal",
    };
    println!("kind:        {kind}");
    let answered = match (engine, file, &info.native) {
        ("native", Some(f), Some(n)) => format!("native module {n:?} (named by {f})"),
        ("native", None, _) => "native (a game written in Rust)".to_string(),
        (e, Some(f), _) => format!("{e} ({f})"),
        (e, None, _) => e.to_string(),
    };
    println!("engine:      {answered}");
    for a in also {
        println!("also:        {a} (the same game; name the file to use it)");
    }
    if info.kind != Kind::Puzzle {
        println!("players:     {} moves first, then {}", info.player_name(0), info.player_name(1));
    }
    println!("position:    {position:?}");
    let shown = session.show(position)?;
    if shown.trim_end() != position.trim_end() {
        println!("  drawn:\n    {}", shown.trim_end().replace('\n', "\n    "));
    }
    if let Some(p) = session.to_move(position)? {
        println!("to move:     {}", info.player_name(p));
    }
    let names: Vec<&str> = children.iter().take(EXAMPLES).map(|(m, _)| m.as_str()).collect();
    let more = if children.len() > EXAMPLES { ", …" } else { "" };
    println!("moves:       {} here: {}{more}", children.len(), names.join(", "));
    if let Some((m, p)) = children.first() {
        println!("  after {m}: {p:?}");
    }
    if let Some(d) = distinct
        && !children.is_empty()
    {
        println!("symmetry:    the {} moves lead to {} positions up to symmetry", children.len(), d);
    }
    let yes = |b: bool| if b { "yes" } else { "no" };
    println!("tiers:       {}", yes(features.tiers));
    println!("split:       {}", yes(features.split));
    match (&features.saved, database) {
        (Some(p), _) => println!("database:    saved ({})", p.display()),
        (None, Some(p)) => println!("database:    not saved (`--save` writes {})", p.display()),
        (None, None) => println!("database:    none"),
    }
    if let Some(a) = about {
        println!("\n{}", a);
    }
    Ok(())
}
