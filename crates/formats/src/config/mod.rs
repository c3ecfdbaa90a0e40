//! The training configuration: one documented field per tunable, defaults beside them,
//! unknown keys rejected, `key=value` overrides, written back resolved into the run.

use fanorona_rules::{RuleOptions, Variant};
use serde::{Deserialize, Serialize};
use std::path::Path;

mod sections;

pub use sections::{
    BootstrapConfig, DistributedConfig, LoopConfig, NetSection, OptimConfig, RulesConfig,
    SelfPlayConfig, TreeConfig,
};

/// Everything a training run needs. Sections: `[rules]`, `[net]`, `[selfplay]`,
/// `[train]`, `[run]`, `[bootstrap]`; see `configs/*.toml` for the commented presets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// `tsivy`, `dimy` or `telo`.
    pub variant: String,
    /// Master seed: the network's first weights and every generation's random streams
    /// derive from it.
    pub seed: u64,
    /// Rule options.
    pub rules: RulesConfig,
    /// Network shape.
    pub net: NetSection,
    /// Self-play.
    pub selfplay: SelfPlayConfig,
    /// Optimisation.
    pub train: OptimConfig,
    /// The loop.
    pub run: LoopConfig,
    /// A warm start from the alpha-beta engine's games (off by default).
    pub bootstrap: BootstrapConfig,
    /// Self-play workers and a learner joined by object storage (`fanorona selfplay`,
    /// `fanorona learn`).
    pub distributed: DistributedConfig,
    /// Tree learning: a learned evaluation trained from every node of alpha-beta's
    /// self-play searches, instead of the network (off by default).
    pub tree: TreeConfig,
}

impl TrainConfig {
    /// Whether `other` trains the same thing: everything but the `[run]` limits, the
    /// `[distributed]` plumbing, `bootstrap.games` and `bootstrap.checkpoint_seconds` is
    /// equal.
    pub fn same_training(&self, other: &TrainConfig) -> bool {
        let mut o = other.clone();
        o.run = self.run.clone();
        o.distributed = self.distributed.clone();
        // How many teacher games the warm start plays may grow (it continues a run still
        // at generation 0; later it changes nothing), and how often it saves.
        o.bootstrap.games = self.bootstrap.games;
        o.bootstrap.checkpoint_seconds = self.bootstrap.checkpoint_seconds;
        // The network a new run starts from matters only before its first checkpoint (a
        // start that failed on a wrong path may be retried with the right one).
        o.train.init = self.train.init.clone();
        o.tree.init = self.tree.init.clone();
        o.tree.threads = self.tree.threads;
        o == *self
    }
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            variant: "tsivy".into(),
            seed: 1,
            rules: RulesConfig::default(),
            net: NetSection::default(),
            selfplay: SelfPlayConfig::default(),
            train: OptimConfig::default(),
            run: LoopConfig::default(),
            bootstrap: BootstrapConfig::default(),
            distributed: DistributedConfig::default(),
            tree: TreeConfig::default(),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("config `{path}`: {error}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        error: std::io::Error,
    },
    /// Not TOML, an unknown key, or a value of the wrong type.
    #[error("config `{path}`: {message}")]
    Parse {
        /// The file (or `--set`).
        path: String,
        /// What and where.
        message: String,
    },
    /// An override that is not `key=value`, or names no key.
    #[error("--set {}: {}", fanorona_rules::quote(.0), .1)]
    Override(String, String),
    /// A value out of range.
    #[error("config: {0}")]
    Invalid(String),
}

