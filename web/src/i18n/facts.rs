//! The trace's facts in the page's languages. The core says what happened
//! as data ([`Fact`]); English is the core's own sentence
//! ([`Fact::english`], byte for byte what the CLI prints), except a topic's
//! znode whose data is too long for a line, which both languages show by its
//! start and size ([`DataBrief`]; the CLI prints it whole); the Chinese is
//! written here, one arm per variant and no catch-all, so a new kind of fact
//! does not compile until it has its Chinese. Kafka's own names (znode paths,
//! config keys, state, request and error names, `kill -9`) stay as Kafka
//! spells them; the words follow the Chinese article on the controller
//! (控制器, 分区, 副本, leader, ISR/AR, 会话, epoch, 优先副本).

use super::errors::{admin_error_text, config_error_text};
use super::Lang;
use kcsim_core::action::Action;
use kcsim_core::controller::channel::ControlledShutdownError;
use kcsim_core::controller::election::ElectionWhy;
use kcsim_core::controller::event::ElectionType;
use kcsim_core::controller::states::{PartitionStateChangeError, ReplicaStateChangeError};
use kcsim_core::fact::{ElectionCode, ElectionLabel, Fact, ShutdownFailure, ZkOp};
use kcsim_core::ids::{comma_list, ids_text};
use kcsim_core::kafka_zk::ControllerError;
use kcsim_core::words::DataBrief;

/// A fact as a sentence in `lang`.
pub fn fact_text(fact: &Fact, lang: Lang) -> String {
    if let Fact::TopicCreated { topic, data } | Fact::PartitionsAdded { topic, data } = fact {
        if let Some(b) = DataBrief::of(data) {
            return topic_brief(matches!(fact, Fact::TopicCreated { .. }), topic, &b, lang);
        }
    }
    match lang {
        Lang::En => fact.english(),
        Lang::Zh => zh(fact),
    }
}

/// A topic's znode written (created, or rewritten with more partitions)
/// whose data is too long for a line: its start, then its partitions and
/// replication factor (a 5,000-partition topic is ~80 KB of JSON).
fn topic_brief(created: bool, topic: &str, b: &DataBrief<'_>, lang: Lang) -> String {
    let (start, bytes) = (b.start, b.bytes);
    match (lang, b.assignment) {
        (Lang::En, Some((n, rf))) => format!(
            "/brokers/topics/{topic} = {start}… ({n} partitions, replication factor {rf}; {bytes} bytes)"
        ),
        (Lang::En, None) => format!("/brokers/topics/{topic} = {start}… ({bytes} bytes)"),
        (Lang::Zh, a) => {
            let what = if created { "创建主题" } else { "增加分区" };
            match a {
                Some((n, rf)) => format!(
                    "{what}：/brokers/topics/{topic} = {start}…（{n} 个分区，副本因子 {rf}；共 {bytes} 字节）"
                ),
                None => format!("{what}：/brokers/topics/{topic} = {start}…（共 {bytes} 字节）"),
            }
        }
    }
}

/// A Scala set of ids, as the election reasons print it: `{1,2}`.
fn set<T: std::fmt::Display>(v: &[T]) -> String {
    format!("{{{}}}", comma_list(v))
}

