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

pub mod analysis;
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
