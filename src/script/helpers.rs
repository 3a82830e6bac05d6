//! Native helpers registered into every script engine: the `Grid` type and heap lists.
//! `docs/scripting.md` lists them for script writers.

use crate::grid::{Grid, Segment};
use rhai::{Array, Dynamic, Engine, EvalAltResult, ImmutableString};

type Res<T> = Result<T, Box<EvalAltResult>>;

fn index(v: i64, len: usize, what: &str) -> Res<usize> {
    if v < 0 || v as usize >= len {
        return Err(format!("{what} {v} is outside 0..{len}").into());
    }
    Ok(v as usize)
}

fn cell(g: &Grid, r: i64, c: i64) -> Res<(usize, usize)> {
    Ok((index(r, g.rows(), "row")?, index(c, g.cols(), "column")?))
}

fn size(v: i64, what: &str) -> Res<usize> {
    if !(0..=4096).contains(&v) {
        return Err(format!("a grid's {what} must be between 0 and 4096, not {v}").into());
    }
    Ok(v as usize)
}

fn segment(g: &Grid, seg: &Array) -> Res<Segment> {
    let bad = || -> Box<EvalAltResult> {
        format!("a segment is [r0, c0, r1, c1] within one row or column, not {seg:?}").into()
    };
    if seg.len() != 4 {
        return Err(bad());
    }
    let mut s = [0usize; 4];
    for (i, v) in seg.iter().enumerate() {
        let v = v.as_int().map_err(|_| bad())?;
        s[i] = index(v, if i % 2 == 0 { g.rows() } else { g.cols() }, if i % 2 == 0 { "row" } else { "column" })?;
    }
    if !(s[0] == s[2] && s[1] <= s[3] || s[1] == s[3] && s[0] <= s[2]) {
        return Err(bad());
    }
    Ok(s)
}

/// Refuse to list more segments than a script array may hold (a row of 100,000 tokens has
/// five billion), before listing them.
fn check_segments(g: &Grid) -> Res<()> {
    check_segments_within(g, 1, usize::MAX)
}

fn check_segments_within(g: &Grid, min: usize, max: usize) -> Res<()> {
    let n = g.segment_count_within(min, max);
    if n > 1 << 20 {
        return Err(format!("this grid has {n} runs, more than the 1048576 a script array may hold").into());
    }
    Ok(())
}

/// The lengths `min..=max` of `segments(min, max)`.
fn lengths(min: i64, max: i64) -> Res<(usize, usize)> {
    if min < 1 || max < min {
        return Err(
            format!("segment lengths {min} to {max}: the least must be 1 or more, and not above the most").into()
        );
    }
    Ok((min as usize, max as usize))
}

/// A permutation of `0..len` given as a script array.
fn permutation(p: &Array, len: usize) -> Res<Vec<usize>> {
    let bad = || -> Box<EvalAltResult> {
        format!("a symmetry is an array of the {len} indices 0..{len} in some order, not {p:?}").into()
    };
    if p.len() != len {
        return Err(bad());
    }
    let mut seen = vec![false; len];
    let mut out = Vec::with_capacity(len);
    for v in p {
        let i = v.as_int().map_err(|_| bad())?;
        if i < 0 || i as usize >= len || seen[i as usize] {
            return Err(bad());
        }
        seen[i as usize] = true;
        out.push(i as usize);
    }
    Ok(out)
}

/// The least of `items` and its images under the permutations `perms` (image[i] =
/// items[p[i]]), compared item by item with `less`.
fn least_image<T: Clone>(items: &[T], perms: &Array, less: impl Fn(&T, &T) -> std::cmp::Ordering) -> Res<Vec<T>> {
    let mut best: Vec<T> = items.to_vec();
    let mut image: Vec<T> = Vec::with_capacity(items.len());
    for p in perms {
        let p = p.read_lock::<Array>().ok_or("least_image takes an array of symmetries (arrays of indices)")?;
        let p = permutation(&p, items.len())?;
        image.clear();
        image.extend(p.iter().map(|&i| items[i].clone()));
        if image.iter().zip(&best).map(|(a, b)| less(a, b)).find(|o| o.is_ne()) == Some(std::cmp::Ordering::Less) {
            std::mem::swap(&mut best, &mut image);
        }
    }
    Ok(best)
}