fn zh(fact: &Fact) -> String {
    match fact {
        Fact::Text(t) => format!("（原文）{t}"),
        Fact::UserAction(a) => action_zh(a),
        Fact::NoProcessToKill { broker } => format!("broker {broker} 没有可 kill 的进程"),
        Fact::AlreadyRunning { broker } => format!("broker {broker} 已在运行"),
        Fact::NotRunning { broker } => format!("broker {broker} 没有在运行"),
        Fact::NoLiveSession { broker } => format!("broker {broker} 没有存活的会话"),
        Fact::NoControllerForElection => {
            "NOT_CONTROLLER：没有活跃的控制器来执行这次选举".to_string()
        }
        Fact::NoSuchMessage { id } => format!("线路上没有消息 {id}"),
        Fact::MessageDelayed { id, arrives_at_ms } => {
            format!("消息 {id} 现在于 {arrives_at_ms} ms 到达")
        }
        Fact::WatchNotificationLost {
            id,
            kind,
            path,
            broker,
        } => format!("发给 broker {broker} 的监听通知 {id}（{path} 上的 {kind:?}）丢失"),
        Fact::ShutdownRequestLost { id } => {
            format!("消息 {id} 丢失；broker 与控制器之间的连接断开")
        }
        Fact::RequestLost { id } => format!("消息 {id} 丢失；控制器在 100 ms 后重发"),
        Fact::AdminFailed(e) => admin_error_text(e, Lang::Zh),
        Fact::ConfigRefused(e) => config_error_text(e, Lang::Zh),
        Fact::ZkOpFailed { op, path, error } => {
            let verb = match op {
                ZkOp::Create => "创建",
                ZkOp::Set => "设置",
                ZkOp::Delete => "删除",
            };
            format!("{verb} {path} 失败：{error}")
        }
        Fact::TopicCreated { topic, data } => {
            format!("创建主题：/brokers/topics/{topic} = {data}")
        }
        Fact::PartitionsAdded { topic, data } => {
            format!("增加分区：/brokers/topics/{topic} = {data}")
        }
        Fact::Registered {
            broker,
            epoch,
            session,
        } => format!(
            "已注册到 /brokers/ids/{broker}，broker epoch（czxid）{epoch}，会话 {session}"
        ),
        Fact::StartupFailed { broker, error } => format!(
            "{error}：/brokers/ids/{broker} 仍被之前的会话占用；broker 退出（等旧会话过期后再启动它）"
        ),
        Fact::SessionExpired {
            session,
            owner,
            timeout_ms,
        } => format!(
            "{}会话 {session} 在 {timeout_ms} ms 内没有心跳而过期；它的临时节点被删除",
            owner.map_or(String::new(), |b| format!("broker {b} 的"))
        ),
        Fact::SessionExpiredByRequest { broker } => {
            format!("broker {broker} 的会话按请求过期；它的临时节点被删除")
        }
        Fact::SessionReinitialized {
            preempted,
            new_session,
        } => format!(
            "ZooKeeper 会话过期；队列中被清除的事件：{preempted:?}；新会话 {new_session}"
        ),
        Fact::Resumed { broker, after_ms } => {
            format!("broker {broker} 在暂停 {after_ms} ms 后恢复运行")
        }
        Fact::ShutdownComplete { broker, was_active } => format!(
            "broker {broker} 已关闭；它的会话已关闭，所以 /brokers/ids/{broker}{}立即被删除",
            if *was_active { " 和 /controller " } else { " " }
        ),
        Fact::ShutdownStarted { broker } => format!("broker {broker} 开始受控关闭（ControlledShutdown）"),
        Fact::ShutdownGaveUp { broker, max } => format!(
            "broker {broker}：受控关闭失败了 {max} 次；改为非受控关闭"
        ),
        Fact::ShutdownNoController { attempt } => format!(
            "第 {attempt} 次尝试：ZooKeeper 中没有已注册的控制器；退避后重试"
        ),
        Fact::ShutdownRequestSent {
            attempt,
            controller,
            broker_epoch,
        } => format!(
            "第 {attempt} 次尝试：向控制器 {controller} 发送 ControlledShutdownRequest（broker epoch {broker_epoch}）"
        ),
        Fact::ShutdownSucceeded { attempt } => format!("第 {attempt} 次尝试：受控关闭成功"),
        Fact::ShutdownRetry {
            attempt,
            failure,
            backoff_ms,
        } => format!(
            "第 {attempt} 次尝试失败（{}）；{backoff_ms} ms 后重试",
            shutdown_failure_zh(failure)
        ),
        Fact::RequestHandled {
            request,
            from,
            epoch,
            error,
            ..
        } => format!("来自控制器 {from}（epoch {epoch}）的 {request}：{error}"),
        Fact::WatchFired { kind, path, event } => {
            format!("{path} 上的 {kind:?} → 事件 {event} 入队")
        }
        Fact::EventProcessed {
            event,
            queued_ms,
            reads,
            writes,
            requests,
            took_ms,
        } => format!(
            "处理 {event}（排队 {queued_ms} ms；ZooKeeper 读 {reads} 次、写 {writes} 次，请求 {requests} 个：用时 {took_ms} ms）"
        ),
        Fact::RecordsLost { lost, tp, broker } => format!(
            "{tp} 的 {lost} 条已确认消息丢失：broker {broker} 成为 leader，而它的日志中没有这些消息"
        ),
        Fact::LeaderUpdatedIsr {
            tp,
            leader,
            old,
            isr,
            zk_version,
        } => format!(
            "{tp}：leader {leader} 将 ISR 从 {} 更新为 {}（zkVersion {zk_version}）",
            ids_text(old),
            ids_text(isr)
        ),
        Fact::IsrUpdateSkipped {
            tp,
            cached_zk_version,
            error,
        } => format!(
            "{tp}：缓存的 zkVersion {cached_zk_version} 与 ZooKeeper 中的不一致（{error}），跳过 ISR 更新"
        ),
        Fact::IsrChangePropagated { path, data } => format!("写入 ISR 变更通知：{path} = {data}"),
        Fact::ProduceNoLeader { tp } => format!("{tp}：LEADER_NOT_AVAILABLE：该分区没有 leader"),
        Fact::ProduceNotLeader { tp, broker } => format!(
            "{tp}：NOT_LEADER_FOR_PARTITION：broker {broker} 不是该分区的 leader"
        ),
        Fact::ProduceNotEnoughReplicas { tp, isr, min_isr } => format!(
            "{tp}：NOT_ENOUGH_REPLICAS：ISR {} 小于 min.insync.replicas {min_isr}",
            ids_text(isr)
        ),
        Fact::Produced {
            count,
            tp,
            leader,
            first,
            acks,
        } => format!(
            "{count} 条消息写入 {tp} 的 leader {leader}，位移 {first}..{}（acks={}）",
            first + count,
            acks.as_str()
        ),
        Fact::LogTruncated {
            tp,
            follower,
            dropped,
            offset,
            leader,
        } => format!(
            "{tp}：follower {follower} 从位移 {offset} 起截断 {dropped} 条消息，与 leader {leader} 的日志保持一致"
        ),
        Fact::AlreadyElected { controller } => {
            format!("broker {controller} 已被选举为控制器，因此停止选举")
        }
        Fact::Elected {
            broker,
            epoch,
            zk_version,
        } => format!(
            "broker {broker} 成功当选为控制器；epoch {epoch}，epoch 的 zk 版本 {zk_version}"
        ),
        Fact::ElectedInstead { winner, me, why } => format!(
            "broker {winner} 抢先当选为控制器，broker {me} 落选（ControllerMovedException：\"{why}\"）"
        ),
        Fact::ElectedAndResigned { why } => format!(
            "有控制器当选但已退位；将进行新一轮选举（ControllerMovedException：\"{why}\"）"
        ),
        Fact::ElectionError { broker, error } => format!(
            "broker {broker} 在竞选或成为控制器时出错：{}",
            controller_error_zh(error)
        ),
        Fact::FailoverDone { epoch } => format!("已准备好作为新的控制器工作，epoch {epoch}"),
        Fact::ResignSessionExpired { broker, epoch } => format!(
            "broker {broker} 退位，不再是控制器：它的 ZooKeeper 会话已过期，/controller（epoch {epoch}）随之被删除"
        ),
        Fact::Resign { broker } => format!("broker {broker} 退位，不再是控制器"),
        Fact::ResignAfterError { broker } => format!(
            "broker {broker} 出错后退位，并删除 /controller（triggerControllerMove）"
        ),
        Fact::ResignForShutdown { broker } => format!(
            "broker {broker} 退位，不再是控制器：它正在关闭，关闭会话会删除 /controller"
        ),
        Fact::ControllerMoved(why) => {
            format!("控制器已转移（ControllerMovedException：\"{why}\"）")
        }
        Fact::EventError { event, error } => match event {
            Some(e) => format!("处理事件 {e} 时出错：{}", controller_error_zh(error)),
            None => format!("处理事件时出错：{}", controller_error_zh(error)),
        },
        Fact::EventSkipped { event } => format!("忽略 {event}：本 broker 不是活跃的控制器"),
        Fact::Unmodelled { event } => format!("{event} 尚未建模"),
        Fact::BrokerChange {
            new,
            dead,
            bounced,
            live,
        } => format!(
            "新加入的 broker：{}，被删除的 broker：{}，重启过的 broker：{}，所有存活的 broker：{}",
            ids_text(new),
            ids_text(dead),
            ids_text(bounced),
            ids_text(live)
        ),
        Fact::IsrChangesSent { partitions } => {
            format!("{} 的 ISR 变更已通知到所有 broker", ids_text(partitions))
        }
        Fact::PartitionStateChanged { tp, from, to } => format!("{tp}：{from} → {to}（分区状态）"),
        Fact::PartitionStateChangeFailed(e) => partition_error_zh(e),
        Fact::ReplicaStateChangeFailed(e) => replica_error_zh(e),
        Fact::LeaderInitialized {
            leader,
            tp,
            replicas,
            isr,
        } => format!(
            "broker {} 成为 {tp} 的 leader：AR {} 中第一个存活的副本；ISR {}，leader epoch 0",
            leader.map_or_else(|| "-1".to_string(), |b| b.to_string()),
            ids_text(replicas),
            ids_text(isr)
        ),
        Fact::LeaderElected {
            leader,
            tp,
            why,
            leader_epoch,
        } => format!(
            "broker {leader} 成为 {tp} 的 leader：{}；leader epoch {leader_epoch}",
            election_why_zh(why)
        ),
        Fact::ElectionGaveUp { partitions, rounds } => format!(
            "经过 {rounds} 轮 BadVersion 冲突后放弃选举 {}",
            comma_list(partitions)
        ),
        Fact::ElectionResult { label, tp, code } => {
            let which = match label {
                ElectionLabel::Unlabelled => "",
                ElectionLabel::Preferred => "PREFERRED ",
                ElectionLabel::Unclean => "UNCLEAN ",
                ElectionLabel::AutoRebalance => "自动再平衡的 PREFERRED ",
            };
            format!("{tp} 的 {which}选举：{}", election_code_zh(code))
        }
        Fact::Imbalance {
            broker,
            not_preferred,
            total,
        } => format!(
            "broker {broker} 的 leader 不均衡率为 {:.3}（以它为优先副本的 {total} 个分区中有 {not_preferred} 个的 leader 不是它）",
            fact.imbalance_ratio().unwrap_or_default()
        ),
        Fact::IsrShrunk {
            tp,
            broker,
            leader,
            isr,
            leader_epoch,
        } => format!(
            "{tp}：副本 {broker} 下线；leader {}，ISR {}，leader epoch {leader_epoch}{}",
            leader.map_or("-1（无）".to_string(), |b| b.to_string()),
            ids_text(isr),
            if isr.contains(broker) {
                "（控制器从不清空 ISR）"
            } else {
                ""
            }
        ),
        Fact::IsrShrinkFenced { tp, epoch, broker } => format!(
            "{tp} 的 leader 与 ISR 已被另一个控制器（epoch {epoch}）写入；不移除副本 {broker}"
        ),
        Fact::ShuttingDownBroker { broker, all } => format!(
            "正在关闭 broker {broker}；所有正在关闭的 broker：{}",
            ids_text(all)
        ),
        Fact::StillLeads { broker, partitions } => format!(
            "broker {broker} 仍是 {} 个分区的 leader：{}",
            partitions.len(),
            ids_text(partitions)
        ),
        Fact::TopicChange {
            new,
            deleted,
            partitions,
        } => format!(
            "新主题：{new:?}，已删除的主题：{deleted:?}，{partitions} 个分区有新的副本分配"
        ),
        Fact::NewPartitions { partitions } => format!("要新增的分区：{}", ids_text(partitions)),
        Fact::AddPartitionsSkipped { topic, partitions } => format!(
            "主题 {topic} 正在删除，跳过新增分区 {}",
            ids_text(partitions)
        ),
        Fact::DeletionDisabled => "delete.topic.enable 为 false：删除请求已被移除".to_string(),
        Fact::TopicsQueuedForDeletion { topics } => format!("进入删除队列的主题：{topics:?}"),
        Fact::DeletionHalted { topic, reason } => {
            let reason = match *reason {
                "topic reassignment in progress" => "该主题的分区重分配正在进行",
                other => other,
            };
            format!("主题 {topic} 的删除暂停：{reason}")
        }
        Fact::DeletionPausedDeadReplicas { topic, brokers } => format!(
            "主题 {topic} 的删除暂停：有副本位于已下线或正在关闭的 broker {} 上",
            ids_text(brokers)
        ),
        Fact::StopReplicaDeleteSent { topic } => {
            format!("已为 {topic} 的每个副本发送 StopReplica(delete=true)")
        }
        Fact::ReplicaDeletionFailed { broker, error } => {
            format!("broker {broker} 上的副本删除失败：{error}")
        }
        Fact::TopicDeleted { topic } => format!("主题 {topic} 删除完成"),
        Fact::DeletionResumed { topics } => format!("恢复删除 {topics:?}"),
        Fact::ReassignmentRefused { tp, target, code } => {
            format!("{tp} 重分配到 {} 被拒绝：{code}", ids_text(target))
        }
        Fact::ReassignmentFailed { tp, error } => {
            format!("{tp} 的重分配失败：{}", controller_error_zh(error))
        }
        Fact::ReassignmentOfMissingPartition { tp } => {
            format!("{tp} 的重分配：该分区不存在")
        }
        Fact::ReassignmentStarted {
            tp,
            replicas,
            adding,
            removing,
        } => format!(
            "{tp}：副本 {}，新增 {}，移除 {}",
            ids_text(replicas),
            ids_text(adding),
            ids_text(removing)
        ),
        Fact::ReassignmentWaiting { tp, adding, isr } => format!(
            "{tp}：等待 {} 加入 ISR {}",
            ids_text(adding),
            ids_text(isr)
        ),
        Fact::ReassignmentLeaderMoveFailed { tp, error } => {
            format!("{tp}：迁移 leader 失败：{}", partition_error_zh(error))
        }
        Fact::ReassignmentCompleted { tp, target } => {
            format!("{tp}：重分配到 {} 完成", ids_text(target))
        }
    }
}

