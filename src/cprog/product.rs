//! One version's share of a product program: the four versions of a merge (O, A, B, M)
//! linked into one C program, so that one CBMC run executes all four on the same input.
//!
//! Key items:
//! * [`ProductVersion`]: a version instrumented with [`super::FrontEndConfig::record_returns`]
//!   (see [`super::instrument`]) whose translation units are rewritten by
//!   [`product_version`] so that they link beside the other three.
//! * [`product_names`]: the hook, tape and call names a version's tag gives, which the
//!   product harness (in `cbmc`) defines.
//!
//! The rewriting is a token renaming of the instrumented (already preprocessed) text: every
//! identifier naming a function the version defines outside the system headers, or a
//! file-scope variable of its own, becomes `__ml_<tag>_NAME`, the three hooks and the return
//! hook become the version's own (`__mlev_<tag>`, ...), and `nondet_*` /
//! `__VERIFIER_nondet_*` functions (and `rand`, `random`) the version declares but
//! does not define become functions that read the version's next value from the one input
//! tape the product shares.
//! Renaming is consistent inside a version (a struct member that happens to share a
//! function's name is renamed everywhere alike), string and character literals are left
//! alone, and the system headers' declarations keep their names, so the C library stays
//! one. A wrapper `__mlcall_<tag>()` calls the entry with the shared arguments.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::error::FrontEndError;
use super::frontend::INPUT_HOOK;
use super::preprocess;
use super::program::{CallSite, FunctionOrigin, InstrumentedProgram};
use crate::fingerprint::Fingerprint;

mod result;
mod tokens;
use tokens::scan;

/// The names one version's hooks take in the product, for the harness that defines them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductNames {
    pub event: String,
    pub end: String,
    pub exit: String,
    pub ret: String,
    /// Names the call site of the next function entry (see [`super::CallSite`]).
    pub site: String,
    pub tape: String,
    /// Hears each tape value as the version's nondet function converted it.
    pub seen: String,
    /// Hears what the entry returned (see [`ProductVersion::returns`]).
    pub result: String,
    /// Hears what the entry left in each of [`ProductVersion::globals`], by index.
    pub global: String,
    pub call: String,
}

impl ProductNames {
    /// The C declarations of the hooks a version's units call and the harness defines.
    fn declarations(&self) -> String {
        format!(
            "long long {}(void); void {}(long long); long long {ARGUMENT_READER}(unsigned int); void {}(void); void {}(long long); void {}(unsigned int, long long);\n",
            self.tape, self.seen, self.call, self.result, self.global
        )
    }
}

/// The product names of version `tag` (one lowercase letter).
pub fn product_names(tag: char) -> ProductNames {
    ProductNames {
        event: format!("__mlev_{tag}"),
        end: format!("__mlend_{tag}"),
        exit: format!("__mlexit_{tag}"),
        ret: format!("__mlret_{tag}"),
        site: format!("__mlsite_{tag}"),
        tape: format!("__mltape_{tag}"),
        seen: format!("__mlseen_{tag}"),
        result: format!("__mlresult_{tag}"),
        global: format!("__mlglobal_{tag}"),
        call: format!("__mlcall_{tag}"),
    }
}

/// The shared argument reader the call wrappers use: `__mlarg(i)` is the entry's i-th
/// argument, the same in every version.
pub const ARGUMENT_READER: &str = "__mlarg";

/// How many bytes one read of an input stream gives at most: a longer read (a bigger
/// buffer, a longer line) is shared in its first `INPUT_BYTES` bytes only.
pub const INPUT_BYTES: usize = 64;

/// The reader of input stream `key` in version `tag`, which the product harness defines:
/// `void __mlin_<tag>_<key>(void *p, unsigned long n)` copies the stream's next `n` bytes
/// (at most [`INPUT_BYTES`]) to `p`; the k-th read gives the same bytes in every version.
pub fn input_reader(tag: char, key: &str) -> String {
    format!("__mlin_{tag}_{key}")
}

/// The source of input stream `key` as people read it: `sensor()` for a body-less
/// function's result, `buf in main` for a local, `fgets` for the C library's.
pub fn input_label(key: &str) -> String {
    if let Some(function) = key.strip_prefix("ret_") {
        return format!("{function}()");
    }
    if let Some(rest) = key.strip_prefix("local_")
        && let Some((length, rest)) = rest.split_once('_')
        && let Ok(length) = length.parse::<usize>()
        && let (Some(function), Some(variable)) = (rest.get(..length), rest.get(length + 1..))
    {
        return local_label(function, variable);
    }
    match key.strip_prefix("lib_") {
        Some("chars") => "getchar/getc/fgetc".to_string(),
        Some(lib) => match lib.strip_suffix("_bytes") {
            Some(function) => format!("{function} (bytes)"),
            None => lib.to_string(),
        },
        None => key.to_string(),
    }
}