/// Whether every cell of some line (an array of indices) of `lines` holds `p`.
fn any_line<T>(items: &[T], lines: &Array, is: impl Fn(&T) -> bool) -> Res<bool> {
    for line in lines {
        let line = line.read_lock::<Array>().ok_or("any_line takes an array of lines (arrays of indices)")?;
        let mut full = !line.is_empty();
        for i in line.iter() {
            let i = i.as_int().map_err(|_| "a line is an array of indices")?;
            let i = index(i, items.len(), "index")?;
            if !is(&items[i]) {
                full = false;
                break;
            }
        }
        if full {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The cells of a board for [`connects`]: a string's characters row by row (a `/` between
/// rows skipped), or an array's integers; `true` where the cell holds the piece.
fn holding(b: &Dynamic, p: &Dynamic, f: &str) -> Res<Vec<bool>> {
    if let Some(s) = b.read_lock::<ImmutableString>() {
        let p = p.as_char().map_err(|_| format!("{f}: on a string board the piece is a character ('x')"))?;
        return Ok(s.chars().filter(|&c| c != '/').map(|c| c == p).collect());
    }
    if let Some(a) = b.read_lock::<Array>() {
        let p = p.as_int().map_err(|_| format!("{f}: on an array board the piece is an integer"))?;
        return Ok(a.iter().map(|v| v.as_int() == Ok(p)).collect());
    }
    Err(format!("{f}: the board is a string (rows of cells, `/` between rows allowed) or an array of integers").into())
}

/// The cells of a side for [`connects`]: `"top"`, `"bottom"`, `"left"`, `"right"`, or an
/// array of cell numbers (row by row from 0).
fn side(s: &Dynamic, rows: usize, cols: usize) -> Res<Vec<usize>> {
    if let Some(name) = s.read_lock::<ImmutableString>() {
        return match name.as_str() {
            "top" => Ok((0..cols).collect()),
            "bottom" => Ok(((rows - 1) * cols..rows * cols).collect()),
            "left" => Ok((0..rows).map(|r| r * cols).collect()),
            "right" => Ok((0..rows).map(|r| r * cols + cols - 1).collect()),
            other => Err(format!(
                "connects: a side is \"top\", \"bottom\", \"left\", \"right\" or an array of cells, not \"{other}\""
            )
            .into()),
        };
    }
    if let Some(a) = s.read_lock::<Array>() {
        return a
            .iter()
            .map(|v| index(v.as_int().map_err(|_| "connects: a side's cells are integers")?, rows * cols, "cell"))
            .collect();
    }
    Err("connects: a side is \"top\", \"bottom\", \"left\", \"right\" or an array of cells".into())
}

/// Whether a chain of cells holding `p`, each a step of `steps` from the last, joins a cell
/// of `from` to a cell of `to` on the board `b` of `cols` columns (docs/scripting.md).
fn connects(b: &Dynamic, cols: i64, p: &Dynamic, steps: &Dynamic, from: &Dynamic, to: &Dynamic) -> Res<bool> {
    if let Some(name) = steps.read_lock::<ImmutableString>() {
        return connects_by(b, cols, p, named_steps(&name)?, from, to);
    }
    let a = steps.read_lock::<Array>().ok_or("connects: the steps are an array of [row, column] pairs or a name")?;
    connects_by(b, cols, p, &array_steps(&a)?, from, to)
}

/// Neighbours by name, as [row, column] steps: `"hex"` the six of a cell on a rhombus of
/// hexagons whose row r + 1 sits half a cell right of row r (Hex), `"orthogonal"` the four
/// beside a square, `"king"` the eight around it.
fn named_steps(name: &str) -> Res<&'static [(i64, i64)]> {
    match name {
        "hex" => Ok(&[(-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0)]),
        "orthogonal" => Ok(&[(-1, 0), (0, -1), (0, 1), (1, 0)]),
        "king" => Ok(&[(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]),
        other => Err(format!(
            "connects: the steps are an array of [row, column] pairs or \"hex\", \"orthogonal\" or \"king\", not \"{other}\""
        )
        .into()),
    }
}

/// Steps given as an array of [row, column] pairs.
fn array_steps(steps: &Array) -> Res<Vec<(i64, i64)>> {
    let bad_steps = || -> Box<EvalAltResult> { "connects: the steps are an array of [row, column] pairs".into() };
    steps
        .iter()
        .map(|s| {
            let s = s.read_lock::<Array>().ok_or_else(bad_steps)?;
            match s.as_slice() {
                [r, c] => Ok((r.as_int().map_err(|_| bad_steps())?, c.as_int().map_err(|_| bad_steps())?)),
                _ => Err(bad_steps()),
            }
        })
        .collect()
}

/// [`connects`] with its steps read.
fn connects_by(b: &Dynamic, cols: i64, p: &Dynamic, steps: &[(i64, i64)], from: &Dynamic, to: &Dynamic) -> Res<bool> {
    let on = holding(b, p, "connects")?;
    if cols < 1 || on.len() % cols as usize != 0 || on.is_empty() {
        return Err(format!("connects: a board of {} cells is not rows of {cols}", on.len()).into());
    }
    let cols = cols as usize;
    let rows = on.len() / cols;
    let mut goal = vec![false; on.len()];
    for c in side(to, rows, cols)? {
        goal[c] = true;
    }
    let mut seen = vec![false; on.len()];
    let mut todo = Vec::new();
    for c in side(from, rows, cols)? {
        if on[c] && !seen[c] {
            seen[c] = true;
            todo.push(c);
        }
    }
    while let Some(c) = todo.pop() {
        if goal[c] {
            return Ok(true);
        }
        let (r, k) = ((c / cols) as i64, (c % cols) as i64);
        for &(dr, dc) in steps {
            let (rr, kk) = (r + dr, k + dc);
            if rr < 0 || kk < 0 || rr >= rows as i64 || kk >= cols as i64 {
                continue;
            }
            let n = rr as usize * cols + kk as usize;
            if on[n] && !seen[n] {
                seen[n] = true;
                todo.push(n);
            }
        }
    }
    Ok(false)
}

/// The cells (numbered row by row from 0) where `b` holds `p` at (r, c) and at (r + dr,
/// c + dc) too, on a board of `cols` columns: the places for a domino (`dr, dc` = 1, 0 or 0,
/// 1) or any two-cell piece.
fn pairs(b: &Dynamic, cols: i64, p: &Dynamic, dr: i64, dc: i64) -> Res<Array> {
    let on = holding(b, p, "pairs")?;
    if cols < 1 || on.len() % cols as usize != 0 || on.is_empty() {
        return Err(format!("pairs: a board of {} cells is not rows of {cols}", on.len()).into());
    }
    let (rows, cols) = ((on.len() / cols as usize) as i64, cols);
    let mut out = Array::new();
    for r in 0..rows {
        for c in 0..cols {
            let (rr, cc) = (r + dr, c + dc);
            if on[(r * cols + c) as usize]
                && rr >= 0
                && cc >= 0
                && rr < rows
                && cc < cols
                && on[(rr * cols + cc) as usize]
            {
                out.push(Dynamic::from_int(r * cols + c));
            }
        }
    }
    Ok(out)
}

/// Every copy of the string `s` with one `empty` character made `p`, in order.
fn placements_str(s: &str, empty: char, p: char) -> Res<Array> {
    if s.is_ascii() && empty.is_ascii() && p.is_ascii() {
        // One byte a character: each copy is the bytes with one changed, made in place.
        let (e, p) = (empty as u8, p as u8);
        let n = s.bytes().filter(|&c| c == e).count();
        check_placements(n, s.len())?;
        let mut out = Array::with_capacity(n);
        let mut buf = s.as_bytes().to_vec();
        for i in 0..buf.len() {
            if buf[i] == e {
                buf[i] = p;
                let copy = std::str::from_utf8(&buf).map_err(|e| e.to_string())?;
                out.push(Dynamic::from(ImmutableString::from(copy)));
                buf[i] = e;
            }
        }
        return Ok(out);
    }
    let chars: Vec<char> = s.chars().collect();
    check_placements(chars.iter().filter(|&&c| c == empty).count(), chars.len())?;
    let mut out = Array::new();
    let mut buf = String::with_capacity(s.len());
    for i in 0..chars.len() {
        if chars[i] == empty {
            buf.clear();
            buf.extend(chars[..i].iter());
            buf.push(p);
            buf.extend(chars[i + 1..].iter());
            out.push(Dynamic::from(buf.clone()));
        }
    }
    Ok(out)
}

/// Refuse to make more than 2^24 cells of copies in one `placements` (a board of 100,000
/// empty cells would make 10^10), before making them.
fn check_placements(empty: usize, len: usize) -> Res<()> {
    check_copies("placements", empty, "copies of", len)
}

/// Refuse `count` copies of a board of `len` cells past 2^24 cells in one call of `helper`,
/// before making them: "`helper`: `count` `what` a board of `len` cells is more than …".
fn check_copies(helper: &str, count: usize, what: &str, len: usize) -> Res<()> {
    if count.saturating_mul(len) > 1 << 24 {
        return Err(format!(
            "{helper}: {count} {what} a board of {len} cells is more than the 16777216 cells one call may make"
        )
        .into());
    }
    Ok(())
}

fn seg_array(s: Segment) -> Dynamic {
    Dynamic::from_array(s.iter().map(|&v| Dynamic::from_int(v as i64)).collect())
}

fn grids(v: Vec<Grid>) -> Array {
    v.into_iter().map(Dynamic::from).collect()
}

/// Read a list of heap sizes: whole numbers separated by commas and/or spaces.
pub fn parse_heaps(text: &str) -> Result<Vec<i64>, String> {
    let items: Vec<&str> = text.split([',', ' ', '\t', '\n', '\r']).filter(|s| !s.is_empty()).collect();
    if items.is_empty() {
        return Err("no heaps given: write heap sizes such as `3,4,5`".into());
    }
    items
        .iter()
        .map(|s| match s.parse::<i64>() {
            Ok(n) if n >= 0 => Ok(n),
            Ok(n) => Err(format!("heap sizes cannot be negative ({n})")),
            Err(_) => Err(format!("{} is not a heap size (a whole number)", crate::input::quote(s))),
        })
        .collect()
}

/// Every way to split a heap of `total` into two non-empty heaps `[a, total - a]`, smaller
/// first (`a <= total - a`), only the unequal ones when `unequal`: `splits(n)` and
/// `unequal_splits(n)` in a script. A `heap_options` hook returns it as one entry for all of
/// them, and the nim-sequence engine reads them natively; a script may also loop over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapSplits {
    pub total: usize,
    pub unequal: bool,
}

/// The largest heap `splits` takes (a heap of more could not be listed in memory anyway).
const MAX_SPLIT_HEAP: i64 = 1 << 40;

impl HeapSplits {
    fn new(n: i64, unequal: bool) -> Res<HeapSplits> {
        if !(0..=MAX_SPLIT_HEAP).contains(&n) {
            let f = if unequal { "unequal_splits" } else { "splits" };
            return Err(format!("{f} of a heap of {n}: a heap is a whole number from 0 to 2^40").into());
        }
        Ok(HeapSplits { total: n as usize, unequal })
    }

    /// The smaller heap of each split: 1 to ⌊total/2⌋, without total/2 when unequal and even.
    pub fn smaller(&self) -> std::ops::RangeInclusive<usize> {
        let top = if self.unequal { (self.total.saturating_sub(1)) / 2 } else { self.total / 2 };
        1..=top
    }
}

impl std::fmt::Display for HeapSplits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}({})", if self.unequal { "unequal_splits" } else { "splits" }, self.total)
    }
}

