//! Stepping the batch allocates nothing once warm (a counting allocator).
#![allow(unsafe_code)] // a GlobalAlloc wrapper needs it; it only counts and forwards

use fanorona_rules::{Position, RuleOptions, Variant};
use fanorona_sim::BatchSim;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
                let before = ALLOCS.load(Ordering::Relaxed);
                run(200);
                counts.push(ALLOCS.load(Ordering::Relaxed) - before);
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
