//! A znode's path as the ensemble's map keys it, in 24 bytes. A partition's
//! znode or its state znode (`/brokers/topics/<topic>/partitions/<n>` and
//! `…/<n>/state`, nearly every znode of a large cluster) is held as its
//! topic's name (up to 17 bytes, in place) and its numbers; any other path
//! as its bytes, in place up to 22 bytes, on the heap otherwise. Which form a
//! path takes depends on its text only (a partition number with a leading
//! zero, or a longer topic, is held as bytes), so two keys are equal exactly
//! when their forms and contents are.
//!
//! Keys order and compare exactly as the paths' texts do (byte order:
//! ZooKeeper's `getChildren` order here, and what every walk of the tree
//! relies on): two partition keys compare by their topics' bytes, then their
//! numbers as decimal texts, then the `/state` suffix, without writing the
//! paths out; any other pair compares the texts. A lookup builds the key of
//! the path it looks for (no heap block for a partition path or a short
//! one), and a copy-on-write copy of a chunk copies its keys without
//! allocating.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::cmp::Ordering;

/// How many bytes of a path a key holds in place.
const INLINE: usize = 22;
/// How many bytes of a topic's name a partition key holds.
const TOPIC: usize = 17;
/// The longest path a key writes out (a partition key's: 16 + 17 + 12 + 9 + 6).
const TEXT: usize = 64;
const TOPICS: &[u8] = b"/brokers/topics/";
const PARTITIONS: &[u8] = b"/partitions/";
const STATE: &[u8] = b"/state";
/// `/brokers/topics/`, the first 16 bytes of every partition key's path.
const TOPICS_HEAD: u128 = u128::from_be_bytes(*b"/brokers/topics/");

/// A znode path (see the module's doc). Always valid UTF-8: it is only
/// made from a `&str`.
#[derive(Clone)]
pub(crate) enum PathKey {
    /// `/brokers/topics/<topic>/partitions/<partition>`, and `/state` after
    /// it if `state`.
    Partition {
        /// The topic's name followed by `/` and zeros (18 bytes), as three
        /// big-endian integers: comparing them compares the bytes.
        hi: u64,
        lo: u64,
        tail: u16,
        /// The partition number (below 10^9, written without leading
        /// zeros) and the suffix, as one integer that orders as their text
        /// does: the number's place among all such numbers in text order
        /// (`0, 1, 10, 100, …, 2, …`), times two, plus one for `/state`
        /// (which sorts after the number and before any longer number).
        code: u32,
    },
    /// Any other path's length and bytes (zeros after them), in place.
    Inline(u8, [u8; INLINE]),
    /// Any other, longer path.
    Heap(Box<[u8]>),
}

const _: () = assert!(std::mem::size_of::<PathKey>() == 24);

/// How many numbers (of at most 9 digits, no leading zeros) start with
/// a given `i`-digit text, the text itself included, by `i` (from 1).
const SUBTREE: [u32; 10] = [
    0,
    111_111_111,
    11_111_111,
    1_111_111,
    111_111,
    11_111,
    1_111,
    111,
    11,
    1,
];

/// A number's place among all numbers in text order, from its digits
/// (canonical: no leading zeros, at most 9): the tests' model of
/// [`rank_of`] and of the parse in [`partition_parts`].
#[cfg(test)]
fn rank(digits: &[u8]) -> u32 {
    match digits {
        [b'0'] => 0,
        _ => {
            let mut r = 1;
            for (i, &d) in digits.iter().enumerate() {
                let d = u32::from(d - b'0');
                r += if i == 0 {
                    (d - 1) * SUBTREE[1]
                } else {
                    1 + d * SUBTREE[i + 1]
                };
            }
            r
        }
    }
}

