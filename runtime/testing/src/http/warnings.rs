//! `Warning` headers, as the apiserver's recorder writes them
//! (`apiserver:pkg/endpoints/filters/warning.go`, `apimachinery:pkg/util/net/http.go`):
//! each text once, texts with a control character dropped, only `"` and `\` escaped, and
//! the total held to 4096 runes by cutting every warning to 256 runes once it would pass.

use http::HeaderValue;

/// Runes of warning text written before the recorder starts truncating.
const TRUNCATE_AT_TOTAL_RUNES: usize = 4 * 1024;
/// Runes each warning keeps once the recorder truncates.
const TRUNCATE_ITEM_RUNES: usize = 256;

/// The warnings of one response, in the order they were added.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    /// Every distinct text added, for replaying them truncated.
    recorded: Vec<String>,
    /// The headers written so far.
    headers: Vec<HeaderValue>,
    /// Runes of text written as headers.
    written: usize,
    truncating: bool,
}

impl Recorder {
    /// Adds the warnings of a request, in order.
    pub(super) fn extend(&mut self, texts: impl IntoIterator<Item = String>) {
        for text in texts {
            self.add(text);
        }
    }

    /// `recorder.AddWarning` with the agent `-`.
    pub(super) fn add(&mut self, text: String) {
        if text.is_empty() || (self.truncating && self.written >= TRUNCATE_AT_TOTAL_RUNES) {
            return;
        }
        if self.recorded.contains(&text) {
            return;
        }
        let mut runes = text.chars().count();
        let header = match self.truncating && runes > TRUNCATE_ITEM_RUNES {
            true => {
                runes = TRUNCATE_ITEM_RUNES;
                header(&cut(&text))
            }
            false => header(&text),
        };
        self.recorded.push(text);
        let Some(header) = header else {
            return;
        };
        if self.truncating || self.written + runes <= TRUNCATE_AT_TOTAL_RUNES {
            self.written += runes;
            self.headers.push(header);
            return;
        }
        // Past the limit: start over with every warning so far cut to 256 runes.
        self.truncating = true;
        self.written = 0;
        self.headers.clear();
        for text in &self.recorded {
            let cut = cut(text);
            if let Some(header) = self::header(&cut) {
                self.written += cut.chars().count();
                self.headers.push(header);
            }
        }
    }

    /// The `Warning` header values, in order.
    pub(super) fn headers(self) -> Vec<HeaderValue> {
        self.headers
    }
}

/// The first 256 runes of `text`.
fn cut(text: &str) -> String {
    text.chars().take(TRUNCATE_ITEM_RUNES).collect()
}

/// `NewWarningHeader(299, "-", text)`: `299 - "<text>"`, with only `"` and `\` escaped;
/// `None` for a text holding a control character (U+0000–U+001F, U+007F–U+009F), which the
/// apiserver drops.
fn header(text: &str) -> Option<HeaderValue> {
    if text.chars().any(char::is_control) {
        return None;
    }
    let mut value = String::with_capacity(text.len() + 8);
    value.push_str("299 - \"");
    for c in text.chars() {
        if c == '"' || c == '\\' {
            value.push('\\');
        }
        value.push(c);
    }
    value.push('"');
    HeaderValue::from_str(&value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(texts: &[String]) -> Vec<String> {
        let mut recorder = Recorder::default();
        recorder.extend(texts.iter().cloned());
        recorder
            .headers()
            .iter()
            .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
            .collect()
    }

    fn unknown(key: &str) -> String {
        format!("unknown field \"spec.{key}\"")
    }

    #[test]
    fn texts_are_escaped_and_filtered_as_the_apiserver_does() {
        // Observed on kube-apiserver v1.36.2.
        assert_eq!(
            written(&[unknown("a\"b\\c"), unknown("a\u{200b}é"), String::new()]),
            [
                r#"299 - "unknown field \"spec.a\"b\\c\"""#.to_owned(),
                "299 - \"unknown field \\\"spec.a\u{200b}é\\\"\"".to_owned(),
            ]
        );
        assert_eq!(
            written(&[
                unknown("a\u{1}b"),
                unknown("a\u{85}b"),
                unknown("x"),
                unknown("x")
            ]),
            [r#"299 - "unknown field \"spec.x\"""#]
        );
    }

    #[test]
    fn long_warnings_are_truncated_as_the_apiserver_truncates_them() {
        // Observed on kube-apiserver v1.36.2: a text of 4021 runes whole; 4100 cut to 256.
        let whole = written(&[unknown(&"k".repeat(4000))]);
        assert_eq!(whole[0].len(), 4031);
        let cut = written(&[unknown(&"k".repeat(4079))]);
        assert_eq!(
            cut,
            [format!(
                r#"299 - "unknown field \"spec.{}""#,
                "k".repeat(236)
            )]
        );
        // Two keys of 3000: the second overflows, both come out cut.
        let two = written(&[unknown(&"a".repeat(3000)), unknown(&"b".repeat(3000))]);
        assert_eq!(two.len(), 2);
        assert!(two.iter().all(|h| h.chars().count() == 256 + 9));
        // 20 keys of 300: 16 warnings of 256 runes, the rest dropped.
        let keys: Vec<String> = (0..20)
            .map(|i| unknown(&format!("{i:02}{}", "k".repeat(298))))
            .collect();
        assert_eq!(written(&keys).len(), 16);
        // Runes, not bytes.
        let wide = written(&[unknown(&"é".repeat(4100))]);
        assert_eq!(wide[0].len(), 501);
    }
}
