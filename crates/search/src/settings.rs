//! A search's settings in one place: [`SearchSettings`] holds one field for each setting
//! a user may change, [`OPTIONS`] declares each of them once (its name, the older names
//! still read, its meaning and its range), and two presets give the defaults:
//!
//! - [`SearchSettings::player`]: what every `mcts:` player searches with unless its spec
//!   says otherwise, the values the experiments chose (each constant's documentation
//!   names the experiment).
//! - [`SearchSettings::selfplay`]: training's self-play, the plain search with root
//!   noise.
//!
//! The player specs (`mcts:guard=4,ptemp=2`), the training config's `[selfplay]` section
//! (`selfplay.guard = 4`) and the server's caps all read and check their values through
//! [`OPTIONS`] ([`SearchSettings::set`], [`Overrides`]): one set of names, one range for
//! each, one message when a value is out of it. The engines' own configurations
//! ([`MctsConfig`], [`BlendConfig`], [`GuardConfig`]) are built from the settings by
//! [`SearchSettings::mcts`], [`SearchSettings::blend`] and [`SearchSettings::guard`].

use crate::{AbConfig, BlendConfig, GuardConfig, GumbelConfig, Limits, MctsConfig};
use fanorona_rules::Variant;

/// The depth in turns of the players' blend: at 1 it halved the release tsivy network's
/// blunders (experiments/search7); at 3 the tsivy network scores 8.5 points more than at 1
/// against `ab:depth=6` at 400 simulations, and the same at equal time (experiments/search8).
pub const PLAYER_BLEND_DEPTH: u32 = 3;

/// The deepest guard (and blend) allowed, and the players' guard's limit on a clock, where
/// the time decides how deep it judges. At 12, dimy's guard finished its 12-turn pass in
/// about a fifth of a 50 ms turn and left the rest of its half unused (experiments/search12).
pub const MAX_GUARD_DEPTH: u32 = 20;

/// The deepest blend allowed.
pub const MAX_BLEND_DEPTH: u32 = 8;

/// The players' guard's depth in turns at a fixed number of simulations. 8 on both boards:
/// on tsivy at 400 simulations it scores 65.2 % against `ab:depth=6` where 6 turns scored
/// 61.2 % (+4.0 ± 4.0 points paired on the same book games, experiments/search12); on
/// dimy 66.2 % against `ab:depth=4` (experiments/search9).
pub const SIMS_GUARD_DEPTH: u32 = 8;

/// A setting that cannot be used: its name (as the user wrote it) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} {problem}", fanorona_rules::quote(.key))]
pub struct SettingsError {
    /// The setting, as the spec or the config spelt it.
    pub key: String,
    /// What is wrong, in words: "must be ..." for a value out of its range.
    pub problem: String,
}

impl SettingsError {
    fn new(key: &str, problem: impl Into<String>) -> SettingsError {
        SettingsError {
            key: key.to_string(),
            problem: problem.into(),
        }
    }
}

/// Everything a network-guided search is set with (the network, its evaluator and the
/// budget aside): one field for each entry of [`OPTIONS`], named as users name it.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// PUCT's exploration constant ([`MctsConfig::c_puct`]).
    pub c_puct: f32,
    /// First-play urgency reduction ([`MctsConfig::fpu_reduction`]).
    pub fpu: f32,
    /// Root Dirichlet noise concentration ([`MctsConfig::dirichlet_alpha`]).
    pub dirichlet_alpha: f32,
    /// Root Dirichlet noise weight, 0 = off ([`MctsConfig::dirichlet_epsilon`]; Gumbel
    /// root search brings its own noise and ignores it).
    pub dirichlet_epsilon: f32,
    /// Leaves a search (a self-play game) hands out per evaluator call ([`MctsConfig::batch`]).
    pub batch: usize,
    /// Gumbel root search instead of PUCT at the root ([`MctsConfig::gumbel`]).
    pub gumbel: bool,
    /// With `gumbel`: the actions considered at the root ([`GumbelConfig::max_actions`]).
    pub gumbel_actions: usize,
    /// The MCTS-solver ([`MctsConfig::solver`]).
    pub solver: bool,
    /// Forced playouts and policy target pruning, KataGo's `k` ([`MctsConfig::forced_playouts`]).
    pub forced_playouts: f32,
    /// Implicit minimax backups' weight ([`MctsConfig::minimax_weight`]).
    pub minimax: f32,
    /// Policy softmax temperature ([`MctsConfig::policy_temperature`]).
    pub ptemp: f32,
    /// Depth in turns of the alpha-beta search blended into leaf values, 0 = off
    /// ([`BlendConfig::depth`]).
    pub blend: u32,
    /// The blend's share of a leaf's value ([`BlendConfig::weight`]).
    pub blend_weight: f32,
    /// The blend's logistic scale ([`BlendConfig::scale`]).
    pub blend_scale: f32,
    /// Depth in turns of the tactical guard, 0 = off ([`GuardConfig::depth`]).
    pub guard: u32,
    /// Hundredths of a piece a turn the guard keeps may score below the best
    /// ([`GuardConfig::margin`]).
    pub guard_margin: i32,
}

