//! Lights Out's first row by polynomials over GF(2), in O(w² / 64) word operations.
//!
//! With `s_r` the presses of row r (w lights a row) and `T = I + A` (A: the adjacency of a
//! path of w lights), chasing the lights down sets `s_{r+1} = B_r + T s_r + s_{r-1}`, so
//! `s_r = F_r(T) s_0 + c_r` with `F_0 = 1`, `F_1 = T`, `F_{r+1} = T F_r + F_{r-1}`, and `c_r`
//! the presses of a chase with an empty top row. The last row ends off exactly when
//! `F_h(T) s_0 = c_h`.
//!
//! The vectors of w bits are a cyclic module over `GF(2)[y]` with y acting as A: e_k is
//! `g_k(A) e_0`, where `g_0 = 1`, `g_1 = y`, `g_{k+1} = y g_k + g_{k-1}`, and `g_w(A) = 0`. So
//! `v = Σ v_k e_k` is the polynomial `Σ v_k g_k(y)` modulo `g_w`, T is multiplication by
//! `y + 1`, and the equation is `f_h(y + 1) · S ≡ C (mod g_w)`: one extended Euclid. Its
//! solutions are one particular solution plus the multiples of `g_w / d` (d the gcd), so the
//! null space has dimension deg d.
//!
//! (The chase itself, which the symbolic method runs on w affine forms of w bits for each of
//! h rows, costs h·w²/64; this costs w²/64 plus one chase of constants.)

/// A polynomial over GF(2), bit i the coefficient of y^i; no trailing zero words.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Poly(Vec<u64>);

impl Poly {
    pub fn zero() -> Poly {
        Poly(Vec::new())
    }

    pub fn one() -> Poly {
        Poly(vec![1])
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// The degree; `None` for the zero polynomial.
    pub fn degree(&self) -> Option<usize> {
        let last = *self.0.last()?;
        Some((self.0.len() - 1) * 64 + 63 - last.leading_zeros() as usize)
    }

    pub fn bit(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    pub fn flip(&mut self, i: usize) {
        if self.0.len() <= i / 64 {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] ^= 1 << (i % 64);
        self.trim();
    }

    /// self ^= other · y^shift
    pub fn add_shifted(&mut self, other: &Poly, shift: usize) {
        if other.is_zero() {
            return;
        }
        let (words, bits) = (shift / 64, shift % 64);
        let need = other.0.len() + words + 1;
        if self.0.len() < need {
            self.0.resize(need, 0);
        }
        if bits == 0 {
            for (i, &w) in other.0.iter().enumerate() {
                self.0[i + words] ^= w;
            }
        } else {
            for (i, &w) in other.0.iter().enumerate() {
                self.0[i + words] ^= w << bits;
                self.0[i + words + 1] ^= w >> (64 - bits);
            }
        }
        self.trim();
    }

    pub fn add(&mut self, other: &Poly) {
        self.add_shifted(other, 0);
    }

    /// self · y
    pub fn times_y(&self) -> Poly {
        let mut p = Poly::zero();
        p.add_shifted(self, 1);
        p
    }

    pub fn mul(&self, other: &Poly) -> Poly {
        let mut out = Poly::zero();
        let Some(d) = self.degree() else { return out };
        for i in 0..=d {
            if self.bit(i) {
                out.add_shifted(other, i);
            }
        }
        out
    }

    /// (quotient, remainder) of self by `d` (not zero).
    pub fn divrem(&self, d: &Poly) -> (Poly, Poly) {
        let dd = d.degree().expect("a non-zero divisor");
        let mut r = self.clone();
        let mut q = Poly::zero();
        while let Some(rd) = r.degree() {
            if rd < dd {
                break;
            }
            q.flip(rd - dd);
            r.add_shifted(d, rd - dd);
        }
        (q, r)
    }

    pub fn rem(&self, d: &Poly) -> Poly {
        self.divrem(d).1
    }
}

/// (d, u) with d = gcd(g, p) and u·p ≡ d (mod g); `g` not zero.
pub fn ext_gcd(g: &Poly, p: &Poly) -> (Poly, Poly) {
    // Invariants: r0 ≡ t0·p and r1 ≡ t1·p (mod g).
    let (mut r0, mut t0) = (g.clone(), Poly::zero());
    let (mut r1, mut t1) = (p.rem(g), Poly::one());
    while let Some(d1) = r1.degree() {
        while let Some(d0) = r0.degree() {
            if d0 < d1 {
                break;
            }
            r0.add_shifted(&r1, d0 - d1);
            t0.add_shifted(&t1, d0 - d1);
        }
        std::mem::swap(&mut r0, &mut r1);
        std::mem::swap(&mut t0, &mut t1);
    }
    let u = t0.rem(g);
    (r0, u)
}

/// A row of `w` lights, bit-packed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    w: usize,
    words: Vec<u64>,
}

impl Row {
    pub fn new(w: usize) -> Row {
        Row { w, words: vec![0; w.div_ceil(64)] }
    }

