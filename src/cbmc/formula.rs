//! A program's formula at its bounds, kept to answer many membership queries with one
//! symbolic execution: incremental SAT on the CNF CBMC writes.
//!
//! Key types: [`WordFormula`] (the CNF in a SAT solver, and the literals of the queried
//! word), built by [`WordFormula::read`] from `cbmc --dimacs` on the harness of
//! [`crate::cbmc::harness::word_formula`]; [`WordFormula::members`] answers a batch of
//! membership queries, [`WordFormula::rejected_word`] the positive half of a conjecture query. [`Slot`]
//! is what a program keeps per bounds (the policy is in `program/kept.rs`).
//!
//! Why: a membership batch (Fig. 7 of Chockler, Kesseli, Kroening and Strichman, *Learning
//! the Language of Software Errors*, JAIR 2020) is one CBMC run, and each run executes the
//! whole program symbolically and hands a fresh formula to a fresh solver. On the paper's
//! `schedule` that is about 2 s per batch, of which the symbolic execution is a third: the
//! rest is MiniSat on a formula that is the same in every batch but for the words' constants.
//! Here the words are not constants: the harness compares the path with a free global,
//! [`crate::cbmc::harness::QUERY_WORD`], and CBMC writes the formula once (`--dimacs`, with its
//! map from each SSA symbol to its literals). A word is in the language iff the formula is
//! satisfiable with that global's bits assumed to be the word's code: MiniSat's incremental
//! interface (Eén and Sörensson, *Temporal induction by incremental SAT solving*, 2003), on
//! batsat. Learned clauses carry over from word to word; where the word fixes the path, a
//! word costs about a millisecond (`schedule`, the corpus's sort). Where it does not (a
//! hash of an input decides the path), each word is a hard refutation, so the solver's
//! time per query is bounded by what CBMC's run costs there, and past it the formula is
//! dropped (`program/kept.rs`).
//!
//! Exactness: the formula is CBMC's own for that program at those bounds, and the harness
//! is the membership harness with the word left free, so each answer is the one CBMC would
//! give. CBMC checks every property of a program at once and hands the solver the
//! disjunction of their failures; with more than one property the formula constrains
//! nothing (a property that always fails, such as CBMC's "no body for callee", makes the
//! disjunction true), so the run checks only the harness's one property (`--property`).

use std::fmt;
use std::time::{Duration, Instant};

use batsat::{Callbacks, Lit, Solver, SolverInterface, SolverOpts, Var, lbool};

use super::harness::{QUERY_WORD, code_bits};
use crate::automaton::{Dfa, Letter, Word};
use crate::stop;

/// A bit of a symbol in the formula: a literal, or a constant where CBMC's simplification
/// fixed it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Bit {
    Lit(Lit),
    Const(bool),
}

/// The CNF of one program at one bounds, loaded in a SAT solver, and the bits of the
/// queried word.
pub(crate) struct WordFormula {
    solver: Solver<Deadline>,
    query: Vec<Bit>,
    /// Bits of one letter's digit in the word's code.
    bits: u32,
    /// The letters of the alphabet: a digit is 0 (before the word) or a letter plus one.
    letters: usize,
    /// `digits[p][v]` holds iff digit `p` (from the lowest) of the queried word is `v`;
    /// made on the first conjecture.
    digits: Vec<Vec<Lit>>,
}

impl fmt::Debug for WordFormula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WordFormula")
            .field("variables", &self.solver.num_vars())
            .field("clauses", &self.solver.num_clauses())
            .field("query_bits", &self.query.len())
            .finish()
    }
}

impl WordFormula {
    /// Loads `cnf`, CBMC's `--dimacs` output for a harness of
    /// [`crate::cbmc::harness::word_formula`] whose digits have `bits` bits. `None` when the
    /// formula names no single symbol for the queried word (the property was decided
    /// during symbolic execution, or sliced away): then CBMC's own batches answer.
    pub(crate) fn read(cnf: &str, bits: u32, letters: usize) -> Option<WordFormula> {
        let mut load = Loader::new();
        let mut query: Option<Vec<Bit>> = None;
        let mut clause = Vec::new();
        for line in cnf.lines() {
            if let Some(rest) = line.strip_prefix("c ") {
                let mut fields = rest.split_ascii_whitespace();
                let named = fields.next().and_then(|n| n.strip_prefix(QUERY_WORD));
                if named.is_some_and(|tail| tail.starts_with('#')) {
                    if query.is_some() {
                        return None;
                    }
                    query = Some(fields.map(|f| load.bit(f)).collect::<Option<_>>()?);
                }
                continue;
            }
            if line.starts_with('p') || line.is_empty() {
                continue;
            }
            load.clause(line, &mut clause)?;
        }
        let query = query.filter(|q| !q.is_empty() && q.len() % bits as usize == 0)?;
        Some(WordFormula {
            solver: load.solver,
            query,
            bits,
            letters,
            digits: Vec::new(),
        })
    }

