//! The C harnesses that define the hooks of an instrumented program for one query.
//!
//! The hook contract: the program calls `__mergelens_event(letter)` at each event,
//! `__mergelens_end()` just before the entry function returns and `__mergelens_exit()` just
//! before `exit()`/`abort()`. A harness is compiled beside the program's goto binary, so
//! the program itself is compiled once per version. Every global of a harness starts with
//! `__mergelens_`, a prefix the contract reserves, and none is `static`, so that CBMC's
//! traces name them exactly.

use std::fmt::Write;

use crate::automaton::{Dfa, Letter};

/// The description of the assertion that fails iff word `i` of a membership batch is the
/// event word of an execution.
pub(crate) fn word_property(i: usize) -> String {
    format!("mergelens word {i}")
}

pub(crate) const POSITIVE_PROPERTY: &str = "mergelens positive feedback";
pub(crate) const NEGATIVE_PROPERTY: &str = "mergelens negative feedback";
pub(crate) const CONTRACT_PROPERTY: &str = "mergelens event letter in the alphabet, not end";
/// The array the conjecture harness copies a feedback word into right before failing, and
/// its length: reading the last assignments to these in the trace gives the word.
pub(crate) const WITNESS: &str = "__mergelens_w";
pub(crate) const WITNESS_LEN: &str = "__mergelens_wlen";

/// The harness of a batched membership query (Fig. 7 of the paper, for many words at once):
/// `__mergelens_end` holds one assertion per word, and word `i`'s assertion
/// ([`word_property`]) fails iff some execution within the bounds has exactly that event
/// word. `words` must end with `end`, contain it nowhere else, and be at most `max_len`
/// long (so `max_len >= 1`).
///
/// The event hook only records the path, as one bit-vector ([`PathCode`]): each event shifts
/// it left by a few bits and writes its letter into the low ones, and word `i`'s assertion
/// compares it with one constant. An array of letters written at a symbolic index (the path
/// length differs between the paths CBMC merges) costs a multiplexer over every cell per
/// event; the shift is wiring. On the paper's `merge_sort` (`--unwind 2`, 22 words) CBMC's
/// CPU time went from 0.50 s to 0.38 s, against 0.29 s for the program without hooks.
///
/// Blocking paths that leave every queried word (a trie walked by the event hook) was
/// measured and dropped: CBMC merges paths at every join, so the trie node is symbolic, the
/// `assume` never cuts a path during symbolic execution, and the table lookups only enlarge
/// the formula (CBMC CPU time, Fig. 12 with 50 words: 190 ms against 10; a looping program
/// with 500 words: 8.6 s against 0.33, and still 2.1 s with the trie laid out as [`Table`]
/// lays out automata).
pub(crate) fn membership(words: &[&[Letter]], end: Letter, max_len: usize) -> String {
    debug_assert!(
        words
            .iter()
            .all(|w| w.last() == Some(&end) && w.len() <= max_len)
    );
    let code = PathCode::new(words, max_len);
    let mut c = path_hooks(&code, end);
    for (i, word) in words.iter().enumerate() {
        let _ = writeln!(
            c,
            "  __CPROVER_assert(__mergelens_code != {}, \"{}\");",
            code.constant(word),
            word_property(i)
        );
    }
    // The entry function has returned: nothing after this belongs to the word.
    c.push_str("  __CPROVER_assume(0);\n}\n");
    c
}

/// The hooks of a harness that records the path as [`PathCode`] `code`, up to the middle of
/// `__mergelens_end`, where the path holds the whole word: the caller adds its assertions
/// and closes the function with `__CPROVER_assume(0)` (the entry has returned, nothing
/// after belongs to the word).
fn path_hooks(code: &PathCode, end: Letter) -> String {
    let ty = code.c_type();
    let mut c = String::new();
    c.push_str(PRELUDE);
    // An exit point never reaches the entry function's return, so no path through it has
    // a word in the language of the program explanation.
    c.push_str("void __mergelens_exit(void) { __CPROVER_assume(0); }\n");
    let _ = writeln!(
        c,
        "{ty} __mergelens_code;\nunsigned int __mergelens_len;\n\
         void __mergelens_event(unsigned int letter) {{\n  \
           /* no queried word has a larger letter */\n  \
           __CPROVER_assume(letter <= {}u);\n  \
           /* leave room for end */\n  \
           __CPROVER_assume(__mergelens_len < {}u);\n  \
           __mergelens_code = (__mergelens_code << {}) | ({ty})(letter + 1u);\n  \
           __mergelens_len++;\n}}",
        code.max_letter,
        code.max_len - 1,
        code.bits
    );
    let _ = writeln!(
        c,
        "void __mergelens_end(void) {{\n  \
           __mergelens_code = (__mergelens_code << {}) | ({ty}){}u;",
        code.bits,
        end + 1
    );
    c
}

