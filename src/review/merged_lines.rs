//! Where a branch's changed hunk stands in the merge result: the lines a reader of the
//! reviewed commit (a pull request's merge, `review --commit`) opens.
//!
//! Key item: [`locate`], which gives each hunk of ours or theirs its
//! [`CoveredHunk::merged_start_line`] and [`CoveredHunk::merged_end_line`].
//!
//! A hunk is found in the lines of the version that made it (base → ours in ours' lines);
//! the merge moved them when the other branch added or removed lines above. The mapping
//! is a line diff of that version's file against the merge's (Myers, through `similar`):
//! a line the merge kept maps to its new place, a line the merge replaced or dropped to
//! the place where the merge's text stands instead.

use std::collections::HashMap;
use std::path::Path;

use similar::{ChangeTag, TextDiff};

use crate::document::coverage::{CoveredHunk, HunkSide};

/// Gives every hunk of `ours_dir`'s or `theirs_dir`'s files its lines in `merged_dir`'s
/// files (a file the merge lacks gets none).
pub(crate) fn locate(
    hunks: &mut [CoveredHunk],
    ours_dir: &Path,
    theirs_dir: &Path,
    merged_dir: &Path,
) {
    let mut maps: HashMap<(HunkSide, String), Option<Vec<u32>>> = HashMap::new();
    for h in hunks.iter_mut() {
        let side_dir = match h.side {
            HunkSide::Ours => ours_dir,
            HunkSide::Theirs => theirs_dir,
            HunkSide::From | HunkSide::To => continue,
        };
        let map = maps
            .entry((h.side, h.file.clone()))
            .or_insert_with(|| {
                let side = std::fs::read_to_string(side_dir.join(&h.file)).ok()?;
                let merged = std::fs::read_to_string(merged_dir.join(&h.file)).ok()?;
                Some(line_map(&side, &merged))
            })
            .as_ref();
        if let Some((start, end)) = map.and_then(|m| mapped(m, h.start_line, h.end_line)) {
            h.merged_start_line = Some(start);
            h.merged_end_line = Some(end);
        }
    }
}

/// For each line of `old` (0-based), the 1-based line of `new` it became: its own when the
/// merge kept it, else the line where the merge's text stands in its place.
fn line_map(old: &str, new: &str) -> Vec<u32> {
    let diff = TextDiff::from_lines(old, new);
    let mut map = Vec::new();
    let mut next_new = 0usize;
    for change in diff.iter_all_changes() {
        match (change.tag(), change.new_index()) {
            (ChangeTag::Equal, Some(i)) => {
                map.push(line_number(i));
                next_new = i + 1;
            }
            (ChangeTag::Insert, Some(i)) => next_new = i + 1,
            _ => map.push(line_number(next_new)),
        }
    }
    map
}

fn line_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// The 1-based lines `start..=end` of the old file, mapped.
fn mapped(map: &[u32], start: u32, end: u32) -> Option<(u32, u32)> {
    let at = |line: u32| map.get(line.checked_sub(1)? as usize).copied();
    let s = at(start).or_else(|| map.last().copied())?;
    let e = at(end).unwrap_or(s).max(s);
    Some((s, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_follow_what_the_other_branch_removed_above_them() {
        let ours = "a\nb\nc\nd\nchanged\ne\n";
        // Theirs removed b and c; the merge keeps ours' change two lines higher.
        let merged = "a\nd\nchanged\ne\n";
        let map = line_map(ours, merged);
        assert_eq!(mapped(&map, 5, 5), Some((3, 3)));
        assert_eq!(mapped(&map, 5, 6), Some((3, 4)));
        // A line the merge replaced maps to the replacement's place.
        let map = line_map("a\nx\nb\n", "a\ny\nb\n");
        assert_eq!(mapped(&map, 2, 2), Some((2, 2)));
        assert_eq!(mapped(&map, 3, 3), Some((3, 3)));
        // Past the end: the last line.
        assert_eq!(mapped(&map, 9, 9), Some((3, 3)));
    }
}
