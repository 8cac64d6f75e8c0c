//! The globals an entry reads, which its harness makes nondeterministic at entry where
//! that is sound, and the records the harness completes from another unit.
//!
//! Key items: [`read_by`] → [`Global`], [`havoc`], [`foreign_record`].
//!
//! A global is read when the entry or a function of its own unit that it calls directly
//! (transitively) names it; what other units read is out of reach of a harness in this
//! unit (their `static` globals cannot be named from it). Of those, the harness assigns a
//! nondeterministic value only to scalars and to structs and unions without pointers that
//! are neither `const` nor `volatile`: an arbitrary value of such a global is some state
//! a caller could have left. Pointers keep their initial value (a nondeterministic pointer
//! points to no object), and so do function pointers, allocator hooks above all (CBMC calls
//! through a nondeterministic function pointer to nothing, which silently ends every
//! execution), arrays (tables and buffers the program fills before it reads them; making
//! a 200-byte line buffer nondeterministic would only slow every query) and records that
//! hold a pointer.

use std::collections::{BTreeMap, HashSet};

use tree_sitter::Node;

use super::emit::Gen;
use super::types::{Scope, Ty, declarator_name};
use crate::cprog::error::HarnessError;
use crate::cprog::frontend::assigned::{assigned_first, has_goto, mentions};
use crate::cprog::frontend::index::{FnDef, Index};
use crate::cprog::preprocess::FileOrigin;
use crate::cprog::syntax::{self, flat_text, named_children, text};

/// A file-scope variable of the entry's unit that the entry reads.
pub(super) struct Global<'t> {
    pub(super) name: String,
    pub(super) ty: Ty<'t>,
    pub(super) is_static: bool,
    /// Declared in the entry's own file (not a header a harness file could include).
    pub(super) own_file: bool,
    /// Why the harness leaves it as initialised, when it does.
    pub(super) kept: Option<String>,
}

/// The file-scope variables of `def`'s unit that `def` reads, in the order of their names.
pub(super) fn read_by<'t>(
    def: &FnDef<'t>,
    scope: &Scope<'t>,
    index: &Index<'t>,
) -> Vec<Global<'t>> {
    let unit = &scope.units[def.unit];
    let src = unit.src();
    let mut all: BTreeMap<String, Global<'t>> = BTreeMap::new();
    for top in named_children(unit.tree.root_node()) {
        if top.kind() != "declaration" || unit.locate_item(top).2 == FileOrigin::System {
            continue;
        }
        let words: Vec<&str> = named_children(top)
            .into_iter()
            .filter(|c| matches!(c.kind(), "storage_class_specifier" | "type_qualifier"))
            .map(|c| text(c, src))
            .collect();
        let variables = syntax::declared_variables(top, src);
        let Some(ty_node) = top.child_by_field_name("type") else {
            continue;
        };
        let mut cursor = top.walk();
        for d in top.children_by_field_name("declarator", &mut cursor) {
            let Some(name) = declarator_name(d).map(|n| text(n, src)) else {
                continue;
            };
            if !variables.contains(&name) {
                continue;
            }
            let ty = scope.resolve(ty_node, Some(d), def.unit);
            let kept = kept(scope, &ty, &words).or_else(|| {
                overwritten(def, name, scope)
                    .then(|| "the entry assigns it before it reads it".into())
            });
            let own_file = unit.locate_item(top).0 == def.file;
            let global = all.entry(name.to_string()).or_insert(Global {
                name: name.to_string(),
                ty,
                is_static: false,
                own_file,
                kept,
            });
            global.is_static |= words.contains(&"static");
        }
    }
    let read = names_read(def, index, &all, src);
    all.into_values()
        .filter(|g| read.contains(&g.name))
        .collect()
}

/// Whether the entry surely overwrites global `name` before anything could read it
/// ([`assigned_first`] over its body's statements, a call or a `return` first counting as a
/// read): its value at entry is no input, and what the entry leaves in it does not depend
/// on it. A global some file-scope initialiser names (`int *gp = &g;`) may be read through
/// a pointer before the entry names it: never overwritten first.
fn overwritten(def: &FnDef, name: &str, scope: &Scope) -> bool {
    let src = scope.units[def.unit].src();
    let aliased = scope.units.iter().any(|unit| {
        named_children(unit.tree.root_node())
            .into_iter()
            .filter(|top| top.kind() == "declaration")
            .flat_map(|top| named_children(top))
            .filter(|d| d.kind() == "init_declarator")
            .filter_map(|d| d.child_by_field_name("value"))
            .any(|value| mentions(value, name, unit.src()))
    });
    !aliased && !has_goto(def.body) && assigned_first(named_children(def.body), name, src, true)
}