impl IntoIterator for HeapSplits {
    type Item = Array;
    type IntoIter = Box<dyn Iterator<Item = Array>>;
    fn into_iter(self) -> Self::IntoIter {
        let n = self.total as i64;
        Box::new(self.smaller().map(move |a| vec![Dynamic::from_int(a as i64), Dynamic::from_int(n - a as i64)]))
    }
}

fn first<T>(mut v: Vec<T>) -> T {
    v.swap_remove(0)
}

/// The cell indices of an array (checked against the board later).
fn cells(js: &Array) -> Res<Vec<i64>> {
    js.iter().map(|v| v.as_int().map_err(|_| format!("cells are integers, not `{}`", v.type_name()).into())).collect()
}

/// Copies of the string `s`, each with character `i` swapped with one of `js`, each made by
/// `make` from the swapped text in one buffer (a script string straight from it: no
/// `String` a copy).
fn swapped_str<T>(s: &str, i: i64, js: &[i64], make: impl Fn(&str) -> T) -> Res<Vec<T>> {
    let mut out = Vec::with_capacity(js.len());
    if s.is_ascii() {
        let mut t = s.as_bytes().to_vec();
        let i = index(i, t.len(), "index")?;
        for &j in js {
            let j = index(j, t.len(), "index")?;
            t.swap(i, j);
            // ASCII bytes swapped are still ASCII.
            out.push(make(std::str::from_utf8(&t).unwrap_or_default()));
            t.swap(i, j);
        }
        return Ok(out);
    }
    let mut chars: Vec<char> = s.chars().collect();
    let i = index(i, chars.len(), "index")?;
    let mut text = String::with_capacity(s.len());
    for &j in js {
        let j = index(j, chars.len(), "index")?;
        chars.swap(i, j);
        text.clear();
        text.extend(chars.iter());
        out.push(make(&text));
        chars.swap(i, j);
    }
    Ok(out)
}

