//! A stable sort compiled once for every element type, for the places where
//! a slice is short or sorted rarely (a console command, the page's view of
//! the queues and the wire, a lesson's check).
//!
//! The standard library's stable sort is fast and large: each element type
//! and comparison gets its own copy (about 2.6 KB of the page's `.wasm`
//! each, 28 copies before this module). Here the merge sort works on
//! positions through one `dyn` comparison, and only moving the elements into
//! place is generic (a few swaps). It is stable, like `slice::sort`, so for a
//! comparison that is a total order the result is the same, element for
//! element: traces do not change. The simulator's hot paths (the
//! controller's batches, ZooKeeper's children, 200,000-partition views) keep
//! `slice::sort`.

use std::cmp::Ordering;

/// `v.sort_by(cmp)`, stable.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.windows(2).all(|w| cmp(&w[0], &w[1]) != Ordering::Greater) {
        return; // already in order (often so: lists read from a map)
    }
    let order = sorted_positions(v.len(), &mut |i, j| cmp(&v[i], &v[j]));
    permute(v, order);
}

/// `v.sort()`, stable.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// `v.sort_by_key(key)`, stable.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// The positions `0..n` in stable sorted order: a bottom-up merge sort,
/// taking from the right run only when it is strictly less.
fn sorted_positions(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut b = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut l, mut r) = (lo, mid);
            for slot in &mut b[lo..hi] {
                let take_right = r < hi && (l >= mid || cmp(a[r], a[l]) == Ordering::Less);
                if take_right {
                    *slot = a[r];
                    r += 1;
                } else {
                    *slot = a[l];
                    l += 1;
                }
            }
            lo = hi;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// Rearranges `v` so that position `i` holds what was at `order[i]`,
/// following each cycle of the permutation with swaps.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut cur = start;
        loop {
            let src = order[cur];
            order[cur] = cur;
            if src == start || src == cur {
                break;
            }
            v.swap(cur, src);
            cur = src;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (the tests may not use the OS's
    /// randomness either).
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn same_order_as_the_standard_stable_sort() {
        let mut seed = 7;
        for n in (0..70).chain([255, 256, 257, 1000, 4099]) {
            for range in [1, 3, 10, 1_000_000] {
                // Pairs (key, original position): equal keys must keep
                // their order, as slice::sort_by_key keeps it.
                let v: Vec<(u64, usize)> = (0..n).map(|i| (lcg(&mut seed) % range, i)).collect();
                let mut ours = v.clone();
                sort_by_key(&mut ours, |p| p.0);
                let mut std_sorted = v.clone();
                std_sorted.sort_by_key(|p| p.0);
                assert_eq!(ours, std_sorted, "n {n} range {range}");
                let mut ours = v.clone();
                sort_by(&mut ours, |x, y| y.0.cmp(&x.0));
                let mut std_sorted = v;
                std_sorted.sort_by_key(|x| std::cmp::Reverse(x.0));
                assert_eq!(ours, std_sorted, "reversed, n {n} range {range}");
            }
        }
        let mut words = vec!["b".to_string(), "a".into(), "c".into(), "a".into()];
        sort(&mut words);
        assert_eq!(words, ["a", "a", "b", "c"]);
    }
}
