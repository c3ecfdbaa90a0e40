//! Player specs: `ab:depth=8`, `ab:time=1s`, `ab:nodes=100000,hash=64`, `random`,
//! `random:seed=3`, `mcts:ckpt=DIR,sims=400` (`ckpt=none`: a fresh network; no `ckpt`:
//! the release network of the variant), `mcts:ckpt=DIR,time=200ms` (a time per turn, as
//! `ab:time=`). An `mcts` spec's other options are the search's settings, declared once
//! in [`fanorona_search::settings::OPTIONS`] with their ranges (the training config's
//! `[selfplay]` reads the same names), over the players' preset
//! [`SearchSettings::player`]: leaf values half the network's, half a 3-turn alpha-beta
//! search's unless `blend=0`; a guard (on a clock the best turns only, as deep as the
//! time allows; otherwise 8 turns within `guard_margin=50`; `guard=0`: every turn).
//! One parser and the one player factory: the arena, `play`, `analyze`, `serve`, the
//! Python package, training's matches and the WebAssembly page all read specs here.
//! This crate has no network library: an `mcts` spec's player comes from the
//! [`Networks`] a front end passes (the network crate's; [`NoNetworks`] where there is
//! none).

/// A spec that cannot be used, with the reason (naming the spec).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

fn input_err(e: impl std::fmt::Display) -> SpecError {
    SpecError(e.to_string())
}

type Result<T> = std::result::Result<T, SpecError>;

use crate::release;
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{AnyPosition, History, Position, RuleOptions, Variant, quote};
use fanorona_search::opening::{BOOK_MARGIN, BookPlayer, OpeningBook};
use fanorona_search::settings::{self, AbSettings, Declared, Overrides, names};
use fanorona_search::{
    AbConfig, AbPlayer, Analysis, ClockState, LearnedEval, Limits, Player, RandomPlayer,
    SearchSettings,
};
use fanorona_tb::Tablebase;
use std::sync::Arc;
use std::time::Duration;

/// Which evaluation an `mcts` player's alpha-beta searches (its guard's and its blend's)
/// use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbEvalSource {
    /// The spec names none: the learned evaluation that comes with the network, the
    /// [`release::EVAL_FILE`] of its checkpoint folder when there is one (the release
    /// folders have one), else the hand-written evaluation.
    Default,
    /// `ab_eval=none`: the hand-written evaluation.
    Off,
    /// `ab_eval=FILE` (or `ab_eval=release`: the release folder's).
    File(std::path::PathBuf),
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
        /// A learned evaluation's file (`eval=FILE`; see `fanorona_eval::learned`),
        /// read when the player is made.
        eval: Option<std::path::PathBuf>,
        /// Endgame tables (`tb=DIR`; docs/tablebases.md), read when the player is made
        /// (once a process).
        tb: Tables,
        /// An opening book to play from (`book=FILE|release`; `fanorona_search::opening`).
        book: Option<std::path::PathBuf>,
        /// Seed of the book's choice among its turns (`seed=S`; the search itself is
        /// deterministic on one thread).
        seed: u64,
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
        /// The search's settings the spec names (`guard=4`, `ptemp=2`, ...), applied
        /// over the players' preset once the board is known ([`EngineSpec::settings`]).
        search: Overrides,
        /// Seed (tie breaks, Gumbel noise).
        seed: u64,
        /// Keep the tree from one turn to the next (`reuse=true`; `MctsPlayer::with_reuse`).
        reuse: bool,
        /// The evaluation of the guard's and the blend's alpha-beta searches
        /// (`ab_eval=FILE|release|none`; `MctsPlayer::with_ab_eval`).
        ab_eval: AbEvalSource,
        /// Endgame tables (`tb=DIR`; `MctsPlayer::with_tables`), read when the player is
        /// made (once a process).
        tb: Tables,
        /// An opening book to play from (`book=FILE|release`; `fanorona_search::opening`).
        book: Option<std::path::PathBuf>,
    },
}

/// The player of `play`, `serve`, `analyze` and Python's `Engine()` when none is named:
/// alpha-beta with the release's learned evaluation and opening book, 1 s a turn (and
/// the endgame tables found, [`EngineSpec::with_found_tables`]). Chosen by the arena:
/// docs/RESULTS.md, "The default player".
pub const DEFAULT_PLAYER: &str = "ab:time=1s,eval=release,book=release";

/// `analyze`'s default: the default player without its book (an analysis searches every
/// position, the openings too).
pub const DEFAULT_ANALYSIS: &str = "ab:time=1s,eval=release";

