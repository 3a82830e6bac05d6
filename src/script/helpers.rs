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

/// Copies of the string `s`, each with character `i` swapped with one of `js`.
fn swapped_str(s: &str, i: i64, js: &[i64]) -> Res<Vec<String>> {
    if s.is_ascii() {
        let b = s.as_bytes();
        let i = index(i, b.len(), "index")?;
        return js
            .iter()
            .map(|&j| {
                let j = index(j, b.len(), "index")?;
                let mut t = b.to_vec();
                t.swap(i, j);
                // ASCII bytes swapped are still ASCII.
                Ok(String::from_utf8(t).unwrap_or_default())
            })
            .collect();
    }
    let chars: Vec<char> = s.chars().collect();
    let i = index(i, chars.len(), "index")?;
    js.iter()
        .map(|&j| {
            let j = index(j, chars.len(), "index")?;
            let mut t = chars.clone();
            t.swap(i, j);
            Ok(t.into_iter().collect())
        })
        .collect()
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

pub fn register(engine: &mut Engine) {
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
        .register_fn("swapped", |s: &str, i: i64, j: i64| -> Res<String> { swapped_str(s, i, &[j]).map(first) })
        .register_fn("swapped", |a: &mut Array, i: i64, j: i64| -> Res<Array> { swapped_array(a, i, &[j]).map(first) })
        .register_fn("swaps", |s: &str, i: i64, js: Array| -> Res<Array> {
            Ok(swapped_str(s, i, &cells(&js)?)?.into_iter().map(Dynamic::from).collect())
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

#[cfg(test)]
mod tests {
    use rhai::Dynamic;

    fn eval<T: Clone + 'static>(script: &str) -> T {
        super::super::engine().eval::<T>(script).unwrap_or_else(|e| panic!("{script}: {e}"))
    }

    fn error(script: &str) -> String {
        super::super::engine().eval::<Dynamic>(script).expect_err(script).to_string()
    }

    #[test]
    fn count_characters() {
        assert_eq!(eval::<i64>(r#""xox.x".count('x')"#), 3);
        assert_eq!(eval::<i64>(r#""".count('x')"#), 0);
    }

    #[test]
    fn any_line_on_strings_and_arrays() {
        let lines = "[[0,1,2],[3,4,5],[0,4,8]]";
        assert!(eval::<bool>(&format!(r#"any_line("x...x...x", {lines}, 'x')"#)));
        assert!(!eval::<bool>(&format!(r#"any_line("xx.oo....", {lines}, 'x')"#)));
        assert!(eval::<bool>(&format!("any_line([0,0,0,2,2,2,0,0,0], {lines}, 2)")));
        assert!(!eval::<bool>(&format!("any_line([0,0,0,2,2,2,0,0,0], {lines}, 1)")));
        // An empty line is never full.
        assert!(!eval::<bool>(r#"any_line("x", [[]], 'x')"#));
        assert!(error(r#"any_line("xx", [[0, 5]], 'x')"#).contains("index 5 is outside 0..2"));
    }

    #[test]
    fn least_image_under_symmetries() {
        // Reversal of a 3-cell row: "xo." and ".ox" are one position, ".ox" the least.
        let syms = "[[0,1,2],[2,1,0]]";
        assert_eq!(eval::<String>(&format!(r#"least_image("xo.", {syms})"#)), ".ox");
        assert_eq!(eval::<String>(&format!(r#"least_image(".ox", {syms})"#)), ".ox");
        let a = eval::<rhai::Array>(&format!("least_image([3, 1, 2], {syms})"));
        assert_eq!(a.iter().map(|v| v.as_int().unwrap()).collect::<Vec<_>>(), vec![2, 1, 3]);
        // The value itself counts as an image, whether or not the identity is listed.
        assert_eq!(eval::<String>(r#"least_image("ab", [[1, 0]])"#), "ab");
        assert_eq!(eval::<String>(r#"least_image("ba", [[1, 0]])"#), "ab");
        assert!(error(r#"least_image("abc", [[0, 0, 1]])"#).contains("a symmetry is an array of the 3 indices"));
        assert!(error(r#"least_image("abc", [[0, 1]])"#).contains("a symmetry is an array of the 3 indices"));
    }

    #[test]
    fn swaps_of_two_cells() {
        assert_eq!(eval::<String>(r#""ab.".swapped(2, 0)"#), ".ba");
        assert_eq!(eval::<String>(r#""aé.".swapped(1, 2)"#), "a.é");
        let all = eval::<rhai::Array>(r#""1.3".swaps(1, [0, 2])"#);
        assert_eq!(all.iter().map(|v| v.to_string()).collect::<Vec<_>>(), [".13", "13."]);
        let a = eval::<rhai::Array>("[1, 0, 3].swapped(1, 2)");
        assert_eq!(a.iter().map(|v| v.as_int().unwrap()).collect::<Vec<_>>(), [1, 3, 0]);
        assert_eq!(eval::<rhai::Array>("[1, 0, 3].swaps(1, [0, 2, 1])").len(), 3);
        assert!(error(r#""abc".swapped(0, 3)"#).contains("index 3 is outside 0..3"));
        assert!(error("[1, 2].swaps(0, [1, 2])").contains("index 2 is outside 0..2"));
    }

    #[test]
    fn splits_of_a_heap() {
        // 6 = 1 + 5 = 2 + 4 = 3 + 3; unequal: without 3 + 3.
        let text = "let s = \"\"; for p in splits(6) { s += `${p[0]}+${p[1]} `; } s";
        assert_eq!(eval::<String>(text), "1+5 2+4 3+3 ");
        assert_eq!(eval::<rhai::Array>("unequal_splits(6).to_array()").len(), 2);
        assert_eq!(eval::<rhai::Array>("splits(1).to_array()").len(), 0);
        assert!(error("splits(-1)").contains("a heap is a whole number"));
    }

    #[test]
    fn segments_of_given_lengths() {
        // Dominoes on a full 2×3 board: 2 a row, 3 columns of one.
        assert_eq!(eval::<rhai::Array>("full_grid(2, 3).segments(2, 2)").len(), 7);
        assert_eq!(eval::<rhai::Array>("full_grid(2, 3).run_removals(2, 2)").len(), 7);
        assert!(error("full_grid(2, 3).segments(3, 2)").contains("segment lengths 3 to 2"));
        assert!(error("full_grid(2, 3).segments(0, 2)").contains("segment lengths 0 to 2"));
    }
}
