//! `--auto-bounds`: the search of the bounds of Fig. 17 of Chockler, Kesseli, Kroening and
//! Strichman, *Learning the Language of Software Errors* (JAIR 2020), one algorithm for
//! `mergelens learn`, `mergelens explain` and a review's versions.
//!
//! Key items: [`search_bounds`], which drives a caller's learning step over the bounds and
//! says where it stopped in a [`BoundsSearch`], and [`BoundsLimits`], the largest bounds it
//! tries.
//!
//! The paper raises the word length `n` for each unwinding `b` until the automaton is the
//! same at `n` and `n + 1` (for a fixed `b` the language stops growing with `n`, Sec. 7.1),
//! and stops at the first `b` whose `n` converges. Here the automata are exact within the
//! bounds rather than generalisations beyond them, so that test would never raise `b`: the
//! search also compares the automata `b` converged to with those `b - 1` converged to, and
//! stops when those are equal and have no back edges ([`analysis::back_edges`]). Each `b`
//! starts at the length where the previous one converged, since a larger unwinding only
//! adds words. Empty languages are never taken for converged: at small bounds every execution
//! may be cut (a loop that always runs three times, an assertion that fails only in the
//! third iteration), and only larger bounds can tell. Nor are languages whose unwinding still
//! cuts a loop on some execution within the word bound ([`GotoProgram::cut_loops`], one CBMC
//! run when the automata stop changing): a harness that returns early gives the same `{end}`
//! at every small unwinding while each execution that reaches the code under test is cut,
//! and only an unwinding that cuts nothing proves that larger ones add no word of that
//! length. Where the limits come first, the search says which loops were still cut. A step may learn several automata (a review learns every version at the same
//! bounds, so that they stay comparable): the search moves on until all of them are stable.

use crate::automaton::{Dfa, analysis};
use crate::cprog::{self, InstrumentedProgram};

use super::LearnBounds;
#[cfg(doc)]
use super::program::GotoProgram;
use super::reach::CutLoop;

/// The largest bounds `--auto-bounds` tries: `--max-unwind` and `--max-word-length`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundsLimits {
    pub max_unwind: u32,
    pub max_word_length: usize,
}

/// Where a bounds search stopped.
#[derive(Clone, Debug)]
pub struct BoundsSearch<T> {
    /// The bounds of the last step, and what it learned.
    pub bounds: LearnBounds,
    pub learned: T,
    /// Every step's bounds, in order.
    pub runs: Vec<LearnBounds>,
    /// Whether the automata stopped changing before the limits, at an unwinding that cuts
    /// no loop within the word bound; `false` means the last step's automata may still miss
    /// words that larger bounds would add.
    pub converged: bool,
    /// When the automata stopped changing but the unwinding still cut loops (the last time
    /// that happened): those loops, the reason the search went on.
    pub cut: Option<(LearnBounds, Vec<CutLoop>)>,
}

impl<T> BoundsSearch<T> {
    /// Why an unconverged search stopped where it did, in one sentence (`None` when it
    /// converged).
    pub fn unconverged_reason(&self) -> Option<String> {
        if self.converged {
            return None;
        }
        let (b, n) = (self.bounds.unwind, self.bounds.max_word_length);
        Some(match &self.cut {
            Some((at, loops)) => format!(
                "the automata stopped changing at --unwind {} --max-word-length {}, but every unwinding up to --unwind {b} still cuts executions at the loop(s) {}: words those executions make are missing; raise --max-unwind",
                at.unwind,
                at.max_word_length,
                describe(loops)
            ),
            None => format!(
                "the automata still changed at --unwind {b} --max-word-length {n}, the largest bounds tried; raise --max-unwind or --max-word-length"
            ),
        })
    }
}

