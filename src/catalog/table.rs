//! The games written in Rust that ship with gamesman: one row each.
//!
//! To add a native game: write its module in `src/native/` (a type implementing
//! [`crate::game::Game`], built from the [`crate::game::GameInfo`] of the definition that names it), then
//! add its row here: the name a definition's `native` uses, the constructor, the shipped
//! definitions that name it, a sampler of random small positions for `gamesman check`, the
//! positions `gamesman bench` times, and its assignment's own command if it has one (the
//! command line runs `gamesman nim ...` through this row, [`super::Catalog::assignment`]).

use super::row::Native;
use crate::native::{chomp, connect4, lightsout, nim, nimrod, quixo, tactix};

/// The shipped native modules.
pub fn natives() -> Vec<Native> {
    vec![
        Native::new("nim", nim::Nim::new)
            .backs("nim.rhai")
            .backs("nim.ron")
            .sample(nim::sample)
            .bench("4,5,6,7", "value + remoteness + Grundy")
            .assignment(nim::command, None),
        Native::new("nimrod", nimrod::Nimrod::new)
            .backs("nimrod.rhai")
            .backs("nimrod.ron")
            .sample(nimrod::sample)
            .bench("20,30", "value + remoteness + Grundy")
            .assignment(nimrod::command, Some(nimrod::bench_work)),
        Native::new("chomp", chomp::Chomp::new)
            .backs("chomp.rhai")
            .backs("chomp.ron")
            .sample(chomp::sample)
            .bench("88888888", "value + remoteness + Grundy")
            .assignment(chomp::command, Some(chomp::bench_work)),
        Native::budgeted("tactix", tactix::TacTix::within)
            .backs("tactix.rhai")
            .backs("tactix.ron")
            .sample(tactix::sample)
            .bench("P1 4 4 1111 1111 1111 1111", "full 4×4 board")
            .assignment(tactix::command, None),
        Native::new("lightsout", lightsout::LightsOut::new)
            .backs("lightsout.rhai")
            .backs("lightsout.ron")
            .sample(lightsout::sample)
            .bench("#0#0##0/0#0#0#0/##00#0#/#000000/#0#0#00/#0##0##", "7×6, 21 presses")
            .assignment(lightsout::command, Some(lightsout::bench_work)),
        Native::new("quixo", quixo::Quixo::new)
            .backs("quixo.rhai")
            .sample(quixo::sample)
            .bench("3x3", "whole 3×3 game, loopy"),
        Native::new("connect4", connect4::Connect4::new)
            .backs("connect4.rhai")
            .sample(connect4::sample)
            .bench("4x4k4", "whole 4×4 game"),
    ]
}

#[cfg(test)]
mod tests {
    use super::natives;
    use crate::game::Game;

    /// Each row's definitions are shipped and name the row, and every shipped definition that
    /// names a native module is among its row's: read from the files themselves.
    #[test]
    fn rows_and_shipped_definitions_name_each_other() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("games");
        let rows = natives();
        for (file, _) in super::super::shipped::SHIPPED {
            let path = dir.join(file);
            let named = match path.extension().and_then(|e| e.to_str()) {
                Some("rhai") => crate::script::ScriptGame::load(&path).unwrap().info().native.clone(),
                _ => crate::descriptor::DescriptorGame::load(&path).unwrap().info().native.clone(),
            };
            let backing: Vec<&str> =
                rows.iter().filter(|n| n.definitions.iter().any(|d| d == file)).map(|n| n.name.as_str()).collect();
            assert_eq!(backing, named.iter().map(String::as_str).collect::<Vec<_>>(), "{file}");
        }
        for n in &rows {
            assert!(!n.definitions.is_empty(), "{} backs no shipped definition", n.name);
        }
        let commands: Vec<&str> = rows.iter().filter(|n| n.assignment.is_some()).map(|n| n.name.as_str()).collect();
        assert_eq!(commands, ["nim", "nimrod", "chomp", "tactix", "lightsout"]);
    }
}
