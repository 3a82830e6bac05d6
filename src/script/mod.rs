//! Games written as Rhai scripts (`games/*.rhai`). See `docs/scripting.md`.
//!
//! A script is compiled once, its top-level constants are read as metadata, and its functions
//! are called through [`ScriptGame`], which implements [`Game`]. Scripts run sandboxed: every
//! call has an operation limit, and call depth, expression depth, string, array and map sizes
//! are bounded; `eval` and module imports are off; `print` goes to stderr.

pub mod helpers;
#[cfg(test)]
mod helpers_tests;
pub mod position;
mod sandbox;
pub mod tiers;

use crate::game::{
    Board, Capabilities, Game, GameError, GameInfo, GameResult, Kind, Parallel, Replica, Split, Value, View,
};
use position::Key;
use rhai::{AST, Dynamic, Engine, EvalAltResult, FuncArgs, Position, Scope};
use sandbox::{
    Constants, call_options, engine_with, error_text, innermost, located, message, meter, run_top_level, time_up,
};
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

#[derive(Default, Clone, Copy)]
struct Hooks {
    format: bool,
    primitive: bool,
    children: bool,
    split: bool,
    canonical: bool,
    move_name: bool,
    start: bool,
    show: bool,
    parse_move: bool,
    to_move: bool,
    board: bool,
    /// `heap_options(n)`: the options of one heap of n, for `gamesman sequence`.
    heap_options: bool,
    /// `expand(pos)`: `primitive` and `children` in one call.
    expand: bool,
    /// The decomposition hook's name: `parts`, or `split` (its older name), if either.
    split_name: Option<&'static str>,
}

pub struct ScriptGame {
    file: String,
    /// The script's text, for a copy of the game on another thread.
    source: std::sync::Arc<str>,
    engine: Engine,
    /// The script's functions, as the solver calls into them.
    calls: AST,
    /// The script's top-level constants (`global::LINES`), computed once.
    constants: Constants,
    info: GameInfo,
    start_text: Option<String>,
    /// A puzzle's solved positions, from `const GOAL` (instead of a `primitive` hook).
    goals: hashbrown::HashSet<Key>,
    hooks: Hooks,
    /// The line of each function's definition (`fn name(`), to point at a function whose
    /// result is wrong.
    fn_lines: Vec<(String, usize)>,
    /// How many positions `children` has been checked against `moves` + `play` on.
    children_checked: std::cell::Cell<u32>,
    /// The children `expand` gave for the last position `primitive` was asked of, for the
    /// `children` call that follows it.
    expanded: Box<std::cell::RefCell<Option<Expanded>>>,
    /// Answers of `canonical` and of the decomposition hook, by position: the solvers ask
    /// them once for every move they look at, and most positions are reached by many moves.
    canonical_memo: CallMemo<Key>,
    parts_memo: CallMemo<Option<Vec<Key>>>,
    /// The memory budget its calls are held to (see [`meter`]).
    budget: usize,
    /// Positions by index, when the script declares them (`TIER_BOARD` or the tier hooks).
    tiers: Option<tiers::ScriptTiers>,
}

/// A position and the children `expand` gave for it.
type Expanded = (Key, Vec<Key>);

/// The answers of one script function of a position, remembered up to [`CALL_MEMO_BYTES`]
/// (then forgotten all at once). A script function is a function of the position alone, so
/// remembering its answer changes nothing but the time.
struct CallMemo<V> {
    map: std::cell::RefCell<hashbrown::HashMap<Key, V>>,
    bytes: std::cell::Cell<usize>,
}

/// Bytes each [`CallMemo`] may hold, beside the solvers' own memory budget.
const CALL_MEMO_BYTES: usize = 8 << 20;

impl<V: Clone> CallMemo<V> {
    fn new() -> Self {
        CallMemo { map: Default::default(), bytes: Default::default() }
    }

