//! Player specs: `ab:depth=8`, `ab:time=1s`, `ab:nodes=100000,hash=64`, `random`,
//! `random:seed=3`, `mcts:ckpt=DIR,sims=400` (`ckpt=none`: a fresh network; no `ckpt`:
//! the release network of the variant), `mcts:ckpt=DIR,time=200ms` (a time per turn, as
//! `ab:time=`; leaf values half the network's, half a 3-turn alpha-beta search's unless
//! `blend=0`: `blend=D` searches D turns, `blend_weight=W` sets the search's share,
//! `blend_scale=S` the score in hundredths of a piece that counts as a 73 % win),
//! `mcts:guard=4` (only turns a 4-turn alpha-beta search scores within `guard_margin=`
//! hundredths of a piece of the best, default 50; without `guard=`,
//! [`GuardConfig::player`]: on a clock the best turns only, as deep as the time allows;
//! otherwise 8 turns; `guard=0`: every turn). The search's settings and their ranges are
//! [`fanorona_search::settings`]'s, the same as the training config's `[selfplay]`. One parser and the one player factory, beside the players:
//! the arena, `play`, `analyze` and `serve` all build their players here.

/// A spec that cannot be used, with the reason (naming the spec).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

fn input_err(e: impl std::fmt::Display) -> SpecError {
    SpecError(e.to_string())
}

type Result<T> = std::result::Result<T, SpecError>;

use crate::{MctsBudget, MctsPlayer, NetConfig, NetEvaluator, checkpoint};
use burn::module::Module;
use burn::prelude::Device;
use fanorona_rules::Variant;
use fanorona_search::settings::{MAX_GUARD_DEPTH, PLAYER_BLEND_DEPTH};
use fanorona_search::{
    AbConfig, AbPlayer, BlendConfig, GuardConfig, LearnedEval, Limits, MctsConfig, Player,
    RandomPlayer, SearchSettings,
};
use fanorona_tb::Tablebase;
use std::sync::Arc;
use std::time::Duration;

/// Whether an `mcts` player mixes a shallow alpha-beta search into its leaf values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Blend {
    /// The spec names none: the players' blend ([`BlendConfig::player`]).
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
            Blend::Default => BlendConfig::player(variant),
            Blend::Off => None,
            Blend::On(b) => Some(b),
        }
    }
}

/// Which evaluation an `mcts` player's alpha-beta searches (its guard's and its blend's)
/// use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbEval {
    /// The spec names none: the learned evaluation that comes with the network, the
    /// [`checkpoint::EVAL_FILE`] of its checkpoint folder when there is one (the release
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
    /// The spec names none: the players' guard ([`GuardConfig::player`]).
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
            Guard::Default => GuardConfig::player(variant, timed),
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
        /// Endgame tables' folder (`tb=DIR`; docs/tablebases.md), read when the player is
        /// made (once a process).
        tb: Option<std::path::PathBuf>,
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
        /// The search's settings: [`MctsConfig::player`] and what the spec changes:
        /// `gumbel=true` (Gumbel root search), `solver=true` (`MctsConfig::solver`),
        /// `minimax=ALPHA` (`MctsConfig::minimax_weight`), `c_puct=`, `fpu=`
        /// (`fpu_reduction`), `ptemp=` (`policy_temperature`), `batch=` (leaves per
        /// network call).
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
        /// Endgame tables' folder (`tb=DIR`; `MctsPlayer::with_tables`), read when the
        /// player is made (once a process).
        tb: Option<std::path::PathBuf>,
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

/// Endgame tables for `variant` from `dir`, read once a process and shared.
///
/// # Errors
/// No tables there, or damaged ones.
pub fn load_tables(dir: &std::path::Path, variant: Variant) -> Result<Arc<Tablebase>> {
    static CACHE: std::sync::Mutex<Vec<(std::path::PathBuf, Variant, Arc<Tablebase>)>> =
        std::sync::Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, t)) = cache.iter().find(|(d, v, _)| d == dir && *v == variant) {
        return Ok(t.clone());
    }
    let t = Arc::new(
        Tablebase::open(dir, variant)
            .map_err(|e| SpecError(format!("tb={}: {e}", dir.display())))?,
    );
    cache.push((dir.to_path_buf(), variant, t.clone()));
    Ok(t)
}