    /// Whether some execution within the formula's bounds has the event word, for each of
    /// `words`: `None` if the solver ran past `limit` or the run was asked to stop. One
    /// solve per word, with the queried word's bits assumed: the assumptions propagate
    /// into the formula, so on programs whose path the word fixes a word costs
    /// milliseconds. (One solve for a whole batch, a selector literal per word and their
    /// disjunction asked as CBMC asks a batch's assertions, cost three times as much on the
    /// corpus's sort: each "yes" is then a search for any open word.)
    pub(crate) fn members(&mut self, words: &[&[Letter]], limit: SolveLimit) -> Option<Vec<bool>> {
        self.solver.cb_mut().set(limit);
        let mut assumptions = Vec::with_capacity(self.query.len());
        let mut answers = Vec::with_capacity(words.len());
        'words: for word in words {
            let code = code_bits(word, self.bits);
            if code.len() > self.query.len() {
                answers.push(false);
                continue;
            }
            assumptions.clear();
            for (i, bit) in self.query.iter().enumerate() {
                let want = code.get(i).copied().unwrap_or(false);
                match *bit {
                    Bit::Const(c) if c != want => {
                        answers.push(false);
                        continue 'words;
                    }
                    Bit::Const(_) => {}
                    Bit::Lit(l) => assumptions.push(if want { l } else { !l }),
                }
            }
            let answer = self.solver.solve_limited(&assumptions);
            if answer == lbool::UNDEF {
                return None;
            }
            answers.push(answer == lbool::TRUE);
        }
        Some(answers)
    }
}

impl WordFormula {
    /// The positive half of a conjecture query (Fig. 9 of the paper) on the formula: the
    /// word of an execution that `dfa` rejects, `Some(None)` if there is none, `None` if the
    /// solver ran past `limit`. The automaton's run over the word's digits is encoded
    /// beside the formula (one literal per position and state, the transitions as
    /// implications from the first digit down, an implicit rejecting sink), under an
    /// activation literal retired afterwards, so the formula stays as it was.
    pub(crate) fn rejected_word(&mut self, dfa: &Dfa, limit: SolveLimit) -> Option<Option<Word>> {
        self.make_digits();
        let positions = self.digits.len();
        let sink = dfa.num_states();
        let act = Lit::new(self.solver.new_var_default(), true);
        // states[t][k]: after reading the `t` highest digits, the run is in state `k`.
        let states: Vec<Vec<Lit>> = (0..=positions)
            .map(|_| {
                (0..=sink)
                    .map(|_| Lit::new(self.solver.new_var_default(), true))
                    .collect()
            })
            .collect();
        let mut clause = vec![!act, states[0][dfa.initial() as usize]];
        self.solver.add_clause_reuse(&mut clause);
        for t in 0..positions {
            let digit = &self.digits[positions - 1 - t];
            for k in 0..=sink {
                // Digit 0 lies before the word's first letter: the run has not started.
                for (v, &is_v) in digit.iter().enumerate() {
                    let to = match v {
                        0 => k,
                        _ if k == sink => sink,
                        _ => dfa
                            .next(k as u32, (v - 1) as Letter)
                            .map_or(sink, |s| s as usize),
                    };
                    let mut c = vec![!act, !states[t][k], !is_v, states[t + 1][to]];
                    self.solver.add_clause_reuse(&mut c);
                }
            }
        }
        for k in dfa.accepting_states() {
            let mut c = vec![!act, !states[positions][k as usize]];
            self.solver.add_clause_reuse(&mut c);
        }
        self.solver.cb_mut().set(limit);
        let answer = self.solver.solve_limited(&[act]);
        let found = if answer == lbool::TRUE {
            // A model whose digit is no letter is not the harness's: CBMC answers instead.
            Some(Some(self.model_word()?))
        } else if answer == lbool::FALSE {
            Some(None)
        } else {
            None
        };
        let mut retire = vec![!act];
        self.solver.add_clause_reuse(&mut retire);
        found
    }

