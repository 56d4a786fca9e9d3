//! The trace's English: each [`Fact`] as the sentence the CLI prints and the
//! golden traces hold. The page renders the same facts in its languages.

use crate::fact::{ElectionCode, ElectionLabel, Fact, ShutdownFailure};
use crate::ids::{comma_list, ids_text};
use std::fmt;

impl fmt::Display for ElectionCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElectionCode::Elected(Some(l)) => write!(f, "NONE (leader {l})"),
            ElectionCode::TopicBeingDeleted => {
                f.write_str("INVALID_TOPIC_EXCEPTION: the topic is being deleted")
            }
            ElectionCode::PreferredLeaderNotAvailable(why)
            | ElectionCode::EligibleLeadersNotAvailable(why) => {
                write!(f, "{}: {why}", self.code())
            }
            _ => f.write_str(self.code()),
        }
    }
}

impl ElectionLabel {
    /// The words before "election of" (with their trailing space).
    pub fn prefix(self) -> &'static str {
        match self {
            ElectionLabel::Unlabelled => "",
            ElectionLabel::Preferred => "PREFERRED ",
            ElectionLabel::Unclean => "UNCLEAN ",
            ElectionLabel::AutoRebalance => "auto rebalance PREFERRED ",
        }
    }
}

impl fmt::Display for ShutdownFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShutdownFailure::Remaining(tps) => {
                write!(f, "remaining partitions to move: [{}]", comma_list(tps))
            }
            ShutdownFailure::Error(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for Fact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.english())
    }
}

