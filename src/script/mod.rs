//! Games written as Rhai scripts (`games/*.rhai`). See `docs/scripting.md`.
//!
//! A script is compiled once, its top-level constants are read as metadata, and its functions
//! are called through [`ScriptGame`], which implements [`Game`]. Scripts run sandboxed: every
//! call has an operation limit, and call depth, expression depth, string, array and map sizes
//! are bounded; `eval` and module imports are off; `print` goes to stderr.

pub mod helpers;
pub mod position;
pub mod tiers;

use crate::game::{Board, Game, GameError, GameInfo, GameResult, Kind, Value, default_parse_move};
use position::Key;
use rhai::{AST, CallFnOptions, Dynamic, Engine, EvalAltResult, FuncArgs, Position, Scope};
use std::path::Path;

/// A script's top-level constants, shared by its engine and the error tracer.
type Constants = rhai::Shared<rhai::Module>;

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

/// How deeply script functions may call each other.
pub const MAX_CALL_LEVELS: usize = 64;

/// Where a call that hit one of the sandbox's limits was when it hit it.
struct Trace {
    pos: Position,
    /// The innermost script function running then ("" at the top level).
    function: String,
    /// The chain of calls, outermost first, with repeats folded (`f → g ×62`).
    calls: String,
}

/// Run `f(args)` once more under a debugger that records each statement's position, to
/// find where a sandbox limit (operations, call depth, data size) struck.
#[allow(deprecated)] // Rhai marks its debugger API "volatile", not deprecated.
fn trace_limit(ast: &AST, constants: &Constants, f: &str, args: impl FuncArgs, budget: usize) -> Option<Trace> {
    use std::cell::RefCell;
    use std::rc::Rc;
    let last: Rc<RefCell<(Position, Vec<String>)>> = Rc::new(RefCell::new((Position::NONE, Vec::new())));
    let seen = last.clone();
    // The same limits as the call had: run with looser ones, it could make more than it did.
    let mut e = engine_with(constants);
    meter(&mut e, budget);
    e.register_debugger(
        |_, dbg| dbg,
        move |ctx, event, node, _source, pos| {
            if matches!(event, rhai::debugger::DebuggerEvent::Step) && !pos.is_none() && node.is_stmt() {
                let stack = ctx.global_runtime_state().debugger().call_stack();
                let mut l = seen.borrow_mut();
                l.0 = pos;
                if l.1.len() != stack.len() {
                    l.1 = stack.iter().map(|fr| fr.fn_name.to_string()).collect();
                }
            }
            Ok(rhai::debugger::DebuggerCommand::StepInto)
        },
    );
    let result = e.call_fn_with_options::<Dynamic>(call_options(), &mut Scope::new(), ast, f, args);
    let _ = result.err()?;
    let (pos, stack) = last.borrow().clone();
    if pos.is_none() {
        return None;
    }
    let mut chain: Vec<(String, usize)> = Vec::new();
    let stack = if stack.is_empty() { vec![f.to_string()] } else { stack };
    for name in stack {
        match chain.last_mut() {
            Some((n, k)) if *n == name => *k += 1,
            _ => chain.push((name, 1)),
        }
    }
    let function = chain.last().map(|(n, _)| n.clone()).unwrap_or_default();
    let calls =
        chain.iter().map(|(n, k)| if *k > 1 { format!("{n} ×{k}") } else { n.clone() }).collect::<Vec<_>>().join(" → ");
    Some(Trace { pos, function, calls })
}

/// A script error in `f` as one line naming the file, line and column. Rhai reports the
/// sandbox's limits (operations, call depth, data size) without a position, so the call is
/// run once more under a debugger that records where it was when the limit struck.
#[allow(clippy::too_many_arguments)]
fn error_text(
    file: &str,
    ast: &AST,
    constants: &Constants,
    f: &str,
    e: &EvalAltResult,
    args: impl FuncArgs,
    budget: usize,
) -> String {
    let (inner, mut pos) = innermost(e);
    let mut msg = message(inner);
    // (A call the meter stopped is run again too: it makes as much once more, at most a
    // quarter of the budget, after the first run's data is freed.)
    if inner.is_system_exception()
        && let Some(trace) = trace_limit(ast, constants, f, args, budget)
    {
        pos = trace.pos;
        if matches!(inner, EvalAltResult::ErrorStackOverflow(_)) {
            msg = format!(
                "more than {MAX_CALL_LEVELS} nested function calls (the sandbox's limit): a recursion that does not \
                 end? Calls: {}",
                trace.calls
            );
        } else if !trace.function.is_empty() && trace.function != f {
            msg = format!("{msg}, in {}", trace.function);
        }
    }
    located(file, pos, &format!("{msg} (in {f})"))
}

