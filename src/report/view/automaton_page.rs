//! The automaton page ([`automaton_page`]): one learned automaton (what a program can do) or
//! one explained assertion (how it can fail), with its analyses: the letters every word
//! contains, the doomed states, the shortest words and their traces. Apart from the review
//! and diff pages because it compares nothing.

use std::collections::BTreeMap;

use super::parts::{Labels, Links, figure};
use super::{
    AutomatonPage, Banner, Count, Draw, TraceView, WordView, bounds_view, count_text, counted,
    default_tool, safe_local_href, stats_table,
};
use crate::automaton::{Marks, analysis, ops};
use crate::document::{AutomatonDocument, AutomatonKind, Version};
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
    let links = Links::none();
    let plain = |w: &[String]| links.word(w, Version::Base);
    let analysed = Marks::analyse(&dfa);
    let marks = if explain {
        analysed.clone()
    } else {
        // For behaviour nearly every state is doomed, which says nothing.
        Marks {
            dominating: analysed.dominating.clone(),
            ..Marks::default()
        }
    };
    let empty = analysis::is_empty(&dfa);
    let legend = if explain {
        "Double circles: the assertion has failed. Filled states: doomed (from here every \
         continuation fails). Thick edges: letters every failing execution contains."
    } else {
        "Double circles: accepting states. Thick edges: letters every accepted word contains."
    };
    let figure = figure(
        Labels {
            id: "automaton".to_string(),
            caption: if explain {
                "Failing executions".to_string()
            } else {
                "Learned automaton".to_string()
            },
            legend: legend.to_string(),
        },
        &dfa,
        &marks,
        bound,
        draw,
        plain,
    );
    let trace_of = |w: &[String]| meta.traces.get(&w.join(" "));
    let shortest: Vec<WordView> = compute::example_words(&dfa, bound, SHORTEST_WORDS)
        .iter()
        .map(|w| {
            let names = compute::names(&dfa, w);
            let mut view = plain(&names);
            view.trace = trace_of(&names).filter(|h| safe_local_href(h)).cloned();
            view
        })
        .collect();
    let traces = meta
        .traces
        .iter()
        .map(|(word, path)| {
            let names: Vec<String> = word.split_whitespace().map(str::to_string).collect();
            TraceView {
                word: plain(&names),
                href: safe_local_href(path).then(|| path.clone()),
                path: path.clone(),
            }
        })
        .collect();
    let count = meta
        .bounds
        .as_ref()
        .map(|b| count_text(analysis::count_up_to(&dfa, bound), b.max_word_length));
    let partial = meta.partial();
    let banner = match (explain, empty) {
        _ if partial => Banner {
            kind: "info",
            headline: "Partial: learning stopped before it finished".to_string(),
            detail: format!(
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
            counts: Vec::new(),
        },
        (true, true) => Banner {
            kind: "clean",
            headline: "The assertion cannot fail".to_string(),
            detail: "No execution within the bounds violates it.".to_string(),
            counts: Vec::new(),
        },
        (true, false) => Banner {
            kind: "unexpected",
            headline: "The assertion can fail".to_string(),
            detail: format!(
                "The shortest failing execution makes {} calls{}.",
                shortest.first().map_or(0, |w| w.letters.len()),
                count
                    .as_ref()
                    .map_or(String::new(), |c| format!("; {c} fail"))
            ),
            counts: Vec::new(),
        },
        (false, _) => Banner {
            kind: "info",
            headline: "Learned behaviour".to_string(),
            detail: match &count {
                Some(c) => format!("The program makes {c}."),
                None => "The call sequences the program can make.".to_string(),
            },
            counts: Vec::new(),
        },
    };
    let banner = Banner {
        counts: vec![
            counted(dfa.num_states(), "state", "states"),
            counted(dfa.num_transitions(), "transition", "transitions"),
            counted(dfa.alphabet().len(), "letter", "letters"),
        ],
        ..banner
    };
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
    let stats = meta.stats.as_ref().and_then(|s| {
        stats_table(&BTreeMap::from([(Version::Base, s.clone())])).map(|mut t| {
            t.rows[0].version = "learning".to_string();
            t
        })
    });
    AutomatonPage {
        title: meta.title.clone().unwrap_or_else(|| {
            if explain {
                "How the assertion can fail".to_string()
            } else {
                "Learned behaviour".to_string()
            }
        }),
        banner,
        facts,
        dominating: analysed
            .dominating
            .iter()
            .map(|&a| dfa.alphabet().name(a).to_string())
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
        figure,
        shortest,
        traces,
        stats,
        bounds: meta.bounds.as_ref().map(|b| bounds_view(b, false)),
        explain,
        tool: default_tool(),
    }
}
