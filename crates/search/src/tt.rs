//! The transposition table: one entry per bucket, replaced by depth or age, shared by
//! the threads of one search without locks.
//!
//! Each slot is two 64-bit words, the entry packed into one and the key xored with it
//! in the other (Hyatt and Mann's lockless hashing): a slot torn by two threads writing
//! at once fails the key check and reads as empty, so no lock is needed and a thread
//! never acts on a mix of two entries.

use fanorona_eval::Bound;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub score: i32,
    pub depth: i16,
    /// Index + 1 of the best turn in the position's distinct turn list; 0 for none.
    pub best: u16,
    pub bound: Bound,
    age: u8,
}

impl Entry {
    /// Score in bits 0-23 (mate scores need 21), depth + 1 in 24-31 (0: empty), best
    /// turn in 32-47, bound in 48-49, age in 56-63.
    fn pack(self) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 0u64,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        (self.score as u64 & 0xff_ffff)
            | ((self.depth + 1).clamp(0, 255) as u64) << 24
            | (self.best as u64) << 32
            | bound << 48
            | (self.age as u64) << 56
    }
    fn unpack(w: u64) -> Entry {
        Entry {
            score: ((w << 40) as i64 >> 40) as i32,
            depth: ((w >> 24) & 0xff) as i16 - 1,
            best: (w >> 32) as u16,
            bound: match (w >> 48) & 3 {
                0 => Bound::Exact,
                1 => Bound::Lower,
                _ => Bound::Upper,
            },
            age: (w >> 56) as u8,
        }
    }
}

/// A fixed-size table indexed by the low bits of the Zobrist hash.
#[derive(Debug)]
pub(crate) struct Table {
    /// `[key ^ data, data]` per slot.
    slots: Vec<[AtomicU64; 2]>,
    mask: usize,
    age: AtomicU8,
}

impl Table {
    pub fn new(megabytes: usize) -> Table {
        // Half the power of two at or above the budget, at least 1024 slots: the slot
        // counts of the 24-byte entries this table had before it was shared.
        let want = (megabytes.max(1) << 20) / 24;
        let size = (want.next_power_of_two() / 2).max(1024);
        Table {
            slots: (0..size)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            mask: size - 1,
            age: AtomicU8::new(0),
        }
    }
    pub fn clear(&self) {
        for s in &self.slots {
            s[0].store(0, Relaxed);
            s[1].store(0, Relaxed);
        }
        self.age.store(0, Relaxed);
    }
    pub fn new_search(&self) {
        self.age.fetch_add(1, Relaxed);
    }
    /// Asks the processor to bring `key`'s slot into the cache, so that a
    /// [`Table::probe`] a little later does not wait for memory (on x86-64; elsewhere
    /// nothing). The table is larger than the caches, so most probes would miss.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let slot = self.slots.as_ptr().wrapping_add(key as usize & self.mask);
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
    /// The slot's entry and whether it belongs to `key`.
    #[inline]
    fn read(&self, key: u64) -> (Entry, bool) {
        let s = &self.slots[key as usize & self.mask];
        let check = s[0].load(Relaxed);
        let data = s[1].load(Relaxed);
        (Entry::unpack(data), data != 0 && check ^ data == key)
    }
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let (e, mine) = self.read(key);
        (mine && e.depth >= 0).then_some(e)
    }
    #[inline]
    pub fn store(&self, key: u64, depth: i32, score: i32, bound: Bound, best: u16) {
        let (slot, mine) = self.read(key);
        let age = self.age.load(Relaxed);
        let empty = slot.depth < 0;
        if mine || empty || slot.age != age || depth as i16 >= slot.depth {
            let best = if best == 0 && mine { slot.best } else { best };
            let data = Entry {
                score,
                depth: depth as i16,
                best,
                bound,
                age,
            }
            .pack();
            let s = &self.slots[key as usize & self.mask];
            s[0].store(key ^ data, Relaxed);
            s[1].store(data, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_survive_packing() {
        for &(score, depth, best, bound) in &[
            (0, 0, 0, Bound::Exact),
            (-1, 1, 1, Bound::Lower),
            (fanorona_eval::MATE - 3, 100, 400, Bound::Upper),
            (-(fanorona_eval::MATE - 3), 7, u16::MAX, Bound::Exact),
        ] {
            let e = Entry {
                score,
                depth,
                best,
                bound,
                age: 200,
            };
            let u = Entry::unpack(e.pack());
            assert_eq!(
                (u.score, u.depth, u.best, u.bound, u.age),
                (score, depth, best, bound, 200)
            );
        }
    }

    #[test]
    fn a_stored_entry_is_found_by_its_key_only() {
        let t = Table::new(1);
        t.store(12345, 3, -42, Bound::Lower, 7);
        let e = t.probe(12345).expect("stored");
        assert_eq!(
            (e.score, e.depth, e.best, e.bound),
            (-42, 3, 7, Bound::Lower)
        );
        // Same slot, another key.
        assert!(t.probe(12345 + (1 << 40)).is_none());
        assert!(t.probe(999).is_none());
        t.clear();
        assert!(t.probe(12345).is_none());
    }
}