/// A script engine with the sandbox limits and the native helpers.
pub fn engine() -> Engine {
    let mut e = Engine::new();
    e.set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_expr_depths(64, 64)
        .set_max_variables(1 << 12)
        .set_max_functions(1 << 12)
        .set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
    e.disable_symbol("eval");
    meter(&mut e, crate::solve::DEFAULT_MAX_MEMORY);
    e.on_print(|s| eprintln!("{s}"));
    e.on_debug(|s, _, pos| eprintln!("debug {}: {s}", pos.line().unwrap_or(0)));
    helpers::register(&mut e);
    e
}

thread_local! {
    /// What the allocation meter read when the running script call began.
    static CALL_START: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

/// Hold every call of `e` to a quarter of a memory budget of `budget` bytes: the allocation
/// meter ([`crate::meter`]) on everything a call makes, read at each of its operations, and a
/// check before the functions that make data of a size given as a number (`pad`, `blob`).
///
/// Rhai's own limits on one array, map or string are not set: with any of them set, Rhai
/// measures a value whole after every operation that changes it, so a script building an
/// array of arrays (a `children` hook) costs the square of its length (Grundy's game to 3,000
/// as a script: about 1.5× slower with them).
fn meter(e: &mut Engine, budget: usize) {
    let most = (budget / 4) as isize;
    sized(e, budget / 4);
    let why = out_of_memory(budget);
    e.on_progress(move |ops| {
        // Every 1024 operations of a call (a long call: the solvers' clock sees the calls).
        if ops & 1023 == 0 && crate::progress::past_thread_deadline() {
            return Some(Dynamic::from(TIME_UP));
        }
        let now = crate::meter::net();
        // Rhai counts a call's operations from 1.
        if ops == 1 {
            CALL_START.with(|c| c.set(now));
        } else if now - CALL_START.with(|c| c.get()) > most {
            return Some(Dynamic::from(why.clone()));
        }
        None
    });
}

/// Check `pad` and `blob`, whose size is a number in the script, before they allocate: at most
/// `most` bytes (about 16 a value, plus the value's own data for each copy).
fn sized(e: &mut Engine, most: usize) {
    use rhai::{Array, Blob, INT, ImmutableString};
    let check = move |what: &str, len: INT, each: usize| -> Result<(), Box<EvalAltResult>> {
        let bytes = usize::try_from(len).unwrap_or(0).saturating_mul(each.max(1));
        if bytes > most {
            return Err(format!(
                "{what} to {len} would make about {} MiB, past a quarter of the memory budget ({} MiB; raise --max-memory)",
                bytes >> 20,
                most >> 20
            )
            .into());
        }
        Ok(())
    };
    e.register_fn("pad", move |a: &mut Array, len: INT, item: Dynamic| -> Result<(), Box<EvalAltResult>> {
        check("`pad` of an array", len, 16 + data_size(&item, most))?;
        if let Ok(len) = usize::try_from(len)
            && len > a.len()
        {
            a.resize(len, item);
        }
        Ok(())
    })
    .register_fn("pad", move |s: &mut ImmutableString, len: INT, c: char| -> Result<(), Box<EvalAltResult>> {
        check("`pad` of a string", len, c.len_utf8())?;
        let have = s.chars().count();
        if let Ok(len) = usize::try_from(len)
            && len > have
        {
            let mut t = s.to_string();
            t.extend(std::iter::repeat_n(c, len - have));
            *s = t.into();
        }
        Ok(())
    })
    .register_fn(
        "pad",
        move |s: &mut ImmutableString, len: INT, p: ImmutableString| -> Result<(), Box<EvalAltResult>> {
            check("`pad` of a string", len, 4)?;
            let mut have = s.chars().count();
            if let Ok(len) = usize::try_from(len)
                && len > have
                && !p.is_empty()
            {
                let mut t = s.to_string();
                'fill: loop {
                    for c in p.chars() {
                        if have >= len {
                            break 'fill;
                        }
                        t.push(c);
                        have += 1;
                    }
                }
                *s = t.into();
            }
            Ok(())
        },
    )
    .register_fn("pad", move |b: &mut Blob, len: INT, v: INT| -> Result<(), Box<EvalAltResult>> {
        check("`pad` of a BLOB", len, 1)?;
        if let Ok(len) = usize::try_from(len)
            && len > b.len()
        {
            b.resize(len, (v & 0xff) as u8);
        }
        Ok(())
    })
    .register_fn("blob", move |len: INT| -> Result<Blob, Box<EvalAltResult>> {
        check("`blob`", len, 1)?;
        Ok(vec![0; usize::try_from(len).unwrap_or(0)])
    })
    .register_fn("blob", move |len: INT, v: INT| -> Result<Blob, Box<EvalAltResult>> {
        check("`blob`", len, 1)?;
        Ok(vec![(v & 0xff) as u8; usize::try_from(len).unwrap_or(0)])
    });
}

