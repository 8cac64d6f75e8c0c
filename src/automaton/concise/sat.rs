//! The exact minimum: is there a partial DFA with `n` states consistent with the sample?
//!
//! The encoding is Neider's for separating automata (D. Neider, *Computing minimal
//! separating DFAs and regular invariants using SAT and SMT solvers*, ATVA 2012), which runs
//! the candidate against the product of the two languages instead of against a prefix tree
//! of sample words as Heule and Verwer's does (*Exact DFA identification using SAT
//! solvers*, ICGI 2010). With candidate states `0..n` (0 initial):
//!
//! * `d[i][a][j]`: the candidate goes from `i` to `j` on `a`; at most one `j` per `(i, a)`.
//!   None at all is allowed: the candidate is a *partial* DFA, as the repository draws them,
//!   and its size is counted without a sink.
//! * `f[i]`: `i` accepts.
//! * `x[q][i]`: some word leads the sample to `q` and the candidate to `i`. `x[0][0]`; for
//!   every sample edge `q -a-> q'`, `x[q][i] ∧ d[i][a][j] → x[q'][j]`, and, when a yes word
//!   continues from `q'`, `x[q][i] → ∨j d[i][a][j]` (the candidate may not drop it into its
//!   sink); `x[q][i] → f[i]` for a yes state `q` and `→ ¬f[i]` for a no state.
//!
//! Letters on which no sample edge leads to a yes-live state get no variables: leaving them
//! undefined (rejecting) is always consistent. Symmetry is broken by the breadth-first
//! numbering of Ulyantsev, Zakirzyanov and Shalyto (*BFS-based symmetry breaking predicates
//! for DFA identification*, LATA 2015), adapted to partial automata: every state `j > 0`
//! has a parent `p[j]`, the least state with an edge into it, parents never decrease with
//! `j`, and two states with the same parent are ordered by the least letter leading to them.
//! Only one of the `n!` numberings of each automaton then remains, which is what makes the
//! unsatisfiable sizes below the minimum quick to refute.
//!
//! The solver is batsat, a pure-Rust port of MiniSat 2.2 with one small dependency; its
//! `stop` callback is how the time budget interrupts a search.

use std::time::Instant;

use batsat::{Callbacks, Lit, Solver, SolverInterface, SolverOpts, lbool};

use super::sample::{Label, Sample};
use crate::automaton::dfa::{Dfa, Letter};
use crate::automaton::ops::minimize;

/// The largest encoding built, in clauses (a few hundred MB in the solver); larger ones
/// are left to the heuristic as if the time budget had run out.
const MAX_CLAUSES: usize = 3_000_000;

/// What the solver said about one size.
pub(crate) enum Outcome {
    /// A consistent automaton with exactly this many states, minimised.
    Found(Dfa),
    /// No consistent partial DFA has this many states.
    Refuted,
    /// The deadline passed, or the encoding would be too large.
    OutOfBudget,
}

/// Decides whether a consistent partial DFA with `n >= 1` states exists, by `deadline`.
pub(crate) fn solve(sample: &Sample, n: usize, deadline: Instant) -> Outcome {
    if sample.len() == 0 {
        // Every word is "don't care": the empty language separates, with one state.
        return Outcome::Found(Dfa::new(sample.alphabet().clone()));
    }
    let letters = relevant_letters(sample);
    if Instant::now() >= deadline
        || crate::stop::stop_reason().is_some()
        || estimate_clauses(sample, n, letters.len()) > MAX_CLAUSES
    {
        return Outcome::OutOfBudget;
    }
    let mut e = Encoding::new(sample, n, letters, deadline);
    e.transition_function();
    e.runs();
    e.breadth_first_order();
    let answer = e.solver.solve_limited(&[]);
    if answer == lbool::TRUE {
        Outcome::Found(e.model())
    } else if answer == lbool::FALSE {
        Outcome::Refuted
    } else {
        Outcome::OutOfBudget
    }
}

/// The letters some sample edge into a yes-live state carries, ascending.
fn relevant_letters(sample: &Sample) -> Vec<Letter> {
    let mut used = vec![false; sample.alphabet().len()];
    for q in 0..sample.len() as u32 {
        for &(a, to) in sample.edges(q) {
            used[a as usize] |= sample.yes_live(to);
        }
    }
    (0..used.len() as Letter)
        .filter(|&a| used[a as usize])
        .collect()
}

fn estimate_clauses(sample: &Sample, n: usize, letters: usize) -> usize {
    let edges: usize = (0..sample.len() as u32)
        .map(|q| sample.edges(q).len())
        .sum();
    let square = n.saturating_mul(n);
    let runs = edges.saturating_mul(square.saturating_add(n));
    let function = square.saturating_mul(n).saturating_mul(letters);
    let symmetry = square.saturating_mul(letters.saturating_mul(4).saturating_add(n));
    runs.saturating_add(function).saturating_add(symmetry)
}