/// The digits of the number at place `r` ([`rank`]'s inverse), into `out`;
/// how many.
fn unrank(mut r: u32, out: &mut [u8; 9]) -> usize {
    if r == 0 {
        out[0] = b'0';
        return 1;
    }
    r -= 1;
    let mut n = 0;
    while n < 9 {
        let size = SUBTREE[n + 1];
        let d = r / size;
        r %= size;
        out[n] = b'0' + (d + u32::from(n == 0)) as u8;
        n += 1;
        if r == 0 {
            break;
        }
        r -= 1;
    }
    n
}

/// A partition path's parts, if `path` is one a partition key holds.
fn partition_parts(path: &[u8]) -> Option<PathKey> {
    // Fixed parts compared as integers; the topic's name and the number
    // read in one pass each.
    let (head, rest) = path.split_first_chunk::<16>()?;
    if u128::from_be_bytes(*head) != TOPICS_HEAD {
        return None;
    }
    let mut name = [0u8; TOPIC + 1];
    let mut len = 0;
    loop {
        let c = *rest.get(len)?;
        if c == b'/' {
            break;
        }
        *name.get_mut(len)? = c;
        len += 1;
    }
    if len == 0 || len > TOPIC {
        return None;
    }
    name[len] = b'/';
    let (mid, rest) = rest.get(len..)?.split_first_chunk::<12>()?;
    if u64::from_ne_bytes(*mid.first_chunk::<8>()?) != u64::from_ne_bytes(*b"/partiti")
        || u32::from_ne_bytes(*mid.last_chunk::<4>()?) != u32::from_ne_bytes(*b"ons/")
    {
        return None;
    }
    // The number's place in text order ([`rank`]), digit by digit.
    let (&first, mut rest) = rest.split_first()?;
    let mut r = match first {
        b'0' => 0,
        b'1'..=b'9' => 1 + u32::from(first - b'1') * SUBTREE[1],
        _ => return None,
    };
    let mut digits = 1;
    while let Some((&c, more)) = rest.split_first() {
        if !c.is_ascii_digit() {
            break;
        }
        if r == 0 || digits == 9 {
            return None;
        }
        digits += 1;
        r += 1 + u32::from(c - b'0') * SUBTREE[digits];
        rest = more;
    }
    let state = match rest {
        [] => false,
        STATE => true,
        _ => return None,
    };
    partition_key(&name, r * 2 + u32::from(state))
}

/// A partition's key from its topic's name (padded, then `/`) and its code
/// (the number's place in text order, twice, plus one for `/state`).
fn partition_key(name: &[u8; TOPIC + 1], code: u32) -> Option<PathKey> {
    let (hi, rest) = name.split_first_chunk::<8>()?;
    let (lo, tail) = rest.split_first_chunk::<8>()?;
    Some(PathKey::Partition {
        hi: u64::from_be_bytes(*hi),
        lo: u64::from_be_bytes(*lo),
        tail: u16::from_be_bytes(*tail.first_chunk::<2>()?),
        code,
    })
}

/// The first 16 bytes of a path held as bytes, padded with zeros (which
/// sort first, as a path's end does), as an integer that orders as they do.
fn head(held: Option<&[u8]>) -> u128 {
    let mine = held.unwrap_or(&[]);
    match mine.first_chunk::<16>() {
        Some(h) => u128::from_be_bytes(*h),
        None => {
            let mut h = [0u8; 16];
            h[..mine.len()].copy_from_slice(mine);
            u128::from_be_bytes(h)
        }
    }
}

/// A partition key's topic name, `/` and zeros, from its integers.
fn topic_name(hi: u64, lo: u64, tail: u16) -> [u8; TOPIC + 1] {
    let mut name = [0u8; TOPIC + 1];
    name[..8].copy_from_slice(&hi.to_be_bytes());
    name[8..16].copy_from_slice(&lo.to_be_bytes());
    name[16..].copy_from_slice(&tail.to_be_bytes());
    name
}

