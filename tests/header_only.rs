//! A header-only library: its functions are defined in a header the program includes, and
//! they are letters like the C files' own (issue 14), for `learn` and for `diff` alike.

use std::process::Command;

use crate::common::{Repo, text};

const HEADER: &str = "static inline void tick(void) {}\nstatic inline int twice(int x) { tick(); tick(); return 2 * x; }\n";
const MAIN: &str = "#include \"lib.h\"\nint main(void) { return twice(1); }\n";

#[test]
fn a_header_only_librarys_functions_are_letters() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.h"), HEADER).unwrap();
    std::fs::write(dir.path().join("main.c"), MAIN).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(dir.path())
        .args(["learn", "main.c", "--no-cache"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let learned = String::from_utf8_lossy(&out.stdout);
    let dfa = mergelens::automaton::json::from_str(&learned, "learn output").unwrap();
    let words: Vec<String> = mergelens::automaton::analysis::words_up_to(&dfa, 6, 100)
        .unwrap()
        .iter()
        .map(|w| dfa.alphabet().format_word(w))
        .collect();
    assert_eq!(words, ["twice tick tick end"]);

    // A diff whose change is in the header alone shows the header's behaviour changing.
    let repo = Repo::new();
    repo.write("main.c", MAIN);
    repo.git(&["add", "main.c"]);
    repo.commit("lib.h", HEADER, "one");
    repo.commit(
        "lib.h",
        &HEADER.replace("tick(); tick();", "tick();"),
        "two",
    );
    let out = repo.mergelens(&["diff", "HEAD~1", "HEAD", "--no-cache", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let added = &doc["entries"][0]["added"]["examples"];
    assert_eq!(
        added,
        &serde_json::json!([["twice", "tick", "end"]]),
        "{doc}"
    );
}
