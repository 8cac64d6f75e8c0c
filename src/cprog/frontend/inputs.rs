//! Shared inputs for the per-execution check ([`FrontEndConfig::share_inputs`]): the places
//! where a version reads a value CBMC would choose, each turned into a read of a named
//! input stream that the product program shares among the four versions.
//!
//! Key items: [`input_edits`] → [`InputEdits`] (the edits, the definitions appended to each
//! unit and the input keys), [`INPUT_HOOK`] (the prefix of a stream's reader).
//!
//! The sources and their keys (the correspondence is a tape per source, Godlin and
//! Strichman's regression verification keyed by call order rather than by arguments: the
//! k-th read of a source gives the same bytes in every version, whatever the version reads
//! from other sources before it):
//!
//! * an uninitialised local variable or array (not `static`, `extern` or `register`, not a
//!   pointer): filled right after its declaration, key [`local_key`]; the
//!   harness's buffers and the generated entry harness's arguments are such locals;
//! * a function the program declares outside the system headers and defines nowhere, with
//!   a non-pointer, non-`void` result: given a body that returns the next value of key
//!   `ret_<function>` (CBMC's body-less functions change nothing through their pointer
//!   arguments, so the result is all they give).
//!
//! * a call of `sscanf`, `sprintf` or `snprintf` (when the program defines none of its
//!   own): a call of a reader of its own ([`LibraryCall`]) that gives what CBMC's model
//!   makes up afresh in each version (so that one version beside a copy of itself already
//!   went different ways) from shared streams instead: `sscanf`'s result (`lib_sscanf`)
//!   and the objects its first result pointers point into (`lib_sscanf_bytes`),
//!   `sprintf`'s result (`lib_sprintf`; CBMC's model writes nothing), `snprintf`'s result
//!   and the bytes it writes (`lib_snprintf`, `lib_snprintf_bytes`).
//!
//! What the C library gives (`getchar`, `fgets`, `read`, `malloc`, ...) is wrapped by the
//! product rewriting ([`crate::cprog::product`]), which knows the version's tag.

use std::collections::{BTreeSet, HashSet};
use std::fmt::Write as _;

use tree_sitter::Node;

use super::assigned::{assigned_first, has_goto};
use super::index::{Index, Unit};
use crate::cprog::edit::{Edit, Side};
use crate::cprog::preprocess::FileOrigin;
use crate::cprog::syntax::{function_declarator, named_children, text};

/// The prefix of an input stream's reader: `__mergelens_input_<key>(void *p, unsigned long
/// n)` fills `p` with the next `n` bytes of the stream `key`.
pub(crate) const INPUT_HOOK: &str = "__mergelens_input_";

/// What sharing the inputs adds to each unit.
#[derive(Default)]
pub(super) struct InputEdits {
    pub edits: Vec<Vec<Edit>>,
    /// Definitions appended to each unit.
    pub tails: Vec<String>,
    /// The keys each unit reads, whose readers it must declare.
    pub keys: Vec<BTreeSet<String>>,
    /// The body-less functions given a body.
    pub functions: Vec<String>,
    /// Per unit, the readers of its calls of the C library, which it defines.
    pub library: Vec<BTreeSet<LibraryCall>>,
}

impl InputEdits {
    /// The declarations of unit `u`'s readers.
    pub(super) fn declarations(&self, u: usize) -> String {
        let mut out = String::new();
        for key in &self.keys[u] {
            let _ = writeln!(out, "void {INPUT_HOOK}{key}(void *, unsigned long);");
        }
        for call in &self.library[u] {
            let _ = writeln!(out, "{};", call.prototype());
        }
        out
    }
}

/// The edits that make every unit's inputs reads of shared streams.
pub(super) fn input_edits(units: &[Unit], index: &Index) -> InputEdits {
    let mut out = InputEdits {
        edits: vec![Vec::new(); units.len()],
        tails: vec![String::new(); units.len()],
        keys: vec![BTreeSet::new(); units.len()],
        functions: Vec::new(),
        library: vec![BTreeSet::new(); units.len()],
    };
    for def in index.defs.iter().filter(|d| d.origin != FileOrigin::System) {
        let src = units[def.unit].src();
        // A `goto` may jump into a local's scope past the assignment that overwrites it.
        let gotos = has_goto(def.body);
        let mut stack = vec![def.body];
        while let Some(node) = stack.pop() {
            if node.kind() == "declaration"
                && node
                    .parent()
                    .is_some_and(|p| p.kind() == "compound_statement")
            {
                fill_locals(node, src, (&def.name, gotos), def.unit, &mut out);
            }
            if let Some(call) = LibraryCall::of(node, src, index) {
                let callee = node
                    .child_by_field_name("function")
                    .expect("a call's function");
                out.edits[def.unit].push(Edit::replace(
                    callee.start_byte(),
                    callee.end_byte(),
                    call.reader(),
                    0,
                ));
                out.library[def.unit].insert(call);
            }
            stack.extend(named_children(node));
        }
    }
    for u in 0..units.len() {
        for call in &out.library[u] {
            out.tails[u].push_str(&call.definition());
            out.keys[u].extend(call.keys().map(str::to_string));
        }
    }
    let mut given: HashSet<String> = HashSet::new();
    for (u, unit) in units.iter().enumerate() {
        let src = unit.src();
        for top in named_children(unit.tree.root_node()) {
            if top.kind() != "declaration" || unit.locate_item(top).2 == FileOrigin::System {
                continue;
            }
            if let Some((name, definition)) = reader_body(top, src, index)
                && given.insert(name.clone())
            {
                out.tails[u].push_str(&definition);
                out.keys[u].insert(format!("ret_{name}"));
                out.functions.push(name);
            }
        }
    }
    out
}

