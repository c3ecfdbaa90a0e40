//! Learned-evaluation files (`ab:eval=FILE`): never a panic; one that reads evaluates its
//! board's start.
#![no_main]
use fanorona_rules::{Position, RuleOptions};
use fanorona_search::{EvalWeights, LearnedEval};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(e) = LearnedEval::from_text(text) {
        let start = Position::start(e.variant(), RuleOptions::default());
        let _ = e.evaluate(&start, &EvalWeights::default());
    }
});
