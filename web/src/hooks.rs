//! Hooks: the playback timer, the page's keyboard shortcuts (wherever focus
//! is) and keeping focus somewhere sensible when a focused button disables.

use gloo_timers::callback::Interval;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, KeyboardEvent};
use yew::prelude::*;

/// Call `tick` every `period_ms` while `active` (a new period starts a new
/// interval); the interval is owned by the hook and dropped on cleanup
/// (never leaked).
#[hook]
pub fn use_interval(active: bool, period_ms: u32, tick: Callback<()>) {
    use_effect_with((active, period_ms), move |(active, period_ms)| {
        let interval = active.then(|| Interval::new(*period_ms, move || tick.emit(())));
        move || drop(interval)
    });
}

/// Whether a key pressed in `target` belongs to it rather than to the page's
/// shortcuts: text fields, selects and editable text keep every key; a range
/// input (the scrub bar) keeps the keys that move it; a button, checkbox,
/// radio button or disclosure (`summary`) reached with the keyboard
/// (`keyboard_focus`, as [`keyboard_focus`] tells it) keeps Space, which
/// presses or ticks it, as everywhere on the web. One clicked with the
/// mouse does not: Space then plays or pauses, as before the click.
pub fn key_belongs_to_target(
    tag: &str,
    input_type: &str,
    editable: bool,
    keyboard_focus: bool,
    key: &str,
) -> bool {
    let pressable = match tag {
        "BUTTON" | "SUMMARY" => true,
        "INPUT" => matches!(
            input_type,
            "button" | "submit" | "reset" | "checkbox" | "radio"
        ),
        _ => false,
    };
    if pressable {
        return keyboard_focus && key == " ";
    }
    match tag {
        "SELECT" | "TEXTAREA" => true,
        "INPUT" if input_type == "range" => matches!(
            key,
            "ArrowLeft"
                | "ArrowRight"
                | "ArrowUp"
                | "ArrowDown"
                | "Home"
                | "End"
                | "PageUp"
                | "PageDown"
        ),
        "INPUT" => true,
        _ => editable,
    }
}

thread_local! {
    /// The element last pressed with a pointer, until the next Tab.
    static POINTED: RefCell<Option<Element>> = const { RefCell::new(None) };
}

/// Whether `el` has the keyboard's focus: the last element pressed with a
/// pointer (a mouse or a finger) was neither it nor inside or around it (a
/// checkbox's label), or a Tab came since. (The browser's `:focus-visible`
/// does not tell: any key pressed makes the focused element match it.)
pub fn keyboard_focus(el: &Element) -> bool {
    POINTED.with(|p| {
        !p.borrow()
            .as_ref()
            .is_some_and(|p| p.contains(Some(el)) || el.contains(Some(p)))
    })
}

fn document() -> Option<web_sys::Document> {
    web_sys::window().and_then(|w| w.document())
}

/// A listener on the document, removed on cleanup.
struct Listener {
    target: web_sys::Document,
    kind: &'static str,
    closure: Closure<dyn Fn(web_sys::Event)>,
}

