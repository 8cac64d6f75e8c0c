//! A `compile_commands.json` (as CMake and Bear write it): the files, include directories
//! and defines of a program. Key type: [`CompileCommands`].

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::ConfigError;

/// What a `compile_commands.json` says about the program.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompileCommands {
    /// Repository-relative C files.
    pub files: Vec<String>,
    /// Repository-relative when inside the repository, else absolute.
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct CommandEntry {
    directory: PathBuf,
    file: PathBuf,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    arguments: Option<Vec<String>>,
}

impl CompileCommands {
    /// Reads `path`; `root` is the work tree its absolute paths point into.
    pub fn read(path: &Path, root: &Path) -> Result<CompileCommands, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        CompileCommands::parse(&text, path, root, true)
    }

    /// A database's text, named `path` in messages. From an untrusted place (`trusted`
    /// false: a repository's configuration names it), an include directory outside `root`
    /// is left out with a warning instead of kept absolute.
    pub fn parse(
        text: &str,
        path: &Path,
        root: &Path,
        trusted: bool,
    ) -> Result<CompileCommands, ConfigError> {
        let entries: Vec<CommandEntry> =
            serde_json::from_str(text).map_err(|source| ConfigError::CompileCommands {
                path: path.to_path_buf(),
                source,
            })?;
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let mut out = CompileCommands::default();
        for entry in entries {
            let file = absolute(&entry.directory, &entry.file);
            if file.extension().is_none_or(|e| e != "c") {
                continue;
            }
            match relative_to(&root, &file) {
                Some(rel) => push_unique(&mut out.files, rel.to_string_lossy().into_owned()),
                None => out.warnings.push(format!(
                    "{}: outside the repository; left out of the review",
                    file.display()
                )),
            }
            let args = match (entry.arguments, entry.command) {
                (Some(args), _) => args,
                (None, Some(command)) => split_command(&command),
                (None, None) => Vec::new(),
            };
            let mut it = args.iter().skip(1);
            while let Some(arg) = it.next() {
                let mut take = |flag: &str| -> Option<String> {
                    if arg == flag {
                        it.next().cloned()
                    } else {
                        arg.strip_prefix(flag)
                            .filter(|v| !v.is_empty())
                            .map(str::to_string)
                    }
                };
                if let Some(dir) = take("-I")
                    .or_else(|| take("-iquote"))
                    .or_else(|| take("-isystem"))
                {
                    let dir = absolute(&entry.directory, Path::new(&dir));
                    let dir = match relative_to(&root, &dir) {
                        Some(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
                        Some(rel) => rel,
                        None if trusted => dir,
                        None => {
                            out.warnings.push(format!(
                                "{}: include directory {} is outside the repository; refused (a repository's compilation database may only name directories inside it)",
                                path.display(),
                                dir.display()
                            ));
                            continue;
                        }
                    };
                    push_unique(&mut out.include_dirs, dir);
                } else if let Some(define) = take("-D") {
                    push_unique(&mut out.defines, define);
                }
            }
        }
        Ok(out)
    }
}

fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn absolute(dir: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    };
    // Lexically: the files may not exist here (a database written on another checkout).
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn relative_to(root: &Path, path: &Path) -> Option<PathBuf> {
    path.strip_prefix(root).ok().map(Path::to_path_buf)
}

/// A command line split as a POSIX shell would (the quoting compilation databases use); a
/// line with an unclosed quote is split at whitespace, so its flags still count.
fn split_command(command: &str) -> Vec<String> {
    shlex::split(command)
        .unwrap_or_else(|| command.split_whitespace().map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_untrusted_database_keeps_no_include_directory_outside() {
        let db = serde_json::json!([
            {"directory": "/r/build", "file": "../a.c",
             "command": "cc -I../include -I/opt/inc -isystem /usr/include -c ../a.c"}
        ]);
        let cc = CompileCommands::parse(
            &db.to_string(),
            Path::new("cc.json"),
            Path::new("/r"),
            false,
        )
        .unwrap();
        assert_eq!(cc.files, ["a.c"]);
        assert_eq!(cc.include_dirs, [PathBuf::from("include")]);
        assert_eq!(cc.warnings.len(), 2, "{:?}", cc.warnings);
    }

    #[test]
    fn compile_commands_give_files_includes_and_defines() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let db = serde_json::json!([
            {"directory": root.join("build"), "file": "../src/a.c",
             "command": "cc -I../include -DNDEBUG -D 'NAME=\"x y\"' -isystem /opt/inc -c ../src/a.c -o a.o"},
            {"directory": root.join("build"), "file": root.join("src/b.c"),
             "arguments": ["cc", "-I", root.join("include").to_str().unwrap(), "-DN=4", "-c", "b.c"]},
            {"directory": "/elsewhere", "file": "/elsewhere/c.c", "command": "cc -c c.c"}
        ]);
        let path = root.join("compile_commands.json");
        std::fs::write(&path, db.to_string()).unwrap();
        let cc = CompileCommands::read(&path, &root).unwrap();
        assert_eq!(cc.files, ["src/a.c", "src/b.c"]);
        assert_eq!(
            cc.include_dirs,
            [PathBuf::from("include"), PathBuf::from("/opt/inc")]
        );
        assert_eq!(cc.defines, ["NDEBUG", "NAME=\"x y\"", "N=4"]);
        assert_eq!(cc.warnings.len(), 1);
    }

    #[test]
    fn commands_split_as_a_shell_splits_them() {
        assert_eq!(
            split_command(r#"cc -D'A=1 2' "-DB=\"q\"" "a\nb" c\ d"#),
            ["cc", "-DA=1 2", "-DB=\"q\"", "a\\nb", "c d"]
        );
        assert_eq!(split_command("cc \"-Iunclosed"), ["cc", "\"-Iunclosed"]);
    }
}
