//! Big script games (issue #29): Hex with the `connects` and `placements` helpers against a
//! flood fill written here, and Quixo numbered by tiers against the independent 3×3 oracle
//! (`tests/oracles/quixo.py`, `tests/data/quixo3.jsonl`).

use gamesman::catalog::{Catalog, Database, Engine, How};
use gamesman::game::Value;
use std::collections::{HashMap, HashSet};

use crate::common;

/// Whether `who` joins its sides on an n×n Hex board of cells (no separators): a flood fill
/// written out here, cell (r, c) touching (r, c±1), (r±1, c), (r-1, c+1), (r+1, c-1); X
/// joins the top and bottom rows, O the left and right columns.
fn joined(b: &[u8], n: usize, who: u8) -> bool {
    let mut todo: Vec<usize> = (0..n).map(|i| if who == b'x' { i } else { i * n }).filter(|&c| b[c] == who).collect();
    let mut seen: HashSet<usize> = todo.iter().copied().collect();
    while let Some(c) = todo.pop() {
        let (r, k) = (c / n, c % n);
        if (who == b'x' && r == n - 1) || (who == b'o' && k == n - 1) {
            return true;
        }
        let (r, k, m) = (r as i64, k as i64, n as i64);
        for (dr, dc) in [(0, -1), (0, 1), (-1, 0), (1, 0), (-1, 1), (1, -1)] {
            let (rr, kk) = (r + dr, k + dc);
            if rr >= 0 && kk >= 0 && rr < m && kk < m {
                let j = (rr * m + kk) as usize;
                if b[j] == who && seen.insert(j) {
                    todo.push(j);
                }
            }
        }
    }
    false
}

/// Every position reachable on the n×n board, with its value for the player to move and
/// remoteness (win: 1 + the least remoteness of a losing child; loss: 1 + the most), by a
/// plain negamax over the cells here.
fn hex_oracle(n: usize) -> HashMap<Vec<u8>, (Value, u32)> {
    fn solve(b: &mut Vec<u8>, n: usize, out: &mut HashMap<Vec<u8>, (Value, u32)>) -> (Value, u32) {
        if let Some(&v) = out.get(b.as_slice()) {
            return v;
        }
        let x = b.iter().filter(|&&c| c == b'x').count();
        let o = b.iter().filter(|&&c| c == b'o').count();
        let (me, them) = if x == o { (b'x', b'o') } else { (b'o', b'x') };
        let v = if joined(b, n, them) {
            (Value::Lose, 0)
        } else {
            let (mut win, mut lose) = (None::<u32>, 0u32);
            for i in 0..n * n {
                if b[i] == b'.' {
                    b[i] = me;
                    let (cv, cr) = solve(b, n, out);
                    b[i] = b'.';
                    match cv {
                        Value::Lose => win = Some(win.map_or(cr, |w| w.min(cr))),
                        _ => lose = lose.max(cr),
                    }
                }
            }
            match win {
                Some(w) => (Value::Win, w + 1),
                None => (Value::Lose, lose + 1),
            }
        };
        out.insert(b.clone(), v);
        v
    }
    let mut out = HashMap::new();
    solve(&mut vec![b'.'; n * n], n, &mut out);
    out
}

fn text(b: &[u8], n: usize) -> String {
    b.chunks(n).map(|r| String::from_utf8(r.to_vec()).unwrap()).collect::<Vec<_>>().join("/")
}

/// The Hex script with helpers agrees with the flood fill above at every position reachable
/// on the 3×3 board (value and remoteness), and on the 2×2 and 4×4 empty boards' value.
#[test]
fn hex_with_helpers_agrees_with_a_flood_fill() {
    let how = How { database: Database::Off, ..How::default() };
    let file = common::root().join("tests/games/hex_helpers.rhai");
    let mut s = Catalog::new().open(file.to_str().unwrap(), &how).expect("the script opens");
    for n in [2, 3] {
        let known = hex_oracle(n);
        assert!(known.len() > 10);
        for (b, &(value, remoteness)) in &known {
            let (sol, _) = s.value(&text(b, n)).expect("a value");
            assert_eq!((sol.value, sol.remoteness), (value, Some(remoteness)), "{}", text(b, n));
        }
        assert_eq!(known[&vec![b'.'; n * n]].0, Value::Win, "Nash: the first player wins {n}x{n}");
    }
    // Whose turn follows the counts; a board whose counts cannot happen is refused.
    assert!(s.value("xx./.../...").is_err());
}