/// What a deleted key's value meant when it was off.
#[derive(Clone, Copy)]
enum Off {
    /// This value.
    At(&'static str),
    /// Any value did nothing by itself.
    Any,
    /// Off was leaving the key out: any value is an error.
    Unset,
}

/// Why the keys went, and the commit that still has them.
const MEASURED: &str =
    "deleted on 2026-12-02, measured as no help (docs/RESULTS.md); commit ba10c4c still has it";
const UNMEASURED: &str =
    "deleted on 2026-12-07, never measured by a run (issue 98); commit 32c5351 still has it";

/// Keys deleted, with the value that meant "off" and why they went. Resolved configs of
/// older runs hold them off.
const DELETED: &[(&str, &str, Off, &str)] = &[
    ("selfplay", "pipeline", Off::At("false"), MEASURED),
    ("selfplay", "free_chain_steps", Off::At("false"), MEASURED),
    ("selfplay", "pass_forced", Off::At("false"), MEASURED),
    ("bootstrap", "soft_temperature", Off::At("0"), MEASURED),
    ("bootstrap", "sibling_values", Off::At("0"), MEASURED),
    ("train", "teacher_share", Off::At("0"), MEASURED),
    ("train", "teacher_window", Off::Any, MEASURED),
    ("tree", "half_life", Off::At("0"), UNMEASURED),
    ("tree", "teacher_share", Off::Unset, UNMEASURED),
];

/// Removes the [`DELETED`] keys that are off; one that is on is an error naming it.
fn drop_deleted(table: &mut toml::Table) -> Result<(), ConfigError> {
    let same = |a: &toml::Value, b: &str| match (a, b.parse::<f64>()) {
        (toml::Value::Integer(i), Ok(f)) => *i as f64 == f,
        (toml::Value::Float(x), Ok(f)) => *x == f,
        (toml::Value::Boolean(x), _) => x.to_string() == b,
        _ => false,
    };
    for &(section, key, off, why) in DELETED {
        let Some(t) = table.get_mut(section).and_then(toml::Value::as_table_mut) else {
            continue;
        };
        let Some(v) = t.remove(key) else { continue };
        let on = match off {
            Off::At(off) => !same(&v, off),
            Off::Any => false,
            Off::Unset => true,
        };
        if on {
            return Err(ConfigError::Invalid(format!(
                "{section}.{key} = {}: {why}",
                fanorona_rules::cut(&v.to_string())
            )));
        }
    }
    Ok(())
}

/// `configs/tsivy.toml`, built in: the project's best known recipe for tsivy, which
/// `fanorona train` runs when no config file is named.
pub const DEFAULT_CONFIG: &str = include_str!("../../../../configs/tsivy.toml");

/// The name errors give [`DEFAULT_CONFIG`].
pub const DEFAULT_CONFIG_NAME: &str = "configs/tsivy.toml (built in)";

impl TrainConfig {
    /// Reads a config file (or, with `None`, the built-in [`DEFAULT_CONFIG`]), applies
    /// `key=value` overrides (dotted keys: `selfplay.sims=400`) and checks the result.
    ///
    /// # Errors
    /// A missing file, bad TOML, an unknown key, a bad override or value.
    pub fn load(path: Option<&Path>, overrides: &[String]) -> Result<TrainConfig, ConfigError> {
        match path {
            Some(p) => {
                let name = p.display().to_string();
                let text = std::fs::read_to_string(p).map_err(|error| ConfigError::Io {
                    path: name.clone(),
                    error,
                })?;
                TrainConfig::parse(&name, &text, overrides)
            }
            None => TrainConfig::parse(DEFAULT_CONFIG_NAME, DEFAULT_CONFIG, overrides),
        }
    }

