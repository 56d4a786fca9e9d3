//! The `?` help: the page's parts and Kafka's terms, a sentence each, each
//! linking to the panel it names; then the keys.

use wasm_bindgen::JsCast;
use yew::prelude::*;

/// A part of the page: its name, the panel's id, and what it shows.
pub const PARTS: &[(&str, &str, &str)] = &[
    ("Broker cards", "p-brokers", "each broker's status, the controller it believes in (activeControllerId), the highest controller epoch it accepted, its broker epoch and what it leads; the buttons kill it (kill -9), stop it (controlled shutdown), start it, pause it (a GC stall) or expire its session."),
    ("Event queues", "p-queues", "each broker's controller event queue (ControllerEventManager): the controller handles one event at a time, the rest wait, and Kafka's ControllerState says what it is doing."),
    ("The wire", "p-wire", "requests (LeaderAndIsr, UpdateMetadata, StopReplica) and ZooKeeper watch notifications as moving dots, labelled with their type (a request also with its controller epoch); click one to inspect it, or delay or drop it in the list below."),
    ("Why", "p-why", "every action taken and every controller decision (elections, refusals, resignations) with its reason, from the trace."),
    ("Partitions", "p-partitions", "each partition's state, AR (preferred replica marked, each replica's LEO), ISR, leader, epochs, HW and time without a leader; unclean election, preferred election and produce are here."),
    ("Kafka's tools", "p-kafka-text", "what kafka-topics.sh --describe and zookeeper-shell.sh get /controller print at this moment."),
    ("Admin tools", "p-admin", "kafka-topics.sh --create, --alter --partitions and --delete, and kafka-reassign-partitions.sh, as forms."),
    ("ZooKeeper tree", "p-zookeeper", "every znode, ephemeral ones and watches marked: /controller, /controller_epoch, /brokers/ids, the partitions' state."),
    ("Invariants", "p-invariants", "what must always hold (at most one controller per epoch, the leader in its ISR, no acks=all record lost without an unclean election, …), each holding or violated, with a jump to its first violation."),
    ("Time controls", "p-time", "the scenario and what to try first, play and pause, one event forward, 100 ms back, speed, the next interesting event, and a scrub bar; acting in the past forks the future."),
];

/// A term: its name, the panel it is seen in, and what it means in Kafka 2.4.
pub const TERMS: &[(&str, &str, &str)] = &[
    ("Controller", "p-brokers", "the one broker whose id is in the ephemeral /controller znode (the broker that managed to create it); it elects partition leaders and tells the brokers (LeaderAndIsr, UpdateMetadata)."),
    ("Controller epoch", "p-zookeeper", "the number in /controller_epoch, one higher for each new controller; a broker rejects a request whose epoch is older than the newest it has accepted (STALE_CONTROLLER_EPOCH), and an old controller's ZooKeeper writes fail once /controller_epoch has moved on, so a zombie controller is fenced."),
    ("activeControllerId", "p-brokers", "a broker's own idea of who the controller is (KafkaController.activeControllerId), read from /controller when its watch fires, so it can lag."),
    ("AR", "p-partitions", "assigned replicas, from /brokers/topics/<topic>, preferred replica first."),
    ("ISR", "p-partitions", "in-sync replicas: the leader and the followers that have caught up with it within the last replica.lag.time.max.ms (10000 ms in 2.4); a clean election picks from them, and acks=all waits for all of them."),
    ("LEO", "p-partitions", "log end offset: the offset a replica will write its next record at."),
    ("HW", "p-partitions", "high watermark: the offset up to which every ISR replica has the records; records below it are committed and readable."),
    ("Preferred replica", "p-partitions", "the first replica in AR; a preferred election moves leadership back to it if it is alive and in the ISR, by hand or by the auto.leader.rebalance.enable check (every 300 s, for a broker with more than 10% of its preferred partitions led elsewhere)."),
    ("Unclean election", "p-partitions", "electing the first live replica in AR order, outside the ISR, when no ISR member is alive (unclean.leader.election.enable, false by default): the partition comes back, acknowledged records can be lost."),
    ("Ephemeral znode", "p-zookeeper", "a znode that lives as long as the session that created it: /controller and /brokers/ids/<id>."),
    ("Session timeout", "p-brokers", "zookeeper.session.timeout.ms (6000): how long ZooKeeper waits without a heartbeat before expiring a session and deleting its ephemeral znodes; a killed broker's card counts it down."),
];

/// Scroll to the panel with id `id` and give it focus (without touching the
/// address bar, which is the share link).
pub fn jump(id: &str) {
    let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
    else {
        return;
    };
    if !el.has_attribute("tabindex") {
        let _ = el.set_attribute("tabindex", "-1");
    }
    el.scroll_into_view();
    if let Ok(h) = el.dyn_into::<web_sys::HtmlElement>() {
        let _ = h.focus();
    }
}

/// Properties of [`Help`].
#[derive(Properties, PartialEq, Debug)]
pub struct HelpProps {
    /// Close the help (after a link is followed).
    pub on_close: Callback<()>,
}

/// The help dialog.
#[component]
pub fn Help(props: &HelpProps) -> Html {
    let link = |name: &'static str, id: &'static str| {
        let close = props.on_close.clone();
        let onclick = Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            jump(id);
            close.emit(());
        });
        html! { <a href={format!("#{id}")} {onclick}>{ name }</a> }
    };
    let list = |items: &'static [(&'static str, &'static str, &'static str)]| {
        html! {
            <dl>
                { for items.iter().map(|(name, id, what)| html! {
                    <div class="help-item"><dt>{ link(name, id) }</dt><dd>{ *what }</dd></div>
                }) }
            </dl>
        }
    };
    html! {
        <div class="help" role="dialog" aria-label="Help: the page, its terms and keys">
            <h2>{ "The page" }</h2>
            { list(PARTS) }
            <h2>{ "Terms" }</h2>
            { list(TERMS) }
            <h2>{ "Keys" }</h2>
            <p><kbd>{ "space" }</kbd>{ " play / pause · " }<kbd>{ "→" }</kbd>{ " one event · " }<kbd>{ "←" }</kbd>{ " back 100 ms · " }
               <kbd>{ "n" }</kbd>{ " next interesting event · " }<kbd>{ "u" }</kbd>{ " undo · " }<kbd>{ "m" }</kbd>{ " mark this moment (playing pauses there) · " }<kbd>{ "p" }</kbd>{ " presentation mode · " }<kbd>{ "?" }</kbd>{ " this help · " }<kbd>{ "Esc" }</kbd>{ " close it" }</p>
            <p>{ "Simplified on purpose: one ZooKeeper server; a controller event applies its ZooKeeper writes to the ensemble when it starts (the page sees each when the event reaches it) and costs virtual time as in Kafka 1.1+ or 1.0; replication copies what a follower lacks in one fetch round. See the README." }</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_and_term_links_to_a_panel_the_page_has() {
        let ids = [
            "p-brokers",
            "p-queues",
            "p-wire",
            "p-why",
            "p-partitions",
            "p-kafka-text",
            "p-admin",
            "p-zookeeper",
            "p-invariants",
            "p-time",
        ];
        for (name, id, what) in PARTS.iter().chain(TERMS) {
            assert!(ids.contains(id), "{name} links to {id}");
            assert!(what.ends_with('.'), "{name}: one sentence");
        }
        for id in ids {
            assert!(PARTS.iter().any(|p| p.1 == id), "a part names {id}");
        }
    }
}
