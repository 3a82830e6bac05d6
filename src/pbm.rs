//! Plain PBM (`P1`) boards: parse and write.
//!
//! The whole plain format: the magic `P1`, width and height, then width × height pixels,
//! `1` for a token and `0` for an empty cell. Whitespace of any kind separates tokens,
//! `#` starts a comment that runs to the end of the line, and pixels may be packed
//! (`0110`) or spaced (`0 1 1 0`). Nothing may follow the pixels but whitespace and comments.
//! This module has no dependencies, so the lean contest binary can use it too.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PbmError(pub String);

impl fmt::Display for PbmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PbmError {}

/// A parsed board: `cells[r * width + c]` is true where there is a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bitmap {
    pub width: usize,
    pub height: usize,
    pub cells: Vec<bool>,
}

/// Largest board accepted: keeps a hostile header from asking for a huge allocation.
pub const MAX_CELLS: usize = 1 << 26;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// Skip whitespace and comments.
    fn skip(&mut self) {
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.at += 1,
                b'#' => {
                    while self.at < self.bytes.len() && self.bytes[self.at] != b'\n' {
                        self.at += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn number(&mut self, what: &str) -> Result<usize, PbmError> {
        self.skip();
        let start = self.at;
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_digit() {
            self.at += 1;
        }
        if start == self.at {
            return Err(PbmError(format!("expected the {what} (a whole number) at byte {start}")));
        }
        std::str::from_utf8(&self.bytes[start..self.at])
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
            .ok_or_else(|| PbmError(format!("the {what} is too large")))
    }
}

pub fn parse(text: &[u8]) -> Result<Bitmap, PbmError> {
    let mut r = Reader { bytes: text, at: 0 };
    r.skip();
    if !text[r.at..].starts_with(b"P1") {
        return Err(PbmError("not a plain PBM board: it must start with the magic number P1".into()));
    }
    r.at += 2;
    if r.at < text.len() && !matches!(text[r.at], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | b'#') {
        return Err(PbmError("the magic number P1 must be followed by whitespace".into()));
    }
    let width = r.number("width")?;
    let height = r.number("height")?;
    let cells_wanted = width
        .checked_mul(height)
        .filter(|&n| n <= MAX_CELLS)
        .ok_or_else(|| PbmError(format!("a {width}×{height} board is larger than {MAX_CELLS} cells")))?;
    let mut cells = Vec::with_capacity(cells_wanted);
    while cells.len() < cells_wanted {
        r.skip();
        match text.get(r.at) {
            Some(b'0') => cells.push(false),
            Some(b'1') => cells.push(true),
            Some(&b) => {
                return Err(PbmError(format!("pixel {} must be 0 or 1, found {:?}", cells.len() + 1, char::from(b))));
            }
            None => {
                return Err(PbmError(format!("the board ends after {} of its {} pixels", cells.len(), cells_wanted)));
            }
        }
        r.at += 1;
    }
    r.skip();
    if r.at < text.len() {
        return Err(PbmError(format!("unexpected data after the {cells_wanted} pixels at byte {}", r.at)));
    }
    Ok(Bitmap { width, height, cells })
}

/// Write a plain PBM, one row per line, pixels separated by spaces.
pub fn write(width: usize, height: usize, get: impl Fn(usize, usize) -> bool) -> String {
    let mut s = format!("P1\n{width} {height}\n");
    for r in 0..height {
        for c in 0..width {
            if c > 0 {
                s.push(' ');
            }
            s.push(if get(r, c) { '1' } else { '0' });
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_comments_packed_and_spaced_pixels() {
        let b = parse(b"# a board\nP1 # magic\n3 2\n101\n0 1\t0\n").unwrap();
        assert_eq!((b.width, b.height), (3, 2));
        assert_eq!(b.cells, vec![true, false, true, false, true, false]);
    }

    #[test]
    fn refuses_what_is_not_p1() {
        assert!(parse(b"P4\n1 1\n1\n").is_err());
        assert!(parse(b"P1\n2 2\n1 1 1\n").is_err()); // too few pixels
        assert!(parse(b"P1\n1 1\n2\n").is_err()); // not a pixel
        assert!(parse(b"P1\n1 1\n1 1\n").is_err()); // extra pixel
        assert!(parse(b"P1\n99999999 99999999\n").is_err()); // too large
        assert!(parse(b"").is_err());
        assert!(parse(b"P12 1 1\n").is_err());
    }

    #[test]
    fn writes_what_it_reads() {
        let b = parse(b"P1\n2 2\n1 0\n0 1\n").unwrap();
        let s = write(2, 2, |r, c| b.cells[r * 2 + c]);
        assert_eq!(s, "P1\n2 2\n1 0\n0 1\n");
    }
}
