//! Quixo on 3×3, 4×4 and 5×5 boards: bitboards, the eight symmetries of the square, and
//! positions by index (tiers), so that the tier solver solves it whole.
//!
//! Rules: the player to move takes a blank cube or one of their own from the border and
//! pushes it back in at the opposite end of its row or of its column (never where it came
//! from); the cubes in between shift by one, and the cube now shows the mover's symbol.
//! After a move, the player to move wins if they have a line (a row, a column or a
//! diagonal), even if the opponent has one too; else they lose if the opponent has one.
//!
//! Position text (as `games/quixo.rhai`): `3x3`, `4x4`, `5x5` alone are the empty boards
//! with X to move; otherwise the rows of `X`, `O` and `.` from the top, separated by `/`,
//! a space, and the player to move: `X.O/.X./O.. O`. A move is named by the cube taken and
//! the cell it is pushed in at, `row:col-row:col` counted from 0 (`0:1-2:1`).
//!
//! Tiers: the numbers of X and O cubes (which never go down: a move turns a blank cube or
//! one of the mover's own); a position's index in its tier is the rank of its board among
//! the boards with those counts ([`Ranker`]) times two, plus the player to move.

use crate::game::tier::{Ranker, Tier, TierSpace, Tiers};
use crate::game::{
    Board, Capabilities, Footprint, Game, GameError, GameInfo, GameResult, Hints, Kind, Parallel, Replica, Value, View,
};

/// A position: the board's side, whose turn (0: X, 1: O), and a bitboard a player (cell
/// `r * n + c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QPos {
    pub n: u8,
    pub turn: u8,
    pub x: u32,
    pub o: u32,
}

impl Footprint for QPos {}

/// A move: the cube taken, and the cell it is pushed in at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QMove {
    pub from: u8,
    pub to: u8,
}

/// One push on a board of one size.
#[derive(Clone, Copy, Debug)]
struct Push {
    from: u8,
    to: u8,
    /// The cells from `to` to `from`, both included.
    affected: u32,
    /// The cells that shift one step towards `from`: `affected` less `from`.
    moving: u32,
    /// That step, in cell numbers.
    step: i8,
}

impl Push {
    #[inline]
    fn apply(&self, b: u32) -> u32 {
        let m = b & self.moving;
        let moved = if self.step > 0 { m << self.step } else { m >> -self.step };
        (b & !self.affected) | moved
    }
}

/// Everything about one board size.
#[derive(Clone, Debug)]
struct Shape {
    cells: u32,
    pushes: Vec<Push>,
    lines: Vec<u32>,
    /// The eight symmetries, by chunks of 8 cells: `sym[s][chunk][byte]`.
    sym: Vec<[[u32; 256]; 4]>,
    ranker: Ranker,
}

