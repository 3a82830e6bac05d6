//! Plain PBM (`P1`) boards, read as a stream into a bit-packed [`Board`].
//!
//! The whole plain format: the magic `P1`, width and height, then width × height pixels,
//! `1` for a token and `0` for an empty cell. Whitespace of any kind separates tokens, `#`
//! starts a comment that runs to the end of the line, and pixels may be packed (`0110`) or
//! spaced (`0 1 1 0`). Nothing may follow the pixels but whitespace and comments.
//!
//! The input is read in small chunks and the board is stored one bit per cell, so reading a
//! board needs about width × height / 8 bytes, whatever the size of the text.

use std::fmt;
use std::io::Read;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PbmError(pub String);

impl fmt::Display for PbmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PbmError {}

/// A board: one bit per cell, row by row, each row starting on a fresh 64-bit word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    pub width: usize,
    pub height: usize,
    stride: usize,
    words: Vec<u64>,
}

impl Board {
    #[inline]
    pub fn new(width: usize, height: usize) -> Board {
        let stride = width.div_ceil(64);
        Board { width, height, stride, words: vec![0; stride * height] }
    }

    /// [`Board::new`], or `None` when the memory cannot be had.
    #[inline]
    pub fn try_new(width: usize, height: usize) -> Option<Board> {
        let stride = width.div_ceil(64);
        let len = stride.checked_mul(height)?;
        let mut words = Vec::new();
        words.try_reserve_exact(len).ok()?;
        words.resize(len, 0);
        Some(Board { width, height, stride, words })
    }

    #[inline]
    pub fn get(&self, r: usize, c: usize) -> bool {
        self.words[r * self.stride + c / 64] >> (c % 64) & 1 == 1
    }

    #[inline]
    pub fn set(&mut self, r: usize, c: usize, on: bool) {
        let w = &mut self.words[r * self.stride + c / 64];
        if on {
            *w |= 1 << (c % 64);
        } else {
            *w &= !(1 << (c % 64));
        }
    }

    #[inline]
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Bytes the board holds.
    #[inline]
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

struct Stream<R> {
    reader: R,
    buf: Vec<u8>,
    at: usize,
    len: usize,
    offset: u64,
}

impl<R: Read> Stream<R> {
    fn peek(&mut self) -> Result<Option<u8>, PbmError> {
        if self.at == self.len {
            self.offset += self.len as u64;
            self.len = loop {
                match self.reader.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(PbmError(format!("cannot read the board: {e}"))),
                }
            };
            self.at = 0;
            if self.len == 0 {
                return Ok(None);
            }
        }
        Ok(Some(self.buf[self.at]))
    }

    fn bump(&mut self) {
        self.at += 1;
    }

    fn position(&self) -> u64 {
        self.offset + self.at as u64
    }

