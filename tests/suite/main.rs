//! The integration tests, one binary: each module tests one subject through the `gamesman`
//! binary or the library's public API, against values found independently (docs/testing.md
//! lists each module, what it checks and where its expected values come from).
//!
//! `cargo test --release --test suite MODULE::` runs one module; the tests of the MPI build
//! are their own binary (`tests/mpi.rs`, `--features mpi`).

#[path = "../common/mod.rs"]
mod common;

mod boards;
mod cli;
mod connect4;
mod database;
mod desc_tiers;
mod descriptor_newuser;
mod descriptors;
mod fuzz;
mod hostile;
mod limits;
mod moves_command;
mod moving;
mod native;
mod never_abort;
mod parallel;
mod play;
mod points;
mod quixo;
mod reference_vectors;
mod script_engine;
mod script_scale;
mod script_tiers;
mod serve;
mod solvers;
mod sum;
mod tier_grundy;
mod tier_parents;
mod usability;
mod value_first;
