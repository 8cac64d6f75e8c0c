//! PAC equivalence (`--mode pac`): a conjecture checked on samples instead of by CBMC's
//! conjecture query and the exactness pass, with Angluin's guarantee (Angluin, *Learning
//! regular sets from queries and counterexamples*, 1987, Sec. 6; used with concrete
//! sampling by the Pac-Man tool).
//!
//! Key types: [`Pac`] (the user's ε and δ) and [`PacResult`] (what the accepted conjecture
//! was checked on, and the guarantee in words).
//!
//! The `i`-th equivalence query draws `m_i = ⌈(ln(1/δ) + i ln 2) / ε⌉` samples from one
//! fixed distribution: half of them concrete runs on fresh seeds (when the program has
//! them), the rest words drawn uniformly from those the pre-check admits within the bounds.
//! Each sample's true answer is known (a concrete run within the bounds: yes; the pre-check:
//! no; an earlier answer) or asked of CBMC, all in one batch; a sample the conjecture gets
//! wrong is the counterexample. If none is wrong, the conjecture is accepted: with
//! probability at least `1 - δ` over all the queries of the run, the result gets at most a
//! share `ε` of the distribution's samples wrong. Nothing more: a PAC result is never
//! exact, and every output says which it is.

use super::sampling::{Pac, PacResult};
use super::{CbmcTeacher, CbmcTeacherError};
use crate::automaton::{Dfa, Letter, Word};
use crate::learn::Equivalence;
use crate::learn::random::SplitMix64;

/// The distribution the samples come from, for the guarantee's sentence.
fn distribution(concrete: bool) -> &'static str {
    if concrete {
        "half concrete runs on random inputs, half words drawn uniformly from those the pre-check admits within the bounds"
    } else {
        "words drawn uniformly from those the pre-check admits within the bounds"
    }
}

impl CbmcTeacher<'_> {
    /// Checks conjectures on samples from now on.
    pub fn set_pac(&mut self, pac: Pac) {
        self.pac = Some(pac);
    }

    /// The guarantee of the last accepted conjecture, when PAC equivalence accepted it.
    pub fn pac_result(&self) -> Option<&PacResult> {
        self.pac_result.as_ref()
    }

    pub(super) fn is_pac(&self) -> bool {
        self.pac.is_some()
    }

    /// The PAC equivalence query; see the module documentation.
    pub(super) fn pac_equivalence(
        &mut self,
        hypothesis: &Dfa,
    ) -> Result<Equivalence, CbmcTeacherError> {
        let pac = self.pac.expect("PAC mode");
        self.pac_queries += 1;
        let i = self.pac_queries;
        let m = pac.samples(i);
        let with_concrete = self.concrete.is_some();
        let concrete_samples = if with_concrete { m / 2 } else { 0 };
        let mut words: Vec<Word> = Vec::with_capacity(m as usize);
        if concrete_samples > 0 {
            // Each run is one sample; a run without a word cannot be misclassified, and
            // runs with the same word are misclassified together.
            words.extend(self.more_concrete(concrete_samples));
        }
        let mut rng = SplitMix64::new(0x5eed_0000 + i);
        let uniform = UniformWords::new(&self.allowed, self.bounds.max_word_length);
        for _ in concrete_samples..m {
            if let Some(w) = uniform.draw(&mut rng) {
                words.push(w);
            }
        }
        self.stats.pac_samples += m;
        // The true answers: known, or asked of CBMC in one batch.
        let mut truth: Vec<Option<bool>> = words
            .iter()
            .map(|w| {
                if w.len() > self.bounds.max_word_length || !self.allowed.accepts(w) {
                    Some(false)
                } else {
                    self.lookup(w)
                        .or_else(|| self.concrete_answer(w).then_some(true))
                }
            })
            .collect();
        let mut ask: Vec<Word> = Vec::new();
        for (w, t) in words.iter().zip(&truth) {
            if t.is_none() && !ask.contains(w) {
                ask.push(w.clone());
            }
        }
        if !ask.is_empty() {
            let replies = self.cbmc_membership(&ask)?;
            for (w, t) in words.iter().zip(truth.iter_mut()) {
                if t.is_none() {
                    let at = ask.iter().position(|a| a == w).expect("asked");
                    *t = Some(replies[at]);
                }
            }
        }
        let wrong = words
            .iter()
            .zip(&truth)
            .filter(|(w, t)| hypothesis.accepts(w) != t.expect("answered"))
            .map(|(w, _)| w)
            .min_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        if let Some(word) = wrong {
            self.stats.pac_counterexamples += 1;
            return Ok(Equivalence::Counterexample(word.clone()));
        }
        self.pac_result = Some(PacResult {
            epsilon: pac.epsilon,
            delta: pac.delta,
            equivalence_queries: i,
            samples: m,
            concrete_samples,
            guarantee: format!(
                "PAC (epsilon {}, delta {}): with probability at least {} the automaton misclassifies at most {} of the words sampled from {} (bounds --unwind {} --max-word-length {}); {m} samples passed at equivalence query {i}. Not exact.",
                pac.epsilon,
                pac.delta,
                1.0 - pac.delta,
                pac.epsilon,
                distribution(with_concrete),
                self.bounds.unwind,
                self.bounds.max_word_length,
            ),
        });
        Ok(Equivalence::Equal)
    }
}

