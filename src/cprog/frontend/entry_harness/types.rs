//! The types of an entry's parameters, its records' fields and its globals as the harness
//! generator needs them: [`Scope::resolve`] reads a specifier and a declarator into a [`Ty`],
//! through the typedefs of the entry's unit and the record definitions of every unit.
//!
//! Key types: [`Scope`] and [`Ty`]. Built from the syntax tree rather than from a compiler's
//! type table because the front end has nothing else; what it cannot read (a `__typeof__`,
//! a macro type) is a scalar, which the harness leaves uninitialised as before.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use tree_sitter::Node;

use super::super::index::Unit;
use crate::cprog::syntax::{flat_text, named_children, text};

/// Elements of the buffer a pointer parameter points to.
pub const BUFFER: usize = 4;
/// How deep the harness builds what a pointer points to: a parameter's target, and the
/// targets of that target's pointers; deeper pointers are NULL.
pub const DEPTH: usize = 2;

/// A type as far as the harness must know it.
#[derive(Clone, Debug)]
pub(super) enum Ty<'t> {
    /// Arithmetic, enumeration, or a name the generator cannot see through: its spelling.
    Scalar(String),
    Void,
    /// A pointer, and its spelling when a typedef names it.
    Pointer(Box<Ty<'t>>, Option<String>),
    Array(Box<Ty<'t>>),
    /// A function type: its result and its parameter list (in `unit`).
    Function {
        returns: Box<Ty<'t>>,
        params: Option<Node<'t>>,
        unit: usize,
    },
    /// A struct or union: its spelling and its field list where some unit defines it.
    Record {
        spelling: String,
        body: Option<(usize, Node<'t>)>,
    },
}

impl Ty<'_> {
    /// The text that declares a variable of this type before its name; `None` for arrays
    /// and functions, which need a declarator around the name.
    pub(super) fn spelling(&self) -> Option<String> {
        match self {
            Ty::Scalar(s) | Ty::Record { spelling: s, .. } => Some(s.clone()),
            Ty::Void => Some("void".to_string()),
            Ty::Pointer(_, Some(s)) => Some(s.clone()),
            Ty::Pointer(to, None) => to.spelling().map(|s| format!("{s} *")),
            Ty::Array(_) | Ty::Function { .. } => None,
        }
    }

    /// A character type: its pointers are strings.
    pub(super) fn is_char(&self) -> bool {
        matches!(self, Ty::Scalar(s) if s.split_whitespace().last() == Some("char"))
    }

    /// An integer type (a length's).
    pub(super) fn is_integer(&self) -> bool {
        matches!(self, Ty::Scalar(s) if !s.contains("float") && !s.contains("double") && !s.contains("__builtin"))
    }
}

/// What the entry's unit declares, and every unit's record definitions.
pub(super) struct Scope<'t> {
    pub(super) units: &'t [Unit],
    /// The entry's unit.
    pub(super) unit: usize,
    typedefs: HashMap<&'t str, (Node<'t>, Node<'t>)>,
    /// `struct tag` / `union tag` → the definitions' field lists, by unit.
    records: HashMap<String, Vec<(usize, Node<'t>)>>,
    /// The top-level items (unit, node) the resolved types came from, for a harness written
    /// in a file of its own, which must repeat those its headers do not declare.
    pub(super) used: RefCell<BTreeSet<(usize, usize)>>,
    used_nodes: RefCell<HashMap<(usize, usize), Node<'t>>>,
}

impl<'t> Scope<'t> {
    pub(super) fn new(units: &'t [Unit], unit: usize) -> Self {
        let mut typedefs = HashMap::new();
        let src = units[unit].src();
        for top in named_children(units[unit].tree.root_node()) {
            if top.kind() != "type_definition" {
                continue;
            }
            let Some(ty) = top.child_by_field_name("type") else {
                continue;
            };
            let mut cursor = top.walk();
            for d in top.children_by_field_name("declarator", &mut cursor) {
                if let Some(name) = declarator_name(d) {
                    typedefs.insert(text(name, src), (ty, d));
                }
            }
        }
        let mut records: HashMap<String, Vec<(usize, Node<'t>)>> = HashMap::new();
        for (u, un) in units.iter().enumerate() {
            let src = un.src();
            let mut stack = named_children(un.tree.root_node());
            while let Some(node) = stack.pop() {
                if node.kind() == "function_definition" {
                    continue;
                }
                if matches!(node.kind(), "struct_specifier" | "union_specifier")
                    && let (Some(name), Some(body)) = (
                        node.child_by_field_name("name"),
                        node.child_by_field_name("body"),
                    )
                {
                    let key = format!("{} {}", keyword(node), text(name, src));
                    records.entry(key).or_default().push((u, body));
                }
                stack.extend(named_children(node));
            }
        }
        Scope {
            units,
            unit,
            typedefs,
            records,
            used: RefCell::default(),
            used_nodes: RefCell::default(),
        }
    }

    pub(super) fn src(&self, unit: usize) -> &'t str {
        self.units[unit].src()
    }

    /// The type a declaration with specifier `ty` and declarator `declarator` gives its name.
    pub(super) fn resolve(
        &self,
        ty: Node<'t>,
        declarator: Option<Node<'t>>,
        unit: usize,
    ) -> Ty<'t> {
        let base = self.specifier(ty, unit);
        self.declarator(declarator, base, unit)
    }

    fn specifier(&self, ty: Node<'t>, unit: usize) -> Ty<'t> {
        let src = self.src(unit);
        match ty.kind() {
            "primitive_type" if text(ty, src) == "void" => Ty::Void,
            "struct_specifier" | "union_specifier" => {
                let name = ty.child_by_field_name("name").map(|n| text(n, src));
                let spelling = match name {
                    Some(n) => format!("{} {n}", keyword(ty)),
                    None => flat_text(ty, src),
                };
                let body = match ty.child_by_field_name("body") {
                    Some(b) => Some((unit, b)),
                    None => name.and_then(|_| self.definition(&spelling)),
                };
                if let Some((u, b)) = body {
                    self.note(u, b);
                }
                Ty::Record { spelling, body }
            }
            "enum_specifier" => match ty.child_by_field_name("name") {
                Some(n) => Ty::Scalar(format!("enum {}", text(n, src))),
                None => Ty::Scalar("int".to_string()),
            },
            "type_identifier" => {
                let name = text(ty, src);
                // The entry unit's typedefs, also in a record another unit defines: the
                // harness repeats that record in the entry's unit.
                let Some(&(inner, declarator)) = self.typedefs.get(name) else {
                    return Ty::Scalar(name.to_string());
                };
                self.note(self.unit, declarator);
                match self.resolve(inner, Some(declarator), self.unit) {
                    // The typedef's name spells it (an anonymous struct has no other).
                    Ty::Scalar(_) => Ty::Scalar(name.to_string()),
                    Ty::Record { body, .. } => Ty::Record {
                        spelling: name.to_string(),
                        body,
                    },
                    Ty::Pointer(to, _) => Ty::Pointer(to, Some(name.to_string())),
                    other => other,
                }
            }
            _ => Ty::Scalar(flat_text(ty, src)),
        }
    }

    fn declarator(&self, declarator: Option<Node<'t>>, base: Ty<'t>, unit: usize) -> Ty<'t> {
        let Some(d) = declarator else {
            return base;
        };
        let inner = d.child_by_field_name("declarator");
        match d.kind() {
            "pointer_declarator" | "abstract_pointer_declarator" => {
                self.declarator(inner, Ty::Pointer(Box::new(base), None), unit)
            }
            "array_declarator" | "abstract_array_declarator" => {
                self.declarator(inner, Ty::Array(Box::new(base)), unit)
            }
            "function_declarator" | "abstract_function_declarator" => {
                let f = Ty::Function {
                    returns: Box::new(base),
                    params: d.child_by_field_name("parameters"),
                    unit,
                };
                self.declarator(inner, f, unit)
            }
            "parenthesized_declarator"
            | "abstract_parenthesized_declarator"
            | "attributed_declarator"
            | "init_declarator" => {
                let inner = inner.or_else(|| {
                    named_children(d)
                        .into_iter()
                        .find(|c| c.kind().ends_with("declarator") || is_name(c.kind()))
                });
                self.declarator(inner, base, unit)
            }
            _ => base,
        }
    }

    /// A record's field list: the entry unit's definition first, else another unit's.
    fn definition(&self, spelling: &str) -> Option<(usize, Node<'t>)> {
        let all = self.records.get(spelling)?;
        all.iter()
            .find(|(u, _)| *u == self.unit)
            .or_else(|| all.first())
            .copied()
    }

    /// The fields of a record's field list, each with its name and type; an anonymous
    /// member's fields as the record's own.
    pub(super) fn fields(&self, unit: usize, body: Node<'t>) -> Vec<(String, Ty<'t>)> {
        let src = self.src(unit);
        let mut out = Vec::new();
        for field in named_children(body) {
            if field.kind() != "field_declaration" {
                continue;
            }
            let Some(ty) = field.child_by_field_name("type") else {
                continue;
            };
            let mut cursor = field.walk();
            let declarators: Vec<Node> = field
                .children_by_field_name("declarator", &mut cursor)
                .collect();
            if declarators.is_empty() {
                if let Ty::Record {
                    body: Some((u, b)), ..
                } = self.specifier(ty, unit)
                {
                    out.extend(self.fields(u, b));
                }
                continue;
            }
            for d in declarators {
                if let Some(name) = declarator_name(d) {
                    out.push((text(name, src).to_string(), self.resolve(ty, Some(d), unit)));
                }
            }
        }
        out
    }

    /// Whether a value of `ty` holds a pointer anywhere (looked into `depth` records deep).
    pub(super) fn holds_pointer(&self, ty: &Ty<'t>, depth: usize) -> bool {
        match ty {
            Ty::Pointer(..) | Ty::Function { .. } => true,
            Ty::Array(of) => self.holds_pointer(of, depth),
            Ty::Record {
                body: Some((u, b)), ..
            } if depth > 0 => self
                .fields(*u, *b)
                .iter()
                .any(|(_, t)| self.holds_pointer(t, depth - 1)),
            Ty::Record { body: Some(_), .. } => true,
            Ty::Record { body: None, .. } | Ty::Scalar(_) | Ty::Void => false,
        }
    }

    /// Whether `node` of `unit` comes from a system header.
    pub(super) fn is_system(&self, unit: usize, node: Node) -> bool {
        self.units[unit].locate_item(node).2 == crate::cprog::preprocess::FileOrigin::System
    }

    /// Whether the entry's unit declares the type name `name`.
    pub(super) fn declares_type(&self, name: &str) -> bool {
        self.typedefs.contains_key(name)
    }

    /// Remembers the top-level item `node` is in.
    fn note(&self, unit: usize, node: Node<'t>) {
        let mut top = node;
        while let Some(parent) = top.parent() {
            if parent.kind() == "translation_unit" {
                break;
            }
            top = parent;
        }
        let key = (unit, top.start_byte());
        self.used.borrow_mut().insert(key);
        self.used_nodes.borrow_mut().insert(key, top);
    }

    /// The remembered top-level item at `key`.
    pub(super) fn used_node(&self, key: (usize, usize)) -> Option<Node<'t>> {
        self.used_nodes.borrow().get(&key).copied()
    }
}