/// The global a [`word_formula`] harness compares the path with.
pub(crate) const QUERY_WORD: &str = "__mergelens_query";
/// The one property CBMC checks in a [`word_formula`] harness (its `--property` name).
pub(crate) const QUERY_PROPERTY_ID: &str = "__mergelens_end.assertion.1";

/// The harness of a formula kept for many membership queries (see [`super::formula`]): the
/// hooks of [`membership`] for every letter below `letters`, and one assertion that fails
/// iff the path is [`QUERY_WORD`], a global the harness declares `extern` and never
/// defines, so that CBMC leaves its value free (one symbol, whose bits the formula names).
/// Returns the source and the bits of one letter's digit in the code.
pub(crate) fn word_formula(letters: usize, end: Letter, max_len: usize) -> (String, u32) {
    debug_assert!(max_len >= 1 && (end as usize) < letters);
    let max_letter = letters.saturating_sub(1) as Letter;
    let code = PathCode::with_max_letter(max_letter, max_len);
    let ty = code.c_type();
    let mut c = format!("extern {ty} {QUERY_WORD};\n");
    c.push_str(&path_hooks(&code, end));
    let _ = writeln!(
        c,
        "  __CPROVER_assert(__mergelens_code != {QUERY_WORD}, \"mergelens query\");"
    );
    c.push_str("  __CPROVER_assume(0);\n}\n");
    (c, code.bits)
}

/// The code of `word` as [`PathCode`] with `bits` bits a digit lays it out, lowest bit
/// first: letter `a` is the digit `a + 1`, the last letter the lowest digit.
pub(crate) fn code_bits(word: &[Letter], bits: u32) -> Vec<bool> {
    let mut out = Vec::with_capacity(word.len() * bits as usize);
    for &a in word.iter().rev() {
        let digit = u64::from(a) + 1;
        out.extend((0..bits).map(|b| digit >> b & 1 == 1));
    }
    out
}

/// A path of at most `max_len` letters as one unsigned bit-vector of `bits * max_len` bits:
/// letter `a` is the digit `a + 1` (so that no digit is 0 and words of different lengths
/// differ), the first letter in the highest digit. Exact as long as every letter is at most
/// `max_letter`, which the event hook assumes: a path with a larger letter has no queried
/// word.
struct PathCode {
    bits: u32,
    max_letter: Letter,
    max_len: usize,
}

impl PathCode {
    fn new(words: &[&[Letter]], max_len: usize) -> PathCode {
        let max_letter = words
            .iter()
            .flat_map(|w| w.iter())
            .copied()
            .max()
            .unwrap_or(0);
        PathCode::with_max_letter(max_letter, max_len)
    }

    fn with_max_letter(max_letter: Letter, max_len: usize) -> PathCode {
        PathCode {
            bits: u32::BITS - (max_letter + 1).leading_zeros(),
            max_letter,
            max_len,
        }
    }

    fn c_type(&self) -> String {
        let width = self.bits as usize * self.max_len;
        format!("unsigned __CPROVER_bitvector[{width}]")
    }

    /// The code of `word` as a C expression: C has no literals wider than 64 bits, so it is
    /// built from 32-bit pieces.
    fn constant(&self, word: &[Letter]) -> String {
        // Digits from the lowest: the last letter is the lowest digit.
        let mut pieces: Vec<u32> = Vec::new();
        let mut at = 0u32; // bit position of the next digit
        for &a in word.iter().rev() {
            let digit = u64::from(a) + 1;
            let (piece, offset) = ((at / 32) as usize, at % 32);
            let spread = digit << offset;
            if pieces.len() < piece + 2 {
                pieces.resize(piece + 2, 0);
            }
            pieces[piece] |= spread as u32;
            pieces[piece + 1] |= (spread >> 32) as u32;
            at += self.bits;
        }
        while pieces.len() > 1 && pieces.last() == Some(&0) {
            pieces.pop();
        }
        let ty = self.c_type();
        let terms: Vec<String> = pieces
            .iter()
            .enumerate()
            .filter(|&(i, &p)| p != 0 || i == 0)
            .map(|(i, p)| format!("(({ty}){p}u << {})", 32 * i))
            .collect();
        format!("({})", terms.join(" | "))
    }

