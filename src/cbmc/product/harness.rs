//! The C harness of one run of the product program: [`Layout`] (what every run shares),
//! [`Goal`] (what it asks CBMC for) and [`harness`].

use std::collections::HashSet;
use std::fmt::Write as _;

use super::log::{
    Item, MAX_SITE, SITE_SHIFT, counter, global_values, len, log, read_count, read_values, result,
    seen,
};
use crate::cprog::product::{
    ARGUMENT_READER, INPUT_BYTES, ProductVersion, input_reader, product_names,
};

/// How many values each version may read from the input tape (one more read is out of the
/// bounds).
pub const TAPE_LENGTH: usize = 32;
/// How many scalar arguments the entry may take.
pub(super) const MAX_ARGUMENTS: usize = 8;
pub(super) const PROPERTY: &str = "mergelens execution";
/// Where a replay harness pins the input values.
pub(super) const PINS_HERE: &str = "  /* inputs */\n";

/// The fewest elements an array needs for CBMC to keep it one array: field sensitivity
/// splits arrays of up to 64 elements into one variable each. An input stream's rows are
/// read only at a symbolic index, where a split array costs a choice among all its rows, so
/// a stream is declared at least this large.
const UNSPLIT_ARRAY: usize = 65;

/// How many call sites named and not yet entered a version keeps (calls nested in a call's
/// arguments); deeper, entries log no site.
const SITE_STACK: usize = 8;

/// How many items a version's log holds: an entry and a return per letter and `end`; letters
/// that do not count towards the word bound still take room: twice as much then.
pub(crate) fn log_room(max_word_length: usize, all_count: bool) -> usize {
    if all_count {
        2 * max_word_length + 1
    } else {
        4 * max_word_length + 1
    }
}

/// What every harness of one product program shares: the versions (O, A, B, M, then the
/// self-check's copies), each one's letter codes and call sites, which letters count
/// towards the word bound, the entry's arguments and the input streams.
pub(crate) struct Layout<'a> {
    pub tags: &'a [char],
    pub maps: &'a [Vec<u32>],
    /// Per version, each call site's callee (the version's letter index) and the number the
    /// review gave the site.
    pub sites: &'a [Vec<(u32, u32)>],
    pub counted: &'a [bool],
    pub arguments: usize,
    pub max_word_length: usize,
    pub inputs: &'a [String],
    /// Whether some version's entry returns a result the logs carry (one
    /// [`Item::Result`] after `end`).
    pub results: bool,
    /// How many globals are observed (one [`Item::Result`] each, after the result's), and
    /// per version the observed index of each global its call wrapper hands over (the
    /// count itself for one not observed).
    pub globals: (usize, &'a [Vec<u32>]),
}

impl Layout<'_> {
    /// How many items each version's log holds: its calls' room (see [`log_room`]) and
    /// its result's.
    pub(crate) fn log_room(&self) -> usize {
        self.call_room() + usize::from(self.results) + self.globals.0
    }

    /// C: what is observed of version `t` after it ran, each compared across versions: its
    /// result, then each observed global.
    fn observed(&self, t: char) -> Vec<String> {
        let result = self.results.then(|| result(t));
        let globals = (0..self.globals.0).map(|g| format!("{}[{g}]", global_values(t)));
        result.into_iter().chain(globals).collect()
    }

    /// How many items a version's calls, returns and `end` may take.
    fn call_room(&self) -> usize {
        log_room(self.max_word_length, self.counted.iter().all(|&c| c))
    }
}

