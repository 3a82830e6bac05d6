//! Script positions as packed, hashable byte strings.
//!
//! A script's position is any Rhai value built from `()`, booleans, integers, characters,
//! strings, arrays, object maps and the native `Grid` type. The solvers need positions they
//! can hash and compare, so each one is converted to a [`Key`] on the way out of the script
//! and back to a Rhai value on the way in. Floating-point numbers are refused: `0.1 + 0.2`
//! and `0.3` would be different positions.
//!
//! A key is the value written out as bytes (see [`Key::from_dynamic`] for the encoding): a
//! tag byte for each value, integers as variable-length numbers, an array of integers that
//! all fit in a byte as one byte an entry, a grid as its bits. The encoding depends on the
//! value alone and no encoding is a prefix of another, so equal values always make equal
//! keys and different values different ones. A key of up to [`INLINE`] bytes is held in the
//! key itself (24 bytes, no allocation: the 8-puzzle's 9 cells take 11); a longer one in one
//! allocation of exactly its length. Compared with a tree of reference-counted Rhai-like
//! values, this takes a third to a tenth of the memory a position.

use crate::game::Footprint;
use crate::grid::Grid;
use rhai::{Array, Dynamic, Map};

/// How deeply arrays and maps may nest inside a position.
pub const MAX_NESTING: usize = 32;

/// The longest key held without an allocation.
pub const INLINE: usize = 22;

// One tag byte before each value.
const UNIT: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const INT: u8 = 3;
const CHAR: u8 = 4;
const STR: u8 = 5;
/// An array of integers from -128 to 127: its length, then one byte an entry.
const BYTES: u8 = 6;
/// An array of integers, some outside -128..=127: its length, then each as a varint.
const INTS: u8 = 7;
const ARRAY: u8 = 8;
const MAP: u8 = 9;
const GRID: u8 = 10;
/// An ASCII string of at most 16 distinct characters, where packing saves bytes: its length,
/// the number of distinct characters, those characters in increasing order, then each
/// character as its rank among them in 1, 2 or 4 bits (for 2, 4 or 16 distinct characters),
/// lowest bits first. A board written as `"..#.#"` takes a bit a cell.
const PACKED_STR: u8 = 11;

/// Bits a character of a string with `distinct` distinct characters packs into (0: not packed).
fn bits_for(distinct: usize) -> usize {
    match distinct {
        0..=2 => 1,
        3..=4 => 2,
        5..=16 => 4,
        _ => 0,
    }
}

/// A string, packed when that is shorter (see [`PACKED_STR`]); otherwise its UTF-8.
fn put_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    if s.is_ascii() && b.len() >= 4 {
        let mut seen = 0u128;
        for &c in b {
            seen |= 1 << c;
        }
        let distinct = seen.count_ones() as usize;
        let bits = bits_for(distinct);
        let packed = 1 + distinct + (b.len() * bits).div_ceil(8);
        if bits > 0 && packed < b.len() {
            out.push(PACKED_STR);
            put_varint(out, b.len() as u64);
            out.push(distinct as u8);
            // The distinct characters in increasing order (the set bits of `seen`), each's rank.
            let mut rank = [0u8; 128];
            let mut rest = seen;
            let mut k = 0;
            while rest != 0 {
                let c = rest.trailing_zeros() as u8;
                rank[c as usize] = k;
                out.push(c);
                k += 1;
                rest &= rest - 1;
            }
            // Eight characters' ranks a byte at 1 bit, four at 2, two at 4, lowest bits first.
            let per = 8 / bits;
            out.extend(b.chunks(per).map(|chunk| {
                chunk.iter().enumerate().fold(0u8, |byte, (j, &c)| byte | rank[c as usize] << (j * bits))
            }));
            return;
        }
    }
    out.push(STR);
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A script position, packed (see the module's documentation).
#[derive(Clone)]
pub struct Key(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<[u8]>),
}

impl Key {
    /// The packed bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, bytes } => &bytes[..*len as usize],
            Repr::Heap(b) => b,
        }
    }

    /// The key of `()` (a harmless answer where a position cannot be given).
    pub fn unit() -> Key {
        Key::from_bytes(&[UNIT])
    }

    fn from_bytes(b: &[u8]) -> Key {
        if b.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..b.len()].copy_from_slice(b);
            Key(Repr::Inline { len: b.len() as u8, bytes })
        } else {
            Key(Repr::Heap(b.into()))
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Key {}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.to_dynamic())
    }
}