    #[cfg(test)]
    fn value(&self, word: &[Letter]) -> u128 {
        word.iter()
            .fold(0u128, |v, &a| (v << self.bits) | (u128::from(a) + 1))
    }
}

/// In `__mergelens_end` of a conjecture harness, once the path holds the whole word: word
/// `i`'s assertion ([`word_property`]) fails iff the path is word `i`.
fn word_assertions(c: &mut String, words: &[&[Letter]]) {
    for (i, word) in words.iter().enumerate() {
        let mut cond = format!("__mergelens_len == {}u", word.len());
        for (j, a) in word.iter().enumerate() {
            let _ = write!(cond, " && __mergelens_path[{j}] == {a}u");
        }
        let _ = writeln!(
            c,
            "  __CPROVER_assert(!({cond}), \"{}\");",
            word_property(i)
        );
    }
}

const PRELUDE: &str = "/* Generated by mergelens: the hooks of one query. */\n";

fn join(values: &[u32]) -> String {
    let values: Vec<String> = values.iter().map(u32::to_string).collect();
    values.join(", ")
}

fn path_globals(c: &mut String, max_len: usize) {
    let _ = writeln!(
        c,
        "unsigned int __mergelens_path[{max_len}];\nunsigned int __mergelens_len;"
    );
}

/// An automaton as C tables: its transitions completed with an explicit rejecting sink
/// (the last state), so that a run never leaves the table.
///
/// The table is letter-major (`NAME[letter][state]`) with the narrowest state type: at an
/// event the letter is a constant and the state symbolic, so CBMC selects one column and
/// builds a multiplexer over the states only, as wide as the type. With the state-major
/// 32-bit layout a conjecture query on a 400-state hypothesis took 4 times as long.
#[derive(Debug)]
pub(crate) struct Table {
    /// Letter-major `letters × states`.
    delta: Vec<u32>,
    accept: Vec<bool>,
    initial: u32,
    letters: usize,
}

impl Table {
    pub fn new(d: &Dfa) -> Table {
        let sink = d.num_states() as u32;
        let mut delta = Vec::with_capacity((d.num_states() + 1) * d.alphabet().len());
        for a in d.alphabet().letters() {
            delta.extend(d.states().map(|q| d.next(q, a).unwrap_or(sink)));
            delta.push(sink);
        }
        let mut accept: Vec<bool> = d.states().map(|q| d.is_accepting(q)).collect();
        accept.push(false);
        Table {
            delta,
            accept,
            initial: d.initial(),
            letters: d.alphabet().len(),
        }
    }

