//! What a merge did, as languages: the paper's differences (Fig. 13-14), the expected merge
//! E, and the unexpected and lost behaviour E reveals; and the languages of a diff.

use super::{Automaton, Difference};
use crate::automaton::ops::{self, BoolOp};
use crate::automaton::{Alphabet, Dfa, Word, analysis};

/// How many example words a language carries.
pub const EXAMPLES: usize = 5;

/// Examples are never searched beyond this length: a report shows short words first, and
/// longer ones are hard to read anyway.
const LONGEST_EXAMPLE: usize = 64;

/// The expected merge E of a review: each branch's change to the base and nothing else. A
/// word is in E iff it is in A when A changed it (A(w) != O(w)), else iff it is in B. So a
/// change both branches made the same way is kept, and where they disagree A wins: the
/// conflict was textual or the merge resolved it, and M is compared with A anyway.
pub fn expected_merge(base: &Dfa, ours: &Dfa, theirs: &Dfa) -> Dfa {
    let ours_change = ops::product(ours, base, BoolOp::SymmetricDifference);
    let kept_from_ours = ops::product(ours, &ours_change, BoolOp::Intersection);
    let kept_from_theirs = ops::product(theirs, &ours_change, BoolOp::Difference);
    ops::minimize(&ops::product(
        &kept_from_ours,
        &kept_from_theirs,
        BoolOp::Union,
    ))
}

/// Up to `count` accepted words, shortest first (length-lexicographically), searched up to
/// `bound` letters when that finds any, else up to the automaton's own scale: the learner's
/// generalisation beyond the bound is still worth a look when nothing shorter exists.
pub fn example_words(dfa: &Dfa, bound: usize, count: usize) -> Vec<Word> {
    let Some(shortest) = analysis::shortest_accepted(dfa) else {
        return Vec::new();
    };
    let longest = bound.max(shortest.len()).min(LONGEST_EXAMPLE);
    let mut words = analysis::shortest_words(dfa, longest, count);
    // A least word longer than `LONGEST_EXAMPLE` is still worth showing, alone.
    if words.is_empty() && count > 0 {
        words.push(shortest);
    }
    words
}

/// A language as a document carries it: minimal over `alphabet`, with its shortest words and
/// how many words of at most `bound` letters it has.
pub fn difference(dfa: &Dfa, alphabet: &Alphabet, bound: usize) -> Difference {
    let dfa = over(&ops::minimize(dfa), alphabet);
    let examples = example_words(&dfa, bound, EXAMPLES)
        .iter()
        .map(|w| {
            dfa.alphabet()
                .word_names(w)
                .into_iter()
                .map(str::to_string)
                .collect()
        })
        .collect();
    Difference {
        examples,
        count_up_to_bound: analysis::count_up_to(&dfa, bound).and_then(|c| u64::try_from(c).ok()),
        automaton: Automaton(dfa),
    }
}

/// The same language over `alphabet` (which contains the automaton's letters, matched by
/// name), so that every automaton of an entry lists the same letters in the same order.
pub fn over(dfa: &Dfa, alphabet: &Alphabet) -> Dfa {
    if dfa.alphabet() == alphabet {
        return dfa.clone();
    }
    if dfa.alphabet().is_subset(alphabet) {
        // extend_alphabet keeps states and renames letters; minimise for canonical numbering.
        return ops::minimize(&dfa.extend_alphabet(alphabet));
    }
    // Letters outside `alphabet` cannot occur in an entry's automata; drop them all the same.
    let mut out = Dfa::with_states(alphabet.clone(), dfa.num_states());
    out.set_initial(dfa.initial());
    for q in dfa.states() {
        out.set_accepting(q, dfa.is_accepting(q));
    }
    for (q, a, to) in dfa.transitions() {
        if let Some(b) = alphabet.letter(dfa.alphabet().name(a)) {
            out.set_transition(q, b, to);
        }
    }
    ops::minimize(&out)
}

/// The empty language over `alphabet`: the automaton of a version without the entry.
pub fn empty(alphabet: &Alphabet) -> Dfa {
    Dfa::new(alphabet.clone())
}

/// The languages of one entry of a review.
#[derive(Clone, Debug)]
pub struct MergeLanguages {
    pub expected: Dfa,
    pub merge_minus_ours: Option<Difference>,
    pub merge_minus_theirs: Option<Difference>,
    pub unexpected: Option<Difference>,
    pub lost: Option<Difference>,
    pub ours_vs_theirs: Difference,
}

