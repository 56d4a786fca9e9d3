//! Kafka's own words: `kafka-topics.sh --describe` and `zookeeper-shell.sh get /controller`.

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
    html! {
        <section id="p-kafka-text" class="panel kafka-text" aria-label={lang.t("Kafka's tools", "Kafka 自带工具")}>
            <h2>{ lang.t("Kafka's tools", "Kafka 自带工具") }</h2>
            <p class="cmd">{ "$ zookeeper-shell.sh localhost:2181 get /controller" }</p>
            <pre class="controller-json">{ props.controller.trim_end() }</pre>
            <p class="cmd">{ "$ kafka-topics.sh --bootstrap-server localhost:9092 --describe" }</p>
            <pre class="describe">{ &props.describe }</pre>
        </section>
    }
}