/// The user's action, as done.
fn action_zh(a: &Action) -> String {
    match a {
        Action::KillBroker { broker } => format!("对 broker {broker} 执行 kill -9"),
        Action::StartBroker { broker } => format!("启动 broker {broker}"),
        Action::ShutdownBroker { broker } => {
            format!("在 broker {broker} 上执行 kafka-server-stop.sh")
        }
        Action::PauseBroker {
            broker,
            duration_ms,
        } => format!("暂停 broker {broker} {duration_ms} ms"),
        Action::ExpireSession { broker } => format!("使 broker {broker} 的 ZooKeeper 会话过期"),
        Action::DeleteZnode { path } => format!("用 zookeeper-shell 删除 {path}"),
        Action::SetZnode { path, data } => format!("用 zookeeper-shell 将 {path} 设为 {data}"),
        Action::DelayMessage { id, delay_ms } => format!("将消息 {id} 延迟 {delay_ms} ms"),
        Action::DropMessage { id } => format!("丢弃消息 {id}"),
        Action::Produce {
            topic,
            partition,
            records,
            acks,
        } => format!(
            "向 {topic}-{partition} 生产 {records} 条消息，acks={}",
            acks.as_str()
        ),
        Action::SlowBroker { broker, lag_ms } => {
            format!("让 broker {broker} 的副本拉取慢 {lag_ms} ms")
        }
        Action::HealBroker { broker } => format!("恢复 broker {broker} 的副本拉取"),
        Action::PreferredElection { partitions: None } => {
            "执行 kafka-preferred-replica-election.sh（所有分区）".to_string()
        }
        Action::PreferredElection {
            partitions: Some(p),
        } => format!(
            "对 {} 执行 kafka-preferred-replica-election.sh",
            comma_list(p)
        ),
        Action::ElectLeaders {
            election_type,
            partitions,
        } => format!(
            "对 {} 执行 kafka-leader-election.sh --election-type {}",
            comma_list(partitions),
            match election_type {
                ElectionType::Preferred => "preferred",
                ElectionType::Unclean => "unclean",
            }
        ),
        Action::AddPartitions { .. }
        | Action::DeleteTopic { .. }
        | Action::ReassignPartitions { .. }
        | Action::CreateTopic { .. }
        | Action::SetConfig { .. }
        | Action::DeleteConfig { .. }
        | Action::CreateZnode { .. } => format!("执行 {}", a.describe()),
    }
}