/// The size of the floating-point number each read of input stream `key` holds, for the
/// streams of the `strto*` wrappers (`long double`'s is no scalar the check records).
pub fn input_real_bytes(key: &str) -> Option<usize> {
    match key {
        "lib_strtod" => Some(8),
        "lib_strtof" => Some(4),
        _ => None,
    }
}

/// A local as people read it; the generated harnesses' locals are the entry's arguments.
fn local_label(function: &str, variable: &str) -> String {
    let Some(entry) = function.strip_prefix("__mergelens_call_") else {
        return format!("{variable} in {function}");
    };
    let number = |v: &str| v.parse::<usize>().map(|i| i + 1).unwrap_or(0);
    match variable {
        "__ml_argc" => "argc".to_string(),
        v if v.starts_with("__ml_argv") => format!("argv[{}]", &v["__ml_argv".len()..]),
        v if v.starts_with("__ml_a") => format!("argument {} of {entry}", number(&v[6..])),
        v if v.starts_with("__ml_b") => {
            format!("the buffer of argument {} of {entry}", number(&v[6..]))
        }
        v => format!("{v} in {function}"),
    }
}

/// The C library's sources of input, each wrapped in every version by a function reading
/// shared streams (`{W}`: the wrapper's name, `{IN}`: the prefix of the version's readers,
/// `{SZ}`: [`INPUT_BYTES`]). The wrappers keep the library's prototypes (with `FILE` as
/// glibc's `struct _IO_FILE`, `size_t` as `unsigned long`); what the library does besides
/// reading (`malloc`'s allocation) is still the library's.
const LIBRARY_INPUTS: &[(&str, &str)] = &[
    (
        "getchar",
        "int {W}(void) { int c; {IN}lib_chars(&c, sizeof c); __CPROVER_assume(c >= -1 && c <= 255); return c; }",
    ),
    (
        "getc",
        "int {W}(struct _IO_FILE *f) { int c; {IN}lib_chars(&c, sizeof c); __CPROVER_assume(c >= -1 && c <= 255); return c; }",
    ),
    (
        "fgetc",
        "int {W}(struct _IO_FILE *f) { int c; {IN}lib_chars(&c, sizeof c); __CPROVER_assume(c >= -1 && c <= 255); return c; }",
    ),
    (
        "fgets",
        "char *{W}(char *s, int n, struct _IO_FILE *f) { int len; {IN}lib_fgets(&len, sizeof len); if (len <= 0 || n <= 1) return 0; __CPROVER_assume(len < n && len < {SZ}); {IN}lib_fgets_bytes(s, len); s[len] = 0; return s; }",
    ),
    (
        "read",
        "long {W}(int fd, void *buf, unsigned long count) { long r; {IN}lib_read(&r, sizeof r); __CPROVER_assume(r >= -1 && r <= (long)count && r <= {SZ}); if (r > 0) {IN}lib_read_bytes(buf, r); return r; }",
    ),
    (
        "fread",
        "unsigned long {W}(void *p, unsigned long size, unsigned long nmemb, struct _IO_FILE *f) { unsigned long r; {IN}lib_fread(&r, sizeof r); __CPROVER_assume(r <= nmemb && r * size <= {SZ}); if (r > 0) {IN}lib_fread_bytes(p, r * size); return r; }",
    ),
    (
        "time",
        "long {W}(long *t) { long v; {IN}lib_time(&v, sizeof v); if (t) *t = v; return v; }",
    ),
    // CBMC's allocators may fail (return NULL): whether one does is an input too. The
    // library's own outcome is tied to it rather than replaced, so that where CBMC's
    // allocators cannot fail (`--allocations succeed`) neither does the wrapper.
    (
        "malloc",
        "void *malloc(unsigned long); void *{W}(unsigned long n) { char ok; {IN}lib_alloc(&ok, 1); void *p = malloc(n); __CPROVER_assume((p != 0) == (ok != 0)); if (p) {IN}lib_malloc(p, n); return p; }",
    ),
    (
        "calloc",
        "void *calloc(unsigned long, unsigned long); void *{W}(unsigned long n, unsigned long m) { char ok; {IN}lib_alloc(&ok, 1); void *p = calloc(n, m); __CPROVER_assume((p != 0) == (ok != 0)); return p; }",
    ),
    (
        "realloc",
        "void *realloc(void *, unsigned long); void *{W}(void *q, unsigned long n) { char ok; {IN}lib_alloc(&ok, 1); void *p = realloc(q, n); __CPROVER_assume((p != 0) == (ok != 0)); return p; }",
    ),
    (
        "strdup",
        "char *strdup(const char *); char *{W}(const char *s) { char ok; {IN}lib_alloc(&ok, 1); char *p = strdup(s); __CPROVER_assume((p != 0) == (ok != 0)); return p; }",
    ),
    // The number a text holds is an input (`crate::cbmc::library` models the rest of
    // `strtod`: the end pointer, `errno`); one stream per type, which `atof` shares.
    (
        "strtod",
        "double __mergelens_strtod_result(const char *, char **, double); double {W}(const char *s, char **end) { double v; {IN}lib_strtod(&v, sizeof v); return __mergelens_strtod_result(s, end, v); }",
    ),
    (
        "atof",
        "double __mergelens_strtod_result(const char *, char **, double); double {W}(const char *s) { double v; {IN}lib_strtod(&v, sizeof v); return __mergelens_strtod_result(s, 0, v); }",
    ),
    (
        "strtof",
        "float __mergelens_strtof_result(const char *, char **, float); float {W}(const char *s, char **end) { float v; {IN}lib_strtof(&v, sizeof v); return __mergelens_strtof_result(s, end, v); }",
    ),
    (
        "strtold",
        "long double __mergelens_strtold_result(const char *, char **, long double); long double {W}(const char *s, char **end) { long double v; {IN}lib_strtold(&v, sizeof v); return __mergelens_strtold_result(s, end, v); }",
    ),
    (
        "getenv",
        "void *malloc(unsigned long); char *{W}(const char *name) { int set; {IN}lib_getenv(&set, sizeof set); if (!set) return 0; char *v = malloc({SZ}); __CPROVER_assume(v != 0); {IN}lib_getenv_bytes(v, {SZ}); v[{SZ} - 1] = 0; return v; }",
    ),
];

