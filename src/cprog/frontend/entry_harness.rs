//! A generated harness for an entry function with parameters (`--entry F`): a function
//! that calls F on nondeterministic arguments, appended to F's own translation unit so
//! that every type and `static` name F's parameters use is in scope.
//!
//! Key items: [`generate`] and [`EntryHarness`].
//!
//! Written here rather than with CBMC's `goto-harness`, which mergelens does not install:
//! each parameter becomes an uninitialised local (nondeterministic to CBMC), except a
//! pointer `T *p`, which points to a buffer of [`BUFFER`] nondeterministic `T`s (never
//! NULL; `void *` points to bytes), and a pointer to a character type, whose buffer ends
//! with a NUL (a string of at most `BUFFER - 1` characters). `main` is left to CBMC, which
//! models `argc` and `argv` itself.

use tree_sitter::Node;

use super::index::FnDef;
use super::inputs::{INPUT_HOOK, local_key};
use crate::cprog::syntax::{flat_text, named_children};

/// Elements of the buffer a pointer parameter points to.
pub(crate) const BUFFER: usize = 4;
/// Arguments after the program's name that `main`'s product harness passes at most.
const ARGUMENTS: usize = 2;

/// The harness of an entry function.
pub(crate) struct EntryHarness {
    /// The function CBMC starts from.
    pub function: String,
    /// The C text to append to the entry's instrumented unit (a line marker first).
    pub text: String,
}

/// The harness for `def` in `src`, when it takes parameters and is not `main`; with
/// `share` (the product program's inputs), also for `main`, and every argument and buffer
/// is filled from its shared input stream (see `inputs`).
pub(crate) fn generate(def: &FnDef, src: &str, share: bool) -> Option<EntryHarness> {
    if def.name == "main" {
        return share.then(|| main_harness(def)).flatten();
    }
    let declarator = def.node.child_by_field_name("declarator")?;
    let (fdecl, _) = crate::cprog::syntax::function_declarator(declarator)?;
    let params: Vec<Node> = named_children(fdecl.child_by_field_name("parameters")?)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect();
    let takes_nothing =
        params.is_empty() || (params.len() == 1 && flat_text(params[0], src).trim() == "void");
    if takes_nothing || params.iter().any(|p| p.kind() != "parameter_declaration") {
        return None; // `...` or something the harness cannot declare
    }
    let function = format!("__mergelens_call_{}", def.name);
    let mut body = String::new();
    let mut args = Vec::new();
    for (i, param) in params.iter().enumerate() {
        let arg = format!("__ml_a{i}");
        let filled_by = share.then_some(&function);
        let decl = declare(*param, src, &arg, i, &mut body, filled_by)?;
        body.push_str(&format!("    {decl};\n"));
        if share && !decl.contains('=') {
            body.push_str(&format!(
                "    {INPUT_HOOK}{}(&{arg}, sizeof({arg}));\n",
                local_key(&function, &arg)
            ));
        }
        args.push(arg);
    }
    Some(harness_text(&def.name, &function, &body, &args.join(", ")))
}

fn harness_text(name: &str, function: &str, body: &str, args: &str) -> EntryHarness {
    // The readers of the inputs the harness fills, declared where it is.
    let mut readers = String::new();
    let mut seen = std::collections::BTreeSet::new();
    for key in body
        .split(INPUT_HOOK)
        .skip(1)
        .filter_map(|rest| rest.split('(').next())
    {
        if seen.insert(key) {
            readers.push_str(&format!("void {INPUT_HOOK}{key}(void *, unsigned long);\n"));
        }
    }
    let text = format!(
        "\n# 1 \"<mergelens harness for {name}>\"\n{readers}void {function}(void)\n{{\n{body}    {name}({args});\n}}\n"
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
        &body,
        "__ml_argc, __ml_argv",
    ))
}

/// The declaration of the argument `arg` for `param` (its buffer, if any, goes to `body`
/// first). With `filled_by`, the argument and its buffer are filled from the shared streams of
/// that function's locals.
fn declare(
    param: Node,
    src: &str,
    arg: &str,
    i: usize,
    body: &mut String,
    filled_by: Option<&String>,
) -> Option<String> {
    let fill = |body: &mut String, var: &str| {
        if let Some(f) = filled_by {
            body.push_str(&format!(
                "    {INPUT_HOOK}{}(&{var}, sizeof({var}));\n",
                local_key(f, var)
            ));
        }
    };
    let spec_end = param
        .child_by_field_name("declarator")
        .map_or(param.end_byte(), |d| d.start_byte());
    let specifiers = one_line(&src[param.start_byte()..spec_end]);
    let Some(declarator) = param.child_by_field_name("declarator") else {
        // Unnamed: the type alone.
        return Some(format!("{specifiers} {arg}"));
    };
    let ident = name_of(declarator)?;
    let renamed = format!(
        "{}{arg}{}",
        &src[declarator.start_byte()..ident.start_byte()],
        &src[ident.end_byte()..declarator.end_byte()]
    );
    let decl = format!("{specifiers} {}", one_line(&renamed));
    // `T *p` or `T p[]` (one level, the name right under it): a buffer.
    let inner = declarator.child_by_field_name("declarator");
    let kind = declarator.kind();
    if matches!(kind, "pointer_declarator" | "array_declarator")
        && inner.is_some_and(|d| d.id() == ident.id())
    {
        // Without qualifiers: CBMC would not take a `const` buffer's contents as
        // nondeterministic.
        let element = if specifiers.split_whitespace().any(|w| w == "void") {
            "unsigned char".to_string()
        } else {
            specifiers
                .split_whitespace()
                .filter(|w| !matches!(*w, "const" | "volatile" | "restrict" | "register"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let buffer = format!("__ml_b{i}");
        body.push_str(&format!("    {element} {buffer}[{BUFFER}];\n"));
        fill(body, &buffer);
        if specifiers.contains("char") {
            body.push_str(&format!(
                "    __CPROVER_assume({buffer}[{}] == 0);\n",
                BUFFER - 1
            ));
        }
        let decl = if kind == "array_declarator" {
            format!("{specifiers} *{arg}")
        } else {
            decl
        };
        return Some(format!("{decl} = {buffer}"));
    }
    Some(decl)
}

/// The identifier a parameter's declarator declares.
fn name_of(mut node: Node) -> Option<Node> {
    loop {
        if node.kind() == "identifier" {
            return Some(node);
        }
        node = node.child_by_field_name("declarator").or_else(|| {
            named_children(node)
                .into_iter()
                .find(|c| c.kind().ends_with("declarator") || c.kind() == "identifier")
        })?;
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
