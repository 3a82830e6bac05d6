//! Reading, writing and playing a board: the position text, the moves of pieces placed or
//! dropped and of dominoes (pieces that move are `moving.rs`'s), the ends, the parts of a
//! domino board and the symmetries of the square.

use super::bits::{BITS, centre_first, flips, full_mask, has_line, joined, parse_size, shl, transform, transpose};
use super::rules::{BMove, BPos, BoardRules};
use super::vocab::{BoardMove, BoardShape, Orientation, Pieces};
use crate::game::{Board, Kind, Value};

// --- Placing pieces, and what every board shares: text, moves, ends, symmetry ---------------

impl BoardRules {
    /// Position text: `RxC` (the empty board; `RxCkK` with k), or rows top to bottom
    /// separated by `/` (after `RxC/` or alone), one character a cell, and then, where the
    /// marks do not imply it, the player to move (` x` or ` o`).
    pub fn parse(&self, text: &str) -> Result<BPos, String> {
        let p = match self.moves {
            BoardMove::Slide => self.parse_tiles(text)?,
            BoardMove::Hanoi => self.parse_pegs(text)?,
            _ if self.shape == BoardShape::Triangle => self.parse_triangle(text)?,
            _ => self.parse_cells(text)?,
        };
        if let Some(g) = &self.goal
            && (g.rows, g.cols) != (p.rows, p.cols)
        {
            return Err(match self.moves {
                BoardMove::Hanoi => format!("this puzzle has {} discs on {} pegs, as its goal", g.cols, g.rows),
                _ if self.shape == BoardShape::Triangle => {
                    format!("this puzzle's board is a triangle of side {}", g.rows)
                }
                _ => format!("this puzzle's board is {}x{}, as its goal", g.rows, g.cols),
            });
        }
        Ok(p)
    }

