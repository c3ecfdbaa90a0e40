//! perft: counting the turns of a game tree, the standard check of a move generator.

use crate::position::{Position, TurnMode};
use crate::turn::Turn;

/// Number of leaf turns `depth` turns deep. Draw rules are ignored: a node ends only
/// when the side to move has no turn. `depth` 0 counts 1.
pub fn perft(pos: &Position, depth: u32, mode: TurnMode) -> u64 {
    let mut buffers: Vec<Vec<Turn>> = (0..depth).map(|_| Vec::with_capacity(64)).collect();
    perft_rec(pos, depth, mode, &mut buffers)
}

fn perft_rec(pos: &Position, depth: u32, mode: TurnMode, buffers: &mut [Vec<Turn>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        // Leaves are counted without building turns.
        return pos.count_turns(mode);
    }
    let (list, rest) = buffers.split_first_mut().expect("one buffer per level");
    pos.turns_into(list, mode);
    let mut n = 0;
    for t in list.iter() {
        let mut child = *pos;
        // Counting reads no hash: the children do without it.
        child.play_parts::<false>(t.from(), t.to(), t.captured());
        n += perft_rec(&child, depth - 1, mode, rest);
    }
    n
}

/// perft below each legal turn: `(turn, count)`, in generation order.
pub fn divide(pos: &Position, depth: u32, mode: TurnMode) -> Vec<(Turn, u64)> {
    assert!(depth >= 1, "divide needs depth >= 1");
    pos.turns(mode)
        .into_iter()
        .map(|t| {
            let mut child = *pos;
            child.play_unchecked(&t);
            (t, perft(&child, depth - 1, mode))
        })
        .collect()
}
