//! The pipeline behind [`super::instrument`]: preprocess, parse, find functions and event
//! sites, choose the alphabet, write the instrumented copies, build the control-flow model.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tree_sitter::{Node, Tree};

use super::cfg::{self, ProgramModel};
use super::edit::{self, Edit, Side};
use super::hash::Fnv128;
use super::preprocess::{self, FileOrigin, MARKER_FN, Preprocessed};
use super::syntax::{self, children, flat_text, named_children, strip_parens, text};
use super::{
    ASSERT_LETTER, AssertionKind, AssertionSite, AssertionTarget, END_LETTER, Event, EventKind,
    FrontEndConfig, FrontEndError, FunctionInfo, FunctionOrigin, InstrumentedProgram, SiteKind,
};
use crate::automaton::{Alphabet, Letter};

/// The header of every instrumented file: the hooks of the query harnesses (Chockler et al.,
/// JAIR 2020, Fig. 7, 9, 11), which another part of mergelens defines.
pub(crate) const HOOKS: &str = "void __mergelens_event(unsigned int letter); void __mergelens_end(void); void __mergelens_exit(void);\n";

/// Calls that end the program: the paper's exit points, where the trap of Fig. 11 goes.
pub(crate) const EXITS: [&str; 3] = ["exit", "_Exit", "abort"];

/// The failure branch glibc's `assert` expands to, CBMC's built-ins, and SV-COMP's error
/// calls: the assertions error mode recognises.
const ASSERT_FAILS: [&str; 2] = ["__assert_fail", "__assert_rtn"];
const ASSERTS: [&str; 2] = ["__CPROVER_assert", "assert"];
const REACH_ERRORS: [&str; 2] = ["__VERIFIER_error", "reach_error"];

/// Non-local jumps, which no syntax-directed model follows.
const JUMPS: [&str; 8] = [
    "setjmp",
    "_setjmp",
    "__sigsetjmp",
    "sigsetjmp",
    "longjmp",
    "_longjmp",
    "siglongjmp",
    "__longjmp_chk",
];

/// Thread creation: the new thread's events interleave with the caller's anywhere after.
const THREADS: [&str; 2] = ["pthread_create", "thrd_create"];

const HEADER: &str = include_str!("../../include/mergelens.h");

/// A site that emits an event: the node (by tree-sitter id) and what about it.
pub(crate) type SiteKey = (usize, usize, SiteKind);

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

    pub(crate) fn is_declared(&self, unit: usize, name: &str) -> bool {
        self.declared[unit].contains(name) || name.starts_with("__builtin")
    }
}

/// Where an event's instrumentation goes.
#[derive(Clone, Copy, Debug)]
enum Place {
    /// Right after this offset: the `{` of a function body, the `:` of a case label.
    After(usize),
    /// Around a call: `(__mergelens_event(K), call)`.
    Expr(usize, usize),
    /// Around a statement: `{ __mergelens_event(K); statement }`.
    Stmt(usize, usize),
    /// The then arm of an `if`; without an else arm, one is added for the else event.
    Then {
        start: usize,
        end: usize,
        has_else: bool,
    },
    /// The marker call itself, replaced by the event or by nothing.
    Replace(usize, usize),
}

struct Site {
    key: SiteKey,
    name: String,
    file: String,
    line: u32,
    function: String,
    place: Place,
    rank: u32,
}

/// Everything the event finder learns about the program besides the sites.
#[derive(Default)]
struct Findings {
    sites: Vec<Site>,
    /// Edits that do not depend on the alphabet, per unit.
    edits: Vec<Vec<Edit>>,
    warnings: Vec<String>,
    /// `setjmp`/`longjmp` or threads: control may go anywhere.
    jumps: bool,
    /// Error mode: the assertion calls, in source order.
    assertions: Vec<FoundAssertion>,
}

/// An assertion call; its edits wait until the target is known.
struct FoundAssertion {
    unit: usize,
    /// The call's syntax node (by tree-sitter id): the control-flow model marks the same
    /// node ([`cfg::AssertionCall`]).
    node: usize,
    site: AssertionSite,
    /// The call's byte range.
    call: (usize, usize),
    /// The condition's byte range, for `assert(c)` and `__CPROVER_assert(c, d)`.
    condition: Option<(usize, usize)>,
    rank: u32,
}

impl FoundAssertion {
    /// Target: the call becomes `__mergelens_end()` when the condition is false (Fig. 8's
    /// `Learn_Assert`); the harness ends the path there. Not a target: the condition is
    /// evaluated for its effects and nothing else happens.
    fn edits(&self, target: bool) -> Vec<Edit> {
        let (start, end) = self.call;
        match (self.condition, target) {
            (None, true) => vec![Edit::replace(start, end, "__mergelens_end()", self.rank)],
            (None, false) => vec![Edit::replace(start, end, "((void)0)", self.rank)],
            (Some((c0, c1)), true) => vec![
                Edit::replace(start, c0, "((", self.rank),
                Edit::replace(c1, end, ") ? (void)0 : __mergelens_end())", self.rank),
            ],
            (Some((c0, c1)), false) => vec![
                Edit::replace(start, c0, "((void)(", self.rank),
                Edit::replace(c1, end, "))", self.rank),
            ],
        }
    }
}