    /// Rectangles and Hex boards: see [`BoardRules::parse`].
    pub(super) fn parse_cells(&self, text: &str) -> Result<BPos, String> {
        let mut t = text.trim().replace(['\n', '\r'], "/");
        let mut turn = None;
        if let Some((body, last)) = t.rsplit_once(char::is_whitespace)
            && self.kind != Kind::Puzzle
            && matches!(last.to_ascii_lowercase().as_str(), "x" | "o")
        {
            turn = Some(u8::from(last.eq_ignore_ascii_case("o")));
            t = body.trim().to_string();
        }
        let t: String = t.chars().filter(|c| !c.is_whitespace()).collect();
        let (head, body) = if t.starts_with(|c: char| c.is_ascii_digit()) {
            match t.split_once('/') {
                Some((h, b)) => (Some(h.to_string()), b.to_string()),
                None => (Some(t.clone()), String::new()),
            }
        } else {
            (None, t.clone())
        };
        let mut size = self.fixed;
        let mut k = self.k;
        if let Some(h) = &head {
            let (r, c, hk) = parse_size(h)?;
            if let Some(f) = self.fixed
                && f != (r, c)
            {
                return Err(format!("this game is played on a {}x{} board, not {r}x{c}", f.0, f.1));
            }
            if let Some(hk) = hk {
                if self.k == 0 {
                    return Err(format!("{h:?}: this game has no k in a row"));
                }
                k = hk;
            }
            size = Some((r, c));
        }
        let mut rows: Vec<Vec<char>> = if body.is_empty() {
            Vec::new()
        } else {
            body.trim_end_matches('/').split('/').map(|r| r.chars().collect()).collect()
        };
        if head.is_none() && rows.is_empty() {
            return Err("an empty position: write the size (3x3) or the rows (.../.../...)".into());
        }
        if let (Some((r, c)), 1) = (size, rows.len())
            && rows[0].len() == r as usize * c as usize
            && r > 1
        {
            // One line of every cell, row by row ("x.o......").
            rows = rows[0].chunks(c as usize).map(<[char]>::to_vec).collect();
        }
        let (r, c) = match size {
            Some(s) => s,
            None => {
                let c = rows[0].len();
                if c == 0 {
                    return Err("a row with no cells".into());
                }
                let (r, c, _) = parse_size(&format!("{}x{c}", rows.len()))?;
                (r, c)
            }
        };
        let w = c as usize + 1;
        let (mut a, mut b) = (0u128, 0u128);
        if !rows.is_empty() {
            if rows.len() != r as usize {
                return Err(format!("a {r}x{c} board has {r} rows separated by '/', got {}", rows.len()));
            }
            for (i, row) in rows.iter().enumerate() {
                if row.len() != c as usize {
                    return Err(format!("row {} has {} cells, not {c}", i + 1, row.len()));
                }
                for (j, &ch) in row.iter().enumerate() {
                    let bit = 1u128 << (i * w + j);
                    match self.char_of(ch) {
                        Some(0) => {}
                        Some(1) => a |= bit,
                        Some(_) => b |= bit,
                        None => {
                            let [e, x, o] = self.chars;
                            let marks = if x == o { format!("{x:?}") } else { format!("{x:?} or {o:?}") };
                            return Err(format!("{ch:?} is not a cell: use {marks}, or {e:?} for an empty cell"));
                        }
                    }
                }
            }
        }
        if self.moves == BoardMove::Drop {
            let below = (a | b) >> w;
            let floating = (a | b) & !below & full_mask(r - 1, c);
            if floating != 0 {
                let i = floating.trailing_zeros() as usize;
                return Err(format!("the piece at row {}, column {} floats above an empty cell", i / w + 1, i % w + 1));
            }
        }
        if k != 0 && k > r.max(c) {
            return Err(format!("{k} in a row cannot fit on a {r}x{c} board"));
        }
        let turn = if self.kind != Kind::Partisan {
            0
        } else {
            match turn {
                Some(t) => t,
                None => {
                    if self.pieces == Pieces::Own && !self.domino() && !matches!(self.moves, BoardMove::Step { .. }) {
                        let (x, o) = (a.count_ones(), b.count_ones());
                        if x != o && x != o + 1 {
                            return Err(format!(
                                "the first player moves first, so {:?} has as many pieces as {:?} or one more \
                                 ({x} and {o}); write \" o\" or \" x\" after the board to say who moves",
                                self.chars[1], self.chars[2]
                            ));
                        }
                    }
                    self.implied_turn(a, b)
                }
            }
        };
        let p = BPos { rows: r, cols: c, a, b, k: if self.k == 0 { 0 } else { k }, turn };
        self.reachable(&p)?;
        Ok(p)
    }

    /// The start a descriptor without `start:` gets: the empty board of its fixed size, for
    /// games whose pieces are placed, dropped or dominoes (pieces that move need them set out).
    pub fn empty_start(&self) -> Option<String> {
        let (r, c) = self.fixed?;
        (matches!(self.moves, BoardMove::Place | BoardMove::Drop | BoardMove::Domino(_))
            && self.shape != BoardShape::Triangle)
            .then(|| format!("{r}x{c}"))
    }

    /// A two-player position no game reaches: the game ends when a player makes the line
    /// (joins their sides, moves their last piece off), so the player to move never has one.
    /// Only where each player has pieces of their own (with shared marks a line is anyone's).
    pub(super) fn reachable(&self, p: &BPos) -> Result<(), String> {
        if self.kind != Kind::Partisan || self.pieces != Pieces::Own {
            return Ok(());
        }
        let first = p.turn == 0;
        let (mover, mark) = if first { (p.a, self.chars[1]) } else { (p.b, self.chars[2]) };
        let ended = if p.k != 0 && has_line(mover, p.cols, p.k) {
            format!("{mark:?} has {} in a row", p.k)
        } else if self.connect && joined(mover, p.rows, p.cols, first) {
            format!("{mark:?} has joined its sides")
        } else if self.gone && mover == 0 {
            format!("{mark:?} has no piece left")
        } else {
            return Ok(());
        };
        Err(format!(
            "{ended} but is to move: the game ended on the move that made it, so no game reaches this position"
        ))
    }