/// Reads a learned evaluation (`ab:eval=FILE`) for games of `variant`; `release` names
/// the release folder's ([`checkpoint::EVAL_FILE`]).
///
/// # Errors
/// A file that cannot be read, is not a learned evaluation, or is for another board,
/// naming the file.
pub fn load_learned(path: &std::path::Path, variant: Variant) -> Result<Arc<LearnedEval>> {
    let path = &checkpoint::eval_path(path, variant).map_err(input_err)?;
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
    /// Parses a spec; `ab` searches on one thread unless it says `threads=N` (the
    /// arena's games each take one core).
    ///
    /// # Errors
    /// An unknown engine, an unknown option or a bad value, naming the spec.
    pub fn parse(spec: &str) -> Result<EngineSpec> {
        Self::parse_with_threads(spec, 1)
    }

    /// [`EngineSpec::parse`] where `ab` limited by time searches on `threads` threads
    /// unless the spec says otherwise (limited by depth or nodes it stays on one, and
    /// its results reproducible): for commands that search one position at a time
    /// (`play`, `analyze`, `serve`) and may take every core.
    ///
    /// # Errors
    /// As [`EngineSpec::parse`].
    pub fn parse_with_threads(spec: &str, threads: usize) -> Result<EngineSpec> {
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
                let mut explicit_threads = false;
                let mut limits = Limits::default();
                let mut eval = None;
                let mut tb = None;
                for (k, v) in pairs {
                    match k {
                        "tb" => {
                            if v.is_empty() {
                                return Err(bad(k, v, "a folder of endgame tables"));
                            }
                            tb = Some(v.into());
                        }
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
                        "threads" => {
                            explicit_threads = true;
                            cfg.threads = v
                                .parse()
                                .ok()
                                .filter(|t| (1..=256).contains(t))
                                .ok_or_else(|| bad(k, v, "1 to 256"))?
                        }
                        _ => {
                            return Err(input_err(format!(
                                "engine spec `{spec}`: unknown option `{k}` (ab knows depth, nodes, time, hash, qdepth, threads, eval, tb)"
                            )));
                        }
                    }
                }
                if limits == Limits::default() {
                    limits.depth = Some(6);
                }
                // Searches limited by depth or nodes stay on one thread: reproducible.
                if !explicit_threads && limits.depth.is_none() && limits.nodes.is_none() {
                    cfg.threads = threads.max(1);
                }
                Ok(EngineSpec::Ab {
                    cfg,
                    limits,
                    eval,
                    tb,
                })
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
                let mut tb = None;
                for (k, v) in pairs {
                    match k {
                        "tb" => {
                            if v.is_empty() {
                                return Err(bad(k, v, "a folder of endgame tables"));
                            }
                            tb = Some(v.into());
                        }
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
                        "solver" => {
                            search.solver = v.parse().map_err(|_| bad(k, v, "true or false"))?
                        }
                        "minimax" => {
                            search.minimax_weight =
                                v.parse::<f32>().map_err(|_| bad(k, v, "a number"))?
                        }
                        "c_puct" => {
                            search.c_puct = v.parse::<f32>().map_err(|_| bad(k, v, "a number"))?
                        }
                        "fpu" => {
                            search.fpu_reduction =
                                v.parse::<f32>().map_err(|_| bad(k, v, "a number"))?
                        }
                        "ptemp" => {
                            search.policy_temperature =
                                v.parse::<f32>().map_err(|_| bad(k, v, "a number"))?
                        }
                        "batch" => {
                            search.batch = v.parse::<usize>().map_err(|_| bad(k, v, "a number"))?
                        }
                        "blend" => {
                            blend_depth = Some(v.parse::<u32>().map_err(|_| bad(k, v, "a number"))?)
                        }
                        "guard" => {
                            guard_depth = Some(v.parse::<u32>().map_err(|_| bad(k, v, "a number"))?)
                        }
                        "guard_margin" => {
                            guard_margin =
                                Some(v.parse::<i32>().map_err(|_| bad(k, v, "a number"))?)
                        }
                        "blend_weight" => {
                            blend_weight =
                                Some(v.parse::<f32>().map_err(|_| bad(k, v, "a number"))?)
                        }
                        "blend_scale" => {
                            blend_scale = Some(v.parse::<f32>().map_err(|_| bad(k, v, "a number"))?)
                        }
                        _ => {
                            return Err(input_err(format!(
                                "engine spec `{spec}`: unknown option `{k}` (mcts knows ckpt, sims, time, seed, ab_eval, tb; and the search's settings blend, blend_weight, blend_scale, guard, guard_margin, gumbel, solver, minimax, reuse, c_puct, fpu, ptemp, batch)"
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
                        depth: depth.unwrap_or(PLAYER_BLEND_DEPTH),
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
                // One validator for specs and training configs (the settings' ranges).
                SearchSettings {
                    mcts: search,
                    blend: blend.config(Variant::Tsivy),
                    guard: guard.config(Variant::Tsivy, time.is_some()),
                }
                .validate()
                .map_err(|e| input_err(format!("engine spec `{spec}`: {e}")))?;
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
                    tb,
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
            EngineSpec::Ab {
                cfg,
                limits,
                eval,
                tb,
            } => {
                let mut cfg = cfg.clone();
                if let Some(path) = eval {
                    cfg.learned = Some(load_learned(path, variant)?);
                }
                if let Some(dir) = tb {
                    cfg.tb = Some(load_tables(dir, variant)?);
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
                tb,
                ..
            } => {
                let learned = self.ab_eval(variant)?;
                let tables = match tb {
                    Some(dir) => Some(load_tables(dir, variant)?),
                    None => None,
                };
                let eval = self.evaluator(variant, device)?;
                let cfg = *search;
                let budget = MctsBudget {
                    sims: *sims,
                    time: *time,
                };
                let player = MctsPlayer::with_budget(eval, cfg, budget, name, *seed)
                    .with_reuse(*reuse)
                    .with_ab_eval(learned)
                    .with_tables(tables)
                    .with_guard(guard.config(variant, time.is_some()));
                Box::new(match blend.config(variant) {
                    Some(b) => player.with_blend(b),
                    None => player,
                })
            }
        })
    }

    /// Whether this is an `mcts` spec with a network for `variant`: one its `ckpt=` names,
    /// or the release network where the variant has one (telo has none, so the default
    /// players answer its positions with the exact solver).
    pub fn has_network(&self, variant: Variant) -> bool {
        match self {
            EngineSpec::Mcts { ckpt, .. } => {
                !matches!(ckpt, NetSource::Release) || checkpoint::release_dir(variant).is_ok()
            }
            _ => false,
        }
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
                match dir.map(|d| d.join(checkpoint::EVAL_FILE)) {
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
        // Threads: one in the arena; every core offered to a search limited by time
        // alone, unless the spec says; limited by depth or nodes, one (reproducible).
        let threads = |spec: &str, offered| match EngineSpec::parse_with_threads(spec, offered) {
            Ok(EngineSpec::Ab { cfg, .. }) => cfg.threads,
            other => panic!("{spec}: {other:?}"),
        };
        assert_eq!(threads("ab:time=1s", 1), 1);
        assert_eq!(threads("ab:time=1s", 4), 4);
        assert_eq!(threads("ab:time=1s,threads=2", 4), 2);
        assert_eq!(threads("ab:depth=5", 4), 1);
        assert_eq!(threads("ab:nodes=1000", 4), 1);
        assert_eq!(threads("ab:depth=5,threads=3", 4), 3);
        assert!(EngineSpec::parse("ab:threads=0").is_err());
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
                tb: None,
            }
        );
        assert!(matches!(
            EngineSpec::parse("mcts:time=50ms,tb=tables").unwrap(),
            EngineSpec::Mcts { tb: Some(p), .. } if p == std::path::Path::new("tables")
        ));
        assert!(EngineSpec::parse("mcts:tb=").is_err());
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
                    depth: PLAYER_BLEND_DEPTH,
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
                depth: fanorona_search::settings::SIMS_GUARD_DEPTH,
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
            "mcts:ptemp=11",
            "mcts:fpu=3",
            "mcts:contempt=0.2",
            "mcts:free_chains=true",
            "mcts:minimax=x",
        ] {
            let e = EngineSpec::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
        assert!(matches!(
            EngineSpec::parse("mcts:c_puct=1,fpu=0.5,batch=1,solver=true,minimax=0.25,ptemp=1.5")
                .unwrap(),
            EngineSpec::Mcts {
                search: MctsConfig {
                    c_puct: 1.0,
                    fpu_reduction: 0.5,
                    batch: 1,
                    solver: true,
                    minimax_weight: 0.25,
                    policy_temperature: 1.5,
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
                    depth: PLAYER_BLEND_DEPTH,
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