impl Listener {
    fn new(kind: &'static str, f: impl Fn(web_sys::Event) + 'static) -> Option<Listener> {
        let target = document()?;
        let closure = Closure::<dyn Fn(web_sys::Event)>::new(f);
        target
            .add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref())
            .ok()?;
        Some(Listener {
            target,
            kind,
            closure,
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self
            .target
            .remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}

/// Call `on_key` for every key pressed on the page, whatever has focus (the
/// body too, where focus falls when a focused button becomes disabled), except
/// keys that belong to a text field, a select or the scrub bar, and keys
/// pressed with Ctrl, Alt or Meta (the browser's own shortcuts).
#[hook]
pub fn use_page_keys(on_key: Callback<KeyboardEvent>) {
    // The listener is added once and always calls the latest callback.
    let latest = use_mut_ref(|| on_key.clone());
    *latest.borrow_mut() = on_key;
    use_effect_with((), move |_| {
        let pointer = Listener::new("pointerdown", |e: web_sys::Event| {
            let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
            POINTED.with(|p| *p.borrow_mut() = target);
        });
        let listener = Listener::new("keydown", move |e: web_sys::Event| {
            let Ok(e) = e.dyn_into::<KeyboardEvent>() else {
                return;
            };
            if e.key() == "Tab" {
                POINTED.with(|p| *p.borrow_mut() = None);
            }
            if e.default_prevented() || e.ctrl_key() || e.alt_key() || e.meta_key() {
                return;
            }
            let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
            if let Some(el) = &target {
                let input_type = el
                    .dyn_ref::<web_sys::HtmlInputElement>()
                    .map(|i| i.type_())
                    .unwrap_or_default();
                let editable = el
                    .dyn_ref::<HtmlElement>()
                    .is_some_and(|h| h.is_content_editable());
                if key_belongs_to_target(
                    &el.tag_name(),
                    &input_type,
                    editable,
                    keyboard_focus(el),
                    &e.key(),
                ) {
                    return;
                }
            }
            let cb = latest.borrow().clone();
            cb.emit(e);
        });
        move || drop((listener, pointer))
    });
}

/// When the element that had focus becomes disabled or leaves the page (a
/// broker's "kill -9" once the broker is dead), move focus to its nearest
/// focusable container (the broker's card) or else to `fallback`, instead of
/// letting it fall to the body.
#[hook]
pub fn use_focus_rescue(fallback: NodeRef) {
    let last: Rc<RefCell<Option<Element>>> = use_mut_ref(|| None);
    {
        let last = last.clone();
        use_effect_with((), move |_| {
            let listener = Listener::new("focusin", move |e: web_sys::Event| {
                *last.borrow_mut() = e.target().and_then(|t| t.dyn_into::<Element>().ok());
            });
            move || drop(listener)
        });
    }
    // After every render: the render may have disabled the focused element.
    use_effect(move || {
        rescue(&last, &fallback);
    });
}

fn rescue(last: &RefCell<Option<Element>>, fallback: &NodeRef) {
    let Some(doc) = document() else { return };
    let Some(el) = last.borrow().clone() else {
        return;
    };
    let lost = !el.is_connected() || el.matches(":disabled").unwrap_or(false);
    if !lost {
        return;
    }
    let body: Option<Element> = doc.body().map(Into::into);
    let active = doc.active_element();
    if active.is_some() && active != Some(el.clone()) && active != body {
        return; // focus is already somewhere else the user chose
    }
    let home = el
        .parent_element()
        .and_then(|p| p.closest("[tabindex]").ok().flatten())
        .filter(|h| h.is_connected())
        .or_else(|| fallback.cast::<Element>());
    if let Some(home) = home.and_then(|h| h.dyn_into::<HtmlElement>().ok()) {
        let opts = web_sys::FocusOptions::new();
        opts.set_prevent_scroll(true);
        let _ = home.focus_with_options(&opts);
    }
}

/// The browser's `localStorage` (the language and lesson progress are
/// remembered there), if the page may use it.
pub fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The file chosen in a file input (`e` is its change event), read as text
/// and handed to `on_text`; `Err(size)` without reading it when it is larger
/// than `max` bytes. The input is cleared, so the same file can be chosen
/// again.
pub fn read_chosen_file(
    e: &Event,
    max: usize,
    on_text: impl FnOnce(Result<String, f64>) + 'static,
) {
    let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    input.set_value("");
    if file.size() > max as f64 {
        return on_text(Err(file.size()));
    }
    let Ok(reader) = web_sys::FileReader::new() else {
        return;
    };
    let r2 = reader.clone();
    let onload = Closure::once_into_js(move || {
        let text = r2
            .result()
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        on_text(Ok(text));
    });
    reader.set_onload(Some(onload.unchecked_ref()));
    let _ = reader.read_as_text(&file);
}

#[cfg(test)]
mod tests {
    use super::key_belongs_to_target;

    #[test]
    fn text_fields_and_selects_keep_their_keys_the_rest_is_the_pages() {
        assert!(key_belongs_to_target("INPUT", "text", false, false, "n"));
        assert!(key_belongs_to_target("SELECT", "", false, false, " "));
        assert!(key_belongs_to_target("DIV", "", true, false, " "));
        assert!(key_belongs_to_target(
            "INPUT",
            "range",
            false,
            false,
            "ArrowLeft"
        ));
        assert!(!key_belongs_to_target("INPUT", "range", false, true, " "));
        assert!(!key_belongs_to_target("INPUT", "range", false, false, "n"));
        assert!(!key_belongs_to_target(
            "BODY",
            "",
            false,
            false,
            "ArrowRight"
        ));
        assert!(!key_belongs_to_target("MAIN", "", false, true, "n"));
    }

    #[test]
    fn space_presses_a_control_reached_by_keyboard_and_plays_after_a_click() {
        for (tag, ty) in [
            ("BUTTON", ""),
            ("SUMMARY", ""),
            ("INPUT", "checkbox"),
            ("INPUT", "radio"),
            ("INPUT", "submit"),
        ] {
            assert!(
                key_belongs_to_target(tag, ty, false, true, " "),
                "{tag} {ty}"
            );
            assert!(
                !key_belongs_to_target(tag, ty, false, false, " "),
                "{tag} {ty}"
            );
            // The page's other keys stay the page's.
            assert!(
                !key_belongs_to_target(tag, ty, false, true, "ArrowRight"),
                "{tag} {ty}"
            );
            assert!(
                !key_belongs_to_target(tag, ty, false, true, "n"),
                "{tag} {ty}"
            );
        }
    }
}

/// A style sheet of the component's own holding `css`, built through the
/// CSSOM (a constructed `CSSStyleSheet` in `document.adoptedStyleSheets`),
/// never as a `<style>` element: the page's Content-Security-Policy
/// (`style-src 'self'`, core/docs/web-security.md) refuses inline style
/// elements. The sheet is replaced when `css` changes and leaves the
/// document with the component.
#[hook]
pub fn use_style_sheet(css: String) {
    let sheet = use_memo((), |()| web_sys::CssStyleSheet::new().ok());
    {
        let sheet = sheet.clone();
        use_effect_with((), move |()| {
            let doc = web_sys::window().and_then(|w| w.document());
            if let (Some(doc), Some(s)) = (&doc, sheet.as_ref()) {
                let list = js_sys::Array::from(&doc.adopted_style_sheets());
                list.push(s);
                doc.set_adopted_style_sheets(&list);
            }
            move || {
                if let (Some(doc), Some(s)) = (doc, sheet.as_ref()) {
                    let mine: &wasm_bindgen::JsValue = s;
                    let list = doc.adopted_style_sheets();
                    let kept = js_sys::Array::new();
                    for x in (0..list.length()).map(|i| list.get(i)) {
                        if &x != mine {
                            kept.push(&x);
                        }
                    }
                    doc.set_adopted_style_sheets(&kept);
                }
            }
        });
    }
    use_effect_with(css, move |css| {
        if let Some(s) = sheet.as_ref() {
            let _ = s.replace_sync(css);
        }
    });
}