impl Shape {
    fn new(n: u32) -> Shape {
        let cells = n * n;
        let at = |r: u32, c: u32| r * n + c;
        let mut pushes = Vec::new();
        for r in 0..n {
            for c in 0..n {
                if !(r == 0 || c == 0 || r == n - 1 || c == n - 1) {
                    continue;
                }
                // (destination, step from the destination towards the source)
                let mut ends = Vec::new();
                if c != 0 {
                    ends.push((at(r, 0), 1i8));
                }
                if c != n - 1 {
                    ends.push((at(r, n - 1), -1));
                }
                if r != 0 {
                    ends.push((at(0, c), n as i8));
                }
                if r != n - 1 {
                    ends.push((at(n - 1, c), -(n as i8)));
                }
                let from = at(r, c);
                for (to, step) in ends {
                    let mut affected = 0u32;
                    let mut cell = to as i32;
                    loop {
                        affected |= 1 << cell;
                        if cell == from as i32 {
                            break;
                        }
                        cell += step as i32;
                    }
                    pushes.push(Push {
                        from: from as u8,
                        to: to as u8,
                        affected,
                        moving: affected & !(1 << from),
                        step,
                    });
                }
            }
        }
        let mut lines = Vec::new();
        for i in 0..n {
            lines.push((0..n).fold(0, |m, c| m | 1 << at(i, c)));
            lines.push((0..n).fold(0, |m, r| m | 1 << at(r, i)));
        }
        lines.push((0..n).fold(0, |m, i| m | 1 << at(i, i)));
        lines.push((0..n).fold(0, |m, i| m | 1 << at(i, n - 1 - i)));
        let mut sym = vec![[[0u32; 256]; 4]; 8];
        for (s, table) in sym.iter_mut().enumerate() {
            let map = |cell: u32| {
                let (mut r, mut c) = (cell / n, cell % n);
                if s & 1 != 0 {
                    c = n - 1 - c;
                }
                if s & 2 != 0 {
                    r = n - 1 - r;
                }
                if s & 4 != 0 {
                    std::mem::swap(&mut r, &mut c);
                }
                at(r, c)
            };
            for (chunk, t) in table.iter_mut().enumerate() {
                for (byte, out) in t.iter_mut().enumerate() {
                    for k in 0..8 {
                        let cell = chunk as u32 * 8 + k;
                        if byte & (1 << k) != 0 && cell < cells {
                            *out |= 1 << map(cell);
                        }
                    }
                }
            }
        }
        Shape { cells, pushes, lines, sym, ranker: Ranker::new(cells) }
    }

    #[inline]
    fn line(&self, b: u32) -> bool {
        // Is some line whole in `b`?
        for &l in &self.lines {
            if b & l == l {
                return true;
            }
        }
        false
    }

    #[inline]
    fn transform(&self, s: usize, b: u32) -> u32 {
        let t = &self.sym[s];
        t[0][(b & 255) as usize]
            | t[1][(b >> 8 & 255) as usize]
            | t[2][(b >> 16 & 255) as usize]
            | t[3][(b >> 24) as usize]
    }

    fn primitive(&self, p: &QPos) -> Option<Value> {
        let (mine, theirs) = if p.turn == 0 { (p.x, p.o) } else { (p.o, p.x) };
        if self.line(mine) {
            Some(Value::Win)
        } else if self.line(theirs) {
            Some(Value::Lose)
        } else {
            None
        }
    }

    /// The pushes the player to move may make.
    fn legal(&self, p: &QPos) -> impl Iterator<Item = &Push> {
        let theirs = if p.turn == 0 { p.o } else { p.x };
        self.pushes.iter().filter(move |m| theirs & (1 << m.from) == 0)
    }

    fn play(&self, p: &QPos, m: &Push) -> QPos {
        let (mut x, mut o) = (m_apply(m, p.x), m_apply(m, p.o));
        if p.turn == 0 {
            x |= 1 << m.to;
        } else {
            o |= 1 << m.to;
        }
        QPos { n: p.n, turn: 1 - p.turn, x, o }
    }

    fn canonical(&self, p: &QPos) -> QPos {
        let mut best = (p.x, p.o);
        for s in 1..8 {
            let c = (self.transform(s, p.x), self.transform(s, p.o));
            if c < best {
                best = c;
            }
        }
        QPos { x: best.0, o: best.1, ..*p }
    }

    fn locate(&self, p: &QPos) -> (Tier, u64) {
        let tier = tier_of(p.n as u32, p.x.count_ones(), p.o.count_ones());
        (tier, self.ranker.rank(&[p.x as u64, p.o as u64]) * 2 + p.turn as u64)
    }
}

#[inline]
fn m_apply(m: &Push, b: u32) -> u32 {
    m.apply(b)
}

fn tier_of(n: u32, x: u32, o: u32) -> Tier {
    ((n as u64) << 16) | ((x as u64) << 8) | o as u64
}

fn tier_parts(t: Tier) -> (u32, u32, u32) {
    ((t >> 16) as u32, (t >> 8 & 255) as u32, (t & 255) as u32)
}

/// Quixo on the three board sizes.
#[derive(Clone)]
pub struct Quixo {
    info: GameInfo,
    shapes: std::sync::Arc<[Shape; 3]>,
}

