//! The generated harness's text for the signatures it must handle, in both places it goes:
//! appended to the entry's unit (the review's) and as a file of its own (`init`'s).

use std::path::PathBuf;

use crate::cprog::{FrontEndConfig, FrontEndError, HarnessError, harness_skeleton, instrument};

const HEADER: &str = "#include <stddef.h>
typedef int (*handler_fn)(const char *key, void *ctx);
typedef struct node { int value; struct node *next; const char *name; } node;
typedef struct opaque opaque_t;
struct pair { int a; int b; };
union value { double number; char *text; struct pair *pair; };
struct table { const struct pair *items; int items_len; };
";

const LIBRARY: &str = "#include \"lib.h\"
static int mode;
const int fixed = 2;
int limit = 3;
static void *(*alloc_hook)(size_t) = 0;
static char line[200];
struct counter { int hits; };
void found(void) {}
int each(const char *keys, handler_fn cb, void *ctx) { return cb(keys, ctx); }
int sum(const node *list) { if (list && list->value > mode + fixed) found(); return 0; }
int scan(const char *buf, size_t len) { return len > 2 && buf[2] == 'x'; }
int total(int n, int *a) { return n > 0 && a[0] > limit; }
int use(opaque_t *o) { (void)o; return 0; }
int hits(struct counter *c, void (*done)(int)) { if (c) done(c->hits); return alloc_hook != 0 && line[0]; }
int add(struct pair p, double x, char **out) { (void)out; return p.a + p.b > x; }
int none(void) { return 0; }
int tick(void) { return mode > 2; }
int shadow(const node *list, int node) { return node + (list != 0); }
int pick(union value *v) { return v && v->number > 1.0; }
int level;
int seen;
int *seen_at = &seen;
int reset(int x) { level = x; seen = 0; return level + *seen_at; }
int first(const struct table *t) { return t->items_len > 0 && t->items[0].a > 1; }
int value_of(const node *n, const node *m) { return n->value + (m ? (*m).value : 0); }
";

fn program() -> (tempfile::TempDir, FrontEndConfig) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.h"), HEADER).unwrap();
    let lib: PathBuf = dir.path().join("lib.c");
    std::fs::write(&lib, LIBRARY).unwrap();
    let config = FrontEndConfig::new(vec![lib]);
    (dir, config)
}

/// The harness appended to the entry's instrumented unit, from its line marker on.
fn generated(entry: &str, share: bool) -> Result<String, FrontEndError> {
    let (_dir, mut config) = program();
    config.entry = entry.into();
    config.share_inputs = share;
    let out = tempfile::tempdir().unwrap();
    let p = instrument(&config, out.path())?;
    let text = std::fs::read_to_string(&p.path).unwrap();
    let at = text.find("# 1 \"<mergelens harness").unwrap();
    Ok(text[at..].to_string())
}

/// The harness `init --harness-for` writes, as its parts.
fn skeleton(entry: &str) -> String {
    let (_dir, mut config) = program();
    config.entry = entry.into();
    let out = tempfile::tempdir().unwrap();
    let h = harness_skeleton(&config, out.path()).unwrap();
    format!(
        "{}\n{}\n{}{}\n{}\n-- kept: {:?}",
        h.definitions, h.prototype, h.stubs, h.body, h.call, h.kept
    )
}

#[test]
fn a_pointer_the_entry_only_dereferences_is_not_null_in_every_harness() {
    let assume = |var: &str| {
        format!("__CPROVER_assume({var} == 0); /* value_of dereferences `n` first: not NULL */")
    };
    let text = generated("value_of", false).unwrap();
    assert!(text.contains(&assume("__ml_v_n_is_null")), "{text}");
    // `m` is tested before its use: NULL or an object, as before.
    assert!(!text.contains("`m`"), "{text}");
    // In the product the choice is still a shared input (one world), then assumed.
    let shared = generated("value_of", true).unwrap();
    let fill = shared
        .find("(&__ml_v_n_is_null, sizeof(__ml_v_n_is_null))")
        .expect("filled");
    let assumed = shared.find(&assume("__ml_v_n_is_null")).expect("assumed");
    assert!(fill < assumed, "{shared}");
    let file = skeleton("value_of");
    assert!(file.contains(&assume("n_is_null")), "{file}");
}

