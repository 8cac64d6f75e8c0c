//! Control-flow graphs over events, one per function: the syntax-directed model behind the
//! pre-check automaton (Chockler et al., JAIR 2020, Sec. 4, "Optimisations": a word that no
//! path of the control-flow graph produces is answered "no" without CBMC).
//!
//! Each graph is an ε-NFA fragment built Thompson-style from the syntax tree: sequence,
//! `if`/`switch`/`?:`/`&&`/`||` as choice, loops as cycles, `goto` as an edge to its label.
//! Edges carry the same letters, at the same program points, as the instrumentation that
//! [`super::frontend`] writes, looked up by the same syntax nodes. Calls of defined
//! functions stay call edges, resolved into the callee's summary automaton later; calls
//! the front end cannot see into (libraries, function pointers) are "unknown" edges; calls of
//! `exit`/`abort` end the path.
//!
//! In error mode (the paper's error explanation, Sec. 3, Eq. 4) the assertion calls are
//! modelled as the instrumentation rewrites them, found by the same call nodes
//! ([`AssertionCall`]): the target's failure point is an [`Edge::Target`], after the events
//! of its condition (`assert(c)` evaluates `c`, then fails in the false branch of glibc's
//! expansion, `__assert_fail`; `__CPROVER_assert(c, d)` evaluates `c`, then fails when it is
//! false; `reach_error()` always fails), and every other assertion is ordinary code: its
//! condition is evaluated, nothing stops. Which prefixes of paths reach a target edge is
//! [`super::precheck`]'s business.

use std::collections::HashMap;

use serde::Serialize;
use tree_sitter::Node;

use super::frontend::index::{FnDef, Index, Unit};
use super::preprocess::MARKER_FN;
use super::syntax::{self, named_children, strip_parens, text};
use crate::automaton::Letter;

/// Where an event comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteKind {
    FunctionEntry,
    Call,
    Then,
    Else,
    Case,
    Loop,
    Marker,
}

/// Calls that end the program: the paper's exit points, where the trap of Fig. 11 goes.
pub(crate) const EXITS: [&str; 3] = ["exit", "_Exit", "abort"];

/// A site that emits an event: the node (by tree-sitter id) and what about it.
pub(crate) type SiteKey = (usize, usize, SiteKind);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edge {
    Eps,
    Letter(Letter),
    /// A call of the definition with this index in [`ProgramModel::functions`].
    Call(usize),
    /// A call the front end cannot see into: a library function or a function pointer.
    Unknown,
    /// Error mode: the target assertion fails here, and the run stops. Only the letter
    /// `assert` follows (the end of the word); the edge's target node is never entered, and
    /// a completed call of the function does not take this edge.
    Target,
}

/// An assertion call in error mode, keyed by its unit and call node as
/// [`super::frontend`] found it, with what its instrumentation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AssertionCall {
    /// The target: it fails here when its condition is false (always, without one). Any
    /// other assertion neither stops nor counts.
    pub target: bool,
    /// `assert(c)` or `__CPROVER_assert(c, d)`: the first argument is a condition, evaluated
    /// (for its events) before the failure, the other arguments never. Without one
    /// (`__assert_fail(...)` in the false branch of glibc's `assert`, `reach_error()`), the
    /// call itself is the failure and its arguments are not evaluated.
    pub condition: bool,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Cfg {
    pub nodes: u32,
    pub edges: Vec<(u32, Edge, u32)>,
    pub start: u32,
    /// Where `return` and the end of the body lead.
    pub exit: u32,
    /// The graph cannot be trusted (a parse error in a header, a nested function): the
    /// function may emit any events.
    pub opaque: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct FunctionModel {
    pub cfg: Cfg,
}

/// The whole program as the pre-check sees it.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProgramModel {
    pub functions: Vec<FunctionModel>,
    pub entry: usize,
    /// Functions whose address is taken, which unknown code may call.
    pub taken: Vec<usize>,
    /// `setjmp`/`longjmp` or thread creation somewhere: control may go anywhere.
    pub jumps: bool,
}

