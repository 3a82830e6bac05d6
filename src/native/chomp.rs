//! Chomp by dynamic programming over every state below the given one, one bit per state.
//!
//! A state is a non-increasing list of column heights x bounded by the given state h
//! (x_i ≤ h_i). States are ranked in lexicographic order by a counting formula:
//! with f(i, m) the number of valid columns i.. whose heights are at most m,
//! `rank(x) = Σ_i T[i][x_i]` where `T[i][v] = Σ_{y<v} f(i+1, y)`. A move never increases a
//! column, so every child has a smaller rank, and one pass in rank order decides each
//! state: it is a loss iff none of its children is. A child's rank comes in O(1) from
//! prefix sums (see `first_losing_child`), so nothing is hashed or allocated per state.
//!
//! As in the assignment, whoever takes the bottom-left (poisoned) square loses, so the empty
//! board is a win for the player to move; taking the poison is never listed as a move.

use super::command::{Call, Io, Work};
use crate::game::{
    Capabilities, ClosedForm, Game, GameError, GameInfo, GameResult, Hints, Kind, Shortcut, Value, View,
};
use std::cell::RefCell;

/// The most states one table may hold (one bit each: 1 GiB).
pub const MAX_STATES: u64 = 1 << 33;

/// The most bytes the counting tables of one board may take.
pub const MAX_TABLE_BYTES: f64 = (1u64 << 30) as f64;

pub struct Table {
    h: Vec<u32>,
    /// T[i][v], v ≤ h_0.
    t: Vec<Vec<u64>>,
    /// PT[r][j] = Σ_{i<j} T[i][r] (T[i][r] taken as 0 where r > h_i).
    pt: Vec<Vec<u64>>,
    total: u64,
    losing: Vec<u64>,
}

/// How many states lie below `h` (the empty board included), or `None` past `u64`.
pub fn count_states(h: &[u32]) -> Option<u64> {
    counts(h).map(|f| f[0][h.first().copied().unwrap_or(0) as usize])
}

/// f[i][m] for i in 0..=n and m in 0..=h_0.
fn counts(h: &[u32]) -> Option<Vec<Vec<u64>>> {
    let n = h.len();
    let top = h.first().copied().unwrap_or(0) as usize;
    let mut f = vec![vec![0u64; top + 1]; n + 1];
    f[n].iter_mut().for_each(|v| *v = 1);
    for i in (0..n).rev() {
        let (now, below) = f.split_at_mut(i + 1);
        let mut acc = 0u64;
        for (m, slot) in now[i].iter_mut().enumerate() {
            if m <= h[i] as usize {
                acc = acc.checked_add(below[0][m])?;
            }
            *slot = acc;
        }
    }
    Some(f)
}

impl Table {
    /// Solve every state below `h` (non-increasing).
    pub fn build(h: &[u32]) -> GameResult<Table> {
        Self::build_within(h, usize::MAX)
    }

    /// [`Table::build`] within `budget` bytes: the counting tables at most a quarter of it,
    /// the two bits a state (lost, won) the rest; past it, a clear error before anything
    /// large is allocated.
    pub fn build_within(h: &[u32], budget: usize) -> GameResult<Table> {
        let states = (budget as u64 / 4).saturating_mul(3).saturating_mul(4).min(MAX_STATES);
        let mut table = Table::layout_within(h, states, (budget as f64 / 4.0).min(MAX_TABLE_BYTES))?;
        table.losing = vec![0; (table.total as usize).div_ceil(64)];
        let (n, total) = (h.len(), table.total);
        // One pass in rank order. A state not yet marked as won is lost, and then every
        // state with a move to it is won: so only the (few) losing states do any work.
        let mut won = vec![0u64; table.losing.len()];
        won[0] |= 1; // rank 0, the empty board: a win for the player to move
        let mut x = vec![0u32; n];
        let mut run = Vec::with_capacity(n);
        for rank in 1..total {
            table.advance(&mut x);
            if won[(rank / 64) as usize] >> (rank % 64) & 1 == 1 {
                continue;
            }
            table.losing[(rank / 64) as usize] |= 1 << (rank % 64);
            table.mark_parents(&x, rank, &mut won, &mut run);
        }
        Ok(table)
    }

