//! The query cache (the paper's Sec. 7.1): a trie of every membership answer known.
//!
//! The caller owns the cache and lends it to each learning run, so that runs of the same
//! program (at growing bounds, say) never pay twice for one word. Each answer records where
//! it came from and whether it is confirmed: lazy learning (Sec. 6) stores guesses, which
//! are only trusted once the teacher has checked them.
//!
//! The words of an observation table share long prefixes (row `s` asks `s·e` for every
//! column `e`), which is why a trie: each table cell costs the letters of its suffix, not
//! of the whole word.

use serde::Serialize;

use crate::automaton::{Alphabet, Letter, Word};

/// Where a cached answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A membership query the teacher answered.
    Teacher,
    /// The teacher's cheap pre-check ([`super::Teacher::precheck`]).
    Precheck,
    /// The guess policy of lazy learning; confirmed once the teacher agreed.
    Guess,
    /// A counterexample of an equivalence query: the teacher said the conjecture
    /// misclassifies it, which is an answer about the word.
    Counterexample,
}

/// A cached answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    pub accepted: bool,
    pub source: Source,
    /// Whether the answer is known to be right: everything but an unchecked guess.
    pub confirmed: bool,
}

impl Entry {
    pub fn confirmed(accepted: bool, source: Source) -> Entry {
        Entry {
            accepted,
            source,
            confirmed: true,
        }
    }

    pub fn guess(accepted: bool) -> Entry {
        Entry {
            accepted,
            source: Source::Guess,
            confirmed: false,
        }
    }
}

const NONE: u32 = u32::MAX;

/// A trie node. A node's parent is always older (has a smaller id), so one pass over the
/// nodes in id order visits every parent before its children.
#[derive(Clone, Debug)]
struct Node {
    parent: u32,
    letter: Letter,
    /// The first child, kept in the node: most nodes (the letters of a column after the
    /// row's word) have one child.
    first_letter: Letter,
    first_child: u32,
    /// Where the other children are: `NONE` (there are none), [`IN_EDGES`], or the start of
    /// this node's block in [`QueryCache::blocks`].
    more: u32,
    entry: Option<Entry>,
}

/// [`Node::more`] for a node whose other children are in [`QueryCache::edges`].
const IN_EDGES: u32 = u32::MAX - 1;

/// The largest alphabet whose branching nodes get a block of children indexed by letter.
/// The nodes of the table's rows branch on nearly every letter, and a block is much faster
/// than hashing (no probing, and a new block is one allocation, not a rehash); beyond this
/// size the blocks would waste memory on letters never used.
const MAX_BLOCK_LETTERS: usize = 256;

/// A prefix tree of membership answers over one alphabet.
#[derive(Clone, Debug)]
pub struct QueryCache {
    alphabet: Alphabet,
    nodes: Vec<Node>,
    /// Children blocks: `blocks[more + letter]` is the child, or `NONE`.
    blocks: Vec<u32>,
    /// `node << 32 | letter` to the child, for alphabets too large for blocks.
    edges: EdgeMap,
    answered: usize,
    /// Nodes that received a guess; some may have been confirmed since.
    guessed: Vec<u32>,
    /// How many answers are unconfirmed guesses.
    unconfirmed: usize,
}

#[inline]
fn edge_key(node: u32, letter: Letter) -> u64 {
    u64::from(node) << 32 | u64::from(letter)
}

impl QueryCache {
    /// An empty cache for words over `alphabet`. Learning runs check that they use the same
    /// alphabet, since a letter is only an index.
    pub fn new(alphabet: Alphabet) -> QueryCache {
        QueryCache {
            alphabet,
            nodes: vec![Node {
                parent: NONE,
                letter: 0,
                first_letter: NONE,
                first_child: NONE,
                more: NONE,
                entry: None,
            }],
            blocks: Vec::new(),
            edges: EdgeMap::new(),
            answered: 0,
            guessed: Vec::new(),
            unconfirmed: 0,
        }
    }