impl Fact {
    /// The sentence in English, as the trace has always said it.
    pub fn english(&self) -> String {
        match self {
            Fact::Text(t) => t.clone(),
            Fact::UserAction(a) => a.describe(),
            Fact::NoProcessToKill { broker } => format!("broker {broker} has no process to kill"),
            Fact::AlreadyRunning { broker } => format!("broker {broker} is already running"),
            Fact::NotRunning { broker } => format!("broker {broker} is not running"),
            Fact::NoLiveSession { broker } => format!("broker {broker} has no live session"),
            Fact::NoControllerForElection => {
                "NOT_CONTROLLER: no active controller to take the election".to_string()
            }
            Fact::NoSuchMessage { id } => format!("no message {id} is on the wire"),
            Fact::MessageDelayed { id, arrives_at_ms } => {
                format!("message {id} now arrives at {arrives_at_ms} ms")
            }
            Fact::WatchNotificationLost {
                id,
                kind,
                path,
                broker,
            } => format!("watch notification {id} ({kind:?} on {path} for broker {broker}) lost"),
            Fact::ShutdownRequestLost { id } => {
                format!("message {id} lost; the broker's connection to the controller breaks")
            }
            Fact::RequestLost { id } => {
                format!("message {id} lost; the controller resends it after 100 ms")
            }
            Fact::AdminFailed(e) => e.to_string(),
            Fact::ConfigRefused(e) => e.to_string(),
            Fact::ZkOpFailed { op, path, error } => format!("{} {path}: {error}", op.verb()),
            Fact::TopicCreated { topic, data } | Fact::PartitionsAdded { topic, data } => {
                format!("/brokers/topics/{topic} = {data}")
            }
            Fact::Registered {
                broker,
                epoch,
                session,
            } => format!(
                "registered at /brokers/ids/{broker}, broker epoch (czxid) {epoch}, session {session}"
            ),
            Fact::StartupFailed { broker, error } => format!(
                "{error}: /brokers/ids/{broker} is still held by the previous session; the broker exits (wait for the old session to expire, then start it again)"
            ),
            Fact::SessionExpired {
                session,
                owner,
                timeout_ms,
            } => format!(
                "session {session}{} expired after {timeout_ms} ms without a heartbeat; its ephemeral znodes are deleted",
                owner.map_or(String::new(), |b| format!(" of broker {b}"))
            ),
            Fact::SessionExpiredByRequest { broker } => format!(
                "broker {broker}'s session expired by request; its ephemeral znodes are deleted"
            ),
            Fact::SessionReinitialized {
                preempted,
                new_session,
            } => format!(
                "ZooKeeper session expired; queued events preempted: {preempted:?}; new session {new_session}"
            ),
            Fact::Resumed { broker, after_ms } => {
                format!("broker {broker} resumes after {after_ms} ms")
            }
            Fact::ShutdownComplete { broker, was_active } => format!(
                "broker {broker} shut down; its session is closed, so /brokers/ids/{broker}{} went at once",
                if *was_active { " and /controller" } else { "" }
            ),
            Fact::ShutdownStarted { broker } => {
                format!("broker {broker} starts controlled shutdown")
            }
            Fact::ShutdownGaveUp { broker, max } => format!(
                "broker {broker}: controlled shutdown failed {max} time(s); proceeding to do an unclean shutdown"
            ),
            Fact::ShutdownNoController { attempt } => format!(
                "attempt {attempt}: no controller registered in ZooKeeper; retrying after the back-off"
            ),
            Fact::ShutdownRequestSent {
                attempt,
                controller,
                broker_epoch,
            } => format!(
                "attempt {attempt}: ControlledShutdownRequest to controller {controller} (broker epoch {broker_epoch})"
            ),
            Fact::ShutdownSucceeded { attempt } => {
                format!("attempt {attempt}: controlled shutdown succeeded")
            }
            Fact::ShutdownRetry {
                attempt,
                failure,
                backoff_ms,
            } => format!("attempt {attempt} failed ({failure}); retrying in {backoff_ms} ms"),
            Fact::RequestHandled {
                request,
                from,
                epoch,
                error,
                ..
            } => format!("{request} from controller {from} (epoch {epoch}): {error}"),
            Fact::WatchFired { kind, path, event } => format!("{kind:?} on {path} → enqueue {event}"),
            Fact::EventProcessed {
                event,
                queued_ms,
                reads,
                writes,
                requests,
                took_ms,
            } => format!(
                "processing {event} (queued {queued_ms} ms; {reads} ZooKeeper reads, {writes} writes, {requests} requests: {took_ms} ms)"
            ),
            Fact::RecordsLost { lost, tp, broker } => format!(
                "{lost} acknowledged record(s) of {tp} lost: broker {broker} leads with a log that lacks them"
            ),
            Fact::LeaderUpdatedIsr {
                tp,
                leader,
                old,
                isr,
                zk_version,
            } => format!(
                "{tp}: leader {leader} updates ISR from {} to {} (zkVersion {zk_version})",
                ids_text(old),
                ids_text(isr)
            ),
            Fact::IsrUpdateSkipped {
                tp,
                cached_zk_version,
                error,
            } => format!(
                "{tp}: cached zkVersion {cached_zk_version} not equal to that in ZooKeeper ({error}), skip updating ISR"
            ),
            Fact::IsrChangePropagated { path, data } => format!("{path} = {data}"),
            Fact::ProduceNoLeader { tp } => {
                format!("{tp}: LEADER_NOT_AVAILABLE: the partition has no leader")
            }
            Fact::ProduceNotLeader { tp, broker } => {
                format!("{tp}: NOT_LEADER_FOR_PARTITION: broker {broker} does not serve as leader")
            }
            Fact::ProduceNotEnoughReplicas { tp, isr, min_isr } => format!(
                "{tp}: NOT_ENOUGH_REPLICAS: ISR {} is smaller than min.insync.replicas {min_isr}",
                ids_text(isr)
            ),
            Fact::Produced {
                count,
                tp,
                leader,
                first,
                acks,
            } => format!(
                "{count} record(s) to {tp} on leader {leader} at offsets {first}..{} (acks={})",
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
                "{tp}: follower {follower} truncates {dropped} record(s) from offset {offset} to match leader {leader}'s log"
            ),
            Fact::AlreadyElected { controller } => format!(
                "broker {controller} has been elected as the controller, so stopping the election process"
            ),
            Fact::Elected {
                broker,
                epoch,
                zk_version,
            } => format!(
                "broker {broker} successfully elected as the controller; epoch {epoch}, epoch zk version {zk_version}"
            ),
            Fact::ElectedInstead { winner, me, why } => {
                format!("broker {winner} was elected as controller instead of broker {me} ({why})")
            }
            Fact::ElectedAndResigned { why } => format!(
                "a controller was elected but has already resigned; another round follows ({why})"
            ),
            Fact::ElectionError { broker, error } => {
                format!("error while electing or becoming controller on broker {broker}: {error}")
            }
            Fact::FailoverDone { epoch } => {
                format!("ready to serve as the new controller with epoch {epoch}")
            }
            Fact::ResignSessionExpired { broker, epoch } => format!(
                "broker {broker} resigning as controller: its ZooKeeper session expired, and /controller (epoch {epoch}) went with it"
            ),
            Fact::Resign { broker } => format!("broker {broker} resigning as controller"),
            Fact::ResignAfterError { broker } => format!(
                "broker {broker} resigning as controller and deleting /controller after an error (triggerControllerMove)"
            ),
            Fact::ResignForShutdown { broker } => format!(
                "broker {broker} resigning as controller: it is shutting down, and closing its session deletes /controller"
            ),
            Fact::ControllerMoved(why) => why.clone(),
            Fact::EventError { event, error } => match event {
                Some(e) => format!("error processing event {e}: {error}"),
                None => format!("error processing event: {error}"),
            },
            Fact::EventSkipped { event } => format!("{event} ignored: not the active controller"),
            Fact::Unmodelled { event } => format!("{event} is not modelled yet"),
            Fact::BrokerChange {
                new,
                dead,
                bounced,
                live,
            } => format!(
                "newly added brokers: {}, deleted brokers: {}, bounced brokers: {}, all live brokers: {}",
                ids_text(new),
                ids_text(dead),
                ids_text(bounced),
                ids_text(live)
            ),
            Fact::IsrChangesSent { partitions } => format!(
                "ISR changes of {} propagated to every broker",
                ids_text(partitions)
            ),
            Fact::PartitionStateChanged { tp, from, to } => format!("{tp}: {from} → {to}"),
            Fact::PartitionStateChangeFailed(e) => e.to_string(),
            Fact::ReplicaStateChangeFailed(e) => e.to_string(),
            Fact::LeaderInitialized {
                leader,
                tp,
                replicas,
                isr,
            } => format!(
                "broker {} leads {tp}: first live replica in AR {}; ISR {}, leader epoch 0",
                leader.map_or_else(|| "-1".to_string(), |b| b.to_string()),
                ids_text(replicas),
                ids_text(isr)
            ),
            Fact::LeaderElected {
                leader,
                tp,
                why,
                leader_epoch,
            } => format!("broker {leader} leads {tp}: {why}; leader epoch {leader_epoch}"),
            Fact::ElectionGaveUp { partitions, rounds } => format!(
                "gave up electing {} after {rounds} rounds of BadVersion",
                comma_list(partitions)
            ),
            Fact::ElectionResult { label, tp, code } => {
                format!("{}election of {tp}: {code}", label.prefix())
            }
            Fact::Imbalance {
                broker,
                not_preferred,
                total,
            } => format!(
                "leader imbalance ratio for broker {broker} is {:.3} ({not_preferred} of {total} partitions not led by their preferred replica {broker})",
                self.imbalance_ratio().unwrap_or_default()
            ),
            Fact::IsrShrunk {
                tp,
                broker,
                leader,
                isr,
                leader_epoch,
            } => format!(
                "{tp}: replica {broker} offline; leader {}, ISR {}, leader epoch {leader_epoch}{}",
                leader.map_or("-1 (none)".to_string(), |b| b.to_string()),
                ids_text(isr),
                if isr.contains(broker) {
                    " (the controller never empties an ISR)"
                } else {
                    ""
                }
            ),
            Fact::IsrShrinkFenced { tp, epoch, broker } => format!(
                "leader and isr of {tp} written by another controller (epoch {epoch}); not removing replica {broker}"
            ),
            Fact::ShuttingDownBroker { broker, all } => format!(
                "shutting down broker {broker}; all shutting down brokers: {}",
                ids_text(all)
            ),
            Fact::StillLeads { broker, partitions } => format!(
                "broker {broker} still leads {} partition(s) {}",
                partitions.len(),
                ids_text(partitions)
            ),
            Fact::TopicChange {
                new,
                deleted,
                partitions,
            } => format!(
                "new topics: {new:?}, deleted topics: {deleted:?}, new partition replica assignment for {partitions} partition(s)"
            ),
            Fact::NewPartitions { partitions } => {
                format!("new partitions to be added: {}", ids_text(partitions))
            }
            Fact::AddPartitionsSkipped { topic, partitions } => format!(
                "skipping adding partitions {} for topic {topic} since it is currently being deleted",
                ids_text(partitions)
            ),
            Fact::DeletionDisabled => {
                "delete.topic.enable is false: deletion requests removed".to_string()
            }
            Fact::TopicsQueuedForDeletion { topics } => {
                format!("topics queued for deletion: {topics:?}")
            }
            Fact::DeletionHalted { topic, reason } => {
                format!("halted deletion of topic {topic} due to {reason}")
            }
            Fact::DeletionPausedDeadReplicas { topic, brokers } => format!(
                "deletion of topic {topic} paused: replicas on dead or shutting-down brokers {}",
                ids_text(brokers)
            ),
            Fact::StopReplicaDeleteSent { topic } => {
                format!("StopReplica(delete=true) sent for every replica of {topic}")
            }
            Fact::ReplicaDeletionFailed { broker, error } => {
                format!("replica deletion failed on broker {broker}: {error}")
            }
            Fact::TopicDeleted { topic } => {
                format!("deletion of topic {topic} successfully completed")
            }
            Fact::DeletionResumed { topics } => format!("resuming deletion of {topics:?}"),
            Fact::ReassignmentRefused { tp, target, code } => {
                format!("reassignment of {tp} to {}: {code}", ids_text(target))
            }
            Fact::ReassignmentFailed { tp, error } => format!("reassignment of {tp}: {error}"),
            Fact::ReassignmentOfMissingPartition { tp } => {
                format!("reassignment of {tp}: the partition does not exist")
            }
            Fact::ReassignmentStarted {
                tp,
                replicas,
                adding,
                removing,
            } => format!(
                "{tp}: replicas {}, adding {}, removing {}",
                ids_text(replicas),
                ids_text(adding),
                ids_text(removing)
            ),
            Fact::ReassignmentWaiting { tp, adding, isr } => format!(
                "{tp}: waiting for {} to join ISR {}",
                ids_text(adding),
                ids_text(isr)
            ),
            Fact::ReassignmentLeaderMoveFailed { tp, error } => {
                format!("{tp}: leader move failed: {error}")
            }
            Fact::ReassignmentCompleted { tp, target } => {
                format!("{tp}: reassignment to {} completed", ids_text(target))
            }
        }
    }

