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
use std::ops::Range;

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

/// Whether two calls are the same from the same call sites, all the way down.
fn same_site(p: &CallTree, q: &CallTree) -> bool {
    same_sites(std::slice::from_ref(p), std::slice::from_ref(q))
}

/// Whether two call sequences with the same functions make some call from two sites known
/// to differ.
fn sites_clash(x: &[CallTree], y: &[CallTree]) -> bool {
    x.iter().zip(y).any(|(x, y)| {
        (x.site != 0 && y.site != 0 && x.site != y.site) || sites_clash(&x.children, &y.children)
    })
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
/// branches made new calls from different call sites in one gap, the merge makes both: in
/// the order `merged` (the merge's tree, when given) has them if it interleaves them as the
/// base orders their places, else ours' first.
pub(crate) fn merge3(
    o: &CallTree,
    a: &CallTree,
    b: &CallTree,
    merged: Option<&CallTree>,
) -> Result<CallTree, Overlap> {
    merge_with(o, a, b, Mode::default(), merged)
}

/// Where both branches made the same change to one part of the execution, diff3 takes it
/// once; but where a call site is not known (a call through a pointer), two branches adding
/// the same call at two call sites that run in one gap between calls of the base look
/// alike. This is the tree with every such change taken twice (ours', then theirs'): a
/// merge that matches it is ambiguous, not unexpected. `None` when no part was changed
/// identically by both.
pub(crate) fn merge3_twice(o: &CallTree, a: &CallTree, b: &CallTree) -> Option<CallTree> {
    let twice = Mode {
        twice: true,
        ..Mode::default()
    };
    let twice = merge_with(o, a, b, twice, None).ok()?;
    (Ok(&twice) != merge3(o, a, b, None).as_ref()).then_some(twice)
}

/// Where [`merge3`] finds an overlap: the tree with each overlapping part resolved as the
/// merge `merged` resolved it, if it kept ours' part, theirs' part, or both (interleaved);
/// `None` when at some overlap the merge does neither branch's change, nor both: behaviour
/// it invented, which is unexpected, not overlapping.
pub(crate) fn merge3_resolved(
    o: &CallTree,
    a: &CallTree,
    b: &CallTree,
    merged: &CallTree,
) -> Option<CallTree> {
    let resolve = Mode {
        resolve: true,
        ..Mode::default()
    };
    merge_with(o, a, b, resolve, Some(merged)).ok()
}

/// How [`merge_with`] treats identical changes and overlaps.
#[derive(Clone, Copy, Default)]
struct Mode {
    /// Identical changes of both branches are taken twice.
    twice: bool,
    /// An overlap takes the part of the guide (the merge) where that is ours' part,
    /// theirs' part or both; else it stays an overlap.
    resolve: bool,
}

fn merge_with(
    o: &CallTree,
    a: &CallTree,
    b: &CallTree,
    mode: Mode,
    merged: Option<&CallTree>,
) -> Result<CallTree, Overlap> {
    // Both branches ended with one tree (sites too): diff3 takes their one change once.
    // The change walk below can take a nested identical change twice.
    if same_site(a, b) && !mode.twice {
        return Ok(a.clone());
    }
    let mut changes_a = Changes::new();
    let mut changes_b = Changes::new();
    collect_changes(o, a, &mut changes_a);
    collect_changes(o, b, &mut changes_b);
    let changes = Both {
        a: &changes_a,
        b: &changes_b,
        mode,
    };
    merge_node(o, a, b, &changes, merged)
}

/// What each branch changed, and how identical changes and overlaps are taken.
struct Both<'a> {
    a: &'a Changes,
    b: &'a Changes,
    mode: Mode,
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
    if a == o {
        return Ok(carry(b, both.a));
    }
    if b == o || (a == b && !both.mode.twice && !sites_clash(&a.children, &b.children)) {
        return Ok(carry(a, both.b));
    }
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
        let gap = Gap {
            o: &oc[io..ko],
            a: &ac[ia..ka],
            b: &bc[ib..kb],
            ma: ma[io..ko].iter().map(|m| m.map(|j| j - ia)).collect(),
            mb: mb[io..ko].iter().map(|m| m.map(|j| j - ib)).collect(),
            tail: ko == oc.len(),
        };
        let shown = guide.map(|g| g.children.get(children.len()..).unwrap_or_default());
        let part = match gap.merge(both, shown) {
            Err(Overlap) if both.mode.resolve => {
                let after = oc.get(ko).map(|t| t.name.as_str());
                gap.resolved(both, shown, after)?
            }
            part => part?,
        };
        children.extend(part);
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

/// The calls between two stable calls (or the ends): the base's, and each branch's, with
/// the index of the branch's call each base call is aligned with.
struct Gap<'t> {
    o: &'t [CallTree],
    a: &'t [CallTree],
    b: &'t [CallTree],
    ma: Vec<Option<usize>>,
    mb: Vec<Option<usize>>,
    /// No stable call follows: a branch that drops the gap's last calls may have cut the
    /// execution short there (an early return), which also skips what the other branch
    /// added at the end.
    tail: bool,
}

