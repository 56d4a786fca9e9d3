//! Admin tools: create a topic, add partitions, reassign a partition, delete
//! a topic. Each form builds an action; the core checks it, and a refusal
//! shows as a message with the state kept.

use crate::state::Msg;
use kcsim_core::action::PartitionTarget;
use kcsim_core::{Action, BrokerId};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Properties of [`Admin`].
#[derive(Properties, PartialEq, Debug)]
pub struct AdminProps {
    /// Topic names.
    pub topics: Vec<String>,
    /// Where actions go.
    pub on_msg: Callback<Msg>,
}

fn value(r: &NodeRef) -> String {
    r.cast::<HtmlInputElement>()
        .map(|i| i.value())
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Parse "2,3" (or "2 3") into broker ids.
pub fn parse_ids(s: &str) -> Result<Vec<BrokerId>, String> {
    s.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|x| !x.is_empty())
        .map(|x| {
            x.parse::<u32>()
                .map(BrokerId)
                .map_err(|_| format!("{x:?} is not a broker id"))
        })
        .collect()
}

/// The admin panel.
#[component]
pub fn Admin(props: &AdminProps) -> Html {
    let (name, parts, rf) = (use_node_ref(), use_node_ref(), use_node_ref());
    let (add_topic, add_count) = (use_node_ref(), use_node_ref());
    let (re_topic, re_part, re_replicas) = (use_node_ref(), use_node_ref(), use_node_ref());
    let del_topic = use_node_ref();
    let err = |cb: &Callback<Msg>, e: String| cb.emit(Msg::Error(e));
    let create = {
        let (cb, name, parts, rf) = (
            props.on_msg.clone(),
            name.clone(),
            parts.clone(),
            rf.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let (p, r) = (value(&parts).parse::<u32>(), value(&rf).parse::<u32>());
            match (p, r) {
                (Ok(p), Ok(r)) if p > 0 && r > 0 => cb.emit(Msg::Act(Action::CreateTopic {
                    name: value(&name),
                    assignment: None,
                    partitions: Some(p),
                    replication_factor: Some(r),
                })),
                _ => err(
                    &cb,
                    "create topic: partitions and replication factor must be whole numbers above 0"
                        .into(),
                ),
            }
        })
    };
    let add = {
        let (cb, t, c) = (props.on_msg.clone(), add_topic.clone(), add_count.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            match value(&c).parse::<u32>() {
                Ok(count) => cb.emit(Msg::Act(Action::AddPartitions {
                    topic: value(&t),
                    count,
                })),
                Err(_) => err(
                    &cb,
                    "add partitions: the count must be a whole number".into(),
                ),
            }
        })
    };
    let reassign = {
        let (cb, t, p, r) = (
            props.on_msg.clone(),
            re_topic.clone(),
            re_part.clone(),
            re_replicas.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            match (value(&p).parse::<u32>(), parse_ids(&value(&r))) {
                (Ok(partition), Ok(replicas)) if !replicas.is_empty() => {
                    cb.emit(Msg::Act(Action::ReassignPartitions {
                        partitions: vec![PartitionTarget {
                            topic: value(&t),
                            partition,
                            replicas,
                        }],
                    }))
                }
                (_, Err(e)) => err(&cb, format!("reassign: {e}")),
                _ => err(
                    &cb,
                    "reassign: give a partition number and at least one broker id".into(),
                ),
            }
        })
    };
    let delete = {
        let (cb, t) = (props.on_msg.clone(), del_topic.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            cb.emit(Msg::Act(Action::DeleteTopic { topic: value(&t) }));
        })
    };
    let first = props.topics.first().cloned().unwrap_or_default();
    html! {
        <section class="panel admin" aria-label="Admin tools">
            <h2>{ "Admin tools" }</h2>
            <form onsubmit={create} aria-label="Create a topic">
                <code>{ "kafka-topics.sh --create" }</code>
                <input ref={name} aria-label="New topic name" value="events" size="8" />
                <input ref={parts} aria-label="Partitions" value="3" size="2" />
                <input ref={rf} aria-label="Replication factor" value="2" size="2" />
                <button type="submit">{ "create" }</button>
            </form>
            <form onsubmit={add} aria-label="Add partitions">
                <code>{ "--alter --partitions" }</code>
                <input ref={add_topic} aria-label="Topic to add partitions to" value={first.clone()} size="8" />
                <input ref={add_count} aria-label="New partition count" value="6" size="2" />
                <button type="submit">{ "alter" }</button>
            </form>
            <form onsubmit={reassign} aria-label="Reassign a partition">
                <code>{ "kafka-reassign-partitions.sh" }</code>
                <input ref={re_topic} aria-label="Topic to reassign" value={first.clone()} size="8" />
                <input ref={re_part} aria-label="Partition to reassign" value="0" size="2" />
                <input ref={re_replicas} aria-label="Target replicas, comma separated" value="2,3" size="5" />
                <button type="submit">{ "execute" }</button>
            </form>
            <form onsubmit={delete} aria-label="Delete a topic">
                <code>{ "kafka-topics.sh --delete" }</code>
                <input ref={del_topic} aria-label="Topic to delete" value={first} size="8" />
                <button type="submit">{ "delete" }</button>
            </form>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_lists_parse_or_say_what_is_wrong() {
        assert_eq!(parse_ids("2,3"), Ok(vec![BrokerId(2), BrokerId(3)]));
        assert_eq!(parse_ids(" 1 4 "), Ok(vec![BrokerId(1), BrokerId(4)]));
        assert_eq!(
            parse_ids("1,x"),
            Err("\"x\" is not a broker id".to_string())
        );
    }
}
