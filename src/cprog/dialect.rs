//! C that gcc accepts and tree-sitter-c cannot parse: pre-C99 function definitions,
//! rewritten to prototype form in the preprocessed text before it is parsed, and GNU syntax
//! the parser only needs to skip.
//!
//! Key items: [`rewrite`], applied to a [`Preprocessed`] unit, and [`blank_for_parser`].
//!
//! [`blank_for_parser`] turns into spaces, in the text the parser reads and not in the text
//! the compiler gets (so byte offsets stay the same in both), what tree-sitter-c cannot
//! read where gcc allows it and what no event depends on: `__attribute__((...))` (e.g.
//! between a declarator and its initialiser) and the `... high` of a GNU case range
//! (`case 1 ... 3:` is parsed as `case 1:`; the compiler still sees the range). The driver
//! uses it only when the plain parse has errors and it removes some.
//!
//! Two pre-C99 forms are rewritten, at file scope only:
//!
//! * K&R definitions: `int f(a, b) int a; char *b; { ... }` becomes
//!   `int f(int a, char *b) { ... }`; a parameter without a declaration is `int`.
//! * Implicit `int`: `main() { ... }` and `static f(x) int x; { ... }` get `int` before
//!   the name.
//!
//! The rewrite keeps every line break where it was (the declarations' lines become blank,
//! the parameter list keeps the header's line breaks), so the line markers, the rows of
//! [`Preprocessed`] and therefore every file:line the user sees stay right, and it edits
//! `text` and `parse_text` alike, which must stay aligned byte for byte. It declines
//! anything it is not sure of: a region holding a directive line, a parameter list that is
//! not only identifiers, declarations that name no parameter. A K&R definition needs
//! declarations between `)` and `{`; without them (`int f(a) { ... }`) `a` could as well be
//! a type name, which tree-sitter reads as such.
//!
//! One difference remains: a K&R parameter of type `char`, `short` or `float` is passed
//! promoted (as `int`, `double`) and converted on entry, a prototype's is not. Calls agree
//! whenever the argument fits the parameter's type, which is what bounded verification of
//! such code asks in practice.

use super::preprocess::Preprocessed;

/// Keywords that cannot name a parameter in an identifier list.
const KEYWORDS: [&str; 16] = [
    "void", "int", "char", "short", "long", "float", "double", "signed", "unsigned", "struct",
    "union", "enum", "const", "volatile", "_Bool", "register",
];

/// What may stand before the name of an implicit-`int` definition.
const STORAGE: [&str; 5] = ["static", "extern", "inline", "__inline", "__inline__"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Token {
    start: usize,
    end: usize,
}

/// The tokens of preprocessed C with directive lines blanked: identifiers (keywords among
/// them), literals and one-character punctuators. Comments are gone after `gcc -E`.
fn tokens(src: &str) -> Vec<Token> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'$')
            {
                i += 1;
            }
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != c && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
        } else {
            // One character (UTF-8 continuation bytes stay with their lead byte).
            i += 1;
            while i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
                i += 1;
            }
        }
        out.push(Token { start, end: i });
    }
    out
}

fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// One replacement of `start..end` by `with`.
struct Edit {
    start: usize,
    end: usize,
    with: String,
}

