//! Angluin's observation table: rows `S ∪ S·Σ`, columns `E`, cells `T(s·e)`.
//!
//! `S` is prefix-closed and grows only by promoting a row of `S·Σ` or, in Angluin's
//! counterexample processing, by adding prefixes whose parents are already in `S`; so every
//! row is created as the one-letter extension of a row of `S`, and `S·Σ` never needs a
//! search. A row's cells are a bit vector, which makes comparing and hashing rows cheap.

use super::hash::FastMap;
use crate::automaton::{Alphabet, Dfa, Letter, Word};

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
    /// The first row of `S` with the same contents, as of the last [`Table::unclosed`];
    /// `EMPTY_SLOT` if there is none.
    class: RowId,
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
    /// The contents of the rows of `S`, each by the first row of `S` that has it.
    rows: RowSet,
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
                class: EMPTY_SLOT,
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
                class: EMPTY_SLOT,
            });
        }
        self.rows[r].succ = (first..first + self.k as u32).collect();
    }

    /// The cells without an answer, as (row, column), rows in creation order. Every row
    /// gets room for them: rows of equal contents must have equal lengths, as they are
    /// compared and hashed whole.
    pub(crate) fn missing(&mut self) -> Vec<(RowId, usize)> {
        let words = self.columns.len().div_ceil(64);
        for row in &mut self.rows {
            row.bits.resize(words, 0);
        }
        let old_rows = self.fresh_from.min(self.rows.len());
        let new_columns = self.columns.len() - self.filled;
        let mut cells = Vec::with_capacity(
            old_rows * new_columns + (self.rows.len() - old_rows) * self.columns.len(),
        );
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

    /// The rows of `S·Σ` created since the last fill: the ones a closing round may promote
    /// next, whose extensions would then need every column.
    pub(crate) fn fresh_lower_rows(&self) -> Vec<RowId> {
        (self.fresh_from.min(self.rows.len())..self.rows.len())
            .filter(|&r| !self.rows[r].short)
            .map(|r| r as RowId)
            .collect()
    }

    pub(crate) fn cell_word(&self, row: RowId, column: usize) -> Word {
        let mut word = self.rows[row as usize].word.clone();
        word.extend_from_slice(&self.columns[column]);
        word
    }

    /// Records a cell of [`Table::missing`], which sized the row for it.
    pub(crate) fn set(&mut self, row: RowId, column: usize, value: bool) {
        if value {
            self.rows[row as usize].bits[column / 64] |= 1 << (column % 64);
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
            index.rows.insert(&self.rows, s);
            let class = index.rows.find(&self.rows, &self.rows[s as usize].bits);
            self.rows[s as usize].class = class.expect("just inserted");
        }
        index.indexed = self.short.len();
        index.scanned = self.rows.len();
        let mut open = Vec::new();
        let mut seen: FastMap<Vec<u64>, ()> = FastMap::default();
        for r in candidates {
            let row = &self.rows[r as usize];
            if row.short {
                continue;
            }
            let class = index.rows.find(&self.rows, &row.bits);
            if class.is_none() {
                // Rows equal to an open one stay open until it is promoted.
                index.open.push(r);
                if seen.insert(row.bits.clone(), ()).is_none() {
                    open.push(r);
                }
            }
            self.rows[r as usize].class = class.unwrap_or(EMPTY_SLOT);
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
        // Closing found each row's class: the first row of `S` with its contents, which is
        // what a state is.
        let index = &self.index;
        assert!(
            index.columns == self.filled && index.indexed == self.short.len(),
            "a hypothesis of a table that was not just closed"
        );
        let mut state_of_row = vec![u32::MAX; self.rows.len()];
        let mut reps = Vec::with_capacity(index.rows.len());
        for &s in &self.short {
            if self.rows[s as usize].class == s {
                state_of_row[s as usize] = reps.len() as u32;
                reps.push(s);
            }
        }
        let mut delta = Vec::with_capacity(reps.len() * self.k);
        for &rep in &reps {
            for a in 0..self.k as Letter {
                let class = self.rows[self.succ(rep, a) as usize].class;
                assert!(
                    class != EMPTY_SLOT,
                    "a hypothesis of a table that is not closed"
                );
                delta.push(state_of_row[class as usize]);
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

/// A set of rows by content, open addressing on row ids: the rows' bits are the keys, so
/// none is copied (a map keyed by bit vectors would clone one per row of `S` each time a
/// column is added).
#[derive(Clone, Debug, Default)]
struct RowSet {
    /// Row ids, `EMPTY_SLOT` for none; the length is zero or a power of two.
    slots: Vec<RowId>,
    len: usize,
}

const EMPTY_SLOT: RowId = RowId::MAX;

fn row_hash(bits: &[u64]) -> u64 {
    bits.iter()
        .fold(0x243f_6a88_85a3_08d3, |h, &b| super::random::mix64(h ^ b))
}

impl RowSet {
    fn len(&self) -> usize {
        self.len
    }

    fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = EMPTY_SLOT);
        self.len = 0;
    }

    /// The row in the set with these contents.
    fn find(&self, rows: &[Row], bits: &[u64]) -> Option<RowId> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = row_hash(bits) as usize & mask;
        loop {
            match self.slots[i] {
                EMPTY_SLOT => return None,
                r if rows[r as usize].bits == bits => return Some(r),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds `row` unless a row with its contents is there.
    fn insert(&mut self, rows: &[Row], row: RowId) {
        if self.find(rows, &rows[row as usize].bits).is_some() {
            return;
        }
        if 2 * (self.len + 1) > self.slots.len() {
            let bigger = vec![EMPTY_SLOT; (2 * self.slots.len()).max(64)];
            let old = std::mem::replace(&mut self.slots, bigger);
            self.len = 0;
            for r in old.into_iter().filter(|&r| r != EMPTY_SLOT) {
                self.place(rows, r);
            }
        }
        self.place(rows, row);
    }

    fn place(&mut self, rows: &[Row], row: RowId) {
        let mask = self.slots.len() - 1;
        let mut i = row_hash(&rows[row as usize].bits) as usize & mask;
        while self.slots[i] != EMPTY_SLOT {
            i = (i + 1) & mask;
        }
        self.slots[i] = row;
        self.len += 1;
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
        // Every state is reachable through its access row, and distinct rows leave at most
        // one state that cannot reach acceptance: only that one goes.
        let n = self.reps.len();
        let mut live = self.accepting.clone();
        let mut preds_start = vec![0u32; n + 1];
        for &to in &self.delta {
            preds_start[to as usize + 1] += 1;
        }
        for q in 0..n {
            preds_start[q + 1] += preds_start[q];
        }
        let mut fill = preds_start.clone();
        let mut preds = vec![0u32; self.delta.len()];
        for (i, &to) in self.delta.iter().enumerate() {
            preds[fill[to as usize] as usize] = (i / self.k.max(1)) as u32;
            fill[to as usize] += 1;
        }
        let mut stack: Vec<u32> = (0..n as u32).filter(|&q| live[q as usize]).collect();
        while let Some(q) = stack.pop() {
            for &p in &preds[preds_start[q as usize] as usize..preds_start[q as usize + 1] as usize]
            {
                if !live[p as usize] {
                    live[p as usize] = true;
                    stack.push(p);
                }
            }
        }
        if live.iter().all(|&l| l) {
            return Dfa::from_parts(
                alphabet.clone(),
                0,
                self.accepting.clone(),
                self.delta.clone(),
            );
        }
        if !live[0] {
            return Dfa::new(alphabet.clone());
        }
        let mut number = vec![u32::MAX; n];
        let mut kept = 0;
        for q in 0..n {
            if live[q] {
                number[q] = kept;
                kept += 1;
            }
        }
        let mut dfa = Dfa::with_states(alphabet.clone(), kept as usize);
        for q in (0..n).filter(|&q| live[q]) {
            dfa.set_accepting(number[q], self.accepting[q]);
            for a in 0..self.k {
                let to = self.delta[q * self.k + a];
                if live[to as usize] {
                    dfa.set_transition(number[q], a as Letter, number[to as usize]);
                }
            }
        }
        dfa
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::ops;

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