/// Why an election strategy chose its leader, or none.
fn election_why_zh(w: &ElectionWhy) -> String {
    match w {
        ElectionWhy::OfflineClean { assignment, isr } => format!(
            "AR {} 中第一个存活且在 ISR {} 中的副本",
            ids_text(assignment),
            set(isr)
        ),
        ElectionWhy::OfflineUnclean {
            isr,
            assignment,
            leader,
        } => format!(
            "ISR {} 中没有存活的副本；unclean 选举已开启：选 AR {} 中第一个存活的副本，ISR 变为 [{leader}]",
            set(isr),
            ids_text(assignment)
        ),
        ElectionWhy::NoLiveReplicaInAr { assignment } => {
            format!("AR {} 中没有存活的副本", ids_text(assignment))
        }
        ElectionWhy::NoLiveReplicaInIsr { isr } => {
            format!("ISR {} 中没有存活的副本；unclean 选举未开启", set(isr))
        }
        ElectionWhy::ReassignTarget { target, isr } => format!(
            "重分配目标 {} 中第一个存活且在 ISR {} 中的副本",
            ids_text(target),
            set(isr)
        ),
        ElectionWhy::ReassignNone { target, isr } => format!(
            "重分配目标 {} 中没有既存活又在 ISR {} 中的副本",
            ids_text(target),
            set(isr)
        ),
        ElectionWhy::PreferredChosen {
            leader,
            assignment,
            isr,
        } => format!(
            "优先副本 {leader}（AR {} 中的第一个）存活且在 ISR {} 中",
            ids_text(assignment),
            set(isr)
        ),
        ElectionWhy::PreferredNotLive { replica } => format!("优先副本 {replica} 不存活"),
        ElectionWhy::PreferredNotInIsr { replica, isr } => {
            format!("优先副本 {replica} 不在 ISR {} 中", set(isr))
        }
        ElectionWhy::NoReplicas => "该分区没有副本".to_string(),
        ElectionWhy::ShutdownChosen {
            assignment,
            isr,
            shutting_down,
        } => format!(
            "AR {} 中第一个在 ISR {} 中且不在正在关闭的 broker {} 上的副本",
            ids_text(assignment),
            set(isr),
            set(shutting_down)
        ),
        ElectionWhy::ShutdownLeaderStays { isr } => format!(
            "ISR {} 中所有存活的成员都在关闭；leader 保持不变",
            set(isr)
        ),
    }
}

