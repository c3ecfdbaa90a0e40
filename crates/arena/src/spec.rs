//! Player specs: `ab:depth=8`, `ab:time=1s`, `ab:nodes=100000,hash=64`, `random`,
//! `random:seed=3`, `mcts:ckpt=DIR,sims=400` (`ckpt=none`: a fresh network; no `ckpt`:
//! the release network of the variant), `mcts:ckpt=DIR,time=200ms` (a time per turn, as
//! `ab:time=`; leaf values half the network's, half a 3-turn alpha-beta search's unless
//! `blend=0`: `blend=D` searches D turns, `blend_weight=W` sets the search's share,
//! `blend_scale=S` the score in hundredths of a piece that counts as a 73 % win),
//! `mcts:guard=4` (only turns a 4-turn alpha-beta search scores within `guard_margin=`
//! hundredths of a piece of the best, default 50; without `guard=`, [`default_guard`]:
//! on a clock the best turns only, as deep as the time allows; otherwise 8 turns;
//! `guard=0`: every turn). One parser,
//! used by the arena and by every command that names an engine.

/// A spec that cannot be used, with the reason (naming the spec).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

fn input_err(e: impl std::fmt::Display) -> SpecError {
    SpecError(e.to_string())
}

type Result<T> = std::result::Result<T, SpecError>;

use fanorona_nn::burn::module::Module;
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::{MctsBudget, MctsPlayer, NetConfig, NetEvaluator, checkpoint};
use fanorona_rules::Variant;
use fanorona_search::{
    AbConfig, AbPlayer, BlendConfig, GuardConfig, LearnedEval, Limits, MctsConfig, Player,
    RandomPlayer,
};
use std::sync::Arc;
use std::time::Duration;

/// The depth in turns of the alpha-beta search mixed into an `mcts` player's leaf values
/// when its spec does not say (`blend=0`: the network's values alone). At 1 it halved the
/// release tsivy network's blunders (experiments/search7); at 3 the tsivy network scores
/// 8.5 points more than at 1 against `ab:depth=6` at 400 simulations, and the same at
/// equal time (experiments/search8).
pub const DEFAULT_BLEND_DEPTH: u32 = 3;

/// Whether an `mcts` player mixes a shallow alpha-beta search into its leaf values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Blend {
    /// The spec names none: a [`DEFAULT_BLEND_DEPTH`]-turn search, half the value, on
    /// the boards alpha-beta plays (tsivy and dimy); none on telo.
    Default,
    /// `blend=0`: the network's values alone.
    Off,
    /// Named by the spec (`blend=D`, `blend_weight=W`).
    On(BlendConfig),
}

impl Blend {
    /// The blend a player of `variant` searches with.
    pub fn config(self, variant: Variant) -> Option<BlendConfig> {
        match self {
            Blend::Default => (variant != Variant::Telo).then(|| BlendConfig {
                depth: DEFAULT_BLEND_DEPTH,
                ..BlendConfig::default()
            }),
            Blend::Off => None,
            Blend::On(b) => Some(b),
        }
    }
}

/// The deepest guard a spec may name (`guard=20`), and the default guard's limit on a
/// clock, where the time decides how deep it judges. At 12, dimy's guard finished its
/// 12-turn pass in about a fifth of a 50 ms turn and left the rest of its half unused
/// (experiments/search12).
pub const MAX_GUARD_DEPTH: u32 = 20;

/// The default guard's depth in turns at a fixed number of simulations. 8 on both boards:
/// on tsivy at 400 simulations it scores 65.2 % against `ab:depth=6` where 6 turns
/// scored 61.2 % (+4.0 ± 4.0 points paired on the same book games, experiments/search12);
/// on dimy 66.2 % against `ab:depth=4` (experiments/search9).
pub const SIMS_GUARD_DEPTH: u32 = 8;