/// How a setting's value is written (TOML keeps the type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false`.
    Bool,
    /// A whole number.
    Int,
    /// A number.
    Float,
    /// Text (a file, a time, ...).
    Text,
}

/// One MCTS setting (a field of [`SearchSettings`]), declared in [`OPTIONS`].
pub type SearchOption = Declared<SearchSettings>;

impl Declared<SearchSettings> {
    /// The setting named `key` (its name or an older one).
    pub fn find(key: &str) -> Option<&'static SearchOption> {
        OPTIONS
            .iter()
            .find(|o| o.name == key || o.aliases.contains(&key))
    }

    /// This setting's value in `s`, as text that [`SearchSettings::set`] reads back.
    pub fn value(&self, s: &SearchSettings) -> String {
        self.get.map_or_else(String::new, |get| get(s))
    }

    /// Whether this setting is on in `s` (a parent setting: not 0, not false).
    fn is_on(&self, s: &SearchSettings) -> bool {
        !matches!(self.value(s).as_str(), "0" | "false")
    }
}

/// Every search setting a user may change, once each.
pub const OPTIONS: &[SearchOption] = crate::declare! { fields SearchSettings;
    c_puct: f32, Float, [], None, |x| x > 0.0 && x.is_finite(),
        "an exploration constant above 0", "PUCT's exploration constant";
    fpu: f32, Float, ["fpu_reduction"], None, |x| (0.0..=2.0).contains(&x),
        "a first-play reduction from 0 to 2",
        "an unvisited child is valued at its parent's value less this (values in [-1, 1])";
    dirichlet_alpha: f32, Float, [], None, |x| x > 0.0 && x.is_finite(),
        "above 0", "the root noise's Dirichlet concentration";
    dirichlet_epsilon: f32, Float, [], None, |x| (0.0..=1.0).contains(&x),
        "from 0 (no noise) to 1", "the root noise's weight in the priors";
    batch: usize, Int, ["leaves_per_game"], None, |x| (1..=256).contains(&x),
        "1 to 256 leaves a network call", "leaves a search hands out per network call";
    gumbel: bool, Bool, [], None, |_| true,
        "true or false", "Gumbel root search (sequential halving) instead of PUCT at the root";
    gumbel_actions: usize, Int, [], Some("gumbel"), |x| (2..=1000).contains(&x),
        "2 to 1000", "the actions Gumbel root search considers";
    solver: bool, Bool, [], None, |_| true,
        "true or false", "the MCTS-solver: proven positions are not searched again";
    forced_playouts: f32, Float, [], None, |x| (0.0..=100.0).contains(&x),
        "from 0 (off) to 100 (KataGo: 2)", "forced playouts at the root with policy target pruning";
    minimax: f32, Float, ["minimax_weight"], None, |x| (0.0..=1.0).contains(&x),
        "a weight from 0 (off) to 1", "implicit minimax backups' weight in selection";
    ptemp: f32, Float, ["policy_temperature"], None, |x| (0.1..=10.0).contains(&x),
        "a policy temperature from 0.1 to 10 (1 = the priors as given)",
        "the priors raised to 1/T and normalised";
    blend: u32, Int, ["blend_depth"], None, |x| x <= MAX_BLEND_DEPTH,
        "an alpha-beta depth of 1 to 8, or 0 (off)",
        "leaf values mixed with an alpha-beta search of this many turns";
    blend_weight: f32, Float, [], Some("blend"), |x| (0.0..=1.0).contains(&x),
        "from 0 to 1", "the blended search's share of a leaf's value";
    blend_scale: f32, Float, [], Some("blend"), |x| (1.0..=100_000.0).contains(&x),
        "1 to 100000 hundredths of a piece",
        "the score that counts as a 73 % win in the blend";
    guard: u32, Int, [], None, |x| x == 0 || (2..=MAX_GUARD_DEPTH).contains(&x),
        "an alpha-beta depth of 2 to 20, or 0 (off)",
        "choose only among the turns an alpha-beta search of this many turns finds sound";
    guard_margin: i32, Int, [], Some("guard"), |x| (0..=100_000).contains(&x),
        "0 to 100000 hundredths of a piece",
        "how far below the best a turn the guard keeps may score";
};

