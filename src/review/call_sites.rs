//! Numbers for the call sites of a product program's versions, so that a call the versions
//! share logs the same number in all of them and a call a branch added logs its own.
//!
//! Key item: [`site_numbers`], per version the number of each of its
//! [`crate::cprog::CallSite`]s.
//!
//! A site is named by where it is in the base: each version's file is diffed against the
//! base's (`similar`, by lines), and a call on a line the diff keeps is the base's line. A
//! call on a line the version changed is the base's call it replaced when the hunk's
//! removed lines call the same function (the k-th such call on the added lines is the k-th
//! on the removed ones: a call re-indented, wrapped in an `if` or given other arguments is
//! the same site); any other call on an added or changed line is named by the base line
//! its hunk starts at, the line's text and how many such calls came before it there. So two branches that
//! add the same line in the same place (one change to diff3, taken once) give the same
//! site, and the merge, which has that line once, gives it too; the same function called
//! from two different new lines gives two sites. A call in a file outside the checkout (a
//! harness, the same in every version) is named by the file's name and line.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use similar::{DiffTag, TextDiff};

use crate::cprog::CallSite;

/// What names a call site across versions (with the number of earlier calls of its
/// function under the same key: two calls on one line are two sites).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum SiteKey {
    /// On a line of the base's file.
    Base {
        file: String,
        line: u32,
        callee: String,
    },
    /// On a line the version added or changed.
    New {
        file: String,
        /// The base line (0-based) its hunk starts at.
        anchor: usize,
        text: String,
        callee: String,
    },
    /// In a file outside the checkout.
    Outside {
        name: String,
        line: u32,
        callee: String,
    },
}

/// One version whose sites are numbered: its checkout and its call sites.
pub(crate) struct SitesOf<'a> {
    pub root: &'a Path,
    pub sites: &'a [CallSite],
}

/// Per version, the number of each call site (from 2); `base` is the base's checkout. A
/// function called from one site in every version needs no number: its sites are 0 (the
/// product logs 1 for all of its calls, see `crate::cbmc::product`).
pub(crate) fn site_numbers(base: &Path, versions: &[SitesOf]) -> Vec<Vec<u32>> {
    let mut numbered = all_numbers(base, versions);
    let mut per_callee: HashMap<&str, HashSet<u32>> = HashMap::new();
    for (v, numbers) in versions.iter().zip(&numbered) {
        for (site, &n) in v.sites.iter().zip(numbers) {
            per_callee.entry(&site.callee).or_default().insert(n);
        }
    }
    for (v, numbers) in versions.iter().zip(&mut numbered) {
        for (site, n) in v.sites.iter().zip(numbers) {
            if per_callee[site.callee.as_str()].len() < 2 {
                *n = 0;
            }
        }
    }
    numbered
}

fn all_numbers(base: &Path, versions: &[SitesOf]) -> Vec<Vec<u32>> {
    let mut files = Files::default();
    let mut numbers: HashMap<(SiteKey, u32), u32> = HashMap::new();
    versions
        .iter()
        .map(|v| {
            let mut seen: HashMap<SiteKey, u32> = HashMap::new();
            v.sites
                .iter()
                .map(|site| {
                    let key = files.key(base, v.root, site);
                    // The n-th call of one function on one line (or new text) is its own.
                    let nth = seen.entry(key.clone()).or_insert(0);
                    *nth += 1;
                    // 1 is the one site of a function called from one place.
                    let next = numbers.len() as u32 + 2;
                    *numbers.entry((key, *nth)).or_insert(next)
                })
                .collect()
        })
        .collect()
}

/// The files read so far, and each version file's lines mapped to the base's.
#[derive(Default)]
struct Files {
    maps: HashMap<PathBuf, FileLines>,
}

/// One file of a version.
struct FileLines {
    /// Each line's (0-based) base line, or the hunk that added or changed it.
    base: Vec<Result<usize, usize>>,
    hunks: Vec<Hunk>,
    text: Vec<String>,
    old_text: Vec<String>,
}

