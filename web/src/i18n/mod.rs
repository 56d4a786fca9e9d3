//! The page's two languages. Every string a person reads is written in both,
//! side by side where it is used: [`Lang::t`] takes the English and the
//! Chinese, so a missing translation does not compile. Kafka's own names
//! (znode paths, config keys, state names, request names, script names) stay
//! as Kafka spells them in both.
//!
//! The language is a Yew context ([`use_lang`]); the page provides it from
//! the share link (`&lang=zh`) or the browser's remembered choice.

use yew::prelude::*;

pub mod errors;
pub mod facts;

/// A language of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// 中文 (simplified Chinese).
    Zh,
}

impl Lang {
    /// Both, in the order the switch shows them.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    /// The code used in share links, `localStorage` and `<html lang>`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// The language a code names (`en`, `zh`; `zh-CN` and the like too).
    pub fn from_code(code: &str) -> Option<Lang> {
        let c = code.trim().to_ascii_lowercase();
        if c == "en" || c.starts_with("en-") {
            Some(Lang::En)
        } else if c == "zh" || c.starts_with("zh-") {
            Some(Lang::Zh)
        } else {
            None
        }
    }

    /// The language's own name, for the switch.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "中文",
        }
    }

    /// Pick the text for this language: the English and the Chinese are both
    /// required, so a string cannot ship in one language only.
    pub fn t<'a>(self, en: &'a str, zh: &'a str) -> &'a str {
        match self {
            Lang::En => en,
            Lang::Zh => zh,
        }
    }

    /// [`Lang::t`] for formatted text: both closures are required.
    pub fn f(self, en: impl FnOnce() -> String, zh: impl FnOnce() -> String) -> String {
        match self {
            Lang::En => en(),
            Lang::Zh => zh(),
        }
    }
}

/// The page's language (English when no provider is mounted).
#[hook]
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_codes_are_refused() {
        for l in Lang::ALL {
            assert_eq!(Lang::from_code(l.code()), Some(l));
        }
        assert_eq!(Lang::from_code("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::from_code("fr"), None);
        assert_eq!(Lang::Zh.t("play", "播放"), "播放");
    }
}