/// Copies of the array `a`, each with entry `i` swapped with one of `js`.
fn swapped_array(a: &Array, i: i64, js: &[i64]) -> Res<Vec<Array>> {
    let i = index(i, a.len(), "index")?;
    js.iter()
        .map(|&j| {
            let j = index(j, a.len(), "index")?;
            let mut t = a.clone();
            t.swap(i, j);
            Ok(t)
        })
        .collect()
}

fn ints(arr: &Array) -> Res<Vec<i64>> {
    arr.iter()
        .map(|v| v.as_int().map_err(|_| format!("a heap list holds integers, not `{}`", v.type_name()).into()))
        .collect()
}

fn to_array(v: Vec<i64>) -> Array {
    v.into_iter().map(Dynamic::from_int).collect()
}

// ---- Pushes: a piece taken from one end of a line of cells and pushed in at the other
// (Quixo-like moves). ----

/// A push's path as cell numbers in `0..len`: `[from, …, to]`, at least one cell.
fn push_path(d: &Dynamic, len: usize) -> Res<Vec<usize>> {
    let bad = || -> Box<EvalAltResult> {
        format!("a push's path is a non-empty array of cell numbers [from, …, to], not {d}").into()
    };
    let a = d.read_lock::<Array>().ok_or_else(bad)?;
    if a.is_empty() {
        return Err(bad());
    }
    a.iter().map(|v| index(v.as_int().map_err(|_| bad())?, len, "cell")).collect()
}