/// One branch's change in a gap: the base calls `base` (indices into the gap's; empty for
/// an insertion before call `base.start`) replaced by its calls `calls`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Region {
    base: Range<usize>,
    calls: Range<usize>,
}

impl Region {
    /// Where the region's calls lie among the base's, as a range of positions `start..=end`
    /// in which base call `k` is at `2k + 1` and the place before it at `2k`: an insertion
    /// is at one place, a replacement at the base calls it replaced.
    fn place(&self) -> (usize, usize) {
        if self.base.is_empty() {
            (2 * self.base.start, 2 * self.base.start)
        } else {
            (2 * self.base.start + 1, 2 * self.base.end - 1)
        }
    }
}

/// How two branches' regions of one gap meet.
#[derive(Debug, PartialEq, Eq)]
enum Meet {
    /// At different places: two changes.
    Apart,
    /// The same change (the same base calls replaced by the same calls from the same
    /// sites): one change, taken once.
    Same,
    /// Both changed the same base call, or inserted calls from the same call site
    /// differently, or one inserted inside what the other replaced.
    Overlap,
}

/// A call of the expected gap, with the positions among the base's calls where it lies
/// (see [`Region::place`]), which order it against the other branch's calls.
struct Placed {
    tree: CallTree,
    start: usize,
    end: usize,
}

impl Gap<'_> {
    /// The expected calls of the gap: each branch's changes where only it changed, both
    /// branches' changes where they are apart (in the merge's order when it interleaves
    /// them as the base orders their places), or [`Overlap`].
    fn merge(&self, both: &Both, shown: Option<&[CallTree]>) -> Result<Vec<CallTree>, Overlap> {
        let name = |ts: &[CallTree]| ts.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        let (po, pa, pb) = (self.o, self.a, self.b);
        if name(pa) == name(po) {
            // Only B changed which calls are made here; A's changes to what they do carry,
            // unless B dropped a call whose inside A changed (delete against modify).
            if drops_changed(po.iter().zip(pa), pb) {
                return Err(Overlap);
            }
            return Ok(pb.iter().map(|t| carry(t, both.a)).collect());
        }
        if name(pb) == name(po) {
            if drops_changed(po.iter().zip(pb), pa) {
                return Err(Overlap);
            }
            return Ok(pa.iter().map(|t| carry(t, both.b)).collect());
        }
        if pa == pb && !sites_clash(pa, pb) {
            let twice = if both.mode.twice { pb } else { &[] };
            return Ok(pa.iter().chain(twice).cloned().collect());
        }
        self.compose(both, shown, true)
    }

    /// Both branches changed the gap: their regions, composed where they are apart.
    /// `strict`: an insertion at the end of the other branch's cut tail overlaps it.
    fn compose(
        &self,
        both: &Both,
        shown: Option<&[CallTree]>,
        strict: bool,
    ) -> Result<Vec<CallTree>, Overlap> {
        if drops_changed(kept(self.o, self.a, &self.ma), self.b)
            || drops_changed(kept(self.o, self.b, &self.mb), self.a)
        {
            return Err(Overlap);
        }
        let ra = regions(self.o.len(), self.a.len(), &self.ma);
        let rb = regions(self.o.len(), self.b.len(), &self.mb);
        let mut b_taken = vec![true; rb.len()];
        let n = self.o.len();
        let cut = |r: &Region| !r.base.is_empty() && r.base.end == n;
        let at_end = |r: &Region| r.base.is_empty() && r.base.start == n;
        for x in &ra {
            for (j, y) in rb.iter().enumerate() {
                if strict && self.tail && ((cut(x) && at_end(y)) || (at_end(x) && cut(y))) {
                    return Err(Overlap);
                }
                match meet(x, &self.a[x.calls.clone()], y, &self.b[y.calls.clone()]) {
                    Meet::Apart => {}
                    Meet::Same => b_taken[j] = both.mode.twice,
                    Meet::Overlap => return Err(Overlap),
                }
            }
        }
        let placed = |regions: &[Region], calls: &[CallTree], changes: &Changes| {
            regions
                .iter()
                .flat_map(|r| {
                    calls[r.calls.clone()].iter().map(|t| Placed {
                        tree: carry(t, changes),
                        start: r.place().0,
                        end: r.place().1,
                    })
                })
                .collect::<Vec<_>>()
        };
        let xs = placed(&ra, self.a, both.b);
        let kept: Vec<Region> = rb
            .iter()
            .zip(&b_taken)
            .filter(|(_, taken)| **taken)
            .map(|(r, _)| r.clone())
            .collect();
        let ys = placed(&kept, self.b, both.a);
        let n = xs.len() + ys.len();
        Ok(match shown.and_then(|m| m.get(..n)) {
            Some(m) if interleaves(m, &xs, &ys, same_site) => m.to_vec(),
            _ => in_place_order(xs, ys),
        })
    }

    /// The gap as the merge `shown` resolved an overlap: ours' calls, theirs', or both
    /// interleaved, whichever the merge makes before `after` (the next stable call's
    /// function, or the end).
    fn resolved(
        &self,
        both: &Both,
        shown: Option<&[CallTree]>,
        after: Option<&str>,
    ) -> Result<Vec<CallTree>, Overlap> {
        let m = shown.ok_or(Overlap)?;
        let fits = |n: usize| m.len() >= n && m.get(n).map(|t| t.name.as_str()) == after;
        for part in [self.a, self.b] {
            if fits(part.len()) && m[..part.len()] == *part {
                return Ok(part.to_vec());
            }
        }
        let n = self.a.len() + self.b.len();
        // Anywhere: the overlap gives no place to order them by.
        let anywhere = |part: &[CallTree]| -> Vec<Placed> {
            part.iter()
                .map(|t| Placed {
                    tree: t.clone(),
                    start: 0,
                    end: 0,
                })
                .collect()
        };
        let (xs, ys) = (anywhere(self.a), anywhere(self.b));
        if fits(n) && interleaves(&m[..n], &xs, &ys, |p, q| p == q) {
            return Ok(m[..n].to_vec());
        }
        // Both changes, the cut tail's and the call added at its end, composed as if apart.
        if let Ok(part) = self.compose(both, Some(m), false)
            && fits(part.len())
            && m[..part.len()] == *part
        {
            return Ok(part);
        }
        // One branch's change made inside the other's: ours moved the base's calls into a
        // new call, theirs replaced them, and the merge makes theirs' inside ours'.
        for nested in [nest(self.a, self.o, self.b), nest(self.b, self.o, self.a)] {
            if nested
                .as_ref()
                .is_some_and(|t| fits(t.len()) && m[..t.len()] == **t)
            {
                return nested.ok_or(Overlap);
            }
        }
        Err(Overlap)
    }
}