impl PathKey {
    /// For a partition's key (its znode or its state znode), a hash of it
    /// that spreads a topic's partitions over every bit (for a table of
    /// where such keys were found); `None` for any other path.
    pub(crate) fn partition_hash(&self) -> Option<u64> {
        match self {
            PathKey::Partition { hi, lo, tail, code } => {
                let mixed = hi ^ lo.rotate_left(21) ^ (u64::from(*tail) << 40) ^ u64::from(*code);
                Some(mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            }
            _ => None,
        }
    }

    /// The path's bytes, if the key holds them as they are.
    pub(crate) fn held(&self) -> Option<&[u8]> {
        match self {
            PathKey::Inline(len, bytes) => Some(bytes.get(..usize::from(*len)).unwrap_or(&[])),
            PathKey::Heap(b) => Some(b),
            PathKey::Partition { .. } => None,
        }
    }

    /// The path's bytes: the key's own, or written out into `buf`.
    fn bytes<'a>(&'a self, buf: &'a mut [u8; TEXT]) -> &'a [u8] {
        let PathKey::Partition { hi, lo, tail, code } = self else {
            return self.held().unwrap_or(&[]);
        };
        let name = topic_name(*hi, *lo, *tail);
        let topic = name.split(|&c| c == b'/').next().unwrap_or(&[]);
        let mut number = [0u8; 9];
        let d = unrank(code / 2, &mut number);
        let suffix: &[u8] = if code % 2 == 1 { STATE } else { &[] };
        let mut at = 0;
        for part in [TOPICS, topic, PARTITIONS, &number[..d], suffix] {
            if let Some(to) = buf.get_mut(at..at + part.len()) {
                to.copy_from_slice(part);
                at += part.len();
            }
        }
        buf.get(..at).unwrap_or(&[])
    }

    /// The path.
    pub(crate) fn text(&self) -> Cow<'_, str> {
        // Made only from a `&str` (split at `/`s), so neither falls back.
        match self.held() {
            Some(b) => Cow::Borrowed(std::str::from_utf8(b).unwrap_or("")),
            None => {
                let mut buf = [0u8; TEXT];
                Cow::Owned(String::from_utf8(self.bytes(&mut buf).to_vec()).unwrap_or_default())
            }
        }
    }
}

impl PathKey {
    /// The key of `/brokers/topics/<topic>/partitions/<partition>` (with
    /// `/state` after it if `state`), as [`PathKey::from`] makes it of that
    /// path, without writing the path: `None` when that path is not held as
    /// a partition key (a topic name longer than 17 bytes, empty or holding
    /// a `/`; a number of 10 digits), which the caller then writes out.
    pub(crate) fn partition(topic: &str, partition: u32, state: bool) -> Option<PathKey> {
        TopicKey::new(topic)?.partition(partition, state)
    }

    /// What a partition key names: its topic, its partition number and
    /// whether it is the state znode ([`PathKey::partition`]'s inverse);
    /// `None` for a key held as bytes (any other path, or a partition's
    /// that is not held as numbers), which the caller reads as text.
    pub(crate) fn as_partition(&self) -> Option<(KeyTopic, u32, bool)> {
        let PathKey::Partition { hi, lo, tail, code } = self else {
            return None;
        };
        let name = topic_name(*hi, *lo, *tail);
        let len = name.iter().position(|&c| c == b'/')?;
        let mut digits = [0u8; 9];
        let d = unrank(code / 2, &mut digits);
        let number = digits
            .get(..d)?
            .iter()
            .fold(0u32, |n, c| n * 10 + u32::from(c - b'0'));
        Some((KeyTopic { name, len }, number, code % 2 == 1))
    }
}

/// The part of a topic's partition keys that names the topic, made once
/// for many of its partitions ([`TopicKey::partition`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TopicKey {
    hi: u64,
    lo: u64,
    tail: u16,
    /// The name's length.
    len: u8,
}

