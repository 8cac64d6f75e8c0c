//! The learning loop: L* with counterexample processing, free counterexamples from the
//! cache, and lazy learning's check-and-restore before each equivalence query.

use std::time::{Duration, Instant};

use super::cache::{Entry, QueryCache, Source};
use super::config::{CexProcessing, LearnConfig, MIN_CHECKED_GUESSES};
use super::error::LearnError;
use super::guess::Guesser;
use super::hash::FastMap;
use super::stats::LearnStats;
use super::table::{Hypothesis, RowId, Table};
use super::teacher::{Answer, Equivalence, Teacher};
use crate::automaton::{Alphabet, Dfa, Letter, Word, ops};

/// How many states the table may gain on unconfirmed guesses beyond half its size at the
/// last check, so that small tables are not checked at every step.
const GROWTH_SLACK: usize = 16;

/// Unchecked guesses always allowed before the teacher checks them ([`Session::guess_budget`]).
const GUESS_BUDGET: usize = 256;
/// The wrong guesses a check should find, on average ([`Session::guess_budget`]).
const WRONG_PER_CHECK: f64 = 4.0;

/// Iterations of a long loop between two looks at the stop request ([`crate::stop::check`]).
const STOP_EVERY: usize = 1024;

/// A learning run's settings and, once it ran, its statistics.
pub struct Learner {
    alphabet: Alphabet,
    config: LearnConfig,
    stats: LearnStats,
}

/// The result of [`learn`].
#[derive(Clone, Debug)]
pub struct Learned {
    /// The learned automaton: minimal, trimmed and canonically numbered
    /// ([`ops::minimize`]), so equal languages give equal values.
    pub dfa: Dfa,
    pub stats: LearnStats,
}

/// Learns the language of `teacher` over `alphabet`, reusing and extending `cache`.
pub fn learn<T: Teacher + ?Sized>(
    alphabet: &Alphabet,
    teacher: &mut T,
    cache: &mut QueryCache,
    config: &LearnConfig,
) -> Result<Learned, LearnError> {
    let mut learner = Learner::new(alphabet.clone(), config.clone());
    let dfa = learner.run(teacher, cache)?;
    Ok(Learned {
        dfa,
        stats: learner.stats,
    })
}

impl Learner {
    pub fn new(alphabet: Alphabet, config: LearnConfig) -> Learner {
        Learner {
            alphabet,
            config,
            stats: LearnStats::default(),
        }
    }

    /// The statistics of the last run, also when it failed.
    pub fn stats(&self) -> &LearnStats {
        &self.stats
    }

    /// Learns the teacher's language; see [`Learned::dfa`] for the form of the result.
    ///
    /// Everything in `cache` is taken as a fact about the target: its answers are never
    /// asked again and any of them can refute a conjecture. Its unconfirmed guesses, also
    /// those another run left, are checked before the first equivalence query.
    pub fn run<T: Teacher + ?Sized>(
        &mut self,
        teacher: &mut T,
        cache: &mut QueryCache,
    ) -> Result<Dfa, LearnError> {
        let start = Instant::now();
        self.stats = LearnStats {
            cex: self.config.cex.name().to_string(),
            guess: self.config.guess.name().to_string(),
            letters: self.alphabet.len(),
            ..LearnStats::default()
        };
        let foreign_words = !cache.is_empty();
        let mut session = Session {
            alphabet: &self.alphabet,
            config: &self.config,
            stats: &mut self.stats,
            teacher,
            cache,
            guesser: Guesser::new(
                &self.config.guess,
                &self.alphabet,
                self.config.wrong_guess_rate,
                self.config.seed,
            ),
            probes: Vec::new(),
            checked_size: 1,
            guess_log: Vec::new(),
            pending: Vec::new(),
            checkpoints: Vec::new(),
            foreign_words,
            teacher_time: Duration::ZERO,
        };
        let result = session.learn();
        let teacher_time = session.teacher_time;
        self.stats.teacher_seconds = teacher_time.as_secs_f64();
        self.stats.wall_seconds = start.elapsed().as_secs_f64();
        self.stats.finish_accuracy();
        result
    }
}

