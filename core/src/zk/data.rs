//! A znode's data: text, as ZooKeeper holds it, except that a partition
//! `state` znode's JSON in exactly the form Kafka's controller writes it
//! (`znodes::encode_partition_state`: plain integers, every ISR id a small
//! number, at most four of them) is kept as its numbers, in place. It reads,
//! prints, compares and serializes as the text itself, byte for byte; the
//! controller's and the simulator's reads of a state znode take the numbers
//! without parsing. At Kafka scale (200,000 partitions) this saves a heap
//! block of ~80 bytes a partition, and a copy of a shared chunk of znodes
//! copies no state text.

use crate::ids::BrokerId;
use crate::znodes::LeaderIsr;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// How many ISR ids a state znode kept as numbers may hold.
const STATE_ISR: usize = 4;

/// A znode's data (see the module's notes). Two values are equal exactly
/// when their texts are: a text has one form only (numbers when it is a
/// state znode's canonical JSON, text otherwise).
#[derive(Clone, PartialEq, Eq)]
pub struct ZnodeData(Repr);

/// 24 bytes, as a `String`: the state's fields sit after the tag.
#[derive(Clone, PartialEq, Eq)]
enum Repr {
    Text(Box<str>),
    /// `{"controller_epoch":ce,"leader":leader,"version":1,"leader_epoch":le,"isr":[isr[..len]]}`,
    /// the integers as written.
    State {
        len: u8,
        isr: [u16; STATE_ISR],
        ce: i32,
        leader: i32,
        le: i32,
    },
}

const _: () = assert!(std::mem::size_of::<ZnodeData>() == 24);

impl ZnodeData {
    /// No data (ZooKeeper's empty/null data).
    pub fn empty() -> ZnodeData {
        ZnodeData(Repr::Text(Box::from("")))
    }

    /// The data as text.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.0 {
            Repr::Text(s) => Cow::Borrowed(s),
            Repr::State { .. } => Cow::Owned(self.state_text()),
        }
    }

    /// The text of a state kept as numbers, written by the one writer of
    /// that format ([`crate::znodes::write_partition_state`]; `From` keeps
    /// numbers only when it gives the text back). Empty for text.
    fn state_text(&self) -> String {
        let mut out = String::new();
        if let Repr::State {
            len,
            isr,
            ce,
            leader,
            le,
        } = &self.0
        {
            crate::znodes::write_partition_state(
                &mut out,
                i64::from(*ce),
                i64::from(*leader),
                i64::from(*le),
                &mut isr[..usize::from(*len)].iter().map(|&b| i64::from(b)),
            );
        }
        out
    }

    /// The text's length in bytes.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Text(s) => s.len(),
            Repr::State { .. } => {
                struct Count(usize);
                impl fmt::Write for Count {
                    fn write_str(&mut self, s: &str) -> fmt::Result {
                        self.0 += s.len();
                        Ok(())
                    }
                }
                let mut c = Count(0);
                let _ = fmt::write(&mut c, format_args!("{self}"));
                c.0
            }
        }
    }

    /// Whether there is no data.
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Repr::Text(s) => s.is_empty(),
            Repr::State { .. } => false,
        }
    }

    /// Whether the text contains `pat`.
    pub fn contains(&self, pat: &str) -> bool {
        self.text().contains(pat)
    }

    /// The data read as a partition state znode with data version
    /// `zk_version`: [`crate::znodes::decode_partition_state`] of the text,
    /// without parsing when it is kept as numbers.
    pub fn partition_state(&self, zk_version: i32) -> Option<LeaderIsr> {
        match &self.0 {
            Repr::Text(s) => crate::znodes::decode_partition_state(s, zk_version),
            Repr::State {
                len,
                isr,
                ce,
                leader,
                le,
            } => Some(LeaderIsr {
                leader: u32::try_from(*leader).ok().map(BrokerId),
                leader_epoch: *le,
                isr: isr[..usize::from(*len)]
                    .iter()
                    .map(|&b| BrokerId(u32::from(b)))
                    .collect::<crate::broker::ReplicaIds>(),
                zk_version,
                controller_epoch: *ce,
            }),
        }
    }
}

impl From<String> for ZnodeData {
    fn from(s: String) -> ZnodeData {
        match state_numbers(&s) {
            Some(repr) => ZnodeData(repr),
            None => ZnodeData(Repr::Text(s.into_boxed_str())),
        }
    }
}

impl From<&str> for ZnodeData {
    fn from(s: &str) -> ZnodeData {
        match state_numbers(s) {
            Some(repr) => ZnodeData(repr),
            None => ZnodeData(Repr::Text(Box::from(s))),
        }
    }
}

