//! Virtual time. The core never reads a clock: every handler is given `now`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Milliseconds of virtual time since the simulation started.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct SimTime(pub u64);

impl SimTime {
    /// The start of every simulation.
    pub const ZERO: SimTime = SimTime(0);

    /// Milliseconds since the start.
    pub fn as_ms(self) -> u64 {
        self.0
    }

    /// This time plus `ms` milliseconds, saturating rather than overflowing.
    pub fn plus_ms(self, ms: u64) -> SimTime {
        SimTime(self.0.saturating_add(ms))
    }

    /// The moment `us` microseconds after this one, rounded up to the whole
    /// millisecond (how far into a controller event a piece of its work is).
    pub fn plus_us_ceil(self, us: u64) -> SimTime {
        self.plus_ms(us.div_ceil(1000))
    }

    /// Milliseconds since the start in 32 bits ([`ms_u32`]).
    pub fn as_ms_u32(self) -> u32 {
        ms_u32(self.0)
    }

    /// Milliseconds from `earlier` to `self`, or 0 if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

/// Milliseconds in 32 bits, as the packed records hold them (a znode's
/// times, the simulator's record of a state znode, a leader's view of its
/// followers' caught-up times): 49 days, where the page,
/// scenario files, share links and lessons stop a run at a day and a minute
/// (a soak replay's liveness bound can reach further); a later time is held
/// as the latest these bits say.
pub fn ms_u32(ms: u64) -> u32 {
    u32::try_from(ms).unwrap_or(u32::MAX)
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", self.0)
    }
}