/// What lazy learning restores: the table, and the counterexample being worked on with the
/// size it must make the conjecture exceed (a teacher that contradicts itself would
/// otherwise keep the learner busy).
#[derive(Clone)]
struct State {
    table: Table,
    progress: Option<(Word, usize)>,
}

/// How completing the table ended.
enum Completed {
    Done,
    /// The table grew so much on unconfirmed guesses that they should be checked first.
    CheckGuesses,
    /// The table would exceed the state limit on confirmed answers.
    Capped,
}

struct Session<'a, T: Teacher + ?Sized> {
    alphabet: &'a Alphabet,
    config: &'a LearnConfig,
    stats: &'a mut LearnStats,
    teacher: &'a mut T,
    cache: &'a mut QueryCache,
    guesser: Guesser,
    /// Words known outside the table's cells (counterexamples, Rivest-Schapire probes).
    /// Every conjecture is checked against them, since a conjecture need not agree with
    /// what an earlier analysis learned.
    probes: Vec<Word>,
    /// States of the table when the guesses were last all confirmed.
    checked_size: usize,
    /// Whether the cache may hold answers outside the table and the probes (another run's,
    /// or an abandoned path's), which only a scan of the whole cache checks.
    foreign_words: bool,
    /// The cache nodes guessed since the last check, in order.
    guess_log: Vec<u32>,
    /// Scratch for [`Session::answer`], indexed by cache node: a hash map there would cost
    /// more than the rest of the bookkeeping.
    pending: Vec<u32>,
    /// Learners to return to after a wrong guess, each with the number of guesses made
    /// before it; the first is the last learner built on confirmed answers only.
    checkpoints: Vec<(State, usize)>,
    teacher_time: Duration,
}

mod answer;