/// The model of the program; `assertions` is empty but in error mode.
pub(crate) fn build(
    units: &[Unit],
    index: &Index,
    letters: &HashMap<SiteKey, Letter>,
    assertions: &HashMap<(usize, usize), AssertionCall>,
    entry: usize,
    taken: &[usize],
    jumps: bool,
) -> Result<ProgramModel, crate::stop::Stopped> {
    let functions = index
        .defs
        .iter()
        .map(|def| {
            Builder::new(&units[def.unit], def.unit, index, letters, assertions)
                .function(def)
                .map(|cfg| FunctionModel { cfg })
        })
        .collect::<Result<_, _>>()?;
    Ok(ProgramModel {
        functions,
        entry,
        taken: taken.to_vec(),
        jumps,
    })
}

/// At most this much call weight is duplicated to enumerate the evaluation orders of
/// unsequenced operands; beyond it the operands become a loop over all of them.
const ORDER_BUDGET: u32 = 8;

struct Switch {
    dispatch: u32,
    has_default: bool,
}

struct Builder<'a, 't> {
    unit: usize,
    src: &'a str,
    index: &'a Index<'t>,
    letters: &'a HashMap<SiteKey, Letter>,
    assertions: &'a HashMap<(usize, usize), AssertionCall>,
    cfg: Cfg,
    breaks: Vec<u32>,
    continues: Vec<u32>,
    switches: Vec<Switch>,
    labels: HashMap<String, u32>,
    weights: HashMap<usize, u32>,
    /// Set once a stop is requested ([`crate::stop::check`]): the walk ends at the next
    /// statement and [`Builder::function`] returns the stop.
    stopped: Option<crate::stop::Stopped>,
}

impl<'a, 't> Builder<'a, 't> {
    fn new(
        unit: &'a Unit,
        unit_index: usize,
        index: &'a Index<'t>,
        letters: &'a HashMap<SiteKey, Letter>,
        assertions: &'a HashMap<(usize, usize), AssertionCall>,
    ) -> Self {
        Builder {
            unit: unit_index,
            src: unit.src(),
            index,
            letters,
            assertions,
            cfg: Cfg::default(),
            breaks: Vec::new(),
            continues: Vec::new(),
            switches: Vec::new(),
            labels: HashMap::new(),
            weights: HashMap::new(),
            stopped: None,
        }
    }

    fn function(mut self, def: &FnDef) -> Result<Cfg, crate::stop::Stopped> {
        let start = self.node();
        let exit = self.node();
        self.cfg.start = start;
        self.cfg.exit = exit;
        if def.node.has_error() {
            self.cfg.opaque = true;
            return Ok(self.cfg);
        }
        let at = self.letter(start, def.node, SiteKind::FunctionEntry);
        let end = self.stmt(def.body, at);
        self.eps(end, exit);
        match self.stopped {
            Some(stopped) => Err(stopped),
            None => Ok(self.cfg),
        }
    }

    fn node(&mut self) -> u32 {
        self.cfg.nodes += 1;
        self.cfg.nodes - 1
    }

    fn eps(&mut self, from: u32, to: u32) {
        if from != to {
            self.cfg.edges.push((from, Edge::Eps, to));
        }
    }

    fn edge(&mut self, from: u32, edge: Edge) -> u32 {
        let to = self.node();
        self.cfg.edges.push((from, edge, to));
        to
    }

    fn join(&mut self, a: u32, b: u32) -> u32 {
        let out = self.node();
        self.eps(a, out);
        self.eps(b, out);
        out
    }

    /// The event of this site, if it has a letter in the alphabet.
    fn letter(&mut self, from: u32, node: Node, kind: SiteKind) -> u32 {
        match self.letters.get(&(self.unit, node.id(), kind)) {
            Some(&l) => self.edge(from, Edge::Letter(l)),
            None => from,
        }
    }

    fn label(&mut self, name: &str) -> u32 {
        if let Some(&l) = self.labels.get(name) {
            return l;
        }
        let l = self.node();
        self.labels.insert(name.to_string(), l);
        l
    }