/// The tactical guard of an `mcts` player whose spec names none (`guard=0`: none):
/// the turns an alpha-beta search scores more than `margin` below the best are never
/// chosen. Alpha-beta plays tsivy and dimy only: telo has none. At equal time a guard
/// gains more than any other change of the search (experiments/guard1, search9,
/// search10).
///
/// - On a clock (`timed`): as deep as its share of the turn's time allows, up to
///   [`MAX_GUARD_DEPTH`], and only the turns it scores best (margin 0): the network
///   breaks ties. In search10 at 50 ms a turn this scored 8.5 points more on tsivy than
///   letting the network choose within half a piece.
/// - At a fixed number of simulations: [`SIMS_GUARD_DEPTH`] turns deep (at 400
///   simulations on tsivy its cost is lost in the step search's), within half a piece of
///   the best: with 400 simulations the network's choice among the sound turns is worth
///   more than alpha-beta's.
pub fn default_guard(variant: Variant, timed: bool) -> Option<GuardConfig> {
    let depth = match variant {
        Variant::Telo => return None,
        _ if timed => MAX_GUARD_DEPTH,
        Variant::Tsivy | Variant::Dimy => SIMS_GUARD_DEPTH,
    };
    let margin = if timed {
        0
    } else {
        GuardConfig::default().margin
    };
    Some(GuardConfig { depth, margin })
}

/// Which evaluation an `mcts` player's alpha-beta searches (its guard's and its blend's)
/// use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbEval {
    /// The spec names none: the learned evaluation that comes with the network, the
    /// [`RELEASE_EVAL_FILE`] of its checkpoint folder when there is one (the release
    /// folders have one), else the hand-written evaluation.
    Default,
    /// `ab_eval=none`: the hand-written evaluation.
    Off,
    /// `ab_eval=FILE` (or `ab_eval=release`: the release folder's).
    File(std::path::PathBuf),
}

/// Whether an `mcts` player chooses only among the turns an alpha-beta search finds sound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// The spec names none: [`default_guard`] (on a clock or not).
    Default,
    /// `guard=0`: every legal turn.
    Off,
    /// Named by the spec (`guard=D`, `guard_margin=M`).
    On(GuardConfig),
}

impl Guard {
    /// The guard a player of `variant` chooses with, on a clock or not (`timed`).
    pub fn config(self, variant: Variant, timed: bool) -> Option<GuardConfig> {
        match self {
            Guard::Default => default_guard(variant, timed),
            Guard::Off => None,
            Guard::On(g) => Some(g),
        }
    }
}

/// A parsed engine spec.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineSpec {
    /// The alpha-beta engine.
    Ab {
        /// Settings.
        cfg: AbConfig,
        /// Limits per move.
        limits: Limits,
        /// A learned evaluation's file (`eval=FILE`; see `fanorona_search::learned`),
        /// read when the player is made.
        eval: Option<std::path::PathBuf>,
    },
    /// Uniformly random turns.
    Random {
        /// Seed of its stream.
        seed: u64,
    },
    /// The network with MCTS.
    Mcts {
        /// Which network.
        ckpt: NetSource,
        /// Simulations per decision (with `time`: the most a decision may use).
        sims: u32,
        /// Time per turn (its decisions share it), as `ab:time=`.
        time: Option<Duration>,
        /// The search's settings: `gumbel=true` (Gumbel root search), `free_chains=true`
        /// (`MctsConfig::free_chain_steps`), `pass_forced=true` (`MctsConfig::pass_forced`),
        /// `solver=true` (`MctsConfig::solver`), `minimax=ALPHA`
        /// (`MctsConfig::minimax_weight`: 0.5 unless named; `minimax=0` searches on the
        /// mean alone, as every `mcts:` player did before 2026-11-26), `c_puct=`, `fpu=`
        /// (`fpu_reduction`), `ptemp=` (`policy_temperature`: 3 unless named), `contempt=`
        /// (`MctsConfig::contempt`: 0 unless named), `batch=` (leaves per network call); the
        /// rest as
        /// `MctsConfig::default()`.
        search: MctsConfig,
        /// Seed (tie breaks, Gumbel noise).
        seed: u64,
        /// Leaf values mixed with a shallow alpha-beta search's (`blend=DEPTH`,
        /// `blend_weight=W`; `blend=0`: the network alone).
        blend: Blend,
        /// Keep the tree from one turn to the next (`reuse=true`; `MctsPlayer::with_reuse`).
        reuse: bool,
        /// Choose only among the turns an alpha-beta search finds sound (`guard=DEPTH`,
        /// `guard_margin=M`; `MctsPlayer::with_guard`); `guard=0`: every legal turn.
        guard: Guard,
        /// The evaluation of the guard's and the blend's alpha-beta searches
        /// (`ab_eval=FILE|release|none`; `MctsPlayer::with_ab_eval`).
        ab_eval: AbEval,
    },
}

