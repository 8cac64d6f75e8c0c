//! The per-execution check's rule for results: what the entry returns is behaviour too, and
//! a change of it composes or interferes by the diff3 rule, on values.
//!
//! Key items:
//!
//! * [`merge_results`]: the base's, ours', theirs' and the merge's results on one input →
//!   [`ResultJudgement`] (explained, unexpected with the result expected, or overlapping).
//! * [`worse`]: the verdict of an execution from its calls' and its results' own.
//! * [`unseen_note`]: the sentence for a branch whose change no call and no result shows.
//!
//! The rule: with base `o`, ours `a`, theirs `b` and the merge `m`, the expected result is
//! `b` where ours left the result alone (`a == o`), `a` where theirs did, and `a` where both
//! changed it alike; the merge must give it. Where both changed it differently there is no
//! expected result: a merge giving ours' or theirs' is overlapping (a reviewer picks), any
//! other is unexpected (the merge invented it).

use crate::cbmc::product::Execution as RawExecution;
use crate::document::{ExecutionKind, GlobalValues, Returns};

/// How the merge's result on one input compares with what the branches' changes give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ResultJudgement<T> {
    /// `None`: the merge's result is the expected one.
    pub kind: Option<ExecutionKind>,
    /// The result the branches' changes give together; `None` where both changed it
    /// differently.
    pub expected: Option<T>,
}

/// The diff3 rule on the results `o`, `a`, `b` and `m` (see the module documentation).
pub(crate) fn merge_results<T: PartialEq + Copy>(o: T, a: T, b: T, m: T) -> ResultJudgement<T> {
    let expected = if a == o || a == b {
        Some(b)
    } else if b == o {
        Some(a)
    } else {
        None
    };
    let kind = match expected {
        Some(e) => (m != e).then_some(ExecutionKind::Unexpected),
        None if m == a || m == b => Some(ExecutionKind::Overlapping),
        None => Some(ExecutionKind::Unexpected),
    };
    ResultJudgement { kind, expected }
}

/// What one execution's observations show: the results and globals as the story shows
/// them, and the worst verdict among them (`None`: each as expected).
pub(crate) struct Observed {
    pub returns: Option<Returns>,
    pub globals: Vec<GlobalValues>,
    pub kind: Option<ExecutionKind>,
}

/// The observations of `raw` (its four results, and its four values of each of `globals`),
/// each judged by [`merge_results`].
pub(crate) fn observed(raw: &RawExecution, globals: &[String]) -> Observed {
    let judged = |values: &[Option<i64>]| -> Option<(Returns, Option<ExecutionKind>)> {
        let [base, ours, theirs, merged] = *values else {
            return None;
        };
        let judged = merge_results(base, ours, theirs, merged);
        let values = Returns {
            base,
            ours,
            theirs,
            merged,
            expected: judged.expected.flatten(),
        };
        Some((values, judged.kind))
    };
    let returns = judged(&raw.results);
    let mut kind = returns.as_ref().and_then(|(_, k)| *k);
    let mut shown = Vec::new();
    for (g, name) in globals.iter().enumerate() {
        let values: Vec<Option<i64>> = raw
            .globals
            .iter()
            .map(|v| v.get(g).copied().flatten())
            .collect();
        if let Some((values, k)) = judged(&values) {
            kind = worse(kind, k);
            shown.push(GlobalValues {
                name: name.clone(),
                values,
            });
        }
    }
    Observed {
        returns: returns.map(|(r, _)| r),
        globals: shown,
        kind,
    }
}

/// The verdict of an execution whose calls are judged `calls` and whose results `results`
/// (`None`: explained): the worse of the two, unexpected before overlapping.
pub(crate) fn worse(
    calls: Option<ExecutionKind>,
    results: Option<ExecutionKind>,
) -> Option<ExecutionKind> {
    match (calls, results) {
        (Some(ExecutionKind::Unexpected), _) | (_, Some(ExecutionKind::Unexpected)) => {
            Some(ExecutionKind::Unexpected)
        }
        (Some(k), _) | (None, Some(k)) => Some(k),
        (None, None) => None,
    }
}