    fn stmt(&mut self, node: Node, from: u32) -> u32 {
        if self.stopped.is_some() {
            return from;
        }
        if let Err(stopped) = crate::stop::check() {
            self.stopped = Some(stopped);
            return from;
        }
        match node.kind() {
            "compound_statement" => named_children(node)
                .into_iter()
                .fold(from, |at, child| self.stmt(child, at)),
            "declaration" => named_children(node)
                .into_iter()
                .fold(from, |at, child| self.expr(child, at)),
            "if_statement" => self.if_statement(node, from),
            "switch_statement" => self.switch_statement(node, from),
            "case_statement" => self.case_statement(node, from),
            "while_statement" => self.while_statement(node, from),
            "do_statement" => self.do_statement(node, from),
            "for_statement" => self.for_statement(node, from),
            "return_statement" => {
                let at = match named_children(node).into_iter().next() {
                    Some(value) => self.expr(value, from),
                    None => from,
                };
                let exit = self.cfg.exit;
                self.eps(at, exit);
                self.node()
            }
            "break_statement" | "continue_statement" => {
                let targets = if node.kind() == "break_statement" {
                    &self.breaks
                } else {
                    &self.continues
                };
                if let Some(&target) = targets.last() {
                    self.eps(from, target);
                }
                self.node()
            }
            "goto_statement" => {
                if let Some(label) = node.child_by_field_name("label") {
                    let target = self.label(text(label, self.src));
                    self.eps(from, target);
                }
                self.node()
            }
            "labeled_statement" => {
                let at = match node.child_by_field_name("label") {
                    Some(label) => {
                        let target = self.label(text(label, self.src));
                        self.eps(from, target);
                        target
                    }
                    None => from,
                };
                match named_children(node).into_iter().last() {
                    Some(inner) => self.stmt(inner, at),
                    None => at,
                }
            }
            "attributed_statement" => match named_children(node).into_iter().last() {
                Some(inner) => self.stmt(inner, from),
                None => from,
            },
            "function_definition" => {
                self.cfg.opaque = true;
                from
            }
            // Expression statements, and anything else read as the expressions it holds.
            _ => self.expr(node, from),
        }
    }

    fn if_statement(&mut self, node: Node, from: u32) -> u32 {
        let at = match node.child_by_field_name("condition") {
            Some(c) => self.expr(c, from),
            None => from,
        };
        let then_start = self.letter(at, node, SiteKind::Then);
        let then_end = match node.child_by_field_name("consequence") {
            Some(arm) => self.stmt(arm, then_start),
            None => then_start,
        };
        let else_start = self.letter(at, node, SiteKind::Else);
        let alternative = node
            .child_by_field_name("alternative")
            .and_then(|clause| named_children(clause).into_iter().last());
        let else_end = match alternative {
            Some(arm) => self.stmt(arm, else_start),
            None => else_start,
        };
        self.join(then_end, else_end)
    }

    fn switch_statement(&mut self, node: Node, from: u32) -> u32 {
        let dispatch = match node.child_by_field_name("condition") {
            Some(c) => self.expr(c, from),
            None => from,
        };
        let exit = self.node();
        self.switches.push(Switch {
            dispatch,
            has_default: false,
        });
        self.breaks.push(exit);
        // The body is entered only through its labels.
        let unreachable = self.node();
        let end = match node.child_by_field_name("body") {
            Some(body) => self.stmt(body, unreachable),
            None => unreachable,
        };
        self.eps(end, exit);
        self.breaks.pop();
        let switch = self.switches.pop().expect("pushed above");
        if !switch.has_default {
            self.eps(dispatch, exit);
        }
        exit
    }

    fn case_statement(&mut self, node: Node, from: u32) -> u32 {
        let label = self.node();
        self.eps(from, label);
        let is_default = node.child(0).is_some_and(|c| c.kind() == "default");
        if let Some(switch) = self.switches.last_mut() {
            switch.has_default |= is_default;
            let dispatch = switch.dispatch;
            self.eps(dispatch, label);
        }
        let value = node.child_by_field_name("value").map(|v| v.id());
        let at = self.letter(label, node, SiteKind::Case);
        named_children(node)
            .into_iter()
            .filter(|c| Some(c.id()) != value)
            .fold(at, |at, child| self.stmt(child, at))
    }

    fn loop_body(&mut self, node: Node, from: u32, exit: u32, next: u32) -> u32 {
        let start = self.letter(from, node, SiteKind::Loop);
        self.breaks.push(exit);
        self.continues.push(next);
        let end = match node.child_by_field_name("body") {
            Some(body) => self.stmt(body, start),
            None => start,
        };
        self.breaks.pop();
        self.continues.pop();
        end
    }

