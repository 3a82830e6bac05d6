//! Pieces that move: a piece stepping in its owner's directions (Dodgem), a peg jumping
//! (peg solitaire), a tile sliding into the blank (the 8-puzzle), the top disc moving between
//! pegs (the Tower of Hanoi): their moves, text and ends.

use super::bits::{ACROSS_DOWN, BITS, TRIANGLE, full_mask, parse_size, triangle_size};
use super::rules::{BMove, BPos, BoardRules};
use super::vocab::{BoardMove, BoardShape};
use crate::game::Board;

// --- Pieces that move: Step, Jump, Slide, Hanoi --------------------------------------------

/// The most tiles a sliding puzzle holds: 5 bits a cell in 128.
const MAX_TILES: usize = 25;

/// The most discs: labelled 1 to 9, then a to z.
const MAX_DISCS: usize = 35;

/// A disc's label: 1 to 9, then a to z for 10 to 35.
fn disc_label(n: usize) -> char {
    if n < 10 { char::from(b'0' + n as u8) } else { char::from(b'a' + (n - 10) as u8) }
}

fn disc_of(ch: char) -> Option<usize> {
    match ch.to_ascii_lowercase() {
        c @ '1'..='9' => Some(c as usize - '0' as usize),
        c @ 'a'..='z' => Some(c as usize - 'a' as usize + 10),
        _ => None,
    }
}

impl BoardRules {
    /// Do pieces move (rather than being placed)?
    #[inline]
    pub(super) fn moving(&self) -> bool {
        matches!(self.moves, BoardMove::Step { .. } | BoardMove::Jump | BoardMove::Slide | BoardMove::Hanoi)
    }

    /// The board's cells: every cell of a rectangle, the lower-left half of a triangle.
    #[inline]
    pub(super) fn cell_mask(&self, rows: u8, cols: u8) -> u128 {
        if self.shape != BoardShape::Triangle {
            return full_mask(rows, cols);
        }
        let w = cols as usize + 1;
        (0..rows as usize).fold(0, |m, r| m | ((1u128 << (r + 1)) - 1) << (r * w))
    }

    /// Is (r, c) a cell of the board?
    #[inline]
    pub(super) fn inside(&self, p: &BPos, r: i32, c: i32) -> bool {
        r >= 0
            && c >= 0
            && r < i32::from(p.rows)
            && c < i32::from(p.cols)
            && (self.shape != BoardShape::Triangle || c <= r)
    }

    /// A puzzle's end: its goal reached, or its number of pieces left.
    #[inline]
    pub(super) fn solved(&self, p: &BPos) -> bool {
        self.goal.is_some_and(|g| g.a == p.a && g.b == p.b) || self.left.is_some_and(|n| p.a.count_ones() == n)
    }

