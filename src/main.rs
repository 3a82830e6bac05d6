/// Counted, so that a script call can be held to the memory budget (see `gamesman::meter`).
#[global_allocator]
static METER: gamesman::meter::Meter = gamesman::meter::Meter;

fn main() {
    // `main` stops quietly when the reader of the output goes away (`gamesman play ... | head`).
    std::process::exit(gamesman::cli::main());
}
