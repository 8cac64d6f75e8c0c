//! One escaping function per output format, for every text a repository controls (commit
//! subjects, branch, tag and file names, function names, notes, tools' messages): a branch
//! under review writes these, so in every output they are data, never markup or commands.
//!
//! Key functions:
//!
//! * [`markdown`]: inline Markdown text. HTML (`<`, `>`, `&`) becomes entities, so no tag
//!   and no `<!--` survives; the punctuation of emphasis, code, links, tables and GitLab's
//!   extensions, and a list marker at the start, get a backslash; `@` and `#` are
//!   followed by a word joiner (U+2060), so no mention notifies anyone and no `#123` links
//!   an issue; control characters become visible escapes (`\n`, `\x1b`), so a table row or
//!   a list item cannot be broken. [`markdown_code`] and [`markdown_fence`] are the same
//!   rule inside code, where only backticks and line breaks matter; [`markdown_cell`]
//!   escapes the `|` a table would split at.
//! * [`terminal`]: one field of a line on a terminal, every control character (C0, DEL,
//!   C1) and every bidirectional override shown as an escape (`\x1b`, `\r`, `\n`,
//!   `\u{202e}`), so no ANSI sequence can erase, move or recolour what is printed.
//!   [`terminal_lines`] is the same for text of several lines, keeping its line breaks.
//! * [`sarif_uri`]: a relative path as a URI reference (RFC 3986): every byte outside the
//!   unreserved set percent-encoded, segment by segment, `/` kept. [`sarif_text`]: a SARIF
//!   message, its controls escaped and its brackets escaped (SARIF reads `[text](n)` in a
//!   plain-text message as a link).
//!
//! * [`html`]: a rendered page, whose markup askama has escaped value by value, with its
//!   controls and bidirectional overrides shown as escapes.
//!
//! JSON needs nothing here: serde escapes every string.

use std::fmt::Write;

/// Characters that change how text is shown rather than show: the C0 controls, DEL, the C1
/// controls, the bidirectional marks, embeddings, overrides and isolates, and the Unicode
/// line and paragraph separators.
pub fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// The visible escape of a hazard: `\n`, `\r`, `\t`, `\x1b` below U+0080, else `\u{85}`.
fn visible(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// One field of a terminal line: every hazard, line breaks included, shown escaped.
pub fn terminal(s: &str) -> String {
    escape_hazards(s, false)
}

/// Text of several lines for a terminal: every hazard shown escaped but `\n`.
pub fn terminal_lines(s: &str) -> String {
    escape_hazards(s, true)
}

fn escape_hazards(s: &str, keep_newline: bool) -> String {
    if !s.chars().any(is_hazard) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_hazard(c) && !(keep_newline && c == '\n') {
            visible(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// Inline Markdown text (GitHub's and GitLab's flavours) that shows exactly as written:
/// no markup, no HTML, no mention, no reference, and no line break. `@` gets a word joiner
/// after it rather than a backslash: the joiner is invisible and cannot be part of a user
/// name on either forge, whereas `\@team` and `&#64;team` still render as `@team`, which
/// the forge may turn into a mention. So `@\u{2060}team` reads as `@team` and notifies
/// nobody.
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    // What would start a block if the text began a line: a list or quote marker, a setext
    // underline, an ordered-list number's `.` or `)` before a space or the end.
    let rest = s.trim_start_matches(' ');
    let first = s.len() - rest.len();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let marker = if digits > 0 {
        let after = &rest[digits..];
        let ends = |r: &str| {
            r.get(1..)
                .is_some_and(|t| t.is_empty() || t.starts_with(' '))
        };
        (after.starts_with(['.', ')']) && ends(after)).then_some(first + digits)
    } else {
        rest.starts_with(['-', '+', '=']).then_some(first)
    };
    for (i, c) in s.char_indices() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' | '#' => {
                if c == '#' {
                    out.push('\\');
                }
                out.push(c);
                out.push('\u{2060}');
            }
            // Emphasis, code, links and images, strikethrough, tables, and GitLab's inline
            // diffs (`{+ +}`) and math (`$`).
            '\\' | '`' | '*' | '_' | '[' | ']' | '~' | '|' | '!' | '{' | '}' | '$' => {
                out.push('\\');
                out.push(c);
            }
            _ if Some(i) == marker => {
                out.push('\\');
                out.push(c);
            }
            c if is_hazard(c) => {
                // A visible escape whose backslash and braces are themselves escaped, so it
                // shows as `\n` or `\u{85}`.
                let mut shown = String::new();
                visible(c, &mut shown);
                for v in shown.chars() {
                    if matches!(v, '\\' | '{' | '}') {
                        out.push('\\');
                    }
                    out.push(v);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The longest run of backticks in `s`.
fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// A Markdown table cell: every `|` not already escaped gets a backslash, as GitHub's and
/// GitLab's tables split a row at a bare `|` even inside a code span.
pub fn markdown_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut escaped = false;
    for c in s.chars() {
        if c == '|' && !escaped {
            out.push('\\');
        }
        escaped = c == '\\' && !escaped;
        out.push(c);
    }
    out
}

/// An inline Markdown code span that shows `s` as written: delimited by more backticks than
/// any run inside, its hazards (line breaks too) shown escaped. In a table cell, `|` still
/// needs `\|` (GitHub's tables split on it even in code); the caller's cell adds it.
pub fn markdown_code(s: &str) -> String {
    let s = terminal(s);
    let ticks = "`".repeat(longest_backtick_run(&s) + 1);
    // A span that starts or ends with a backtick needs a space of padding, which is stripped.
    if s.starts_with('`') || s.ends_with('`') {
        format!("{ticks} {s} {ticks}")
    } else {
        format!("{ticks}{s}{ticks}")
    }
}

/// A fenced Markdown code block holding `content`'s lines as written: the fence is longer
/// than any run of backticks inside, and every hazard but the line break and the tab (source
/// code indents with it) is shown escaped (a `\r` would end a line too).
pub fn markdown_fence(language: &str, content: &str) -> String {
    let content: String = content
        .trim_end_matches('\n')
        .split('\t')
        .map(terminal_lines)
        .collect::<Vec<_>>()
        .join("\t");
    let ticks = "`".repeat(longest_backtick_run(&content).max(2) + 1);
    format!("{ticks}{language}\n{content}\n{ticks}\n\n")
}

/// A rendered HTML page whose values askama has escaped: every hazard but the whitespace
/// of HTML (`\n`, `\r`, `\t`) shown as an escape, so that no bidirectional override can
/// make a name read as another, and no control character reaches a browser or a terminal
/// that shows the file. The templates hold no hazard, so each one came from a value.
pub fn html(page: String) -> String {
    if !page
        .chars()
        .any(|c| is_hazard(c) && !matches!(c, '\n' | '\r' | '\t'))
    {
        return page;
    }
    let mut out = String::with_capacity(page.len() + 16);
    for c in page.chars() {
        if is_hazard(c) && !matches!(c, '\n' | '\r' | '\t') {
            visible(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// A path relative to the source root as a SARIF `artifactLocation.uri`: each segment
/// percent-encoded (RFC 3986: every byte but the unreserved `A-Z a-z 0-9 - . _ ~`), the
/// `/` between segments kept.
pub fn sarif_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// A SARIF plain-text message: hazards shown escaped, and `\`, `[` and `]` escaped with a
/// backslash, as SARIF asks of literal brackets in a message that may hold links.
pub fn sarif_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            c if is_hazard(c) => visible(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