/// Where a player's endgame tables come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tables {
    /// None named: none for the arena's players, the found ones for the interactive
    /// players ([`EngineSpec::with_found_tables`]).
    Default,
    /// `tb=none`: none, wherever the player plays.
    Off,
    /// `tb=DIR`: the tables of the game's board must be there.
    Dir(std::path::PathBuf),
    /// The default folder ([`fanorona_tb::default_dir`]), used when it holds the
    /// board's tables: the interactive players' default ([`EngineSpec::with_found_tables`]).
    Found(std::path::PathBuf),
}

impl Tables {
    fn parse(v: &str) -> Option<Tables> {
        match v {
            "" => None,
            "none" => Some(Tables::Off),
            d => Some(Tables::Dir(d.into())),
        }
    }

    /// The tables of `variant`, if any.
    ///
    /// # Errors
    /// `tb=DIR` without the board's tables, or damaged ones.
    pub fn load(&self, variant: Variant) -> Result<Option<Arc<Tablebase>>> {
        Ok(match self {
            Tables::Default | Tables::Off => None,
            Tables::Dir(d) => Some(load_tables(d, variant)?),
            Tables::Found(d) => load_tables(d, variant).ok(),
        })
    }
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

/// The opening book of a spec's `book=` for games of `variant`, read once a process:
/// `release` names the release folder's ([`release::BOOK_FILE`]).
///
/// # Errors
/// A file that cannot be read or holds a bad line, naming it; a book of another board.
pub fn load_opening_book(path: &std::path::Path, variant: Variant) -> Result<Arc<OpeningBook>> {
    static CACHE: std::sync::Mutex<Vec<(std::path::PathBuf, Arc<OpeningBook>)>> =
        std::sync::Mutex::new(Vec::new());
    let file = if path == std::path::Path::new("release") {
        release::release_dir(variant)
            .map_err(input_err)?
            .join(release::BOOK_FILE)
    } else {
        path.to_path_buf()
    };
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, b)) = cache.iter().find(|(p, _)| *p == file) {
        return Ok(b.clone());
    }
    let text = std::fs::read_to_string(&file)
        .map_err(|e| input_err(format!("book={}: {e}", file.display())))?;
    let book = OpeningBook::parse(&file.display().to_string(), &text).map_err(input_err)?;
    let start = Position::start(variant, RuleOptions::default());
    if book.turns(&start).is_none() {
        return Err(input_err(format!(
            "book={}: not a {variant} book (it lacks the {variant} start)",
            file.display()
        )));
    }
    let book = Arc::new(book);
    cache.push((file, book.clone()));
    Ok(book)
}

/// Reads a learned evaluation (`ab:eval=FILE`) for games of `variant`; `release` names
/// the release folder's ([`release::EVAL_FILE`]).
///
/// # Errors
/// A file that cannot be read, is not a learned evaluation, or is for another board,
/// naming the file.
pub fn load_learned(path: &std::path::Path, variant: Variant) -> Result<Arc<LearnedEval>> {
    let path = &release::eval_path(path, variant).map_err(input_err)?;
    let named = |e: &dyn std::fmt::Display| {
        input_err(format!("learned evaluation {}: {e}", path.display()))
    };
    let e = LearnedEval::read(path, variant).map_err(|e| named(&e))?;
    Ok(Arc::new(e))
}

pub use fanorona_search::settings::parse_duration;

/// What a spec's player options ([`PLAYER_OPTIONS`]) say.
#[derive(Debug)]
pub struct Common {
    seed: u64,
    book: Option<std::path::PathBuf>,
    tb: Tables,
    eval: Option<std::path::PathBuf>,
    ckpt: NetSource,
    sims: Option<u32>,
    time: Option<Duration>,
    reuse: bool,
    ab_eval: AbEvalSource,
}

impl Default for Common {
    fn default() -> Common {
        Common {
            seed: 0,
            book: None,
            tb: Tables::Default,
            eval: None,
            ckpt: NetSource::Release,
            sims: None,
            time: None,
            reuse: false,
            ab_eval: AbEvalSource::Default,
        }
    }
}

/// One player option ([`Declared`] over [`Common`]). The engines' own settings are the
/// search's tables (`settings::AB_OPTIONS`, `settings::OPTIONS`).
pub type PlayerOption = Declared<Common>;