impl TopicKey {
    /// `None` where the topic's partition paths are not held as partition
    /// keys (a name longer than 17 bytes, empty or holding a `/`).
    pub(crate) fn new(topic: &str) -> Option<TopicKey> {
        let t = topic.as_bytes();
        if t.is_empty() || t.len() > TOPIC || t.contains(&b'/') {
            return None;
        }
        let mut name = [0u8; TOPIC + 1];
        name[..t.len()].copy_from_slice(t);
        name[t.len()] = b'/';
        let PathKey::Partition { hi, lo, tail, .. } = partition_key(&name, 0)? else {
            return None;
        };
        Some(TopicKey {
            hi,
            lo,
            tail,
            len: t.len() as u8,
        })
    }

    /// Whether this is `topic`'s.
    pub(crate) fn is(&self, topic: &str) -> bool {
        let name = topic_name(self.hi, self.lo, self.tail);
        name.get(..usize::from(self.len)) == Some(topic.as_bytes())
    }

    /// [`PathKey::partition`] of this topic: `None` for a number of 10
    /// digits (its path is then written out).
    pub(crate) fn partition(&self, partition: u32, state: bool) -> Option<PathKey> {
        Some(PathKey::Partition {
            hi: self.hi,
            lo: self.lo,
            tail: self.tail,
            code: rank_of(partition)? * 2 + u32::from(state),
        })
    }
}

/// [`rank`] of `n`'s decimal digits, without writing them as text: `None`
/// from 10^9 (10 digits).
fn rank_of(n: u32) -> Option<u32> {
    if n >= 1_000_000_000 {
        return None;
    }
    if n == 0 {
        return Some(0);
    }
    // The digits, last first.
    let mut digits = [0u32; 9];
    let mut k = 0;
    let mut m = n;
    while m > 0 {
        *digits.get_mut(k)? = m % 10;
        m /= 10;
        k += 1;
    }
    let mut r = 1 + (digits[k - 1] - 1) * SUBTREE[1];
    for i in 1..k {
        r += 1 + digits[k - 1 - i] * SUBTREE[i + 1];
    }
    Some(r)
}

/// A partition key's topic name ([`PathKey::as_partition`]), on the stack.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeyTopic {
    /// The name followed by `/` and zeros.
    name: [u8; TOPIC + 1],
    len: usize,
}

impl KeyTopic {
    /// The name (made from a `&str`, so it is valid UTF-8).
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(self.name.get(..self.len).unwrap_or(&[])).unwrap_or("")
    }
}

impl From<&str> for PathKey {
    fn from(path: &str) -> PathKey {
        let b = path.as_bytes();
        if let Some(key) = partition_parts(b) {
            key
        } else if b.len() <= INLINE {
            let mut bytes = [0u8; INLINE];
            bytes[..b.len()].copy_from_slice(b);
            PathKey::Inline(b.len() as u8, bytes)
        } else {
            PathKey::Heap(b.into())
        }
    }
}

impl PartialEq for PathKey {
    fn eq(&self, other: &PathKey) -> bool {
        // A path has one form (see the module's doc).
        match (self, other) {
            (
                PathKey::Partition { hi, lo, tail, code },
                PathKey::Partition {
                    hi: hi2,
                    lo: lo2,
                    tail: tail2,
                    code: code2,
                },
            ) => code == code2 && hi == hi2 && lo == lo2 && tail == tail2,
            (PathKey::Partition { .. }, _) | (_, PathKey::Partition { .. }) => false,
            _ => self.held() == other.held(),
        }
    }
}

impl Eq for PathKey {}

