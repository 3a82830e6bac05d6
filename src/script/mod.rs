//! Games written as Rhai scripts (`games/*.rhai`). See `docs/scripting.md`.
//!
//! A script is compiled once, its top-level constants are read as metadata, and its functions
//! are called through [`ScriptGame`], which implements [`Game`]. Scripts run sandboxed: every
//! call has an operation limit, and call depth, expression depth, string, array and map sizes
//! are bounded; `eval` and module imports are off; `print` goes to stderr.

pub mod descriptor;
pub mod helpers;
pub mod key;

use crate::game::{Game, GameError, GameInfo, GameResult, Kind, Value, default_parse_move};
use key::Key;
use rhai::{AST, CallFnOptions, Dynamic, Engine, EvalAltResult, FuncArgs, Position, Scope};
use std::path::Path;

/// Operations one call into a script may take before it is stopped.
pub const MAX_OPERATIONS: u64 = 20_000_000;

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
}

pub struct ScriptGame {
    file: String,
    engine: Engine,
    /// The AST the solver calls into: the functions, plus the top-level statements when
    /// there are any besides the metadata constants (so that a constant such as a table of
    /// lines is defined, as `global::LINES`, inside every function).
    calls: AST,
    /// Whether `calls` has top-level statements to run before each call.
    eval_globals: bool,
    info: GameInfo,
    start_text: Option<String>,
    hooks: Hooks,
}

/// A script engine with the sandbox limits and the native helpers.
pub fn engine() -> Engine {
    let mut e = Engine::new();
    e.set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(64)
        .set_max_expr_depths(64, 64)
        .set_max_string_size(1 << 20)
        .set_max_array_size(1 << 20)
        .set_max_map_size(1 << 16)
        .set_max_variables(1 << 12)
        .set_max_functions(1 << 12)
        .set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
    e.disable_symbol("eval");
    e.on_print(|s| eprintln!("{s}"));
    e.on_debug(|s, _, pos| eprintln!("debug {}: {s}", pos.line().unwrap_or(0)));
    helpers::register(&mut e);
    e
}

fn located(file: &str, pos: Position, msg: &str) -> String {
    match (pos.line(), pos.position()) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}: {msg}"),
        (Some(l), None) => format!("{file}:{l}: {msg}"),
        _ => format!("{file}: {msg}"),
    }
}

/// The innermost error of a chain of function calls, and where it happened.
fn innermost(err: &EvalAltResult) -> (&EvalAltResult, Position) {
    let mut e = err;
    let mut pos = err.position();
    loop {
        match e {
            EvalAltResult::ErrorInFunctionCall(_, _, inner, p) | EvalAltResult::ErrorInModule(_, inner, p) => {
                if !p.is_none() {
                    pos = *p;
                }
                e = inner;
            }
            _ => {
                if !e.position().is_none() {
                    pos = e.position();
                }
                return (e, pos);
            }
        }
    }
}

fn message(e: &EvalAltResult) -> String {
    match e {
        EvalAltResult::ErrorRuntime(v, _) => v.to_string(),
        EvalAltResult::ErrorTooManyOperations(_) => {
            format!("the script used more than {MAX_OPERATIONS} operations in one call (it may loop forever)")
        }
        other => {
            let text = other.to_string();
            let suffix = format!(" ({})", other.position());
            text.strip_suffix(&suffix).unwrap_or(&text).to_string()
        }
    }
}

impl ScriptGame {
    /// Load and check a script. Every error names the file, and the line and column where
    /// there is one.
    pub fn load(path: &Path) -> GameResult<ScriptGame> {
        let file = path.display().to_string();
        let source = std::fs::read_to_string(path)
            .map_err(|e| GameError::Definition(format!("{file}: cannot read the script: {e}")))?;
        Self::from_source(&file, &source)
    }