    /// The narrowest C type that holds every state.
    fn state_type(&self) -> &'static str {
        match self.accept.len() {
            0..=256 => "unsigned char",
            257..=65536 => "unsigned short",
            _ => "unsigned int",
        }
    }

    /// Defines `NAME` (the transitions, `NAME[letter][state]`) and `NAME_state` (the
    /// current state, initially the initial one).
    fn define(&self, c: &mut String, name: &str) {
        let states = self.accept.len();
        let ty = self.state_type();
        let _ = writeln!(c, "const {ty} {name}[{}][{states}] = {{", self.letters);
        for column in self.delta.chunks(states) {
            let _ = writeln!(c, "  {{{}}},", join(column));
        }
        let _ = writeln!(c, "}};\n{ty} {name}_state = {};", self.initial);
    }

    /// Defines `NAME_accept`, indexed by state.
    fn define_accept(&self, c: &mut String, name: &str) {
        let flags: Vec<u32> = self.accept.iter().map(|&f| u32::from(f)).collect();
        let _ = writeln!(
            c,
            "const _Bool {name}_accept[{}] = {{{}}};",
            flags.len(),
            join(&flags)
        );
    }

    /// For each state, the length of a shortest `x` without `end` such that `x end` leads
    /// from it to acceptance; `cap` where there is none shorter than `cap`.
    fn distances_to_end(&self, end: Letter, cap: u32) -> Vec<u32> {
        let states = self.accept.len();
        let column = |a: Letter| &self.delta[a as usize * states..(a as usize + 1) * states];
        let mut dist: Vec<u32> = column(end)
            .iter()
            .map(|&to| if self.accept[to as usize] { 0 } else { cap })
            .collect();
        // Bellman-Ford rounds: after round r every distance up to r is exact.
        for _ in 0..cap {
            let mut changed = false;
            for a in (0..self.letters as Letter).filter(|&a| a != end) {
                for (q, &to) in column(a).iter().enumerate() {
                    let via = dist[to as usize].saturating_add(1).min(cap);
                    if via < dist[q] {
                        dist[q] = via;
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        dist
    }

    #[cfg(test)]
    fn run(&self, word: &[Letter]) -> bool {
        let states = self.accept.len();
        let q = word.iter().fold(self.initial, |q, &a| {
            self.delta[a as usize * states + q as usize]
        });
        self.accept[q as usize]
    }
}

/// The harness of a conjecture query (Fig. 9 and Fig. 11 of the paper, in program
/// explanation mode, where "the assertion fails" means "the entry function returns", so
/// every execution reaching `__mergelens_end` is a failing one). `hypothesis` is the
/// conjecture; `unknown` accepts the words the hypothesis accepts that are not known to
/// be in the language (the hypothesis minus the known words, Fig. 11 lines 6-7):
///
/// * at `__mergelens_end`, [`POSITIVE_PROPERTY`] fails on an execution whose word the
///   hypothesis rejects (Fig. 9, line 10); the witness is that word. Fig. 9's line 9 (an
///   accepted word of a passing execution) cannot happen here: no execution that reaches
///   the end passes;
/// * at `__mergelens_exit`, the trap of Fig. 11: [`NEGATIVE_PROPERTY`] fails if the path
///   so far, extended by letters other than `end` and then `end`, can be a word of
///   `unknown` within the length bound; the witness is the path so far, the exit prefix,
///   which the caller extends with a shortest such extension. Fig. 11 chooses the
///   extension nondeterministically, letter by letter; whether one exists depends only on
///   the current state of `unknown` and the length left, so a table of distances answers
///   it with one lookup per exit point (a conjecture with 164 known words on a looping
///   program: 0.9 s instead of 6.5 s).
///
/// The trap only sees words that have a prefix with which some execution reaches an exit
/// point. An accepted word none of whose prefixes is such an exit prefix (e.g. `main f end`
/// when no execution exits after `main` alone) reaches neither property, so this harness
/// cannot reject it: that is the gap between Theorem 4.1 and the paper's Eqn. (6), which
/// an exactness pass outside this harness must close.
///
/// Both properties copy the word into [`WITNESS`] / [`WITNESS_LEN`] right before failing.
/// [`CONTRACT_PROPERTY`] fails if an event letter is outside the alphabet or is `end`.
/// Both tables must be over the same alphabet, which contains `end`; `max_len >= 1`.
///
/// `words` are membership queries asked in the same run, as [`membership`] asks them (one
/// assertion per word at `__mergelens_end`, [`word_property`]): the paths that reach the end
/// are the same in both harnesses, so the answers are too.
pub(crate) fn conjecture(
    hypothesis: &Table,
    unknown: &Table,
    end: Letter,
    max_len: usize,
    words: &[&[Letter]],
) -> String {
    debug_assert!(max_len >= 1 && hypothesis.letters == unknown.letters);
    let k = hypothesis.letters;
    let cap = u32::try_from(max_len).unwrap_or(u32::MAX);
    let mut c = String::new();
    c.push_str(PRELUDE);
    hypothesis.define(&mut c, "__mergelens_h");
    hypothesis.define_accept(&mut c, "__mergelens_h");
    let dist = unknown.distances_to_end(end, cap);
    let trap_can_fire = dist.iter().any(|&d| d < cap);
    if trap_can_fire {
        unknown.define(&mut c, "__mergelens_u");
        let _ = writeln!(
            c,
            "const unsigned int __mergelens_u_dist[{}] = {{{}}};",
            dist.len(),
            join(&dist)
        );
    }
    path_globals(&mut c, max_len);
    let _ = writeln!(
        c,
        "unsigned int {WITNESS}[{max_len}];\nunsigned int {WITNESS_LEN};"
    );
    // Unrolled, so that `--unwind` (meant for the program's loops) cannot cut it short.
    c.push_str("void __mergelens_witness(void) {\n");
    for i in 0..max_len {
        let _ = writeln!(c, "  {WITNESS}[{i}] = __mergelens_path[{i}];");
    }
    let _ = writeln!(c, "  {WITNESS_LEN} = __mergelens_len;\n}}");

    let letter_ok = format!("letter < {k}u && letter != {end}u");
    let track_unknown = if trap_can_fire {
        "\n  __mergelens_u_state = __mergelens_u[letter][__mergelens_u_state];"
    } else {
        ""
    };
    let _ = writeln!(
        c,
        "void __mergelens_event(unsigned int letter) {{\n  \
           __CPROVER_assert({letter_ok}, \"{CONTRACT_PROPERTY}\");\n  \
           __CPROVER_assume({letter_ok});\n  \
           /* leave room for end */\n  \
           __CPROVER_assume(__mergelens_len < {}u);\n  \
           __mergelens_path[__mergelens_len] = letter;\n  \
           __mergelens_len++;\n  \
           __mergelens_h_state = __mergelens_h[letter][__mergelens_h_state];{track_unknown}\n}}",
        max_len - 1
    );
    let _ = writeln!(
        c,
        "void __mergelens_end(void) {{\n  \
           __mergelens_path[__mergelens_len] = {end}u;\n  \
           __mergelens_len++;"
    );
    word_assertions(&mut c, words);
    let _ = writeln!(
        c,
        "  if (!__mergelens_h_accept[__mergelens_h[{end}][__mergelens_h_state]]) {{\n    \
             __mergelens_witness();\n    \
             __CPROVER_assert(0, \"{POSITIVE_PROPERTY}\");\n  \
           }}\n  \
           __CPROVER_assume(0);\n}}"
    );
    // When no unknown word fits the bound the trap cannot fire; its property stays, so
    // that every run reports it.
    let fires = if trap_can_fire {
        format!("__mergelens_len + __mergelens_u_dist[__mergelens_u_state] < {cap}u")
    } else {
        "0".to_string()
    };
    let _ = writeln!(
        c,
        "void __mergelens_exit(void) {{\n  \
           if ({fires}) {{\n    \
             __mergelens_witness();\n    \
             __CPROVER_assert(0, \"{NEGATIVE_PROPERTY}\");\n  \
           }}\n  \
           __CPROVER_assume(0);\n}}"
    );
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::Alphabet;

    /// The constant of a word is the value the event hook builds for its path, split into
    /// 32-bit pieces: checked against the arithmetic on words wider than 64 bits.
    #[test]
    fn path_codes_are_the_words_digits() {
        let words: Vec<Vec<Letter>> = vec![vec![17], vec![16, 7, 17], vec![3; 12]];
        let refs: Vec<&[Letter]> = words.iter().map(Vec::as_slice).collect();
        let code = PathCode::new(&refs, 13);
        assert_eq!((code.bits, code.max_letter), (5, 17));
        assert_eq!(code.c_type(), "unsigned __CPROVER_bitvector[65]");
        for word in &words {
            let text = code.constant(word);
            let mut value = 0u128;
            for term in text.trim_matches(['(', ')']).split(" | ") {
                let (piece, shift) = term.trim_matches(['(', ')']).rsplit_once("u << ").unwrap();
                let piece: u128 = piece.rsplit(')').next().unwrap().parse().unwrap();
                value |= piece << shift.parse::<u32>().unwrap();
            }
            assert_eq!(value, code.value(word), "{text}");
        }
        // Different words, different codes, also across lengths.
        assert_ne!(code.value(&[0, 17]), code.value(&[17]));
        // One letter and end: one bit per digit would not tell `a end` from `end end`.
        let one = PathCode::new(&[&[0, 1]], 3);
        assert_eq!(one.bits, 2);
    }

    #[test]
    fn tables_complete_the_automaton_with_a_sink() {
        // Accepts f* end over {f, end}.
        let mut h = Dfa::with_states(Alphabet::from_names(["f", "end"]), 2);
        h.set_transition(0, 0, 0);
        h.set_transition(0, 1, 1);
        h.set_accepting(1, true);
        let t = Table::new(&h);
        assert_eq!(t.delta, [0, 2, 2, 1, 2, 2]);
        assert!(t.run(&[0, 0, 1]) && !t.run(&[1, 1]) && !t.run(&[0]));
        assert_eq!(t.distances_to_end(1, 5), [0, 5, 5]);
        // f f end from state 0 of: 0 -f-> 1 -f-> 2 -end-> 3 (accepting).
        let mut g = Dfa::with_states(h.alphabet().clone(), 4);
        g.set_transition(0, 0, 1);
        g.set_transition(1, 0, 2);
        g.set_transition(2, 1, 3);
        g.set_accepting(3, true);
        let t = Table::new(&g);
        assert_eq!(t.distances_to_end(1, 5), [2, 1, 0, 5, 5]);
        assert_eq!(t.distances_to_end(1, 2), [2, 1, 0, 2, 2]);
    }
}
