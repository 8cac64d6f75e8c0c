//! The per-execution merge check in a document: [`Execution`] (one story: an input, the
//! four versions' words on it and the expected word) and [`ExecutionCheck`] (what the check
//! covered and cost).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

pub(crate) use super::columns::longest_common_subsequence;
use super::columns::{self, Mark};
use super::input_value;
pub use super::input_value::RealType;
use super::version::Version;

/// Why an execution is a story.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionKind {
    /// The merged program's call tree is not the expected one (the three-way merge of the
    /// base's, ours' and theirs' trees on the same input).
    Unexpected,
    /// Both branches changed the same part of this execution differently: there is no
    /// expected tree, only what the merge did.
    Overlapping,
}

impl ExecutionKind {
    pub fn name(self) -> &'static str {
        match self {
            ExecutionKind::Unexpected => "unexpected",
            ExecutionKind::Overlapping => "overlapping",
        }
    }
}

/// The input of one execution: the values of the shared nondet tape that some version read,
/// in order (the k-th nondet value any version reads is `tape[k]` in all four), and the
/// entry function's arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionInput {
    #[serde(default)]
    pub tape: Vec<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<i64>,
    /// The other inputs some version read (body-less functions' results, uninitialised
    /// locals, the C library's input), each source's reads in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<InputReads>,
    /// Where each value of `tape` was read, in the same order; `null` where the check did
    /// not see it (absent in documents written before sites were recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tape_sites: Vec<Option<InputSite>>,
}

/// The values read from one source of input: the same in every version, read for read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputReads {
    /// `sensor()`, `buf in main`, `getchar/getc/fgetc`, ...
    pub source: String,
    /// Each read as the signed number it holds; `null` for a read that is no scalar (a
    /// buffer's bytes).
    pub values: Vec<Option<i64>>,
    /// Where each read was made, in the same order as `values`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<Option<InputSite>>,
    /// Set where the values are floating-point numbers (`strtod`'s): each of `values` is
    /// then the number's IEEE 754 bits, shown as the number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real: Option<RealType>,
    /// The C type of what each read filled, as CBMC names it (`signed int`, `char [4]`),
    /// in the same order as `values`; `null` where the check did not see it (absent in
    /// documents written before types were recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<Option<String>>,
    /// The bytes each read gave, in memory order, in the same order as `values`; `null`
    /// where the check did not see them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bytes: Vec<Option<Vec<u8>>>,
}

impl InputReads {
    /// Read `k` as the program read it ([`input_value::shown`]): a buffer as a string
    /// literal, a `char` as a character, an integer at its type's width and signedness, a
    /// floating-point number with its point or exponent (`8.0`, `1e300`); `(bytes)` for a
    /// buffer in a document without bytes.
    pub fn shown(&self, k: usize) -> String {
        input_value::shown(
            self.values.get(k).copied().flatten(),
            self.types.get(k).and_then(Option::as_deref),
            self.bytes.get(k).and_then(Option::as_deref),
            self.real,
        )
    }
}

/// The line of the program that read one input value, so that a reader sees what the value
/// is for rather than its place on a tape.
#[skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputSite {
    /// The version whose read this is: the merge's when the merge read the value, else the
    /// last of theirs, ours and the base that did (line numbers are that version's).
    pub version: Version,
    /// Relative to the repository root.
    pub file: String,
    pub line: u32,
    /// The function the read is in.
    pub function: String,
    /// The input function called there (`nondet_int`, `getchar`, `sensor`); absent for a
    /// local variable filled where it is declared.
    pub call: Option<String>,
    /// The variable that line assigned the value to, when it assigned it to one.
    pub variable: Option<String>,
}

impl InputSite {
    /// What read the value, as code: `len = nondet_uint()`, `getchar()`, or `None` for a
    /// local filled at its declaration (its source says which).
    pub fn read(&self) -> Option<String> {
        match (&self.variable, &self.call) {
            (Some(v), Some(c)) => Some(format!("{v} = {c}()")),
            (None, Some(c)) => Some(format!("{c}()")),
            (Some(v), None) => Some(v.clone()),
            (None, None) => None,
        }
    }

    /// `cJSON.c:118 (parse_number)`, with the version when it is not the merge's.
    pub fn place(&self) -> String {
        let mut place = format!("{}:{} ({})", self.file, self.line, self.function);
        if self.version != Version::Merged {
            place.push_str(&format!(" in {}", self.version));
        }
        place
    }
}