    fn get_or(&self, pos: &Key, size: impl Fn(&V) -> usize, f: impl FnOnce() -> GameResult<V>) -> GameResult<V> {
        use crate::game::Footprint;
        if let Some(v) = self.map.borrow().get(pos) {
            return Ok(v.clone());
        }
        let v = f()?;
        let bytes = pos.heap_bytes() + size(&v) + 2 * std::mem::size_of::<(Key, V)>();
        if self.bytes.get() + bytes > CALL_MEMO_BYTES {
            self.map.borrow_mut().clear();
            self.bytes.set(0);
        }
        self.bytes.set(self.bytes.get() + bytes);
        self.map.borrow_mut().insert(pos.clone(), v.clone());
        Ok(v)
    }
}

/// Positions on which a script's `children` is checked against `moves` + `play`.
const CHILDREN_CHECKS: u32 = 32;

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
        let source: std::sync::Arc<str> = source.into();
        let fn_lines = defined_lines(&source);
        let mut game = ScriptGame {
            file: file.to_string(),
            tiers: layout.map(|l| tiers::ScriptTiers::new(file, source.clone(), budget, l)),
            source,
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

    pub fn file(&self) -> &str {
        &self.file
    }

    /// The same script compiled again, with nothing remembered.
    pub fn copy(&self) -> GameResult<ScriptGame> {
        ScriptGame::from_source_within(&self.file, &self.source, self.budget)
    }

    /// Whether the script defines `heap_options(n)` (the options of one heap of n, for
    /// `gamesman sequence`).
    pub fn has_heap_options(&self) -> bool {
        self.hooks.heap_options
    }

    /// The options of one heap of `n`, from `heap_options(n)`: an array whose entries are each
    /// one option, the heaps a move leaves (`[a, b]`, `[a]`, `[]`), or `splits(k)` /
    /// `unequal_splits(k)`, every way to leave two heaps that add up to k. Every heap an
    /// option leaves must be smaller than `n` (the values are found from the smaller heaps).
    pub fn heap_options(&self, n: usize) -> GameResult<Vec<crate::solve::sequence::HeapOption>> {
        use crate::solve::sequence::HeapOption;
        let f = "heap_options";
        let d = self.call(f, || (n as i64,))?;
        let bad = |why: String| GameError::Definition(format!("{}: {f}({n}) {why}", self.at_fn(f)));
        let t = d.type_name();
        let Some(arr) = d.try_cast::<rhai::Array>() else {
            return Err(bad(format!("must return an array of options, not `{t}`")));
        };
        let mut out = Vec::with_capacity(arr.len());
        for entry in arr {
            if let Some(s) = entry.read_lock::<helpers::HeapSplits>().map(|s| *s) {
                if s.total > n {
                    return Err(bad(format!("gave {s}: a split of more than the heap")));
                }
                out.push(HeapOption::Splits { total: s.total, unequal: s.unequal });
                continue;
            }
            let t = entry.type_name();
            let Some(heaps) = entry.try_cast::<rhai::Array>() else {
                return Err(bad(format!(
                    "gave `{t}`: each option is an array of the heaps the move leaves, or splits(k) / unequal_splits(k)"
                )));
            };
            let mut hs = Vec::with_capacity(heaps.len());
            for h in heaps {
                match h.as_int() {
                    Ok(h) if (0..n as i64).contains(&h) => hs.push(h as usize),
                    Ok(h) => {
                        return Err(bad(format!(
                            "gave a heap of {h}: every heap an option leaves must be at least 0 and less than {n}"
                        )));
                    }
                    Err(t) => return Err(bad(format!("gave a heap that is `{t}`, not a whole number"))),
                }
            }
            out.push(HeapOption::Heaps(hs));
        }
        Ok(out)
    }

    /// Call script function `f` with the arguments `args` makes. They are made again for an
    /// error's message rather than copied before every call (a copy of the position on every
    /// call cost the 8-puzzle about 8% of its time).
    fn call<A: FuncArgs>(&self, f: &str, args: impl Fn() -> A) -> GameResult<Dynamic> {
        let mut scope = Scope::new();
        self.engine
            .call_fn_with_options::<Dynamic>(call_options(), &mut scope, &self.calls, f, args())
            .map_err(|e| self.script_error(f, &e, args()))
    }

    /// A script error as one line naming the file, line and column. Rhai reports the sandbox's
    /// limits (operations, call depth, data size) without a position, so the call is run once
    /// more under a debugger that records where it was when the limit struck.
    fn script_error(&self, f: &str, e: &EvalAltResult, args: impl FuncArgs) -> GameError {
        if let Some(e) = time_up(e, f) {
            return e;
        }
        let text = error_text(&self.file, &self.calls, &self.constants, f, e, args, self.budget);
        if matches!(innermost(e).0, EvalAltResult::ErrorTerminated(..)) {
            return GameError::OutOfMemory(text);
        }
        GameError::Definition(text)
    }

    /// The line where function `f` is defined, as "file:line" (or the file alone).
    fn at_fn(&self, f: &str) -> String {
        match self.fn_lines.iter().find(|(n, _)| n == f) {
            Some((_, line)) => format!("{}:{line}", self.file),
            None => self.file.clone(),
        }
    }

    fn key(&self, f: &str, d: &Dynamic) -> GameResult<Key> {
        if d.is_unit() {
            return Err(GameError::Definition(format!(
                "{}: {f} returned () instead of a position. A function's value is its last expression, and an \
                 assignment such as `b[i] = x;` has none: end `{f}` with the position itself (e.g. `b`)",
                self.at_fn(f)
            )));
        }
        Key::from_dynamic(d).map_err(|e| GameError::Definition(format!("{}: {f} returned {e}", self.at_fn(f))))
    }

    fn keys(&self, f: &str, d: Dynamic) -> GameResult<Vec<Key>> {
        if !d.is_array() {
            let t = d.type_name();
            return Err(GameError::Definition(format!("{}: {f} must return an array, not `{t}`", self.at_fn(f))));
        }
        let arr = d.try_cast::<rhai::Array>().ok_or_else(|| {
            GameError::Definition(format!("{}: {f} must return an array (it returned a shared value)", self.at_fn(f)))
        })?;
        match Key::from_dynamics(&arr) {
            Ok(keys) => Ok(keys),
            // The item that failed, again, for why.
            Err(i) => arr[i..].iter().map(|d| self.key(f, d)).collect(),
        }
    }

    /// A game's value as `primitive` and `expand` give it: "win", "lose" or "tie".
    fn value_of(&self, f: &str, d: &Dynamic) -> GameResult<Value> {
        if let Ok(s) = d.as_immutable_string_ref() {
            match s.as_str() {
                "win" => return Ok(Value::Win),
                "lose" => return Ok(Value::Lose),
                "tie" => return Ok(Value::Tie),
                _ => {}
            }
        }
        let also = if f == "expand" { "an array of children (game not over)" } else { "() (game not over)" };
        Err(GameError::Definition(format!(
            "{}: {f} must return \"win\", \"lose\", \"tie\" or {also}, not {:?}",
            self.at_fn(f),
            d.to_string()
        )))
    }

    /// `expand(pos)`: the value of a finished game (`Ok`), else the children (`Err`).
    fn expand(&self, pos: &Key) -> GameResult<Result<Value, Vec<Key>>> {
        let d = self.call("expand", || (pos.to_dynamic(),))?;
        if d.is_array() {
            let children = self.keys("expand", d)?;
            self.check_children("expand", pos, &children)?;
            return Ok(Err(children));
        }
        Ok(Ok(self.value_of("expand", &d)?))
    }

    /// On the first few positions, check that `children` lists the same positions as `moves`
    /// and `play` do (up to symmetry and repeats): a `children` that disagrees would make
    /// every answer silently wrong.
    fn check_children(&self, f: &str, pos: &Key, children: &[Key]) -> GameResult<()> {
        let n = self.children_checked.get();
        if n >= CHILDREN_CHECKS {
            return Ok(());
        }
        self.children_checked.set(n + 1);
        let moves = self.moves(pos)?;
        let mut by_moves = Vec::with_capacity(moves.len());
        for m in &moves {
            by_moves.push(self.canonical(&self.play(pos, m)?)?);
        }
        let mut by_children = Vec::with_capacity(children.len());
        for c in children {
            by_children.push(self.canonical(c)?);
        }
        let set = |v: &[Key]| v.iter().cloned().collect::<std::collections::HashSet<Key>>();
        let (a, b) = (set(&by_children), set(&by_moves));
        if a == b {
            return Ok(());
        }
        let show = |k: &Key| self.format(k).unwrap_or_else(|_| format!("{k:?}")).replace('\n', "/");
        let only = |x: &std::collections::HashSet<Key>, y: &std::collections::HashSet<Key>| {
            let mut v: Vec<String> = x.difference(y).map(show).collect();
            v.sort();
            v.truncate(5);
            v.join(", ")
        };
        let mut why = Vec::new();
        if a.difference(&b).next().is_some() {
            why.push(format!("only children gives [{}]", only(&a, &b)));
        }
        if b.difference(&a).next().is_some() {
            why.push(format!("only moves + play give [{}]", only(&b, &a)));
        }
        Err(GameError::Definition(format!(
            "{}: {f} disagrees with moves + play at {}: {}. They must list the same positions",
            self.at_fn(f),
            show(pos),
            why.join("; ")
        )))
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

/// Text for a value when the script gives no `format` or `move_name`.
fn plain_text(d: &Dynamic) -> String {
    if let Some(a) = d.read_lock::<rhai::Array>() {
        return a.iter().map(plain_text).collect::<Vec<_>>().join(",");
    }
    d.to_string()
}

fn send_key(k: &Key) -> crate::game::Wire {
    Box::new(k.clone())
}

fn receive_key(w: crate::game::Wire) -> Key {
    match w.downcast::<Key>() {
        Ok(k) => *k,
        Err(_) => unreachable!("a script position crosses threads as a Key"),
    }
}

impl Game for ScriptGame {
    type Pos = Key;
    type Move = Dynamic;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<Key>> {
        if self.hooks.start {
            let d = self.call("start", || ())?;
            return Ok(Some(self.key("start", &d)?));
        }
        self.start_text.as_deref().map(|t| self.parse(t)).transpose()
    }

    fn parse(&self, text: &str) -> GameResult<Key> {
        let mut scope = Scope::new();
        let args = (text.to_string(),);
        let d = self
            .engine
            .call_fn_with_options::<Dynamic>(call_options(), &mut scope, &self.calls, "parse", args.clone())
            .map_err(|e| {
                let (inner, pos) = innermost(&e);
                match inner {
                    // `throw` in parse, or a helper refusing the text: the position is bad.
                    EvalAltResult::ErrorRuntime(v, _) => GameError::BadPosition(v.to_string()),
                    // A built-in refusing the text (`parse_int("x")`, an index past its end):
                    // the position is bad too; say where, for the script's author.
                    EvalAltResult::ErrorArithmetic(..)
                    | EvalAltResult::ErrorStringBounds(..)
                    | EvalAltResult::ErrorArrayBounds(..) => {
                        GameError::BadPosition(format!("{} ({})", message(inner), located(&self.file, pos, "in parse")))
                    }
                    _ => self.script_error("parse", &e, args),
                }
            })?;
        self.key("parse", &d)
    }

    fn format(&self, pos: &Key) -> GameResult<String> {
        if self.hooks.format {
            return Ok(self.call("format", || (pos.to_dynamic(),))?.to_string());
        }
        Ok(plain_text(&pos.to_dynamic()))
    }

    fn moves(&self, pos: &Key) -> GameResult<Vec<Dynamic>> {
        let d = self.call("moves", || (pos.to_dynamic(),))?;
        let t = d.type_name();
        d.try_cast::<rhai::Array>()
            .ok_or_else(|| GameError::Definition(format!("{}: moves must return an array, not `{t}`", self.file)))
    }

    fn play(&self, pos: &Key, mv: &Dynamic) -> GameResult<Key> {
        let d = self.call("play", || (pos.to_dynamic(), mv.clone()))?;
        self.key("play", &d)
    }

    fn move_name(&self, pos: &Key, mv: &Dynamic) -> GameResult<String> {
        if self.hooks.move_name {
            return Ok(self.call("move_name", || (pos.to_dynamic(), mv.clone()))?.to_string());
        }
        Ok(plain_text(mv))
    }

    fn primitive(&self, pos: &Key) -> GameResult<Option<Value>> {
        if !self.hooks.primitive {
            if self.goals.contains(pos) {
                return Ok(Some(Value::Win));
            }
            if self.hooks.expand {
                return match self.expand(pos)? {
                    Ok(v) => Ok(Some(v)),
                    Err(children) => {
                        *self.expanded.borrow_mut() = Some((pos.clone(), children));
                        Ok(None)
                    }
                };
            }
            return Ok(None);
        }
        let d = self.call("primitive", || (pos.to_dynamic(),))?;
        if d.is_unit() {
            return Ok(None);
        }
        self.value_of("primitive", &d).map(Some)
    }

    fn canonical(&self, pos: &Key) -> GameResult<Key> {
        // A board declared with `symmetries` (TIER_BOARD): the least image, natively.
        if let Some(c) = self.tiers.as_ref().and_then(|t| t.native_canonical(pos)) {
            return c;
        }
        if !self.hooks.canonical {
            return Ok(pos.clone());
        }
        let size = |k: &Key| {
            use crate::game::Footprint;
            k.heap_bytes()
        };
        self.canonical_memo.get_or(pos, size, || {
            let d = self.call("canonical", || (pos.to_dynamic(),))?;
            self.key("canonical", &d)
        })
    }

    fn children(&self, pos: &Key) -> GameResult<Vec<Key>> {
        if self.hooks.expand {
            // Asked right after `primitive` of the same position (as the solvers do): its answer.
            let last = self.expanded.borrow_mut().take();
            if let Some((k, children)) = last
                && k == *pos
            {
                return Ok(children);
            }
            // A finished game has no children.
            return Ok(self.expand(pos)?.err().unwrap_or_default());
        }
        if self.hooks.children {
            let d = self.call("children", || (pos.to_dynamic(),))?;
            let children = self.keys("children", d)?;
            self.check_children("children", pos, &children)?;
            return Ok(children);
        }
        let moves = self.moves(pos)?;
        moves.iter().map(|m| self.play(pos, m)).collect()
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities {
            parallel: Some(self),
            tiers: self.own_tiers(),
            split: self.splits().then_some(self),
            view: Some(self),
            ..Capabilities::none()
        }
    }
}
impl Parallel<ScriptGame> for ScriptGame {
    /// The same script compiled again (an engine is not shared between threads).
    fn replicate(&self) -> Replica<'_, Self> {
        let (file, source, budget) = (self.file.clone(), self.source.clone(), self.budget);
        Replica {
            make: std::sync::Arc::new(move || ScriptGame::from_source_within(&file, &source, budget)),
            send: send_key,
            receive: receive_key,
        }
    }
}

impl ScriptGame {
    pub(crate) fn own_tiers(&self) -> Option<&dyn crate::game::tier::Tiers<Pos = Key>> {
        self.tiers.as_ref().map(|t| t as &dyn crate::game::tier::Tiers<Pos = Key>)
    }
}

impl Split<Key> for ScriptGame {
    fn split(&self, pos: &Key) -> GameResult<Option<Vec<Key>>> {
        if !self.hooks.split {
            return Ok(None);
        }
        let Some(f) = self.hooks.split_name else { return Ok(None) };
        let size = |v: &Option<Vec<Key>>| {
            use crate::game::Footprint;
            v.iter().flatten().map(|k| k.heap_bytes() + std::mem::size_of::<Key>()).sum()
        };
        self.parts_memo.get_or(pos, size, || {
            let d = self.call(f, || (pos.to_dynamic(),))?;
            if d.is_unit() {
                return Ok(None);
            }
            self.keys(f, d).map(Some)
        })
    }
}

impl ScriptGame {
    fn splits(&self) -> bool {
        self.hooks.split
    }
}

impl View<Key, Dynamic> for ScriptGame {
    fn to_move(&self, pos: &Key) -> GameResult<Option<usize>> {
        if !self.hooks.to_move {
            return Ok(None);
        }
        let d = self.call("to_move", || (pos.to_dynamic(),))?;
        if let Ok(i) = d.as_int()
            && (0..=1).contains(&i)
        {
            return Ok(Some(i as usize));
        }
        if d.is_string() {
            let name = d.to_string();
            for side in 0..2 {
                if self.info.player_name(side).eq_ignore_ascii_case(name.trim()) {
                    return Ok(Some(side));
                }
            }
        }
        Err(GameError::Definition(format!(
            "{}: to_move must return 0 (the first player, {}), 1 (the second, {}) or one of those names, not {d:?}",
            self.at_fn("to_move"),
            self.info.player_name(0),
            self.info.player_name(1),
        )))
    }
    fn board(&self, pos: &Key) -> GameResult<Option<Board>> {
        if !self.hooks.board {
            return Ok(None);
        }
        let d = self.call("board", || (pos.to_dynamic(),))?;
        let bad = |why: &str| {
            GameError::Definition(format!(
                "{}: board must return a Grid or #{{ rows, cols, cells, clicks }} ({why})",
                self.at_fn("board")
            ))
        };
        if d.is_unit() {
            return Ok(None);
        }
        if let Some(g) = d.clone().try_cast::<crate::grid::Grid>() {
            let (rows, cols) = (g.rows(), g.cols());
            let cells =
                (0..rows * cols).map(|i| if g.get(i / cols, i % cols) { "#" } else { "." }.to_string()).collect();
            return Ok(Some(Board::new(rows, cols, cells)));
        }
        let Some(map) = d.try_cast::<rhai::Map>() else { return Err(bad("it returned something else")) };
        let int = |k: &str| {
            map.get(k)
                .and_then(|v| v.as_int().ok())
                .filter(|&n| (1..=1 << 16).contains(&n))
                .map(|n| n as usize)
                .ok_or_else(|| bad(&format!("`{k}` must be a whole number from 1 to 65536")))
        };
        let (rows, cols) = (int("rows")?, int("cols")?);
        let n = rows.checked_mul(cols).filter(|&n| n <= 1 << 20).ok_or_else(|| bad("more than 2^20 cells"))?;
        let cells: Vec<String> = match map.get("cells") {
            Some(v) if v.is_string() => v.to_string().chars().map(String::from).collect(),
            Some(v) if v.is_array() => {
                v.clone().into_array().unwrap_or_default().iter().map(|c| c.to_string()).collect()
            }
            _ => return Err(bad("`cells` must be a string (one character a cell) or an array")),
        };
        if cells.len() != n {
            return Err(bad(&format!("{rows}×{cols} is {n} cells, and `cells` has {}", cells.len())));
        }
        let mut board = Board::new(rows, cols, cells);
        if let Some(v) = map.get("clicks") {
            let clicks = v.clone().into_array().map_err(|_| bad("`clicks` must be an array, one entry a cell"))?;
            if clicks.len() != n {
                return Err(bad(&format!("`clicks` has {} entries for {n} cells", clicks.len())));
            }
            board.clicks = clicks.iter().map(|c| (!c.is_unit()).then(|| c.to_string())).collect();
        }
        Ok(Some(board))
    }
    fn show(&self, pos: &Key) -> GameResult<Option<String>> {
        if self.hooks.show {
            return Ok(Some(self.call("show", || (pos.to_dynamic(),))?.to_string()));
        }
        Ok(None)
    }
    fn parse_move(&self, pos: &Key, text: &str) -> GameResult<Option<Dynamic>> {
        if !self.hooks.parse_move {
            return Ok(None);
        }
        let mut scope = Scope::new();
        let args = (pos.to_dynamic(), text.trim().to_string());
        self.engine
            .call_fn_with_options::<Dynamic>(call_options(), &mut scope, &self.calls, "parse_move", args)
            .map_err(|e| {
                if let Some(t) = time_up(&e, "parse_move") {
                    return t;
                }
                let (inner, pos) = innermost(&e);
                match inner {
                    // `throw` in parse_move: the move is bad, not the script.
                    EvalAltResult::ErrorRuntime(v, _) => GameError::BadMove(v.to_string()),
                    _ => {
                        GameError::Definition(located(&self.file, pos, &format!("{} (in parse_move)", message(inner))))
                    }
                }
            })
            .map(Some)
    }
}