/// An election's result code (its meaning is [`election_meaning_text`]).
fn election_code_zh(c: &ElectionCode) -> String {
    match c {
        ElectionCode::Elected(Some(l)) => format!("NONE（leader {l}）"),
        ElectionCode::TopicBeingDeleted => "INVALID_TOPIC_EXCEPTION：该主题正在删除".to_string(),
        ElectionCode::PreferredLeaderNotAvailable(why)
        | ElectionCode::EligibleLeadersNotAvailable(why) => {
            format!("{}：{}", c.code(), partition_error_zh(why))
        }
        ElectionCode::Elected(None)
        | ElectionCode::NotNeeded
        | ElectionCode::UnknownTopicOrPartition
        | ElectionCode::UnknownServerError
        | ElectionCode::NotController => c.code().to_string(),
    }
}

/// What one of Kafka's election result codes means, for a reader who does
/// not know them (the English is the core's
/// [`kcsim_core::view::election_code_meaning`]).
pub fn election_meaning_text(code: &str, lang: Lang) -> String {
    match lang {
        Lang::En => kcsim_core::view::election_code_meaning(code).to_string(),
        Lang::Zh => match code {
            "NONE" => "成功：NONE 是 Kafka 表示“没有错误”的代码；leader 已选出",
            "ELECTION_NOT_NEEDED" => "无需操作：当前的 leader 正是这次选举会选出的副本",
            "PREFERRED_LEADER_NOT_AVAILABLE" => "被拒绝：优先副本不存活或不在 ISR 中",
            "ELIGIBLE_LEADERS_NOT_AVAILABLE" => "被拒绝：没有可以成为 leader 的存活副本",
            "UNKNOWN_TOPIC_OR_PARTITION" => "被拒绝：该分区不存在",
            "INVALID_TOPIC_EXCEPTION" => "被拒绝：该主题正在删除",
            "NOT_CONTROLLER" => "被拒绝：收到请求的 broker 不是活跃的控制器",
            // Kafka's codes beyond these (UNKNOWN_SERVER_ERROR and the like).
            _ => "失败",
        }
        .to_string(),
    }
}

