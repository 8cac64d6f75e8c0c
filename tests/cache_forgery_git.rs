//! Forged caches (issue 37), as an attacker who can write `.git/mergelens/` but not the key
//! would forge them, on a real repository with the real CBMC: a merge whose verdict is
//! `unexpected`, then its merged automaton and its per-execution enumeration rewritten to
//! what a clean merge gives. The review recomputes them, says so in a note, and keeps its
//! verdict. The same forgery sealed under the review's own key is believed: the key is
//! what the check rests on. The key comes from `$MERGELENS_CACHE_KEY` or a key file
//! created in the (temporary) home; without one no cache is read or written.

use std::path::{Path, PathBuf};

use crate::common::{Repo, text, three_way};
use serde_json::Value;
use sha2::{Digest, Sha256};

const KEY: &str = "a-test-key-of-the-review-0123456789abcdef";

/// Ours arms on some inputs; theirs fires when armed; neither fires alone (the merge of
/// `tests/review_execution.rs`): an unexpected execution.
fn armed() -> Repo {
    let program = |set: &str, use_: &str| {
        format!(
            "int nondet_int(void);\nint armed;\nvoid fire(void) {{}}\n\nvoid arm(void)\n{{\n    {set}\n}}\n\n/* between */\n\nvoid use(void)\n{{\n    {use_}\n}}\n\nint main(void)\n{{\n    arm();\n    use();\n    return 0;\n}}\n"
        )
    };
    three_way(
        &program("", ""),
        &program("armed = nondet_int();", ""),
        &program("", "if (armed) fire();"),
    )
}

/// Reviews feature into main under `env`: the exit code, the document, what was said.
fn review(repo: &Repo, env: &[(&str, &str)]) -> (Option<i32>, Value, String) {
    let out = repo
        .command(Path::new(env!("CARGO_BIN_EXE_mergelens")), env)
        .args(["review", "main", "feature", "--format", "json"])
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), doc, text(&out))
}

fn keyed(repo: &Repo) -> (Option<i32>, Value, String) {
    review(repo, &[("MERGELENS_CACHE_KEY", KEY)])
}

