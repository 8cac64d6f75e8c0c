//! What the learner asks, and the simulated teacher backed by a known automaton.

use crate::automaton::{Dfa, Letter, Word, analysis};

/// An error of the teacher's own (a CBMC run that failed, a target that cannot be read);
/// the learner passes it on in [`super::LearnError::Teacher`].
pub type TeacherError = Box<dyn std::error::Error + Send + Sync>;

/// The answer to a membership query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    Yes,
    No,
    /// The word's membership does not matter (a path the program cannot take, say). The
    /// learner does not use such answers yet: it stops with
    /// [`super::LearnError::DontCareUnsupported`] rather than guess either way, which could
    /// make it learn a language nobody asked for.
    DontCare,
}

impl Answer {
    /// `Some(true)` for yes, `Some(false)` for no, `None` for don't care.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Answer::Yes => Some(true),
            Answer::No => Some(false),
            Answer::DontCare => None,
        }
    }
}

impl From<bool> for Answer {
    fn from(accepted: bool) -> Answer {
        if accepted { Answer::Yes } else { Answer::No }
    }
}

/// The answer to an equivalence (conjecture) query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Equivalence {
    Equal,
    /// A word the conjecture and the target classify differently.
    Counterexample(Word),
}

/// The teacher and oracle of L* (the paper's Fig. 4).
///
/// Words are over the alphabet the learner was started with, which the conjectures carry.
pub trait Teacher {
    /// Answers every word of the batch, in order. The learner hands over at once all the
    /// words it needs before it can go on, because one CBMC run can answer many words at a
    /// lower price than one run per word; it never sends a word it already knows, nor one
    /// twice in a batch.
    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError>;

    /// The same as [`Teacher::membership`], for a batch packed in one buffer: word `i` is
    /// `letters[ends[i - 1]..ends[i]]` (from 0 for the first). The learner calls this one.
    /// By default it unpacks the words and calls [`Teacher::membership`]; a teacher that
    /// answers in microseconds (the simulated one) overrides it, as one allocation per word
    /// would then be a good part of the learner's time.
    fn membership_packed(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
    ) -> Result<Vec<Answer>, TeacherError> {
        let words: Vec<Word> = unpack(letters, ends).map(<[Letter]>::to_vec).collect();
        self.membership(&words)
    }

    /// Whether `hypothesis` recognises the target language; if not, a word on which they
    /// differ.
    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError>;

    /// Lazy learning's last step before a conjecture (Fig. 16 of Chockler et al.): the
    /// membership query of the guessed words (packed as in [`Teacher::membership_packed`])
    /// and, when every answer is the `guessed` one, the equivalence query of `hypothesis`,
    /// the conjecture those guesses support; `None` in its place when a guess was wrong.
    /// By default the two queries one after the other; a teacher that can answer both at
    /// once (one CBMC run) overrides it. The learner calls it only with guesses to check.
    fn membership_then_equivalence(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
        guessed: &[bool],
        hypothesis: &Dfa,
    ) -> Result<(Vec<Answer>, Option<Equivalence>), TeacherError> {
        let answers = self.membership_packed(letters, ends)?;
        let confirmed = answers
            .iter()
            .zip(guessed)
            .all(|(a, &g)| a.as_bool() == Some(g));
        let equivalence = if confirmed {
            Some(self.equivalence(hypothesis)?)
        } else {
            None
        };
        Ok((answers, equivalence))
    }

    /// A cheap answer, when there is one without the expensive check (the paper's
    /// pre-checks, Fig. 15: a word with `end` before its last letter is always "no"). The
    /// learner trusts it like a teacher's answer.
    fn precheck(&self, word: &[Letter]) -> Option<Answer> {
        let _ = word;
        None
    }
}

/// The words of a packed batch ([`Teacher::membership_packed`]).
pub fn unpack<'a>(
    letters: &'a [Letter],
    ends: &'a [usize],
) -> impl Iterator<Item = &'a [Letter]> + 'a {
    ends.iter().scan(0, move |start, &end| {
        let word = &letters[*start..end];
        *start = end;
        Some(word)
    })
}

