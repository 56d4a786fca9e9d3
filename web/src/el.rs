//! Elements built by a few functions that are not inlined, in place of
//! `html!`'s inline construction.
//!
//! `html!` writes each element's construction into its component's view: the
//! tag, a fresh `NodeRef`, the attribute list, the listeners, the `VTag` and
//! its `Rc`, a few hundred bytes of WebAssembly for every element on the page.
//! These builders make the same virtual nodes (the same tag, the same
//! attributes in the same order, the same listeners, the same children, a
//! single child as itself and several as one `VList`, as `html!` does), with
//! the construction in one place: a call site passes a tag, a static slice or
//! a boxed list of attribute values, and its children.
//!
//! The attribute order is `html!`'s: the other attributes in the order
//! written, then `value` (on elements other than `<input>`), then the boolean
//! ones (`disabled`, `selected`, ...), then `class`.

use std::rc::Rc;
use yew::html::IntoPropValue;
use yew::virtual_dom::{
    AttrValue, AttributeOrProperty, Attributes, Listener, Listeners, VList, VNode, VTag, VText,
};
use yew::{Callback, Classes, Html, NodeRef};

/// A static attribute: its name and value, as `html!` writes a literal one.
pub(crate) type Attr = (&'static str, AttributeOrProperty);

/// A dynamic attribute's value (`None`: the attribute is left out).
pub(crate) type Val = Option<AttributeOrProperty>;

/// `<name attributes listeners>children</name>`, with a node reference.
#[inline(never)]
pub(crate) fn tag(
    name: &'static str,
    node_ref: NodeRef,
    attributes: Attributes,
    listeners: Listeners,
    children: Html,
) -> Html {
    VNode::from(VTag::__new_other(
        AttrValue::Static(name),
        node_ref,
        None,
        attributes,
        listeners,
        children,
    ))
}

/// An element whose attributes are all literals, without listeners.
#[inline(never)]
pub(crate) fn el(name: &'static str, attrs: &'static [Attr], children: Html) -> Html {
    tag(
        name,
        NodeRef::default(),
        Attributes::Static(attrs),
        Listeners::None,
        children,
    )
}

/// An element whose attributes are all literals, with listeners.
#[inline(never)]
pub(crate) fn els(
    name: &'static str,
    attrs: &'static [Attr],
    listeners: Listeners,
    children: Html,
) -> Html {
    tag(
        name,
        NodeRef::default(),
        Attributes::Static(attrs),
        listeners,
        children,
    )
}

/// An element with computed attributes (`keys[i]` is `values[i]`'s name),
/// without listeners.
#[inline(never)]
pub(crate) fn eld(
    name: &'static str,
    keys: &'static [&'static str],
    values: Box<[Val]>,
    children: Html,
) -> Html {
    tag(
        name,
        NodeRef::default(),
        dynamic(keys, values),
        Listeners::None,
        children,
    )
}

/// An element with computed attributes and listeners.
#[inline(never)]
pub(crate) fn elo(
    name: &'static str,
    keys: &'static [&'static str],
    values: Box<[Val]>,
    listeners: Listeners,
    children: Html,
) -> Html {
    tag(
        name,
        NodeRef::default(),
        dynamic(keys, values),
        listeners,
        children,
    )
}

/// An element without children whose attributes are all literals.
#[inline(never)]
pub(crate) fn el0(name: &'static str, attrs: &'static [Attr]) -> Html {
    el(name, attrs, Html::default())
}

/// An element without children, with computed attributes.
#[inline(never)]
pub(crate) fn leaf(name: &'static str, keys: &'static [&'static str], values: Box<[Val]>) -> Html {
    eld(name, keys, values, Html::default())
}

/// Computed attributes, as `html!` keeps them.
#[inline(never)]
pub(crate) fn dynamic(keys: &'static [&'static str], values: Box<[Val]>) -> Attributes {
    Attributes::Dynamic { keys, values }
}

/// An `<input>` (its `value` is a field of the tag, not an attribute).
#[inline(never)]
pub(crate) fn input(
    value: Option<AttrValue>,
    checked: Option<bool>,
    attributes: Attributes,
    listeners: Listeners,
) -> Html {
    VNode::from(VTag::__new_input(
        value,
        checked,
        NodeRef::default(),
        None,
        attributes,
        listeners,
    ))
}

/// An `<input>` with a node reference.
#[inline(never)]
pub(crate) fn input_ref(
    value: Option<AttrValue>,
    node_ref: NodeRef,
    attributes: Attributes,
    listeners: Listeners,
) -> Html {
    VNode::from(VTag::__new_input(
        value, None, node_ref, None, attributes, listeners,
    ))
}

