//! Grundy values of a solved tier, in waves over its positions (see "Grundy values" in the
//! tier solver's note, [`super`]).

use super::Up;
use crate::db::array::{MAX_GRUNDY, NO_GRUNDY, Rec, TierArray, unrec};
use crate::game::tier::{Tier, TierSpace};
use crate::game::{GameError, GameResult, Value};
use rayon::prelude::*;
use std::collections::HashMap;

/// The Grundy values of a solved tier (`None` where no position has one), in waves: a
/// position once all its children in the tier have theirs (see the module's note).
pub(super) fn grundy_values(
    space: &dyn TierSpace,
    tier: Tier,
    recs: &[Rec],
    children_of: &HashMap<Tier, TierArray>,
    up: &Up,
    mut wave: Vec<u32>,
    mut same_left: Vec<u8>,
) -> GameResult<Option<Vec<u16>>> {
    let name = space.tier_name(tier);
    let normal = |v: Value| if v == Value::Lose { 0 } else { NO_GRUNDY };
    let mut g: Vec<u16> = vec![NO_GRUNDY; recs.len()];
    let (mut buf, mut scratch) = (Vec::new(), Vec::new());
    let mut any = false;
    while !wave.is_empty() {
        let values: Vec<u16> = wave
            .par_iter()
            .map_init(
                || (Vec::with_capacity(64), Vec::with_capacity(64)),
                |(kids, seen): &mut (Vec<(Tier, u64)>, Vec<u16>), &i| -> GameResult<u16> {
                    if let Some(v) = space.primitive_at(tier, i as u64) {
                        return Ok(normal(v));
                    }
                    kids.clear();
                    space.children_at(tier, i as u64, kids);
                    if kids.is_empty() {
                        return Ok(normal(space.stalemate_value()));
                    }
                    seen.clear();
                    for &(t, j) in kids.iter() {
                        let x = if t == tier {
                            g[j as usize]
                        } else {
                            children_of
                                .get(&t)
                                .and_then(|a| a.grundy.as_ref())
                                .and_then(|a| a.get(j as usize).copied())
                                .unwrap_or(NO_GRUNDY)
                        };
                        if x == NO_GRUNDY {
                            return Ok(NO_GRUNDY);
                        }
                        seen.push(x);
                    }
                    seen.sort_unstable();
                    seen.dedup();
                    // The mex: the first value missing from the sorted distinct values.
                    let mex = seen.iter().enumerate().take_while(|&(k, &x)| k as u16 == x).count() as u64;
                    if mex > MAX_GRUNDY {
                        return Err(GameError::Unsupported(format!(
                            "a Grundy value in tier {name} passes {MAX_GRUNDY}, more than the arrays hold"
                        )));
                    }
                    // Normal play: the position is a win exactly when its Grundy value is not 0.
                    let won = unrec(recs[i as usize]).map(|(v, _)| v) == Some(Value::Win);
                    if won != (mex != 0) {
                        return Err(GameError::Definition(format!(
                            "tier {name}, index {i}: Grundy value {mex} but the value is {}: the game is not \
                             impartial under normal play",
                            unrec(recs[i as usize]).map_or("none".into(), |(v, _)| v.to_string())
                        )));
                    }
                    Ok(mex as u16)
                },
            )
            .collect::<GameResult<_>>()?;
        for (&i, &v) in wave.iter().zip(&values) {
            g[i as usize] = v;
            any |= v != NO_GRUNDY;
        }
        let mut next = Vec::new();
        for &p in &wave {
            for &q in up.of(p, &mut buf, &mut scratch) {
                let c = &mut same_left[q as usize];
                // A primitive parent (listed by the game) waits on nothing.
                if *c > 0 {
                    *c -= 1;
                    if *c == 0 {
                        next.push(q);
                    }
                }
            }
        }
        wave = next;
    }
    // What the waves never reached is on a loop, or leads to one: no Grundy value.
    Ok(any.then_some(g))
}
