//! The facts a report derives from its document: the languages a document may leave out
//! (the expected merge, the differences), example words, word counts, and the transitions an
//! example's run takes through a version's automaton (to colour them in its drawing).

use std::collections::{BTreeSet, HashSet};

use crate::automaton::ops;
use crate::automaton::{Dfa, Letter, StateId, analysis};

use crate::document::Difference;

/// The expected merge E and example words have one definition, in
/// [`crate::document::languages`], for the review that writes documents and the report that
/// reads them.
pub(crate) use crate::document::languages::{example_words, expected_merge};

/// A language shown in a report, with what the reader sees of it.
#[derive(Clone, Debug)]
pub(crate) struct Language {
    /// Minimal and trimmed, so that drawings have no dead states.
    pub dfa: Dfa,
    /// Accepted words, shortest first.
    pub examples: Vec<Vec<String>>,
    /// Accepted words of length at most the bound; `None` when unknown or too many to count.
    pub count: Option<u128>,
    /// Whether the report computed the language because the document left it out.
    pub computed: bool,
}

impl Language {
    /// The document's language when it has one, else `compute()`'s.
    pub fn new(
        given: Option<&Difference>,
        compute: impl FnOnce() -> Dfa,
        bound: usize,
        examples: usize,
    ) -> Language {
        let (dfa, computed) = match given {
            Some(d) => (ops::minimize(&d.automaton.0), false),
            None => (ops::minimize(&compute()), true),
        };
        let mut words = given.map(|d| d.examples.clone()).unwrap_or_default();
        if words.is_empty() {
            words = example_words(&dfa, bound, examples)
                .iter()
                .map(|w| names(&dfa, w))
                .collect();
        }
        let count = match given.and_then(|d| d.count_up_to_bound) {
            Some(c) => Some(u128::from(c)),
            None => analysis::count_up_to(&dfa, bound),
        };
        Language {
            dfa,
            examples: words,
            count,
            computed,
        }
    }

    pub fn is_empty(&self) -> bool {
        analysis::is_empty(&self.dfa)
    }
}

pub(crate) fn names(dfa: &Dfa, word: &[Letter]) -> Vec<String> {
    dfa.alphabet()
        .word_names(word)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The transitions of `dfa` that the run of `word` takes, when `dfa` accepts the word.
pub(crate) fn accepting_run(dfa: &Dfa, word: &[String]) -> Option<Vec<(StateId, Letter)>> {
    let letters = dfa.alphabet().word(word)?;
    let mut state = dfa.initial();
    let mut edges = Vec::with_capacity(letters.len());
    for &a in &letters {
        edges.push((state, a));
        state = dfa.next(state, a)?;
    }
    dfa.is_accepting(state).then_some(edges)
}

/// The transitions the accepting runs of `words` take through `dfa`, for a drawing's
/// highlighted edges; words `dfa` rejects contribute nothing.
pub(crate) fn runs_through<'a>(
    dfa: &Dfa,
    words: impl IntoIterator<Item = &'a Vec<String>>,
) -> HashSet<(StateId, Letter)> {
    words
        .into_iter()
        .filter_map(|w| accepting_run(dfa, w))
        .flatten()
        .collect()
}

/// The letters on the transitions of accepting runs: the functions a language is about.
pub(crate) fn useful_letters(dfa: &Dfa) -> BTreeSet<String> {
    let useful = analysis::useful_states(dfa);
    dfa.transitions()
        .filter(|&(q, _, to)| useful[q as usize] && useful[to as usize])
        .map(|(_, a, _)| dfa.alphabet().name(a).to_string())
        .collect()
}

/// A diff entry's added (L(new) \ L(old)) and removed (L(old) \ L(new)) languages: the
/// document's, else computed from its two automata.
pub(crate) fn added_removed(
    entry: &crate::document::DiffEntry,
    bound: usize,
    examples: usize,
) -> (Language, Language) {
    let old = ops::minimize(&entry.automata.old.0);
    let new = ops::minimize(&entry.automata.new.0);
    let added = Language::new(
        entry.added.as_ref(),
        || ops::difference(&new, &old),
        bound,
        examples,
    );
    let removed = Language::new(
        entry.removed.as_ref(),
        || ops::difference(&old, &new),
        bound,
        examples,
    );
    (added, removed)
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

    #[test]
    fn the_expected_merge_of_fig12_keeps_each_branch_change() {
        let e = expected_merge(&fig12("base"), &fig12("ours"), &fig12("theirs"));
        let words: Vec<String> = analysis::words_up_to(&e, 8, 100)
            .unwrap()
            .iter()
            .map(|w| e.alphabet().format_word(w))
            .collect();
        assert_eq!(words, ["funcA funcC end", "funcA funcZ funcB end"]);
    }

    #[test]
    fn examples_are_the_shortest_words_and_runs_follow_them() {
        let merged = fig12("merged");
        let words = example_words(&merged, 10, 5);
        let text: Vec<String> = words
            .iter()
            .map(|w| merged.alphabet().format_word(w))
            .collect();
        assert_eq!(text, ["funcA funcZ funcB end", "funcA funcZ funcC end"]);
        let word = names(&merged, &words[1]);
        let run = accepting_run(&merged, &word).unwrap();
        assert_eq!(run.len(), 4);
        assert!(accepting_run(&fig12("ours"), &word).is_none());
        assert_eq!(runs_through(&merged, [&word]).len(), 4);
    }

    #[test]
    fn examples_of_a_huge_single_length_are_its_first_words() {
        // 60^5 words of length 5: the examples are the first five, none enumerated beyond.
        let alphabet = crate::automaton::Alphabet::from_names((0..60).map(|i| format!("f{i}")));
        let mut dfa = Dfa::with_states(alphabet, 6);
        for q in 0..5u32 {
            for a in 0..60 {
                dfa.set_transition(q, a, q + 1);
            }
        }
        dfa.set_accepting(5, true);
        let words = example_words(&dfa, 12, 5);
        let last_letters: Vec<u32> = words.iter().map(|w| w[4]).collect();
        assert_eq!(last_letters, [0, 1, 2, 3, 4]);
        assert!(words.iter().all(|w| w.len() == 5 && w[..4] == [0; 4]));
    }
}
