//! Call trees and their three-way merge: what the per-execution merge check compares.
//!
//! Key items:
//!
//! * [`CallTree`]: one execution's calls of the analysed functions (the letters are its
//!   preorder), rebuilt from a version's log by [`CallTree::from_log`].
//! * [`merge3`]: the expected tree of an execution from the base's, ours' and theirs' trees,
//!   or [`Overlap`] when both branches changed the same part differently.
//!
//! The merge is diff3's, applied at every call: the children sequences of O, A and B are
//! aligned by their function names (longest common subsequence of O with each branch);
//! where all three agree (a stable call) the three subtrees are merged the same way,
//! recursively; between stable calls, a part only A changed comes from A, a part only B
//! changed from B, a part both changed identically once, and a part both changed
//! differently is an overlap. A call a branch brings in is taken with the other branch's
//! changes to the same behaviour: when B calls `f` once more and A changed what `f` does on
//! the same subtree elsewhere in this execution (O's `f[g]` is A's `f[h]`), the new call is
//! expected to do `f[h]` too, so a body change and a new call of that function compose.

use std::collections::HashMap;

use crate::document::execution::longest_common_subsequence;

/// A call (or the entry, at the root) and the calls it made, in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CallTree {
    pub name: String,
    pub children: Vec<CallTree>,
}

/// One item of a version's log, with letters named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LogItem<'a> {
    Enter(&'a str),
    Return,
    End,
}

/// Both branches changed the same part of an execution differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Overlap;

impl CallTree {
    /// The tree of a log (entries, returns, `end`) under the root `entry`. Calls whose
    /// names `keep` rejects (letters outside the review's alphabet) are spliced out: their
    /// calls become their caller's. Without returns (flat logs), every letter is a child of
    /// the root.
    pub fn from_log(entry: &str, log: &[LogItem], keep: impl Fn(&str) -> bool) -> CallTree {
        // The open calls, the root first; `None` marks a spliced call.
        let mut stack: Vec<(Option<String>, Vec<CallTree>)> = vec![(Some(entry.into()), vec![])];
        for item in log {
            match item {
                LogItem::Enter(name) => {
                    let kept = keep(name).then(|| name.to_string());
                    stack.push((kept, Vec::new()));
                }
                LogItem::Return if stack.len() > 1 => {
                    let (name, children) = stack.pop().expect("more than the root");
                    let parent = &mut stack.last_mut().expect("the root").1;
                    match name {
                        Some(name) => parent.push(CallTree { name, children }),
                        None => parent.extend(children),
                    }
                }
                LogItem::Return => {}
                LogItem::End => break,
            }
        }
        // Calls still open (a flat log) close in order.
        while stack.len() > 1 {
            let (name, children) = stack.pop().expect("more than the root");
            let parent = &mut stack.last_mut().expect("the root").1;
            match name {
                Some(name) => {
                    // In a flat log a call has no children: its successors were siblings.
                    parent.push(CallTree {
                        name,
                        children: Vec::new(),
                    });
                    parent.extend(children);
                }
                None => parent.extend(children),
            }
        }
        let (name, children) = stack.pop().expect("the root");
        CallTree {
            name: name.unwrap_or_default(),
            children,
        }
    }

    /// The letters of the tree in preorder (without the root), then `end`.
    pub fn word(&self, end: &str) -> Vec<String> {
        let mut out = Vec::new();
        fn walk(t: &CallTree, out: &mut Vec<String>) {
            for c in &t.children {
                out.push(c.name.clone());
                walk(c, out);
            }
        }
        walk(self, &mut out);
        out.push(end.to_string());
        out
    }
}

/// What a branch did to a call that the base made: the base's subtree → the branch's, for
/// every call the alignment matched (the same function at the same place).
type Changes = HashMap<CallTree, Option<CallTree>>;

fn collect_changes(o: &CallTree, x: &CallTree, out: &mut Changes) {
    let pairs = lcs(&o.children, &x.children);
    for (i, j) in pairs {
        let (oc, xc) = (&o.children[i], &x.children[j]);
        if oc != xc {
            match out.get(oc) {
                // Two different changes of one behaviour: nothing to carry over.
                Some(Some(prev)) if prev != xc => {
                    out.insert(oc.clone(), None);
                }
                Some(_) => {}
                None => {
                    out.insert(oc.clone(), Some(xc.clone()));
                }
            }
        }
        collect_changes(oc, xc, out);
    }
}

/// `t` with the other branch's changes applied where it makes a call the base made too.
fn carry(t: &CallTree, changes: &Changes) -> CallTree {
    if let Some(Some(changed)) = changes.get(t) {
        return changed.clone();
    }
    CallTree {
        name: t.name.clone(),
        children: t.children.iter().map(|c| carry(c, changes)).collect(),
    }
}

