//! Building tables: retrograde analysis, one material class at a time, fewest pieces
//! first.
//!
//! 1. Every position of the class (both sides to move, in parallel): no turn is a loss
//!    (distance 0); a side that must capture has only turns into smaller classes, already
//!    solved, so its value is settled at once (a win in 1 if a capture reaches a lost
//!    position, else a draw if one reaches a drawn one, else a loss in 1); otherwise its
//!    turns are paikas inside the class, and it waits with their count.
//! 2. Level by level from distance 0: a position lost in `k` makes every position with a
//!    paika into it a win in `k + 1` (the first time, so the fastest); a position won in
//!    `k` takes one from the count of each such position, and one whose count reaches 0
//!    (every paika reaches a win for the opponent) is a loss in `k + 1` (the last time, so
//!    the longest). The positions with a paika into a given one are found by taking the
//!    paika back: the opponent's piece steps back along a line onto an empty point, and
//!    the position before must have had no capture (captures are compulsory).
//! 3. Distances stop at the quiet limit; what is left is a draw.

use crate::index::{Class, index_of, pieces_at};
use crate::{
    ClassTable, Packed, Tablebase, TbError, Value, Wdl, read_file, stored_classes, write_file,
};
use fanorona_rules::{ByColor, Color, Direction, Position, Turn, TurnMode, Variant};
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

/// Positions handled per parallel task.
const CHUNK: usize = 1 << 14;