impl ZnodeData {
    /// A partition state znode's data written from `l`: the value
    /// `ZnodeData::from(encode_partition_state(l).as_str())` is, without
    /// writing the text and parsing it back where the numbers fit in place
    /// (every controller's and leader's state write).
    pub(crate) fn of_partition_state(l: &LeaderIsr) -> ZnodeData {
        let leader = l.leader.map_or(-1, |b| i64::from(b.0));
        let ce = i64::from(l.controller_epoch);
        match state_repr(ce, leader, i64::from(l.leader_epoch), &l.isr) {
            Some(repr) => ZnodeData(repr),
            None => ZnodeData::from(crate::znodes::encode_partition_state(l)),
        }
    }
}

/// The numbers of a state znode's text when it is exactly what
/// `encode_partition_state` writes for numbers that fit here (so that
/// printing them gives the text back), else `None`.
fn state_numbers(s: &str) -> Option<Repr> {
    let (ce, leader, le, ids) = crate::znodes::partition_state_numbers(s)?;
    state_repr(ce, leader, le, &ids)
}

/// A state znode's numbers kept in place, if they fit: at most
/// [`STATE_ISR`] ids, each below 65,536, and the epochs and the leader in
/// `i32`'s range.
fn state_repr(ce: i64, leader: i64, le: i64, ids: &[BrokerId]) -> Option<Repr> {
    if ids.len() > STATE_ISR {
        return None;
    }
    let mut isr = [0u16; STATE_ISR];
    for (slot, id) in isr.iter_mut().zip(ids.iter()) {
        *slot = u16::try_from(id.0).ok()?;
    }
    Some(Repr::State {
        len: u8::try_from(ids.len()).ok()?,
        isr,
        ce: i32::try_from(ce).ok()?,
        leader: i32::try_from(leader).ok()?,
        le: i32::try_from(le).ok()?,
    })
}

impl fmt::Display for ZnodeData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Text(s) => f.write_str(s),
            Repr::State { .. } => f.write_str(&self.state_text()),
        }
    }
}

impl fmt::Debug for ZnodeData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.text(), f)
    }
}

impl Default for ZnodeData {
    fn default() -> ZnodeData {
        ZnodeData::empty()
    }
}

impl PartialEq<str> for ZnodeData {
    fn eq(&self, other: &str) -> bool {
        match &self.0 {
            Repr::Text(s) => **s == *other,
            Repr::State { .. } => *self.text() == *other,
        }
    }
}

impl PartialEq<&str> for ZnodeData {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<String> for ZnodeData {
    fn eq(&self, other: &String) -> bool {
        *self == **other
    }
}

impl PartialEq<ZnodeData> for String {
    fn eq(&self, other: &ZnodeData) -> bool {
        *other == **self
    }
}

impl PartialEq<ZnodeData> for &str {
    fn eq(&self, other: &ZnodeData) -> bool {
        *other == **self
    }
}

impl Serialize for ZnodeData {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

impl<'de> Deserialize<'de> for ZnodeData {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ZnodeData, D::Error> {
        String::deserialize(d).map(ZnodeData::from)
    }
}

#[cfg(test)]
mod tests {
    use super::ZnodeData;
    use crate::ids::BrokerId;
    use crate::znodes::{decode_partition_state, encode_partition_state, LeaderIsr};

    fn state(ce: i32, leader: Option<u32>, le: i32, isr: &[u32]) -> String {
        encode_partition_state(&LeaderIsr {
            leader: leader.map(BrokerId),
            leader_epoch: le,
            isr: isr.iter().map(|&b| BrokerId(b)).collect(),
            zk_version: 0,
            controller_epoch: ce,
        })
    }

