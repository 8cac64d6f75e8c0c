use std::collections::HashMap;
use std::fmt;

/// A letter: an index into an [`Alphabet`].
pub type Letter = u32;
/// A state: an index into a [`Dfa`]'s states, `0..num_states()`.
pub type StateId = u32;
/// A word over an alphabet.
pub type Word = Vec<Letter>;

/// The marker of a missing transition in the dense table: the implicit rejecting sink.
pub(crate) const NO_STATE: StateId = StateId::MAX;

/// An ordered set of named letters, interned: each name has one [`Letter`], its position.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Alphabet {
    names: Vec<String>,
    index: HashMap<String, Letter>,
}

impl Alphabet {
    pub fn new() -> Alphabet {
        Alphabet::default()
    }

    /// The alphabet of these names in this order; a repeated name is kept once.
    pub fn from_names<I, S>(names: I) -> Alphabet
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut alphabet = Alphabet::new();
        for name in names {
            alphabet.intern(name.as_ref());
        }
        alphabet
    }

    /// The letter of `name`, added at the end if it is new.
    pub fn intern(&mut self, name: &str) -> Letter {
        if let Some(&letter) = self.index.get(name) {
            return letter;
        }
        let letter =
            Letter::try_from(self.names.len()).expect("alphabet of more than 2^32 letters");
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), letter);
        letter
    }

    pub fn letter(&self, name: &str) -> Option<Letter> {
        self.index.get(name).copied()
    }

    pub fn name(&self, letter: Letter) -> &str {
        &self.names[letter as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn letters(&self) -> impl ExactSizeIterator<Item = Letter> + use<> {
        0..self.names.len() as Letter
    }

    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// This alphabet followed by the letters of `other` it lacks, in `other`'s order; so a
    /// letter of `self` keeps its index in the union.
    pub fn union(&self, other: &Alphabet) -> Alphabet {
        let mut union = self.clone();
        for name in other.names() {
            union.intern(name);
        }
        union
    }

    /// Whether every letter of `self` is in `other`.
    pub fn is_subset(&self, other: &Alphabet) -> bool {
        self.names().all(|name| other.letter(name).is_some())
    }

    /// The names of a word's letters.
    pub fn word_names(&self, word: &[Letter]) -> Vec<&str> {
        word.iter().map(|&l| self.name(l)).collect()
    }

    /// A word written as its letters separated by one space (the empty word is "").
    pub fn format_word(&self, word: &[Letter]) -> String {
        self.word_names(word).join(" ")
    }

    /// The word of these names, or `None` if one is not a letter of this alphabet.
    pub fn word<S: AsRef<str>>(&self, names: &[S]) -> Option<Word> {
        names.iter().map(|n| self.letter(n.as_ref())).collect()
    }
}

impl fmt::Debug for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.names).finish()
    }
}

/// A deterministic finite automaton with a partial transition function.
///
/// States are `0..num_states()`. A transition that is not set goes to an implicit rejecting
/// sink, so an automaton with no transitions and a rejecting initial state accepts nothing.
/// The transition table is dense (`states × letters`), which keeps products and
/// minimisation of automata with 10^5 states and tens of letters fast and cache friendly.
#[derive(Clone, PartialEq, Eq)]
pub struct Dfa {
    alphabet: Alphabet,
    initial: StateId,
    accepting: Vec<bool>,
    /// Row-major: the successor of state `q` on letter `a` is `delta[q * k + a]`.
    delta: Vec<StateId>,
}

impl Dfa {
    /// An automaton with one rejecting initial state and no transitions: the empty language.
    pub fn new(alphabet: Alphabet) -> Dfa {
        let k = alphabet.len();
        Dfa {
            alphabet,
            initial: 0,
            accepting: vec![false],
            delta: vec![NO_STATE; k],
        }
    }

    /// An automaton with `states` rejecting states, no transitions, initial state 0.
    /// `states` must be at least 1.
    pub fn with_states(alphabet: Alphabet, states: usize) -> Dfa {
        assert!(states >= 1, "a DFA has at least its initial state");
        let k = alphabet.len();
        Dfa {
            alphabet,
            initial: 0,
            accepting: vec![false; states],
            delta: vec![NO_STATE; states * k],
        }
    }

