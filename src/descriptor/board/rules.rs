//! The checked rules of a board descriptor and its pieces placed, dropped or laid as dominoes:
//! positions as bitboards, lines, chains, symmetries, moves.

use super::bits::*;
use super::spec::*;
use crate::game::{Board, Kind, Value};

#[derive(Clone)]
pub struct BoardRules {
    pub(in crate::descriptor) fixed: Option<(u8, u8)>,
    pub(in crate::descriptor) shape: BoardShape,
    pub(in crate::descriptor) moves: BoardMove,
    pub(in crate::descriptor) pieces: Pieces,
    /// The default k of `InRow` (a position text may give another: `4x4k3`); 0 without it.
    pub(in crate::descriptor) k: u8,
    pub(in crate::descriptor) connect: bool,
    /// The empty cell, the first player's mark, the second's (the same when shared).
    pub(in crate::descriptor) chars: [char; 3],
    pub(in crate::descriptor) kind: Kind,
    pub(in crate::descriptor) misere: bool,
    /// `Step`: each player's directions (forward first), and whether forward leaves the board.
    pub(in crate::descriptor) steps: [Vec<(i8, i8)>; 2],
    pub(in crate::descriptor) off: bool,
    /// `Gone`: a player with no piece left has won.
    pub(in crate::descriptor) gone: bool,
    /// A puzzle's ends: the goal position, or the number of pieces left.
    pub(in crate::descriptor) goal: Option<BPos>,
    pub(in crate::descriptor) left: Option<u32>,
    /// `Slide`: the tiles' labels (a tile's code is its index + 1; 0 is the blank), and the
    /// goal's labels sorted (every position holds the same tiles).
    pub(in crate::descriptor) labels: Vec<char>,
    pub(in crate::descriptor) tiles: Vec<char>,
    /// Pieces that move on a board of fixed size: its size and the symmetries the rules keep
    /// there (derived once).
    pub(in crate::descriptor) fixed_syms: Option<((u8, u8), Vec<MoveSym>)>,
}