/// Why a partition's state change failed.
fn partition_error_zh(e: &PartitionStateChangeError) -> String {
    match e {
        PartitionStateChangeError::InvalidTransition { tp, from, to } => {
            format!("分区 {tp} 不能从 {from} 转换到 {to}")
        }
        PartitionStateChangeError::NoLiveReplica { tp, replicas } => format!(
            "{tp} 的分配副本中没有存活的（AR {}）；它保持 NewPartition",
            ids_text(replicas)
        ),
        PartitionStateChangeError::StateZnodeNotCreated { tp, error } => {
            format!("创建 {tp} 的状态 znode 时出错：{error}")
        }
        PartitionStateChangeError::NoLeaderAndIsr { tp } => {
            format!("分区 {tp} 的 LeaderAndIsr 信息不存在")
        }
        PartitionStateChangeError::WrittenByNewerController {
            tp,
            written_by,
            epoch,
        } => format!(
            "leader 与 ISR 已被另一个控制器（epoch {written_by}）写入，而本控制器的 epoch 是 {epoch}；放弃 {tp} 的选举"
        ),
        PartitionStateChangeError::NoLeaderElected { tp, strategy, why } => format!(
            "按 {strategy} 未能为分区 {tp} 选出 leader：{}",
            election_why_zh(why)
        ),
    }
}

