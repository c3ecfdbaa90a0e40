//! Stepping the batch allocates nothing once warm (a counting allocator).

use fanorona_rules::{Position, RuleOptions, Variant};
use fanorona_sim::BatchSim;
use fanorona_testkit::Counting;

#[global_allocator]
static ALLOC: Counting = Counting::new();

#[test]
fn steps_do_not_allocate() {
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let start = Position::start(Variant::Tsivy, RuleOptions::default());
            let mut sim = BatchSim::new(start, 256, 9);
            sim.set_auto_reset(true);
            let (mut obs, mut mask) = sim.buffers();
            let mut actions = vec![0; 256];
            let mut run = |n: usize| {
                for _ in 0..n {
                    sim.observe(&mut obs, &mut mask);
                    sim.sample_random(&mut actions);
                    sim.step_unchecked(&actions);
                }
            };
            // Warm: some window of 200 steps allocates nothing. One window is not
            // enough on a loaded machine, where a worker thread may first be handed a job
            // (and set up its thread-locals) only after the warm-up; a step that
            // allocates would show in every window.
            run(50);
            let mut counts = Vec::with_capacity(5);
            for _ in 0..5 {
                let before = ALLOC.allocations();
                run(200);
                counts.push(ALLOC.allocations() - before);
                if counts.last() == Some(&0) {
                    break;
                }
            }
            assert_eq!(
                counts.last(),
                Some(&0),
                "allocations in each window of 200 batch steps on {threads} thread(s): {counts:?}"
            );
        });
    }
}