    /// Texts: encodings of states that fit in numbers and that do not, each
    /// prefix and each one-byte change of them, and other data.
    fn texts() -> Vec<String> {
        let mut base = vec![
            state(1, Some(3), 0, &[3, 1, 2]),
            state(0, None, 7, &[]),
            state(i32::MAX, Some(65_535), i32::MIN, &[65_535, 0, 1, 2]),
            state(-4, Some(2), -1, &[1, 2, 3, 4, 5]),
            state(2, Some(65_536), 1, &[65_536]),
            state(2, Some(u32::MAX), 1, &[1]),
            r#"{"controller_epoch":1,"leader":-0,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"controller_epoch":1,"leader":01,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            r#"{"controller_epoch":3000000000,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}"#
                .into(),
            r#"{"controller_epoch":1, "leader":1,"version":1,"leader_epoch":0,"isr":[1]}"#.into(),
            String::new(),
            "0".into(),
            r#"{"version":1,"brokerid":2,"timestamp":"5"}"#.into(),
        ];
        let mut out = base.clone();
        for s in base.drain(..6) {
            for i in 0..s.len() {
                out.push(s[..i].to_string());
                for b in [b'0', b'9', b'-', b',', b' ', b'x'] {
                    let mut v = s.clone().into_bytes();
                    v[i] = b;
                    if let Ok(t) = String::from_utf8(v) {
                        out.push(t);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn reads_prints_and_compares_as_its_text() {
        let texts = texts();
        let mut kept_as_numbers = 0;
        for s in &texts {
            let d = ZnodeData::from(s.as_str());
            let owned = ZnodeData::from(s.clone());
            assert_eq!(d, owned, "{s}");
            assert_eq!(d.to_string(), *s);
            assert_eq!(d.text(), *s);
            assert_eq!(d.len(), s.len(), "{s}");
            assert_eq!(d.is_empty(), s.is_empty());
            assert_eq!(d, *s);
            assert_eq!(d, s.as_str());
            assert_eq!(*s, d);
            assert_eq!(format!("{d:?}"), format!("{s:?}"));
            assert_eq!(
                serde_json::to_string(&d).unwrap(),
                serde_json::to_string(s).unwrap()
            );
            let back: ZnodeData = serde_json::from_str(&serde_json::to_string(s).unwrap()).unwrap();
            assert_eq!(back, d);
            for v in [0, 5] {
                assert_eq!(d.partition_state(v), decode_partition_state(s, v), "{s}");
            }
            let copy = d.clone();
            assert_eq!(copy.to_string(), *s);
            if matches!(d.0, super::Repr::State { .. }) {
                kept_as_numbers += 1;
            }
        }
        assert!(kept_as_numbers > 10, "{kept_as_numbers}");
        // Equal exactly when the texts are.
        let data: Vec<ZnodeData> = texts.iter().take(200).map(|s| s.as_str().into()).collect();
        for (a, da) in texts.iter().zip(&data) {
            for (b, db) in texts.iter().zip(&data) {
                assert_eq!(da == db, a == b);
            }
        }
    }

    #[test]
    fn a_controller_written_state_is_kept_as_numbers() {
        let d = ZnodeData::from(state(1, Some(3), 0, &[3, 1, 2]));
        assert!(matches!(d.0, super::Repr::State { .. }));
        let d = ZnodeData::from(state(1, Some(3), 0, &[3, 1, 2, 4, 5]));
        assert!(matches!(d.0, super::Repr::Text(_)));
    }

    #[test]
    fn a_state_made_from_its_numbers_is_the_one_parsed_from_its_text() {
        // Kafka: TopicPartitionStateZNode.encode, the state a controller's
        // election and a leader's ISR change write; kept here as numbers when
        // they fit, as text otherwise, whichever way the value was made.
        let mut rng = crate::rng::Rng::new(13);
        let ids = [0, 1, 2, 7, 999, 65_535, 65_536, 1 << 31, u32::MAX];
        let epochs = [0, 1, 5, -1, i32::MAX, i32::MIN];
        let mut forms = [0usize; 2];
        for _ in 0..4_000 {
            let mut pick = |of: &[u32]| of[rng.below(of.len() as u64) as usize];
            let n = pick(&[0, 1, 2, 3, 4, 5, 6]) as usize;
            let isr: Vec<BrokerId> = (0..n).map(|_| BrokerId(pick(&ids))).collect();
            let leader = (pick(&[0, 1, 1, 1]) == 1).then(|| BrokerId(pick(&ids)));
            let l = LeaderIsr {
                leader,
                leader_epoch: epochs[rng.below(6) as usize],
                isr: isr.as_slice().into(),
                zk_version: rng.below(9) as i32,
                controller_epoch: epochs[rng.below(6) as usize],
            };
            let text = encode_partition_state(&l);
            let made = ZnodeData::of_partition_state(&l);
            // The same form (numbers or text), not only the same text.
            let parsed = ZnodeData::from(text.as_str());
            assert!(made == parsed, "{text}");
            assert_eq!(made.text(), text);
            forms[usize::from(matches!(made.0, super::Repr::State { .. }))] += 1;
        }
        // Both forms were made (numbers, and text for what does not fit).
        assert!(forms[0] > 100 && forms[1] > 100, "{forms:?}");
    }
}