    pub(super) fn rows_text(&self, p: &BPos, sep: &str) -> String {
        let w = p.cols as usize + 1;
        let mut out = Vec::new();
        for r in 0..p.rows as usize {
            out.push(
                (0..p.cols as usize)
                    .map(|c| {
                        let bit = 1u128 << (r * w + c);
                        self.chars[if p.a & bit != 0 {
                            1
                        } else if p.b & bit != 0 {
                            2
                        } else {
                            0
                        }]
                    })
                    .collect::<String>(),
            );
        }
        out.join(sep)
    }

    pub fn format(&self, p: &BPos) -> String {
        match self.moves {
            BoardMove::Slide => return self.tiles_text(p, "/"),
            BoardMove::Hanoi => return self.pegs_text(p, "/"),
            _ if self.shape == BoardShape::Triangle => return self.triangle_text(p, "/"),
            _ => {}
        }
        let mut s = self.rows_text(p, "/");
        if self.fixed.is_none() && self.k != 0 {
            s = format!("{}x{}k{}/{s}", p.rows, p.cols, p.k);
        }
        if self.kind == Kind::Partisan && p.turn != self.implied_turn(p.a, p.b) {
            s.push_str(if p.turn == 0 { " x" } else { " o" });
        }
        s
    }

    pub fn show(&self, p: &BPos) -> String {
        match self.moves {
            BoardMove::Slide => return self.tiles_text(p, "\n"),
            BoardMove::Hanoi => return self.pegs_text(p, "\n"),
            // Each row half a cell further left than the next: the triangle drawn.
            _ if self.shape == BoardShape::Triangle => {
                let rows = self.triangle_text(p, "/");
                let n = p.rows as usize;
                let lines = rows.split('/').enumerate().map(|(r, row)| {
                    let spaced: Vec<String> = row.chars().map(String::from).collect();
                    format!("{}{}", " ".repeat(n - 1 - r), spaced.join(" "))
                });
                return lines.collect::<Vec<_>>().join("\n");
            }
            _ => {}
        }
        let mut s = self.rows_text(p, "\n");
        if self.moves == BoardMove::Drop {
            s.push('\n');
            s.extend((0..p.cols).map(|c| char::from_digit(u32::from(c + 1) % 10, 10).unwrap_or(' ')));
        }
        s
    }

    pub fn board(&self, p: &BPos) -> Board {
        if let Some(b) = self.moving_board(p) {
            return b;
        }
        let text = self.rows_text(p, "");
        let (r, c) = (p.rows as usize, p.cols as usize);
        let cells = text.chars().map(|ch| match (self.domino(), ch == self.chars[0]) {
            (true, true) => ".".to_string(),
            (true, false) => "#".to_string(),
            (false, _) => ch.to_string(),
        });
        let mut board = Board::new(r, c, cells.collect());
        match self.moves {
            BoardMove::Drop => board.clicks = (0..r * c).map(|i| Some(format!("{}", i % c + 1))).collect(),
            BoardMove::Domino(_) | BoardMove::Step { .. } => board.clicks = vec![None; r * c],
            _ => {}
        }
        board
    }

    pub fn to_move(&self, p: &BPos) -> Option<usize> {
        (self.kind == Kind::Partisan).then_some(p.turn as usize)
    }

