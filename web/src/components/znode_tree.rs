//! The ZooKeeper tree: every znode, ephemeral ones marked, watches counted,
//! and, when asked for, its data exactly as stored.

use crate::components::term::{term, TermId};
use crate::el::{attrs, class, click, el, eld, elo, flag, list, on, prop, s, st, string, text};
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
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    let mut toggles = vec![elo(
        "button",
        &["aria-label", "disabled"],
        Box::new([
            s(t(
                "Delete /controller in ZooKeeper",
                "删除 ZooKeeper 中的 /controller",
            )),
            flag("disabled", props.controller.is_none()),
        ]),
        on(Box::new([click(delete)])),
        text(t("delete /controller", "删除 /controller")),
    )];
    toggles.extend(write.map(|(b, cb)| {
        elo(
            "button",
            &["aria-label"],
            Box::new([st(lang.f(
                || format!("Write brokerid {b} into /controller"),
                || format!("把 brokerid {b} 写入 /controller"),
            ))]),
            on(Box::new([click(cb)])),
            string(lang.f(
                || format!("set /controller to broker {b}"),
                || format!("把 /controller 设为 broker {b}"),
            )),
        )
    }));
    toggles.push(elo(
        "button",
        &["aria-pressed", "aria-label", "class"],
        Box::new([
            st(show_data.to_string()),
            s(t("Show each znode's data", "显示每个 znode 的数据")),
            s("show-data"),
        ]),
        on(Box::new([click(toggle_data)])),
        text(if *show_data {
            t("hide data", "隐藏数据")
        } else {
            t("show data", "显示数据")
        }),
    ));
    let items = props
        .znodes
        .iter()
        .map(|z| {
            let name = z.path.rsplit('/').next().unwrap_or_default();
            let cls = classes!(
                "znode",
                z.ephemeral.then_some("ephemeral"),
                (z.path == "/controller").then_some("controller-node")
            );
            eld(
                "li",
                &["style", "data-path", "class"],
                Box::new([prop(indent(z.depth)), st(z.path.clone()), class(cls)]),
                list(vec![
                    el("span", attrs!("class" = "zname"), string(name.to_string())),
                    list(if z.ephemeral {
                        vec![el(
                            "span",
                            attrs!("class" = "tag"),
                            term(TermId::EphemeralZnode, text("E")),
                        )]
                    } else {
                        Vec::new()
                    }),
                    list(if z.watchers > 0 {
                        vec![eld(
                            "span",
                            &["title", "class"],
                            Box::new([
                                s(t("sessions watching it", "监听它的会话数")),
                                s("tag watch"),
                            ]),
                            string(lang.f(
                                || format!("watched ×{}", z.watchers),
                                || format!("被监听 ×{}", z.watchers),
                            )),
                        )]
                    } else {
                        Vec::new()
                    }),
                    list(if *show_data && !z.data.is_empty() {
                        vec![el(
                            "code",
                            attrs!("class" = "zdata"),
                            string(z.data.clone()),
                        )]
                    } else {
                        Vec::new()
                    }),
                ]),
            )
        })
        .collect();
    el(
        "section",
        attrs!(
            "id" = "p-zookeeper",
            "aria-label" = "ZooKeeper",
            "class" = "panel znodes"
        ),
        list(vec![
            el("h2", &[], text("ZooKeeper")),
            el("div", attrs!("class" = "toggles"), list(toggles)),
            el("ul", attrs!("class" = "tree"), list(items)),
        ]),
    )
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
