//! `analyze` from a saved tier solve: the positions reachable from the root, found by
//! walking the finished arrays (`solve::reach`), counted by value, remoteness and Grundy
//! value, and the report made of the counts. The arrays hold one record a symmetry class,
//! so the walk reaches classes; when the root is the only member of its class (the empty
//! board), every symmetric image of a reachable position is reachable too, and the positions
//! themselves are counted as well (each index of a tier whose representative was reached).

use crate::db::array::{ArrayDb, Rec, TierArray, unrec};
use crate::game::tier::{Tier, TierSpace};
use crate::game::{GameResult, Kind, Value};
use crate::progress::Progress;
use crate::solve::reach::{self, Reached};
use rayon::prelude::*;
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashMap};

/// The values counted, in the order of a count's slots.
const NAMES: [Value; 4] = [Value::Win, Value::Lose, Value::Tie, Value::Draw];

/// Counts by value (the slot of [`NAMES`]) at each remoteness, 0..=4095, then at none.
type Counts = Vec<[u64; 4]>;

/// Positions by Grundy value.
type ByGrundy = BTreeMap<u64, u64>;

fn no_counts() -> Counts {
    vec![[0; 4]; 4097]
}

/// A record's slot: its value's, and its remoteness (4096: none).
fn slot(r: Rec) -> Option<(usize, usize)> {
    let (v, rem) = unrec(r)?;
    Some((NAMES.iter().position(|&n| n == v).expect("a value"), rem.map_or(4096, |x| x as usize)))
}

/// What a walk of the arrays counted: the classes reached, and the positions themselves
/// while the root is known to be alone in its class.
pub(super) struct Counted {
    classes: Counts,
    class_grundy: ByGrundy,
    /// Classes counted without a Grundy value.
    class_no_grundy: u64,
    images: Option<Counts>,
    image_grundy: ByGrundy,
    image_no_grundy: u64,
    tiers: usize,
}

/// One tier's positions whose representative was reached, counted in parallel: the counts,
/// how many are the root's class, the Grundy values and how many had none.
type Fold = (Counts, u64, HashMap<u64, u64>, u64);

fn count_images(space: &dyn TierSpace, t: Tier, array: &TierArray, reached: &Reached, root: (Tier, u64)) -> Fold {
    let records = &array.records;
    let zero = || -> Fold { (no_counts(), 0, Default::default(), 0) };
    (0..space.tier_size(t))
        .into_par_iter()
        .fold(zero, |(mut c, mut rc, mut g, mut ng), i| {
            let rep = space.canonical_index(t, i);
            let reached_here = reached.has(rep);
            let is_root = t == root.0 && rep == root.1;
            let n = if reached_here || is_root { space.positions_at(t, i) } else { 0 };
            if reached_here && let Some((v, r)) = slot(records[rep as usize]) {
                c[r][v] += n;
                match array.grundy_at(rep as usize) {
                    Some(x) => *g.entry(x).or_default() += n,
                    None => ng += n,
                }
            }
            if is_root {
                rc += n;
            }
            (c, rc, g, ng)
        })
        .reduce(zero, |(mut a, ra, mut ga, na), (b, rb, gb, nb)| {
            add(&mut a, &b);
            for (x, n) in gb {
                *ga.entry(x).or_default() += n;
            }
            (a, ra + rb, ga, na + nb)
        })
}

fn add(to: &mut Counts, from: &Counts) {
    for (x, y) in to.iter_mut().zip(from) {
        for k in 0..4 {
            x[k] += y[k];
        }
    }
}