/// The options of players besides their engine's settings, once each.
pub const PLAYER_OPTIONS: &[PlayerOption] = fanorona_search::declare! { Common;
    "seed" ["ab", "mcts", "random"]:
        "the seed of the player's choices (a book's among its turns, the search's ties and noise, random's turns)",
        "a number",
        |c, v| {
            c.seed = v.parse().ok()?;
            Some(())
        };
    "book" ["ab", "mcts"]:
        "an opening book to play from (fanorona book --opening), release for the release's, none for none",
        "an opening book's file, release or none",
        |c, v| {
            c.book = match v {
                "" => return None,
                "none" => None,
                b => Some(b.into()),
            };
            Some(())
        };
    "tb" ["ab", "mcts"]: "a folder of endgame tables (fanorona tb build), or none",
        "a folder of endgame tables, or none",
        |c, v| {
            c.tb = Tables::parse(v)?;
            Some(())
        };
    "eval" ["ab"]: "a learned evaluation's file, a checkpoint folder holding one, or release",
        "a learned evaluation's file",
        |c, v| {
            c.eval = Some(Some(v).filter(|v| !v.is_empty())?.into());
            Some(())
        };
    "ab_eval" ["mcts"]:
        "the learned evaluation of the guard's and the blend's alpha-beta searches (default: the network's folder's)",
        "a learned evaluation's file, release or none",
        |c, v| {
            c.ab_eval = match v {
                "" => return None,
                "none" => AbEvalSource::Off,
                file => AbEvalSource::File(file.into()),
            };
            Some(())
        };
    "reuse" ["mcts"]: "keep the search tree from one turn to the next", "true or false",
        |c, v| {
            c.reuse = v.parse().ok()?;
            Some(())
        };
    "ckpt" ["mcts"]:
        "the network: a checkpoint or run folder, none for an untrained one (default: the release's)",
        "a checkpoint folder, or none",
        |c, v| {
            c.ckpt = match v {
                "" => return None,
                "none" => NetSource::Fresh,
                dir => NetSource::Dir(dir.into()),
            };
            Some(())
        };
    "sims" ["mcts"]: "simulations a decision (with time: the most a decision may use)",
        "a number of simulations >= 1",
        |c, v| {
            c.sims = Some(v.parse().ok().filter(|&s| s >= 1)?);
            Some(())
        };
    "time" ["mcts"]: "time a turn, its decisions sharing it", "a time such as 200ms or 1s",
        |c, v| {
            c.time = Some(parse_duration(v).filter(|d| !d.is_zero())?);
            Some(())
        };
};