/// One input value with what read it, for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelledValue {
    /// What read it: `len = nondet_uint()`, `sensor()`, `buf in main`, `argument 1`.
    pub read: String,
    /// Where: `cJSON.c:118 (parse_number)`; empty when not known.
    pub place: String,
    /// The value as the program read it (`"a0\f"`, `'a'`, `7`), or `(bytes)` for a buffer in
    /// a document without bytes.
    pub value: String,
}

impl LabelledValue {
    /// `len = nondet_uint() at cJSON.c:118 (parse_number): 7`.
    pub fn text(&self) -> String {
        if self.place.is_empty() {
            format!("{}: {}", self.read, self.value)
        } else {
            format!("{} at {}: {}", self.read, self.place, self.value)
        }
    }
}

/// One execution the merge does not explain: the words are the preorder of each version's
/// call tree on `input`, each ending with `end`.
#[skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    pub input: ExecutionInput,
    pub base: Vec<String>,
    pub ours: Vec<String>,
    pub theirs: Vec<String>,
    pub merged: Vec<String>,
    /// The word of the expected tree; absent for an overlap.
    pub expected: Option<Vec<String>>,
    pub kind: ExecutionKind,
    /// What each version's entry returned on `input`, where the check observes results
    /// (an entry returning an integer); absent otherwise, and in documents that predate it.
    pub returns: Option<Returns>,
    /// What each version's entry left in the integer globals of its file that every
    /// version has; absent when none is observed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub globals: Vec<GlobalValues>,
}

/// What each version's entry left in one global on one execution's input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobalValues {
    /// The global's name in the program.
    pub name: String,
    #[serde(flatten)]
    pub values: Returns,
}

/// What each version's entry returned on one execution's input (`null`: a version whose
/// entry returns no integer), and the result the branches' changes give together.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Returns {
    pub base: Option<i64>,
    pub ours: Option<i64>,
    pub theirs: Option<i64>,
    pub merged: Option<i64>,
    /// Absent where both branches changed the result differently (no result is expected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<i64>,
}

impl Returns {
    /// `base 3, ours 4, theirs 3, merged 4, expected 4`.
    pub fn text(&self) -> String {
        let shown = |v: Option<i64>| v.map_or_else(|| "nothing".to_string(), |v| v.to_string());
        let mut parts = vec![
            format!("base {}", shown(self.base)),
            format!("ours {}", shown(self.ours)),
            format!("theirs {}", shown(self.theirs)),
            format!("merged {}", shown(self.merged)),
        ];
        if let Some(e) = self.expected {
            parts.push(format!("expected {e}"));
        }
        parts.join(", ")
    }

    /// What the story about these results is: `the merge returns 5 where the expected
    /// merge returns 4`, or for an overlap what each branch and the merge return.
    pub fn change(&self) -> String {
        let shown = |v: Option<i64>| v.map_or_else(|| "nothing".to_string(), |v| v.to_string());
        match self.expected {
            Some(e) => format!(
                "the merge returns {} where the expected merge returns {e}",
                shown(self.merged)
            ),
            None => format!(
                "the base returns {}, ours {}, theirs {}, the merge {}",
                shown(self.base),
                shown(self.ours),
                shown(self.theirs),
                shown(self.merged)
            ),
        }
    }
}

/// What the per-execution check of one entry covered and cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecutionCheck {
    /// Quadruples of call trees CBMC enumerated (those that one branch leaving the base
    /// alone explains, and those where ours, theirs and the merge agree, are not
    /// enumerated: they are explained whatever they hold).
    pub quadruples: u64,
    pub explained: u64,
    pub unexpected: u64,
    pub overlapping: u64,
    /// Executions (unexpected or overlapping) on which the merge lacks a call a branch
    /// added ([`Execution::loses`]).
    #[serde(default)]
    pub lost: u64,
    /// CBMC proved there is no other quadruple within the bounds; `false`: the check stopped
    /// at its limit and says nothing about the rest.
    pub complete: bool,
    #[serde(default)]
    pub cbmc_runs: u64,
    #[serde(default)]
    pub wall_seconds: f64,
    /// Answered from `.git/mergelens/executions/`.
    #[serde(default)]
    pub from_cache: bool,
    /// The check compared what the entry returns beside its calls (an entry returning an
    /// integer); absent in documents that predate results.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub results: bool,
    /// The globals whose final values the check compared (the integer globals of the
    /// entry's file that every version has); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub globals: Vec<String>,
    /// The self-check that ran before: whether the product shares every input the versions
    /// read (absent when no CBMC run was needed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_check: Option<SelfCheck>,
    /// How often the check unwound the loops of CBMC's library models (`strncmp`'s,
    /// `memchr`'s), when it proved that no execution within the bounds runs one more
    /// often: the same executions as the learning's bound, found sooner. Absent: the
    /// learning's bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_unwind: Option<u32>,
}