/// Version `tag`'s wrapper of library function `name`, adding the keys it reads to `keys`.
fn library_wrapper(name: &str, wrapper: &str, tag: char, keys: &mut BTreeSet<String>) -> String {
    let prefix = input_reader(tag, "");
    let text = wrapper
        .replace("{W}", &format!("__ml_{tag}_{name}"))
        .replace("{IN}", &prefix)
        .replace("{SZ}", &INPUT_BYTES.to_string());
    for ident in identifiers(&text) {
        if let Some(key) = ident.strip_prefix(&prefix) {
            keys.insert(key.to_string());
        }
    }
    let mut out = String::from("\n");
    for ident in identifiers(&text) {
        if ident.starts_with(&prefix) && !out.contains(&format!(" {ident}(")) {
            let _ = writeln!(out, "void {ident}(void *, unsigned long);");
        }
    }
    out.push_str(&text);
    out.push('\n');
    out
}

/// A version rewritten for the product.
#[derive(Clone, Debug)]
pub struct ProductVersion {
    pub tag: char,
    /// The rewritten translation units.
    pub files: Vec<PathBuf>,
    /// The entry's parameters, each read from the shared arguments.
    pub arguments: usize,
    /// The nondeterministic functions that read the tape.
    pub nondet: Vec<String>,
    /// The keys of the input streams the version reads (see [`input_reader`]).
    pub inputs: Vec<String>,
    /// The renamed functions that may call themselves (bounded like the learning's).
    pub recursive: Vec<String>,
    /// Whether some execution can call `exit`/`abort` (the product cannot follow it).
    pub exits: bool,
    /// The functions the rewriting made read an input (`nondet_*`, the C library's
    /// wrappers, body-less functions given a body), by their names in the product: a read
    /// is placed where the program calls them.
    pub readers: Vec<String>,
    /// The version's letters by index, as its event hook receives them.
    pub letters: Vec<String>,
    /// The call sites its site hook names, by number less one.
    pub call_sites: Vec<CallSite>,
    /// The letters that are function entries (a return closes them); the others (branch
    /// and call events, markers) are leaves of the call tree.
    pub entries: Vec<String>,
    /// The functions no execution of the entry can run, by their names in the product:
    /// their bodies are left out.
    pub unreached: Vec<String>,
    /// Whether the entry returns an integer, which the call wrapper (or the generated
    /// harness) hands to the result hook ([`ProductNames::result`]).
    pub returns: bool,
    /// The integer globals of the entry's unit (by their names in the program), whose
    /// values the call wrapper hands to the global hook ([`ProductNames::global`]) after
    /// the entry returns.
    pub globals: Vec<String>,
}