/// The network an `mcts` spec plays with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetSource {
    /// No `ckpt=`: the release network of the game's variant (`checkpoints/release/<variant>`).
    Release,
    /// `ckpt=none`: a freshly initialised network.
    Fresh,
    /// `ckpt=DIR`: a checkpoint folder or a run folder (its latest checkpoint).
    Dir(std::path::PathBuf),
}

/// The learned evaluation's file in a checkpoint folder (`checkpoints/release/<variant>/`
/// has one): `ab:eval=release` reads the release folder's, and an `mcts` player whose
/// network's folder has one searches with it unless its spec says `ab_eval=`.
pub const RELEASE_EVAL_FILE: &str = "eval.txt";

/// Reads a learned evaluation (`ab:eval=FILE`) for games of `variant`; `release` names
/// the release folder's ([`RELEASE_EVAL_FILE`]).
///
/// # Errors
/// A file that cannot be read, is not a learned evaluation, or is for another board,
/// naming the file.
pub fn load_learned(path: &std::path::Path, variant: Variant) -> Result<Arc<LearnedEval>> {
    let release;
    let path = if path.as_os_str() == "release" {
        release = checkpoint::release_dir(variant)
            .map_err(input_err)?
            .join(RELEASE_EVAL_FILE);
        release.as_path()
    } else {
        path
    };
    let named = |e: &dyn std::fmt::Display| {
        input_err(format!("learned evaluation {}: {e}", path.display()))
    };
    let e = LearnedEval::read(path, variant).map_err(|e| named(&e))?;
    Ok(Arc::new(e))
}

/// Reads a duration: `250ms`, `1s`, `1.5s`, `2m`.
pub fn parse_duration(s: &str) -> Option<Duration> {
    let (num, unit) = s
        .find(|c: char| c.is_ascii_alphabetic())
        .map_or((s, "s"), |i| (&s[..i], &s[i..]));
    let v: f64 = num
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" | "min" => v * 60.0,
        _ => return None,
    };
    Some(Duration::from_secs_f64(secs))
}

