//! Admin tools: create a topic, add partitions, reassign a partition, delete
//! a topic. Each form builds an action; the core checks it, and a refusal
//! shows as a message next to the form that caused it, with the state kept.
//! Every field has a visible label.

use crate::el::{
    self, attrs, click, dynamic, el, eld, elo, input_ref, list, on, s, st, string, submit, text,
};
use crate::i18n::{use_lang, Lang};
use crate::state::Msg;
use kcsim_core::action::PartitionTarget;
use kcsim_core::{Action, BrokerId};
use web_sys::HtmlInputElement;
use yew::prelude::*;
use yew::virtual_dom::Listeners;

/// Properties of [`Admin`].
#[derive(Properties, PartialEq, Debug)]
pub struct AdminProps {
    /// Topic names.
    pub topics: Vec<String>,
    /// Where a form's action (or the error found in its fields) goes, with
    /// the form's index ([`FORMS`]).
    pub on_submit: Callback<(usize, Msg)>,
    /// The error to show, and the form it belongs to.
    #[prop_or_default]
    pub error: Option<(usize, String)>,
    /// Dismiss the error.
    pub on_dismiss: Callback<MouseEvent>,
}

/// The forms, in the order they are drawn (their index names them in
/// [`AdminProps::on_submit`] and [`AdminProps::error`]).
pub const FORMS: [&str; 4] = [
    "Create a topic",
    "Add partitions",
    "Reassign a partition",
    "Delete a topic",
];

/// The forms' names in Chinese, in the same order.
pub const FORMS_ZH: [&str; 4] = ["创建主题", "增加分区", "重分配分区", "删除主题"];

