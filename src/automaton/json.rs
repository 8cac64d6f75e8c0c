//! The `mergelens-dfa/1` JSON format.
//!
//! ```json
//! {"format":"mergelens-dfa/1","alphabet":["f","g","end"],"states":3,"initial":0,
//!  "accepting":[2],"transitions":[{"from":0,"letter":"f","to":1},{"from":1,"letter":"end","to":2}]}
//! ```
//!
//! Missing transitions reject (they go to the implicit sink); keys this version does not
//! know are ignored, so later versions can add information without breaking readers.
//! Reading validates everything a [`Dfa`] relies on and names the first problem found.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::dfa::{Alphabet, Dfa};
use super::error::AutomatonError;

pub const FORMAT: &str = "mergelens-dfa/1";

/// The largest automaton read from a file; far beyond what learning produces, small enough
/// that a corrupt `states` field cannot exhaust memory.
pub const MAX_STATES: u64 = 50_000_000;

#[derive(Serialize, Deserialize)]
struct DfaFile {
    format: String,
    alphabet: Vec<String>,
    states: u64,
    initial: u64,
    accepting: Vec<u64>,
    transitions: Vec<TransitionFile>,
}

#[derive(Serialize, Deserialize)]
struct TransitionFile {
    from: u64,
    letter: String,
    to: u64,
}

/// Serialises to the compact one-line `mergelens-dfa/1` form.
pub fn to_string(dfa: &Dfa) -> String {
    serde_json::to_string(&to_file(dfa)).expect("a DFA always serialises")
}

/// Serialises to an indented `mergelens-dfa/1` document for files people read.
pub fn to_string_pretty(dfa: &Dfa) -> String {
    serde_json::to_string_pretty(&to_file(dfa)).expect("a DFA always serialises")
}

/// The `mergelens-dfa/1` object as a JSON value, for embedding in larger documents.
pub fn to_value(dfa: &Dfa) -> serde_json::Value {
    serde_json::to_value(to_file(dfa)).expect("a DFA always serialises")
}

fn to_file(dfa: &Dfa) -> DfaFile {
    let alphabet = dfa.alphabet();
    DfaFile {
        format: FORMAT.to_string(),
        alphabet: alphabet.names().map(str::to_string).collect(),
        states: dfa.num_states() as u64,
        initial: u64::from(dfa.initial()),
        accepting: dfa.accepting_states().map(u64::from).collect(),
        transitions: dfa
            .transitions()
            .map(|(from, a, to)| TransitionFile {
                from: u64::from(from),
                letter: alphabet.name(a).to_string(),
                to: u64::from(to),
            })
            .collect(),
    }
}

/// Reads an automaton; `origin` names the input (a path, "stdin") in error messages.
pub fn from_str(text: &str, origin: &str) -> Result<Dfa, AutomatonError> {
    let file: DfaFile = serde_json::from_str(text).map_err(|source| {
        // A wrong format tag is the more useful message when the document has one.
        if let Some(found) = format_tag(text).filter(|f| f != FORMAT) {
            return AutomatonError::WrongFormat {
                path: origin.to_string(),
                found,
            };
        }
        AutomatonError::Json {
            path: origin.to_string(),
            source,
        }
    })?;
    from_file(file, origin)
}

/// Like [`from_str`], but from any JSON value (for documents that embed automata).
pub fn from_value(value: serde_json::Value, origin: &str) -> Result<Dfa, AutomatonError> {
    let found = value
        .get("format")
        .and_then(|f| f.as_str())
        .map(str::to_string);
    let file: DfaFile = serde_json::from_value(value).map_err(|source| match found {
        Some(found) if found != FORMAT => AutomatonError::WrongFormat {
            path: origin.to_string(),
            found,
        },
        _ => AutomatonError::Json {
            path: origin.to_string(),
            source,
        },
    })?;
    from_file(file, origin)
}

fn format_tag(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    value.get("format")?.as_str().map(str::to_string)
}

/// Reads an automaton from a file, or from standard input when `path` is `-`.
pub fn read(path: &Path) -> Result<Dfa, AutomatonError> {
    let origin = path.display().to_string();
    let text = crate::limits::read_json_text(path, &origin)?;
    from_str(&text, &origin)
}

