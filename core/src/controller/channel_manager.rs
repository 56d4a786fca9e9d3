//! `ControllerChannelManager`: one FIFO per (controller, broker) pair with
//! one request in flight, and every request on the wire by id.
//!
//! Kafka keeps a `RequestSendThread` per live broker. A broker that bounces
//! (a new broker epoch) gets a fresh channel, and the requests queued for its
//! earlier registration are lost; a broker removed from the live set loses
//! its channel and its queue. The broker side's ControlledShutdownRequest
//! travels over the broker's own connection, not a channel, but it is kept
//! in the same table so that everything on the wire is listed in one place.

use super::channel::{ControlRequest, RequestStatus};
use super::RequestDraft;
use crate::ids::BrokerId;
use crate::time::SimTime;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// The per-(controller, broker) request channel: a FIFO with one in flight.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Channel {
    /// The target's broker epoch when the channel was made.
    pub broker_epoch: i64,
    /// Requests waiting.
    pub queue: VecDeque<u64>,
    /// The request on the wire, if any.
    pub in_flight: Option<u64>,
}

/// Every controller's channels and every request not yet answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerChannelManager {
    channels: VecMap<(BrokerId, BrokerId), Channel>,
    requests: BTreeMap<u64, ControlRequest>,
}

impl ControllerChannelManager {
    /// Requests not yet answered, by id.
    pub fn requests(&self) -> &BTreeMap<u64, ControlRequest> {
        &self.requests
    }

    /// One request.
    pub fn get(&self, id: u64) -> Option<&ControlRequest> {
        self.requests.get(&id)
    }