#[test]
fn a_pointer_field_beside_its_length_is_a_buffer_the_length_fits() {
    let text = generated("first", true).unwrap();
    assert!(
        text.contains("struct pair __ml_v_t_items_buffer[4]; /* nondeterministic */"),
        "{text}"
    );
    assert!(
        text.contains("__ml_b0.items = __ml_v_t_items_buffer;"),
        "{text}"
    );
    let assume = "__CPROVER_assume(__ml_b0.items_len >= 0 && __ml_b0.items_len <= 4); /* the length of __ml_b0.items */";
    let (built, assumed) = (
        text.find("__ml_b0.items =").unwrap(),
        text.find(assume).expect("assumed"),
    );
    assert!(built < assumed, "{text}");
    let file = skeleton("first");
    assert!(file.contains("t_target.items = t_items_buffer;"), "{file}");
}

#[test]
fn a_string_with_a_callback_and_a_nullable_context() {
    insta::assert_snapshot!(generated("each", false).unwrap());
    insta::assert_snapshot!(skeleton("each"));
}

#[test]
fn a_struct_pointer_is_built_field_by_field_two_levels_deep() {
    insta::assert_snapshot!(generated("sum", false).unwrap());
}

#[test]
fn a_buffer_and_its_length_are_sized_together_either_way_round() {
    let scan = generated("scan", false).unwrap();
    assert!(
        scan.contains("__CPROVER_assume(__ml_a1 >= 0 && __ml_a1 <= 4);"),
        "{scan}"
    );
    assert!(scan.contains("__ml_b0, __ml_a1);"), "{scan}");
    let total = skeleton("total");
    assert!(total.contains("total(n, a_buffer)"), "{total}");
    assert!(total.contains("int a_buffer[4];"), "{total}");
}

#[test]
fn in_the_product_every_value_and_choice_is_a_shared_input() {
    let text = generated("sum", true).unwrap();
    insta::assert_snapshot!(text);
    // Every local the harness declares is filled right after.
    for line in text
        .lines()
        .filter(|l| l.contains("/* nondeterministic */"))
    {
        let declaration = line.split(';').next().unwrap();
        let var = declaration
            .split_whitespace()
            .last()
            .unwrap()
            .split('[')
            .next()
            .unwrap();
        assert!(
            // A string is filled but for its last character, the NUL.
            text.contains(&format!("(&{var}, sizeof({var})")),
            "{var} not filled:\n{text}"
        );
    }
    let each = generated("each", true).unwrap();
    assert!(
        each.contains("(&__ml_result, sizeof(__ml_result));"),
        "{each}"
    );
}

#[test]
fn globals_it_reads_are_nondeterministic_unless_pointers_arrays_or_const() {
    let hits = generated("hits", false).unwrap();
    assert!(!hits.contains("alloc_hook ="), "{hits}");
    assert!(!hits.contains("line ="), "{hits}");
    let sum = generated("sum", false).unwrap();
    assert!(sum.contains("mode = __ml_v_mode_value;"), "{sum}");
    assert!(!sum.contains("fixed ="), "{sum}");
    let s = skeleton("hits");
    assert!(s.contains("alloc_hook: a function pointer"), "{s}");
    assert!(s.contains("line: an array"), "{s}");
    // `mode` is static: a file of its own cannot name it, and says so.
    assert!(skeleton("sum").contains("mode: static in lib.c"));
}

#[test]
fn a_global_the_entry_overwrites_before_reading_is_no_input_unless_an_initialiser_names_it() {
    let reset = generated("reset", true).unwrap();
    assert!(!reset.contains("level ="), "{reset}");
    // `seen_at` points to `seen`: the entry may read `seen` through it first.
    assert!(reset.contains("seen = __ml_v_seen_value;"), "{reset}");
    let s = skeleton("reset");
    assert!(
        s.contains("level: the entry assigns it before it reads it"),
        "{s}"
    );
}

#[test]
fn a_struct_by_value_a_double_and_a_pointer_to_a_pointer() {
    insta::assert_snapshot!(skeleton("add"));
}

