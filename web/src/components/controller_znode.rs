//! The `/controller` znode exactly as ZooKeeper stores it.

use yew::prelude::*;

/// Properties of [`ControllerZnode`].
#[derive(Properties, PartialEq, Debug)]
pub struct ControllerZnodeProps {
    /// `/controller`'s data, or `None` when the node does not exist.
    pub data: Option<String>,
    /// `/controller_epoch`.
    pub epoch: i32,
}

/// `get /controller` as zookeeper-shell.sh would print it.
#[component]
pub fn ControllerZnode(props: &ControllerZnodeProps) -> Html {
    html! {
        <section class="znode" aria-label="/controller znode">
            <h2>{ "/controller" }</h2>
            <pre class="controller-json">{
                props.data.clone().unwrap_or_else(|| "Node does not exist: /controller".to_string())
            }</pre>
            <p>{ "/controller_epoch: " }<span class="controller-epoch">{ props.epoch }</span></p>
        </section>
    }
}