/// `cells` after the push along `path`: each cell of the path from `from` on takes the value
/// of the next one, and `to`, the last, gets `p`.
fn push_along<T: Clone>(cells: &mut [T], path: &[usize], p: T) {
    for k in 1..path.len() {
        cells[path[k - 1]] = cells[path[k]].clone();
    }
    cells[path[path.len() - 1]] = p;
}

/// Refuse to make more than 2^24 cells of copies in one `pushes` call.
fn check_pushes(paths: usize, len: usize) -> Res<()> {
    check_copies("pushes", paths, "paths on", len)
}

/// Every push of `pushes(b, paths, takes, p)` on a string board: the copies of `s` pushed
/// along each path whose first cell holds one of the characters of `takes`, in order.
fn pushes_str(s: &str, paths: &Array, takes: &str, p: char) -> Res<Array> {
    let chars: Vec<char> = s.chars().collect();
    check_pushes(paths.len(), chars.len())?;
    let mut out = Array::with_capacity(paths.len());
    let mut buf = chars.clone();
    for d in paths {
        let path = push_path(d, chars.len())?;
        if takes.contains(chars[path[0]]) {
            buf.copy_from_slice(&chars);
            push_along(&mut buf, &path, p);
            out.push(Dynamic::from(buf.iter().collect::<String>()));
        }
    }
    Ok(out)
}

/// The same on an array of integers; `takes` an array of integers.
fn pushes_array(a: &Array, paths: &Array, takes: &Array, p: i64) -> Res<Array> {
    let cells: Vec<i64> = a
        .iter()
        .map(|v| {
            v.as_int().map_err(|_| format!("pushes: a board's cells are integers, not `{}`", v.type_name()).into())
        })
        .collect::<Res<_>>()?;
    let takes: Vec<i64> = takes
        .iter()
        .map(|v| v.as_int().map_err(|_| format!("pushes: `takes` holds integers, not `{}`", v.type_name()).into()))
        .collect::<Res<_>>()?;
    check_pushes(paths.len(), cells.len())?;
    let mut out = Array::with_capacity(paths.len());
    for d in paths {
        let path = push_path(d, cells.len())?;
        if takes.contains(&cells[path[0]]) {
            let mut c = cells.clone();
            push_along(&mut c, &path, p);
            out.push(Dynamic::from_array(to_array(c)));
        }
    }
    Ok(out)
}

fn paths_of(d: &Dynamic) -> Res<impl std::ops::Deref<Target = Array> + '_> {
    d.read_lock::<Array>().ok_or_else(|| format!("pushes takes an array of paths, not `{}`", d.type_name()).into())
}