/// A call of the C library whose model makes up its results afresh in each version, and
/// the reader that stands for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LibraryCall {
    /// `sscanf` with this many result pointers after the format.
    Scan(usize),
    Print,
    PrintN,
}

impl LibraryCall {
    /// The call `node` is, when it calls one of these functions and the program defines
    /// none of that name.
    fn of(node: Node, src: &str, index: &Index) -> Option<LibraryCall> {
        if node.kind() != "call_expression" {
            return None;
        }
        let callee = node.child_by_field_name("function")?;
        let name = text(callee, src);
        if callee.kind() != "identifier" || index.is_defined(name) {
            return None;
        }
        let arguments = named_children(node.child_by_field_name("arguments")?)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .count();
        match name {
            "sscanf" => arguments.checked_sub(2).map(LibraryCall::Scan),
            "sprintf" => Some(LibraryCall::Print),
            "snprintf" => Some(LibraryCall::PrintN),
            _ => None,
        }
    }

    /// The reader's name.
    fn reader(self) -> String {
        match self {
            LibraryCall::Scan(pointers) => format!("__mergelens_sscanf_{pointers}"),
            LibraryCall::Print => "__mergelens_sprintf".to_string(),
            LibraryCall::PrintN => "__mergelens_snprintf".to_string(),
        }
    }

    /// The reader's prototype, without the semicolon.
    fn prototype(self) -> String {
        let name = self.reader();
        match self {
            LibraryCall::Scan(pointers) => {
                let params: String = (0..pointers)
                    .map(|i| format!(", void *__ml_p{i}"))
                    .collect();
                format!("static int {name}(const char *__ml_s, const char *__ml_f{params})")
            }
            LibraryCall::Print => {
                format!("static int {name}(char *__ml_s, const char *__ml_f, ...)")
            }
            LibraryCall::PrintN => format!(
                "static int {name}(char *__ml_s, unsigned long __ml_n, const char *__ml_f, ...)"
            ),
        }
    }

    /// The input streams it reads: its result's, then its bytes'.
    fn keys(self) -> impl Iterator<Item = &'static str> {
        let keys: &[&'static str] = match self {
            LibraryCall::Scan(_) => &["lib_sscanf", "lib_sscanf_bytes"],
            LibraryCall::Print => &["lib_sprintf"],
            LibraryCall::PrintN => &["lib_snprintf", "lib_snprintf_bytes"],
        };
        keys.iter().copied()
    }

    /// The reader's definition: the result from the first stream; `sscanf`'s fills the
    /// object each of its first (result) pointers points into, from the pointer on, and
    /// `snprintf`'s the `n` bytes it may write, from the second, as CBMC's models fill
    /// them with values they choose.
    fn definition(self) -> String {
        let body = match self {
            LibraryCall::Scan(pointers) => {
                let mut body = format!(" __CPROVER_assume(__ml_r >= -1 && __ml_r <= {pointers});");
                for i in 0..pointers {
                    let _ = write!(
                        body,
                        " if (__ml_r > {i}) {INPUT_HOOK}lib_sscanf_bytes(__ml_p{i}, __CPROVER_OBJECT_SIZE(__ml_p{i}) - __CPROVER_POINTER_OFFSET(__ml_p{i}));"
                    );
                }
                body
            }
            LibraryCall::Print => String::new(),
            LibraryCall::PrintN => {
                format!(" if (__ml_n > 0ul) {INPUT_HOOK}lib_snprintf_bytes(__ml_s, __ml_n);")
            }
        };
        let result = self.keys().next().expect("a result stream");
        format!(
            "\n{} {{ int __ml_r; {INPUT_HOOK}{result}(&__ml_r, sizeof(__ml_r));{body} return __ml_r; }}\n",
            self.prototype()
        )
    }
}

/// The key of local `variable` of `function`: `local_<length of function>_<function>_<variable>`,
/// so that [`crate::cprog::product::input_label`] can tell the two apart.
pub(crate) fn local_key(function: &str, variable: &str) -> String {
    format!("local_{}_{function}_{variable}", function.len())
}