/// Rewrites the unit's K&R definitions and implicit-`int` definitions; returns how many
/// edits it made (0: the unit is left as it was).
pub(crate) fn rewrite(pre: &mut Preprocessed) -> usize {
    let edits = find_edits(&pre.parse_text);
    // Each edit must cover the same text in both strings: no directive line in between.
    let edits: Vec<Edit> = edits
        .into_iter()
        .filter(|e| pre.text.get(e.start..e.end) == pre.parse_text.get(e.start..e.end))
        .collect();
    if edits.is_empty() {
        return 0;
    }
    pre.text = apply(&pre.text, &edits);
    pre.parse_text = apply(&pre.parse_text, &edits);
    edits.len()
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for e in edits {
        out.push_str(&text[at..e.start]);
        out.push_str(&e.with);
        at = e.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The edits, in text order and not overlapping.
fn find_edits(src: &str) -> Vec<Edit> {
    let toks = tokens(src);
    let t = |i: usize| &src[toks[i].start..toks[i].end];
    let mut edits = Vec::new();
    let mut depth = 0usize;
    for i in 0..toks.len() {
        match t(i) {
            "{" => {
                if depth == 0 {
                    definition_edits(src, &toks, i, &mut edits);
                }
                depth += 1;
            }
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    edits.sort_by_key(|e| e.start);
    edits
}

/// The edits of a definition whose body opens at token `open`, if it is a K&R or an
/// implicit-`int` one.
fn definition_edits(src: &str, toks: &[Token], open: usize, out: &mut Vec<Edit>) {
    let t = |i: usize| &src[toks[i].start..toks[i].end];
    // K&R: `NAME ( ids ) decls {`, where decls end with `;`. Walk back from `{` to the
    // `)` that closes an identifier list and is followed by a declaration.
    let mut knr = None;
    if open > 0 && t(open - 1) == ";" {
        let mut j = open - 1;
        while j > 0 {
            j -= 1;
            match t(j) {
                "{" | "}" | "=" => break,
                ")" if j + 1 < open && is_identifier(t(j + 1)) => {
                    if let Some(found) = knr_header(src, toks, j, open) {
                        knr = Some(found);
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let name_at = match &knr {
        Some(k) => k.name,
        None => {
            // `NAME ( ... ) {` with nothing but storage classes before NAME.
            let Some(close) = open.checked_sub(1).filter(|&c| t(c) == ")") else {
                return;
            };
            let Some(lparen) = matching_open(src, toks, close) else {
                return;
            };
            match lparen.checked_sub(1) {
                Some(n) if is_identifier(t(n)) => n,
                _ => return,
            }
        }
    };
    // The item starts after the last `;` or `}` before the name.
    let mut first = name_at;
    while first > 0 && !matches!(t(first - 1), ";" | "}") {
        first -= 1;
    }
    let before: Vec<&str> = (first..name_at).map(t).collect();
    let implicit_int = !KEYWORDS.contains(&t(name_at))
        && before.iter().all(|w| STORAGE.contains(w))
        && t(name_at + 1) == "(";
    if let Some(k) = knr {
        out.push(Edit {
            start: toks[k.lparen].end,
            end: toks[k.rparen].start,
            with: k.parameters,
        });
        out.push(Edit {
            start: toks[k.rparen].end,
            end: toks[open].start,
            with: blank(&src[toks[k.rparen].end..toks[open].start]),
        });
    }
    if implicit_int {
        out.push(Edit {
            start: toks[name_at].start,
            end: toks[name_at].start,
            with: "int ".to_string(),
        });
    }
}

/// `text` with everything but its line breaks turned into spaces.
fn blank(text: &str) -> String {
    text.chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect()
}

/// The `(` that matches the `)` at token `close`.
fn matching_open(src: &str, toks: &[Token], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for j in (0..=close).rev() {
        match &src[toks[j].start..toks[j].end] {
            ")" => depth += 1,
            "(" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            "{" | "}" | ";" => return None,
            _ => {}
        }
    }
    None
}

struct KnrHeader {
    name: usize,
    lparen: usize,
    rparen: usize,
    /// The new parameter list, with the old list's line breaks after it.
    parameters: String,
}

/// `NAME ( a , b ) decls {` with the `)` at `rparen` and the `{` at `open`.
fn knr_header(src: &str, toks: &[Token], rparen: usize, open: usize) -> Option<KnrHeader> {
    let t = |i: usize| &src[toks[i].start..toks[i].end];
    let lparen = matching_open(src, toks, rparen)?;
    let name = lparen.checked_sub(1).filter(|&n| is_identifier(t(n)))?;
    // Only identifiers and commas inside: `a, b`.
    let mut ids = Vec::new();
    for (k, i) in (lparen + 1..rparen).enumerate() {
        let w = t(i);
        if k % 2 == 0 {
            if !is_identifier(w) || KEYWORDS.contains(&w) {
                return None;
            }
            ids.push(w);
        } else if w != "," {
            return None;
        }
    }
    if ids.is_empty() || !(rparen - lparen).is_multiple_of(2) {
        return None;
    }
    // The declarations: `spec declarator, declarator;` ...
    let mut declared: Vec<(String, String)> = Vec::new();
    let mut start = rparen + 1;
    let mut depth = 0usize;
    for i in rparen + 1..open {
        match t(i) {
            "(" | "[" => depth += 1,
            ")" | "]" => depth = depth.checked_sub(1)?,
            ";" if depth == 0 => {
                declaration(src, toks, start, i, &ids, &mut declared)?;
                start = i + 1;
            }
            _ => {}
        }
    }
    if start != open {
        return None;
    }
    let parameters: Vec<String> = ids
        .iter()
        .map(|id| {
            declared
                .iter()
                .find(|(name, _)| name == id)
                .map_or_else(|| format!("int {id}"), |(_, p)| p.clone())
        })
        .collect();
    let old = &src[toks[lparen].end..toks[rparen].start];
    let breaks = "\n".repeat(old.matches('\n').count());
    Some(KnrHeader {
        name,
        lparen,
        rparen,
        parameters: format!("{}{breaks}", parameters.join(", ")),
    })
}

/// One declaration `toks[from..semi]`: each declarator with the specifiers, as
/// `(parameter name, "spec declarator")`. `None` if a declarator names no parameter.
fn declaration(
    src: &str,
    toks: &[Token],
    from: usize,
    semi: usize,
    ids: &[&str],
    out: &mut Vec<(String, String)>,
) -> Option<()> {
    let t = |i: usize| &src[toks[i].start..toks[i].end];
    if from >= semi {
        return None;
    }
    // Declarators, split at commas outside parentheses and brackets.
    let mut parts = Vec::new();
    let (mut begin, mut depth) = (from, 0usize);
    for i in from..semi {
        match t(i) {
            "(" | "[" => depth += 1,
            ")" | "]" => depth = depth.saturating_sub(1),
            "," if depth == 0 => {
                parts.push((begin, i));
                begin = i + 1;
            }
            _ => {}
        }
    }
    parts.push((begin, semi));
    // The specifiers end where the first declarator begins: at `*`, `(`, or the parameter's
    // name, whichever comes first.
    let (first_begin, first_end) = parts[0];
    let spec_end =
        (first_begin..first_end).find(|&i| matches!(t(i), "*" | "(") || ids.contains(&t(i)))?;
    if spec_end == from {
        return None;
    }
    let spec = src[toks[from].start..toks[spec_end - 1].end].to_string();
    parts[0].0 = spec_end;
    for (b, e) in parts {
        if b >= e {
            return None;
        }
        let name = (b..e).map(t).find(|w| ids.contains(w))?;
        let declarator = src[toks[b].start..toks[e - 1].end].replace('\n', " ");
        out.push((
            name.to_string(),
            format!("{} {declarator}", spec.replace('\n', " ")),
        ));
    }
    Some(())
}

/// `src` with GNU attributes and the upper ends of case ranges blanked (see the module
/// documentation); line breaks and byte offsets unchanged.
pub(crate) fn blank_for_parser(src: &str) -> String {
    let toks = tokens(src);
    let t = |i: usize| &src[toks[i].start..toks[i].end];
    let mut bytes = src.as_bytes().to_vec();
    let mut blank = |from: usize, to: usize| {
        if src[from..to].is_ascii() {
            for b in &mut bytes[from..to] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
    };
    let mut i = 0;
    while i < toks.len() {
        match t(i) {
            "__attribute__" | "__attribute" if i + 1 < toks.len() && t(i + 1) == "(" => {
                // The balanced parentheses after the keyword.
                let mut depth = 0usize;
                let mut j = i + 1;
                while j < toks.len() {
                    match t(j) {
                        "(" => depth += 1,
                        ")" => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j < toks.len() {
                    blank(toks[i].start, toks[j].end);
                    i = j;
                }
            }
            "case" => {
                // `case LOW ... HIGH:`: the three dots are three `.` tokens.
                let mut j = i + 1;
                let mut depth = 0usize;
                while j < toks.len() && !(depth == 0 && t(j) == ":") {
                    match t(j) {
                        "(" | "[" => depth += 1,
                        ")" | "]" => depth = depth.saturating_sub(1),
                        ";" | "{" | "}" => break,
                        _ => {}
                    }
                    if depth == 0
                        && j + 2 < toks.len()
                        && t(j) == "."
                        && t(j + 1) == "."
                        && t(j + 2) == "."
                        && toks[j + 2].start == toks[j].start + 2
                    {
                        let mut end = j + 3;
                        while end < toks.len() && t(end) != ":" && t(end) != ";" {
                            end += 1;
                        }
                        if end < toks.len() && t(end) == ":" {
                            blank(toks[j].start, toks[end].start);
                        }
                        break;
                    }
                    j += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    String::from_utf8(bytes).unwrap_or_else(|_| src.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(src: &str) -> String {
        apply(src, &find_edits(src))
    }

    #[test]
    fn knr_definitions_become_prototypes_with_their_lines_kept() {
        let src = "int f(a, b)\n    int a;\n    char *b;\n{\n    return a;\n}\n";
        let out = rewritten(src);
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.starts_with("int f(int a, char *b)\n"), "{out}");
        assert_eq!(out.lines().nth(3), Some("{"));
        // Undeclared parameters are int; several declarators share the specifiers.
        let out = rewritten("long g(x, y, z) unsigned long x, *y; { return 0; }\n");
        assert!(
            out.starts_with("long g(unsigned long x, unsigned long *y, int z)"),
            "{out}"
        );
        let out = rewritten("void h(cmp) int (*cmp)(); { }\n");
        assert!(out.starts_with("void h(int (*cmp)())"), "{out}");
    }

    #[test]
    fn implicit_int_gets_its_int() {
        assert_eq!(
            rewritten("main() { return 0; }\n"),
            "int main() { return 0; }\n"
        );
        let out = rewritten("static f(x) int x; { return x; }\nint y;\n");
        assert!(out.starts_with("static int f(int x)"), "{out}");
        let out = rewritten("struct s { int a; };\ng() { }\n");
        assert!(out.contains("\nint g() { }"), "{out}");
    }

    #[test]
    fn attributes_and_case_ranges_are_blanked_for_the_parser_only() {
        let src = "int main(void) { int u __attribute__((unused)) = 0;\n switch (u) { case 1 ... 3: break; case 'a': ; } }\n";
        let out = blank_for_parser(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(out.contains("int u                         = 0;"), "{out}");
        assert!(out.contains("case 1      : break; case 'a':"), "{out}");
    }

    #[test]
    fn modern_code_is_left_alone() {
        for src in [
            "int f(int a) { return a; }\n",
            "typedef int t;\nint f(t) { return 0; }\n",
            "struct s { int a; } v;\nint main(void) { if (v.a) { } return 0; }\n",
            "static inline unsigned long g(void) { return 1; }\n",
            "int (*pick(int k))(void) { return 0; }\n",
            "void k(void) __attribute__((noinline));\nvoid k(void) { }\n",
        ] {
            assert_eq!(rewritten(src), src);
        }
    }
}
