//! The core's user-facing errors in the page's languages: an action refused
//! ([`ActionError`]) and an admin request refused ([`AdminError`]). English
//! is the core's own text; the Chinese keeps Kafka's exception names (and
//! their messages, quoted) as Kafka writes them.

use super::Lang;
use kcsim_core::admin::AdminError;
use kcsim_core::config::ConfigError;
use kcsim_core::sim::ActionError;

/// An action refused before it changed anything.
pub fn action_error_text(e: &ActionError, lang: Lang) -> String {
    match lang {
        Lang::En => e.to_string(),
        Lang::Zh => match e {
            ActionError::UnknownBroker(b) => format!("集群中没有 broker {b}"),
            ActionError::InThePast { at, now } => {
                format!("时间 {at} ms 早于模拟的当前时间 {now} ms")
            }
            // The limit's own words stay as the core says them (they name
            // the constant, as the scenario-format page does).
            ActionError::Invalid(m) => format!("操作超出限制：{m}"),
            ActionError::TooManyActions { limit } => {
                format!("本次运行已有 {limit} 个操作，达到上限（MAX_ACTIONS）；请开始新的运行")
            }
        },
    }
}

/// A configuration key or value refused.
pub fn config_error_text(e: &ConfigError, lang: Lang) -> String {
    match lang {
        Lang::En => e.to_string(),
        Lang::Zh => match e {
            ConfigError::UnknownKey(k) => format!("未知的配置项 {k:?}"),
            ConfigError::Static { .. } => {
                format!("该配置不能动态修改（Kafka：\"{e}\"）；请在集群的初始配置中设置")
            }
            ConfigError::NotSet(k) => format!("{k} 没有可删除的动态配置（Kafka：\"{e}\"）"),
            ConfigError::BadValue { key, want, got } => {
                format!("配置项 {key:?} 需要 {want}，实际得到 {got}")
            }
        },
    }
}

/// An admin request refused, or its ZooKeeper write failed.
pub fn admin_error_text(e: &AdminError, lang: Lang) -> String {
    match lang {
        Lang::En => e.to_string(),
        Lang::Zh => match e {
            AdminError::InvalidTopic(_) => format!("主题名不合法（\"{e}\"）"),
            AdminError::TopicExists(t) => format!("主题 {t} 已存在（\"{e}\"）"),
            AdminError::InvalidReplicationFactor {
                replication_factor,
                available,
            }
            | AdminError::InvalidReplicationFactorForNewPartitions {
                replication_factor,
                available,
            } => {
                format!("副本因子 {replication_factor} 大于可用的 broker 数 {available}（\"{e}\"）")
            }
            AdminError::UnknownTopic(t) => format!("主题 {t} 不存在（\"{e}\"）"),
            AdminError::InvalidPartitions {
                topic,
                current,
                requested,
            } => format!("主题 {topic} 当前有 {current} 个分区，{requested} 并不是增加（\"{e}\"）"),
            AdminError::TopicAlreadyMarkedForDeletion(t) => {
                format!("主题 {t} 已被标记为待删除（\"{e}\"）")
            }
            AdminError::ReassignmentInProgress => {
                "已有一个分区重分配正在进行（/admin/reassign_partitions 已存在）".to_string()
            }
            AdminError::UnknownPartition(tp) => {
                format!("分区 {tp} 不存在，未写入任何内容（\"{e}\"）")
            }
            AdminError::InvalidReplicaAssignment { tp, .. } => {
                format!("{tp} 的目标副本为空或有重复，未写入任何内容（\"{e}\"）")
            }
            AdminError::UnknownBroker { tp, broker } => {
                format!("{tp}：broker {broker} 不存在，未写入任何内容")
            }
            AdminError::PreferredElectionInProgress => {
                "已有一个优先副本选举正在进行（/admin/preferred_replica_election 已存在）"
                    .to_string()
            }
            AdminError::NotTopicConfig(k) => format!("{k} 不是主题级别的配置项"),
            AdminError::InvalidConfig(c) => config_error_text(c, lang),
            AdminError::TopicDoesNotExist(t) => format!("主题 {t} 不存在"),
            AdminError::Zk { op, path, error } => {
                format!("ZooKeeper 操作失败：{op} {path}：{error}")
            }
        },
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use kcsim_core::ids::TopicPartition;
    use kcsim_core::zk::ZkError;
    use kcsim_core::BrokerId;

    fn has_cjk(s: &str) -> bool {
        s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    }

    fn config_errors() -> Vec<ConfigError> {
        vec![
            ConfigError::UnknownKey("x.y".into()),
            ConfigError::Static {
                key: "auto.leader.rebalance.enable".into(),
                why: "a static broker config in Kafka 2.4",
            },
            ConfigError::BadValue {
                key: "min.insync.replicas".into(),
                want: "a positive integer",
                got: "\"a\"".into(),
            },
        ]
    }

    /// One of each admin error.
    pub(crate) fn admin_errors() -> Vec<AdminError> {
        let tp = TopicPartition::new("t", 0);
        let mut v = vec![
            AdminError::InvalidTopic("topic name is illegal".into()),
            AdminError::TopicExists("t".into()),
            AdminError::InvalidReplicationFactor {
                replication_factor: 5,
                available: 3,
            },
            AdminError::InvalidReplicationFactorForNewPartitions {
                replication_factor: 5,
                available: 3,
            },
            AdminError::UnknownTopic("t".into()),
            AdminError::InvalidPartitions {
                topic: "t".into(),
                current: 3,
                requested: 2,
            },
            AdminError::TopicAlreadyMarkedForDeletion("t".into()),
            AdminError::ReassignmentInProgress,
            AdminError::UnknownPartition(tp.clone()),
            AdminError::InvalidReplicaAssignment {
                tp: tp.clone(),
                replicas: vec![BrokerId(1), BrokerId(1)],
            },
            AdminError::UnknownBroker {
                tp,
                broker: BrokerId(9),
            },
            AdminError::PreferredElectionInProgress,
            AdminError::NotTopicConfig("x".into()),
            AdminError::TopicDoesNotExist("t".into()),
            AdminError::Zk {
                op: "create",
                path: "/brokers/topics/t".into(),
                error: ZkError::NodeExists,
            },
        ];
        v.extend(config_errors().into_iter().map(AdminError::InvalidConfig));
        v
    }

    #[test]
    fn every_error_reads_in_both_languages() {
        let actions = [
            ActionError::UnknownBroker(BrokerId(7)),
            ActionError::InThePast { at: 1, now: 2 },
            ActionError::Invalid("a pause of 0 ms".into()),
            ActionError::TooManyActions { limit: 10_000 },
        ];
        for e in &actions {
            assert_eq!(action_error_text(e, Lang::En), e.to_string());
            let zh = action_error_text(e, Lang::Zh);
            assert!(has_cjk(&zh) && zh != e.to_string(), "{zh}");
        }
        for e in admin_errors() {
            assert_eq!(admin_error_text(&e, Lang::En), e.to_string());
            let zh = admin_error_text(&e, Lang::Zh);
            assert!(has_cjk(&zh) && zh != e.to_string(), "{zh}");
        }
        let zh = admin_error_text(&AdminError::TopicExists("orders".into()), Lang::Zh);
        assert!(
            zh.contains("TopicExistsException"),
            "Kafka's words stay: {zh}"
        );
    }
}