    /// A [`Fact::Imbalance`]'s ratio: partitions not led by their preferred
    /// replica over the partitions it is preferred for.
    pub fn imbalance_ratio(&self) -> Option<f64> {
        match self {
            Fact::Imbalance {
                not_preferred,
                total,
                ..
            } => Some(*not_preferred as f64 / (*total).max(1) as f64),
            _ => None,
        }
    }
}

/// A znode's data too long to read in a sentence, as the page's lines show
/// it ([`DataBrief::of`]): its start and what it holds. A topic of
/// thousands of partitions writes tens of kilobytes to
/// `/brokers/topics/<topic>`; the CLI's trace keeps the whole data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataBrief<'a> {
    /// The data's first characters (at most [`DataBrief::SHOWN`] bytes, cut
    /// at a character's boundary).
    pub start: &'a str,
    /// The data's length in bytes.
    pub bytes: usize,
    /// For a topic's assignment (`{"version":…,"partitions":{…}}`): its
    /// partitions, and the most replicas any of them has.
    pub assignment: Option<(usize, usize)>,
}

impl<'a> DataBrief<'a> {
    /// How much of a long data is shown.
    pub const SHOWN: usize = 80;
    /// Data up to this length is shown whole (`of` gives `None`).
    pub const WHOLE_UP_TO: usize = 200;

