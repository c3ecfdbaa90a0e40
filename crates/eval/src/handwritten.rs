//! Static evaluation for the alpha-beta engine.

use fanorona_rules::{Bitboard, Color, Position, StepFeatures};

/// The evaluation's weights, in hundredths of a piece. One documented place for every
/// term; [`EvalWeights::default`] is what the engine plays with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalWeights {
    /// A piece. Material dominates: Fanorona is won by capturing everything.
    pub piece: i32,
    /// A piece on a strong point (one with diagonal lines, `x + y` even): it reaches
    /// 8 neighbours instead of 4, so it attacks and escapes more.
    pub strong_point: i32,
    /// One paika step available (mobility): a side with few moves gets immobilised.
    pub mobility: i32,
    /// A piece of the side *not* to move that the side to move can capture next: it
    /// will likely fall (counted per piece of the capturable runs).
    pub hanging_to_move: i32,
    /// A piece of the side to move that the opponent attacks: it can still react, so
    /// this costs less than a piece hanging for the opponent.
    pub attacked_own: i32,
    /// Bonus for the side to move (the initiative; keeps odd and even depths closer).
    pub tempo: i32,
}

impl Default for EvalWeights {
    fn default() -> Self {
        EvalWeights {
            piece: 100,
            strong_point: 4,
            mobility: 1,
            hanging_to_move: 40,
            attacked_own: 12,
            tempo: 5,
        }
    }
}

/// Points with diagonal lines (`x + y` even).
#[inline]
fn strong_points(g: &fanorona_rules::Geometry) -> Bitboard {
    Bitboard(g.has_line[1] | g.has_line[3] | g.has_line[5] | g.has_line[7])
}

/// Evaluates `pos` for the side to move, in hundredths of a piece.
pub fn evaluate(pos: &Position, w: &EvalWeights) -> i32 {
    evaluate_with(pos, w, &pos.step_features())
}

/// [`evaluate`] given `pos`'s step features (`pos.step_features()`), for callers that
/// need them too.
pub(crate) fn evaluate_with(pos: &Position, w: &EvalWeights, f: &StepFeatures) -> i32 {
    let me = pos.side_to_move();
    let them = me.other();
    let g = pos.geometry();
    let strong = strong_points(g);
    let side = |c: Color, mobility: u32| {
        let p = pos.pieces(c);
        p.count() as i32 * w.piece
            + (p & strong).count() as i32 * w.strong_point
            + mobility as i32 * w.mobility
    };
    let hanging = f.hanging.count() as i32;
    let attacked = f.attacked.count() as i32;
    side(me, f.mobility[0]) - side(them, f.mobility[1]) + hanging * w.hanging_to_move
        - attacked * w.attacked_own
        + w.tempo
}
