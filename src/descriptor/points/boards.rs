//! The named boards of a points game, as points and the straight lines through them.

use serde::Deserialize;

/// Which board a points game is played on (`board:` in the descriptor).
#[derive(Debug, Deserialize, Clone)]
pub enum BoardSpec {
    /// n points in a row, one line (Toads and Frogs).
    Row(usize),
    /// rows × cols points; the lines are the rows and columns, and with `diagonals` every
    /// diagonal too (Othello).
    Grid {
        rows: usize,
        cols: usize,
        #[serde(default)]
        diagonals: bool,
    },
    /// The board of Three (3), Six (6) or Nine (9) Men's Morris.
    Morris(usize),
    /// The cross of Fox and Geese and peg solitaire: the points of an n×n grid (n odd, 3 to
    /// 11) in its middle three rows or middle three columns; `Cross(7)` is the 33-point
    /// English board. The lines are the rows and the columns.
    Cross(usize),
    /// Kaooa's ten-point star: outer tips 0-4, inner pentagon 5-9 (GamesmanOne's numbering);
    /// the five lines are [i, 5+i, 5+(i+1)%5, (i+2)%5].
    Star,
    /// Points 0..points and the lines through them, each a list of points in order.
    Lines { points: usize, lines: Vec<Vec<usize>> },
}

/// A board made: its points, its lines, its rows and columns when it is a full grid, each
/// point's (row, column) where the board has them (for `towards`), and the rows its text is
/// written in (points in each row, and the row's indent when drawn), where it has rows.
pub struct Layout {
    pub points: usize,
    pub lines: Vec<Vec<usize>>,
    pub grid: Option<(usize, usize)>,
    pub coords: Option<Vec<(i32, i32)>>,
    pub rows: Vec<(usize, usize)>,
}

/// The rows of a full grid's text.
fn grid_rows(rows: usize, cols: usize) -> Vec<(usize, usize)> {
    vec![(cols, 0); rows]
}

/// `Cross(n)`: each point's (row, column), numbered row by row, and the lines.
fn cross(n: usize) -> (Vec<(i32, i32)>, Vec<Vec<usize>>) {
    let k = (n - 3) / 2;
    let on = |r: usize, c: usize| (k..k + 3).contains(&r) || (k..k + 3).contains(&c);
    let at: Vec<(i32, i32)> = (0..n)
        .flat_map(|r| (0..n).map(move |c| (r, c)))
        .filter(|&(r, c)| on(r, c))
        .map(|(r, c)| (r as i32, c as i32))
        .collect();
    let index = |r: usize, c: usize| at.iter().position(|&p| p == (r as i32, c as i32));
    let mut lines = Vec::new();
    for i in 0..n {
        let row: Vec<usize> = (0..n).filter_map(|c| index(i, c)).collect();
        let col: Vec<usize> = (0..n).filter_map(|r| index(r, i)).collect();
        lines.extend([row, col]);
    }
    (at, lines)
}

/// The most points a board may have: a position is two 64-bit masks.
pub const MAX_POINTS: usize = 64;

fn grid_lines(rows: usize, cols: usize, diagonals: bool) -> Vec<Vec<usize>> {
    let at = |r: usize, c: usize| r * cols + c;
    let mut lines: Vec<Vec<usize>> = (0..rows).map(|r| (0..cols).map(|c| at(r, c)).collect()).collect();
    lines.extend((0..cols).map(|c| (0..rows).map(|r| at(r, c)).collect()));
    if diagonals {
        // Down-right diagonals start on the top row or the left column; down-left ones on
        // the top row or the right column.
        let starts = (0..cols).map(|c| (0, c)).chain((1..rows).map(|r| (r, 0)));
        for (r, c) in starts {
            lines.push((0..).map_while(|k| (r + k < rows && c + k < cols).then(|| at(r + k, c + k))).collect());
        }
        let starts = (0..cols).map(|c| (0, c)).chain((1..rows).map(|r| (r, cols - 1)));
        for (r, c) in starts {
            lines.push((0..).map_while(|k| (r + k < rows && k <= c).then(|| at(r + k, c - k))).collect());
        }
    }
    lines.retain(|l| l.len() >= 2);
    lines
}