impl SearchSettings {
    /// The players' preset for `variant`, on a clock (`timed`) or at a fixed number of
    /// simulations. Alpha-beta plays tsivy and dimy only: telo gets no blend and no guard.
    ///
    /// - The guard gains more at equal time than any other change of the search
    ///   (experiments/guard1, search9, search10). On a clock: as deep as its share of the
    ///   turn's time allows, up to [`MAX_GUARD_DEPTH`], and only the turns it scores best
    ///   (margin 0): the network breaks ties (search10: 8.5 points more on tsivy at 50 ms
    ///   than letting the network choose within half a piece). At a fixed number of
    ///   simulations: [`SIMS_GUARD_DEPTH`] turns deep, within half a piece of the best:
    ///   with 400 simulations the network's choice among the sound turns is worth more
    ///   than alpha-beta's.
    /// - The blend, [`PLAYER_BLEND_DEPTH`] turns, half of each leaf's value.
    /// - [`MctsConfig::player`]: minimax backups and flattened priors.
    pub fn player(variant: Variant, timed: bool) -> SearchSettings {
        let alpha_beta = variant != Variant::Telo;
        let mut s = SearchSettings::from_mcts(&MctsConfig::player());
        s.blend = if alpha_beta { PLAYER_BLEND_DEPTH } else { 0 };
        (s.guard, s.guard_margin) = match (alpha_beta, timed) {
            (false, _) => (0, GuardConfig::default().margin),
            (true, true) => (MAX_GUARD_DEPTH, 0),
            (true, false) => (SIMS_GUARD_DEPTH, GuardConfig::default().margin),
        };
        s
    }

    /// Self-play's preset: [`MctsConfig::selfplay`], no blend, no guard.
    pub fn selfplay() -> SearchSettings {
        SearchSettings::from_mcts(&MctsConfig::selfplay())
    }

    /// The settings of `m`, with no blend and no guard.
    fn from_mcts(m: &MctsConfig) -> SearchSettings {
        let gumbel = m.gumbel.unwrap_or_default();
        let blend = BlendConfig::default();
        let guard = GuardConfig::default();
        SearchSettings {
            c_puct: m.c_puct,
            fpu: m.fpu_reduction,
            dirichlet_alpha: m.dirichlet_alpha,
            dirichlet_epsilon: m.dirichlet_epsilon,
            batch: m.batch,
            gumbel: m.gumbel.is_some(),
            gumbel_actions: gumbel.max_actions,
            solver: m.solver,
            forced_playouts: m.forced_playouts,
            minimax: m.minimax_weight,
            ptemp: m.policy_temperature,
            blend: 0,
            blend_weight: blend.weight,
            blend_scale: blend.scale,
            guard: 0,
            guard_margin: guard.margin,
        }
    }

    /// The tree search's constants.
    pub fn mcts(&self) -> MctsConfig {
        MctsConfig {
            c_puct: self.c_puct,
            fpu_reduction: self.fpu,
            dirichlet_alpha: self.dirichlet_alpha,
            dirichlet_epsilon: self.dirichlet_epsilon,
            batch: self.batch,
            gumbel: self.gumbel.then(|| GumbelConfig {
                max_actions: self.gumbel_actions,
                ..GumbelConfig::default()
            }),
            solver: self.solver,
            forced_playouts: self.forced_playouts,
            minimax_weight: self.minimax,
            policy_temperature: self.ptemp,
        }
    }