    pub fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }

    /// The number of words with an answer.
    pub fn len(&self) -> usize {
        self.answered
    }

    pub fn is_empty(&self) -> bool {
        self.answered == 0
    }

    /// The number of trie nodes (prefixes of cached words), a measure of its memory.
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    #[inline]
    fn child(&self, node: u32, letter: Letter) -> Option<u32> {
        let n = &self.nodes[node as usize];
        if n.first_letter == letter {
            return Some(n.first_child);
        }
        match n.more {
            NONE => None,
            IN_EDGES => self.edges.get(&edge_key(node, letter)).copied(),
            block => {
                let child = self.blocks[block as usize + letter as usize];
                (child != NONE).then_some(child)
            }
        }
    }

    /// The node of `word` read from `node`, if the trie has it.
    pub(crate) fn find_from(&self, node: u32, word: &[Letter]) -> Option<u32> {
        word.iter().try_fold(node, |n, &a| self.child(n, a))
    }

    /// The node of the empty word.
    pub(crate) const ROOT: u32 = 0;

    /// The node of `word` read from `node`, added if missing. Nodes are never removed, so
    /// a node stands for its word as long as the cache lives.
    pub(crate) fn extend(&mut self, mut node: u32, word: &[Letter]) -> u32 {
        for &a in word {
            node = match self.child(node, a) {
                Some(child) => child,
                None => {
                    let child = u32::try_from(self.nodes.len())
                        .ok()
                        .filter(|&c| c != NONE)
                        .expect("more than 2^32 - 1 cached prefixes");
                    self.nodes.push(Node {
                        parent: node,
                        letter: a,
                        first_letter: NONE,
                        first_child: NONE,
                        more: NONE,
                        entry: None,
                    });
                    let k = self.alphabet.len();
                    let parent = &mut self.nodes[node as usize];
                    if parent.first_letter == NONE {
                        parent.first_letter = a;
                        parent.first_child = child;
                    } else {
                        if parent.more == NONE {
                            parent.more = if k <= MAX_BLOCK_LETTERS {
                                let start = u32::try_from(self.blocks.len())
                                    .ok()
                                    .filter(|&b| b < IN_EDGES - k as u32)
                                    .expect("more than 2^32 children blocks");
                                self.blocks.resize(self.blocks.len() + k, NONE);
                                start
                            } else {
                                IN_EDGES
                            };
                        }
                        match parent.more {
                            IN_EDGES => self.edges.insert(edge_key(node, a), child),
                            block => self.blocks[block as usize + a as usize] = child,
                        }
                    }
                    child
                }
            };
        }
        node
    }

    /// The word a node stands for.
    pub(crate) fn word_of(&self, mut node: u32) -> Word {
        let mut word = Vec::new();
        while node != Self::ROOT {
            let n = &self.nodes[node as usize];
            word.push(n.letter);
            node = n.parent;
        }
        word.reverse();
        word
    }

    #[inline]
    pub(crate) fn entry(&self, node: u32) -> Option<Entry> {
        self.nodes[node as usize].entry
    }

    /// The cached answer of `word`, if any.
    pub fn get(&self, word: &[Letter]) -> Option<Entry> {
        self.find_from(Self::ROOT, word)
            .and_then(|node| self.entry(node))
    }

    /// Records an answer. A confirmed answer is never overwritten: one that disagrees with
    /// it is refused with the entry already there, since two confirmed answers that differ
    /// mean the teacher contradicted itself. An unconfirmed guess gives way to a confirmed
    /// answer and never replaces anything.
    pub fn insert(&mut self, word: &[Letter], entry: Entry) -> Result<(), Entry> {
        let node = self.extend(Self::ROOT, word);
        self.set_entry(node, entry)
    }

    /// [`QueryCache::insert`] by node.
    pub(crate) fn set_entry(&mut self, node: u32, entry: Entry) -> Result<(), Entry> {
        let slot = &mut self.nodes[node as usize].entry;
        match *slot {
            None => {
                *slot = Some(entry);
                self.answered += 1;
                if !entry.confirmed {
                    self.guessed.push(node);
                    self.unconfirmed += 1;
                }
            }
            Some(old) if old.confirmed => {
                if entry.confirmed && old.accepted != entry.accepted {
                    return Err(old);
                }
            }
            Some(_) if entry.confirmed => {
                *slot = Some(entry);
                self.unconfirmed -= 1;
            }
            Some(_) => {}
        }
        Ok(())
    }

    /// The number of unconfirmed answers (guesses not yet checked).
    pub fn unconfirmed(&self) -> usize {
        self.unconfirmed
    }

    fn guessed_nodes(&self) -> impl Iterator<Item = u32> + '_ {
        self.guessed
            .iter()
            .copied()
            .filter(|&n| self.nodes[n as usize].entry.is_some_and(|e| !e.confirmed))
    }

    /// The words whose answer is an unchecked guess, with the guess.
    pub fn unconfirmed_words(&self) -> Vec<(Word, bool)> {
        self.guessed_nodes()
            .map(|n| {
                let guess = self.nodes[n as usize].entry.expect("guessed").accepted;
                (self.word_of(n), guess)
            })
            .collect()
    }

    /// The nodes of the unchecked guesses, oldest first.
    pub(crate) fn unconfirmed_nodes(&self) -> Vec<u32> {
        self.guessed_nodes().collect()
    }

    /// Settles a guess with the teacher's answer; returns whether the guess was right.
    /// A right guess stays a guess, now confirmed, so statistics can still tell where it
    /// came from; a wrong one is replaced by the teacher's answer.
    pub(crate) fn settle(&mut self, node: u32, accepted: bool) -> bool {
        let slot = &mut self.nodes[node as usize].entry;
        if slot.is_some_and(|e| !e.confirmed) {
            self.unconfirmed -= 1;
        } else if slot.is_none() {
            self.answered += 1;
        }
        let right = slot.is_some_and(|e| e.accepted == accepted);
        *slot = Some(if right {
            Entry::confirmed(accepted, Source::Guess)
        } else {
            Entry::confirmed(accepted, Source::Teacher)
        });
        right
    }

    /// Forgets the settled guesses in the list of guessed words, which would otherwise only
    /// grow.
    pub(crate) fn prune_settled(&mut self) {
        let nodes = &self.nodes;
        self.guessed
            .retain(|&n| nodes[n as usize].entry.is_some_and(|e| !e.confirmed));
    }

    /// Drops the guesses that were never checked (the words stay in the trie, unanswered).
    pub fn forget_unconfirmed(&mut self) {
        for node in std::mem::take(&mut self.guessed) {
            let slot = &mut self.nodes[node as usize].entry;
            if slot.is_some_and(|e| !e.confirmed) {
                *slot = None;
                self.answered -= 1;
                self.unconfirmed -= 1;
            }
        }
    }

    /// Every answered word with its entry, in length-lexicographic order.
    pub fn entries(&self) -> Vec<(Word, Entry)> {
        let mut out: Vec<(Word, Entry)> = (0..self.nodes.len() as u32)
            .filter_map(|n| self.entry(n).map(|e| (self.word_of(n), e)))
            .collect();
        out.sort_by(|(a, _), (b, _)| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
        out
    }

    /// A shortest answered word on which an automaton disagrees with the cache, found by
    /// running the automaton (`start`, `step`, `accepts`) along every trie edge once.
    pub(crate) fn shortest_disagreement(
        &self,
        start: u32,
        step: impl Fn(u32, Letter) -> u32,
        accepts: impl Fn(u32) -> bool,
    ) -> Option<(Word, Entry)> {
        let n = self.nodes.len();
        let mut state = vec![start; n];
        let mut depth = vec![0u32; n];
        let mut best: Option<(u32, u32)> = None;
        for id in 0..n {
            let node = &self.nodes[id];
            if id != 0 {
                let parent = node.parent as usize;
                state[id] = step(state[parent], node.letter);
                depth[id] = depth[parent] + 1;
            }
            if let Some(e) = node.entry
                && e.accepted != accepts(state[id])
                && best.is_none_or(|(d, _)| depth[id] < d)
            {
                best = Some((depth[id], id as u32));
            }
        }
        best.map(|(_, id)| (self.word_of(id), self.entry(id).expect("answered")))
    }
}