    /// A config from the TOML `text` (named `name` in errors; keys it does not set take
    /// the built-in defaults of [`TrainConfig::default`]) with `key=value` overrides,
    /// checked.
    ///
    /// # Errors
    /// Bad TOML, an unknown key, a bad override or value.
    pub fn parse(name: &str, text: &str, overrides: &[String]) -> Result<TrainConfig, ConfigError> {
        let mut table: toml::Table = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: name.to_string(),
            message: toml_message(text, &e),
        })?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        drop_deleted(&mut table)?;
        let cfg: TrainConfig =
            toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| ConfigError::Parse {
                    path: name.to_string(),
                    message: fanorona_rules::cut(e.message()).to_string(),
                })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks ranges.
    ///
    /// # Errors
    /// The first value out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: &str| Err(ConfigError::Invalid(m.to_string()));
        if self.variant.parse::<Variant>().is_err() {
            return bad(&format!(
                "variant {} is not tsivy, dimy or telo",
                fanorona_rules::quote(&self.variant)
            ));
        }
        let mut rules = RuleOptions::default();
        for (key, value) in [
            ("vela", &self.rules.vela),
            ("vela_form", &self.rules.vela_form),
        ] {
            if let Err(e) = rules.set(key, value) {
                return bad(&format!("rules: {e}"));
            }
        }
        if rules.vela.is_some() && self.variant == "telo" {
            return bad("rules.vela: telo has no vela");
        }
        let s = &self.selfplay;
        if s.games_in_flight == 0 || s.games_per_generation == 0 || s.sims == 0 {
            return bad(
                "selfplay.games_in_flight, games_per_generation and sims must be at least 1",
            );
        }
        if !(0.0..=1.0).contains(&s.full_search_prob)
            || !(0.0..=1.0).contains(&s.resign_check_share)
            || !(0.0..=1.0).contains(&s.draw_value)
            || !(0.0..=1.0).contains(&s.value_q_weight)
        {
            return bad(
                "selfplay.full_search_prob, resign_check_share, draw_value and value_q_weight must be between 0 and 1",
            );
        }
        // The search's settings: one validator with the players' specs.
        if let Err(e) = s.search.validate(self.variant()) {
            return bad(&format!("selfplay.{e}"));
        }
        if !s.tablebases.is_empty() && self.variant == "telo" {
            return bad("selfplay.tablebases: endgame tables are for tsivy and dimy, not telo");
        }
        if !s.ab_eval.is_empty() && s.search.blend == 0 && s.search.guard == 0 {
            return bad(
                "selfplay.ab_eval: a learned evaluation for the alpha-beta searches needs selfplay.blend or selfplay.guard above 0",
            );
        }
        if s.draw_value > 0.0 && s.draw_decisions == 0 {
            return bad("selfplay.draw_decisions must be at least 1 when draw_value is set");
        }
        if s.opening_turns > 100 {
            return bad("selfplay.opening_turns must be at most 100");
        }
        if !s.book.is_empty() && self.variant == "telo" {
            return bad("selfplay.book: books hold tsivy and dimy positions, not telo");
        }
        let b = &self.bootstrap;
        if !b.ab_eval.is_empty() && b.games == 0 {
            return bad(
                "bootstrap.ab_eval: a learned evaluation for the teacher needs a warm start (bootstrap.games above 0)",
            );
        }
        if b.games > 0 {
            if self.variant == "telo" {
                return bad(
                    "bootstrap.games: the alpha-beta engine plays tsivy and dimy, not telo",
                );
            }
            if b.depth == 0 || b.depth > 12 {
                return bad("bootstrap.depth must be 1 to 12");
            }
            if !(0.0..1.0).contains(&b.explore)
                || !(0.0..=100.0).contains(&b.epochs)
                || b.epochs == 0.0
            {
                return bad(
                    "bootstrap.explore must be at least 0 and below 1, bootstrap.epochs above 0 and at most 100",
                );
            }
            if !(0.0..=1.0).contains(&b.score_weight) || b.opening_turns > 100 {
                return bad(
                    "bootstrap.score_weight must be 0 to 1, bootstrap.opening_turns at most 100",
                );
            }
        }
        let t = &self.train;
        if t.batch_size == 0 || t.replay_window < t.batch_size || t.lr <= 0.0 || t.lr_final <= 0.0 {
            return bad("train.batch_size >= 1, replay_window >= batch_size, lr and lr_final > 0");
        }
        if !(0.0..=10.0).contains(&t.ownership_weight) {
            return bad("train.ownership_weight must be 0 (no ownership head) to 10 (KataGo: 1.5)");
        }
        let tr = &self.tree;
        if tr.enabled() {
            if tr.method != "treestrap" && tr.method != "descent" {
                return bad(&format!(
                    "tree.method {} is not treestrap or descent (or empty: no tree learning)",
                    fanorona_rules::quote(&tr.method)
                ));
            }
            if tr.method == "descent" && tr.iterations == 0 {
                return bad("tree.iterations must be at least 1");
            }
            if self.variant == "telo" {
                return bad("tree.method: alpha-beta plays tsivy and dimy, not telo");
            }
            if !(1..=12).contains(&tr.depth)
                || tr.label_depth == 0
                || (tr.method == "treestrap" && tr.label_depth > tr.depth)
            {
                return bad(
                    "tree.depth must be 1 to 12 and tree.label_depth at least 1 (treestrap: at most tree.depth)",
                );
            }
            if tr.outcome_positions > 1000 || (tr.outcome_positions > 0 && tr.method != "treestrap")
            {
                return bad(
                    "tree.outcome_positions must be 0 to 1000, with tree.method = treestrap",
                );
            }
            if tr.deep_gap > 8
                || tr.depth + tr.deep_gap > 16
                || tr.deep_positions > 1000
                || ((tr.deep_gap > 0 || tr.deep_positions > 0) && tr.method != "treestrap")
            {
                return bad(
                    "tree.deep_gap must be 0 to 8 (tree.depth + tree.deep_gap at most 16) and tree.deep_positions 0 to 1000, with tree.method = treestrap",
                );
            }
            if self.run.curve_minutes > 0
                && (self.run.curve_games < 2 || !(1..=12).contains(&self.run.curve_depth))
            {
                return bad("run.curve_games must be at least 2 and run.curve_depth 1 to 12");
            }
            if self.run.curve_minutes > 0
                && self.net.positions > 0
                && (self.run.curve_net_games < 2 || self.run.curve_sims == 0)
            {
                return bad("run.curve_net_games must be at least 2 and run.curve_sims at least 1");
            }
            if !(1..=1024).contains(&tr.hidden) || tr.games == 0 || tr.opening_turns > 100 {
                return bad(
                    "tree.hidden must be 1 to 1024, tree.games at least 1, tree.opening_turns at most 100",
                );
            }
        }
        let d = &self.distributed;
        if !(d.poll_seconds > 0.0 && d.poll_seconds <= 3600.0) {
            return bad("distributed.poll_seconds must be above 0 and at most 3600");
        }
        if d.teacher_gap > 8 || self.tree.depth + d.teacher_gap > 16 {
            return bad(
                "distributed.teacher_gap must be 0 to 8 (tree.depth + distributed.teacher_gap at most 16)",
            );
        }
        let n = &self.net;
        if n.blocks == 0 || n.channels == 0 {
            return bad("net.blocks and net.channels must be at least 1");
        }
        if n.positions > 0 {
            if tr.method != "treestrap" || n.positions > 1000 {
                return bad(
                    "net.positions must be 0 to 1000, with tree.method = treestrap (the network learns from alpha-beta's games)",
                );
            }
            if n.lr.is_nan()
                || n.lr <= 0.0
                || n.window < t.batch_size
                || !(n.train_ratio > 0.0 && n.train_ratio <= 100.0)
                || !(0.0..=1.0).contains(&n.score_weight)
            {
                return bad(
                    "net.lr must be above 0, net.window at least train.batch_size, net.train_ratio above 0 and at most 100, net.score_weight 0 to 1",
                );
            }
        }
        Ok(())
    }

    /// The network's own configuration in a tree run that trains one (`net.positions`
    /// above 0): this one with `[net]`'s learning rate (the schedule scaled with it),
    /// window and ratio in `[train]`, and no tree learning (`train.init` starts a new
    /// run's network from a checkpoint's, as `tree.init` its evaluation). `None`: the run trains no
    /// network beside its evaluation.
    pub fn tree_network(&self) -> Option<TrainConfig> {
        if !self.tree.enabled() || self.net.positions == 0 {
            return None;
        }
        let mut c = self.clone();
        c.train.lr = self.net.lr;
        c.train.lr_final = self.train.lr_final * self.net.lr / self.train.lr;
        c.train.replay_window = self.net.window;
        c.train.train_ratio = self.net.train_ratio;
        c.tree = TreeConfig::default();
        Some(c)
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant.parse().expect("validated")
    }

    /// The rule options.
    pub fn rule_options(&self) -> RuleOptions {
        let mut rules = RuleOptions {
            reply_chains: self.rules.reply_chains,
            quiet_limit: (self.rules.quiet_limit > 0).then_some(self.rules.quiet_limit),
            repetition_draw: self.rules.repetition_draw,
            ..RuleOptions::default()
        };
        rules
            .set("vela", &self.rules.vela)
            .and_then(|()| rules.set("vela_form", &self.rules.vela_form))
            .expect("validated");
        rules
    }

    /// The resolved configuration as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("the config serialises")
    }

    /// The learning rate for a generation that starts after `generation` generations and
    /// `seconds` of the run's clock: cosine decay from `lr` to `lr_final` over
    /// `lr_decay_seconds` of the clock, or over `lr_decay_generations` when that is 0.
    pub fn lr_at(&self, generation: u64, seconds: f64) -> f64 {
        let t = &self.train;
        let x = if t.lr_decay_seconds > 0 {
            seconds.max(0.0) / t.lr_decay_seconds as f64
        } else {
            generation as f64 / t.lr_decay_generations.max(1) as f64
        };
        let x = x.min(1.0);
        t.lr_final + 0.5 * (t.lr - t.lr_final) * (1.0 + (std::f64::consts::PI * x).cos())
    }
}