    /// The alpha-beta search blended into leaf values (`None`: the evaluator's alone).
    pub fn blend(&self) -> Option<BlendConfig> {
        (self.blend > 0).then_some(BlendConfig {
            depth: self.blend,
            weight: self.blend_weight,
            scale: self.blend_scale,
        })
    }

    /// The tactical guard (`None`: every legal turn may be chosen).
    pub fn guard(&self) -> Option<GuardConfig> {
        (self.guard > 0).then_some(GuardConfig {
            depth: self.guard,
            margin: self.guard_margin,
        })
    }

    /// Sets the setting `key` (its name or an older one) from text.
    ///
    /// # Errors
    /// An unknown name (the message lists the known ones) or a value out of range.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SettingsError> {
        let Some(o) = SearchOption::find(key) else {
            return Err(SettingsError::new(
                key,
                format!("is not a search setting (known: {})", option_names()),
            ));
        };
        if (o.set)(self, value).is_some() {
            Ok(())
        } else {
            Err(SettingsError::new(
                key,
                format!(
                    "must be {} (not {})",
                    o.expected,
                    fanorona_rules::quote(value)
                ),
            ))
        }
    }

    /// Checks every value against its range, and that `variant` can use them: the
    /// alpha-beta engine of the blend and the guard plays tsivy and dimy only.
    ///
    /// # Errors
    /// The first setting that cannot be used, by its name.
    pub fn validate(&self, variant: Variant) -> Result<(), SettingsError> {
        for o in OPTIONS {
            if !(o.valid)(self) {
                return Err(SettingsError::new(
                    o.name,
                    format!("must be {}", o.expected),
                ));
            }
        }
        if variant == Variant::Telo {
            for (key, on) in [("blend", self.blend > 0), ("guard", self.guard > 0)] {
                if on {
                    return Err(SettingsError::new(
                        key,
                        "needs the alpha-beta engine, which plays tsivy and dimy, not telo",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Names, comma-separated, for messages: every table's lister.
pub fn names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names.into_iter().collect::<Vec<_>>().join(", ")
}

/// The settings' names, for messages.
pub fn option_names() -> String {
    names(OPTIONS.iter().map(|o| o.name))
}

/// Reads a duration: `250ms`, `1s`, `1.5s`, `2m` (`2min`); a bare number is seconds.
/// `None` for anything else, a time past what a `Duration` holds among them.
pub fn parse_duration(s: &str) -> Option<std::time::Duration> {
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
    std::time::Duration::try_from_secs_f64(secs).ok()
}

/// An alpha-beta player's settings (`ab:depth=8,hash=64`): the engine's configuration
/// and its budget, each setting declared once in [`AB_OPTIONS`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AbSettings {
    /// The engine's configuration.
    pub cfg: AbConfig,
    /// The budget.
    pub limits: Limits,
    /// Whether `threads` was given (else [`AbSettings::finish`] picks).
    pub threads_given: bool,
}

/// One option of a table of settings of type `T`, declared once: its name, the players
/// that take it, what it does, its range in words, how it is read (and, for settings
/// that are written back, how it is written and checked). The three tables are of
/// these, each written with [`declare!`](crate::declare): [`OPTIONS`] (MCTS's, fields of
/// [`SearchSettings`]), [`AB_OPTIONS`] (alpha-beta's) and `fanorona-players`'s
/// `PLAYER_OPTIONS`; [`names`] lists any of them.
#[derive(Clone, Copy)]
pub struct Declared<T: 'static> {
    /// The name specs use.
    pub name: &'static str,
    /// The kinds of player that take it (`ab`, `mcts`, `random`).
    pub kinds: &'static [&'static str],
    /// What it does.
    pub help: &'static str,
    /// Its range, in words ("must be ..." follows the name in errors).
    pub expected: &'static str,
    /// Older names, still read (resolved configs of older runs hold them).
    pub aliases: &'static [&'static str],
    /// The setting this one refines (`blend_weight` refines `blend`): naming it while
    /// that one is off is an error in a spec.
    pub parent: Option<&'static str>,
    /// How its value is written.
    pub kind: OptionKind,
    /// Reads a value into the settings; `None` when it is out of range.
    pub set: fn(&mut T, &str) -> Option<()>,
    /// Its value as text that `set` reads back (`None`: not written back).
    pub get: Option<fn(&T) -> String>,
    /// Whether the settings' value is in range.
    pub valid: fn(&T) -> bool,
}

impl<T> std::fmt::Debug for Declared<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Declared")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Declares a table of [`Declared`] options over settings of type `T`, in one of two
/// forms:
///
/// - `declare! { fields T; field: type, Kind, [older names], parent, range, "expected",
///   "help"; ... }`: each entry a field of `T` (read, written back and checked by its
///   type and range predicate; MCTS's [`OPTIONS`]);
/// - `declare! { T; "name" [kinds]: "help", "expected", |settings, value| reading; ... }`:
///   each entry read by its own code (an `Option<()>`, `None` for a value out of range).
#[macro_export]
macro_rules! declare {
    (fields $target:ty; $( $field:ident : $ty:ty, $kind:ident, [$($alias:literal),*],
        $parent:expr, $range:expr, $expected:literal, $help:literal; )*) => {
        &[$( $crate::settings::Declared::<$target> {
            name: stringify!($field),
            kinds: &["mcts"],
            help: $help,
            expected: $expected,
            aliases: &[$($alias),*],
            parent: $parent,
            kind: $crate::settings::OptionKind::$kind,
            set: |s, v| {
                let ok: fn($ty) -> bool = $range;
                let x = v.trim().parse::<$ty>().ok().filter(|&x| ok(x))?;
                s.$field = x;
                Some(())
            },
            get: Some(|s| s.$field.to_string()),
            valid: |s| {
                let ok: fn($ty) -> bool = $range;
                ok(s.$field)
            },
        }, )*]
    };
    ($target:ty; $( $name:literal [$($kind:literal),*]: $help:literal, $expected:literal,
        |$s:ident, $v:ident| $set:expr; )*) => {
        &[$( $crate::settings::Declared::<$target> {
            name: $name,
            kinds: &[$($kind),*],
            help: $help,
            expected: $expected,
            aliases: &[],
            parent: None,
            kind: $crate::settings::OptionKind::Text,
            set: |$s, $v| $set,
            get: None,
            valid: |_| true,
        }, )*]
    };
}

/// Every alpha-beta setting a user may change, once each.
pub const AB_OPTIONS: &[Declared<AbSettings>] = declare! { AbSettings;
    "depth" ["ab"]: "search this many turns deep (iterative deepening up to it)", "1 to 100",
        |s, v| {
            s.limits.depth = Some(v.parse().ok().filter(|d| (1..=100).contains(d))?);
            Some(())
        };
    "nodes" ["ab"]: "stop after about this many nodes", "a number of nodes",
        |s, v| {
            s.limits.nodes = Some(v.parse().ok()?);
            Some(())
        };
    "time" ["ab"]: "stop after about this much time a turn", "a time such as 200ms or 1s",
        |s, v| {
            s.limits.time = Some(parse_duration(v)?);
            Some(())
        };
    "hash" ["ab"]: "the transposition table's size in MiB", "MiB, 1 to 65536",
        |s, v| {
            s.cfg.hash_mb = v.parse().ok().filter(|m| (1..=65536).contains(m))?;
            Some(())
        };
    "qdepth" ["ab"]: "how many capture turns deep the quiescence search may go",
        "a number of capture turns",
        |s, v| {
            s.cfg.qsearch_depth = v.parse().ok()?;
            Some(())
        };
    "threads" ["ab"]:
        "search threads (lazy SMP); by default 1, or every core on a clock in play, analyze and serve",
        "1 to 256",
        |s, v| {
            s.cfg.threads = v.parse().ok().filter(|t| (1..=256).contains(t))?;
            s.threads_given = true;
            Some(())
        };
};

impl AbSettings {
    /// Sets the alpha-beta setting `key` from text; `Ok(false)` if `key` names none.
    ///
    /// # Errors
    /// A value out of range: the message says the range.
    pub fn set(&mut self, key: &str, value: &str) -> Result<bool, SettingsError> {
        let Some(o) = AB_OPTIONS.iter().find(|o| o.name == key) else {
            return Ok(false);
        };
        (o.set)(self, value).map(|()| true).ok_or_else(|| {
            SettingsError::new(
                key,
                format!(
                    "must be {} (not {})",
                    o.expected,
                    fanorona_rules::quote(value)
                ),
            )
        })
    }

    /// The configuration and budget to search with. No budget given: none, so that the
    /// engine searches [`DEFAULT_DEPTH`](crate::DEFAULT_DEPTH) turns deep, and a player
    /// on a game's clock as long as its time manager decides ([`AbPlayer`](crate::AbPlayer)).
    /// A search limited by time alone takes `threads` threads unless the spec said
    /// (searches limited by depth or nodes, or by nothing, stay on one thread, and
    /// reproducible).
    pub fn finish(mut self, threads: usize) -> (AbConfig, Limits) {
        if !self.threads_given
            && self.limits.time.is_some()
            && self.limits.depth.is_none()
            && self.limits.nodes.is_none()
        {
            self.cfg.threads = threads.max(1);
        }
        (self.cfg, self.limits)
    }
}

/// The alpha-beta settings' names, for messages.
pub fn ab_option_names() -> String {
    names(AB_OPTIONS.iter().map(|o| o.name))
}

/// Settings a user named (a spec's options), checked as they are read and applied over
/// a preset once the board is known ([`Overrides::apply`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides(Vec<(&'static str, String, String)>);

fn option(name: &str) -> &'static SearchOption {
    SearchOption::find(name).expect("a name from the table")
}

