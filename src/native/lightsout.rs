//! Lights Out over GF(2): light chasing plus elimination on bit-packed rows.
//!
//! Pressing a light twice undoes it and order does not matter, so a solution is a set of
//! lights. Deciding lights in reading order ("light chasing"), every press below the top row
//! is forced: the light above it must end up off, and nothing later can change it. So every
//! light's final state is an affine function (over GF(2)) of the top-row presses. The chase
//! is run symbolically on bit-packed affine forms, the lights that must end off give linear
//! equations, and Gaussian elimination solves them. The solutions are one particular
//! solution plus the null space. While the null space is small enough, every solution is
//! tried (Gray code order, each step one XOR of precomputed press sets) for the fewest presses.
//!
//! Positions are the script's: a board and the index of the next light to decide (lights
//! before it are decided, and not pressed again).

use super::command::{Call, Io, Work, read_bounded};
use crate::game::{
    Capabilities, ClosedForm, Footprint, Game, GameError, GameInfo, GameResult, Kind, Shortcut, Value, View,
};
use crate::grid::Grid;
use std::io::Write;

/// Whole boards at least this wide (after turning the short side up) are solved by
/// polynomials ([`super::gf2`]).
pub const POLYNOMIAL_WIDTH: usize = 64;

/// Enumerate the null space while 2^k × (words per press set) stays below this.
pub const ENUMERATION_BUDGET: f64 = 4e8;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LoPos {
    pub board: Grid,
    pub next: usize,
}

impl Footprint for LoPos {
    fn heap_bytes(&self) -> usize {
        Grid::heap_bytes(&self.board)
    }
}

/// A solution: the lights to press (as a grid), and whether it is known to be the shortest.
pub struct Solution {
    pub presses: Grid,
    pub minimal: bool,
    /// log2 of the number of solutions.
    pub nullity: usize,
}

impl Solution {
    /// The presses in reading order, as (row, column).
    pub fn cells(&self) -> Vec<(usize, usize)> {
        self.presses.cells().collect()
    }
}

/// Affine forms over the free variables: `words` u64 per form, bit `nvars` the constant.
struct Forms {
    words: usize,
    data: Vec<u64>,
}

impl Forms {
    fn new(count: usize, words: usize) -> Forms {
        Forms { words, data: vec![0; count * words] }
    }
    fn form(&self, i: usize) -> &[u64] {
        &self.data[i * self.words..(i + 1) * self.words]
    }
    fn xor_into(&mut self, i: usize, f: &[u64]) {
        for (a, b) in self.data[i * self.words..(i + 1) * self.words].iter_mut().zip(f) {
            *a ^= b;
        }
    }
    fn set_bit(&mut self, i: usize, bit: usize) {
        self.data[i * self.words + bit / 64] ^= 1 << (bit % 64);
    }
}

/// The forms of row `r` as constants from the board (bit `nvars`), or zeros past the edge.
fn constant_row(board: &Grid, r: usize, nvars: usize, words: usize) -> Forms {
    let w = board.cols();
    let mut f = Forms::new(w, words);
    if r < board.rows() {
        for c in 0..w {
            if board.get(r, c) {
                f.set_bit(c, nvars);
            }
        }
    }
    f
}

/// Press (r, c) on a concrete board.
fn press(board: &mut Grid, presses: &mut Grid, r: usize, c: usize) {
    board.toggle_plus(r, c);
    presses.toggle(r, c);
}

/// Chase concretely from `next` with the free top-row presses `vars`; the presses made.
fn chase(board: &Grid, next: usize, vars: &[bool]) -> (Grid, Grid) {
    let (h, w) = (board.rows(), board.cols());
    let mut b = board.clone();
    let mut presses = Grid::new(h, w);
    for i in next..h * w {
        let (r, c) = (i / w, i % w);
        let on = if r == 0 { vars[c - next] } else { b.get(r - 1, c) };
        if on {
            press(&mut b, &mut presses, r, c);
        }
    }
    (b, presses)
}