impl PartialOrd for PathKey {
    fn partial_cmp(&self, other: &PathKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PathKey {
    /// Two partitions' keys (nearly every comparison in a large cluster's
    /// maps) compared in place where natively inlined; any other pair by
    /// [`PathKey::cmp_other`].
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn cmp(&self, other: &PathKey) -> Ordering {
        if let (
            PathKey::Partition { hi, lo, tail, code },
            PathKey::Partition {
                hi: hi2,
                lo: lo2,
                tail: tail2,
                code: code2,
            },
        ) = (self, other)
        {
            // The topics' names then `/`: the first difference is at or
            // before the shorter's `/` (no name holds one).
            return (hi, lo, tail, code).cmp(&(hi2, lo2, tail2, code2));
        }
        self.cmp_other(other)
    }
}

impl PathKey {
    /// [`Ord::cmp`] of two keys that are not both a partition's.
    #[inline(never)]
    fn cmp_other(&self, other: &PathKey) -> Ordering {
        match (self, other) {
            (PathKey::Partition { .. }, _) => match head(other.held()).cmp(&TOPICS_HEAD) {
                Ordering::Equal => other.cmp_text(self).reverse(),
                o => o.reverse(),
            },
            (_, PathKey::Partition { .. }) => match head(self.held()).cmp(&TOPICS_HEAD) {
                Ordering::Equal => self.cmp_text(other),
                o => o,
            },
            _ => self.held().cmp(&other.held()),
        }
    }
}

impl PathKey {
    /// A path held as bytes (`self`) against any key, by their texts.
    #[inline(never)]
    fn cmp_text(&self, other: &PathKey) -> Ordering {
        let mine = self.held().unwrap_or(&[]);
        if other.held().is_none() {
            // The path starts with `/brokers/topics/` (`Ord::cmp` placed
            // any other by its first 16 bytes): the topic's name and its `/`.
            if let PathKey::Partition { hi, lo, tail, .. } = other {
                let name = topic_name(*hi, *lo, *tail);
                let len = name
                    .iter()
                    .position(|&c| c == b'/')
                    .map_or(name.len(), |i| i + 1);
                let rest = mine.get(16..).unwrap_or(&[]);
                let n = rest.len().min(len);
                match rest[..n].cmp(&name[..n]) {
                    Ordering::Equal if n < len => return Ordering::Less,
                    Ordering::Equal => {}
                    o => return o,
                }
            }
        }
        let mut buf = [0u8; TEXT];
        mine.cmp(other.bytes(&mut buf))
    }
}

impl std::fmt::Debug for PathKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.text(), f)
    }
}