    /// Skip whitespace and comments.
    fn skip(&mut self) -> Result<(), PbmError> {
        while let Some(b) = self.peek()? {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.bump(),
                b'#' => {
                    while let Some(b) = self.peek()? {
                        if b == b'\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn number(&mut self, what: &str) -> Result<usize, PbmError> {
        self.skip()?;
        let start = self.position();
        let mut n: usize = 0;
        let mut digits = 0;
        while let Some(b) = self.peek()? {
            if !b.is_ascii_digit() {
                break;
            }
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add((b - b'0') as usize))
                .ok_or_else(|| PbmError(format!("the {what} is too large")))?;
            digits += 1;
            self.bump();
        }
        if digits == 0 {
            return Err(PbmError(format!("expected the {what} (a whole number) at byte {start}")));
        }
        Ok(n)
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Read a plain PBM board of at most `max_cells` cells.
pub fn read(reader: impl Read, max_cells: u64) -> Result<Board, PbmError> {
    let mut s = Stream { reader, buf: vec![0; 1 << 16], at: 0, len: 0, offset: 0 };
    s.skip()?;
    for expected in [b'P', b'1'] {
        match s.peek()? {
            Some(b) if b == expected => s.bump(),
            _ => return Err(PbmError("not a plain PBM board: it must start with the magic number P1".into())),
        }
    }
    match s.peek()? {
        Some(b) if is_space(b) || b == b'#' => {}
        _ => return Err(PbmError("the magic number P1 must be followed by whitespace".into())),
    }
    let width = s.number("width")?;
    let height = s.number("height")?;
    let cells = (width as u64)
        .checked_mul(height as u64)
        .filter(|&n| n <= max_cells)
        .ok_or_else(|| PbmError(format!("a {width}×{height} board is larger than the {max_cells} cells allowed")))?;
    // A board with no cells is the empty board, whatever its other side (a 0×10^18 board
    // would otherwise have 10^18 empty rows to walk).
    let (width, height) = if cells == 0 { (0, 0) } else { (width, height) };
    let mut board = Board::try_new(width, height)
        .ok_or_else(|| PbmError(format!("not enough memory for a {width}×{height} board")))?;
    let mut i: u64 = 0;
    while i < cells {
        s.skip()?;
        match s.peek()? {
            Some(b'0') => {}
            Some(b'1') => board.set((i / width as u64) as usize, (i % width as u64) as usize, true),
            Some(b) => {
                return Err(PbmError(format!("pixel {} must be 0 or 1, found {:?}", i + 1, char::from(b))));
            }
            None => return Err(PbmError(format!("the board ends after {i} of its {cells} pixels"))),
        }
        s.bump();
        i += 1;
    }
    s.skip()?;
    if s.peek()?.is_some() {
        return Err(PbmError(format!("unexpected data after the {cells} pixels at byte {}", s.position())));
    }
    Ok(board)
}

/// Parse a whole text at once (at most 2^26 cells).
pub fn parse(text: &[u8]) -> Result<Board, PbmError> {
    read(text, 1 << 26)
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
        let cells: Vec<bool> = (0..2).flat_map(|r| (0..3).map(move |c| (r, c))).map(|(r, c)| b.get(r, c)).collect();
        assert_eq!(cells, vec![true, false, true, false, true, false]);
    }

    #[test]
    fn refuses_what_is_not_p1() {
        assert!(parse(b"P4\n1 1\n1\n").is_err());
        assert!(parse(b"P1\n2 2\n1 1 1\n").is_err()); // too few pixels
        assert!(parse(b"P1\n1 1\n2\n").is_err()); // not a pixel
        assert!(parse(b"P1\n1 1\n1 1\n").is_err()); // extra pixel
        assert!(parse(b"P1\n99999999 99999999\n").is_err()); // too large
        assert!(parse(b"P1\n99999999999999999999999 1\n").is_err()); // overflows
        assert!(parse(b"").is_err());
        assert!(parse(b"P12 1 1\n").is_err());
        assert!(parse(b"P1\n-1 1\n").is_err());
    }

    #[test]
    fn a_board_without_cells_is_empty_whatever_its_other_side() {
        // Found by the fuzzer: walking a 0×10^18 board's rows never ended.
        for text in [&b"P1 0 1000000000000000000\n"[..], b"P1 1000000000000000000 0\n", b"P1 0 0"] {
            let b = parse(text).unwrap();
            assert_eq!((b.width, b.height, b.count()), (0, 0, 0));
        }
        assert!(parse(b"P1 0 5 1").is_err()); // a pixel too many
    }

    #[test]
    fn writes_what_it_reads() {
        let b = parse(b"P1\n2 2\n1 0\n0 1\n").unwrap();
        let s = write(2, 2, |r, c| b.get(r, c));
        assert_eq!(s, "P1\n2 2\n1 0\n0 1\n");
    }

    #[test]
    fn reads_across_chunk_boundaries() {
        // More than one 64 KiB chunk of text, with a comment straddling chunks.
        let mut text = b"P1\n300 300\n".to_vec();
        for r in 0..300 {
            for c in 0..300 {
                text.extend_from_slice(if (r + c) % 3 == 0 { b"1 " } else { b"0 " });
            }
            text.extend_from_slice(b"# row comment\n");
        }
        let b = parse(&text).unwrap();
        assert_eq!(b.count(), (0..300).flat_map(|r| (0..300).map(move |c| (r + c) % 3 == 0)).filter(|&x| x).count());
    }
}
