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
    let n = g.segment_count();
    if n > 1 << 20 {
        return Err(format!("this grid has {n} runs, more than the 1048576 a script array may hold").into());
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
            Err(_) => Err(format!("{s:?} is not a heap size (a whole number)")),
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
        });

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
