//! The pipeline behind [`super::instrument`]: preprocess, parse, find functions and event
//! sites, choose the alphabet, write the instrumented copies, build the control-flow model.
//!
//! This module is the driver: [`run`] goes through the steps in order, checks the syntax,
//! chooses the alphabet (`only`/`exclude`, the reserved end letter) and fingerprints what is
//! learned, so that the order of the steps reads in one place. The steps themselves live
//! beside it: `index` finds every function definition and what each unit declares, `sites`
//! walks the bodies for event sites and turns them into edits, and `assertions` is error
//! mode's part (the assertion calls and the target among them).

mod assertions;
mod assigned;
mod entry_harness;
pub use entry_harness::{
    BUFFER as HARNESS_BUFFER, DEPTH as HARNESS_DEPTH, HarnessError, HarnessSkeleton,
};
mod hunks;
mod inputs;
mod prune;
mod slice;
pub(crate) use inputs::INPUT_HOOK;
#[cfg(test)]
pub(crate) use inputs::local_key;
use slice::{config_fingerprint, units_fingerprint};
pub(super) mod index;
pub(super) mod sites;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::cfg::SiteKey;
use super::cfg::{self, ProgramModel};
use super::dialect;
use super::edit;
use super::error::FrontEndError;
use super::preprocess::{self, FileOrigin};
use super::program::{
    ASSERT_LETTER, AssertionTarget, END_LETTER, Event, FrontEndConfig, FunctionInfo,
    FunctionOrigin, InstrumentedProgram,
};
use super::syntax::{self, children};
use super::system_headers::Places;
use super::warning::{FrontEndWarning, WarningKind};
use crate::automaton::{Alphabet, Letter};
use crate::fingerprint::Fingerprint;
use assertions::choose_target;
use index::{Unit, address_taken, build_index, find_entry};
use sites::{Findings, SiteWalker, return_typedef, site_edits};

/// The header of every instrumented file: the hooks of the query harnesses (Chockler et al.,
/// JAIR 2020, Fig. 7, 9, 11), which another part of mergelens defines.
pub(crate) const HOOKS: &str = "void __mergelens_event(unsigned int letter); void __mergelens_end(void); void __mergelens_exit(void);\n";

/// The extra hook of [`FrontEndConfig::record_returns`], declared only then, so that the
/// instrumentation the learning caches are keyed on does not change.
pub(crate) const RETURN_HOOK: &str =
    "void __mergelens_return(void); void __mergelens_site(unsigned int site);\n";

pub(crate) const HEADER: &str = include_str!("../../../include/mergelens.h");

