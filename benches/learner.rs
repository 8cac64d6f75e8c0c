//! The learner benchmark (`make bench-learner` runs it against AALpy; see benches/learner.md).
//!
//! ```text
//! cargo bench --bench learner -- generate DIR [--seed N] [--grid full|quick]
//! cargo bench --bench learner -- run DIR [--modes rs,angluin,mp,rs-all] [--repeat N]
//! cargo bench --bench learner -- batching DIR [--length L]
//! cargo bench --bench learner                  # generate (quick grid) and run, print a table
//! ```
//!
//! `generate` writes random minimal DFAs (mergelens-dfa/1), 10 per row of the grid, named
//! `s{states}_k{letters}_{i}.json`. `run` learns each with the simulated teacher
//! (membership by running the word, shortest counterexamples) and prints one JSON line per
//! target and mode: `membership` counts distinct words the teacher answered, as a model
//! checker would be asked. Modes: `rs`, `angluin`, `mp` (counterexample processing) and
//! `rs-all`, Rivest-Schapire asking every decomposition of a counterexample in one batch.
//!
//! `batching` measures how to batch the Rivest-Schapire search when counterexamples are
//! long, as a model checker's are (any word up to the bound, not a shortest one): the
//! teacher answers each equivalence query with a random word of about `L` letters (default
//! 40) followed by a shortest word that then tells the two automata apart. It prints, per
//! row, the membership queries, teacher batches and equivalence queries for 1, 2 and 4
//! words per search step and for all decompositions at once.

use std::path::{Path, PathBuf};
use std::time::Instant;

use mergelens::automaton::{Dfa, Letter, Word, analysis, json};
use mergelens::learn::random::{SplitMix64, random_minimal_dfa};
use mergelens::learn::{
    Answer, CexProcessing, DfaTeacher, Equivalence, LearnConfig, QueryCache, Teacher, TeacherError,
    learn,
};

const PER_ROW: usize = 10;
const FULL_STATES: [usize; 5] = [20, 50, 100, 200, 500];
const FULL_LETTERS: [usize; 3] = [2, 8, 30];
/// The row the issue's AALpy reference figures were measured on.
const REFERENCE_ROW: (usize, usize) = (50, 4);

fn grid(name: &str) -> Vec<(usize, usize)> {
    let mut rows = vec![REFERENCE_ROW];
    match name {
        "quick" => rows.extend([(20, 2), (50, 8), (100, 8)]),
        _ => {
            for states in FULL_STATES {
                for letters in FULL_LETTERS {
                    rows.push((states, letters));
                }
            }
        }
    }
    rows
}

fn main() {
    // `cargo bench` passes `--bench` to harness-less benchmarks.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    match args.first().map(String::as_str) {
        Some("generate") => {
            let dir = PathBuf::from(args.get(1).expect("generate DIR"));
            let seed = option("--seed").map_or(2024, |s| s.parse().expect("--seed N"));
            let rows = grid(&option("--grid").unwrap_or_else(|| "full".to_string()));
            generate(&dir, seed, &rows);
        }
        Some("run") => {
            let dir = PathBuf::from(args.get(1).expect("run DIR"));
            let modes = option("--modes").unwrap_or_else(|| "rs,angluin,mp,rs-all".to_string());
            let repeat = option("--repeat").map_or(1, |r| r.parse().expect("--repeat N"));
            for line in run(&dir, &modes.split(',').collect::<Vec<_>>(), repeat) {
                println!("{line}");
            }
        }
        Some("batching") => {
            let dir = PathBuf::from(args.get(1).expect("batching DIR"));
            let length = option("--length").map_or(40, |l| l.parse().expect("--length L"));
            batching(&dir, length);
        }
        _ => {
            let dir = PathBuf::from("target/bench-learner/quick");
            generate(&dir, 2024, &grid("quick"));
            let lines = run(&dir, &["rs", "angluin", "mp", "rs-all"], 3);
            summarise(&lines);
        }
    }
}

