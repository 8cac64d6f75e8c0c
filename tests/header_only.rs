//! A header-only library: its functions are defined in a header, which is not analysed
//! unless listed, so the alphabet is empty; the error says so and how to list it. No CBMC.

mod common;

use std::process::Command;

use common::{Repo, text};

const HEADER: &str = "static inline void tick(void) {}\nstatic inline int twice(int x) { tick(); tick(); return 2 * x; }\n";
const MAIN: &str = "#include \"lib.h\"\nint main(void) { return twice(1); }\n";

#[test]
fn a_header_only_library_is_told_to_list_its_header() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.h"), HEADER).unwrap();
    std::fs::write(dir.path().join("main.c"), MAIN).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(dir.path())
        .args(["learn", "main.c", "--no-cache"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("functions defined in headers are not counted unless the header is listed, and lib.h defines tick, twice")
            && stderr.contains("`files = [\"*.c\", \"lib.h\"]`"),
        "{stderr}"
    );

    // In a review the header is named repository-relative too, and listing it works.
    let repo = Repo::new();
    repo.write("lib.h", HEADER);
    repo.git(&["add", "lib.h"]);
    repo.commit("main.c", MAIN, "one");
    repo.commit("main.c", &MAIN.replace("twice(1)", "twice(2)"), "two");
    let out = repo.mergelens(&["diff", "HEAD~1", "HEAD", "--no-cache"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("and lib.h defines tick, twice"),
        "{}",
        text(&out)
    );
}