impl BoardRules {
    /// Check the rules: every impossible combination is a one-line message.
    pub fn new(spec: BoardSpec, misere: bool) -> Result<BoardRules, String> {
        let puzzle = matches!(spec.moves, BoardMove::Jump | BoardMove::Slide | BoardMove::Hanoi);
        let fixed = match &spec.size {
            Some(s) => {
                if matches!(spec.moves, BoardMove::Slide | BoardMove::Hanoi) {
                    return Err("the goal gives the board's size: leave `size` out".into());
                }
                let (r, c, k) = if spec.shape == BoardShape::Triangle { triangle_size(s)? } else { parse_size(s)? };
                if k.is_some() {
                    return Err(format!("`size: {s:?}`: k belongs in `ends: [InRow(k)]`"));
                }
                Some((r, c))
            }
            None => None,
        };
        let mut k = 0u8;
        let mut connect = false;
        let (mut gone, mut goal_text, mut left) = (false, None, None);
        for e in &spec.ends {
            match e {
                BoardEnd::InRow(n) => {
                    let n = *n;
                    if n == 0 || n > 15 {
                        return Err(format!("InRow({n}): k must be from 1 to 15"));
                    }
                    if k != 0 {
                        return Err("`ends` says InRow twice: give one k".into());
                    }
                    k = n as u8;
                }
                BoardEnd::Connect => connect = true,
                BoardEnd::Gone => gone = true,
                BoardEnd::Goal(g) => {
                    if goal_text.is_some() {
                        return Err("`ends` says Goal twice: give one goal".into());
                    }
                    goal_text = Some(g.clone());
                }
                BoardEnd::Left(n) => {
                    if *n == 0 {
                        return Err("Left(0): a puzzle ends with at least one piece left".into());
                    }
                    left = Some(*n);
                }
            }
        }
        let domino = matches!(spec.moves, BoardMove::Domino(_));
        if domino && !spec.ends.is_empty() {
            return Err("a domino game ends when no domino fits (the player who cannot move loses): \
                        `ends` must be empty"
                .into());
        }
        if spec.shape == BoardShape::Hex {
            if spec.moves != BoardMove::Place {
                return Err("a Hex board takes `moves: Place` (no gravity, no dominoes on a rhombus)".into());
            }
            if k != 0 {
                return Err("InRow is for rectangles; a Hex board ends with `Connect`".into());
            }
        }
        if spec.shape == BoardShape::Triangle && spec.moves != BoardMove::Jump {
            return Err("a triangular board takes `moves: Jump` (peg solitaire)".into());
        }
        if puzzle {
            if k != 0 || connect || gone {
                return Err("a puzzle ends at its goal: `ends: [Goal(\"...\")]` (or `Left(n)` for jumps), \
                            not InRow, Connect or Gone"
                    .into());
            }
            match (&spec.moves, &goal_text, left) {
                (BoardMove::Jump, None, None) => {
                    return Err("a jumping puzzle needs an end: `ends: [Left(1)]` (one peg left) or \
                                `ends: [Goal(\"...\")]`"
                        .into());
                }
                (BoardMove::Slide | BoardMove::Hanoi, None, _) => {
                    return Err("a sliding or Hanoi puzzle needs its goal: `ends: [Goal(\"...\")]`".into());
                }
                (BoardMove::Slide | BoardMove::Hanoi, _, Some(_)) => {
                    return Err("`Left(n)` counts pegs of a jumping puzzle; this puzzle ends at its `Goal`".into());
                }
                _ => {}
            }
            if matches!(spec.moves, BoardMove::Slide | BoardMove::Hanoi) {
                if spec.shape != BoardShape::Rectangle {
                    return Err("sliding and Hanoi puzzles take no `shape` (their goal gives the board)".into());
                }
                if spec.pieces.is_some() || spec.cells.is_some() {
                    return Err("tiles and discs are written as their labels: `pieces` and `cells` do not apply".into());
                }
            }
            if spec.pieces == Some(Pieces::Own) {
                return Err("a puzzle's pieces are all alike: `pieces: Shared` (or leave it out)".into());
            }
        } else if goal_text.is_some() || left.is_some() {
            return Err("`Goal` and `Left` end puzzles (`moves: Jump`, `Slide` or `Hanoi`)".into());
        }
        if gone && !matches!(spec.moves, BoardMove::Step { .. }) {
            return Err("`Gone` is for pieces that step off the board: `moves: Step(..., off: true)`".into());
        }
        let mut steps: [Vec<(i8, i8)>; 2] = [Vec::new(), Vec::new()];
        let mut off = false;
        if let BoardMove::Step { first, second, off: o } = &spec.moves {
            for (who, dirs) in [("first", first), ("second", second)] {
                if dirs.is_empty() {
                    return Err(format!("Step: the {who} player needs at least one direction (such as `{who}: [N]`)"));
                }
                let mut seen = Vec::new();
                for d in dirs {
                    if seen.contains(d) {
                        return Err(format!("Step: the {who} player's directions list {d:?} twice"));
                    }
                    seen.push(*d);
                }
            }
            if spec.shape != BoardShape::Rectangle {
                return Err("pieces step on a rectangle: leave `shape` out".into());
            }
            if spec.pieces == Some(Pieces::Shared) {
                return Err("Step moves each player's own pieces: `pieces: Own` (or leave it out)".into());
            }
            if gone && !o {
                return Err("`Gone` needs pieces that can leave the board: `Step(..., off: true)`".into());
            }
            steps = [first.iter().map(|d| d.delta()).collect(), second.iter().map(|d| d.delta()).collect()];
            off = *o;
        }
        if connect {
            if spec.shape != BoardShape::Hex {
                return Err("`Connect` joins the sides of a Hex board: add `shape: Hex`".into());
            }
            if spec.pieces == Some(Pieces::Shared) {
                return Err("`Connect` needs each player's own pieces (a chain has an owner): `pieces: Own`".into());
            }
        }
        if let Some((r, c)) = fixed
            && k != 0
            && k > r.max(c)
        {
            return Err(format!("InRow({k}) cannot fit on a {r}x{c} board"));
        }
        let pieces = spec.pieces.unwrap_or(if puzzle { Pieces::Shared } else { Pieces::Own });
        let kind = match (&spec.moves, pieces) {
            (BoardMove::Jump | BoardMove::Slide | BoardMove::Hanoi, _) => Kind::Puzzle,
            (BoardMove::Domino(Orientation::PerPlayer), _) => Kind::Partisan,
            (BoardMove::Domino(Orientation::Either), _) => Kind::Impartial,
            (_, Pieces::Own) => Kind::Partisan,
            (_, Pieces::Shared) => Kind::Impartial,
        };
        let default = match (pieces, domino) {
            (Pieces::Own, _) => ".xo",
            (Pieces::Shared, false) => ".x",
            (Pieces::Shared, true) => ".#",
        };
        let cells = spec.cells.as_deref().unwrap_or(default);
        let chars: Vec<char> = cells.chars().collect();
        let want = if pieces == Pieces::Own { 3 } else { 2 };
        if chars.len() != want {
            return Err(format!(
                "`cells: {cells:?}` must be {want} characters: the empty cell, then {}",
                if want == 3 {
                    if chars.len() == 2 {
                        "the first player's mark and the second's (\".xo\"); with one mark for both players \
                         (Cram, Notakto), write `pieces: Shared`"
                    } else {
                        "the first player's mark and the second's (\".xo\")"
                    }
                } else {
                    "the mark (\".x\")"
                }
            ));
        }
        for (i, &ch) in chars.iter().enumerate() {
            if ch.is_ascii_digit() || ch.is_whitespace() || ch == '/' || chars[..i].contains(&ch) {
                return Err(format!(
                    "`cells: {cells:?}`: {ch:?} cannot be a cell (cells are distinct, and not digits, spaces or '/')"
                ));
            }
        }
        let chars = [chars[0], chars[1], *chars.last().unwrap_or(&chars[1])];
        let mut rules = BoardRules {
            fixed,
            shape: spec.shape,
            moves: spec.moves,
            pieces,
            k,
            connect,
            chars,
            kind,
            misere,
            steps,
            off,
            gone,
            goal: None,
            left,
            labels: Vec::new(),
            tiles: Vec::new(),
            fixed_syms: None,
        };
        if let Some(g) = goal_text {
            if rules.moves == BoardMove::Slide {
                let mut tiles: Vec<char> = g.chars().filter(|&c| !c.is_whitespace() && c != '/' && c != '.').collect();
                tiles.sort_unstable();
                let mut labels = tiles.clone();
                labels.dedup();
                if labels.len() > 31 {
                    return Err(format!("Goal({g:?}): at most 31 different tiles (got {})", labels.len()));
                }
                rules.labels = labels;
                rules.tiles = tiles;
            }
            let goal = rules.parse(&g).map_err(|e| format!("Goal({g:?}): {e}"))?;
            rules.fixed = Some((goal.rows, goal.cols));
            rules.goal = Some(goal);
        }
        if let (Some(n), Some((r, c))) = (left, fixed) {
            let cells = rules.cell_mask(r, c).count_ones();
            if n > cells {
                return Err(format!("Left({n}): a {r}x{c} board has only {cells} cells"));
            }
        }
        if let Some((r, c)) = rules.fixed
            && rules.moving()
        {
            rules.fixed_syms = Some(((r, c), rules.derive_symmetries(r, c)));
        }
        Ok(rules)
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// No end but the stalemate rule (no line to make, no chain, no pieces to lose).
    pub(in crate::descriptor) fn no_ends(&self) -> bool {
        self.k == 0 && !self.connect && !self.gone && self.goal.is_none() && self.left.is_none()
    }

    pub(in crate::descriptor) fn domino(&self) -> bool {
        matches!(self.moves, BoardMove::Domino(_))
    }

    pub(in crate::descriptor) fn cells_per_move(&self) -> u32 {
        if self.domino() { 2 } else { 1 }
    }

    /// Whose turn the marks imply when the first player began: 0 or 1.
    pub(in crate::descriptor) fn implied_turn(&self, a: u128, b: u128) -> u8 {
        if matches!(self.moves, BoardMove::Step { .. }) {
            // Pieces that move keep their number: the turn is written when it is the second's.
            return 0;
        }
        match self.pieces {
            Pieces::Own => u8::from(a.count_ones() != b.count_ones()),
            Pieces::Shared => ((a.count_ones() / self.cells_per_move()) & 1) as u8,
        }
    }

    pub(in crate::descriptor) fn char_of(&self, ch: char) -> Option<u8> {
        let same = |x: char| x == ch || (x.is_alphabetic() && x.to_lowercase().eq(ch.to_lowercase()));
        (0..3u8).find(|&i| same(self.chars[i as usize]))
    }

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
    pub(in crate::descriptor) fn parse_cells(&self, text: &str) -> Result<BPos, String> {
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
    pub(in crate::descriptor) fn reachable(&self, p: &BPos) -> Result<(), String> {
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

    pub(in crate::descriptor) fn rows_text(&self, p: &BPos, sep: &str) -> String {
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