/// Roughly how many bytes [`solve`] needs for `board` from `next`: the chase keeps four rows
/// of affine forms over the free presses (one per light of a row), and a few whole boards.
pub fn solve_bytes(board: &Grid, next: usize) -> f64 {
    let (h, w) = (board.rows(), board.cols());
    let chased = if next == 0 { w.min(h) } else { w };
    let nvars = if next < w { chased - next.min(chased) } else { 0 };
    let words = (nvars + 1).div_ceil(64) as f64;
    if next == 0 && chased >= POLYNOMIAL_WIDTH {
        // The rows of the board, of the presses and of a chase of the null space (a word
        // vector each), a few polynomials, and the grids.
        let long = w.max(h) as f64;
        let row = (chased as f64 / 64.0).ceil() * 8.0 + 48.0;
        return 3.0 * long * row + 8.0 * row + 6.0 * (h * w) as f64 / 8.0;
    }
    4.0 * chased as f64 * words * 8.0 + 6.0 * (h * w) as f64 / 8.0
}

/// [`solve`], unless it would need more than `budget` bytes: then a message saying so.
pub fn solve_within(board: &Grid, next: usize, budget: usize) -> Result<Option<Solution>, String> {
    let need = solve_bytes(board, next);
    if need > budget as f64 {
        return Err(format!(
            "a {}×{} board needs about {:.0} MiB to solve, more than the memory budget of {} MiB (raise --max-memory)",
            board.rows(),
            board.cols(),
            need / (1 << 20) as f64,
            budget >> 20
        ));
    }
    Ok(solve(board, next))
}

/// Solve `board` when the lights before `next` (in reading order) are decided.
///
/// A whole board (`next` = 0) wider than it is tall is solved on its transpose (the puzzle is
/// the same turned a quarter, and the chase's cost grows with the square of the width).
pub fn solve(board: &Grid, next: usize) -> Option<Solution> {
    if next == 0 && board.cols() > board.rows() {
        let s = solve_chased(&board.transform(4), 0)?;
        return Some(Solution { presses: s.presses.transform(4), ..s });
    }
    solve_chased(board, next)
}

/// [`solve`] by chasing the lights down from the top row: a whole board by polynomials
/// ([`super::gf2`]), a partly decided one by symbolic chasing.
fn solve_chased(board: &Grid, next: usize) -> Option<Solution> {
    let (h, w) = (board.rows(), board.cols());
    if next >= h * w || w == 0 {
        return board.is_empty().then(|| Solution { presses: Grid::new(h, w), minimal: true, nullity: 0 });
    }
    // Narrow boards chase symbolically (a word or so a form); wider ones use polynomials.
    if next == 0
        && w >= POLYNOMIAL_WIDTH
        && let Some(answer) = solve_by_polynomials(board)
    {
        return answer;
    }
    solve_symbolic(board, next)
}

/// A whole board's top row from [`super::gf2::first_row`], checked by chasing it down: `None`
/// (never expected) when the chase leaves a light on, so that the caller can solve it
/// another way.
fn solve_by_polynomials(board: &Grid) -> Option<Option<Solution>> {
    use super::gf2::{Row, chase_rows, first_row};
    let (h, w) = (board.rows(), board.cols());
    let rows: Vec<Row> = (0..h).map(|r| Row::from_words(w, board.row_words(r))).collect();
    let Some((particular, basis)) = first_row(&rows) else { return Some(None) };
    let to_grid = |presses: &[Row]| {
        let mut g = Grid::new(h, w);
        presses.iter().enumerate().for_each(|(r, p)| g.xor_row_words(r, p.words()));
        g
    };
    let (presses, off) = chase_rows(&rows, &particular);
    if !off {
        return None;
    }
    let zero = vec![Row::new(w); h];
    let deltas = || basis.iter().map(|b| to_grid(&chase_rows(&zero, b).0)).collect();
    Some(fewest(h, w, to_grid(&presses), basis.len(), &deltas))
}