impl Serialize for PathKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for PathKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PathKey, D::Error> {
        let s = String::deserialize(d)?;
        Ok(PathKey::from(s.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> Vec<String> {
        let mut out: Vec<String> = vec![
            "/".into(),
            "/a".into(),
            "/a/b".into(),
            "/a-b".into(),
            "/a.c".into(),
            "/a0".into(),
            "/brokers/topics/t/partitions/10/state".into(),
            "/brokers/topics/t/partitions/2/state".into(),
            "/brokers/topics/t/partitions/2".into(),
            "/é/ü".into(),
            "/brokers/topics".into(),
            "/brokers/topics/".into(),
            "/brokers/topic".into(),
            "/brokers/topicsa".into(),
            "/brokers/ids/1".into(),
            "/controller_epoch".into(),
            "/isr_change_notification/isr_change_0000000001".into(),
        ];
        // Partition paths and their near misses: topic names that sort
        // differently as paths ('-' and '.' sort before '/'), names at and
        // past the in-key limit, numbers as decimal texts, leading zeros,
        // the largest numbers held and the first not held, other suffixes.
        let topics = [
            "a",
            "a-b",
            "a.c",
            "ab",
            "a0",
            "A",
            "t",
            "é",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "abcdefghijklmnopqr",
            "abcdefghijklmnopq-",
        ];
        let numbers = [
            "0",
            "1",
            "2",
            "9",
            "10",
            "11",
            "19",
            "2",
            "20",
            "100",
            "101",
            "999",
            "1000",
            "05",
            "00",
            "999999999",
            "100000000",
            "1000000000",
            "4294967296",
            "",
            "x",
            "1x",
        ];
        for t in topics {
            out.push(format!("/brokers/topics/{t}"));
            out.push(format!("/brokers/topics/{t}/partitions"));
            out.push(format!("/brokers/topics/{t}/partitions/"));
            out.push(format!("/brokers/topics/{t}/partitionsx"));
            for n in numbers {
                let p = format!("/brokers/topics/{t}/partitions/{n}");
                for suffix in [
                    "", "/state", "/stat", "/statf", "/state/", "/state/x", "/", "-",
                ] {
                    out.push(format!("{p}{suffix}"));
                }
            }
        }
        // Around the in-place limit, and well past it.
        for n in [INLINE - 2, INLINE - 1, INLINE, INLINE + 1, INLINE + 2, 300] {
            let base = "/x".repeat(n / 2 + 1);
            let s: String = base.chars().take(n).collect();
            out.push(s.clone());
            out.push(format!("{}y", &s[..n - 1]));
            out.push(format!("{s}/z"));
        }
        out
    }

    #[test]
    fn keys_order_and_compare_as_their_paths_do() {
        let ps = paths();
        let keys: Vec<PathKey> = ps.iter().map(|p| PathKey::from(p.as_str())).collect();
        for (a, ka) in ps.iter().zip(&keys) {
            assert_eq!(ka.text(), a.as_str());
            assert_eq!(ka.clone().text(), a.as_str());
            assert_eq!(format!("{ka:?}"), format!("{a:?}"));
            for (b, kb) in ps.iter().zip(&keys) {
                assert_eq!(ka.cmp(kb), a.cmp(b), "{a} {b}");
                assert_eq!(ka == kb, a == b, "{a} {b}");
            }
        }
        assert_eq!(std::mem::size_of::<PathKey>(), 24);
        // The forms: a partition path in numbers, short paths in place.
        let form = |p: &str| match PathKey::from(p) {
            PathKey::Partition { .. } => 'p',
            PathKey::Inline(..) => 'i',
            PathKey::Heap(_) => 'h',
        };
        assert_eq!(
            form("/brokers/topics/abcdefghijklmnopq/partitions/999999999/state"),
            'p'
        );
        assert_eq!(form("/brokers/topics/t/partitions/0"), 'p');
        assert_eq!(form("/brokers/topics/abcdefghijklmnopqr/partitions/0"), 'h');
        assert_eq!(form("/brokers/topics/t/partitions/05"), 'h');
        assert_eq!(form("/brokers/topics/t/partitions/1000000000"), 'h');
        assert_eq!(form("/brokers/ids/1"), 'i');
    }

    #[test]
    fn a_partition_key_made_from_numbers_is_the_one_its_path_makes() {
        let topics = [
            "a",
            "a-b",
            "a.c",
            "ab",
            "A",
            "t",
            "é",
            "abcdefghijklmnopq",
            "abcdefghijklmnopqr",
            "",
            "a/b",
            "a/partitions/1",
        ];
        let mut numbers: Vec<u32> = (0..130).collect();
        numbers.extend([
            999,
            1000,
            99_999_999,
            100_000_000,
            999_999_999,
            1_000_000_000,
            u32::MAX,
        ]);
        for t in topics {
            for &n in &numbers {
                for state in [false, true] {
                    let path = format!(
                        "/brokers/topics/{t}/partitions/{n}{}",
                        if state { "/state" } else { "" }
                    );
                    let from_path = PathKey::from(path.as_str());
                    match PathKey::partition(t, n, state) {
                        Some(key) => {
                            assert!(key == from_path, "{path}");
                            assert_eq!(key.cmp(&from_path), Ordering::Equal, "{path}");
                            assert_eq!(key.text(), path.as_str());
                            // And back: what the key names.
                            let (topic, number, st) = key.as_partition().unwrap();
                            assert_eq!((topic.as_str(), number, st), (t, n, state), "{path}");
                        }
                        None => {
                            assert!(!matches!(from_path, PathKey::Partition { .. }), "{path}");
                            assert!(from_path.as_partition().is_none(), "{path}");
                        }
                    }
                }
            }
        }
        // A topic's part made once: it knows its own name only.
        for t in topics {
            if let Some(tk) = TopicKey::new(t) {
                for other in topics {
                    assert_eq!(tk.is(other), other == t, "{t} {other}");
                }
            }
        }
        assert!(PathKey::partition("t", 7, true).is_some());
        assert!(PathKey::partition("abcdefghijklmnopqr", 7, true).is_none());
        assert!(PathKey::partition("t", 1_000_000_000, false).is_none());
    }

    #[test]
    fn partition_numbers_rank_in_text_order() {
        let mut ns: Vec<u32> = (0..1200).collect();
        ns.extend([
            9_999,
            10_000,
            10_001,
            99_999_999,
            100_000_000,
            123_456_789,
            199_999_999,
            200_000_000,
            999_999_998,
            999_999_999,
        ]);
        let mut texts: Vec<String> = ns.iter().map(u32::to_string).collect();
        texts.sort();
        let ranks: Vec<u32> = texts.iter().map(|t| rank(t.as_bytes())).collect();
        // From the number itself, as from its text.
        for &n in &ns {
            assert_eq!(rank_of(n), Some(rank(n.to_string().as_bytes())), "{n}");
        }
        assert_eq!(rank_of(1_000_000_000), None);
        assert_eq!(rank_of(u32::MAX), None);
        for (t, r) in texts.iter().zip(&ranks) {
            let mut out = [0u8; 9];
            let n = unrank(*r, &mut out);
            assert_eq!(&out[..n], t.as_bytes());
            // A key reads the same place off its path.
            for (suffix, plus) in [("", 0), ("/state", 1)] {
                let key =
                    PathKey::from(format!("/brokers/topics/t/partitions/{t}{suffix}").as_str());
                assert!(
                    matches!(key, PathKey::Partition { code, .. } if code == r * 2 + plus),
                    "{t}{suffix}"
                );
            }
        }
        assert!(ranks.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(rank(b"0"), 0);
        assert_eq!(rank(b"1"), 1);
        assert_eq!(rank(b"10"), 2);
        assert_eq!(rank(b"999999999"), 999_999_999);
    }

    #[test]
    fn a_map_keyed_by_paths_behaves_as_one_keyed_by_strings() {
        // Against a plain BTreeMap<String, _> model, including after a
        // clone that later changes must not reach.
        use crate::cow_map::CowMap;
        use std::collections::BTreeMap;
        let mut model: BTreeMap<String, usize> = BTreeMap::new();
        let mut map: CowMap<PathKey, usize> = CowMap::new();
        let mut ps = paths();
        for i in 0..400 {
            ps.push(format!(
                "/brokers/topics/big-{}/partitions/{}/state",
                i % 7,
                i
            ));
            ps.push(format!("/brokers/topics/big-{}/partitions/{}", i % 7, i));
        }
        for i in 0..30 {
            ps.push(format!("/brokers/topics/x-{i}/partitions/{}/state", i * 37));
        }
        for (i, p) in ps.iter().enumerate() {
            model.insert(p.clone(), i);
            map.insert(PathKey::from(p.as_str()), i);
        }
        let snapshot = map.clone();
        let snapshot_model = model.clone();
        for (i, p) in ps.iter().enumerate().step_by(3) {
            model.remove(p);
            map.remove(&PathKey::from(p.as_str()));
            if i % 2 == 0 {
                model.insert(format!("{p}/new"), i);
                map.insert(PathKey::from(format!("{p}/new").as_str()), i);
            }
        }
        for (m, mm) in [(&map, &model), (&snapshot, &snapshot_model)] {
            let got: Vec<(String, usize)> =
                m.iter().map(|(k, v)| (k.text().into_owned(), *v)).collect();
            let want: Vec<(String, usize)> = mm.iter().map(|(k, v)| (k.clone(), *v)).collect();
            assert_eq!(got, want);
            for p in &ps {
                assert_eq!(m.get(&PathKey::from(p.as_str())), mm.get(p));
            }
        }
        assert_eq!(
            serde_json::to_string(&map).unwrap(),
            serde_json::to_string(&model).unwrap()
        );
        let back: CowMap<PathKey, usize> =
            serde_json::from_str(&serde_json::to_string(&map).unwrap()).unwrap();
        assert!(back == map);
    }
}
