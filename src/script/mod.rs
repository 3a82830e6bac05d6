//! Games written as Rhai scripts (`games/*.rhai`). See `docs/scripting.md`.
//!
//! A script is compiled once, its top-level constants are read as metadata, and its functions
//! are called through [`ScriptGame`], which implements [`Game`]. Scripts run sandboxed: every
//! call has an operation limit, and call depth, expression depth, string, array and map sizes
//! are bounded; `eval` and module imports are off; `print` goes to stderr.

mod game;
pub mod helpers;
#[cfg(test)]
mod helpers_tests;
pub mod position;
mod sandbox;
pub mod tiers;

use crate::game::{Game, GameError, GameInfo, GameResult, Kind};
pub use game::ScriptGame;
use game::{CallMemo, Hooks};
use rhai::{AST, Dynamic, Engine, FuncArgs, Position, Scope};
use sandbox::{Constants, call_options, engine_with, error_text, located, meter, run_top_level, time_up};
pub use sandbox::{MAX_CALL_LEVELS, MAX_OPERATIONS, engine};
use std::path::Path;

/// The functions a script may define, with their number of parameters.
const REQUIRED: &[(&str, usize)] = &[("parse", 1), ("moves", 1), ("play", 2)];
const OPTIONAL: &[(&str, usize)] = &[
    ("format", 1),
    ("primitive", 1),
    ("children", 1),
    ("split", 1),
    ("canonical", 1),
    ("move_name", 2),
    ("start", 0),
    ("show", 1),
    ("parse_move", 2),
    ("to_move", 1),
    ("parts", 1),
    ("board", 1),
    ("heap_options", 1),
    ("expand", 1),
];

/// The line of every `fn name(` in a script's source.
fn defined_lines(source: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("fn ").or_else(|| t.strip_prefix("private fn ")) else { continue };
        let name: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.push((name, i + 1));
        }
    }
    out
}

/// Where `source` first calls `name` as a method with one argument (`x.name(arg)`), skipping
/// comments and string literals, if it does.
fn method_call(source: &str, name: &str) -> Option<Position> {
    let pattern = format!(".{name}(");
    for (i, line) in source.lines().enumerate() {
        let code = strip_comment_and_strings(line);
        let mut from = 0;
        while let Some(k) = code[from..].find(&pattern) {
            let at = from + k;
            from = at + pattern.len();
            // One argument: no top-level comma before the closing parenthesis.
            let mut depth = 0i32;
            let mut commas = 0;
            for ch in code[from..].chars() {
                match ch {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth == 0 => break,
                    ')' | ']' | '}' => depth -= 1,
                    ',' if depth == 0 => commas += 1,
                    _ => {}
                }
            }
            if commas == 0 {
                let col = code[..at].chars().count() + 2;
                return Some(Position::new(i as u16 + 1, col as u16));
            }
        }
    }
    None
}