pub(crate) fn run(
    config: &FrontEndConfig,
    target: Option<&AssertionTarget>,
    out_dir: &Path,
) -> Result<InstrumentedProgram, FrontEndError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FrontEndError::Io { path, source }
    };
    let (header_dir, flags, analysed) = prepare(config, out_dir)?;
    let (units, computed_gotos) = read_units(config, &flags, &analysed, &header_dir)?;
    let index = build_index(&units);
    let entry = find_entry(&index, &config.entry)?;
    let mut findings = find_sites(config, &units, &index, entry, target, computed_gotos)?;
    let stopped = stopped_in(&units[index.defs[entry].unit]);
    let taken = taken_functions(&units, &index, entry, &mut findings).map_err(&stopped)?;

    let assertions = match target {
        Some(target) => choose_target(target, &mut findings)?,
        None => Vec::new(),
    };
    let end_name = if target.is_some() {
        ASSERT_LETTER
    } else {
        END_LETTER
    };
    let Chosen {
        alphabet,
        letters,
        events,
    } = choose_alphabet(config, end_name, &mut findings)?;
    let end = alphabet
        .letter(end_name)
        .expect("the end letter is always interned");

    // An entry with parameters gets a harness calling it on nondeterministic arguments.
    let entry_def = &index.defs[entry];
    let harness = entry_harness::generate(entry_def, &units, &index, config.share_inputs)?;
    let mut shared = config
        .share_inputs
        .then(|| inputs::input_edits(&units, &index));
    let mut marks = if config.mark_hunks.is_empty() {
        hunks::HunkMarks::none(units.len())
    } else {
        hunks::hunk_edits(&units, &index, &config.mark_hunks)
    };
    let model =
        program_model(&units, &index, &letters, &findings, entry, &taken).map_err(&stopped)?;
    let reach = unreachable_items(
        (&units, &index, &model),
        harness.as_ref().map(|h| h.text.as_str()),
        shared.as_ref(),
    );
    // Error mode compiles everything: every assertion stays a property.
    let no_cut = vec![Vec::new(); units.len()];
    let cut = reach
        .as_ref()
        .filter(|_| target.is_none())
        .unwrap_or(&no_cut);
    let mut paths = Vec::new();
    let mut used_names = HashSet::new();
    for (u, unit) in units.iter().enumerate() {
        let mut edits = std::mem::take(&mut findings.edits[u]);
        site_edits(&findings.sites, u, &letters, &mut edits);
        let hits = std::mem::take(&mut marks.edits[u]);
        let mut instrumented =
            instrumented_text(config, (u, unit), (edits, hits), shared.as_mut(), &cut[u]);
        if let Some(h) = harness.as_ref().filter(|_| u == entry_def.unit) {
            instrumented.push_str(&h.text);
        }
        let path = out_dir.join(output_name(&unit.input, u, &mut used_names));
        std::fs::write(&path, preprocess::encode(&instrumented)).map_err(io(&path))?;
        paths.push(path);
    }

    let slice_fingerprint = reach
        .as_deref()
        .map(|cut| slice::fingerprint(config, &units, cut, harness.as_ref().map(|h| &*h.text)));
    let functions = function_infos(&index);
    let globals = file_scope_variables(&units);
    let fingerprint = instance_fingerprint(
        fingerprint(config, &units, &alphabet),
        harness.as_ref().map(|h| h.text.as_str()),
        config,
        target.map(|t| (t, assertions.as_slice())),
    );
    Ok(InstrumentedProgram {
        path: paths[index.defs[entry].unit].clone(),
        paths,
        alphabet,
        end,
        entry: config.entry.clone(),
        cbmc_entry: harness.map_or_else(|| config.entry.clone(), |h| h.function),
        events,
        functions,
        warnings: findings.warnings,
        assertions,
        globals,
        input_functions: shared.map(|s| s.functions).unwrap_or_default(),
        hunk_code: marks.code,
        hunk_calls: marks.calls,
        call_sites: findings.call_sites,
        fingerprint,
        slice_fingerprint,
        model,
        error_mode: target.is_some(),
    })
}

/// The harness of `config.entry` as a file of its own would hold it (`init --harness-for`):
/// the same generator as the review's, with readable names.
pub(crate) fn harness_skeleton(
    config: &FrontEndConfig,
    out_dir: &Path,
) -> Result<entry_harness::HarnessSkeleton, FrontEndError> {
    let (header_dir, flags, analysed) = prepare(config, out_dir)?;
    let (units, _) = read_units(config, &flags, &analysed, &header_dir)?;
    let index = build_index(&units);
    let entry = find_entry(&index, &config.entry)?;
    Ok(entry_harness::skeleton(&index.defs[entry], &units, &index)?)
}

/// Writes `mergelens.h` where the instrumented files include it from; the compiler flags
/// and the analysed files' real paths.
fn prepare(
    config: &FrontEndConfig,
    out_dir: &Path,
) -> Result<(PathBuf, Vec<OsString>, Vec<PathBuf>), FrontEndError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FrontEndError::Io { path, source }
    };
    if config.files.is_empty() {
        return Err(FrontEndError::MissingEntry {
            entry: config.entry.clone(),
            defined: Vec::new(),
        });
    }
    let header_dir = out_dir.join("include");
    std::fs::create_dir_all(&header_dir).map_err(io(&header_dir))?;
    let header = header_dir.join("mergelens.h");
    std::fs::write(&header, HEADER).map_err(io(&header))?;
    let flags = preprocess::compiler_flags(&config.include_dirs, &config.defines, &header_dir);
    let analysed: Vec<PathBuf> = config
        .files
        .iter()
        .map(|f| f.canonicalize().map_err(io(f)))
        .collect::<Result<_, _>>()?;
    Ok((header_dir, flags, analysed))
}