/// Stops the solver at the deadline, or at the run's stop request or time budget
/// ([`crate::stop`]); MiniSat asks before every conflict.
struct Deadline(Instant);

impl Callbacks for Deadline {
    fn stop(&self) -> bool {
        Instant::now() >= self.0 || crate::stop::stop_reason().is_some()
    }
}

struct Encoding<'a> {
    sample: &'a Sample,
    n: usize,
    letters: Vec<Letter>,
    /// The index of each letter of the alphabet in `letters`, `None` when irrelevant.
    slot: Vec<Option<usize>>,
    solver: Solver<Deadline>,
    f: Vec<Lit>,
    /// `d[(i * letters + l) * n + j]`.
    d: Vec<Lit>,
    /// `x[q * n + i]`.
    x: Vec<Lit>,
    clause: Vec<Lit>,
}

impl<'a> Encoding<'a> {
    fn new(sample: &'a Sample, n: usize, letters: Vec<Letter>, deadline: Instant) -> Self {
        let mut slot = vec![None; sample.alphabet().len()];
        for (l, &a) in letters.iter().enumerate() {
            slot[a as usize] = Some(l);
        }
        let mut e = Encoding {
            sample,
            n,
            slot,
            solver: Solver::new(SolverOpts::default(), Deadline(deadline)),
            f: Vec::new(),
            d: Vec::new(),
            x: Vec::new(),
            clause: Vec::new(),
            letters,
        };
        e.f = e.fresh(n);
        e.d = e.fresh(n * e.letters.len() * n);
        e.x = e.fresh(sample.len() * n);
        e
    }

    fn fresh(&mut self, count: usize) -> Vec<Lit> {
        (0..count)
            .map(|_| Lit::new(self.solver.new_var_default(), true))
            .collect()
    }

    fn add(&mut self, lits: &[Lit]) {
        self.clause.clear();
        self.clause.extend_from_slice(lits);
        // A `false` return means the clauses are unsatisfiable already; `solve` says so.
        self.solver.add_clause_reuse(&mut self.clause);
    }

    fn d(&self, i: usize, l: usize, j: usize) -> Lit {
        self.d[(i * self.letters.len() + l) * self.n + j]
    }

    fn x(&self, q: usize, i: usize) -> Lit {
        self.x[q * self.n + i]
    }

    /// At most one successor per state and letter (pairwise: `n` is small).
    fn transition_function(&mut self) {
        let (n, k) = (self.n, self.letters.len());
        for i in 0..n {
            for l in 0..k {
                for j in 0..n {
                    for j2 in j + 1..n {
                        self.add(&[!self.d(i, l, j), !self.d(i, l, j2)]);
                    }
                }
            }
        }
    }

    /// The runs of the candidate beside the sample, and the labels they must respect.
    fn runs(&mut self) {
        let n = self.n;
        self.add(&[self.x(0, 0)]);
        for q in 0..self.sample.len() {
            for i in 0..n {
                match self.sample.label(q as u32) {
                    Label::Yes => self.add(&[!self.x(q, i), self.f[i]]),
                    Label::No => self.add(&[!self.x(q, i), !self.f[i]]),
                    Label::DontCare => {}
                }
            }
            let sample = self.sample;
            for &(a, to) in sample.edges(q as u32) {
                // An irrelevant letter is undefined everywhere: the run stops in the sink.
                let Some(l) = self.slot[a as usize] else {
                    continue;
                };
                self.edge(q, l, to as usize);
            }
        }
    }

    fn edge(&mut self, q: usize, l: usize, to: usize) {
        let n = self.n;
        let live = self.sample.yes_live(to as u32);
        for i in 0..n {
            for j in 0..n {
                self.add(&[!self.x(q, i), !self.d(i, l, j), self.x(to, j)]);
            }
            if live {
                let mut some: Vec<Lit> = (0..n).map(|j| self.d(i, l, j)).collect();
                some.push(!self.x(q, i));
                self.add(&some);
            }
        }
    }