    pub fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }

    pub fn initial(&self) -> StateId {
        self.initial
    }

    pub fn set_initial(&mut self, state: StateId) {
        assert!((state as usize) < self.num_states());
        self.initial = state;
    }

    pub fn num_states(&self) -> usize {
        self.accepting.len()
    }

    pub fn states(&self) -> impl ExactSizeIterator<Item = StateId> + use<> {
        0..self.accepting.len() as StateId
    }

    /// Adds a state without transitions and returns it.
    pub fn add_state(&mut self, accepting: bool) -> StateId {
        let id = StateId::try_from(self.accepting.len()).expect("more than 2^32 states");
        assert!(id != NO_STATE, "more than 2^32 - 1 states");
        self.accepting.push(accepting);
        self.delta
            .extend(std::iter::repeat_n(NO_STATE, self.alphabet.len()));
        id
    }

    pub fn is_accepting(&self, state: StateId) -> bool {
        self.accepting[state as usize]
    }

    pub fn set_accepting(&mut self, state: StateId, accepting: bool) {
        self.accepting[state as usize] = accepting;
    }

    pub fn accepting_states(&self) -> impl Iterator<Item = StateId> + '_ {
        self.states().filter(|&q| self.is_accepting(q))
    }

    /// The successor of `state` on `letter`, `None` for the implicit sink.
    #[inline]
    pub fn next(&self, state: StateId, letter: Letter) -> Option<StateId> {
        let to = self.delta[state as usize * self.alphabet.len() + letter as usize];
        (to != NO_STATE).then_some(to)
    }

    pub fn set_transition(&mut self, from: StateId, letter: Letter, to: StateId) {
        assert!(
            (to as usize) < self.num_states(),
            "target state out of range"
        );
        let k = self.alphabet.len();
        self.delta[from as usize * k + letter as usize] = to;
    }

    pub fn remove_transition(&mut self, from: StateId, letter: Letter) {
        let k = self.alphabet.len();
        self.delta[from as usize * k + letter as usize] = NO_STATE;
    }

    /// The row of successors of `state`, indexed by letter; [`NO_STATE`] marks the sink.
    #[inline]
    pub(crate) fn row(&self, state: StateId) -> &[StateId] {
        let k = self.alphabet.len();
        &self.delta[state as usize * k..(state as usize + 1) * k]
    }

    /// All transitions as `(from, letter, to)`, by state then letter.
    pub fn transitions(&self) -> impl Iterator<Item = (StateId, Letter, StateId)> + '_ {
        self.states().flat_map(move |q| {
            self.row(q)
                .iter()
                .enumerate()
                .filter(|&(_, &to)| to != NO_STATE)
                .map(move |(a, &to)| (q, a as Letter, to))
        })
    }

    pub fn num_transitions(&self) -> usize {
        self.delta.iter().filter(|&&to| to != NO_STATE).count()
    }

    /// The state reached from `state` by `word`, `None` if the run falls into the sink.
    pub fn run_from(&self, state: StateId, word: &[Letter]) -> Option<StateId> {
        word.iter().try_fold(state, |q, &a| self.next(q, a))
    }

    pub fn run(&self, word: &[Letter]) -> Option<StateId> {
        self.run_from(self.initial, word)
    }

    pub fn accepts(&self, word: &[Letter]) -> bool {
        self.run(word).is_some_and(|q| self.is_accepting(q))
    }

    /// Whether the word of these letter names is accepted; a name outside the alphabet
    /// leads to the sink, so such a word is rejected.
    pub fn accepts_names<S: AsRef<str>>(&self, names: &[S]) -> bool {
        self.alphabet.word(names).is_some_and(|w| self.accepts(&w))
    }

    /// The same language over a larger alphabet: `alphabet` must contain every letter of
    /// this automaton's; the new letters have no transitions.
    pub fn extend_alphabet(&self, alphabet: &Alphabet) -> Dfa {
        assert!(self.alphabet.is_subset(alphabet));
        let map: Vec<Letter> = self
            .alphabet
            .names()
            .map(|n| alphabet.letter(n).expect("subset"))
            .collect();
        let mut out = Dfa::with_states(alphabet.clone(), self.num_states());
        out.initial = self.initial;
        out.accepting.clone_from(&self.accepting);
        for (q, a, to) in self.transitions() {
            out.set_transition(q, map[a as usize], to);
        }
        out
    }
}

