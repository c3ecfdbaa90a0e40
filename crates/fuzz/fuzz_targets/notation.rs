//! Turn notation in all its forms (`d3e3(+1)`, chains, the engine dialect's `d3e3A`) and
//! whole games: never a panic; a turn read writes back as a turn that reads the same.
//! The first byte picks the position: a start, or one reached by the bytes' turns.
#![no_main]
use fanorona_rules::notation::{
    PointStyle, format_engine_turn, format_turn, parse_game, parse_turn,
};
use fanorona_rules::{Position, RuleOptions, TurnMode, Variant};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let variant = if pick & 1 == 0 {
        Variant::Tsivy
    } else {
        Variant::Dimy
    };
    let mut pos = Position::start(variant, RuleOptions::default());
    // Up to 15 turns chosen by the next byte's bits: positions with chains and captures.
    let (walk, text) = rest.split_at(rest.len().min(((pick >> 1) & 0x0f) as usize));
    for &b in walk {
        let turns = pos.turns(TurnMode::Distinct);
        if turns.is_empty() || pos.outcome().is_some() {
            break;
        }
        pos.play_unchecked(&turns[b as usize % turns.len()]);
    }
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    if let Ok(turn) = parse_turn(&pos, text) {
        for written in [
            format_turn(&pos, &turn, PointStyle::default()),
            format_engine_turn(&pos, &turn),
        ] {
            let again = parse_turn(&pos, &written).expect("a written turn reads");
            assert_eq!(again, turn, "{written}");
        }
    }
    let _ = parse_game(&pos, text);
});
