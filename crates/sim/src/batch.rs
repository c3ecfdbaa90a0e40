//! The batched simulator: N games of one variant stepped together.

use crate::encode::{Encode, frame_action, num_planes};
use fanorona_rules::{Outcome, Variant};
use ndarray::{Array2, Array4};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::fmt;

/// One game of the batch with its scratch space.
#[derive(Clone, Debug)]
struct Slot<G> {
    game: G,
    /// Legal actions in the mover's frame, from the last [`BatchSim::observe`].
    legal: Vec<u16>,
    rng: SmallRng,
    /// Decisions made in the current game.
    steps: u32,
}

/// What happened to one game in a [`BatchSim::step`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct StepResult {
    /// The game ended with this step (and was restarted if auto-reset is on).
    pub outcome: Option<Outcome>,
    /// Decisions the finished game took (0 if it did not finish).
    pub length: u32,
}

/// Why a batch step was refused (nothing was stepped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// One action per game is needed.
    WrongCount {
        /// Actions given.
        given: usize,
        /// Games in the batch.
        games: usize,
    },
    /// The action is not legal in that game (in the mover's frame).
    Illegal {
        /// Game index.
        game: usize,
        /// The action index.
        action: usize,
    },
    /// The game is over and auto-reset is off.
    Finished {
        /// Game index.
        game: usize,
    },
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::WrongCount { given, games } => {
                write!(f, "{given} actions for a batch of {games} games")
            }
            SimError::Illegal { game, action } => {
                write!(f, "action {action} is not legal in game {game}")
            }
            SimError::Finished { game } => write!(f, "game {game} is over (auto-reset is off)"),
        }
    }
}
impl std::error::Error for SimError {}

/// N games of one variant, stepped together, seen as tensors.
///
/// ```
/// use fanorona_rules::{Position, RuleOptions, Variant};
/// use fanorona_sim::BatchSim;
/// let start = Position::start(Variant::Dimy, RuleOptions::default());
/// let mut sim = BatchSim::new(start, 64, 7);
/// sim.set_auto_reset(true);
/// let (mut obs, mut mask) = sim.buffers();          // [64, 11, 5, 5] f32, [64, 601] bool
/// let mut actions = vec![0; 64];
/// for _ in 0..100 {
///     sim.observe(&mut obs, &mut mask);              // planes and masks, mover's frame
///     sim.sample_random(&mut actions);               // or a network's choice
///     let results = sim.step(&actions).unwrap();     // one action per game
///     let _finished = results.iter().filter(|r| r.outcome.is_some()).count();
/// }
/// ```
#[derive(Clone, Debug)]
pub struct BatchSim<G> {
    start: G,
    slots: Vec<Slot<G>>,
    auto_reset: bool,
    results: Vec<StepResult>,
    variant: Variant,
}

impl<G: Encode> BatchSim<G> {
    /// `n` games at `start`, each with its own random stream seeded from `seed`.
    pub fn new(start: G, n: usize, seed: u64) -> BatchSim<G> {
        let variant = start.variant();
        let actions = start.num_actions();
        let slots = (0..n)
            .map(|i| Slot {
                game: start.clone(),
                legal: Vec::with_capacity(actions),
                rng: SmallRng::seed_from_u64(seed_for(seed, i)),
                steps: 0,
            })
            .collect();
        BatchSim {
            start,
            slots,
            auto_reset: false,
            results: vec![StepResult::default(); n],
            variant,
        }
    }

    /// Restart finished games at the start position inside [`BatchSim::step`].
    pub fn set_auto_reset(&mut self, on: bool) {
        self.auto_reset = on;
    }
    /// Every game back to the start, random streams reseeded from `seed`.
    pub fn reset(&mut self, seed: u64) {
        for (i, s) in self.slots.iter_mut().enumerate() {
            s.game = self.start.clone();
            s.rng = SmallRng::seed_from_u64(seed_for(seed, i));
            s.steps = 0;
            s.legal.clear();
        }
    }
    /// Number of games.
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    /// Whether the batch has no games.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// Size of the action space.
    pub fn num_actions(&self) -> usize {
        self.start.num_actions()
    }
    /// Observation planes.
    pub fn num_planes(&self) -> usize {
        num_planes(self.variant)
    }
    /// The games, on the real board.
    pub fn games(&self) -> impl ExactSizeIterator<Item = &G> {
        self.slots.iter().map(|s| &s.game)
    }
    /// Game `i`.
    pub fn game(&self, i: usize) -> &G {
        &self.slots[i].game
    }