impl Footprint for Key {
    fn heap_bytes(&self) -> usize {
        match &self.0 {
            Repr::Inline { .. } => 0,
            Repr::Heap(b) => b.len(),
        }
    }

    fn packed(&self) -> Option<&[u8]> {
        Some(self.as_bytes())
    }

    fn unpacked(bytes: &[u8]) -> Option<Self> {
        Some(Key::from_bytes(bytes))
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(i: i64) -> u64 {
    ((i << 1) ^ (i >> 63)) as u64
}

fn unzigzag(u: u64) -> i64 {
    (u >> 1) as i64 ^ -((u & 1) as i64)
}

/// A reader of packed bytes. The bytes were written by [`Key::from_dynamic`], so running
/// out of them or meeting an unknown tag is a bug, not bad input.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().expect("a key's bytes end inside a value");
        self.0 = rest;
        b
    }

    fn varint(&mut self) -> u64 {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = self.byte();
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let (a, rest) = self.0.split_at(n);
        self.0 = rest;
        a
    }

    fn str(&mut self) -> &str {
        let n = self.varint() as usize;
        std::str::from_utf8(self.take(n)).expect("a key's strings are UTF-8")
    }

    fn value(&mut self) -> Dynamic {
        match self.byte() {
            UNIT => Dynamic::UNIT,
            FALSE => Dynamic::from_bool(false),
            TRUE => Dynamic::from_bool(true),
            INT => Dynamic::from_int(unzigzag(self.varint())),
            CHAR => Dynamic::from_char(char::from_u32(self.varint() as u32).expect("a key's characters are valid")),
            STR => Dynamic::from(rhai::ImmutableString::from(self.str())),
            PACKED_STR => {
                let n = self.varint() as usize;
                let distinct = self.byte() as usize;
                let chars = self.take(distinct);
                let bits = bits_for(distinct);
                let packed = self.take((n * bits).div_ceil(8));
                let mask = (1u8 << bits) - 1;
                let ch = |i: usize| chars[(packed[i * bits / 8] >> (i * bits % 8) & mask) as usize];
                // A short string straight into the script's (no `String` made and copied).
                let mut short = [0u8; 64];
                if n <= short.len() {
                    short.iter_mut().take(n).enumerate().for_each(|(i, b)| *b = ch(i));
                    let text = std::str::from_utf8(&short[..n]).expect("packed strings are ASCII");
                    return Dynamic::from(rhai::ImmutableString::from(text));
                }
                Dynamic::from((0..n).map(|i| ch(i) as char).collect::<String>())
            }
            BYTES => {
                let n = self.varint() as usize;
                Dynamic::from_array(self.take(n).iter().map(|&b| Dynamic::from_int(i64::from(b as i8))).collect())
            }
            INTS => {
                let n = self.varint() as usize;
                Dynamic::from_array((0..n).map(|_| Dynamic::from_int(unzigzag(self.varint()))).collect())
            }
            ARRAY => {
                let n = self.varint() as usize;
                Dynamic::from_array((0..n).map(|_| self.value()).collect())
            }
            MAP => {
                let n = self.varint() as usize;
                let mut map = Map::new();
                for _ in 0..n {
                    let k = self.str().into();
                    map.insert(k, self.value());
                }
                Dynamic::from_map(map)
            }
            GRID => {
                let (rows, cols) = (self.varint() as usize, self.varint() as usize);
                let bits = self.take((rows * cols).div_ceil(8));
                let mut g = Grid::new(rows, cols);
                for i in 0..rows * cols {
                    if bits[i / 8] >> (i % 8) & 1 == 1 {
                        g.set(i / cols, i % cols, true);
                    }
                }
                Dynamic::from(g)
            }
            t => unreachable!("a key with the unknown tag {t}"),
        }
    }
}