impl EngineSpec {
    /// Parses a spec.
    ///
    /// # Errors
    /// An unknown engine, an unknown option or a bad value, naming the spec.
    pub fn parse(spec: &str) -> Result<EngineSpec> {
        let (kind, opts) = spec.split_once(':').unwrap_or((spec, ""));
        let pairs: Vec<(&str, &str)> = if opts.is_empty() {
            Vec::new()
        } else {
            opts.split(',')
                .map(|kv| {
                    kv.split_once('=').ok_or_else(|| {
                        input_err(format!(
                            "engine spec `{spec}`: option `{kv}` is not key=value"
                        ))
                    })
                })
                .collect::<Result<_>>()?
        };
        let bad = |k: &str, v: &str, want: &str| {
            input_err(format!(
                "engine spec `{spec}`: bad value `{v}` for `{k}` (expected {want})"
            ))
        };
        match kind {
            "ab" => {
                let mut cfg = AbConfig::default();
                let mut limits = Limits::default();
                let mut eval = None;
                for (k, v) in pairs {
                    match k {
                        "eval" => {
                            if v.is_empty() {
                                return Err(bad(k, v, "a learned evaluation's file"));
                            }
                            eval = Some(v.into());
                        }
                        "depth" => {
                            limits.depth = Some(
                                v.parse()
                                    .ok()
                                    .filter(|d| (1..=100).contains(d))
                                    .ok_or_else(|| bad(k, v, "1 to 100"))?,
                            )
                        }
                        "nodes" => {
                            limits.nodes =
                                Some(v.parse().map_err(|_| bad(k, v, "a number of nodes"))?)
                        }
                        "time" => {
                            limits.time = Some(
                                parse_duration(v)
                                    .ok_or_else(|| bad(k, v, "a time such as 200ms or 1s"))?,
                            )
                        }
                        "hash" => {
                            cfg.hash_mb = v
                                .parse()
                                .ok()
                                .filter(|m| (1..=65536).contains(m))
                                .ok_or_else(|| bad(k, v, "MiB, 1 to 65536"))?
                        }
                        "qdepth" => {
                            cfg.qsearch_depth = v
                                .parse()
                                .map_err(|_| bad(k, v, "a number of capture turns"))?
                        }
                        _ => {
                            return Err(input_err(format!(
                                "engine spec `{spec}`: unknown option `{k}` (ab knows depth, nodes, time, hash, qdepth, eval)"
                            )));
                        }
                    }
                }
                if limits == Limits::default() {
                    limits.depth = Some(6);
                }
                Ok(EngineSpec::Ab { cfg, limits, eval })
            }
            "mcts" => {
                let mut ckpt = NetSource::Release;
                let mut sims = None;
                let mut time = None;
                let mut search = MctsConfig::default();
                let mut seed = 0;
                let mut blend_depth = None;
                let mut blend_weight = None;
                let mut blend_scale = None;
                let mut reuse = false;
                let mut guard_depth = None;
                let mut guard_margin = None;
                let mut ab_eval = AbEval::Default;
                for (k, v) in pairs {
                    match k {
                        "ab_eval" => {
                            ab_eval = match v {
                                "" => {
                                    return Err(bad(
                                        k,
                                        v,
                                        "a learned evaluation's file, release or none",
                                    ));
                                }
                                "none" => AbEval::Off,
                                file => AbEval::File(file.into()),
                            };
                        }
                        "reuse" => reuse = v.parse().map_err(|_| bad(k, v, "true or false"))?,
                        "ckpt" => {
                            ckpt = match v {
                                "none" => NetSource::Fresh,
                                "" => return Err(bad(k, v, "a checkpoint folder, or none")),
                                dir => NetSource::Dir(dir.into()),
                            }
                        }
                        "sims" => {
                            sims = Some(
                                v.parse()
                                    .ok()
                                    .filter(|&s| s >= 1)
                                    .ok_or_else(|| bad(k, v, "a number of simulations >= 1"))?,
                            )
                        }
                        "time" => {
                            time = Some(
                                parse_duration(v)
                                    .filter(|d| !d.is_zero())
                                    .ok_or_else(|| bad(k, v, "a time such as 200ms or 1s"))?,
                            )
                        }
                        "gumbel" => {
                            let on: bool = v.parse().map_err(|_| bad(k, v, "true or false"))?;
                            search.gumbel = on.then(Default::default);
                        }
                        "seed" => seed = v.parse().map_err(|_| bad(k, v, "a number"))?,
                        "free_chains" => {
                            search.free_chain_steps =
                                v.parse().map_err(|_| bad(k, v, "true or false"))?
                        }
                        "pass_forced" => {
                            search.pass_forced =
                                v.parse().map_err(|_| bad(k, v, "true or false"))?
                        }
                        "solver" => {
                            search.solver = v.parse().map_err(|_| bad(k, v, "true or false"))?
                        }
                        "minimax" => {
                            search.minimax_weight = v
                                .parse()
                                .ok()
                                .filter(|w: &f32| (0.0..=1.0).contains(w))
                                .ok_or_else(|| bad(k, v, "a weight from 0 to 1"))?
                        }
                        "c_puct" => {
                            search.c_puct = v
                                .parse()
                                .ok()
                                .filter(|c: &f32| *c > 0.0 && c.is_finite())
                                .ok_or_else(|| bad(k, v, "an exploration constant above 0"))?
                        }
                        "fpu" => {
                            search.fpu_reduction = v
                                .parse()
                                .ok()
                                .filter(|f: &f32| (0.0..=2.0).contains(f))
                                .ok_or_else(|| bad(k, v, "a first-play reduction from 0 to 2"))?
                        }
                        "ptemp" => {
                            search.policy_temperature = v
                                .parse()
                                .ok()
                                .filter(|t: &f32| MctsConfig::POLICY_TEMPERATURES.contains(t))
                                .ok_or_else(|| bad(k, v, "a policy temperature from 0.1 to 10"))?
                        }
                        "contempt" => {
                            search.contempt = v
                                .parse()
                                .ok()
                                .filter(|c: &f32| MctsConfig::CONTEMPTS.contains(c))
                                .ok_or_else(|| bad(k, v, "a draw's cost from -0.9 to 0.9"))?
                        }
                        "batch" => {
                            search.batch = v
                                .parse()
                                .ok()
                                .filter(|b| (1..=256).contains(b))
                                .ok_or_else(|| bad(k, v, "leaves per network call, 1 to 256"))?
                        }
                        "blend" => {
                            blend_depth =
                                Some(v.parse().ok().filter(|d| (0..=8).contains(d)).ok_or_else(
                                    || bad(k, v, "an alpha-beta depth of 0 (off) to 8"),
                                )?)
                        }
                        "guard" => {
                            guard_depth = Some(
                                v.parse()
                                    .ok()
                                    .filter(|d| *d == 0 || (2..=MAX_GUARD_DEPTH).contains(d))
                                    .ok_or_else(|| {
                                        bad(
                                            k,
                                            v,
                                            &format!(
                                                "an alpha-beta depth of 2 to {MAX_GUARD_DEPTH}, or 0 (off)"
                                            ),
                                        )
                                    })?,
                            )
                        }
                        "guard_margin" => {
                            guard_margin = Some(
                                v.parse()
                                    .ok()
                                    .filter(|m| (0..=100_000).contains(m))
                                    .ok_or_else(|| {
                                        bad(k, v, "hundredths of a piece, 0 to 100000")
                                    })?,
                            )
                        }
                        "blend_weight" => {
                            blend_weight = Some(
                                v.parse()
                                    .ok()
                                    .filter(|w: &f32| (0.0..=1.0).contains(w))
                                    .ok_or_else(|| bad(k, v, "a weight from 0 to 1"))?,
                            )
                        }
                        "blend_scale" => {
                            blend_scale = Some(
                                v.parse()
                                    .ok()
                                    .filter(|s: &f32| (1.0..=100_000.0).contains(s))
                                    .ok_or_else(|| {
                                        bad(k, v, "hundredths of a piece, 1 to 100000")
                                    })?,
                            )
                        }
                        _ => {
                            return Err(input_err(format!(
                                "engine spec `{spec}`: unknown option `{k}` (mcts knows ckpt, sims, time, gumbel, seed, blend, blend_weight, blend_scale, guard, guard_margin, ab_eval, free_chains, pass_forced, solver, minimax, reuse, c_puct, fpu, ptemp, contempt, batch)"
                            )));
                        }
                    }
                }
                // The blend is on unless `blend=0` (experiments/search7, search8).
                let blend = match (blend_depth, blend_weight, blend_scale) {
                    (None, None, None) => Blend::Default,
                    (Some(0), None, None) => Blend::Off,
                    (Some(0), _, _) => {
                        return Err(input_err(format!(
                            "engine spec `{spec}`: blend_weight or blend_scale with blend=0 (no blend)"
                        )));
                    }
                    (depth, w, scale) => Blend::On(BlendConfig {
                        depth: depth.unwrap_or(DEFAULT_BLEND_DEPTH),
                        weight: w.unwrap_or(BlendConfig::default().weight),
                        scale: scale.unwrap_or(BlendConfig::default().scale),
                    }),
                };
                // The guard is on unless `guard=0` (experiments/guard1, search9).
                let guard = match (guard_depth, guard_margin) {
                    (None, None) => Guard::Default,
                    (Some(0), None) => Guard::Off,
                    (None | Some(0), Some(_)) => {
                        return Err(input_err(format!(
                            "engine spec `{spec}`: guard_margin needs guard=DEPTH (2 to {MAX_GUARD_DEPTH})"
                        )));
                    }
                    (Some(depth), m) => Guard::On(GuardConfig {
                        depth,
                        margin: m.unwrap_or(GuardConfig::default().margin),
                    }),
                };
                if search.gumbel.is_some() && time.is_some() {
                    return Err(input_err(format!(
                        "engine spec `{spec}`: gumbel plans its simulations in advance and needs sims=N, not time="
                    )));
                }
                Ok(EngineSpec::Mcts {
                    ckpt,
                    // A timed search is bounded by its clock; sims then only caps a decision.
                    sims: sims.unwrap_or(if time.is_some() { 1_000_000 } else { 400 }),
                    time,
                    search,
                    seed,
                    blend,
                    reuse,
                    guard,
                    ab_eval,
                })
            }
            "random" => {
                let mut seed = 0;
                for (k, v) in pairs {
                    match k {
                        "seed" => seed = v.parse().map_err(|_| bad(k, v, "a number"))?,
                        _ => {
                            return Err(input_err(format!(
                                "engine spec `{spec}`: unknown option `{k}` (random knows seed)"
                            )));
                        }
                    }
                }
                Ok(EngineSpec::Random { seed })
            }
            _ => Err(input_err(format!(
                "unknown engine `{kind}` in spec `{spec}` (known: ab:depth=N|time=T|nodes=N, random[:seed=S], mcts[:ckpt=DIR],sims=N|time=T)"
            ))),
        }
    }