/// Words drawn uniformly from the words of at most `max_len` letters a DFA accepts: the
/// number of accepted words from each state is counted once, for every draw.
pub(super) struct UniformWords<'d> {
    d: &'d Dfa,
    letters: Vec<Letter>,
    /// `ways[r][q]`: accepted words of exactly `r` letters from state `q` (as floats: only
    /// their ratios matter, and exact counts overflow on large alphabets).
    ways: Vec<Vec<f64>>,
}

impl<'d> UniformWords<'d> {
    pub(super) fn new(d: &'d Dfa, max_len: usize) -> UniformWords<'d> {
        let states: Vec<_> = d.states().collect();
        let mut ways = vec![vec![0.0f64; states.len()]; max_len + 1];
        for &q in &states {
            ways[0][q as usize] = if d.is_accepting(q) { 1.0 } else { 0.0 };
        }
        let letters: Vec<Letter> = d.alphabet().letters().collect();
        for r in 1..=max_len {
            for &q in &states {
                ways[r][q as usize] = letters
                    .iter()
                    .filter_map(|&a| d.next(q, a))
                    .map(|p| ways[r - 1][p as usize])
                    .sum();
            }
        }
        UniformWords { d, letters, ways }
    }

    /// One word; `None` when the automaton accepts none.
    pub(super) fn draw(&self, rng: &mut SplitMix64) -> Option<Word> {
        let (d, ways) = (self.d, &self.ways);
        let start = d.initial() as usize;
        let total: f64 = ways.iter().map(|w| w[start]).sum();
        if total <= 0.0 {
            return None;
        }
        let mut pick = rng.unit() * total;
        let mut length = ways.len() - 1;
        for (r, w) in ways.iter().enumerate() {
            if pick < w[start] {
                length = r;
                break;
            }
            pick -= w[start];
        }
        let mut q = d.initial();
        let mut word = Vec::with_capacity(length);
        for r in (1..=length).rev() {
            let choices: Vec<(Letter, f64)> = self
                .letters
                .iter()
                .filter_map(|&a| d.next(q, a).map(|p| (a, ways[r - 1][p as usize])))
                .filter(|(_, w)| *w > 0.0)
                .collect();
            let sum: f64 = choices.iter().map(|(_, w)| w).sum();
            let mut x = rng.unit() * sum;
            let mut chosen = choices.last()?.0;
            for (a, w) in &choices {
                if x < *w {
                    chosen = *a;
                    break;
                }
                x -= w;
            }
            word.push(chosen);
            q = d.next(q, chosen)?;
        }
        Some(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::{Alphabet, ops};

    #[test]
    fn angluins_sample_sizes_grow_with_each_query() {
        let pac = Pac {
            epsilon: 0.1,
            delta: 0.05,
        };
        // (ln 20 + ln 2) / 0.1 = 36.89 → 37; each query adds ln 2 / 0.1 = 6.93.
        assert_eq!(pac.samples(1), 37);
        assert_eq!(pac.samples(2), 44);
    }

    #[test]
    fn uniform_words_come_from_the_automaton_in_proportion() {
        let alphabet = Alphabet::from_names(["a", "b", "end"]);
        let words: Vec<Word> = vec![vec![2], vec![0, 2], vec![1, 2], vec![0, 1, 2]];
        let d = ops::from_words(&alphabet, &words);
        let mut rng = SplitMix64::new(7);
        let mut counts = [0u32; 4];
        let uniform = UniformWords::new(&d, 3);
        for _ in 0..4000 {
            let w = uniform.draw(&mut rng).unwrap();
            counts[words.iter().position(|x| *x == w).unwrap()] += 1;
        }
        assert!(
            counts.iter().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
        let none = Dfa::new(alphabet);
        assert_eq!(UniformWords::new(&none, 3).draw(&mut rng), None);
    }
}