fn keyword(node: Node) -> &'static str {
    if node.kind() == "union_specifier" {
        "union"
    } else {
        "struct"
    }
}

fn is_name(kind: &str) -> bool {
    matches!(kind, "identifier" | "field_identifier" | "type_identifier")
}

/// The name a declarator declares, if it has one.
pub(super) fn declarator_name(mut node: Node) -> Option<Node> {
    loop {
        if is_name(node.kind()) {
            return Some(node);
        }
        node = node.child_by_field_name("declarator").or_else(|| {
            named_children(node)
                .into_iter()
                .find(|c| c.kind().ends_with("declarator") || is_name(c.kind()))
        })?;
    }
}

/// The (pointer, length) pairs of a parameter list or a struct's fields: an integer named as
/// a length (`len`, `n`, `size`, `count`, ... ) right after or before a pointer or array.
pub(super) fn pair_lengths(typed: &[(String, Ty)]) -> Vec<(usize, usize)> {
    let is_buffer = |ty: &Ty| match ty {
        Ty::Pointer(of, _) | Ty::Array(of) => !matches!(**of, Ty::Function { .. } | Ty::Array(_)),
        _ => false,
    };
    let is_length = |(name, ty): &(String, Ty)| ty.is_integer() && length_name(name);
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    let taken = |pairs: &[(usize, usize)], k: usize| pairs.iter().any(|&(b, l)| b == k || l == k);
    for i in 0..typed.len() {
        if !is_buffer(&typed[i].1) || taken(&pairs, i) {
            continue;
        }
        let partner = [i + 1, i.wrapping_sub(1)]
            .into_iter()
            .find(|&j| j < typed.len() && !taken(&pairs, j) && is_length(&typed[j]));
        if let Some(j) = partner {
            pairs.push((i, j));
        }
    }
    pairs
}

/// Whether a parameter's name says it is a length.
fn length_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "n" | "sz" | "cnt" | "nbytes" | "nmemb" | "nelem"
    ) || ["len", "length", "size", "count", "_n"]
        .iter()
        .any(|w| n.ends_with(w))
        || n.starts_with("num")
        || n.starts_with("n_")
}