    /// The counting tables of the states below `h`, with no values yet; refused past
    /// `max_states` states.
    fn layout(h: &[u32], max_states: u64) -> GameResult<Table> {
        Self::layout_within(h, max_states, MAX_TABLE_BYTES)
    }

    /// [`Table::layout`] with counting tables of at most `max_table_bytes`.
    fn layout_within(h: &[u32], max_states: u64, max_table_bytes: f64) -> GameResult<Table> {
        let n = h.len();
        let top = h.first().copied().unwrap_or(0) as usize;
        let too_big = || {
            let mut state = h.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
            if state.len() > 40 {
                state = format!("{}… ({n} columns)", &state[..32]);
            }
            GameError::OutOfMemory(format!(
                "{state} has more than {max_states} states below it, more than fit in memory (the memory budget, \
                 --max-memory, and at most {MAX_STATES})"
            ))
        };
        // The count tables hold (columns + 1) × (tallest + 1) numbers three times over: a
        // tall, narrow board (1000000000,1) has few states but huge tables. Refuse it before
        // allocating.
        let table_bytes = (n as f64 + 1.0) * (top as f64 + 1.0) * 8.0 * 3.0;
        if table_bytes > max_table_bytes {
            return Err(GameError::OutOfMemory(format!(
                "a board {n} columns wide and {top} tall needs about {:.0} MiB of counting tables, more than the \
                 {} MiB allowed (at most a quarter of the memory budget, --max-memory)",
                table_bytes / (1 << 20) as f64,
                max_table_bytes as u64 >> 20
            )));
        }
        let f = counts(h).ok_or_else(too_big)?;
        let total = f[0][top];
        if total > max_states {
            return Err(too_big());
        }
        let mut t = vec![vec![0u64; top + 1]; n];
        for i in 0..n {
            for v in 1..=h[i] as usize {
                t[i][v] = t[i][v - 1] + f[i + 1][v - 1];
            }
        }
        let mut pt = vec![vec![0u64; n + 1]; top + 1];
        for (r, row) in pt.iter_mut().enumerate() {
            for j in 0..n {
                row[j + 1] = row[j] + if r <= h[j] as usize { t[j][r] } else { 0 };
            }
        }
        Ok(Table { h: h.to_vec(), t, pt, total, losing: Vec::new() })
    }

    /// Mark as won every state with a move to `x` (rank `rank`).
    ///
    /// A move (c, r) leaves x only if r = x_c and c starts a run of equal heights in x
    /// (c = 0 or x_{c-1} > x_c): inside a run, a parent would need x_c > r = x_{c-1}. The
    /// parents are then x with the run [c, k) raised to any non-increasing heights of at
    /// least r, the first above r, and at most x_{c-1} and the bound h.
    fn mark_parents(&self, x: &[u32], rank: u64, won: &mut [u64], run: &mut Vec<(u32, u64)>) {
        let n = x.len();
        let mut c = 0;
        while c < n {
            let r = x[c];
            let mut k = c + 1;
            while k < n && x[k] == r {
                k += 1;
            }
            if !(c == 0 && r == 0) {
                let cap = if c == 0 { self.h[0] } else { x[c - 1].min(self.h[c]) };
                let base = rank - (c..k).map(|j| self.t[j][r as usize]).sum::<u64>();
                run.clear();
                self.raise(c, k, r, cap, base, won, run);
            }
            c = k;
        }
    }

