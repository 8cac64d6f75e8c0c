//! What the front end knows about the program's functions before it walks them: every
//! parsed file as a [`Unit`], every definition as an [`FnDef`], and the [`Index`] that
//! resolves a call the way the linker would (the unit's own definition first, else an
//! external one) and tells calls from casts and calls through variables. [`find_entry`]
//! picks the entry function and [`address_taken`] the functions used as values, which the
//! control-flow model must assume any pointer call reaches. Apart from the driver because
//! the site walker and the control-flow model (`cfg`) both read the index.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use tree_sitter::{Node, Tree};

use crate::cprog::error::FrontEndError;
use crate::cprog::preprocess::{FileOrigin, Preprocessed};
use crate::cprog::syntax::{self, flat_text, named_children, strip_parens, text};
use crate::stop::Stopped;

/// One preprocessed and parsed input file.
pub(crate) struct Unit {
    pub input: PathBuf,
    pub pre: Preprocessed,
    pub tree: Tree,
}

impl Unit {
    pub(crate) fn src(&self) -> &str {
        &self.pre.parse_text
    }

    /// The file and original line of a node.
    pub(crate) fn locate(&self, node: Node) -> (&str, u32, FileOrigin) {
        let (file, line, origin) = self.pre.origin(node.start_position().row);
        (&self.pre.files[file].name, line, origin)
    }

    /// [`Unit::locate`] for a file-scope item's name or declaration
    /// ([`super::super::preprocess::Preprocessed::item_origin`]).
    pub(crate) fn locate_item(&self, node: Node) -> (&str, u32, FileOrigin) {
        let (file, line, origin) = self.pre.item_origin(node.start_position().row);
        (&self.pre.files[file].name, line, origin)
    }
}

/// A function definition anywhere in the program (system headers included: their inline
/// functions are code too).
pub(crate) struct FnDef<'t> {
    pub unit: usize,
    pub node: Node<'t>,
    pub body: Node<'t>,
    pub name: String,
    pub is_static: bool,
    pub origin: FileOrigin,
    pub file: String,
    pub line: u32,
    /// The original line of the closing brace; `line` when it maps to another file.
    pub end_line: u32,
    pub parameters: Vec<String>,
}

/// Every definition by name, and the names each unit declares as functions.
pub(crate) struct Index<'t> {
    pub defs: Vec<FnDef<'t>>,
    by_name: HashMap<String, Vec<usize>>,
    declared: Vec<HashSet<String>>,
    typedefs: Vec<HashSet<String>>,
    /// The file-scope variables of each unit.
    variables: Vec<HashSet<String>>,
}

impl<'t> Index<'t> {
    /// The definition a call of `name` in `unit` reaches: the unit's own, else an external
    /// one of another unit.
    pub(crate) fn resolve(&self, unit: usize, name: &str) -> Option<usize> {
        let candidates = self.by_name.get(name)?;
        candidates
            .iter()
            .copied()
            .find(|&d| self.defs[d].unit == unit)
            .or_else(|| {
                candidates
                    .iter()
                    .copied()
                    .find(|&d| !self.defs[d].is_static)
            })
    }

    /// Whether a call node is really a cast: tree-sitter, which does not know type names,
    /// reads `(T)(x)` as a call of `T`.
    pub(crate) fn is_cast(&self, unit: usize, call: Node, src: &str) -> bool {
        let Some(function) = call.child_by_field_name("function") else {
            return false;
        };
        let inner = strip_parens(function);
        function.kind() == "parenthesized_expression"
            && inner.kind() == "identifier"
            && self.typedefs[unit].contains(text(inner, src))
    }

    /// Whether a call of the identifier `name` goes through a variable in scope (a local,
    /// a parameter, a file-scope variable of the unit) that hides the function of that
    /// name: a call through a pointer, whatever function `name` also names.
    pub(crate) fn calls_variable(&self, unit: usize, call: Node, name: &str, src: &str) -> bool {
        self.variables[unit].contains(name) || syntax::names_local_variable(call, name, src)
    }

    /// Whether some unit defines a function `name`.
    pub(crate) fn is_defined(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    pub(crate) fn is_declared(&self, unit: usize, name: &str) -> bool {
        self.declared[unit].contains(name) || name.starts_with("__builtin")
    }
}

pub(super) fn build_index(units: &[Unit]) -> Index<'_> {
    let mut defs = Vec::new();
    let mut declared = Vec::new();
    let mut typedefs = Vec::new();
    let mut variables = Vec::new();
    for (u, unit) in units.iter().enumerate() {
        let src = unit.src();
        let mut names = HashSet::new();
        let mut unit_variables = HashSet::new();
        for top in named_children(unit.tree.root_node()) {
            if top.kind() == "declaration" {
                let declares = syntax::declared_variables(top, src);
                unit_variables.extend(declares.into_iter().map(str::to_string));
            }
            if top.kind() != "function_definition" {
                continue;
            }
            let (Some(declarator), Some(body)) = (
                top.child_by_field_name("declarator"),
                top.child_by_field_name("body"),
            ) else {
                continue;
            };
            let Some((fdecl, ident)) = syntax::function_declarator(declarator) else {
                continue;
            };
            let (file, line, origin) = unit.locate_item(ident);
            let (end_file, end_line, _) = unit.pre.origin(body.end_position().row);
            // A body whose brace comes from another file (an include or macro trick) has no
            // end in the function's own file: the definition line is all that is known.
            let same_file = unit.pre.files.get(end_file).is_some_and(|f| f.name == file);
            let end_line = if same_file && end_line >= line {
                end_line
            } else {
                line
            };
            let parameters = fdecl
                .child_by_field_name("parameters")
                .map(|p| {
                    named_children(p)
                        .into_iter()
                        .filter(|c| c.kind() != "comment")
                        .map(|c| flat_text(c, src))
                        .collect()
                })
                .unwrap_or_default();
            let is_static = named_children(top)
                .iter()
                .any(|c| c.kind() == "storage_class_specifier" && text(*c, src) == "static");
            defs.push(FnDef {
                unit: u,
                node: top,
                body,
                name: text(ident, src).to_string(),
                is_static,
                origin,
                file: file.to_string(),
                line,
                end_line,
                parameters,
            });
        }
        let mut types = HashSet::new();
        collect_declared(unit.tree.root_node(), src, &mut names, &mut types);
        declared.push(names);
        typedefs.push(types);
        variables.push(unit_variables);
    }
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (d, def) in defs.iter().enumerate() {
        by_name.entry(def.name.clone()).or_default().push(d);
    }
    Index {
        defs,
        by_name,
        declared,
        typedefs,
        variables,
    }
}

