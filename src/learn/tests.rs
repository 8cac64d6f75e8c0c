//! Unit tests of the learning loop against small hand-made teachers.

use std::collections::HashSet;

use super::random::{SplitMix64, random_minimal_dfa};
use super::*;
use crate::automaton::{Alphabet, Dfa, Letter, Word, ops};

/// The language of words over {f, g, end} that end with `end` after at least one `g`,
/// `end` nowhere else: a small "error trace" language with a sink.
fn error_language() -> Dfa {
    let alphabet = Alphabet::from_names(["f", "g", "end"]);
    let mut d = Dfa::with_states(alphabet, 3);
    d.set_transition(0, 0, 0);
    d.set_transition(0, 1, 1);
    d.set_transition(1, 0, 1);
    d.set_transition(1, 1, 1);
    d.set_transition(1, 2, 2);
    d.set_accepting(2, true);
    d
}

/// A teacher that records what it was asked, refuses repeated words, and checks that
/// every conjecture is minimal; `end` before the last letter is pre-checked "no".
struct Recorder {
    inner: DfaTeacher,
    asked: HashSet<Word>,
    batches: usize,
    conjectures: Vec<Dfa>,
    precheck_end: bool,
}

impl Recorder {
    fn new(target: Dfa) -> Recorder {
        Recorder {
            inner: DfaTeacher::new(target),
            asked: HashSet::new(),
            batches: 0,
            conjectures: Vec::new(),
            precheck_end: false,
        }
    }
}

impl Teacher for Recorder {
    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
        self.batches += 1;
        assert!(!words.is_empty(), "empty batch");
        for w in words {
            assert!(self.asked.insert(w.clone()), "asked twice: {w:?}");
        }
        self.inner.membership(words)
    }

    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError> {
        assert_eq!(
            ops::minimize(hypothesis).num_states(),
            hypothesis.num_states()
        );
        self.conjectures.push(hypothesis.clone());
        self.inner.equivalence(hypothesis)
    }

    fn precheck(&self, word: &[Letter]) -> Option<Answer> {
        let end = self.inner.target().alphabet().letter("end")?;
        (self.precheck_end
            && word
                .split_last()
                .is_some_and(|(_, init)| init.contains(&end)))
        .then_some(Answer::No)
    }
}

fn config(cex: CexProcessing, guess: GuessPolicy) -> LearnConfig {
    LearnConfig {
        cex,
        guess,
        ..LearnConfig::default()
    }
}

fn policies() -> [GuessPolicy; 3] {
    [
        GuessPolicy::Off,
        GuessPolicy::Constant(true),
        GuessPolicy::Constant(false),
    ]
}

#[test]
fn learns_the_error_language_in_every_mode() {
    let target = error_language();
    let expected = ops::minimize(&target);
    for cex in CexProcessing::ALL {
        for guess in policies() {
            let mut teacher = Recorder::new(target.clone());
            let mut cache = QueryCache::new(target.alphabet().clone());
            let learned = learn(
                target.alphabet(),
                &mut teacher,
                &mut cache,
                &config(cex, guess.clone()),
            )
            .unwrap();
            assert_eq!(learned.dfa, expected, "{cex} {guess:?}");
            let s = &learned.stats;
            assert_eq!(s.states, 3);
            assert_eq!(s.equivalence_queries as usize, teacher.conjectures.len());
            assert_eq!(s.from_teacher as usize, teacher.asked.len());
            assert_eq!(s.teacher_batches as usize, teacher.batches);
            let checked = s.guesses_confirmed + s.guesses_wrong;
            assert_eq!(
                s.membership_queries,
                s.from_cache + s.from_precheck + s.from_guess + s.from_teacher - checked
            );
            if guess == GuessPolicy::Off {
                assert_eq!((s.from_guess, s.guess_accuracy), (0, None));
            } else {
                assert_eq!(checked, s.from_guess);
                assert!(s.guess_accuracy.is_some());
            }
        }
    }
}

