//! The transposition table: one entry per bucket, replaced by depth or age.

/// Which bound a stored score is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub score: i32,
    pub depth: i16,
    /// Index + 1 of the best turn in the position's distinct turn list; 0 for none.
    pub best: u16,
    pub bound: Bound,
    pub age: u8,
}

const EMPTY: Entry = Entry {
    key: 0,
    score: 0,
    depth: -1,
    best: 0,
    bound: Bound::Upper,
    age: 0,
};

/// A fixed-size table indexed by the low bits of the Zobrist hash.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    entries: Vec<Entry>,
    mask: usize,
    age: u8,
}

impl Table {
    pub fn new(megabytes: usize) -> Table {
        let want = (megabytes.max(1) << 20) / std::mem::size_of::<Entry>();
        let size = want.next_power_of_two() / 2;
        Table {
            entries: vec![EMPTY; size.max(1024)],
            mask: size.max(1024) - 1,
            age: 0,
        }
    }
    pub fn clear(&mut self) {
        self.entries.fill(EMPTY);
        self.age = 0;
    }
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }
    /// Asks the processor to bring `key`'s slot into the cache, so that a
    /// [`Table::probe`] a little later does not wait for memory (on x86-64; elsewhere
    /// nothing). The table is larger than the caches, so most probes would miss.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let slot = self.entries.as_ptr().wrapping_add(key as usize & self.mask);
            // SAFETY: a prefetch is a hint: it reads nothing the program observes and
            // cannot fault, whatever the address (this one is inside the table).
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(slot.cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.entries[key as usize & self.mask];
        (e.key == key && e.depth >= 0).then_some(e)
    }
    #[inline]
    pub fn store(&mut self, key: u64, depth: i32, score: i32, bound: Bound, best: u16) {
        let slot = &mut self.entries[key as usize & self.mask];
        if slot.key == key || slot.age != self.age || depth as i16 >= slot.depth {
            let best = if best == 0 && slot.key == key {
                slot.best
            } else {
                best
            };
            *slot = Entry {
                key,
                score,
                depth: depth as i16,
                best,
                bound,
                age: self.age,
            };
        }
    }
}