/// Whether an assertion found at `file:line` is the one `target` names.
fn same_place(file: &str, line: u32, target: &AssertionTarget) -> bool {
    if line != target.line {
        return false;
    }
    let found = Path::new(file);
    if found == target.file {
        return true;
    }
    match (found.canonicalize(), target.file.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub(crate) fn run(
    config: &FrontEndConfig,
    target: Option<&AssertionTarget>,
    out_dir: &Path,
) -> Result<InstrumentedProgram, FrontEndError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FrontEndError::Io { path, source }
    };
    if config.files.is_empty() {
        return Err(FrontEndError::MissingEntry {
            entry: config.entry.clone(),
            defined: Vec::new(),
        });
    }
    let header_dir = out_dir.join("include");
    std::fs::create_dir_all(&header_dir).map_err(io(&header_dir))?;
    let header = header_dir.join("mergelens.h");
    std::fs::write(&header, HEADER).map_err(io(&header))?;
    let flags = preprocess::compiler_flags(&config.include_dirs, &config.defines, &header_dir);
    let analysed: Vec<PathBuf> = config
        .files
        .iter()
        .map(|f| f.canonicalize().map_err(io(f)))
        .collect::<Result<_, _>>()?;

    let mut units = Vec::new();
    for file in &config.files {
        let pre = preprocess::preprocess(file, &flags, &analysed)?;
        preprocess::check_confined(&pre, file, config.confine_to.as_deref(), &header_dir)?;
        let tree = syntax::parse(&pre.parse_text);
        let unit = Unit {
            input: file.clone(),
            pre,
            tree,
        };
        check_syntax(&unit, &flags)?;
        units.push(unit);
    }

    let index = build_index(&units);
    let entry = find_entry(&index, &config.entry)?;
    let mut findings = Findings {
        edits: vec![Vec::new(); units.len()],
        ..Findings::default()
    };
    for (d, def) in index.defs.iter().enumerate() {
        if def.origin == FileOrigin::System {
            continue;
        }
        let unit = &units[def.unit];
        let mut walker = SiteWalker {
            unit_index: def.unit,
            unit,
            index: &index,
            config,
            function: &def.name,
            analysed: def.origin == FileOrigin::Analysed,
            is_entry: d == entry,
            entry,
            returns_void: return_typedef(def, unit.src()).is_none(),
            error_mode: target.is_some(),
            findings: &mut findings,
            error: None,
        };
        walker.function(def)?;
    }
    let taken = address_taken(&units, &index);
    if taken.contains(&entry) {
        findings.warnings.push(format!(
            "the entry function `{}` is used as a value: the pre-check accepts any word ending in `end`",
            config.entry
        ));
    }

    let assertions = match target {
        Some(target) => choose_target(target, &mut findings)?,
        None => Vec::new(),
    };
    let end_name = if target.is_some() {
        ASSERT_LETTER
    } else {
        END_LETTER
    };
    let Chosen {
        alphabet,
        letters,
        events,
    } = choose_alphabet(config, end_name, &mut findings)?;
    let end = alphabet
        .letter(end_name)
        .expect("the end letter is always interned");

    let mut paths = Vec::new();
    let mut used_names = HashSet::new();
    for (u, unit) in units.iter().enumerate() {
        let mut edits = std::mem::take(&mut findings.edits[u]);
        site_edits(&findings.sites, u, &letters, &mut edits);
        let instrumented = format!("{HOOKS}{}", edit::apply(&unit.pre.text, edits));
        let path = out_dir.join(output_name(&unit.input, u, &mut used_names));
        std::fs::write(&path, preprocess::encode(&instrumented)).map_err(io(&path))?;
        paths.push(path);
    }

    // Error mode: where each assertion call is and what the instrumentation made of it.
    let assertion_calls: HashMap<(usize, usize), cfg::AssertionCall> = findings
        .assertions
        .iter()
        .map(|a| {
            let call = cfg::AssertionCall {
                target: a.site.target,
                condition: a.condition.is_some(),
            };
            ((a.unit, a.node), call)
        })
        .collect();
    let model: ProgramModel = cfg::build(
        &units,
        &index,
        &letters,
        &assertion_calls,
        entry,
        &taken,
        findings.jumps,
    );
    let functions = index
        .defs
        .iter()
        .map(|d| FunctionInfo {
            name: d.name.clone(),
            file: PathBuf::from(&d.file),
            line: d.line,
            end_line: d.end_line,
            parameters: d.parameters.clone(),
            origin: match d.origin {
                FileOrigin::Analysed => FunctionOrigin::Analysed,
                FileOrigin::Header => FunctionOrigin::Header,
                FileOrigin::System => FunctionOrigin::SystemHeader,
            },
        })
        .collect();
    let mut fingerprint = fingerprint(config, &units, &alphabet);
    if let Some(target) = target {
        // Another target is another language.
        let mut h = Fnv128::new();
        h.field(&fingerprint);
        h.field("error-mode");
        for a in assertions.iter().filter(|a| a.target) {
            h.field(&format!("{}:{}:{}", a.function, a.line, a.text));
        }
        h.field(&format!("{:?}", target.index));
        fingerprint = h.hex();
    }
    Ok(InstrumentedProgram {
        path: paths[index.defs[entry].unit].clone(),
        paths,
        alphabet,
        end,
        entry: config.entry.clone(),
        events,
        functions,
        warnings: findings.warnings,
        assertions,
        fingerprint,
        model,
        error_mode: target.is_some(),
    })
}