    /// Enumerate heights for columns j.. of the run [.., k): each at most `cap` (and h_j),
    /// at least r, and above r for the first column of the run. `base` is the rank without
    /// the run's columns.
    #[allow(clippy::too_many_arguments)]
    ///
    /// Iterative (a run can be as long as the board is wide, 100,000 columns and more):
    /// `run` holds, for columns `c..c + run.len()`, the height chosen and the rank before it.
    #[allow(clippy::too_many_arguments)]
    fn raise(&self, c: usize, k: usize, r: u32, cap: u32, base: u64, won: &mut [u64], run: &mut Vec<(u32, u64)>) {
        run.clear();
        let mut b = base;
        let mut descend = true;
        loop {
            if descend {
                let j = c + run.len();
                if j == k {
                    won[(b / 64) as usize] |= 1 << (b % 64);
                    descend = false;
                    continue;
                }
                let lo = if run.is_empty() { r + 1 } else { r };
                let hi = run.last().map_or(cap, |&(v, _)| v).min(self.h[j]);
                if lo <= hi {
                    run.push((lo, b));
                    b += self.t[j][lo as usize];
                } else {
                    descend = false;
                }
                continue;
            }
            // Back up: the next height for the last column chosen, or further back.
            let Some((v, b0)) = run.pop() else { return };
            let j = c + run.len();
            let hi = run.last().map_or(cap, |&(v, _)| v).min(self.h[j]);
            if v < hi {
                run.push((v + 1, b0));
                b = b0 + self.t[j][v as usize + 1];
                descend = true;
            }
        }
    }

    /// The next state in rank (lexicographic) order.
    fn advance(&self, x: &mut [u32]) {
        for i in (0..x.len()).rev() {
            let cap = if i == 0 { self.h[0] } else { x[i - 1].min(self.h[i]) };
            if x[i] < cap {
                x[i] += 1;
                x[i + 1..].iter_mut().for_each(|v| *v = 0);
                return;
            }
        }
    }

    pub fn contains(&self, x: &[u32]) -> bool {
        x.len() == self.h.len() && x.iter().zip(&self.h).all(|(a, b)| a <= b)
    }

    pub fn rank(&self, x: &[u32]) -> u64 {
        x.iter().enumerate().map(|(i, &v)| self.t[i][v as usize]).sum()
    }

    fn is_losing_rank(&self, rank: u64) -> bool {
        self.losing[(rank / 64) as usize] >> (rank % 64) & 1 == 1
    }

    pub fn is_losing(&self, x: &[u32]) -> bool {
        self.is_losing_rank(self.rank(x))
    }

    /// sx[j] = Σ_{i≥j} T[i][x_i].
    fn suffix_sums(&self, x: &[u32], sx: &mut [u64]) {
        let n = x.len();
        sx[n] = 0;
        for j in (0..n).rev() {
            sx[j] = sx[j + 1] + self.t[j][x[j] as usize];
        }
    }

    /// The first move (column, row) to a losing state, in the assignment's order: bottom to
    /// top in the leftmost column, then column by column. `sx` holds the suffix sums of x.
    ///
    /// Taking (c, r) leaves x_j for j < c and min(x_j, r) for j ≥ c. With k the first column
    /// from c on whose height is at most r, the child's rank is
    /// rank(x) − Σ_{j≥c} T[j][x_j] + Σ_{c≤j<k} T[j][r] + Σ_{j≥k} T[j][x_j].
    fn first_losing_child(&self, x: &[u32], rank: u64, sx: &[u64]) -> Option<(usize, u32)> {
        let mut found = None;
        self.each_child(x, rank, sx, |c, r, child| {
            if self.is_losing_rank(child) {
                found = Some((c, r));
                return true;
            }
            false
        });
        found
    }

    /// Every move (c, r) from `x` (rank `rank`, suffix sums `sx`) in the assignment's order,
    /// with the rank of the state it leaves, until `f` says to stop. See
    /// [`Table::first_losing_child`] for the formula.
    #[inline]
    fn each_child(&self, x: &[u32], rank: u64, sx: &[u64], mut f: impl FnMut(usize, u32, u64) -> bool) {
        let n = x.len();
        for c in 0..n {
            let mut k = c;
            while k < n && x[k] > 0 {
                k += 1;
            }
            for r in 0..x[c] {
                if c == 0 && r == 0 {
                    continue; // the poison
                }
                while k > c + 1 && x[k - 1] <= r {
                    k -= 1;
                }
                let pt = &self.pt[r as usize];
                if f(c, r, rank - sx[c] + sx[k] + pt[k] - pt[c]) {
                    return;
                }
            }
        }
    }

