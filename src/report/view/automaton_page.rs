//! The automaton page ([`automaton_page`]): one learned automaton (what a program can do) or
//! one explained assertion (how it can fail), with its analyses: the letters every word
//! contains, the doomed states, the shortest words and their traces. When the document
//! carries a concise automaton (`learned.concise` / `explained.concise`), that one is drawn
//! first and the exact one is a click away. Apart from the review and diff pages because it
//! compares nothing.

use std::collections::BTreeMap;

use super::parts::{Labels, Links, figure};
use super::{
    AutomatonPage, Banner, ConciseView, Count, Draw, Figure, TraceView, WordView, bounds_view,
    count_text, counted, default_tool, safe_local_href, stats_table,
};
use crate::automaton::{Dfa, Marks, analysis, ops};
use crate::document::{
    AutomatonDocument, AutomatonKind, AutomatonMeta, CONCISE_MEANING, Concise, ConciseMethod,
    Version,
};
use crate::report::compute;

/// Shortest words listed on an automaton page.
const SHORTEST_WORDS: usize = 10;

/// The learn or explain report's view.
pub(crate) fn automaton_page(doc: &AutomatonDocument, draw: Draw) -> AutomatonPage {
    let meta = &doc.meta;
    let explain = meta.kind == AutomatonKind::Explain;
    let dfa = ops::minimize(&doc.dfa);
    let bound = meta
        .bounds
        .as_ref()
        .map_or(2 * dfa.num_states(), |b| b.max_word_length as usize);
    let concise = concise_of(meta);
    // The analyses listed are those of the automaton drawn first, whose thick edges and
    // filled states they name.
    let drawn_first = concise.map_or(&dfa, |c| &c.automaton.0);
    let analysed = Marks::analyse(drawn_first);
    let shortest = shortest_words(meta, &dfa, bound);
    let figure = figure(
        exact_labels(explain, concise.is_some()),
        &dfa,
        &drawn_marks(&Marks::analyse(&dfa), explain),
        bound,
        draw,
        plain_word,
    );
    AutomatonPage {
        title: meta.title.clone().unwrap_or_else(|| {
            if explain {
                "How the assertion can fail".to_string()
            } else {
                "Learned behaviour".to_string()
            }
        }),
        banner: banner(meta, explain, &dfa, bound, &shortest),
        facts: facts(meta, &dfa),
        dominating: analysed
            .dominating
            .iter()
            .map(|&a| drawn_first.alphabet().name(a).to_string())
            .collect(),
        doomed: if explain {
            analysed.doomed.iter().map(u32::to_string).collect()
        } else {
            Vec::new()
        },
        shortest_title: if explain {
            "Shortest failing executions".to_string()
        } else {
            "Shortest accepted words".to_string()
        },
        concise: concise.map(|c| concise_view(c, explain, &analysed, bound, draw)),
        figure,
        shortest,
        traces: traces(meta),
        stats: meta.stats.as_ref().and_then(|s| {
            stats_table(&BTreeMap::from([(Version::Base, s.clone())])).map(|mut t| {
                t.rows[0].version = "learning".to_string();
                t
            })
        }),
        bounds: meta.bounds.as_ref().map(|b| bounds_view(b, false)),
        explain,
        tool: default_tool(),
    }
}

/// A word of the page: no version, no links to definitions.
fn plain_word(word: &[String]) -> WordView {
    Links::none().word(word, Version::Base)
}

/// The concise automaton of the run, if the document has one.
fn concise_of(meta: &AutomatonMeta) -> Option<&Concise> {
    [&meta.explained, &meta.learned]
        .into_iter()
        .flatten()
        .find_map(|facts| facts.concise.as_ref())
}

/// The marks a drawing shows: for behaviour nearly every state is doomed, which says
/// nothing, so only the dominating letters.
fn drawn_marks(analysed: &Marks, explain: bool) -> Marks {
    if explain {
        analysed.clone()
    } else {
        Marks {
            dominating: analysed.dominating.clone(),
            ..Marks::default()
        }
    }
}

fn legend(explain: bool) -> &'static str {
    if explain {
        "Double circles: the assertion has failed. Filled states: doomed (from here every \
         continuation fails). Thick edges: letters every failing execution contains."
    } else {
        "Double circles: accepting states. Thick edges: letters every accepted word contains."
    }
}

/// The exact automaton's figure: as it always was, or named exact beside a concise one.
fn exact_labels(explain: bool, beside_concise: bool) -> Labels {
    let caption = match (explain, beside_concise) {
        (true, false) => "Failing executions",
        (false, false) => "Learned automaton",
        (true, true) => "Exact automaton of the failing executions",
        (false, true) => "Exact automaton",
    };
    Labels {
        id: "automaton".to_string(),
        caption: caption.to_string(),
        legend: legend(explain).to_string(),
    }
}