/// The self-check of the per-execution check: a version run beside a copy of itself on
/// the product's shared inputs must behave identically on every input within the bounds;
/// if it does not, some input is drawn separately in each version and the check's stories
/// would compare executions on different inputs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfCheck {
    /// The versions checked against a copy of themselves (`base`, and `merged` when it
    /// differs from the base).
    pub versions: Vec<String>,
    pub identical: bool,
    /// Where two copies first went different ways, `file:line (function)`, when they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<String>,
    #[serde(default)]
    pub wall_seconds: f64,
}

impl ExecutionCheck {
    /// What the check compared beside the calls, for a summary: `what the entry returns and
    /// the global total`; empty when only calls.
    pub fn observed(&self) -> String {
        let mut parts = Vec::new();
        if self.results {
            parts.push("what the entry returns".to_string());
        }
        match self.globals.as_slice() {
            [] => {}
            [one] => parts.push(format!("the global {one}")),
            many => parts.push(format!("the globals {}", many.join(", "))),
        }
        parts.join(" and ")
    }
}

impl Execution {
    /// The rows of the story, each a label and a word: base, ours, theirs, merged, and the
    /// expected word when there is one.
    pub fn rows(&self) -> Vec<(&'static str, &[String])> {
        let mut rows = vec![
            ("base", self.base.as_slice()),
            ("ours", self.ours.as_slice()),
            ("theirs", self.theirs.as_slice()),
            ("merged", self.merged.as_slice()),
        ];
        if let Some(e) = &self.expected {
            rows.push(("expected", e.as_slice()));
        }
        rows
    }

    /// Whether the merge drops behaviour a branch meant on this input: a call ours or
    /// theirs added (one outside a longest common subsequence with the base's word) that
    /// the merged word lacks (outside a longest common subsequence with the merged word).
    /// This is what `lost` means for the per-execution verdict.
    pub fn loses(&self) -> bool {
        [&self.ours, &self.theirs].into_iter().any(|branch| {
            let kept = common_letters(branch, &self.base);
            let merged = common_letters(branch, &self.merged);
            (0..branch.len()).any(|i| !kept[i] && !merged[i])
        })
    }

    /// Whether letter `i` of `word` is not in a longest common subsequence with the
    /// reference row (the expected word, or the base's for an overlap): a letter the
    /// change brought in, which the story is about.
    pub fn differs(&self, word: &[String], i: usize) -> bool {
        let reference = self.expected.as_deref().unwrap_or(&self.base);
        !common_letters(word, reference)
            .get(i)
            .copied()
            .unwrap_or(false)
    }

    /// Each input value with what read it, in reading order per source: the arguments,
    /// the tape, then the other sources. Empty when no value is read.
    pub fn labelled_inputs(&self) -> Vec<LabelledValue> {
        let labelled = |fallback: String, site: Option<&InputSite>, value: String| {
            let (read, place) = match site {
                Some(s) => (s.read().unwrap_or(fallback), s.place()),
                None => (fallback, String::new()),
            };
            LabelledValue { read, place, value }
        };
        let mut out = Vec::new();
        for (k, a) in self.input.arguments.iter().enumerate() {
            out.push(labelled(format!("argument {}", k + 1), None, a.to_string()));
        }
        for (k, v) in self.input.tape.iter().enumerate() {
            let site = self.input.tape_sites.get(k).and_then(Option::as_ref);
            out.push(labelled(
                format!("nondet value {}", k + 1),
                site,
                tape_value(*v, site),
            ));
        }
        for r in &self.input.reads {
            for k in 0..r.values.len() {
                let site = r.sites.get(k).and_then(Option::as_ref);
                let source = if r.values.len() > 1 {
                    format!("{} (read {})", r.source, k + 1)
                } else {
                    r.source.clone()
                };
                let mut value = labelled(source.clone(), site, r.shown(k));
                // The source names a stream better than its call alone (`fgets (bytes)`,
                // `buf in main`): the call is shown only with the variable it fills.
                if site.is_none_or(|s| s.variable.is_none() || s.call.is_none()) {
                    value.read = source;
                }
                out.push(value);
            }
        }
        out
    }