/// Why a replica's state change was refused.
fn replica_error_zh(e: &ReplicaStateChangeError) -> String {
    match e {
        ReplicaStateChangeError::InvalidTransition {
            tp,
            replica,
            from,
            to,
        } => format!("分区 {tp} 的副本 {replica} 不能从 {from} 转换到 {to}"),
        ReplicaStateChangeError::NewReplicaIsLeader { tp, replica } => {
            format!("分区 {tp} 的副本 {replica} 正被要求成为 leader，不能转换到 NewReplica 状态")
        }
    }
}

/// A controller operation's error (Kafka's exception, message kept).
fn controller_error_zh(e: &ControllerError) -> String {
    match e {
        ControllerError::ControllerMoved(why) => {
            format!("控制器已转移（ControllerMovedException：\"{why}\"）")
        }
        ControllerError::Zk(z) => format!("ZooKeeper 错误（KeeperException：{z}）"),
    }
}

/// What a failed controlled shutdown attempt came to.
fn shutdown_failure_zh(f: &ShutdownFailure) -> String {
    match f {
        ShutdownFailure::Remaining(tps) => {
            format!("仍有分区需要迁移：[{}]", comma_list(tps))
        }
        ShutdownFailure::Error(e) => match e {
            ControlledShutdownError::StaleBrokerEpoch {
                broker,
                broker_epoch,
                current,
            } => format!(
                "StaleBrokerEpochException：broker {broker} 的受控关闭请求带着过期的 broker epoch {broker_epoch}，当前 epoch 是 {current}"
            ),
            ControlledShutdownError::BrokerNotAvailable(b) => {
                format!("BrokerNotAvailableException：broker {b} 不存在")
            }
            ControlledShutdownError::NotController => {
                "ControllerMovedException：这个 broker 不是控制器".to_string()
            }
            ControlledShutdownError::Preempted => {
                "ControllerMovedException：控制器的事件被清除".to_string()
            }
            ControlledShutdownError::Controller(c) => controller_error_zh(c),
            ControlledShutdownError::Io(why) => format!("IOException：\"{why}\"（没有收到应答）"),
            ControlledShutdownError::Response(api) => format!("broker 应答 {api}"),
        },
    }
}

#[cfg(test)]
#[path = "facts_tests.rs"]
mod tests;