/// Several children, as `html!` keeps them: one list.
#[inline(never)]
pub(crate) fn list(children: Vec<Html>) -> Html {
    VNode::VList(Rc::new(VList::from(children)))
}

/// Literal text.
#[inline(never)]
pub(crate) fn text(s: &'static str) -> Html {
    VNode::VText(VText::new(AttrValue::Static(s)))
}

/// Computed text.
#[inline(never)]
pub(crate) fn string(s: String) -> Html {
    VNode::VText(VText::new(AttrValue::from(s)))
}

/// A literal attribute value among computed ones.
#[inline(never)]
pub(crate) fn s(v: &'static str) -> Val {
    Some(AttributeOrProperty::Attribute(AttrValue::Static(v)))
}

/// A computed attribute value.
#[inline(never)]
pub(crate) fn st(v: String) -> Val {
    Some(AttributeOrProperty::Attribute(AttrValue::from(v)))
}

/// A computed attribute value kept by its owner (a clone shares it).
#[inline(never)]
pub(crate) fn shared(v: &AttrValue) -> Val {
    Some(AttributeOrProperty::Attribute(v.clone()))
}

/// A number as an attribute value (its decimal digits).
#[inline(never)]
pub(crate) fn num(v: u64) -> Val {
    st(v.to_string())
}

/// An attribute present only when `v` is.
#[inline(never)]
pub(crate) fn opt(v: Option<&'static str>) -> Val {
    v.map(|v| AttributeOrProperty::Attribute(AttrValue::Static(v)))
}

/// A computed attribute present only when `v` is.
#[inline(never)]
pub(crate) fn opt_st(v: Option<String>) -> Val {
    v.map(|v| AttributeOrProperty::Attribute(AttrValue::from(v)))
}

/// A computed property (`~style={v}`), set as a property, not an attribute.
#[inline(never)]
pub(crate) fn prop(v: String) -> Val {
    Some(AttributeOrProperty::Property(v.into()))
}

/// A boolean attribute (`disabled`, `selected`, ...): its own name when on.
#[inline(never)]
pub(crate) fn flag(name: &'static str, on: bool) -> Val {
    on.then_some(AttributeOrProperty::Attribute(AttrValue::Static(name)))
}

/// A computed class list (left out when empty, as `html!` does).
#[inline(never)]
pub(crate) fn class(c: Classes) -> Val {
    IntoPropValue::<Option<AttrValue>>::into_prop_value(c).map(AttributeOrProperty::Attribute)
}

/// The listeners of an element, in the order written.
#[inline(never)]
pub(crate) fn on(listeners: Box<[Option<Rc<dyn Listener>>]>) -> Listeners {
    Listeners::Pending(listeners)
}

/// `<button aria-label={aria} onclick={cb}>{label}</button>`.
#[inline(never)]
pub(crate) fn labelled_button(
    aria: String,
    cb: Callback<yew::MouseEvent>,
    label: &'static str,
) -> Html {
    elo(
        "button",
        &["aria-label"],
        Box::new([st(aria)]),
        on(Box::new([click(cb)])),
        text(label),
    )
}

/// `onclick={cb}`.
#[inline(never)]
pub(crate) fn click(cb: Callback<yew::MouseEvent>) -> Option<Rc<dyn Listener>> {
    yew::html::onclick::Wrapper::__macro_new(cb)
}

/// `onchange={cb}`.
#[inline(never)]
pub(crate) fn change(cb: Callback<yew::Event>) -> Option<Rc<dyn Listener>> {
    yew::html::onchange::Wrapper::__macro_new(cb)
}

/// `onscroll={cb}`.
#[inline(never)]
pub(crate) fn scroll(cb: Callback<yew::Event>) -> Option<Rc<dyn Listener>> {
    yew::html::onscroll::Wrapper::__macro_new(cb)
}

/// `oninput={cb}`.
#[inline(never)]
pub(crate) fn input_ev(cb: Callback<yew::InputEvent>) -> Option<Rc<dyn Listener>> {
    yew::html::oninput::Wrapper::__macro_new(cb)
}

/// `ondblclick={cb}`.
#[inline(never)]
pub(crate) fn dblclick(cb: Callback<yew::MouseEvent>) -> Option<Rc<dyn Listener>> {
    yew::html::ondblclick::Wrapper::__macro_new(cb)
}