fn entries(repo: &Repo, dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo.path().join(".git/mergelens").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// An entry's MAC line and its content.
fn split(path: &Path) -> (String, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let newline = bytes.iter().position(|&b| b == b'\n').unwrap();
    (
        String::from_utf8(bytes[..newline].to_vec()).unwrap(),
        bytes[newline + 1..].to_vec(),
    )
}

fn content(path: &Path) -> Value {
    serde_json::from_slice(&split(path).1).unwrap()
}

/// HMAC-SHA256, written here independently of mergelens's own.
fn hmac(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    block[..key.len()].copy_from_slice(key);
    let inner = Sha256::new()
        .chain_update(block.map(|b| b ^ 0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(block.map(|b| b ^ 0x5c))
        .chain_update(inner)
        .finalize()
        .to_vec()
}

/// `content` as the entry at `path` of `kind`, sealed under `key` as mergelens seals it.
fn seal(key: &str, path: &Path, kind: &str, content: &[u8]) {
    let name = path.file_name().unwrap().to_str().unwrap();
    let mut message = Vec::new();
    for field in ["mergelens-cache-mac/1", kind, name] {
        message.extend_from_slice(&(field.len() as u64).to_le_bytes());
        message.extend_from_slice(field.as_bytes());
    }
    message.extend_from_slice(content);
    let mac: String = hmac(key.as_bytes(), &message)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut file = format!("mergelens-cache-mac/1 {mac}\n").into_bytes();
    file.extend_from_slice(content);
    std::fs::write(path, file).unwrap();
}

/// The per-execution enumeration rewritten to a clean merge's: no execution to judge.
fn forged_enumeration(path: &Path) -> Vec<u8> {
    let mut entry = content(path);
    entry["enumeration"]["executions"] = serde_json::json!([]);
    serde_json::to_vec(&entry).unwrap()
}

fn notes(doc: &Value) -> String {
    doc["bounds"]["notes"].to_string()
}

fn unexpected_first(repo: &Repo) {
    let (code, doc, said) = keyed(repo);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
}

#[test]
fn a_forged_merged_automaton_and_enumeration_are_recomputed_and_the_verdict_stands() {
    let repo = armed();
    unexpected_first(&repo);
    // The merged automaton is the one that calls `fire`; the others are a clean merge's.
    let automata = entries(&repo, "automata");
    assert_eq!(automata.len(), 4, "{automata:?}");
    let fires = |p: &PathBuf| {
        content(p)["dfa"]["transitions"]
            .to_string()
            .contains("fire")
    };
    let merged = automata.iter().find(|p| fires(p)).unwrap().clone();
    let clean = automata.iter().find(|p| !fires(p)).unwrap();
    // What an attacker does: copy an authentic entry over the merged one's name, and edit
    // the enumeration keeping its MAC line.
    std::fs::copy(clean, &merged).unwrap();
    let executions = entries(&repo, "executions");
    assert_eq!(executions.len(), 1, "{executions:?}");
    let (mac_line, _) = split(&executions[0]);
    let mut forged = format!("{mac_line}\n").into_bytes();
    forged.extend(forged_enumeration(&executions[0]));
    std::fs::write(&executions[0], forged).unwrap();

    let (code, doc, said) = keyed(&repo);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    for (path, why) in [(&merged, "wrong MAC"), (&executions[0], "wrong MAC")] {
        let note = format!(
            "cache entry {} failed its check ({why}) and was recomputed",
            path.display()
        );
        assert!(notes(&doc).contains(&note), "{note}: {}", notes(&doc));
        assert!(said.contains(&note), "{said}");
    }
    // Only the forged entries: the others were believed.
    assert_eq!(notes(&doc).matches("failed its check").count(), 2, "{doc}");
    let stats = &doc["entries"][0]["stats"];
    assert_eq!(stats["base"]["reused"], "cache", "{stats}");
    // Relearned (from the authentic answers CBMC gave before).
    assert!(stats["merged"].get("reused").is_none(), "{stats}");
    assert!(
        stats["merged"]["membership_queries"].as_u64().unwrap() > 0,
        "{stats}"
    );
    // Both were written anew, authentic: the next review believes them.
    assert!(fires(&merged));
    let (code, doc, said) = keyed(&repo);
    assert_eq!(code, Some(1), "{said}");
    assert!(!notes(&doc).contains("failed its check"), "{doc}");
    assert_eq!(doc["entries"][0]["stats"]["merged"]["reused"], "cache");
}

#[test]
fn a_forged_enumeration_is_recomputed_unless_sealed_under_the_key() {
    let repo = armed();
    unexpected_first(&repo);
    let path = entries(&repo, "executions").remove(0);
    let forged = forged_enumeration(&path);
    // Without a MAC line at all.
    std::fs::write(&path, &forged).unwrap();
    let (code, doc, said) = keyed(&repo);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let note = format!(
        "cache entry {} failed its check (no MAC) and was recomputed",
        path.display()
    );
    assert!(notes(&doc).contains(&note), "{}", notes(&doc));
    // Sealed under another key (an untrusted job's own): refused too.
    seal(
        "the-key-of-an-untrusted-job-0123456789",
        &path,
        "executions",
        &forged,
    );
    let (code, doc, said) = keyed(&repo);
    assert_eq!(code, Some(1), "{said}");
    assert!(notes(&doc).contains("(wrong MAC)"), "{}", notes(&doc));
    // Sealed under the review's key, the same forgery is believed: the key guards it.
    seal(KEY, &path, "executions", &forged);
    let (code, doc, said) = keyed(&repo);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
}

#[test]
fn the_key_file_is_made_once_in_the_home_and_a_missing_key_keeps_no_cache() {
    let repo = armed();
    // No variable: the key file in the (temporary) home, mode 0600.
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(1), "{said}");
    assert!(!notes(&doc).contains("failed its check"), "{doc}");
    assert!(!notes(&doc).contains("no cache key"), "{doc}");
    let key_file = repo.home().join(".config/mergelens/cache-key");
    let meta = std::fs::metadata(&key_file).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o600
    );
    let key = std::fs::read_to_string(&key_file).unwrap();
    assert_eq!(key.trim().len(), 64, "32 random bytes in hex");
    let doctor = repo.mergelens(&["doctor"]);
    let doctor = text(&doctor);
    assert!(
        doctor.contains(&format!("cache key       {}", key_file.display())),
        "{doctor}"
    );
    assert!(
        !doctor.contains(key.trim()),
        "the key itself is never shown"
    );
    // Every entry is believed under the same key...
    let (_, doc, said) = review(&repo, &[]);
    assert_eq!(
        doc["entries"][0]["stats"]["merged"]["reused"], "cache",
        "{said}"
    );
    // ... and under the same key given as the variable.
    let (_, doc, said) = review(&repo, &[("MERGELENS_CACHE_KEY", key.trim())]);
    assert!(!notes(&doc).contains("failed its check"), "{said}");
    let doctor = repo
        .command(
            Path::new(env!("CARGO_BIN_EXE_mergelens")),
            &[("MERGELENS_CACHE_KEY", KEY)],
        )
        .arg("doctor")
        .output()
        .unwrap();
    assert!(
        text(&doctor).contains("cache key       $MERGELENS_CACHE_KEY"),
        "{}",
        text(&doctor)
    );

    // A key file that is no key: no cache is read or written, with one note.
    std::fs::write(&key_file, "short\n").unwrap();
    std::fs::remove_dir_all(repo.path().join(".git/mergelens")).unwrap();
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    assert_eq!(
        notes(&doc).matches("no cache key").count(),
        1,
        "{}",
        notes(&doc)
    );
    assert!(
        notes(&doc).contains("caches are neither read nor written"),
        "{}",
        notes(&doc)
    );
    for dir in ["automata", "cache", "executions", "coverage"] {
        assert!(
            !repo.path().join(".git/mergelens").join(dir).exists(),
            "{dir} written without a key"
        );
    }
}
