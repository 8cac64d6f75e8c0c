//! What goto-cc need not compile: the file-scope definitions no execution of the entry can
//! reach ([`unreachable_items`]), and the edits that blank them out ([`blank_edits`]).
//!
//! Why: every query compiles and loads the whole program, though an entry runs a slice of
//! it. A library's data tables dominate that cost where the entry never reads them:
//! utf8proc's 2.3 MB of Unicode tables took goto-cc 10 s per version and query, so its
//! `utf8proc_errmsg` (a `switch` over string literals) spent its whole share of a review's
//! time budget being read. The same slice the review's identity check uses
//! ([`super::slice`]) says which functions the entry can call; what those functions, the
//! harness and every declaration name (by identifier, transitively) is kept, and the rest
//! of the function and variable definitions, prototypes and types goes: no kept text names
//! them, so no execution reaches them, and the program's behaviour at the entry is
//! unchanged. That a type goes matters to the identity check: a header one branch includes
//! (hiredis's merge of a vendored float parser) adds types every function's slice would
//! otherwise carry, though none of them names one.
//!
//! Conservative by construction: names are matched as tokens whatever their scope (a
//! local that shadows a global keeps the global; a struct's field named as a type keeps
//! the type), and the line structure is kept (line markers and line breaks stay), so every
//! line after a cut keeps its number.

use std::collections::{HashMap, HashSet};

use super::index::{Index, Unit};
use crate::cprog::edit::Edit;
use crate::cprog::syntax::{self, named_children};

/// One file-scope item: its byte range in its unit's text and the names it defines (empty
/// for an item that always stays: a definition the entry can call, an asm or pragma, an
/// anonymous type).
struct Item {
    unit: usize,
    range: (usize, usize),
    defines: Vec<String>,
}

/// The byte ranges, per unit, of the function and variable definitions, prototypes and
/// types that nothing the entry can run names. `callable` are the definitions (indices of
/// `index.defs`) the call
/// graph says the entry can call; `extra` is text added to the program (the harness, the
/// shared inputs' declarations), whose names are kept too.
pub(super) fn unreachable_items(
    units: &[Unit],
    index: &Index,
    callable: &HashSet<usize>,
    extra: &[&str],
) -> Vec<Vec<(usize, usize)>> {
    let may_go: HashMap<(usize, usize), &str> = index
        .defs
        .iter()
        .enumerate()
        .filter(|(d, _)| !callable.contains(d))
        .map(|(_, def)| ((def.unit, def.node.start_byte()), def.name.as_str()))
        .collect();
    let mut items = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        let src = unit.src();
        for top in named_children(unit.tree.root_node()) {
            let range = (top.start_byte(), top.end_byte());
            let defines = match top.kind() {
                // A constructor runs though nothing names it.
                "function_definition" if !runs_by_itself(top, src) => may_go
                    .get(&(u, range.0))
                    .map(|name| vec![name.to_string()])
                    .unwrap_or_default(),
                // A prototype names its function without calling it: it goes with it. A
                // type (and a variable declared with it) goes when nothing kept names the
                // type, its tag or its constants: no execution can depend on it.
                "declaration" => syntax::declared_names(top, src)
                    .into_iter()
                    .map(str::to_string)
                    .chain(type_names(top, src))
                    .collect(),
                "type_definition" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
                    type_names(top, src)
                }
                _ => Vec::new(),
            };
            let range = (range.0, past_semicolon(src, range.1));
            items.push(Item {
                unit: u,
                range,
                defines,
            });
        }
    }
    let kept = kept_items(units, &items, extra);
    let mut cut = vec![Vec::new(); units.len()];
    for (i, item) in items.iter().enumerate() {
        if !kept[i] {
            cut[item.unit].push(item.range);
        }
    }
    cut
}

