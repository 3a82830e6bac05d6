//! A loaded script as a [`Game`]: its hooks called through the sandboxed engine, checked as
//! they answer. The loader (`mod.rs`) builds it; its positions by index (`tiers.rs`) come in
//! through [`TierSpaceOf`].

use super::position::Key;
use super::sandbox::{Constants, call_options, error_text, innermost, located, message, time_up};
use crate::game::tier::Tiers;
use crate::game::{Board, Capabilities, Game, GameError, GameInfo, GameResult, Parallel, Replica, Split, Value, View};
use rhai::{AST, Dynamic, Engine, EvalAltResult, FuncArgs, Scope};

/// The loader's recipe for a copy of a script game: the script compiled again, with nothing
/// remembered.
pub(super) type Maker = std::sync::Arc<dyn Fn() -> GameResult<ScriptGame> + Send + Sync>;

/// A script's positions by index (`tiers.rs`), as the game holds them.
pub(super) trait TierSpaceOf {
    /// The tiers, for the tier solver.
    fn as_tiers(&self) -> &dyn Tiers<Pos = Key>;
    /// The canonical form of `pos` from the declared board's symmetries, natively; `None`
    /// where the board declares none (the script's `canonical`, if any, gives it).
    fn native_canonical(&self, pos: &Key) -> Option<GameResult<Key>>;
}

#[derive(Default, Clone, Copy)]
pub(super) struct Hooks {
    pub(super) format: bool,
    pub(super) primitive: bool,
    pub(super) children: bool,
    pub(super) split: bool,
    pub(super) canonical: bool,
    pub(super) move_name: bool,
    pub(super) start: bool,
    pub(super) show: bool,
    pub(super) parse_move: bool,
    pub(super) to_move: bool,
    pub(super) board: bool,
    /// `heap_options(n)`: the options of one heap of n, for `gamesman sequence`.
    pub(super) heap_options: bool,
    /// `expand(pos)`: `primitive` and `children` in one call.
    pub(super) expand: bool,
    /// The decomposition hook's name: `parts`, or `split` (its older name), if either.
    pub(super) split_name: Option<&'static str>,
}

pub struct ScriptGame {
    pub(super) file: String,
    /// The recipe for a copy of the game (the loader's, with the script's text), for
    /// another thread and for `copy`.
    pub(super) maker: Maker,
    pub(super) engine: Engine,
    /// The script's functions, as the solver calls into them.
    pub(super) calls: AST,
    /// The script's top-level constants (`global::LINES`), computed once.
    pub(super) constants: Constants,
    pub(super) info: GameInfo,
    pub(super) start_text: Option<String>,
    /// A puzzle's solved positions, from `const GOAL` (instead of a `primitive` hook).
    pub(super) goals: hashbrown::HashSet<Key>,
    pub(super) hooks: Hooks,
    /// The line of each function's definition (`fn name(`), to point at a function whose
    /// result is wrong.
    pub(super) fn_lines: Vec<(String, usize)>,
    /// How many positions `children` has been checked against `moves` + `play` on.
    pub(super) children_checked: std::cell::Cell<u32>,
    /// The children `expand` gave for the last position `primitive` was asked of, for the
    /// `children` call that follows it.
    pub(super) expanded: Box<std::cell::RefCell<Option<Expanded>>>,
    /// Answers of `canonical` and of the decomposition hook, by position: the solvers ask
    /// them once for every move they look at, and most positions are reached by many moves.
    pub(super) canonical_memo: CallMemo<Key>,
    pub(super) parts_memo: CallMemo<Option<Vec<Key>>>,
    /// The memory budget its calls are held to (see [`meter`]).
    pub(super) budget: usize,
    /// Positions by index, when the script declares them (`TIER_BOARD` or the tier hooks).
    pub(super) tiers: Option<Box<dyn TierSpaceOf>>,
}

/// A position and the children `expand` gave for it.
type Expanded = (Key, Vec<Key>);

/// The answers of one script function of a position, remembered up to [`CALL_MEMO_BYTES`]
/// (then forgotten all at once). A script function is a function of the position alone, so
/// remembering its answer changes nothing but the time.
pub(super) struct CallMemo<V> {
    pub(super) map: std::cell::RefCell<hashbrown::HashMap<Key, V>>,
    pub(super) bytes: std::cell::Cell<usize>,
}

/// Bytes each [`CallMemo`] may hold, beside the solvers' own memory budget.
const CALL_MEMO_BYTES: usize = 8 << 20;

impl<V: Clone> CallMemo<V> {
    pub(super) fn new() -> Self {
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

impl ScriptGame {
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The same script compiled again, with nothing remembered.
    pub fn copy(&self) -> GameResult<ScriptGame> {
        (self.maker)()
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
            if let Some(s) = entry.read_lock::<super::helpers::HeapSplits>().map(|s| *s) {
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
    pub(super) fn call<A: FuncArgs>(&self, f: &str, args: impl Fn() -> A) -> GameResult<Dynamic> {
        let mut scope = Scope::new();
        self.engine
            .call_fn_with_options::<Dynamic>(call_options(), &mut scope, &self.calls, f, args())
            .map_err(|e| self.script_error(f, &e, args()))
    }

    /// A script error as one line naming the file, line and column. Rhai reports the sandbox's
    /// limits (operations, call depth, data size) without a position, so the call is run once
    /// more under a debugger that records where it was when the limit struck.
    pub(super) fn script_error(&self, f: &str, e: &EvalAltResult, args: impl FuncArgs) -> GameError {
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
    pub(super) fn at_fn(&self, f: &str) -> String {
        match self.fn_lines.iter().find(|(n, _)| n == f) {
            Some((_, line)) => format!("{}:{line}", self.file),
            None => self.file.clone(),
        }
    }

    pub(super) fn key(&self, f: &str, d: &Dynamic) -> GameResult<Key> {
        if d.is_unit() {
            return Err(GameError::Definition(format!(
                "{}: {f} returned () instead of a position. A function's value is its last expression, and an \
                 assignment such as `b[i] = x;` has none: end `{f}` with the position itself (e.g. `b`)",
                self.at_fn(f)
            )));
        }
        Key::from_dynamic(d).map_err(|e| GameError::Definition(format!("{}: {f} returned {e}", self.at_fn(f))))
    }

    pub(super) fn keys(&self, f: &str, d: Dynamic) -> GameResult<Vec<Key>> {
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
    pub(super) fn value_of(&self, f: &str, d: &Dynamic) -> GameResult<Value> {
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
    pub(super) fn expand(&self, pos: &Key) -> GameResult<Result<Value, Vec<Key>>> {
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
    pub(super) fn check_children(&self, f: &str, pos: &Key, children: &[Key]) -> GameResult<()> {
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
        let maker = self.maker.clone();
        Replica { make: std::sync::Arc::new(move || maker()), send: send_key, receive: receive_key }
    }
}

impl ScriptGame {
    pub(crate) fn own_tiers(&self) -> Option<&dyn Tiers<Pos = Key>> {
        self.tiers.as_deref().map(|t| t.as_tiers())
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