/// The expected tree: O's tree with A's and B's changes, or [`Overlap`].
pub(crate) fn merge3(o: &CallTree, a: &CallTree, b: &CallTree) -> Result<CallTree, Overlap> {
    merge_with(o, a, b, false)
}

/// Where both branches made the same change to one part of the execution, diff3 takes it
/// once; but the trees do not say where in the code each branch made it, and two branches
/// adding the same call at two call sites that run in one gap between calls of the base
/// look alike. This is the tree with every such change taken twice (ours', then theirs'):
/// a merge that matches it is ambiguous, not unexpected. `None` when no part was changed
/// identically by both.
pub(crate) fn merge3_twice(o: &CallTree, a: &CallTree, b: &CallTree) -> Option<CallTree> {
    let twice = merge_with(o, a, b, true).ok()?;
    (Ok(&twice) != merge3(o, a, b).as_ref()).then_some(twice)
}

fn merge_with(o: &CallTree, a: &CallTree, b: &CallTree, twice: bool) -> Result<CallTree, Overlap> {
    let mut changes_a = Changes::new();
    let mut changes_b = Changes::new();
    collect_changes(o, a, &mut changes_a);
    collect_changes(o, b, &mut changes_b);
    let changes = Both {
        a: &changes_a,
        b: &changes_b,
        twice,
    };
    merge_node(o, a, b, &changes)
}

/// What each branch changed, and whether identical changes are taken twice.
struct Both<'a> {
    a: &'a Changes,
    b: &'a Changes,
    twice: bool,
}

fn merge_node(o: &CallTree, a: &CallTree, b: &CallTree, both: &Both) -> Result<CallTree, Overlap> {
    let (changes_a, changes_b) = (both.a, both.b);
    if a == o {
        return Ok(carry(b, changes_a));
    }
    if b == o || (a == b && !both.twice) {
        return Ok(carry(a, changes_b));
    }
    let name = |ts: &[CallTree]| ts.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    let (oc, ac, bc) = (&o.children, &a.children, &b.children);
    let ma = matching(oc, ac);
    let mb = matching(oc, bc);
    let mut children = Vec::new();
    let (mut io, mut ia, mut ib) = (0, 0, 0);
    loop {
        // Stable calls: aligned in all three.
        while io < oc.len() && ma[io] == Some(ia) && mb[io] == Some(ib) {
            children.push(merge_node(&oc[io], &ac[ia], &bc[ib], both)?);
            io += 1;
            ia += 1;
            ib += 1;
        }
        if io == oc.len() && ia == ac.len() && ib == bc.len() {
            break;
        }
        // The next call of O that both branches kept, or the end.
        let next = (io..oc.len()).find_map(|k| Some((k, ma[k]?, mb[k]?)));
        let (ko, ka, kb) = next.unwrap_or((oc.len(), ac.len(), bc.len()));
        let (po, pa, pb) = (&oc[io..ko], &ac[ia..ka], &bc[ib..kb]);
        if name(pa) == name(po) {
            // Only B changed which calls are made here; A's changes to what they do carry,
            // unless B dropped a call whose inside A changed (delete against modify).
            if drops_changed(po, pa, pb) {
                return Err(Overlap);
            }
            children.extend(pb.iter().map(|t| carry(t, changes_a)));
        } else if name(pb) == name(po) {
            if drops_changed(po, pb, pa) {
                return Err(Overlap);
            }
            children.extend(pa.iter().map(|t| carry(t, changes_b)));
        } else if pa == pb {
            children.extend(pa.iter().cloned());
            if both.twice {
                children.extend(pb.iter().cloned());
            }
        } else {
            return Err(Overlap);
        }
        io = ko;
        ia = ka;
        ib = kb;
    }
    Ok(CallTree {
        name: o.name.clone(),
        children,
    })
}

/// Whether `other` dropped a call of `o` whose subtree this branch's `x` (the same calls
/// as `o`) changed: the merge cannot both remove the call and change what it does, as
/// structured merges report a delete/modify conflict. A call `other` moved (into a new
/// call, say) is not dropped: the change carries to it.
fn drops_changed(o: &[CallTree], x: &[CallTree], other: &[CallTree]) -> bool {
    fn makes(ts: &[CallTree], name: &str) -> bool {
        ts.iter()
            .any(|t| t.name == name || makes(&t.children, name))
    }
    o.iter()
        .zip(x)
        .any(|(o, x)| o != x && !makes(other, &o.name))
}

/// For each of `o`'s calls, the index of the call of `x` it is aligned with.
fn matching(o: &[CallTree], x: &[CallTree]) -> Vec<Option<usize>> {
    let mut m = vec![None; o.len()];
    for (i, j) in lcs(o, x) {
        m[i] = Some(j);
    }
    m
}