/// Which items stay: those that define nothing that may go, and, transitively, those
/// defining a name that kept text (or `extra`) mentions.
fn kept_items(units: &[Unit], items: &[Item], extra: &[&str]) -> Vec<bool> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        for name in &item.defines {
            by_name.entry(name.as_str()).or_default().push(i);
        }
    }
    let mut kept = vec![false; items.len()];
    let mut named: HashSet<String> = HashSet::new();
    let mut queue: Vec<String> = Vec::new();
    let mut mention = |text: &str, queue: &mut Vec<String>| {
        for name in identifiers(text) {
            if by_name.contains_key(name) && named.insert(name.to_string()) {
                queue.push(name.to_string());
            }
        }
    };
    for text in extra {
        mention(text, &mut queue);
    }
    for (i, item) in items.iter().enumerate() {
        if item.defines.is_empty() {
            kept[i] = true;
            mention(item_text(units, item), &mut queue);
        }
    }
    while let Some(name) = queue.pop() {
        for &i in by_name.get(name.as_str()).into_iter().flatten() {
            if !std::mem::replace(&mut kept[i], true) {
                mention(item_text(units, &items[i]), &mut queue);
            }
        }
    }
    kept
}

/// An item's text as the compiler gets it: the parser's copy reads some built-ins' type
/// arguments as `(0)` and blanks attributes and static assertions (see
/// [`crate::cprog::dialect`]), which can name types and functions; the two texts have the
/// same length and line breaks.
fn item_text<'u>(units: &'u [Unit], item: &Item) -> &'u str {
    compiled(&units[item.unit], item.range.0, item.range.1)
}

fn compiled(unit: &Unit, start: usize, end: usize) -> &str {
    unit.pre
        .text
        .get(start..end)
        .unwrap_or(&unit.src()[start..end])
}

/// Whether a function definition carries `__attribute__((constructor))` (or `destructor`):
/// it runs without a call.
fn runs_by_itself(definition: tree_sitter::Node, src: &str) -> bool {
    let head = definition
        .child_by_field_name("body")
        .map_or(definition.end_byte(), |b| b.start_byte());
    let head = &src[definition.start_byte()..head];
    head.contains("constructor") || head.contains("destructor")
}

/// The names a type item defines: a typedef's names, the tag of a struct, union or enum
/// it declares or defines, and an enum's constants.
fn type_names(top: tree_sitter::Node, src: &str) -> Vec<String> {
    let mut names = Vec::new();
    if top.kind() == "type_definition" {
        let mut cursor = top.walk();
        for declarator in top.children_by_field_name("declarator", &mut cursor) {
            names.extend(typedef_name(declarator, src));
        }
    }
    let specifier = if top.kind().ends_with("_specifier") {
        Some(top)
    } else {
        top.child_by_field_name("type")
    };
    let Some(specifier) = specifier.filter(|t| {
        matches!(
            t.kind(),
            "struct_specifier" | "union_specifier" | "enum_specifier"
        )
    }) else {
        return names;
    };
    // A tag counts where the item defines it (`struct s { … }`) or declares it alone
    // (`struct s;`), not where a declaration only uses it (`struct s *p;`).
    let body = specifier.child_by_field_name("body");
    let alone = top.child_by_field_name("declarator").is_none();
    if let Some(tag) = specifier.child_by_field_name("name")
        && (body.is_some() || alone)
    {
        names.push(syntax::text(tag, src).to_string());
    }
    if let Some(body) = body
        && body.kind() == "enumerator_list"
    {
        names.extend(
            named_children(body)
                .into_iter()
                .filter_map(|e| e.child_by_field_name("name"))
                .map(|n| syntax::text(n, src).to_string()),
        );
    }
    names
}

/// The name a typedef's declarator declares (`name` in `typedef int (*name)(int);`).
fn typedef_name(declarator: tree_sitter::Node, src: &str) -> Option<String> {
    let mut node = declarator;
    loop {
        if matches!(
            node.kind(),
            "type_identifier" | "identifier" | "primitive_type"
        ) {
            return Some(syntax::text(node, src).to_string());
        }
        node = node.child_by_field_name("declarator").or_else(|| {
            named_children(node)
                .into_iter()
                .find(|c| c.kind().ends_with("declarator") || c.kind() == "type_identifier")
        })?;
    }
}

/// The end of an item extended over the `;` that closes a bare `struct s { … };` (the
/// syntax tree leaves it outside the specifier).
fn past_semicolon(src: &str, end: usize) -> usize {
    let rest = &src[end..];
    let blank = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if rest[blank..].starts_with(';') {
        end + blank + 1
    } else {
        end
    }
}