fn generate(dir: &Path, seed: u64, rows: &[(usize, usize)]) {
    std::fs::create_dir_all(dir).expect("create the target directory");
    for &(states, letters) in rows {
        // One generator per row, so a row's targets do not depend on the other rows.
        let mut rng = SplitMix64::new(seed ^ (states as u64) << 20 ^ letters as u64);
        for i in 0..PER_ROW {
            let path = dir.join(format!("s{states}_k{letters}_{i}.json"));
            if path.exists() {
                continue;
            }
            let dfa = random_minimal_dfa(&mut rng, states, letters, 0.0).expect("a minimal target");
            std::fs::write(&path, json::to_string(&dfa)).expect("write a target");
        }
        eprintln!(
            "targets {states} states x {letters} letters: {}",
            dir.display()
        );
    }
}

fn targets(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read the target directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    // By size, then name, so the table fills in order.
    files.sort_by_key(|p| {
        let dfa = json::read(p).expect("a target");
        (dfa.num_states(), dfa.alphabet().len(), p.clone())
    });
    files
}

/// Learns every target in every mode; the time is the least of `repeat` runs, as the
/// machine's other work only ever adds to it.
fn run(dir: &Path, modes: &[&str], repeat: usize) -> Vec<serde_json::Value> {
    let mut lines = Vec::new();
    for path in targets(dir) {
        let target = json::read(&path).expect("a target");
        for &mode in modes {
            let config = match mode {
                "rs" => LearnConfig::default(),
                "rs-all" => LearnConfig {
                    rs_words_per_step: usize::MAX,
                    ..LearnConfig::default()
                },
                other => LearnConfig {
                    cex: other
                        .parse::<CexProcessing>()
                        .expect("a mode: rs, angluin, mp, rs-all"),
                    ..LearnConfig::default()
                },
            };
            let mut seconds = f64::INFINITY;
            let mut result = None;
            for _ in 0..repeat.max(1) {
                let mut cache = QueryCache::new(target.alphabet().clone());
                let started = Instant::now();
                let learned = learn(
                    target.alphabet(),
                    &mut DfaTeacher::new(target.clone()),
                    &mut cache,
                    &config,
                )
                .expect("learning a target");
                seconds = seconds.min(started.elapsed().as_secs_f64());
                result = Some(learned);
            }
            let learned = result.expect("at least one run");
            assert_eq!(
                learned.dfa,
                target,
                "{}: learned another automaton",
                path.display()
            );
            let s = &learned.stats;
            lines.push(serde_json::json!({
                "tool": "mergelens",
                "algorithm": mode,
                "file": path.file_name().expect("a file").to_string_lossy(),
                "states": target.num_states(),
                "letters": target.alphabet().len(),
                "membership": s.from_teacher,
                "equivalence": s.equivalence_queries,
                "batches": s.teacher_batches,
                "seconds": seconds,
            }));
        }
    }
    lines
}

/// Means per row and mode, with the teacher batches, which the AALpy table lacks.
fn summarise(lines: &[serde_json::Value]) {
    let mut rows: Vec<(u64, u64, String)> = Vec::new();
    for l in lines {
        let key = (
            l["states"].as_u64().unwrap(),
            l["letters"].as_u64().unwrap(),
            l["algorithm"].as_str().unwrap_or_default().to_string(),
        );
        if !rows.contains(&key) {
            rows.push(key);
        }
    }
    println!("| states | letters | mode | membership | equivalence | batches | seconds |");
    println!("|---:|---:|---|---:|---:|---:|---:|");
    for (states, letters, mode) in rows {
        let row: Vec<&serde_json::Value> = lines
            .iter()
            .filter(|l| {
                l["states"] == states
                    && l["letters"] == letters
                    && l["algorithm"].as_str() == Some(mode.as_str())
            })
            .collect();
        let mean = |key: &str| {
            row.iter().map(|l| l[key].as_f64().unwrap()).sum::<f64>() / row.len() as f64
        };
        println!(
            "| {states} | {letters} | {} | {:.0} | {:.1} | {:.1} | {:.4} |",
            mode,
            mean("membership"),
            mean("equivalence"),
            mean("batches"),
            mean("seconds")
        );
    }
}