fn form_name(form: usize, l: Lang) -> &'static str {
    l.t(FORMS[form], FORMS_ZH[form])
}
const CREATE: usize = 0;
const ADD: usize = 1;
const REASSIGN: usize = 2;
const DELETE: usize = 3;

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
    let lang = use_lang();
    let t = |en: &'static str, zh: &'static str| lang.t(en, zh);
    let (name, parts, rf) = (use_node_ref(), use_node_ref(), use_node_ref());
    let (add_topic, add_count) = (use_node_ref(), use_node_ref());
    let (re_topic, re_part, re_replicas) = (use_node_ref(), use_node_ref(), use_node_ref());
    let del_topic = use_node_ref();
    let err = |cb: &Callback<(usize, Msg)>, form: usize, e: String| cb.emit((form, Msg::Error(e)));
    let create = {
        let (cb, name, parts, rf) = (
            props.on_submit.clone(),
            name.clone(),
            parts.clone(),
            rf.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let (p, r) = (value(&parts).parse::<u32>(), value(&rf).parse::<u32>());
            match (p, r) {
                (Ok(p), Ok(r)) if p > 0 && r > 0 => cb.emit((
                    CREATE,
                    Msg::Act(Action::CreateTopic {
                        name: value(&name),
                        assignment: None,
                        partitions: Some(p),
                        replication_factor: Some(r),
                    }),
                )),
                _ => err(
                    &cb,
                    CREATE,
                    lang.t(
                        "create topic: partitions and replication factor must be whole numbers above 0",
                        "创建主题：分区数和副本因子必须是大于 0 的整数",
                    )
                    .into(),
                ),
            }
        })
    };
    let add = {
        let (cb, t, c) = (
            props.on_submit.clone(),
            add_topic.clone(),
            add_count.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            match value(&c).parse::<u32>() {
                Ok(count) => cb.emit((
                    ADD,
                    Msg::Act(Action::AddPartitions {
                        topic: value(&t),
                        count,
                    }),
                )),
                Err(_) => err(
                    &cb,
                    ADD,
                    lang.t(
                        "add partitions: the count must be a whole number",
                        "增加分区：分区数必须是整数",
                    )
                    .into(),
                ),
            }
        })
    };
    let reassign = {
        let (cb, t, p, r) = (
            props.on_submit.clone(),
            re_topic.clone(),
            re_part.clone(),
            re_replicas.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            match (value(&p).parse::<u32>(), parse_ids(&value(&r))) {
                (Ok(partition), Ok(replicas)) if !replicas.is_empty() => cb.emit((
                    REASSIGN,
                    Msg::Act(Action::ReassignPartitions {
                        partitions: vec![PartitionTarget {
                            topic: value(&t),
                            partition,
                            replicas,
                        }],
                    }),
                )),
                (_, Err(e)) => err(
                    &cb,
                    REASSIGN,
                    lang.f(|| format!("reassign: {e}"), || format!("重分配：{e}")),
                ),
                _ => err(
                    &cb,
                    REASSIGN,
                    lang.t(
                        "reassign: give a partition number and at least one broker id",
                        "重分配：请填写分区号和至少一个 broker id",
                    )
                    .into(),
                ),
            }
        })
    };
    let delete = {
        let (cb, t) = (props.on_submit.clone(), del_topic.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            cb.emit((DELETE, Msg::Act(Action::DeleteTopic { topic: value(&t) })));
        })
    };
    let first = props.topics.first().cloned().unwrap_or_default();
    // Built with `crate::el` (the same nodes `html!` builds, without its
    // inline construction): the order of each element's attributes is
    // `html!`'s, `class` last.
    // The error, under the form that caused it.
    let error_for = |form: usize| -> Html {
        match &props.error {
            Some((f, e)) if *f == form => el(
                "p",
                attrs!("role" = "alert", "class" = "error form-error"),
                list(vec![
                    el("span", &[], string(e.clone())),
                    elo(
                        "button",
                        &["type", "aria-label"],
                        Box::new([s("button"), s(t("Dismiss the error", "关闭错误提示"))]),
                        on(Box::new([click(props.on_dismiss.clone())])),
                        text("×"),
                    ),
                ]),
            ),
            _ => Html::default(),
        }
    };
    let field = |(label, label_zh): (&str, &str),
                 (aria, aria_zh): (&str, &str),
                 r: &NodeRef,
                 value: String,
                 size: &str,
                 class: &str| {
        let (label, aria) = (lang.t(label, label_zh), lang.t(aria, aria_zh));
        eld(
            "label",
            &["class"],
            Box::new([el::class(classes!("field", class.to_string()))]),
            list(vec![
                el(
                    "span",
                    attrs!("class" = "field-label"),
                    string(label.to_string()),
                ),
                input_ref(
                    Some(AttrValue::from(value)),
                    r.clone(),
                    dynamic(
                        &["aria-label", "size"],
                        Box::new([st(aria.to_string()), st(size.to_string())]),
                    ),
                    Listeners::None,
                ),
            ]),
        )
    };
    let form = |cb: Callback<SubmitEvent>,
                which: usize,
                cmd: &'static str,
                mut fields: Vec<Html>,
                label: &'static str| {
        let mut children = vec![el("code", attrs!("class" = "admin-cmd"), text(cmd))];
        children.append(&mut fields);
        children.push(el("button", attrs!("type" = "submit"), text(label)));
        children.push(error_for(which));
        elo(
            "form",
            &["aria-label"],
            Box::new([s(form_name(which, lang))]),
            on(Box::new([submit(cb)])),
            list(children),
        )
    };
    eld(
        "section",
        &["id", "aria-label", "class"],
        Box::new([
            s("p-admin"),
            s(t("Admin tools", "管理工具")),
            s("panel admin"),
        ]),
        list(vec![
            el("h2", &[], text(t("Admin tools", "管理工具"))),
            form(
                create,
                CREATE,
                "kafka-topics.sh --create",
                vec![
                    field(
                        ("topic", "主题"),
                        ("New topic name", "新主题名"),
                        &name,
                        "events".into(),
                        "9",
                        "wide",
                    ),
                    field(
                        ("partitions", "分区数"),
                        ("Partitions", "分区数"),
                        &parts,
                        "3".into(),
                        "3",
                        "",
                    ),
                    field(
                        ("replication factor", "副本因子"),
                        ("Replication factor", "副本因子"),
                        &rf,
                        "2".into(),
                        "3",
                        "",
                    ),
                ],
                t("create", "创建"),
            ),
            form(
                add,
                ADD,
                "kafka-topics.sh --alter --partitions",
                vec![
                    field(
                        ("topic", "主题"),
                        ("Topic to add partitions to", "要增加分区的主题"),
                        &add_topic,
                        first.clone(),
                        "9",
                        "wide",
                    ),
                    field(
                        ("partition count", "分区总数"),
                        ("New partition count", "新的分区总数"),
                        &add_count,
                        "6".into(),
                        "3",
                        "",
                    ),
                ],
                t("alter", "修改"),
            ),
            form(
                reassign,
                REASSIGN,
                "kafka-reassign-partitions.sh --execute",
                vec![
                    field(
                        ("topic", "主题"),
                        ("Topic to reassign", "要重分配的主题"),
                        &re_topic,
                        first.clone(),
                        "9",
                        "wide",
                    ),
                    field(
                        ("partition", "分区"),
                        ("Partition to reassign", "要重分配的分区"),
                        &re_part,
                        "0".into(),
                        "3",
                        "",
                    ),
                    field(
                        ("replicas (e.g. 2,3)", "副本（如 2,3）"),
                        ("Target replicas, comma separated", "目标副本，逗号分隔"),
                        &re_replicas,
                        "2,3".into(),
                        "6",
                        "",
                    ),
                ],
                t("execute", "执行"),
            ),
            form(
                delete,
                DELETE,
                "kafka-topics.sh --delete",
                vec![field(
                    ("topic", "主题"),
                    ("Topic to delete", "要删除的主题"),
                    &del_topic,
                    first,
                    "9",
                    "wide",
                )],
                t("delete", "删除"),
            ),
        ]),
    )
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
