//! What a notification may say about a question: the server as registered,
//! the tool, and the first words of the server's message, cleaned. Never the
//! form's fields or any answer.

use crate::storage::Elicitation;

/// How much of the server's message a notification carries.
const FIRST_WORDS_CHARS: usize = 120;

/// The message's first words: control and formatting characters dropped,
/// whitespace collapsed, cut at a word boundary with an ellipsis.
pub fn first_words(message: &str) -> String {
    let cleaned: String = message
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !c.is_control() && !is_invisible_format(*c))
        .collect();
    let words: Vec<&str> = cleaned.split(' ').filter(|w| !w.is_empty()).collect();
    let mut out = String::new();
    for word in words.iter() {
        let extra = if out.is_empty() { 0 } else { 1 } + word.chars().count();
        if out.chars().count() + extra > FIRST_WORDS_CHARS {
            if out.is_empty() {
                out = word.chars().take(FIRST_WORDS_CHARS).collect();
            }
            out.push('…');
            return out;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Bidirectional overrides, zero-width characters and the like: they can make a
/// notification read differently from what it says.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// The dashboard's address for one question.
pub fn question_link(public_url: &url::Url, e: &Elicitation) -> String {
    format!("{}/?question={}", public_url.as_str().trim_end_matches('/'), e.id)
}

/// The tool as a notification names it.
pub fn tool_words(e: &Elicitation) -> String {
    match e.tool.as_deref() {
        Some(tool) => first_words(tool),
        None => "a tool".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_words_are_clean_and_short() {
        assert_eq!(first_words("Deploy\nbuild 78\tto   production?"), "Deploy build 78 to production?");
        assert_eq!(first_words("a\u{202E}gnp.exe\u{0007}"), "agnp.exe");
        let long = "word ".repeat(60);
        let cut = first_words(&long);
        assert!(cut.ends_with('…') && cut.chars().count() <= FIRST_WORDS_CHARS + 1, "{cut}");
        assert_eq!(first_words(&"x".repeat(500)).chars().count(), FIRST_WORDS_CHARS + 1);
    }
}