/// What one run asks CBMC for.
pub(crate) enum Goal<'a> {
    /// A quadruple of the logs of the first four versions (O, A, B, M) that is none of
    /// `blocked` and is not explained whatever it holds.
    NewQuadruple { blocked: &'a [Vec<Vec<Item>>] },
    /// An input on which O, A, B and M log exactly `logs` (a found quadruple, replayed
    /// unsliced for its input values).
    Replay { logs: &'a [Vec<Item>] },
    /// An input on which a version and its copy (pairs of tags) log differently.
    Divergence(&'a [(char, char)]),
    /// As [`Goal::NewQuadruple`], for CBMC's formula (`--dimacs`) rather than one answer:
    /// each of the four logs is also the value of two free globals, its length
    /// ([`FORMULA_LENGTH`]) and its items packed into one bit-vector ([`FORMULA_LOG`]), so
    /// that a SAT solver can read a quadruple from a model and block it (see `formula`).
    Formula { blocked: &'a [Vec<Vec<Item>>] },
}

/// The prefix of the free global holding version `t`'s log length in a [`Goal::Formula`]
/// harness (`__ml_fl_o`).
pub(super) const FORMULA_LENGTH: &str = "__ml_fl_";
/// The prefix of the free global holding version `t`'s log packed, item `i` at bits `32 i`
/// to `32 i + 31`, zero past the length (`__ml_fp_o`).
pub(super) const FORMULA_LOG: &str = "__ml_fp_";

/// The C harness of one run: the hooks of every version, the shared tape, arguments and
/// input streams, and `main`, which runs the versions the goal needs and asserts that
/// what it asks for does not exist.
pub(crate) fn harness(layout: &Layout, goal: &Goal) -> String {
    let Layout {
        tags,
        maps,
        sites,
        counted,
        arguments,
        max_word_length,
        inputs,
        results: _,
        globals,
    } = *layout;
    let n = layout.log_room();
    let room = (n, layout.call_room());
    let mut c = String::from("/* Generated by mergelens: the product harness of one run. */\n");
    let _ = writeln!(
        c,
        "long long __ml_tape[{TAPE_LENGTH}]; long long __ml_args[{MAX_ARGUMENTS}];\nlong long __ml_nondet(void);\nstatic void __ml_copy(void *d, const void *s, unsigned long n) {{ if (n > 0ul) {{ unsigned char t[n]; __CPROVER_array_copy(t, (const unsigned char *)s); __CPROVER_array_replace((unsigned char *)d, t); }} }}\nstruct __ml_row {{ unsigned char b[{INPUT_BYTES}]; }};"
    );
    let _ = writeln!(
        c,
        "long long {ARGUMENT_READER}(unsigned int i) {{ return __ml_args[i]; }}"
    );
    for key in inputs {
        let _ = writeln!(c, "struct __ml_row *__ml_in_{key};");
    }
    let marked = marked_callees(maps, sites);
    // Only the versions the goal runs get hooks: the others are not in its binary.
    let runs: Vec<char> = match goal {
        Goal::NewQuadruple { .. } | Goal::Replay { .. } | Goal::Formula { .. } => {
            tags.iter().take(4).copied().collect()
        }
        Goal::Divergence(pairs) => pairs.iter().flat_map(|&(x, y)| [x, y]).collect(),
    };
    for (v, &t) in tags.iter().enumerate() {
        if !runs.contains(&t) {
            continue;
        }
        let map = maps.get(v).map(Vec::as_slice).unwrap_or_default();
        let version_sites = sites.get(v).map(Vec::as_slice).unwrap_or_default();
        site_hooks(&mut c, t, version_sites, map, &marked);
        version_hooks(&mut c, t, map, counted, max_word_length, room);
        let global_map = globals.1.get(v).map(Vec::as_slice).unwrap_or_default();
        global_hooks(&mut c, t, global_map, globals.0);
        for key in inputs {
            let count = read_count(t, key);
            let values = read_values(t, key);
            // The k-th read copies row k, taken as one value first: `memcpy` from inside
            // the whole stream is CBMC's `array_copy` at a symbolic offset, which
            // bit-blasts every byte of the stream for every byte copied (on cJSON's
            // product, 96% of a 9.7-million-clause formula). A read of a scalar's size is
            // recorded as the signed number it holds. The copy is CBMC's `memcpy` model
            // written out, so that CBMC need not load its C library for the harness (a
            // tenth of a small product's run).
            let _ = writeln!(
                c,
                "unsigned int {count}; long long {values}[{TAPE_LENGTH}]; void {}(void *p, unsigned long n) {{ __CPROVER_assume({count} < {TAPE_LENGTH}u); if (n > {INPUT_BYTES}ul) n = {INPUT_BYTES}ul; {{ struct __ml_row __ml_r = __ml_in_{key}[{count}]; __ml_copy(p, &__ml_r, n); }} \
if (n == 1ul) {values}[{count}] = *(signed char *)p; else if (n == 2ul) {values}[{count}] = *(short *)p; else if (n == 4ul) {values}[{count}] = *(int *)p; else if (n == 8ul) {values}[{count}] = *(long long *)p; {count}++; }}",
                input_reader(t, key)
            );
        }
    }
    let quadruple = &tags[..tags.len().min(4)];
    if let Goal::Formula { .. } = goal {
        formula_globals(&mut c, quadruple, n);
    }
    c.push_str("int main(void) {\n");
    for i in 0..TAPE_LENGTH {
        let _ = writeln!(c, "  __ml_tape[{i}] = __ml_nondet();");
    }
    for i in 0..arguments {
        let _ = writeln!(c, "  __ml_args[{i}] = __ml_nondet();");
    }
    for key in inputs {
        let _ = writeln!(
            c,
            "  struct __ml_row __ml_data_{key}[{}]; __ml_in_{key} = __ml_data_{key};",
            TAPE_LENGTH.max(UNSPLIT_ARRAY)
        );
    }
    c.push_str(PINS_HERE);
    goal_statements(&mut c, goal, quadruple, n, &|t| layout.observed(t));
    // The assertion reads the logs (not `assert(0)` after assumptions): a sliced formula
    // keeps exactly what it depends on.
    let _ = writeln!(
        c,
        "  __CPROVER_assert(!__ml_new, \"{PROPERTY}\");\n  return 0;\n}}"
    );
    c
}

/// `main`'s statements for `goal`, after the inputs: run the versions it needs (then label
/// the quadruple's observations, `observed`'s of each version) and set `__ml_new` to what it
/// asks for.
fn goal_statements(
    c: &mut String,
    goal: &Goal,
    quadruple: &[char],
    n: usize,
    observed: &dyn Fn(char) -> Vec<String>,
) {
    let labels = |c: &mut String| result_labels(c, quadruple, observed);
    match goal {
        Goal::NewQuadruple { blocked } => new_quadruple(c, quadruple, n, blocked, labels),
        Goal::Formula { blocked } => {
            new_quadruple(c, quadruple, n, blocked, labels);
            formula_assumptions(c, quadruple, n);
        }
        Goal::Replay { logs } => {
            for &t in quadruple {
                let _ = writeln!(c, "  {}();", product_names(t).call);
            }
            labels(c);
            let _ = writeln!(c, "  int __ml_new = {};", quadruple_is(quadruple, logs));
        }
        Goal::Divergence(pairs) => {
            c.push_str("  int __ml_new = 0;\n");
            for &(x, y) in *pairs {
                let (x_call, y_call) = (product_names(x).call, product_names(y).call);
                let _ = writeln!(c, "  {x_call}();\n  {y_call}();");
                let differs: String = observed(x)
                    .iter()
                    .zip(observed(y))
                    .map(|(vx, vy)| format!(" || {vx} != {vy}"))
                    .collect();
                let _ = writeln!(c, "  __ml_new = __ml_new || !{}{differs};", same(x, y, n));
            }
        }
    }
}

/// The C type of a [`Goal::Formula`] harness's packed log: 32 bits an item.
fn packed_log(n: usize) -> String {
    format!("unsigned __CPROVER_bitvector[{}]", 32 * n)
}

/// The declarations of a [`Goal::Formula`] harness's free globals: one length and one
/// packed log a version.
fn formula_globals(c: &mut String, quadruple: &[char], n: usize) {
    let packed = packed_log(n);
    for t in quadruple {
        let _ = writeln!(
            c,
            "extern unsigned int {FORMULA_LENGTH}{t}; extern {packed} {FORMULA_LOG}{t};"
        );
    }
}

/// The statements in `main` that make a [`Goal::Formula`] harness's free globals the
/// versions' logs.
fn formula_assumptions(c: &mut String, quadruple: &[char], n: usize) {
    let packed = packed_log(n);
    for t in quadruple {
        let (log, len) = (log(*t), len(*t));
        let _ = write!(c, "  {{ {packed} p = 0;");
        for i in 0..n {
            let shift = 32 * i;
            let _ = write!(
                c,
                " p |= ({packed})({i}u < {len} ? {log}[{i}] : 0u) << {shift};"
            );
        }
        let _ = writeln!(
            c,
            " __CPROVER_assume({FORMULA_LENGTH}{t} == {len} && {FORMULA_LOG}{t} == p); }}"
        );
    }
}

/// The hooks of version `t`: its event, return, end and exit hooks log into its own log,
/// and its tape reader counts its reads.
fn version_hooks(
    c: &mut String,
    t: char,
    map: &[u32],
    counted: &[bool],
    max_word_length: usize,
    (n, calls): (usize, usize),
) {
    let names = product_names(t);
    let codes: Vec<String> = map.iter().map(|i| format!("{}u", i + 3)).collect();
    let counts: Vec<&str> = map
        .iter()
        .map(|&i| {
            if counted.get(i as usize).copied().unwrap_or(true) {
                "1u"
            } else {
                "0u"
            }
        })
        .collect();
    let array = |items: &[String]| {
        if items.is_empty() {
            "0u".to_string()
        } else {
            items.join(", ")
        }
    };
    let counts: Vec<String> = counts.into_iter().map(str::to_string).collect();
    let _ = writeln!(
        c,
        "const unsigned int __ml_count_{t}[{}] = {{ {} }};",
        counts.len().max(1),
        array(&counts)
    );
    let _ = writeln!(
        c,
        "const unsigned int __ml_map_{t}[{}] = {{ {} }};",
        codes.len().max(1),
        array(&codes)
    );
    let (log, len, tc) = (log(t), len(t), counter(t));
    // Unlike the streams, the log is not padded to `UNSPLIT_ARRAY`: split, its elements show
    // in a sliced trace, so a search's find is read from it without a run of its own (as one
    // array, CBMC folds the elements that are constant on the path out of the trace).
    let _ = writeln!(
        c,
        "unsigned int {log}[{n}]; unsigned int {len}; unsigned int __ml_words_{t}; unsigned int {tc};"
    );
    // Calls take the room of calls only: the result's item, if any, follows `end`.
    let push = |c: &mut String, code: &str| {
        let _ = write!(
            c,
            " __CPROVER_assume({len} < {calls}u); {log}[{len}] = {code}; {len}++;"
        );
    };
    // What the entry returned, as the version's call wrapper hands it over.
    let _ = writeln!(
        c,
        "long long {res}; void {}(long long v) {{ {res} = v; }}",
        names.result,
        res = result(t)
    );
    let _ = writeln!(
        c,
        "long long {}(void) {{ __CPROVER_assume({tc} < {TAPE_LENGTH}u); {tc}++; return __ml_tape[{tc} - 1u]; }}",
        names.tape
    );
    // What the version made of each tape value (an `int` read of 2^31 is -2^31).
    let _ = writeln!(
        c,
        "long long {}[{TAPE_LENGTH}]; void {}(long long v) {{ {}[{tc} - 1u] = v; }}",
        seen(t),
        names.seen,
        seen(t)
    );
    let _ = write!(
        c,
        "void {}(unsigned int k) {{ __CPROVER_assume(k < {}u); __CPROVER_assume(__ml_words_{t} + __ml_count_{t}[k] < {max_word_length}u); __ml_words_{t} += __ml_count_{t}[k];",
        names.event,
        map.len()
    );
    let _ = write!(
        c,
        " unsigned int s = __ml_sd_{t}[k]; if (__ml_sp_{t} > 0u && __ml_sp_{t} <= {SITE_STACK}u && __ml_sc_{t}[__ml_ss_{t}[__ml_sp_{t} - 1u]] == k) {{ s = __ml_sk_{t}[__ml_ss_{t}[__ml_sp_{t} - 1u]]; __ml_sp_{t}--; }}"
    );
    push(c, &format!("__ml_map_{t}[k] | (s << {SITE_SHIFT}u)"));
    c.push_str(" }\n");
    let _ = write!(c, "void {}(void) {{", names.ret);
    push(c, "1u");
    c.push_str(" }\n");
    let _ = write!(c, "void {}(void) {{", names.end);
    push(c, "0u");
    c.push_str(" }\n");
    // The product cannot go on with the other versions after one exits: such runs are
    // out of what this check covers (the report says so).
    let _ = write!(c, "void {}(void) {{", names.exit);
    push(c, "2u");
    c.push_str(" __CPROVER_assume(0); }\n");
    let _ = writeln!(c, "void {}(void);", names.call);
}

/// The callees (by their index in the product's letters) that some call site numbers.
fn marked_callees(maps: &[Vec<u32>], sites: &[Vec<(u32, u32)>]) -> HashSet<u32> {
    maps.iter()
        .zip(sites)
        .flat_map(|(map, sites)| {
            sites
                .iter()
                .filter(|&&(_, number)| number != 0)
                .filter_map(|&(callee, _)| map.get(callee as usize).copied())
        })
        .collect()
}

/// The call-site stack of version `t` (see `crate::cprog::CallSite`): its site hook names
/// the site of the next entry; the event hook pops it when the function entered is the
/// site's callee, so a call through a pointer, which names no site, logs none. A site
/// numbered 0 is not pushed at all: its callee is called from one place in every version,
/// so every entry of it logs site 1 (`__ml_sd`), and since the site numbers at a call are
/// constants, CBMC folds both away where no site is numbered.
fn site_hooks(c: &mut String, t: char, sites: &[(u32, u32)], map: &[u32], marked: &HashSet<u32>) {
    let defaults: Vec<&str> = map
        .iter()
        .map(|k| if marked.contains(k) { "0u" } else { "1u" })
        .collect();
    let _ = writeln!(
        c,
        "const unsigned int __ml_sd_{t}[{}] = {{ {} }};",
        defaults.len().max(1),
        if defaults.is_empty() {
            "0u".to_string()
        } else {
            defaults.join(", ")
        }
    );
    // Site 0 is no site: its callee matches no letter.
    let callees: Vec<String> = std::iter::once("4294967295u".to_string())
        .chain(sites.iter().map(|(k, _)| format!("{k}u")))
        .collect();
    let keys: Vec<String> = std::iter::once("0u".to_string())
        .chain(
            sites
                .iter()
                .map(|&(_, s)| format!("{}u", if s > MAX_SITE { 0 } else { s })),
        )
        .collect();
    let _ = writeln!(
        c,
        "const unsigned int __ml_sc_{t}[{}] = {{ {} }}; const unsigned int __ml_sk_{t}[{}] = {{ {} }};",
        callees.len(),
        callees.join(", "),
        keys.len(),
        keys.join(", ")
    );
    let _ = writeln!(
        c,
        "unsigned int __ml_ss_{t}[{SITE_STACK}]; unsigned int __ml_sp_{t}; void {}(unsigned int s) {{ if (s >= {}u) s = 0u; if (__ml_sk_{t}[s] == 0u) return; if (__ml_sp_{t} < {SITE_STACK}u) __ml_ss_{t}[__ml_sp_{t}] = s; __ml_sp_{t}++; }}",
        product_names(t).site,
        callees.len()
    );
}

/// `main`'s part for [`Goal::NewQuadruple`]: run O, A, B and M (then `labels` their
/// results) and set `__ml_new` when their logs are no quadruple of `blocked` and not
/// trivially explained.
fn new_quadruple(
    c: &mut String,
    tags: &[char],
    n: usize,
    blocked: &[Vec<Vec<Item>>],
    labels: impl Fn(&mut String),
) {
    for &t in tags {
        let _ = writeln!(c, "  {}();", product_names(t).call);
    }
    labels(c);
    c.push_str("  int __ml_new = 1;\n");
    if let [o, a, b, m] = tags {
        // Explained whatever the logs hold: one branch changed nothing there and the merge
        // is the other; or both branches did one thing there and the merge does it (equal
        // logs carry equal results, see `result_labels`).
        let _ = writeln!(
            c,
            "  __ml_new = !({} && {}) && !({} && {}) && !({} && {});",
            same(*m, *a, n),
            same(*b, *o, n),
            same(*m, *b, n),
            same(*a, *o, n),
            same(*m, *a, n),
            same(*a, *b, n)
        );
    }
    for logs in blocked {
        let _ = writeln!(c, "  __ml_new = __ml_new && !{};", quadruple_is(tags, logs));
    }
}

/// `main`'s statements that end each log of O, A, B and M (which have run) with its
/// [`Item::Result`]: the index of the first version whose result equals its own.
fn result_labels(c: &mut String, tags: &[char], observed: &dyn Fn(char) -> Vec<String>) {
    let values: Vec<Vec<String>> = tags.iter().map(|&t| observed(t)).collect();
    for (k, &t) in tags.iter().enumerate() {
        for (i, value) in values[k].iter().enumerate() {
            let mut label = format!("{k}u");
            for j in (0..k).rev() {
                label = format!("({value} == {} ? {j}u : {label})", values[j][i]);
            }
            let code = format!("({label} | {}u)", Item::Result(0).code());
            let (log, len) = (log(t), len(t));
            let _ = writeln!(c, "  {log}[{len}] = {code}; {len}++;");
        }
    }
}

/// The global hook of version `t`: its call wrapper hands over what the entry left in its
/// `k`-th global, kept at `map[k]` among the `observed` (past them: not observed).
fn global_hooks(c: &mut String, t: char, map: &[u32], observed: usize) {
    let values = global_values(t);
    let slots: Vec<String> = map.iter().map(|i| format!("{i}u")).collect();
    let _ = writeln!(
        c,
        "long long {values}[{}]; const unsigned int __ml_gm_{t}[{}] = {{ {} }};",
        observed + 1,
        slots.len().max(1),
        if slots.is_empty() {
            "0u".to_string()
        } else {
            slots.join(", ")
        }
    );
    let _ = writeln!(
        c,
        "void {}(unsigned int k, long long v) {{ if (k < {}u) {values}[__ml_gm_{t}[k]] = v; }}",
        product_names(t).global,
        map.len()
    );
}

/// C: the versions `tags` log `logs`.
fn quadruple_is(tags: &[char], logs: &[Vec<Item>]) -> String {
    let clauses: Vec<String> = tags
        .iter()
        .zip(logs)
        .map(|(&t, items)| is_log(t, items))
        .collect();
    format!("({})", clauses.join(" && "))
}

/// C: version `x`'s log equals version `y`'s.
pub(super) fn same(x: char, y: char, n: usize) -> String {
    let mut cond = format!("{} == {}", len(x), len(y));
    for i in 0..n {
        let _ = write!(
            cond,
            " && ({} <= {i}u || {}[{i}] == {}[{i}])",
            len(x),
            log(x),
            log(y)
        );
    }
    format!("({cond})")
}

/// C: version `t`'s log is `items`.
pub(super) fn is_log(t: char, items: &[Item]) -> String {
    let mut cond = format!("{} == {}u", len(t), items.len());
    for (i, item) in items.iter().enumerate() {
        let _ = write!(cond, " && {}[{i}] == {}u", log(t), item.code());
    }
    format!("({cond})")
}

/// The globals every one of O, A, B and M observes (in O's order), and per version the
/// observed index of each of its own (their count for one not observed).
pub(super) fn observed_globals(versions: &[ProductVersion]) -> (Vec<String>, Vec<Vec<u32>>) {
    let quadruple = &versions[..versions.len().min(4)];
    let names: Vec<String> = quadruple
        .first()
        .map(|v| v.globals.clone())
        .unwrap_or_default()
        .into_iter()
        .filter(|g| quadruple.iter().all(|v| v.globals.contains(g)))
        .collect();
    let maps = versions
        .iter()
        .map(|v| {
            v.globals
                .iter()
                .map(|g| names.iter().position(|n| n == g).unwrap_or(names.len()) as u32)
                .collect()
        })
        .collect();
    (names, maps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_end_with_the_labels_of_what_is_observed() {
        let maps = vec![vec![0, 1]; 4];
        let layout = Layout {
            tags: &['o', 'a', 'b', 'm'],
            maps: &maps,
            sites: &[],
            counted: &[true, false],
            arguments: 0,
            max_word_length: 3,
            inputs: &[],
            results: false,
            globals: (0, &[]),
        };
        let h = harness(&layout, &Goal::NewQuadruple { blocked: &[] });
        assert!(!h.contains("__ml_res_m =="));
        // With results, each log ends with its result's label: the first version whose
        // result equals its own, after one more item of room.
        let with_results = Layout {
            results: true,
            ..layout
        };
        let h = harness(&with_results, &Goal::NewQuadruple { blocked: &[] });
        let code = Item::Result(0).code();
        assert!(h.contains(&format!(
            "__ml_log_m[__ml_len_m] = ((__ml_res_m == __ml_res_o ? 0u : (__ml_res_m == __ml_res_a ? 1u : (__ml_res_m == __ml_res_b ? 2u : 3u))) | {code}u); __ml_len_m++;"
        )), "{h}");
        assert!(h.contains(&format!("__ml_log_o[__ml_len_o] = (0u | {code}u);")));
        assert!(h.contains("unsigned int __ml_log_o[14];"), "{h}");
        assert!(h.contains("__CPROVER_assume(__ml_len_o < 13u);"), "{h}");
        let pair = [('o', 'a')];
        let h = harness(&with_results, &Goal::Divergence(&pair));
        assert!(h.contains(" || __ml_res_o != __ml_res_a;"), "{h}");
        // A global observed: its label follows the result's, and the hook keeps what each
        // version's wrapper hands over at the global's observed index.
        let globals = vec![vec![0, 1], vec![1], vec![0], vec![0]];
        let with_global = Layout {
            results: true,
            globals: (1, &globals),
            ..layout
        };
        let h = harness(&with_global, &Goal::NewQuadruple { blocked: &[] });
        assert!(h.contains("unsigned int __ml_log_o[15];"), "{h}");
        assert!(
            h.contains("const unsigned int __ml_gm_o[2] = { 0u, 1u };"),
            "{h}"
        );
        assert!(
            h.contains("long long __ml_gv_a[2]; const unsigned int __ml_gm_a[1] = { 1u };"),
            "{h}"
        );
        assert!(h.contains("void __mlglobal_o(unsigned int k, long long v) { if (k < 2u) __ml_gv_o[__ml_gm_o[k]] = v; }"), "{h}");
        assert!(h.contains(&format!(
            "__ml_log_b[__ml_len_b] = ((__ml_gv_b[0] == __ml_gv_o[0] ? 0u : (__ml_gv_b[0] == __ml_gv_a[0] ? 1u : 2u)) | {code}u);"
        )), "{h}");
        let h = harness(&with_global, &Goal::Divergence(&pair));
        assert!(
            h.contains(" || __ml_res_o != __ml_res_a || __ml_gv_o[0] != __ml_gv_a[0];"),
            "{h}"
        );
    }
}