/// A TOML error in `text` as a short message: where (line and column) and what, the
/// input not repeated past a few words (the parser's own message shows the whole line).
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let what = fanorona_rules::cut(e.message());
    match e.span() {
        Some(span) => {
            let before = &text.as_bytes()[..span.start.min(text.len())];
            let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
            let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
            format!("line {line}, column {column}: {what}")
        }
        None => what.to_string(),
    }
}

fn apply_override(table: &mut toml::Table, o: &str) -> Result<(), ConfigError> {
    let (key, value) = o
        .split_once('=')
        .ok_or_else(|| ConfigError::Override(o.into(), "expected key=value".into()))?;
    let parts: Vec<&str> = key.trim().split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(ConfigError::Override(o.into(), "empty key".into()));
    }
    // The value as TOML (numbers, booleans, quoted strings), else as a bare string.
    let v: toml::Value = toml::from_str::<toml::Table>(&format!("v = {}", value.trim()))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.trim().to_string()));
    let mut t = table;
    for p in &parts[..parts.len() - 1] {
        let entry = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = entry.as_table_mut().ok_or_else(|| {
            ConfigError::Override(
                o.into(),
                format!("{} is not a section", fanorona_rules::quote(p)),
            )
        })?;
    }
    t.insert(parts[parts.len() - 1].to_string(), v);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_overrides_and_errors() {
        // No file: the built-in recipe, configs/tsivy.toml, which sets every key.
        let recipe = TrainConfig::load(None, &[]).unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/tsivy.toml");
        assert_eq!(recipe, TrainConfig::load(Some(&path), &[]).unwrap());
        assert_eq!(recipe.variant(), Variant::Tsivy);
        // From nothing: no warm start, no evaluation to start from, a network beside.
        assert!(recipe.tree.enabled() && recipe.tree.init.is_empty() && recipe.net.positions > 0);
        assert!(recipe.bootstrap.games == 0 && recipe.selfplay.ab_eval.is_empty());
        // The built-in defaults below it: an empty file.
        let c = TrainConfig::parse("<empty>", "", &[]).unwrap();
        assert_eq!(c, TrainConfig::default());
        let c = TrainConfig::parse(
            "<empty>",
            "",
            &[
                "selfplay.sims=64".into(),
                "variant=dimy".into(),
                "train.lr=0.01".into(),
            ],
        )
        .unwrap();
        assert_eq!(c.selfplay.sims, 64);
        assert_eq!(c.variant(), Variant::Dimy);
        assert_eq!(c.train.lr, 0.01);
        let e = TrainConfig::load(None, &["selfplay.simz=64".into()]).unwrap_err();
        assert!(e.to_string().contains(DEFAULT_CONFIG_NAME), "{e}");
        assert!(e.to_string().contains("simz"), "{e}");
        let e = TrainConfig::load(None, &["selfplay.sims=lots".into()]).unwrap_err();
        assert!(
            e.to_string().contains("sims") || e.to_string().contains("lots"),
            "{e}"
        );
        assert!(TrainConfig::load(None, &["variant=chess".into()]).is_err());
        assert!(TrainConfig::load(None, &["nokey".into()]).is_err());
        // The warm start: engine games for tsivy and dimy only, sane settings.
        let ok = |set: &[&str]| {
            let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
            TrainConfig::parse("<empty>", "", &set)
        };
        assert!(ok(&["variant=dimy", "bootstrap.games=100"]).is_ok());
        for bad in [
            &["variant=telo", "bootstrap.games=100"][..],
            &["bootstrap.games=100", "bootstrap.depth=0"],
            &["bootstrap.games=100", "bootstrap.explore=1.0"],
            &["bootstrap.games=100", "bootstrap.epochs=0"],
            &["bootstrap.games=100", "bootstrap.epochs=nan"],
            &["bootstrap.games=100", "bootstrap.score_weight=1.5"],
            &["bootstrap.games=100", "bootstrap.opening_turns=1000"],
        ] {
            let e = ok(bad).unwrap_err();
            assert!(e.to_string().contains("bootstrap"), "{bad:?}: {e}");
        }
        // Deleted keys: an old run's resolved config (default values) still reads; a
        // value that asks for the deleted behaviour is an error naming key and commit.
        assert!(ok(&["selfplay.pipeline=false", "train.teacher_window=5"]).is_ok());
        for bad in ["selfplay.pipeline=true", "train.teacher_share=0.25"] {
            let e = ok(&[bad]).unwrap_err().to_string();
            let key = bad.split('=').next().unwrap();
            assert!(e.contains(key) && e.contains("ba10c4c"), "{e}");
        }
        assert!(ok(&["tree.half_life=0"]).is_ok());
        for bad in ["tree.half_life=2000", "tree.teacher_share=0.5"] {
            let e = ok(&[bad]).unwrap_err().to_string();
            let key = bad.split('=').next().unwrap();
            assert!(e.contains(key) && e.contains("32c5351"), "{e}");
        }
        assert!(ok(&["selfplay.minimax=0.3"]).is_ok());
        // The names before 2026-12-02 still read (resolved configs of older runs).
        assert_eq!(
            ok(&["selfplay.minimax_weight=0.3"])
                .unwrap()
                .selfplay
                .search
                .minimax,
            0.3
        );
        for bad in ["selfplay.minimax=1.5", "selfplay.minimax=-0.1"] {
            let e = ok(&[bad]).unwrap_err();
            assert!(e.to_string().contains("selfplay.minimax"), "{bad}: {e}");
        }
        assert!(ok(&["selfplay.ptemp=3"]).is_ok());
        assert_eq!(
            ok(&["selfplay.policy_temperature=3"])
                .unwrap()
                .selfplay
                .search
                .ptemp,
            3.0
        );
        for bad in ["selfplay.ptemp=0", "selfplay.ptemp=11", "selfplay.ptemp=-1"] {
            let e = ok(&[bad]).unwrap_err();
            assert!(e.to_string().contains("selfplay.ptemp"), "{bad}: {e}");
        }
        assert!(ok(&["selfplay.opening_turns=8"]).is_ok());
        let e = ok(&["selfplay.opening_turns=1000"]).unwrap_err();
        assert!(e.to_string().contains("selfplay.opening_turns"), "{e}");
        assert!(ok(&["variant=dimy", "selfplay.book=b.fen"]).is_ok());
        let e = ok(&["variant=telo", "selfplay.book=b.fen"]).unwrap_err();
        assert!(e.to_string().contains("selfplay.book"), "{e}");
        // Round trip through the resolved TOML.
        let text = c.to_toml();
        let back: TrainConfig = toml::from_str(&text).unwrap();
        assert_eq!(back, c);
        // The learning-rate schedule.
        assert!((c.lr_at(0, 0.0) - c.train.lr).abs() < 1e-12);
        let end = c.train.lr_decay_generations;
        assert!((c.lr_at(end, 0.0) - c.train.lr_final).abs() < 1e-12);
        assert!((c.lr_at(end / 2, 1e9) - (c.train.lr + c.train.lr_final) / 2.0).abs() < 1e-12);
        // Over the run's clock instead: generations no longer count.
        let mut timed = c.clone();
        timed.train.lr_decay_seconds = 3600;
        assert!((timed.lr_at(1000, 0.0) - c.train.lr).abs() < 1e-12);
        assert!((timed.lr_at(0, 1800.0) - (c.train.lr + c.train.lr_final) / 2.0).abs() < 1e-12);
        assert!((timed.lr_at(0, 3600.0) - c.train.lr_final).abs() < 1e-12);
        assert!((timed.lr_at(0, 1e9) - c.train.lr_final).abs() < 1e-12);
        assert!(timed.lr_at(0, 900.0) > timed.lr_at(0, 2700.0));
    }
}
