//! Finding the program's event sites and turning them into edits. [`SiteWalker`] walks one
//! function body and records each [`Site`] (a function entry, a call, a branch arm, a loop
//! body, a marker) with the [`Place`] its instrumentation goes, plus the edits that do not
//! depend on the alphabet (exit hooks, the entry function's returns) in [`Findings`];
//! [`site_edits`] writes the event hooks once the alphabet has given each kept site its
//! letter. Apart from the driver because the walk is the front end's largest single part
//! and changes whenever a new kind of event or C construct is handled.

use std::collections::HashMap;

use tree_sitter::Node;

use super::index::{FnDef, Index, Unit};
use crate::automaton::Letter;
use crate::cprog::cfg::{EXITS, SiteKey, SiteKind};
use crate::cprog::edit::{Edit, Side};
use crate::cprog::error::FrontEndError;
use crate::cprog::preprocess::{FileOrigin, MARKER_FN};
use crate::cprog::program::{AssertionSite, CallSite, EventKind, FrontEndConfig};
use crate::cprog::syntax::{self, children, flat_text, named_children, strip_parens, text};
use crate::cprog::warning::{FrontEndWarning, WarningKind};

/// An assertion call; its edits wait until the target is known.
pub(super) struct FoundAssertion {
    pub(super) unit: usize,
    /// The call's syntax node (by tree-sitter id): the control-flow model marks the same
    /// node ([`crate::cprog::cfg::AssertionCall`]).
    pub(super) node: usize,
    pub(super) site: AssertionSite,
    /// The call's byte range.
    pub(super) call: (usize, usize),
    /// The condition's byte range, for `assert(c)` and `__CPROVER_assert(c, d)`.
    pub(super) condition: Option<(usize, usize)>,
    pub(super) rank: u32,
}

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

/// Where an event's instrumentation goes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Place {
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

pub(super) struct Site {
    pub(super) key: SiteKey,
    pub(super) name: String,
    pub(super) file: String,
    pub(super) line: u32,
    pub(super) function: String,
    pub(super) place: Place,
    pub(super) rank: u32,
}

/// Everything the event finder learns about the program besides the sites.
#[derive(Default)]
pub(super) struct Findings {
    pub(super) sites: Vec<Site>,
    /// Edits that do not depend on the alphabet, per unit.
    pub(super) edits: Vec<Vec<Edit>>,
    pub(super) warnings: Vec<FrontEndWarning>,
    /// `setjmp`/`longjmp` or threads: control may go anywhere.
    pub(super) jumps: bool,
    /// Error mode: the assertion calls, in source order.
    pub(super) assertions: Vec<FoundAssertion>,
    /// The call sites `record_returns` marks, in the order of their numbers.
    pub(super) call_sites: Vec<CallSite>,
}

/// Walks one function body and records its event sites and the fixed edits (exit hooks,
/// the entry function's returns).
pub(super) struct SiteWalker<'a, 't> {
    pub(super) unit_index: usize,
    pub(super) unit: &'a Unit,
    pub(super) index: &'a Index<'t>,
    pub(super) config: &'a FrontEndConfig,
    pub(super) function: &'a str,
    pub(super) analysed: bool,
    pub(super) is_entry: bool,
    pub(super) entry: usize,
    pub(super) returns_void: bool,
    /// Error mode: the entry's returns are exit points, and assertions are collected.
    pub(super) error_mode: bool,
    pub(super) findings: &'a mut Findings,
    pub(super) error: Option<FrontEndError>,
}

impl SiteWalker<'_, '_> {
    pub(super) fn function(&mut self, def: &FnDef) -> Result<(), FrontEndError> {
        let body = def.body;
        // A product program rebuilds call trees from entries and returns, whatever the
        // events: with calls or branches, function entries are letters too.
        let entries = self.config.events == EventKind::Functions || self.config.record_returns;
        if self.analysed && entries && !self.is_entry {
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
        if self.is_entry || self.records_returns() {
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

    fn warn(&mut self, node: Node, kind: WarningKind, message: String) {
        let (file, line, _) = self.unit.locate(node);
        self.findings.warnings.push(FrontEndWarning::new(
            kind,
            format!("{file}:{line}: {message}"),
        ));
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
        // A function's return comes after everything its body emits, its own entry event
        // included when the body is empty (`{}`): the outermost open at that offset.
        let (side, rank) = if self.is_entry {
            (Side::Close, 0)
        } else {
            (Side::Open, u32::MAX)
        };
        self.edit(Edit::insert(body.end_byte() - 1, hook, side, rank));
    }

    /// Whether this function's returns call `__mergelens_return()` (see
    /// [`FrontEndConfig::record_returns`]): every analysed function but the entry, whose
    /// return is `end`.
    fn records_returns(&self) -> bool {
        self.config.record_returns && self.analysed && !self.is_entry
    }

    /// What the function's return calls: for the entry, the end of a word in program
    /// explanation, an exit point (no failure on this run) in error mode; for another
    /// function, the return hook of [`FrontEndConfig::record_returns`].
    fn return_hook(&self) -> &'static str {
        if !self.is_entry {
            "__mergelens_return()"
        } else if self.error_mode {
            "__mergelens_exit()"
        } else {
            "__mergelens_end()"
        }
    }

    fn visit(&mut self, node: Node, depth: u32) {
        if self.stopped() {
            return;
        }
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
                    WarningKind::NestedFunction,
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
                WarningKind::Goto,
                format!(
                    "goto in `{}`: events follow the jump to its label",
                    self.function
                ),
            ),
            "return_statement" if self.is_entry || self.records_returns() => {
                self.entry_return(node, depth)
            }
            _ => {}
        }
        for child in named_children(node) {
            self.visit(child, depth + 1);
        }
    }