    /// Whether the document says where the inputs were read (later documents do).
    pub fn has_input_sites(&self) -> bool {
        self.input.tape_sites.iter().any(Option::is_some)
            || self
                .input
                .reads
                .iter()
                .any(|r| r.sites.iter().any(Option::is_some))
    }

    /// The input as people read it: each value with the line that read it (`len =
    /// nondet_uint() at cJSON.c:118 (parse_number): 7; ...`) when the document says, else
    /// `arguments (1, 2), nondet values [0, 7], sensor() [8]`; or `every input (no input
    /// is read)`.
    pub fn input_text(&self) -> String {
        if self.has_input_sites() {
            let values: Vec<String> = self.labelled_inputs().iter().map(|v| v.text()).collect();
            return values.join("; ");
        }
        let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        let mut parts = Vec::new();
        if !self.input.arguments.is_empty() {
            parts.push(format!("arguments ({})", list(&self.input.arguments)));
        }
        if !self.input.tape.is_empty() {
            parts.push(format!("nondet values [{}]", list(&self.input.tape)));
        }
        for r in &self.input.reads {
            let values: Vec<String> = (0..r.values.len()).map(|k| r.shown(k)).collect();
            parts.push(format!("{} [{}]", r.source, values.join(", ")));
        }
        if parts.is_empty() {
            "every input (no input is read)".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// The story as aligned text: one row per version, the same call of every row in one
    /// column, and a `^` under each column where the merged row differs from the reference
    /// row (under a blank: a call the merge lacks).
    pub fn aligned_text(&self) -> String {
        let rows = self.rows();
        let columns = columns::columns(&rows);
        let width: Vec<usize> = columns.iter().map(|c| c.letter.chars().count()).collect();
        let marks: Vec<Mark> = columns.iter().map(|c| c.mark).collect();
        let labels: Vec<&str> = rows.iter().map(|(l, _)| *l).collect();
        let mut out = columns::aligned(&labels, &width, &marks, |r, c| {
            columns[c].cells[r].map(|_| columns[c].letter.clone())
        });
        if let Some(r) = &self.returns {
            out.push_str(&format!("{:<9}{}\n", "returns", r.text()));
        }
        for g in &self.globals {
            out.push_str(&format!("{:<9}{}: {}\n", "global", g.name, g.values.text()));
        }
        out
    }
}

/// Tape value `v` as the program read it: a character where `nondet_char()` read it (its
/// `signed` and `unsigned` kin give small integers), else the number.
fn tape_value(v: i64, site: Option<&InputSite>) -> String {
    let call = site.and_then(|s| s.call.as_deref());
    match call.map(|c| c.strip_prefix("__VERIFIER_").unwrap_or(c)) {
        Some("nondet_char") => input_value::char_literal(v as u8),
        _ => v.to_string(),
    }
}

/// For each letter of `word`, whether a longest common subsequence with `reference` keeps
/// it.
fn common_letters(word: &[String], reference: &[String]) -> Vec<bool> {
    let mut kept = vec![false; word.len()];
    for (i, _) in longest_common_subsequence(word, reference, |a, b| a == b) {
        kept[i] = true;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_story_aligns_its_words_and_marks_the_merges_differences() {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        let e = Execution {
            input: ExecutionInput {
                tape: vec![0],
                arguments: vec![],
                reads: vec![
                    InputReads {
                        source: "sensor()".to_string(),
                        values: vec![Some(-2147483648), None],
                        sites: vec![],
                        real: None,
                        ..InputReads::default()
                    },
                    InputReads {
                        source: "strtod".to_string(),
                        values: vec![Some(2.5f64.to_bits() as i64)],
                        sites: vec![],
                        real: Some(RealType::Double),
                        ..InputReads::default()
                    },
                ],
                tape_sites: vec![],
            },
            base: w("funcA funcB end"),
            ours: w("funcA funcZ funcB end"),
            theirs: w("funcA funcC end"),
            merged: w("funcA funcZ funcC end"),
            expected: None,
            kind: ExecutionKind::Overlapping,
            returns: None,
            globals: Vec::new(),
        };
        insta::assert_snapshot!(e.aligned_text(), @r"
        base     funcA       funcB       end
        ours     funcA funcZ funcB       end
        theirs   funcA             funcC end
        merged   funcA funcZ       funcC end
                       ^     ^     ^
        ");
        assert_eq!(
            e.input_text(),
            "nondet values [0], sensor() [-2147483648, (bytes)], strtod [2.5]"
        );
        // funcB, which ours kept, is gone, but no branch added it: nothing a branch meant.
        assert!(!e.loses());
        let dropped = Execution {
            merged: w("funcA funcC end"),
            ..e.clone()
        };
        // Ours added funcZ; the merge lacks it.
        assert!(dropped.loses());
    }

    #[test]
    fn a_call_the_merge_lost_has_a_caret_under_its_blank_and_long_names_keep_columns() {
        let w = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        // Ours returns early on this input (no b); theirs adds audit_every_request after b:
        // the expected merge audits, the merge does not.
        let e = Execution {
            input: ExecutionInput::default(),
            base: w("cJSON_ParseWithLengthOpts_000 b end"),
            ours: w("cJSON_ParseWithLengthOpts_000 end"),
            theirs: w("cJSON_ParseWithLengthOpts_000 b audit_every_request end"),
            merged: w("cJSON_ParseWithLengthOpts_000 end"),
            expected: Some(w("cJSON_ParseWithLengthOpts_000 audit_every_request end")),
            kind: ExecutionKind::Unexpected,
            returns: None,
            globals: Vec::new(),
        };
        insta::assert_snapshot!(e.aligned_text(), @r"
        base     cJSON_ParseWithLengthOpts_000 b                     end
        ours     cJSON_ParseWithLengthOpts_000                       end
        theirs   cJSON_ParseWithLengthOpts_000 b audit_every_request end
        merged   cJSON_ParseWithLengthOpts_000                       end
                                                 ^
        expected cJSON_ParseWithLengthOpts_000   audit_every_request end
        ");
        // Every line's columns start at the same character: the caret is under the call.
        let text = e.aligned_text();
        let caret = text.lines().nth(4).unwrap().find('^').unwrap();
        assert_eq!(text.lines().nth(2).unwrap().find("audit").unwrap(), caret);
        assert_eq!(text.lines().nth(5).unwrap().find("audit").unwrap(), caret);
        assert!(e.loses());
    }

    #[test]
    fn each_input_value_is_labelled_with_the_line_that_read_it() {
        let site = |line, call: Option<&str>, variable: Option<&str>, version| InputSite {
            version,
            file: "cJSON.c".into(),
            line,
            function: "parse_number".into(),
            call: call.map(str::to_string),
            variable: variable.map(str::to_string),
        };
        let e = Execution {
            input: ExecutionInput {
                tape: vec![2147483648, 0, 10],
                arguments: vec![],
                reads: vec![InputReads {
                    source: "buf in main".into(),
                    values: vec![None],
                    sites: vec![Some(site(4, None, None, Version::Merged))],
                    real: None,
                    ..InputReads::default()
                }],
                tape_sites: vec![
                    Some(site(118, Some("nondet_uint"), Some("len"), Version::Merged)),
                    Some(site(120, Some("nondet_int"), None, Version::Base)),
                    Some(site(121, Some("nondet_char"), Some("c"), Version::Merged)),
                ],
            },
            base: vec!["end".into()],
            ours: vec!["end".into()],
            theirs: vec!["end".into()],
            merged: vec!["end".into()],
            expected: None,
            kind: ExecutionKind::Overlapping,
            returns: None,
            globals: Vec::new(),
        };
        assert_eq!(
            e.input_text(),
            "len = nondet_uint() at cJSON.c:118 (parse_number): 2147483648; \
             nondet_int() at cJSON.c:120 (parse_number) in base: 0; \
             c = nondet_char() at cJSON.c:121 (parse_number): '\\n'; \
             buf in main at cJSON.c:4 (parse_number): (bytes)"
        );
        // A document without sites reads as before.
        let mut old = e.clone();
        old.input.tape_sites.clear();
        old.input.reads[0].sites.clear();
        assert_eq!(
            old.input_text(),
            "nondet values [2147483648, 0, 10], buf in main [(bytes)]"
        );
        let json = serde_json::to_value(&old.input).unwrap();
        assert!(json.get("tape_sites").is_none(), "{json}");
        assert!(json["reads"][0].get("sites").is_none(), "{json}");
    }
}
