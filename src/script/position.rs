//! Script positions as hashable Rust values.
//!
//! A script's position is any Rhai value built from `()`, booleans, integers, characters,
//! strings, arrays, object maps and the native `Grid` type. The solvers need positions they
//! can hash and compare, so each one is converted to a [`Key`] on the way out of the script
//! and back to a Rhai value on the way in. Floating-point numbers are refused: `0.1 + 0.2`
//! and `0.3` would be different positions.
//!
//! An array of integers only (a board of cells, a list of heaps) is kept flat: one byte an
//! entry when every entry fits in a byte, else eight. Which form an array takes depends on
//! its entries alone, so equal arrays are always equal keys.

use crate::game::Footprint;
use crate::grid::Grid;
use rhai::{Array, Dynamic, ImmutableString, Map};
use std::rc::Rc;

/// How deeply arrays and maps may nest inside a position.
pub const MAX_NESTING: usize = 32;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Unit,
    Bool(bool),
    Int(i64),
    Char(char),
    Str(ImmutableString),
    /// An array of integers from -128 to 127.
    Bytes(Rc<[i8]>),
    /// An array of integers, some outside -128..=127.
    Ints(Rc<[i64]>),
    Array(Rc<[Key]>),
    Map(Rc<[(ImmutableString, Key)]>),
    Grid(Rc<Grid>),
}

impl Footprint for Key {
    fn heap_bytes(&self) -> usize {
        match self {
            Key::Str(s) => s.len() + 16,
            Key::Bytes(a) => a.len() + 16,
            Key::Ints(a) => a.len() * 8 + 16,
            Key::Array(a) => a.len() * std::mem::size_of::<Key>() + a.iter().map(Key::heap_bytes).sum::<usize>() + 16,
            Key::Map(m) => {
                m.iter().map(|(k, v)| k.len() + 16 + std::mem::size_of::<Key>() + v.heap_bytes()).sum::<usize>() + 16
            }
            Key::Grid(g) => std::mem::size_of::<Grid>() + g.heap_bytes() + 16,
            _ => 0,
        }
    }
}

impl Key {
    /// Convert a script value; `Err` names the type that cannot be a position.
    pub fn from_dynamic(d: &Dynamic) -> Result<Key, String> {
        Self::convert(d, 0)
    }

    fn convert(d: &Dynamic, depth: usize) -> Result<Key, String> {
        if depth > MAX_NESTING {
            return Err(format!("a position nested more than {MAX_NESTING} levels deep"));
        }
        if d.is_unit() {
            return Ok(Key::Unit);
        }
        if let Ok(b) = d.as_bool() {
            return Ok(Key::Bool(b));
        }
        if let Ok(i) = d.as_int() {
            return Ok(Key::Int(i));
        }
        if let Ok(c) = d.as_char() {
            return Ok(Key::Char(c));
        }
        if let Ok(s) = d.as_immutable_string_ref() {
            return Ok(Key::Str(s.clone()));
        }
        if let Some(g) = d.read_lock::<Grid>() {
            return Ok(Key::Grid(Rc::new(g.clone())));
        }
        if let Some(a) = d.read_lock::<Array>() {
            if let Some(ints) = a.iter().map(|v| v.as_int().ok()).collect::<Option<Vec<i64>>>() {
                return Ok(Key::from_ints(ints));
            }
            let keys = a.iter().map(|v| Key::convert(v, depth + 1)).collect::<Result<Vec<_>, _>>()?;
            return Ok(Key::Array(keys.into()));
        }
        if let Some(m) = d.read_lock::<Map>() {
            let keys = m
                .iter()
                .map(|(k, v)| Ok((ImmutableString::from(k.as_str()), Key::convert(v, depth + 1)?)))
                .collect::<Result<Vec<_>, String>>()?;
            return Ok(Key::Map(keys.into()));
        }
        Err(format!(
            "a value of type `{}`, but a position must be built from integers, strings, booleans, \
             characters, arrays, maps and grids",
            d.type_name()
        ))
    }

    fn from_ints(ints: Vec<i64>) -> Key {
        match ints.iter().map(|&i| i8::try_from(i).ok()).collect::<Option<Vec<i8>>>() {
            Some(bytes) => Key::Bytes(bytes.into()),
            None => Key::Ints(ints.into()),
        }
    }

