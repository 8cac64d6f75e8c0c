//! The three values of a concise automaton: [`ThreeValued`] holds the "yes" and "no"
//! languages of a learned or explained program; every other word is "don't care".
//!
//! The exact automaton of `learn` and `explain` is right on every word within the bounds,
//! and pays for it: a loop the unwinding cuts at 3 is drawn as a chain counting to 3, and a
//! word-length bound as a chain counting letters. The paper names the way out as its own
//! future work (Chockler et al., JAIR 2020, Sec. 9): words no bounded execution produces
//! are "don't care", and the smallest automaton that accepts every "yes" word and rejects
//! every "no" word ([`crate::automaton::concise`]) is a smaller, truer picture. The failure
//! explanations of Yaacov et al. (concise bug descriptions: failing runs "yes", passing
//! runs "no", the rest "don't care") are the model of `explain`'s values.
//!
//! The values, for words of at most the word bound `k` (every longer word is "don't care"):
//!
//! - `learn` ([`learn_values`]): *yes* = the words of bounded executions (the exact
//!   automaton); *no* = the words the control-flow pre-check rejects (no execution at all
//!   can produce them) and, when the run is closed (complete, exact, and the unwinding cut
//!   no loop), every other word; *don't care* = the rest: words that would need more
//!   iterations of a loop the bounds cut.
//! - `explain` ([`explain_values`]): *yes* = the failing words (the explained automaton);
//!   *no* = every other word `w assert` where `w` is the events of a path prefix of the
//!   entry (the pre-check of program explanation, prefix-closed) or of a path to the failure
//!   point, and every word not of the shape `events* assert`; *don't care* = words whose
//!   events no path of the program emits. Treating a syntactic path prefix as "no" is
//!   conservative: the executions' prefixes are among them, so a passing execution is never
//!   drawn as failing, at the price of a less concise automaton when paths are infeasible.

use crate::automaton::{Alphabet, Dfa, Letter, StateId, ops};

use super::precheck;
use super::program::InstrumentedProgram;

/// The "yes" and "no" languages; words in neither are "don't care".
#[derive(Clone, Debug)]
pub struct ThreeValued {
    pub yes: Dfa,
    pub no: Dfa,
    /// What the three values mean for this run, in one sentence for the reader.
    pub rule: String,
}

/// The values of `learn`: `exact` is the learned automaton, `allowed` the teacher's
/// pre-check automaton at the same bounds (words it rejects no execution produces), and
/// `closed` says the run is complete and exact and the unwinding cut no loop, so that every
/// word within the bound that `exact` rejects is impossible too.
pub fn learn_values(
    exact: &Dfa,
    allowed: &Dfa,
    closed: bool,
    max_word_length: usize,
) -> ThreeValued {
    let alphabet = exact.alphabet();
    let bounded = up_to_length(alphabet, max_word_length);
    let yes = ops::intersection(exact, &bounded);
    let (no, rule) = if closed {
        (
            ops::difference(&bounded, exact),
            format!(
                "yes: the words of executions; no: every other word of at most {max_word_length} letters (no loop was cut); don't care: longer words"
            ),
        )
    } else {
        (
            ops::difference(&bounded, allowed),
            format!(
                "yes: the words of executions; no: words the control flow cannot produce; don't care: words that would need more loop iterations than the bounds allow, and words of more than {max_word_length} letters"
            ),
        )
    };
    ThreeValued { yes, no, rule }
}

/// The values of `explain`: `failing` is the explained automaton of `program` (instrumented
/// in error mode, `program.end` being `assert`), `to_failure` the teacher's pre-check at the
/// same bounds (the events of the path prefixes to the failure point, then `assert`).
pub fn explain_values(
    program: &InstrumentedProgram,
    failing: &Dfa,
    to_failure: &Dfa,
    unwind: u32,
    max_word_length: usize,
) -> ThreeValued {
    let alphabet = &program.alphabet;
    let assert = program.end;
    let bounded = up_to_length(alphabet, max_word_length);
    // Paths from the entry's start to its return (target edges are ordinary code there),
    // each followed by `assert`; their prefixes, each followed by `assert`.
    let paths = precheck::build(&program.model, alphabet, assert, unwind);
    let prefixes = precheck::concat_end(&prefix_closure_without(&paths, assert), assert);
    let reached = ops::union(&prefixes, to_failure);
    let misshapen = ops::complement(&precheck::shape(alphabet, assert));
    let no = ops::union(
        &ops::difference(&ops::intersection(&reached, &bounded), failing),
        &ops::intersection(&misshapen, &bounded),
    );
    ThreeValued {
        yes: ops::intersection(failing, &bounded),
        no,
        rule: format!(
            "yes: the words of failing executions; no: the events of any other path of the program, then assert; don't care: events no path emits, and words of more than {max_word_length} letters"
        ),
    }
}

/// Every word of at most `max_len` letters.
fn up_to_length(alphabet: &Alphabet, max_len: usize) -> Dfa {
    let mut d = Dfa::with_states(alphabet.clone(), max_len + 1);
    for q in 0..=max_len {
        d.set_accepting(q as StateId, true);
        if q < max_len {
            for a in alphabet.letters() {
                d.set_transition(q as StateId, a, (q + 1) as StateId);
            }
        }
    }
    d
}

/// The prefixes of `d`'s words that do not contain `letter`.
fn prefix_closure_without(d: &Dfa, letter: Letter) -> Dfa {
    let mut out = ops::trim(d);
    let useful = crate::automaton::analysis::useful_states(&out);
    for q in out.states().collect::<Vec<_>>() {
        out.set_accepting(q, useful[q as usize]);
        out.remove_transition(q, letter);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(alphabet: &Alphabet, words: &[&[&str]]) -> Dfa {
        let words: Vec<_> = words.iter().map(|w| alphabet.word(w).unwrap()).collect();
        ops::from_words(alphabet, &words)
    }

    #[test]
    fn a_cut_loop_leaves_longer_iterations_as_dont_care() {
        let alphabet = Alphabet::from_names(["f", "end"]);
        let exact = chain(&alphabet, &[&["end"], &["f", "end"], &["f", "f", "end"]]);
        // The pre-check: f* end.
        let mut allowed = Dfa::with_states(alphabet.clone(), 2);
        allowed.set_transition(0, 0, 0);
        allowed.set_transition(0, 1, 1);
        allowed.set_accepting(1, true);
        let open = learn_values(&exact, &allowed, false, 5);
        assert!(open.yes.accepts_names(&["f", "end"]));
        assert!(open.no.accepts_names(&["end", "f"]));
        assert!(
            !open.no.accepts_names(&["f", "f", "f", "end"]),
            "don't care"
        );
        assert!(
            !open.no.accepts_names(&["f", "f", "f", "f", "f", "end"]),
            "too long"
        );
        let closed = learn_values(&exact, &allowed, true, 5);
        assert!(closed.no.accepts_names(&["f", "f", "f", "end"]));
        assert!(!closed.no.accepts_names(&["f", "end"]));
    }

    #[test]
    fn prefixes_stop_before_the_letter() {
        let alphabet = Alphabet::from_names(["a", "b", "assert"]);
        let paths = chain(&alphabet, &[&["a", "b", "assert"]]);
        let p = precheck::concat_end(&prefix_closure_without(&paths, 2), 2);
        for word in [&["assert"][..], &["a", "assert"], &["a", "b", "assert"]] {
            assert!(p.accepts_names(word), "{word:?}");
        }
        assert!(!p.accepts_names(&["b", "assert"]));
        assert!(!p.accepts_names(&["a", "b", "assert", "assert"]));
    }
}