/// A teacher whose counterexamples are long: a random prefix, then a shortest word that
/// tells the two automata apart from where the prefix leads.
struct LongCounterexamples {
    inner: DfaTeacher,
    rng: SplitMix64,
    length: usize,
}

impl Teacher for LongCounterexamples {
    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
        self.inner.membership(words)
    }

    fn membership_packed(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
    ) -> Result<Vec<Answer>, TeacherError> {
        self.inner.membership_packed(letters, ends)
    }

    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError> {
        let shortest = self.inner.equivalence(hypothesis)?;
        if shortest == Equivalence::Equal {
            return Ok(shortest);
        }
        let target = self.inner.target();
        let k = target.alphabet().len() as u64;
        for _ in 0..100 {
            let prefix: Word = (0..self.length)
                .map(|_| self.rng.below(k) as Letter)
                .collect();
            let (Some(h), Some(t)) = (hypothesis.run(&prefix), target.run(&prefix)) else {
                continue;
            };
            let (mut from_h, mut from_t) = (hypothesis.clone(), target.clone());
            from_h.set_initial(h);
            from_t.set_initial(t);
            if let Some(witness) = analysis::equivalence_witness(&from_h, &from_t) {
                let suffix = hypothesis
                    .alphabet()
                    .word(&witness.word)
                    .expect("same letters");
                return Ok(Equivalence::Counterexample([prefix, suffix].concat()));
            }
        }
        Ok(shortest)
    }
}

fn batching(dir: &Path, length: usize) {
    let widths = [(1, "1"), (2, "2"), (4, "4"), (usize::MAX, "all")];
    println!(
        "| states | letters | {} |",
        widths
            .iter()
            .map(|(_, name)| format!("{name} per step: MQ / batches / EQ"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---:|---:|{}", "---:|".repeat(widths.len()));
    let files = targets(dir);
    let mut rows: Vec<(usize, usize)> = Vec::new();
    let dfas: Vec<Dfa> = files
        .iter()
        .map(|p| json::read(p).expect("a target"))
        .collect();
    for d in &dfas {
        let key = (d.num_states(), d.alphabet().len());
        if !rows.contains(&key) {
            rows.push(key);
        }
    }
    for (states, letters) in rows {
        let row: Vec<&Dfa> = dfas
            .iter()
            .filter(|d| (d.num_states(), d.alphabet().len()) == (states, letters))
            .collect();
        let mut cells = Vec::new();
        for &(width, _) in &widths {
            let (mut mq, mut batches, mut eq) = (0u64, 0u64, 0u64);
            for (i, target) in row.iter().enumerate() {
                let mut teacher = LongCounterexamples {
                    inner: DfaTeacher::new((*target).clone()),
                    rng: SplitMix64::new(i as u64),
                    length,
                };
                let config = LearnConfig {
                    rs_words_per_step: width,
                    ..LearnConfig::default()
                };
                let mut cache = QueryCache::new(target.alphabet().clone());
                let learned = learn(target.alphabet(), &mut teacher, &mut cache, &config)
                    .expect("learning a target");
                assert_eq!(&learned.dfa, *target);
                mq += learned.stats.from_teacher;
                batches += learned.stats.teacher_batches;
                eq += learned.stats.equivalence_queries;
            }
            let n = row.len() as f64;
            cells.push(format!(
                "{:.0} / {:.1} / {:.1}",
                mq as f64 / n,
                batches as f64 / n,
                eq as f64 / n
            ));
        }
        println!("| {states} | {letters} | {} |", cells.join(" | "));
    }
}