impl Quixo {
    pub fn new(mut info: GameInfo) -> Quixo {
        info.kind = Kind::Partisan;
        Quixo { info, shapes: std::sync::Arc::new([Shape::new(3), Shape::new(4), Shape::new(5)]) }
    }

    fn shape(&self, n: u8) -> &Shape {
        &self.shapes[(n as usize).clamp(3, 5) - 3]
    }

    fn empty(n: u8) -> QPos {
        QPos { n, turn: 0, x: 0, o: 0 }
    }
}

impl Game for Quixo {
    type Pos = QPos;
    type Move = QMove;

    fn info(&self) -> &GameInfo {
        &self.info
    }

    fn start(&self) -> GameResult<Option<QPos>> {
        Ok(Some(Quixo::empty(3)))
    }

    fn parse(&self, text: &str) -> GameResult<QPos> {
        let t = text.trim();
        for n in 3..=5u8 {
            if t.eq_ignore_ascii_case(&format!("{n}x{n}")) {
                return Ok(Quixo::empty(n));
            }
        }
        let bad = |why: String| GameError::BadPosition(why);
        let parts: Vec<&str> = t.split_whitespace().collect();
        let [board, turn] = parts[..] else {
            return Err(bad(format!(
                "{t:?}: a Quixo position is 3x3, 4x4 or 5x5 (the empty board), or rows of X, O and . separated by / \
                 and the player to move, as in `X.O/.X./O.. O`"
            )));
        };
        let turn = match turn {
            "X" | "x" => 0,
            "O" | "o" => 1,
            other => return Err(bad(format!("{other:?} is not a player: the player to move is X or O"))),
        };
        let rows: Vec<&str> = board.split('/').collect();
        let n = rows.len();
        if !(3..=5).contains(&n) {
            return Err(bad(format!("a Quixo board has 3, 4 or 5 rows, got {n}")));
        }
        let (mut x, mut o) = (0u32, 0u32);
        for (r, row) in rows.iter().enumerate() {
            if row.chars().count() != n {
                return Err(bad(format!("row {} has {} cells, and a {n}x{n} board {n}", r + 1, row.chars().count())));
            }
            for (c, ch) in row.chars().enumerate() {
                let bit = 1u32 << (r * n + c);
                match ch {
                    'X' | 'x' => x |= bit,
                    'O' | 'o' => o |= bit,
                    '.' => {}
                    other => {
                        return Err(bad(format!(
                            "{other:?} at row {}, column {} is not a cube: use X, O or .",
                            r + 1,
                            c + 1
                        )));
                    }
                }
            }
        }
        Ok(QPos { n: n as u8, turn, x, o })
    }

    fn format(&self, p: &QPos) -> GameResult<String> {
        let n = p.n as usize;
        let mut s = String::with_capacity(n * (n + 1) + 2);
        for r in 0..n {
            if r > 0 {
                s.push('/');
            }
            for c in 0..n {
                let bit = 1u32 << (r * n + c);
                s.push(if p.x & bit != 0 {
                    'X'
                } else if p.o & bit != 0 {
                    'O'
                } else {
                    '.'
                });
            }
        }
        s.push(' ');
        s.push(if p.turn == 0 { 'X' } else { 'O' });
        Ok(s)
    }

    fn moves(&self, p: &QPos) -> GameResult<Vec<QMove>> {
        let s = self.shape(p.n);
        if s.primitive(p).is_some() {
            return Ok(Vec::new());
        }
        Ok(s.legal(p).map(|m| QMove { from: m.from, to: m.to }).collect())
    }

    fn play(&self, p: &QPos, mv: &QMove) -> GameResult<QPos> {
        let s = self.shape(p.n);
        let push = s
            .legal(p)
            .find(|m| m.from == mv.from && m.to == mv.to)
            .ok_or_else(|| GameError::BadMove(format!("{}:{} is not a legal move here", mv.from, mv.to)))?;
        Ok(s.play(p, push))
    }