#[test]
fn a_parameter_named_as_a_type_does_not_hide_it() {
    let s = skeleton("shadow");
    assert!(s.contains("int node2;"), "{s}");
    assert!(s.contains("node list_target;"), "{s}");
    assert!(s.contains(", node2)"), "{s}");
}

#[test]
fn a_union_holds_one_of_its_pointer_members() {
    insta::assert_snapshot!(skeleton("pick"));
}

#[test]
fn a_struct_only_the_entrys_file_defines_is_repeated_in_a_file_of_its_own() {
    let s = skeleton("hits");
    assert!(s.starts_with("struct counter { int hits; };\n"), "{s}");
    assert!(s.contains("static void stub_done(int p0)"), "{s}");
    assert!(
        generated("hits", false)
            .unwrap()
            .contains("__ml_v_stub_done")
    );
}

#[test]
fn an_opaque_type_is_refused_with_the_reason() {
    match generated("use", false) {
        Err(FrontEndError::Harness(HarnessError::Incomplete { needed_by, ty, .. })) => {
            assert_eq!(needed_by, "its parameter `o`");
            assert_eq!(ty, "opaque_t");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_entry_without_parameters_gets_the_globals_it_reads_at_entry() {
    let tick = generated("tick", false).unwrap();
    assert!(tick.contains("mode = __ml_v_mode_value;"), "{tick}");
    assert!(tick.contains("    tick();\n"), "{tick}");
}

#[test]
fn an_entry_without_parameters_or_globals_gets_no_harness() {
    let (_dir, mut config) = program();
    config.entry = "none".into();
    let out = tempfile::tempdir().unwrap();
    assert_eq!(instrument(&config, out.path()).unwrap().cbmc_entry, "none");
    assert_eq!(skeleton("none"), "\nint none(void);\n\nnone()\n-- kept: []");
}

/// Parameter types the property below combines (`{}` is the parameter's name).
const TYPES: [&str; 14] = [
    "int {}",
    "unsigned {}",
    "double {}",
    "char *{}",
    "const char *{}",
    "void *{}",
    "const node *{}",
    "struct pair {}",
    "handler_fn {}",
    "int (*{})(int)",
    "int *{}",
    "union value *{}",
    "char **{}",
    "int {}[]",
];

/// The arguments of the call `text` begins with, split at its top-level commas.
fn arguments_of(call: &str) -> usize {
    let mut depth = 0;
    let mut count = 1;
    for c in call.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 1 => count += 1,
            _ => {}
        }
    }
    count
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Whatever the signature, the product's harness fills every local it declares from a
    /// shared input, and calls the entry with one argument per parameter.
    #[test]
    fn every_value_of_any_signature_is_a_shared_input(
        picks in proptest::collection::vec((0..TYPES.len(), proptest::bool::ANY), 1..5)
    ) {
        let mut params = Vec::new();
        for (i, &(t, len)) in picks.iter().enumerate() {
            params.push(TYPES[t].replace("{}", &format!("p{i}")));
            if len {
                params.push(format!("size_t len{i}"));
            }
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lib.h"), HEADER).unwrap();
        let lib = dir.path().join("lib.c");
        let definition = format!("int fuzzed({}) {{ return 0; }}\n", params.join(", "));
        std::fs::write(&lib, format!("{LIBRARY}{definition}")).unwrap();
        let mut config = FrontEndConfig::new(vec![lib]);
        config.entry = "fuzzed".into();
        config.share_inputs = true;
        let out = tempfile::tempdir().unwrap();
        let p = instrument(&config, out.path()).unwrap();
        let text = std::fs::read_to_string(&p.path).unwrap();
        let text = &text[text.find("# 1 \"<mergelens harness").unwrap()..];
        for line in text.lines().filter(|l| l.contains("/* nondeterministic */")) {
            let var = line.split(';').next().unwrap().split_whitespace().last().unwrap();
            let var = var.split('[').next().unwrap();
            proptest::prop_assert!(
                text.contains(&format!("(&{var}, sizeof({var})")),
                "{} not filled:\n{}", var, text
            );
        }
        let call = text.lines().find(|l| l.trim_start().starts_with("fuzzed(")).unwrap();
        proptest::prop_assert_eq!(arguments_of(call), params.len(), "{}", call);
    }
}
