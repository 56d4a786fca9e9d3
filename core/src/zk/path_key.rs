//! A znode's path as the ensemble's map keys it: the path's bytes held in
//! the key itself when they fit (every path Kafka writes for a partition
//! does, with topic names up to 20 characters or so), on the heap otherwise.
//! It orders, compares and serializes exactly as the path's text does (byte
//! order: ZooKeeper's `getChildren` order here, and what every walk of the
//! tree relies on); held in place, a lookup's comparisons read the chunk's
//! own memory instead of one heap string each, and a copy-on-write copy of a
//! chunk copies its keys without allocating.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::cmp::Ordering;

/// How many bytes of path a key holds in place.
const INLINE: usize = 62;

/// A znode path (see the module's doc). Always valid UTF-8: it is only
/// made from a `&str`.
#[derive(Clone)]
pub(crate) enum PathKey {
    /// The path's length and bytes, in place.
    Inline(u8, [u8; INLINE]),
    /// A longer path.
    Heap(Box<[u8]>),
}

impl PathKey {
    /// The path's bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self {
            PathKey::Inline(len, bytes) => bytes.get(..usize::from(*len)).unwrap_or(&[]),
            PathKey::Heap(b) => b,
        }
    }

    /// The path.
    pub(crate) fn as_str(&self) -> &str {
        // Made only from a `&str`, so this never falls back.
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl From<&str> for PathKey {
    fn from(path: &str) -> PathKey {
        let b = path.as_bytes();
        if b.len() <= INLINE {
            let mut bytes = [0u8; INLINE];
            bytes[..b.len()].copy_from_slice(b);
            PathKey::Inline(b.len() as u8, bytes)
        } else {
            PathKey::Heap(b.into())
        }
    }
}

impl Borrow<[u8]> for PathKey {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl PartialEq for PathKey {
    fn eq(&self, other: &PathKey) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for PathKey {}

impl PartialOrd for PathKey {
    fn partial_cmp(&self, other: &PathKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PathKey {
    fn cmp(&self, other: &PathKey) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl std::fmt::Debug for PathKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for PathKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
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
        ];
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
        for a in &ps {
            let ka = PathKey::from(a.as_str());
            assert_eq!(ka.as_str(), a);
            assert_eq!(ka.clone().as_str(), a);
            for b in &ps {
                let kb = PathKey::from(b.as_str());
                assert_eq!(ka.cmp(&kb), a.cmp(b), "{a} {b}");
                assert_eq!(ka == kb, a == b, "{a} {b}");
                let borrowed: &[u8] = ka.borrow();
                assert_eq!(borrowed.cmp(b.as_bytes()), a.cmp(b), "{a} {b}");
            }
        }
        assert_eq!(std::mem::size_of::<PathKey>(), 64);
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
        for (i, p) in ps.iter().enumerate() {
            model.insert(p.clone(), i);
            map.insert(PathKey::from(p.as_str()), i);
        }
        let snapshot = map.clone();
        let snapshot_model = model.clone();
        for (i, p) in ps.iter().enumerate().step_by(3) {
            model.remove(p);
            map.remove(p.as_bytes());
            if i % 2 == 0 {
                model.insert(format!("{p}/new"), i);
                map.insert(PathKey::from(format!("{p}/new").as_str()), i);
            }
        }
        for (m, mm) in [(&map, &model), (&snapshot, &snapshot_model)] {
            let got: Vec<(String, usize)> = m
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), *v))
                .collect();
            let want: Vec<(String, usize)> = mm.iter().map(|(k, v)| (k.clone(), *v)).collect();
            assert_eq!(got, want);
            for p in &ps {
                assert_eq!(m.get(p.as_bytes()), mm.get(p));
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