    fn children(&self, p: &QPos) -> GameResult<Vec<QPos>> {
        let s = self.shape(p.n);
        if s.primitive(p).is_some() {
            return Ok(Vec::new());
        }
        Ok(s.legal(p).map(|m| s.play(p, m)).collect())
    }

    fn move_name(&self, p: &QPos, mv: &QMove) -> GameResult<String> {
        let n = p.n;
        Ok(format!("{}:{}-{}:{}", mv.from / n, mv.from % n, mv.to / n, mv.to % n))
    }

    fn primitive(&self, p: &QPos) -> GameResult<Option<Value>> {
        Ok(self.shape(p.n).primitive(p))
    }

    fn canonical(&self, p: &QPos) -> GameResult<QPos> {
        Ok(self.shape(p.n).canonical(p))
    }

    fn capabilities(&self) -> Capabilities<'_, Self> {
        Capabilities {
            view: Some(self),
            hints: Some(self),
            parallel: Some(self),
            tiers: Some(self),
            ..Capabilities::none()
        }
    }
}

impl View<QPos, QMove> for Quixo {
    fn show(&self, p: &QPos) -> GameResult<Option<String>> {
        let text = self.format(p)?;
        let (board, turn) = text.split_once(' ').unwrap_or((&text, "X"));
        Ok(Some(format!("{}\n{turn} to move", board.replace('/', "\n"))))
    }
    fn board(&self, p: &QPos) -> GameResult<Option<Board>> {
        let text = self.format(p)?;
        let n = p.n as usize;
        let cells: Vec<String> = text
            .chars()
            .filter(|c| matches!(c, 'X' | 'O' | '.'))
            .take(n * n)
            .map(|c| c.to_ascii_lowercase().to_string())
            .collect();
        // A move takes two cells (the cube and where it goes in): typed, not clicked.
        Ok(Some(Board { rows: n, cols: n, cells, clicks: vec![None; n * n] }))
    }
    fn to_move(&self, p: &QPos) -> GameResult<Option<usize>> {
        Ok(Some(p.turn as usize))
    }
}

impl Hints<QPos> for Quixo {
    fn search_size(&self, p: &QPos) -> Option<f64> {
        // Every board filling, both players to move, each with its pushes.
        let s = self.shape(p.n);
        Some(3f64.powi(s.cells as i32) * 2.0 * s.pushes.len() as f64)
    }
}

impl Parallel<Quixo> for Quixo {
    fn replicate(&self) -> Replica<'_, Self> {
        let me = self.clone();
        Replica {
            make: std::sync::Arc::new(move || Ok(me.clone())),
            send: |p| Box::new(*p),
            receive: |w| *w.downcast::<QPos>().expect("a Quixo position"),
        }
    }
}

impl TierSpace for Quixo {
    fn child_tiers(&self, tier: Tier) -> Vec<Tier> {
        let (n, x, o) = tier_parts(tier);
        if x + o >= n * n { Vec::new() } else { vec![tier_of(n, x + 1, o), tier_of(n, x, o + 1)] }
    }

    fn tier_size(&self, tier: Tier) -> u64 {
        let (n, x, o) = tier_parts(tier);
        self.shape(n as u8).ranker.count(&[x, o]).unwrap_or(0) * 2
    }

    fn tier_name(&self, tier: Tier) -> String {
        let (n, x, o) = tier_parts(tier);
        format!("{n}x{n} X{x} O{o}")
    }

    fn canonical_index(&self, tier: Tier, index: u64) -> u64 {
        let p = self.position(tier, index);
        self.shape(p.n).locate(&self.shape(p.n).canonical(&p)).1
    }

    fn primitive_at(&self, tier: Tier, index: u64) -> Option<Value> {
        let p = self.position(tier, index);
        self.shape(p.n).primitive(&p)
    }

    fn children_at(&self, tier: Tier, index: u64, out: &mut Vec<(Tier, u64)>) {
        let p = self.position(tier, index);
        let s = self.shape(p.n);
        if s.primitive(&p).is_some() {
            return;
        }
        for m in s.legal(&p) {
            out.push(s.locate(&s.canonical(&s.play(&p, m))));
        }
    }
}