impl<T: Teacher + ?Sized> Teacher for &mut T {
    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
        (**self).membership(words)
    }

    fn membership_packed(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
    ) -> Result<Vec<Answer>, TeacherError> {
        (**self).membership_packed(letters, ends)
    }

    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError> {
        (**self).equivalence(hypothesis)
    }

    fn membership_then_equivalence(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
        guessed: &[bool],
        hypothesis: &Dfa,
    ) -> Result<(Vec<Answer>, Option<Equivalence>), TeacherError> {
        (**self).membership_then_equivalence(letters, ends, guessed, hypothesis)
    }

    fn precheck(&self, word: &[Letter]) -> Option<Answer> {
        (**self).precheck(word)
    }
}

/// A teacher that knows the target automaton: membership by running the word, equivalence
/// by a shortest word of the symmetric difference ([`analysis::equivalence_witness`]).
///
/// Shortest counterexamples are what the benchmark gives every learner, and what keeps the
/// counterexample analysis short.
#[derive(Clone, Debug)]
pub struct DfaTeacher {
    target: Dfa,
}

impl DfaTeacher {
    pub fn new(target: Dfa) -> DfaTeacher {
        DfaTeacher { target }
    }

    pub fn target(&self) -> &Dfa {
        &self.target
    }
}

impl DfaTeacher {
    fn answer(&self, w: &[Letter]) -> Result<Answer, TeacherError> {
        let k = self.target.alphabet().len();
        let mut state = Some(self.target.initial());
        for &a in w {
            // A letter outside the table would read another state's row; say which it was.
            if a as usize >= k {
                return Err(format!("letter {a} is outside the target's {k} letters").into());
            }
            state = state.and_then(|q| self.target.next(q, a));
        }
        Ok(Answer::from(
            state.is_some_and(|q| self.target.is_accepting(q)),
        ))
    }
}

impl Teacher for DfaTeacher {
    fn membership_packed(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
    ) -> Result<Vec<Answer>, TeacherError> {
        unpack(letters, ends).map(|w| self.answer(w)).collect()
    }

    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
        words.iter().map(|w| self.answer(w)).collect()
    }

    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError> {
        let Some(witness) = analysis::equivalence_witness(hypothesis, &self.target) else {
            return Ok(Equivalence::Equal);
        };
        // The witness is over the union of the two alphabets; the learner's letters are
        // the hypothesis's.
        let word = hypothesis.alphabet().word(&witness.word).ok_or_else(|| {
            format!(
                "the counterexample [{}] uses a letter the hypothesis lacks",
                witness.word.join(" ")
            )
        })?;
        Ok(Equivalence::Counterexample(word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::Alphabet;

    #[test]
    fn dfa_teacher_answers_and_finds_shortest_counterexamples() {
        let alphabet = Alphabet::from_names(["a", "b"]);
        // Words that end in b.
        let mut target = Dfa::with_states(alphabet.clone(), 2);
        for q in 0..2 {
            target.set_transition(q, 0, 0);
            target.set_transition(q, 1, 1);
        }
        target.set_accepting(1, true);
        let mut teacher = DfaTeacher::new(target.clone());
        let answers = teacher.membership(&[vec![], vec![1], vec![1, 0]]).unwrap();
        assert_eq!(answers, [Answer::No, Answer::Yes, Answer::No]);
        assert!(teacher.membership(&[vec![2]]).is_err());
        assert_eq!(teacher.equivalence(&target).unwrap(), Equivalence::Equal);
        let empty = Dfa::new(alphabet);
        assert_eq!(
            teacher.equivalence(&empty).unwrap(),
            Equivalence::Counterexample(vec![1])
        );
    }

    #[test]
    fn answers_convert() {
        assert_eq!(Answer::from(true).as_bool(), Some(true));
        assert_eq!(Answer::No.as_bool(), Some(false));
        assert_eq!(Answer::DontCare.as_bool(), None);
    }
}
