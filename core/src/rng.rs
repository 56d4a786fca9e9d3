//! The one seeded generator behind every random choice in the core.
//!
//! SplitMix64 (Steele, Lea and Flood, 2014): tiny, fast, and fully specified,
//! so a seed gives the same stream on every platform and every release. We do
//! not use `rand`'s `StdRng`, whose algorithm is not promised to stay the same.

use serde::{Deserialize, Serialize};

/// A SplitMix64 generator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0). Lemire's multiply-shift keeps the
    /// bias below 2^-32 for the small ranges the simulator draws from.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A number in `lo..=hi` (`lo` when the range is empty).
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// An independent sub-stream, so that adding draws to one part of the
    /// simulator does not shift the numbers another part sees.
    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next_u64() ^ 0x6A09_E667_F3BC_C909)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_stream() {
        // Reference values of SplitMix64 seeded with 1234567 (from the
        // published C implementation by Sebastiano Vigna).
        let mut rng = Rng::new(1_234_567);
        assert_eq!(rng.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(rng.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn below_stays_in_range_and_between_is_inclusive() {
        let mut rng = Rng::new(7);
        let mut seen = [false; 4];
        for _ in 0..1000 {
            let v = rng.between(2, 5);
            assert!((2..=5).contains(&v));
            seen[(v - 2) as usize] = true;
        }
        assert!(
            seen.iter().all(|s| *s),
            "every value of 2..=5 drawn: {seen:?}"
        );
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.between(9, 3), 9);
    }

    #[test]
    fn forks_are_deterministic_and_differ_from_the_parent() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        let mut fa = a.fork();
        let mut fb = b.fork();
        assert_eq!(fa.next_u64(), fb.next_u64());
        assert_ne!(fa.next_u64(), a.next_u64());
    }
}
