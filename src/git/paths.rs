//! Where a path of a version really leads: symbolic links resolved by their targets,
//! component by component, relative to the version's checkout.
//!
//! Key items: [`resolve_in_tree`] follows a path through the links of a tree (a snapshot's,
//! given as a lookup of link targets) the way the kernel will once the tree is written, and
//! answers [`Resolved::Inside`] with the real repository path or [`Resolved::Outside`];
//! [`repo_relative`] checks a path a repository's configuration names.
//!
//! A lexical check is not enough: in `d1/…/d6/up → ../../../../../..` and
//! `x.c → d1/…/d6/up/../../../../../../../tmp/secret.c` every `..` of `x.c`'s target pops a
//! name it pushed, yet `up` already stands at the root, so the real target is `/tmp/secret.c`.

use std::path::{Component, Path};

/// At most this many links on one path (the kernel's own limit is 40).
pub const MAX_LINK_HOPS: usize = 40;

/// Where a path leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// To this repository path ('/'-separated, possibly of a file that does not exist).
    Inside(String),
    /// Out of the tree, into `.git`, or through too many links; the reason.
    Outside(&'static str),
}

/// Resolves `target`, the target of a link at `link` (repository path), through the links
/// of the tree: `link_target(p)` is the target of the link at repository path `p`, `None`
/// when `p` is not a link.
pub fn resolve_link(
    link: &str,
    target: &str,
    link_target: &dyn Fn(&str) -> Option<String>,
) -> Resolved {
    let mut stack: Vec<String> = link.split('/').map(str::to_string).collect();
    stack.pop();
    walk(stack, target, link_target)
}

/// Resolves a repository path (which may pass through links) to where it really leads.
pub fn resolve_in_tree(path: &str, link_target: &dyn Fn(&str) -> Option<String>) -> Resolved {
    walk(Vec::new(), path, link_target)
}

fn walk(
    mut stack: Vec<String>,
    path: &str,
    link_target: &dyn Fn(&str) -> Option<String>,
) -> Resolved {
    if path.starts_with('/') {
        return Resolved::Outside("an absolute target");
    }
    // Components still to walk, the next one last.
    let mut todo: Vec<String> = path.split('/').rev().map(str::to_string).collect();
    let mut hops = 0;
    while let Some(name) = todo.pop() {
        match name.as_str() {
            "" | "." => {}
            ".." => {
                if stack.pop().is_none() {
                    return Resolved::Outside("it leaves the checkout");
                }
            }
            _ => {
                if name.eq_ignore_ascii_case(".git") || name.contains('\\') || name.contains('\0') {
                    return Resolved::Outside("it leads into .git or has an unsafe name");
                }
                stack.push(name);
                let here = stack.join("/");
                if let Some(target) = link_target(&here) {
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Resolved::Outside("too many links (a loop)");
                    }
                    if target.starts_with('/') {
                        return Resolved::Outside("a link on the way is absolute");
                    }
                    stack.pop();
                    todo.extend(target.split('/').rev().map(str::to_string));
                }
            }
        }
    }
    Resolved::Inside(stack.join("/"))
}

/// Why a path from a repository's configuration is refused, if it is: absolute, or with a
/// `..` component (which, after a link, can leave the checkout whatever it looks like).
pub fn repo_relative(path: &str) -> Result<(), &'static str> {
    let p = Path::new(path);
    if p.is_absolute() || path.starts_with('~') {
        return Err("an absolute path");
    }
    for c in p.components() {
        match c {
            Component::ParentDir => return Err("a `..` component"),
            Component::RootDir | Component::Prefix(_) => return Err("an absolute path"),
            Component::Normal(n) if n.eq_ignore_ascii_case(".git") => {
                return Err("a .git component");
            }
            _ => {}
        }
    }
    Ok(())
}

/// How a path of a checkout is shown: relative to `root` (through symbolic links), or as
/// it is when it lies elsewhere.
pub fn shown_relative(path: &Path, root: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    path.strip_prefix(&root)
        .unwrap_or(&path)
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn links(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        move |p| map.get(p).cloned()
    }

    #[test]
    fn a_chain_of_in_tree_links_that_really_leaves_is_outside() {
        let l = links(&[("d1/d2/d3/d4/d5/d6/up", "../../../../../..")]);
        assert_eq!(
            resolve_link("d1/d2/d3/d4/d5/d6/up", "../../../../../..", &l),
            Resolved::Inside(String::new())
        );
        let x = "d1/d2/d3/d4/d5/d6/up/../../../../../../../tmp/secret.c";
        assert!(matches!(resolve_link("x.c", x, &l), Resolved::Outside(_)));
        // The same target without the link would stay inside.
        let none = links(&[]);
        assert!(matches!(resolve_link("x.c", x, &none), Resolved::Inside(_)));
    }

    #[test]
    fn links_inside_resolve_to_their_real_path() {
        let l = links(&[("inc", "src/include"), ("a.h", "inc/a.h")]);
        assert_eq!(
            resolve_link("a.h", "inc/a.h", &l),
            Resolved::Inside("src/include/a.h".into())
        );
        assert_eq!(
            resolve_in_tree("inc/../x.c", &l),
            Resolved::Inside("src/x.c".into())
        );
        let loop_ = links(&[("a", "b"), ("b", "a")]);
        assert!(matches!(
            resolve_in_tree("a/x", &loop_),
            Resolved::Outside(_)
        ));
        assert!(matches!(
            resolve_link("a", "/etc/passwd", &l),
            Resolved::Outside(_)
        ));
        assert!(matches!(
            resolve_link("a", ".git/config", &l),
            Resolved::Outside(_)
        ));
    }

    #[test]
    fn configuration_paths_must_be_plain_and_relative() {
        assert!(repo_relative("include").is_ok());
        assert!(repo_relative("src/*.c").is_ok());
        for bad in ["/usr/include", "../x", "a/../../b", "~/x", ".git/x"] {
            assert!(repo_relative(bad).is_err(), "{bad}");
        }
    }
}
