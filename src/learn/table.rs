//! Angluin's observation table: rows `S ∪ S·Σ`, columns `E`, cells `T(s·e)`.
//!
//! `S` is prefix-closed and grows only by promoting a row of `S·Σ` or, in Angluin's
//! counterexample processing, by adding prefixes whose parents are already in `S`; so every
//! row is created as the one-letter extension of a row of `S`, and `S·Σ` never needs a
//! search. A row's cells are a bit vector, which makes comparing and hashing rows cheap.

use super::hash::FastMap;
use crate::automaton::{Alphabet, Dfa, Letter, Word, ops};

pub(crate) type RowId = u32;

#[derive(Clone, Debug)]
struct Row {
    word: Word,
    bits: Vec<u64>,
    short: bool,
    /// For a row of `S`: its one-letter extensions, indexed by letter.
    succ: Vec<RowId>,
    /// The row's word in the query cache, once known; a cell is then a walk of its column.
    node: Option<u32>,
}

#[derive(Clone, Debug)]
pub(crate) struct Table {
    k: usize,
    columns: Vec<Word>,
    column_set: FastMap<Word, ()>,
    rows: Vec<Row>,
    /// `S`, in the order rows were promoted; `short[0]` is the empty word.
    short: Vec<RowId>,
    /// Columns every row has an answer for; later columns are being filled.
    filled: usize,
    /// Rows created since the last fill, which lack every column.
    fresh_from: usize,
    index: ClosedIndex,
}

/// What [`Table::unclosed`] remembers between calls.
#[derive(Clone, Debug, Default)]
struct ClosedIndex {
    /// The columns the index was built for; another number means start again.
    columns: usize,
    /// The contents of the rows of `S`, each with the first row of `S` that has it.
    rows: FastMap<Vec<u64>, RowId>,
    /// `short[..indexed]` are in `rows`.
    indexed: usize,
    /// `rows[..scanned]` have been looked at.
    scanned: usize,
    /// Rows of `S·Σ` that matched no row of `S` when looked at.
    open: Vec<RowId>,
}

impl Table {
    /// `S = {ε}`, `E = {ε}`, with the rows of `Σ` waiting for answers.
    pub(crate) fn new(k: usize) -> Table {
        let mut table = Table {
            k,
            columns: vec![Vec::new()],
            column_set: FastMap::default(),
            rows: vec![Row {
                word: Vec::new(),
                bits: Vec::new(),
                short: false,
                succ: Vec::new(),
                node: None,
            }],
            short: Vec::new(),
            filled: 0,
            fresh_from: 0,
            index: ClosedIndex {
                columns: usize::MAX,
                ..ClosedIndex::default()
            },
        };
        table.column_set.insert(Vec::new(), ());
        table.promote(0);
        table
    }

    pub(crate) fn columns(&self) -> &[Word] {
        &self.columns
    }

    pub(crate) fn num_rows(&self) -> usize {
        self.rows.len()
    }

    pub(crate) fn word(&self, row: RowId) -> &Word {
        &self.rows[row as usize].word
    }

    pub(crate) fn is_short(&self, row: RowId) -> bool {
        self.rows[row as usize].short
    }

    pub(crate) fn bit(&self, row: RowId, column: usize) -> bool {
        self.rows[row as usize].bits[column / 64] >> (column % 64) & 1 == 1
    }

    fn bits(&self, row: RowId) -> &[u64] {
        &self.rows[row as usize].bits
    }

    pub(crate) fn node(&self, row: RowId) -> Option<u32> {
        self.rows[row as usize].node
    }

    pub(crate) fn set_node(&mut self, row: RowId, node: u32) {
        self.rows[row as usize].node = Some(node);
    }

    /// The row of `s·a` for a row `s` of `S`.
    pub(crate) fn succ(&self, row: RowId, letter: Letter) -> RowId {
        self.rows[row as usize].succ[letter as usize]
    }

    /// Adds a column unless it is there; says whether it was new.
    pub(crate) fn add_column(&mut self, suffix: Word) -> bool {
        if self.column_set.contains_key(&suffix) {
            return false;
        }
        self.column_set.insert(suffix.clone(), ());
        self.columns.push(suffix);
        true
    }