/// Reports the first syntax error in the user's code. tree-sitter finds it; gcc, when it
/// agrees, says it in the words the user knows from compiling. Errors inside system headers
/// are tree-sitter's limits (e.g. `_Complex`), not the user's, and are left alone; so are
/// errors in the user's headers that gcc accepts, since no event comes from there.
fn check_syntax(unit: &Unit, flags: &[OsString]) -> Result<(), FrontEndError> {
    let mut errors = Vec::new();
    collect_errors(unit.tree.root_node(), unit, &mut errors);
    if errors.is_empty() {
        return Ok(());
    }
    if let Some((file, line, column, message)) = preprocess::gcc_syntax_error(&unit.input, flags) {
        return Err(FrontEndError::SyntaxError {
            file,
            line,
            column,
            message,
        });
    }
    let Some(node) = errors
        .into_iter()
        .find(|&n| unit.locate(n).2 == FileOrigin::Analysed)
    else {
        return Ok(());
    };
    let (file, line, _) = unit.locate(node);
    let row = node.start_position().row;
    let line_text = unit.src().lines().nth(row).unwrap_or("").trim();
    let near: String = line_text.chars().take(60).collect();
    Err(FrontEndError::SyntaxError {
        file: file.into(),
        line,
        column: node.start_position().column as u32 + 1,
        message: format!(
            "mergelens's C parser (tree-sitter) cannot read `{near}`, which gcc accepts; pre-C99 code (a function without a return type) is not supported"
        ),
    })
}

/// The ERROR and MISSING nodes outside system headers, in source order.
fn collect_errors<'t>(node: Node<'t>, unit: &Unit, out: &mut Vec<Node<'t>>) {
    if !node.has_error() {
        return;
    }
    if node.is_error() || node.is_missing() {
        if unit.locate(node).2 != FileOrigin::System {
            out.push(node);
        }
        return;
    }
    for child in children(node) {
        collect_errors(child, unit, out);
    }
}

fn build_index(units: &[Unit]) -> Index<'_> {
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
            let (file, line, origin) = unit.locate(ident);
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

