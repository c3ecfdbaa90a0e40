//! A search's settings in one place: the MCTS constants ([`MctsConfig`]), the alpha-beta
//! search blended into leaf values ([`BlendConfig`]) and the tactical guard
//! ([`GuardConfig`]), with the project's two presets and one validator.
//!
//! - [`SearchSettings::player`]: what every `mcts:` player searches with unless its spec
//!   says otherwise, the values the experiments chose (each constant's documentation
//!   names the experiment).
//! - [`SearchSettings::selfplay`]: training's self-play, the plain search with root
//!   noise; `configs/tsivy.toml`'s `[selfplay]` keys map onto it.
//!
//! The player specs (`mcts:guard=4,ptemp=2`) and the training config
//! (`selfplay.guard = 4`) use the same names for the same fields, and both check their
//! values with [`SearchSettings::validate`].

use crate::{BlendConfig, GuardConfig, MctsConfig};
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

/// A setting out of its range: the setting's name (as specs and configs spell it) and
/// what it must be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key} must be {expected}")]
pub struct SettingsError {
    /// The setting, as `mcts:` specs and `[selfplay]` spell it.
    pub key: &'static str,
    /// Its range, in words.
    pub expected: String,
}

/// Everything a network-guided search is set with (the network, its evaluator and the
/// budget aside).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// The tree search's constants.
    pub mcts: MctsConfig,
    /// An alpha-beta search mixed into each leaf's value (`None`: the evaluator's alone).
    pub blend: Option<BlendConfig>,
    /// The tactical guard (`None`: every legal turn may be chosen).
    pub guard: Option<GuardConfig>,
}

impl SearchSettings {
    /// The players' preset for `variant`, on a clock (`timed`) or at a fixed number of
    /// simulations. Alpha-beta plays tsivy and dimy only: telo gets no blend and no guard.
    ///
    /// - The guard ([`GuardConfig::player`]) gains more at equal time than any other
    ///   change of the search (experiments/guard1, search9, search10).
    /// - The blend, [`PLAYER_BLEND_DEPTH`] turns, half of each leaf's value.
    /// - [`MctsConfig::player`]: minimax backups and flattened priors.
    pub fn player(variant: Variant, timed: bool) -> SearchSettings {
        SearchSettings {
            mcts: MctsConfig::player(),
            blend: BlendConfig::player(variant),
            guard: GuardConfig::player(variant, timed),
        }
    }

    /// Self-play's preset: [`MctsConfig::selfplay`], no blend, no guard.
    pub fn selfplay() -> SearchSettings {
        SearchSettings {
            mcts: MctsConfig::selfplay(),
            blend: None,
            guard: None,
        }
    }

    /// Checks every value against its range.
    ///
    /// # Errors
    /// The first setting out of range, by its name.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let bad = |key: &'static str, expected: &str| {
            Err(SettingsError {
                key,
                expected: expected.to_string(),
            })
        };
        let m = &self.mcts;
        if !(m.c_puct > 0.0 && m.c_puct.is_finite()) {
            return bad("c_puct", "an exploration constant above 0");
        }
        if !(0.0..=2.0).contains(&m.fpu_reduction) {
            return bad("fpu", "a first-play reduction from 0 to 2");
        }
        if !(m.dirichlet_alpha > 0.0 && m.dirichlet_alpha.is_finite()) {
            return bad("dirichlet_alpha", "above 0");
        }
        if !(0.0..=1.0).contains(&m.dirichlet_epsilon) {
            return bad("dirichlet_epsilon", "from 0 (no noise) to 1");
        }
        if !(1..=256).contains(&m.batch) {
            return bad("batch", "1 to 256 leaves a network call");
        }
        if m.gumbel.is_some_and(|g| g.max_actions < 2) {
            return bad("gumbel_actions", "at least 2");
        }
        if !(0.0..=100.0).contains(&m.forced_playouts) {
            return bad("forced_playouts", "from 0 (off) to 100 (KataGo: 2)");
        }
        if !(0.0..=1.0).contains(&m.minimax_weight) {
            return bad("minimax", "a weight from 0 (off) to 1");
        }
        if !MctsConfig::POLICY_TEMPERATURES.contains(&m.policy_temperature) {
            return bad(
                "ptemp",
                "a policy temperature from 0.1 to 10 (1 = the priors as given)",
            );
        }
        if let Some(b) = &self.blend {
            if !(1..=MAX_BLEND_DEPTH).contains(&b.depth) {
                return bad("blend", "an alpha-beta depth of 1 to 8, or 0 (off)");
            }
            if !(0.0..=1.0).contains(&b.weight) {
                return bad("blend_weight", "from 0 to 1");
            }
            if !(1.0..=100_000.0).contains(&b.scale) {
                return bad("blend_scale", "1 to 100000 hundredths of a piece");
            }
        }
        if let Some(g) = &self.guard {
            if !(2..=MAX_GUARD_DEPTH).contains(&g.depth) {
                return bad("guard", "an alpha-beta depth of 2 to 20, or 0 (off)");
            }
            if !(0..=100_000).contains(&g.margin) {
                return bad("guard_margin", "0 to 100000 hundredths of a piece");
            }
        }
        Ok(())
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