    pub fn from_source(file: &str, source: &str) -> GameResult<ScriptGame> {
        let engine = engine();
        let def = |pos: Position, msg: &str| GameError::Definition(located(file, pos, msg));
        let mut ast = engine.compile(source).map_err(|e| def(e.1, &e.0.to_string()))?;
        ast.set_source(file);

        let mut scope = Scope::new();
        engine.run_ast_with_scope(&mut scope, &ast).map_err(|e| {
            let (inner, pos) = innermost(&e);
            def(pos, &message(inner))
        })?;
        let text_const = |name: &str| -> GameResult<Option<String>> {
            match scope.get(name) {
                None => Ok(None),
                Some(v) if v.is_string() => Ok(Some(v.to_string())),
                Some(v) => {
                    Err(def(Position::NONE, &format!("the constant {name} must be a string, not `{}`", v.type_name())))
                }
            }
        };
        let stem = Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let name = text_const("NAME")?.unwrap_or(stem);
        let description = text_const("DESCRIPTION")?.unwrap_or_default();
        let kind_text = text_const("KIND")?.ok_or_else(|| {
            def(Position::NONE, "missing `const KIND = \"impartial\";` (or \"partisan\", \"puzzle\")")
        })?;
        let kind = Kind::parse(&kind_text).ok_or_else(|| {
            def(Position::NONE, &format!("KIND is {kind_text:?}; it must be \"impartial\", \"partisan\" or \"puzzle\""))
        })?;
        let native = text_const("NATIVE")?;
        let start_text = text_const("START")?;
        let move_verb = text_const("MOVE_VERB")?;
        let solved_message = text_const("SOLVED_MESSAGE")?;

        let defined: Vec<(String, usize)> =
            ast.iter_functions().map(|f| (f.name.to_string(), f.params.len())).collect();
        let has = |name: &str, arity: usize| -> GameResult<bool> {
            let with_name: Vec<usize> = defined.iter().filter(|(n, _)| n == name).map(|(_, a)| *a).collect();
            if with_name.is_empty() {
                Ok(false)
            } else if with_name.contains(&arity) {
                Ok(true)
            } else {
                Err(def(
                    Position::NONE,
                    &format!("`{name}` must take {arity} parameter(s), but it takes {}", with_name[0]),
                ))
            }
        };
        for &(f, n) in REQUIRED {
            if !has(f, n)? {
                let params = ["pos", "mv"][..n].join(", ");
                return Err(def(Position::NONE, &format!("missing the required function `fn {f}({params})`")));
            }
        }
        let mut opt = OPTIONAL.iter().map(|&(f, n)| has(f, n));
        let mut next = || opt.next().expect("one per hook");
        let hooks = Hooks {
            format: next()?,
            primitive: next()?,
            children: next()?,
            split: next()?,
            canonical: next()?,
            move_name: next()?,
            start: next()?,
            show: next()?,
            parse_move: next()?,
        };
        if kind != Kind::Impartial && !hooks.primitive {
            return Err(def(
                Position::NONE,
                &format!("a {kind} game must define `fn primitive(pos)` (only impartial games default to normal play)"),
            ));
        }
        let info = GameInfo { name, description, kind, native, move_verb, solved_message };
        let metadata = ["NAME", "DESCRIPTION", "KIND", "NATIVE", "START", "MOVE_VERB", "SOLVED_MESSAGE"];
        let eval_globals = scope.iter().any(|(n, _, _)| !metadata.contains(&n));
        let calls = if eval_globals { ast.clone() } else { ast.clone_functions_only() };
        Ok(ScriptGame { file: file.to_string(), engine, calls, eval_globals, info, start_text, hooks })
    }

    pub fn file(&self) -> &str {
        &self.file
    }

