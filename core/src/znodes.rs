//! Encoding and decoding of Kafka's znode data (ZkData.scala).

use crate::controller::context::LeaderIsr;
use crate::ids::BrokerId;
use serde_json::Value;

/// Decode `/brokers/topics/<t>`: partition number → replicas, in partition order.
/// Returns `None` for data that is not a topic znode.
pub fn decode_topic_assignment(data: &str) -> Option<Vec<(u32, Vec<BrokerId>)>> {
    let v: Value = serde_json::from_str(data).ok()?;
    let parts = v.get("partitions")?.as_object()?;
    let mut out = Vec::new();
    for (p, replicas) in parts {
        let p: u32 = p.parse().ok()?;
        let ids = replicas
            .as_array()?
            .iter()
            .map(|b| b.as_u64().and_then(|n| u32::try_from(n).ok()).map(BrokerId))
            .collect::<Option<Vec<_>>>()?;
        out.push((p, ids));
    }
    out.sort_by_key(|(p, _)| *p);
    Some(out)
}

/// Decode the `adding_replicas` and `removing_replicas` of a version-2 topic znode.
pub fn decode_reassigning(data: &str) -> Vec<(u32, crate::controller::topics::Reassignment)> {
    let Ok(v) = serde_json::from_str::<Value>(data) else {
        return Vec::new();
    };
    let list = |key: &str| -> std::collections::BTreeMap<u32, Vec<BrokerId>> {
        v.get(key)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(p, r)| {
                        let ids = r
                            .as_array()?
                            .iter()
                            .map(|b| b.as_u64().and_then(|n| u32::try_from(n).ok()).map(BrokerId))
                            .collect::<Option<Vec<_>>>()?;
                        Some((p.parse().ok()?, ids))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let adding = list("adding_replicas");
    let removing = list("removing_replicas");
    let parts: std::collections::BTreeSet<u32> =
        adding.keys().chain(removing.keys()).copied().collect();
    parts
        .into_iter()
        .map(|p| {
            let r = crate::controller::topics::Reassignment {
                adding: adding.get(&p).cloned().unwrap_or_default(),
                removing: removing.get(&p).cloned().unwrap_or_default(),
            };
            (p, r)
        })
        .collect()
}

/// Encode a partition `state` znode (TopicPartitionStateZNode.encode).
pub fn encode_partition_state(l: &LeaderIsr) -> String {
    let isr: Vec<String> = l.isr.iter().map(|b| b.to_string()).collect();
    let leader = l.leader.map_or(-1, |b| i64::from(b.0));
    format!(
        r#"{{"controller_epoch":{},"leader":{leader},"version":1,"leader_epoch":{},"isr":[{}]}}"#,
        l.controller_epoch,
        l.leader_epoch,
        isr.join(",")
    )
}

/// Decode a partition `state` znode; `zk_version` is the node's data version.
pub fn decode_partition_state(data: &str, zk_version: i32) -> Option<LeaderIsr> {
    let v: Value = serde_json::from_str(data).ok()?;
    let leader = v.get("leader")?.as_i64()?;
    let isr = v
        .get("isr")?
        .as_array()?
        .iter()
        .map(|b| b.as_u64().and_then(|n| u32::try_from(n).ok()).map(BrokerId))
        .collect::<Option<Vec<_>>>()?;
    Some(LeaderIsr {
        leader: u32::try_from(leader).ok().map(BrokerId),
        leader_epoch: i32::try_from(v.get("leader_epoch")?.as_i64()?).ok()?,
        isr,
        zk_version,
        controller_epoch: i32::try_from(v.get("controller_epoch")?.as_i64()?).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_state_round_trips_with_no_leader_as_minus_one() {
        // Kafka: TopicPartitionStateZNode — leader −1 means no leader.
        let l = LeaderIsr {
            leader: None,
            leader_epoch: 4,
            isr: vec![BrokerId(2)],
            zk_version: 7,
            controller_epoch: 3,
        };
        let json = encode_partition_state(&l);
        assert_eq!(
            json,
            r#"{"controller_epoch":3,"leader":-1,"version":1,"leader_epoch":4,"isr":[2]}"#
        );
        assert_eq!(decode_partition_state(&json, 7), Some(l));
        assert_eq!(decode_partition_state("{}", 0), None);
    }

    #[test]
    fn topic_assignment_decodes_in_partition_order() {
        let a =
            decode_topic_assignment(r#"{"version":2,"partitions":{"10":[1],"2":[2,0]}}"#).unwrap();
        assert_eq!(
            a,
            vec![(2, vec![BrokerId(2), BrokerId(0)]), (10, vec![BrokerId(1)])]
        );
        assert_eq!(decode_topic_assignment("[]"), None);
    }
}
