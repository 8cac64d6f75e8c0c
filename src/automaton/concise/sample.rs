//! The three-valued product of the "yes" and "no" automata, the sample both searches work on.
//!
//! A state of [`Sample`] is a pair (state of yes, state of no), either side possibly the
//! implicit sink, reached from the pair of initial states; it is labelled [`Label::Yes`] when
//! yes accepts there, [`Label::No`] when no does, and [`Label::DontCare`] otherwise. Only
//! the pairs from which a labelled pair is reachable are kept: from the others every word is
//! "don't care", so they constrain no candidate automaton. [`Sample::consistent`] runs a
//! candidate DFA side by side with the sample and says whether it accepts every yes word and
//! rejects every no word.

use crate::automaton::dfa::{Alphabet, Dfa, Letter, NO_STATE, StateId, Word};
use crate::automaton::pairs::{PairMap, letter_map, pair_key, step};

/// What the two languages say of the words that end in a product state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Label {
    Yes,
    No,
    DontCare,
}

/// A candidate automaton as [`Sample::consistent`] runs it, letters being those of the
/// sample's alphabet: a [`Dfa`], or a quotient being tried during state merging.
pub(crate) trait Hypothesis {
    fn start(&self) -> StateId;
    /// The successor, `None` for the implicit rejecting sink.
    fn step(&self, state: StateId, letter: Letter) -> Option<StateId>;
    fn accepts(&self, state: StateId) -> bool;
}

impl Hypothesis for Dfa {
    fn start(&self) -> StateId {
        self.initial()
    }

    fn step(&self, state: StateId, letter: Letter) -> Option<StateId> {
        self.next(state, letter)
    }

    fn accepts(&self, state: StateId) -> bool {
        self.is_accepting(state)
    }
}

/// The pruned, labelled product of yes and no over the union of their alphabets.
pub(crate) struct Sample {
    alphabet: Alphabet,
    /// The label of each kept state; state 0 is the pair of initial states. Empty when no
    /// labelled pair is reachable at all (both languages empty).
    label: Vec<Label>,
    /// Whether a yes-labelled state is reachable from the state (itself included): a
    /// candidate that sends such a state's words to the sink loses yes words.
    yes_live: Vec<bool>,
    /// The edges between kept states as a CSR: `edges[offset[q]..offset[q + 1]]` are the
    /// `(letter, target)` pairs leaving `q`, by letter.
    offset: Vec<usize>,
    edges: Vec<(Letter, StateId)>,
}

/// The product as explored, before pruning.
struct Raw {
    label: Vec<Label>,
    offset: Vec<usize>,
    edges: Vec<(Letter, StateId)>,
}

impl Sample {
    /// The sample of `yes` and `no`, or the length-lexicographically least word both accept.
    pub(crate) fn build(yes: &Dfa, no: &Dfa) -> Result<Sample, Word> {
        let alphabet = yes.alphabet().union(no.alphabet());
        let raw = explore(yes, no, &alphabet)?;
        Ok(prune(alphabet, &raw))
    }

    pub(crate) fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }

    /// The number of kept states; 0 when every word is "don't care".
    pub(crate) fn len(&self) -> usize {
        self.label.len()
    }

    pub(crate) fn label(&self, q: StateId) -> Label {
        self.label[q as usize]
    }

    pub(crate) fn yes_live(&self, q: StateId) -> bool {
        self.yes_live[q as usize]
    }

    /// The `(letter, target)` edges leaving `q` towards kept states.
    pub(crate) fn edges(&self, q: StateId) -> &[(Letter, StateId)] {
        &self.edges[self.offset[q as usize]..self.offset[q as usize + 1]]
    }

    /// Whether `d` (over [`Self::alphabet`]) accepts every yes word and rejects every no word.
    pub(crate) fn consistent(&self, d: &impl Hypothesis) -> bool {
        if self.label.is_empty() {
            return true;
        }
        // Every reachable pair (state of d, state of the sample) is visited once. d's sink
        // is never pushed: from it every word is rejected, which only a yes-live state
        // minds, and that is answered on the spot.
        let mut seen = PairMap::with_capacity(self.len());
        let mut queue = vec![(d.start(), 0 as StateId)];
        seen.get_or_insert(pair_key(d.start(), 0), 0);
        while let Some((h, q)) = queue.pop() {
            match self.label(q) {
                Label::Yes if !d.accepts(h) => return false,
                Label::No if d.accepts(h) => return false,
                _ => {}
            }
            for &(a, to) in self.edges(q) {
                match d.step(h, a) {
                    None if self.yes_live(to) => return false,
                    Some(h2) if seen.get_or_insert(pair_key(h2, to), 0).1 => {
                        queue.push((h2, to));
                    }
                    _ => {}
                }
            }
        }
        true
    }
}