/// Why a version cannot take part in a product program.
#[derive(Debug, thiserror::Error)]
pub enum ProductError {
    #[error(
        "the entry function `{entry}` takes `{parameter}`: the per-execution check shares scalar arguments only"
    )]
    Parameter { entry: String, parameter: String },
    #[error(transparent)]
    FrontEnd(#[from] FrontEndError),
}

impl crate::failure::HasKind for ProductError {
    fn kind(&self) -> crate::failure::FailureKind {
        match self {
            ProductError::FrontEnd(e) => e.kind(),
            ProductError::Parameter { .. } => crate::failure::FailureKind::BadInput,
        }
    }
}

/// How the product calls the version's entry: its parameter declarations and argument
/// names, and the function called. Scalar arguments are shared as arguments; any other
/// entry with parameters runs through its generated harness, which makes its arguments
/// from shared inputs (none: an error naming the parameter).
fn entry_call(
    program: &InstrumentedProgram,
) -> Result<(Vec<String>, Vec<String>, &str), ProductError> {
    let entry = program
        .functions
        .iter()
        .find(|f| f.name == program.entry && f.origin != FunctionOrigin::SystemHeader);
    let parameters: Vec<String> = entry
        .map(|f| {
            f.parameters
                .iter()
                .filter(|p| p.trim() != "void")
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let argument_names: Vec<String> = parameters
        .iter()
        .filter_map(|p| scalar_parameter(p))
        .collect();
    // An entry without parameters whose generated harness gives the globals it reads
    // their values (entry_harness) runs that harness, as learning did.
    if argument_names.len() == parameters.len()
        && (!parameters.is_empty() || program.cbmc_entry == program.entry)
    {
        return Ok((parameters, argument_names, &program.entry));
    }
    if program.cbmc_entry == program.entry {
        let parameter = parameters
            .iter()
            .find(|p| scalar_parameter(p).is_none())
            .cloned()
            .unwrap_or_default();
        return Err(ProductError::Parameter {
            entry: program.entry.clone(),
            parameter,
        });
    }
    Ok((Vec::new(), Vec::new(), &program.cbmc_entry))
}

/// Rewrites `program` (instrumented with `record_returns`) as version `tag` of a product
/// program, writing its units into `out_dir`.
pub fn product_version(
    program: &InstrumentedProgram,
    tag: char,
    out_dir: &Path,
) -> Result<ProductVersion, ProductError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FrontEndError::Io { path, source }
    };
    let defined: BTreeSet<String> = program
        .functions
        .iter()
        .filter(|f| f.origin != FunctionOrigin::SystemHeader)
        .map(|f| f.name.clone())
        .collect();
    let mut renamed = defined.clone();
    renamed.extend(program.globals.iter().cloned());
    renamed.extend(program.input_functions.iter().cloned());
    let (parameters, argument_names, called) = entry_call(program)?;
    // A generated harness is in the text whether or not the product calls it.
    renamed.insert(program.cbmc_entry.clone());
    let names = product_names(tag);
    let mut nondet: Vec<String> = Vec::new();
    let mut files = Vec::new();
    let mut exits = false;
    let mut inputs = BTreeSet::new();
    let mut wrapped: Vec<&str> = Vec::new();
    let cut = unreached(program, &defined);
    let (mut returns, mut globals) = (false, Vec::new());
    for (i, path) in program.paths.iter().enumerate() {
        let mut text = read_unit(path, cut.as_ref())?;
        if *path == program.path {
            (text, returns, globals) = result::observe(text, program, called, &names.result);
        }
        exits |= text.contains("__mergelens_exit()");
        let mut tail = String::new();
        let mut library = String::new();
        // The first unit that names a nondet function defines its tape reader.
        for ident in identifiers(&text) {
            if let Some(key) = ident.strip_prefix(INPUT_HOOK) {
                inputs.insert(key.to_string());
            }
            if let Some(&(name, wrapper)) = LIBRARY_INPUTS.iter().find(|(n, _)| *n == ident)
                && !defined.contains(ident)
                && !wrapped.contains(&name)
            {
                wrapped.push(name);
                renamed.insert(name.to_string());
                library.push_str(&library_wrapper(name, wrapper, tag, &mut inputs));
            }
            if is_nondet(ident) && !defined.contains(ident) && !nondet.iter().any(|n| n == ident) {
                nondet.push(ident.to_string());
                let _ = writeln!(
                    tail,
                    "__typeof__({ident}()) {ident}(void) {{ __typeof__({ident}()) v = (__typeof__({ident}())){}(); {}((long long)v); return v; }}",
                    names.tape, names.seen
                );
            }
        }
        if *path == program.path {
            let result = (returns && called == program.entry).then_some(names.result.as_str());
            tail.push_str(&result::call_wrapper(
                (&names.call, ARGUMENT_READER),
                (&parameters, &argument_names),
                called,
                (result, &names.global, &globals),
            ));
        }
        let header = names.declarations();
        for n in &nondet {
            renamed.insert(n.clone());
        }
        let full = format!("{header}{text}\n{tail}");
        let mut out = rename(&full, &renamed, tag, &names);
        out.push_str(&library);
        let file = out_dir.join(format!("{tag}{i}.product.i"));
        std::fs::write(&file, preprocess::encode(&out)).map_err(io(&file))?;
        files.push(file);
    }
    let recursive = program
        .recursive_functions()
        .into_iter()
        .map(|f| format!("__ml_{tag}_{f}"))
        .collect();
    let readers = nondet
        .iter()
        .map(String::as_str)
        .chain(wrapped.iter().copied())
        .chain(program.input_functions.iter().map(String::as_str))
        .map(|f| format!("__ml_{tag}_{f}"))
        .collect();
    Ok(ProductVersion {
        tag,
        files,
        arguments: parameters.len(),
        nondet,
        inputs: inputs.into_iter().collect(),
        recursive,
        exits,
        readers,
        letters: program.alphabet.names().map(str::to_string).collect(),
        call_sites: program.call_sites.clone(),
        entries: entry_letters(program),
        unreached: in_product(cut.iter().flatten(), tag),
        returns,
        globals,
    })
}