impl Key {
    /// Convert a script value; `Err` names the type that cannot be a position.
    ///
    /// The encoding: `()` 0; `false` 1, `true` 2; an integer 3 then its zigzag varint; a
    /// character 4 then its code point as a varint; a string 5, its length in bytes as a
    /// varint, its UTF-8, or 11 and its characters packed where that is shorter (see
    /// the module's `PACKED_STR`); an array of integers all in -128..=127: 6, its length, a byte an
    /// entry; any other array of integers: 7, its length, each as a zigzag varint; any other
    /// array: 8, its length, each entry encoded; a map: 9, its number of entries, then in key
    /// order each key as a string (length, UTF-8) and its value encoded; a grid: 10, rows,
    /// columns, then its cells row by row, 8 to a byte, lowest bit first.
    pub fn from_dynamic(d: &Dynamic) -> Result<Key, String> {
        thread_local! {
            /// The bytes of the key being made: one buffer a thread, not an allocation a key.
            static OUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        OUT.with(|out| {
            let mut out = out.try_borrow_mut().map_err(|_| "a position made while making another".to_string())?;
            out.clear();
            Self::encode(d, 0, &mut out)?;
            let key = Key::from_bytes(&out);
            if out.capacity() > 1 << 16 {
                *out = Vec::new();
            }
            Ok(key)
        })
    }

    /// The keys of `items` (a `children` hook's answer), none of them `()`: one borrow of the
    /// thread's buffer for all of them. `Err(i)`: item `i` is `()` or cannot be a position
    /// (ask [`Key::from_dynamic`] of it for why).
    pub fn from_dynamics(items: &[Dynamic]) -> Result<Vec<Key>, usize> {
        thread_local! {
            static OUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        OUT.with(|out| {
            let mut out = out.try_borrow_mut().map_err(|_| 0usize)?;
            let mut keys = Vec::with_capacity(items.len());
            for (i, d) in items.iter().enumerate() {
                out.clear();
                if d.is_unit() || Self::encode(d, 0, &mut out).is_err() {
                    return Err(i);
                }
                keys.push(Key::from_bytes(&out));
            }
            if out.capacity() > 1 << 16 {
                *out = Vec::new();
            }
            Ok(keys)
        })
    }

    fn encode(d: &Dynamic, depth: usize, out: &mut Vec<u8>) -> Result<(), String> {
        if depth > MAX_NESTING {
            return Err(format!("a position nested more than {MAX_NESTING} levels deep"));
        }
        // A string first (the commonest board), by its type alone: each failed `as_…` below
        // costs Rhai a type name.
        if d.is_string()
            && let Ok(s) = d.as_immutable_string_ref()
        {
            put_str(out, s.as_str());
        } else if d.is_unit() {
            out.push(UNIT);
        } else if let Ok(b) = d.as_bool() {
            out.push(if b { TRUE } else { FALSE });
        } else if let Ok(i) = d.as_int() {
            out.push(INT);
            put_varint(out, zigzag(i));
        } else if let Ok(c) = d.as_char() {
            out.push(CHAR);
            put_varint(out, u64::from(c));
        } else if let Some(g) = d.read_lock::<Grid>() {
            out.push(GRID);
            let (rows, cols) = (g.rows(), g.cols());
            put_varint(out, rows as u64);
            put_varint(out, cols as u64);
            let start = out.len();
            out.resize(start + (rows * cols).div_ceil(8), 0);
            for i in 0..rows * cols {
                if g.get(i / cols, i % cols) {
                    out[start + i / 8] |= 1 << (i % 8);
                }
            }
        } else if let Some(a) = d.read_lock::<Array>() {
            if a.iter().all(|v| v.as_int().is_ok()) {
                let ints = a.iter().map(|v| v.as_int().unwrap_or_default());
                if ints.clone().all(|i| i8::try_from(i).is_ok()) {
                    out.push(BYTES);
                    put_varint(out, a.len() as u64);
                    out.extend(ints.map(|i| i as i8 as u8));
                } else {
                    out.push(INTS);
                    put_varint(out, a.len() as u64);
                    ints.for_each(|i| put_varint(out, zigzag(i)));
                }
            } else {
                out.push(ARRAY);
                put_varint(out, a.len() as u64);
                for v in a.iter() {
                    Self::encode(v, depth + 1, out)?;
                }
            }
        } else if let Some(m) = d.read_lock::<Map>() {
            out.push(MAP);
            put_varint(out, m.len() as u64);
            for (k, v) in m.iter() {
                put_varint(out, k.len() as u64);
                out.extend_from_slice(k.as_bytes());
                Self::encode(v, depth + 1, out)?;
            }
        } else {
            return Err(format!(
                "a value of type `{}`, but a position must be built from integers, strings, booleans, \
                 characters, arrays, maps and grids",
                d.type_name()
            ));
        }
        Ok(())
    }

    /// The script value again.
    pub fn to_dynamic(&self) -> Dynamic {
        Reader(self.as_bytes()).value()
    }

    /// The key of the string of ASCII characters `text` (as [`Key::from_dynamic`] of that
    /// string would make it), without making the script's string first.
    pub fn from_ascii(text: &[u8]) -> Key {
        debug_assert!(text.is_ascii());
        let mut out = Vec::with_capacity(24);
        put_str(&mut out, std::str::from_utf8(text).unwrap_or_default());
        Key::from_bytes(&out)
    }

    /// When the key is a string: its bytes, written to `out` (cleared first). `false` for
    /// any other value.
    pub fn string_into(&self, out: &mut Vec<u8>) -> bool {
        out.clear();
        let mut r = Reader(self.as_bytes());
        match r.byte() {
            STR => {
                let n = r.varint() as usize;
                out.extend_from_slice(r.take(n));
                true
            }
            PACKED_STR => {
                let n = r.varint() as usize;
                let distinct = r.byte() as usize;
                let mut chars = [0u8; 16];
                chars[..distinct].copy_from_slice(r.take(distinct));
                let bits = bits_for(distinct);
                let packed = r.take((n * bits).div_ceil(8));
                let mask = (1u8 << bits) - 1;
                out.extend((0..n).map(|i| chars[(packed[i * bits / 8] >> (i * bits % 8) & mask) as usize]));
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(d: Dynamic) -> Key {
        Key::from_dynamic(&d).unwrap()
    }

    #[test]
    fn round_trips_nested_values() {
        let mut map = Map::new();
        let mut g = Grid::new(2, 3);
        g.set(1, 2, true);
        g.set(0, 0, true);
        map.insert("board".into(), Dynamic::from(g));
        map.insert("next".into(), Dynamic::from_int(4));
        let arr: Array = vec![
            Dynamic::from_int(3),
            Dynamic::from("x"),
            Dynamic::from_map(map),
            Dynamic::from_bool(true),
            Dynamic::from_char('é'),
            Dynamic::UNIT,
            Dynamic::from_int(i64::MIN),
            Dynamic::from_int(-1),
        ];
        let d = Dynamic::from_array(arr);
        let k = key(d.clone());
        let back = key(k.to_dynamic());
        assert_eq!(k, back);
        // The value itself, not only its key: Rhai's own printing of both.
        assert_eq!(format!("{:?}", k.to_dynamic()), format!("{d:?}"));
        let g = k.to_dynamic().into_array().unwrap()[2].read_lock::<Map>().unwrap()["board"].clone_cast::<Grid>();
        assert_eq!((g.get(0, 0), g.get(1, 2), g.count()), (true, true, 2));
    }

    #[test]
    fn integer_arrays_are_one_byte_an_entry_and_equal_by_content() {
        let arr = |v: &[i64]| Dynamic::from_array(v.iter().map(|&i| Dynamic::from_int(i)).collect());
        let small = key(arr(&[4, 5, -128, 127]));
        assert_eq!(small.as_bytes(), [BYTES, 4, 4, 5, 0x80, 0x7f]);
        // 128 does not fit a byte: zigzag varints (4 → 8; 128 → 256 = 0x80 0x02).
        let wide = key(arr(&[4, 128]));
        assert_eq!(wide.as_bytes(), [INTS, 2, 8, 0x80, 0x02]);
        assert_eq!(key(arr(&[4, 5, -128, 127])), small);
        for k in [small, wide, key(arr(&[]))] {
            assert_eq!(key(k.to_dynamic()), k);
        }
        // The 8-puzzle's board is held in the key itself.
        let board = key(arr(&[1, 2, 3, 4, 5, 6, 7, 8, 0]));
        assert_eq!((board.as_bytes().len(), board.heap_bytes(), std::mem::size_of::<Key>()), (11, 0, 24));
    }

    #[test]
    fn different_values_make_different_keys() {
        // Values that a careless encoding would confuse: an array of two strings and one of
        // one string holding both; an integer and a character of the same number; an
        // integer array and a mixed array of the same numbers; a grid's shape.
        let s = |t: &str| Dynamic::from(t.to_string());
        let pairs = [
            (Dynamic::from_array(vec![s("ab"), s("c")]), Dynamic::from_array(vec![s("a"), s("bc")])),
            (Dynamic::from_int(65), Dynamic::from_char('A')),
            (
                Dynamic::from_array(vec![Dynamic::from_int(1), Dynamic::from_int(2)]),
                Dynamic::from_array(vec![Dynamic::from_int(1), Dynamic::from_array(vec![Dynamic::from_int(2)])]),
            ),
            (Dynamic::from(Grid::new(2, 3)), Dynamic::from(Grid::new(3, 2))),
            (Dynamic::from_bool(false), Dynamic::UNIT),
            (s(""), Dynamic::from_array(vec![])),
        ];
        for (a, b) in pairs {
            assert_ne!(key(a.clone()), key(b.clone()), "{a:?} and {b:?}");
        }
        // A long key (40 distinct characters: not packed): on the heap, exactly its length.
        let text = "abcdefghijklmnopqrstuvwxyz0123456789ABCD";
        let long = key(s(text));
        assert_eq!((long.as_bytes().len(), long.heap_bytes()), (42, 42));
        assert_eq!(long.to_dynamic().into_string().unwrap(), text);
    }

    #[test]
    fn strings_of_few_characters_pack_and_come_back() {
        let s = |t: &str| Dynamic::from(t.to_string());
        // Domineering 5×5 as [cells, columns, turn]: 25 cells at a bit each, in the key itself.
        let cells = ".#...##....#.....#.##....";
        let dom = key(Dynamic::from_array(vec![s(cells), Dynamic::from_int(5), Dynamic::from_int(1)]));
        // [ARRAY, 3] [PACKED_STR, 25, 2, '#', '.', 4 bytes] [INT, 10] [INT, 2]
        assert_eq!(dom.as_bytes().len(), 2 + 9 + 2 + 2);
        assert_eq!(dom.heap_bytes(), 0);
        // Every string comes back as itself, packed or not: one to 17 distinct characters,
        // lengths around the point where packing starts to pay, and non-ASCII text.
        let alphabet = "xo.#abcdefghijklmnop";
        for distinct in 1..=17 {
            // (Up to 64 characters a packed string is read through a buffer on the stack.)
            for len in [1, 3, 4, 5, 8, 9, 17, 40, 63, 64, 65, 120] {
                let t: String = (0..len).map(|i| alphabet.as_bytes()[(i * 7 + i / 3) % distinct] as char).collect();
                let k = key(s(&t));
                assert_eq!(k.to_dynamic().into_string().unwrap(), t, "{distinct} characters, {len} long");
                assert!(k.as_bytes().len() <= t.len() + 2, "never longer than plain: {t:?}");
            }
        }
        for t in ["xxoo.", "é..é..é..", "....", "#"] {
            assert_eq!(key(s(t)).to_dynamic().into_string().unwrap(), t);
        }
        // Strings that differ in one character, or only in their alphabet, differ as keys.
        assert_ne!(key(s("..#..#..")), key(s("..#..#.#")));
        assert_ne!(key(s("........")), key(s("########")));
        assert_ne!(key(s("ab")), key(s("ba")));
    }

    #[test]
    fn keys_of_a_list_are_the_keys_of_each_and_name_the_first_bad_item() {
        let s = |t: &str| Dynamic::from(t.to_string());
        let items = vec![s("12345678."), Dynamic::from_int(-3), s("..#..#.."), Dynamic::from_array(vec![s("x")])];
        let each: Vec<Key> = items.iter().map(|d| key(d.clone())).collect();
        assert_eq!(Key::from_dynamics(&items).unwrap(), each);
        assert_eq!(Key::from_dynamics(&[]).unwrap(), Vec::<Key>::new());
        // `()` is refused in a list (a hook that forgot to return its position), as is a float.
        assert_eq!(Key::from_dynamics(&[s("a"), Dynamic::UNIT, s("b")]), Err(1));
        assert_eq!(Key::from_dynamics(&[s("a"), s("b"), Dynamic::from_float(0.5)]), Err(2));
    }

    #[test]
    fn strings_read_and_written_as_bytes_agree_with_the_script_values() {
        let mut out = Vec::new();
        for text in ["", "ab", "x.o.", "....xxxxoooo....x", "abcdefghijklmnopqrstuvwxyz", "é.x.", "#..#..#..#"] {
            let k = key(Dynamic::from(text.to_string()));
            assert!(k.string_into(&mut out), "{text}");
            assert_eq!(out, text.as_bytes());
            if text.is_ascii() {
                assert_eq!(Key::from_ascii(text.as_bytes()), k, "{text}");
            }
        }
        assert!(!key(Dynamic::from_int(3)).string_into(&mut out));
        assert!(!key(Dynamic::from_array(vec![Dynamic::from("x".to_string())])).string_into(&mut out));
    }

    #[test]
    fn refuses_deep_nesting() {
        let mut d = Dynamic::from_int(1);
        for _ in 0..100 {
            d = Dynamic::from_array(vec![d]);
        }
        assert!(Key::from_dynamic(&d).unwrap_err().contains("nested"));
    }

    #[test]
    fn refuses_floats() {
        let err = Key::from_dynamic(&Dynamic::from_float(0.5)).unwrap_err();
        assert!(err.contains("f64"), "{err}");
    }
}
