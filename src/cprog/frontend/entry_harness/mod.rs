//! The one harness generator for an entry function with parameters (`--entry F`, a changed
//! function reviewed at its own entry, `init --harness-for F`): a function that calls F on
//! nondeterministic arguments.
//!
//! Key items: [`generate`] → [`EntryHarness`] (appended to F's own translation unit, so
//! that every type and `static` name F uses is in scope), [`skeleton`] →
//! [`HarnessSkeleton`] (the same harness with readable names, for a file of its own that
//! the user edits), [`HarnessError`] (a signature no harness can serve).
//!
//! Written here rather than with CBMC's `goto-harness`, which mergelens does not install.
//! By a parameter's type (typedefs seen through, [`types`]):
//!
//! * a scalar (or a struct by value) is an uninitialised local: nondeterministic to CBMC;
//! * a pointer to a character type is a string: [`BUFFER`] characters, the last a NUL;
//! * a pointer or array beside an integer parameter named as a length (`(const char *buf,
//!   size_t len)`, `(int n, int *a)`) is a buffer of [`BUFFER`] elements, and the length
//!   is assumed to be at most that;
//! * any other pointer is NULL or points to a nondeterministic object, the choice itself a
//!   nondeterministic `int`; `void *` points to bytes; a parameter the entry only ever
//!   dereferences, or dereferences before anything else, is not NULL ([`contract`]:
//!   passing NULL there runs undefined behaviour, which CBMC models as a fresh value per
//!   read);
//! * a struct's pointer field beside an integer field named as its length is a buffer
//!   sized together with it, as for parameters;
//! * a struct's pointer fields are built the same way, [`DEPTH`] objects deep (deeper ones
//!   are NULL, but for a string one level deeper: a `strcmp` on NULL would read made-up
//!   bytes, different in each copy of a version); an array of pointers in a struct is all NULL; a union holding pointers holds
//!   one of its pointer members, chosen nondeterministically; a struct of the system
//!   headers (`FILE`) is an object whose fields are left to the library;
//! * a function pointer (written out or through a typedef) is bound to a `static` stub that
//!   counts its calls and returns a nondeterministic value (NULL for a pointer result),
//!   never left uninitialised: CBMC calls through an unknown pointer to nothing, which
//!   silently ends the execution;
//! * a struct F's unit sees incomplete is completed with another unit's definition when
//!   its fields use no type name F's unit lacks; else [`HarnessError::Incomplete`];
//! * the globals F reads are nondeterministic at entry where that is sound ([`globals`]
//!   says which: not pointers, function pointers such as allocator hooks, arrays, `const`);
//!   an entry without parameters gets a harness for its globals alone.
//!
//! With `share` (the product program of the per-execution check), every value and choice
//! is filled from its shared input stream (`inputs`), so the four versions of a merge run
//! on one world of inputs; in a harness file the review's shared inputs fill its locals
//! as any file's. `main` is left to CBMC, which models `argc` and `argv` itself, except
//! in the product, where its arguments are shared strings too.

mod contract;
mod emit;
mod globals;
mod types;

use std::fmt::Write as _;

use tree_sitter::Node;

use super::index::{FnDef, Index, Unit};
use super::inputs::{INPUT_HOOK, local_key};
pub use crate::cprog::error::HarnessError;
use crate::cprog::syntax::{flat_text, named_children, text};
use emit::Gen;
pub use types::{BUFFER, DEPTH};
use types::{Scope, Ty};

/// Arguments after the program's name that `main`'s product harness passes at most.
const ARGUMENTS: usize = 2;

/// The harness of an entry function.
pub(crate) struct EntryHarness {
    /// The function CBMC starts from.
    pub function: String,
    /// The C text to append to the entry's instrumented unit (a line marker first).
    pub text: String,
}