/// The product names (`__ml_<tag>_NAME`) of version `tag`'s functions `names`.
fn in_product<'n>(names: impl Iterator<Item = &'n String>, tag: char) -> Vec<String> {
    names.map(|f| format!("__ml_{tag}_{f}")).collect()
}

/// The instrumented unit at `path`, the bodies of the functions `cut` names left out.
fn read_unit(path: &Path, cut: Option<&BTreeSet<String>>) -> Result<String, FrontEndError> {
    let bytes = std::fs::read(path).map_err(|source| FrontEndError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = preprocess::decode(&bytes);
    Ok(match cut {
        Some(cut) => tokens::strip_unreached(&text, cut),
        None => text,
    })
}

/// The functions `program` defines that no execution of its entry can run (by the call
/// graph, which counts every function whose address is taken where a call goes through a
/// pointer), or `None` when the graph cannot tell. Their bodies are left out of the
/// product: symbolic execution never enters them, but each is one more target of every
/// call through a pointer of its type, and its reads would be input streams of the harness.
fn unreached(
    program: &InstrumentedProgram,
    defined: &BTreeSet<String>,
) -> Option<BTreeSet<String>> {
    let callable: BTreeSet<String> = program.callable_functions()?.into_iter().collect();
    let cut: BTreeSet<String> = defined
        .iter()
        .filter(|f| !callable.contains(*f) && **f != program.entry && **f != program.cbmc_entry)
        .cloned()
        .collect();
    (!cut.is_empty()).then_some(cut)
}

/// The letters of `program` that are function entries.
fn entry_letters(program: &InstrumentedProgram) -> Vec<String> {
    program
        .events
        .iter()
        .filter(|e| e.kind == super::SiteKind::FunctionEntry)
        .map(|e| program.alphabet.name(e.letter).to_string())
        .collect()
}

/// Takes the site hooks of the call sites `numbers` gives 0 out of `version`'s files: a
/// function called from one place in every version needs no site (the product logs one for
/// it), and every hook CBMC need not execute makes its run cheaper.
pub fn drop_unnumbered_sites(
    version: &ProductVersion,
    numbers: &[u32],
) -> Result<(), FrontEndError> {
    let hook = product_names(version.tag).site;
    let dropped: Vec<String> = numbers
        .iter()
        .enumerate()
        .filter(|&(_, &n)| n == 0)
        .map(|(i, _)| format!("({hook}({}u), ", i + 1))
        .collect();
    if dropped.is_empty() {
        return Ok(());
    }
    for path in &version.files {
        let io = |source| FrontEndError::Io {
            path: path.clone(),
            source,
        };
        let mut text = preprocess::decode(&std::fs::read(path).map_err(io)?);
        for call in &dropped {
            text = text.replace(call.as_str(), "(");
        }
        std::fs::write(path, preprocess::encode(&text)).map_err(io)?;
    }
    Ok(())
}

/// The name a scalar parameter declaration (`int x`, `unsigned long n`) declares, `None` for
/// pointers, arrays, aggregates and unnamed parameters.
fn scalar_parameter(declaration: &str) -> Option<String> {
    if declaration.contains(['*', '[', '(']) || declaration.contains("...") {
        return None;
    }
    let words: Vec<&str> = declaration.split_whitespace().collect();
    if words.len() < 2 || words.iter().any(|w| matches!(*w, "struct" | "union")) {
        return None;
    }
    let name = *words.last()?;
    let type_words = &words[..words.len() - 1];
    let scalar = [
        "int", "char", "short", "long", "unsigned", "signed", "_Bool", "bool", "const", "volatile",
        "register", "size_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
        "uint32_t", "uint64_t",
    ];
    type_words
        .iter()
        .all(|w| scalar.contains(w))
        .then(|| name.to_string())
}

/// Whether calls of `name` (not defined by the program) read the input: SV-COMP's and
/// CBMC's `nondet_*` functions, and the C library's sources of values that CBMC models as
/// arbitrary, which must also be the same values in every version.
fn is_nondet(name: &str) -> bool {
    if matches!(name, "rand" | "random") {
        return true;
    }
    let rest = name.strip_prefix("__VERIFIER_").unwrap_or(name);
    rest.strip_prefix("nondet_")
        .is_some_and(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The identifier tokens of preprocessed C text, outside string and character literals and
/// directive lines.
fn identifiers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    scan(text, |piece, ident| {
        if ident {
            out.push(piece);
        }
    });
    out
}

/// `text` with every identifier of `renamed` prefixed `__ml_<tag>_` and the hooks renamed
/// to the version's.
fn rename(text: &str, renamed: &BTreeSet<String>, tag: char, names: &ProductNames) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    scan(text, |piece, ident| {
        if !ident {
            out.push_str(piece);
            return;
        }
        match piece {
            "__mergelens_event" => out.push_str(&names.event),
            "__mergelens_end" => out.push_str(&names.end),
            "__mergelens_exit" => out.push_str(&names.exit),
            "__mergelens_return" => out.push_str(&names.ret),
            "__mergelens_site" => out.push_str(&names.site),
            p if p.starts_with(INPUT_HOOK) => {
                out.push_str(&input_reader(tag, &p[INPUT_HOOK.len()..]));
            }
            p if renamed.contains(p) => {
                let _ = write!(out, "__ml_{tag}_{p}");
            }
            p => out.push_str(p),
        }
    });
    out
}

/// The tags of the product's versions (O, A, B, M and the self-check's copies): an
/// identifier of another version's in a version's text is no renaming of the product's.
const TAGS: [char; 6] = ['o', 'a', 'b', 'm', 'p', 'n'];

/// The prefixes the product renames with a version's tag (see [`product_names`]).
const TAGGED: [&str; 10] = [
    "__ml_",
    "__mlev_",
    "__mlend_",
    "__mlexit_",
    "__mlret_",
    "__mlsite_",
    "__mltape_",
    "__mlseen_",
    "__mlcall_",
    "__mlin_",
];

/// The fingerprint of what `version` (its files as the product compiles them, site hooks
/// `numbers` gives 0 already dropped) logs: its tokens without directives and spacing,
/// its tag made neutral, each letter number the event hook receives as the letter's name
/// and each call-site number as the callee and the number the product logs for it. `None`
/// when the text names another version's renamed identifiers, which the neutral tag would
/// hide.
pub fn behaviour_fingerprint(
    version: &ProductVersion,
    numbers: &[u32],
) -> Result<Option<String>, FrontEndError> {
    let names = product_names(version.tag);
    let mut h = Fingerprint::new();
    for path in &version.files {
        let bytes = std::fs::read(path).map_err(|source| FrontEndError::Io {
            path: path.clone(),
            source,
        })?;
        let text = preprocess::decode(&bytes);
        let mut foreign = false;
        // Each piece as its normalised field, beside the piece itself.
        let mut pieces: Vec<(String, &str, bool)> = Vec::new();
        // The hook whose constant argument comes next.
        let mut hook: Option<bool> = None;
        scan(&text, |piece, ident| {
            let trimmed = piece.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                return;
            }
            if ident {
                hook = (piece == names.event)
                    .then_some(true)
                    .or((piece == names.site).then_some(false));
                let field = neutral(piece, version.tag).unwrap_or_else(|| {
                    foreign |= is_tagged(piece);
                    piece.to_string()
                });
                pieces.push((field, piece, true));
                return;
            }
            let field = match (hook, piece.trim_end_matches('u').parse::<usize>()) {
                (Some(true), Ok(k)) => {
                    let letter = version.letters.get(k).map_or("?", String::as_str);
                    format!("letter {letter}")
                }
                (Some(false), Ok(k)) => {
                    let callee = k
                        .checked_sub(1)
                        .and_then(|i| version.call_sites.get(i))
                        .map_or("?", |s| s.callee.as_str());
                    let number = k.checked_sub(1).and_then(|i| numbers.get(i)).copied();
                    format!("site {callee} {}", number.unwrap_or(0))
                }
                _ => piece.to_string(),
            };
            pieces.push((field, piece, false));
            if piece != "(" {
                hook = None;
            }
        });
        hash_items(&mut h, &pieces, &version.unreached);
        if foreign {
            return Ok(None);
        }
        h.field("\n--file--\n");
    }
    Ok(Some(h.hex()))
}

