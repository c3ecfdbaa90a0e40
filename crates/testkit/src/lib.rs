//! What the workspace's tests share, so that each test file says only what it tests.
//! A dev-dependency of the crates whose tests use it; nothing here ships.
//!
//! - [`Counting`]: a global allocator that counts allocations, for the tests that check
//!   a hot path allocates nothing.
//! - [`scratch`] and [`repo_file`]: a fresh folder for a test's files, a file of the
//!   repository.
//! - [`random_positions`] and [`random_planes`]: positions of random games and the
//!   network inputs of such games.
//! - [`class_position`] and [`random_class_position`]: fanoron-dimy positions of a
//!   class of the endgame tables.
//! - [`run_with_input`]: a child process fed its standard input, its output collected.
//! - [`max_diff`]: the largest difference of two equally long outputs.
#![warn(missing_docs)]
#![allow(unsafe_code)] // the counting allocator: a GlobalAlloc wrapper only counts and forwards

use fanorona_rules::{Color, Position, RuleOptions, TurnMode, Variant};
use fanorona_sim::Encode;
use fanorona_tb::{Binomial, Class, pieces_at};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A global allocator that counts allocations and reallocations and forwards them to the
/// system's. A test binary installs it with
/// `#[global_allocator] static ALLOC: Counting = Counting::new();` and reads
/// [`Counting::allocations`] before and after the code under test.
#[derive(Debug)]
pub struct Counting(AtomicUsize);

impl Counting {
    /// No allocations counted yet.
    pub const fn new() -> Counting {
        Counting(AtomicUsize::new(0))
    }

    /// Allocations and reallocations so far, in every thread.
    pub fn allocations(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

impl Default for Counting {
    fn default() -> Self {
        Counting::new()
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the counter is an atomic.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.0.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.0.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// A fresh, empty folder for a test's files: `fanorona-<name>-<process id>` in the
/// system's temporary folder, emptied if an earlier run left it.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fanorona-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a scratch folder");
    d
}

/// A file of the repository by its path from the repository's root (a string, as
/// commands take it).
pub fn repo_file(rel: &str) -> String {
    format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// `n` positions of `variant` (default rules), each after 0 to `max_turns - 1` random
/// turns from the start, each with a turn to play. The same arguments give the same
/// positions.
pub fn random_positions(variant: Variant, n: usize, max_turns: u32, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = Position::start(variant, RuleOptions::default());
        for _ in 0..rng.random_range(0..max_turns) {
            let turns = pos.turns(TurnMode::Distinct);
            if turns.is_empty() {
                break;
            }
            pos.play_unchecked(&turns[rng.random_range(0..turns.len())]);
        }
        if pos.has_turn() {
            out.push(pos);
        }
    }
    out
}

/// The position of `variant` (default rules, ply 2, no quiet turns) whose pieces are
/// `class`'s `index`-th placement in the tables' order (`index` modulo the class's
/// size), `side` to move.
pub fn class_position(variant: Variant, class: Class, index: u64, side: Color) -> Position {
    let (b, n) = (Binomial::new(), variant.points());
    let pieces = pieces_at(&b, n, class, index % class.size(&b, n), &mut Vec::new());
    Position::new(variant, RuleOptions::default(), pieces, side, 0, 2)
        .expect("a placement of a class is a position")
}

/// A position of `variant` and `class` drawn from `rng`: a placement, then the side to
/// move (each equally likely).
pub fn random_class_position(variant: Variant, class: Class, rng: &mut SmallRng) -> Position {
    let index = rng.random_range(0..class.size(&Binomial::new(), variant.points()));
    let side = if rng.random_bool(0.5) {
        Color::White
    } else {
        Color::Black
    };
    class_position(variant, class, index, side)
}

/// The network's input planes of `n` positions of random games from `start` (a new game
/// whenever one ends), one after the other.
pub fn random_planes<G: Encode>(start: G, n: usize, seed: u64) -> Vec<f32> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let size = fanorona_sim::num_planes(start.variant()) * start.variant().points();
    let mut out = vec![0.0; n * size];
    let mut g = start.clone();
    let mut legal = Vec::new();
    for chunk in out.chunks_exact_mut(size) {
        g.legal_actions(&mut legal);
        if legal.is_empty() {
            g = start.clone();
            g.legal_actions(&mut legal);
        }
        g.encode(chunk);
        g.apply(legal[rng.random_range(0..legal.len())]);
    }
    out
}

/// Runs `cmd` with `input` on its standard input (then closed) and collects its output.
pub fn run_with_input(cmd: &mut Command, input: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    child
        .stdin
        .take()
        .expect("a piped input")
        .write_all(input.as_bytes())
        .expect("the input is written");
    child.wait_with_output().expect("the command ends")
}

/// The largest absolute difference between two outputs of the same length.
pub fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "outputs of different lengths");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_positions_repeat_with_their_seed_and_can_be_played() {
        let a = random_positions(Variant::Dimy, 20, 20, 3);
        assert_eq!(a, random_positions(Variant::Dimy, 20, 20, 3));
        assert_ne!(a, random_positions(Variant::Dimy, 20, 20, 4));
        assert!(a.iter().all(|p| p.has_turn()));
        assert!(
            a.iter()
                .any(|p| *p != Position::start(Variant::Dimy, Default::default()))
        );
    }

    #[test]
    fn class_positions_hold_their_class() {
        let class = Class { white: 2, black: 1 };
        let mut rng = SmallRng::seed_from_u64(1);
        for i in 0..20 {
            let p = random_class_position(Variant::Dimy, class, &mut rng);
            assert_eq!(p.pieces(Color::White).count(), 2);
            assert_eq!(p.pieces(Color::Black).count(), 1);
            let q = class_position(Variant::Tsivy, class, i, Color::Black);
            assert_eq!(q.side_to_move(), Color::Black);
        }
    }

    #[test]
    fn a_child_reads_its_input_and_a_scratch_folder_starts_empty() {
        let o = run_with_input(&mut Command::new("cat"), "two\nlines\n");
        assert_eq!(String::from_utf8_lossy(&o.stdout), "two\nlines\n");
        let d = scratch("testkit-self");
        std::fs::write(d.join("x"), "1").unwrap();
        assert!(scratch("testkit-self").read_dir().unwrap().next().is_none());
        assert!(std::path::Path::new(&repo_file("Cargo.toml")).is_file());
        assert_eq!(max_diff(&[1.0, 2.0], &[1.5, 1.0]), 1.0);
    }
}
