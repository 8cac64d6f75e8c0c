//! How the learner's words are answered: `Session::answer` takes them from the cache, the
//! pre-check, the guess policy (lazy learning, the paper's Sec. 6) and, for the rest, one
//! batch to the teacher, in which words asked ahead ([`Ahead`]) ride along.

use std::time::Instant;

use super::Session;
use crate::automaton::Letter;
use crate::learn::cache::{Entry, QueryCache, Source};
use crate::learn::error::LearnError;
use crate::learn::teacher::{Answer, Teacher, unpack};

/// Words asked ahead (see [`crate::learn::LearnConfig::lookahead`]): how many, and the cache node of the
/// `k`-th, made in the cache only when it is asked.
pub(super) type Ahead<'a> = (usize, &'a dyn Fn(&mut QueryCache, usize) -> u32);

impl<T: Teacher + ?Sized> Session<'_, T> {
    /// Answers the learner's words (as cache nodes; `word(i, out)` appends the `i`-th) from
    /// the cache, the pre-check, the guess policy and, for the rest, one batch to the
    /// teacher. The words for the teacher end up packed in one buffer, as the others are
    /// cut off it again. When there is a batch, words asked ahead (`ahead`: how many, and
    /// the cache node of the `k`-th, made only when asked; numbered on after `nodes` for
    /// `word`) that the cache and the pre-check cannot answer ride along in it, up to
    /// [`crate::learn::LearnConfig::lookahead`] words; their answers go to the cache only.
    pub(super) fn answer(
        &mut self,
        nodes: &[u32],
        ahead: Ahead<'_>,
        word: impl Fn(usize, &mut Vec<Letter>),
    ) -> Result<Vec<bool>, LearnError> {
        let mut answers: Vec<Option<bool>> = vec![None; nodes.len()];
        // Most words of a batch are new cells of a few letters more than their row's.
        let mut letters: Vec<Letter> = Vec::with_capacity(nodes.len() * 8);
        let mut ends: Vec<usize> = Vec::with_capacity(nodes.len());
        let mut batch_nodes: Vec<u32> = Vec::with_capacity(nodes.len());
        // `pending[node]` is the node's place in this batch plus one, 0 when not in it.
        if self.pending.len() < self.cache.nodes() {
            self.pending.resize(self.cache.nodes(), 0);
        }
        let mut from_batch: Vec<(usize, usize)> = Vec::with_capacity(nodes.len());
        for (i, &node) in nodes.iter().enumerate() {
            self.stats.membership_queries += 1;
            if let Some(entry) = self.cache.entry(node) {
                self.stats.from_cache += 1;
                answers[i] = Some(entry.accepted);
                continue;
            }
            if let Some(b) = self.pending[node as usize].checked_sub(1) {
                // A repeat within the batch: the cache will know it once the teacher has
                // answered the first.
                self.stats.from_cache += 1;
                from_batch.push((i, b as usize));
                continue;
            }
            let start = letters.len();
            word(i, &mut letters);
            let w = &letters[start..];
            if let Some(answer) = self.teacher.precheck(w) {
                let accepted = self.yes_no(answer, w)?;
                self.remember(node, Entry::confirmed(accepted, Source::Precheck), accepted)?;
                self.stats.from_precheck += 1;
                answers[i] = Some(accepted);
                letters.truncate(start);
            } else if let Some(guess) = self.guesser.guess(w) {
                self.remember(node, Entry::guess(guess), guess)?;
                self.guess_log.push(node);
                self.stats.from_guess += 1;
                answers[i] = Some(guess);
                letters.truncate(start);
            } else {
                self.pending[node as usize] = ends.len() as u32 + 1;
                from_batch.push((i, ends.len()));
                ends.push(letters.len());
                batch_nodes.push(node);
            }
        }
        if !ends.is_empty() {
            self.ask_ahead(
                ahead,
                nodes.len(),
                &word,
                (&mut letters, &mut ends, &mut batch_nodes),
            )?;
        }
        for &node in &batch_nodes {
            self.pending[node as usize] = 0;
        }
        if !ends.is_empty() {
            let replies = self.membership(&letters, &ends)?;
            for (&node, &accepted) in batch_nodes.iter().zip(&replies) {
                self.remember(node, Entry::confirmed(accepted, Source::Teacher), accepted)?;
            }
            for (i, b) in from_batch {
                answers[i] = Some(replies[b]);
            }
        }
        Ok(answers
            .into_iter()
            .map(|a| a.expect("every word answered"))
            .collect())
    }

    /// The words asked ahead (the `first`-th word and on) that join a batch: each the
    /// cache and the pre-check cannot answer, while the batch has room.
    pub(super) fn ask_ahead(
        &mut self,
        (count, node_of): Ahead<'_>,
        first: usize,
        word: &impl Fn(usize, &mut Vec<Letter>),
        (letters, ends, batch_nodes): (&mut Vec<Letter>, &mut Vec<usize>, &mut Vec<u32>),
    ) -> Result<(), LearnError> {
        for k in 0..count {
            if ends.len() >= self.config.lookahead {
                break;
            }
            let node = node_of(self.cache, k);
            if self.pending.len() < self.cache.nodes() {
                self.pending.resize(self.cache.nodes(), 0);
            }
            if self.cache.entry(node).is_some() || self.pending[node as usize] != 0 {
                continue;
            }
            let start = letters.len();
            word(first + k, letters);
            self.stats.membership_queries += 1;
            if let Some(answer) = self.teacher.precheck(&letters[start..]) {
                let accepted = self.yes_no(answer, &letters[start..])?;
                self.remember(node, Entry::confirmed(accepted, Source::Precheck), accepted)?;
                self.stats.from_precheck += 1;
                letters.truncate(start);
            } else {
                self.pending[node as usize] = ends.len() as u32 + 1;
                ends.push(letters.len());
                batch_nodes.push(node);
            }
        }
        Ok(())
    }

    pub(super) fn remember(
        &mut self,
        node: u32,
        entry: Entry,
        accepted: bool,
    ) -> Result<(), LearnError> {
        self.cache
            .set_entry(node, entry)
            .map_err(|known| LearnError::ContradictsCache {
                word: self.names(&self.cache.word_of(node)),
                known: known.accepted,
                origin: known.source,
                answer: accepted,
            })
    }

    pub(super) fn yes_no(&self, answer: Answer, word: &[Letter]) -> Result<bool, LearnError> {
        answer
            .as_bool()
            .ok_or_else(|| LearnError::DontCareUnsupported {
                word: self.names(word),
            })
    }

    /// One batch to the teacher, counted and checked.
    pub(super) fn membership(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
    ) -> Result<Vec<bool>, LearnError> {
        self.stats.teacher_batches += 1;
        let started = Instant::now();
        let replies = self.teacher.membership_packed(letters, ends);
        self.teacher_time += started.elapsed();
        let replies = replies.map_err(LearnError::Teacher)?;
        self.read_replies(letters, ends, replies)
    }

    /// The teacher's answers to a batch, checked (one per word, none "don't care") and
    /// counted.
    pub(super) fn read_replies(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
        replies: Vec<Answer>,
    ) -> Result<Vec<bool>, LearnError> {
        if replies.len() != ends.len() {
            return Err(LearnError::BatchSize {
                asked: ends.len(),
                answered: replies.len(),
            });
        }
        self.stats.from_teacher += ends.len() as u64;
        let mut answers = Vec::with_capacity(replies.len());
        for (i, reply) in replies.into_iter().enumerate() {
            match reply.as_bool() {
                Some(accepted) => answers.push(accepted),
                None => {
                    let word = unpack(letters, ends).nth(i).expect("a word per reply");
                    return Err(LearnError::DontCareUnsupported {
                        word: self.names(word),
                    });
                }
            }
        }
        Ok(answers)
    }
}