/// [`solve`] by chasing affine forms over the free presses, then Gaussian elimination.
pub fn solve_symbolic(board: &Grid, next: usize) -> Option<Solution> {
    let (h, w) = (board.rows(), board.cols());
    let n = h * w;
    if next >= n || w == 0 {
        return board.is_empty().then(|| Solution { presses: Grid::new(h, w), minimal: true, nullity: 0 });
    }
    let rs = next / w;
    // Lights no remaining press can reach must already be off: rows above rs − 1, and the
    // cells of row rs − 1 above decided lights.
    for r in 0..rs.saturating_sub(1) {
        if (0..w).any(|c| board.get(r, c)) {
            return None;
        }
    }
    if rs > 0 && (0..next % w).any(|c| board.get(rs - 1, c)) {
        return None;
    }
    let nvars = if rs == 0 { w - next } else { 0 };
    let words = (nvars + 1).div_ceil(64);
    let mut equations: Vec<Vec<u64>> = Vec::new();
    let mut above = if rs > 0 { constant_row(board, rs - 1, nvars, words) } else { Forms::new(w, words) };
    let mut cur = constant_row(board, rs, nvars, words);
    let mut below = constant_row(board, rs + 1, nvars, words);
    let mut p = vec![0u64; words];
    for r in rs..h {
        for c in 0..w {
            if r * w + c < next {
                continue;
            }
            if r == 0 {
                p.iter_mut().for_each(|x| *x = 0);
                p[(c - next) / 64] |= 1 << ((c - next) % 64);
            } else {
                p.copy_from_slice(above.form(c));
                above.xor_into(c, &p);
            }
            cur.xor_into(c, &p);
            if c > 0 {
                cur.xor_into(c - 1, &p);
            }
            if c + 1 < w {
                cur.xor_into(c + 1, &p);
            }
            if r + 1 < h {
                below.xor_into(c, &p);
            }
        }
        // Row r − 1 is final now: what is left of it must be off.
        if r > 0 {
            equations.extend((0..w).map(|c| above.form(c)).filter(|f| f.iter().any(|&x| x != 0)).map(<[u64]>::to_vec));
        }
        above = std::mem::replace(&mut cur, std::mem::replace(&mut below, constant_row(board, r + 2, nvars, words)));
    }
    // The last row is final too.
    equations.extend((0..w).map(|c| above.form(c)).filter(|f| f.iter().any(|&x| x != 0)).map(<[u64]>::to_vec));

    // Gaussian elimination: linear part · v = constant bit.
    let bit = |f: &[u64], i: usize| f[i / 64] >> (i % 64) & 1 == 1;
    let mut pivots: Vec<(usize, usize)> = Vec::new(); // (equation, variable)
    let mut row = 0;
    for var in 0..nvars {
        let Some(pr) = (row..equations.len()).find(|&e| bit(&equations[e], var)) else { continue };
        equations.swap(row, pr);
        let pivot = equations[row].clone();
        for (e, eq) in equations.iter_mut().enumerate() {
            if e != row && bit(eq, var) {
                eq.iter_mut().zip(&pivot).for_each(|(a, b)| *a ^= b);
            }
        }
        pivots.push((row, var));
        row += 1;
    }
    if equations[row..].iter().any(|eq| bit(eq, nvars)) {
        return None; // 0 = 1
    }
    let is_pivot: Vec<bool> = {
        let mut v = vec![false; nvars];
        pivots.iter().for_each(|&(_, var)| v[var] = true);
        v
    };
    let particular: Vec<bool> = {
        let mut v = vec![false; nvars];
        for &(e, var) in &pivots {
            v[var] = bit(&equations[e], nvars);
        }
        v
    };
    let basis: Vec<Vec<bool>> = (0..nvars)
        .filter(|&f| !is_pivot[f])
        .map(|f| {
            let mut v = vec![false; nvars];
            v[f] = true;
            for &(e, var) in &pivots {
                v[var] = bit(&equations[e], f);
            }
            v
        })
        .collect();
    let (end, best) = chase(board, next, &particular);
    debug_assert!(end.is_empty(), "the particular solution must turn every light off");
    let empty = Grid::new(h, w);
    let deltas = || basis.iter().map(|v| chase(&empty, next, v).1).collect();
    fewest(h, w, best, basis.len(), &deltas)
}