    /// The first winning move from `x` in the assignment's order, if any.
    pub fn winning_move(&self, x: &[u32]) -> Option<(usize, u32)> {
        let mut sx = vec![0u64; x.len() + 1];
        self.suffix_sums(x, &mut sx);
        self.first_losing_child(x, self.rank(x), &sx)
    }

    pub fn states(&self) -> u64 {
        self.total
    }
}

/// The most states a table of nimbers may hold (two bytes each, and two of remoteness: 512 MiB).
pub const MAX_NIMBER_STATES: u64 = 1 << 27;

/// The nimber (Grundy value) and remoteness of every state below a bound.
pub struct Nimbers {
    table: Table,
    /// By rank; the empty board (rank 0) is never a child and has none.
    g: Vec<u16>,
    /// Remoteness by rank: a win's is one more than its fastest losing child's, a loss's one
    /// more than its slowest child's (0 with no move: the poison alone).
    r: Vec<u16>,
}

impl Nimbers {
    /// Every state below `h` in rank order: each state's children have smaller ranks, so
    /// one pass computes each nimber as the mex of its children's, and each remoteness from
    /// its children's, reading each child's rank from the prefix sums in O(1) (as
    /// `first_losing_child` does).
    pub fn build(h: &[u32]) -> GameResult<Nimbers> {
        let table = Table::layout(h, MAX_NIMBER_STATES)?;
        let (n, total) = (h.len(), table.total as usize);
        let mut g: Vec<u16> = Vec::new();
        let mut rem: Vec<u16> = Vec::new();
        g.try_reserve_exact(total).and_then(|_| rem.try_reserve_exact(total)).map_err(|_| {
            GameError::OutOfMemory(format!(
                "{total} nimbers and remotenesses ({} MiB) do not fit in memory",
                (total * 4) >> 20
            ))
        })?;
        g.resize(total, 0);
        rem.resize(total, 0);
        let mut x = vec![0u32; n];
        let mut sx = vec![0u64; n + 1];
        // Nimbers seen among a state's children, as bits; `high` bounds the words in use.
        let mut seen = vec![0u64; 1024];
        let mut high = 1usize;
        for rank in 1..total {
            table.advance(&mut x);
            table.suffix_sums(&x, &mut sx);
            seen[..high].iter_mut().for_each(|w| *w = 0);
            // The fastest losing child and the slowest child (remoteness + 1; 0: none).
            let (mut fastest_loss, mut slowest) = (u32::MAX, 0u32);
            table.each_child(&x, rank as u64, &sx, |_, _, child| {
                let v = g[child as usize] as usize;
                seen[v / 64] |= 1 << (v % 64);
                let r1 = rem[child as usize] as u32 + 1;
                if v == 0 {
                    fastest_loss = fastest_loss.min(r1);
                }
                slowest = slowest.max(r1);
                false
            });
            let r = if fastest_loss != u32::MAX { fastest_loss } else { slowest };
            if r >= u16::MAX as u32 {
                return Err(GameError::Unsupported(format!("a remoteness above {r}: more than this table holds")));
            }
            rem[rank] = r as u16;
            let mut mex = 0;
            while seen[mex / 64] >> (mex % 64) & 1 == 1 {
                mex += 1;
            }
            if mex >= u16::MAX as usize || mex / 64 + 2 > seen.len() {
                return Err(GameError::Unsupported(format!("a nimber above {mex}: more than this table holds")));
            }
            high = high.max(mex / 64 + 1);
            g[rank] = mex as u16;
        }
        Ok(Nimbers { table, g, r: rem })
    }

    /// The remoteness of `x` (a state below the bound; not the empty board).
    pub fn remoteness(&self, x: &[u32]) -> u32 {
        self.r[self.table.rank(x) as usize] as u32
    }

    pub fn contains(&self, x: &[u32]) -> bool {
        self.table.contains(x)
    }

    /// The nimber of `x` (a state below the bound; not the empty board).
    pub fn get(&self, x: &[u32]) -> u64 {
        self.g[self.table.rank(x) as usize] as u64
    }

    pub fn states(&self) -> u64 {
        self.table.total
    }
}

