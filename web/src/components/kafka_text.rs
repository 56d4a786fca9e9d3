//! Kafka's own words: `kafka-topics.sh --describe` and `zookeeper-shell.sh get /controller`.

use crate::el::{attrs, el, eld, list, s, string, text};
use crate::i18n::use_lang;
use yew::prelude::*;

/// Properties of [`KafkaText`].
#[derive(Properties, PartialEq, Debug)]
pub struct KafkaTextProps {
    /// `kafka-topics.sh --describe` output.
    pub describe: String,
    /// `zookeeper-shell.sh get /controller` output.
    pub controller: String,
}

/// The command-line views, following the time cursor.
#[component]
pub fn KafkaText(props: &KafkaTextProps) -> Html {
    let lang = use_lang();
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-kafka-text"),
            s(lang.t("Kafka's tools", "Kafka 自带工具")),
            s("panel kafka-text"),
        ]),
        list(vec![
            el("h2", &[], text(lang.t("Kafka's tools", "Kafka 自带工具"))),
            el(
                "p",
                attrs!("class" = "cmd"),
                text("$ zookeeper-shell.sh localhost:2181 get /controller"),
            ),
            el(
                "pre",
                attrs!("class" = "controller-json"),
                string(props.controller.trim_end().to_string()),
            ),
            el(
                "p",
                attrs!("class" = "cmd"),
                text("$ kafka-topics.sh --bootstrap-server localhost:9092 --describe"),
            ),
            el(
                "pre",
                attrs!("class" = "describe"),
                string(props.describe.clone()),
            ),
        ]),
    )
}