/// A longest common subsequence of two call sequences by function name, as index pairs.
fn lcs(o: &[CallTree], x: &[CallTree]) -> Vec<(usize, usize)> {
    longest_common_subsequence(o, x, |a, b| a.name == b.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `main[a[x] b]` notation: a name, then its children in brackets.
    fn tree(s: &str) -> CallTree {
        fn parse(tokens: &[&str], i: &mut usize) -> Vec<CallTree> {
            let mut out: Vec<CallTree> = Vec::new();
            while *i < tokens.len() {
                match tokens[*i] {
                    "[" => {
                        *i += 1;
                        let children = parse(tokens, i);
                        out.last_mut().unwrap().children = children;
                    }
                    "]" => {
                        *i += 1;
                        return out;
                    }
                    name => {
                        *i += 1;
                        out.push(CallTree {
                            name: name.to_string(),
                            children: vec![],
                        });
                    }
                }
            }
            out
        }
        let spaced = s.replace('[', " [ ").replace(']', " ] ");
        let tokens: Vec<&str> = spaced.split_whitespace().collect();
        parse(&tokens, &mut 0).remove(0)
    }

    fn m(o: &str, a: &str, b: &str) -> Result<CallTree, Overlap> {
        merge3(&tree(o), &tree(a), &tree(b))
    }

    #[test]
    fn deleting_a_call_whose_inside_the_other_branch_changed_overlaps() {
        // Ours drops `cleanup`, theirs syncs inside it: no merge does both.
        assert_eq!(
            m(
                "main[cleanup[close] end]",
                "main[end]",
                "main[cleanup[close sync] end]"
            ),
            Err(Overlap)
        );
        assert_eq!(
            m(
                "main[cleanup[close] end]",
                "main[cleanup[close sync] end]",
                "main[end]"
            ),
            Err(Overlap)
        );
        // Dropping a call the other branch left alone is that branch's change alone.
        assert_eq!(
            m(
                "main[cleanup[close] log end]",
                "main[log end]",
                "main[cleanup[close] log trace end]"
            ),
            Ok(tree("main[log trace end]"))
        );
    }

    #[test]
    fn independent_changes_in_two_functions_compose() {
        assert_eq!(
            m("main[a b]", "main[a[trace] b]", "main[a b[verify]]"),
            Ok(tree("main[a[trace] b[verify]]"))
        );
    }

    #[test]
    fn a_new_call_gets_the_other_branchs_body() {
        assert_eq!(
            m("main[f[g]]", "main[f[h]]", "main[f[g] f[g]]"),
            Ok(tree("main[f[h] f[h]]"))
        );
    }

    #[test]
    fn both_replacing_one_call_differently_overlap() {
        assert_eq!(m("main[a b]", "main[a z[b]]", "main[a c]"), Err(Overlap));
        // Fig. 12 when the guard holds: theirs is the base, ours' move is expected.
        assert_eq!(
            m("main[a b]", "main[a z[b]]", "main[a b]"),
            Ok(tree("main[a z[b]]"))
        );
    }

    #[test]
    fn a_move_and_a_body_change_compose() {
        assert_eq!(
            m("main[a b]", "main[a z[b]]", "main[a b[c]]"),
            Ok(tree("main[a z[b[c]]]"))
        );
    }

    #[test]
    fn identical_changes_taken_twice_are_the_ambiguous_reading() {
        assert_eq!(
            merge3_twice(
                &tree("main[a b]"),
                &tree("main[a log b]"),
                &tree("main[a log b]")
            ),
            Some(tree("main[a log log b]"))
        );
        assert_eq!(
            merge3_twice(&tree("main[a]"), &tree("main[a x]"), &tree("main[a y]")),
            None
        );
    }

    #[test]
    fn identical_changes_are_taken_once() {
        assert_eq!(
            m("main[a]", "main[a x]", "main[a x]"),
            Ok(tree("main[a x]"))
        );
    }

    #[test]
    fn logs_become_trees_with_spliced_calls() {
        use LogItem::*;
        let log = [
            Enter("a"),
            Enter("hidden"),
            Enter("b"),
            Return,
            Return,
            Return,
            Enter("c"),
            Return,
            End,
        ];
        let t = CallTree::from_log("main", &log, |n| n != "hidden");
        assert_eq!(t, tree("main[a[b] c]"));
        assert_eq!(t.word("end"), vec!["a", "b", "c", "end"]);
        let flat = CallTree::from_log("main", &[Enter("a"), Enter("b"), End], |_| true);
        assert_eq!(flat, tree("main[a b]"));
    }
}
