//! The coverage of the change on a page: how many changed hunks some execution within the
//! bounds reaches ([`reached_count`]), the table of every hunk a review's summary links to
//! ([`coverage_table`]), and for the diff page a banner that leads with the unreached hunks
//! ([`lead_banner`]). One place for the pages (and so for HTML and Markdown, which both
//! render them).

use super::{Banner, Count, CoverageRow, CoverageTable};
use crate::document::Coverage;
use crate::document::coverage::{
    CoveredHunk, calls_not_run, unchecked, unreached, unreached_reason, unreached_sentence,
};

/// "2 of 3 changed hunks reached" (hunks without code left out), or nothing when the
/// document has no hunks with code.
fn reached_count<'a>(coverages: impl IntoIterator<Item = &'a Coverage>) -> Option<Count> {
    let (mut code, mut reached) = (0usize, 0usize);
    for c in coverages {
        code += c.hunks.iter().filter(|h| h.code).count();
        reached += c.hunks.iter().filter(|h| h.code && h.reached).count();
    }
    (code > 0).then(|| Count {
        value: format!("{reached} of {code}"),
        label: if code == 1 {
            "changed hunk reached"
        } else {
            "changed hunks reached"
        }
        .to_string(),
    })
}

/// Puts the unreached changed hunks at the head of the banner's detail (unless the detail
/// already lists them, as an inconclusive verdict's reasons do) and the count among its
/// counts.
pub(crate) fn lead_banner<'a>(
    banner: &mut Banner,
    coverages: impl IntoIterator<Item = &'a Coverage> + Clone,
    unwind: u32,
) {
    let sentences: Vec<String> = unreached(coverages.clone())
        .into_iter()
        .map(|h| unreached_sentence(h, unwind))
        .collect();
    let shown = banner.detail.to_lowercase();
    if !sentences.is_empty() && !sentences.iter().all(|s| shown.contains(&s.to_lowercase())) {
        let mut lead = sentences.join("; ");
        if let Some(first) = lead.get(..1) {
            lead = format!("{}{}", first.to_uppercase(), &lead[1..]);
        }
        banner.detail = format!("{lead}. {}", banner.detail);
    }
    banner.counts.extend(reached_count(coverages));
}

/// Every changed hunk of the entries' coverages once (a hunk one entry reaches is
/// reached), unreached ones first, each with what is known of why.
pub(crate) fn coverage_table<'a>(
    coverages: impl IntoIterator<Item = &'a Coverage> + Clone,
) -> CoverageTable {
    let all: Vec<&CoveredHunk> = coverages
        .clone()
        .into_iter()
        .flat_map(|c| &c.hunks)
        .collect();
    let unchecked = unchecked(coverages.clone());
    let unreached = unreached(coverages);
    let mut rows: Vec<CoverageRow> = Vec::new();
    let mut seen: Vec<&CoveredHunk> = Vec::new();
    for h in &all {
        if seen.iter().any(|s| s.same_hunk(h)) {
            continue;
        }
        seen.push(h);
        let reached = all.iter().any(|o| o.same_hunk(h) && o.reached);
        let shown = unreached.iter().find(|u| u.same_hunk(h)).copied();
        let not_told = unchecked.iter().find(|u| u.same_hunk(h)).copied();
        let (status, note) = match (shown, not_told) {
            (Some(u), _) => ("unreached", unreached_note(u)),
            (None, Some(u)) => ("unchecked", u.unchecked.clone().unwrap_or_default()),
            (None, None) if reached => ("reached", String::new()),
            (None, None) => ("no-code", "no statement on these lines".to_string()),
        };
        rows.push(CoverageRow {
            change: h.whose(),
            place: h.place(),
            status,
            note,
        });
    }
    // Unreached first, then unchecked: what the reader must look at.
    rows.sort_by_key(|r| match r.status {
        "unreached" => 0,
        "unchecked" => 1,
        _ => 2,
    });
    CoverageTable {
        unreached: rows.iter().filter(|r| r.status == "unreached").count(),
        unchecked: rows.iter().filter(|r| r.status == "unchecked").count(),
        with_code: rows.iter().filter(|r| r.status != "no-code").count(),
        rows,
    }
}

/// An unreached hunk's note in the table: the call that never runs, then what is known of
/// the bound that reaches it; "–" when nothing is.
fn unreached_note(hunk: &CoveredHunk) -> String {
    let parts: Vec<String> = calls_not_run(hunk)
        .into_iter()
        .chain(unreached_reason(hunk))
        .collect();
    if parts.is_empty() {
        "–".to_string()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::coverage::{CoveredHunk, HunkSide};

    #[test]
    fn the_banner_leads_with_unreached_changes() {
        let hunk = |start, reached, code| CoveredHunk {
            file: "parser.c".into(),
            side: HunkSide::Theirs,
            start_line: start,
            end_line: start + 6,
            reached,
            calls: Vec::new(),
            code,
            reached_at_unwind: None,
            reached_at_word_length: None,
            merged_start_line: None,
            merged_end_line: None,
            word_length_searched_up_to: None,
            word_length_cut_at: None,
            searched_up_to: None,
            search_cut_at: None,
            uncalled: None,
            judged: None,
            owner: None,
            unchecked: None,
        };
        let coverage = Coverage::new(vec![
            hunk(41, false, true),
            hunk(60, true, true),
            hunk(80, false, false),
        ]);
        let mut banner = Banner {
            kind: "unexpected",
            headline: "Unexpected behaviour".into(),
            detail: "The merge makes call sequences.".into(),
            counts: Vec::new(),
        };
        lead_banner(&mut banner, [&coverage], 2);
        assert_eq!(
            banner.detail,
            "Theirs' change at parser.c:41-47 is never reached within --unwind 2. The merge makes call sequences."
        );
        assert_eq!(banner.counts[0].value, "1 of 2");
        let table = coverage_table([&coverage]);
        assert_eq!(table.rows[0].note, "–");
        let mut with_call = hunk(41, false, true);
        with_call.calls = vec!["c".into()];
        with_call.reached_at_unwind = Some(3);
        let table = coverage_table([&Coverage::new(vec![with_call])]);
        assert_eq!(
            table.rows[0].note,
            "its call of `c` never runs; --unwind 3 reaches it"
        );
        // Already listed (an inconclusive verdict's reasons): not repeated.
        let before = banner.detail.clone();
        lead_banner(&mut banner, [&coverage], 2);
        assert_eq!(banner.detail, before);
    }
}