/// From one solution (`best`) and a basis of the free presses' null space: the solution with
/// the fewest presses, while the null space is small enough to walk.
fn fewest(h: usize, w: usize, best: Grid, nullity: usize, deltas: &dyn Fn() -> Vec<Grid>) -> Option<Solution> {
    let n = h * w;
    let words_per_set = (n as f64 / 64.0).ceil();
    if nullity == 0 {
        return Some(Solution { presses: best, minimal: true, nullity });
    }
    if (nullity as f64).exp2() * words_per_set > ENUMERATION_BUDGET {
        return Some(Solution { presses: best, minimal: false, nullity });
    }
    // The press set is affine in the free variables: walk the null space in Gray code order.
    let deltas = deltas();
    let mut current = best.clone();
    let mut best = best;
    let mut best_count = best.count();
    for i in 1u64..(1 << nullity) {
        let flip = i.trailing_zeros() as usize;
        current = current.xor(&deltas[flip]);
        let count = current.count();
        if count < best_count {
            best_count = count;
            best = current.clone();
        }
    }
    Some(Solution { presses: best, minimal: true, nullity })
}

/// Marks a press a person typed (any light, out of reading order) in a move.
const FREE: usize = 1 << (usize::BITS - 1);

pub struct LightsOut {
    info: GameInfo,
}

impl LightsOut {
    pub fn new(mut info: GameInfo) -> LightsOut {
        info.kind = Kind::Puzzle;
        LightsOut { info }
    }
}

impl Game for LightsOut {
    type Pos = LoPos;
    type Move = usize;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    /// Rows of `#`/`0` separated by newlines or `/`, optionally followed by `@k`.
    fn parse(&self, text: &str) -> GameResult<LoPos> {
        let (board, next) = Grid::parse_at(text).map_err(GameError::BadPosition)?;
        Ok(LoPos { board, next })
    }

    fn format(&self, p: &LoPos) -> GameResult<String> {
        let rows = p.board.to_rows('#', '0', "\n");
        Ok(if p.next == 0 { rows } else { format!("{rows} @{}", p.next) })
    }

    /// The script's moves: the next light whose neighbour above is on (it cannot be
    /// skipped), or any light of the top row, from `next` on.
    fn moves(&self, p: &LoPos) -> GameResult<Vec<usize>> {
        let w = p.board.cols();
        let mut out = Vec::new();
        for j in p.next..p.board.rows() * w {
            let (r, c) = (j / w, j % w);
            if r == 0 {
                out.push(j);
            } else if p.board.get(r - 1, c) {
                out.push(j);
                break;
            }
        }
        Ok(out)
    }

    /// A press from [`Game::moves`] (the solver's, in reading order) keeps `next`; a press
    /// a person typed (marked `FREE` by `parse_move`: any light) starts afresh, `next` = 0.
    fn play(&self, p: &LoPos, &mv: &usize) -> GameResult<LoPos> {
        let (j, free) = (mv & !FREE, mv & FREE != 0);
        let w = p.board.cols();
        if j >= p.board.rows() * w {
            return Err(GameError::BadMove(format!("light {j} is outside the board")));
        }
        let mut board = p.board.clone();
        board.toggle_plus(j / w, j % w);
        Ok(LoPos { board, next: if free { 0 } else { j + 1 } })
    }

    fn move_name(&self, p: &LoPos, &mv: &usize) -> GameResult<String> {
        let j = mv & !FREE;
        Ok(format!("{}:{}", j / p.board.cols(), j % p.board.cols()))
    }

    fn primitive(&self, p: &LoPos) -> GameResult<Option<Value>> {
        Ok(p.board.is_empty().then_some(Value::Win))
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities { view: Some(self), closed_form: Some(self), ..Capabilities::none() }
    }
}

impl View<LoPos, usize> for LightsOut {
    fn board(&self, p: &LoPos) -> GameResult<Option<crate::game::Board>> {
        Ok(super::common::grid_board(&p.board))
    }
    fn show(&self, p: &LoPos) -> GameResult<Option<String>> {
        Ok(Some(p.board.to_rows('#', '0', "\n")))
    }
    /// loplayer's `row:col` (from 0): a person may press any light.
    fn parse_move(&self, p: &LoPos, text: &str) -> GameResult<Option<usize>> {
        Ok(Some(FREE | p.board.parse_cell(text).map_err(GameError::BadMove)?))
    }
}

