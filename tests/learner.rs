//! The learner on hundreds of random targets, in every mode: it must find the target's
//! minimal automaton, hand out only minimal conjectures, and never ask a word twice.

use mergelens::automaton::{Dfa, Letter, Word, ops};
use mergelens::learn::random::{SplitMix64, random_dfa};
use mergelens::learn::{
    Answer, CexProcessing, DfaTeacher, Equivalence, GuessPolicy, LearnConfig, LearnStats,
    QueryCache, Source, Teacher, TeacherError, learn,
};

const TARGETS: u64 = 500;

/// Random targets of 1 to 60 states over 2 to 12 letters, made minimal (so "learned is
/// minimal" means "as many states"); two thirds with missing edges (a rejecting sink) and
/// many with few accepting states, as automata of program behaviour are.
fn target(seed: u64) -> Dfa {
    let mut rng = SplitMix64::new(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0xdead_beef);
    let states = rng.range(1, 60) as usize;
    let letters = rng.range(2, 12) as usize;
    let missing = [0.0, 0.2, 0.6][rng.below(3) as usize];
    let accepting = [0.5, 0.2, 0.05][rng.below(3) as usize];
    ops::minimize(&random_dfa(&mut rng, states, letters, missing, accepting))
}

/// Refuses repeated words, checks every conjecture is minimal, counts.
struct Strict {
    inner: DfaTeacher,
    /// Every word asked, in order.
    asked: Vec<Word>,
    seen: Fingerprints,
    batches: u64,
    conjectures: u64,
}

impl Strict {
    fn new(target: Dfa) -> Strict {
        Strict {
            inner: DfaTeacher::new(target),
            asked: Vec::new(),
            seen: Fingerprints::new(),
            batches: 0,
            conjectures: 0,
        }
    }
}

/// A set of words by 64-bit fingerprint, open addressing: a `HashSet<Word>` or sorting
/// would dominate the run time of these tests in debug builds. Equal fingerprints are
/// compared on the words themselves.
struct Fingerprints {
    slots: Vec<(u64, usize)>,
    len: usize,
}

impl Fingerprints {
    fn new() -> Fingerprints {
        Fingerprints {
            slots: vec![(0, 0); 1024],
            len: 0,
        }
    }

    fn fingerprint(word: &Word) -> u64 {
        let h = word.iter().fold(word.len() as u64 + 1, |h, &a| {
            (h ^ u64::from(a))
                .wrapping_mul(0x0100_0000_01b3)
                .rotate_left(29)
        });
        h | 1
    }

