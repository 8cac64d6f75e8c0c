//! Authenticated cache entries. Key items: [`write`] and [`read`] (and their JSON forms
//! [`write_json`], [`read_json`]), every file a later run believes (the answer store, learned
//! automata, the per-execution check's enumerations, coverage) goes through; [`Rejected`],
//! an entry that failed its check; [`key_ready`] and [`key_source`], the key and where it
//! comes from.
//!
//! `.git/mergelens/` is writable by anything that runs in the repository (a branch's build
//! or test suite in CI, a cache restored from an untrusted job), so an entry is believed only
//! if it carries an HMAC-SHA256 under a key that lives outside the repository and its
//! branches: `$MERGELENS_CACHE_KEY`, else `$XDG_CONFIG_HOME/mergelens/cache-key` (default
//! `~/.config/mergelens/cache-key`), created on first use from 32 random bytes, mode 0600.
//! The MAC covers the entry's kind (`answers`, `automaton`, ...), its file name (the digest
//! of what the entry depends on) and its exact bytes, so an authentic entry moved to another
//! name or kind fails too. A file is `mergelens-cache-mac/1 <hex MAC>\n` followed by the
//! content, written whole (a temporary file renamed into place): a reader never sees the MAC
//! of one write with the content of another.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::failure::{FailureKind, HasKind};
use sha2::{Digest, Sha256};
use thiserror::Error;

/// The first word of every entry, and the domain of its MAC.
const FORMAT: &str = "mergelens-cache-mac/1";
/// The environment variable that holds the key (a CI secret).
pub const KEY_VARIABLE: &str = "MERGELENS_CACHE_KEY";
/// The key file's name in the user's configuration directory.
pub const KEY_FILE: &str = "cache-key";
/// A key shorter than this (in bytes, after trimming whitespace) is refused.
const MIN_KEY_BYTES: usize = 32;

/// The user's configuration directory of mergelens: `$XDG_CONFIG_HOME/mergelens` when that
/// is absolute, else `~/.config/mergelens`; `None` without a home.
pub(crate) fn config_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let base = xdg.or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".config"))
    })?;
    Some(base.join("mergelens"))
}

/// A MAC key.
#[derive(Clone)]
pub(crate) struct MacKey(Vec<u8>);

/// Where the key came from (`mergelens doctor` says it; the key itself is never shown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeySource {
    Environment,
    File {
        path: PathBuf,
        created: bool,
    },
    /// Unit tests: a random key of the process, in memory only.
    Process,
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Environment => write!(f, "${KEY_VARIABLE}"),
            KeySource::File { path, created } => {
                write!(f, "{}", path.display())?;
                if *created {
                    write!(f, " (created now)")?;
                }
                Ok(())
            }
            KeySource::Process => write!(f, "a random key of this process"),
        }
    }
}