fn concise_view(
    concise: &Concise,
    explain: bool,
    analysed: &Marks,
    bound: usize,
    draw: Draw,
) -> ConciseView {
    let dfa = &concise.automaton.0;
    let states = dfa.num_states();
    let how = match (concise.minimal, concise.method) {
        (true, ConciseMethod::Sat) => {
            "minimal: no automaton with fewer states does the same, as a SAT solver proved"
        }
        (true, ConciseMethod::Merge) => {
            "minimal: no automaton with fewer states does the same (it has one state)"
        }
        (false, _) => "found by state merging: small, not proved minimal",
    };
    let size = if concise.states_saved == 0 {
        format!("{states} states, as many as the exact automaton")
    } else {
        format!("{states} states instead of {}", concise.exact_states)
    };
    let figure: Figure = figure(
        Labels {
            id: "concise".to_string(),
            caption: "Concise automaton".to_string(),
            legend: legend(explain).to_string(),
        },
        dfa,
        &drawn_marks(analysed, explain),
        bound,
        draw,
        plain_word,
    );
    ConciseView {
        meaning: format!("Concise automaton: {CONCISE_MEANING}."),
        size,
        how: how.to_string(),
        rule: concise.rule.clone(),
        figure,
    }
}

/// The shortest accepted words, each linked to its stored trace when there is one.
fn shortest_words(meta: &AutomatonMeta, dfa: &Dfa, bound: usize) -> Vec<WordView> {
    compute::example_words(dfa, bound, SHORTEST_WORDS)
        .iter()
        .map(|w| {
            let names = compute::names(dfa, w);
            let mut view = plain_word(&names);
            view.trace = meta
                .traces
                .get(&names.join(" "))
                .filter(|h| safe_local_href(h))
                .cloned();
            view
        })
        .collect()
}

fn traces(meta: &AutomatonMeta) -> Vec<TraceView> {
    meta.traces
        .iter()
        .map(|(word, path)| {
            let names: Vec<String> = word.split_whitespace().map(str::to_string).collect();
            TraceView {
                word: plain_word(&names),
                href: safe_local_href(path).then(|| path.clone()),
                path: path.clone(),
            }
        })
        .collect()
}

/// What the automaton says, in one headline: partial, the assertion cannot or can fail, or
/// the behaviour learned; with the exact automaton's size.
fn banner(
    meta: &AutomatonMeta,
    explain: bool,
    dfa: &Dfa,
    bound: usize,
    shortest: &[WordView],
) -> Banner {
    let empty = analysis::is_empty(dfa);
    let count = meta
        .bounds
        .as_ref()
        .map(|b| count_text(analysis::count_up_to(dfa, bound), b.max_word_length));
    let (kind, headline, detail) = match (explain, empty) {
        _ if meta.partial() => (
            "info",
            "Partial: learning stopped before it finished",
            format!(
                "This is the last conjecture, right up to {} letters only; {}",
                meta.explained
                    .iter()
                    .chain(&meta.learned)
                    .find_map(|f| f.exact_up_to)
                    .unwrap_or(0),
                if explain && empty {
                    "whether the assertion can fail is not known."
                } else {
                    "longer words may be missing or wrong."
                }
            ),
        ),
        // Sampling proves neither that an assertion cannot fail nor that nothing is missing.
        _ if meta.pac().is_some() => (
            "info",
            "PAC result: probably approximately correct, not exact",
            meta.pac().map(|p| p.guarantee.clone()).unwrap_or_default(),
        ),
        (true, true) => (
            "clean",
            "The assertion cannot fail",
            "No execution within the bounds violates it.".to_string(),
        ),
        (true, false) => (
            "unexpected",
            "The assertion can fail",
            format!(
                "The shortest failing execution makes {} calls{}.",
                shortest.first().map_or(0, |w| w.letters.len()),
                count
                    .as_ref()
                    .map_or(String::new(), |c| format!("; {c} fail"))
            ),
        ),
        (false, _) => (
            "info",
            "Learned behaviour",
            match &count {
                Some(c) => format!("The program makes {c}."),
                None => "The call sequences the program can make.".to_string(),
            },
        ),
    };
    Banner {
        kind,
        headline: headline.to_string(),
        detail,
        counts: vec![
            counted(dfa.num_states(), "state", "states"),
            counted(dfa.num_transitions(), "transition", "transitions"),
            counted(dfa.alphabet().len(), "letter", "letters"),
        ],
    }
}

/// The program, entry and assertion the document names, and the alphabet.
fn facts(meta: &AutomatonMeta, dfa: &Dfa) -> Vec<Count> {
    let mut facts = Vec::new();
    for (label, value) in [
        ("program", &meta.program),
        ("entry", &meta.entry),
        ("assertion", &meta.assertion),
    ] {
        if let Some(value) = value {
            facts.push(Count {
                label: label.to_string(),
                value: value.clone(),
            });
        }
    }
    facts.push(Count {
        label: "alphabet".to_string(),
        value: dfa.alphabet().names().collect::<Vec<_>>().join(" "),
    });
    let run = meta.learned.iter().chain(&meta.explained);
    if run
        .filter_map(|r| r.allocations.as_deref())
        .any(|a| a == "succeed")
    {
        facts.push(Count {
            label: "allocations".to_string(),
            value: "assumed to succeed: executions in which one fails are left out".to_string(),
        });
    }
    facts
}