fn find_entry(index: &Index, entry: &str) -> Result<usize, FrontEndError> {
    let rank = |origin: FileOrigin| match origin {
        FileOrigin::Analysed => 0,
        FileOrigin::Header => 1,
        FileOrigin::System => 2,
    };
    index
        .defs
        .iter()
        .enumerate()
        .filter(|(_, d)| d.name == entry && d.origin != FileOrigin::System)
        .min_by_key(|(_, d)| rank(d.origin))
        .map(|(i, _)| i)
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
fn address_taken(units: &[Unit], index: &Index) -> Vec<usize> {
    let mut taken = BTreeSet::new();
    for (u, unit) in units.iter().enumerate() {
        let src = unit.src();
        let mut stack = vec![unit.tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == "identifier"
                && is_value_use(node)
                && unit.locate(node).2 != FileOrigin::System
                && let Some(d) = index.resolve(u, text(node, src))
            {
                taken.insert(d);
            }
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
    }
    taken.into_iter().collect()
}

fn is_value_use(ident: Node) -> bool {
    let Some(parent) = ident.parent() else {
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
            while outer.kind() == "parenthesized_expression" {
                match outer.parent() {
                    Some(p) if p.kind() == "parenthesized_expression" => outer = p,
                    Some(p) => {
                        return !(p.kind() == "call_expression"
                            && p.child_by_field_name("function") == Some(outer));
                    }
                    None => return true,
                }
            }
            true
        }
        _ => true,
    }
}

/// Walks one function body and records its event sites and the fixed edits (exit hooks,
/// the entry function's returns).
struct SiteWalker<'a, 't> {
    unit_index: usize,
    unit: &'a Unit,
    index: &'a Index<'t>,
    config: &'a FrontEndConfig,
    function: &'a str,
    analysed: bool,
    is_entry: bool,
    entry: usize,
    returns_void: bool,
    /// Error mode: the entry's returns are exit points, and assertions are collected.
    error_mode: bool,
    findings: &'a mut Findings,
    error: Option<FrontEndError>,
}

impl SiteWalker<'_, '_> {
    fn function(&mut self, def: &FnDef) -> Result<(), FrontEndError> {
        let body = def.body;
        if self.analysed && self.config.events == EventKind::Functions && !self.is_entry {
            self.site(
                def.node,
                SiteKind::FunctionEntry,
                def.name.clone(),
                Place::After(body.start_byte() + 1),
                0,
            );
            // Reported at the name, not at a storage class on the line before.
            if let Some(site) = self.findings.sites.last_mut() {
                site.line = def.line;
            }
        }
        if self.is_entry {
            self.entry_edits(def);
        }
        self.visit(body, 0);
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn site(&mut self, node: Node, kind: SiteKind, name: String, place: Place, depth: u32) {
        let (file, line, _) = self.unit.locate(node);
        self.findings.sites.push(Site {
            key: (self.unit_index, node.id(), kind),
            name,
            file: file.to_string(),
            line,
            function: self.function.to_string(),
            place,
            rank: depth * 4,
        });
    }

    fn warn(&mut self, node: Node, message: String) {
        let (file, line, _) = self.unit.locate(node);
        self.findings
            .warnings
            .push(format!("{file}:{line}: {message}"));
    }

    fn edit(&mut self, edit: Edit) {
        self.findings.edits[self.unit_index].push(edit);
    }

    /// Branch events are the user's: not those of a system macro expanded in their code
    /// (`assert` expands to an `if`).
    fn branches(&self, node: Node) -> bool {
        self.analysed
            && self.config.events == EventKind::Branches
            && self.unit.locate(node).2 != FileOrigin::System
    }

    /// The `end` hook at the end of the entry function's body, and the return type as a
    /// typedef so that `return e;` can keep e's value across the hook.
    fn entry_edits(&mut self, def: &FnDef) {
        let body = def.body;
        let src = self.unit.src();
        if let Some(typedef) = return_typedef(def, src) {
            self.edit(Edit::insert(body.start_byte() + 1, typedef, Side::Open, 0));
        }
        let hook = format!(" {}; ", self.return_hook());
        self.edit(Edit::insert(body.end_byte() - 1, hook, Side::Close, 0));
    }

    /// What the entry function's return calls: the end of a word in program explanation,
    /// an exit point (no failure on this run) in error mode.
    fn return_hook(&self) -> &'static str {
        if self.error_mode {
            "__mergelens_exit()"
        } else {
            "__mergelens_end()"
        }
    }

    /// Error mode: records an assertion call; `true` if `name` is one.
    fn assertion(&mut self, node: Node, name: &str, depth: u32) -> bool {
        let kind = if ASSERT_FAILS.contains(&name) {
            AssertionKind::Assert
        } else if ASSERTS.contains(&name) {
            if name == "assert" {
                AssertionKind::Assert
            } else {
                AssertionKind::CproverAssert
            }
        } else if REACH_ERRORS.contains(&name) {
            AssertionKind::ReachError
        } else {
            return false;
        };
        let src = self.unit.src();
        let condition = if ASSERTS.contains(&name) {
            let Some(c) = node
                .child_by_field_name("arguments")
                .and_then(|a| named_children(a).into_iter().next())
            else {
                return false;
            };
            Some((c.start_byte(), c.end_byte()))
        } else {
            None
        };
        let (file, line, _) = self.unit.locate(node);
        // glibc's failure branch names the condition in its first argument.
        let text = match (kind, condition) {
            (_, Some((c0, c1))) => format!(
                "{name}({})",
                src[c0..c1].split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            (AssertionKind::Assert, None) => {
                let message = node
                    .child_by_field_name("arguments")
                    .and_then(|a| named_children(a).into_iter().next())
                    .map(|m| flat_text(m, src))
                    .unwrap_or_default();
                format!("assert({})", message.trim_matches('"'))
            }
            _ => format!("{name}()"),
        };
        self.findings.assertions.push(FoundAssertion {
            unit: self.unit_index,
            node: node.id(),
            site: AssertionSite {
                file: PathBuf::from(file),
                line,
                function: self.function.to_string(),
                kind,
                text,
                target: false,
            },
            call: (node.start_byte(), node.end_byte()),
            condition,
            rank: depth * 4 + 1,
        });
        true
    }

    fn visit(&mut self, node: Node, depth: u32) {
        let kind = node.kind();
        let src = self.unit.src();
        if syntax::is_unevaluated(kind) {
            self.silence_markers(node, depth);
            return;
        }
        match kind {
            "function_definition" => {
                self.warn(
                    node,
                    format!(
                        "nested function in `{}`: the pre-check treats `{}` as any events",
                        self.function, self.function
                    ),
                );
                return;
            }
            "call_expression" => self.call(node, depth),
            "if_statement" if self.branches(node) => self.if_sites(node, depth),
            "case_statement" if self.branches(node) => {
                if let Some(colon) = children(node).into_iter().find(|c| c.kind() == ":") {
                    let name = self.branch_name(node, "case");
                    self.site(
                        node,
                        SiteKind::Case,
                        name,
                        Place::After(colon.end_byte()),
                        depth,
                    );
                }
            }
            k if syntax::is_loop(k) && self.branches(node) && !runs_once(node, src) => {
                if let Some(body) = node.child_by_field_name("body") {
                    let name = self.branch_name(node, "loop");
                    let place = Place::Stmt(body.start_byte(), body.end_byte());
                    self.site(node, SiteKind::Loop, name, place, depth + 1);
                }
            }
            "goto_statement" => self.warn(
                node,
                format!(
                    "goto in `{}`: events follow the jump to its label",
                    self.function
                ),
            ),
            "return_statement" if self.is_entry => self.entry_return(node, depth),
            _ => {}
        }
        for child in named_children(node) {
            self.visit(child, depth + 1);
        }
    }

    /// Markers that are never evaluated (`assert` copies its condition into a `sizeof`) emit
    /// nothing, but their calls must still go: nothing defines `__mergelens_marker`.
    fn silence_markers(&mut self, node: Node, depth: u32) {
        let src = self.unit.src();
        let is_marker = node.kind() == "call_expression"
            && node
                .child_by_field_name("function")
                .is_some_and(|f| text(strip_parens(f), src) == MARKER_FN);
        if is_marker {
            let rank = depth * 4 + 1;
            self.edit(Edit::replace(
                node.start_byte(),
                node.end_byte(),
                "((void)0)",
                rank,
            ));
            return;
        }
        for child in named_children(node) {
            self.silence_markers(child, depth + 1);
        }
    }

    fn branch_name(&self, node: Node, what: &str) -> String {
        let (_, line, _) = self.unit.locate(node);
        format!("{}:{line}:{what}", self.function)
    }

    fn if_sites(&mut self, node: Node, depth: u32) {
        let Some(then) = node.child_by_field_name("consequence") else {
            return;
        };
        let alternative = node
            .child_by_field_name("alternative")
            .and_then(|clause| named_children(clause).into_iter().last());
        let place = Place::Then {
            start: then.start_byte(),
            end: then.end_byte(),
            has_else: alternative.is_some(),
        };
        let then_name = self.branch_name(node, "then");
        self.site(node, SiteKind::Then, then_name, place, depth + 1);
        let else_place = match alternative {
            Some(arm) => Place::Stmt(arm.start_byte(), arm.end_byte()),
            // Emitted by the then arm's edit, which adds the else arm.
            None => Place::After(then.end_byte()),
        };
        let else_depth = if alternative.is_some() {
            depth + 2
        } else {
            depth + 1
        };
        let else_name = self.branch_name(node, "else");
        self.site(node, SiteKind::Else, else_name, else_place, else_depth);
    }

    fn call(&mut self, node: Node, depth: u32) {
        let src = self.unit.src();
        if self.index.is_cast(self.unit_index, node, src) {
            return;
        }
        let Some(function) = node.child_by_field_name("function").map(strip_parens) else {
            return;
        };
        let pointer = function.kind() != "identifier"
            || self
                .index
                .calls_variable(self.unit_index, node, text(function, src), src);
        if pointer {
            self.warn(
                node,
                format!(
                    "call through the function pointer `{}` in `{}`: its events are not known before CBMC runs",
                    flat_text(function, src),
                    self.function
                ),
            );
            return;
        }
        let name = text(function, src);
        if name == MARKER_FN {
            self.marker(node, depth);
            return;
        }
        if self.error_mode && self.assertion(node, name, depth) {
            return;
        }
        if JUMPS.contains(&name) {
            self.findings.jumps = true;
            self.warn(
                node,
                format!("{name} in `{}`: the pre-check cannot follow non-local jumps and accepts any word ending in `end`", self.function),
            );
        }
        if THREADS.contains(&name) {
            self.findings.jumps = true;
            self.warn(
                node,
                format!("{name} in `{}`: the pre-check cannot interleave threads and accepts any word ending in `end`", self.function),
            );
        }
        match self.index.resolve(self.unit_index, name) {
            Some(callee) => {
                if callee == self.entry {
                    self.warn(
                        node,
                        format!(
                            "`{}` calls the entry function `{name}`, whose every return emits `end`: the pre-check accepts any word ending in `end`",
                            self.function
                        ),
                    );
                }
                let analysed_callee = self.index.defs[callee].origin == FileOrigin::Analysed;
                if self.analysed && self.config.events == EventKind::Calls && analysed_callee {
                    let (_, line, _) = self.unit.locate(node);
                    let place = Place::Expr(node.start_byte(), node.end_byte());
                    self.site(node, SiteKind::Call, format!("{name}@{line}"), place, depth);
                }
            }
            None if EXITS.contains(&name) => {
                let rank = depth * 4 + 1;
                self.edit(Edit::insert(
                    node.start_byte(),
                    "(__mergelens_exit(), ",
                    Side::Open,
                    rank,
                ));
                self.edit(Edit::insert(node.end_byte(), ")", Side::Close, rank));
            }
            None if !self.index.is_declared(self.unit_index, name) => self.warn(
                node,
                format!(
                    "call of `{name}` in `{}`, which is not declared as a function (a function pointer?): its events are not known before CBMC runs",
                    self.function
                ),
            ),
            None => {}
        }
    }

    fn marker(&mut self, node: Node, depth: u32) {
        let src = self.unit.src();
        let argument = node
            .child_by_field_name("arguments")
            .and_then(|a| named_children(a).into_iter().next());
        let name = argument.and_then(|a| match a.kind() {
            "string_literal" => {
                let t = text(a, src);
                t.strip_prefix('"')
                    .and_then(|t| t.strip_suffix('"'))
                    .map(str::to_string)
            }
            "identifier" => Some(text(a, src).to_string()),
            _ => None,
        });
        match name.filter(|n| !n.is_empty()) {
            Some(name) => {
                let place = Place::Replace(node.start_byte(), node.end_byte());
                self.site(node, SiteKind::Marker, name, place, depth);
            }
            None => {
                let (file, line, _) = self.unit.locate(node);
                self.error.get_or_insert(FrontEndError::SyntaxError {
                    file: file.into(),
                    line,
                    column: node.start_position().column as u32 + 1,
                    message: "MERGELENS_EVENT takes the event's name as a string literal, as in MERGELENS_EVENT(\"name\")".into(),
                });
            }
        }
    }

    /// `return e;` becomes `{ __ml_ret_t __ml_ret = (e); __mergelens_end(); return __ml_ret; }`,
    /// by replacing only the keyword and inserting the rest, so no line break moves.
    fn entry_return(&mut self, node: Node, depth: u32) {
        let rank = depth * 4 + 1;
        let start = node.start_byte();
        let value = named_children(node).into_iter().next();
        match value {
            Some(value) if !self.returns_void => {
                self.edit(Edit::replace(
                    start,
                    start + "return".len(),
                    "{ __ml_ret_t __ml_ret = (",
                    rank,
                ));
                self.edit(Edit::insert(value.end_byte(), ")", Side::Close, rank));
                self.edit(Edit::insert(
                    node.end_byte(),
                    format!(" {}; return __ml_ret; }}", self.return_hook()),
                    Side::Close,
                    rank,
                ));
            }
            Some(_) => {
                // `return f();` in a void function: evaluate, then the hook, then return.
                self.edit(Edit::replace(start, start + "return".len(), "{", rank));
                self.edit(Edit::insert(
                    node.end_byte(),
                    format!(" {}; return; }}", self.return_hook()),
                    Side::Close,
                    rank,
                ));
            }
            None => {
                self.edit(Edit::insert(
                    start,
                    format!("{{ {}; ", self.return_hook()),
                    Side::Open,
                    rank,
                ));
                self.edit(Edit::insert(node.end_byte(), " }", Side::Close, rank));
            }
        }
    }
}

/// `do { ... } while (0)` (the macro idiom) and loops whose body never runs: no loop event.
fn runs_once(node: Node, src: &str) -> bool {
    node.child_by_field_name("condition")
        .and_then(|c| syntax::constant_condition(c, src))
        == Some(false)
}

/// `typedef T __ml_ret_t;` for the return type T of a definition, `None` for `void`.
fn return_typedef(def: &FnDef, src: &str) -> Option<String> {
    let declarator = def.node.child_by_field_name("declarator")?;
    let (fdecl, _) = syntax::function_declarator(declarator)?;
    let mut specifiers = Vec::new();
    for child in named_children(def.node) {
        if child.start_byte() >= declarator.start_byte() {
            break;
        }
        // `const` in `const char *f()` qualifies the pointee and must stay; `_Noreturn` and
        // the like qualify the function and cannot appear in a typedef.
        let qualifier =
            child.kind() == "type_qualifier" && matches!(text(child, src), "const" | "volatile");
        if qualifier || def.node.child_by_field_name("type") == Some(child) {
            specifiers.push(flat_text(child, src));
        }
    }
    let outer = &src[declarator.start_byte()..fdecl.start_byte()];
    let inner = &src[fdecl.end_byte()..declarator.end_byte()];
    let declared = format!("{outer}__ml_ret_t{inner}");
    let declared = declared.split_whitespace().collect::<Vec<_>>().join(" ");
    let specifiers = specifiers.join(" ");
    if specifiers == "void" && declared == "__ml_ret_t" {
        return None;
    }
    // A definition without a type (pre-C99 implicit int) does not parse; any other gap
    // means int as well.
    let specifiers = if specifiers.is_empty() {
        "int".to_string()
    } else {
        specifiers
    };
    Some(format!(" typedef {specifiers} {declared};"))
}

struct Chosen {
    alphabet: Alphabet,
    letters: HashMap<SiteKey, Letter>,
    events: Vec<Event>,
}

/// Error mode: marks the target among the assertions found and queues every assertion's
/// edits.
fn choose_target(
    target: &AssertionTarget,
    findings: &mut Findings,
) -> Result<Vec<AssertionSite>, FrontEndError> {
    if findings.assertions.is_empty() {
        return Err(FrontEndError::NoAssertion);
    }
    let at_line: Vec<usize> = (0..findings.assertions.len())
        .filter(|&i| {
            let s = &findings.assertions[i].site;
            same_place(&s.file.to_string_lossy(), s.line, target)
        })
        .collect();
    let chosen: Vec<usize> = match target.index {
        None => at_line,
        Some(k) => at_line.get(k).copied().into_iter().collect(),
    };
    if chosen.is_empty() {
        let mut existing: Vec<String> = findings
            .assertions
            .iter()
            .map(|a| format!("{}:{}: {}", a.site.file.display(), a.site.line, a.site.text))
            .collect();
        existing.dedup();
        return Err(FrontEndError::UnknownAssertion {
            target: format!("{}:{}", target.file.display(), target.line),
            existing,
        });
    }
    let mut sites = Vec::new();
    for (i, found) in findings.assertions.iter_mut().enumerate() {
        found.site.target = chosen.contains(&i);
        findings.edits[found.unit].extend(found.edits(found.site.target));
        sites.push(found.site.clone());
    }
    Ok(sites)
}

/// Applies `only`/`exclude`, names the letters in order of first occurrence, and appends
/// `end_name` (`end`, or `assert` in error mode).
fn choose_alphabet(
    config: &FrontEndConfig,
    end_name: &str,
    findings: &mut Findings,
) -> Result<Chosen, FrontEndError> {
    let all: BTreeSet<&str> = findings.sites.iter().map(|s| s.name.as_str()).collect();
    let mut unmatched = Vec::new();
    if let Some(only) = &config.only {
        unmatched.extend(
            only.iter()
                .filter(|n| !all.contains(n.as_str()))
                .map(|n| ("--only", n)),
        );
    }
    unmatched.extend(
        config
            .exclude
            .iter()
            .filter(|n| !all.contains(n.as_str()))
            .map(|n| ("--exclude", n)),
    );
    for (option, name) in unmatched {
        findings.warnings.push(format!(
            "{option} {name}: no event of the program has this name"
        ));
    }
    let keep = |name: &str| {
        config.only.as_ref().is_none_or(|o| o.contains(name)) && !config.exclude.contains(name)
    };
    let mut alphabet = Alphabet::new();
    let mut letters = HashMap::new();
    let mut events = Vec::new();
    for site in &findings.sites {
        if !keep(&site.name) {
            continue;
        }
        if site.name == end_name {
            return Err(FrontEndError::ReservedLetter {
                name: site.name.clone(),
                file: site.file.clone().into(),
                line: site.line,
            });
        }
        let letter = alphabet.intern(&site.name);
        letters.insert(site.key, letter);
        events.push(Event {
            letter,
            kind: site.key.2,
            file: site.file.clone().into(),
            line: site.line,
            function: site.function.clone(),
        });
    }
    if alphabet.is_empty() {
        return Err(FrontEndError::EmptyAlphabet);
    }
    alphabet.intern(end_name);
    Ok(Chosen {
        alphabet,
        letters,
        events,
    })
}

fn hook(letter: Letter) -> String {
    format!("__mergelens_event({letter})")
}

fn site_edits(
    sites: &[Site],
    unit: usize,
    letters: &HashMap<SiteKey, Letter>,
    out: &mut Vec<Edit>,
) {
    for site in sites.iter().filter(|s| s.key.0 == unit) {
        let letter = letters.get(&site.key).copied();
        let rank = site.rank;
        match (site.place, letter) {
            (Place::Replace(start, end), letter) => {
                let text = letter.map_or_else(|| "((void)0)".to_string(), hook);
                out.push(Edit::replace(start, end, text, rank + 1));
            }
            (
                Place::Then {
                    start,
                    end,
                    has_else,
                },
                then,
            ) => {
                let (u, id, _) = site.key;
                let otherwise = letters.get(&(u, id, SiteKind::Else)).copied();
                let added_else = if has_else { None } else { otherwise };
                if then.is_none() && added_else.is_none() {
                    continue;
                }
                let open = then.map_or_else(|| "{ ".to_string(), |l| format!("{{ {}; ", hook(l)));
                let close = match added_else {
                    Some(l) => format!(" }} else {{ {}; }}", hook(l)),
                    None => " }".to_string(),
                };
                out.push(Edit::insert(start, open, Side::Open, rank));
                out.push(Edit::insert(end, close, Side::Close, rank));
            }
            (_, None) => {}
            (Place::After(at), Some(l)) => {
                if site.key.2 == SiteKind::Else {
                    continue; // the then arm's edit carries it
                }
                out.push(Edit::insert(
                    at,
                    format!(" {};", hook(l)),
                    Side::Open,
                    rank + 1,
                ));
            }
            (Place::Expr(start, end), Some(l)) => {
                out.push(Edit::insert(
                    start,
                    format!("({}, ", hook(l)),
                    Side::Open,
                    rank + 1,
                ));
                out.push(Edit::insert(end, ")", Side::Close, rank + 1));
            }
            (Place::Stmt(start, end), Some(l)) => {
                out.push(Edit::insert(
                    start,
                    format!("{{ {}; ", hook(l)),
                    Side::Open,
                    rank,
                ));
                out.push(Edit::insert(end, " }", Side::Close, rank));
            }
        }
    }
}

/// `stem.mergelens.i`: already preprocessed (`.i`), so neither gcc nor goto-cc runs the
/// preprocessor a second time over it.
fn output_name(input: &Path, index: usize, used: &mut HashSet<String>) -> String {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".to_string());
    let mut name = format!("{stem}.mergelens.i");
    if !used.insert(name.clone()) {
        name = format!("{stem}.{index}.mergelens.i");
        used.insert(name.clone());
    }
    name
}

/// `# 12 "file" 1 3` or `#line 12`.
fn is_line_marker(line: &str) -> bool {
    let rest = line.trim_start().strip_prefix('#').map(str::trim_start);
    rest.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()) || r.starts_with("line"))
}