/// A stop request met in a walk over the whole program, as an error naming `unit`'s file
/// (the entry's).
fn stopped_in(unit: &Unit) -> impl Fn(crate::stop::Stopped) -> FrontEndError + '_ {
    |crate::stop::Stopped(reason)| FrontEndError::Stopped {
        file: unit.input.clone(),
        reason,
    }
}

/// Preprocesses and parses every input file, the harness files last (their `main` is no
/// program's); also the files with a computed goto, which the parser cannot see.
fn read_units(
    config: &FrontEndConfig,
    flags: &[OsString],
    analysed: &[PathBuf],
    header_dir: &Path,
) -> Result<(Vec<Unit>, Vec<String>), FrontEndError> {
    let mut units = Vec::new();
    let mut computed_gotos = Vec::new();
    let inputs =
        (config.files.iter().map(|f| (f, false))).chain(config.harness.iter().map(|f| (f, true)));
    let places = Places::new(header_dir, config.confine_to.as_deref())?;
    for (file, harness) in inputs {
        let mut pre = preprocess::preprocess(file, flags, analysed, &places)?;
        preprocess::check_confined(&pre, file, &places)?;
        if harness {
            pre.demote_main_file();
        }
        let tree = parse(&mut pre)?;
        if dialect::computed_goto(&pre.text) {
            computed_gotos.push(file.display().to_string());
        }
        let unit = Unit {
            input: file.clone(),
            pre,
            tree,
        };
        check_syntax(&unit, flags, &places)?;
        check_reserved(&unit)?;
        units.push(unit);
    }
    Ok((units, computed_gotos))
}

/// Walks every function outside the system headers for its event sites, assertions and
/// what the model cannot follow.
fn find_sites(
    config: &FrontEndConfig,
    units: &[Unit],
    index: &index::Index,
    entry: usize,
    target: Option<&AssertionTarget>,
    computed_gotos: Vec<String>,
) -> Result<Findings, FrontEndError> {
    let mut findings = Findings {
        edits: vec![Vec::new(); units.len()],
        ..Findings::default()
    };
    for file in computed_gotos {
        // The parser reads `goto *p;` as `*p;` (see `dialect`): the model misses the jump.
        findings.jumps = true;
        findings.warnings.push(FrontEndWarning::new(
            WarningKind::ComputedGoto,
            format!(
                "{file}: a computed goto (`goto *`): the pre-check cannot follow it and accepts any word ending in `end`"
            ),
        ));
    }
    for (name, line) in units.iter().flat_map(|u| &u.pre.self_declared_system) {
        findings.warnings.push(FrontEndWarning::new(
            WarningKind::SelfDeclaredSystemHeader,
            format!(
                "{name}:{line}: declares itself a system header (`#pragma GCC system_header`); ignored: only files in the compiler's system include directories are system headers"
            ),
        ));
    }
    for (d, def) in index.defs.iter().enumerate() {
        if def.origin == FileOrigin::System {
            continue;
        }
        let unit = &units[def.unit];
        let mut walker = SiteWalker {
            unit_index: def.unit,
            unit,
            index,
            config,
            function: &def.name,
            analysed: def.origin.has_events(),
            is_entry: d == entry,
            entry,
            returns_void: return_typedef(def, unit.src()).is_none(),
            error_mode: target.is_some(),
            findings: &mut findings,
            error: None,
        };
        walker.function(def)?;
    }
    Ok(findings)
}