/// The identifiers of C text, outside string and character literals.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let c = bytes[at];
            if c == b'"' || c == b'\'' {
                at = literal_end(bytes, at);
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let start = at;
                at = word_end(bytes, at);
                return Some(&text[start..at]);
            } else if c.is_ascii_digit() {
                // A number's suffix (`10u`, `0x1F`) is no identifier.
                at = word_end(bytes, at);
            } else {
                at += 1;
            }
        }
        None
    })
}

/// The offset after the letters, digits and underscores from `start`.
fn word_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start;
    while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
        at += 1;
    }
    at
}

/// The offset after the literal opening at `start` (its closing quote, past escapes; the
/// end of the line for an unclosed one).
fn literal_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut at = start + 1;
    while at < bytes.len() && bytes[at] != quote && bytes[at] != b'\n' {
        at += if bytes[at] == b'\\' { 2 } else { 1 };
    }
    (at + 1).min(bytes.len())
}

/// Edits that blank the ranges `cut` of `text` but keep their line markers and line breaks.
pub(super) fn blank_edits(text: &str, cut: &[(usize, usize)]) -> Vec<Edit> {
    let mut edits = Vec::new();
    for &(start, end) in cut {
        let mut from = start;
        let mut line_start = start;
        for line in text[start..end].split_inclusive('\n') {
            let line_end = line_start + line.len();
            if super::slice::is_line_marker(line) {
                if from < line_start {
                    edits.push(Edit::replace(from, line_start, "", 0));
                }
                // The marker's own line break stays; what follows is blanked.
                from = line_end;
            }
            line_start = line_end;
        }
        if from < end {
            edits.push(Edit::replace(from, end, "", 0));
        }
    }
    edits
}

