//! The catalogue: the one door from the front ends (the CLI, the web server, sums) to the
//! games.
//!
//! It is the only place that knows every game: it finds a definition by name or path (a Rhai
//! script, a RON descriptor), chooses the engine that answers for it (the definition's own
//! interpreter, or the native Rust module it names), wraps it for misère play, names its
//! database, reads sums of games, and hands out one type-erased [`Session`]: a game behind
//! position text, whatever its type.
//!
//! Games written in Rust are rows of a table ([`Native`]): the seven native games of
//! [`table::natives`], which a script or descriptor names (`const NATIVE = "nim";`), and any
//! game a library user adds with [`Catalog::with_native`], found by its own name.
//!
//! ```no_run
//! use gamesman::catalog::{Catalog, How};
//! let catalog = Catalog::new();
//! let mut session = catalog.open("chomp", &How::default())?;
//! let report = session.solve("4432")?;
//! assert_eq!(report.value.as_str(), "win");
//! # Ok::<(), anyhow::Error>(())
//! ```

mod how;
mod live;
mod live_answers;
mod live_store;
mod row;
pub mod session;
pub mod shipped;
pub mod sum;
pub mod table;
mod tier_count;

pub use crate::native::command::{Call, Io, Work};
pub use how::{Database, Engine, How};
pub use live::Live;
pub use row::{Assignment, Native, open_game};
pub use session::{
    BoardView, Cell, DbBench, Features, SaveHow, Saved, Session, SessionAnswers, SessionPositions, SessionStore,
};

use crate::db::{self, Identity};
use crate::descriptor::DescriptorGame;
use crate::game::{Game, GameError, GameExt, GameInfo, GameResult, Kind};
use crate::script::ScriptGame;
use anyhow::{Context, Result, anyhow, bail};
use std::path::{Path, PathBuf};

/// A game definition read from a file: a Rhai script or a RON descriptor.
pub enum Definition {
    Script(ScriptGame),
    Descriptor(DescriptorGame),
}

impl Definition {
    pub fn info(&self) -> &GameInfo {
        match self {
            Definition::Script(g) => g.info(),
            Definition::Descriptor(g) => g.info(),
        }
    }

    pub fn file(&self) -> &str {
        match self {
            Definition::Script(g) => g.file(),
            Definition::Descriptor(g) => g.file(),
        }
    }

    /// "script" or "descriptor": which engine runs the definition itself.
    pub fn engine_name(&self) -> &'static str {
        match self {
            Definition::Script(_) => "script",
            Definition::Descriptor(_) => "descriptor",
        }
    }

    /// The other definition of the same game beside this one (the `.rhai` of a `.ron`, the
    /// `.ron` of a `.rhai`), if there is one.
    pub fn sibling(&self) -> Option<PathBuf> {
        let ext = match self {
            Definition::Descriptor(_) => "rhai",
            Definition::Script(_) => "ron",
        };
        let p = Path::new(self.file()).with_extension(ext);
        p.is_file().then_some(p)
    }
}

/// One thing a game argument may mean.
enum Choice {
    /// A game written in Rust, found by its own name.
    Rust(Box<Native>),
    /// A definition file.
    File(PathBuf),
}

/// A game as `gamesman games` lists it: its file (or name), and its metadata or why it
/// does not load.
pub type Listed = (String, Result<GameInfo>);

/// What a command line names: one game, or a sum of positions of several.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    Game(String),
    /// `chomp:4432 + nim:3,5`: (game, position) terms.
    Sum(Vec<(String, String)>),
}

/// Where games are looked for, and the games written in Rust.
#[derive(Clone)]
pub struct Catalog {
    dirs: Vec<PathBuf>,
    natives: Vec<Native>,
}

impl Default for Catalog {
    fn default() -> Self {
        Self::new()
    }
}

impl Catalog {
    /// The shipped games: definitions in `$GAMESMAN_GAMES`, then `./games`, then the ones
    /// embedded in the binary ([`shipped`]); the native modules of [`table::natives`].
    pub fn new() -> Catalog {
        let mut dirs = Vec::new();
        if let Some(d) = std::env::var_os("GAMESMAN_GAMES") {
            dirs.push(PathBuf::from(d));
        }
        dirs.push(PathBuf::from("games"));
        Catalog { dirs, natives: table::natives() }
    }