/// A part of the diff that is not kept: base lines `old` became the version's lines `new`
/// (0-based ranges; `old` empty for an addition).
struct Hunk {
    old: std::ops::Range<usize>,
    new: std::ops::Range<usize>,
}

impl Files {
    /// The key of `site` in the version checked out at `root`.
    fn key(&mut self, base: &Path, root: &Path, site: &CallSite) -> SiteKey {
        let callee = site.callee.clone();
        let Ok(relative) = site.file.strip_prefix(root) else {
            let name = site.file.file_name().unwrap_or_default();
            return SiteKey::Outside {
                name: name.to_string_lossy().into_owned(),
                line: site.line,
                callee,
            };
        };
        let file = relative.to_string_lossy().into_owned();
        let lines = self.map(base, root, relative);
        let index = site.line.saturating_sub(1) as usize;
        match lines.base.get(index) {
            Some(Ok(line)) => SiteKey::Base {
                file,
                line: *line as u32 + 1,
                callee,
            },
            Some(&Err(h)) => match lines.replaced_call(h, index, &callee) {
                Some(line) => SiteKey::Base {
                    file,
                    line: line as u32 + 1,
                    callee,
                },
                None => SiteKey::New {
                    file,
                    anchor: lines.hunks[h].old.start,
                    text: lines.text[index].trim().to_string(),
                    callee,
                },
            },
            // A line the file does not have (it changed under us): a site of its own.
            None => SiteKey::New {
                file,
                anchor: usize::MAX,
                text: format!("line {}", site.line),
                callee,
            },
        }
    }

    fn map(&mut self, base: &Path, root: &Path, relative: &Path) -> &FileLines {
        self.maps.entry(root.join(relative)).or_insert_with(|| {
            let new = std::fs::read_to_string(root.join(relative)).unwrap_or_default();
            let old = std::fs::read_to_string(base.join(relative)).unwrap_or_default();
            let (base, hunks) = line_map(&old, &new);
            FileLines {
                base,
                hunks,
                text: new.lines().map(str::to_string).collect(),
                old_text: old.lines().map(str::to_string).collect(),
            }
        })
    }
}

impl FileLines {
    /// The base line of the call of `callee` that the call on version line `index` (in hunk
    /// `h`) replaced: as many calls of `callee` on the hunk's lines before it as on its
    /// removed lines before that one.
    fn replaced_call(&self, h: usize, index: usize, callee: &str) -> Option<usize> {
        let hunk = &self.hunks[h];
        let rank: usize = (hunk.new.start..index)
            .map(|i| calls_in(&self.text[i], callee))
            .sum();
        let mut seen = 0;
        hunk.old.clone().find(|&i| {
            seen += calls_in(&self.old_text[i], callee);
            seen > rank
        })
    }
}

/// How many times `line` calls `callee` (its name, not part of a longer one, then `(`).
fn calls_in(line: &str, callee: &str) -> usize {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(callee)
        .filter(|&(at, _)| {
            let before = line[..at].chars().next_back();
            let after = line[at + callee.len()..].trim_start();
            !before.is_some_and(ident) && after.starts_with('(')
        })
        .count()
}