/// Quixo by tiers: games/quixo-tiers.rhai with its side set to 3, saved by the tier solver,
/// answers every one of the oracle's 32,027 reachable 3×3 positions from the arrays with the
/// oracle's value and remoteness.
#[test]
fn quixo_by_tiers_agrees_with_the_oracle_on_3x3() {
    let src = std::fs::read_to_string(common::root().join("games/quixo-tiers.rhai")).unwrap();
    assert!(src.contains("\nconst N = 4;"), "the script's side is the constant N");
    let src =
        src.replace("\nconst N = 4;", "\nconst N = 3;").replace("const START = \"4x4\";", "const START = \"3x3\";");
    let dir = common::temp_dir("quixo-tiers");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("quixo3.rhai");
    std::fs::write(&file, src).unwrap();
    let db = dir.join("db");
    let out = common::bin()
        .args(["solve", file.to_str().unwrap(), "--save", "--no-pack", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Saved by the tier solver: one array a tier, (X, O) with X + O ≤ 9 is 55 tiers.
    let tiers = std::fs::read_dir(&db)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "tier"))
        .count();
    assert_eq!(tiers, 55);
    let how = How { engine: Engine::Definition, database: Database::At(db.clone()), ..How::default() };
    let mut s = Catalog::new().open(file.to_str().unwrap(), &how).expect("the script opens");
    let oracle = common::known(include_str!("../data/quixo3.jsonl"));
    assert_eq!(oracle.len(), 32_027);
    let wrong = common::disagreements_from_database(&mut *s, &oracle);
    assert!(wrong.is_empty(), "{} disagreements, first: {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Domineering's value for the player to move, by a plain negamax over a bitmask of covered
/// cells written here: vertical (`down`) covers (r, c) and (r + 1, c), horizontal (r, c) and
/// (r, c + 1); who cannot move loses. Fills `out` with every position reached.
fn domineering(rows: usize, cols: usize, cov: u64, down: bool, out: &mut HashMap<(u64, bool), bool>) -> bool {
    if let Some(&w) = out.get(&(cov, down)) {
        return w;
    }
    let mut win = false;
    for r in 0..rows {
        for c in 0..cols {
            let (i, j) = if down { (r * cols + c, (r + 1) * cols + c) } else { (r * cols + c, r * cols + c + 1) };
            let fits = if down { r + 1 < rows } else { c + 1 < cols };
            if fits
                && cov >> i & 1 == 0
                && cov >> j & 1 == 0
                && !domineering(rows, cols, cov | 1 << i | 1 << j, !down, out)
            {
                win = true;
            }
        }
    }
    out.insert((cov, down), win);
    win
}

/// The Domineering script with `pairs` and the mirrors agrees with the negamax above at every
/// position reachable on 3×4 and 4×3 (either player first), and gives the published values
/// of the square boards to 5×5 (the first player wins 2×2 to 4×4 and loses 5×5: Breuker,
/// Uiterwijk and van den Herik).
#[test]
fn domineering_with_helpers_agrees_with_a_negamax() {
    let how = How { database: Database::Off, ..How::default() };
    let file = common::root().join("tests/games/domineering_helpers.rhai");
    let mut s = Catalog::new().open(file.to_str().unwrap(), &how).expect("the script opens");
    for (rows, cols) in [(3, 4), (4, 3)] {
        let mut known = HashMap::new();
        domineering(rows, cols, 0, true, &mut known);
        domineering(rows, cols, 0, false, &mut known);
        assert!(known.len() > 100);
        for (&(cov, down), &win) in &known {
            let cells: Vec<String> = (0..rows)
                .map(|r| (0..cols).map(|c| if cov >> (r * cols + c) & 1 == 1 { '#' } else { '.' }).collect())
                .collect();
            let text = format!("{}{}", cells.join("/"), if down { "" } else { " o" });
            let (sol, _) = s.value(&text).expect("a value");
            assert_eq!(sol.value, if win { Value::Win } else { Value::Lose }, "{text}");
        }
    }
    for (n, first_wins) in [(2, true), (3, true), (4, true), (5, false)] {
        let (sol, _) = s.value(&format!("{n}x{n}")).expect("a value");
        assert_eq!(sol.value == Value::Win, first_wins, "{n}x{n}");
    }
}