/// Why there is no key: caches are then neither read nor written.
#[derive(Debug, Error)]
pub enum CacheKeyError {
    #[error("${KEY_VARIABLE} holds fewer than {MIN_KEY_BYTES} bytes")]
    ShortVariable,
    #[error("no home directory for the key file (set {KEY_VARIABLE} or XDG_CONFIG_HOME)")]
    NoHome,
    #[error("cannot create the key file {}", path.display())]
    Create {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read the key file {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the key file {} holds fewer than {MIN_KEY_BYTES} bytes", path.display())]
    ShortFile { path: PathBuf },
}

impl HasKind for CacheKeyError {
    /// A key the user set up too short, or no place for one, is theirs to fix.
    fn kind(&self) -> FailureKind {
        match self {
            CacheKeyError::ShortVariable
            | CacheKeyError::NoHome
            | CacheKeyError::ShortFile { .. } => FailureKind::BadInput,
            CacheKeyError::Create { .. } | CacheKeyError::Read { .. } => FailureKind::Failed,
        }
    }
}

/// A cache entry that failed its check: not used, and recomputed.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("cache entry {} failed its check ({reason}) and was recomputed", path.display())]
pub struct Rejected {
    pub path: PathBuf,
    pub reason: String,
}

impl HasKind for Rejected {
    fn kind(&self) -> FailureKind {
        FailureKind::Failed
    }
}

type Loaded = Result<(MacKey, KeySource), CacheKeyError>;

static KEY: OnceLock<Loaded> = OnceLock::new();
static NOTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn loaded() -> &'static Loaded {
    KEY.get_or_init(load_key)
}

#[cfg(test)]
fn load_key() -> Loaded {
    let mut bytes = [0u8; MIN_KEY_BYTES];
    random_bytes(&mut bytes).expect("/dev/urandom is readable");
    Ok((MacKey(bytes.to_vec()), KeySource::Process))
}

#[cfg(not(test))]
fn load_key() -> Loaded {
    if let Some(value) = std::env::var_os(KEY_VARIABLE).filter(|v| !v.is_empty()) {
        let key =
            MacKey::from_text(value.as_encoded_bytes()).ok_or(CacheKeyError::ShortVariable)?;
        return Ok((key, KeySource::Environment));
    }
    let path = config_dir().ok_or(CacheKeyError::NoHome)?.join(KEY_FILE);
    let created = !path.exists();
    if created {
        create_key_file(&path).map_err(|source| CacheKeyError::Create {
            path: path.clone(),
            source,
        })?;
    }
    let text = std::fs::File::open(&path)
        .and_then(|f| {
            let mut text = Vec::new();
            // A key file is small; a huge one is somebody else's file.
            f.take(4096).read_to_end(&mut text).map(|_| text)
        })
        .map_err(|source| CacheKeyError::Read {
            path: path.clone(),
            source,
        })?;
    let key = MacKey::from_text(&text).ok_or(CacheKeyError::ShortFile { path: path.clone() })?;
    Ok((key, KeySource::File { path, created }))
}

/// Writes 32 random bytes, in hex, to a new file (mode 0600, in a directory of mode 0700
/// when it is created), linked into place only if no other process was first.
#[cfg(not(test))]
fn create_key_file(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let mut bytes = [0u8; 32];
    random_bytes(&mut bytes)?;
    // tempfile creates its files with mode 0600.
    let mut temp = tempfile::Builder::new()
        .prefix(".cache-key-")
        .tempfile_in(dir)?;
    writeln!(temp, "{}", hex(&bytes))?;
    temp.as_file().sync_all()?;
    match temp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e.error),
    }
}

fn random_bytes(out: &mut [u8]) -> std::io::Result<()> {
    std::fs::File::open("/dev/urandom")?.read_exact(out)
}

/// Whether caches can be used: the key is there. Without it `note` is called once per
/// process with the reason, and the caller reads and writes no cache.
pub fn key_ready(note: impl FnOnce(String)) -> bool {
    match loaded() {
        Ok(_) => true,
        Err(e) => {
            if !NOTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                note(format!(
                    "no cache key ({}): caches are neither read nor written",
                    crate::failure::text(e)
                ));
            }
            false
        }
    }
}

/// Where the key comes from, or why there is none (loading it, and creating the key file
/// on first use).
pub fn key_source() -> Result<&'static KeySource, &'static CacheKeyError> {
    loaded().as_ref().map(|(_, source)| source)
}

impl MacKey {
    /// The key of a text (the key file or the variable), trimmed; `None` when too short.
    fn from_text(text: &[u8]) -> Option<MacKey> {
        let text = text.trim_ascii();
        (text.len() >= MIN_KEY_BYTES).then(|| MacKey(text.to_vec()))
    }

    /// The MAC of an entry: HMAC-SHA256 over the format, the kind, the file name (each
    /// length-prefixed) and the content.
    fn mac(&self, kind: &str, name: &str, content: &[u8]) -> [u8; 32] {
        let mut message = Vec::with_capacity(content.len() + 64);
        for field in [FORMAT, kind, name] {
            message.extend_from_slice(&(field.len() as u64).to_le_bytes());
            message.extend_from_slice(field.as_bytes());
        }
        message.extend_from_slice(content);
        hmac_sha256(&self.0, &message)
    }