    pub fn moves(&self, p: &BPos) -> Vec<BMove> {
        if self.moving() {
            let mut out = Vec::new();
            self.moving_moves(p, |m| out.push(m));
            return out;
        }
        let full = full_mask(p.rows, p.cols);
        let empty = full & !(p.a | p.b);
        let w = p.cols as usize + 1;
        let mut out = Vec::new();
        let mut push_all = |mut bits: u128, d: usize| {
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                out.push(BMove(i as u8, (i + d) as u8));
            }
        };
        match self.moves {
            BoardMove::Place => push_all(empty, 0),
            BoardMove::Drop => {
                // The lowest empty cell of each column: empty, with no empty cell below.
                let floor = empty & !(empty >> w);
                push_all(floor, 0);
            }
            BoardMove::Domino(o) => {
                let across = empty & (empty >> 1);
                let down = empty & (empty >> w);
                match (o, p.turn) {
                    (Orientation::Either, _) => {
                        push_all(across, 1);
                        push_all(down, w);
                    }
                    (Orientation::PerPlayer, 0) => push_all(down, w),
                    (Orientation::PerPlayer, _) => push_all(across, 1),
                }
            }
            _ => {}
        }
        out
    }

    pub fn play(&self, p: &BPos, m: BMove) -> Option<BPos> {
        if self.moving() {
            // A move from elsewhere (a person, the page) is checked against the list first.
            let mut legal = false;
            self.moving_moves(p, |x| legal |= x == m);
            return legal.then(|| self.apply(p, m));
        }
        if m.0 as usize >= BITS || m.1 as usize >= BITS {
            return None;
        }
        let cells = 1u128 << m.0 | 1u128 << m.1;
        if cells & !full_mask(p.rows, p.cols) != 0 || (p.a | p.b) & cells != 0 {
            return None;
        }
        let mut q = *p;
        if self.pieces == Pieces::Shared || p.turn == 0 {
            q.a |= cells;
        } else {
            q.b |= cells;
        }
        if self.kind != Kind::Impartial {
            q.turn ^= 1;
        }
        Some(q)
    }

    /// How many moves `moves` lists, counted without listing them where that is cheap.
    pub fn move_count(&self, p: &BPos) -> usize {
        let empty = full_mask(p.rows, p.cols) & !(p.a | p.b);
        let w = p.cols as usize + 1;
        let (across, down) = ((empty & (empty >> 1)).count_ones(), (empty & (empty >> w)).count_ones());
        match self.moves {
            BoardMove::Place => empty.count_ones() as usize,
            BoardMove::Drop => (empty & !(empty >> w)).count_ones() as usize,
            BoardMove::Domino(Orientation::Either) => (across + down) as usize,
            BoardMove::Domino(Orientation::PerPlayer) if p.turn == 0 => down as usize,
            BoardMove::Domino(Orientation::PerPlayer) => across as usize,
            #[allow(unreachable_patterns)] // moves added later are counted by listing them
            _ => self.moves(p).len(),
        }
    }

    /// The positions one move away. Pieces placed or dropped come nearest the centre first
    /// (the value-first search tries children in the order listed, among those with as
    /// many replies: in Hex, Connect-Four and tic-tac-toe the central cells are the strong
    /// ones, and a winning move found first spares the search of its siblings); `moves`
    /// keeps reading order.
    pub fn children(&self, p: &BPos) -> Vec<BPos> {
        if self.moving() {
            let mut out = Vec::new();
            self.moving_moves(p, |m| out.push(self.apply(p, m)));
            return out;
        }
        if matches!(self.moves, BoardMove::Place | BoardMove::Drop) {
            let empty = full_mask(p.rows, p.cols) & !(p.a | p.b);
            let w = p.cols as usize + 1;
            let targets = if self.moves == BoardMove::Drop { empty & !(empty >> w) } else { empty };
            let mut out = Vec::with_capacity(targets.count_ones() as usize);
            centre_first(self.shape, p.rows, p.cols, self.moves == BoardMove::Drop, |order| {
                for &i in order {
                    if targets >> i & 1 != 0 {
                        out.extend(self.play(p, BMove(i, i)));
                    }
                }
            });
            return out;
        }
        self.moves(p).into_iter().filter_map(|m| self.play(p, m)).collect()
    }

    pub fn move_name(&self, p: &BPos, m: BMove) -> String {
        let w = p.cols as usize + 1;
        let (r0, c0, r1, c1) = (m.0 as usize / w, m.0 as usize % w, m.1 as usize / w, m.1 as usize % w);
        match self.moves {
            BoardMove::Drop => format!("{}", c0 + 1),
            BoardMove::Place => format!("{r0}:{c0}"),
            BoardMove::Domino(_) => format!("{r0}:{c0}-{r1}:{c1}"),
            _ => self.moving_name(p, m),
        }
    }

    /// The value for the player to move when the game is over: the player who just moved
    /// made k in a row or joined their sides (a loss here, a win under misère play), or the
    /// board is full (a tie). A domino game ends by having no move (the stalemate rule).
    #[inline]
    pub fn primitive(&self, p: &BPos) -> Option<Value> {
        if self.kind == Kind::Puzzle {
            return self.solved(p).then_some(Value::Win);
        }
        if self.gone && (if p.turn == 1 { p.a } else { p.b }) == 0 {
            // The player who just moved has no piece left: they have won, whatever `end` says.
            return Some(Value::Lose);
        }
        let last = if self.pieces == Pieces::Shared || p.turn == 1 { p.a } else { p.b };
        let made = (p.k != 0 && has_line(last, p.cols, p.k))
            || (self.connect && joined(last, p.rows, p.cols, self.pieces == Pieces::Shared || p.turn == 1));
        if made {
            return Some(if self.misere { Value::Win } else { Value::Lose });
        }
        if !self.domino() && !self.moving() && (p.a | p.b) == full_mask(p.rows, p.cols) {
            return Some(Value::Tie);
        }
        None
    }

    /// An impartial domino game under normal play is the sum of its 4-connected regions of
    /// empty cells (a domino never crosses a covered cell).
    pub fn splits(&self) -> bool {
        self.kind == Kind::Impartial && self.domino() && !self.misere
    }

    pub fn split(&self, p: &BPos) -> Option<Vec<BPos>> {
        if !self.splits() {
            return None;
        }
        let full = full_mask(p.rows, p.cols);
        let w = p.cols as usize + 1;
        let mut empty = full & !(p.a | p.b);
        let mut parts = Vec::new();
        while empty != 0 {
            let mut region = empty & empty.wrapping_neg();
            loop {
                let next = (region | region << 1 | region >> 1 | shl(region, w) | region >> w) & empty;
                if next == region {
                    break;
                }
                region = next;
            }
            empty &= !region;
            // A region with no two adjacent cells is worth nothing: leave it out.
            if region & (region >> 1 | region >> w) != 0 {
                parts.push(BPos { a: full & !region, ..*p });
            }
        }
        Some(parts)
    }

    /// The symmetries the rules keep: the 8 of the square (4 on a rectangle that is not
    /// square: the two mirrors and the half turn) for pieces and dominoes either way; the
    /// mirrors and the half turn for Domineering (a quarter turn would swap the players'
    /// directions); the left-right mirror with gravity; the half turn on a Hex rhombus.
    pub(in crate::descriptor) fn symmetries(&self, rows: u8, cols: u8) -> &'static [u8] {
        match (self.shape, &self.moves) {
            (BoardShape::Hex, _) => &[0, 3],
            (_, BoardMove::Drop) => &[0, 2],
            (_, BoardMove::Domino(Orientation::PerPlayer)) => &[0, 1, 2, 3],
            // The quarter turns make a rows × cols board cols × rows: only where that fits.
            (_, BoardMove::Domino(Orientation::Either)) if cols as usize * (rows as usize + 1) <= BITS => {
                &[0, 1, 2, 3, 4, 5, 6, 7]
            }
            (_, BoardMove::Domino(Orientation::Either)) => &[0, 1, 2, 3],
            _ if rows == cols => &[0, 1, 2, 3, 4, 5, 6, 7],
            _ => &[0, 1, 2, 3],
        }
    }

    /// One representative of the positions equal under the symmetries; a domino board is
    /// also cut to the rows and columns that hold empty cells (covered cells are walls).
    #[inline]
    pub fn canonical(&self, p: &BPos) -> BPos {
        if self.moving() {
            return self.moving_canonical(p);
        }
        let mut p = *p;
        if self.domino() {
            p = crop(&p);
        }
        let mut best = p;
        let syms = self.symmetries(p.rows, p.cols);
        // The images that transpose are the flips of one transposed board: one transpose
        // (cell by cell) instead of four.
        let turned = (syms.len() == 8).then(|| BPos {
            rows: p.cols,
            cols: p.rows,
            a: transpose(p.a, p.rows, p.cols),
            b: transpose(p.b, p.rows, p.cols),
            ..p
        });
        // The flips of each base board (itself, and transposed where the symmetries turn it)
        // made together: one flip of the rows serves four images.
        if syms.len() < 4 {
            for &t in &syms[1..] {
                let q = BPos { a: transform(p.a, p.rows, p.cols, t), b: transform(p.b, p.rows, p.cols, t), ..p };
                best = best.min(q);
            }
            return best;
        }
        let images = |from: &BPos| (flips(from.a, from.rows, from.cols), flips(from.b, from.rows, from.cols));
        let plain = images(&p);
        let across = turned.as_ref().map(images);
        for &t in &syms[1..] {
            let (from, (a, b)) = match (t & 4 != 0, &turned, &across) {
                (true, Some(q), Some(im)) => (q, im),
                _ => (&p, &plain),
            };
            let q = BPos { a: a[(t & 3) as usize], b: b[(t & 3) as usize], ..*from };
            if q < best {
                best = q;
            }
        }
        best
    }

    /// Roughly how many positions a search meets: 3 (or 2) states a cell.
    pub fn search_size(&self, p: &BPos) -> f64 {
        if self.moving() {
            return self.moving_size(p);
        }
        let empty = (full_mask(p.rows, p.cols) & !(p.a | p.b)).count_ones() as f64;
        let states = if self.pieces == Pieces::Own && !self.domino() { 3f64 } else { 2f64 };
        states.powf(empty) * empty.max(1.0)
    }
}