/// The trie's edges: an open-addressing hash table from `node << 32 | letter` to the
/// child, with Fibonacci hashing and linear probing. It does one lookup per letter of every
/// query: a key and its child share a slot, so a lookup usually touches one cache line, and
/// the plain loop is several times faster than a general hash map in the debug builds the
/// tests run in.
#[derive(Clone, Debug)]
struct EdgeMap {
    slots: Vec<Slot>,
    len: usize,
    /// 64 minus log2 of the capacity: the hash is the top bits of the product.
    shift: u32,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    key: u64,
    child: u32,
}

/// No key: a key's node is below `NONE`.
const EMPTY: Slot = Slot {
    key: u64::MAX,
    child: 0,
};

impl EdgeMap {
    /// An empty map, allocated on the first insertion: most alphabets never need one.
    fn new() -> EdgeMap {
        EdgeMap {
            slots: Vec::new(),
            len: 0,
            shift: 64,
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    #[inline]
    fn get(&self, key: &u64) -> Option<&u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot(*key);
        loop {
            let slot = &self.slots[i];
            if slot.key == *key {
                return Some(&slot.child);
            }
            if slot.key == EMPTY.key {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds a key that is not in the map.
    fn insert(&mut self, key: u64, child: u32) {
        // At most half full, so probe sequences stay short.
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot(key);
        while self.slots[i].key != EMPTY.key {
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot { key, child };
        self.len += 1;
    }

    fn grow(&mut self) {
        // Learning asks thousands of words; starting small would only add rehashing.
        let capacity = (self.slots.len() * 2).max(1 << 12);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; capacity]);
        self.shift = 64 - capacity.trailing_zeros();
        self.len = 0;
        for slot in old {
            if slot.key != EMPTY.key {
                self.insert(slot.key, slot.child);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> QueryCache {
        QueryCache::new(Alphabet::from_names(["a", "b"]))
    }

    #[test]
    fn stores_and_finds_answers_by_word() {
        let mut c = cache();
        assert!(c.is_empty());
        c.insert(&[0, 1], Entry::confirmed(true, Source::Teacher))
            .unwrap();
        c.insert(&[], Entry::confirmed(false, Source::Precheck))
            .unwrap();
        assert!(c.get(&[0, 1]).unwrap().accepted);
        assert_eq!(c.get(&[0]), None);
        assert_eq!(c.get(&[]).unwrap().source, Source::Precheck);
        assert_eq!(c.len(), 2);
        assert_eq!(c.nodes(), 3);
        let words: Vec<Word> = c.entries().into_iter().map(|(w, _)| w).collect();
        assert_eq!(words, [vec![], vec![0, 1]]);
    }

    #[test]
    fn confirmed_answers_win_and_contradictions_are_refused() {
        let mut c = cache();
        c.insert(&[0], Entry::guess(false)).unwrap();
        assert_eq!(c.unconfirmed(), 1);
        c.insert(&[0], Entry::guess(true)).unwrap();
        assert_eq!(c.get(&[0]), Some(Entry::guess(false)));
        c.insert(&[0], Entry::confirmed(true, Source::Teacher))
            .unwrap();
        assert_eq!(c.unconfirmed(), 0);
        assert_eq!(c.insert(&[0], Entry::guess(false)), Ok(()));
        assert_eq!(
            c.insert(&[0], Entry::confirmed(false, Source::Teacher)),
            Err(Entry::confirmed(true, Source::Teacher))
        );
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn guesses_are_settled_or_forgotten() {
        let mut c = cache();
        c.insert(&[0], Entry::guess(false)).unwrap();
        c.insert(&[1], Entry::guess(true)).unwrap();
        c.insert(&[1, 1], Entry::guess(true)).unwrap();
        let mut pending = c.unconfirmed_words();
        pending.sort();
        assert_eq!(
            pending,
            [(vec![0], false), (vec![1], true), (vec![1, 1], true)]
        );
        let node = |c: &QueryCache, w: &[Letter]| c.find_from(QueryCache::ROOT, w).unwrap();
        assert!(c.settle(node(&c, &[0]), false));
        assert!(!c.settle(node(&c, &[1]), false));
        assert_eq!(c.get(&[0]), Some(Entry::confirmed(false, Source::Guess)));
        assert_eq!(c.get(&[1]), Some(Entry::confirmed(false, Source::Teacher)));
        c.forget_unconfirmed();
        assert_eq!(c.get(&[1, 1]), None);
        assert_eq!(c.len(), 2);
        assert_eq!(c.unconfirmed(), 0);
    }

    #[test]
    fn large_alphabets_and_many_words() {
        // 300 letters: branching nodes keep their children in the hash map, not in blocks.
        for letters in [3, 300] {
            let mut c =
                QueryCache::new(Alphabet::from_names((0..letters).map(|i| format!("l{i}"))));
            let mut rng = crate::learn::random::SplitMix64::new(letters as u64);
            let words: Vec<Word> = (0..5000)
                .map(|_| {
                    (0..rng.range(0, 6))
                        .map(|_| rng.below(letters as u64) as Letter)
                        .collect()
                })
                .collect();
            let even = |w: &Word| w.iter().sum::<Letter>() % 2 == 0;
            for w in &words {
                c.insert(w, Entry::confirmed(even(w), Source::Teacher))
                    .unwrap();
            }
            for w in &words {
                assert_eq!(c.get(w).unwrap().accepted, even(w));
            }
            let distinct: std::collections::HashSet<&Word> = words.iter().collect();
            assert_eq!(c.len(), distinct.len());
            assert_eq!(c.get(&[letters as Letter - 1; 7]), None);
        }
    }

    #[test]
    fn finds_the_shortest_disagreement() {
        let mut c = cache();
        c.insert(&[0, 0, 0], Entry::confirmed(true, Source::Teacher))
            .unwrap();
        c.insert(&[1, 1], Entry::confirmed(true, Source::Teacher))
            .unwrap();
        c.insert(&[1], Entry::confirmed(false, Source::Teacher))
            .unwrap();
        // An automaton that counts letters and accepts words of length 3.
        let found = c.shortest_disagreement(0, |q, _| q + 1, |q| q == 3);
        assert_eq!(found.unwrap().0, vec![1, 1]);
        assert!(
            c.shortest_disagreement(0, |q, _| q + 1, |q| q >= 2)
                .is_none()
        );
    }
}
