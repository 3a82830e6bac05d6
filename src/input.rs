//! What comes in from outside, bounded: text read from a file, stdin or a person is read up to
//! a limit the memory budget sets (never whole first), and input quoted back in a message is
//! cut to a few dozen characters.

use std::io::Read;
use std::path::Path;

/// Characters of input a message quotes; the rest is "…".
pub const QUOTE_CHARS: usize = 40;

/// Characters of an error message the command line prints; the rest is cut.
pub const MAX_MESSAGE: usize = 2000;

/// The longest line `gamesman play` reads from a person (a move or a command).
pub const MAX_LINE: usize = 64 << 10;

/// The most bytes of position text (a file, stdin) a command reads within a memory budget of
/// `budget` bytes: a sixteenth of it (a position's parsed form takes up to about 4 bytes a
/// byte of text, and a search holds many), and never less than 64 KiB.
pub fn position_limit(budget: usize) -> usize {
    (budget / 16).max(64 << 10)
}

/// The most bytes a definition file (script, descriptor) may have within a memory budget of
/// `budget` bytes: the same as a position's.
pub fn definition_limit(budget: usize) -> usize {
    position_limit(budget)
}

/// `text` quoted for a message: as `{:?}` writes it, cut after [`QUOTE_CHARS`] characters
/// with "…" (and its length said) when it is longer.
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &text[..cut], text.len()),
    }
}

/// At most `limit` bytes from `r` as text; past it, an error naming `what` and the limit.
pub fn read_text(r: impl Read, limit: usize, what: &str) -> Result<String, String> {
    let mut bytes = Vec::new();
    r.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {what}: {e}"))?;
    if bytes.len() > limit {
        return Err(format!("{what} is more than {}, past the memory budget (raise --max-memory)", size(limit)));
    }
    String::from_utf8(bytes).map_err(|_| format!("{what} is not text (UTF-8)"))
}

/// A definition file's text, refused past [`definition_limit`] before it is read.
pub fn read_definition(path: &Path, budget: usize) -> Result<String, String> {
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    read_text(f, definition_limit(budget), "the file")
}

/// A number of bytes in the unit that reads best.
pub fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 { format!("{} MiB", bytes >> 20) } else { format!("{} KiB", bytes >> 10) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_cuts_long_text() {
        assert_eq!(quote("abc"), "\"abc\"");
        let long = "é".repeat(100);
        assert_eq!(quote(&long), format!("{:?}… (200 bytes)", "é".repeat(40)));
    }

    #[test]
    fn read_text_stops_at_the_limit() {
        assert_eq!(read_text(&b"12345"[..], 5, "x").unwrap(), "12345");
        assert!(read_text(&b"123456"[..], 5, "x").unwrap_err().contains("more than 0 KiB"));
    }
}