    /// Adds word `index` of `words`; false if an equal word is there.
    fn insert(&mut self, words: &[Word], index: usize) -> bool {
        if 2 * (self.len + 1) > self.slots.len() {
            let bigger = vec![(0, 0); 2 * self.slots.len()];
            let old = std::mem::replace(&mut self.slots, bigger);
            self.len = 0;
            for (print, i) in old.into_iter().filter(|&(p, _)| p != 0) {
                self.place(print, i);
            }
        }
        let print = Fingerprints::fingerprint(&words[index]);
        let mask = self.slots.len() - 1;
        let mut slot = (print as usize) & mask;
        while self.slots[slot].0 != 0 {
            let (p, i) = self.slots[slot];
            if p == print && words[i] == words[index] {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        self.place(print, index);
        true
    }

    fn place(&mut self, print: u64, index: usize) {
        let mask = self.slots.len() - 1;
        let mut slot = (print as usize) & mask;
        while self.slots[slot].0 != 0 {
            slot = (slot + 1) & mask;
        }
        self.slots[slot] = (print, index);
        self.len += 1;
    }
}

impl Teacher for Strict {
    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
        self.batches += 1;
        for w in words {
            self.asked.push(w.clone());
            let last = self.asked.len() - 1;
            assert!(
                self.seen.insert(&self.asked, last),
                "the teacher was asked {w:?} twice"
            );
        }
        self.inner.membership(words)
    }

    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError> {
        self.conjectures += 1;
        assert_eq!(
            ops::minimize(hypothesis).num_states(),
            hypothesis.num_states(),
            "a conjecture that is not minimal"
        );
        self.inner.equivalence(hypothesis)
    }
}

fn check(target: &Dfa, config: &LearnConfig, what: &str) -> LearnStats {
    let mut teacher = Strict::new(target.clone());
    let mut cache = QueryCache::new(target.alphabet().clone());
    let learned = learn(target.alphabet(), &mut teacher, &mut cache, config)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(&learned.dfa, target, "{what}: learned another language");
    assert_eq!(
        learned.dfa.num_states(),
        target.num_states(),
        "{what}: not minimal"
    );
    let s = learned.stats;
    assert_eq!(s.from_teacher, teacher.asked.len() as u64, "{what}");
    assert_eq!(
        (s.teacher_batches, s.equivalence_queries),
        (teacher.batches, teacher.conjectures),
        "{what}"
    );
    assert_eq!(cache.unconfirmed(), 0, "{what}");
    s
}

fn every_target(cex: CexProcessing, guess: GuessPolicy) {
    let config = LearnConfig {
        cex,
        guess,
        ..LearnConfig::default()
    };
    let (mut queries, mut conjectures, mut batches) = (0, 0, 0);
    for seed in 0..TARGETS {
        let target = target(seed);
        let s = check(
            &target,
            &config,
            &format!("target {seed}, {cex}, {}", config.guess.name()),
        );
        queries += s.from_teacher;
        conjectures += s.equivalence_queries;
        batches += s.teacher_batches;
    }
    eprintln!(
        "{cex} lazy {}: {queries} words in {batches} batches, {conjectures} equivalence queries for {TARGETS} targets",
        config.guess.name()
    );
}

#[test]
fn rivest_schapire() {
    every_target(CexProcessing::RivestSchapire, GuessPolicy::Off);
}

#[test]
fn rivest_schapire_lazy_yes() {
    every_target(CexProcessing::RivestSchapire, GuessPolicy::Constant(true));
}

#[test]
fn rivest_schapire_lazy_no() {
    every_target(CexProcessing::RivestSchapire, GuessPolicy::Constant(false));
}

#[test]
fn angluin() {
    every_target(CexProcessing::Angluin, GuessPolicy::Off);
}

#[test]
fn angluin_lazy_yes() {
    every_target(CexProcessing::Angluin, GuessPolicy::Constant(true));
}

#[test]
fn angluin_lazy_no() {
    every_target(CexProcessing::Angluin, GuessPolicy::Constant(false));
}

#[test]
fn maler_pnueli() {
    every_target(CexProcessing::MalerPnueli, GuessPolicy::Off);
}

#[test]
fn maler_pnueli_lazy_yes() {
    every_target(CexProcessing::MalerPnueli, GuessPolicy::Constant(true));
}

#[test]
fn maler_pnueli_lazy_no() {
    every_target(CexProcessing::MalerPnueli, GuessPolicy::Constant(false));
}

/// Spoiled guesses must be found and repaired, and the result must not change.
#[test]
fn injected_wrong_guesses_are_repaired() {
    let mut restarts = 0;
    for seed in 0..60 {
        let target = target(seed);
        for cex in CexProcessing::ALL {
            // "yes" is mostly wrong on these targets; spoiling "no" is the realistic case.
            for guess in [false, true]
                .into_iter()
                .take(if seed < 10 { 2 } else { 1 })
            {
                let config = LearnConfig {
                    cex,
                    guess: GuessPolicy::Constant(guess),
                    wrong_guess_rate: [0.02, 0.1, 0.3][(seed % 3) as usize],
                    seed,
                    min_guess_accuracy: 0.0,
                    ..LearnConfig::default()
                };
                let s = check(
                    &target,
                    &config,
                    &format!("target {seed}, {cex}, spoiled {guess}"),
                );
                assert_eq!(s.guesses_confirmed + s.guesses_wrong, s.from_guess);
                restarts += s.restarts;
            }
        }
    }
    assert!(
        restarts > 100,
        "the repair path was hardly exercised: {restarts} restarts"
    );
}

/// A guess oracle learned for "another version": the target with a few edges changed.
#[test]
fn a_guess_oracle_close_to_the_target_guesses_well() {
    let mut accuracy = Vec::new();
    for seed in 0..100 {
        let target = target(seed);
        let mut rng = SplitMix64::new(seed);
        let mut version = target.clone();
        let k = target.alphabet().len() as u64;
        for _ in 0..2 {
            let q = rng.below(target.num_states() as u64) as u32;
            let to = rng.below(target.num_states() as u64) as u32;
            version.set_transition(q, rng.below(k) as Letter, to);
        }
        let config = LearnConfig {
            guess: GuessPolicy::Oracle(version),
            ..LearnConfig::default()
        };
        let s = check(&target, &config, &format!("target {seed}, oracle"));
        accuracy.extend(s.guess_accuracy);
    }
    let mean = accuracy.iter().sum::<f64>() / accuracy.len() as f64;
    assert!(mean > 0.8, "mean guess accuracy {mean}");
}

/// Runs in every mode share one cache and one teacher that refuses repeats.
#[test]
fn runs_sharing_a_cache_never_repeat_a_word() {
    for seed in 0..20 {
        let target = target(seed);
        let mut teacher = Strict::new(target.clone());
        let mut cache = QueryCache::new(target.alphabet().clone());
        for cex in CexProcessing::ALL {
            for guess in [
                GuessPolicy::Off,
                GuessPolicy::Constant(false),
                GuessPolicy::Constant(true),
            ] {
                let config = LearnConfig {
                    cex,
                    guess,
                    ..LearnConfig::default()
                };
                let learned = learn(target.alphabet(), &mut teacher, &mut cache, &config).unwrap();
                assert_eq!(learned.dfa, target);
            }
        }
        let entries = cache.entries();
        let from_teacher = entries
            .iter()
            .filter(|(_, e)| matches!(e.source, Source::Teacher | Source::Guess))
            .count();
        assert_eq!(from_teacher, teacher.asked.len());
        assert!(
            cache
                .entries()
                .iter()
                .all(|(w, e)| e.accepted == target.accepts(w))
        );
    }
}