/// For each line of `new`: `Ok(base line)` where the diff keeps it, `Err(hunk)` where the
/// hunk added or changed it (0-based); and the hunks.
fn line_map(old: &str, new: &str) -> (Vec<Result<usize, usize>>, Vec<Hunk>) {
    let diff = TextDiff::from_lines(old, new);
    let (mut out, mut hunks) = (Vec::new(), Vec::new());
    for op in diff.ops() {
        let (old_range, new_range) = (op.old_range(), op.new_range());
        if op.tag() != DiffTag::Equal {
            hunks.push(Hunk {
                old: old_range.clone(),
                new: new_range.clone(),
            });
        }
        for k in 0..new_range.len() {
            out.push(match op.tag() {
                DiffTag::Equal => Ok(old_range.start + k),
                _ => Err(hunks.len() - 1),
            });
        }
    }
    (out, hunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(root: &Path, file: &str, line: u32, callee: &str) -> CallSite {
        CallSite {
            file: root.join(file),
            line,
            callee: callee.to_string(),
        }
    }

    #[test]
    fn shared_lines_and_identical_additions_share_numbers_and_other_additions_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let [o, a, b, m] = ["o", "a", "b", "m"].map(|v| dir.path().join(v));
        let write = |root: &Path, text: &str| {
            std::fs::create_dir_all(root).unwrap();
            std::fs::write(root.join("f.c"), text).unwrap();
        };
        write(&o, "f();\nreturn;\n");
        // Ours adds `log();` first, theirs after `f();`, the merge both.
        write(&a, "log();\nf();\nreturn;\n");
        write(&b, "f();\nlog();\nreturn;\n");
        write(&m, "log();\nf();\nlog();\nreturn;\n");
        let sites = |root: &Path, lines: &[(u32, &str)]| -> Vec<CallSite> {
            lines
                .iter()
                .map(|&(l, c)| site(root, "f.c", l, c))
                .collect()
        };
        let so = sites(&o, &[(1, "f")]);
        let sa = sites(&a, &[(1, "log"), (2, "f")]);
        let sb = sites(&b, &[(1, "f"), (2, "log")]);
        let sm = sites(&m, &[(1, "log"), (2, "f"), (3, "log")]);
        let harness = vec![CallSite {
            file: PathBuf::from("/elsewhere/harness.c"),
            line: 3,
            callee: "main".into(),
        }];
        let versions = [
            SitesOf {
                root: &o,
                sites: &so,
            },
            SitesOf {
                root: &a,
                sites: &sa,
            },
            SitesOf {
                root: &b,
                sites: &sb,
            },
            SitesOf {
                root: &m,
                sites: &sm,
            },
            SitesOf {
                root: &o,
                sites: &harness,
            },
            SitesOf {
                root: &m,
                sites: &harness,
            },
        ];
        let n = site_numbers(&o, &versions);
        // `f` is called from one place in every version: it needs no number.
        assert_eq!((n[0][0], n[1][1], n[2][0], n[3][1]), (0, 0, 0, 0));
        let (ours, theirs) = (n[1][0], n[2][1]);
        assert_ne!(ours, theirs);
        assert!(ours >= 2 && theirs >= 2);
        assert_eq!((n[3][0], n[3][2]), (ours, theirs));
        assert_eq!(n[4], n[5]);
    }

    #[test]
    fn a_call_re_indented_or_given_other_arguments_keeps_its_base_site() {
        let dir = tempfile::tempdir().unwrap();
        let [o, b] = ["o", "b"].map(|v| dir.path().join(v));
        for (root, text) in [
            (&o, "int main(void)\n{\n    sort(n);\n    my_sort(n);\n}\n"),
            (
                &b,
                "int main(void)\n{\n    if (n > 1)\n        sort(n, 0);\n    my_sort(n);\n    sort(1);\n}\n",
            ),
        ] {
            std::fs::create_dir_all(root).unwrap();
            std::fs::write(root.join("f.c"), text).unwrap();
        }
        let so = [site(&o, "f.c", 3, "sort")];
        let sb = [site(&b, "f.c", 4, "sort"), site(&b, "f.c", 6, "sort")];
        let n = all_numbers(
            &o,
            &[
                SitesOf {
                    root: &o,
                    sites: &so,
                },
                SitesOf {
                    root: &b,
                    sites: &sb,
                },
            ],
        );
        // The wrapped call is the base's; the added one after `my_sort` is new.
        assert_eq!(n[1][0], n[0][0]);
        assert_ne!(n[1][1], n[0][0]);
        assert_eq!(calls_in("  my_sort(n); sort (2); sorted(3);", "sort"), 1);
    }

    #[test]
    fn two_calls_on_one_line_are_two_sites() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.c"), "g(); g();\n").unwrap();
        let sites = [
            site(dir.path(), "f.c", 1, "g"),
            site(dir.path(), "f.c", 1, "g"),
        ];
        let n = site_numbers(
            dir.path(),
            &[SitesOf {
                root: dir.path(),
                sites: &sites,
            }],
        );
        assert_eq!(n, vec![vec![2, 3]]);
    }
}