/// Six and Nine Men's Morris: each point's place on a 5×5 or 7×7 grid, and the lines.
const SIX_AT: [(i32, i32); 16] = [
    (0, 0),
    (0, 2),
    (0, 4),
    (1, 1),
    (1, 2),
    (1, 3),
    (2, 0),
    (2, 1),
    (2, 3),
    (2, 4),
    (3, 1),
    (3, 2),
    (3, 3),
    (4, 0),
    (4, 2),
    (4, 4),
];
const SIX_LINES: [&[usize]; 12] = [
    &[0, 1, 2],
    &[3, 4, 5],
    &[10, 11, 12],
    &[13, 14, 15],
    &[0, 6, 13],
    &[3, 7, 10],
    &[5, 8, 12],
    &[2, 9, 15],
    &[1, 4],
    &[6, 7],
    &[8, 9],
    &[11, 14],
];
const NINE_AT: [(i32, i32); 24] = [
    (0, 0),
    (0, 3),
    (0, 6),
    (1, 1),
    (1, 3),
    (1, 5),
    (2, 2),
    (2, 3),
    (2, 4),
    (3, 0),
    (3, 1),
    (3, 2),
    (3, 4),
    (3, 5),
    (3, 6),
    (4, 2),
    (4, 3),
    (4, 4),
    (5, 1),
    (5, 3),
    (5, 5),
    (6, 0),
    (6, 3),
    (6, 6),
];
const NINE_LINES: [[usize; 3]; 16] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [9, 10, 11],
    [12, 13, 14],
    [15, 16, 17],
    [18, 19, 20],
    [21, 22, 23],
    [0, 9, 21],
    [3, 10, 18],
    [6, 11, 15],
    [1, 4, 7],
    [16, 19, 22],
    [8, 12, 17],
    [5, 13, 20],
    [2, 14, 23],
];

impl BoardSpec {
    /// The board's points and lines, or why it cannot be made.
    pub fn layout(&self) -> Result<Layout, String> {
        let grid_coords =
            |rows: usize, cols: usize| Some((0..rows * cols).map(|i| ((i / cols) as i32, (i % cols) as i32)).collect());
        let l = match self {
            BoardSpec::Row(n) if *n > MAX_POINTS => {
                return Err(format!("a row of {n} points: a board has at most {MAX_POINTS}"));
            }
            BoardSpec::Row(n) => Layout {
                points: *n,
                lines: vec![(0..*n).collect()],
                grid: None,
                coords: grid_coords(1, *n),
                rows: Vec::new(),
            },
            BoardSpec::Grid { rows, cols, diagonals } => {
                if rows.saturating_mul(*cols) > MAX_POINTS {
                    return Err(format!("a {rows}×{cols} grid has more than the {MAX_POINTS} points a board may have"));
                }
                Layout {
                    points: rows * cols,
                    lines: grid_lines(*rows, *cols, *diagonals),
                    grid: Some((*rows, *cols)),
                    coords: grid_coords(*rows, *cols),
                    rows: grid_rows(*rows, *cols),
                }
            }
            BoardSpec::Morris(3) => {
                let mut lines = grid_lines(3, 3, false);
                lines.extend([vec![0, 4, 8], vec![2, 4, 6]]);
                Layout { points: 9, lines, grid: Some((3, 3)), coords: grid_coords(3, 3), rows: grid_rows(3, 3) }
            }
            BoardSpec::Morris(6) => Layout {
                points: 16,
                lines: SIX_LINES.iter().map(|l| l.to_vec()).collect(),
                grid: None,
                coords: Some(SIX_AT.to_vec()),
                rows: Vec::new(),
            },
            BoardSpec::Morris(9) => Layout {
                points: 24,
                lines: NINE_LINES.iter().map(|l| l.to_vec()).collect(),
                grid: None,
                coords: Some(NINE_AT.to_vec()),
                rows: Vec::new(),
            },
            BoardSpec::Morris(n) => {
                return Err(format!("there is no Morris({n}) board: Morris(3), Morris(6) or Morris(9)"));
            }
            BoardSpec::Cross(n) if *n < 3 || *n > 11 || n % 2 == 0 => {
                return Err(format!("there is no Cross({n}) board: the width is odd, 3 to 11 (Cross(7): 33 points)"));
            }
            BoardSpec::Cross(n) => {
                let (at, lines) = cross(*n);
                let k = (n - 3) / 2;
                let rows = (0..*n).map(|r| if (k..k + 3).contains(&r) { (*n, 0) } else { (3, k) }).collect();
                Layout { points: at.len(), lines, grid: None, coords: Some(at), rows }
            }
            BoardSpec::Star => Layout {
                points: 10,
                lines: (0..5).map(|i| vec![i, 5 + i, 5 + (i + 1) % 5, (i + 2) % 5]).collect(),
                grid: None,
                coords: None,
                rows: Vec::new(),
            },
            BoardSpec::Lines { points, lines } => {
                if *points > MAX_POINTS {
                    return Err(format!("{points} points: a board has at most {MAX_POINTS}"));
                }
                for (k, line) in lines.iter().enumerate() {
                    if line.len() < 2 {
                        return Err(format!("line {k} ({line:?}) has fewer than 2 points"));
                    }
                    if let Some(&p) = line.iter().find(|&&p| p >= *points) {
                        return Err(format!(
                            "line {k} ({line:?}) goes through point {p}, but the board's points are 0 to {}",
                            points.saturating_sub(1)
                        ));
                    }
                    if let Some(p) = line.iter().find(|&&p| line.iter().filter(|&&q| q == p).count() > 1) {
                        return Err(format!("line {k} ({line:?}) goes through point {p} twice"));
                    }
                }
                Layout { points: *points, lines: lines.clone(), grid: None, coords: None, rows: Vec::new() }
            }
        };
        if l.points == 0 || l.points > MAX_POINTS {
            return Err(format!("a board has 1 to {MAX_POINTS} points, not {}", l.points));
        }
        Ok(l)
    }
}
