//! Unit tests of the three-way merge of call trees, on trees written as `main[a[x] b@3]`.

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

#[test]
fn different_calls_inserted_by_the_two_branches_compose_wherever_they_meet() {
    // At the start, in the middle and at the end of one execution: two call sites, two
    // changes, whatever the callees.
    let (o, a, b) = ("main[b]", "main[begin b]", "main[alpha b]");
    assert!(explains(o, a, b, "main[begin alpha b]"));
    assert!(explains(o, a, b, "main[alpha begin b]"));
    assert!(!explains(o, a, b, "main[begin b]"));
    assert!(explains(
        "main[b]",
        "main[b x1]",
        "main[b x2]",
        "main[b x2 x1]"
    ));
    assert!(explains(
        "main[a b c]",
        "main[a x b c]",
        "main[a b y c]",
        "main[a x b y c]"
    ));
    // Without a guide, in the base's order, ours' first where either may be.
    assert_eq!(m(o, a, b), Ok(tree("main[begin alpha b]")));
}

#[test]
fn a_call_one_branch_drops_beside_the_others_insertion_composes() {
    assert_eq!(
        m("main[a b e]", "main[a e]", "main[a b x e]"),
        Ok(tree("main[a x e]"))
    );
    // The insertion before a base call the other branch replaced comes first: the base
    // orders them.
    assert!(explains(
        "main[a b e]",
        "main[a c e]",
        "main[a x b e]",
        "main[a x c e]"
    ));
    // Inside what the other branch replaced, it overlaps: no place orders them.
    assert_eq!(m("main[p q]", "main", "main[p x q]"), Err(Overlap));
}

#[test]
fn an_insertion_after_the_other_branchs_replacement_keeps_the_base_order() {
    // Ours replaced `b` by `c`; theirs added `x` after `b`: `c` before `x`, not after.
    let (o, a, b) = ("main[a b e]", "main[a c e]", "main[a b x e]");
    assert!(explains(o, a, b, "main[a c x e]"));
    assert!(!explains(o, a, b, "main[a x c e]"));
}

#[test]
fn an_overlap_the_merge_resolves_to_one_side_or_both_is_not_unexpected() {
    let (o, a, b) = (tree("main[a b]"), tree("main[a c]"), tree("main[a d]"));
    assert_eq!(merge3(&o, &a, &b, None), Err(Overlap));
    for kept in ["main[a c]", "main[a d]", "main[a c d]", "main[a d c]"] {
        let merged = tree(kept);
        assert_eq!(merge3_resolved(&o, &a, &b, &merged), Some(merged), "{kept}");
    }
    // Neither side's change: the merge invented it.
    for invented in ["main[a b b]", "main[a]", "main[a c c]", "main[a b]"] {
        let merged = tree(invented);
        assert_ne!(
            merge3_resolved(&o, &a, &b, &merged).as_ref(),
            Some(&merged),
            "{invented}"
        );
    }
    // Inside a stable call, and two overlaps resolved differently.
    let (o, a, b) = (
        tree("main[f[x] g[y]]"),
        tree("main[f[x1] g[y1]]"),
        tree("main[f[x2] g[y2]]"),
    );
    let merged = tree("main[f[x1] g[y2]]");
    assert_eq!(merge3_resolved(&o, &a, &b, &merged), Some(merged));
}

#[test]
fn a_merge_that_adds_a_call_twice_where_both_branches_added_different_ones_is_unexpected() {
    // Ours `a c`, theirs `a b`: two insertions compose; `a b b` is neither.
    let merged = tree("main[a b b]");
    let expected = merge3(
        &tree("main[a]"),
        &tree("main[a c]"),
        &tree("main[a b]"),
        Some(&merged),
    );
    assert_eq!(expected, Ok(tree("main[a c b]")));
}

#[test]
fn a_change_made_inside_the_other_branchs_move_is_both_changes() {
    // Fig. 12 when the guard is false: ours moved `b` into `z`, theirs replaced it by `c`,
    // and the merge calls `c` inside `z`: both changes, overlapping, not invented.
    let (o, a, b) = (tree("main[a b]"), tree("main[a z[b]]"), tree("main[a c]"));
    let merged = tree("main[a z[c]]");
    assert_eq!(merge3(&o, &a, &b, Some(&merged)), Err(Overlap));
    assert_eq!(merge3_resolved(&o, &a, &b, &merged), Some(merged));
    let invented = tree("main[a z[b b]]");
    assert_eq!(merge3_resolved(&o, &a, &b, &invented), None);
}