    /// `digits[p][v] <=> digit p is v`, for every position and value.
    fn make_digits(&mut self) {
        if !self.digits.is_empty() {
            return;
        }
        let bits = self.bits as usize;
        for p in 0..self.query.len() / bits {
            let mut values = Vec::with_capacity(self.letters + 1);
            for v in 0..=self.letters {
                let is_v = Lit::new(self.solver.new_var_default(), true);
                // Every bit matching implies is_v; is_v implies each bit matches.
                let mut all = vec![is_v];
                let mut possible = true;
                for (j, bit) in self.query[p * bits..(p + 1) * bits].iter().enumerate() {
                    let want = v >> j & 1 == 1;
                    match *bit {
                        Bit::Const(c) => possible &= c == want,
                        Bit::Lit(l) => {
                            let l = if want { l } else { !l };
                            let mut c = vec![!is_v, l];
                            self.solver.add_clause_reuse(&mut c);
                            all.push(!l);
                        }
                    }
                }
                if possible {
                    self.solver.add_clause_reuse(&mut all);
                } else {
                    let mut never = vec![!is_v];
                    self.solver.add_clause_reuse(&mut never);
                }
                values.push(is_v);
            }
            self.digits.push(values);
        }
    }

    /// The queried word in the solver's model: its digits from the highest, the leading
    /// zeros skipped, each a letter plus one. `None` for a digit that is no letter.
    fn model_word(&self) -> Option<Word> {
        let bits = self.bits as usize;
        let value = |bit: &Bit| match *bit {
            Bit::Const(c) => c,
            Bit::Lit(l) => self.solver.value_lit(l) == lbool::TRUE,
        };
        let mut word = Vec::new();
        for p in (0..self.query.len() / bits).rev() {
            let digit = self.query[p * bits..(p + 1) * bits]
                .iter()
                .enumerate()
                .fold(0usize, |d, (j, b)| d | usize::from(value(b)) << j);
            match digit {
                0 if word.is_empty() => {}
                d if d >= 1 && d <= self.letters => word.push((d - 1) as Letter),
                _ => return None,
            }
        }
        Some(word)
    }
}

/// What a program keeps for one bounds.
#[derive(Debug)]
pub(crate) enum Slot {
    /// CBMC has answered queries here, the longest taking `longest`.
    Queries { longest: Duration },
    /// The formula, and how long the solver may take on one query before the formula is
    /// dropped: about what a CBMC run here costs, so that a formula harder for the solver
    /// alone than for CBMC's batches costs at most one such run.
    Ready {
        formula: Box<WordFormula>,
        budget: Duration,
    },
    /// The formula is no use here: CBMC answers.
    Unusable,
}

/// The solver being loaded, and its variables in DIMACS order.
pub(crate) struct Loader {
    pub(crate) solver: Solver<Deadline>,
    vars: Vec<Var>,
}

impl Loader {
    pub(crate) fn new() -> Loader {
        Loader {
            solver: Solver::new(SolverOpts::default(), Deadline::default()),
            vars: Vec::new(),
        }
    }

    /// Adds the clause of one DIMACS line (`1 -2 0`); `None` if it is no clause.
    pub(crate) fn clause(&mut self, line: &str, clause: &mut Vec<Lit>) -> Option<()> {
        clause.clear();
        for field in line.split_ascii_whitespace() {
            let n: i64 = field.parse().ok()?;
            if n == 0 {
                break;
            }
            clause.push(self.literal(n)?);
        }
        self.solver.add_clause_reuse(clause);
        Some(())
    }

    /// The literal of DIMACS variable `n` (negative: negated), creating variables up to it.
    pub(crate) fn literal(&mut self, n: i64) -> Option<Lit> {
        let index = usize::try_from(n.unsigned_abs()).ok()?;
        while self.vars.len() < index {
            self.vars.push(self.solver.new_var_default());
        }
        Some(Lit::new(*self.vars.get(index.checked_sub(1)?)?, n > 0))
    }

    /// One field of a symbol's bits in CBMC's map: a literal, `TRUE` or `FALSE`.
    pub(crate) fn bit(&mut self, field: &str) -> Option<Bit> {
        match field {
            "TRUE" => Some(Bit::Const(true)),
            "FALSE" => Some(Bit::Const(false)),
            n => Some(Bit::Lit(self.literal(n.parse().ok()?)?)),
        }
    }
}

/// When a solve must stop: at a moment (the query's deadline, the review's budget) and
/// after an allowance of the solving thread's own CPU time. The allowance is CPU time, not
/// wall time, because it is weighed against CBMC's runs on the same program: on a loaded
/// machine (a test run beside a build) the wall clock stretches both, and a formula that
/// answers in milliseconds of CPU was being dropped as "slower than CBMC".
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct SolveLimit {
    pub(crate) deadline: Option<Instant>,
    pub(crate) cpu: Option<Duration>,
}