fn register_pushes(engine: &mut Engine) {
    engine
        .register_fn("pushed", |s: &str, path: Dynamic, p: char| -> Res<String> {
            let mut chars: Vec<char> = s.chars().collect();
            let path = push_path(&path, chars.len())?;
            push_along(&mut chars, &path, p);
            Ok(chars.into_iter().collect())
        })
        .register_fn("pushed", |a: &mut Array, path: Dynamic, p: i64| -> Res<Array> {
            let path = push_path(&path, a.len())?;
            let mut c = a.clone();
            push_along(&mut c, &path, Dynamic::from_int(p));
            Ok(c)
        })
        // `paths` as a `Dynamic`: a top-level constant arrives shared, not copied.
        .register_fn("pushes", |s: &str, paths: Dynamic, takes: &str, p: char| {
            pushes_str(s, &*paths_of(&paths)?, takes, p)
        })
        .register_fn("pushes", |a: &mut Array, paths: Dynamic, takes: Array, p: i64| {
            pushes_array(a, &*paths_of(&paths)?, &takes, p)
        });
}

/// Register every native helper in `engine`.
pub fn register(engine: &mut Engine) {
    register_pushes(engine);
    register_grid(engine);
    register_boards(engine);
    register_heaps(engine);
    register_typed(engine);
}

/// The `Grid` type: a token grid and what is done to it fast (runs, components, symmetry).
fn register_grid(engine: &mut Engine) {
    engine.register_type_with_name::<Grid>("Grid");
    engine
        .register_fn("grid", |rows: i64, cols: i64| -> Res<Grid> {
            Ok(Grid::new(size(rows, "height")?, size(cols, "width")?))
        })
        .register_fn("full_grid", |rows: i64, cols: i64| -> Res<Grid> {
            Ok(Grid::full(size(rows, "height")?, size(cols, "width")?))
        })
        .register_fn("parse_grid", |text: ImmutableString| -> Res<Grid> { Grid::parse(&text).map_err(Into::into) })
        .register_get("rows", |g: &mut Grid| g.rows() as i64)
        .register_get("cols", |g: &mut Grid| g.cols() as i64)
        .register_get("count", |g: &mut Grid| g.count() as i64)
        .register_fn("is_empty", |g: &mut Grid| g.is_empty())
        .register_fn("in_bounds", |g: &mut Grid, r: i64, c: i64| g.in_bounds(r, c))
        .register_fn("get", |g: &mut Grid, r: i64, c: i64| -> Res<bool> {
            let (r, c) = cell(g, r, c)?;
            Ok(g.get(r, c))
        })
        .register_fn("set", |g: &mut Grid, r: i64, c: i64, on: bool| -> Res<()> {
            let (r, c) = cell(g, r, c)?;
            g.set(r, c, on);
            Ok(())
        })
        .register_fn("toggle", |g: &mut Grid, r: i64, c: i64| -> Res<()> {
            let (r, c) = cell(g, r, c)?;
            g.toggle(r, c);
            Ok(())
        })
        .register_fn("toggle_plus", |g: &mut Grid, r: i64, c: i64| -> Res<()> {
            let (r, c) = cell(g, r, c)?;
            g.toggle_plus(r, c);
            Ok(())
        })
        .register_fn("to_pbm", |g: &mut Grid| g.to_pbm())
        .register_fn("to_rows", |g: &mut Grid, on: char, off: char, sep: ImmutableString| g.to_rows(on, off, &sep))
        .register_fn("to_string", |g: &mut Grid| g.to_rows('#', '0', "/"))
        .register_fn("to_debug", |g: &mut Grid| format!("grid({})", g.to_rows('#', '0', "/")))
        .register_fn("==", |a: &mut Grid, b: Grid| *a == b)
        .register_fn("!=", |a: &mut Grid, b: Grid| *a != b)
        .register_fn("crop", |g: &mut Grid| g.crop())
        .register_fn("canonical", |g: &mut Grid| g.canonical())
        .register_fn("transform", |g: &mut Grid, t: i64| -> Res<Grid> {
            Ok(g.transform(index(t, 8, "symmetry")? as u8))
        })
        .register_fn("components", |g: &mut Grid| grids(g.components()))
        .register_fn("segments", |g: &mut Grid| -> Res<Array> {
            check_segments(g)?;
            Ok(g.segments().into_iter().map(seg_array).collect())
        })
        .register_fn("without", |g: &mut Grid, seg: Array| -> Res<Grid> { Ok(g.without(segment(g, &seg)?)) })
        .register_fn("run_removals", |g: &mut Grid| -> Res<Array> {
            check_segments(g)?;
            Ok(grids(g.segments().into_iter().map(|s| g.without(s)).collect()))
        })
        .register_fn("segments", |g: &mut Grid, min: i64, max: i64| -> Res<Array> {
            let (min, max) = lengths(min, max)?;
            check_segments_within(g, min, max)?;
            Ok(g.segments_within(min, max).into_iter().map(seg_array).collect())
        })
        .register_fn("run_removals", |g: &mut Grid, min: i64, max: i64| -> Res<Array> {
            let (min, max) = lengths(min, max)?;
            check_segments_within(g, min, max)?;
            Ok(grids(g.segments_within(min, max).into_iter().map(|s| g.without(s)).collect()))
        });
}