/// Why a global of type `ty` declared with `words` keeps its value, if it does.
fn kept<'t>(scope: &Scope<'t>, ty: &Ty<'t>, words: &[&str]) -> Option<String> {
    if words.contains(&"const") {
        return Some("const".into());
    }
    if words.contains(&"volatile") {
        return Some("volatile".into());
    }
    match ty {
        Ty::Pointer(to, _) if matches!(**to, Ty::Function { .. }) => Some(
            "a function pointer (a hook): CBMC would call a nondeterministic one to nothing".into(),
        ),
        Ty::Pointer(..) => Some("a pointer: a nondeterministic one points to no object".into()),
        Ty::Array(_) => Some("an array: a table or buffer the program fills itself".into()),
        Ty::Record { body: None, .. } => Some("of an incomplete type".into()),
        Ty::Record { .. } if scope.holds_pointer(ty, 3) => {
            Some("holds a pointer (a hook or an object of the program's)".into())
        }
        Ty::Function { .. } | Ty::Void => Some("not a variable".into()),
        Ty::Scalar(_) | Ty::Record { .. } => None,
    }
}

/// The names of `globals` that `def` or a function of its unit it calls reads.
fn names_read<T>(
    def: &FnDef,
    index: &Index,
    globals: &BTreeMap<String, T>,
    src: &str,
) -> HashSet<String> {
    let mut read = HashSet::new();
    let mut seen = HashSet::new();
    let mut bodies = vec![def.body];
    seen.insert(def.name.clone());
    while let Some(body) = bodies.pop() {
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            if node.kind() == "identifier" {
                let name = text(node, src);
                if globals.contains_key(name) && !syntax::names_local_variable(node, name, src) {
                    read.insert(name.to_string());
                }
            }
            if node.kind() == "call_expression"
                && let Some(f) = node.child_by_field_name("function")
                && f.kind() == "identifier"
                && let Some(d) = index.resolve(def.unit, text(f, src))
                && index.defs[d].unit == def.unit
                && seen.insert(index.defs[d].name.clone())
            {
                bodies.push(index.defs[d].body);
            }
            stack.extend(named_children(node));
        }
    }
    read
}

/// Assigns the global `name` a nondeterministic value at entry (through a local, which the
/// shared inputs fill like any other).
pub(super) fn havoc(g: &mut Gen, name: &str) {
    let value = g.name(&format!("{name}_value"));
    g.line(&format!(
        "__typeof__({name}) {value}; /* nondeterministic */"
    ));
    g.fill(&value);
    g.line(&format!(
        "{name} = {value}; /* a global {} reads */",
        g.function
    ));
}

/// The definition of a record only another unit has, to complete it in the entry's unit:
/// refused when its fields use a type name the entry's unit does not declare.
pub(super) fn foreign_record(
    def: &FnDef,
    scope: &Scope,
    unit: usize,
    top: Node,
) -> Result<String, HarnessError> {
    let src = scope.src(unit);
    let mut stack = vec![top];
    let mut record = None;
    while let Some(node) = stack.pop() {
        if matches!(node.kind(), "struct_specifier" | "union_specifier")
            && node.child_by_field_name("body").is_some()
        {
            record = Some(node);
            break;
        }
        stack.extend(named_children(node));
    }
    let Some(record) = record else {
        return Ok(String::new());
    };
    let mut stack = vec![record];
    let mut missing = Vec::new();
    while let Some(node) = stack.pop() {
        // A tag (`struct opaque`) is no typedef name.
        let tag = node.parent().is_some_and(|p| {
            matches!(
                p.kind(),
                "struct_specifier" | "union_specifier" | "enum_specifier"
            )
        });
        if node.kind() == "type_identifier" && !tag && !scope.declares_type(text(node, src)) {
            missing.push(text(node, src).to_string());
        }
        stack.extend(named_children(node));
    }
    let spelling = flat_text(record, src);
    let name = spelling
        .split('{')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    if !missing.is_empty() {
        return Err(HarnessError::Incomplete {
            function: def.name.clone(),
            needed_by: "a record it builds".into(),
            ty: name,
            why: format!(
                "only {} defines, with types {} does not declare ({})",
                scope.units[unit].locate_item(top).0,
                def.file,
                missing.join(", ")
            ),
        });
    }
    Ok(format!("{spelling};\n"))
}