impl ClosedForm<LoPos, usize> for LightsOut {
    fn shortcut(&self, p: &LoPos) -> GameResult<Option<Shortcut<usize>>> {
        let solved =
            solve_within(&p.board, p.next, crate::solve::DEFAULT_MAX_MEMORY).map_err(GameError::OutOfMemory)?;
        Ok(Some(match solved {
            None => Shortcut { value: Value::Lose, remoteness: None, grundy: None, winning_moves: Vec::new() },
            Some(s) => {
                let w = p.board.cols();
                let moves: Vec<usize> = s.cells().into_iter().map(|(r, c)| r * w + c).collect();
                let remoteness = s.minimal.then_some(moves.len() as u32);
                Shortcut { value: Value::Win, remoteness, grundy: None, winning_moves: moves }
            }
        }))
    }
}

/// A random small board (for `gamesman check`): mostly whole boards, sometimes a position
/// part-way through, as the script has them.
pub fn sample(rng: &mut fastrand::Rng) -> String {
    let (rows, cols) = (rng.usize(1..=4), rng.usize(1..=4));
    let board: Vec<String> =
        (0..rows).map(|_| (0..cols).map(|_| if rng.bool() { '#' } else { '0' }).collect()).collect();
    let next = if rng.u8(0..4) == 0 { rng.usize(0..=rows * cols) } else { 0 };
    if next == 0 { board.join("/") } else { format!("{} @{next}", board.join("/")) }
}

/// `gamesman lightsout BOARD`: the presses of a solution with the fewest presses as `row:col`
/// lines, exit 0; when there is none, nothing on stdout, `No solution` on stderr, exit 1.
pub fn command(call: &Call, io: &mut Io) -> anyhow::Result<i32> {
    let board = call.words.first().map_or("-", String::as_str);
    let budget = call.budget;
    let text = read_bounded(board, budget / 2)?;
    let grid = Grid::parse(&text).map_err(|e| anyhow::anyhow!("{board}: {e}"))?;
    let Some(s) = solve_within(&grid, 0, budget).map_err(|e| anyhow::anyhow!("{board}: {e}"))? else {
        writeln!(io.err, "No solution")?;
        return Ok(1);
    };
    // Written by hand into one buffer: formatting 50 million lines through `writeln!` took
    // longer than solving the board.
    let mut out = std::io::BufWriter::with_capacity(1 << 20, &mut *io.out);
    let mut line = Vec::with_capacity(48);
    let digits = |mut n: usize, line: &mut Vec<u8>| {
        let start = line.len();
        loop {
            line.push(b'0' + (n % 10) as u8);
            n /= 10;
            if n == 0 {
                break;
            }
        }
        line[start..].reverse();
    };
    for (r, c) in s.presses.cells() {
        line.clear();
        digits(r, &mut line);
        line.push(b':');
        digits(c, &mut line);
        line.push(b'\n');
        out.write_all(&line)?;
    }
    out.flush()?;
    drop(out);
    if !s.minimal {
        writeln!(
            io.err,
            "note: this solves the board, but may not use the fewest presses: there are 2^{} solutions, \
             too many to compare",
            s.nullity
        )?;
    }
    Ok(0)
}

/// A board made by pressing random lights on a dark one: solvable by construction.
fn solvable(n: usize, seed: u64) -> Grid {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut g = Grid::new(n, n);
    for r in 0..n {
        for c in 0..n {
            if rng.bool() {
                g.toggle_plus(r, c);
            }
        }
    }
    g
}