/// What a harness is made of, before it is placed in a unit or a file of its own.
pub(crate) struct HarnessParts {
    /// Type definitions the harness repeats (another unit's, or the entry's file's own for
    /// a file of its own).
    pub definitions: String,
    /// The callbacks' stubs.
    pub stubs: String,
    /// The statements before the call.
    pub body: String,
    /// The arguments of the call.
    pub args: Vec<String>,
    /// The globals the entry reads that the harness leaves as initialised, each with why.
    pub kept: Vec<String>,
}

/// The harness for `def`, when it is not `main` and takes parameters or reads a global the
/// harness sets at entry; with `share` (the
/// product program's inputs), also for `main`, and every argument and buffer is filled from
/// its shared input stream (see `inputs`).
pub(crate) fn generate(
    def: &FnDef,
    units: &[Unit],
    index: &Index,
    share: bool,
) -> Result<Option<EntryHarness>, HarnessError> {
    if def.name == "main" {
        return Ok(share.then(|| main_harness(def)).flatten());
    }
    let function = format!("__mergelens_call_{}", def.name);
    let Some(parts) = parts(
        def,
        units,
        index,
        Style::Generated {
            share: share.then(|| function.clone()),
        },
    )?
    else {
        return Ok(None);
    };
    let prelude = format!("{}{}", parts.definitions, parts.stubs);
    Ok(Some(harness_text(
        &def.name,
        &function,
        &prelude,
        &parts.body,
        &parts.args.join(", "),
    )))
}

/// Where a harness goes.
#[derive(Clone)]
pub(crate) enum Style {
    /// Appended to the entry's unit, its names `__ml_`-prefixed; with `share`, the function
    /// whose input streams fill its values.
    Generated { share: Option<String> },
    /// A file of its own the user edits (`init --harness-for`): readable names, the types
    /// the entry's file defines for itself repeated; the review's shared inputs fill its
    /// locals as any harness file's.
    File,
}

/// The parts of `def`'s harness; `None` when it takes no parameters and reads no global the
/// harness would set.
pub(crate) fn parts(
    def: &FnDef,
    units: &[Unit],
    index: &Index,
    style: Style,
) -> Result<Option<HarnessParts>, HarnessError> {
    let params = parameters(def);
    let takes_nothing = params.is_empty()
        || (params.len() == 1 && flat_text(params[0], units[def.unit].src()).trim() == "void");
    let params = if takes_nothing { Vec::new() } else { params };
    let scope = Scope::new(units, def.unit);
    let (prefix, share) = match &style {
        Style::Generated { share } => ("__ml_", share.clone()),
        Style::File => ("", None),
    };
    let mut g = Gen::new(&scope, &def.name, prefix, share);
    let globals = globals::read_by(def, &scope, index);
    // The types only the globals it keeps use are no part of the harness.
    scope.used.borrow_mut().clear();
    for global in &globals {
        g.reserve(&global.name);
    }
    let mut kept = Vec::new();
    let file = matches!(style, Style::File);
    let mut externs = String::new();
    for global in &globals {
        match &global.kept {
            Some(why) => kept.push(format!("{}: {why}", global.name)),
            None if file && global.is_static => kept.push(format!(
                "{}: static in {}, which a harness file cannot name",
                global.name,
                def.file.rsplit('/').next().unwrap_or(&def.file)
            )),
            None => {
                if file
                    && global.own_file
                    && let Some(s) = global.ty.spelling()
                {
                    let _ = writeln!(externs, "extern {s} {};", global.name);
                }
                globals::havoc(&mut g, &global.name);
            }
        }
    }
    if params.is_empty() && g.body.is_empty() {
        // Nothing to choose: CBMC calls the entry itself.
        return Ok(None);
    }
    let src = units[def.unit].src();
    let names: Vec<String> = params
        .iter()
        .filter_map(|p| p.child_by_field_name("declarator"))
        .filter_map(types::declarator_name)
        .map(|n| text(n, src).to_string())
        .collect();
    g.non_null = contract::never_null(def.body, src, &names);
    let args = arguments(&mut g, &params, units[def.unit].src())?;
    let definitions = definitions(def, &scope, file)?;
    Ok(Some(HarnessParts {
        definitions: format!("{definitions}{externs}"),
        stubs: g.stubs,
        body: g.body,
        args,
        kept,
    }))
}