/// One unit's instrumented text: the hook declarations, the unit with its edits applied
/// (sites, then shared inputs, then hunk hits: edits at one place apply in that order), and
/// the shared inputs' definitions after it.
fn instrumented_text(
    config: &FrontEndConfig,
    (u, unit): (usize, &Unit),
    (mut edits, mut hits): (Vec<edit::Edit>, Vec<edit::Edit>),
    mut shared: Option<&mut inputs::InputEdits>,
    cut: &[(usize, usize)],
) -> String {
    // What the entry can never reach goes, and the edits inside it with it.
    if !cut.is_empty() {
        edits.retain(|e| !prune::inside(e, cut));
        hits.retain(|e| !prune::inside(e, cut));
        if let Some(shared) = shared.as_mut() {
            shared.edits[u].retain(|e| !prune::inside(e, cut));
        }
        edits.extend(prune::blank_edits(&unit.pre.text, cut));
    }
    let mut hooks = if config.record_returns {
        format!("{HOOKS}{RETURN_HOOK}")
    } else {
        HOOKS.to_string()
    };
    let mut tail = "";
    if let Some(shared) = &shared {
        hooks.push_str(&shared.declarations(u));
    }
    if let Some(shared) = shared {
        edits.append(&mut shared.edits[u]);
        tail = &shared.tails[u];
    }
    if !config.mark_hunks.is_empty() {
        hooks.push_str(hunks::HIT_HOOK);
    }
    edits.append(&mut hits);
    format!("{hooks}{}{tail}", edit::apply(&unit.pre.text, edits))
}

/// The functions whose address is taken, with a warning when the entry is one of them.
fn taken_functions(
    units: &[Unit],
    index: &index::Index,
    entry: usize,
    findings: &mut Findings,
) -> Result<Vec<usize>, crate::stop::Stopped> {
    let taken = address_taken(units, index)?;
    if taken.contains(&entry) {
        findings.warnings.push(FrontEndWarning::new(
            WarningKind::EntryReused,
            format!(
                "the entry function `{}` is used as a value: the pre-check accepts any word ending in `end`",
                index.defs[entry].name
            ),
        ));
    }
    Ok(taken)
}

/// Per unit, the file-scope definitions no execution of the entry reaches
/// ([`prune::unreachable_items`]); `None` where the call graph cannot tell what the entry
/// calls.
fn unreachable_items(
    (units, index, model): (&[Unit], &index::Index, &ProgramModel),
    harness: Option<&str>,
    shared: Option<&inputs::InputEdits>,
) -> Option<Vec<Vec<(usize, usize)>>> {
    let callable: HashSet<usize> = super::precheck::callable_functions(model)?
        .into_iter()
        .collect();
    let mut extra: Vec<&str> = harness.into_iter().collect();
    if let Some(shared) = shared {
        extra.extend(shared.tails.iter().map(String::as_str));
    }
    Some(prune::unreachable_items(units, index, &callable, &extra))
}

/// The control-flow model of the pre-check; in error mode it knows where each assertion
/// call is and what the instrumentation made of it.
fn program_model(
    units: &[Unit],
    index: &index::Index,
    letters: &HashMap<cfg::SiteKey, Letter>,
    findings: &Findings,
    entry: usize,
    taken: &[usize],
) -> Result<ProgramModel, crate::stop::Stopped> {
    let assertion_calls: HashMap<(usize, usize), cfg::AssertionCall> = findings
        .assertions
        .iter()
        .map(|a| {
            let call = cfg::AssertionCall {
                target: a.site.target,
                condition: a.condition.is_some(),
            };
            ((a.unit, a.node), call)
        })
        .collect();
    cfg::build(
        units,
        index,
        letters,
        &assertion_calls,
        entry,
        taken,
        findings.jumps,
    )
}

/// Every function definition, for the program's users.
/// Every function `config.files` define (their headers' and the system's too), read as
/// [`run`] reads them but without an entry: what a review's changed functions are found in.
pub(crate) fn functions(
    config: &FrontEndConfig,
    out_dir: &Path,
) -> Result<(Vec<FunctionInfo>, String), FrontEndError> {
    let (header_dir, flags, analysed) = prepare(config, out_dir)?;
    let (units, _) = read_units(config, &flags, &analysed, &header_dir)?;
    let mut h = Fingerprint::new();
    units_fingerprint(&mut h, config, &units);
    Ok((function_infos(&build_index(&units)), h.hex()))
}