impl BlendConfig {
    /// The players' blend for `variant`: [`PLAYER_BLEND_DEPTH`] turns, half the value;
    /// none on telo.
    pub fn player(variant: Variant) -> Option<BlendConfig> {
        (variant != Variant::Telo).then(|| BlendConfig {
            depth: PLAYER_BLEND_DEPTH,
            ..BlendConfig::default()
        })
    }
}

impl GuardConfig {
    /// The players' guard for `variant` (none on telo):
    ///
    /// - On a clock (`timed`): as deep as its share of the turn's time allows, up to
    ///   [`MAX_GUARD_DEPTH`], and only the turns it scores best (margin 0): the network
    ///   breaks ties. In search10 at 50 ms a turn this scored 8.5 points more on tsivy
    ///   than letting the network choose within half a piece.
    /// - At a fixed number of simulations: [`SIMS_GUARD_DEPTH`] turns deep, within half a
    ///   piece of the best: with 400 simulations the network's choice among the sound
    ///   turns is worth more than alpha-beta's.
    pub fn player(variant: Variant, timed: bool) -> Option<GuardConfig> {
        if variant == Variant::Telo {
            return None;
        }
        Some(if timed {
            GuardConfig {
                depth: MAX_GUARD_DEPTH,
                margin: 0,
            }
        } else {
            GuardConfig {
                depth: SIMS_GUARD_DEPTH,
                ..GuardConfig::default()
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_presets_are_valid_and_differ_where_measured() {
        for variant in [Variant::Tsivy, Variant::Dimy, Variant::Telo] {
            for timed in [false, true] {
                SearchSettings::player(variant, timed).validate().unwrap();
            }
        }
        SearchSettings::selfplay().validate().unwrap();
        let p = SearchSettings::player(Variant::Tsivy, false);
        let s = SearchSettings::selfplay();
        assert_eq!(p.mcts.minimax_weight, 0.5);
        assert_eq!(p.mcts.policy_temperature, 3.0);
        assert_eq!(s.mcts.minimax_weight, 0.0);
        assert_eq!(s.mcts.policy_temperature, 1.0);
        assert!(s.mcts.dirichlet_epsilon > 0.0 && p.mcts.dirichlet_epsilon == 0.0);
        assert_eq!(p.guard.map(|g| (g.depth, g.margin)), Some((8, 50)));
        let timed = SearchSettings::player(Variant::Dimy, true);
        assert_eq!(timed.guard.map(|g| (g.depth, g.margin)), Some((20, 0)));
        assert_eq!(p.blend.map(|b| b.depth), Some(3));
        let telo = SearchSettings::player(Variant::Telo, true);
        assert!(telo.guard.is_none() && telo.blend.is_none());
        assert!(s.guard.is_none() && s.blend.is_none());
    }

    #[test]
    fn the_validator_names_the_setting() {
        type Spoil = fn(&mut SearchSettings);
        let cases: [(&str, Spoil); 9] = [
            ("c_puct", |s| s.mcts.c_puct = 0.0),
            ("fpu", |s| s.mcts.fpu_reduction = 3.0),
            ("minimax", |s| s.mcts.minimax_weight = 1.5),
            ("ptemp", |s| s.mcts.policy_temperature = 11.0),
            ("forced_playouts", |s| s.mcts.forced_playouts = -1.0),
            ("batch", |s| s.mcts.batch = 0),
            ("guard", |s| {
                s.guard = Some(GuardConfig {
                    depth: 1,
                    margin: 0,
                })
            }),
            ("guard_margin", |s| {
                s.guard = Some(GuardConfig {
                    depth: 4,
                    margin: -1,
                })
            }),
            ("blend_weight", |s| {
                s.blend = Some(BlendConfig {
                    weight: 2.0,
                    ..BlendConfig::default()
                })
            }),
        ];
        for (key, spoil) in cases {
            let mut s = SearchSettings::player(Variant::Tsivy, false);
            spoil(&mut s);
            let e = s.validate().unwrap_err();
            assert_eq!(e.key, key, "{e}");
            assert!(e.to_string().starts_with(key), "{e}");
        }
    }
}
