//! A story's rows in columns ([`columns`] → [`Column`]): the same call of different rows in
//! one column, a blank where a row lacks it, and how the merged row stands in each column
//! ([`Mark`]): a call the merge makes that the reference row (the expected word, or the
//! base's for an overlap) does not, or one it lacks: a call of the reference, or for an
//! overlap a call a branch added that the merge lost. The rows are aligned one after another
//! to the columns so far by a longest common subsequence, the way a multiple alignment is
//! built progressively.

/// How the merged row stands in one column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// As the reference row.
    Same,
    /// The merge makes this call; the reference does not.
    Differs,
    /// The merge lacks this call, which the reference makes (or, in an overlap, a branch
    /// added).
    Lacks,
}

/// One column of a story: its call and, per row, the index of that call in the row's word
/// (`None`: a blank).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub letter: String,
    pub cells: Vec<Option<usize>>,
    pub mark: Mark,
}

/// The columns of `rows` (base, ours, theirs, merged and maybe expected, in that order).
pub fn columns(rows: &[(&str, &[String])]) -> Vec<Column> {
    let mut letters: Vec<String> = Vec::new();
    let mut cells: Vec<Vec<Option<usize>>> = Vec::new();
    // Column ids in display order.
    let mut order: Vec<usize> = Vec::new();
    for (r, (_, word)) in rows.iter().enumerate() {
        let master: Vec<&String> = order.iter().map(|&id| &letters[id]).collect();
        let pairs = longest_common_subsequence(word, &master, |a, b| a == *b);
        let mut next = Vec::with_capacity(order.len() + word.len());
        let (mut i, mut j) = (0, 0);
        let end = (word.len(), master.len());
        for &(wi, mj) in pairs.iter().chain(std::iter::once(&end)) {
            // The columns this row has no letter in, then its letters no column has.
            next.extend_from_slice(&order[j..mj]);
            for (k, letter) in word.iter().enumerate().take(wi).skip(i) {
                let mut column = vec![None; rows.len()];
                column[r] = Some(k);
                letters.push(letter.clone());
                cells.push(column);
                next.push(letters.len() - 1);
            }
            if wi < word.len() {
                cells[order[mj]][r] = Some(wi);
                next.push(order[mj]);
            }
            (i, j) = (wi + 1, mj + 1);
        }
        order = next;
    }
    let reference = if rows.len() > 4 { 4 } else { 0 };
    order
        .into_iter()
        .map(|id| {
            let has = |row: usize| cells[id].get(row).copied().flatten().is_some();
            let added_by_a_branch = reference == 0 && !has(0) && (has(1) || has(2));
            let mark = match (has(3), has(reference)) {
                (true, false) => Mark::Differs,
                (false, true) => Mark::Lacks,
                (false, false) if added_by_a_branch => Mark::Lacks,
                _ => Mark::Same,
            };
            Column {
                letter: letters[id].clone(),
                cells: cells[id].clone(),
                mark,
            }
        })
        .collect()
}

/// The rows as text in columns, each row label in a field of `label_width`, and a line of
/// `^` under the merged row marking each column where it differs from the reference (under
/// a blank: a call the merge lost). `shown(row, column)` is the text of a cell (`None`:
/// blank).
pub fn aligned(
    labels: &[&str],
    width: &[usize],
    marks: &[Mark],
    shown: impl Fn(usize, usize) -> Option<String>,
) -> String {
    const LABEL: usize = 9;
    let mut out = String::new();
    for (r, label) in labels.iter().enumerate() {
        let mut line = format!("{label:<LABEL$}");
        for (c, w) in width.iter().enumerate() {
            let text = shown(r, c).unwrap_or_default();
            line.push_str(&format!("{text:<w$} "));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if *label == "merged" && marks.iter().any(|m| *m != Mark::Same) {
            let mut carets = " ".repeat(LABEL);
            for (w, m) in width.iter().zip(marks) {
                let mark = if *m == Mark::Same { " " } else { "^" };
                carets.push_str(&format!("{mark:<w$} "));
            }
            out.push_str(carets.trim_end());
            out.push('\n');
        }
    }
    out
}

/// The index pairs of a longest common subsequence of `a` and `b` (elements matched by
/// `same`), in order: what the stories mark and what the call-tree diff3 aligns children
/// with (the classic dynamic programme, quadratic in the lengths, which are bounded by the
/// word length).
pub(crate) fn longest_common_subsequence<A, B>(
    a: &[A],
    b: &[B],
    same: impl Fn(&A, &B) -> bool,
) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut t = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i][j] = if same(&a[i], &b[j]) {
                t[i + 1][j + 1] + 1
            } else {
                t[i + 1][j].max(t[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut pairs = Vec::new();
    while i < n && j < m {
        if same(&a[i], &b[j]) {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if t[i + 1][j] >= t[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    fn layout(words: &[&str]) -> Vec<String> {
        let owned: Vec<Vec<String>> = words.iter().map(|s| w(s)).collect();
        let labels = ["base", "ours", "theirs", "merged", "expected"];
        let rows: Vec<(&str, &[String])> = owned
            .iter()
            .enumerate()
            .map(|(k, v)| (labels[k], v.as_slice()))
            .collect();
        columns(&rows)
            .iter()
            .map(|c| {
                let cells: String = c
                    .cells
                    .iter()
                    .map(|x| if x.is_some() { 'x' } else { '.' })
                    .collect();
                format!("{} {cells} {:?}", c.letter, c.mark)
            })
            .collect()
    }

    #[test]
    fn the_same_call_of_every_row_is_one_column() {
        assert_eq!(
            layout(&["a b end", "a z b end", "a c end", "a z c end"]),
            [
                "a xxxx Same",
                "z .x.x Differs",
                // The merge drops b, as theirs does: a difference from the base too.
                "b xx.. Lacks",
                "c ..xx Differs",
                "end xxxx Same"
            ]
        );
    }

    #[test]
    fn a_call_the_merge_lost_is_a_marked_blank() {
        // Theirs added audit; ours returns early on this input; the merge lost audit.
        assert_eq!(
            layout(&["a b end", "a end", "a b audit end", "a end"]),
            [
                "a xxxx Same",
                "b x.x. Lacks",
                "audit ..x. Lacks",
                "end xxxx Same"
            ]
        );
        // Against an expected word: the merge lacks what the expected merge calls.
        assert_eq!(
            layout(&["a end", "a end", "a audit end", "a end", "a audit end"]),
            ["a xxxxx Same", "audit ..x.x Lacks", "end xxxxx Same"]
        );
    }
}