/// What the note of a change no observation sees says, for the summaries that show it.
pub const UNSEEN_CHANGE: &str = "changes no call and no result within the bounds";

/// What the note says when the check did not compare the entry's result.
pub const UNSEEN_CALLS: &str = "changes no call within the bounds";

/// The note for `branch` (`ours`, `theirs`) whose change (first at `place`, `f.c:12`) makes
/// no execution of `entry` within the bounds call (or, with `results`, return) other than
/// the base does.
pub(crate) fn unseen_note(entry: &str, branch: &str, place: &str, results: bool) -> String {
    if results {
        format!(
            "{entry}: {branch}' change at {place} {UNSEEN_CHANGE} (the integer globals of the entry's file are compared too, other memory is not): the verdict does not speak for it"
        )
    } else {
        format!(
            "{entry}: {branch}' change at {place} {UNSEEN_CALLS} (what the entry returns is not compared, as it returns no integer on every path; the integer globals of the entry's file are, other memory is not): the verdict does not speak for it"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExecutionKind::{Overlapping, Unexpected};

    fn judged(o: i64, a: i64, b: i64, m: i64) -> (Option<ExecutionKind>, Option<i64>) {
        let j = merge_results(o, a, b, m);
        (j.kind, j.expected)
    }

    #[test]
    fn one_side_changing_the_result_expects_its_result() {
        // Ours changed the result, theirs did not: the merge must give ours'.
        assert_eq!(judged(1, 2, 1, 2), (None, Some(2)));
        assert_eq!(judged(1, 2, 1, 1), (Some(Unexpected), Some(2)));
        // Theirs changed it.
        assert_eq!(judged(1, 1, 3, 3), (None, Some(3)));
        assert_eq!(judged(1, 1, 3, 1), (Some(Unexpected), Some(3)));
        // Nobody changed it: the merge must not either.
        assert_eq!(judged(1, 1, 1, 1), (None, Some(1)));
        assert_eq!(judged(1, 1, 1, 5), (Some(Unexpected), Some(1)));
    }

    #[test]
    fn both_changing_alike_is_one_change() {
        assert_eq!(judged(1, 4, 4, 4), (None, Some(4)));
        assert_eq!(judged(1, 4, 4, 1), (Some(Unexpected), Some(4)));
    }

    #[test]
    fn both_changing_differently_overlaps_unless_the_merge_invents_a_result() {
        assert_eq!(judged(1, 2, 3, 2), (Some(Overlapping), None));
        assert_eq!(judged(1, 2, 3, 3), (Some(Overlapping), None));
        assert_eq!(judged(1, 2, 3, 1), (Some(Unexpected), None));
        assert_eq!(judged(1, 2, 3, 9), (Some(Unexpected), None));
    }

    #[test]
    fn a_missing_result_is_a_value_like_any_other() {
        let j = merge_results(Some(1), None, Some(1), None);
        assert_eq!((j.kind, j.expected), (None, Some(None)));
    }

    #[test]
    fn the_worse_verdict_wins() {
        assert_eq!(worse(None, None), None);
        assert_eq!(worse(None, Some(Overlapping)), Some(Overlapping));
        assert_eq!(worse(Some(Overlapping), None), Some(Overlapping));
        assert_eq!(worse(Some(Overlapping), Some(Unexpected)), Some(Unexpected));
        assert_eq!(worse(Some(Unexpected), Some(Overlapping)), Some(Unexpected));
        assert_eq!(worse(None, Some(Unexpected)), Some(Unexpected));
    }

    proptest::proptest! {
        /// The rule is diff3's: symmetric in the branches, and a merge that is the expected
        /// result is always explained.
        #[test]
        fn symmetric_and_explains_the_expected(o in 0i64..3, a in 0i64..3, b in 0i64..3, m in 0i64..3) {
            let ab = merge_results(o, a, b, m);
            let ba = merge_results(o, b, a, m);
            proptest::prop_assert_eq!(ab, ba);
            if let Some(e) = ab.expected {
                proptest::prop_assert_eq!(merge_results(o, a, b, e).kind, None);
            }
        }
    }
}
