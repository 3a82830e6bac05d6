//! Quixo (src/native/quixo.rs, games/quixo.rhai) against an independent solver: every
//! position reachable on the 3×3 board, solved by `tests/oracles/quixo.py` (boards as
//! strings, plain retrograde analysis, no symmetry) into `tests/data/quixo3.jsonl`.

use gamesman::catalog::{Catalog, Database, Engine, How};
use gamesman::game::Value;

struct Known {
    position: String,
    value: Value,
    remoteness: Option<u32>,
}

fn oracle() -> Vec<Known> {
    let text = include_str!("data/quixo3.jsonl");
    text.lines()
        .map(|line| {
            let j: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let value = match j["value"].as_str().expect("a value") {
                "win" => Value::Win,
                "lose" => Value::Lose,
                "tie" => Value::Tie,
                "draw" => Value::Draw,
                other => panic!("value {other}"),
            };
            Known {
                position: j["position"].as_str().expect("a position").to_string(),
                value,
                remoteness: j["remoteness"].as_u64().map(|r| r as u32),
            }
        })
        .collect()
}

/// The oracle's file is whole: 32,027 positions (its own count), the start a win in 7.
#[test]
fn oracle_data_is_whole() {
    let all = oracle();
    assert_eq!(all.len(), 32_027);
    let start = all.iter().find(|k| k.position == ".../.../... X").expect("the start");
    assert_eq!((start.value, start.remoteness), (Value::Win, Some(7)));
}

/// The native module's search agrees with the oracle at every reachable 3×3 position.
#[test]
fn native_search_agrees_with_the_oracle() {
    let how = How { engine: Engine::Native, database: Database::Off, ..How::default() };
    let mut s = Catalog::new().open("quixo", &how).expect("quixo opens");
    assert_eq!(s.engine(), "native");
    let mut wrong = Vec::new();
    for k in oracle() {
        let (sol, _) = s.value(&k.position).expect("a value");
        if (sol.value, sol.remoteness) != (k.value, k.remoteness) {
            wrong.push(format!("{}: {:?} {:?}, oracle {:?} {:?}", k.position, sol.value, sol.remoteness, k.value, k.remoteness));
        }
    }
    assert!(wrong.is_empty(), "{} disagreements, first: {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
}

/// The script agrees with the oracle at a sample of positions (the script is slow: every
/// 97th position).
#[test]
fn script_agrees_with_the_oracle() {
    let how = How { engine: Engine::Definition, database: Database::Off, ..How::default() };
    let mut s = Catalog::new().open("quixo", &how).expect("quixo opens");
    assert_eq!(s.engine(), "script");
    for k in oracle().iter().step_by(97) {
        let (sol, _) = s.value(&k.position).expect("a value");
        assert_eq!((sol.value, sol.remoteness), (k.value, k.remoteness), "{}", k.position);
    }
}