/// Seconds as the page reads them (the console's `sleep SECONDS`, the
/// diagram's custom window), in whole milliseconds: exactly what
/// `s.parse::<f64>()` kept when finite and in `0.0..=max_s`, then
/// `(secs * 1000.0).round() as u64`, gives (`None` where that refuses),
/// without the float parser (its code and its 10 KB table of powers of five
/// are the page's to carry otherwise). The same grammar (an optional sign,
/// digits with at most one point, at least one digit, an optional exponent
/// whose digits stop counting past 65,535 as the standard parser's do), the
/// same two roundings (the decimal to the nearest `f64`, ties to even; the
/// product by 1,000 likewise), then half away from zero.
pub fn parse_seconds_ms(s: &str, max_s: u32) -> Option<u64> {
    let b = s.as_bytes();
    let (negative, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    // The value is 0.DIGITS × 10^point, DIGITS without leading zeros.
    let mut digits: Vec<u8> = Vec::new();
    let mut point: i64 = 0;
    let (mut any_digit, mut after_dot, mut i) = (false, false, 0);
    while let Some(&c) = b.get(i) {
        if c.is_ascii_digit() {
            any_digit = true;
            if c != b'0' || !digits.is_empty() {
                digits.push(c - b'0');
                if !after_dot {
                    point += 1;
                }
            } else if after_dot {
                point -= 1;
            }
        } else if c == b'.' && !after_dot {
            after_dot = true;
        } else {
            break;
        }
        i += 1;
    }
    if !any_digit {
        return None; // also "inf", "nan": never finite numbers the page keeps
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let minus = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        let mut exp: i64 = 0;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            if exp < 0x10000 {
                exp = 10 * exp + i64::from(c - b'0');
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        point += if minus { -exp } else { exp };
    }
    if i != b.len() {
        return None;
    }
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.is_empty() {
        return Some(0); // zero, either sign
    }
    // Doubles a decimal fraction 0.FRAC in place; returns the carried bit.
    fn double(frac: &mut [u8]) -> u8 {
        let mut carry = 0;
        for d in frac.iter_mut().rev() {
            let x = *d * 2 + carry;
            carry = u8::from(x >= 10);
            *d = x % 10;
        }
        carry
    }
    if negative {
        // Kept only if it rounds to -0.0: at most 2^-1075 (a tie goes to 0).
        // The value lies in [10^(point-1), 10^point).
        if point <= -324 {
            return Some(0);
        }
        if point >= -322 {
            return None;
        }
        let mut frac = vec![0; 323];
        frac.extend_from_slice(&digits);
        let mut int = 0u32;
        for _ in 0..1075 {
            int = int * 2 + u32::from(double(&mut frac));
            if int >= 2 {
                return None;
            }
        }
        return (int == 0 || frac.iter().all(|&d| d == 0)).then_some(0);
    }
    if point >= 6 {
        return None; // at least 100,000 s
    }
    if point <= -4 {
        return Some(0); // under 0.1 ms, whatever the roundings
    }
    // The value as a fixed-point binary number, 70 bits after the point, and
    // whether anything is left below them.
    const K: u32 = 70;
    let (int_digits, mut frac) = if point > 0 {
        let p = point as usize;
        let mut int = digits.clone();
        int.resize(p.max(digits.len()), 0);
        let frac = int.split_off(p);
        (int, frac)
    } else {
        let mut frac = vec![0; (-point) as usize];
        frac.extend_from_slice(&digits);
        (Vec::new(), frac)
    };
    let int = int_digits
        .iter()
        .fold(0u128, |n, &d| n * 10 + u128::from(d));
    let mut v = int;
    for _ in 0..K {
        v = v << 1 | u128::from(double(&mut frac));
    }
    let sticky = frac.iter().any(|&d| d != 0);
    // To 53 significant bits, ties to even (v >= 10^-4 × 2^70 > 2^56).
    let shift = 127 - v.leading_zeros() - 52;
    let mut m = v >> shift;
    let rem = v & ((1 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rem > half || (rem == half && (sticky || m & 1 == 1)) {
        m += 1;
    }
    if m << shift > u128::from(max_s) << K {
        return None;
    }
    // Times 1,000, rounded to 53 bits, ties to even: g = p × 2^-scale.
    let mut p = m * 1000;
    let mut scale = K - shift;
    let bits = 128 - p.leading_zeros();
    if bits > 53 {
        let sh = bits - 53;
        let (q, r, h) = (p >> sh, p & ((1 << sh) - 1), 1u128 << (sh - 1));
        p = if r > h || (r == h && q & 1 == 1) {
            q + 1
        } else {
            q
        };
        scale -= sh;
    }
    // Half away from zero (g < 2^27, so scale > 0).
    Some(((p + (1 << (scale - 1))) >> scale) as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_seconds_ms;
    use proptest::prelude::*;

    /// What the page did before: the standard float parser.
    fn by_f64(s: &str, max_s: u32) -> Option<u64> {
        s.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && (0.0..=f64::from(max_s)).contains(x))
            .map(|x| (x * 1000.0).round() as u64)
    }

    fn check(s: &str) {
        for max in [86_400, 90_000] {
            assert_eq!(
                parse_seconds_ms(s, max),
                by_f64(s, max),
                "{s:?} (max {max})"
            );
        }
    }

    /// The exact decimal of `x` (100 digits after the point: exact for the
    /// page's range, where an `f64` needs at most 74).
    fn exact(x: f64) -> String {
        format!("{x:.100}")
    }

    /// The exact decimal halfway between two decimals of the same shape
    /// (`exact`'s), one digit longer.
    fn midpoint(a: &str, b: &str) -> String {
        let (ai, af) = a.split_once('.').unwrap();
        let (bi, bf) = b.split_once('.').unwrap();
        let w = ai.len().max(bi.len()) + 1;
        let pad = |i: &str, f: &str| -> Vec<u32> {
            let s = format!("{i:0>w$}{f}0");
            s.bytes().map(|c| u32::from(c - b'0')).collect()
        };
        let (x, y) = (pad(ai, af), pad(bi, bf));
        let mut sum = vec![0; x.len()];
        let mut carry = 0;
        for k in (0..x.len()).rev() {
            let t = x[k] + y[k] + carry;
            sum[k] = t % 10;
            carry = t / 10;
        }
        let mut rem = 0;
        let half: String = sum
            .iter()
            .map(|&d| {
                let t = rem * 10 + d;
                rem = t % 2;
                char::from_digit(t / 2, 10).unwrap()
            })
            .collect();
        assert_eq!(rem, 0);
        format!("{}.{}", &half[..w], &half[w..])
    }

    fn neighbours(x: f64, n: i64) -> Vec<f64> {
        (-n..=n)
            .filter_map(|d| {
                let bits = x.to_bits() as i64 + d;
                (bits >= 0).then(|| f64::from_bits(bits as u64))
            })
            .collect()
    }

    /// Each float near `x`, exactly, and the points halfway between them.
    fn check_around(x: f64) {
        let ns = neighbours(x, 3);
        for w in ns.windows(2) {
            let (a, b) = (exact(w[0]), exact(w[1]));
            check(&a);
            let m = midpoint(&a, &b);
            check(&m);
            check(&format!("{m}1"));
            check(&format!("{m}e0"));
        }
    }

    #[test]
    fn every_short_string_reads_as_the_float_parser_reads_it() {
        let alphabets: [(&[u8], usize); 2] = [(b"0159.e-+", 6), (b"0123456789.", 5)];
        for (alpha, max_len) in alphabets {
            let mut s = Vec::new();
            fn walk(s: &mut Vec<u8>, alpha: &[u8], left: usize) {
                check(std::str::from_utf8(s).unwrap());
                if left > 0 {
                    for &c in alpha {
                        s.push(c);
                        walk(s, alpha, left - 1);
                        s.pop();
                    }
                }
            }
            walk(&mut s, alpha, max_len);
        }
    }

    #[test]
    fn half_milliseconds_round_as_the_float_parser_rounds_them() {
        let mut ks: Vec<u64> = (0..3000).collect();
        let mut k = 1u64;
        while k < 90_000_000 {
            ks.extend([k, k + 1, k * 7 + 3, k * 3 - 1]);
            k = k * 10 + 3;
        }
        ks.extend([86_399_999, 86_400_000, 89_999_999, 90_000_000, 90_000_001]);
        for k in ks {
            let s = format!("{}.{:03}5", k / 1000, k % 1000);
            for tail in ["", "0", "000000000000000000001", "4999999999999999999", "9"] {
                check(&format!("{s}{tail}"));
            }
            check(&format!(
                "{}.{:03}4999999999999999999999",
                k / 1000,
                k % 1000
            ));
            check(&format!("{}{:03}5e-4", k / 1000, k % 1000));
            check(&format!(
                "0.{}{:03}5e{}",
                k / 1000,
                k % 1000,
                (k / 1000).to_string().len()
            ));
            check_around(s.parse().unwrap());
        }
    }

    #[test]
    fn the_edges_read_as_the_float_parser_reads_them() {
        for x in [86_400.0, 90_000.0, 0.0005, 0.0004999, 1e-4, 99_999.9] {
            check_around(x);
        }
        // 2^-1075, the largest magnitude that rounds to -0.0, exactly.
        let tiny = midpoint(
            &format!("{:.1100}", 0.0),
            &format!("{:.1100}", f64::from_bits(1)),
        );
        let tiny = tiny.trim_end_matches('0');
        let below = format!("{}{}", &tiny[..tiny.len() - 1], "4999");
        for t in [tiny, &format!("{tiny}1"), &format!("{tiny}0001"), &below] {
            check(t);
            check(&format!("-{t}"));
        }
        let zeros = "0".repeat(70_000);
        for s in [
            "",
            "+",
            "-",
            ".",
            "e5",
            ".e1",
            "1e",
            "1e+",
            "1e-",
            "1.2.3",
            " 1",
            "1 ",
            "1_0",
            "0x10",
            "inf",
            "-inf",
            "infinity",
            "NaN",
            "nan",
            "+nan",
            "-0",
            "-0.0e9",
            "-.0",
            "+.5",
            "5.",
            "-1e-400",
            "-1e-324",
            "-3e-324",
            "-2.4703282292062327e-324",
            "-2.4703282292062328e-324",
            "1e400",
            "1e-400",
            "0e99999999999999",
            "1e65535",
            "1e-65536",
            "1e99999999999999999999",
            "86400.000000000001",
            "86400.0000000000001",
            "9e4",
            "90000.000000000001",
            "1.0005",
            "0.0005",
            "0.00049999999999999999",
            "٣",
            "１",
            "1.0005\u{0}",
        ] {
            check(s);
        }
        for s in [
            format!("0.{}1", "0".repeat(500)),
            format!("1{}e-400", "0".repeat(400)),
            format!("0.{zeros}1e70001"),
            format!("0.{zeros}1e70000"),
            format!("1{zeros}e-70000"),
            format!("1{zeros}e-69999"),
            format!("1.{}5", "0".repeat(3)),
            format!("1.000{}", "4".repeat(3000)),
            format!("1.000{}", "9".repeat(3000)),
        ] {
            check(&s);
        }
    }

    proptest! {
        #[test]
        fn decimals_read_as_the_float_parser_reads_them(
            s in "[+-]?[0-9]{0,12}(\\.[0-9]{0,30})?([eE][+-]?[0-9]{1,3})?"
        ) {
            check(&s);
        }

        #[test]
        fn floats_written_exactly_read_back(bits in 0x3f00_0000_0000_0000u64..0x40f8_0000_0000_0000) {
            check_around(f64::from_bits(bits));
        }
    }
}