impl Overrides {
    /// Records `key=value` if `key` names a search setting (`Ok(false)` if it names none),
    /// checking the value against its range.
    ///
    /// # Errors
    /// A value out of range.
    pub fn read(&mut self, key: &str, value: &str) -> Result<bool, SettingsError> {
        let Some(o) = SearchOption::find(key) else {
            return Ok(false);
        };
        SearchSettings::player(Variant::Tsivy, false).set(key, value)?;
        self.0.push((o.name, key.to_string(), value.to_string()));
        // A refinement named with its parent named off can never be used.
        if let Some(parent) = o.parent
            && let Some(off) = self.named(parent).filter(|v| matches!(*v, "0" | "false"))
        {
            return Err(SettingsError::new(
                key,
                format!("has no effect with {parent}={off}"),
            ));
        }
        if let Some(child) = self
            .0
            .iter()
            .find(|(c, ..)| option(c).parent == Some(o.name))
            && matches!(value, "0" | "false")
        {
            return Err(SettingsError::new(
                &child.1,
                format!("has no effect with {key}={value}"),
            ));
        }
        Ok(true)
    }

    /// The value named for the setting `name` (by any of its names), the last if several.
    pub fn named(&self, name: &str) -> Option<&str> {
        let o = SearchOption::find(name)?;
        self.0
            .iter()
            .rev()
            .find(|(x, ..)| *x == o.name)
            .map(|(_, _, v)| v.as_str())
    }

