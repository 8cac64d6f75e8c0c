//! The harness skeleton `mergelens init --harness-for F` writes: `main` calls F on
//! nondeterministic arguments, as the generated entry harness does, in a file the user
//! edits and commits.
//!
//! Key item: [`skeleton`]. A function-pointer parameter (written out, `int (*cb)(int)`, or
//! through a typedef of the program's, `handler_fn cb`) gets a stub of its own that counts
//! its calls and returns a nondeterministic value, never an uninitialised pointer: CBMC
//! calls through an unknown pointer to nothing, which silently ends the execution.

use std::path::{Path, PathBuf};

use anyhow::Context;
use mergelens::git::paths::shown_relative;

/// The harness skeleton `--harness-for` writes, at the repository root.
pub const HARNESS_FILE: &str = "mergelens-harness.c";

/// Elements of each buffer the harness skeleton passes (as the generated entry harness).
const BUFFER: usize = 4;

/// A function that could be an entry.
pub(super) struct Candidate {
    pub(super) name: String,
    pub(super) parameters: Vec<String>,
    pub(super) file: PathBuf,
    pub(super) line: u32,
    /// How many other functions of the program it calls, directly or not (by the call
    /// graph): a parser reaches much of a library, a getter little.
    pub(super) reaches: usize,
}

/// The text before a function's name, from the start of the line before it.
pub(super) fn head(file: &Path, line: u32, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let at = (line as usize).checked_sub(1)?;
    let this = lines.get(at)?;
    let before = &this[..this.find(name).unwrap_or(0)];
    let previous = if before.trim().is_empty() && at > 0 {
        lines[at - 1]
    } else {
        ""
    };
    Some(format!("{previous} {before}"))
}

