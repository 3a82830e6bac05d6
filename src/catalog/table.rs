//! The games written in Rust that ship with gamesman: one row each.
//!
//! To add a native game: write its module in `src/native/` (a type implementing
//! [`crate::game::Game`], built from the [`crate::game::GameInfo`] of the definition that names it), then
//! add its row here: the name a definition's `native` uses, the constructor, a sampler of
//! random small positions for `gamesman check`, and the positions `gamesman bench` times.

use super::Native;
use crate::native::{chomp, connect4, lightsout, nim, nimrod, quixo, tactix};

/// The shipped native modules.
pub fn natives() -> Vec<Native> {
    vec![
        Native::new("nim", nim::Nim::new).sample(nim::sample).bench("4,5,6,7", "value + remoteness + Grundy"),
        Native::new("nimrod", nimrod::Nimrod::new).sample(nimrod::sample).bench("20,30", "value + remoteness + Grundy"),
        Native::new("chomp", chomp::Chomp::new).sample(chomp::sample).bench("88888888", "value + remoteness + Grundy"),
        Native::budgeted("tactix", tactix::TacTix::within)
            .sample(tactix::sample)
            .bench("P1 4 4 1111 1111 1111 1111", "full 4×4 board"),
        Native::new("lightsout", lightsout::LightsOut::new)
            .sample(lightsout::sample)
            .bench("#0#0##0/0#0#0#0/##00#0#/#000000/#0#0#00/#0##0##", "7×6, 21 presses"),
        Native::new("quixo", quixo::Quixo::new).sample(quixo::sample).bench("3x3", "whole 3×3 game, loopy"),
        Native::new("connect4", connect4::Connect4::new).sample(connect4::sample).bench("4x4k4", "whole 4×4 game"),
    ]
}