    /// `preset` with these settings applied, checked for `variant`.
    ///
    /// # Errors
    /// A refinement of a setting that is off (`guard_margin` with no guard), or a setting
    /// the board cannot use (a guard on telo).
    pub fn apply(
        &self,
        mut preset: SearchSettings,
        variant: Variant,
    ) -> Result<SearchSettings, SettingsError> {
        for (_, key, value) in &self.0 {
            preset.set(key, value)?;
        }
        for (name, key, _) in &self.0 {
            if let Some(parent) = option(name).parent.map(option)
                && !parent.is_on(&preset)
            {
                return Err(SettingsError::new(
                    key,
                    format!("needs {} (it is off here)", parent.name),
                ));
            }
        }
        preset.validate(variant).map_err(|e| {
            // Name the setting as the user wrote it.
            match self.0.iter().find(|(name, ..)| *name == e.key) {
                Some((_, key, _)) => SettingsError::new(key, e.problem),
                None => e,
            }
        })?;
        Ok(preset)
    }
}

impl MctsConfig {
    /// The players' constants (also [`MctsConfig::default`]): implicit minimax backups at
    /// 0.5 (experiments/search4) and the priors flattened at temperature 3
    /// (experiments/search6), no root noise.
    pub fn player() -> MctsConfig {
        MctsConfig::default()
    }