    /// Makes the player for games of `variant`.
    ///
    /// # Errors
    /// A checkpoint that cannot be loaded or is of another variant.
    pub fn player(&self, name: &str, variant: Variant, device: &Device) -> Result<Box<dyn Player>> {
        Ok(match self {
            EngineSpec::Ab { cfg, limits, eval } => {
                let mut cfg = cfg.clone();
                if let Some(path) = eval {
                    cfg.learned = Some(load_learned(path, variant)?);
                }
                Box::new(AbPlayer::new(cfg, *limits, name))
            }
            EngineSpec::Random { seed } => Box::new(RandomPlayer::new(*seed)),
            EngineSpec::Mcts {
                sims,
                time,
                search,
                seed,
                blend,
                reuse,
                guard,
                ..
            } => {
                let learned = self.ab_eval(variant)?;
                let eval = self.evaluator(variant, device)?;
                let cfg = *search;
                let budget = MctsBudget {
                    sims: *sims,
                    time: *time,
                };
                let player = MctsPlayer::with_budget(eval, cfg, budget, name, *seed)
                    .with_reuse(*reuse)
                    .with_ab_eval(learned)
                    .with_guard(guard.config(variant, time.is_some()));
                Box::new(match blend.config(variant) {
                    Some(b) => player.with_blend(b),
                    None => player,
                })
            }
        })
    }

