//! Deterministic finite automata over named letters.
//!
//! Key types:
//!
//! * [`Alphabet`]: an ordered set of interned letters (function names, `end`, `assert`, ...);
//!   a [`Letter`] is an index into it.
//! * [`Dfa`]: a DFA with a *partial* transition function. A missing edge goes to an implicit
//!   rejecting sink, which is how the paper (Sec. 7.2, "removing the sink state") draws its
//!   automata, and which keeps the automata of program behaviour small.
//!
//! The algebra ([`ops`]) builds products over the union of two alphabets (a letter one side
//! lacks sends that side to its sink), complements, minimises (Hopcroft 1971, on the
//! completed automaton) and trims. [`analysis`] has the questions a reviewer asks of an
//! automaton: emptiness and inclusion with shortest witnesses, words in length-lexicographic
//! order, dominating letters and doomed states (Sec. 7.2 of the paper), back edges (Fig. 17).
//! [`json`], [`dot`] and [`svg`] read and write the `mergelens-dfa/1` format and draw.
//!
//! # Examples
//!
//! Read two automata, compare their languages, and look at the difference:
//!
//! ```
//! use mergelens::automaton::{analysis, json, ops};
//!
//! // The branch's `main` calls f, then maybe g; the merge's may call g twice.
//! let branch = json::from_str(r#"{"format": "mergelens-dfa/1", "alphabet": ["f", "g", "end"],
//!     "states": 4, "initial": 0, "accepting": [3],
//!     "transitions": [{"from": 0, "letter": "f", "to": 1}, {"from": 1, "letter": "g", "to": 2},
//!                     {"from": 1, "letter": "end", "to": 3}, {"from": 2, "letter": "end", "to": 3}]}"#,
//!     "branch")?;
//! let merged = json::from_str(r#"{"format": "mergelens-dfa/1", "alphabet": ["f", "g", "end"],
//!     "states": 3, "initial": 0, "accepting": [2],
//!     "transitions": [{"from": 0, "letter": "f", "to": 1}, {"from": 1, "letter": "g", "to": 1},
//!                     {"from": 1, "letter": "end", "to": 2}]}"#,
//!     "merged")?;
//!
//! // Everything the branch does, the merge does too...
//! assert_eq!(analysis::inclusion_witness(&branch, &merged), None);
//! // ...but not the other way round: the least word only the merge has.
//! let added = analysis::inclusion_witness(&merged, &branch).unwrap();
//! assert_eq!(added, ["f", "g", "g", "end"]);
//!
//! // The difference as an automaton, minimal: f g g end, f g g g end, ...
//! let difference = ops::minimize(&ops::difference(&merged, &branch));
//! assert_eq!(analysis::count_up_to(&difference, 5), Some(2));
//! assert!(!difference.accepts_names(&["f", "g", "end"]));
//! # Ok::<(), mergelens::automaton::AutomatonError>(())
//! ```
//!
//! Build an automaton letter by letter, and ask the questions of the paper's Sec. 7.2:
//!
//! ```
//! use mergelens::automaton::{Alphabet, Dfa, Marks, analysis};
//!
//! // Failing runs call `lock`, maybe `work`, then fail the assertion.
//! let alphabet = Alphabet::from_names(["lock", "work", "assert"]);
//! let letter = |name| alphabet.letter(name).unwrap();
//! let mut dfa = Dfa::with_states(alphabet.clone(), 4);
//! dfa.set_transition(0, letter("lock"), 1);
//! dfa.set_transition(1, letter("work"), 2);
//! dfa.set_transition(1, letter("assert"), 3);
//! dfa.set_transition(2, letter("assert"), 3);
//! dfa.set_accepting(3, true);
//!
//! let words = analysis::words_up_to(&dfa, 3, 100)?;
//! let names: Vec<String> = words.iter().map(|w| alphabet.format_word(w)).collect();
//! assert_eq!(names, ["lock assert", "lock work assert"]);
//! // Every failing run goes through `lock` (a dominating letter); once the run is past
//! // `lock`, the assertion will fail (doomed states).
//! let marks = Marks::analyse(&dfa);
//! assert_eq!(marks.dominating, [letter("lock"), letter("assert")]);
//! assert_eq!(marks.doomed, [0, 1, 2]);
//! # Ok::<(), mergelens::automaton::AutomatonError>(())
//! ```

pub mod analysis;
pub mod concise;
mod dfa;
pub mod dot;
mod error;
pub mod json;
mod marks;
pub mod ops;
mod pairs;
pub mod svg;

pub use dfa::{Alphabet, Dfa, Letter, StateId, Word};
pub use error::AutomatonError;
pub use marks::Marks;