    fn options(&self) -> CallFnOptions<'static> {
        CallFnOptions::new().eval_ast(self.eval_globals).rewind_scope(true)
    }

    fn call(&self, f: &str, args: impl FuncArgs) -> GameResult<Dynamic> {
        let mut scope = Scope::new();
        self.engine.call_fn_with_options::<Dynamic>(self.options(), &mut scope, &self.calls, f, args).map_err(|e| {
            let (inner, pos) = innermost(&e);
            GameError::Definition(located(&self.file, pos, &format!("{} (in {f})", message(inner))))
        })
    }

    fn key(&self, f: &str, d: &Dynamic) -> GameResult<Key> {
        Key::from_dynamic(d).map_err(|e| GameError::Definition(format!("{}: {f} returned {e}", self.file)))
    }

    fn keys(&self, f: &str, d: Dynamic) -> GameResult<Vec<Key>> {
        let t = d.type_name();
        let arr = d
            .try_cast::<rhai::Array>()
            .ok_or_else(|| GameError::Definition(format!("{}: {f} must return an array, not `{t}`", self.file)))?;
        arr.iter().map(|d| self.key(f, d)).collect()
    }
}

/// One function of a Rhai script: a descriptor's escape hatch for a piece its vocabulary
/// cannot express. Sandboxed like a game script.
pub struct ScriptHook {
    file: String,
    engine: Engine,
    ast: AST,
    function: String,
    eval_globals: bool,
}

impl ScriptHook {
    /// Load `path` and check that it defines `function` with `arity` parameters.
    pub fn load(path: &Path, function: &str, arity: usize) -> GameResult<ScriptHook> {
        let file = path.display().to_string();
        let source = std::fs::read_to_string(path)
            .map_err(|e| GameError::Definition(format!("{file}: cannot read the script: {e}")))?;
        let engine = engine();
        let def = |pos: Position, msg: &str| GameError::Definition(located(&file, pos, msg));
        let mut ast = engine.compile(&source).map_err(|e| def(e.1, &e.0.to_string()))?;
        ast.set_source(file.as_str());
        if !ast.iter_functions().any(|f| f.name == function && f.params.len() == arity) {
            return Err(def(Position::NONE, &format!("no function `{function}` with {arity} parameter(s)")));
        }
        // Top-level constants (tables) must be defined in every call; run them once to see.
        let mut scope = Scope::new();
        engine.run_ast_with_scope(&mut scope, &ast).map_err(|e| {
            let (inner, pos) = innermost(&e);
            def(pos, &message(inner))
        })?;
        let eval_globals = !scope.is_empty();
        let ast = if eval_globals { ast } else { ast.clone_functions_only() };
        Ok(ScriptHook { file, engine, ast, function: function.to_string(), eval_globals })
    }