#[test]
fn an_early_return_that_skips_the_others_new_last_call_overlaps() {
    // Ours returns early after `a` (dropping `b`); theirs calls `audit` after `b`.
    let (o, a, b) = (tree("main[a b]"), tree("main[a]"), tree("main[a b audit]"));
    assert_eq!(merge3(&o, &a, &b, None), Err(Overlap));
    // The merge returns early too: ours' change kept, theirs' call lost.
    let merged = tree("main[a]");
    assert_eq!(merge3_resolved(&o, &a, &b, &merged), Some(merged));
    // Audited before returning: both changes.
    let merged = tree("main[a audit]");
    assert_eq!(merge3_resolved(&o, &a, &b, &merged), Some(merged));
    // A call the other branch added after a base call both keep is not cut.
    assert_eq!(
        m("main[a b c]", "main[a c]", "main[a b x c]"),
        Ok(tree("main[a x c]"))
    );
}

/// Random call trees of at most three levels over four functions and three sites.
fn arbitrary_tree() -> impl proptest::strategy::Strategy<Value = CallTree> {
    use proptest::prelude::*;
    let leaf = (0..4u8, 0..3u32).prop_map(|(n, site)| CallTree {
        name: ["a", "b", "c", "d"][n as usize].to_string(),
        site,
        children: Vec::new(),
    });
    let node = leaf.prop_recursive(2, 12, 4, |inner| {
        (0..4u8, 0..3u32, proptest::collection::vec(inner, 0..4)).prop_map(|(n, site, children)| {
            CallTree {
                name: ["a", "b", "c", "d"][n as usize].to_string(),
                site,
                children,
            }
        })
    });
    proptest::collection::vec(node, 0..5).prop_map(|children| CallTree {
        name: "main".into(),
        site: 0,
        children,
    })
}

/// Whether no two calls anywhere in `t` (its root aside) are the same subtree.
fn distinct_subtrees(t: &CallTree) -> bool {
    fn walk<'t>(t: &'t CallTree, seen: &mut Vec<&'t CallTree>) -> bool {
        t.children.iter().all(|c| {
            let new = !seen.contains(&c);
            seen.push(c);
            new && walk(c, seen)
        })
    }
    walk(t, &mut Vec::new())
}

proptest::proptest! {
    /// A branch that changed nothing leaves the other's tree; the merge is symmetric up to
    /// the order of two branches' calls; a merge that resolves the overlaps one side's way
    /// is never taken for invented behaviour.
    #[test]
    fn the_merge_is_diff3s(o in arbitrary_tree(), a in arbitrary_tree(), b in arbitrary_tree()) {
        proptest::prop_assert_eq!(merge3(&o, &o, &b, None), Ok(b.clone()));
        proptest::prop_assert_eq!(merge3(&o, &a, &o, None), Ok(a.clone()));
        // Both branches made one change and the merge has it: explained, whatever the
        // change (the product's search skips such executions).
        proptest::prop_assert_eq!(merge3(&o, &a, &a, Some(&a)), Ok(a.clone()));
        let ab = merge3(&o, &a, &b, None);
        let ba = merge3(&o, &b, &a, None);
        // Known limitation: a branch's changes are carried to the other's moved calls by
        // the base subtree they changed, which is ambiguous where the base makes one
        // subtree twice (`main[a, a]`, one `a` changed): the two orders can then differ
        // (proptest-regressions/review/diff3/tests.txt, the second case). Symmetry is
        // asserted where the base's calls are distinct.
        let distinct = distinct_subtrees(&o);
        proptest::prop_assert!(!distinct || ab.is_ok() == ba.is_ok());
        if let (Ok(x), Ok(y), true) = (&ab, &ba, distinct) {
            proptest::prop_assert_eq!(x.word("end", |_| true).len(), y.word("end", |_| true).len());
            // Guided by one of them, the other merge takes its order.
            proptest::prop_assert_eq!(merge3(&o, &b, &a, Some(x)).map(|t| t.word("end", |_| true).len()), Ok(x.word("end", |_| true).len()));
        }
        if ab.is_err() {
            // A merge that resolves every overlap as one side does is resolved to itself.
            for side in [&a, &b] {
                if let Some(resolved) = merge3_resolved(&o, &a, &b, side) {
                    proptest::prop_assert_eq!(
                        merge3_resolved(&o, &a, &b, &resolved),
                        Some(resolved.clone())
                    );
                }
            }
        }
    }
}