    pub fn to_dynamic(&self) -> Dynamic {
        match self {
            Key::Unit => Dynamic::UNIT,
            Key::Bool(b) => Dynamic::from_bool(*b),
            Key::Int(i) => Dynamic::from_int(*i),
            Key::Char(c) => Dynamic::from_char(*c),
            Key::Str(s) => Dynamic::from(s.clone()),
            Key::Bytes(a) => Dynamic::from_array(a.iter().map(|&i| Dynamic::from_int(i64::from(i))).collect()),
            Key::Ints(a) => Dynamic::from_array(a.iter().map(|&i| Dynamic::from_int(i)).collect()),
            Key::Array(a) => Dynamic::from_array(a.iter().map(Key::to_dynamic).collect()),
            Key::Map(m) => {
                let map: Map = m.iter().map(|(k, v)| (k.as_str().into(), v.to_dynamic())).collect();
                Dynamic::from_map(map)
            }
            Key::Grid(g) => Dynamic::from(Grid::clone(g)),
        }
    }
}

/// A [`Key`] that can cross threads (no reference counts shared with a script engine).
#[derive(Debug)]
pub enum SendKey {
    Unit,
    Bool(bool),
    Int(i64),
    Char(char),
    Str(String),
    Bytes(Vec<i8>),
    Ints(Vec<i64>),
    Array(Vec<SendKey>),
    Map(Vec<(String, SendKey)>),
    Grid(Grid),
}

impl Key {
    pub fn to_send(&self) -> SendKey {
        match self {
            Key::Unit => SendKey::Unit,
            Key::Bool(b) => SendKey::Bool(*b),
            Key::Int(i) => SendKey::Int(*i),
            Key::Char(c) => SendKey::Char(*c),
            Key::Str(s) => SendKey::Str(s.to_string()),
            Key::Bytes(a) => SendKey::Bytes(a.to_vec()),
            Key::Ints(a) => SendKey::Ints(a.to_vec()),
            Key::Array(a) => SendKey::Array(a.iter().map(Key::to_send).collect()),
            Key::Map(m) => SendKey::Map(m.iter().map(|(k, v)| (k.to_string(), v.to_send())).collect()),
            Key::Grid(g) => SendKey::Grid(Grid::clone(g)),
        }
    }

    pub fn from_send(k: SendKey) -> Key {
        match k {
            SendKey::Unit => Key::Unit,
            SendKey::Bool(b) => Key::Bool(b),
            SendKey::Int(i) => Key::Int(i),
            SendKey::Char(c) => Key::Char(c),
            SendKey::Str(s) => Key::Str(s.into()),
            SendKey::Bytes(a) => Key::Bytes(a.into()),
            SendKey::Ints(a) => Key::Ints(a.into()),
            SendKey::Array(a) => Key::Array(a.into_iter().map(Key::from_send).collect::<Vec<_>>().into()),
            SendKey::Map(m) => {
                Key::Map(m.into_iter().map(|(k, v)| (k.into(), Key::from_send(v))).collect::<Vec<_>>().into())
            }
            SendKey::Grid(g) => Key::Grid(Rc::new(g)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_nested_values() {
        let mut map = Map::new();
        map.insert("board".into(), Dynamic::from(Grid::new(2, 3)));
        map.insert("next".into(), Dynamic::from_int(4));
        let arr: Array =
            vec![Dynamic::from_int(3), Dynamic::from("x"), Dynamic::from_map(map), Dynamic::from_bool(true)];
        let d = Dynamic::from_array(arr);
        let k = Key::from_dynamic(&d).unwrap();
        let back = Key::from_dynamic(&k.to_dynamic()).unwrap();
        assert_eq!(k, back);
    }

    #[test]
    fn integer_arrays_are_flat_and_equal_by_content() {
        let arr = |v: &[i64]| Dynamic::from_array(v.iter().map(|&i| Dynamic::from_int(i)).collect());
        let small = Key::from_dynamic(&arr(&[4, 5, -128, 127])).unwrap();
        assert!(matches!(&small, Key::Bytes(b) if b.len() == 4));
        let wide = Key::from_dynamic(&arr(&[4, 128])).unwrap();
        assert!(matches!(&wide, Key::Ints(b) if b[..] == [4, 128]));
        // The same array always makes the same key, and converts back to itself.
        assert_eq!(Key::from_dynamic(&arr(&[4, 5, -128, 127])).unwrap(), small);
        for k in [small, wide, Key::from_dynamic(&arr(&[])).unwrap()] {
            assert_eq!(Key::from_dynamic(&k.to_dynamic()).unwrap(), k);
            assert_eq!(Key::from_send(k.to_send()), k);
        }
        // A mixed array stays a tree.
        let mixed = Dynamic::from_array(vec![Dynamic::from_int(1), Dynamic::from("x")]);
        assert!(matches!(Key::from_dynamic(&mixed).unwrap(), Key::Array(_)));
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
