//! Embeds the shipped game definitions (`games/*.rhai`, `games/*.ron`) in the binary, so that
//! a binary copied away from its source tree still has them (see `catalog::shipped`).

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=games");
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("games");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the games directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "rhai" || e == "ron"))
        .collect();
    files.sort();
    // FNV-1a over every name and text: the folder the definitions are written out to is
    // named by it, so that a binary with other definitions never reads these.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out =
        String::from("/// The shipped definitions: (file name, text).\npub static SHIPPED: &[(&str, &str)] = &[\n");
    for f in &files {
        let name = f.file_name().expect("a file").to_string_lossy().into_owned();
        let text = std::fs::read(f).expect("readable");
        for b in name.bytes().chain([0]).chain(text.iter().copied()).chain([0]) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        writeln!(out, "    ({name:?}, include_str!({:?})),", f.display().to_string()).expect("to a string");
    }
    writeln!(out, "];\n/// A hash of [`SHIPPED`].\npub const SHIPPED_HASH: &str = \"{hash:016x}\";")
        .expect("to a string");
    let target = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("shipped_games.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}