    /// Moves a row of `S·Σ` into `S` and creates its extensions.
    pub(crate) fn promote(&mut self, row: RowId) {
        let r = row as usize;
        debug_assert!(!self.rows[r].short);
        self.rows[r].short = true;
        self.short.push(row);
        let first = u32::try_from(self.rows.len()).expect("more than 2^32 rows");
        for a in 0..self.k as Letter {
            let mut word = Vec::with_capacity(self.rows[r].word.len() + 1);
            word.extend_from_slice(&self.rows[r].word);
            word.push(a);
            self.rows.push(Row {
                word,
                bits: Vec::new(),
                short: false,
                succ: Vec::new(),
                node: None,
            });
        }
        self.rows[r].succ = (first..first + self.k as u32).collect();
    }

    /// The cells without an answer, as (row, column), rows in creation order.
    pub(crate) fn missing(&self) -> Vec<(RowId, usize)> {
        let mut cells = Vec::new();
        let old_rows = self.fresh_from.min(self.rows.len());
        for r in 0..old_rows {
            for j in self.filled..self.columns.len() {
                cells.push((r as RowId, j));
            }
        }
        for r in old_rows..self.rows.len() {
            for j in 0..self.columns.len() {
                cells.push((r as RowId, j));
            }
        }
        cells
    }

    pub(crate) fn cell_word(&self, row: RowId, column: usize) -> Word {
        let mut word = self.rows[row as usize].word.clone();
        word.extend_from_slice(&self.columns[column]);
        word
    }

    pub(crate) fn set(&mut self, row: RowId, column: usize, value: bool) {
        let bits = &mut self.rows[row as usize].bits;
        if bits.len() <= column / 64 {
            bits.resize(column / 64 + 1, 0);
        }
        if value {
            bits[column / 64] |= 1 << (column % 64);
        }
    }

    /// Declares every cell of [`Table::missing`] answered.
    pub(crate) fn mark_filled(&mut self) {
        self.filled = self.columns.len();
        self.fresh_from = self.rows.len();
    }

    /// Closedness: the rows of `S·Σ` that equal no row of `S`, one per distinct content,
    /// in creation order (so the shortest words become access sequences); and how many
    /// distinct contents `S` has.
    ///
    /// Incremental while no column is added: a row that matched a row of `S` keeps
    /// matching it, so only new rows and the rows left open last time are looked at. A
    /// closing round usually adds rows only, and the table can have many thousands.
    pub(crate) fn unclosed(&mut self) -> (usize, Vec<RowId>) {
        let index = &mut self.index;
        let candidates: Vec<RowId> = if index.columns != self.filled {
            index.rows.clear();
            index.indexed = 0;
            index.columns = self.filled;
            (0..self.rows.len() as RowId).collect()
        } else {
            let mut c = std::mem::take(&mut index.open);
            c.extend(index.scanned as RowId..self.rows.len() as RowId);
            c
        };
        for &s in &self.short[index.indexed..] {
            index.rows.entry(self.rows[s as usize].bits.clone()).or_insert(s);
        }
        index.indexed = self.short.len();
        index.scanned = self.rows.len();
        let mut open = Vec::new();
        let mut seen: FastMap<&[u64], ()> = FastMap::default();
        for r in candidates {
            let row = &self.rows[r as usize];
            if row.short || index.rows.contains_key(&row.bits) {
                continue;
            }
            // Rows equal to an open one stay open until it is promoted.
            index.open.push(r);
            if seen.insert(&row.bits, ()).is_none() {
                open.push(r);
            }
        }
        (index.rows.len(), open)
    }

    /// Consistency: two equal rows of `S` whose extensions by some letter `a` differ in a
    /// column `e`; the column `a·e` then tells them apart. Only Angluin's counterexample
    /// processing can make two rows of `S` equal.
    pub(crate) fn inconsistency(&self) -> Option<Word> {
        let mut first: FastMap<&[u64], RowId> = FastMap::default();
        for &s in &self.short {
            let f = *first.entry(self.bits(s)).or_insert(s);
            if f == s {
                continue;
            }
            for a in 0..self.k as Letter {
                let (x, y) = (self.succ(f, a), self.succ(s, a));
                if self.bits(x) != self.bits(y) {
                    let j = (0..self.columns.len())
                        .find(|&j| self.bit(x, j) != self.bit(y, j))
                        .expect("rows that differ differ in a column");
                    let mut column = vec![a];
                    column.extend_from_slice(&self.columns[j]);
                    return Some(column);
                }
            }
        }
        None
    }