    /// Every move, in order, to `f`.
    pub(super) fn moving_moves(&self, p: &BPos, mut f: impl FnMut(BMove)) {
        let w = p.cols as usize + 1;
        match &self.moves {
            BoardMove::Step { .. } => {
                let mine = if p.turn == 0 { p.a } else { p.b };
                let taken = p.a | p.b;
                let mut rest = mine;
                while rest != 0 {
                    let i = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let (r, c) = ((i / w) as i32, (i % w) as i32);
                    for (k, &(dr, dc)) in self.steps[p.turn as usize & 1].iter().enumerate() {
                        let (nr, nc) = (r + i32::from(dr), c + i32::from(dc));
                        if self.inside(p, nr, nc) {
                            let j = nr as usize * w + nc as usize;
                            if taken >> j & 1 == 0 {
                                f(BMove(i as u8, j as u8));
                            }
                        } else if k == 0 && self.off {
                            f(BMove(i as u8, i as u8)); // forward, off the board
                        }
                    }
                }
            }
            BoardMove::Jump => {
                let dirs: &[(i8, i8)] = if self.shape == BoardShape::Triangle { &TRIANGLE } else { &ACROSS_DOWN };
                let mut rest = p.a;
                while rest != 0 {
                    let i = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let (r, c) = ((i / w) as i32, (i % w) as i32);
                    for &(dr, dc) in dirs {
                        let (dr, dc) = (i32::from(dr), i32::from(dc));
                        let (tr, tc) = (r + 2 * dr, c + 2 * dc);
                        if !self.inside(p, tr, tc) {
                            continue;
                        }
                        let over = (r + dr) as usize * w + (c + dc) as usize;
                        let to = tr as usize * w + tc as usize;
                        if p.a >> over & 1 == 1 && p.a >> to & 1 == 0 {
                            f(BMove(i as u8, to as u8));
                        }
                    }
                }
            }
            BoardMove::Slide => {
                let (cols, blank) = (p.cols as usize, p.b as usize);
                let (r, c) = (blank / cols, blank % cols);
                if r > 0 {
                    f(BMove((blank - cols) as u8, blank as u8));
                }
                if r + 1 < p.rows as usize {
                    f(BMove((blank + cols) as u8, blank as u8));
                }
                if c > 0 {
                    f(BMove((blank - 1) as u8, blank as u8));
                }
                if c + 1 < cols {
                    f(BMove((blank + 1) as u8, blank as u8));
                }
            }
            BoardMove::Hanoi => {
                let row = (1u128 << p.cols) - 1;
                let peg = |i: usize| (p.a >> (i * w)) & row;
                for from in 0..p.rows as usize {
                    let top = peg(from).trailing_zeros();
                    if top >= 128 {
                        continue;
                    }
                    for to in 0..p.rows as usize {
                        if to != from && peg(to).trailing_zeros() > top {
                            f(BMove(from as u8, to as u8));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The position after `m`, a move `moving_moves` listed.
    #[inline]
    pub(super) fn apply(&self, p: &BPos, m: BMove) -> BPos {
        let mut q = *p;
        let (i, j) = (m.0 as usize, m.1 as usize);
        match self.moves {
            BoardMove::Step { .. } => {
                let mine = if p.turn == 0 { &mut q.a } else { &mut q.b };
                *mine &= !(1u128 << i);
                if i != j {
                    *mine |= 1u128 << j;
                }
                q.turn ^= 1;
            }
            BoardMove::Jump => {
                let over = (i + j) / 2;
                q.a = (q.a & !(1u128 << i | 1u128 << over)) | 1u128 << j;
            }
            BoardMove::Slide => {
                let tile = (p.a >> (5 * i)) & 31;
                q.a = (p.a & !(31u128 << (5 * i))) | tile << (5 * j);
                q.b = i as u128;
            }
            BoardMove::Hanoi => {
                let w = p.cols as usize + 1;
                let row = (1u128 << p.cols) - 1;
                let top = ((p.a >> (i * w)) & row).trailing_zeros() as usize;
                q.a = (p.a & !(1u128 << (i * w + top))) | 1u128 << (j * w + top);
            }
            _ => {}
        }
        q
    }

    pub(super) fn moving_name(&self, p: &BPos, m: BMove) -> String {
        let w = p.cols as usize + 1;
        let (r0, c0, r1, c1) = (m.0 as usize / w, m.0 as usize % w, m.1 as usize / w, m.1 as usize % w);
        match self.moves {
            BoardMove::Step { .. } if m.0 == m.1 => format!("{r0}:{c0}-off"),
            BoardMove::Slide => self.label(p, m.0 as usize).to_string(),
            BoardMove::Hanoi => format!("{}-{}", m.0 + 1, m.1 + 1),
            _ => format!("{r0}:{c0}-{r1}:{c1}"),
        }
    }

    /// The label of a sliding puzzle's cell `i` ('.' the blank).
    #[inline]
    pub(super) fn label(&self, p: &BPos, i: usize) -> char {
        let code = ((p.a >> (5 * i)) & 31) as usize;
        if code == 0 { '.' } else { self.labels.get(code - 1).copied().unwrap_or('?') }
    }

    /// Roughly how many positions a search meets.
    pub(super) fn moving_size(&self, p: &BPos) -> f64 {
        let cells = f64::from(self.cell_mask(p.rows, p.cols).count_ones());
        match self.moves {
            BoardMove::Slide => (2..=(p.rows as u32 * p.cols as u32)).map(f64::from).product::<f64>() / 2.0,
            BoardMove::Hanoi => f64::from(p.rows).powf(f64::from(p.cols)),
            BoardMove::Jump => cells.exp2(),
            _ => 2.0 * 3f64.powf(cells),
        }
    }

    /// Tiles: rows of labels separated by '/', '.' the blank (`123/456/78.`); the size alone
    /// (`3x3`) is the goal.
    pub(super) fn parse_tiles(&self, text: &str) -> Result<BPos, String> {
        let t = text.trim().replace(['\n', '\r'], "/");
        let mut rows: Vec<Vec<char>> =
            t.trim_end_matches('/').split('/').map(|r| r.chars().filter(|c| !c.is_whitespace()).collect()).collect();
        if rows.len() == 1 {
            let line: String = rows[0].iter().collect();
            if let Ok((r, c, None)) = parse_size(&line)
                && line.contains(['x', 'X', '×'])
            {
                return match self.goal {
                    Some(g) if (g.rows, g.cols) == (r, c) => Ok(g),
                    _ => Err(format!("{line:?}: write the tiles, rows separated by '/' ('.' the blank)")),
                };
            }
            if let Some((r, c)) = self.fixed
                && rows[0].len() == r as usize * c as usize
                && r > 1
            {
                rows = rows[0].chunks(c as usize).map(<[char]>::to_vec).collect();
            }
        }
        let (r, c) = (rows.len(), rows[0].len());
        if c == 0 {
            return Err("an empty position: write the tiles, rows separated by '/' ('.' the blank)".into());
        }
        if let Some(i) = rows.iter().position(|row| row.len() != c) {
            return Err(format!("row {} has {} cells, not {c} as row 1", i + 1, rows[i].len()));
        }
        if r * c > MAX_TILES {
            return Err(format!("a {r}x{c} puzzle is too big: at most {MAX_TILES} cells (5x5)"));
        }
        if let Some((fr, fc)) = self.fixed
            && (fr as usize, fc as usize) != (r, c)
        {
            return Err(format!("this puzzle's board is {fr}x{fc}, as its goal (not {r}x{c})"));
        }
        let (mut a, mut blank, mut blanks) = (0u128, 0usize, 0);
        let mut seen: Vec<char> = Vec::new();
        for (i, &ch) in rows.iter().flatten().enumerate() {
            if ch == '.' {
                blank = i;
                blanks += 1;
                continue;
            }
            let Ok(code) = self.labels.binary_search(&ch) else {
                let tiles: String = self.labels.iter().collect();
                return Err(format!("{ch:?} is not a tile of this puzzle (its tiles: {tiles}; '.' the blank)"));
            };
            a |= ((code + 1) as u128) << (5 * i);
            seen.push(ch);
        }
        if blanks != 1 {
            return Err(format!("a sliding puzzle has one blank ('.'), not {blanks}"));
        }
        seen.sort_unstable();
        if self.goal.is_some() && seen != self.tiles {
            let want: String = self.tiles.iter().collect();
            let got: String = seen.iter().collect();
            return Err(format!("the tiles must be the goal's ({want}), not {got}"));
        }
        Ok(BPos { rows: r as u8, cols: c as u8, a, b: blank as u128, k: 0, turn: 0 })
    }

    pub(super) fn tiles_text(&self, p: &BPos, sep: &str) -> String {
        let cols = p.cols as usize;
        let rows: Vec<String> =
            (0..p.rows as usize).map(|r| (0..cols).map(|c| self.label(p, r * cols + c)).collect()).collect();
        rows.join(sep)
    }

    /// Pegs separated by '/', each its discs from the bottom up (`654321//`: six discs on the
    /// first of three pegs; disc 1 the smallest); a number alone (`6`) is that many discs on
    /// the first peg.
    pub(super) fn parse_pegs(&self, text: &str) -> Result<BPos, String> {
        let t: String = text.trim().replace(['\n', '\r'], "/").chars().filter(|c| !c.is_whitespace()).collect();
        let pegs: Vec<Vec<usize>> = if !t.contains('/') {
            let n = match t.parse::<usize>() {
                Ok(n) if (1..=MAX_DISCS).contains(&n) => n,
                _ => {
                    return Err(format!(
                        "{}: write the pegs separated by '/', each its discs from the bottom up \
                         (\"654321//\"), or the number of discs (1 to {MAX_DISCS}) to put on the first peg",
                        crate::input::quote(&t)
                    ));
                }
            };
            let count = self.goal.map_or(3, |g| g.rows as usize);
            let mut pegs = vec![Vec::new(); count];
            pegs[0] = (1..=n).rev().collect();
            pegs
        } else {
            let mut pegs = Vec::new();
            for (i, peg) in t.split('/').enumerate() {
                let mut discs = Vec::new();
                for ch in peg.chars() {
                    let d = disc_of(ch).ok_or_else(|| {
                        format!(
                            "{ch:?} is not a disc: discs are 1 to 9, then a to z (10 to 35), written from the bottom up"
                        )
                    })?;
                    if let Some(&below) = discs.last()
                        && below <= d
                    {
                        return Err(format!(
                            "peg {}: disc {} lies on disc {}: a disc lies only on larger ones (write each peg from \
                             the bottom up)",
                            i + 1,
                            disc_label(d),
                            disc_label(below)
                        ));
                    }
                    discs.push(d);
                }
                pegs.push(discs);
            }
            pegs
        };
        let n: usize = pegs.iter().map(Vec::len).sum();
        let mut count = vec![0; n + 2];
        for &d in pegs.iter().flatten() {
            if d > n {
                return Err(format!("the discs here are numbered 1 to {n}: there is no disc {}", disc_label(d)));
            }
            count[d] += 1;
        }
        if n == 0 {
            return Err("no discs: write at least one (\"1//\")".into());
        }
        if let Some(d) = (1..=n).find(|&d| count[d] != 1) {
            return Err(format!(
                "the discs are 1 to {n}, each once: disc {} is there {} times",
                disc_label(d),
                count[d]
            ));
        }
        if pegs.len() < 2 || pegs.len() * (n + 1) > BITS {
            return Err(format!(
                "{} pegs and {n} discs do not fit: at least 2 pegs, and pegs × (discs + 1) ≤ {BITS}",
                pegs.len()
            ));
        }
        let w = n + 1;
        let mut a = 0u128;
        for (i, peg) in pegs.iter().enumerate() {
            for &d in peg {
                a |= 1u128 << (i * w + d - 1);
            }
        }
        Ok(BPos { rows: pegs.len() as u8, cols: n as u8, a, b: 0, k: 0, turn: 0 })
    }

    pub(super) fn pegs_text(&self, p: &BPos, sep: &str) -> String {
        let w = p.cols as usize + 1;
        let pegs: Vec<String> = (0..p.rows as usize)
            .map(|i| {
                (0..p.cols as usize).rev().filter(|d| p.a >> (i * w + d) & 1 == 1).map(|d| disc_label(d + 1)).collect()
            })
            .collect();
        pegs.join(sep)
    }

    /// A triangle: rows from the top separated by '/', row r with r + 1 cells
    /// (`./xx/xxx/xxxx/xxxxx`; spaces are ignored); the side alone (`5`) is the empty board.
    pub(super) fn parse_triangle(&self, text: &str) -> Result<BPos, String> {
        let t = text.trim().replace(['\n', '\r'], "/");
        let rows: Vec<Vec<char>> =
            t.trim_end_matches('/').split('/').map(|r| r.chars().filter(|c| !c.is_whitespace()).collect()).collect();
        if rows.len() == 1 && rows[0].iter().all(char::is_ascii_digit) && !rows[0].is_empty() {
            let (n, _, _) = triangle_size(&rows[0].iter().collect::<String>())?;
            if let Some((f, _)) = self.fixed
                && f != n
            {
                return Err(format!("this game is played on a triangle of side {f}, not {n}"));
            }
            return Ok(BPos { rows: n, cols: n, a: 0, b: 0, k: 0, turn: 0 });
        }
        let n = rows.len();
        if n > 10 {
            return Err(format!("a triangle of side {n} does not fit: the side is 1 to 10"));
        }
        if let Some((f, _)) = self.fixed
            && f as usize != n
        {
            return Err(format!("this game is played on a triangle of side {f}, not {n}"));
        }
        let w = n + 1;
        let mut a = 0u128;
        for (r, row) in rows.iter().enumerate() {
            if row.len() != r + 1 {
                return Err(format!("a triangle's row {} has {} cells, not {}", r + 1, r + 1, row.len()));
            }
            for (c, &ch) in row.iter().enumerate() {
                match self.char_of(ch) {
                    Some(0) => {}
                    Some(_) => a |= 1u128 << (r * w + c),
                    None => {
                        return Err(format!(
                            "{ch:?} is not a cell: use {:?} for a peg, or {:?} for an empty hole",
                            self.chars[1], self.chars[0]
                        ));
                    }
                }
            }
        }
        Ok(BPos { rows: n as u8, cols: n as u8, a, b: 0, k: 0, turn: 0 })
    }

    pub(super) fn triangle_text(&self, p: &BPos, sep: &str) -> String {
        let w = p.cols as usize + 1;
        let rows: Vec<String> = (0..p.rows as usize)
            .map(|r| (0..=r).map(|c| self.chars[(p.a >> (r * w + c) & 1) as usize]).collect())
            .collect();
        rows.join(sep)
    }

    /// The page's grid for jumps, tiles and discs (steps are drawn as placed pieces are).
    pub(super) fn moving_board(&self, p: &BPos) -> Option<Board> {
        let (r, c) = (p.rows as usize, p.cols as usize);
        let mut board = match self.moves {
            BoardMove::Jump => {
                let w = c + 1;
                let cells = (0..r * c)
                    .map(|i| {
                        let (y, x) = (i / c, i % c);
                        if !self.inside(p, y as i32, x as i32) {
                            String::new()
                        } else {
                            self.chars[(p.a >> (y * w + x) & 1) as usize].to_string()
                        }
                    })
                    .collect();
                Board::new(r, c, cells)
            }
            BoardMove::Slide => {
                let cells: Vec<String> = (0..r * c).map(|i| self.label(p, i).to_string()).collect();
                let mut b = Board::new(r, c, cells.clone());
                b.clicks = cells.into_iter().map(|s| (s != ".").then_some(s)).collect();
                return Some(b);
            }
            BoardMove::Hanoi => {
                let pegs = self.pegs_text(p, "/");
                let cells = pegs
                    .split('/')
                    .flat_map(|peg| {
                        let mut v: Vec<String> = peg.chars().map(String::from).collect();
                        v.resize(c, ".".into());
                        v
                    })
                    .collect();
                Board::new(r, c, cells)
            }
            _ => return None,
        };
        board.clicks = vec![None; r * c];
        Some(board)
    }
}