/// The bytes a copy of `v` holds, counted up to `most` (then `most`): nested arrays and maps
/// are walked with a stack of their own, not recursion.
fn data_size(v: &Dynamic, most: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![v.clone()];
    while let Some(d) = stack.pop() {
        if total >= most {
            return most;
        }
        if d.is_array() {
            let a = d.cast::<rhai::Array>();
            total += 16 * a.len();
            stack.extend(a);
        } else if d.is_map() {
            let m = d.cast::<rhai::Map>();
            total += 48 * m.len();
            stack.extend(m.into_values());
        } else if d.is_string() {
            total += d.into_immutable_string().map_or(0, |s| s.len());
        } else if d.is_blob() {
            total += d.cast::<rhai::Blob>().len();
        }
    }
    total.min(most)
}

/// The token of a call stopped by [`meter`] at the thread's deadline
/// ([`crate::progress::set_thread_deadline`]).
const TIME_UP: &str = "the time limit ran out during a call of the script; nothing was decided yet";

/// A call stopped at the thread's deadline, as the time limit it is: said at once (the call is
/// not run again to find where, as for the sandbox's other limits).
fn time_up(e: &EvalAltResult, f: &str) -> Option<GameError> {
    match innermost(e).0 {
        EvalAltResult::ErrorTerminated(token, _)
            if token.clone().into_immutable_string().is_ok_and(|t| t == TIME_UP) =>
        {
            Some(GameError::TimeLimit(format!("{TIME_UP} (in {f})")))
        }
        _ => None,
    }
}

/// The message of a call stopped by [`meter`] (the token it is stopped with).
fn out_of_memory(budget: usize) -> String {
    format!(
        "the script made more than {} MiB of data in one call, past a quarter of the memory budget (raise --max-memory)",
        (budget / 4) >> 20
    )
}

/// [`engine`] with a script's top-level constants readable in its functions as `global::NAME`.
fn engine_with(constants: &Constants) -> Engine {
    let mut e = engine();
    e.register_static_module("global", constants.clone());
    e
}

/// How every function of a script is called: its top-level statements are not run again
/// (their constants are in the engine, see [`run_top_level`]), and the scope is left empty.
fn call_options() -> CallFnOptions<'static> {
    CallFnOptions::new().eval_ast(false).rewind_scope(true)
}