    /// The conjecture of a closed (and consistent) table: one state per distinct row of
    /// `S`, represented by the first such row.
    pub(crate) fn hypothesis(&self) -> Hypothesis {
        let mut state_of: FastMap<&[u64], u32> = FastMap::default();
        let mut reps = Vec::new();
        for &s in &self.short {
            state_of.entry(self.bits(s)).or_insert_with(|| {
                reps.push(s);
                reps.len() as u32 - 1
            });
        }
        let mut delta = Vec::with_capacity(reps.len() * self.k);
        for &rep in &reps {
            for a in 0..self.k as Letter {
                let to = state_of[self.bits(self.succ(rep, a))];
                delta.push(to);
            }
        }
        let accepting = reps.iter().map(|&r| self.bit(r, 0)).collect();
        Hypothesis {
            k: self.k,
            reps,
            accepting,
            delta,
        }
    }
}

/// A conjecture as the learner uses it: complete, with the row that reaches each state.
/// State 0 is initial, as the empty word is the first row of `S`.
#[derive(Clone, Debug)]
pub(crate) struct Hypothesis {
    k: usize,
    /// The access row of each state.
    pub(crate) reps: Vec<RowId>,
    pub(crate) accepting: Vec<bool>,
    pub(crate) delta: Vec<u32>,
}

impl Hypothesis {
    pub(crate) fn size(&self) -> usize {
        self.reps.len()
    }

    #[inline]
    pub(crate) fn step(&self, state: u32, letter: Letter) -> u32 {
        self.delta[state as usize * self.k + letter as usize]
    }

    pub(crate) fn run_from(&self, state: u32, word: &[Letter]) -> u32 {
        word.iter().fold(state, |q, &a| self.step(q, a))
    }

    pub(crate) fn accepts_from(&self, state: u32, word: &[Letter]) -> bool {
        self.accepting[self.run_from(state, word) as usize]
    }

    pub(crate) fn accepts(&self, word: &[Letter]) -> bool {
        self.accepts_from(0, word)
    }

    /// The conjecture as handed out: the same automaton without its rejecting sink, the way
    /// the paper draws automata (Sec. 7.2). The table's rows are distinct, so this is the
    /// minimal automaton of its language.
    pub(crate) fn to_dfa(&self, alphabet: &Alphabet) -> Dfa {
        let complete = Dfa::from_parts(
            alphabet.clone(),
            0,
            self.accepting.clone(),
            self.delta.clone(),
        );
        ops::trim(&complete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills every missing cell from `f`.
    fn fill(t: &mut Table, f: impl Fn(&[Letter]) -> bool) {
        for (r, j) in t.missing() {
            let w = t.cell_word(r, j);
            t.set(r, j, f(&w));
        }
        t.mark_filled();
    }

    #[test]
    fn closing_promotes_one_row_per_new_content() {
        // Words over {a, b} with an even number of a.
        let even = |w: &[Letter]| w.iter().filter(|&&a| a == 0).count() % 2 == 0;
        let mut t = Table::new(2);
        assert_eq!(t.missing().len(), 3);
        fill(&mut t, even);
        let (distinct, open) = t.unclosed();
        assert_eq!((distinct, t.word(open[0]).clone()), (1, vec![0]));
        assert_eq!(open.len(), 1);
        t.promote(open[0]);
        fill(&mut t, even);
        assert!(t.unclosed().1.is_empty());
        assert_eq!(t.inconsistency(), None);
        let h = t.hypothesis();
        assert_eq!(h.size(), 2);
        assert!(h.accepts(&[0, 1, 0]) && !h.accepts(&[1, 0]));
        let dfa = h.to_dfa(&Alphabet::from_names(["a", "b"]));
        assert_eq!(ops::minimize(&dfa).num_states(), 2);
    }

    #[test]
    fn new_columns_are_filled_for_every_row() {
        let mut t = Table::new(2);
        fill(&mut t, |_| false);
        assert!(t.missing().is_empty());
        assert!(t.add_column(vec![1]));
        assert!(!t.add_column(vec![1]));
        assert_eq!(t.missing(), [(0, 1), (1, 1), (2, 1)]);
        fill(&mut t, |w| w.last() == Some(&1));
        assert!(t.bit(0, 1) && !t.bit(0, 0));
    }

    #[test]
    fn equal_short_rows_with_different_successors_are_inconsistent() {
        // Words whose second letter is b: ε and a look alike on the column ε alone.
        let second_b = |w: &[Letter]| w.get(1) == Some(&1);
        let mut t = Table::new(2);
        t.promote(1);
        fill(&mut t, second_b);
        let column = t.inconsistency().expect("a·b and ε·b differ");
        assert_eq!(column.len(), 1);
    }
}