    /// Fresh observation and mask arrays of the right shape.
    pub fn buffers(&self) -> (Array4<f32>, Array2<bool>) {
        let v = self.variant;
        (
            Array4::zeros((self.len(), self.num_planes(), v.height(), v.width())),
            Array2::from_elem((self.len(), self.num_actions()), false),
        )
    }

    /// Writes every game's observation and legal-action mask (mover's frame), in parallel.
    ///
    /// # Panics
    /// If the arrays do not have the shapes of [`BatchSim::buffers`].
    pub fn observe(&mut self, obs: &mut Array4<f32>, mask: &mut Array2<bool>) {
        let (n, a) = (self.len(), self.num_actions());
        let per_game = self.num_planes() * self.variant.points();
        assert_eq!(
            obs.shape(),
            &[
                n,
                self.num_planes(),
                self.variant.height(),
                self.variant.width()
            ]
        );
        assert_eq!(mask.shape(), &[n, a]);
        let obs = obs.as_slice_mut().expect("standard layout");
        let mask = mask.as_slice_mut().expect("standard layout");
        self.slots
            .par_iter_mut()
            .zip(obs.par_chunks_mut(per_game))
            .zip(mask.par_chunks_mut(a))
            .with_min_len(16)
            .for_each(|((slot, o), m)| {
                slot.game.encode(o);
                m.fill(false);
                slot.legal.clear();
                let legal = &mut slot.legal;
                slot.game.for_each_legal_in_frame(|i| {
                    m[i] = true;
                    legal.push(i as u16);
                });
            });
    }

    /// A uniformly random legal action per game (mover's frame), from the last
    /// [`BatchSim::observe`]; 0 for a game without legal actions.
    pub fn sample_random(&mut self, actions: &mut [usize]) {
        assert_eq!(actions.len(), self.len());
        self.slots
            .par_iter_mut()
            .zip(actions.par_iter_mut())
            .with_min_len(64)
            .for_each(|(s, a)| {
                *a = if s.legal.is_empty() {
                    0
                } else {
                    s.legal[s.rng.random_range(0..s.legal.len())] as usize
                };
            });
    }

    /// Steps every game by one action, given in the mover's frame (as masks are).
    ///
    /// # Errors
    /// The wrong number of actions, an action that is not legal, or a finished game
    /// without auto-reset: nothing is stepped.
    pub fn step(&mut self, actions: &[usize]) -> Result<&[StepResult], SimError> {
        if actions.len() != self.len() {
            return Err(SimError::WrongCount {
                given: actions.len(),
                games: self.len(),
            });
        }
        let bad = self
            .slots
            .par_iter()
            .zip(actions.par_iter())
            .enumerate()
            .find_map_first(|(i, (s, &a))| {
                if s.game.outcome().is_some() {
                    return Some(SimError::Finished { game: i });
                }
                let mut legal = false;
                s.game.for_each_legal_in_frame(|l| legal |= l == a);
                (!legal).then_some(SimError::Illegal { game: i, action: a })
            });
        if let Some(e) = bad {
            return Err(e);
        }
        Ok(self.step_unchecked(actions))
    }

    /// [`BatchSim::step`] without the legality check (actions from the masks).
    pub fn step_unchecked(&mut self, actions: &[usize]) -> &[StepResult] {
        let v = self.variant;
        let start = &self.start;
        let auto = self.auto_reset;
        self.slots
            .par_iter_mut()
            .zip(actions.par_iter())
            .zip(self.results.par_iter_mut())
            .with_min_len(16)
            .for_each(|((s, &a), r)| {
                let mover = s.game.to_move();
                s.game.apply(frame_action(v, mover, a));
                s.steps += 1;
                *r = StepResult::default();
                if let Some(o) = s.game.outcome() {
                    *r = StepResult {
                        outcome: Some(o),
                        length: s.steps,
                    };
                    if auto {
                        s.game = start.clone();
                        s.steps = 0;
                    }
                }
            });
        &self.results
    }
}

fn seed_for(seed: u64, i: usize) -> u64 {
    seed ^ (i as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
}