impl<T: Teacher + ?Sized> Session<'_, T> {
    fn names(&self, word: &[Letter]) -> Vec<String> {
        self.alphabet
            .word_names(word)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    fn learn(&mut self) -> Result<Dfa, LearnError> {
        self.check_setup()?;
        let mut state = State {
            table: Table::new(self.alphabet.len()),
            progress: None,
        };
        self.checkpoints = vec![(state.clone(), 0)];
        loop {
            crate::stop::check()?;
            let Some(hypothesis) = self.closed_hypothesis(&mut state)? else {
                continue;
            };
            if let Some((word, accepted)) = self.cheap_counterexample(&state.table, &hypothesis) {
                self.stats.free_counterexamples += 1;
                self.refine(&mut state, &hypothesis, &word, accepted)?;
                continue;
            }
            let limit_reached =
                self.stats.equivalence_queries as usize >= self.config.max_equivalence_queries;
            let guesses_to_check = self.cache.unconfirmed() > 0;
            if guesses_to_check && (self.foreign_words || limit_reached) {
                self.repair(&mut state)?;
                continue;
            }
            // Without foreign words every cached answer is a cell of the table or a probe,
            // which the cheap check covered.
            if self.foreign_words
                && let Some((word, entry)) = self.cache.shortest_disagreement(
                    0,
                    |q, a| hypothesis.step(q, a),
                    |q| hypothesis.accepting[q as usize],
                )
            {
                self.stats.free_counterexamples += 1;
                self.probes.push(word.clone());
                self.refine(&mut state, &hypothesis, &word, entry.accepted)?;
                continue;
            }
            if limit_reached {
                return Err(LearnError::TooManyEquivalenceQueries {
                    limit: self.config.max_equivalence_queries,
                    states: hypothesis.to_dfa(self.alphabet).num_states(),
                });
            }
            let conjecture = hypothesis.to_dfa(self.alphabet);
            let Some(answer) = self.ask_conjecture(&mut state, &conjecture, guesses_to_check)?
            else {
                continue;
            };
            self.stats.equivalence_queries += 1;
            match answer {
                Equivalence::Equal => return Ok(self.finish(&state, &conjecture)),
                Equivalence::Counterexample(word) => {
                    let accepted = self.check_counterexample(&hypothesis, &word)?;
                    // Fig. 16's PrevConjectureTable: every answer so far is confirmed.
                    if self.guesser.active() {
                        self.checkpoints = vec![(state.clone(), 0)];
                    }
                    self.probes.push(word.clone());
                    self.refine(&mut state, &hypothesis, &word, accepted)?;
                }
            }
        }
    }

    /// The configuration and the cache fit this learner.
    fn check_setup(&self) -> Result<(), LearnError> {
        let rate = self.config.wrong_guess_rate;
        if !(0.0..=1.0).contains(&rate) {
            return Err(LearnError::WrongGuessRate(rate));
        }
        if self.cache.alphabet() != self.alphabet {
            return Err(LearnError::CacheAlphabet {
                cache: self.cache.alphabet().names().map(str::to_string).collect(),
                learner: self.alphabet.names().map(str::to_string).collect(),
            });
        }
        Ok(())
    }

    /// The hypothesis of the closed and consistent table, or `None` when wrong guesses had
    /// to be repaired first; an error past the state limit or when a counterexample made
    /// no progress.
    fn closed_hypothesis(&mut self, state: &mut State) -> Result<Option<Hypothesis>, LearnError> {
        let hypothesis = match self.complete(state)? {
            Completed::Done => state.table.hypothesis(),
            Completed::CheckGuesses => {
                self.repair(state)?;
                return Ok(None);
            }
            Completed::Capped => {
                return Err(LearnError::TooManyStates {
                    limit: self.config.max_states,
                });
            }
        };
        if hypothesis.size() > self.config.max_states
            && hypothesis.to_dfa(self.alphabet).num_states() > self.config.max_states
        {
            // Wrong guesses can make a language look larger than it is.
            if self.cache.unconfirmed() > 0 {
                self.repair(state)?;
                return Ok(None);
            }
            return Err(LearnError::TooManyStates {
                limit: self.config.max_states,
            });
        }
        if let Some((word, before)) = state.progress.take()
            && hypothesis.size() <= before
        {
            return Err(LearnError::NoProgress {
                word: self.names(&word),
                states: before,
            });
        }
        Ok(Some(hypothesis))
    }

    /// The teacher's answer on `conjecture`; `None` when a guess it rests on was wrong (the
    /// table has been restored and learning goes on).
    fn ask_conjecture(
        &mut self,
        state: &mut State,
        conjecture: &Dfa,
        guesses_to_check: bool,
    ) -> Result<Option<Equivalence>, LearnError> {
        if guesses_to_check {
            // The guesses and the conjecture they support, asked together: when every
            // guess is right, this is what checking them and then asking the conjecture
            // would give, for one call to the teacher instead of two.
            let (wrong, answer) = self.check_guesses_and_conjecture(conjecture)?;
            self.restore(state, wrong);
            return Ok(answer.filter(|_| wrong.is_none()));
        }
        let started = Instant::now();
        let answer = self.teacher.equivalence(conjecture);
        self.teacher_time += started.elapsed();
        answer.map(Some).map_err(LearnError::Teacher)
    }

    /// The learned automaton, minimal, with the table's final sizes in the statistics.
    fn finish(&mut self, state: &State, conjecture: &Dfa) -> Dfa {
        let dfa = ops::minimize(conjecture);
        self.stats.states = dfa.num_states();
        self.stats.columns = state.table.columns().len();
        self.stats.rows = state.table.num_rows();
        dfa
    }

    /// Checks the guesses (Fig. 16). If one was wrong, the learner goes back to where the
    /// paper's replay from the last conjecture would lead: the learner is deterministic, so
    /// replaying against the corrected cache repeats every step up to the first one that
    /// used a wrong guess; the latest checkpoint before that step is the same state, without
    /// the replay's cost.
    fn repair(&mut self, state: &mut State) -> Result<(), LearnError> {
        let wrong = self.check_guesses()?;
        self.restore(state, wrong);
        Ok(())
    }

    /// After the guesses were checked: back to the checkpoint before the first wrong one
    /// (see [`Session::repair`]), and a fresh start for the next guesses.
    fn restore(&mut self, state: &mut State, wrong: Option<usize>) {
        if let Some(first_wrong) = wrong {
            let (restored, _) = self
                .checkpoints
                .iter()
                .rev()
                .find(|(_, guesses)| *guesses <= first_wrong)
                .expect("the first checkpoint precedes every guess")
                .clone();
            *state = restored;
            state.progress = None;
            self.stats.restarts += 1;
            // The abandoned path's answers are facts the table no longer shows.
            self.foreign_words = true;
        }
        self.checkpoints = vec![(state.clone(), 0)];
        self.guess_log.clear();
        self.checked_size = state.table.unclosed().0;
    }

    /// Remembers the learner before a step that may use guesses, for [`Session::repair`].
    fn checkpoint(&mut self, state: &State) {
        if !self.guesser.active() && self.cache.unconfirmed() == 0 {
            return;
        }
        let guesses = self.guess_log.len();
        // Without guesses in between, the later state is the better one to return to.
        if self.checkpoints.last().is_some_and(|(_, g)| *g == guesses) {
            self.checkpoints.pop();
        }
        self.checkpoints.push((state.clone(), guesses));
    }

    /// Validates a counterexample and records the answer it implies; returns that answer.
    fn check_counterexample(
        &mut self,
        hypothesis: &Hypothesis,
        word: &[Letter],
    ) -> Result<bool, LearnError> {
        let letters = self.alphabet.len();
        if let Some(&letter) = word.iter().find(|&&a| a as usize >= letters) {
            return Err(LearnError::BadCounterexample { letter, letters });
        }
        let claimed = hypothesis.accepts(word);
        let known = match self.cache.get(word) {
            Some(entry) => Some((entry.accepted, entry.source)),
            None => match self.teacher.precheck(word) {
                Some(Answer::DontCare) => {
                    return Err(LearnError::DontCareUnsupported {
                        word: self.names(word),
                    });
                }
                Some(answer) => answer.as_bool().map(|b| (b, Source::Precheck)),
                None => None,
            },
        };
        if let Some((accepted, source)) = known
            && accepted == claimed
        {
            return Err(LearnError::NotACounterexample {
                word: self.names(word),
                accepted,
                origin: source,
            });
        }
        self.cache
            .insert(word, Entry::confirmed(!claimed, Source::Counterexample))
            .expect("checked against the cache above");
        Ok(!claimed)
    }

    /// Makes the table closed (and, for Angluin's processing, consistent), asking one batch
    /// per round.
    fn complete(&mut self, state: &mut State) -> Result<Completed, LearnError> {
        loop {
            crate::stop::check()?;
            self.checkpoint(state);
            let table = &mut state.table;
            self.fill(table)?;
            if self.cache.unconfirmed() > self.guess_budget() {
                return Ok(Completed::CheckGuesses);
            }
            let (distinct, open) = table.unclosed();
            if !open.is_empty() {
                let states = distinct + open.len();
                // Guesses need not come from a regular language (spoiled guesses are
                // random), and then the table would grow without end. Checking them once
                // the table has grown by half bounds the waste at the price of a batch.
                if self.cache.unconfirmed() > 0
                    && states > self.checked_size + self.checked_size / 2 + GROWTH_SLACK
                {
                    return Ok(Completed::CheckGuesses);
                }
                // One more than the limit: the rejecting sink is a row too.
                if states > self.config.max_states.saturating_add(1) {
                    return Ok(if self.cache.unconfirmed() > 0 {
                        Completed::CheckGuesses
                    } else {
                        Completed::Capped
                    });
                }
                for row in open {
                    table.promote(row);
                }
                continue;
            }
            if self.config.cex == CexProcessing::Angluin
                && let Some(column) = table.inconsistency()
            {
                table.add_column(column);
                continue;
            }
            return Ok(Completed::Done);
        }
    }

    /// How many unchecked guesses the learner may build on. A run of guesses is only as
    /// good as its first wrong one: everything explored after it is lost when the learner
    /// goes back. So the budget keeps the expected number of wrong guesses per check small
    /// (measured accuracy `p`: about `WRONG_PER_CHECK / (1 - p)` guesses), and never above
    /// the confirmed answers, so that a policy that fits the language badly cannot make
    /// the learner explore a language of its own invention, which the teacher would then
    /// have to check word by word.
    fn guess_budget(&self) -> usize {
        let confirmed = self.cache.len() - self.cache.unconfirmed();
        let checked = self.stats.guesses_confirmed + self.stats.guesses_wrong;
        let by_accuracy = if checked == 0 {
            usize::MAX
        } else {
            let wrong_share = (self.stats.guesses_wrong as f64 + 1.0) / (checked as f64 + 1.0);
            (WRONG_PER_CHECK / wrong_share) as usize
        };
        GUESS_BUDGET.max(by_accuracy.min(confirmed))
    }

    fn fill(&mut self, table: &mut Table) -> Result<(), LearnError> {
        let cells = table.missing();
        if cells.is_empty() {
            return Ok(());
        }
        let mut nodes = Vec::with_capacity(cells.len());
        for (i, &(r, j)) in cells.iter().enumerate() {
            if i.is_multiple_of(STOP_EVERY) {
                crate::stop::check()?;
            }
            let row = match table.node(r) {
                Some(node) => node,
                None => {
                    let node = self.cache.extend(QueryCache::ROOT, table.word(r));
                    table.set_node(r, node);
                    node
                }
            };
            nodes.push(self.cache.extend(row, &table.columns()[j]));
        }
        // Asked ahead (see `LearnConfig::lookahead`): row, letter and column.
        let mut ahead: Vec<(RowId, Letter, usize)> = Vec::new();
        if self.config.lookahead > 0 && !self.guesser.active() {
            for r in table.fresh_lower_rows() {
                crate::stop::check()?;
                for a in 0..self.alphabet.len() as Letter {
                    ahead.extend((0..table.columns().len()).map(|j| (r, a, j)));
                }
            }
        }
        let words = |i: usize, out: &mut Vec<Letter>| match cells.get(i) {
            Some(&(r, j)) => {
                out.extend_from_slice(table.word(r));
                out.extend_from_slice(&table.columns()[j]);
            }
            None => {
                let (r, a, j) = ahead[i - cells.len()];
                out.extend_from_slice(table.word(r));
                out.push(a);
                out.extend_from_slice(&table.columns()[j]);
            }
        };
        let node_ahead = |cache: &mut QueryCache, k: usize| {
            let (r, a, j) = ahead[k];
            let row = table.node(r).expect("a filled row has its node");
            let extended = cache.extend(row, &[a]);
            cache.extend(extended, &table.columns()[j])
        };
        let answers = self.answer(&nodes, (ahead.len(), &node_ahead), words)?;
        for (&(r, j), answer) in cells.iter().zip(answers) {
            table.set(r, j, answer);
        }
        table.mark_filled();
        Ok(())
    }

    fn ask(&mut self, words: &[Word]) -> Result<Vec<bool>, LearnError> {
        let nodes: Vec<u32> = words
            .iter()
            .map(|w| self.cache.extend(QueryCache::ROOT, w))
            .collect();
        let none = |_: &mut QueryCache, _: usize| QueryCache::ROOT;
        self.answer(&nodes, (0, &none), |i, out| {
            out.extend_from_slice(&words[i])
        })
    }

    /// Lazy learning's fix (Fig. 16): all unconfirmed answers to the teacher in one batch;
    /// wrong guesses are corrected in the cache. Returns where the first wrong guess is in
    /// [`Session::guess_log`], if any was wrong.
    fn check_guesses(&mut self) -> Result<Option<usize>, LearnError> {
        let (nodes, letters, ends, _) = self.guesses();
        let replies = self.membership(&letters, &ends)?;
        Ok(self.settle_guesses(&nodes, replies))
    }

    /// [`Session::check_guesses`] and the equivalence query of `conjecture` in one call to
    /// the teacher ([`Teacher::membership_then_equivalence`]: one CBMC run for the CBMC
    /// teacher); the query's answer comes only when every guess was right.
    fn check_guesses_and_conjecture(
        &mut self,
        conjecture: &Dfa,
    ) -> Result<(Option<usize>, Option<Equivalence>), LearnError> {
        let (nodes, letters, ends, guessed) = self.guesses();
        self.stats.teacher_batches += 1;
        let started = Instant::now();
        let result = self
            .teacher
            .membership_then_equivalence(&letters, &ends, &guessed, conjecture);
        self.teacher_time += started.elapsed();
        let (replies, answer) = result.map_err(LearnError::Teacher)?;
        let replies = self.read_replies(&letters, &ends, replies)?;
        Ok((self.settle_guesses(&nodes, replies), answer))
    }

    /// The unchecked guesses as one packed batch: their cache nodes, letters, ends and
    /// guessed answers.
    fn guesses(&self) -> (Vec<u32>, Vec<Letter>, Vec<usize>, Vec<bool>) {
        let nodes = self.cache.unconfirmed_nodes();
        let mut letters = Vec::new();
        let ends: Vec<usize> = nodes
            .iter()
            .map(|&n| {
                letters.extend(self.cache.word_of(n));
                letters.len()
            })
            .collect();
        let guessed = nodes
            .iter()
            .map(|&n| self.cache.entry(n).is_some_and(|e| e.accepted))
            .collect();
        (nodes, letters, ends, guessed)
    }

    /// Settles the guesses of `nodes` with the teacher's `replies`; returns where the first
    /// wrong one is in [`Session::guess_log`], if any was wrong.
    fn settle_guesses(&mut self, nodes: &[u32], replies: Vec<bool>) -> Option<usize> {
        let position: FastMap<u32, usize> = self
            .guess_log
            .iter()
            .enumerate()
            .map(|(i, &n)| (n, i))
            .collect();
        let mut first_wrong: Option<usize> = None;
        for (&node, accepted) in nodes.iter().zip(replies) {
            if self.cache.settle(node, accepted) {
                self.stats.guesses_confirmed += 1;
            } else {
                self.stats.guesses_wrong += 1;
                // A guess another run left behind may have been used from the start.
                let at = position.get(&node).copied().unwrap_or(0);
                first_wrong = Some(first_wrong.map_or(at, |f| f.min(at)));
            }
        }
        self.cache.prune_settled();
        let checked = self.stats.guesses_confirmed + self.stats.guesses_wrong;
        if checked >= MIN_CHECKED_GUESSES
            && (self.stats.guesses_confirmed as f64)
                < self.config.min_guess_accuracy * checked as f64
            && !self.stats.guessing_stopped
        {
            self.guesser.stop();
            self.stats.guessing_stopped = true;
        }
        first_wrong
    }

    /// A shortest word the learner knows that the conjecture gets wrong, without asking
    /// anything: the table's own cells (a conjecture only agrees with all of them when the
    /// columns are suffix-closed, which Rivest-Schapire's are not) and the probes.
    fn cheap_counterexample(&self, table: &Table, hypothesis: &Hypothesis) -> Option<(Word, bool)> {
        let mut best: Option<(Word, bool)> = None;
        let shorter = |best: &Option<(Word, bool)>, len: usize| {
            best.as_ref().is_none_or(|(w, _)| len < w.len())
        };
        // With suffix-closed columns and prefix-closed rows (Angluin's and Maler-Pnueli's
        // processing) the conjecture agrees with every cell (Angluin 1987, Lemma 4).
        let check_cells = self.config.cex == CexProcessing::RivestSchapire;
        // Every row in a state's class has the same cells, and the conjecture sends it to
        // that state, so checking the class's access row checks them all.
        for (q, &rep) in hypothesis.reps.iter().enumerate().filter(|_| check_cells) {
            for (j, column) in table.columns().iter().enumerate() {
                let want = table.bit(rep, j);
                if hypothesis.accepts_from(q as u32, column) != want
                    && shorter(&best, table.word(rep).len() + column.len())
                {
                    best = Some((table.cell_word(rep, j), want));
                }
            }
        }
        for word in &self.probes {
            if shorter(&best, word.len())
                && let Some(entry) = self.cache.get(word)
                && entry.accepted != hypothesis.accepts(word)
            {
                best = Some((word.clone(), entry.accepted));
            }
        }
        best
    }

    /// Refines the table with a word the conjecture misclassifies (`accepted` is the right
    /// answer).
    fn refine(
        &mut self,
        state: &mut State,
        hypothesis: &Hypothesis,
        word: &[Letter],
        accepted: bool,
    ) -> Result<(), LearnError> {
        self.checkpoint(state);
        state.progress = Some((word.to_vec(), hypothesis.size()));
        let table = &mut state.table;
        match self.config.cex {
            CexProcessing::Angluin => {
                let mut row = 0;
                for &a in word {
                    row = table.succ(row, a);
                    if !table.is_short(row) {
                        table.promote(row);
                    }
                }
            }
            CexProcessing::MalerPnueli => {
                for i in 0..word.len() {
                    table.add_column(word[i..].to_vec());
                }
            }
            CexProcessing::RivestSchapire => {
                let suffix = self.rivest_schapire(table, hypothesis, word, accepted)?;
                // A suffix already in the table cannot tell the two rows apart, as they
                // agree on every column: answers that do not fit together.
                if !table.add_column(suffix) {
                    return Err(LearnError::NoProgress {
                        word: self.names(word),
                        states: hypothesis.size(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Rivest and Schapire's search. With `q_i` the state the conjecture reaches after the
    /// first `i` letters and `u_i` its access word, `α(i)` is the answer for
    /// `u_i · word[i..]`: `α(0)` is the word's true answer and `α(m)` the conjecture's,
    /// which differ. Any `i` with `α(i) ≠ α(i+1)` makes `word[i+1..]` tell the row
    /// `u_i · word[i]` from `u_{i+1}`, which the table deemed equal: a new state.
    ///
    /// Points the cache already knows narrow the range for free; the others are asked
    /// `rs_words_per_step` at a time.
    fn rivest_schapire(
        &mut self,
        table: &Table,
        hypothesis: &Hypothesis,
        word: &[Letter],
        accepted: bool,
    ) -> Result<Word, LearnError> {
        let m = word.len();
        let mut states = Vec::with_capacity(m + 1);
        let mut q = 0;
        states.push(q);
        for &a in word {
            q = hypothesis.step(q, a);
            states.push(q);
        }
        let access = |i: usize| table.word(hypothesis.reps[states[i] as usize]);
        let probe = |i: usize| {
            let mut w = access(i).clone();
            w.extend_from_slice(&word[i..]);
            w
        };
        let (mut lo, mut hi) = (0usize, m);
        // α(hi) is always the opposite.
        let mut alpha_lo = accepted;
        while hi - lo > 1 {
            crate::stop::check()?;
            let known: Vec<(usize, bool)> = (lo + 1..hi)
                .filter_map(|i| {
                    let node = self.cache.find_from(QueryCache::ROOT, access(i))?;
                    let node = self.cache.find_from(node, &word[i..])?;
                    self.cache.entry(node).map(|e| (i, e.accepted))
                })
                .collect();
            let points = if !known.is_empty() {
                self.stats.membership_queries += known.len() as u64;
                self.stats.from_cache += known.len() as u64;
                known
            } else {
                let p = self.config.rs_words_per_step.clamp(1, hi - lo - 1);
                let at: Vec<usize> = (1..=p).map(|j| lo + j * (hi - lo) / (p + 1)).collect();
                let words: Vec<Word> = at.iter().map(|&i| probe(i)).collect();
                let answers = self.ask(&words)?;
                self.probes.extend(words);
                at.into_iter().zip(answers).collect()
            };
            // The shortest range whose ends differ; among equals the rightmost, whose
            // suffix is shorter.
            let mut best = None;
            let mut prev = (lo, alpha_lo);
            for next in points.into_iter().chain([(hi, !alpha_lo)]) {
                if prev.1 != next.1
                    && best.is_none_or(|(l, h, _): (usize, usize, bool)| next.0 - prev.0 <= h - l)
                {
                    best = Some((prev.0, next.0, prev.1));
                }
                prev = next;
            }
            let (l, h, a) = best.expect("the ends of the range differ");
            (lo, hi, alpha_lo) = (l, h, a);
        }
        Ok(word[hi..].to_vec())
    }
}
