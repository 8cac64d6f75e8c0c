//! The coverage of the change on a page: the banner leads with the changed hunks no
//! execution within the bounds reaches, and counts how many were reached. One place for
//! the review and the diff page (and so for HTML and Markdown, which both render the
//! banner).

use super::{Banner, Count};
use crate::document::Coverage;
use crate::document::coverage::{unreached, unreached_sentence};

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
            code,
            reached_at_unwind: None,
            searched_up_to: None,
            search_cut_at: None,
            uncalled: None,
            owner: None,
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
        // Already listed (an inconclusive verdict's reasons): not repeated.
        let before = banner.detail.clone();
        lead_banner(&mut banner, [&coverage], 2);
        assert_eq!(banner.detail, before);
    }
}