/// `onsubmit={cb}`.
#[inline(never)]
pub(crate) fn submit(cb: Callback<yew::SubmitEvent>) -> Option<Rc<dyn Listener>> {
    yew::html::onsubmit::Wrapper::__macro_new(cb)
}

/// `onfocusin={cb}`.
#[inline(never)]
pub(crate) fn focusin(cb: Callback<yew::FocusEvent>) -> Option<Rc<dyn Listener>> {
    yew::html::onfocusin::Wrapper::__macro_new(cb)
}

/// `onkeydown={cb}`.
#[inline(never)]
pub(crate) fn keydown(cb: Callback<yew::KeyboardEvent>) -> Option<Rc<dyn Listener>> {
    yew::html::onkeydown::Wrapper::__macro_new(cb)
}

/// A literal attribute, for the static slices `el` takes.
macro_rules! attrs {
    ($($k:literal = $v:literal),* $(,)?) => {
        &[$(($k, ::yew::virtual_dom::AttributeOrProperty::Static($v))),*]
    };
}
pub(crate) use attrs;

#[cfg(test)]
mod tests {
    use super::*;
    use yew::{classes, html};

    // What `html!` builds and what the builders build compare equal as
    // virtual nodes: the same tags, attributes (names, values and order),
    // listeners and children.

    #[test]
    fn a_static_element_is_htmls() {
        let built = el("p", attrs!("class" = "subtitle"), text("kcsim"));
        let macro_ = html! { <p class="subtitle">{ "kcsim" }</p> };
        assert_eq!(built, macro_);
        // The attribute matters: a different class is a different node.
        let other = html! { <p class="summary">{ "kcsim" }</p> };
        assert_ne!(built, other);
        // So does the order of the attributes.
        let a = el(
            "div",
            attrs!("role" = "status", "class" = "notice"),
            text("x"),
        );
        assert_eq!(a, html! { <div class="notice" role="status">{ "x" }</div> });
        let b = el(
            "div",
            attrs!("class" = "notice", "role" = "status"),
            text("x"),
        );
        assert_ne!(a, b);
    }

    #[test]
    fn computed_attributes_and_several_children_are_htmls() {
        let label = String::from("go");
        let dark = true;
        let x = 42u32;
        let built = eld(
            "g",
            &["x", "aria-label", "height", "disabled", "class"],
            Box::new([
                num(u64::from(x)),
                st(label.clone()),
                s("30"),
                flag("disabled", !dark),
                class(classes!("head", dark.then_some("dark"))),
            ]),
            list(vec![text("a"), string(format!("{x}"))]),
        );
        let macro_ = html! {
            <g class={classes!("head", dark.then_some("dark"))} x={x.to_string()} aria-label={label.clone()} height="30" disabled={!dark}>
                { "a" }{ format!("{x}") }
            </g>
        };
        assert_eq!(built, macro_);
        let other = html! {
            <g class={classes!("head")} x={x.to_string()} aria-label={label} height="30" disabled={!dark}>
                { "a" }{ format!("{x}") }
            </g>
        };
        assert_ne!(built, other);
    }

    #[test]
    fn an_empty_class_list_is_left_out() {
        let built = eld(
            "span",
            &["class"],
            Box::new([class(classes!(None::<&str>))]),
            Html::default(),
        );
        assert_eq!(
            built,
            html! { <span class={classes!(None::<&str>)}></span> }
        );
        assert_eq!(class(classes!(None::<&str>)), None);
    }

    #[test]
    fn an_input_is_htmls() {
        let v = String::from("7");
        let built = input(
            Some(AttrValue::from(v.clone())),
            None,
            dynamic(
                &["type", "aria-label"],
                Box::new([s("number"), st(v.clone())]),
            ),
            Listeners::None,
        );
        assert_eq!(
            built,
            html! { <input type="number" aria-label={v.clone()} value={v.clone()} /> }
        );
        let built = input(
            None,
            None,
            Attributes::Static(attrs!("type" = "file", "accept" = ".jsonl")),
            Listeners::None,
        );
        assert_eq!(built, html! { <input type="file" accept=".jsonl" /> });
        assert_ne!(built, html! { <input type="file" accept=".json" /> });
        for on in [false, true] {
            let built = input(
                None,
                Some(on),
                Attributes::Static(attrs!("type" = "checkbox")),
                Listeners::None,
            );
            assert_eq!(built, html! { <input type="checkbox" checked={on} /> });
            assert_ne!(built, html! { <input type="checkbox" checked={!on} /> });
        }
    }
}