    /// A row of `w` lights from its words (bits past w ignored).
    pub fn from_words(w: usize, words: Vec<u64>) -> Row {
        let mut r = Row { w, words };
        r.words.resize(w.div_ceil(64), 0);
        r.mask_tail();
        r
    }

    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    pub fn get(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    pub fn flip(&mut self, i: usize) {
        self.words[i / 64] ^= 1 << (i % 64);
    }

    pub fn xor(&mut self, other: &Row) {
        self.words.iter_mut().zip(&other.words).for_each(|(a, b)| *a ^= b);
    }

    fn mask_tail(&mut self) {
        if !self.w.is_multiple_of(64)
            && let Some(last) = self.words.last_mut()
        {
            *last &= (1u64 << (self.w % 64)) - 1;
        }
    }

    /// A·self: each light the XOR of its neighbours in the row.
    pub fn neighbours(&self) -> Row {
        let n = self.words.len();
        let mut out = Row::new(self.w);
        for i in 0..n {
            let w = self.words[i];
            // Bit j of the result: bit j-1 and bit j+1 of self.
            let mut v = (w << 1) ^ (w >> 1);
            if i > 0 {
                v ^= self.words[i - 1] >> 63;
            }
            if i + 1 < n {
                v ^= self.words[i + 1] << 63;
            }
            out.words[i] = v;
        }
        out.mask_tail();
        out
    }

    /// T·self = self + A·self.
    pub fn t(&self) -> Row {
        let mut out = self.neighbours();
        out.xor(self);
        out
    }
}

/// Chase a board (its rows, top first) down from the top-row presses `first`, a row at a
/// time: each row's presses are what the row above leaves on. Returns the presses of every
/// row, and whether the last row ends off.
pub fn chase_rows(rows: &[Row], first: &Row) -> (Vec<Row>, bool) {
    let w = first.w;
    let mut presses: Vec<Row> = Vec::with_capacity(rows.len());
    let mut prev = Row::new(w);
    let mut cur = first.clone();
    for (r, b) in rows.iter().enumerate() {
        // What row r shows after its own presses and those of the rows beside it.
        let mut left = cur.t();
        left.xor(&prev);
        left.xor(b);
        prev = cur.clone();
        presses.push(cur);
        if r + 1 == rows.len() {
            return (presses, left.is_zero());
        }
        cur = left;
    }
    (presses, true)
}

/// `Σ v_k g_k(y)`: the polynomial of a row; and `g_w` itself.
fn to_poly(v: &Row) -> (Poly, Poly) {
    let w = v.w;
    let (mut g0, mut g1) = (Poly::one(), Poly::one().times_y()); // g_0, g_1
    let mut out = Poly::zero();
    for k in 0..w {
        if v.get(k) {
            out.add(&g0);
        }
        let mut g2 = g1.times_y();
        g2.add(&g0);
        g0 = g1;
        g1 = g2;
    }
    (out, g0) // after w steps g0 = g_w
}

/// The row `p(A) e_0` of a polynomial (of degree below w).
fn to_row(p: &Poly, w: usize) -> Row {
    let mut a = Row::new(w);
    let mut out = Row::new(w);
    if w == 0 {
        return out;
    }
    a.flip(0);
    let Some(d) = p.degree() else { return out };
    for j in 0..=d {
        if p.bit(j) {
            out.xor(&a);
        }
        a = a.neighbours();
    }
    out
}

/// The top-row presses that turn off a board of `rows` (each `w` lights, top first, on =
/// set): one particular solution and a basis of the null space, or `None` when there is no
/// solution.
pub fn first_row(rows: &[Row]) -> Option<(Row, Vec<Row>)> {
    let h = rows.len();
    let w = rows.first()?.w;
    // c_h: chase the constants with an empty top row.
    let (mut prev, mut cur) = (Row::new(w), Row::new(w));
    for b in rows {
        let mut next = cur.t();
        next.xor(&prev);
        next.xor(b);
        prev = cur;
        cur = next;
    }
    let (c, g) = to_poly(&cur);
    // f_h(y + 1) mod g_w.
    let (mut f0, mut f1) = (Poly::one(), Poly::one().times_y());
    f1.flip(0); // y + 1
    for _ in 1..h {
        let mut f2 = f1.times_y();
        f2.add(&f1);
        f2.add(&f0);
        let f2 = f2.rem(&g);
        f0 = f1;
        f1 = f2;
    }
    let f = if h == 0 { f0 } else { f1 }.rem(&g);
    let (d, u) = ext_gcd(&g, &f);
    let (c_d, rest) = c.divrem(&d);
    if !rest.is_zero() {
        return None;
    }
    let (g_d, _) = g.divrem(&d);
    let s = if g_d.degree() == Some(0) { Poly::zero() } else { u.mul(&c_d).rem(&g_d) };
    let nullity = d.degree().unwrap_or(0);
    let mut basis = Vec::with_capacity(nullity);
    let mut k = g_d.clone();
    for _ in 0..nullity {
        basis.push(to_row(&k, w));
        k = k.times_y();
    }
    Some((to_row(&s, w), basis))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poly(bits: &[usize]) -> Poly {
        let mut p = Poly::zero();
        bits.iter().for_each(|&b| p.flip(b));
        p
    }

    #[test]
    fn division_and_gcd() {
        // (y^2 + 1) = (y + 1)^2 over GF(2); gcd with y^2 + y = y (y + 1) is y + 1.
        let a = poly(&[2, 0]);
        let b = poly(&[2, 1]);
        let (d, u) = ext_gcd(&a, &b);
        assert_eq!(d, poly(&[1, 0]));
        assert_eq!(u.mul(&b).rem(&a), d);
        let (q, r) = poly(&[130, 3, 0]).divrem(&poly(&[65, 0]));
        assert_eq!(q.mul(&poly(&[65, 0])).add_ret(&r), poly(&[130, 3, 0]));
    }

    impl Poly {
        fn add_ret(mut self, o: &Poly) -> Poly {
            self.add(o);
            self
        }
    }

    #[test]
    fn the_module_isomorphism() {
        // p(A) e_0 of g_k is e_k, and the polynomial of e_k is g_k.
        for w in [1, 5, 64, 65, 130] {
            for k in 0..w {
                let mut e = Row::new(w);
                e.flip(k);
                let (p, _) = to_poly(&e);
                assert_eq!(to_row(&p, w), e, "w {w} k {k}");
            }
        }
    }
}