/// Boards as strings or arrays (counting, lines, symmetry, swaps), the splits of a heap,
/// and connection and placement (Hex-like games).
fn register_boards(engine: &mut Engine) {
    // Boards as strings or arrays: counting, lines and symmetry.
    engine
        .register_fn("count", |s: &str, ch: char| s.chars().filter(|&c| c == ch).count() as i64)
        .register_fn("least_image", |s: &str, perms: Array| -> Res<String> {
            let chars: Vec<char> = s.chars().collect();
            Ok(least_image(&chars, &perms, |a, b| a.cmp(b))?.into_iter().collect())
        })
        .register_fn("least_image", |a: &mut Array, perms: Array| -> Res<Array> {
            let ints: Vec<i64> = a
                .iter()
                .map(|v| v.as_int())
                .collect::<Result<_, _>>()
                .map_err(|_| "least_image takes a string or an array of integers")?;
            Ok(least_image(&ints, &perms, |a, b| a.cmp(b))?.into_iter().map(Dynamic::from_int).collect())
        })
        .register_fn("any_line", |s: &str, lines: Array, ch: char| -> Res<bool> {
            let chars: Vec<char> = s.chars().collect();
            any_line(&chars, &lines, |&c| c == ch)
        })
        .register_fn("any_line", |a: &mut Array, lines: Array, v: i64| -> Res<bool> {
            any_line(a, &lines, |x| x.as_int() == Ok(v))
        })
        .register_fn("swapped", |s: &str, i: i64, j: i64| -> Res<ImmutableString> {
            swapped_str(s, i, &[j], |t| ImmutableString::from(t)).map(first)
        })
        .register_fn("swapped", |a: &mut Array, i: i64, j: i64| -> Res<Array> { swapped_array(a, i, &[j]).map(first) })
        .register_fn("swaps", |s: &str, i: i64, js: Array| -> Res<Array> {
            swapped_str(s, i, &cells(&js)?, |t| Dynamic::from(ImmutableString::from(t)))
        })
        .register_fn("swaps", |a: &mut Array, i: i64, js: Array| -> Res<Array> {
            Ok(swapped_array(a, i, &cells(&js)?)?.into_iter().map(Dynamic::from_array).collect())
        });

    // Heap games given heap by heap (`heap_options`): every split of a heap into two.
    engine
        .register_type_with_name::<HeapSplits>("HeapSplits")
        .register_fn("splits", |n: i64| -> Res<HeapSplits> { HeapSplits::new(n, false) })
        .register_fn("unequal_splits", |n: i64| -> Res<HeapSplits> { HeapSplits::new(n, true) })
        .register_fn("to_array", |s: &mut HeapSplits| -> Array { (*s).into_iter().map(Dynamic::from_array).collect() })
        .register_fn("to_string", |s: &mut HeapSplits| s.to_string())
        .register_fn("to_debug", |s: &mut HeapSplits| s.to_string())
        .register_iterator::<HeapSplits>();

    // Connection and placement: Hex-like games.
    engine
        .register_fn(
            "connects",
            |b: Dynamic, cols: i64, p: Dynamic, steps: Dynamic, from: Dynamic, to: Dynamic| -> Res<bool> {
                connects(&b, cols, &p, &steps, &from, &to)
            },
        )
        .register_fn("pairs", |b: Dynamic, cols: i64, p: Dynamic, dr: i64, dc: i64| -> Res<Array> {
            pairs(&b, cols, &p, dr, dc)
        })
        .register_fn("placements", |s: &str, empty: char, p: char| placements_str(s, empty, p))
        .register_fn("placements", |a: &mut Array, empty: i64, p: i64| -> Res<Array> {
            check_placements(a.iter().filter(|v| v.as_int() == Ok(empty)).count(), a.len())?;
            let mut out = Array::new();
            for i in 0..a.len() {
                if a[i].as_int() == Ok(empty) {
                    let mut c = a.clone();
                    c[i] = Dynamic::from_int(p);
                    out.push(Dynamic::from_array(c));
                }
            }
            Ok(out)
        });
}