/// The state after taking (c, r).
pub fn cut(x: &[u32], c: usize, r: u32) -> Vec<u32> {
    x.iter().enumerate().map(|(i, &v)| if i >= c { v.min(r) } else { v }).collect()
}

/// Column heights: non-increasing digits (`4432`), or comma/space separated numbers.
pub fn parse_state(text: &str) -> Result<Vec<u32>, String> {
    let t = text.trim();
    let h: Vec<u32> = if t.contains([',', ' ']) {
        t.split([',', ' '])
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<u32>().map_err(|_| format!("{} is not a column height", crate::input::quote(s))))
            .collect::<Result<_, _>>()?
    } else {
        if t.is_empty() {
            return Err("a Chomp state is column heights such as 4432".into());
        }
        t.chars()
            .map(|ch| {
                ch.to_digit(10)
                    .ok_or_else(|| format!("{ch:?} is not a column height: a Chomp state is digits such as 4432"))
            })
            .collect::<Result<_, _>>()?
    };
    if h.is_empty() {
        return Err("a Chomp state is column heights such as 4432".into());
    }
    if h.windows(2).any(|w| w[1] > w[0]) {
        return Err(format!("column heights must not increase from left to right ({})", crate::input::quote(t)));
    }
    Ok(h)
}

pub fn format_state(h: &[u32]) -> String {
    if h.iter().any(|&v| v > 9) {
        let s = h.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        // One tall column: "12" alone would read as two columns, 1 and 2.
        if h.len() == 1 { s + "," } else { s }
    } else {
        h.iter().map(u32::to_string).collect()
    }
}

/// The Chomp assignment's answer line for `h` (a non-empty board).
pub fn answer(h: &[u32]) -> GameResult<String> {
    answer_within(h, usize::MAX)
}

/// [`answer`] within a memory budget of `budget` bytes ([`Table::build_within`]).
pub fn answer_within(h: &[u32], budget: usize) -> GameResult<String> {
    if h.iter().all(|&v| v == 0) {
        return Err(GameError::BadPosition("the board is empty: nothing to choose".into()));
    }
    let table = Table::build_within(h, budget)?;
    Ok(match table.winning_move(h) {
        Some((c, r)) => format!("WIN: {}", format_state(&cut(h, c, r))),
        None => "LOSS".to_string(),
    })
}

pub const USAGE: &str = "usage: gamesman chomp STATE
STATE is the column heights of a Chomp board from left to right: a non-empty string of
non-increasing digits starting with a non-zero digit (4432), or comma-separated heights
when a column is taller than 9 (12,10,3). Prints LOSS, or WIN: and the state after the
winning move that takes the leftmost piece.
";

/// `gamesman chomp STATE` as the assignment prints it. `Err(None)` means the usage text.
pub fn assignment(arg: &str, budget: usize) -> Result<String, Option<GameError>> {
    let h = parse_state(arg).map_err(|_| None)?;
    if h[0] == 0 {
        return Err(None);
    }
    answer_within(&h, budget).map_err(Some)
}

pub struct Chomp {
    info: GameInfo,
    table: RefCell<Option<Table>>,
    nimbers: RefCell<Option<Nimbers>>,
}

impl Chomp {
    pub fn new(mut info: GameInfo) -> Chomp {
        info.kind = Kind::Impartial;
        Chomp { info, table: RefCell::new(None), nimbers: RefCell::new(None) }
    }

    /// The nimber of `x` from a table that covers it (built when needed), or `None` for a
    /// board with too many states below it for a table of nimbers.
    pub fn nimber(&self, x: &[u32]) -> GameResult<Option<u64>> {
        Ok(self.nimber_and_remoteness(x)?.map(|(g, _)| g))
    }

    /// The nimber and remoteness of `x` from a table that covers it (built when needed), or
    /// `None` for a board with too many states below it for that table.
    pub fn nimber_and_remoteness(&self, x: &[u32]) -> GameResult<Option<(u64, u32)>> {
        if x.iter().all(|&v| v == 0) || count_states(x).is_none_or(|n| n > MAX_NIMBER_STATES) {
            return Ok(None);
        }
        let mut cache = self.nimbers.borrow_mut();
        if !cache.as_ref().is_some_and(|t| t.contains(x)) {
            *cache = Some(Nimbers::build(x)?);
        }
        Ok(cache.as_ref().map(|t| (t.get(x), t.remoteness(x))))
    }

