//! Time the native Chomp table: `cargo run --release --example chomp_dp [STATE]`.
fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "99999999999999999999".into());
    let h = gamesman::native::chomp::parse_state(&arg).unwrap();
    let t = std::time::Instant::now();
    let a = gamesman::native::chomp::answer(&h).unwrap();
    println!("{a} in {:.3} s ({:?} states)", t.elapsed().as_secs_f64(), gamesman::native::chomp::count_states(&h));
}