fn function_infos(index: &index::Index) -> Vec<FunctionInfo> {
    index
        .defs
        .iter()
        .map(|d| FunctionInfo {
            name: d.name.clone(),
            file: PathBuf::from(&d.file),
            line: d.line,
            end_line: d.end_line,
            parameters: d.parameters.clone(),
            origin: match d.origin {
                FileOrigin::Analysed => FunctionOrigin::Analysed,
                FileOrigin::Header | FileOrigin::Harness => FunctionOrigin::Header,
                FileOrigin::System => FunctionOrigin::SystemHeader,
            },
        })
        .collect()
}

/// The sources' fingerprint, extended by what else makes this instrumentation another
/// language: a generated entry harness, the product's options, an error-mode target.
fn instance_fingerprint(
    sources: String,
    harness: Option<&str>,
    config: &FrontEndConfig,
    target: Option<(&AssertionTarget, &[crate::cprog::program::AssertionSite])>,
) -> String {
    let mut fingerprint = sources;
    if let Some(text) = harness {
        let mut f = Fingerprint::new();
        f.field(&fingerprint);
        f.field("entry-harness");
        f.tokens(text);
        fingerprint = f.hex();
    }
    if config.record_returns || config.share_inputs {
        let mut h = Fingerprint::new();
        h.field(&fingerprint);
        h.field(&format!(
            "record-returns={} share-inputs={}",
            config.record_returns, config.share_inputs
        ));
        fingerprint = h.hex();
    }
    if let Some((target, assertions)) = target {
        // Another target is another language.
        let mut h = Fingerprint::new();
        h.field(&fingerprint);
        h.field("error-mode");
        for a in assertions.iter().filter(|a| a.target) {
            h.field(&format!("{}:{}:{}", a.function, a.line, a.text));
        }
        h.field(&format!("{:?}", target.index));
        fingerprint = h.hex();
    }
    fingerprint
}

/// Parses a preprocessed unit, first adapting its parse text to what tree-sitter-c reads.
fn parse(pre: &mut preprocess::Preprocessed) -> Result<tree_sitter::Tree, FrontEndError> {
    // gcc takes pre-C99 definitions; tree-sitter-c needs them in prototype form.
    dialect::rewrite(pre);
    let tree = shallow(syntax::parse(&pre.parse_text), pre)?;
    if !tree.root_node().has_error() {
        return Ok(tree);
    }
    // GNU syntax tree-sitter-c cannot read, blanked for the parser only.
    let blanked = dialect::blank_for_parser(&pre.parse_text);
    if blanked == pre.parse_text {
        return Ok(tree);
    }
    let retry = shallow(syntax::parse(&blanked), pre)?;
    if error_count(retry.root_node()) < error_count(tree.root_node()) {
        pre.parse_text = blanked;
        return Ok(retry);
    }
    Ok(tree)
}

/// `tree`, unless it nests deeper than [`crate::cprog::syntax::MAX_NESTING`]: then the error that
/// names where, before any recursive walk could overflow the thread's stack.
fn shallow(
    tree: tree_sitter::Tree,
    pre: &preprocess::Preprocessed,
) -> Result<tree_sitter::Tree, FrontEndError> {
    let (node, depth) = syntax::deepest(&tree);
    if depth <= syntax::MAX_NESTING {
        return Ok(tree);
    }
    let (file, line, _) = pre.origin(node.start_position().row);
    Err(FrontEndError::TooDeep {
        file: pre
            .files
            .get(file)
            .map(|f| f.name.clone())
            .unwrap_or_default()
            .into(),
        line,
        limit: syntax::MAX_NESTING,
    })
}

/// The names of the file-scope variables declared outside the system headers, in order of
/// first declaration.
fn file_scope_variables(units: &[Unit]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for unit in units {
        let src = unit.src();
        for top in syntax::named_children(unit.tree.root_node()) {
            if top.kind() != "declaration" || unit.locate_item(top).2 == FileOrigin::System {
                continue;
            }
            for name in syntax::declared_variables(top, src) {
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_string());
                }
            }
        }
    }
    names
}