fn from_file(file: DfaFile, origin: &str) -> Result<Dfa, AutomatonError> {
    let path = || origin.to_string();
    if file.format != FORMAT {
        return Err(AutomatonError::WrongFormat {
            path: path(),
            found: file.format,
        });
    }
    let mut alphabet = Alphabet::new();
    for name in &file.alphabet {
        if alphabet.letter(name).is_some() {
            return Err(AutomatonError::DuplicateLetter {
                path: path(),
                letter: name.clone(),
            });
        }
        alphabet.intern(name);
    }
    let states = file.states;
    if states == 0 {
        return Err(AutomatonError::NoStates { path: path() });
    }
    if states > MAX_STATES {
        return Err(AutomatonError::TooLarge {
            path: path(),
            states,
            max: MAX_STATES,
        });
    }
    crate::limits::check_cells(origin, states, file.alphabet.len() as u64)?;
    let check = |what: &'static str, state: u64| {
        if state < states {
            Ok(state as u32)
        } else {
            Err(AutomatonError::StateOutOfRange {
                path: path(),
                what,
                state,
                states,
            })
        }
    };
    let mut dfa = Dfa::with_states(alphabet, states as usize);
    dfa.set_initial(check("initial state", file.initial)?);
    for q in file.accepting {
        let q = check("accepting state", q)?;
        dfa.set_accepting(q, true);
    }
    for t in file.transitions {
        let from = check("transition source", t.from)?;
        let to = check("transition target", t.to)?;
        let Some(letter) = dfa.alphabet().letter(&t.letter) else {
            return Err(AutomatonError::UnknownLetter {
                path: path(),
                from: t.from,
                letter: t.letter,
            });
        };
        match dfa.next(from, letter) {
            Some(old) if old != to => {
                return Err(AutomatonError::Nondeterministic {
                    path: path(),
                    from: t.from,
                    letter: t.letter,
                    to1: u64::from(old),
                    to2: t.to,
                });
            }
            _ => dfa.set_transition(from, letter, to),
        }
    }
    Ok(dfa)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"{"format":"mergelens-dfa/1","alphabet":["f","g","end"],"states":3,"initial":0,"accepting":[2],"transitions":[{"from":0,"letter":"f","to":1},{"from":1,"letter":"end","to":2}]}"#;

    #[test]
    fn round_trips_the_documented_example_exactly() {
        let dfa = from_str(EXAMPLE, "example").unwrap();
        assert!(dfa.accepts_names(&["f", "end"]));
        assert_eq!(to_string(&dfa), EXAMPLE);
    }

    #[test]
    fn ignores_unknown_keys() {
        let text = EXAMPLE.replace("\"states\":3", "\"states\":3,\"comment\":{\"x\":1}");
        assert!(from_str(&text, "x").is_ok());
    }

    fn error_of(text: &str) -> String {
        from_str(text, "in.json").unwrap_err().to_string()
    }

    #[test]
    fn refuses_bad_input_with_one_line() {
        let cases = [
            (EXAMPLE[..40].to_string(), "not valid JSON"),
            (
                EXAMPLE.replace("mergelens-dfa/1", "other/2"),
                "format is \"other/2\"",
            ),
            (
                EXAMPLE.replace("\"to\":2", "\"to\":7"),
                "transition target 7 is out of range",
            ),
            (
                EXAMPLE.replace("\"initial\":0", "\"initial\":3"),
                "initial state 3",
            ),
            (
                EXAMPLE.replace("\"letter\":\"end\"", "\"letter\":\"h\""),
                "letter \"h\", which is not in the alphabet",
            ),
            (
                EXAMPLE.replace(
                    "{\"from\":1,\"letter\":\"end\"",
                    "{\"from\":0,\"letter\":\"f\",\"to\":2},{\"from\":1,\"letter\":\"end\"",
                ),
                "two transitions on letter \"f\"",
            ),
            (
                EXAMPLE.replace("\"states\":3", "\"states\":0"),
                "at least one state",
            ),
            (
                EXAMPLE.replace("[\"f\",\"g\",\"end\"]", "[\"f\",\"f\",\"end\"]"),
                "appears twice",
            ),
            (
                EXAMPLE.replace("\"states\":3", "\"states\":-3"),
                "not valid JSON",
            ),
        ];
        for (text, expected) in cases {
            let message = error_of(&text);
            assert!(message.contains(expected), "{message:?} lacks {expected:?}");
            assert!(message.starts_with("in.json: "), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
    }
}