#[test]
fn prechecked_words_never_reach_the_teacher() {
    let target = error_language();
    let mut teacher = Recorder::new(target.clone());
    teacher.precheck_end = true;
    let mut cache = QueryCache::new(target.alphabet().clone());
    let learned = learn(
        target.alphabet(),
        &mut teacher,
        &mut cache,
        &LearnConfig::default(),
    )
    .unwrap();
    assert_eq!(learned.dfa, ops::minimize(&target));
    assert!(learned.stats.from_precheck > 0);
    let end = 2;
    assert!(
        teacher
            .asked
            .iter()
            .all(|w| !w.split_last().unwrap_or((&0, &[])).1.contains(&end))
    );
    let prechecked = cache
        .entries()
        .iter()
        .filter(|(_, e)| e.source == Source::Precheck)
        .count();
    assert_eq!(prechecked as u64, learned.stats.from_precheck);
}

#[test]
fn a_shared_cache_answers_a_second_run_alone() {
    let mut rng = SplitMix64::new(11);
    let target = random_minimal_dfa(&mut rng, 25, 3, 0.1).unwrap();
    let mut cache = QueryCache::new(target.alphabet().clone());
    let mut teacher = Recorder::new(target.clone());
    let first = learn(
        target.alphabet(),
        &mut teacher,
        &mut cache,
        &LearnConfig::default(),
    )
    .unwrap();
    // The same teacher refuses repeats, so later runs may not ask anything already asked.
    for cex in CexProcessing::ALL {
        let again = learn(
            target.alphabet(),
            &mut teacher,
            &mut cache,
            &config(cex, GuessPolicy::Off),
        )
        .unwrap();
        assert_eq!(again.dfa, first.dfa);
        assert!(again.stats.from_cache > 0);
    }
}

#[test]
fn wrong_guesses_are_repaired() {
    let mut rng = SplitMix64::new(5);
    for round in 0..20 {
        let target = random_minimal_dfa(&mut rng, 12, 3, 0.3).unwrap();
        let expected = ops::minimize(&target);
        for cex in CexProcessing::ALL {
            let mut teacher = Recorder::new(target.clone());
            let mut cache = QueryCache::new(target.alphabet().clone());
            let config = LearnConfig {
                cex,
                guess: GuessPolicy::Constant(false),
                wrong_guess_rate: 0.3,
                seed: round,
                min_guess_accuracy: 0.0,
                ..LearnConfig::default()
            };
            let learned = learn(target.alphabet(), &mut teacher, &mut cache, &config).unwrap();
            assert_eq!(learned.dfa, expected);
            assert_eq!(cache.unconfirmed(), 0);
            assert!(
                cache
                    .entries()
                    .iter()
                    .all(|(w, e)| e.accepted == target.accepts(w))
            );
        }
    }
}

/// A teacher that answers the guesses and the conjecture together, and always answers the
/// conjecture, even when a guess was wrong and the conjecture stands on it.
struct Together {
    inner: Recorder,
    together: usize,
}

impl Teacher for Together {
    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
        self.inner.membership(words)
    }

    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError> {
        self.inner.equivalence(hypothesis)
    }

    fn membership_then_equivalence(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
        _guessed: &[bool],
        hypothesis: &Dfa,
    ) -> Result<(Vec<Answer>, Option<Equivalence>), TeacherError> {
        self.together += 1;
        let answers = self.inner.membership_packed(letters, ends)?;
        Ok((answers, Some(self.inner.equivalence(hypothesis)?)))
    }
}

#[test]
fn guesses_and_their_conjecture_go_to_the_teacher_together() {
    let mut rng = SplitMix64::new(11);
    let mut discarded = 0;
    for round in 0..20 {
        let target = random_minimal_dfa(&mut rng, 12, 3, 0.3).unwrap();
        let mut teacher = Together {
            inner: Recorder::new(target.clone()),
            together: 0,
        };
        let mut cache = QueryCache::new(target.alphabet().clone());
        let config = LearnConfig {
            guess: GuessPolicy::Constant(false),
            wrong_guess_rate: 0.3,
            seed: round,
            min_guess_accuracy: 0.0,
            ..LearnConfig::default()
        };
        let learned = learn(target.alphabet(), &mut teacher, &mut cache, &config).unwrap();
        // The answer to a conjecture built on a wrong guess is not used.
        assert_eq!(learned.dfa, ops::minimize(&target));
        assert_eq!(cache.unconfirmed(), 0);
        assert!(teacher.together > 0);
        // The learner counts the conjectures whose answers it used.
        let used = learned.stats.equivalence_queries as usize;
        discarded += teacher.inner.conjectures.len() - used;
    }
    assert!(discarded > 0, "no conjecture stood on a wrong guess");
}