/// Raw access for the algorithms of [`super::ops`] and [`super::analysis`], which build and
/// scan whole tables and would pay a bounds check per edge through the public API.
impl Dfa {
    /// An automaton from its parts; `delta` is row-major (`states × letters`) with
    /// [`NO_STATE`] for a missing edge, and every other entry is a state.
    pub(crate) fn from_parts(
        alphabet: Alphabet,
        initial: StateId,
        accepting: Vec<bool>,
        delta: Vec<StateId>,
    ) -> Dfa {
        assert!(
            !accepting.is_empty(),
            "a DFA has at least its initial state"
        );
        assert!(
            (initial as usize) < accepting.len(),
            "initial state out of range"
        );
        assert_eq!(delta.len(), accepting.len() * alphabet.len(), "table size");
        debug_assert!(
            delta
                .iter()
                .all(|&to| to == NO_STATE || (to as usize) < accepting.len())
        );
        Dfa {
            alphabet,
            initial,
            accepting,
            delta,
        }
    }

    /// The whole transition table, row-major; [`NO_STATE`] marks the sink.
    #[inline]
    pub(crate) fn table(&self) -> &[StateId] {
        &self.delta
    }

    /// Acceptance of every state, indexed by state.
    #[inline]
    pub(crate) fn acceptance(&self) -> &[bool] {
        &self.accepting
    }
}

impl fmt::Debug for Dfa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Dfa {{ states: {}, initial: {}, alphabet: {:?}",
            self.num_states(),
            self.initial,
            self.alphabet
        )?;
        for q in self.states() {
            let mark = if self.is_accepting(q) { "*" } else { " " };
            write!(f, "  {mark}{q}:")?;
            for (a, &to) in self.row(q).iter().enumerate() {
                if to != NO_STATE {
                    write!(f, " {}->{}", self.alphabet.name(a as Letter), to)?;
                }
            }
            writeln!(f)?;
        }
        write!(f, "}}")
    }
}

/// An automaton from `(from, letter name, to)` triples and accepting states, for tests.
#[cfg(test)]
pub(crate) fn from_edges(
    letters: &[&str],
    states: usize,
    edges: &[(u32, &str, u32)],
    accepting: &[u32],
) -> Dfa {
    let alphabet = Alphabet::from_names(letters);
    let mut d = Dfa::with_states(alphabet.clone(), states);
    for &(from, name, to) in edges {
        d.set_transition(
            from,
            alphabet.letter(name).expect("a letter of the alphabet"),
            to,
        );
    }
    for &q in accepting {
        d.set_accepting(q, true);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabet_interns_and_unions_in_order() {
        let a = Alphabet::from_names(["f", "g", "f"]);
        assert_eq!(a.len(), 2);
        let b = Alphabet::from_names(["end", "g"]);
        let u = a.union(&b);
        assert_eq!(u.names().collect::<Vec<_>>(), ["f", "g", "end"]);
        assert_eq!(u.letter("g"), Some(1));
        assert!(a.is_subset(&u) && !u.is_subset(&a));
    }

    #[test]
    fn missing_transitions_reject() {
        let alphabet = Alphabet::from_names(["f", "end"]);
        let mut d = Dfa::with_states(alphabet, 3);
        d.set_transition(0, 0, 1);
        d.set_transition(1, 1, 2);
        d.set_accepting(2, true);
        assert!(d.accepts_names(&["f", "end"]));
        assert!(!d.accepts_names(&["end"]));
        assert!(!d.accepts_names(&["f", "end", "end"]));
        assert!(!d.accepts_names(&["g"]));
        assert_eq!(d.num_transitions(), 2);
        let big = d.extend_alphabet(&Alphabet::from_names(["x", "end", "f"]));
        assert!(big.accepts_names(&["f", "end"]));
        assert!(!big.accepts_names(&["x"]));
    }
}
