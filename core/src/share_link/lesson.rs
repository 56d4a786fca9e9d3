//! A lesson in a share link: `&l=<built-in id>&st=<step>` or, for a
//! teacher's own lesson, `&lf=<percent-encoded lesson JSON>` (at most
//! [`crate::lesson::MAX_BYTES`] once decoded), and `&present=1` for
//! presentation mode, beside the moment's own keys ([`super::read`]).
//! A finished lesson is written with `st=` one past its last step.
//!
//! Read here, in the core, as every other way in is (`docs/inputs.md`):
//! the page keeps only what is its own (the built-in lessons it fetched,
//! its state), so a lesson link is checked by the same code whether the page,
//! the fuzzer or a test reads it.

use super::{pct_decode, pct_encode};
use crate::lesson::{Lesson, MAX_BYTES};

/// The lesson keys of a link, as written (read with [`split`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LessonKeys {
    /// `l=`: a built-in lesson's id, decoded.
    pub id: Option<String>,
    /// `lf=`: a lesson file, still percent-encoded (read with [`read_file`]).
    pub file: Option<String>,
    /// `st=`: the step, as written (read with [`step`]).
    pub step: Option<String>,
    /// `present=1`.
    pub present: bool,
    /// What is wrong with these keys, in plain words.
    pub problems: Vec<String>,
}

/// Take the lesson keys (`l`, `lf`, `st`, `present`) out of a fragment (with
/// or without `#`): what they say, and the rest of the fragment for
/// [`super::read`].
pub fn split(fragment: &str) -> (LessonKeys, String) {
    let mut out = LessonKeys::default();
    let mut rest = Vec::new();
    for part in fragment.trim_start_matches('#').split('&') {
        match part.split_once('=') {
            Some(("l", v)) => match pct_decode(v) {
                Ok(id) => out.id = Some(id),
                Err(e) => out.problems.push(format!("the lesson (l=): {e}")),
            },
            Some(("lf", v)) => out.file = Some(v.to_string()),
            Some(("st", v)) => out.step = Some(v.to_string()),
            Some(("present", "1")) => out.present = true,
            Some(("present", "0")) => out.present = false,
            Some(("present", v)) => out.problems.push(format!(
                "present={v:?} is not 1 (presentation mode) or 0; ignored"
            )),
            _ => rest.push(part),
        }
    }
    (out, rest.join("&"))
}

/// Which lesson a link carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LessonRef<'a> {
    /// A built-in lesson, by id (`l=`).
    BuiltIn(&'a str),
    /// A lesson file's text, minified (`lf=`).
    File(&'a str),
}

/// Add the lesson keys to a fragment: the lesson and the step `st` (one past
/// the last step when it is finished), then `present=1`.
pub fn append(fragment: &mut String, lesson: Option<(LessonRef<'_>, usize)>, present: bool) {
    if let Some((r, st)) = lesson {
        match r {
            LessonRef::BuiltIn(id) => {
                fragment.push_str("&l=");
                fragment.push_str(&pct_encode(id));
            }
            LessonRef::File(text) => {
                fragment.push_str("&lf=");
                fragment.push_str(&pct_encode(text));
            }
        }
        fragment.push_str(&format!("&st={st}"));
    }
    if present {
        fragment.push_str("&present=1");
    }
}

/// Read an `lf=` value: decoded, no larger than a lesson may be, parsed by
/// [`Lesson::parse`]. The lesson and its text minified (what a link made from
/// it carries), or what is wrong in plain words.
pub fn read_file(encoded: &str) -> Result<(Lesson, String), String> {
    let text = pct_decode(encoded).map_err(|e| format!("the lesson file (lf=): {e}"))?;
    if text.len() > MAX_BYTES {
        return Err(format!(
            "the lesson file (lf=) is {} bytes, more than a lesson may be ({MAX_BYTES})",
            text.len()
        ));
    }
    let lesson = Lesson::parse(&text).map_err(|e| format!("the lesson file (lf=): {e}"))?;
    Ok((lesson, minified(&text)))
}

/// The lesson a link's keys choose.
#[derive(Debug)]
pub enum Chosen<'a> {
    /// A built-in lesson, by id (`l=`): the caller looks it up.
    BuiltIn(&'a str),
    /// A lesson file (`lf=`), read, and its text minified.
    File(Box<Lesson>, String),
}

/// Which lesson `keys` choose: `lf=` when there is one (read with
/// [`read_file`]), else `l=`; `None` with the reason in `problems` when none
/// does (`st=` without a lesson, or an `lf=` that does not read).
pub fn choose<'a>(keys: &'a LessonKeys, problems: &mut Vec<String>) -> Option<Chosen<'a>> {
    match (&keys.id, &keys.file) {
        (None, None) => {
            if let Some(st) = &keys.step {
                problems.push(format!("st={st} without a lesson (l= or lf=); ignored"));
            }
            None
        }
        (id, Some(file)) => {
            if id.is_some() {
                problems.push("both l= and lf=; the lesson file (lf=) is used".to_string());
            }
            match read_file(file) {
                Ok((l, text)) => Some(Chosen::File(Box::new(l), text)),
                Err(e) => {
                    problems.push(format!("{e}; no lesson opens"));
                    None
                }
            }
        }
        (Some(id), None) => Some(Chosen::BuiltIn(id)),
    }
}