/// Heaps as text and arrays: reading, writing, sorting and cutting them.
fn register_heaps(engine: &mut Engine) {
    engine
        .register_fn("parse_heaps", |text: ImmutableString| -> Res<Array> {
            parse_heaps(&text).map(to_array).map_err(Into::into)
        })
        .register_fn("format_heaps", |arr: Array| -> Res<String> {
            // No heaps at all is written "0", so that parse_heaps reads it back.
            if arr.is_empty() {
                return Ok("0".into());
            }
            Ok(ints(&arr)?.iter().map(i64::to_string).collect::<Vec<_>>().join(","))
        })
        .register_fn("sort_heaps", |arr: Array| -> Res<Array> {
            let mut v = ints(&arr)?;
            v.sort_unstable();
            Ok(to_array(v))
        })
        .register_fn("nonzero", |arr: Array| -> Res<Array> {
            Ok(to_array(ints(&arr)?.into_iter().filter(|&h| h != 0).collect()))
        })
        .register_fn("cap_from", |arr: Array, from: i64, cap: i64| -> Res<Array> {
            let mut v = ints(&arr)?;
            let from = index(from, v.len() + 1, "index")?;
            for h in &mut v[from..] {
                *h = (*h).min(cap);
            }
            Ok(to_array(v))
        })
        .register_fn("cuts", |arr: Array| -> Res<Array> {
            let v = ints(&arr)?;
            let mut out = Array::new();
            for (c, &h) in v.iter().enumerate() {
                for r in 0..h.max(0) {
                    let cut: Vec<i64> = v.iter().enumerate().map(|(i, &x)| if i >= c { x.min(r) } else { x }).collect();
                    out.push(Dynamic::from_array(to_array(cut)));
                }
            }
            Ok(out)
        })
        .register_fn("heap_sum", |arr: Array| -> Res<i64> {
            ints(&arr)?.iter().try_fold(0i64, |a, &h| a.checked_add(h)).ok_or_else(|| "heap sum overflows".into())
        });
}

/// `connects` and `pairs` again, with their parameters typed for each kind of board and side.
///
/// Rhai looks a called function up afresh on every call into the script, and a function with
/// `Dynamic` parameters only after trying each combination of the arguments' types and
/// `Dynamic` (for `connects`, 47 hashes and lookups in every module): that search was most of
/// Hex's `primitive`. With a copy
/// whose types are the arguments' own, the first lookup finds it. The `Dynamic` ones stay for
/// the other arguments' errors.
fn register_typed(engine: &mut Engine) {
    macro_rules! connects_typed {
        ($b:ty, $p:ty, $from:ty, $to:ty) => {
            engine.register_fn(
                "connects",
                |b: $b, cols: i64, p: $p, steps: Array, from: $from, to: $to| -> Res<bool> {
                    let steps = array_steps(&steps)?;
                    connects_by(
                        &Dynamic::from(b),
                        cols,
                        &Dynamic::from(p),
                        &steps,
                        &Dynamic::from(from),
                        &Dynamic::from(to),
                    )
                },
            );
            engine.register_fn(
                "connects",
                |b: $b, cols: i64, p: $p, steps: ImmutableString, from: $from, to: $to| -> Res<bool> {
                    let steps = named_steps(&steps)?;
                    connects_by(
                        &Dynamic::from(b),
                        cols,
                        &Dynamic::from(p),
                        steps,
                        &Dynamic::from(from),
                        &Dynamic::from(to),
                    )
                },
            );
        };
    }
    type S = ImmutableString;
    connects_typed!(S, char, S, S);
    connects_typed!(S, char, Array, Array);
    connects_typed!(S, char, S, Array);
    connects_typed!(S, char, Array, S);
    connects_typed!(Array, i64, S, S);
    connects_typed!(Array, i64, Array, Array);
    connects_typed!(Array, i64, S, Array);
    connects_typed!(Array, i64, Array, S);
    engine
        .register_fn("pairs", |b: S, cols: i64, p: char, dr: i64, dc: i64| -> Res<Array> {
            pairs(&Dynamic::from(b), cols, &Dynamic::from(p), dr, dc)
        })
        .register_fn("pairs", |b: Array, cols: i64, p: i64, dr: i64, dc: i64| -> Res<Array> {
            pairs(&Dynamic::from_array(b), cols, &Dynamic::from_int(p), dr, dc)
        });
}
