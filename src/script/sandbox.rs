//! The sandbox a script runs in: the Rhai engine with its limits (operations, call depth,
//! data size held to the memory budget by the allocation meter), the script's top-level
//! constants, and the text of its errors (file, line and column, and where a limit struck).

use super::helpers;
use crate::game::{GameError, GameResult};
use rhai::{AST, CallFnOptions, Dynamic, Engine, EvalAltResult, FuncArgs, Position, Scope};

/// A script's top-level constants, shared by its engine and the error tracer.
pub(super) type Constants = rhai::Shared<rhai::Module>;

/// Operations one call into a script may take before it is stopped.
pub const MAX_OPERATIONS: u64 = 20_000_000;

/// How deeply script functions may call each other.
pub const MAX_CALL_LEVELS: usize = 64;

/// Where a call that hit one of the sandbox's limits was when it hit it.
pub(super) struct Trace {
    pos: Position,
    /// The innermost script function running then ("" at the top level).
    function: String,
    /// The chain of calls, outermost first, with repeats folded (`f → g ×62`).
    calls: String,
}

/// Run `f(args)` once more under a debugger that records each statement's position, to
/// find where a sandbox limit (operations, call depth, data size) struck.
#[allow(deprecated)] // Rhai marks its debugger API "volatile", not deprecated.
pub(super) fn trace_limit(
    ast: &AST,
    constants: &Constants,
    f: &str,
    args: impl FuncArgs,
    budget: usize,
) -> Option<Trace> {
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
pub(super) fn error_text(
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
pub(super) fn meter(e: &mut Engine, budget: usize) {
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
pub(super) fn sized(e: &mut Engine, most: usize) {
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
pub(super) fn data_size(v: &Dynamic, most: usize) -> usize {
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
pub(super) const TIME_UP: &str = "the time limit ran out during a call of the script; nothing was decided yet";

/// A call stopped at the thread's deadline, as the time limit it is: said at once (the call is
/// not run again to find where, as for the sandbox's other limits).
pub(super) fn time_up(e: &EvalAltResult, f: &str) -> Option<GameError> {
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
pub(super) fn out_of_memory(budget: usize) -> String {
    format!(
        "the script made more than {} MiB of data in one call, past a quarter of the memory budget (raise --max-memory)",
        (budget / 4) >> 20
    )
}

/// [`engine`] with a script's top-level constants readable in its functions as `global::NAME`.
pub(super) fn engine_with(constants: &Constants) -> Engine {
    let mut e = engine();
    e.register_static_module("global", constants.clone());
    e
}

/// How every function of a script is called: its top-level statements are not run again
/// (their constants are in the engine, see [`run_top_level`]), and the scope is left empty.
pub(super) fn call_options() -> CallFnOptions<'static> {
    CallFnOptions::new().eval_ast(false).rewind_scope(true)
}

/// Run a script's top-level statements once. Returns what they left in scope (the metadata
/// constants are read from it) and their constants as a module, which [`engine_with`] makes
/// readable inside every function as `global::NAME`, as running the statements before each
/// call did, without the cost of building every table again on every call.
pub(super) fn run_top_level(engine: &Engine, ast: &AST, file: &str) -> GameResult<(Scope<'static>, Constants)> {
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

pub(super) fn located(file: &str, pos: Position, msg: &str) -> String {
    match (pos.line(), pos.position()) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}: {msg}"),
        (Some(l), None) => format!("{file}:{l}: {msg}"),
        _ => format!("{file}: {msg}"),
    }
}

/// The innermost error of a chain of function calls, and where it happened.
pub(super) fn innermost(err: &EvalAltResult) -> (&EvalAltResult, Position) {
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

pub(super) fn message(e: &EvalAltResult) -> String {
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