/// Refuses a unit whose own code (outside the system headers gcc really opened) names an
/// identifier of the instrumentation: a branch calling `__mergelens_event(k)` itself would
/// forge a call, `__mergelens_hit(k)` the coverage of a change, an `__ml_` tape an input.
fn check_reserved(unit: &Unit) -> Result<(), FrontEndError> {
    let src = unit.src();
    // The text first: a unit without either prefix (almost every one) needs no walk of its
    // tree, which for a large table is most of a parse's size.
    if !src.contains("__ml") && !src.contains("__mergelens_") {
        return Ok(());
    }
    let mut stack = vec![unit.tree.root_node()];
    while let Some(node) = stack.pop() {
        if matches!(node.kind(), "identifier" | "type_identifier") {
            let name = syntax::text(node, src);
            let reserved = name.starts_with("__ml")
                || (name.starts_with("__mergelens_") && name != preprocess::MARKER_FN);
            if reserved {
                let (file, line, origin) = unit.locate(node);
                if origin != FileOrigin::System {
                    return Err(FrontEndError::ReservedName {
                        name: name.to_string(),
                        file: file.into(),
                        line,
                    });
                }
            }
        }
        // Children reversed: the first reserved name in the text is the one reported.
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    Ok(())
}

/// Reports the first syntax error in the user's code. tree-sitter finds it; gcc, when it
/// agrees, says it in the words the user knows from compiling. Errors inside system headers
/// are tree-sitter's limits (e.g. `_Complex`), not the user's, and are left alone; so are
/// errors in the user's headers that gcc accepts, since no event comes from there.
fn check_syntax(unit: &Unit, flags: &[OsString], places: &Places) -> Result<(), FrontEndError> {
    let mut errors = Vec::new();
    collect_errors(unit.tree.root_node(), unit, &mut errors);
    if errors.is_empty() {
        return Ok(());
    }
    if let Some((file, line, column, message)) =
        preprocess::gcc_syntax_error(&unit.input, flags, places)
    {
        return Err(FrontEndError::SyntaxError {
            file,
            line,
            column,
            message,
        });
    }
    let Some(node) = errors
        .into_iter()
        .find(|&n| unit.locate(n).2 == FileOrigin::Analysed)
    else {
        return Ok(());
    };
    let (file, line, _) = unit.locate(node);
    let row = node.start_position().row;
    let line_text = unit.src().lines().nth(row).unwrap_or("").trim();
    let near: String = line_text.chars().take(60).collect();
    Err(FrontEndError::SyntaxError {
        file: file.into(),
        line,
        column: node.start_position().column as u32 + 1,
        message: format!(
            "mergelens's C parser (tree-sitter) cannot read `{near}`, which gcc accepts; this construct is not supported yet"
        ),
    })
}

/// ERROR and MISSING nodes anywhere, to compare two parses of one text.
fn error_count(node: Node) -> usize {
    if !node.has_error() {
        return 0;
    }
    if node.is_error() || node.is_missing() {
        return 1;
    }
    children(node).into_iter().map(error_count).sum()
}

/// The ERROR and MISSING nodes outside system headers, in source order.
fn collect_errors<'t>(node: Node<'t>, unit: &Unit, out: &mut Vec<Node<'t>>) {
    if !node.has_error() {
        return;
    }
    if node.is_error() || node.is_missing() {
        if unit.locate(node).2 != FileOrigin::System {
            out.push(node);
        }
        return;
    }
    for child in children(node) {
        collect_errors(child, unit, out);
    }
}

struct Chosen {
    alphabet: Alphabet,
    letters: HashMap<SiteKey, Letter>,
    events: Vec<Event>,
}