impl Tablebase {
    /// Builds the tables of `variant` for every class of up to `max_pieces` pieces,
    /// under a draw after `quiet_limit` quiet turns. With `dir`, each class is written
    /// there as soon as it is solved, and classes whose files are already there are read
    /// instead of built (an interrupted build resumes). `progress` hears a line per
    /// class.
    ///
    /// # Errors
    /// An unsupported variant or limit; a file that cannot be written, or a damaged one
    /// found there.
    pub fn build(
        variant: Variant,
        quiet_limit: u16,
        max_pieces: u8,
        dir: Option<&Path>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Tablebase, TbError> {
        let mut tb = Tablebase::empty(variant, quiet_limit)?;
        if max_pieces < 2 || max_pieces > 2 * variant.pieces_each() as u8 {
            return Err(TbError::Unsupported(format!(
                "--pieces {max_pieces}: from 2 to {}",
                2 * variant.pieces_each()
            )));
        }
        for class in stored_classes(variant, max_pieces) {
            let t0 = Instant::now();
            if let Some(d) = dir {
                let path = d.join(crate::file_name(variant, class));
                if path.is_file() {
                    let (limit, table) = read_file(&path, variant)?;
                    if limit != quiet_limit {
                        return Err(TbError::Bad {
                            path,
                            reason: format!(
                                "built for a quiet limit of {limit}, not {quiet_limit}: delete it or build elsewhere"
                            ),
                        });
                    }
                    progress(&format!("{variant} {class}: read from {}", path.display()));
                    tb.tables.insert(class, table);
                    continue;
                }
            }
            let table = tb.build_class(class);
            let (w, d, l) = tally(&table);
            progress(&format!(
                "{variant} {class}: {} positions, {w} won, {d} drawn, {l} lost for the side to move, {:.1} s",
                table.values[0].len() * 2,
                t0.elapsed().as_secs_f64()
            ));
            if let Some(d) = dir {
                write_file(d, variant, quiet_limit, &table)?;
            }
            tb.tables.insert(class, table);
        }
        tb.max_pieces = max_pieces;
        Ok(tb)
    }

    fn position(&self, pieces: ByColor<fanorona_rules::Bitboard>, side: Color) -> Position {
        Position::new(self.variant, self.rules(), pieces, side, 0, 2)
            .expect("a class never exceeds the pieces of a side")
    }

    fn build_class(&self, class: Class) -> ClassTable {
        let points = self.variant.points();
        let n = class.size(&self.binomial, points) as usize;
        let mut values = [vec![0u8; n], vec![0u8; n]];
        let mut counts = [vec![0u8; n], vec![0u8; n]];
        // 1. Terminal and capturing positions, and the paika counts of the others.
        for side in [Color::White, Color::Black] {
            let s = side.index();
            values[s]
                .par_chunks_mut(CHUNK)
                .zip(counts[s].par_chunks_mut(CHUNK))
                .enumerate()
                .for_each(|(ci, (vs, cs))| {
                    let mut scratch = Vec::new();
                    let mut turns: Vec<Turn> = Vec::new();
                    for j in 0..vs.len() {
                        let i = (ci * CHUNK + j) as u64;
                        let pieces = pieces_at(&self.binomial, points, class, i, &mut scratch);
                        let pos = self.position(pieces, side);
                        pos.turns_into(&mut turns, TurnMode::Distinct);
                        if turns.is_empty() {
                            vs[j] = Value::Loss(0).to_byte();
                        } else if pos.must_capture() {
                            let (mut win, mut draw) = (false, false);
                            for t in &turns {
                                let mut c = pos;
                                c.play_unchecked(t);
                                // The class below is solved, its count fresh.
                                let v = self.value(&c).expect("smaller classes are built first");
                                match v.for_mover(self.quiet_limit, true).0 {
                                    Wdl::Win => win = true,
                                    Wdl::Loss => {}
                                    Wdl::Draw => draw = true,
                                }
                            }
                            vs[j] = if win {
                                Value::Win(1)
                            } else if draw {
                                Value::Draw
                            } else {
                                Value::Loss(1)
                            }
                            .to_byte();
                        } else {
                            cs[j] = turns.len() as u8;
                        }
                    }
                });
        }
        // 2. Level by level.
        let limit = self.quiet_limit as usize;
        let mut levels: Vec<Vec<(u8, u32)>> = vec![Vec::new(); limit + 1];
        for s in 0..2 {
            for (i, (&v, &c)) in values[s].iter().zip(&counts[s]).enumerate() {
                if c == 0 {
                    match Value::from_byte(v) {
                        Value::Loss(d) | Value::Win(d) => {
                            levels[d as usize].push((s as u8, i as u32))
                        }
                        Value::Draw => {}
                    }
                }
            }
        }
        let g = self.variant.geometry();
        let mut scratch = Vec::new();
        for k in 0..limit {
            let level = std::mem::take(&mut levels[k]);
            for (s, i) in level {
                let side = if s == 0 { Color::White } else { Color::Black };
                let won = matches!(
                    Value::from_byte(values[s as usize][i as usize]),
                    Value::Win(_)
                );
                let pieces = pieces_at(&self.binomial, points, class, u64::from(i), &mut scratch);
                // The paika before was the opponent's.
                let mover = side.other();
                let occupied = pieces.white | pieces.black;
                let ps = mover.index();
                for y in *pieces.get(mover) {
                    for d in Direction::ALL {
                        let x = g.shift(y.bb(), d);
                        if x.is_empty() || (x & occupied).any() {
                            continue;
                        }
                        let mut before = pieces;
                        *before.get_mut(mover) = pieces.get(mover).without(y) | x;
                        let pi = index_of(&self.binomial, points, &before) as usize;
                        // Settled already; this also skips positions with a capture,
                        // which have no paika (settled in step 1).
                        if counts[ps][pi] == 0 {
                            continue;
                        }
                        if won {
                            counts[ps][pi] -= 1;
                            if counts[ps][pi] == 0 {
                                values[ps][pi] = Value::Loss(k as u8 + 1).to_byte();
                                levels[k + 1].push((ps as u8, pi as u32));
                            }
                        } else {
                            values[ps][pi] = Value::Win(k as u8 + 1).to_byte();
                            counts[ps][pi] = 0;
                            levels[k + 1].push((ps as u8, pi as u32));
                        }
                    }
                }
            }
        }
        // 3. What is left (values still 0) is drawn.
        let [white, black] = values;
        ClassTable {
            class,
            values: [Packed::pack(&white), Packed::pack(&black)],
        }
    }
}

/// Won, drawn and lost positions of a table (for the side to move).
pub fn tally(t: &ClassTable) -> (u64, u64, u64) {
    let (mut w, mut d, mut l) = (0, 0, 0);
    for v in t.values.iter().flat_map(Packed::iter) {
        match Value::from_byte(v) {
            Value::Win(_) => w += 1,
            Value::Draw => d += 1,
            Value::Loss(_) => l += 1,
        }
    }
    (w, d, l)
}
