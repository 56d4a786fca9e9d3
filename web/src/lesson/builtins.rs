//! The built-in lessons as the page has them. The `.wasm` does not carry
//! their files (about 32 KB after gzip): trunk copies `core/lessons/` into
//! `dist/lessons/`, and the page fetches `lessons/<id>.json` for each of
//! [`builtin::IDS`] the first time it needs them (the lessons list opens, or
//! a share link names a built-in lesson), then reads each with the core's
//! [`Lesson::parse`], the check every lesson file goes through. A file that
//! does not arrive or does not read is named with the reason, in the list.
//! Native builds (the tests) read the core's embedded [`builtin::FILES`].

use kcsim_core::lesson::{builtin, Lesson};

/// One built-in lesson: read, or why not (`lessons/<id>.json: …`).
pub type Entry = (&'static str, Result<Lesson, String>);

/// Read a built-in lesson's text: the core's check, and the file must be the
/// lesson its name says.
fn read(id: &'static str, text: &str) -> Entry {
    let r = match Lesson::parse(text) {
        Ok(l) if l.id == id => Ok(l),
        Ok(l) => Err(format!("lessons/{id}.json: is lesson {:?}", l.id)),
        Err(e) => Err(format!("lessons/{id}.json: {e}")),
    };
    (id, r)
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::*;

    /// Every built-in lesson, in course order (`None`: still being fetched).
    pub fn entries() -> Option<Vec<Entry>> {
        Some(
            builtin::FILES
                .iter()
                .map(|(id, text)| read(id, text))
                .collect(),
        )
    }

    /// Natively the lessons are built in: `ready` is called at once.
    pub fn load(ready: impl FnOnce() + 'static) {
        ready();
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::*;
    use std::cell::RefCell;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    #[derive(Default)]
    struct Fetching {
        started: bool,
        /// One slot per id of [`builtin::IDS`], filled as the files arrive.
        got: Vec<Option<Result<Lesson, String>>>,
        done: Option<Vec<Entry>>,
        waiting: Vec<Box<dyn FnOnce()>>,
    }

    thread_local! {
        static STATE: RefCell<Fetching> = RefCell::new(Fetching::default());
    }

    /// Every built-in lesson, in course order (`None`: still being fetched).
    pub fn entries() -> Option<Vec<Entry>> {
        STATE.with(|s| s.borrow().done.clone())
    }

    /// Fetch the lessons if no one has yet; `ready` is called once every
    /// file has arrived or failed (at once if they already have).
    pub fn load(ready: impl FnOnce() + 'static) {
        if entries().is_some() {
            return ready();
        }
        let start = STATE.with(|s| {
            let mut s = s.borrow_mut();
            s.waiting.push(Box::new(ready));
            !std::mem::replace(&mut s.started, true)
        });
        if start {
            STATE.with(|s| s.borrow_mut().got = vec![None; builtin::IDS.len()]);
            for (i, id) in builtin::IDS.iter().enumerate() {
                fetch(i, id);
            }
        }
    }

    fn arrived(i: usize, id: &'static str, r: Result<String, String>) {
        let entry = match r {
            Ok(text) => read(id, &text).1,
            Err(e) => Err(format!("lessons/{id}.json: {e}")),
        };
        let waiting = STATE.with(|s| {
            let mut s = s.borrow_mut();
            match s.got.get_mut(i) {
                Some(slot @ None) => *slot = Some(entry),
                _ => return Vec::new(), // already heard of (or finished)
            }
            if s.got.iter().any(Option::is_none) {
                return Vec::new();
            }
            let got = std::mem::take(&mut s.got);
            s.done = Some(
                builtin::IDS
                    .iter()
                    .zip(got)
                    .map(|(id, r)| (*id, r.unwrap_or_else(|| Err("not fetched".into()))))
                    .collect(),
            );
            std::mem::take(&mut s.waiting)
        });
        for w in waiting {
            w();
        }
    }

    fn fetch(i: usize, id: &'static str) {
        let Ok(xhr) = web_sys::XmlHttpRequest::new() else {
            return arrived(i, id, Err("this browser cannot fetch files".into()));
        };
        if let Err(e) = xhr.open("GET", &format!("lessons/{id}.json")) {
            return arrived(i, id, Err(format!("cannot fetch: {e:?}")));
        }
        let x2 = xhr.clone();
        let on_end = Closure::once_into_js(move || {
            let r = match x2.status() {
                Ok(200) => x2
                    .response_text()
                    .ok()
                    .flatten()
                    .ok_or_else(|| "no text".to_string()),
                Ok(0) | Err(_) => Err(
                    "the file did not arrive (offline, or the page is not served by a web server)"
                        .into(),
                ),
                Ok(code) => Err(format!("HTTP {code}")),
            };
            arrived(i, id, r);
        });
        let _ = xhr.add_event_listener_with_callback("loadend", on_end.unchecked_ref());
        if xhr.send().is_err() {
            arrived(i, id, Err("the request could not be sent".into()));
        }
    }
}

/// Every built-in lesson, in course order, each read or with why not;
/// `None` while they are being fetched (call [`load`]).
pub fn entries() -> Option<Vec<Entry>> {
    imp::entries()
}

/// Make the built-in lessons available (fetch them in the browser, once),
/// then call `ready`.
pub fn load(ready: impl FnOnce() + 'static) {
    imp::load(ready)
}

/// A built-in lesson by id: `None` while the lessons are being fetched;
/// `Some(None)` for an id that is not built in.
pub fn lesson(id: &str) -> Option<Option<Result<Lesson, String>>> {
    let all = entries()?;
    Some(all.into_iter().find(|(i, _)| *i == id).map(|(_, r)| r))
}