/// A domino board cut to the rows and columns holding empty cells (one covered cell when
/// none is left): the covered cells around it change nothing.
fn crop(p: &BPos) -> BPos {
    let (rows, cols) = (p.rows as usize, p.cols as usize);
    let w = cols + 1;
    let empty = full_mask(p.rows, p.cols) & !(p.a | p.b);
    if empty == 0 {
        return BPos { rows: 1, cols: 1, a: 1, b: 0, ..*p };
    }
    // The rows holding empty cells, and the columns (the rows ORed together).
    let row = (1u128 << cols) - 1;
    let (mut r0, mut r1, mut across) = (rows, 0, 0u128);
    for r in 0..rows {
        let bits = (empty >> (r * w)) & row;
        if bits != 0 {
            r0 = r0.min(r);
            r1 = r;
            across |= bits;
        }
    }
    let (c0, c1) = (across.trailing_zeros() as usize, 127 - across.leading_zeros() as usize);
    let (nr, nc) = (r1 - r0 + 1, c1 - c0 + 1);
    if (nr, nc) == (rows, cols) {
        return *p;
    }
    let nw = nc + 1;
    let row_mask = (1u128 << nc) - 1;
    let mut e = 0u128;
    for r in 0..nr {
        e |= ((empty >> ((r + r0) * w + c0)) & row_mask) << (r * nw);
    }
    let nfull = full_mask(nr as u8, nc as u8);
    BPos { rows: nr as u8, cols: nc as u8, a: nfull & !e, b: 0, ..*p }
}