/// Hashes the normalised `pieces` of a unit top-level item by top-level item, leaving out
/// the plain declarations (one declarator, no initialiser) of the `unreached` functions:
/// no execution calls them, so a branch that changed only their signatures changed nothing
/// the check sees.
fn hash_items(h: &mut Fingerprint, pieces: &[(String, &str, bool)], unreached: &[String]) {
    let mut item: Vec<&str> = Vec::new();
    let (mut braces, mut parens) = (0usize, 0usize);
    let mut name: Option<&str> = None;
    let mut plain = true;
    let mut previous: Option<&str> = None;
    for (field, piece, ident) in pieces {
        match *piece {
            "{" => {
                braces += 1;
                plain = false;
            }
            "}" => braces = braces.saturating_sub(1),
            "(" => {
                if braces == 0 && parens == 0 && name.is_none() {
                    name = previous;
                }
                parens += 1;
            }
            ")" => parens = parens.saturating_sub(1),
            "=" | "," if braces == 0 && parens == 0 => plain = false,
            _ => {}
        }
        previous = ident.then_some(*piece);
        item.push(field);
        if braces == 0 && parens == 0 && matches!(*piece, ";" | "}") {
            let skip =
                plain && *piece == ";" && name.is_some_and(|n| unreached.iter().any(|u| u == n));
            if !skip {
                item.iter().for_each(|f| h.field(f));
            }
            item.clear();
            name = None;
            plain = true;
        }
    }
    item.iter().for_each(|f| h.field(f));
}

