/// Counted, so that a script call can be held to the memory budget (see `gamesman::meter`).
#[global_allocator]
static METER: gamesman::meter::Meter = gamesman::meter::Meter;

fn main() {
    // Like every Unix tool, stop quietly when the reader of our output goes away
    // (`gamesman play ... | head`), instead of panicking on a broken pipe.
    #[cfg(unix)]
    // SAFETY: called first thing, before any other thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // A file size limit (`ulimit -f`) is a write error like a full disk (EFBIG, reported with
    // the file's name), not a silent death by SIGXFSZ.
    #[cfg(unix)]
    // SAFETY: as above; SIG_IGN is a valid disposition.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    std::process::exit(gamesman::cli::main());
}
