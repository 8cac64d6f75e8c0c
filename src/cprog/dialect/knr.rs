//! Pre-C99 function definitions rewritten to prototype form (see the module documentation
//! of [`super`]).

use super::tokens::{Token, is_identifier, tokens};
use crate::cprog::preprocess::Preprocessed;

/// Keywords that cannot name a parameter in an identifier list.
const KEYWORDS: [&str; 16] = [
    "void", "int", "char", "short", "long", "float", "double", "signed", "unsigned", "struct",
    "union", "enum", "const", "volatile", "_Bool", "register",
];

/// What may stand before the name of an implicit-`int` definition.
const STORAGE: [&str; 5] = ["static", "extern", "inline", "__inline", "__inline__"];

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