    /// Markers that are never evaluated (`assert` copies its condition into a `sizeof`) emit
    /// nothing, but their calls must still go: nothing defines `__mergelens_marker`.
    /// Whether a stop was requested ([`crate::stop::check`]): the walk ends and
    /// [`SiteWalker::function`] returns the stop, as a stopped gcc's would be.
    fn stopped(&mut self) -> bool {
        if let Some(FrontEndError::Stopped { .. }) = self.error {
            return true;
        }
        let Err(crate::stop::Stopped(reason)) = crate::stop::check() else {
            return false;
        };
        self.error = Some(FrontEndError::Stopped {
            file: self.unit.input.clone(),
            reason,
        });
        true
    }

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
                WarningKind::FunctionPointer,
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
                WarningKind::NonLocalJump,
                format!("{name} in `{}`: the pre-check cannot follow non-local jumps and accepts any word ending in `end`", self.function),
            );
        }
        if THREADS.contains(&name) {
            self.findings.jumps = true;
            self.warn(
                node,
                WarningKind::Thread,
                format!("{name} in `{}`: the pre-check cannot interleave threads and accepts any word ending in `end`", self.function),
            );
        }
        match self.index.resolve(self.unit_index, name) {
            Some(callee) => {
                if callee == self.entry {
                    self.warn(
                        node,
                        WarningKind::EntryReused,
                        format!(
                            "`{}` calls the entry function `{name}`, whose every return emits `end`: the pre-check accepts any word ending in `end`",
                            self.function
                        ),
                    );
                }
                let analysed_callee = self.index.defs[callee].origin.has_events();
                if analysed_callee && callee != self.entry {
                    self.call_site(node, name, depth);
                }
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
            None if !self.index.is_declared(self.unit_index, name) && !cbmc_builtin(name) => self.warn(
                node,
                WarningKind::UndeclaredCall,
                format!(
                    "call of `{name}` in `{}`, which is not declared as a function (a function pointer?): its events are not known before CBMC runs",
                    self.function
                ),
            ),
            None => {}
        }
    }

    /// With `record_returns`, `f(x)` becomes
    /// `(__mergelens_site(k), f(x))`: the site is named before the arguments are evaluated,
    /// so calls nested in them name theirs later and are entered first. The product keeps
    /// the names on a stack that the callee's entry pops (last named, first entered), which
    /// holds whichever order the compiler evaluates a call's parts in.
    fn call_site(&mut self, node: Node, callee: &str, depth: u32) {
        if !self.config.record_returns {
            return;
        }
        let (file, line, _) = self.unit.locate(node);
        self.findings.call_sites.push(CallSite {
            file: file.into(),
            line,
            callee: callee.to_string(),
        });
        let k = self.findings.call_sites.len();
        let rank = depth * 4 + 2;
        self.edit(Edit::insert(
            node.start_byte(),
            format!("(__mergelens_site({k}u), "),
            Side::Open,
            rank,
        ));
        self.edit(Edit::insert(node.end_byte(), ")", Side::Close, rank));
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
pub(super) fn return_typedef(def: &FnDef, src: &str) -> Option<String> {
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

fn hook(letter: Letter) -> String {
    format!("__mergelens_event({letter})")
}

pub(super) fn site_edits(
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

/// Functions CBMC knows without a declaration: its built-ins (`__CPROVER_assume`,
/// `__CPROVER_assert`, ...) and the nondeterministic choices (`nondet_int`,
/// `__VERIFIER_nondet_int`, ...), which call nothing of the program's.
fn cbmc_builtin(name: &str) -> bool {
    name.starts_with("__CPROVER_")
        || name.starts_with("nondet_")
        || name.starts_with("__VERIFIER_nondet_")
}