/// The harness of an entry as a file of its own holds it: what [`generate`] appends to the
/// entry's unit, with readable names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessSkeleton {
    /// The entry.
    pub function: String,
    /// The entry's declaration (its definition's head, as preprocessed).
    pub prototype: String,
    /// Type definitions of the entry's own file, and globals it declares, repeated.
    pub definitions: String,
    /// The callbacks' stubs.
    pub stubs: String,
    /// The statements before the call, indented.
    pub body: String,
    /// The call, `f(a, b)`.
    pub call: String,
    /// The globals the entry reads that the harness leaves as they are, each with why.
    pub kept: Vec<String>,
}

/// The harness of `def` for a file of its own.
pub(crate) fn skeleton(
    def: &FnDef,
    units: &[Unit],
    index: &Index,
) -> Result<HarnessSkeleton, HarnessError> {
    let src = units[def.unit].src();
    let head = &src[def.node.start_byte()..def.body.start_byte()];
    let prototype = head
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "static" | "inline" | "extern" | "__inline" | "__inline__"
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    let parts = parts(def, units, index, Style::File)?;
    let (definitions, stubs, body, args, kept) = match parts {
        Some(p) => (p.definitions, p.stubs, p.body, p.args, p.kept),
        None => Default::default(),
    };
    Ok(HarnessSkeleton {
        function: def.name.clone(),
        prototype: format!("{prototype};"),
        definitions,
        stubs,
        body,
        call: format!("{}({})", def.name, args.join(", ")),
        kept,
    })
}

/// The parameter declarations of `def` (not `...`).
fn parameters<'t>(def: &FnDef<'t>) -> Vec<Node<'t>> {
    let Some(list) = def
        .node
        .child_by_field_name("declarator")
        .and_then(crate::cprog::syntax::function_declarator)
        .and_then(|(f, _)| f.child_by_field_name("parameters"))
    else {
        return Vec::new();
    };
    named_children(list)
        .into_iter()
        .filter(|c| c.kind() == "parameter_declaration")
        .collect()
}

/// The arguments of the call, each built by `g`: a pointer beside a length parameter and
/// that length sized together, every other parameter by its type.
fn arguments<'t>(
    g: &mut Gen<'_, 't>,
    params: &[Node<'t>],
    src: &str,
) -> Result<Vec<String>, HarnessError> {
    let typed: Vec<(String, Ty)> = params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let declarator = p.child_by_field_name("declarator");
            let name = declarator
                .and_then(types::declarator_name)
                .map_or_else(|| format!("arg{i}"), |n| text(n, src).to_string());
            let ty = p
                .child_by_field_name("type")
                .map_or(Ty::Scalar("int".into()), |t| {
                    g.scope.resolve(t, declarator, g.scope.unit)
                });
            (name, ty)
        })
        .collect();
    let lengths = types::pair_lengths(&typed);
    let mut args = vec![String::new(); typed.len()];
    for (i, (name, ty)) in typed.iter().enumerate() {
        if lengths.iter().any(|&(_, l)| l == i) {
            continue;
        }
        g.parameter(i, name);
        let Some(&(_, l)) = lengths.iter().find(|&&(b, _)| b == i) else {
            args[i] = g.argument(ty)?;
            continue;
        };
        let of = match ty {
            Ty::Pointer(of, _) | Ty::Array(of) => of,
            _ => unreachable!("only pointers are paired"),
        };
        let (buffer, size) = g.buffer(of, name)?;
        let (len_name, len_ty) = &typed[l];
        g.parameter(l, len_name);
        let len = g.name(len_name);
        let spelling = len_ty.spelling().unwrap_or_else(|| "int".into());
        g.line(&format!("{spelling} {len}; /* nondeterministic */"));
        g.fill(&len);
        g.line(&format!(
            "__CPROVER_assume({len} >= 0 && {len} <= {size}); /* the length of {buffer} */"
        ));
        args[i] = buffer;
        args[l] = len;
    }
    Ok(args)
}

