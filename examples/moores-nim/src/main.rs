//! `moores-nim`: gamesman's every command, with Moore's Nim among its games.
//!
//! ```text
//! cargo run -p moores-nim -- solve moores-nim "k=2 3,4,5"
//! cargo run -p moores-nim -- serve moores-nim
//! ```

fn main() {
    let catalog = gamesman::catalog::Catalog::new().with_native(moores_nim::row());
    std::process::exit(gamesman::cli::main_with(catalog));
}