/// The reachable product, breadth first with letters in order; stops at the first pair
/// both automata accept, whose word is then the least one of the intersection.
fn explore(yes: &Dfa, no: &Dfa, alphabet: &Alphabet) -> Result<Raw, Word> {
    let no_letter = letter_map(alphabet, no.alphabet());
    let mut index = PairMap::with_capacity(yes.num_states().max(no.num_states()));
    let mut pairs = vec![(yes.initial(), no.initial())];
    let mut parent: Vec<(StateId, Letter)> = vec![(NO_STATE, 0)];
    index.get_or_insert(pair_key(yes.initial(), no.initial()), 0);
    let mut raw = Raw {
        label: Vec::new(),
        offset: vec![0],
        edges: Vec::new(),
    };
    let accepts = |d: &Dfa, q: StateId| q != NO_STATE && d.is_accepting(q);
    let mut next = 0;
    while next < pairs.len() {
        let (p, r) = pairs[next];
        let label = match (accepts(yes, p), accepts(no, r)) {
            (true, true) => return Err(word_to(&parent, next as StateId)),
            (true, false) => Label::Yes,
            (false, true) => Label::No,
            (false, false) => Label::DontCare,
        };
        raw.label.push(label);
        for (a, &b) in no_letter.iter().enumerate() {
            let (p2, r2) = (step(yes, p, a as Letter), step(no, r, b));
            if p2 == NO_STATE && r2 == NO_STATE {
                continue;
            }
            let fresh = pairs.len() as StateId;
            let (id, new) = index.get_or_insert(pair_key(p2, r2), fresh);
            if new {
                pairs.push((p2, r2));
                parent.push((next as StateId, a as Letter));
            }
            raw.edges.push((a as Letter, id));
        }
        raw.offset.push(raw.edges.len());
        next += 1;
    }
    Ok(raw)
}

/// The word of the breadth-first tree path from the initial pair to `q`.
fn word_to(parent: &[(StateId, Letter)], mut q: StateId) -> Word {
    let mut word = Vec::new();
    while parent[q as usize].0 != NO_STATE {
        let (from, a) = parent[q as usize];
        word.push(a);
        q = from;
    }
    word.reverse();
    word
}

/// The states of `raw` from which a state whose label satisfies `target` is reachable.
fn backward_closure(raw: &Raw, target: impl Fn(Label) -> bool) -> Vec<bool> {
    let n = raw.label.len();
    let mut preds: Vec<Vec<StateId>> = vec![Vec::new(); n];
    for q in 0..n {
        for &(_, to) in &raw.edges[raw.offset[q]..raw.offset[q + 1]] {
            preds[to as usize].push(q as StateId);
        }
    }
    let mut seen: Vec<bool> = raw.label.iter().map(|&l| target(l)).collect();
    let mut stack: Vec<StateId> = (0..n as StateId).filter(|&q| seen[q as usize]).collect();
    while let Some(q) = stack.pop() {
        for &p in &preds[q as usize] {
            if !seen[p as usize] {
                seen[p as usize] = true;
                stack.push(p);
            }
        }
    }
    seen
}

/// Keeps the states that can reach a labelled state, renumbered in their breadth-first
/// order (so the initial pair stays 0 when it is kept).
fn prune(alphabet: Alphabet, raw: &Raw) -> Sample {
    let relevant = backward_closure(raw, |l| l != Label::DontCare);
    let yes_live = backward_closure(raw, |l| l == Label::Yes);
    let mut sample = Sample {
        alphabet,
        label: Vec::new(),
        yes_live: Vec::new(),
        offset: vec![0],
        edges: Vec::new(),
    };
    if !relevant.first().copied().unwrap_or(false) {
        return sample;
    }
    let mut renumber = vec![NO_STATE; raw.label.len()];
    for (id, q) in (0..raw.label.len()).filter(|&q| relevant[q]).enumerate() {
        renumber[q] = id as StateId;
    }
    for q in (0..raw.label.len()).filter(|&q| relevant[q]) {
        sample.label.push(raw.label[q]);
        sample.yes_live.push(yes_live[q]);
        let kept = raw.edges[raw.offset[q]..raw.offset[q + 1]]
            .iter()
            .filter(|&&(_, to)| relevant[to as usize])
            .map(|&(a, to)| (a, renumber[to as usize]));
        sample.edges.extend(kept);
        sample.offset.push(sample.edges.len());
    }
    sample
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::dfa::from_edges as dfa;

    #[test]
    fn labels_prunes_and_checks_candidates() {
        // yes: {a}, no: {a b}; the pair reached by b is "don't care" with nothing after.
        let yes = dfa(&["a", "b"], 2, &[(0, "a", 1)], &[1]);
        let no = dfa(&["a", "b"], 3, &[(0, "a", 1), (1, "b", 2)], &[2]);
        let s = Sample::build(&yes, &no).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(
            (0..3).map(|q| s.label(q)).collect::<Vec<_>>(),
            [Label::DontCare, Label::Yes, Label::No]
        );
        assert!(s.yes_live(0) && s.yes_live(1) && !s.yes_live(2));
        assert!(s.consistent(&yes));
        // a* accepts "a b"? no: a* has no b edge, so it rejects it; it is consistent too.
        let a_star = dfa(&["a", "b"], 1, &[(0, "a", 0)], &[0]);
        assert!(s.consistent(&a_star));
        let everything = dfa(&["a", "b"], 1, &[(0, "a", 0), (0, "b", 0)], &[0]);
        assert!(!s.consistent(&everything));
        let nothing = dfa(&["a", "b"], 1, &[], &[]);
        assert!(!s.consistent(&nothing));
    }

    #[test]
    fn overlap_is_the_least_common_word() {
        let yes = dfa(
            &["a", "b"],
            2,
            &[(0, "a", 1), (1, "b", 1), (1, "a", 1)],
            &[1],
        );
        let no = dfa(&["b", "a"], 3, &[(0, "a", 1), (1, "b", 2)], &[2]);
        let word = Sample::build(&yes, &no).err().unwrap();
        assert_eq!(yes.alphabet().format_word(&word), "a b");
    }

    #[test]
    fn empty_languages_give_an_empty_sample() {
        let yes = dfa(&["a"], 2, &[(0, "a", 1)], &[]);
        let s = Sample::build(&yes, &yes).unwrap();
        assert_eq!(s.len(), 0);
        assert!(s.consistent(&yes));
    }
}