    /// Look in `dir` first.
    pub fn with_dir(mut self, dir: impl Into<PathBuf>) -> Catalog {
        self.dirs.insert(0, dir.into());
        self
    }

    /// Add a game written in Rust (replacing a row of the same name).
    pub fn with_native(mut self, native: Native) -> Catalog {
        self.natives.retain(|n| n.name != native.name);
        self.natives.push(native);
        self
    }

    /// The directories games are looked for in before the shipped ones, in order.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Every directory games are looked for in, in order: [`Catalog::dirs`], then the folder
    /// of the shipped definitions (written out only when the search gets that far).
    fn search_dirs(&self) -> impl Iterator<Item = PathBuf> + '_ {
        self.dirs.iter().cloned().chain(std::iter::once_with(shipped::dir).flatten())
    }

    /// The games written in Rust.
    pub fn natives(&self) -> &[Native] {
        &self.natives
    }

    /// The assignment command of the row named `name`.
    pub fn assignment(&self, name: &str) -> Result<Assignment> {
        self.native(name)
            .and_then(|n| n.assignment)
            .ok_or_else(|| anyhow!("{name} has no assignment command in this catalogue"))
    }

    /// The assignments' commands, in the table's order: (row name, command).
    pub fn assignments(&self) -> impl Iterator<Item = (&str, Assignment)> {
        self.natives.iter().filter_map(|n| Some((n.name.as_str(), n.assignment?)))
    }

    fn native(&self, name: &str) -> Option<&Native> {
        self.natives.iter().find(|n| n.name == name)
    }

    /// A game found by its own name with no definition file (a library user's game).
    fn standalone(&self, spec: &str) -> Option<&Native> {
        self.natives.iter().find(|n| n.name == spec && n.info.is_some())
    }

    /// The game written in Rust that a game argument names (its own name, where no file of
    /// that name is here), if it names one.
    pub fn rust_game(&self, spec: &str) -> Option<&Native> {
        if Path::new(spec).is_file() { None } else { self.standalone(spec) }
    }

    /// What a game argument may mean, in the catalogue's order: a path to a definition file;
    /// a file name (`kayles.ron`) in the games directories; or a bare name (`cram`): the game
    /// written in Rust of that name, then each directory's NAME.rhai and NAME.ron (a file
    /// name once: the first directory that has it). A folder of the name here does not hide
    /// a game of the catalogue. Found lazily; an error where there is none.
    fn choices<'a>(&'a self, spec: &'a str) -> Result<Box<dyn Iterator<Item = Choice> + 'a>> {
        let p = Path::new(spec);
        if p.is_file() {
            return Ok(Box::new(std::iter::once(Choice::File(p.to_path_buf()))));
        }
        let bare = !spec.is_empty() && !spec.contains(['/', '\\']);
        let ext = p.extension().and_then(|e| e.to_str());
        // `kayles.ron` (a file name with no directory) is looked for in the games directories too.
        if bare && matches!(ext, Some("rhai" | "ron")) {
            if let Some(found) = self.search_dirs().map(|d| d.join(spec)).find(|c| c.is_file()) {
                return Ok(Box::new(std::iter::once(Choice::File(found))));
            }
            bail!("{spec}: no such file here or in the games directory (`gamesman games` lists them)");
        }
        if bare && ext.is_none() {
            let mut seen: Vec<String> = Vec::new();
            let files = self
                .search_dirs()
                .flat_map(move |d| ["rhai", "ron"].map(|e| (d.join(format!("{spec}.{e}")), e)))
                .filter(move |(c, e)| {
                    c.is_file() && !seen.contains(&e.to_string()) && {
                        seen.push(e.to_string());
                        true
                    }
                })
                .map(|(c, _)| Choice::File(c));
            let mut all =
                self.standalone(spec).cloned().map(|n| Choice::Rust(Box::new(n))).into_iter().chain(files).peekable();
            if all.peek().is_some() {
                return Ok(Box::new(all));
            }
            if p.exists() {
                bail!(
                    "{spec} is a folder here, not a game file, and no game of that name is in the catalogue \
                     (no {spec}.rhai or {spec}.ron in the games directory; `gamesman games` lists them)"
                );
            }
            bail!(
                "no game named {spec:?}: it is not a file, and there is no {spec}.rhai or {spec}.ron in the games \
                 directory (`gamesman games` lists them)"
            );
        }
        if p.exists() {
            bail!("{spec}: not a file");
        }
        bail!("{spec}: no such file");
    }

    /// The file a game argument names: a path to a definition, or the name of one in the
    /// games directories (`chomp`: chomp.rhai, else chomp.ron).
    pub fn find(&self, spec: &str) -> Result<PathBuf> {
        let mut rust = None;
        for c in self.choices(spec)? {
            match c {
                Choice::File(f) => return Ok(f),
                Choice::Rust(n) => rust = Some(n.name.clone()),
            }
        }
        bail!("{}: a game written in Rust has no definition file", rust.unwrap_or_else(|| spec.to_string()))
    }

    /// Load the definition a game argument names.
    pub fn load(&self, spec: &str) -> Result<Definition> {
        load_path(&self.find(spec)?)
    }

    /// [`Catalog::load`] within a memory budget of `budget` bytes: the file and every number
    /// it gives are checked against it before anything is made.
    pub fn load_within(&self, spec: &str, budget: usize) -> Result<Definition> {
        load_path_within(&self.find(spec)?, budget)
    }

    /// The native module that answers `def` under `engine`, if any.
    pub fn native_for(&self, def: &Definition, engine: Engine) -> Result<Option<&Native>> {
        let declared = def.info().native.as_deref();
        match (engine, declared) {
            (Engine::Definition, _) | (Engine::Auto, None) => Ok(None),
            (Engine::Native, None) => bail!(
                "{}: the game names no native module (`const NATIVE = \"...\";`, or `native: \"...\"`)",
                def.file()
            ),
            (engine, Some(name)) => match self.native(name) {
                Some(n) => Ok(Some(n)),
                None if engine == Engine::Native => bail!(
                    "{}: there is no native module {name:?} (there are: {})",
                    def.file(),
                    self.natives.iter().map(|n| n.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
                None => Ok(None),
            },
        }
    }

    /// The identity that names a definition's database, as `engine` answers it.
    pub fn identity(def: &Definition, engine: &str, misere: bool) -> Result<Identity> {
        let bytes = std::fs::read(def.file()).with_context(|| format!("cannot read {}", def.file()))?;
        Ok(Identity::new(&def.info().name, def.file(), &bytes, engine, misere))
    }

    /// The path of the database `how` means for the game `spec` (whether or not it exists).
    pub fn database_path(&self, spec: &str, how: &How) -> Result<PathBuf> {
        if let Database::At(p) = &how.database {
            return Ok(p.clone());
        }
        let (_, id) = self.resolve(spec, how)?;
        Ok(db::default_dir()?.join(id.file_name()))
    }

    /// The definition (if any), engine name and identity of a game as `how` opens it.
    fn resolve(&self, spec: &str, how: &How) -> Result<(Option<Definition>, Identity)> {
        if let Some(n) = self.rust_game(spec) {
            return Ok((None, Self::rust_identity(n, how)));
        }
        let def = self.load_within(spec, how.options.max_memory)?;
        let engine = match self.native_for(&def, how.engine)? {
            Some(_) => "native",
            None => def.engine_name(),
        };
        let id = Self::identity(&def, engine, how.misere)?;
        Ok((Some(def), id))
    }

    /// The identity of a game written in Rust found by its own name.
    fn rust_identity(n: &Native, how: &How) -> Identity {
        let name = &n.name;
        Identity::new(name, &format!("native:{name}"), name.as_bytes(), "native", how.misere)
    }

    /// Open a game: a session answering for it with the engine, play and database `how` says.
    pub fn open(&self, spec: &str, how: &How) -> Result<Box<dyn Session>> {
        Ok(self.open_reading(spec, how, None)?.0)
    }

    /// Open the game a game argument names that reads `text` (see [`Catalog::open`]), and
    /// the position as it writes it. A bare name that several definitions share (`cram`:
    /// cram.rhai, cram.ron) means the first of them, in the catalogue's order, that reads
    /// the position; the error says what each one said where none does.
    pub fn open_reading(
        &self,
        spec: &str,
        how: &How,
        text: Option<&str>,
    ) -> Result<(Box<dyn Session>, Option<String>)> {
        let mut refused: Vec<(String, anyhow::Error)> = Vec::new();
        for choice in self.choices(spec)? {
            let label = match &choice {
                Choice::Rust(n) => format!("{} (written in Rust)", n.name),
                Choice::File(f) => f.display().to_string(),
            };
            let session = match self.open_choice(choice, how) {
                Ok(s) => s,
                Err(e) => {
                    refused.push((label, e));
                    continue;
                }
            };
            let Some(text) = text else { return Ok((session, None)) };
            match session.normalize(text) {
                Ok(p) => return Ok((session, Some(p))),
                Err(e) => refused.push((label, e.into())),
            }
        }
        if refused.len() == 1 {
            return Err(refused.pop().expect("one").1);
        }
        // The first definition's error first (what a name with one definition says), then the others'.
        let mut refused = refused.into_iter();
        let (label, first) = refused.next().ok_or_else(|| anyhow!("{spec}: no game of that name"))?;
        let said = format!("{first:#}");
        let others: Vec<String> =
            refused.filter(|(_, e)| format!("{e:#}") != said).map(|(l, e)| format!("{l} says: {e:#}")).collect();
        if others.is_empty() {
            return Err(first);
        }
        bail!("{said} (so says {label}; {}; name the file to choose one)", others.join("; "))
    }

    fn open_choice(&self, choice: Choice, how: &How) -> Result<Box<dyn Session>> {
        match choice {
            Choice::Rust(n) => {
                if how.engine == Engine::Definition {
                    bail!("{}: a game written in Rust has no definition to interpret (--engine script)", n.name);
                }
                let info = n.info.clone().expect("a standalone game has its metadata");
                (n.open)(info, how, Some(Self::rust_identity(&n, how)))
            }
            Choice::File(f) => self.open_definition(load_path_within(&f, how.options.max_memory)?, how),
        }
    }

    /// Open a loaded definition (see [`Catalog::open`]).
    pub fn open_definition(&self, def: Definition, how: &How) -> Result<Box<dyn Session>> {
        match self.native_for(&def, how.engine)? {
            Some(n) => {
                let id = Self::identity(&def, "native", how.misere)?;
                (n.open)(def.info().clone(), how, Some(id))
            }
            None => {
                let engine = def.engine_name();
                let id = Self::identity(&def, engine, how.misere)?;
                match def {
                    Definition::Script(g) => open_game(g, engine, how, Some(id)),
                    Definition::Descriptor(g) => open_game(g, engine, how, Some(id)),
                }
            }
        }
    }

    /// The random-position sampler of the native module `def` names, if it has one.
    pub fn sampler(&self, def: &Definition) -> Option<fn(&mut fastrand::Rng) -> String> {
        self.native_for(def, Engine::Auto).ok().flatten().and_then(|n| n.sample)
    }

    /// A command line's game argument: a sum of terms `game:position + game:position …`
    /// when it is one, else the name or path of one game. A term's game must be one the
    /// catalogue finds; a file of that name is always one game.
    pub fn target(&self, arg: &str) -> Result<Target> {
        if Path::new(arg).is_file() || !arg.contains(':') {
            return Ok(Target::Game(arg.to_string()));
        }
        let mut terms = Vec::new();
        for term in arg.split('+') {
            let term = term.trim();
            let Some((game, pos)) = term.split_once(':') else {
                bail!("{term:?} is not a term of a sum: write game:position, as in `chomp:4432 + nim:3,5 + kayles:10`");
            };
            let (game, pos) = (game.trim(), pos.trim());
            if game.is_empty() || pos.is_empty() {
                bail!("{term:?}: a term of a sum is game:position, both given (`nim:3,5`)");
            }
            terms.push((game.to_string(), pos.to_string()));
        }
        Ok(Target::Sum(terms))
    }

    /// The definitions in the first games directory that exists, in name order, each loaded
    /// (or the error that stops it), and the games written in Rust found by their own name.
    pub fn list(&self, dir: Option<&Path>) -> Result<(PathBuf, Vec<Listed>)> {
        let dirs: Vec<PathBuf> = match dir {
            Some(d) => vec![d.to_path_buf()],
            None => {
                // Up to the first that exists (the shipped ones are written out only if needed).
                let mut dirs = Vec::new();
                for d in self.search_dirs() {
                    let found = d.is_dir();
                    dirs.push(d);
                    if found {
                        break;
                    }
                }
                dirs
            }
        };
        let Some(dir) = dirs.iter().find(|d| d.is_dir()) else {
            bail!(
                "no games directory found (looked in {})",
                dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
            );
        };
        let mut files = definition_files(dir)?;
        files.sort();
        let mut out: Vec<Listed> = files
            .iter()
            .map(|f| {
                let name = f.file_name().unwrap_or_default().to_string_lossy().into_owned();
                (name, load_path(f).map(|d| d.info().clone()))
            })
            .collect();
        for n in &self.natives {
            if let Some(info) = &n.info {
                out.push((n.name.clone(), Ok(info.clone())));
            }
        }
        Ok((dir.clone(), out))
    }

    /// The games a server offers: `specs` (names or paths), or every definition of the games
    /// directory (a script before the descriptor of the same name) and every standalone game.
    /// Each with the id it is served under (its name; `cram.ron` where `cram` is taken).
    pub fn served(&self, specs: &[String]) -> Result<Vec<(String, String)>> {
        let mut names: Vec<(String, String)> = Vec::new();
        let specs: Vec<(String, String)> = if specs.is_empty() {
            let Some(dir) = self.search_dirs().find(|d| d.is_dir()) else { bail!("no games directory found") };
            let mut all = definition_files(&dir)?;
            all.sort_by_key(|p| (p.file_stem().map(|s| s.to_owned()), p.extension().is_some_and(|e| e == "ron")));
            let mut v: Vec<(String, String)> = all
                .iter()
                .map(|f| {
                    let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                    let file = f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                    (format!("{stem}\0{file}"), f.display().to_string())
                })
                .collect();
            v.extend(self.natives.iter().filter(|n| n.info.is_some()).map(|n| (n.name.clone(), n.name.clone())));
            v
        } else {
            specs
                .iter()
                .map(|s| {
                    if self.rust_game(s).is_some() {
                        return Ok((s.clone(), s.clone()));
                    }
                    let f = self.find(s)?;
                    let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                    let file = f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                    Ok((format!("{stem}\0{file}"), f.display().to_string()))
                })
                .collect::<Result<_>>()?
        };
        for (key, spec) in specs {
            let (stem, file) = key.split_once('\0').unwrap_or((&key, &key));
            let id = if names.iter().any(|(id, _)| id == stem) { file.to_string() } else { stem.to_string() };
            names.push((id, spec));
        }
        Ok(names)
    }

    /// The heap descriptor a `sequence` argument names: an octal code as written
    /// (`0.137`), or a descriptor (a bare name means the `.ron`, where a script of the same
    /// name exists too).
    pub fn heap_game(&self, spec: &str, how: &How) -> Result<HeapGame> {
        let is_code =
            spec.starts_with("0.") && !Path::new(spec).exists() && !spec.ends_with(".ron") && !spec.ends_with(".rhai");
        if is_code {
            return Ok(HeapGame::Descriptor(Box::new(DescriptorGame::octal(spec)?)));
        }
        let bare = !spec.contains(['/', '\\', '.']);
        let descriptor = bare.then(|| self.find(&format!("{spec}.ron")).ok()).flatten();
        let def = match descriptor {
            Some(path) => load_path(&path)?,
            None => self.load(spec)?,
        };
        match def {
            Definition::Descriptor(game) => Ok(HeapGame::Descriptor(Box::new(game))),
            Definition::Script(script) => {
                let file = script.file().to_string();
                if script.kind() != Kind::Impartial {
                    bail!("{file}: a nim-sequence is for an impartial game (this script's KIND is not \"impartial\")");
                }
                let options = if script.has_heap_options() { Some(Box::new(script.copy()?)) } else { None };
                let session = self.open_definition(Definition::Script(script), how)?;
                Ok(HeapGame::Script { file, session, options })
            }
        }
    }
}

/// A game whose nim-sequence `gamesman sequence` prints: one heap of each size.
pub enum HeapGame {
    /// A heap descriptor: the nim-sequence engine knows its rules (octal codes, subtraction).
    Descriptor(Box<DescriptorGame>),
    /// An impartial script: its position text `n` is one heap of n, and each value comes from
    /// its own rules by the Grundy search (each distinct part solved once).
    /// With `heap_options(n)` (`options`), each value comes from the options of one heap of
    /// n, one call a heap ([`HeapGame::script_values`]).
    Script { file: String, session: Box<dyn Session>, options: Option<Box<ScriptGame>> },
}

/// Heaps on which a script's `heap_options` is checked against its own moves (the Grundy
/// search of `moves` and `play`): a `heap_options` that disagrees would make every value
/// after silently wrong.
pub const HEAP_OPTIONS_CHECKED: usize = 24;

/// The heaps past the first [`HEAP_OPTIONS_CHECKED`] on which a script's `heap_options` is
/// checked against its moves, spread across the whole range to `to`: one in each doubling
/// of the heap (24–47, 48–95, …, drawn by a fixed hash so that no pattern of the heap's
/// size is favoured), and `to` itself.
pub fn heap_options_samples(to: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut lo = HEAP_OPTIONS_CHECKED;
    while lo <= to {
        let hi = lo.saturating_mul(2).min(to.saturating_add(1));
        let hash = (lo as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
        out.push(lo + (hash % (hi - lo) as u64) as usize);
        lo = hi;
    }
    if to >= HEAP_OPTIONS_CHECKED && out.last() != Some(&to) {
        out.push(to);
    }
    out
}

/// The Grundy values of the options of heap `n` as `heap_options` gives them, `values` the
/// values of the heaps below `n`: sorted, each once.
fn option_values(options: &[crate::solve::sequence::HeapOption], values: &[u32]) -> Vec<u32> {
    use crate::solve::sequence::HeapOption;
    let mut out = Vec::new();
    for o in options {
        match o {
            HeapOption::Heaps(hs) => out.push(hs.iter().fold(0, |x, &h| x ^ values[h])),
            HeapOption::Splits { total, unequal } => {
                let last = if *unequal { total.saturating_sub(1) / 2 } else { total / 2 };
                out.extend((1..=last).map(|a| values[a] ^ values[total - a]));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

impl HeapGame {
    /// The nim-sequence of a script with `heap_options`, heaps 0 to `to`, and the options
    /// read: each heap's options from one call, the values by mex (`solve::sequence`), the
    /// first [`HEAP_OPTIONS_CHECKED`] heaps checked against the Grundy search of the
    /// script's moves. `None` for a script without the hook.
    pub fn script_values(
        file: &str,
        session: &mut dyn Session,
        options: Option<&ScriptGame>,
        to: usize,
    ) -> Result<Option<(Vec<u32>, u64)>> {
        let Some(game) = options else { return Ok(None) };
        use crate::solve::sequence::{MAX_COMPUTED, by_options};
        if to >= MAX_COMPUTED {
            bail!("{file}: heaps to {to}: at most {} values are computed (4 bytes each)", MAX_COMPUTED - 1);
        }
        let (values, read) = by_options(to, |n| game.heap_options(n)).map_err(|e| anyhow!("{e}"))?;
        // Across the whole range: the options heap_options gives against those the moves
        // make (each child's parts read as heaps, valued by the values just computed), so
        // that a hook that lies only past the first heaps is reported, not printed.
        for n in heap_options_samples(to) {
            let by_hook = option_values(&game.heap_options(n).map_err(|e| anyhow!("{e}"))?, &values);
            let by_moves = moves_values(game, session, n, &values).map_err(|e| anyhow!("{file}: heap {n}: {e}"))?;
            if by_hook != by_moves {
                let only = |a: &[u32], b: &[u32]| a.iter().find(|v| b.binary_search(v).is_err()).copied();
                let why = match (only(&by_hook, &by_moves), only(&by_moves, &by_hook)) {
                    (Some(v), _) => format!("an option of Grundy value {v} that no move makes"),
                    (None, Some(v)) => format!("no option of Grundy value {v}, which a move makes"),
                    (None, None) => "other options".to_string(),
                };
                bail!(
                    "{file}: heap_options disagrees with moves + play at heap {n}: heap_options gives {why}. They must \
                     give the same options"
                );
            }
        }
        for (n, &v) in values.iter().enumerate().take(HEAP_OPTIONS_CHECKED) {
            let g = session.grundy(&n.to_string()).map_err(|e| anyhow!("{file}: heap {n}: {e}"))?;
            if g != Some(u64::from(v)) {
                let by_moves = g.map_or("none".to_string(), |g| g.to_string());
                bail!(
                    "{file}: heap_options disagrees with moves + play at heap {n}: Grundy value {v} from                      heap_options, {by_moves} from the moves. They must give the same options"
                );
            }
        }
        Ok(Some((values, read)))
    }
}

/// The Grundy values of the children of heap `n` by the script's own moves: each child's
/// parts (`parts`, else the child whole) read as heaps and valued by `values`, a part that is
/// not a heap below `n` by the search. Sorted, each once.
fn moves_values(game: &ScriptGame, session: &mut dyn Session, n: usize, values: &[u32]) -> GameResult<Vec<u32>> {
    let pos = game.parse(&n.to_string())?;
    let mut out = Vec::new();
    for mv in game.moves(&pos)? {
        let child = game.play(&pos, &mv)?;
        let parts = game.split(&child)?.unwrap_or_else(|| vec![child]);
        let mut x = 0u32;
        for part in parts {
            let text = game.format(&part)?;
            let v = match text.trim().parse::<usize>() {
                Ok(h) if h < n => values[h],
                _ => match session.grundy(&text)? {
                    Some(g) => u32::try_from(g).unwrap_or(u32::MAX),
                    None => return Err(GameError::Definition(format!("the part {text:?} has no Grundy value"))),
                },
            };
            x ^= v;
        }
        out.push(x);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The `.rhai` and `.ron` files of a directory.
fn definition_files(dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "rhai" || e == "ron"))
        .collect())
}

/// Load a definition file: a `.rhai` script or a `.ron` descriptor.
pub fn load_path(path: &Path) -> Result<Definition> {
    load_path_within(path, crate::solve::DEFAULT_MAX_MEMORY)
}

/// [`load_path`] within a memory budget of `budget` bytes.
pub fn load_path_within(path: &Path, budget: usize) -> Result<Definition> {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "rhai" => Ok(Definition::Script(ScriptGame::load_within(path, budget)?)),
        "ron" => Ok(Definition::Descriptor(DescriptorGame::load_within(path, budget)?)),
        _ => Err(anyhow!("{}: a game is a .rhai script or a .ron descriptor", path.display())),
    }
}

impl Catalog {
    /// Open every term of a sum (each an impartial game) for its Grundy values: `how` says
    /// which engine, the budget and the time limit; remoteness is never searched. The terms
    /// of one game share one session (one interpreter, one memo): a sum of 10^4 Kayles rows
    /// once opened 10^4 interpreters, each with the whole budget (2.6 GB with
    /// `--max-memory 16`). The budget is divided between the sessions of different games.
    pub fn open_sum(&self, terms: &[(String, String)], how: &How) -> Result<Vec<sum::Term>> {
        let mut how = how.clone();
        how.options.remoteness = false;
        how.misere = false;
        let games: std::collections::HashSet<&str> = terms.iter().map(|(g, _)| g.as_str()).collect();
        how.options.max_memory /= games.len().max(1);
        let mut sessions: std::collections::HashMap<&str, sum::Shared> = std::collections::HashMap::new();
        let mut out = Vec::with_capacity(terms.len());
        for (game, pos) in terms {
            if let Some(shared) = sessions.get(game.as_str()) {
                let position = shared.borrow().normalize(pos)?;
                out.push(sum::Term { shared: shared.clone(), position });
                continue;
            }
            let (session, position) = self.open_reading(game, &how, Some(pos))?;
            let info = session.info();
            if info.kind != Kind::Impartial {
                let file = session.identity().map_or(game.as_str(), |id| id.file.as_str());
                bail!(
                    "{file}: {} is {}, and only impartial games add up in a sum (each player has the same moves)",
                    info.name,
                    info.kind
                );
            }
            let position = position.expect("a position was given");
            let shared: sum::Shared = std::rc::Rc::new(std::cell::RefCell::new(session));
            sessions.insert(game.as_str(), shared.clone());
            out.push(sum::Term { shared, position });
        }
        Ok(out)
    }
}
