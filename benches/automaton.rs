//! Speed of the automaton algebra on automata far larger than learning produces.
//!
//! Run with `cargo bench --bench automaton` (or `make bench-automaton`). The automata are built from
//! a fixed seed, so every run measures the same work:
//!
//! * `random`: 100,000 states over 50 letters, 98% of the edges present, 30% accepting.
//!   Such an automaton is almost always minimal already, which is the hardest case for
//!   Hopcroft's algorithm: it must split the states all the way down to singletons.
//! * `doubled A`, `doubled B`: a random automaton of 50,000 states with every state
//!   doubled (100,000 states) and each edge sent to a random copy of its target, so
//!   minimisation has real merging to do. A and B double the same automaton with different
//!   random choices; B also loses 200 edges and flips the acceptance of 20 states, so the
//!   two differ and their product sees the sink on one side. `doubled A'` is A doubled
//!   again with other choices: equivalent to A, so its equivalence check explores every
//!   reachable pair.
//!
//! Each operation runs three times and the fastest time is reported, which filters out
//! some of the noise of a shared machine. The figures are printed, not checked.

use std::hint::black_box;
use std::time::Instant;

use mergelens::automaton::analysis;
use mergelens::automaton::ops::{self, BoolOp};
use mergelens::automaton::{Alphabet, Dfa, Letter, StateId};

// A directory of its own, so that Cargo does not take it for a bench target.
#[path = "automaton/concise.rs"]
mod concise;

const LETTERS: usize = 50;
const STATES: usize = 100_000;
const RUNS: usize = 3;

/// SplitMix64: tiny, fast and good enough to make automata without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn alphabet() -> Alphabet {
    Alphabet::from_names((0..LETTERS).map(|i| format!("f{i}")))
}

/// A random automaton: each edge present with probability 98%, each state accepting with
/// probability 30%.
fn random(states: usize, rng: &mut Rng) -> Dfa {
    let mut d = Dfa::with_states(alphabet(), states);
    for q in 0..states {
        for a in 0..LETTERS {
            if rng.chance(98) {
                d.set_transition(q as StateId, a as Letter, rng.below(states) as StateId);
            }
        }
        d.set_accepting(q as StateId, rng.chance(30));
    }
    d
}

/// `base` with every state doubled: copy `c` of state `q` is a shuffled id, and each edge
/// goes to a random copy of its target. The language does not change.
fn doubled(base: &Dfa, rng: &mut Rng) -> Dfa {
    let n = base.num_states();
    let mut id: Vec<StateId> = (0..2 * n as StateId).collect();
    for i in (1..id.len()).rev() {
        id.swap(i, rng.below(i + 1));
    }
    let copy = |q: StateId, c: usize| id[q as usize + c * n];
    let mut d = Dfa::with_states(base.alphabet().clone(), 2 * n);
    for (q, a, to) in base.transitions() {
        for c in 0..2 {
            d.set_transition(copy(q, c), a, copy(to, rng.below(2)));
        }
    }
    for q in base.accepting_states() {
        d.set_accepting(copy(q, 0), true);
        d.set_accepting(copy(q, 1), true);
    }
    d.set_initial(copy(base.initial(), 0));
    d
}

/// Runs `f` [`RUNS`] times and returns the fastest time in seconds and the last result.
fn time<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        let value = black_box(f());
        best = best.min(start.elapsed().as_secs_f64());
        result = Some(value);
    }
    (best, result.expect("at least one run"))
}

fn row(input: &str, states: usize, operation: &str, seconds: f64, result: &str) {
    println!(
        "| {input:<18} | {states:>9} | {LETTERS:>7} | {operation:<36} | {seconds:>7.4} | {result:>14} |"
    );
}

fn main() {
    // `cargo bench --bench automaton -- concise` runs only the concise automata.
    if !std::env::args().any(|a| a == "concise") {
        algebra();
    }
    concise::run();
}

fn algebra() {
    let mut rng = Rng(0x6d65_7267_656c_656e);
    let build = Instant::now();
    let plain = random(STATES, &mut rng);
    let base = random(STATES / 2, &mut rng);
    let a = doubled(&base, &mut rng);
    let mut b = doubled(&base, &mut rng);
    let a2 = doubled(&base, &mut rng);
    for _ in 0..200 {
        b.remove_transition(rng.below(STATES) as StateId, rng.below(LETTERS) as Letter);
    }
    for _ in 0..20 {
        let q = rng.below(STATES) as StateId;
        b.set_accepting(q, !b.is_accepting(q));
    }
    eprintln!(
        "built the inputs in {:.2} s; timing the fastest of {RUNS} runs",
        build.elapsed().as_secs_f64()
    );

    println!(
        "| input              |    states | letters | operation                            | seconds | result         |"
    );
    println!(
        "|--------------------|----------:|--------:|--------------------------------------|--------:|---------------:|"
    );

    let (s, m) = time(|| ops::minimize(&plain));
    row(
        "random",
        STATES,
        "minimize",
        s,
        &format!("{} states", m.num_states()),
    );
    let (s, m) = time(|| ops::minimize(&a));
    row(
        "doubled A",
        STATES,
        "minimize",
        s,
        &format!("{} states", m.num_states()),
    );

    let (s, p) = time(|| ops::product(&a, &b, BoolOp::Intersection));
    row(
        "doubled A × B",
        STATES,
        "product (intersection, raw)",
        s,
        &format!("{} states", p.num_states()),
    );
    let (s, m) = time(|| ops::minimize(&p));
    row(
        "A ∩ B (raw)",
        p.num_states(),
        "minimize",
        s,
        &format!("{} states", m.num_states()),
    );
    let (s, p) = time(|| ops::product(&a, &a2, BoolOp::SymmetricDifference));
    row(
        "doubled A × A'",
        STATES,
        "product (symmetric difference, raw)",
        s,
        &format!("{} states", p.num_states()),
    );

    let (s, w) = time(|| analysis::equivalence_witness(&a, &b));
    let found = w.map_or("equivalent".to_string(), |w| {
        format!("{}-letter word", w.word.len())
    });
    row("doubled A, B", STATES, "equivalence_witness", s, &found);
    let (s, w) = time(|| analysis::equivalence_witness(&a, &a2));
    let found = w.map_or("equivalent".to_string(), |w| {
        format!("{}-letter word", w.word.len())
    });
    row("doubled A, A'", STATES, "equivalence_witness", s, &found);

    let (s, t) = time(|| ops::trim(&b));
    row(
        "doubled B",
        STATES,
        "trim",
        s,
        &format!("{} states", t.num_states()),
    );
    let (s, c) = time(|| ops::complement(&b));
    row(
        "doubled B",
        STATES,
        "complement",
        s,
        &format!("{} states", c.num_states()),
    );
}