/// What `gamesman bench` times of the assignment: a random solvable 2048² board.
pub fn bench_work() -> Work {
    let board = solvable(2048, 1);
    Work {
        what: "Lights Out, random solvable 2048×2048 board".into(),
        decimals: 3,
        run: Box::new(move || {
            Ok(match solve(&board, 0) {
                Some(s) => format!("{} presses, 2^{} solutions", s.presses.count(), s.nullity),
                None => "no solution".into(),
            })
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(s: &str) -> Grid {
        Grid::parse(s).unwrap()
    }

    #[test]
    fn the_assignments_example() {
        // loplayer: boards/3x2-34.txt is solved by pressing 1:0.
        let s = solve(&board("#00/##0"), 0).unwrap();
        assert_eq!(s.cells(), vec![(1, 0)]);
        assert!(s.minimal);
    }

    #[test]
    fn classic_5x5_facts() {
        // The 5×5 game has a 2-dimensional null space: 4 solutions of every solvable board,
        // and only 1 in 4 boards is solvable.
        let all_on = board("#####/#####/#####/#####/#####");
        let s = solve(&all_on, 0).unwrap();
        assert_eq!(s.nullity, 2);
        assert_eq!(s.cells().len(), 15); // the known fewest presses for the all-on 5×5 board
        // A single lit corner is not solvable on 5×5.
        assert!(solve(&board("#0000/00000/00000/00000/00000"), 0).is_none());
    }

    #[test]
    fn every_solution_really_solves() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..200 {
            let (h, w) = (rng.usize(1..7), rng.usize(1..7));
            let mut b = Grid::new(h, w);
            for r in 0..h {
                for c in 0..w {
                    b.set(r, c, rng.bool());
                }
            }
            if let Some(s) = solve(&b, 0) {
                let mut x = b.clone();
                for (r, c) in s.cells() {
                    x.toggle_plus(r, c);
                }
                assert!(x.is_empty());
            }
        }
    }
}

#[cfg(test)]
mod polynomial_tests {
    use super::*;

    /// The polynomial method against the symbolic chase with elimination on random boards of
    /// every shape up to 24 × 24 (singular sizes included: 4×4, 5×5, 9×9, 11×11, 16×16, 17×17,
    /// 19×19, 23×23 have null spaces): same solvability, same null space dimension, the same
    /// fewest presses, and the presses turn every light off.
    #[test]
    fn polynomials_agree_with_elimination() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut singular = 0;
        for h in (1..=24).chain([70, 130]) {
            for w in (1..=h.min(24)).chain([64, 65, 70, 128].into_iter().filter(|&w| w <= h)) {
                for _ in 0..3 {
                    // (Both methods run here whatever the width.)
                    let mut b = Grid::new(h, w);
                    for r in 0..h {
                        for c in 0..w {
                            if rng.bool() {
                                b.toggle(r, c);
                            }
                        }
                    }
                    let fast = solve_by_polynomials(&b).expect("the chase checks out");
                    let slow = solve_symbolic(&b, 0);
                    match (&fast, &slow) {
                        (None, None) => {}
                        (Some(f), Some(s)) => {
                            assert_eq!(f.nullity, s.nullity, "{h}x{w}");
                            assert_eq!(f.presses.count(), s.presses.count(), "{h}x{w}");
                            let mut check = b.clone();
                            f.presses.cells().for_each(|(r, c)| check.toggle_plus(r, c));
                            assert!(check.is_empty(), "{h}x{w}");
                            singular += usize::from(f.nullity > 0);
                        }
                        _ => panic!("{h}x{w}: polynomials say {}, elimination {}", fast.is_some(), slow.is_some()),
                    }
                }
            }
        }
        assert!(singular > 10, "singular boards were met: {singular}");
    }

    #[test]
    fn known_null_spaces_of_square_boards() {
        // The nullity of the n×n all-on puzzle's matrix (OEIS A159257): 4×4 → 4, 5×5 → 2,
        // 9×9 → 8, 11×11 → 6, 16×16 → 8, 17×17 → 2, 19×19 → 16.
        for (n, k) in [(4, 4), (5, 2), (9, 8), (11, 6), (16, 8), (17, 2), (19, 16), (3, 0), (6, 0)] {
            let s = solve_by_polynomials(&Grid::full(n, n)).expect("checked").expect("all-on is solvable");
            assert_eq!(s.nullity, k, "{n}x{n}");
        }
    }
}