    fn while_statement(&mut self, node: Node, from: u32) -> u32 {
        let head = self.node();
        self.eps(from, head);
        let condition = node.child_by_field_name("condition");
        let tested = match condition {
            Some(c) => self.expr(c, head),
            None => head,
        };
        let constant = condition.and_then(|c| syntax::constant_condition(c, self.src));
        let exit = self.node();
        if constant != Some(false) {
            let end = self.loop_body(node, tested, exit, head);
            self.eps(end, head);
        }
        if constant != Some(true) {
            self.eps(tested, exit);
        }
        exit
    }

    fn do_statement(&mut self, node: Node, from: u32) -> u32 {
        let head = self.node();
        self.eps(from, head);
        let exit = self.node();
        let next = self.node();
        let end = self.loop_body(node, head, exit, next);
        self.eps(end, next);
        let condition = node.child_by_field_name("condition");
        let tested = match condition {
            Some(c) => self.expr(c, next),
            None => next,
        };
        let constant = condition.and_then(|c| syntax::constant_condition(c, self.src));
        if constant != Some(false) {
            self.eps(tested, head);
        }
        if constant != Some(true) {
            self.eps(tested, exit);
        }
        exit
    }

    fn for_statement(&mut self, node: Node, from: u32) -> u32 {
        let at = match node.child_by_field_name("initializer") {
            Some(init) if init.kind() == "declaration" => self.stmt(init, from),
            Some(init) => self.expr(init, from),
            None => from,
        };
        let head = self.node();
        self.eps(at, head);
        let condition = node.child_by_field_name("condition");
        let tested = match condition {
            Some(c) => self.expr(c, head),
            None => head,
        };
        let constant = match condition {
            Some(c) => syntax::constant_condition(c, self.src),
            None => Some(true),
        };
        let exit = self.node();
        if constant != Some(false) {
            let next = self.node();
            let end = self.loop_body(node, tested, exit, next);
            self.eps(end, next);
            let updated = match node.child_by_field_name("update") {
                Some(u) => self.expr(u, next),
                None => next,
            };
            self.eps(updated, head);
        }
        if constant != Some(true) {
            self.eps(tested, exit);
        }
        exit
    }

    /// How much call structure an expression holds (0: nothing that can emit an event).
    fn weight(&mut self, node: Node) -> u32 {
        if let Some(&w) = self.weights.get(&node.id()) {
            return w;
        }
        let kind = node.kind();
        let own = match kind {
            "call_expression" => 1,
            // A statement expression: keep it whole rather than copying it per order.
            "compound_statement" => ORDER_BUDGET + 1,
            _ => 0,
        };
        let w = if syntax::is_unevaluated(kind) {
            0
        } else {
            named_children(node)
                .into_iter()
                .fold(own, |sum, child| sum.saturating_add(self.weight(child)))
        };
        self.weights.insert(node.id(), w);
        w
    }

