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
//!
//! Each call also carries its call site (the number the review gave it, the same in every
//! version for a line the versions share). Trees are aligned and compared by function, as
//! before; the sites decide one thing, which functions alone cannot: whether both branches
//! making the same new calls in one gap is one change (the same sites: diff3 takes it
//! once) or two changes at different call sites that meet on this input (the merge makes
//! both, in the order the merge's own tree shows when it interleaves them).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::document::execution::longest_common_subsequence;

/// A call (or the entry, at the root) and the calls it made, in order. Equality and
/// hashing are by functions only; [`same_sites`] also compares the call sites.
#[derive(Clone, Debug)]
pub(crate) struct CallTree {
    pub name: String,
    /// Where the call was made (0: not known, and the root).
    pub site: u32,
    pub children: Vec<CallTree>,
}

impl PartialEq for CallTree {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.children == other.children
    }
}

impl Eq for CallTree {}

impl Hash for CallTree {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.children.hash(state);
    }
}

/// Whether two call sequences make the same calls from the same call sites, all the way
/// down.
fn same_sites(x: &[CallTree], y: &[CallTree]) -> bool {
    x.len() == y.len()
        && x.iter().zip(y).all(|(x, y)| {
            x.name == y.name && x.site == y.site && same_sites(&x.children, &y.children)
        })
}

/// Whether two call sequences with the same functions make some call from two sites known
/// to differ.
fn sites_clash(x: &[CallTree], y: &[CallTree]) -> bool {
    x.iter().zip(y).any(|(x, y)| {
        (x.site != 0 && y.site != 0 && x.site != y.site) || sites_clash(&x.children, &y.children)
    })
}

/// Whether `m` interleaves `x` and `y` (each in its order, sites compared).
fn interleaves(m: &[CallTree], x: &[CallTree], y: &[CallTree]) -> bool {
    if m.len() != x.len() + y.len() {
        return false;
    }
    let same =
        |p: &CallTree, q: &CallTree| same_sites(std::slice::from_ref(p), std::slice::from_ref(q));
    // can[j]: the first i + j calls of `m` interleave x[..i] and y[..j], for the current i.
    let mut can = vec![false; y.len() + 1];
    for i in 0..=x.len() {
        for j in 0..=y.len() {
            can[j] = if i == 0 && j == 0 {
                true
            } else {
                let k = i + j - 1;
                (i > 0 && can[j] && same(&m[k], &x[i - 1]))
                    || (j > 0 && can[j - 1] && same(&m[k], &y[j - 1]))
            };
        }
    }
    can[y.len()]
}

/// One item of a version's log, with letters named: a call's function and site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LogItem<'a> {
    Enter(&'a str, u32),
    Return,
    End,
}

/// Both branches changed the same part of an execution differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Overlap;

