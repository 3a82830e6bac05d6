fn main() {
    std::process::exit(gamesman::cli::main());
}