fn describe(loops: &[CutLoop]) -> String {
    let shown: Vec<String> = loops
        .iter()
        .take(3)
        .map(|l| format!("{}:{} in `{}`", l.file, l.line, l.function))
        .collect();
    let more = loops.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Raises the bounds from `--unwind 1` until the automata stop changing or `limits` are
/// reached. `learn_at` learns at the given bounds; `automata` picks the automata of its
/// result that must be stable; `shortest_word(b)` is the length of the shortest word any
/// execution can have at unwinding `b` (from the pre-check automaton), where `n` starts;
/// `cut_loops` gives the loops (of the program, not of the C library's models, which the
/// unwinding does not bound) the unwinding cuts at the given bounds, asked when the automata
/// stop changing.
pub fn search_bounds<T, E>(
    limits: BoundsLimits,
    shortest_word: impl Fn(u32) -> usize,
    mut learn_at: impl FnMut(LearnBounds) -> Result<T, E>,
    automata: impl Fn(&T) -> Vec<&Dfa>,
    mut cut_loops: impl FnMut(LearnBounds) -> Result<Vec<CutLoop>, E>,
) -> Result<BoundsSearch<T>, E> {
    let max_n = limits.max_word_length.max(1);
    // Empty languages never count as stable: when every execution is cut by the bounds
    // (or no run fails the assertion yet), only larger bounds can say more.
    let stable = |a: &[Dfa], b: &Option<Vec<Dfa>>| {
        b.as_deref() == Some(a)
            && a.iter().all(|d| analysis::back_edges(d).is_empty())
            && !a.iter().all(analysis::is_empty)
    };
    let mut runs = Vec::new();
    let mut previous_b: Option<Vec<Dfa>> = None;
    let mut start_n = 1;
    let mut last: Option<(LearnBounds, T)> = None;
    let mut cut = None;
    for b in 1..=limits.max_unwind.max(1) {
        let mut n = shortest_word(b).max(start_n).clamp(1, max_n);
        let mut previous_n: Option<Vec<Dfa>> = None;
        let n_converged = loop {
            let bounds = LearnBounds {
                unwind: b,
                max_word_length: n,
            };
            let learned = learn_at(bounds)?;
            runs.push(bounds);
            let current: Vec<Dfa> = automata(&learned).into_iter().cloned().collect();
            let done = stable(&current, &previous_n);
            previous_n = Some(current);
            last = Some((bounds, learned));
            if done {
                break true;
            }
            if n >= max_n {
                break false;
            }
            n += 1;
        };
        let current = previous_n.expect("every unwinding learns at least once");
        if n_converged && stable(&current, &previous_b) {
            let (bounds, learned) = last.expect("learned");
            let loops: Vec<CutLoop> = cut_loops(bounds)?
                .into_iter()
                .filter(|l| !l.is_library())
                .collect();
            if loops.is_empty() {
                return Ok(BoundsSearch {
                    bounds,
                    learned,
                    runs,
                    converged: true,
                    cut: None,
                });
            }
            cut = Some((bounds, loops));
            last = Some((bounds, learned));
        }
        // An empty language says nothing about the length words need: the next unwinding
        // searches the lengths again from where this one started.
        if !current.iter().all(analysis::is_empty) {
            start_n = if n_converged { n - 1 } else { n };
        }
        previous_b = Some(current);
    }
    let (bounds, learned) = last.expect("every unwinding learns at least once");
    Ok(BoundsSearch {
        bounds,
        learned,
        runs,
        converged: false,
        cut,
    })
}

/// The length of the shortest word `program`'s pre-check automaton admits at unwinding `b`:
/// no execution has a shorter one, so the word length need not start lower.
pub fn shortest_word(program: &InstrumentedProgram, b: u32) -> usize {
    let unwind = LearnBounds {
        unwind: b,
        max_word_length: 1,
    }
    .cbmc()
    .unwind;
    analysis::shortest_accepted(&cprog::syntax_automaton(program, unwind, usize::MAX))
        .map_or(1, |w| w.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::Alphabet;

    /// The words `g^k f end` for k < b, cut at `n` letters: a loop that calls `g` up to b
    /// times, then `f`.
    fn loop_language(b: u32, n: usize) -> Dfa {
        let alphabet = Alphabet::from_names(["f", "g", "end"]);
        let [f, g, end] = [0, 1, 2].map(|i| alphabet.letters().nth(i).unwrap());
        let k = b.min(n.saturating_sub(2) as u32);
        let mut d = Dfa::with_states(alphabet, k as usize + 3);
        for i in 0..k {
            d.set_transition(i, g, i + 1);
        }
        for i in 0..=k {
            d.set_transition(i, f, k + 1);
        }
        d.set_transition(k + 1, end, k + 2);
        d.set_accepting(k + 2, true);
        crate::automaton::ops::minimize(&d)
    }

    fn fixed_language(_: u32, n: usize) -> Dfa {
        loop_language(0, n)
    }

    /// Nothing until the third unwinding, then `f end`: every path is cut before.
    fn late_language(b: u32, n: usize) -> Dfa {
        if b < 3 {
            Dfa::new(Alphabet::from_names(["f", "g", "end"]))
        } else {
            loop_language(0, n)
        }
    }

    fn search(language: fn(u32, usize) -> Dfa, limits: BoundsLimits) -> BoundsSearch<Dfa> {
        search_bounds(
            limits,
            |_| 2,
            |b| Ok::<_, ()>(language(b.unwind, b.max_word_length)),
            |d| vec![d],
            |_| Ok(Vec::new()),
        )
        .unwrap()
    }

    fn cut(function: &str) -> CutLoop {
        CutLoop {
            file: "h.c".to_string(),
            line: 7,
            function: function.to_string(),
        }
    }

    #[test]
    fn a_language_the_unwinding_still_cuts_is_not_converged() {
        // A harness's early return: `f end` at every unwinding, while the loop of the code
        // under test is cut until the third; the C library's own loops never count.
        let limits = BoundsLimits {
            max_unwind: 4,
            max_word_length: 6,
        };
        let library = CutLoop {
            file: format!("{}strlen", super::super::library::LIBRARY_FILE_PREFIX),
            ..cut("strlen")
        };
        let mut asked = Vec::new();
        let s = search_bounds(
            limits,
            |_| 2,
            |b| Ok::<_, ()>(fixed_language(b.unwind, b.max_word_length)),
            |d| vec![d],
            |b| {
                asked.push(b.unwind);
                Ok(if b.unwind < 3 {
                    vec![cut("parse"), library.clone()]
                } else {
                    vec![library.clone()]
                })
            },
        )
        .unwrap();
        assert!(s.converged, "{:?}", s.cut);
        assert_eq!(s.bounds.unwind, 3);
        assert_eq!(asked, [2, 3]);
        // With the limit first, the search says which loop it still cut.
        let s = search_bounds(
            BoundsLimits {
                max_unwind: 2,
                ..limits
            },
            |_| 2,
            |b| Ok::<_, ()>(fixed_language(b.unwind, b.max_word_length)),
            |d| vec![d],
            |_| Ok(vec![cut("parse")]),
        )
        .unwrap();
        assert!(!s.converged);
        let reason = s.unconverged_reason().unwrap();
        assert!(
            reason.contains("stopped changing at --unwind 2")
                && reason.contains("h.c:7 in `parse`")
                && reason.contains("raise --max-unwind"),
            "{reason}"
        );
    }

    #[test]
    fn a_language_that_grows_with_every_unwinding_does_not_converge() {
        let limits = BoundsLimits {
            max_unwind: 3,
            max_word_length: 8,
        };
        let s = search(loop_language, limits);
        assert!(!s.converged);
        assert_eq!(s.bounds.unwind, 3);
        assert_eq!(s.learned, loop_language(3, 8));
    }

    #[test]
    fn a_language_without_loops_converges_at_the_second_unwinding() {
        let limits = BoundsLimits {
            max_unwind: 4,
            max_word_length: 10,
        };
        let s = search(fixed_language, limits);
        assert!(s.converged);
        assert_eq!(s.bounds.unwind, 2);
        // n starts at the shortest word (2) and stops growing when the automaton does.
        assert_eq!(s.runs[0].max_word_length, 2);
        assert!(s.runs.iter().all(|r| r.max_word_length <= 3));
    }

    #[test]
    fn empty_languages_do_not_stop_the_search() {
        let limits = BoundsLimits {
            max_unwind: 5,
            max_word_length: 6,
        };
        let s = search(late_language, limits);
        assert!(s.converged);
        assert_eq!(s.bounds.unwind, 4);
        assert_eq!(s.learned, loop_language(0, 6));
    }

    #[test]
    fn every_automaton_of_a_step_must_be_stable() {
        let limits = BoundsLimits {
            max_unwind: 3,
            max_word_length: 8,
        };
        let s = search_bounds(
            limits,
            |_| 2,
            |b| {
                Ok::<_, ()>([
                    fixed_language(b.unwind, b.max_word_length),
                    loop_language(b.unwind, b.max_word_length),
                ])
            },
            |pair| pair.iter().collect(),
            |_| Ok(Vec::new()),
        )
        .unwrap();
        assert!(!s.converged);
        assert_eq!(s.bounds.unwind, 3);
    }
}