impl CallTree {
    /// The tree of a log (entries, returns, `end`) under the root `entry`. Letters that
    /// `opens` names are function entries, which a return closes; the others (branch and
    /// call events, markers) are leaves. Calls whose names `keep` rejects are spliced out:
    /// their calls become their caller's. Without returns (flat logs), every letter is a
    /// child of the root.
    pub fn from_log(
        entry: &str,
        log: &[LogItem],
        keep: impl Fn(&str) -> bool,
        opens: impl Fn(&str) -> bool,
    ) -> CallTree {
        // The open calls (name and site), the root first; `None` marks a spliced call.
        type Open = (Option<(String, u32)>, Vec<CallTree>);
        let mut stack: Vec<Open> = vec![(Some((entry.into(), 0)), vec![])];
        for item in log {
            match item {
                LogItem::Enter(name, site) if !opens(name) => {
                    if keep(name) {
                        let leaf = CallTree {
                            name: name.to_string(),
                            site: *site,
                            children: Vec::new(),
                        };
                        stack.last_mut().expect("the root").1.push(leaf);
                    }
                }
                LogItem::Enter(name, site) => {
                    let kept = keep(name).then(|| (name.to_string(), *site));
                    stack.push((kept, Vec::new()));
                }
                LogItem::Return if stack.len() > 1 => {
                    let (name, children) = stack.pop().expect("more than the root");
                    let parent = &mut stack.last_mut().expect("the root").1;
                    match name {
                        Some((name, site)) => parent.push(CallTree {
                            name,
                            site,
                            children,
                        }),
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
                Some((name, site)) => {
                    // In a flat log a call has no children: its successors were siblings.
                    parent.push(CallTree {
                        name,
                        site,
                        children: Vec::new(),
                    });
                    parent.extend(children);
                }
                None => parent.extend(children),
            }
        }
        let (name, children) = stack.pop().expect("the root");
        CallTree {
            name: name.map(|(n, _)| n).unwrap_or_default(),
            site: 0,
            children,
        }
    }

    /// The letters of the tree in preorder (without the root) that `shown` names, then
    /// `end`.
    pub fn word(&self, end: &str, shown: impl Fn(&str) -> bool) -> Vec<String> {
        fn walk(t: &CallTree, shown: &dyn Fn(&str) -> bool, out: &mut Vec<String>) {
            for c in &t.children {
                if shown(&c.name) {
                    out.push(c.name.clone());
                }
                walk(c, shown, out);
            }
        }
        let mut out = Vec::new();
        walk(self, &shown, &mut out);
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
        site: t.site,
        children: t.children.iter().map(|c| carry(c, changes)).collect(),
    }
}

/// The expected tree: O's tree with A's and B's changes, or [`Overlap`]. Where both
/// branches made new calls from different sites in one gap, the merge makes both: in the
/// order `merged` (the merge's tree, when given) has them if it interleaves them, else
/// ours' first.
pub(crate) fn merge3(
    o: &CallTree,
    a: &CallTree,
    b: &CallTree,
    merged: Option<&CallTree>,
) -> Result<CallTree, Overlap> {
    merge_with(o, a, b, false, merged)
}

/// Where both branches made the same change to one part of the execution, diff3 takes it
/// once; but where a call site is not known (a call through a pointer), two branches adding
/// the same call at two call sites that run in one gap between calls of the base look
/// alike. This is the tree with every such change taken twice (ours', then theirs'): a
/// merge that matches it is ambiguous, not unexpected. `None` when no part was changed
/// identically by both.
pub(crate) fn merge3_twice(o: &CallTree, a: &CallTree, b: &CallTree) -> Option<CallTree> {
    let twice = merge_with(o, a, b, true, None).ok()?;
    (Ok(&twice) != merge3(o, a, b, None).as_ref()).then_some(twice)
}

fn merge_with(
    o: &CallTree,
    a: &CallTree,
    b: &CallTree,
    twice: bool,
    merged: Option<&CallTree>,
) -> Result<CallTree, Overlap> {
    let mut changes_a = Changes::new();
    let mut changes_b = Changes::new();
    collect_changes(o, a, &mut changes_a);
    collect_changes(o, b, &mut changes_b);
    let changes = Both {
        a: &changes_a,
        b: &changes_b,
        twice,
    };
    merge_node(o, a, b, &changes, merged)
}

/// What each branch changed, and whether identical changes are taken twice.
struct Both<'a> {
    a: &'a Changes,
    b: &'a Changes,
    twice: bool,
}

/// The merge of one call; `guide` is the merge's call at the same place, if it has one,
/// which orders two branches' new calls where they interleave.
fn merge_node(
    o: &CallTree,
    a: &CallTree,
    b: &CallTree,
    both: &Both,
    guide: Option<&CallTree>,
) -> Result<CallTree, Overlap> {
    let (changes_a, changes_b) = (both.a, both.b);
    if a == o {
        return Ok(carry(b, changes_a));
    }
    if b == o || (a == b && !both.twice && !two_changes(&a.children, &b.children)) {
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
            let next = guide.and_then(|g| g.children.get(children.len()));
            children.push(merge_node(&oc[io], &ac[ia], &bc[ib], both, next)?);
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
        } else if pa == pb && !two_changes(pa, pb) {
            children.extend(pa.iter().cloned());
            if both.twice {
                children.extend(pb.iter().cloned());
            }
        } else if pa == pb {
            let at = children.len();
            let shown = guide.and_then(|g| g.children.get(at..at + pa.len() + pb.len()));
            match shown {
                Some(m) if interleaves(m, pa, pb) => children.extend(m.iter().cloned()),
                _ => children.extend(pa.iter().chain(pb).cloned()),
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
        site: o.site,
        children,
    })
}

/// Whether two branches' same new calls are two changes: made from call sites known to
/// differ. Where a site is not known, they are taken for one change (and the merge made
/// twice is ambiguous, see [`merge3_twice`]).
fn two_changes(pa: &[CallTree], pb: &[CallTree]) -> bool {
    sites_clash(pa, pb)
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

    /// `main[a[x] b@3]` notation: a name (and its call site after `@`), then its children
    /// in brackets.
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
                    token => {
                        *i += 1;
                        let (name, site) = token.split_once('@').unwrap_or((token, "0"));
                        out.push(CallTree {
                            name: name.to_string(),
                            site: site.parse().unwrap(),
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
        merge3(&tree(o), &tree(a), &tree(b), None)
    }

    /// The merge of `o`, `a`, `b` guided by `merged`, and whether it is `merged`, sites
    /// compared.
    fn explains(o: &str, a: &str, b: &str, merged: &str) -> bool {
        let merged = tree(merged);
        merge3(&tree(o), &tree(a), &tree(b), Some(&merged))
            .is_ok_and(|e| same_sites(&[e], std::slice::from_ref(&merged)))
    }

    #[test]
    fn the_same_call_added_at_two_sites_is_two_changes() {
        let (o, a, b) = ("main[a b]", "main[a log@1 b]", "main[a log@2 b]");
        assert!(explains(o, a, b, "main[a log@1 log@2 b]"));
        // In the order the merge makes them: its code decides, not ours-first.
        assert!(explains(o, a, b, "main[a log@2 log@1 b]"));
        // A merge that makes only one lost the other branch's call.
        assert!(!explains(o, a, b, "main[a log@1 b]"));
        assert!(!explains(o, a, b, "main[a log@2 b]"));
        // With no base call around them, and inside a call.
        assert!(explains(
            "main",
            "main[log@1]",
            "main[log@2]",
            "main[log@1 log@2]"
        ));
        assert!(explains(
            "main[f]",
            "main[f[log@1]]",
            "main[f[log@2]]",
            "main[f[log@2 log@1]]"
        ));
        // Interleaved with each branch's order kept.
        assert!(explains(
            "main",
            "main[x@1 y@2]",
            "main[x@3 y@4]",
            "main[x@1 x@3 y@4 y@2]"
        ));
        assert!(!explains(
            "main",
            "main[x@1 y@2]",
            "main[x@3 y@4]",
            "main[y@2 x@1 x@3 y@4]"
        ));
    }

    #[test]
    fn a_call_moved_to_another_line_composes_with_a_body_change() {
        // Ours edits the line of the call of `f`, theirs what `f` does.
        assert_eq!(
            m("main[f@1[g]]", "main[f@5[g]]", "main[f@1[h]]"),
            Ok(tree("main[f[h]]"))
        );
    }

    #[test]
    fn the_same_call_at_the_same_site_or_an_unknown_one_is_one_change() {
        let (o, a) = ("main[a b]", "main[a log@1 b]");
        assert!(explains(o, a, "main[a log@1 b]", "main[a log@1 b]"));
        assert!(!explains(o, a, "main[a log@1 b]", "main[a log@1 log@1 b]"));
        // A call through a pointer names no site: diff3's reading, and the twice one is
        // left to `merge3_twice`.
        assert!(explains(o, a, "main[a log b]", "main[a log@1 b]"));
        assert_eq!(
            merge3_twice(&tree(o), &tree(a), &tree("main[a log b]")),
            Some(tree("main[a log log b]"))
        );
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
            Enter("a", 1),
            Enter("hidden", 2),
            Enter("b", 3),
            Return,
            Return,
            Return,
            Enter("c", 4),
            Return,
            End,
        ];
        let t = CallTree::from_log("main", &log, |n| n != "hidden", |_| true);
        assert_eq!(t, tree("main[a[b] c]"));
        assert_eq!(t.word("end", |_| true), vec!["a", "b", "c", "end"]);
        assert_eq!(t.word("end", |n| n != "a"), vec!["b", "c", "end"]);
        assert!(same_sites(&[t], &[tree("main[a@1[b@3] c@4]")]));
        // Branch events are leaves: a return closes the function around them.
        let branches = [
            Enter("f", 0),
            Enter("f:3:then", 0),
            Enter("g", 0),
            Return,
            Return,
            Enter("main:9:else", 0),
            End,
        ];
        let t = CallTree::from_log("main", &branches, |_| true, |n| !n.contains(':'));
        assert_eq!(t, tree("main[f[f:3:then g] main:9:else]"));
        let flat = CallTree::from_log(
            "main",
            &[Enter("a", 0), Enter("b", 0), End],
            |_| true,
            |_| true,
        );
        assert_eq!(flat, tree("main[a b]"));
    }
}