#[cfg(test)]
mod tests {
    use super::super::bits::naive;
    use super::super::vocab::{BoardMove, BoardShape, BoardSpec, Orientation, Pieces};
    use super::*;

    #[test]
    fn cram_uses_a_quarter_turn_only_where_the_turned_board_fits() {
        let cram = BoardRules::new(
            BoardSpec {
                size: None,
                shape: BoardShape::Rectangle,
                moves: BoardMove::Domino(Orientation::Either),
                pieces: Some(Pieces::Shared),
                ends: Vec::new(),
                cells: Some("#.".into()),
            },
            false,
        )
        .unwrap();
        // 8×15 fits (8 rows of 16 bits) but turned it is 15 rows of 9 = 135 bits: no quarter
        // turn. 4×5 turned is 5 rows of 5: all 8. Every symmetry used maps cells as by hand.
        assert_eq!(cram.symmetries(8, 15).len(), 4);
        assert_eq!(cram.symmetries(1, 100).len(), 4);
        assert_eq!(cram.symmetries(4, 5).len(), 8);
        let mut rng = fastrand::Rng::with_seed(9);
        for (rows, cols) in [(8u8, 15u8), (1, 100), (9, 12), (4, 5)] {
            for _ in 0..20 {
                let x = (u128::from(rng.u64(..)) << 64 | u128::from(rng.u64(..))) & full_mask(rows, cols);
                for &t in cram.symmetries(rows, cols) {
                    assert_eq!(transform(x, rows, cols, t), naive(x, rows, cols, t), "{rows}x{cols} t={t}");
                }
            }
        }
    }
}