/// `ident` with `tag` after one of the [`TAGGED`] prefixes made neutral, `None` when it is
/// no identifier the product renamed for this version.
fn neutral(ident: &str, tag: char) -> Option<String> {
    TAGGED.iter().find_map(|prefix| {
        let rest = ident.strip_prefix(prefix)?;
        let after = rest.strip_prefix(tag)?;
        (after.is_empty() || after.starts_with('_')).then(|| format!("{prefix}*{after}"))
    })
}

/// Whether `ident` looks like a renamed identifier of some version.
fn is_tagged(ident: &str) -> bool {
    TAGS.iter().any(|&t| neutral(ident, t).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_identifiers_but_not_literals_or_directives() {
        let renamed: BTreeSet<String> = ["f", "g"].iter().map(|s| s.to_string()).collect();
        let text = "# 1 \"f.c\"\nint g; void f(void) { __mergelens_event(2); g = 'f'; puts(\"f g\"); f(); }\n";
        let out = rename(text, &renamed, 'a', &product_names('a'));
        assert_eq!(
            out,
            "# 1 \"f.c\"\nint __ml_a_g; void __ml_a_f(void) { __mlev_a(2); __ml_a_g = 'f'; puts(\"f g\"); __ml_a_f(); }\n"
        );
    }

    #[test]
    fn input_labels_name_the_source() {
        assert_eq!(input_label("ret_sensor"), "sensor()");
        let key = crate::cprog::frontend::local_key("parse_all", "buf_2");
        assert_eq!(input_label(&key), "buf_2 in parse_all");
        assert_eq!(input_label("lib_fgets_bytes"), "fgets (bytes)");
        assert_eq!(input_label("lib_chars"), "getchar/getc/fgetc");
        let key = crate::cprog::frontend::local_key("__mergelens_call_parse", "__ml_b0");
        assert_eq!(input_label(&key), "the buffer of argument 1 of parse");
        let key = crate::cprog::frontend::local_key("__mergelens_call_main", "__ml_argv1");
        assert_eq!(input_label(&key), "argv[1]");
    }

    #[test]
    fn numbers_with_suffixes_are_not_identifiers() {
        assert_eq!(identifiers("x = 10ul + 0x1fULL + y1;"), vec!["x", "y1"]);
    }

    #[test]
    fn nondet_names_and_scalar_parameters() {
        assert!(is_nondet("nondet_int") && is_nondet("__VERIFIER_nondet_uchar"));
        assert!(!is_nondet("nondet_") && !is_nondet("my_nondet_int"));
        assert!(is_nondet("rand") && !is_nondet("srand"));
        assert_eq!(scalar_parameter("unsigned int n").as_deref(), Some("n"));
        assert_eq!(scalar_parameter("char *s"), None);
        assert_eq!(scalar_parameter("struct s v"), None);
        assert_eq!(scalar_parameter("int"), None);
    }

    #[test]
    fn unnumbered_site_hooks_are_taken_out_and_numbered_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a0.product.i");
        let text = "x = (__mlsite_a(1u), f(1)); y = (__mlsite_a(2u), f((__mlsite_a(1u), g())));\n";
        std::fs::write(&file, text).unwrap();
        let version = ProductVersion {
            tag: 'a',
            files: vec![file.clone()],
            arguments: 0,
            nondet: Vec::new(),
            inputs: Vec::new(),
            recursive: Vec::new(),
            exits: false,
            readers: Vec::new(),
            letters: Vec::new(),
            call_sites: Vec::new(),
            entries: Vec::new(),
            unreached: Vec::new(),
            returns: false,
            globals: Vec::new(),
        };
        drop_unnumbered_sites(&version, &[0, 7]).unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "x = (f(1)); y = (__mlsite_a(2u), f((g())));\n"
        );
    }
    fn version(tag: char, files: Vec<std::path::PathBuf>, letters: &[&str]) -> ProductVersion {
        ProductVersion {
            tag,
            files,
            arguments: 0,
            nondet: Vec::new(),
            inputs: Vec::new(),
            recursive: Vec::new(),
            exits: false,
            readers: Vec::new(),
            letters: letters.iter().map(|s| s.to_string()).collect(),
            call_sites: vec![crate::cprog::CallSite {
                file: "a.c".into(),
                line: 3,
                callee: "g".to_string(),
            }],
            entries: Vec::new(),
            unreached: vec!["__ml_o_h".to_string(), "__ml_a_h".to_string()],
            returns: false,
            globals: Vec::new(),
        }
    }

    #[test]
    fn fingerprints_see_letters_and_sites_not_tags_or_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            vec![p]
        };
        let o = version(
            'o',
            write(
                "o",
                "# 1 \"/x/a.c\"\nvoid __ml_o_f(void) { __mlev_o(0); (__mlsite_o(1u), __ml_o_g()); }\n",
            ),
            &["f", "g"],
        );
        // Letters numbered the other way round, another path, another spacing.
        let a = version(
            'a',
            write(
                "a",
                "# 1 \"/y/a.c\"\nint __ml_a_h(char *p);\nvoid __ml_a_f(void){ __mlev_a(1);  (__mlsite_a(1u), __ml_a_g()); }\n",
            ),
            &["g", "f"],
        );
        let b = version(
            'b',
            write(
                "b",
                "void __ml_b_f(void) { __mlev_b(1); (__mlsite_b(1u), __ml_b_g()); }\n",
            ),
            &["f", "g"],
        );
        let m = version(
            'm',
            write(
                "m",
                "void __ml_m_f(void) { __mlev_m(0); (__mlsite_m(1u), __ml_o_g()); }\n",
            ),
            &["f", "g"],
        );
        let fp = |v: &ProductVersion, n: &[u32]| behaviour_fingerprint(v, n).unwrap();
        assert_eq!(fp(&o, &[2]), fp(&a, &[2]));
        assert!(fp(&o, &[2]).is_some());
        assert_ne!(fp(&o, &[2]), fp(&a, &[3]));
        assert_ne!(fp(&o, &[2]), fp(&b, &[2]));
        assert_eq!(fp(&m, &[2]), None);
    }
}
