//! [`Version`]: the name of a program version inside a document (base, ours, theirs, the
//! merge, the expected merge; a diff's from and to). Apart from the document types so that
//! every part of a document can name a version without importing the whole module.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The name of a program version inside a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Version {
    /// The merge base O.
    Base,
    /// The first parent A.
    Ours,
    /// The second parent B.
    Theirs,
    /// The merge result M.
    Merged,
    /// The expected merge E (computed from O, A, B; it has no source).
    Expected,
    /// The earlier revision of a diff (`from`).
    #[serde(rename = "from", alias = "old")]
    Old,
    /// The later revision of a diff (`to`).
    #[serde(rename = "to", alias = "new")]
    New,
}

impl Version {
    pub fn as_str(self) -> &'static str {
        match self {
            Version::Base => "base",
            Version::Ours => "ours",
            Version::Theirs => "theirs",
            Version::Merged => "merged",
            Version::Expected => "expected",
            Version::Old => "old",
            Version::New => "new",
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