/// Fills each variable `declaration` declares without an initialiser, but for those the
/// function overwrites before it could read them ([`overwritten`]): their values are no
/// input. `function` is the function's name and whether its body holds a `goto`.
fn fill_locals(
    declaration: Node,
    src: &str,
    (function, gotos): (&str, bool),
    unit: usize,
    out: &mut InputEdits,
) {
    let storage = named_children(declaration)
        .into_iter()
        .filter(|c| c.kind() == "storage_class_specifier")
        .any(|c| matches!(text(c, src), "static" | "extern" | "register"));
    if storage {
        return;
    }
    let mut fills = String::new();
    let mut cursor = declaration.walk();
    for declarator in declaration.children_by_field_name("declarator", &mut cursor) {
        let Some(name) = filled_name(declarator, src) else {
            continue;
        };
        if !gotos && overwritten(declaration, name, src) {
            continue;
        }
        let key = local_key(function, name);
        let _ = write!(fills, " {INPUT_HOOK}{key}(&{name}, sizeof({name}));");
        out.keys[unit].insert(key);
    }
    if !fills.is_empty() {
        out.edits[unit].push(Edit::insert(declaration.end_byte(), fills, Side::Close, 0));
    }
}

/// Whether local `name` of `declaration` is surely assigned before anything could read it
/// ([`assigned_first`] over the statements after the declaration in its block), the
/// declaration naming it only once (not `int x, y = x;`) and not in a `switch` body (whose
/// `case`s jump past it).
fn overwritten(declaration: Node, name: &str, src: &str) -> bool {
    let mut mentions = 0;
    let mut stack = vec![declaration];
    while let Some(n) = stack.pop() {
        mentions += usize::from(n.kind() == "identifier" && text(n, src) == name);
        stack.extend(named_children(n));
    }
    let in_switch = declaration
        .parent()
        .and_then(|block| block.parent())
        .is_some_and(|p| p.kind() == "switch_statement");
    let after = std::iter::successors(declaration.next_named_sibling(), |s| s.next_named_sibling());
    mentions == 1 && !in_switch && assigned_first(after, name, src, false)
}

/// The variable an uninitialised declarator declares, when a fill makes sense: a scalar,
/// an array or an aggregate (pointers are assigned before use; their bytes are no input).
fn filled_name<'s>(declarator: Node, src: &'s str) -> Option<&'s str> {
    let mut node = declarator;
    loop {
        match node.kind() {
            "identifier" => return Some(text(node, src)),
            "array_declarator" => node = node.child_by_field_name("declarator")?,
            "attributed_declarator" => node = node.named_child(0)?,
            _ => return None,
        }
    }
}

/// For a top-level declaration of a function no unit defines (not a `nondet_` function,
/// which reads the product's tape, nor one of CBMC's or mergelens's own): its name and a
/// definition returning the next value of its stream.
fn reader_body(declaration: Node, src: &str, index: &Index) -> Option<(String, String)> {
    let declarator = declaration.child_by_field_name("declarator")?;
    if declarator.kind() != "function_declarator" {
        return None; // a pointer result (or a pointer to a function): not shared
    }
    let (fdecl, ident) = function_declarator(declarator)?;
    let name = text(ident, src);
    if index.is_defined(name) || reserved(name) {
        return None;
    }
    let result = text(declaration.child_by_field_name("type")?, src);
    if result == "void" {
        return None;
    }
    let mut parameters = Vec::new();
    for (i, p) in named_children(fdecl.child_by_field_name("parameters")?)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .enumerate()
    {
        parameters.push(parameter(p, src, i)?);
    }
    let key = format!("ret_{name}");
    let definition = format!(
        "\n{result} {name}({}) {{ {result} __ml_v; {INPUT_HOOK}{key}(&__ml_v, sizeof(__ml_v)); return __ml_v; }}\n",
        parameters.join(", ")
    );
    Some((name.to_string(), definition))
}

/// A parameter of a generated definition: named as declared, or `__ml_p<i>`.
fn parameter(p: Node, src: &str, i: usize) -> Option<String> {
    let whole = text(p, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match p.kind() {
        "variadic_parameter" => Some("...".to_string()),
        "parameter_declaration" => match p.child_by_field_name("declarator") {
            None if whole == "void" => Some(whole),
            None => Some(format!("{whole} __ml_p{i}")),
            Some(d) if d.kind() == "abstract_pointer_declarator" => {
                Some(format!("{whole} __ml_p{i}"))
            }
            Some(d) if d.kind().starts_with("abstract_") => None,
            Some(_) => Some(whole),
        },
        _ => None,
    }
}

/// Functions whose calls are not the program's inputs, or are inputs shared otherwise.
fn reserved(name: &str) -> bool {
    let nondet = name.strip_prefix("__VERIFIER_").unwrap_or(name);
    name.starts_with("__")
        || nondet.starts_with("nondet_")
        || matches!(name, "rand" | "random" | "main")
}
