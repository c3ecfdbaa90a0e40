//! Move generation allocates nothing once its buffers have grown (a counting allocator).

use fanorona_rules::{Action, PlayoutBuffer, Position, RuleOptions, TurnMode, Variant, playout};
use fanorona_testkit::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

#[test]
fn generation_does_not_allocate_once_warm() {
    let start = Position::start(Variant::Tsivy, RuleOptions::default());
    let mut turns = Vec::with_capacity(4096);
    let mut actions: Vec<Action> = Vec::with_capacity(4096);
    // The same games twice: the first pass grows every buffer (the per-thread
    // de-duplication list included), the second must not allocate at all.
    let mut playouts = PlayoutBuffer::default();
    let games = |turns: &mut Vec<_>, actions: &mut Vec<Action>, playouts: &mut PlayoutBuffer| {
        let mut seed = 7u64;
        let mut pick = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut n = 0;
        for _ in 0..200 {
            let mut p = start;
            while p.outcome_given(true).is_none() {
                p.turns_into(turns, TurnMode::Distinct);
                if turns.is_empty() {
                    break;
                }
                n += p.count_turns(TurnMode::Paths) + p.count_turns(TurnMode::Distinct);
                p.actions_into(actions);
                p.turns_into(turns, TurnMode::Paths);
                let t = turns[pick(turns.len())];
                p.play_unchecked(&t);
            }
        }
        for _ in 0..20 {
            playout(&start, &mut pick, playouts);
        }
        n
    };
    games(&mut turns, &mut actions, &mut playouts);
    let before = ALLOC.allocations();
    let n = games(&mut turns, &mut actions, &mut playouts);
    let after = ALLOC.allocations();
    assert!(n > 10_000, "generated {n} turns");
    assert_eq!(after - before, 0, "allocations during generation");
}