/// The type definitions the harness repeats: in the generated harness a record only
/// another unit defines (completed in the entry's unit, where it was incomplete); in a file
/// of its own also what the entry's file itself defines (its headers the file includes).
fn definitions(def: &FnDef, scope: &Scope, file: bool) -> Result<String, HarnessError> {
    let mut out = String::new();
    let used: Vec<(usize, usize)> = scope.used.borrow().iter().copied().collect();
    for key in used {
        let (unit, _) = key;
        let Some(node) = scope.used_node(key) else {
            continue;
        };
        let foreign = unit != def.unit;
        let own_file = scope.units[unit].locate_item(node).0 == def.file;
        if !(foreign || (file && own_file)) {
            continue;
        }
        if foreign && !file {
            out.push_str(&globals::foreign_record(def, scope, unit, node)?);
        } else {
            let text = flat_text(node, scope.src(unit));
            let end = if text.ends_with(';') { "" } else { ";" };
            let _ = writeln!(out, "{text}{end}");
        }
    }
    Ok(out)
}
fn harness_text(name: &str, function: &str, prelude: &str, body: &str, args: &str) -> EntryHarness {
    // The readers of the inputs the harness fills, declared where it is.
    let mut readers = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for key in format!("{prelude}{body}")
        .split(INPUT_HOOK)
        .skip(1)
        .filter_map(|rest| rest.split('(').next())
    {
        if seen.insert(key) {
            readers.push_str(&format!("void {INPUT_HOOK}{key}(void *, unsigned long);\n"));
        }
    }
    let text = format!(
        "\n# 1 \"<mergelens harness for {name}>\"\n{readers}{prelude}void {function}(void)\n{{\n{body}    {name}({args});\n}}\n"
    );
    EntryHarness {
        function: function.to_string(),
        text,
    }
}

/// `main(argc, argv)` in the product program: up to [`ARGUMENTS`] arguments after the
/// program's name, each a string of at most `BUFFER - 1` characters, all from shared
/// streams. CBMC's own model of `argv` is unbounded and drawn anew in each version.
fn main_harness(def: &FnDef) -> Option<EntryHarness> {
    let takes = def.parameters.iter().filter(|p| p.trim() != "void").count();
    if takes < 2 {
        return None;
    }
    let function = "__mergelens_call_main".to_string();
    let mut body = String::new();
    let fill = |body: &mut String, var: &str| {
        body.push_str(&format!(
            "    {INPUT_HOOK}{}(&{var}, sizeof({var}));\n",
            local_key(&function, var)
        ));
    };
    body.push_str("    int __ml_argc;\n");
    fill(&mut body, "__ml_argc");
    body.push_str(&format!(
        "    __CPROVER_assume(__ml_argc >= 1 && __ml_argc <= {});\n",
        ARGUMENTS + 1
    ));
    let mut pointers = Vec::new();
    for i in 0..=ARGUMENTS {
        let var = format!("__ml_argv{i}");
        body.push_str(&format!("    char {var}[{BUFFER}];\n"));
        fill(&mut body, &var);
        body.push_str(&format!("    {var}[{}] = 0;\n", BUFFER - 1));
        pointers.push(var);
    }
    pointers.push("0".to_string());
    body.push_str(&format!(
        "    char *__ml_argv[{}] = {{ {} }};\n    __ml_argv[__ml_argc] = 0;\n",
        pointers.len(),
        pointers.join(", ")
    ));
    Some(harness_text(
        &def.name,
        &function,
        "",
        &body,
        "__ml_argc, __ml_argv",
    ))
}

#[cfg(test)]
mod tests;