/// `outer` with the calls `from` (the base's), where some call of `outer` makes them
/// inside, replaced by `to`: the other branch's change made where this branch moved the
/// base's calls. `None` when no call of `outer` makes them.
fn nest(outer: &[CallTree], from: &[CallTree], to: &[CallTree]) -> Option<Vec<CallTree>> {
    fn within(
        ts: &[CallTree],
        from: &[CallTree],
        to: &[CallTree],
        done: &mut bool,
    ) -> Vec<CallTree> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < ts.len() {
            if !*done && !from.is_empty() && ts[i..].starts_with(from) {
                out.extend(to.iter().cloned());
                *done = true;
                i += from.len();
                continue;
            }
            let t = &ts[i];
            out.push(CallTree {
                name: t.name.clone(),
                site: t.site,
                children: within(&t.children, from, to, done),
            });
            i += 1;
        }
        out
    }
    let mut done = false;
    let inner: Vec<CallTree> = outer
        .iter()
        .map(|t| CallTree {
            name: t.name.clone(),
            site: t.site,
            children: within(&t.children, from, to, &mut done),
        })
        .collect();
    done.then_some(inner)
}

/// A branch's regions of a gap of `n` base calls and `len` calls of its own, from the
/// alignment `m` (each base call's index in the branch's calls, if kept): the runs of
/// base calls it did not keep with its calls between the kept ones around them, and its
/// insertions between two kept calls.
fn regions(n: usize, len: usize, m: &[Option<usize>]) -> Vec<Region> {
    let mut out = Vec::new();
    let (mut base, mut calls) = (0, 0);
    let kept = m.iter().enumerate().filter_map(|(k, j)| Some((k, (*j)?)));
    for (k, j) in kept.chain([(n, len)]) {
        if base < k || calls < j {
            out.push(Region {
                base: base..k,
                calls: calls..j,
            });
        }
        (base, calls) = (k + 1, j + 1);
    }
    out
}