/// Walk the arrays from `root` (a representative) and count what is reached. `None` when a
/// tier the walk needs is not saved.
pub(super) fn count(
    space: &dyn TierSpace,
    arrays: &ArrayDb,
    root: (Tier, u64),
    budget: usize,
    progress: &Progress,
) -> GameResult<Option<Counted>> {
    let mut c = Counted {
        classes: no_counts(),
        class_grundy: ByGrundy::new(),
        class_no_grundy: 0,
        images: Some(no_counts()),
        image_grundy: ByGrundy::new(),
        image_no_grundy: 0,
        tiers: 0,
    };
    let walked = reach::walk(space, arrays, root, budget, progress, &mut |t, array, reached| {
        c.tiers += 1;
        for i in reached.indices() {
            if let Some((v, r)) = slot(array.records[i as usize]) {
                c.classes[r][v] += 1;
                match array.grundy_at(i as usize) {
                    Some(g) => *c.class_grundy.entry(g).or_default() += 1,
                    None => c.class_no_grundy += 1,
                }
            }
        }
        let Some(img) = c.images.as_mut() else { return Ok(()) };
        let (counts, root_class, grundy, no_grundy) = count_images(space, t, array, reached, root);
        if t == root.0 && root_class != 1 {
            // The root has symmetric images: what is reachable need not be closed under
            // symmetry, so only the classes are counted.
            c.images = None;
            return Ok(());
        }
        add(img, &counts);
        for (x, n) in grundy {
            *c.image_grundy.entry(x).or_default() += n;
        }
        c.image_no_grundy += no_grundy;
        Ok(())
    })?;
    Ok(walked.map(|()| c))
}

/// The root of a report: the game, its engine, the position, and its own record.
pub(super) struct Root<'a> {
    pub(super) game: &'a str,
    pub(super) kind: Kind,
    pub(super) engine: &'a str,
    pub(super) position: String,
    pub(super) value: Value,
    pub(super) remoteness: Option<u32>,
    pub(super) grundy: Option<u64>,
}

/// The `analyze` report of what was counted (as the census's report reads).
pub(super) fn report(c: &Counted, root: Root, seconds: f64) -> Json {
    let kind = root.kind;
    let by_value = |c: &Counts| {
        let mut o = serde_json::Map::new();
        for (k, v) in NAMES.iter().enumerate() {
            o.insert(v.name_in(kind).to_string(), c.iter().map(|x| x[k]).sum::<u64>().into());
        }
        Json::Object(o)
    };
    let by_rem = |c: &Counts| {
        c.iter()
            .enumerate()
            .take(4096)
            .filter(|(_, x)| x.iter().any(|&n| n > 0))
            .map(|(r, x)| {
                let mut o = serde_json::Map::new();
                o.insert("remoteness".into(), r.into());
                for (k, v) in NAMES.iter().enumerate() {
                    o.insert(v.name_in(kind).to_string(), x[k].into());
                }
                Json::Object(o)
            })
            .collect::<Vec<_>>()
    };
    let total = |c: &Counts| c.iter().flatten().sum::<u64>();
    let (main, counted, (main_grundy, main_no_grundy)) = match &c.images {
        Some(img) => {
            (img, "every position reachable from the root, from the arrays", (&c.image_grundy, c.image_no_grundy))
        }
        None => (
            &c.classes,
            "every position reachable from the root up to symmetry (one a class: the root has symmetric images, \
             so the positions themselves are not counted)",
            (&c.class_grundy, c.class_no_grundy),
        ),
    };
    // Counts by Grundy value where every position counted has one (as the census gives
    // them: all or none).
    let by_grundy = |g: &ByGrundy, none: u64| {
        (none == 0 && !g.is_empty())
            .then(|| g.iter().map(|(x, n)| serde_json::json!({"grundy": x, "positions": n})).collect::<Vec<_>>())
    };
    serde_json::json!({
        "game": root.game,
        "kind": kind.as_str(),
        "engine": root.engine,
        "position": root.position,
        "value": root.value.name_in(kind),
        "remoteness": root.remoteness,
        "grundy": root.grundy,
        "positions": total(main),
        "classes": total(&c.classes),
        "tiers": c.tiers,
        "counted": counted,
        "by_value": by_value(main),
        "by_remoteness": by_rem(main),
        "classes_by_value": by_value(&c.classes),
        "classes_by_remoteness": by_rem(&c.classes),
        "by_grundy": by_grundy(main_grundy, main_no_grundy),
        "classes_by_grundy": by_grundy(&c.class_grundy, c.class_no_grundy),
        "source": "database",
        "positions_visited": 0,
        "seconds": seconds,
    })
}