impl MergeLanguages {
    /// All over `alphabet`; without a merge result (a conflict) only E and A △ B exist.
    pub fn compute(
        base: &Dfa,
        ours: &Dfa,
        theirs: &Dfa,
        merged: Option<&Dfa>,
        alphabet: &Alphabet,
        bound: usize,
    ) -> MergeLanguages {
        let expected = over(&expected_merge(base, ours, theirs), alphabet);
        let diff = |a: &Dfa, b: &Dfa| difference(&ops::difference(a, b), alphabet, bound);
        MergeLanguages {
            merge_minus_ours: merged.map(|m| diff(m, ours)),
            merge_minus_theirs: merged.map(|m| diff(m, theirs)),
            unexpected: merged.map(|m| diff(m, &expected)),
            lost: merged.map(|m| diff(&expected, m)),
            ours_vs_theirs: difference(&ops::symmetric_difference(ours, theirs), alphabet, bound),
            expected,
        }
    }

    pub fn has_unexpected(&self) -> bool {
        self.unexpected
            .as_ref()
            .is_some_and(|d| !analysis::is_empty(&d.automaton.0))
    }

    pub fn has_lost(&self) -> bool {
        self.lost
            .as_ref()
            .is_some_and(|d| !analysis::is_empty(&d.automaton.0))
    }
}

/// The languages of one entry of a diff: added (in `to` only), removed (in `from` only) and
/// their union.
pub fn diff_languages(from: &Dfa, to: &Dfa, alphabet: &Alphabet, bound: usize) -> [Difference; 3] {
    [
        difference(&ops::difference(to, from), alphabet, bound),
        difference(&ops::difference(from, to), alphabet, bound),
        difference(&ops::symmetric_difference(from, to), alphabet, bound),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::json;

    fn fig12(name: &str) -> Dfa {
        let path = format!(
            "{}/tests/fixtures/fig12/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        json::read(std::path::Path::new(&path)).unwrap()
    }

    fn words(d: &Difference) -> Vec<String> {
        d.examples.iter().map(|w| w.join(" ")).collect()
    }

    #[test]
    fn fig12_has_one_unexpected_and_one_lost_word() {
        let (o, a, b, m) = (
            fig12("base"),
            fig12("ours"),
            fig12("theirs"),
            fig12("merged"),
        );
        let alphabet = Alphabet::from_names(["funcA", "funcB", "funcC", "funcZ", "end"]);
        let l = MergeLanguages::compute(&o, &a, &b, Some(&m), &alphabet, 10);
        assert_eq!(
            words(l.unexpected.as_ref().unwrap()),
            ["funcA funcZ funcC end"]
        );
        assert_eq!(words(l.lost.as_ref().unwrap()), ["funcA funcC end"]);
        assert_eq!(l.unexpected.as_ref().unwrap().count_up_to_bound, Some(1));
        assert_eq!(
            words(l.merge_minus_ours.as_ref().unwrap()),
            ["funcA funcZ funcC end"]
        );
        assert_eq!(
            words(l.merge_minus_theirs.as_ref().unwrap()),
            ["funcA funcZ funcB end", "funcA funcZ funcC end"]
        );
        assert!(l.has_unexpected() && l.has_lost());
        assert_eq!(l.expected.alphabet(), &alphabet);
        assert_eq!(l.unexpected.unwrap().automaton.0.alphabet(), &alphabet);
    }

    #[test]
    fn a_merge_that_keeps_both_changes_is_clean() {
        let (o, a, b) = (fig12("base"), fig12("ours"), fig12("theirs"));
        let e = expected_merge(&o, &a, &b);
        let alphabet = Alphabet::from_names(["funcA", "funcB", "funcC", "funcZ", "end"]);
        let l = MergeLanguages::compute(&o, &a, &b, Some(&e), &alphabet, 10);
        assert!(!l.has_unexpected() && !l.has_lost());
        let l = MergeLanguages::compute(&o, &a, &b, None, &alphabet, 10);
        assert!(l.unexpected.is_none() && !l.ours_vs_theirs.examples.is_empty());
    }

    #[test]
    fn diff_languages_are_added_removed_and_both() {
        let (o, a) = (fig12("base"), fig12("ours"));
        let alphabet = Alphabet::from_names(["funcA", "funcB", "funcZ", "end"]);
        let [added, removed, sym] = diff_languages(&o, &a, &alphabet, 10);
        assert_eq!(words(&added), ["funcA funcZ funcB end"]);
        assert_eq!(words(&removed), ["funcA funcB end"]);
        assert_eq!(words(&sym).len(), 2);
    }
}
