//! The `mcts` players of the one player factory ([`fanorona_players::EngineSpec`]): the
//! network of a spec's `ckpt=` on a device, with the learned evaluation of its guard's
//! and blend's alpha-beta searches. Everything else about specs (parsing, the release
//! folders, evaluations, books, tables) is `fanorona_players`', which has no burn.

pub use fanorona_players::spec::*;

use crate::{MctsPlayer, NetConfig, NetEvaluator, checkpoint};
use burn::module::Module;
use burn::prelude::Device;
use fanorona_rules::Variant;
use fanorona_rules::telo::TeloPosition;
use fanorona_search::{LearnedEval, Limits, Player};
use std::sync::Arc;

type Result<T> = std::result::Result<T, SpecError>;

fn input_err(e: impl std::fmt::Display) -> SpecError {
    SpecError(e.to_string())
}

/// The networks of `mcts` specs on a device: what the front ends with burn pass to
/// [`EngineSpec::player`].
#[derive(Clone, Debug)]
pub struct Nets {
    device: Device,
}

impl Nets {
    /// `mcts` players whose networks run on `device`.
    pub fn on(device: &Device) -> Nets {
        Nets {
            device: device.clone(),
        }
    }
}

impl Networks for Nets {
    fn mcts_player(
        &self,
        spec: &EngineSpec,
        name: &str,
        variant: Variant,
    ) -> Result<Box<dyn Player>> {
        let EngineSpec::Mcts {
            sims,
            time,
            seed,
            reuse,
            tb,
            ..
        } = spec
        else {
            return Err(SpecError("not an mcts engine".into()));
        };
        let settings = spec.settings(variant)?;
        let learned = ab_eval(spec, variant)?;
        let tables = tb.load(variant)?;
        let eval = evaluator(spec, variant, &self.device)?;
        let budget = Limits {
            nodes: Some((*sims).into()),
            time: *time,
            ..Limits::default()
        };
        let player = MctsPlayer::new(eval, settings.mcts(), budget, name, *seed)
            .with_reuse(*reuse)
            .with_ab_eval(learned)
            .with_tables(tables)
            .with_guard(settings.guard());
        Ok(Box::new(match settings.blend() {
            Some(b) => player.with_blend(b),
            None => player,
        }))
    }

    fn search_telo(
        &self,
        spec: &EngineSpec,
        pos: &TeloPosition,
    ) -> Result<(Option<usize>, [f32; 3], u32)> {
        let EngineSpec::Mcts {
            sims, time, seed, ..
        } = spec
        else {
            return Err(SpecError("not an mcts engine".into()));
        };
        let settings = spec.settings(Variant::Telo)?;
        let eval = evaluator(spec, Variant::Telo, &self.device)?;
        let budget = Limits {
            nodes: Some((*sims).into()),
            time: *time,
            ..Limits::default()
        };
        Ok(fanorona_search::search_telo(
            eval,
            settings.mcts(),
            budget,
            *seed,
            pos,
        ))
    }
}

/// The learned evaluation of an `mcts` spec's alpha-beta searches, for `variant`
/// (`None`: the hand-written one; see [`AbEvalSource`]).
///
/// # Errors
/// A named file that cannot be used, or a network folder's that cannot.
pub fn ab_eval(spec: &EngineSpec, variant: Variant) -> Result<Option<Arc<LearnedEval>>> {
    let EngineSpec::Mcts { ckpt, ab_eval, .. } = spec else {
        return Ok(None);
    };
    match ab_eval {
        AbEvalSource::Off => Ok(None),
        AbEvalSource::File(p) => load_learned(p, variant).map(Some),
        AbEvalSource::Default => {
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
pub fn evaluator(spec: &EngineSpec, variant: Variant, device: &Device) -> Result<NetEvaluator> {
    let EngineSpec::Mcts { ckpt, seed, .. } = spec else {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_network_brings_its_learned_evaluation() {
        for variant in [Variant::Tsivy, Variant::Dimy] {
            let spec = EngineSpec::parse("mcts:sims=8").unwrap();
            let e = ab_eval(&spec, variant)
                .unwrap()
                .expect("the release folder's eval.txt");
            assert_eq!(e.variant(), variant);
            let named = EngineSpec::parse("mcts:sims=8,ab_eval=release").unwrap();
            assert_eq!(ab_eval(&named, variant).unwrap(), Some(e));
            for off in ["mcts:sims=8,ab_eval=none", "mcts:ckpt=none,sims=8"] {
                let spec = EngineSpec::parse(off).unwrap();
                assert_eq!(ab_eval(&spec, variant).unwrap(), None, "{off}");
            }
        }
    }

    #[test]
    fn the_bare_network_has_no_alpha_beta_evaluation() {
        let network = EngineSpec::network(NetSource::Release, 1);
        assert_eq!(ab_eval(&network, Variant::Tsivy).unwrap(), None);
    }
}