    /// One request, to change.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut ControlRequest> {
        self.requests.get_mut(&id)
    }

    /// Forget a request (answered, or lost with its connection).
    pub fn remove(&mut self, id: u64) -> Option<ControlRequest> {
        self.requests.remove(&id)
    }

    /// Keep a request that is not on a channel (a broker's own request to
    /// the controller), or put an answered one back while its receiver is
    /// stalled.
    pub fn insert(&mut self, request: ControlRequest) {
        self.requests.insert(request.id, request);
    }

    /// `sendRequest`: queue a request from `from` as request `id` on the
    /// channel to `draft.to`, whose current broker epoch is `live_epoch`.
    pub fn enqueue(
        &mut self,
        id: u64,
        from: BrokerId,
        draft: RequestDraft,
        live_epoch: i64,
        now: SimTime,
    ) {
        debug_assert!(!self.requests.contains_key(&id), "message ids are unique");
        debug_assert!(
            draft.controller_epoch > 0,
            "only an elected controller sends"
        );
        let to = draft.to;
        let ch = self
            .channels
            .get_or_insert_with((from, to), Channel::default);
        if ch.broker_epoch != live_epoch {
            // A bounced broker gets a fresh channel: queued requests are lost.
            for stale in ch.queue.drain(..) {
                self.requests.remove(&stale);
            }
            ch.broker_epoch = live_epoch;
        }
        ch.queue.push_back(id);
        self.requests.insert(
            id,
            ControlRequest {
                id,
                from,
                to,
                controller_epoch: draft.controller_epoch,
                broker_epoch: draft.broker_epoch,
                body: draft.body,
                status: RequestStatus::Queued,
                queued_at: now,
                sent_at: None,
                arrives_at: None,
                error: None,
            },
        );
    }

    /// `removeBroker`: drop the channel and the requests queued on it.
    pub fn remove_channel(&mut self, from: BrokerId, to: BrokerId) {
        if let Some(ch) = self.channels.remove(&(from, to)) {
            for id in ch.queue {
                self.requests.remove(&id);
            }
        }
    }

    /// `shutdown` of a controller's channel manager (resignation, death).
    pub fn remove_all_from(&mut self, from: BrokerId) {
        for to in self.targets(from) {
            self.remove_channel(from, to);
        }
    }

    /// Drop the channels from `from` to brokers not in `live`. Returns, in
    /// broker order, the brokers whose channel has a request queued and none
    /// in flight: the ones a pump would put a request on the wire for
    /// (pumping any other channel does nothing).
    pub fn retain_live(&mut self, from: BrokerId, live: &VecMap<BrokerId, i64>) -> Vec<BrokerId> {
        // Both in broker order: one walk of each, and nothing allocated
        // unless a channel goes or waits to be pumped.
        let mut live_ids = live.keys().peekable();
        let mut gone = Vec::new();
        let mut ready = Vec::new();
        for (&(_, to), ch) in self.channels_from(from) {
            while live_ids.next_if(|b| **b < to).is_some() {}
            if live_ids.peek() != Some(&&to) {
                gone.push(to);
            } else if ch.in_flight.is_none() && !ch.queue.is_empty() {
                ready.push(to);
            }
        }
        for to in gone {
            self.remove_channel(from, to);
        }
        ready
    }

    /// `sendRequestsToBrokers` as the event thread hands an event's due
    /// requests over: each draft to a broker in `live` (the controller's
    /// live brokers with their epochs) is queued on its channel as request
    /// `*next_id` (counted up; a draft to any other broker is dropped), then
    /// the channels to brokers not in `live` go with their queues. Returns,
    /// in broker order, the brokers whose channel now has a request queued
    /// and none in flight: the ones a pump would put a request on the wire
    /// for (pumping any other channel does nothing).
    pub fn release(
        &mut self,
        from: BrokerId,
        drafts: impl IntoIterator<Item = RequestDraft>,
        live: &VecMap<BrokerId, i64>,
        next_id: &mut u64,
        now: SimTime,
    ) -> Vec<BrokerId> {
        for draft in drafts {
            let Some(epoch) = live.get(&draft.to).copied() else {
                continue;
            };
            let id = *next_id;
            *next_id += 1;
            self.enqueue(id, from, draft, epoch, now);
        }
        self.retain_live(from, live)
    }

    /// The channels from `from`, in broker order.
    fn channels_from(
        &self,
        from: BrokerId,
    ) -> impl Iterator<Item = (&(BrokerId, BrokerId), &Channel)> + '_ {
        self.channels
            .iter_from(&(from, BrokerId(0)))
            .take_while(move |((f, _), _)| *f == from)
    }

    /// The brokers `from` has a channel to.
    pub fn targets(&self, from: BrokerId) -> Vec<BrokerId> {
        self.channels_from(from).map(|((_, to), _)| *to).collect()
    }

    /// The next request to put on the wire from `from` to `to`, if the
    /// channel has one queued and none in flight; it is then in flight.
    pub fn take_next(&mut self, from: BrokerId, to: BrokerId) -> Option<u64> {
        let ch = self.channels.get_mut(&(from, to))?;
        if ch.in_flight.is_some() {
            return None;
        }
        let id = ch.queue.pop_front()?;
        ch.in_flight = Some(id);
        Some(id)
    }

    /// Whether request `id` is the one in flight on its channel (so the send
    /// thread still retries it).
    pub fn is_in_flight(&self, id: u64) -> bool {
        self.requests.get(&id).is_some_and(|r| {
            self.channels
                .get(&(r.from, r.to))
                .is_some_and(|c| c.in_flight == Some(id))
        })
    }

    /// The response to `id` arrived: its channel may send the next one.
    pub fn complete(&mut self, from: BrokerId, to: BrokerId, id: u64) {
        if let Some(ch) = self.channels.get_mut(&(from, to)) {
            if ch.in_flight == Some(id) {
                ch.in_flight = None;
            }
        }
    }

    /// Whether nothing is queued or on the wire.
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::channel::RequestBody;

    fn draft(to: u32) -> RequestDraft {
        RequestDraft {
            to: BrokerId(to),
            broker_epoch: 7,
            controller_epoch: 1,
            body: RequestBody::StopReplica {
                partitions: vec![],
                delete: false,
            },
            sent_at_us: 0,
        }
    }

    #[test]
    fn one_request_in_flight_per_channel_in_fifo_order() {
        // Kafka: ControllerChannelManager's RequestSendThread sends one request
        // at a time and blocks until its response.
        let mut m = ControllerChannelManager::default();
        let (c, b) = (BrokerId(0), BrokerId(1));
        m.enqueue(1, c, draft(1), 7, SimTime::ZERO);
        m.enqueue(2, c, draft(1), 7, SimTime::ZERO);
        assert_eq!(m.take_next(c, b), Some(1));
        assert_eq!(m.take_next(c, b), None, "one in flight");
        assert!(m.is_in_flight(1));
        m.complete(c, b, 1);
        m.remove(1);
        assert_eq!(m.take_next(c, b), Some(2));
    }

    #[test]
    fn a_bounced_broker_gets_a_fresh_channel_and_loses_the_queue() {
        // Kafka: a broker with a new epoch is removed and re-added
        // (removeBroker + addBroker), dropping what was queued for it.
        let mut m = ControllerChannelManager::default();
        let c = BrokerId(0);
        m.enqueue(1, c, draft(1), 7, SimTime::ZERO);
        m.enqueue(2, c, draft(1), 8, SimTime::ZERO);
        assert!(m.get(1).is_none(), "queued for the old registration: lost");
        assert_eq!(m.take_next(c, BrokerId(1)), Some(2));
        m.retain_live(c, &VecMap::new());
        assert!(m.targets(c).is_empty());
        assert!(m.get(2).is_some(), "the one in flight stays until answered");
    }

    #[test]
    fn release_queues_for_live_brokers_and_names_the_channels_to_pump() {
        // Kafka: sendRequest only to brokers the channel manager holds
        // (a removed broker's channel and queue are gone), and each
        // RequestSendThread sends the head of its queue when none is in flight.
        let mut m = ControllerChannelManager::default();
        let (c, other) = (BrokerId(0), BrokerId(9));
        // Channels to 1 (one in flight), 2 (idle), 3 and 5 (to go), and a
        // channel of another controller to 3.
        for (id, to) in [(1, 1), (2, 2), (3, 3), (4, 5)] {
            m.enqueue(id, c, draft(to), 7, SimTime::ZERO);
        }
        m.enqueue(5, other, draft(3), 7, SimTime::ZERO);
        assert_eq!(m.take_next(c, BrokerId(1)), Some(1));
        assert_eq!(m.take_next(c, BrokerId(2)), Some(2));
        m.complete(c, BrokerId(2), 2);
        m.remove(2);
        let live: VecMap<BrokerId, i64> = [(1, 7), (2, 7), (4, 8), (6, 7)]
            .into_iter()
            .map(|(b, e)| (BrokerId(b), e))
            .collect();
        let mut next = 10;
        let drafts = [draft(6), draft(1), draft(3), draft(4), draft(1)];
        let ready = m.release(c, drafts, &live, &mut next, SimTime::ZERO);
        assert_eq!(
            next, 14,
            "four drafts to live brokers, the one to 3 dropped"
        );
        // The model: what the channels hold, broker by broker.
        assert_eq!(
            m.targets(c),
            [1, 2, 4, 6].map(BrokerId),
            "channels to 3 and 5 removed"
        );
        assert!(m.get(3).is_none() && m.get(4).is_none(), "their queues too");
        assert!(m.get(5).is_some(), "another controller's channel stays");
        assert_eq!(
            ready,
            [4, 6].map(BrokerId),
            "1 has one in flight, 2 nothing queued"
        );
        for to in [1, 2, 4, 6] {
            let sends = m.take_next(c, BrokerId(to)).is_some();
            assert_eq!(sends, ready.contains(&BrokerId(to)), "broker {to}");
        }
        assert_eq!(m.get(10).map(|r| r.to), Some(BrokerId(6)));
        assert_eq!(m.get(11).map(|r| r.to), Some(BrokerId(1)));
        assert_eq!(m.get(12).map(|r| r.to), Some(BrokerId(4)));
        assert_eq!(m.get(13).map(|r| r.to), Some(BrokerId(1)));
        // No live broker: every channel of `c` goes, in flight or not.
        let ready = m.release(c, [], &VecMap::new(), &mut next, SimTime::ZERO);
        assert!(ready.is_empty() && m.targets(c).is_empty());
        assert_eq!(m.targets(other), [BrokerId(3)]);
    }
}