impl Tiers for Quixo {
    type Pos = QPos;

    fn locate(&self, p: &QPos) -> (Tier, u64) {
        self.shape(p.n).locate(p)
    }

    fn position(&self, tier: Tier, index: u64) -> QPos {
        let (n, x, o) = tier_parts(tier);
        let mut boards = [0u64; 2];
        self.shape(n as u8).ranker.unrank(&[x, o], index / 2, &mut boards);
        QPos { n: n as u8, turn: (index & 1) as u8, x: boards[0] as u32, o: boards[1] as u32 }
    }
}

/// A random 3×3 position (for `gamesman check`): a few random moves from the empty board.
pub fn sample(rng: &mut fastrand::Rng) -> String {
    let q = Quixo::new(crate::game::GameInfo::native("quixo", "", Kind::Partisan));
    let steps = rng.usize(0..12);
    let p = super::common::random_play(&q, Quixo::empty(3), steps, rng);
    q.format(&p).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q() -> Quixo {
        Quixo::new(crate::game::GameInfo::native("quixo", "", Kind::Partisan))
    }

    /// Moves counted by hand: a corner cube has 2 pushes, another border cube 3.
    #[test]
    fn move_counts() {
        let g = q();
        for (text, want) in [("3x3", 4 * 2 + 4 * 3), ("4x4", 4 * 2 + 8 * 3), ("5x5", 4 * 2 + 12 * 3)] {
            assert_eq!(g.moves(&g.parse(text).unwrap()).unwrap().len(), want, "{text}");
        }
        // O's cubes on the border are not X's to take: 3x3 with O on both top corners.
        let p = g.parse("O.O/.../... X").unwrap();
        assert_eq!(g.moves(&p).unwrap().len(), 20 - 4);
    }

    /// A push worked by hand: X takes the blank at (0,2) and pushes it in at (0,0): the top
    /// row `O.. ` shifts right to `XO.`.
    #[test]
    fn a_push_by_hand() {
        let g = q();
        let p = g.parse("O../.../... X").unwrap();
        let after = g.play(&p, &QMove { from: 2, to: 0 }).unwrap();
        assert_eq!(g.format(&after).unwrap(), "XO./.../... O");
        // Down the left column: X takes (2,0) and pushes in at the top.
        let p = g.parse("O../X../... X").unwrap();
        let after = g.play(&p, &QMove { from: 6, to: 0 }).unwrap();
        assert_eq!(g.format(&after).unwrap(), "X../O../X.. O");
    }

    /// The player to move wins with a line even if the opponent has one too.
    #[test]
    fn primitive_values() {
        let g = q();
        let v = |t: &str| g.primitive(&g.parse(t).unwrap()).unwrap();
        assert_eq!(v("XXX/OOO/... X"), Some(Value::Win));
        assert_eq!(v("XXX/OOO/... O"), Some(Value::Win));
        assert_eq!(v("XXX/.O./O.. O"), Some(Value::Lose));
        assert_eq!(v("X.O/.X./O.. O"), None);
    }

    /// Index and position are inverse on every 3×3 tier, and the sizes add up to 3^9 × 2.
    #[test]
    fn index_round_trip() {
        let g = q();
        let mut total = 0;
        for x in 0..=9 {
            for o in 0..=9 - x {
                let t = tier_of(3, x, o);
                let size = g.tier_size(t);
                total += size;
                for i in 0..size {
                    let p = g.position(t, i);
                    assert_eq!(g.locate(&p), (t, i));
                }
            }
        }
        assert_eq!(total, 19683 * 2);
    }

    #[test]
    fn bad_positions() {
        let g = q();
        for t in ["", "6x6", "XX/OO X", "X.O/.X./O.. Z", "X.O/.X./O.Q O", "X.O/.X/O.. O"] {
            assert!(matches!(g.parse(t), Err(GameError::BadPosition(_))), "{t}");
        }
    }
}