    /// Whether `x` is a loss, from a table that covers it (built when needed).
    fn losing(&self, x: &[u32]) -> GameResult<bool> {
        let mut cache = self.table.borrow_mut();
        if !cache.as_ref().is_some_and(|t| t.contains(x)) {
            *cache = Some(Table::build(x)?);
        }
        Ok(cache.as_ref().expect("built").is_losing(x))
    }
}

impl Game for Chomp {
    type Pos = Vec<u32>;
    type Move = (usize, u32);

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<Vec<u32>>> {
        Ok(Some(vec![4, 4, 3, 2]))
    }

    fn parse(&self, text: &str) -> GameResult<Vec<u32>> {
        parse_state(text).map_err(GameError::BadPosition)
    }

    fn format(&self, x: &Vec<u32>) -> GameResult<String> {
        Ok(format_state(x))
    }

    fn moves(&self, x: &Vec<u32>) -> GameResult<Vec<(usize, u32)>> {
        let squares: u64 = x.iter().map(|&h| u64::from(h)).sum();
        if squares > crate::game::MAX_MOVES {
            return Err(super::common::too_many_moves(squares - 1));
        }
        Ok((0..x.len()).flat_map(|c| (0..x[c]).map(move |r| (c, r))).filter(|&m| m != (0, 0)).collect())
    }

    fn play(&self, x: &Vec<u32>, &(c, r): &(usize, u32)) -> GameResult<Vec<u32>> {
        Ok(cut(x, c, r))
    }

    fn move_name(&self, _x: &Vec<u32>, &(c, r): &(usize, u32)) -> GameResult<String> {
        Ok(format!("{c}:{r}"))
    }

    fn primitive(&self, x: &Vec<u32>) -> GameResult<Option<Value>> {
        Ok(x.iter().all(|&v| v == 0).then_some(Value::Win))
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities { view: Some(self), closed_form: Some(self), hints: Some(self), ..Capabilities::none() }
    }
}

impl View<Vec<u32>, (usize, u32)> for Chomp {
    /// The bar of chocolate as the page draws it: the poisoned square bottom left, a click on
    /// a square (column c, row r from the bottom) is the move `c:r`. Boards past 2^16 squares
    /// are not drawn.
    fn board(&self, x: &Vec<u32>) -> GameResult<Option<crate::game::Board>> {
        let rows = x.first().copied().unwrap_or(0) as usize;
        let cols = x.len();
        if rows == 0 || rows.saturating_mul(cols) > 1 << 16 {
            return Ok(None);
        }
        let mut b = crate::game::Board::new(rows, cols, Vec::new());
        for i in 0..rows * cols {
            let (r, c) = (rows - 1 - i / cols, i % cols);
            let here = (r as u32) < x[c];
            b.cells.push(
                if !here {
                    "."
                } else if (c, r) == (0, 0) {
                    "☠"
                } else {
                    "#"
                }
                .to_string(),
            );
            b.clicks[i] = here.then(|| format!("{c}:{r}"));
        }
        Ok(Some(b))
    }
}

impl ClosedForm<Vec<u32>, (usize, u32)> for Chomp {
    fn shortcut(&self, x: &Vec<u32>) -> GameResult<Option<Shortcut<(usize, u32)>>> {
        if x.iter().all(|&v| v == 0) {
            return Ok(None); // the empty board: primitive
        }
        let value = if self.losing(x)? { Value::Lose } else { Value::Win };
        let mut winning_moves = Vec::new();
        if value == Value::Win {
            for m in self.moves(x)? {
                if self.losing(&cut(x, m.0, m.1))? {
                    winning_moves.push(m);
                }
            }
        }
        let table = self.nimber_and_remoteness(x)?;
        let (grundy, remoteness) = (table.map(|t| t.0), table.map(|t| t.1));
        Ok(Some(Shortcut { value, remoteness, grundy, winning_moves }))
    }
}