    pub fn call(&self, args: impl FuncArgs) -> GameResult<Dynamic> {
        let mut scope = Scope::new();
        let opts = CallFnOptions::new().eval_ast(self.eval_globals).rewind_scope(true);
        self.engine.call_fn_with_options::<Dynamic>(opts, &mut scope, &self.ast, &self.function, args).map_err(|e| {
            let (inner, pos) = innermost(&e);
            GameError::Definition(located(&self.file, pos, &format!("{} (in {})", message(inner), self.function)))
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

impl Game for ScriptGame {
    type Pos = Key;
    type Move = Dynamic;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<Key>> {
        if self.hooks.start {
            let d = self.call("start", ())?;
            return Ok(Some(self.key("start", &d)?));
        }
        self.start_text.as_deref().map(|t| self.parse(t)).transpose()
    }

    fn parse(&self, text: &str) -> GameResult<Key> {
        let mut scope = Scope::new();
        let d = self
            .engine
            .call_fn_with_options::<Dynamic>(self.options(), &mut scope, &self.calls, "parse", (text.to_string(),))
            .map_err(|e| {
                let (inner, pos) = innermost(&e);
                match inner {
                    // `throw` in parse, or a helper refusing the text: the position is bad.
                    EvalAltResult::ErrorRuntime(v, _) => GameError::BadPosition(v.to_string()),
                    _ => GameError::Definition(located(&self.file, pos, &format!("{} (in parse)", message(inner)))),
                }
            })?;
        self.key("parse", &d)
    }

    fn format(&self, pos: &Key) -> GameResult<String> {
        if self.hooks.format {
            return Ok(self.call("format", (pos.to_dynamic(),))?.to_string());
        }
        Ok(plain_text(&pos.to_dynamic()))
    }

    fn moves(&self, pos: &Key) -> GameResult<Vec<Dynamic>> {
        let d = self.call("moves", (pos.to_dynamic(),))?;
        let t = d.type_name();
        d.try_cast::<rhai::Array>()
            .ok_or_else(|| GameError::Definition(format!("{}: moves must return an array, not `{t}`", self.file)))
    }

    fn play(&self, pos: &Key, mv: &Dynamic) -> GameResult<Key> {
        let d = self.call("play", (pos.to_dynamic(), mv.clone()))?;
        self.key("play", &d)
    }

    fn move_name(&self, pos: &Key, mv: &Dynamic) -> GameResult<String> {
        if self.hooks.move_name {
            return Ok(self.call("move_name", (pos.to_dynamic(), mv.clone()))?.to_string());
        }
        Ok(plain_text(mv))
    }

    fn primitive(&self, pos: &Key) -> GameResult<Option<Value>> {
        if !self.hooks.primitive {
            return Ok(None);
        }
        let d = self.call("primitive", (pos.to_dynamic(),))?;
        if d.is_unit() {
            return Ok(None);
        }
        match d.to_string().as_str() {
            "win" => Ok(Some(Value::Win)),
            "lose" => Ok(Some(Value::Lose)),
            "tie" => Ok(Some(Value::Tie)),
            other => Err(GameError::Definition(format!(
                "{}: primitive must return \"win\", \"lose\", \"tie\" or () (game not over), not {other:?}",
                self.file
            ))),
        }
    }

    fn split(&self, pos: &Key) -> GameResult<Option<Vec<Key>>> {
        if !self.hooks.split {
            return Ok(None);
        }
        let d = self.call("split", (pos.to_dynamic(),))?;
        if d.is_unit() {
            return Ok(None);
        }
        self.keys("split", d).map(Some)
    }

    fn has_split(&self) -> bool {
        self.hooks.split
    }

    fn canonical(&self, pos: &Key) -> GameResult<Key> {
        if !self.hooks.canonical {
            return Ok(pos.clone());
        }
        let d = self.call("canonical", (pos.to_dynamic(),))?;
        self.key("canonical", &d)
    }

    fn show(&self, pos: &Key) -> GameResult<String> {
        if self.hooks.show {
            return Ok(self.call("show", (pos.to_dynamic(),))?.to_string());
        }
        self.format(pos)
    }

    fn parse_move(&self, pos: &Key, text: &str) -> GameResult<Dynamic> {
        if !self.hooks.parse_move {
            return default_parse_move(self, pos, text);
        }
        let mut scope = Scope::new();
        let args = (pos.to_dynamic(), text.trim().to_string());
        self.engine
            .call_fn_with_options::<Dynamic>(self.options(), &mut scope, &self.calls, "parse_move", args)
            .map_err(|e| {
                let (inner, pos) = innermost(&e);
                match inner {
                    // `throw` in parse_move: the move is bad, not the script.
                    EvalAltResult::ErrorRuntime(v, _) => GameError::BadMove(v.to_string()),
                    _ => {
                        GameError::Definition(located(&self.file, pos, &format!("{} (in parse_move)", message(inner))))
                    }
                }
            })
    }

    fn children(&self, pos: &Key) -> GameResult<Vec<Key>> {
        if self.hooks.children {
            let d = self.call("children", (pos.to_dynamic(),))?;
            return self.keys("children", d);
        }
        let moves = self.moves(pos)?;
        moves.iter().map(|m| self.play(pos, m)).collect()
    }
}