/// Applies `only`/`exclude`, names the letters in order of first occurrence, and appends
/// `end_name` (`end`, or `assert` in error mode).
fn choose_alphabet(
    config: &FrontEndConfig,
    end_name: &str,
    findings: &mut Findings,
) -> Result<Chosen, FrontEndError> {
    let all: BTreeSet<&str> = findings.sites.iter().map(|s| s.name.as_str()).collect();
    let mut unmatched = Vec::new();
    if let Some(only) = &config.only {
        unmatched.extend(
            only.iter()
                .filter(|n| !all.contains(n.as_str()))
                .map(|n| ("--only", n)),
        );
    }
    unmatched.extend(
        config
            .exclude
            .iter()
            .filter(|n| !all.contains(n.as_str()))
            .map(|n| ("--exclude", n)),
    );
    for (option, name) in unmatched {
        findings.warnings.push(FrontEndWarning::new(
            WarningKind::UnknownName,
            format!("{option} {name}: no event of the program has this name"),
        ));
    }
    let keep = |name: &str| {
        config.only.as_ref().is_none_or(|o| o.contains(name)) && !config.exclude.contains(name)
    };
    let mut alphabet = Alphabet::new();
    let mut letters = HashMap::new();
    let mut events = Vec::new();
    for site in &findings.sites {
        if !keep(&site.name) {
            continue;
        }
        if site.name == end_name {
            return Err(FrontEndError::ReservedLetter {
                name: site.name.clone(),
                file: site.file.clone().into(),
                line: site.line,
            });
        }
        let letter = alphabet.intern(&site.name);
        letters.insert(site.key, letter);
        events.push(Event {
            letter,
            kind: site.key.2,
            file: site.file.clone().into(),
            line: site.line,
            function: site.function.clone(),
        });
    }
    if alphabet.is_empty() {
        return Err(FrontEndError::EmptyAlphabet);
    }
    alphabet.intern(end_name);
    Ok(Chosen {
        alphabet,
        letters,
        events,
    })
}

/// `stem.mergelens.i`: already preprocessed (`.i`), so neither gcc nor goto-cc runs the
/// preprocessor a second time over it.
fn output_name(input: &Path, index: usize, used: &mut HashSet<String>) -> String {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".to_string());
    let mut name = format!("{stem}.mergelens.i");
    if !used.insert(name.clone()) {
        name = format!("{stem}.{index}.mergelens.i");
        used.insert(name.clone());
    }
    name
}

/// The tokens of the preprocessed program, and the settings that change what is learned.
/// Not the file names, which differ between checkouts of one version, nor the layout: line
/// numbers and whitespace change no execution (`__LINE__` and `assert`'s line are tokens by
/// now, and the letters of call events, which name their lines, are hashed with the
/// alphabet), so a commit that only edits comments or formatting keeps the fingerprint.
fn fingerprint(config: &FrontEndConfig, units: &[Unit], alphabet: &Alphabet) -> String {
    let mut h = Fingerprint::new();
    h.field("mergelens-cprog/2");
    config_fingerprint(&mut h, config);
    units_fingerprint(&mut h, config, units);
    h.field("alphabet");
    alphabet.names().for_each(|n| h.field(n));
    h.hex()
}

#[cfg(test)]
mod tests {
    use crate::cprog::{FrontEndConfig, instrument};

    #[test]
    fn directory_prefixes_are_stripped_longest_first() {
        let prefixes = vec!["/tmp/a/src/".to_string(), "/tmp/a/".to_string()];
        assert_eq!(
            super::slice::strip_prefixes("f(\"/tmp/a/src/p.c\", \"/tmp/a/inc/h.h\")", &prefixes),
            "f(\"p.c\", \"inc/h.h\")"
        );
    }

    #[test]
    fn functions_span_from_their_name_to_their_closing_brace() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("span.c");
        std::fs::write(
            &source,
            "#define EMPTY\nvoid one(void) {}\nstatic int\ntwo(int x)\n{\n  EMPTY\n  return x;\n}\nint main(void)\n{\n  one();\n  return two(1);\n}\n",
        )
        .unwrap();
        let out = tempfile::tempdir().unwrap();
        let p = instrument(&FrontEndConfig::new(vec![source]), out.path()).unwrap();
        let span = |name: &str| {
            let f = p.functions.iter().find(|f| f.name == name).unwrap();
            (f.line, f.end_line)
        };
        assert_eq!(span("one"), (2, 2));
        assert_eq!(span("two"), (4, 8));
        assert_eq!(span("main"), (9, 13));
    }
}