/// The tokens of the preprocessed program, and the settings that change what is learned.
/// Not the file names, which differ between checkouts of one version, nor the layout: line
/// numbers and whitespace change no execution (`__LINE__` and `assert`'s line are tokens by
/// now, and the letters of call events, which name their lines, are hashed with the
/// alphabet), so a commit that only edits comments or formatting keeps the fingerprint.
fn fingerprint(config: &FrontEndConfig, units: &[Unit], alphabet: &Alphabet) -> String {
    let mut h = Fnv128::new();
    h.field("mergelens-cprog/2");
    h.field(&config.entry);
    h.field(config.events.as_str());
    match &config.only {
        Some(only) => {
            h.field("only");
            only.iter().for_each(|n| h.field(n));
        }
        None => h.field("all"),
    }
    h.field("exclude");
    config.exclude.iter().for_each(|n| h.field(n));
    for unit in units {
        h.field("unit");
        // Line markers (`# 12 "file" 1 3`) only say where text came from; other directives
        // the preprocessor leaves (`#pragma`) are code and stay.
        let code: Vec<&str> = unit
            .pre
            .text
            .lines()
            .filter(|line| !is_line_marker(line))
            .collect();
        h.tokens(&code.join("\n"));
    }
    h.field("alphabet");
    alphabet.names().for_each(|n| h.field(n));
    h.hex()
}

#[cfg(test)]
mod tests {
    use crate::cprog::{FrontEndConfig, instrument};

    #[test]
    fn functions_span_from_their_name_to_their_closing_brace() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("span.c");
        std::fs::write(
            &source,
            "#define EMPTY\nvoid one(void) {}\nstatic int\ntwo(int x)\n{\n  EMPTY\n  return x;\n}\nint main(void)\n{\n  one();\n  return two(1);\n}\n",
        )
        .unwrap();
        let out = tempfile::tempdir().unwrap();
        let p = instrument(&FrontEndConfig::new(vec![source]), out.path()).unwrap();
        let span = |name: &str| {
            let f = p.functions.iter().find(|f| f.name == name).unwrap();
            (f.line, f.end_line)
        };
        assert_eq!(span("one"), (2, 2));
        assert_eq!(span("two"), (4, 8));
        assert_eq!(span("main"), (9, 13));
    }
}