/// Run a script's top-level statements once. Returns what they left in scope (the metadata
/// constants are read from it) and their constants as a module, which [`engine_with`] makes
/// readable inside every function as `global::NAME`, as running the statements before each
/// call did, without the cost of building every table again on every call.
fn run_top_level(engine: &Engine, ast: &AST, file: &str) -> GameResult<(Scope<'static>, Constants)> {
    let mut scope = Scope::new();
    engine.run_ast_with_scope(&mut scope, ast).map_err(|e| {
        let (inner, pos) = innermost(&e);
        GameError::Definition(located(file, pos, &message(inner)))
    })?;
    let mut constants = rhai::Module::new();
    for (name, is_constant, value) in scope.iter() {
        if is_constant {
            constants.set_var(name, value.into_shared());
        }
    }
    constants.build_index();
    Ok((scope, constants.into()))
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
        EvalAltResult::ErrorRuntime(v, _) | EvalAltResult::ErrorTerminated(v, _) => v.to_string(),
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

    /// [`ScriptGame::from_source`] within a memory budget of `budget` bytes.
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
        let players = match scope.get("PLAYERS") {
            None => None,
            Some(v) => {
                let names: Option<Vec<String>> = v
                    .read_lock::<rhai::Array>()
                    .and_then(|a| a.iter().map(|n| n.is_string().then(|| n.to_string())).collect());
                match names.as_deref() {
                    Some([a, b]) if !a.trim().is_empty() && !b.trim().is_empty() => Some([a.clone(), b.clone()]),
                    _ => {
                        return Err(def(
                            Position::NONE,
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
                        return Err(def(
                            Position::NONE,
                            "GOAL must be a puzzle's solved position as text, or an array of them: \
                             `const GOAL = \"123/456/78.\";`",
                        ));
                    }
                }
            }
        };
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
            return Err(def(
                Position::NONE,
                "defines `expand` and `primitive` or `children`: `expand` answers both (the value of a finished \
                 game, else the children); keep `expand` alone, or the two without it",
            ));
        }
        hooks.split_name = match (parts, hooks.split) {
            (true, true) => {
                return Err(def(
                    Position::NONE,
                    "defines both `parts` and `split`: they are the same hook (decomposition); keep `parts`",
                ));
            }
            (true, false) => Some("parts"),
            (false, true) => {
                if let Some(at) = method_call(source, "split") {
                    return Err(def(
                        at,
                        "this calls the string method `split`, but the script defines `fn split(pos)` (the \
                         decomposition hook), and Rhai calls a script function of that name instead, with `this` \
                         bound to the string. Name the hook `parts(pos)` instead",
                    ));
                }
                Some("split")
            }
            (false, false) => None,
        };
        hooks.split = hooks.split_name.is_some();
        if goal_texts.is_some() && kind != Kind::Puzzle {
            return Err(def(Position::NONE, "GOAL is a puzzle's solved positions; a two-player game uses `primitive`"));
        }
        if goal_texts.is_some() && hooks.primitive {
            return Err(def(
                Position::NONE,
                "defines both GOAL and `primitive`: keep one (GOAL when the solved positions can be listed)",
            ));
        }
        if kind == Kind::Puzzle && !hooks.primitive && !hooks.expand && goal_texts.is_none() {
            return Err(def(
                Position::NONE,
                "a puzzle must define `fn primitive(pos)`: \"win\" at its goal, or list its solved positions as \
                 `const GOAL = \"...\";` (two-player games default to normal play, where the player who cannot \
                 move loses)",
            ));
        }
        let layout = tiers::declare(scope.get("TIER_BOARD"), &defined, kind, &|m| def(Position::NONE, m))?;
        let info = GameInfo { name, description, kind, native, move_verb, solved_message, players };
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
            info,
            start_text,
            goals: Default::default(),
            hooks,
            fn_lines,
            children_checked: std::cell::Cell::new(0),
            expanded: Default::default(),
            canonical_memo: CallMemo::new(),
            parts_memo: CallMemo::new(),
        };
        for text in goal_texts.unwrap_or_default() {
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
    /// The same script compiled again (an engine is not shared between threads).
    fn replicate(&self) -> Option<crate::game::Replica<'_, Self>> {
        let (file, source, budget) = (self.file.clone(), self.source.clone(), self.budget);
        Some(crate::game::Replica {
            make: std::sync::Arc::new(move || ScriptGame::from_source_within(&file, &source, budget)),
            send: send_key,
            receive: receive_key,
        })
    }

    type Pos = Key;
    type Move = Dynamic;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn tiers(&self) -> Option<&dyn crate::game::tier::Tiers<Pos = Key>> {
        self.tiers.as_ref().map(|t| t as &dyn crate::game::tier::Tiers<Pos = Key>)
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

    fn has_split(&self) -> bool {
        self.hooks.split
    }

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

    fn show(&self, pos: &Key) -> GameResult<String> {
        if self.hooks.show {
            return Ok(self.call("show", || (pos.to_dynamic(),))?.to_string());
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
}