#[test]
fn an_oracle_for_the_target_itself_guesses_everything_right() {
    let target = error_language();
    let mut teacher = Recorder::new(target.clone());
    let mut cache = QueryCache::new(target.alphabet().clone());
    let cfg = config(
        CexProcessing::RivestSchapire,
        GuessPolicy::Oracle(target.clone()),
    );
    let learned = learn(target.alphabet(), &mut teacher, &mut cache, &cfg).unwrap();
    assert_eq!(learned.dfa, ops::minimize(&target));
    assert_eq!(learned.stats.guesses_wrong, 0);
    assert_eq!(learned.stats.guess_accuracy, Some(1.0));
    assert_eq!(learned.stats.restarts, 0);
    // Only the checks of the guesses before each equivalence query reach the teacher.
    assert!(teacher.batches as u64 <= learned.stats.equivalence_queries);
    assert_eq!(learned.stats.from_guess, learned.stats.from_teacher);
}

#[test]
fn every_search_width_finds_the_same_automaton() {
    let mut rng = SplitMix64::new(8);
    let target = random_minimal_dfa(&mut rng, 40, 2, 0.0).unwrap();
    let mut batches = Vec::new();
    for width in [1, 3, usize::MAX] {
        let mut teacher = Recorder::new(target.clone());
        let mut cache = QueryCache::new(target.alphabet().clone());
        let cfg = LearnConfig {
            rs_words_per_step: width,
            ..LearnConfig::default()
        };
        let learned = learn(target.alphabet(), &mut teacher, &mut cache, &cfg).unwrap();
        assert_eq!(learned.dfa, target);
        batches.push(learned.stats.teacher_batches);
    }
    assert!(batches[2] <= batches[0], "{batches:?}");
}

#[test]
fn words_asked_ahead_save_batches_and_change_nothing_learned() {
    let mut rng = SplitMix64::new(21);
    for _ in 0..10 {
        let target = random_minimal_dfa(&mut rng, 30, 3, 0.0).unwrap();
        let mut batches = Vec::new();
        for lookahead in [0, 1024] {
            let mut teacher = Recorder::new(target.clone());
            let mut cache = QueryCache::new(target.alphabet().clone());
            let cfg = LearnConfig {
                lookahead,
                ..LearnConfig::default()
            };
            let learned = learn(target.alphabet(), &mut teacher, &mut cache, &cfg).unwrap();
            assert_eq!(learned.dfa, target);
            let s = &learned.stats;
            assert_eq!(
                s.membership_queries,
                s.from_cache + s.from_precheck + s.from_guess + s.from_teacher
            );
            batches.push(s.teacher_batches);
        }
        assert!(batches[1] < batches[0], "{batches:?}");
    }
}

#[test]
fn the_empty_language_and_the_empty_alphabet() {
    let alphabet = Alphabet::from_names(["a"]);
    let empty = Dfa::new(alphabet.clone());
    let learned = learn(
        &alphabet,
        &mut DfaTeacher::new(empty.clone()),
        &mut QueryCache::new(alphabet.clone()),
        &LearnConfig::default(),
    )
    .unwrap();
    assert_eq!(learned.dfa, empty);
    assert_eq!(learned.stats.equivalence_queries, 1);

    let none = Alphabet::new();
    let mut epsilon = Dfa::new(none.clone());
    epsilon.set_accepting(0, true);
    let learned = learn(
        &none,
        &mut DfaTeacher::new(epsilon.clone()),
        &mut QueryCache::new(none.clone()),
        &LearnConfig::default(),
    )
    .unwrap();
    assert_eq!(learned.dfa, epsilon);
}

/// A teacher that answers membership from one automaton and equivalence from another.
struct TwoFaced {
    members: DfaTeacher,
    oracle: DfaTeacher,
}

impl Teacher for TwoFaced {
    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
        self.members.membership(words)
    }

    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError> {
        self.oracle.equivalence(hypothesis)
    }
}