impl Hints<Vec<u32>> for Chomp {
    fn search_size(&self, x: &Vec<u32>) -> Option<f64> {
        // Every state below, each with up to (squares left) moves: about half of them.
        let squares: f64 = x.iter().map(|&h| h as f64).sum();
        count_states(x).map(|n| n as f64 * (squares / 2.0).max(1.0))
    }
}

/// A random small position (for `gamesman check`): up to five columns of at most 6.
pub fn sample(rng: &mut fastrand::Rng) -> String {
    let mut h: Vec<u32> = (0..rng.usize(1..=5)).map(|_| rng.u32(0..=6)).collect();
    h.sort_unstable_by(|a, b| b.cmp(a));
    h[0] = h[0].max(1);
    h.iter().map(u32::to_string).collect()
}

/// `gamesman chomp STATE`: `LOSS` or `WIN: state`; the usage text (stderr, exit 1) on a
/// non-digit, increasing or empty state.
pub fn command(call: &Call, io: &mut Io) -> anyhow::Result<i32> {
    match assignment(call.words.first().map_or("", String::as_str), call.budget) {
        Ok(line) => {
            writeln!(io.out, "{line}")?;
            Ok(0)
        }
        Err(None) => {
            io.err.write_all(USAGE.as_bytes())?;
            Ok(1)
        }
        Err(Some(e)) => Err(e.into()),
    }
}

/// What `gamesman bench` times of the assignment: the answer on 20 columns of 9.
pub fn bench_work() -> Work {
    let h = vec![9u32; 20];
    let states = count_states(&h).unwrap_or(0);
    Work {
        what: format!("Chomp, 20 columns of height 9 ({states} states)"),
        decimals: 3,
        run: Box::new(move || Ok(format!("`{}`", answer(&h)?))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection_in_lexicographic_order() {
        let h = [4, 3, 3, 1];
        let t = Table::build(&h).unwrap();
        let mut x = vec![0; 4];
        for rank in 0..t.states() {
            assert_eq!(t.rank(&x), rank, "{x:?}");
            t.advance(&mut x);
        }
        // Non-increasing x ≤ h: counted by hand from the lists, 4 columns.
        assert_eq!(count_states(&[1, 1]), Some(3)); // 00, 10, 11
        assert_eq!(count_states(&[2, 2]), Some(6)); // 00 10 11 20 21 22
    }

    #[test]
    fn the_assignments_example_and_small_facts() {
        assert_eq!(answer(&[4, 4, 3, 2]).unwrap(), "WIN: 4111");
        assert_eq!(answer(&[1]).unwrap(), "LOSS"); // only the poison is left
        assert_eq!(answer(&[2, 1]).unwrap(), "LOSS");
        // A rectangle is a win (strategy stealing); a square is won by taking (1,1).
        assert_eq!(answer(&[3, 3, 3]).unwrap(), "WIN: 311");
        // Two equal rows (an L of equal arms is lost): 2×n boards are won by taking the top-right square.
        assert_eq!(answer(&[2, 2, 2, 2]).unwrap(), "WIN: 2221");
    }

    #[test]
    fn usage_on_bad_input() {
        for bad in ["", "abc", "3432", "0", "04", "4a"] {
            assert!(matches!(assignment(bad, usize::MAX), Err(None)), "{bad:?}");
        }
        // Two columns (two-row Chomp): the losing states are (a, a − 1), so from a 12×2
        // rectangle the move is to lower the second column to 11.
        assert_eq!(assignment("12,12", usize::MAX).unwrap(), "WIN: 12,11");
        assert_eq!(assignment("12,11", usize::MAX).unwrap(), "LOSS");
    }

    #[test]
    fn a_board_of_too_many_squares_has_its_moves_refused_not_listed() {
        let chomp = Chomp::new(GameInfo::native("chomp", "Chomp", Kind::Impartial));
        // A 3×2 board has 5 moves (every square but the poison).
        assert_eq!(chomp.moves(&vec![2, 2, 2]).unwrap().len(), 5);
        let err = chomp.moves(&vec![1_999_999_992]).unwrap_err().to_string();
        assert!(err.contains("1999999991 moves, more than the 1000000"), "{err}");
    }
}