/// Names declared as functions (prototypes and definitions, at any depth): a call of any
/// other name goes through a pointer. And the names `typedef` declares.
fn collect_declared(
    root: Node,
    src: &str,
    names: &mut HashSet<String>,
    types: &mut HashSet<String>,
) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind() == "type_definition" {
            let mut cursor = node.walk();
            for declarator in node.children_by_field_name("declarator", &mut cursor) {
                if let Some(name) = first_type_identifier(declarator) {
                    types.insert(text(name, src).to_string());
                }
            }
        }
        if node.kind() == "function_declarator"
            && let Some((_, ident)) = syntax::function_declarator(node)
        {
            names.insert(text(ident, src).to_string());
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
}

/// The name a type declarator declares: its first type identifier (parameter types come
/// after it).
fn first_type_identifier(node: Node) -> Option<Node> {
    if node.kind() == "type_identifier" {
        return Some(node);
    }
    named_children(node)
        .into_iter()
        .find_map(first_type_identifier)
}

pub(super) fn find_entry(index: &Index, entry: &str) -> Result<usize, FrontEndError> {
    let rank = |origin: FileOrigin| match origin {
        FileOrigin::Analysed => 0,
        FileOrigin::Header => 1,
        FileOrigin::Harness => 2,
        FileOrigin::System => 3,
    };
    let candidates = || {
        index
            .defs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.name == entry && d.origin != FileOrigin::System)
    };
    let best = candidates().min_by_key(|(_, d)| rank(d.origin));
    if let Some((_, chosen)) = best {
        // One definition seen from several units (a header's) is one place; two places of
        // the same rank are two programs.
        let place = |d: &FnDef| format!("{}:{}", d.file, d.line);
        if let Some((_, other)) = candidates()
            .find(|(_, d)| rank(d.origin) == rank(chosen.origin) && place(d) != place(chosen))
        {
            let mut places = [place(chosen), place(other)];
            places.sort();
            let [first, second] = places;
            return Err(FrontEndError::DuplicateEntry {
                entry: entry.to_string(),
                first,
                second,
            });
        }
    }
    best.map(|(i, _)| i)
        .ok_or_else(|| FrontEndError::MissingEntry {
            entry: entry.to_string(),
            defined: index
                .defs
                .iter()
                .filter(|d| d.origin == FileOrigin::Analysed)
                .map(|d| d.name.clone())
                .collect(),
        })
}

/// Functions whose address is taken (named other than as the callee of a call): code the
/// front end cannot see (a library, a function pointer) may call them.
pub(super) fn address_taken(units: &[Unit], index: &Index) -> Result<Vec<usize>, Stopped> {
    let mut taken = BTreeSet::new();
    for (u, unit) in units.iter().enumerate() {
        let src = unit.src();
        // A cursor with the path to the node kept beside it: `Node::parent` searches from
        // the root, which over a deep tree made this walk quadratic.
        let mut cursor = unit.tree.walk();
        let mut ancestors: Vec<Node> = Vec::new();
        let mut seen = 0usize;
        'walk: loop {
            let node = cursor.node();
            seen += 1;
            if seen.is_multiple_of(4096) {
                crate::stop::check()?;
            }
            if node.kind() == "identifier"
                && is_value_use(node, &ancestors)
                && unit.locate(node).2 != FileOrigin::System
                && let Some(d) = index.resolve(u, text(node, src))
            {
                taken.insert(d);
            }
            if cursor.goto_first_child() {
                ancestors.push(node);
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
                ancestors.pop();
            }
        }
    }
    Ok(taken.into_iter().collect())
}

/// Whether `ident` is used as a value; `ancestors` is the path from the root to its parent.
fn is_value_use(ident: Node, ancestors: &[Node]) -> bool {
    let Some((&parent, above)) = ancestors.split_last() else {
        return false;
    };
    let is_field = |field: &str| parent.child_by_field_name(field) == Some(ident);
    match parent.kind() {
        // Before the other declarators: `= g` initialises a pointer with g's address.
        "init_declarator" => is_field("value"),
        k if k.ends_with("declarator") => false,
        "parameter_declaration" | "declaration" | "enumerator" | "type_definition" => false,
        "call_expression" => !is_field("function"),
        "parenthesized_expression" => {
            // `(f)(x)` calls f; climb the parentheses to see.
            let mut outer = parent;
            for &p in above.iter().rev() {
                if p.kind() == "parenthesized_expression" {
                    outer = p;
                    continue;
                }
                return !(p.kind() == "call_expression"
                    && p.child_by_field_name("function") == Some(outer));
            }
            true
        }
        _ => true,
    }
}
