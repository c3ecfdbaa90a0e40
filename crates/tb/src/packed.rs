//! One side to move's values of a class in four bits each: most stored distances are
//! short (in the tsivy tables of up to six pieces, 96 to 99 % of each class's positions
//! are drawn or decided within 7 turns), so a nibble holds the draw, a win in 1 to 7 and
//! a loss in 0 to 6, and an escape code sends the rest to a short sorted list of whole
//! [`Value`](crate::Value) bytes.

/// The nibble that says "look in the list".
const ESCAPE: u8 = 15;

/// The nibble of a value byte ([`ESCAPE`] when it does not fit).
fn nibble(byte: u8) -> u8 {
    match byte {
        0..=7 => byte,
        128..=134 => byte - 120,
        _ => ESCAPE,
    }
}

/// The value byte of a nibble below [`ESCAPE`].
fn byte_of(nibble: u8) -> u8 {
    match nibble {
        0..=7 => nibble,
        _ => nibble + 120,
    }
}

/// Values by index, four bits each, the ones that do not fit kept apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packed {
    len: usize,
    /// Two values a byte, the even index in the low nibble.
    nibbles: Vec<u8>,
    /// `(index, value byte)` of the escaped values, by index.
    wide: Vec<(u32, u8)>,
}

impl Packed {
    /// Packs value bytes (at most `u32::MAX` of them).
    ///
    /// # Panics
    /// More than `u32::MAX` values.
    pub fn pack(values: &[u8]) -> Packed {
        assert!(
            u32::try_from(values.len()).is_ok(),
            "a class side of under 2^32 positions"
        );
        let mut nibbles = vec![0u8; values.len().div_ceil(2)];
        let mut wide = Vec::new();
        for (i, &v) in values.iter().enumerate() {
            let n = nibble(v);
            if n == ESCAPE {
                wide.push((i as u32, v));
            }
            nibbles[i / 2] |= n << ((i & 1) * 4);
        }
        Packed {
            len: values.len(),
            nibbles,
            wide,
        }
    }

    /// Values held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Values kept whole, outside the nibbles.
    pub fn wide(&self) -> usize {
        self.wide.len()
    }

    /// The value byte at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u8 {
        let n = (self.nibbles[i / 2] >> ((i & 1) * 4)) & 15;
        if n != ESCAPE {
            return byte_of(n);
        }
        let k = self
            .wide
            .binary_search_by_key(&(i as u32), |&(j, _)| j)
            .expect("an escaped value is listed");
        self.wide[k].1
    }

    /// Every value byte, by index.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Appends the packed form: the count of wide values (8 bytes), the nibbles, then
    /// each wide value as its index (4 bytes) and byte.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.wide.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.nibbles);
        for &(i, v) in &self.wide {
            out.extend_from_slice(&i.to_le_bytes());
            out.push(v);
        }
    }

    /// Reads `len` values written by [`Packed::write`] from the start of `b`: the values
    /// and the bytes used, or what is wrong.
    pub(crate) fn read(b: &[u8], len: usize) -> Result<(Packed, usize), String> {
        let short = || "the file ends early".to_string();
        let count = u64::from_le_bytes(b.get(..8).ok_or_else(short)?.try_into().expect("8"));
        let half = len.div_ceil(2);
        let nibbles = b.get(8..8 + half).ok_or_else(short)?.to_vec();
        let count = usize::try_from(count).map_err(|_| "too many wide values".to_string())?;
        let end = count
            .checked_mul(5)
            .and_then(|w| w.checked_add(8 + half))
            .ok_or_else(short)?;
        let list = b.get(8 + half..end).ok_or_else(short)?;
        let wide: Vec<(u32, u8)> = list
            .chunks_exact(5)
            .map(|c| (u32::from_le_bytes(c[..4].try_into().expect("4")), c[4]))
            .collect();
        let p = Packed { len, nibbles, wide };
        // Every escape listed, in order, and nothing listed that fits a nibble.
        let escaped = (0..len)
            .filter(|&i| (p.nibbles[i / 2] >> ((i & 1) * 4)) & 15 == ESCAPE)
            .count();
        let sorted = p.wide.windows(2).all(|w| w[0].0 < w[1].0);
        let fits = p.wide.iter().all(|&(i, v)| {
            (i as usize) < len
                && nibble(v) == ESCAPE
                && (p.nibbles[i as usize / 2] >> ((i as usize & 1) * 4)) & 15 == ESCAPE
        });
        if escaped != p.wide.len() || !sorted || !fits {
            return Err("its list of long distances does not match its values".into());
        }
        Ok((p, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_byte_round_trips() {
        // Every byte a value can be, at odd and even places, and through the file form.
        let values: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).chain([3]).collect();
        let p = Packed::pack(&values);
        assert_eq!(p.iter().collect::<Vec<_>>(), values);
        let wide = values.iter().filter(|&&v| nibble(v) == ESCAPE).count();
        assert_eq!(p.wide(), wide);
        let mut b = Vec::new();
        p.write(&mut b);
        assert_eq!(b.len(), 8 + values.len().div_ceil(2) + 5 * wide);
        let (q, used) = Packed::read(&b, values.len()).unwrap();
        assert_eq!((q, used), (p, b.len()));
        // A wide value's index damaged, or the list cut short, is found.
        let mut bad = b.clone();
        let at = 8 + values.len().div_ceil(2);
        bad[at] ^= 1;
        assert!(Packed::read(&bad, values.len()).is_err());
        assert!(Packed::read(&b[..b.len() - 1], values.len()).is_err());
    }
}