/// How region `x` (calls `xc`) of one branch meets region `y` (calls `yc`) of the other.
fn meet(x: &Region, xc: &[CallTree], y: &Region, yc: &[CallTree]) -> Meet {
    let same = xc == yc && !sites_clash(xc, yc);
    let inside = |s: usize, r: &Range<usize>| {
        if r.start < s && s < r.end {
            Meet::Overlap
        } else {
            Meet::Apart
        }
    };
    match (x.base.is_empty(), y.base.is_empty()) {
        (false, false) if x.base.start < y.base.end && y.base.start < x.base.end => {
            if x.base == y.base && same {
                Meet::Same
            } else {
                Meet::Overlap
            }
        }
        (false, false) => Meet::Apart,
        (false, true) => inside(y.base.start, &x.base),
        (true, false) => inside(x.base.start, &y.base),
        (true, true) if x.base.start != y.base.start => Meet::Apart,
        (true, true) if same => Meet::Same,
        (true, true) if shares_site(xc, yc) => Meet::Overlap,
        (true, true) => Meet::Apart,
    }
}

/// Whether two insertions make a call of one function from one call site (or from sites
/// not known apart): the same call site changed by both.
fn shares_site(xc: &[CallTree], yc: &[CallTree]) -> bool {
    xc.iter().any(|x| {
        yc.iter()
            .any(|y| x.name == y.name && (x.site == y.site || x.site == 0 || y.site == 0))
    })
}

/// The base calls `o` that the branch's calls `x` keep (by the alignment `m`), each with
/// the branch's call.
fn kept<'t>(
    o: &'t [CallTree],
    x: &'t [CallTree],
    m: &'t [Option<usize>],
) -> impl Iterator<Item = (&'t CallTree, &'t CallTree)> {
    m.iter()
        .enumerate()
        .filter_map(move |(k, j)| Some((&o[k], &x[(*j)?])))
}

/// Whether `x` may come next when `ys[j..]` are the other branch's calls still to place:
/// none of them lies wholly before it.
fn may_precede(x: &Placed, ys: &[Placed], j: usize) -> bool {
    ys.get(j).is_none_or(|y| y.end >= x.start)
}

/// Whether `m` interleaves the placed calls `xs` and `ys`, each in its order, and a call
/// of one branch before a call of the other only where the base allows it (calls compared
/// by `same`).
fn interleaves(
    m: &[CallTree],
    xs: &[Placed],
    ys: &[Placed],
    same: impl Fn(&CallTree, &CallTree) -> bool,
) -> bool {
    if m.len() != xs.len() + ys.len() {
        return false;
    }
    // can[i][j]: the first i + j calls of `m` place xs[..i] and ys[..j].
    let mut can = vec![vec![false; ys.len() + 1]; xs.len() + 1];
    can[0][0] = true;
    for i in 0..=xs.len() {
        for j in 0..=ys.len() {
            if i + j == 0 {
                continue;
            }
            let k = i + j - 1;
            can[i][j] = (i > 0
                && can[i - 1][j]
                && same(&m[k], &xs[i - 1].tree)
                && may_precede(&xs[i - 1], ys, j))
                || (j > 0
                    && can[i][j - 1]
                    && same(&m[k], &ys[j - 1].tree)
                    && may_precede(&ys[j - 1], xs, i));
        }
    }
    can[xs.len()][ys.len()]
}

/// The placed calls of both branches in base order, ours' first where either may be.
fn in_place_order(xs: Vec<Placed>, ys: Vec<Placed>) -> Vec<CallTree> {
    let mut out = Vec::with_capacity(xs.len() + ys.len());
    let (mut xs, mut ys) = (xs.into_iter().peekable(), ys.into_iter().peekable());
    loop {
        let take_y = match (xs.peek(), ys.peek()) {
            (Some(x), Some(y)) => y.end < x.start,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => break,
        };
        let next = if take_y { ys.next() } else { xs.next() };
        out.extend(next.map(|p| p.tree));
    }
    out
}

/// Whether, of the base calls `kept` pairs with this branch's calls, `other` dropped one
/// whose subtree this branch changed: the merge cannot both remove the call and change what it does, as
/// structured merges report a delete/modify conflict. A call `other` moved (into a new
/// call, say) is not dropped: the change carries to it.
fn drops_changed<'t>(
    kept: impl IntoIterator<Item = (&'t CallTree, &'t CallTree)>,
    other: &[CallTree],
) -> bool {
    fn makes(ts: &[CallTree], name: &str) -> bool {
        ts.iter()
            .any(|t| t.name == name || makes(&t.children, name))
    }
    kept.into_iter()
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
mod tests;