/// The harness skeleton: `entry` calls `c` on nondeterministic arguments, as the generated
/// entry harness does: scalars are uninitialised locals, a pointer points to a buffer of
/// [`BUFFER`] nondeterministic elements, a character buffer ends with a NUL.
pub(super) fn skeleton(c: &Candidate, entry: &str, root: &Path) -> anyhow::Result<String> {
    let file = std::fs::read_to_string(&c.file)
        .with_context(|| format!("cannot read {}", c.file.display()))?;
    // The function's own file's local includes declare what its parameters use.
    let includes: Vec<&str> = file
        .lines()
        .filter(|l| l.trim_start().starts_with("#include \""))
        .collect();
    let return_type = head(&c.file, c.line, &c.name)
        .map(|h| {
            h.split_whitespace()
                .filter(|w| !matches!(*w, "static" | "inline" | "extern"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "int".to_string());
    let mut body = String::new();
    let mut args = Vec::new();
    let params: Vec<&String> = c.parameters.iter().filter(|p| p.trim() != "void").collect();
    let mut stubs = String::new();
    for (i, p) in params.iter().enumerate() {
        let arg = format!("arg{i}");
        if let Some(callback) = callback_type(p, &typedef_texts(&c.file, &file)) {
            stubs.push_str(&callback.stub(i));
            args.push(format!("stub{i}"));
            continue;
        }
        let (ty, pointer) = parameter_type(p);
        if pointer {
            let element = ty
                .replace("const", " ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let element = if element == "void" {
                "char".to_string()
            } else {
                element
            };
            body.push_str(&format!(
                "    {element} buf{i}[{BUFFER}]; /* nondeterministic */\n"
            ));
            if element.ends_with("char") {
                body.push_str(&format!("    buf{i}[{}] = 0; /* a string */\n", BUFFER - 1));
            }
            args.push(format!("buf{i}"));
        } else {
            body.push_str(&format!("    {ty} {arg}; /* nondeterministic */\n"));
            args.push(arg);
        }
    }
    let file_name = shown_relative(&c.file, root);
    Ok(format!(
        "/* {HARNESS_FILE}: written by `mergelens init --harness-for {name}`.\n * A harness: `{entry}` calls {name} on nondeterministic input (an uninitialised local is\n * any value to CBMC; each buffer holds {BUFFER} nondeterministic elements). Its own functions\n * are no events. Bound the input as {name} expects, then commit this file: a review reads\n * it from HEAD and compiles it with every version. */\n{includes}\n{return_type} {name}({params});\n{stubs}\nint {entry}(void)\n{{\n{body}    {name}({args});\n    return 0;\n}}\n/* {name} is defined in {file_name}:{line}. */\n",
        name = c.name,
        includes = includes.join("\n"),
        params = if params.is_empty() {
            "void".to_string()
        } else {
            c.parameters.join(", ")
        },
        args = args.join(", "),
        line = c.line,
    ))
}

/// A parameter declaration's type without its name, and whether it is a pointer (or an
/// array, which a function receives as one).
fn parameter_type(p: &str) -> (String, bool) {
    let p = p.trim();
    let pointer = p.contains('*') || p.contains('[');
    let p = p.split('[').next().unwrap_or(p);
    let base = p.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_');
    let base = if base.trim().is_empty() { p } else { base };
    let ty = base
        .replace('*', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if pointer {
        (ty, true)
    } else {
        (base.trim().to_string(), false)
    }
}

/// The return type and parameter list of a function-pointer type.
#[derive(Debug, PartialEq, Eq)]
struct Callback {
    returns: String,
    /// Each parameter with a name (`p0`, `p1` where the declaration had none).
    parameters: Vec<String>,
}

impl Callback {
    /// `stub{i}`: counts its calls in `stub{i}_calls` and returns a nondeterministic value.
    fn stub(&self, i: usize) -> String {
        let parameters = if self.parameters.is_empty() {
            "void".to_string()
        } else {
            self.parameters.join(", ")
        };
        let body = if self.returns == "void" {
            format!("    stub{i}_calls++;\n")
        } else {
            format!(
                "    {} result; /* nondeterministic */\n    stub{i}_calls++;\n    return result;\n",
                self.returns
            )
        };
        format!(
            "\n/* Passed as argument {i}: records its calls; replace it by a function of the\n * program's to review what that function does. */\nstatic int stub{i}_calls;\nstatic {} stub{i}({parameters})\n{{\n{body}}}\n",
            self.returns
        )
    }
}

/// The candidate's own file and the local headers it includes, where a typedef of a
/// parameter's type would be.
fn typedef_texts(file: &Path, text: &str) -> Vec<String> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut texts = vec![text.to_string()];
    for line in text.lines() {
        let Some(name) = line
            .trim_start()
            .strip_prefix("#include \"")
            .and_then(|r| r.split('"').next())
        else {
            continue;
        };
        if let Ok(header) = std::fs::read_to_string(dir.join(name)) {
            texts.push(header);
        }
    }
    texts
}

/// The callback type of a parameter declaration: written out (`int (*cb)(const char *)`)
/// or a typedef found in `texts` (`typedef int (*handler_fn)(const char *, void *);`).
fn callback_type(parameter: &str, texts: &[String]) -> Option<Callback> {
    let p = parameter.trim();
    if p.contains("(*") {
        return function_pointer(p);
    }
    let type_name = p.split_whitespace().next()?;
    texts.iter().find_map(|t| {
        t.split(';').find_map(|declaration| {
            let d = declaration.trim();
            let rest = d.strip_prefix("typedef")?;
            let pointer = function_pointer(rest.trim())?;
            let declared = rest.split("(*").nth(1)?.split(')').next()?.trim();
            (declared == type_name).then_some(pointer)
        })
    })
}

/// `RET (*NAME)(PARAMS)` read as a callback; `None` for anything else (a parameter that is
/// itself a function pointer, which a skeleton leaves to the user).
fn function_pointer(text: &str) -> Option<Callback> {
    let (returns, rest) = text.split_once("(*")?;
    let params = rest.split_once(")")?.1.trim();
    let params = params.strip_prefix('(')?.strip_suffix(')')?;
    if params.contains('(') {
        return None;
    }
    let parameters = params
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "void")
        .enumerate()
        .map(|(k, p)| named(p, k))
        .collect();
    Some(Callback {
        returns: returns.trim().to_string(),
        parameters,
    })
}

/// A parameter declaration with a name: its own, or `p{k}` when it has none.
fn named(p: &str, k: usize) -> String {
    const TYPE_WORDS: [&str; 12] = [
        "int", "char", "short", "long", "unsigned", "signed", "float", "double", "void", "_Bool",
        "const", "volatile",
    ];
    let spaced = p.replace('*', " * ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let has_name = tokens.len() >= 2
        && tokens.last().is_some_and(|t| {
            t.chars().all(|c| c.is_alphanumeric() || c == '_') && !TYPE_WORDS.contains(t)
        })
        && !matches!(tokens[tokens.len() - 2], "struct" | "union" | "enum");
    if has_name {
        p.to_string()
    } else {
        format!("{p} p{k}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_types_drop_their_names() {
        assert_eq!(parameter_type("unsigned n"), ("unsigned".into(), false));
        assert_eq!(parameter_type("const char *s"), ("const char".into(), true));
        assert_eq!(parameter_type("int a[]"), ("int".into(), true));
        assert_eq!(
            parameter_type("struct point p"),
            ("struct point".into(), false)
        );
    }

    #[test]
    fn callbacks_are_read_written_out_or_through_a_typedef() {
        let typedefs = [
            "typedef int (*handler_fn)(const char *, void *ctx);\ntypedef int count_t;".to_string(),
        ];
        assert_eq!(
            callback_type("handler_fn cb", &typedefs),
            Some(Callback {
                returns: "int".into(),
                parameters: vec!["const char * p0".into(), "void *ctx".into()],
            })
        );
        assert_eq!(
            callback_type("void (*done)(void)", &[]),
            Some(Callback {
                returns: "void".into(),
                parameters: vec![],
            })
        );
        assert_eq!(callback_type("count_t n", &typedefs), None);
        assert_eq!(callback_type("const char *s", &typedefs), None);
        let stub = callback_type("handler_fn cb", &typedefs).unwrap().stub(1);
        assert!(
            stub.contains("static int stub1(const char * p0, void *ctx)"),
            "{stub}"
        );
        assert!(
            stub.contains("stub1_calls++;") && stub.contains("return result;"),
            "{stub}"
        );
    }
}