    fn expr(&mut self, node: Node, from: u32) -> u32 {
        if self.weight(node) == 0 {
            return from;
        }
        match node.kind() {
            "call_expression" => self.call(node, from),
            "compound_statement" => self.stmt(node, from),
            "comma_expression" => {
                let mut at = from;
                for part in named_children(node) {
                    at = self.expr(part, at);
                }
                at
            }
            "binary_expression" => {
                let operator = node
                    .child_by_field_name("operator")
                    .map(|o| text(o, self.src));
                let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) else {
                    return self.any_order(&named_children(node), from);
                };
                if matches!(operator, Some("&&" | "||")) {
                    let after_left = self.expr(left, from);
                    let after_right = self.expr(right, after_left);
                    self.join(after_left, after_right)
                } else {
                    self.any_order(&[left, right], from)
                }
            }
            "conditional_expression" => {
                let tested = match node.child_by_field_name("condition") {
                    Some(c) => self.expr(c, from),
                    None => from,
                };
                let then_end = match node.child_by_field_name("consequence") {
                    Some(c) => self.expr(c, tested),
                    None => tested,
                };
                let else_end = match node.child_by_field_name("alternative") {
                    Some(a) => self.expr(a, tested),
                    None => tested,
                };
                self.join(then_end, else_end)
            }
            _ => self.any_order(&named_children(node), from),
        }
    }

    /// Operands C leaves unsequenced, in every order: each order spelled out while that is
    /// small, else a loop over all operands (which also allows the real orders).
    fn any_order(&mut self, parts: &[Node], from: u32) -> u32 {
        let parts: Vec<Node> = parts
            .iter()
            .copied()
            .filter(|&p| self.weight(p) > 0)
            .collect();
        let total: u32 = parts.iter().map(|&p| self.weight(p)).sum();
        match parts.len() {
            0 => from,
            1 => self.expr(parts[0], from),
            2 | 3 if total <= ORDER_BUDGET => {
                let out = self.node();
                for order in permutations(parts.len()) {
                    let end = order.iter().fold(from, |at, &i| self.expr(parts[i], at));
                    self.eps(end, out);
                }
                out
            }
            _ => {
                let hub = self.node();
                self.eps(from, hub);
                for &part in &parts {
                    let end = self.expr(part, hub);
                    self.eps(end, hub);
                }
                hub
            }
        }
    }

    fn call(&mut self, node: Node, from: u32) -> u32 {
        if self.index.is_cast(self.unit, node, self.src) {
            let operands = node
                .child_by_field_name("arguments")
                .map(named_children)
                .unwrap_or_default();
            return self.any_order(&operands, from);
        }
        let function = node.child_by_field_name("function").map(strip_parens);
        let arguments = node
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        let Some(function) = function else {
            return from;
        };
        let pointer = function.kind() != "identifier"
            || self
                .index
                .calls_variable(self.unit, node, text(function, self.src), self.src);
        if pointer {
            let mut parts = vec![function];
            parts.extend(arguments);
            let at = self.any_order(&parts, from);
            return self.edge(at, Edge::Unknown);
        }
        let name = text(function, self.src);
        if name == MARKER_FN {
            return self.letter(from, node, SiteKind::Marker);
        }
        // Checked where the front end checks it: after casts, pointers and markers.
        if let Some(&assertion) = self.assertions.get(&(self.unit, node.id())) {
            return self.assertion(node, assertion, from);
        }
        // The instrumentation emits a call's event before its arguments are evaluated.
        let at = self.letter(from, node, SiteKind::Call);
        let at = self.any_order(&arguments, at);
        match self.index.resolve(self.unit, name) {
            Some(callee) => self.edge(at, Edge::Call(callee)),
            // The path ends here; a fresh node has no way on.
            None if EXITS.contains(&name) => self.node(),
            // A compiler builtin (`INFINITY` is `__builtin_inff ()`) never calls back into
            // the program: counted as unknown code, it made every function whose address
            // is taken callable from any entry that names one.
            None if name.starts_with("__builtin_") => at,
            None => self.edge(at, Edge::Unknown),
        }
    }
}

impl Builder<'_, '_> {
    /// An assertion call as error mode instruments it: the target becomes
    /// `((c) ? (void)0 : __mergelens_end())` (or `__mergelens_end()` without a condition),
    /// any other `((void)(c))` (or `((void)0)`).
    fn assertion(&mut self, node: Node, assertion: AssertionCall, from: u32) -> u32 {
        let condition = assertion
            .condition
            .then(|| {
                node.child_by_field_name("arguments")
                    .and_then(|a| named_children(a).into_iter().next())
            })
            .flatten();
        let at = match condition {
            Some(c) => self.expr(c, from),
            None => from,
        };
        if !assertion.target {
            return at;
        }
        let failed = self.node();
        self.cfg.edges.push((at, Edge::Target, failed));
        if assertion.condition {
            at // the condition held: the run goes on
        } else {
            self.node() // the call always fails: the path ends
        }
    }
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    match n {
        2 => vec![vec![0, 1], vec![1, 0]],
        3 => vec![
            vec![0, 1, 2],
            vec![0, 2, 1],
            vec![1, 0, 2],
            vec![1, 2, 0],
            vec![2, 0, 1],
            vec![2, 1, 0],
        ],
        _ => vec![(0..n).collect()],
    }
}