/// Stops a solve at its [`SolveLimit`] or at the process's stop request; MiniSat asks
/// before every conflict.
#[derive(Default)]
pub(crate) struct Deadline {
    wall: Option<Instant>,
    /// The thread CPU time (see [`thread_cpu_time`]) past which the solve stops.
    cpu_until: Option<Duration>,
}

impl Deadline {
    pub(crate) fn set(&mut self, limit: SolveLimit) {
        self.wall = limit.deadline;
        self.cpu_until = limit.cpu.map(|d| thread_cpu_time() + d);
    }
}

impl Callbacks for Deadline {
    fn stop(&self) -> bool {
        self.wall.is_some_and(|d| Instant::now() >= d)
            || self.cpu_until.is_some_and(|c| thread_cpu_time() >= c)
            || stop::stop_reason().is_some()
    }
}

/// The CPU time the calling thread has used.
fn thread_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock id is a constant Linux knows.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut t) } == 0;
    if ok {
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    } else {
        Duration::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made formula over a 2-letter word code of 2-bit digits: the language is
    /// {"0 1"} (digits 1 then 2: code bits, lowest first, 0 1 1 0).
    #[test]
    fn a_word_is_in_the_language_iff_the_formula_allows_its_code() {
        let cnf = "p cnf 4 4\nc __mergelens_query#1 1 2 3 4\n-1 0\n2 0\n3 0\n-4 0\n";
        let mut f = WordFormula::read(cnf, 2, 2).expect("one query symbol");
        let words: [&[Letter]; 4] = [&[1, 0], &[0, 1], &[1], &[0, 1, 1]];
        assert_eq!(
            f.members(&words, SolveLimit::default()),
            Some(vec![false, true, false, false])
        );
        // Asked again, alone: the first batch's selectors changed nothing.
        assert_eq!(
            f.members(&[&[0, 1]], SolveLimit::default()),
            Some(vec![true])
        );
        assert_eq!(f.members(&[], SolveLimit::default()), Some(vec![]));
        // Two words of a language of two, asked in one batch: a solve for each "yes".
        let two = "p cnf 4 2\nc __mergelens_query#1 1 2 3 4\n3 0\n-4 0\n";
        let mut f = WordFormula::read(two, 2, 2).expect("one query symbol");
        let words: [&[Letter]; 3] = [&[0, 0], &[1, 0], &[0, 1]];
        assert_eq!(
            f.members(&words, SolveLimit::default()),
            Some(vec![true, false, true])
        );
    }

    /// The positive half of a conjecture query finds the language's word the automaton
    /// rejects, and nothing once it accepts it; the formula is unchanged afterwards.
    #[test]
    fn a_rejected_word_of_the_language_is_found() {
        let cnf = "p cnf 4 4\nc __mergelens_query#1 1 2 3 4\n-1 0\n2 0\n3 0\n-4 0\n";
        let mut f = WordFormula::read(cnf, 2, 2).expect("one query symbol");
        let alphabet = crate::automaton::Alphabet::from_names(["a", "b"]);
        let empty = Dfa::new(alphabet.clone());
        assert_eq!(
            f.rejected_word(&empty, SolveLimit::default()),
            Some(Some(vec![0, 1]))
        );
        let mut exact = Dfa::new(alphabet);
        let (s1, s2) = (exact.add_state(false), exact.add_state(true));
        exact.set_transition(exact.initial(), 0, s1);
        exact.set_transition(s1, 1, s2);
        assert_eq!(f.rejected_word(&exact, SolveLimit::default()), Some(None));
        assert_eq!(
            f.rejected_word(&empty, SolveLimit::default()),
            Some(Some(vec![0, 1]))
        );
        assert_eq!(
            f.members(&[&[0, 1]], SolveLimit::default()),
            Some(vec![true])
        );
    }

    #[test]
    fn constant_bits_answer_without_the_solver() {
        let cnf = "p cnf 2 0\nc __mergelens_query#1 FALSE TRUE 1 2\n";
        let mut f = WordFormula::read(cnf, 2, 2).expect("one query symbol");
        // Last letter 0: digit 1, bits 1 0, against the constants FALSE TRUE; last letter
        // 1: digit 2, bits 0 1.
        assert_eq!(
            f.members(&[&[0], &[1]], SolveLimit::default()),
            Some(vec![false, true])
        );
    }

    #[test]
    fn no_single_query_symbol_is_no_formula() {
        assert!(WordFormula::read("p cnf 1 1\n1 0\n", 2, 2).is_none());
        let twice = "p cnf 2 0\nc __mergelens_query#1 1 2\nc __mergelens_query#2 1 2\n";
        assert!(WordFormula::read(twice, 2, 2).is_none());
    }
}
