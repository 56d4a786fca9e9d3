//! The ZooKeeper tree: every znode, ephemeral ones marked, watches counted,
//! and, when asked for, its data exactly as stored.

use crate::components::term::{Term, TermId};
use crate::i18n::use_lang;
use crate::state::Msg;
use kcsim_core::controller::controller_znode_json;
use kcsim_core::view::ZnodeView;
use kcsim_core::{Action, BrokerId};
use yew::prelude::*;

/// Properties of [`ZnodeTree`].
#[derive(Properties, PartialEq, Debug)]
pub struct ZnodeTreeProps {
    /// Every znode.
    pub znodes: Vec<ZnodeView>,
    /// Broker ids, for "write another brokerid into /controller".
    pub brokers: Vec<u32>,
    /// `/controller`'s brokerid.
    pub controller: Option<u32>,
    /// Now.
    pub now_ms: u64,
    /// Where actions go.
    pub on_msg: Callback<Msg>,
}

/// The znode tree.
/// A znode's indent, 1.1 em a level, written with integers: `depth * 1.1`
/// to one decimal exactly (the page's only `f32` formatting was here; it
/// wrote the same lengths with `f32` noise, "3.3000002em" for 3.3em).
fn indent(depth: usize) -> String {
    let tenths = depth.saturating_mul(11);
    match tenths % 10 {
        0 => format!("padding-left: {}em", tenths / 10),
        r => format!("padding-left: {}.{r}em", tenths / 10),
    }
}

#[component]
pub fn ZnodeTree(props: &ZnodeTreeProps) -> Html {
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    // The tree's shape by default; each znode's raw data when asked for.
    let show_data = use_state(|| false);
    let toggle_data = {
        let show_data = show_data.clone();
        Callback::from(move |_: MouseEvent| show_data.set(!*show_data))
    };
    let delete = {
        let cb = props.on_msg.clone();
        Callback::from(move |_: MouseEvent| {
            cb.emit(Msg::Act(Action::DeleteZnode {
                path: "/controller".into(),
            }))
        })
    };
    let other = props
        .brokers
        .iter()
        .copied()
        .find(|b| Some(*b) != props.controller);
    let write = other.map(|b| {
        let cb = props.on_msg.clone();
        let now = props.now_ms;
        let data = controller_znode_json(BrokerId(b), now);
        (
            b,
            Callback::from(move |_: MouseEvent| {
                cb.emit(Msg::Act(Action::SetZnode {
                    path: "/controller".into(),
                    data: data.clone(),
                }))
            }),
        )
    });
    html! {
        <section id="p-zookeeper" class="panel znodes" aria-label="ZooKeeper">
            <h2>{ "ZooKeeper" }</h2>
            <div class="toggles">
                <button aria-label={t("Delete /controller in ZooKeeper", "删除 ZooKeeper 中的 /controller")} disabled={props.controller.is_none()} onclick={delete}>{ t("delete /controller", "删除 /controller") }</button>
                { for write.map(|(b, cb)| html! {
                    <button aria-label={lang.f(|| format!("Write brokerid {b} into /controller"), || format!("把 brokerid {b} 写入 /controller"))} onclick={cb}>{ lang.f(|| format!("set /controller to broker {b}"), || format!("把 /controller 设为 broker {b}")) }</button>
                }) }
                <button class="show-data" aria-pressed={show_data.to_string()} aria-label={t("Show each znode's data", "显示每个 znode 的数据")} onclick={toggle_data}>
                    { if *show_data { t("hide data", "隐藏数据") } else { t("show data", "显示数据") } }
                </button>
            </div>
            <ul class="tree">
                { for props.znodes.iter().map(|z| {
                    let name = z.path.rsplit('/').next().unwrap_or_default();
                    let class = classes!("znode", z.ephemeral.then_some("ephemeral"), (z.path == "/controller").then_some("controller-node"));
                    html! {
                        <li class={class} ~style={indent(z.depth)} data-path={z.path.clone()}>
                            <span class="zname">{ name }</span>
                            if z.ephemeral { <span class="tag"><Term name={TermId::EphemeralZnode}>{ "E" }</Term></span> }
                            if z.watchers > 0 { <span class="tag watch" title={t("sessions watching it", "监听它的会话数")}>{ lang.f(|| format!("watched ×{}", z.watchers), || format!("被监听 ×{}", z.watchers)) }</span> }
                            if *show_data && !z.data.is_empty() { <code class="zdata">{ &z.data }</code> }
                        </li>
                    }
                }) }
            </ul>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::indent;

    #[test]
    fn indent_is_the_old_length_without_the_float_noise() {
        for depth in 0..200usize {
            let old = format!("padding-left: {}em", depth as f32 * 1.1);
            let new = indent(depth);
            // The same length in em: at most f32 rounding apart.
            let parse = |s: &str| -> f64 {
                s.trim_start_matches("padding-left: ")
                    .trim_end_matches("em")
                    .parse()
                    .unwrap_or(f64::NAN)
            };
            assert!(
                (parse(&old) - parse(&new)).abs() < 1e-4,
                "{depth}: {old} vs {new}"
            );
            assert!(
                (parse(&new) - depth as f64 * 1.1).abs() < 1e-9,
                "{depth}: {new}"
            );
        }
        assert_eq!(indent(0), "padding-left: 0em");
        assert_eq!(indent(1), "padding-left: 1.1em");
        assert_eq!(indent(3), "padding-left: 3.3em");
        assert_eq!(indent(10), "padding-left: 11em");
        assert_eq!(
            indent(usize::MAX),
            format!("padding-left: {}.5em", usize::MAX / 10)
        );
    }
}