    /// The brief of `data`, or `None` when it is short enough to show whole.
    pub fn of(data: &'a str) -> Option<DataBrief<'a>> {
        if data.len() <= Self::WHOLE_UP_TO {
            return None;
        }
        let mut end = Self::SHOWN;
        while !data.is_char_boundary(end) {
            end -= 1;
        }
        let assignment = crate::znodes::decode_topic_assignment_ids(data).map(|a| {
            let rf = a.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
            (a.len(), rf)
        });
        Some(DataBrief {
            start: data.get(..end).unwrap_or_default(),
            bytes: data.len(),
            assignment,
        })
    }
}

#[cfg(test)]
mod brief_tests {
    use super::DataBrief;

    /// A topic's znode as AdminZkClient writes it (`{"version":2,
    /// "partitions":{"0":[…],…}}`), `n` partitions at replication factor 3.
    fn topic_data(n: u32) -> String {
        let parts: Vec<String> = (0..n)
            .map(|p| format!("\"{p}\":[{},{},{}]", p % 7, (p + 1) % 7, (p + 2) % 7))
            .collect();
        format!("{{\"version\":2,\"partitions\":{{{}}}}}", parts.join(","))
    }

    // Kafka: AdminZkClient.writeTopicPartitionAssignment writes a topic's
    // whole assignment into one znode; 5,000 partitions are ~80 KB of JSON.
    #[test]
    fn a_large_topic_is_briefed_by_its_partitions_and_replication_factor() {
        let data = topic_data(5_000);
        let b = DataBrief::of(&data).expect("long data is briefed");
        assert_eq!(b.assignment, Some((5_000, 3)));
        assert_eq!(b.bytes, data.len());
        assert!(data.starts_with(b.start) && b.start.len() == DataBrief::SHOWN);
        // Short data is shown whole, as the trace writes it.
        let small = topic_data(3);
        assert!(small.len() <= DataBrief::WHOLE_UP_TO);
        assert_eq!(DataBrief::of(&small), None);
    }

    #[test]
    fn other_long_data_is_cut_at_a_character_boundary() {
        let data = "数据".repeat(60);
        let b = DataBrief::of(&data).expect("long");
        assert_eq!(b.assignment, None);
        assert!(b.start.len() <= DataBrief::SHOWN && data.starts_with(b.start));
        assert!(b.start.len() > DataBrief::SHOWN - 3);
    }
}