/// A line of code with its `//` comment cut off and the insides of string and character
/// literals blanked (same length, so columns stay right).
fn strip_comment_and_strings(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                if c == '\\' {
                    out.push(' ');
                    if chars.next().is_some() {
                        out.push(' ');
                    }
                    continue;
                }
                if c == q {
                    quote = None;
                    out.push(c);
                } else {
                    out.push(' ');
                }
            }
            None => {
                if c == '/' && chars.peek() == Some(&'/') {
                    break;
                }
                if c == '"' || c == '\'' || c == '`' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// A script's metadata constants, read from what its top level left in scope.
struct Declared {
    info: GameInfo,
    start_text: Option<String>,
    goal_texts: Option<Vec<String>>,
}

/// An error in the script as a whole (no line of its own).
fn whole(file: &str, msg: &str) -> GameError {
    GameError::Definition(located(file, Position::NONE, msg))
}

impl Declared {
    /// NAME (else the file's stem), DESCRIPTION, KIND, NATIVE, PLAYERS, START, GOAL,
    /// MOVE_VERB and SOLVED_MESSAGE, each checked alone.
    fn read(scope: &Scope, file: &str) -> GameResult<Declared> {
        let text_const = |name: &str| -> GameResult<Option<String>> {
            match scope.get(name) {
                None => Ok(None),
                Some(v) if v.is_string() => Ok(Some(v.to_string())),
                Some(v) => Err(whole(file, &format!("the constant {name} must be a string, not `{}`", v.type_name()))),
            }
        };
        let stem = Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let name = text_const("NAME")?.unwrap_or(stem);
        let description = text_const("DESCRIPTION")?.unwrap_or_default();
        let kind_text = text_const("KIND")?
            .ok_or_else(|| whole(file, "missing `const KIND = \"impartial\";` (or \"partisan\", \"puzzle\")"))?;
        let kind = Kind::parse(&kind_text).ok_or_else(|| {
            whole(file, &format!("KIND is {kind_text:?}; it must be \"impartial\", \"partisan\" or \"puzzle\""))
        })?;
        let native = text_const("NATIVE")?;
        let players = match scope.get("PLAYERS") {
            None => None,
            Some(v) => {
                let names: Option<Vec<String>> = v
                    .read_lock::<rhai::Array>()
                    .and_then(|a| a.iter().map(|n| n.is_string().then(|| n.to_string())).collect());
                match names.as_deref() {
                    Some([a, b]) if !a.trim().is_empty() && !b.trim().is_empty() => Some([a.clone(), b.clone()]),
                    _ => {
                        return Err(whole(
                            file,
                            "PLAYERS must be an array of two names, first player first: `const PLAYERS = [\"X\", \"O\"];`",
                        ));
                    }
                }
            }
        };
        let start_text = text_const("START")?;
        let goal_texts: Option<Vec<String>> = match scope.get("GOAL") {
            None => None,
            Some(v) if v.is_string() => Some(vec![v.to_string()]),
            Some(v) => {
                let texts: Option<Vec<String>> = v
                    .read_lock::<rhai::Array>()
                    .and_then(|a| a.iter().map(|t| t.is_string().then(|| t.to_string())).collect());
                match texts {
                    Some(t) if !t.is_empty() => Some(t),
                    _ => {
                        return Err(whole(
                            file,
                            "GOAL must be a puzzle's solved position as text, or an array of them: \
                             `const GOAL = \"123/456/78.\";`",
                        ));
                    }
                }
            }
        };
        let move_verb = text_const("MOVE_VERB")?;
        let solved_message = text_const("SOLVED_MESSAGE")?;
        let info = GameInfo { name, description, kind, native, move_verb, solved_message, players };
        Ok(Declared { info, start_text, goal_texts })
    }

    /// The constants against the hooks: GOAL is a puzzle's, and not beside `primitive`; a
    /// puzzle says when it is solved.
    fn check_with(&self, hooks: &Hooks, file: &str) -> GameResult<()> {
        let kind = self.info.kind;
        if self.goal_texts.is_some() && kind != Kind::Puzzle {
            return Err(whole(file, "GOAL is a puzzle's solved positions; a two-player game uses `primitive`"));
        }
        if self.goal_texts.is_some() && hooks.primitive {
            return Err(whole(
                file,
                "defines both GOAL and `primitive`: keep one (GOAL when the solved positions can be listed)",
            ));
        }
        if kind == Kind::Puzzle && !hooks.primitive && !hooks.expand && self.goal_texts.is_none() {
            return Err(whole(
                file,
                "a puzzle must define `fn primitive(pos)`: \"win\" at its goal, or list its solved positions as \
                 `const GOAL = \"...\";` (two-player games default to normal play, where the player who cannot \
                 move loses)",
            ));
        }
        Ok(())
    }
}

impl Hooks {
    /// Which hooks the script defines (`defined`: its functions and their parameter counts):
    /// the required ones present, each with its number of parameters, and no two that answer
    /// the same question.
    fn read(defined: &[(String, usize)], source: &str, file: &str) -> GameResult<Hooks> {
        let has = |name: &str, arity: usize| -> GameResult<bool> {
            let with_name: Vec<usize> = defined.iter().filter(|(n, _)| n == name).map(|(_, a)| *a).collect();
            if with_name.is_empty() {
                Ok(false)
            } else if with_name.contains(&arity) {
                Ok(true)
            } else {
                Err(whole(file, &format!("`{name}` must take {arity} parameter(s), but it takes {}", with_name[0])))
            }
        };
        for &(f, n) in REQUIRED {
            if !has(f, n)? {
                let params = ["pos", "mv"][..n].join(", ");
                return Err(whole(file, &format!("missing the required function `fn {f}({params})`")));
            }
        }
        let mut opt = OPTIONAL.iter().map(|&(f, n)| has(f, n));
        let mut next = || opt.next().expect("one per hook");
        let mut hooks = Hooks {
            format: next()?,
            primitive: next()?,
            children: next()?,
            split: next()?,
            canonical: next()?,
            move_name: next()?,
            start: next()?,
            show: next()?,
            parse_move: next()?,
            to_move: next()?,
            board: false,
            heap_options: false,
            expand: false,
            split_name: None,
        };
        let parts = next()?;
        hooks.board = next()?;
        hooks.heap_options = next()?;
        hooks.expand = next()?;
        if hooks.expand && (hooks.primitive || hooks.children) {
            return Err(whole(
                file,
                "defines `expand` and `primitive` or `children`: `expand` answers both (the value of a finished \
                 game, else the children); keep `expand` alone, or the two without it",
            ));
        }
        hooks.split_name = match (parts, hooks.split) {
            (true, true) => {
                return Err(whole(
                    file,
                    "defines both `parts` and `split`: they are the same hook (decomposition); keep `parts`",
                ));
            }
            (true, false) => Some("parts"),
            (false, true) => {
                if let Some(at) = method_call(source, "split") {
                    return Err(GameError::Definition(located(
                        file,
                        at,
                        "this calls the string method `split`, but the script defines `fn split(pos)` (the \
                         decomposition hook), and Rhai calls a script function of that name instead, with `this` \
                         bound to the string. Name the hook `parts(pos)` instead",
                    )));
                }
                Some("split")
            }
            (false, false) => None,
        };
        hooks.split = hooks.split_name.is_some();
        Ok(hooks)
    }
}

impl ScriptGame {
    /// Load and check a script. Every error names the file, and the line and column where
    /// there is one.
    pub fn load(path: &Path) -> GameResult<ScriptGame> {
        Self::load_within(path, crate::solve::DEFAULT_MAX_MEMORY)
    }

    /// [`ScriptGame::load`] within a memory budget of `budget` bytes: the file is read only if
    /// it is at most a sixteenth of it, and the script's values are held to the budget (see
    /// [`crate::meter`]).
    pub fn load_within(path: &Path, budget: usize) -> GameResult<ScriptGame> {
        let file = path.display().to_string();
        let source = crate::input::read_definition(path, budget)
            .map_err(|e| GameError::Definition(format!("{file}: cannot read the script: {e}")))?;
        Self::from_source_within(&file, &source, budget)
    }

    pub fn from_source(file: &str, source: &str) -> GameResult<ScriptGame> {
        Self::from_source_within(file, source, crate::solve::DEFAULT_MAX_MEMORY)
    }

    /// [`ScriptGame::from_source`] within a memory budget of `budget` bytes: parse (compile
    /// and run the top level), check (the metadata constants and the hooks, each alone and
    /// together), build.
    pub fn from_source_within(file: &str, source: &str, budget: usize) -> GameResult<ScriptGame> {
        let def = |pos: Position, msg: &str| GameError::Definition(located(file, pos, msg));
        let mut ast = engine().compile(source).map_err(|e| def(e.1, &e.0.to_string()))?;
        ast.set_source(file);
        let (scope, constants) = run_top_level(
            &{
                let mut e = engine();
                meter(&mut e, budget);
                e
            },
            &ast,
            file,
        )?;
        let declared = Declared::read(&scope, file)?;
        let defined: Vec<(String, usize)> =
            ast.iter_functions().map(|f| (f.name.to_string(), f.params.len())).collect();
        let hooks = Hooks::read(&defined, source, file)?;
        declared.check_with(&hooks, file)?;
        let layout =
            tiers::declare(scope.get("TIER_BOARD"), &defined, declared.info.kind, &|m| def(Position::NONE, m))?;
        let calls = ast.clone_functions_only();
        let fn_lines = defined_lines(source);
        let maker: game::Maker = {
            let (file, source): (String, std::sync::Arc<str>) = (file.to_string(), source.into());
            std::sync::Arc::new(move || ScriptGame::from_source_within(&file, &source, budget))
        };
        let mut game = ScriptGame {
            file: file.to_string(),
            tiers: layout
                .map(|l| Box::new(tiers::ScriptTiers::new(file, maker.clone(), l)) as Box<dyn game::TierSpaceOf>),
            maker,
            engine: {
                let mut e = engine_with(&constants);
                meter(&mut e, budget);
                e
            },
            budget,
            calls,
            constants,
            info: declared.info,
            start_text: declared.start_text,
            goals: Default::default(),
            hooks,
            fn_lines,
            children_checked: std::cell::Cell::new(0),
            expanded: Default::default(),
            canonical_memo: CallMemo::new(),
            parts_memo: CallMemo::new(),
        };
        for text in declared.goal_texts.unwrap_or_default() {
            let key = game.parse(&text).map_err(|e| def(Position::NONE, &format!("GOAL {text:?}: {e}")))?;
            game.goals.insert(key);
        }
        Ok(game)
    }
}

/// One function of a Rhai script: a descriptor's escape hatch for a piece its vocabulary
/// cannot express. Sandboxed like a game script.
pub struct ScriptHook {
    file: String,
    engine: Engine,
    ast: AST,
    function: String,
    constants: Constants,
}

impl ScriptHook {
    /// Load `path` and check that it defines `function` with `arity` parameters.
    pub fn load(path: &Path, function: &str, arity: usize) -> GameResult<ScriptHook> {
        let file = path.display().to_string();
        let source = std::fs::read_to_string(path)
            .map_err(|e| GameError::Definition(format!("{file}: cannot read the script: {e}")))?;
        let def = |pos: Position, msg: &str| GameError::Definition(located(&file, pos, msg));
        let mut ast = engine().compile(&source).map_err(|e| def(e.1, &e.0.to_string()))?;
        ast.set_source(file.as_str());
        if !ast.iter_functions().any(|f| f.name == function && f.params.len() == arity) {
            return Err(def(Position::NONE, &format!("no function `{function}` with {arity} parameter(s)")));
        }
        let (_, constants) = run_top_level(&engine(), &ast, &file)?;
        let ast = ast.clone_functions_only();
        Ok(ScriptHook { engine: engine_with(&constants), file, ast, function: function.to_string(), constants })
    }

    pub fn call<A: FuncArgs + Clone>(&self, args: A) -> GameResult<Dynamic> {
        let mut scope = Scope::new();
        self.engine
            .call_fn_with_options::<Dynamic>(call_options(), &mut scope, &self.ast, &self.function, args.clone())
            .map_err(|e| {
                if let Some(t) = time_up(&e, &self.function) {
                    return t;
                }
                GameError::Definition(error_text(
                    &self.file,
                    &self.ast,
                    &self.constants,
                    &self.function,
                    &e,
                    args,
                    crate::solve::DEFAULT_MAX_MEMORY,
                ))
            })
    }

    pub fn file(&self) -> &str {
        &self.file
    }
}