/// A lesson file's JSON without its white space (what `lf=` carries).
pub fn minified(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .map_or_else(|_| text.to_string(), |v| v.to_string())
}

/// The step an `st=` value opens a lesson of `steps` steps at, whether the
/// lesson is finished (`st=` one past its last step), and what is wrong with
/// the value if anything (it then opens at the first step).
pub fn step(st: Option<&str>, steps: usize) -> (usize, bool, Option<String>) {
    match st.map(str::parse::<usize>) {
        None => (0, false, None),
        Some(Ok(k)) if k < steps => (k, false, None),
        Some(Ok(k)) if k == steps && steps > 0 => (steps - 1, true, None),
        Some(_) => (
            0,
            false,
            Some(format!(
                "st={} is not a step of this lesson (0 to {}); it opens at its first step",
                st.unwrap_or_default(),
                steps.saturating_sub(1)
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::builtin;

    #[test]
    fn the_lesson_keys_come_out_and_the_rest_stays_in_order() {
        let (k, rest) = split("#s=default&l=controller-race&t=5&st=2&present=1&a=%5B%5D");
        assert_eq!(k.id.as_deref(), Some("controller-race"));
        assert_eq!(k.step.as_deref(), Some("2"));
        assert!(k.present && k.problems.is_empty());
        assert_eq!(rest, "s=default&t=5&a=%5B%5D");
        let (k, _) = split("l=%ZZ&present=yes");
        assert_eq!(k.id, None);
        assert_eq!(k.problems.len(), 2, "{:?}", k.problems);
        assert!(k.problems[1].contains("present=\"yes\""));
    }

    #[test]
    fn a_lesson_file_round_trips_through_append_and_read_file() {
        let text = builtin::FILES[0].1.replace("controller-race", "my-race");
        let (lesson, min) = read_file(&pct_encode(&text)).unwrap();
        assert_eq!(lesson.id, "my-race");
        assert!(min.len() < text.len() && !min.contains('\n'));
        let mut f = "s=default".to_string();
        append(&mut f, Some((LessonRef::File(&min), 1)), true);
        let (k, rest) = split(&f);
        assert_eq!(rest, "s=default");
        assert_eq!(k.step.as_deref(), Some("1"));
        assert!(k.present);
        let (again, min2) = read_file(k.file.as_deref().unwrap()).unwrap();
        assert_eq!(
            (again.id.as_str(), min2.as_str()),
            ("my-race", min.as_str())
        );
    }

    #[test]
    fn a_bad_lesson_file_says_what_is_wrong() {
        let e = read_file("%7B%22version%22%3A1%7D").unwrap_err();
        assert!(e.contains("the lesson file (lf=): id: is required"), "{e}");
        let e = read_file("%ZZ").unwrap_err();
        assert!(e.contains("%ZZ is not a valid escape"), "{e}");
        let big = pct_encode(&" ".repeat(MAX_BYTES + 1));
        let e = read_file(&big).unwrap_err();
        assert!(e.contains("more than a lesson may be"), "{e}");
        assert!(read_file("%5B%5D").is_err());
    }

    #[test]
    fn the_file_wins_over_a_built_in_and_a_lone_step_is_a_problem() {
        let text = pct_encode(builtin::FILES[0].1);
        let (k, _) = split(&format!("l=controller-race&lf={text}"));
        let mut problems = Vec::new();
        assert!(matches!(choose(&k, &mut problems), Some(Chosen::File(..))));
        assert!(problems[0].contains("both l= and lf="), "{problems:?}");
        let (k, _) = split("l=controller-race&st=1");
        let mut problems = Vec::new();
        assert!(matches!(
            choose(&k, &mut problems),
            Some(Chosen::BuiltIn("controller-race"))
        ));
        assert!(problems.is_empty());
        let (k, _) = split("st=2");
        assert!(choose(&k, &mut problems).is_none());
        assert!(
            problems[0].contains("st=2 without a lesson"),
            "{problems:?}"
        );
        let (k, _) = split("lf=%5B%5D");
        let mut problems = Vec::new();
        assert!(choose(&k, &mut problems).is_none());
        assert!(problems[0].ends_with("; no lesson opens"), "{problems:?}");
    }

    #[test]
    fn st_opens_a_step_the_end_or_the_first_step_with_a_problem() {
        assert_eq!(step(None, 3), (0, false, None));
        assert_eq!(step(Some("2"), 3), (2, false, None));
        assert_eq!(step(Some("3"), 3), (2, true, None));
        let (k, done, p) = step(Some("9"), 3);
        assert_eq!((k, done), (0, false));
        assert!(p
            .unwrap()
            .contains("st=9 is not a step of this lesson (0 to 2)"));
        assert!(step(Some("-1"), 3).2.is_some());
        assert!(step(Some("99999999999999999999999"), 3).2.is_some());
        assert!(step(Some("0"), 0).2.is_some(), "a lesson without steps");
    }
}