/// Whether the edit belongs inside one of the ranges `cut` (sorted): such an edit goes with
/// the text it edits. An insertion at a range's edge belongs to the neighbour on its side.
pub(super) fn inside(edit: &Edit, cut: &[(usize, usize)]) -> bool {
    use crate::cprog::edit::Side;
    cut.iter().any(|&(start, end)| {
        start <= edit.start
            && edit.end <= end
            && !(edit.start == end && edit.side == Side::Open)
            && !(edit.end == start && edit.side == Side::Close)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cprog::{FrontEndConfig, instrument};

    /// The instrumented text of `source` at `entry`, and the functions it can call.
    fn instrumented(source: &str, entry: &str) -> (String, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.c");
        std::fs::write(&path, source).unwrap();
        let mut config = FrontEndConfig::new(vec![path]);
        config.entry = entry.to_string();
        let out = tempfile::tempdir().unwrap();
        let p = instrument(&config, out.path()).unwrap();
        let text = std::fs::read_to_string(&p.path).unwrap();
        (text, p.callable_functions().unwrap())
    }

    const TABLES: &str = "#include <math.h>\n\
        static const int table[3] = {1, 2, 3};\n\
        const int *row = table;\n\
        int lookup(int i);\n\
        int lookup(int i) { return table[i]; }\n\
        static int twice(int x) { return 2 * x; }\n\
        int (*hook)(int) = twice;\n\
        static int used = 7;\n\
        double limit(double x) { if (x > 1e9) return INFINITY; return x + used; }\n\
        int apply(int x) { return hook(x) + lookup(x); }\n";

    #[test]
    fn what_the_entry_cannot_reach_is_not_compiled_and_lines_stay() {
        let (text, callable) = instrumented(TABLES, "limit");
        // `INFINITY` is a builtin call: no unknown code that could call `twice` back.
        assert_eq!(callable, ["limit"]);
        for gone in [
            "table[3] =",
            "*row",
            "return table[i]",
            "return 2 * x",
            "(*hook)",
        ] {
            assert!(!text.contains(gone), "{gone} stayed:\n{text}");
        }
        assert!(text.contains("static int used = 7;"), "{text}");
        // Line markers and breaks keep `limit` on its line of p.c, line 9.
        assert_eq!(source_line(&text, "double limit("), 9, "{text}");
    }

    /// The line of p.c the text's line holding `needle` comes from, by its line markers.
    fn source_line(text: &str, needle: &str) -> usize {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines.iter().position(|l| l.contains(needle)).unwrap();
        let (marker, line) = (0..at)
            .rev()
            .find_map(|m| {
                let rest = lines[m].strip_prefix("# ")?;
                let (number, file) = rest.split_once(' ')?;
                file.contains("p.c")
                    .then(|| (m, number.parse::<usize>().unwrap()))
            })
            .unwrap();
        line + (at - marker - 1)
    }

    #[test]
    fn a_constructor_stays_though_nothing_names_it() {
        let source = "int ready;\nstatic void __attribute__((constructor)) setup(void) { ready = 1; }\nstatic void unused(void) { ready = 2; }\nint f(void) { return 0; }\n";
        let (text, _) = instrumented(source, "f");
        assert!(text.contains("ready = 1"), "{text}");
        assert!(!text.contains("ready = 2"), "{text}");
    }

    #[test]
    fn what_a_reachable_pointer_call_may_run_stays() {
        let (text, callable) = instrumented(TABLES, "apply");
        assert!(callable.iter().any(|c| c == "twice"), "{callable:?}");
        for kept in ["table[3] =", "return table[i]", "return 2 * x", "(*hook)"] {
            assert!(text.contains(kept), "{kept} went:\n{text}");
        }
        // Nothing reachable names `row` or `limit`.
        assert!(
            !text.contains("*row") && !text.contains("return x + used"),
            "{text}"
        );
    }

    #[test]
    fn a_type_nothing_kept_names_goes_and_what_a_kept_one_names_stays() {
        let source = "typedef struct big { double d[8]; } big_t;\n\
            struct lone { int a; };\n\
            struct fwd;\n\
            enum colour { RED, GREEN }; enum shade { DARK, LIGHT };\n\
            enum { LIMIT = 4 };\n\
            typedef unsigned long word;\n\
            struct node { word w; struct node *next; };\n\
            typedef int (*callback)(big_t *);\n\
            static int ext(int x) { return x; }\n\
            int size(struct node *n) { return ext(n->w < LIMIT ? GREEN : 0); }\n";
        let (text, callable) = instrumented(source, "size");
        assert_eq!(callable, ["ext", "size"]);
        for gone in [
            "struct big",
            "struct lone",
            "struct fwd;",
            "enum shade",
            "(*callback)",
        ] {
            assert!(!text.contains(gone), "{gone} stayed:\n{text}");
        }
        // `size` names `struct node`, `LIMIT` and `GREEN`, the node names `word`.
        for kept in [
            "typedef unsigned long word;",
            "struct node {",
            "LIMIT = 4",
            "RED, GREEN",
        ] {
            assert!(text.contains(kept), "{kept} went:\n{text}");
        }
        assert_eq!(source_line(&text, "int size("), 10, "{text}");
    }

    #[test]
    fn a_type_only_a_builtins_type_argument_names_stays() {
        // The parser's copy reads `__builtin_offsetof(...)` as `(0)`; the compiler's names
        // the struct.
        let source = "struct message { int level; char text[8]; };\n\
            static void emit(void) {}\n\
            unsigned long at(void) { emit(); return __builtin_offsetof(struct message, text); }\n";
        let (text, _) = instrumented(source, "at");
        assert!(text.contains("char text[8];"), "{text}");
    }

    #[test]
    fn identifiers_skip_literals_and_numbers() {
        let names: Vec<&str> = identifiers(r#"f(x, "g \" h", 'y', 10u, 0x1F) + _z9"#).collect();
        assert_eq!(names, vec!["f", "x", "_z9"]);
    }

    #[test]
    fn blanking_keeps_markers_and_line_breaks() {
        let text = "int a;\nint t[] = {\n1,\n# 5 \"t.inc\"\n2 };\nint b;\n";
        let start = text.find("int t").unwrap();
        let end = text.find("};").unwrap() + 2;
        let out = crate::cprog::edit::apply(text, blank_edits(text, &[(start, end)]));
        assert_eq!(out, "int a;\n\n\n# 5 \"t.inc\"\n\nint b;\n");
        assert_eq!(out.lines().count(), text.lines().count());
    }
}