    /// The learned evaluation of an `mcts` spec's alpha-beta searches, for `variant`
    /// (`None`: the hand-written one; see [`AbEval`]).
    ///
    /// # Errors
    /// A named file that cannot be used, or a network folder's that cannot.
    pub fn ab_eval(&self, variant: Variant) -> Result<Option<Arc<LearnedEval>>> {
        let EngineSpec::Mcts { ckpt, ab_eval, .. } = self else {
            return Ok(None);
        };
        match ab_eval {
            AbEval::Off => Ok(None),
            AbEval::File(p) => load_learned(p, variant).map(Some),
            AbEval::Default => {
                let dir = match ckpt {
                    NetSource::Fresh => return Ok(None),
                    NetSource::Release => checkpoint::release_dir(variant).ok(),
                    NetSource::Dir(d) => checkpoint::resolve(d).ok(),
                };
                match dir.map(|d| d.join(RELEASE_EVAL_FILE)) {
                    Some(f) if f.is_file() => load_learned(&f, variant).map(Some),
                    _ => Ok(None),
                }
            }
        }
    }

    /// The network evaluator of an `mcts` spec, for `variant`.
    ///
    /// # Errors
    /// Not an mcts spec, or a checkpoint that cannot be used.
    pub fn evaluator(&self, variant: Variant, device: &Device) -> Result<NetEvaluator> {
        let EngineSpec::Mcts { ckpt, seed, .. } = self else {
            return Err(SpecError("not an mcts engine".into()));
        };
        let device = device.clone();
        let net = match ckpt {
            NetSource::Fresh => NetConfig::for_variant(variant).init_seeded(&device, *seed),
            NetSource::Dir(dir) => {
                checkpoint::load(dir, &device, Some(variant), None)
                    .map_err(input_err)?
                    .0
            }
            NetSource::Release => {
                let dir = checkpoint::release_dir(variant).map_err(input_err)?;
                checkpoint::load(&dir, &device, Some(variant), None)
                    .map_err(input_err)?
                    .0
            }
        };
        Ok(NetEvaluator::new(
            net.valid(),
            device,
            variant,
            false,
            *seed,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_network_brings_its_learned_evaluation() {
        for variant in [Variant::Tsivy, Variant::Dimy] {
            let spec = EngineSpec::parse("mcts:sims=8").unwrap();
            let e = spec
                .ab_eval(variant)
                .unwrap()
                .expect("the release folder's eval.txt");
            assert_eq!(e.variant(), variant);
            let named = EngineSpec::parse("mcts:sims=8,ab_eval=release").unwrap();
            assert_eq!(named.ab_eval(variant).unwrap(), Some(e));
            for off in ["mcts:sims=8,ab_eval=none", "mcts:ckpt=none,sims=8"] {
                let spec = EngineSpec::parse(off).unwrap();
                assert_eq!(spec.ab_eval(variant).unwrap(), None, "{off}");
            }
        }
    }

    #[test]
    fn specs() {
        assert_eq!(parse_duration("200ms"), Some(Duration::from_millis(200)));
        assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_duration("x"), None);
        assert!(matches!(
            EngineSpec::parse("ab:depth=8").unwrap(),
            EngineSpec::Ab {
                limits: Limits { depth: Some(8), .. },
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("ab").unwrap(),
            EngineSpec::Ab {
                limits: Limits { depth: Some(6), .. },
                ..
            }
        ));
        assert_eq!(
            EngineSpec::parse("random:seed=4").unwrap(),
            EngineSpec::Random { seed: 4 }
        );
        assert!(matches!(
            EngineSpec::parse("ab:time=50ms,eval=e.txt").unwrap(),
            EngineSpec::Ab { eval: Some(p), .. } if p == std::path::Path::new("e.txt")
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:time=50ms,ab_eval=release").unwrap(),
            EngineSpec::Mcts { ab_eval: AbEval::File(p), .. } if p == std::path::Path::new("release")
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:sims=8,ab_eval=none").unwrap(),
            EngineSpec::Mcts {
                ab_eval: AbEval::Off,
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:sims=8").unwrap(),
            EngineSpec::Mcts {
                ab_eval: AbEval::Default,
                ..
            }
        ));
        for bad in [
            "ab:eval=",
            "mcts:ab_eval=",
            "ab:depth=0",
            "ab:depth",
            "ab:speed=3",
            "ab:time=fast",
            "chess",
            "random:colour=red",
        ] {
            assert!(EngineSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            EngineSpec::parse("mcts:ckpt=none,time=200ms").unwrap(),
            EngineSpec::Mcts { time: Some(t), .. } if t == Duration::from_millis(200)
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:ckpt=none").unwrap(),
            EngineSpec::Mcts {
                sims: 400,
                time: None,
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:sims=50").unwrap(),
            EngineSpec::Mcts {
                ckpt: NetSource::Release,
                sims: 50,
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts").unwrap(),
            EngineSpec::Mcts {
                ckpt: NetSource::Release,
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:ckpt=none").unwrap(),
            EngineSpec::Mcts {
                ckpt: NetSource::Fresh,
                ..
            }
        ));
        assert_eq!(
            EngineSpec::parse("mcts:ckpt=runs/a,sims=8").unwrap(),
            EngineSpec::Mcts {
                ckpt: NetSource::Dir("runs/a".into()),
                sims: 8,
                time: None,
                search: MctsConfig::default(),
                seed: 0,
                blend: Blend::Default,
                reuse: false,
                guard: Guard::Default,
                ab_eval: AbEval::Default,
            }
        );
        assert!(matches!(
            EngineSpec::parse("mcts:blend=0").unwrap(),
            EngineSpec::Mcts {
                blend: Blend::Off,
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:blend_weight=0.75").unwrap(),
            EngineSpec::Mcts {
                blend: Blend::On(BlendConfig {
                    depth: DEFAULT_BLEND_DEPTH,
                    weight: 0.75,
                    ..
                }),
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:reuse=true").unwrap(),
            EngineSpec::Mcts { reuse: true, .. }
        ));
        assert!(EngineSpec::parse("mcts:reuse=yes").is_err());
        assert!(matches!(
            EngineSpec::parse("mcts:guard=0").unwrap(),
            EngineSpec::Mcts {
                guard: Guard::Off,
                ..
            }
        ));
        assert_eq!(
            Guard::Default.config(Variant::Tsivy, false),
            Some(GuardConfig {
                depth: SIMS_GUARD_DEPTH,
                margin: 50
            })
        );
        assert_eq!(
            Guard::Default.config(Variant::Dimy, false).map(|g| g.depth),
            Some(8)
        );
        for v in [Variant::Tsivy, Variant::Dimy] {
            assert_eq!(
                Guard::Default.config(v, true),
                Some(GuardConfig {
                    depth: MAX_GUARD_DEPTH,
                    margin: 0
                })
            );
        }
        assert_eq!(Guard::Default.config(Variant::Telo, true), None);
        assert_eq!(Guard::Off.config(Variant::Tsivy, true), None);
        assert!(matches!(
            EngineSpec::parse("mcts:guard=4").unwrap(),
            EngineSpec::Mcts {
                guard: Guard::On(GuardConfig {
                    depth: 4,
                    margin: 50
                }),
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:guard=3,guard_margin=0").unwrap(),
            EngineSpec::Mcts {
                guard: Guard::On(GuardConfig {
                    depth: 3,
                    margin: 0
                }),
                ..
            }
        ));
        for bad in [
            "mcts:guard=1",
            "mcts:guard=x",
            "mcts:guard_margin=10",
            "mcts:guard=0,guard_margin=10",
            "mcts:guard=4,guard_margin=-1",
            "mcts:minimax=1.5",
            "mcts:contempt=1",
            "mcts:contempt=x",
            "mcts:minimax=x",
        ] {
            let e = EngineSpec::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
        assert!(matches!(
            EngineSpec::parse(
                "mcts:c_puct=1,fpu=0.5,batch=1,free_chains=true,pass_forced=true,solver=true,minimax=0.25,ptemp=1.5,contempt=0.2"
            )
            .unwrap(),
            EngineSpec::Mcts {
                search: MctsConfig {
                    c_puct: 1.0,
                    fpu_reduction: 0.5,
                    batch: 1,
                    free_chain_steps: true,
                    pass_forced: true,
                    solver: true,
                    minimax_weight: 0.25,
                    policy_temperature: 1.5,
                    contempt: 0.2,
                    gumbel: None,
                    ..
                },
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:ckpt=none,blend=2").unwrap(),
            EngineSpec::Mcts {
                blend: Blend::On(BlendConfig {
                    depth: 2,
                    weight: 0.5,
                    ..
                }),
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:blend=1,blend_weight=0.25").unwrap(),
            EngineSpec::Mcts {
                blend: Blend::On(BlendConfig {
                    depth: 1,
                    weight: 0.25,
                    ..
                }),
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:blend_scale=250").unwrap(),
            EngineSpec::Mcts {
                blend: Blend::On(BlendConfig {
                    depth: DEFAULT_BLEND_DEPTH,
                    weight: 0.5,
                    scale: 250.0,
                }),
                ..
            }
        ));
        for bad in [
            "mcts:blend_scale=0",
            "mcts:blend=0,blend_scale=100",
            "mcts:ckpt=none,blend=9",
            "mcts:ckpt=none,blend=2,blend_weight=1.5",
            "mcts:ckpt=none,blend=0,blend_weight=0.5",
            "mcts:ckpt=",
            "mcts:ckpt=none,time=0ms",
            "mcts:ckpt=none,time=soon",
            "mcts:ckpt=none,time=1s,gumbel=true",
            "mcts:c_puct=0",
            "mcts:fpu=-1",
            "mcts:batch=0",
            "mcts:ptemp=0",
        ] {
            assert!(EngineSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(
            EngineSpec::parse("ab:speed=3")
                .unwrap_err()
                .to_string()
                .contains("speed")
        );
    }
}
