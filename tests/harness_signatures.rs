//! The generated entry harness on real signatures, learned with the real CBMC: a buffer
//! with its length, a struct pointer, a callback, an opaque type completed from another
//! unit or refused, and a global the entry reads. Each language is what the harness's
//! values allow: NULL and non-NULL pointers, lengths up to the buffer's size and no more,
//! both answers of a callback.

use std::collections::BTreeSet;

use crate::common::{Repo, text, three_way};
use serde_json::Value;

const HEADER: &str = "#include <stddef.h>
typedef int (*handler_fn)(const char *key, void *ctx);
typedef struct node { int value; struct node *next; const char *name; } node;
typedef struct opaque opaque_t;
typedef char *(*reader_fn)(char *line, int size, void *stream);
int inspect(opaque_t *o);
";

const LIBRARY: &str = "#include \"lib.h\"
static int mode;
void found(void) {}
void skipped(void) {}
void empty(void) {}
void beyond(void) {}
void none(void) {}
void named(void) {}
void deep(void) {}
void seven(void) {}
int scan(const char *buf, size_t len)
{
    if (len > 4)
        beyond();
    if (len == 0)
        empty();
    else if (len > 2 && buf[2] == 'x')
        found();
    return 0;
}
int sum(const node *list)
{
    if (!list) {
        none();
        return 0;
    }
    if (list->name[0] == 'a')
        named();
    if (list->next && list->next->value > 5)
        deep();
    return list->value;
}
int each(const char *keys, handler_fn cb, void *ctx)
{
    if (cb(keys, ctx))
        found();
    else
        skipped();
    return 0;
}
int use(opaque_t *o)
{
    return inspect(o);
}
int read_one(reader_fn reader, void *stream)
{
    char line[4];
    const char *got = reader(line, 4, stream);
    if (got && got[0] == '[')
        found();
    else if (!got)
        empty();
    return 0;
}
int check(int x)
{
    if (mode == 7 && x == 1)
        seven();
    return 0;
}
";

/// Only `b.c` defines `struct opaque`: `a.c`'s `use` sees it incomplete.
const OTHER_UNIT: &str = "#include \"lib.h\"
struct opaque { int x; };
void big(void) {}
int inspect(opaque_t *o)
{
    if (o && o->x > 1)
        big();
    return 0;
}
";

fn repo() -> Repo {
    let repo = Repo::new();
    repo.write("lib.h", HEADER);
    repo.write("a.c", LIBRARY);
    repo.write("b.c", OTHER_UNIT);
    repo
}

/// The words of at most five letters `files`' `entry` has, learned through the binary.
fn words(repo: &Repo, files: &[&str], entry: &str) -> BTreeSet<String> {
    let mut args = vec!["learn"];
    args.extend_from_slice(files);
    args.extend(["--entry", entry, "-o", "d.json"]);
    let out = repo.mergelens(&args);
    assert!(out.status.success(), "{}", text(&out));
    let out = repo.mergelens(&["automaton", "words", "--max-length", "5", "d.json"]);
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn set(words: &[&str]) -> BTreeSet<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn a_buffer_and_its_length_are_sized_together() {
    let repo = repo();
    // Never `beyond`: the length is at most the buffer's size.
    assert_eq!(
        words(&repo, &["a.c"], "scan"),
        set(&["empty end", "found end", "end"])
    );
}

#[test]
fn a_struct_pointer_is_null_or_a_struct_whose_pointers_are_built_too() {
    let repo = repo();
    assert_eq!(
        words(&repo, &["a.c"], "sum"),
        set(&["none end", "end", "named end", "deep end", "named deep end"])
    );
}

#[test]
fn a_callback_is_a_stub_answering_either_way() {
    let repo = repo();
    assert_eq!(
        words(&repo, &["a.c"], "each"),
        set(&["found end", "skipped end"])
    );
}

#[test]
fn a_reader_callback_returns_a_string_or_null() {
    let repo = repo();
    assert_eq!(
        words(&repo, &["a.c"], "read_one"),
        set(&["found end", "empty end", "end"])
    );
}

#[test]
fn an_opaque_type_is_completed_from_the_unit_that_defines_it() {
    let repo = repo();
    assert_eq!(
        words(&repo, &["a.c", "b.c"], "use"),
        set(&["inspect end", "inspect big end"])
    );
}

#[test]
fn an_opaque_type_no_unit_defines_is_refused_with_the_reason() {
    let repo = repo();
    let out = repo.mergelens(&["learn", "a.c", "--entry", "use", "-o", "d.json"]);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(
        said.contains("no harness for `use`: its parameter `o` needs the type `opaque_t`, which no analysed file defines"),
        "{said}"
    );
}

#[test]
fn a_global_the_entry_reads_is_nondeterministic_at_entry() {
    let repo = repo();
    // `mode` is 0 when the program starts; at `check`'s entry it may be anything.
    assert_eq!(words(&repo, &["a.c"], "check"), set(&["end", "seven end"]));
}

/// A merge whose two branches log on the two arms of a branch on everything the harness
/// chooses (a callback's answer, a NULL choice, a field two objects deep, a string, a
/// length): the four versions must see one world for the merge to compose, and the
/// self-check that they do must hold.
#[test]
fn in_the_per_execution_check_every_choice_of_the_harness_is_shared() {
    let program = |then: &str, otherwise: &str| {
        format!(
            "#include <stddef.h>\ntypedef int (*handler_fn)(const char *key, void *ctx);\ntypedef struct node {{ int value; struct node *next; }} node;\nvoid low(void) {{}}\nvoid high(void) {{}}\nvoid log_low(void) {{}}\nvoid log_high(void) {{}}\nint each(const char *keys, handler_fn cb, const node *list, const char *buf, size_t len)\n{{\n    if (cb(keys, 0) && list && list->next && list->next->value > 3 && keys[0] == 'k' && len > 1 && buf[1] == 'b') {{\n        high();{then}\n    }} else {{\n        low();{otherwise}\n    }}\n    return 0;\n}}\n"
        )
    };
    let repo = three_way(
        &program("", ""),
        &program("\n        log_high();", ""),
        &program("", "\n        log_low();"),
    );
    let out = repo.mergelens(&[
        "review", "main", "feature", "--format", "json", "--entry", "each",
    ]);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    assert_eq!(doc["verdict"], "clean", "{}", text(&out));
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["self_check"]["identical"], true, "{check}");
    assert_eq!(check["complete"], true, "{check}");
}