/// The player options `kind` takes, for messages.
pub fn player_option_names(kind: &str) -> String {
    names(
        PLAYER_OPTIONS
            .iter()
            .filter(|o| o.kinds.contains(&kind))
            .map(|o| o.name),
    )
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
        let named = |e: &dyn std::fmt::Display| {
            input_err(format!("engine spec {}: {e}", quote(spec).at_most(40)))
        };
        let mut common = Common::default();
        let mut rest = Vec::new();
        for kv in opts.split(',').filter(|kv| !kv.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| named(&format!("option {} is not key=value", quote(kv))))?;
            match PLAYER_OPTIONS
                .iter()
                .find(|o| o.name == k && o.kinds.contains(&kind))
            {
                Some(o) => (o.set)(&mut common, v).ok_or_else(|| {
                    named(&format!(
                        "bad value {} for {} (expected {})",
                        quote(v),
                        quote(k),
                        o.expected
                    ))
                })?,
                None => rest.push((k, v)),
            }
        }
        let spec = match kind {
            "ab" => Self::ab(common, &rest, threads),
            "mcts" => Self::mcts(common, &rest),
            "random" => match rest.first() {
                Some((k, _)) => Err(format!("unknown option {}", quote(k))),
                None => Ok(EngineSpec::Random { seed: common.seed }),
            },
            _ => {
                return Err(input_err(format!(
                    "unknown engine {} in spec {} (known: ab:depth=N|time=T|nodes=N, random[:seed=S], mcts[:ckpt=DIR],sims=N|time=T)",
                    quote(kind),
                    quote(spec).at_most(40)
                )));
            }
        };
        spec.map_err(|e| {
            let known = match kind {
                "ab" => format!("the engine's settings {}", settings::ab_option_names()),
                "mcts" => format!("the search's settings {}", settings::option_names()),
                _ => String::new(),
            };
            let sep = if known.is_empty() { "" } else { " and " };
            match e.strip_prefix("unknown option ") {
                Some(k) => named(&format!(
                    "unknown option {k} ({kind} knows {}{sep}{known})",
                    player_option_names(kind)
                )),
                None => named(&e),
            }
        })
    }

    /// An `ab` spec from its player options and the engine's settings in `rest`.
    fn ab(
        common: Common,
        rest: &[(&str, &str)],
        threads: usize,
    ) -> std::result::Result<Self, String> {
        let mut ab = AbSettings::default();
        for &(k, v) in rest {
            // The engine's settings: one table (`settings::AB_OPTIONS`).
            if !ab.set(k, v).map_err(|e| e.to_string())? {
                return Err(format!("unknown option {}", quote(k)));
            }
        }
        let (cfg, limits) = ab.finish(threads);
        Ok(EngineSpec::Ab {
            cfg,
            limits,
            eval: common.eval,
            tb: common.tb,
            book: common.book,
            seed: common.seed,
        })
    }

    /// An `mcts` spec from its player options and the search's settings in `rest`.
    fn mcts(common: Common, rest: &[(&str, &str)]) -> std::result::Result<Self, String> {
        let mut search = Overrides::default();
        for &(k, v) in rest {
            // The search's settings: one table for specs, configs and the server.
            if !search.read(k, v).map_err(|e| e.to_string())? {
                return Err(format!("unknown option {}", quote(k)));
            }
        }
        if search.named("gumbel") == Some("true") && common.time.is_some() {
            return Err(
                "gumbel plans its simulations in advance and needs sims=N, not time=".into(),
            );
        }
        // A timed search is bounded by its clock; sims then only caps a decision.
        let sims = common.sims.unwrap_or(if common.time.is_some() {
            1_000_000
        } else {
            400
        });
        Ok(EngineSpec::Mcts {
            ckpt: common.ckpt,
            sims,
            time: common.time,
            search,
            seed: common.seed,
            reuse: common.reuse,
            ab_eval: common.ab_eval,
            tb: common.tb,
            book: common.book,
        })
    }

    /// An `ab` spec that plays `learned` (an evaluation in memory: a run's, being
    /// learned), what training's own matches play; its `eval=` file, if any, is dropped.
    /// Other specs are returned as they are.
    #[must_use]
    pub fn with_learned(mut self, learned: Option<Arc<LearnedEval>>) -> EngineSpec {
        if let EngineSpec::Ab { cfg, eval, .. } = &mut self {
            cfg.learned = learned;
            *eval = None;
        }
        self
    }

    /// The spec of an engine that searches one position at a time (`play`, `analyze`,
    /// `serve`, Python's `Engine`): `ab` on a clock takes every core unless it says
    /// `threads=N`, and the endgame tables found in the default folder
    /// ([`fanorona_tb::default_dir`]) unless it names some (or `tb=none`).
    ///
    /// # Errors
    /// As [`EngineSpec::parse`].
    pub fn parse_interactive(spec: &str) -> Result<EngineSpec> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Self::parse_with_threads(spec, cores)?.with_found_tables(&fanorona_tb::default_dir()))
    }

    /// Makes the player for games of `variant`; an `mcts` spec's comes from `nets`.
    ///
    /// # Errors
    /// A file the spec names that cannot be used, or a network that cannot.
    pub fn player(
        &self,
        name: &str,
        variant: Variant,
        nets: &dyn Networks,
    ) -> Result<Box<dyn Player>> {
        let (player, book, seed) = match self {
            EngineSpec::Ab {
                cfg,
                limits,
                eval,
                tb,
                book,
                seed,
            } => {
                let mut cfg = cfg.clone();
                if let Some(path) = eval {
                    cfg.learned = Some(load_learned(path, variant)?);
                }
                cfg.tb = tb.load(variant)?;
                let player: Box<dyn Player> = Box::new(AbPlayer::new(cfg, *limits, name));
                (player, book, *seed)
            }
            EngineSpec::Random { seed } => return Ok(Box::new(RandomPlayer::new(*seed))),
            EngineSpec::Mcts { book, seed, .. } => {
                (nets.mcts_player(self, name, variant)?, book, *seed)
            }
        };
        Ok(match book {
            Some(path) => Box::new(BookPlayer::new(
                player,
                load_opening_book(path, variant)?,
                BOOK_MARGIN,
                seed,
            )),
            None => player,
        })
    }

    /// The network of `ckpt` alone: no blend, no guard, the hand-written evaluation for
    /// any alpha-beta search, one simulation a decision (the server's network answers,
    /// `fanorona oracle` with its own `sims`).
    pub fn network(ckpt: NetSource, sims: u32) -> EngineSpec {
        let mut search = Overrides::default();
        for off in ["blend", "guard"] {
            search.read(off, "0").expect("0 turns a setting off");
        }
        EngineSpec::Mcts {
            ckpt,
            sims,
            time: None,
            search,
            seed: 0,
            reuse: false,
            ab_eval: AbEvalSource::Off,
            tb: Tables::Default,
            book: None,
        }
    }

    /// Every file or folder the spec names, with the option that names it: `eval`,
    /// `book`, `tb`, `ckpt` and `ab_eval`, less the words that name none (`release`,
    /// `none`) and the tables [`EngineSpec::with_found_tables`] chose. A server checks
    /// these against what it allows before it reads anything (`fanorona serve`).
    pub fn files(&self) -> Vec<(&'static str, &std::path::Path)> {
        let release = |p: &std::path::Path| p.as_os_str() == "release";
        let mut out: Vec<(&'static str, &std::path::Path)> = Vec::new();
        let (tb, book) = match self {
            EngineSpec::Ab { eval, tb, book, .. } => {
                out.extend(eval.as_deref().filter(|p| !release(p)).map(|p| ("eval", p)));
                (tb, book)
            }
            EngineSpec::Mcts {
                ckpt,
                ab_eval,
                tb,
                book,
                ..
            } => {
                if let NetSource::Dir(d) = ckpt {
                    out.push(("ckpt", d));
                }
                if let AbEvalSource::File(f) = ab_eval
                    && !release(f)
                {
                    out.push(("ab_eval", f));
                }
                (tb, book)
            }
            EngineSpec::Random { .. } => return out,
        };
        if let Tables::Dir(d) = tb {
            out.push(("tb", d));
        }
        out.extend(book.as_deref().filter(|p| !release(p)).map(|p| ("book", p)));
        out
    }

    /// The spec with its search resources capped: alpha-beta's `threads` and `hash`
    /// (MiB) at most `threads` and `hash_mb`, its time and an `mcts` search's at most
    /// `time` (a spec without a limit gets `time`), and an `mcts` search's simulations
    /// at most `sims`, a Gumbel search's at most `gumbel_sims` (Gumbel plans its
    /// simulations in advance, so they and not the time are its bound). What a server
    /// applies to every spec a client sends.
    pub fn capped(
        mut self,
        threads: usize,
        hash_mb: usize,
        time: Duration,
        sims: u32,
        gumbel_sims: u32,
    ) -> Self {
        let clamp = |t: Option<Duration>| Some(t.map_or(time, |t| t.min(time)));
        match &mut self {
            EngineSpec::Ab { cfg, limits, .. } => {
                cfg.threads = cfg.threads.clamp(1, threads.max(1));
                cfg.hash_mb = cfg.hash_mb.clamp(1, hash_mb.max(1));
                // No budget meant the engine's default depth: it stays, within the time.
                if *limits == Limits::default() {
                    limits.depth = Some(fanorona_search::DEFAULT_DEPTH);
                }
                limits.time = clamp(limits.time);
                limits.target = limits.target.map(|t| t.min(time));
            }
            EngineSpec::Mcts {
                sims: s,
                time: t,
                search,
                ..
            } => {
                if search.named("gumbel") == Some("true") {
                    *s = (*s).min(gumbel_sims);
                } else {
                    *s = (*s).min(sims);
                    *t = clamp(*t);
                }
            }
            EngineSpec::Random { .. } => {}
        }
        self
    }

    /// The spec for one turn on a game's clock (what a server's request that sends the
    /// side's clock asks, before [`EngineSpec::capped`]): alpha-beta's limits as
    /// [`ClockState::limits`] gives them (the time manager's unless the spec names a
    /// time a turn), an MCTS search's time the clock's share ([`ClockState::cap`]).
    pub fn on_clock(mut self, clock: &ClockState) -> EngineSpec {
        match &mut self {
            EngineSpec::Ab { limits, .. } => *limits = clock.limits(*limits),
            EngineSpec::Mcts { time, .. } => *time = Some(clock.cap(*time)),
            EngineSpec::Random { .. } => {}
        }
        self
    }

    /// The spec of an interactive player (`play`, `analyze`, `serve`, Python's
    /// `Engine`): one that names no tables uses those in `dir` (the default folder,
    /// [`fanorona_tb::default_dir`]) when it holds the board's; `tb=none` keeps it
    /// without. The arena's players use only the tables they name, so that a match
    /// compares what its specs say.
    pub fn with_found_tables(mut self, dir: &std::path::Path) -> EngineSpec {
        if let EngineSpec::Ab { tb, .. } | EngineSpec::Mcts { tb, .. } = &mut self
            && *tb == Tables::Default
        {
            *tb = Tables::Found(dir.to_path_buf());
        }
        self
    }

    /// The search settings of an `mcts` spec for games of `variant`: the players'
    /// preset ([`SearchSettings::player`], on a clock or not) with what the spec names.
    ///
    /// # Errors
    /// Not an mcts spec, or a setting the board cannot use (a guard on telo).
    pub fn settings(&self, variant: Variant) -> Result<SearchSettings> {
        let EngineSpec::Mcts { search, time, .. } = self else {
            return Err(SpecError("not an mcts engine".into()));
        };
        search
            .apply(SearchSettings::player(variant, time.is_some()), variant)
            .map_err(|e| input_err(format!("mcts player for {variant}: {e}")))
    }

    /// A telo position analysed: an `mcts` spec with a telo network searches it; every
    /// other spec (and `mcts` without a telo network) answers with the exact solution.
    ///
    /// # Errors
    /// A network that cannot be loaded or is not telo's.
    pub fn analyse_telo(&self, pos: &TeloPosition, nets: &dyn Networks) -> Result<Analysis> {
        if !self.has_network(Variant::Telo) {
            return Ok(fanorona_search::analyse_telo(
                pos,
                fanorona_search::telo_solution(),
            ));
        }
        let start = std::time::Instant::now();
        let (action, wdl, sims) = nets.search_telo(self, pos)?;
        let best = action
            .and_then(fanorona_rules::game::telo_action_from_index)
            .map(|m| pos.format_move(m));
        Ok(Analysis {
            fen: pos.fen(),
            score: best
                .as_ref()
                .map(|_| ((wdl[0] - wdl[2]) * 100.0).round() as i32),
            pv: best.iter().cloned().collect(),
            best,
            depth: 0,
            nodes: sims as u64,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// A position of any board analysed: tsivy and dimy by the spec's player (named
    /// `name`), telo as [`EngineSpec::analyse_telo`] says.
    ///
    /// # Errors
    /// A player that cannot be made for the board.
    pub fn analyse(&self, pos: &AnyPosition, name: &str, nets: &dyn Networks) -> Result<Analysis> {
        match pos {
            AnyPosition::Fanorona(p) => {
                let mut player = self.player(name, p.variant(), nets)?;
                Ok(fanorona_search::analyse(player.as_mut(), &History::new(*p)))
            }
            AnyPosition::Telo(t) => self.analyse_telo(t, nets),
        }
    }

    /// Whether this is an `mcts` spec with a network for `variant`: one its `ckpt=` names,
    /// or the release network where the variant has one (telo has none, so the default
    /// players answer its positions with the exact solver).
    pub fn has_network(&self, variant: Variant) -> bool {
        match self {
            EngineSpec::Mcts { ckpt, .. } => {
                !matches!(ckpt, NetSource::Release) || release::release_dir(variant).is_ok()
            }
            _ => false,
        }
    }
}

/// What makes an `mcts` spec's players: the network crate's (`fanorona_nn::spec::Nets`,
/// on a device), or [`NoNetworks`] in a front end without one.
pub trait Networks {
    /// The MCTS player of `spec` (an `mcts` spec) for games of `variant`, without its
    /// opening book ([`EngineSpec::player`] adds it).
    ///
    /// # Errors
    /// A network, evaluation or tables that cannot be used.
    fn mcts_player(
        &self,
        spec: &EngineSpec,
        name: &str,
        variant: Variant,
    ) -> Result<Box<dyn Player>>;

    /// `spec`'s search of a telo position (telo's turns are single decisions): the
    /// action chosen, the root's win/draw/loss for the side to move, the simulations.
    ///
    /// # Errors
    /// Not an mcts spec, a setting telo cannot use, or a network that cannot be used.
    fn search_telo(
        &self,
        spec: &EngineSpec,
        pos: &TeloPosition,
    ) -> Result<(Option<usize>, [f32; 3], u32)>;
}

/// The [`Networks`] of a front end built without the network: `mcts` specs are refused
/// with a message.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoNetworks;

impl NoNetworks {
    fn refuse(spec: &EngineSpec) -> SpecError {
        SpecError(format!(
            "{spec:?}: mcts players need the network, which this front end is built without (ab and random play here)"
        ))
    }
}

impl Networks for NoNetworks {
    fn mcts_player(&self, spec: &EngineSpec, _: &str, _: Variant) -> Result<Box<dyn Player>> {
        Err(Self::refuse(spec))
    }

    fn search_telo(
        &self,
        spec: &EngineSpec,
        _: &TeloPosition,
    ) -> Result<(Option<usize>, [f32; 3], u32)> {
        Err(Self::refuse(spec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_search::settings::{MAX_GUARD_DEPTH, PLAYER_BLEND_DEPTH, SIMS_GUARD_DEPTH};
    use fanorona_search::{BlendConfig, GuardConfig};

    #[test]
    fn the_players_guide_lists_every_player_option() {
        let guide = include_str!("../../../docs/players.md");
        for o in PLAYER_OPTIONS {
            for kind in o.kinds {
                assert!(
                    guide.lines().any(|l| l.contains(&format!("`{kind}`"))
                        && l.contains(&format!("`{}=", o.name))),
                    "docs/players.md: {kind} {}",
                    o.name
                );
            }
        }
        assert_eq!(player_option_names("random"), "seed");
        let e = EngineSpec::parse("ab:ckpt=x").unwrap_err().to_string();
        assert!(
            e.contains("ab knows seed, book, tb, eval and the engine's settings depth"),
            "{e}"
        );
    }

    #[test]
    fn without_a_network_mcts_is_refused_and_ab_plays() {
        let spec = EngineSpec::parse("mcts:sims=8").unwrap();
        let e = spec
            .player("p", Variant::Dimy, &NoNetworks)
            .err()
            .expect("refused");
        assert!(e.to_string().contains("need the network"), "{e}");
        let mut p = EngineSpec::parse("ab:depth=1")
            .unwrap()
            .player("p", Variant::Dimy, &NoNetworks)
            .unwrap();
        let game = History::new(Position::start(Variant::Dimy, RuleOptions::default()));
        assert!(p.choose(&game).turn.is_some());
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
        // No budget: the engine's default depth, or on a clock its time manager.
        assert!(matches!(
            EngineSpec::parse("ab").unwrap(),
            EngineSpec::Ab {
                limits: Limits {
                    depth: None,
                    nodes: None,
                    time: None,
                    target: None
                },
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
        // A server's cap: a spec without a budget keeps the engine's default depth, within
        // the server's time; a longer time is cut to it.
        let limits = |spec: &str| match EngineSpec::parse(spec).unwrap().capped(
            2,
            64,
            Duration::from_secs(1),
            1000,
            200,
        ) {
            EngineSpec::Ab { limits, .. } => (limits.depth, limits.time),
            other => panic!("{spec}: {other:?}"),
        };
        let second = Some(Duration::from_secs(1));
        assert_eq!(limits("ab"), (Some(fanorona_search::DEFAULT_DEPTH), second));
        assert_eq!(limits("ab:time=5s"), (None, second));
        assert_eq!(limits("ab:depth=9"), (Some(9), second));
        // On a clock, before the cap: the manager's target and limit, within it.
        let clock = fanorona_search::ClockState {
            left: Duration::from_secs(60),
            increment: Duration::from_millis(600),
            turns_played: 0,
            moves_to_go: None,
        };
        let on_clock = |spec: &str| match EngineSpec::parse(spec).unwrap().on_clock(&clock).capped(
            2,
            64,
            Duration::from_secs(5),
            1000,
            200,
        ) {
            EngineSpec::Ab { limits, .. } => (limits.target, limits.time),
            EngineSpec::Mcts { time, .. } => (None, time),
            other => panic!("{spec}: {other:?}"),
        };
        let ms = |m| Some(Duration::from_millis(m));
        assert_eq!(on_clock("ab"), (ms(1950), ms(5000)));
        assert_eq!(on_clock("ab:time=300ms"), (None, ms(300)));
        assert_eq!(on_clock("mcts"), (None, ms(1950)));
        assert_eq!(on_clock("mcts:time=100ms"), (None, ms(100)));
        assert!(EngineSpec::parse("ab:threads=0").is_err());
        assert_eq!(
            EngineSpec::parse("random:seed=4").unwrap(),
            EngineSpec::Random { seed: 4 }
        );
        // Every kind takes seed= (ab: the book's choice of turn).
        assert!(matches!(
            EngineSpec::parse("ab:depth=2,seed=7,book=b.txt").unwrap(),
            EngineSpec::Ab {
                seed: 7,
                book: Some(_),
                ..
            }
        ));
        assert!(EngineSpec::parse("random:book=b.txt").is_err());
        assert!(EngineSpec::parse("ab:ckpt=x").is_err());
        assert!(EngineSpec::parse("ab:seed=x").is_err());
        assert!(matches!(
            EngineSpec::parse("ab:time=50ms,eval=e.txt").unwrap(),
            EngineSpec::Ab { eval: Some(p), .. } if p == std::path::Path::new("e.txt")
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:time=50ms,ab_eval=release").unwrap(),
            EngineSpec::Mcts { ab_eval: AbEvalSource::File(p), .. } if p == std::path::Path::new("release")
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:sims=8,ab_eval=none").unwrap(),
            EngineSpec::Mcts {
                ab_eval: AbEvalSource::Off,
                ..
            }
        ));
        assert!(matches!(
            EngineSpec::parse("mcts:sims=8").unwrap(),
            EngineSpec::Mcts {
                ab_eval: AbEvalSource::Default,
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
                search: Overrides::default(),
                seed: 0,
                reuse: false,
                ab_eval: AbEvalSource::Default,
                tb: Tables::Default,
                book: None,
            }
        );
        assert!(matches!(
            EngineSpec::parse("mcts:time=50ms,tb=tables").unwrap(),
            EngineSpec::Mcts { tb: Tables::Dir(p), .. } if p == std::path::Path::new("tables")
        ));
        assert!(EngineSpec::parse("mcts:tb=").is_err());
        // Interactive players take the tables found; named ones and tb=none stay.
        let dir = std::path::Path::new("found");
        for (spec, want) in [
            ("ab:time=1s", Tables::Found(dir.into())),
            ("mcts:time=1s", Tables::Found(dir.into())),
            ("ab:tb=none", Tables::Off),
            ("mcts:tb=mine", Tables::Dir("mine".into())),
        ] {
            match EngineSpec::parse(spec).unwrap().with_found_tables(dir) {
                EngineSpec::Ab { tb, .. } | EngineSpec::Mcts { tb, .. } => {
                    assert_eq!(tb, want, "{spec}")
                }
                EngineSpec::Random { .. } => unreachable!(),
            }
        }
        let t = Tables::Found("/no/such/folder".into());
        assert!(
            t.load(Variant::Dimy).unwrap().is_none(),
            "no tables found is no error"
        );
        assert!(
            Tables::Dir("/no/such/folder".into())
                .load(Variant::Dimy)
                .is_err()
        );
        assert!(matches!(
            EngineSpec::parse("mcts:reuse=true").unwrap(),
            EngineSpec::Mcts { reuse: true, .. }
        ));
        assert!(EngineSpec::parse("mcts:reuse=yes").is_err());
        // The search's settings: the players' preset of the board, with what the spec
        // names (fanorona_search::settings has the table and its own tests).
        let settings = |spec: &str, variant| EngineSpec::parse(spec).unwrap().settings(variant);
        let blend = |spec: &str| settings(spec, Variant::Tsivy).unwrap().blend();
        let guard = |spec: &str, variant| settings(spec, variant).unwrap().guard();
        assert_eq!(blend("mcts:blend=0"), None);
        assert_eq!(
            blend("mcts:sims=8"),
            Some(BlendConfig {
                depth: PLAYER_BLEND_DEPTH,
                weight: 0.5,
                scale: 150.0
            })
        );
        assert_eq!(
            blend("mcts:blend_weight=0.75").map(|b| (b.depth, b.weight)),
            Some((3, 0.75))
        );
        assert_eq!(
            blend("mcts:ckpt=none,blend=2").map(|b| (b.depth, b.weight)),
            Some((2, 0.5))
        );
        assert_eq!(
            blend("mcts:blend=1,blend_weight=0.25").map(|b| (b.depth, b.weight)),
            Some((1, 0.25))
        );
        assert_eq!(blend("mcts:blend_scale=250").map(|b| b.scale), Some(250.0));
        assert_eq!(guard("mcts:guard=0", Variant::Tsivy), None);
        let sims_guard = Some(GuardConfig {
            depth: SIMS_GUARD_DEPTH,
            margin: 50,
        });
        assert_eq!(guard("mcts:sims=8", Variant::Tsivy), sims_guard);
        assert_eq!(guard("mcts:sims=8", Variant::Dimy), sims_guard);
        for v in [Variant::Tsivy, Variant::Dimy] {
            assert_eq!(
                guard("mcts:time=1s", v),
                Some(GuardConfig {
                    depth: MAX_GUARD_DEPTH,
                    margin: 0
                })
            );
        }
        assert_eq!(guard("mcts:time=1s", Variant::Telo), None);
        assert_eq!(
            blend("mcts:time=1s").map(|b| b.depth),
            Some(PLAYER_BLEND_DEPTH)
        );
        assert_eq!(
            guard("mcts:guard=4", Variant::Tsivy),
            Some(GuardConfig {
                depth: 4,
                margin: 50
            })
        );
        assert_eq!(
            guard("mcts:guard=3,guard_margin=0", Variant::Tsivy),
            Some(GuardConfig {
                depth: 3,
                margin: 0
            })
        );
        // Telo has no alpha-beta: a guard or a blend named for it is refused by name.
        for (spec, key) in [
            ("mcts:guard=4", "guard"),
            ("mcts:blend=2", "blend"),
            ("mcts:blend_weight=0.5", "blend_weight"),
        ] {
            let e = settings(spec, Variant::Telo).unwrap_err().to_string();
            assert!(e.contains(key), "{spec}: {e}");
        }
        let network = EngineSpec::network(NetSource::Release, 1);
        let bare = network.settings(Variant::Tsivy).unwrap();
        assert!(bare.blend().is_none() && bare.guard().is_none());
        assert_eq!(bare.mcts(), fanorona_search::MctsConfig::player());
        for bad in [
            "mcts:guard=1",
            "mcts:guard=x",
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
        let e = EngineSpec::parse("mcts:contempt=0.2")
            .unwrap_err()
            .to_string();
        assert!(e.contains("c_puct, fpu"), "the settings listed: {e}");
        let s = settings(
            "mcts:c_puct=1,fpu=0.5,batch=1,solver=true,minimax=0.25,ptemp=1.5",
            Variant::Tsivy,
        )
        .unwrap()
        .mcts();
        assert_eq!(
            (
                s.c_puct,
                s.fpu_reduction,
                s.batch,
                s.solver,
                s.minimax_weight,
                s.policy_temperature,
                s.gumbel
            ),
            (1.0, 0.5, 1, true, 0.25, 1.5, None)
        );
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