    /// The file's text: the MAC line, then the content.
    fn seal(&self, kind: &str, name: &str, content: &[u8]) -> Vec<u8> {
        let mut out = format!("{FORMAT} {}\n", hex(&self.mac(kind, name, content))).into_bytes();
        out.extend_from_slice(content);
        out
    }

    /// The content of a file's text, if its MAC is this key's for `kind` and `name`.
    fn open(&self, kind: &str, name: &str, text: &[u8]) -> Result<Vec<u8>, &'static str> {
        let newline = text.iter().position(|&b| b == b'\n').ok_or("no MAC")?;
        let header = std::str::from_utf8(&text[..newline]).map_err(|_| "no MAC")?;
        let given = header
            .strip_prefix(FORMAT)
            .and_then(|rest| rest.strip_prefix(' '))
            .ok_or("no MAC")?;
        let content = &text[newline + 1..];
        let expected = hex(&self.mac(kind, name, content));
        // Constant time: the comparison says nothing of how much of a guess was right.
        let differ = given.len() != expected.len()
            || given
                .bytes()
                .zip(expected.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                != 0;
        if differ {
            return Err("wrong MAC");
        }
        Ok(content.to_vec())
    }
}

/// HMAC (RFC 2104) with SHA-256.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut padded = [0u8; BLOCK];
    if key.len() > BLOCK {
        padded[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        padded[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(padded.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(padded.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Writes `content` as the entry `path` of `kind`, with its MAC, atomically. Without a key
/// nothing is written (an error).
pub(crate) fn write(path: &Path, kind: &str, content: &[u8]) -> std::io::Result<()> {
    let (key, _) = loaded()
        .as_ref()
        .map_err(|e| std::io::Error::other(crate::failure::text(e)))?;
    write_with(key, path, kind, content)
}

fn write_with(key: &MacKey, path: &Path, kind: &str, content: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".mergelens-cache-")
        .tempfile_in(dir)?;
    temp.write_all(&key.seal(kind, &file_name(path), content))?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The content of the entry `path` of `kind`: `None` when there is none (or no key),
/// [`Rejected`] when it is there but its MAC is missing or wrong, or it is over the JSON
/// budget or cannot be read.
pub(crate) fn read(path: &Path, kind: &str) -> Result<Option<Vec<u8>>, Rejected> {
    match loaded() {
        Ok((key, _)) => read_with(key, path, kind),
        Err(_) => Ok(None),
    }
}

fn read_with(key: &MacKey, path: &Path, kind: &str) -> Result<Option<Vec<u8>>, Rejected> {
    let rejected = |reason: String| Rejected {
        path: path.to_path_buf(),
        reason,
    };
    let limit = crate::limits::MAX_JSON_BYTES + 128;
    let text = match std::fs::File::open(path) {
        Ok(file) => {
            let mut text = Vec::new();
            file.take(limit + 1)
                .read_to_end(&mut text)
                .map_err(|e| rejected(format!("cannot be read: {e}")))?;
            text
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(rejected(format!("cannot be read: {e}"))),
    };
    if text.len() as u64 > limit {
        return Err(rejected(format!("over {limit} bytes")));
    }
    key.open(kind, &file_name(path), &text)
        .map(Some)
        .map_err(|why| rejected(why.to_string()))
}

/// [`write`] of a value as JSON.
pub(crate) fn write_json(
    path: &Path,
    kind: &str,
    value: &impl serde::Serialize,
) -> std::io::Result<()> {
    let text = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    write(path, kind, &text)
}

/// [`read`] of a JSON value: an authentic entry that does not parse as `T` (another
/// format of mergelens's) is `None`, like no entry.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    kind: &str,
) -> Result<Option<T>, Rejected> {
    Ok(read(path, kind)?.and_then(|bytes| serde_json::from_slice(&bytes).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8) -> MacKey {
        MacKey(vec![byte; MIN_KEY_BYTES])
    }

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 2 of RFC 4231.
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block is hashed first.
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn an_entry_reads_back_under_its_key_kind_and_name_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc.json");
        write_with(&key(1), &path, "automaton", b"{\"x\":1}").unwrap();
        assert_eq!(
            read_with(&key(1), &path, "automaton").unwrap().as_deref(),
            Some(&b"{\"x\":1}"[..])
        );
        let reason = |r: Result<Option<Vec<u8>>, Rejected>| r.unwrap_err().reason;
        // Another key.
        assert_eq!(reason(read_with(&key(2), &path, "automaton")), "wrong MAC");
        // Another kind.
        assert_eq!(reason(read_with(&key(1), &path, "answers")), "wrong MAC");
        // Moved to another name.
        let moved = dir.path().join("def.json");
        std::fs::rename(&path, &moved).unwrap();
        assert_eq!(reason(read_with(&key(1), &moved, "automaton")), "wrong MAC");
        // No entry at all.
        assert_eq!(read_with(&key(1), &path, "automaton"), Ok(None));
    }

    #[test]
    fn every_flipped_byte_and_a_missing_mac_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.json");
        write_with(&key(7), &path, "executions", b"[1,2,3]").unwrap();
        let sealed = std::fs::read(&path).unwrap();
        for i in 0..sealed.len() {
            let mut forged = sealed.clone();
            forged[i] ^= 0x01;
            std::fs::write(&path, &forged).unwrap();
            let r = read_with(&key(7), &path, "executions");
            assert!(r.is_err(), "byte {i} flipped: {r:?}");
        }
        std::fs::write(&path, b"[1,2,3]").unwrap();
        let r = read_with(&key(7), &path, "executions").unwrap_err();
        assert_eq!(r.reason, "no MAC");
        assert_eq!(
            r.to_string(),
            format!(
                "cache entry {} failed its check (no MAC) and was recomputed",
                path.display()
            )
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

        /// Any content opens under its key, kind and name, and under no other; any byte of
        /// the sealed text changed, or the text cut short, fails.
        #[test]
        fn sealed_text_opens_only_as_written(
            content in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            at in proptest::prelude::any::<proptest::sample::Index>(),
            mask in 1u8..=255,
            cut in proptest::prelude::any::<proptest::sample::Index>(),
        ) {
            let sealed = key(3).seal("answers", "k.json", &content);
            proptest::prop_assert_eq!(key(3).open("answers", "k.json", &sealed), Ok(content.clone()));
            proptest::prop_assert!(key(4).open("answers", "k.json", &sealed).is_err());
            proptest::prop_assert!(key(3).open("answers", "j.json", &sealed).is_err());
            proptest::prop_assert!(key(3).open("automaton", "k.json", &sealed).is_err());
            let mut forged = sealed.clone();
            forged[at.index(sealed.len())] ^= mask;
            proptest::prop_assert!(key(3).open("answers", "k.json", &forged).is_err());
            let short = &sealed[..cut.index(sealed.len())];
            proptest::prop_assert!(key(3).open("answers", "k.json", short).is_err());
        }
    }

    #[test]
    fn no_tool_is_given_the_key() {
        assert!(crate::process::WITHHELD.contains(&KEY_VARIABLE));
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "printf %s \"${MERGELENS_CACHE_KEY-unset}\""])
            .env(KEY_VARIABLE, "0123456789abcdef0123456789abcdef");
        let ran = crate::process::run_bounded(cmd, None, 1024).unwrap();
        let crate::process::Ran::Finished { stdout, .. } = ran else {
            panic!("sh did not run: {ran:?}");
        };
        assert_eq!(stdout, b"unset");
    }

    #[test]
    fn keys_are_trimmed_text_of_at_least_32_bytes() {
        assert!(MacKey::from_text(b"short").is_none());
        let hex_key = format!("{}\n", "ab".repeat(32));
        assert_eq!(MacKey::from_text(hex_key.as_bytes()).unwrap().0.len(), 64);
    }

    #[test]
    fn the_process_key_round_trips_json() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        write_json(&path, "coverage", &vec![1u32, 2]).unwrap();
        assert_eq!(
            read_json::<Vec<u32>>(&path, "coverage"),
            Ok(Some(vec![1, 2]))
        );
        assert!(key_ready(|_| panic!("the test key is always there")));
        assert!(matches!(key_source(), Ok(KeySource::Process)));
    }
}