#[test]
fn a_teacher_that_contradicts_itself_is_named() {
    let target = error_language();
    let alphabet = target.alphabet().clone();
    // Membership says nothing is accepted; the oracle claims [g end] is.
    let mut teacher = TwoFaced {
        members: DfaTeacher::new(Dfa::new(alphabet.clone())),
        oracle: DfaTeacher::new(target.clone()),
    };
    let mut cache = QueryCache::new(alphabet.clone());
    let err = learn(&alphabet, &mut teacher, &mut cache, &LearnConfig::default()).unwrap_err();
    let message = err.to_string();
    assert!(message.starts_with("inconsistent teacher: [g"), "{message}");
    assert!(message.contains("is no counterexample"), "{message}");
}

#[test]
fn a_counterexample_the_conjecture_already_gets_right_is_refused() {
    struct Liar;
    impl Teacher for Liar {
        fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
            Ok(words.iter().map(|_| Answer::No).collect())
        }
        fn equivalence(&mut self, _: &Dfa) -> Result<Equivalence, TeacherError> {
            Ok(Equivalence::Counterexample(vec![0, 0]))
        }
    }
    let alphabet = Alphabet::from_names(["a"]);
    let mut cache = QueryCache::new(alphabet.clone());
    let err = learn(&alphabet, &mut Liar, &mut cache, &LearnConfig::default()).unwrap_err();
    // The first counterexample is taken as "a a is accepted"; the second conjecture
    // accepts it, and the liar offers it again.
    assert!(
        matches!(err, LearnError::NotACounterexample { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("[a a]"), "{err}");
}

#[test]
fn limits_stop_the_run_with_a_clear_error() {
    let mut rng = SplitMix64::new(2);
    let target = random_minimal_dfa(&mut rng, 30, 2, 0.0).unwrap();
    let alphabet = target.alphabet().clone();
    let run = |cfg: LearnConfig| {
        let mut learner = Learner::new(alphabet.clone(), cfg);
        let err = learner
            .run(
                &mut DfaTeacher::new(target.clone()),
                &mut QueryCache::new(alphabet.clone()),
            )
            .unwrap_err();
        (err, learner.stats().clone())
    };
    let (err, _) = run(LearnConfig {
        max_states: 10,
        ..LearnConfig::default()
    });
    assert!(
        matches!(err, LearnError::TooManyStates { limit: 10 }),
        "{err}"
    );
    let (err, stats) = run(LearnConfig {
        max_equivalence_queries: 1,
        ..LearnConfig::default()
    });
    assert!(
        matches!(err, LearnError::TooManyEquivalenceQueries { limit: 1, .. }),
        "{err}"
    );
    assert_eq!(stats.equivalence_queries, 1);
    let (err, _) = run(LearnConfig {
        wrong_guess_rate: 1.5,
        ..LearnConfig::default()
    });
    assert!(matches!(err, LearnError::WrongGuessRate(_)));
}

#[test]
fn dont_care_and_teacher_errors_are_reported() {
    struct Unsure;
    impl Teacher for Unsure {
        fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
            Ok(words.iter().map(|_| Answer::DontCare).collect())
        }
        fn equivalence(&mut self, _: &Dfa) -> Result<Equivalence, TeacherError> {
            Err("cbmc crashed".into())
        }
    }
    let alphabet = Alphabet::from_names(["a"]);
    let err = learn(
        &alphabet,
        &mut Unsure,
        &mut QueryCache::new(alphabet.clone()),
        &LearnConfig::default(),
    )
    .unwrap_err();
    assert!(
        matches!(err, LearnError::DontCareUnsupported { .. }),
        "{err}"
    );
    let mut cache = QueryCache::new(alphabet.clone());
    cache
        .insert(&[], Entry::confirmed(false, Source::Teacher))
        .unwrap();
    cache
        .insert(&[0], Entry::confirmed(false, Source::Teacher))
        .unwrap();
    let err = learn(&alphabet, &mut Unsure, &mut cache, &LearnConfig::default()).unwrap_err();
    assert!(matches!(err, LearnError::Teacher(_)));
    let text = crate::failure::text(&err);
    assert_eq!(text, "the teacher failed: cbmc crashed", "{text}");
    let other = QueryCache::new(Alphabet::from_names(["b"]));
    let err = learn(
        &alphabet,
        &mut Unsure,
        &mut other.clone(),
        &LearnConfig::default(),
    )
    .unwrap_err();
    assert!(matches!(err, LearnError::CacheAlphabet { .. }));
}