    /// The breadth-first numbering (see the module documentation).
    fn breadth_first_order(&mut self) {
        let (n, k) = (self.n, self.letters.len());
        if n < 2 || k == 0 {
            return;
        }
        // below[(i * k + l) * n + j], for i < j: an edge i -> j on one of letters 0..=l.
        let mut below = vec![Lit::UNDEF; n * k * n];
        for i in 0..n {
            for j in i + 1..n {
                for l in 0..k {
                    let v = self.fresh(1)[0];
                    below[(i * k + l) * n + j] = v;
                    self.add(&[!self.d(i, l, j), v]);
                    if l == 0 {
                        self.add(&[!v, self.d(i, 0, j)]);
                    } else {
                        let prev = below[(i * k + l - 1) * n + j];
                        self.add(&[!prev, v]);
                        self.add(&[!v, prev, self.d(i, l, j)]);
                    }
                }
            }
        }
        let edge = |i: usize, j: usize| below[(i * k + k - 1) * n + j];
        let parent = self.parents(&edge);
        let p = |j: usize, i: usize| parent[j * n + i];
        for j in 1..n - 1 {
            for i in 0..j {
                // Parents never decrease...
                for i2 in 0..i {
                    self.add(&[!p(j, i), !p(j + 1, i2)]);
                }
                // ...and siblings come in the order of their least letters.
                for l in 0..k {
                    let mut c = vec![!p(j, i), !p(j + 1, i), !self.d(i, l, j + 1)];
                    if l > 0 {
                        c.push(below[(i * k + l - 1) * n + j]);
                    }
                    self.add(&c);
                }
            }
        }
    }

    /// `parent[j * n + i]` for `i < j`: `i` is the least state with an edge into `j`; every
    /// state but the initial one has a parent, so every state is reachable.
    fn parents(&mut self, edge: &dyn Fn(usize, usize) -> Lit) -> Vec<Lit> {
        let n = self.n;
        let mut parent = vec![Lit::UNDEF; n * n];
        for j in 1..n {
            for i in 0..j {
                let p = self.fresh(1)[0];
                parent[j * n + i] = p;
                self.add(&[!p, edge(i, j)]);
                let mut least = vec![!edge(i, j), p];
                for i2 in 0..i {
                    self.add(&[!p, !edge(i2, j)]);
                    least.push(edge(i2, j));
                }
                self.add(&least);
            }
            let some: Vec<Lit> = (0..j).map(|i| parent[j * n + i]).collect();
            self.add(&some);
        }
        parent
    }

    /// The automaton of the solver's model, minimised (it keeps its `n` states when `n`
    /// is the least satisfiable size).
    fn model(&self) -> Dfa {
        let (n, k) = (self.n, self.letters.len());
        let mut dfa = Dfa::with_states(self.sample.alphabet().clone(), n);
        let holds = |lit: Lit| self.solver.value_lit(lit) == lbool::TRUE;
        for i in 0..n {
            dfa.set_accepting(i as u32, holds(self.f[i]));
            for l in 0..k {
                if let Some(j) = (0..n).find(|&j| holds(self.d(i, l, j))) {
                    dfa.set_transition(i as u32, self.letters[l], j as u32);
                }
            }
        }
        minimize(&dfa)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::dfa::from_edges as dfa;
    use std::time::Duration;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[test]
    fn finds_the_two_state_parity_automaton() {
        // yes: ε, a a; no: a, a a a. The least separator is "even length", 2 states.
        let yes = dfa(&["a"], 3, &[(0, "a", 1), (1, "a", 2)], &[0, 2]);
        let no = dfa(&["a"], 4, &[(0, "a", 1), (1, "a", 2), (2, "a", 3)], &[1, 3]);
        let sample = Sample::build(&yes, &no).unwrap();
        assert!(matches!(solve(&sample, 1, later()), Outcome::Refuted));
        let Outcome::Found(d) = solve(&sample, 2, later()) else {
            panic!("two states suffice");
        };
        assert_eq!(d.num_states(), 2);
        assert!(sample.consistent(&d));
        assert!(d.accepts_names(&["a"; 6]) && !d.accepts_names(&["a"; 5]));
    }

    #[test]
    fn a_partial_automaton_needs_no_sink_state() {
        // yes: {a}; no: {b}. One state cannot accept a (it would accept ε... which is
        // "don't care") — one accepting state with an a loop is consistent: b is rejected
        // by the missing edge.
        let yes = dfa(&["a", "b"], 2, &[(0, "a", 1)], &[1]);
        let no = dfa(&["a", "b"], 2, &[(0, "b", 1)], &[1]);
        let sample = Sample::build(&yes, &no).unwrap();
        let Outcome::Found(d) = solve(&sample, 1, later()) else {
            panic!("one state suffices");
        };
        assert!(sample.consistent(&d) && d.num_states() == 1);
    }

    #[test]
    fn an_expired_deadline_gives_up() {
        let yes = dfa(&["a"], 2, &[(0, "a", 1)], &[1]);
        let no = dfa(&["a"], 1, &[], &[0]);
        let sample = Sample::build(&yes, &no).unwrap();
        assert!(matches!(
            solve(&sample, 2, Instant::now()),
            Outcome::OutOfBudget
        ));
    }
}
