//! The token scan of preprocessed C the product's rewriting works on, and what of a
//! version the product needs.
//!
//! Key items:
//!
//! * [`scan`]: the pieces of a text, identifiers told apart from literals, directives and
//!   the rest.
//! * [`strip_unreached`]: a translation unit with the bodies of the functions the entry
//!   cannot reach (by the call graph, see [`crate::cprog::InstrumentedProgram::callable_functions`])
//!   cut to declarations, so that the product's goto binary, its function-pointer targets
//!   and its input streams hold only what an execution can run.
//!
//! Why only the reachable functions: a review of a 3,000-line file whose harness parses
//! a string reaches a third of it; a branch that changed only the printer changed nothing
//! any execution of that entry runs, and its version need not be told apart from the base.

use std::collections::BTreeSet;

/// `text` (preprocessed C) with the body of every function definition named in `cut`
/// replaced by `;`: the definition becomes a declaration. A definition whose name the
/// scan cannot tell (a function returning a function pointer, attributes before the
/// name) is kept, as is everything that is not a function definition.
pub(super) fn strip_unreached(text: &str, cut: &BTreeSet<String>) -> String {
    let mut out = String::with_capacity(text.len());
    // Nesting of braces and parentheses; the first identifier before a top-level `(` since
    // the last top-level `;` or `}`; the last piece that was no whitespace.
    let (mut braces, mut parens) = (0usize, 0usize);
    let mut name: Option<&str> = None;
    let mut last_ident: Option<&str> = None;
    let mut last = "";
    // Inside a body being cut: the depth its `{` opened.
    let mut cutting: Option<usize> = None;
    scan(text, |piece, ident| {
        let trimmed = piece.trim();
        if let Some(depth) = cutting {
            match piece {
                "{" => braces += 1,
                "}" => {
                    braces -= 1;
                    if braces == depth {
                        cutting = None;
                        out.push(';');
                        name = None;
                        last = ";";
                    }
                }
                _ => {}
            }
            return;
        }
        match piece {
            "{" if braces == 0 && parens == 0 && last == ")" => {
                if name.is_some_and(|n| cut.contains(n)) {
                    cutting = Some(0);
                    braces = 1;
                    return;
                }
                braces += 1;
            }
            "{" => braces += 1,
            "}" => {
                braces = braces.saturating_sub(1);
                if braces == 0 {
                    name = None;
                }
            }
            "(" => {
                if braces == 0 && parens == 0 && name.is_none() {
                    name = last_ident.filter(|_| last == last_ident.unwrap_or_default());
                }
                parens += 1;
            }
            ")" => parens = parens.saturating_sub(1),
            ";" if braces == 0 && parens == 0 => name = None,
            _ => {}
        }
        if ident {
            last_ident = Some(piece);
        }
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            last = trimmed;
        }
        out.push_str(piece);
    });
    out
}

/// Calls `f` with each piece of `text` in order: identifiers with `true`, everything else
/// (literals, punctuation, whitespace, numbers, directive lines) with `false`.
pub(super) fn scan<'t>(text: &'t str, mut f: impl FnMut(&'t str, bool)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if line_start && c == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            f(&text[start..i], false);
            continue;
        }
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != c && bytes[i] != b'\n' {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i = (i + 1).min(bytes.len());
            f(&text[start..i], false);
            line_start = false;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            f(&text[start..i], true);
            line_start = false;
            continue;
        }
        if c.is_ascii_digit() {
            // A number with its suffix (`10ul`, `0x1fULL`) is no identifier.
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            f(&text[start..i], false);
            line_start = false;
            continue;
        }
        // Any other byte, whole UTF-8 characters included.
        let width = text[i..].chars().next().map_or(1, char::len_utf8);
        i += width;
        if c == b'\n' {
            line_start = true;
        } else if !c.is_ascii_whitespace() {
            line_start = false;
        }
        f(&text[start..i], false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn unreached_bodies_become_declarations() {
        let text = "struct s { int a; };\nstatic int f(int x)\n{ if (x) { return 1; } return 0; }\nint g(void) { return f(2); }\nint t[2] = { 1, 2 };\n";
        let out = strip_unreached(text, &cut(&["f"]));
        assert_eq!(
            out,
            "struct s { int a; };\nstatic int f(int x)\n;\nint g(void) { return f(2); }\nint t[2] = { 1, 2 };\n"
        );
        assert_eq!(strip_unreached(text, &cut(&["h"])), text);
    }

    #[test]
    fn directives_and_literals_inside_a_cut_body_are_cut_with_it() {
        let text = "void f(void)\n# 3 \"a.c\"\n{ puts(\"}\"); char c = '{';\n# 4 \"a.c\"\n}\nvoid g(void) { }\n";
        let out = strip_unreached(text, &cut(&["f"]));
        assert_eq!(out, "void f(void)\n# 3 \"a.c\"\n;\nvoid g(void) { }\n");
    }

    #[test]
    fn definitions_whose_name_the_scan_cannot_tell_are_kept() {
        let text = "int (*f(void))(int) { return 0; }\n__attribute__((x)) void g(void) { }\n";
        assert_eq!(strip_unreached(text, &cut(&["f", "g"])), text);
    }
}