    /// Self-play's constants: the plain search (no minimax backups, the priors as
    /// given; the players' values were measured in play with fixed networks, and in
    /// self-play minimax backups made no stronger network, experiments/dimy38) with
    /// Dirichlet noise at the root and 4 leaves a game per network call.
    pub fn selfplay() -> MctsConfig {
        MctsConfig {
            dirichlet_epsilon: 0.25,
            batch: 4,
            minimax_weight: 0.0,
            policy_temperature: 1.0,
            ..MctsConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_presets_are_valid_and_differ_where_measured() {
        for variant in [Variant::Tsivy, Variant::Dimy, Variant::Telo] {
            for timed in [false, true] {
                SearchSettings::player(variant, timed)
                    .validate(variant)
                    .unwrap();
            }
            SearchSettings::selfplay().validate(variant).unwrap();
        }
        let p = SearchSettings::player(Variant::Tsivy, false);
        let s = SearchSettings::selfplay();
        assert_eq!(p.mcts(), MctsConfig::player());
        assert_eq!(s.mcts(), MctsConfig::selfplay());
        assert_eq!(p.minimax, 0.5);
        assert_eq!(p.ptemp, 3.0);
        assert_eq!(s.minimax, 0.0);
        assert_eq!(s.ptemp, 1.0);
        assert!(s.dirichlet_epsilon > 0.0 && p.dirichlet_epsilon == 0.0);
        assert_eq!(p.guard().map(|g| (g.depth, g.margin)), Some((8, 50)));
        let timed = SearchSettings::player(Variant::Dimy, true);
        assert_eq!(timed.guard().map(|g| (g.depth, g.margin)), Some((20, 0)));
        assert_eq!(
            p.blend().map(|b| (b.depth, b.weight, b.scale)),
            Some((3, 0.5, 150.0))
        );
        let telo = SearchSettings::player(Variant::Telo, true);
        assert!(telo.guard().is_none() && telo.blend().is_none());
        assert!(s.guard().is_none() && s.blend().is_none());
    }

    #[test]
    fn every_setting_is_declared_once_and_reads_back_what_it_writes() {
        let mut names: Vec<&str> = OPTIONS
            .iter()
            .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a name declared twice");
        for preset in [
            SearchSettings::player(Variant::Tsivy, true),
            SearchSettings::selfplay(),
        ] {
            let mut copy = SearchSettings::player(Variant::Telo, false);
            for o in OPTIONS {
                copy.set(o.name, &o.value(&preset)).unwrap();
                if let Some(p) = o.parent {
                    assert!(SearchOption::find(p).is_some(), "{}", o.name);
                }
            }
            assert_eq!(copy, preset);
        }
        // The older names still read.
        let mut s = SearchSettings::selfplay();
        for (old, value) in [
            ("fpu_reduction", "0.5"),
            ("leaves_per_game", "8"),
            ("minimax_weight", "0.25"),
            ("policy_temperature", "2"),
            ("blend_depth", "2"),
        ] {
            s.set(old, value).unwrap();
        }
        assert_eq!(
            (s.fpu, s.batch, s.minimax, s.ptemp, s.blend),
            (0.5, 8, 0.25, 2.0, 2)
        );
    }

    #[test]
    fn errors_name_the_setting_and_its_range() {
        let mut s = SearchSettings::player(Variant::Tsivy, false);
        for (key, value) in [
            ("c_puct", "0"),
            ("fpu", "3"),
            ("minimax", "1.5"),
            ("ptemp", "11"),
            ("forced_playouts", "-1"),
            ("batch", "0"),
            ("guard", "1"),
            ("guard_margin", "-1"),
            ("blend", "9"),
            ("blend_weight", "2"),
            ("gumbel", "yes"),
            ("minimax_weight", "x"),
        ] {
            let e = s.set(key, value).unwrap_err();
            assert_eq!(e.key, key, "{e}");
            let want = SearchOption::find(key).unwrap().expected;
            assert!(e.to_string().starts_with(&format!("`{key}`")), "{e}");
            assert!(e.to_string().contains(want), "{e}");
        }
        assert_eq!(s, SearchSettings::player(Variant::Tsivy, false));
        let e = s.set("contempt", "0.2").unwrap_err();
        assert!(e.to_string().contains("c_puct, fpu"), "{e}");
        // The board: no alpha-beta on telo.
        let mut telo = SearchSettings::player(Variant::Telo, false);
        telo.validate(Variant::Telo).unwrap();
        telo.guard = 4;
        assert_eq!(telo.validate(Variant::Telo).unwrap_err().key, "guard");
        telo.validate(Variant::Dimy).unwrap();
    }

    #[test]
    fn overrides_apply_over_the_board_s_preset() {
        let read = |spec: &[(&str, &str)]| {
            let mut o = Overrides::default();
            for (k, v) in spec {
                assert!(o.read(k, v)?, "{k}");
            }
            Ok::<_, SettingsError>(o)
        };
        let o = read(&[("guard", "4"), ("blend_weight", "0.75")]).unwrap();
        let s = o
            .apply(
                SearchSettings::player(Variant::Tsivy, false),
                Variant::Tsivy,
            )
            .unwrap();
        assert_eq!(s.guard().map(|g| (g.depth, g.margin)), Some((4, 50)));
        assert_eq!(s.blend().map(|b| (b.depth, b.weight)), Some((3, 0.75)));
        // Telo has no blend to refine, and no alpha-beta for a guard.
        let telo = SearchSettings::player(Variant::Telo, false);
        assert_eq!(
            o.apply(telo.clone(), Variant::Telo).unwrap_err().key,
            "blend_weight"
        );
        let g = read(&[("guard", "4")]).unwrap();
        assert_eq!(
            g.apply(telo.clone(), Variant::Telo).unwrap_err().key,
            "guard"
        );
        // Turning the blend and the guard off is fine anywhere.
        let off = read(&[("blend", "0"), ("guard", "0")]).unwrap();
        assert_eq!(off.apply(telo.clone(), Variant::Telo).unwrap(), telo);
        // A refinement of a setting named off can never act: refused as it is read.
        for bad in [
            &[("blend", "0"), ("blend_weight", "0.5")][..],
            &[("blend_scale", "100"), ("blend", "0")],
            &[("guard", "0"), ("guard_margin", "10")],
            &[("gumbel", "false"), ("gumbel_actions", "8")],
        ] {
            assert!(read(bad).is_err(), "{bad:?}");
        }
        assert!(!Overrides::default().read("sims", "4").unwrap());
        assert_eq!(
            read(&[("minimax_weight", "0.25")])
                .unwrap()
                .named("minimax"),
            Some("0.25")
        );
    }

    #[test]
    fn the_players_guide_lists_every_setting() {
        let guide = include_str!("../../../docs/players.md");
        for o in OPTIONS {
            assert!(
                guide.contains(&format!("`{}=", o.name)),
                "docs/players.md: {}",
                o.name
            );
        }
        for o in AB_OPTIONS {
            assert!(
                guide.contains(&format!("`{}=", o.name)),
                "docs/players.md: ab {}",
                o.name
            );
        }
    }

    #[test]
    fn ab_settings_read_through_their_table() {
        let mut ab = AbSettings::default();
        assert_eq!(ab.set("depth", "8"), Ok(true));
        assert_eq!(ab.set("sims", "8"), Ok(false));
        let e = ab.set("depth", "0").unwrap_err().to_string();
        assert!(e.contains("`depth` must be 1 to 100 (not `0`)"), "{e}");
        assert!(ab.set("threads", "0").is_err());
        assert!(ab.set("hash", "70000").is_err());
        assert!(ab.set("time", "fast").is_err());
        // Found by the specs fuzz target: a time no Duration holds was a panic.
        assert_eq!(parse_duration("1e300s"), None);
        assert_eq!(parse_duration(&format!("{}ms", "7".repeat(50))), None);
        assert!(ab.set("time", "1e300s").is_err());
        // No budget: none (the engine's default depth, or a game's clock), one thread;
        // a time a turn takes the caller's threads unless told.
        let (cfg, limits) = AbSettings::default().finish(4);
        assert_eq!((limits, cfg.threads), (Limits::default(), 1));
        let mut timed = AbSettings::default();
        timed.set("time", "100ms").unwrap();
        assert_eq!(timed.clone().finish(4).0.threads, 4);
        timed.set("threads", "2").unwrap();
        assert_eq!(timed.finish(4).0.threads, 2);
        let (cfg, _) = ab.finish(4);
        assert_eq!(
            cfg.threads,
            AbConfig::default().threads,
            "a depth stays on one thread"
        );
    }
}
