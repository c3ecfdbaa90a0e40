//! Network, evaluator, checkpoints and training step on the CPU backend.

use burn::prelude::*;
use fanorona_nn::checkpoint::{self, CheckpointMeta};
use fanorona_nn::{
    Batch, CheckpointError, MctsPlayer, NetConfig, NetEvaluator, OWNERSHIP_CLASSES, Trainer,
};
use fanorona_rules::{Game, History, Position, RuleOptions, Variant};
use fanorona_search::{Evaluator, Limits, MctsConfig, Outputs, Player};
use fanorona_sim::{Encode, num_planes};
use fanorona_testkit::scratch;

fn small(v: Variant) -> NetConfig {
    NetConfig::for_variant(v).with_blocks(1).with_channels(8)
}

fn meta(v: Variant, cfg: &NetConfig, generation: u64) -> CheckpointMeta {
    CheckpointMeta::new(v, cfg, generation, 7, Some("t"))
}

#[test]
fn evaluator_gives_legal_priors_and_wdl() {
    let device = Device::flex();
    let cfg = small(Variant::Tsivy);
    let mut e = NetEvaluator::new(cfg.init(&device).valid(), device, Variant::Tsivy, true, 1);
    let p = Position::start(Variant::Tsivy, RuleOptions::default());
    let mut q = p;
    let mut acts = Vec::new();
    q.legal_actions(&mut acts);
    q.apply(acts[0]);
    let mut lp = Vec::new();
    p.legal_actions(&mut lp);
    let mut lq = Vec::new();
    q.legal_actions(&mut lq);
    let mut priors = vec![Vec::new(), Vec::new()];
    let mut wdl = [[0.0; 3]; 2];
    e.evaluate(&[&p, &q], &[&lp, &lq], Outputs::new(&mut priors, &mut wdl));
    for (pr, l) in priors.iter().zip([&lp, &lq]) {
        assert_eq!(pr.len(), l.len());
        assert!((pr.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(pr.iter().all(|&x| x > 0.0));
    }
    for w in wdl {
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
    assert_eq!((e.calls, e.positions), (1, 2));
}

/// A stop between `save_with`'s two renames loses nothing: readers find the moved-aside
/// folder, and the writer's `recover` finishes the save (or undoes it when the new folder
/// was incomplete).
#[test]
fn a_save_stopped_between_its_renames_is_recovered() {
    let device = Device::flex();
    let cfg = small(Variant::Dimy);
    let net = cfg.init(&device);
    let run = scratch("interrupted");
    let gen_of = |p: &std::path::Path| checkpoint::read_meta(p).unwrap().generation;
    // Generation 1 was in place; the save of generation 2 into the same folder wrote its
    // `.tmp` and moved the old folder aside, then stopped.
    checkpoint::save(
        &run.join("00000"),
        &net,
        None,
        &meta(Variant::Dimy, &cfg, 1),
    )
    .unwrap();
    checkpoint::save(&run.join("x"), &net, None, &meta(Variant::Dimy, &cfg, 2)).unwrap();
    std::fs::rename(run.join("00000"), run.join("00000.old")).unwrap();
    std::fs::rename(run.join("x"), run.join("00000.tmp")).unwrap();
    let found = checkpoint::resolve(&run).unwrap();
    assert!(found.ends_with("00000.old"), "{}", found.display());
    assert_eq!(gen_of(&found), 1);
    assert_eq!(checkpoint::recover(&run).unwrap(), vec![run.join("00000")]);
    assert_eq!(gen_of(&checkpoint::resolve(&run).unwrap()), 2);
    assert!(!run.join("00000.old").exists() && !run.join("00000.tmp").exists());
    // Stopped before `meta.json` of the new folder was written: the old one comes back.
    std::fs::rename(run.join("00000"), run.join("00000.old")).unwrap();
    std::fs::create_dir(run.join("00000.tmp")).unwrap();
    std::fs::write(run.join("00000.tmp").join("model.bpk"), b"half").unwrap();
    assert_eq!(checkpoint::recover(&run).unwrap(), vec![run.join("00000")]);
    assert_eq!(gen_of(&checkpoint::resolve(&run).unwrap()), 2);
    // Stopped after the second rename: only the clean-up is left, nothing to restore.
    checkpoint::save(&run.join("y"), &net, None, &meta(Variant::Dimy, &cfg, 3)).unwrap();
    std::fs::rename(run.join("y"), run.join("00000.old")).unwrap();
    assert_eq!(gen_of(&checkpoint::resolve(&run).unwrap()), 2);
    assert!(checkpoint::recover(&run).unwrap().is_empty());
    assert!(!run.join("00000.old").exists());
    // A later save over the folder goes through.
    checkpoint::save(
        &run.join("00000"),
        &net,
        None,
        &meta(Variant::Dimy, &cfg, 4),
    )
    .unwrap();
    assert_eq!(gen_of(&checkpoint::resolve(&run).unwrap()), 4);
    std::fs::remove_dir_all(&run).ok();
}

#[test]
fn checkpoints_round_trip_and_refuse_bad_input() {
    let device = Device::flex();
    let cfg = small(Variant::Dimy);
    let net = cfg.init(&device);
    let run = scratch("ckpt");
    let dir = run.join("00001");
    checkpoint::save(&dir, &net, None, &meta(Variant::Dimy, &cfg, 1)).unwrap();
    assert!(
        !run.join("00001.tmp").exists(),
        "the temporary folder was renamed"
    );
    // Same outputs after loading.
    let p = Position::start(Variant::Dimy, RuleOptions::default());
    let mut planes = vec![0.0; num_planes(Variant::Dimy) * 25];
    p.encode(&mut planes);
    let out = |n: &fanorona_nn::Net| {
        let e = NetEvaluator::new(n.valid(), Device::flex(), Variant::Dimy, false, 0);
        e.forward_raw(planes.clone(), 1)
    };
    let (loaded, m, _) = checkpoint::load(&run, &device, Some(Variant::Dimy), Some(&cfg)).unwrap();
    assert_eq!(m.generation, 1);
    assert_eq!(out(&net), out(&loaded));
    // A later generation is found from the run folder.
    checkpoint::save(
        &run.join("00002"),
        &net,
        None,
        &meta(Variant::Dimy, &cfg, 2),
    )
    .unwrap();
    assert!(checkpoint::resolve(&run).unwrap().ends_with("00002"));
    // Another variant or size is refused.
    assert!(matches!(
        checkpoint::load(&run, &device, Some(Variant::Tsivy), None),
        Err(CheckpointError::Mismatch { .. })
    ));
    let bigger = cfg.clone().with_channels(16);
    assert!(matches!(
        checkpoint::load(&run, &device, None, Some(&bigger)),
        Err(CheckpointError::Mismatch { .. })
    ));
    // Damaged files are refused with a message, not a panic.
    std::fs::write(dir.join("model.bpk"), b"not a model").unwrap();
    let e = checkpoint::load(&dir, &device, None, None).unwrap_err();
    assert!(matches!(e, CheckpointError::Weights { .. }), "{e}");
    assert!(e.to_string().contains("model.bpk"), "{e}");
    std::fs::write(dir.join("meta.json"), b"{ nonsense").unwrap();
    assert!(matches!(
        checkpoint::load(&dir, &device, None, None),
        Err(CheckpointError::Meta { .. })
    ));
    assert!(matches!(
        checkpoint::load(&run.join("missing"), &device, None, None),
        Err(CheckpointError::Io { .. })
    ));
    let empty = scratch("empty");
    assert!(matches!(
        checkpoint::resolve(&empty),
        Err(CheckpointError::NotFound(_))
    ));
    std::fs::remove_dir_all(&run).ok();
    std::fs::remove_dir_all(&empty).ok();
}

/// Files that lie: a checkpoint's weights truncated at many lengths, flipped at many
/// bits, and its meta.json of a future format are each refused with an error naming
/// the file; never a panic, never other weights loaded.
#[test]
fn damaged_checkpoints_are_refused_naming_the_file() {
    let device = Device::flex();
    let cfg = small(Variant::Dimy);
    let run = scratch("lie");
    let dir = run.join("00001");
    checkpoint::save(
        &dir,
        &cfg.init(&device),
        None,
        &meta(Variant::Dimy, &cfg, 1),
    )
    .unwrap();
    assert!(dir.join(checkpoint::CHECKSUM_FILE).is_file());
    let model = dir.join("model.bpk");
    let good = std::fs::read(&model).unwrap();
    let refused = |what: &str| {
        let e = checkpoint::load(&dir, &device, None, None).unwrap_err();
        assert!(e.to_string().contains("model.bpk"), "{what}: {e}");
    };
    for len in [0, 1, good.len() / 3, good.len() / 2, good.len() - 1] {
        std::fs::write(&model, &good[..len]).unwrap();
        refused(&format!("truncated to {len}"));
    }
    // Bits across the file, the weights' bytes included (most flips there would load
    // as other weights without the checksum).
    for i in (0..good.len()).step_by(good.len() / 40 + 1) {
        let mut b = good.clone();
        b[i] ^= 1 << (i % 8);
        std::fs::write(&model, &b).unwrap();
        refused(&format!("bit {} of byte {i} flipped", i % 8));
    }
    std::fs::write(&model, &good).unwrap();
    checkpoint::load(&dir, &device, None, None).unwrap();
    let meta_path = dir.join("meta.json");
    let text = std::fs::read_to_string(&meta_path).unwrap();
    std::fs::write(
        &meta_path,
        text.replacen("\"format\": 1", "\"format\": 9", 1),
    )
    .unwrap();
    let e = checkpoint::load(&dir, &device, None, None).unwrap_err();
    assert!(
        e.to_string().contains("meta.json") && e.to_string().contains("format 9"),
        "{e}"
    );
    std::fs::remove_dir_all(&run).ok();
}

#[test]
fn training_lowers_the_loss_and_the_optimizer_is_saved() {
    let device = Device::flex();
    let cfg = small(Variant::Telo);
    let mut t = Trainer::new(cfg.init(&device), cfg.clone(), &device, 1e-4);
    // A fixed batch: the start position, policy on the centre, a win.
    let p = fanorona_rules::telo::TeloPosition::start(RuleOptions::default());
    let mut planes = vec![0.0; num_planes(Variant::Telo) * 9];
    p.encode(&mut planes);
    let n = 8;
    let mut policy = vec![0.0; n * 81];
    for i in 0..n {
        policy[i * 81 + 4] = 1.0;
    }
    let batch = Batch {
        planes: planes.repeat(n),
        policy,
        wdl: [1.0, 0.0, 0.0].repeat(n),
        n,
        ..Batch::default()
    };
    let first = t.step(&batch, 1e-2);
    let mut last = first;
    for _ in 0..30 {
        last = t.step(&batch, 1e-2);
    }
    assert!(last.policy < first.policy * 0.5, "{first:?} -> {last:?}");
    assert!(last.value < first.value * 0.5, "{first:?} -> {last:?}");
    assert_eq!(t.step, 31);
    let dir = scratch("optim").join("00003");
    checkpoint::save(
        &dir,
        &t.inference_net(),
        Some(&t.optimizer),
        &meta(Variant::Telo, &cfg, 3),
    )
    .unwrap();
    assert!(dir.join("optimizer.bpk").is_file());
    let fresh = Trainer::new(cfg.init(&device), cfg.clone(), &device, 1e-4);
    checkpoint::load_optimizer(&dir, fresh.optimizer).unwrap();
    std::fs::remove_dir_all(dir.parent().unwrap()).ok();
}

#[test]
fn the_ownership_head_trains_the_tower_and_round_trips() {
    let device = Device::flex();
    let v = Variant::Dimy;
    let cfg = small(v).with_ownership(true);
    let p = Position::start(v, RuleOptions::default());
    let mut planes = vec![0.0; num_planes(v) * 25];
    p.encode(&mut planes);
    // Two samples of the start position: the first with the start itself as its last
    // position, the second without a target.
    let n = 2;
    let mut own = vec![0i8; 25];
    p.ownership(p.to_move(), &mut own);
    let mut ownership = vec![0.0; n * OWNERSHIP_CLASSES * 25];
    for (q, &o) in own.iter().enumerate() {
        ownership[(o + 1) as usize * 25 + q] = 1.0;
    }
    let mut policy = vec![0.0; n * cfg.actions];
    policy[0] = 1.0;
    policy[cfg.actions] = 1.0;
    let batch = Batch {
        planes: planes.repeat(n),
        policy,
        wdl: [0.0, 1.0, 0.0].repeat(n),
        ownership,
        ownership_samples: 1,
        n,
    };
    let mut t =
        Trainer::new(cfg.init(&device), cfg.clone(), &device, 1e-4).with_ownership_weight(1.5);
    let first = t.step(&batch, 1e-2);
    // Three classes at random: about ln 3 a point.
    assert!((0.5..2.0).contains(&first.ownership), "{first:?}");
    let mut last = first;
    for _ in 0..30 {
        last = t.step(&batch, 1e-2);
    }
    assert!(
        last.ownership < first.ownership * 0.5,
        "{first:?} -> {last:?}"
    );
    // Inference is the same two heads; the saved network keeps its third.
    let net = t.inference_net();
    assert!(net.has_ownership());
    let run = scratch("ownership");
    checkpoint::save(&run.join("00001"), &net, None, &meta(v, &cfg, 1)).unwrap();
    let (loaded, m, _) = checkpoint::load(&run, &device, Some(v), Some(&cfg)).unwrap();
    assert!(m.net.ownership && loaded.has_ownership());
    let x = || {
        Tensor::<4>::from_data(
            TensorData::new(planes.clone(), [1, num_planes(v), 5, 5]),
            &device,
        )
    };
    let (_, _, a) = net.forward_with_ownership(x());
    let (_, _, b) = loaded.forward_with_ownership(x());
    a.unwrap()
        .into_data()
        .assert_approx_eq::<f32>(&b.unwrap().into_data(), Default::default());
    // A run without the head refuses the checkpoint by its shape.
    assert!(matches!(
        checkpoint::load(&run, &device, None, Some(&small(v))),
        Err(CheckpointError::Mismatch { .. })
    ));
    // Without a weight (or without a head) the head is not trained.
    let mut plain =
        Trainer::new(small(v).init(&device), small(v), &device, 1e-4).with_ownership_weight(1.5);
    assert!(plain.step(&batch, 1e-2).ownership.is_nan());
    let mut unweighted = Trainer::new(cfg.init(&device), cfg.clone(), &device, 1e-4);
    assert!(unweighted.step(&batch, 1e-2).ownership.is_nan());
    std::fs::remove_dir_all(&run).ok();
}

#[test]
fn checkpoints_from_before_the_ownership_head_load_without_one() {
    // meta.json as builds before the head wrote it: no `ownership` field.
    let device = Device::flex();
    let v = Variant::Dimy;
    let cfg = small(v);
    let run = scratch("old-meta");
    let dir = run.join("00001");
    checkpoint::save(&dir, &cfg.init(&device), None, &meta(v, &cfg, 1)).unwrap();
    let text = std::fs::read_to_string(dir.join("meta.json")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["net"]
        .as_object_mut()
        .unwrap()
        .remove("ownership")
        .expect("written now");
    std::fs::write(dir.join("meta.json"), json.to_string()).unwrap();
    let (net, m, _) = checkpoint::load(&dir, &device, Some(v), Some(&cfg)).unwrap();
    assert!(!m.net.ownership && !net.has_ownership());
    std::fs::remove_dir_all(&run).ok();
}

#[test]
fn mcts_player_plays_a_legal_turn() {
    let device = Device::flex();
    let cfg = small(Variant::Tsivy);
    let e = NetEvaluator::new(cfg.init(&device).valid(), device, Variant::Tsivy, false, 1);
    let mut player = MctsPlayer::new(e, MctsConfig::default(), Limits::sims(16), "mcts", 1);
    // A position where the turn is a chain: the player must finish it as one turn.
    let p = Position::from_fen("9/9/2B6/B8/W8 w", RuleOptions::default()).unwrap();
    let c = player.choose(&History::new(p));
    let t = c.turn.expect("a turn");
    assert!(p.turns(fanorona_rules::TurnMode::Paths).contains(&t));
    let start = Position::start(Variant::Tsivy, RuleOptions::default());
    assert!(player.choose(&History::new(start)).turn.is_some());
}

/// Positions from random games of `v` under `rules` (not over), every `stride`-th turn.
fn random_positions(v: Variant, rules: RuleOptions, seed: u64, count: usize) -> Vec<Position> {
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = Position::start(v, rules);
        while p.outcome().is_none() && out.len() < count {
            out.push(p);
            let turns = p.turns(fanorona_rules::TurnMode::Distinct);
            p.play_unchecked(&turns[rng.random_range(0..turns.len())]);
        }
    }
    out
}

/// The bug this guards against: a chain ended early (the end-turn action) was matched to
/// no turn, the player returned none, and the arena scored the game a draw.
#[test]
fn mcts_player_always_returns_a_legal_turn() {
    let device = Device::flex();
    let mut vela = RuleOptions::default();
    vela.set_pair("vela=white").unwrap();
    let cases = [
        (Variant::Tsivy, RuleOptions::default(), 1000),
        (Variant::Dimy, RuleOptions::default(), 1000),
        (Variant::Tsivy, vela, 500),
        (Variant::Dimy, vela, 500),
    ];
    let mut early_ends = 0;
    let mut chains = 0;
    for (i, (v, rules, n)) in cases.into_iter().enumerate() {
        let cfg = small(v);
        let e = NetEvaluator::new(cfg.init(&device).valid(), device.clone(), v, false, 1);
        let mut player =
            MctsPlayer::new(e, MctsConfig::default(), Limits::sims(8), "mcts", i as u64);
        for p in random_positions(v, rules, i as u64, n) {
            let t = player
                .choose(&History::new(p))
                .turn
                .unwrap_or_else(|| panic!("no turn in {}", p.fen()));
            assert!(
                p.turns(fanorona_rules::TurnMode::Paths).contains(&t),
                "illegal turn in {}",
                p.fen()
            );
            let acts = p.turn_actions(&t);
            if acts.len() > 1 {
                chains += 1;
            }
            if acts.last() == Some(&fanorona_rules::Action::EndTurn) {
                early_ends += 1;
            }
        }
    }
    // The cases the old matching got wrong did occur.
    assert!(early_ends > 20, "{early_ends} chains ended early");
    assert!(chains > early_ends, "{chains} chains");
}

#[test]
fn a_timed_mcts_player_searches_and_plays() {
    let device = Device::flex();
    let cfg = small(Variant::Dimy);
    let e = NetEvaluator::new(cfg.init(&device).valid(), device, Variant::Dimy, false, 1);
    let budget = Limits {
        time: Some(std::time::Duration::from_millis(30)),
        ..Limits::default()
    };
    let mut player = MctsPlayer::new(e, MctsConfig::default(), budget, "timed", 1);
    for p in random_positions(Variant::Dimy, RuleOptions::default(), 9, 20) {
        let c = player.choose(&History::new(p));
        let t = c.turn.expect("a turn");
        assert!(p.turns(fanorona_rules::TurnMode::Paths).contains(&t));
        // It searched at least the minimum before its clock stopped it.
        assert!(c.search.unwrap().nodes >= 8);
    }
    // A cap on simulations still binds under a clock.
    let e = NetEvaluator::new(
        cfg.init(&Device::flex()).valid(),
        Device::flex(),
        Variant::Dimy,
        false,
        1,
    );
    let budget = Limits {
        nodes: Some(16),
        time: Some(std::time::Duration::from_secs(60)),
        ..Limits::default()
    };
    let mut player = MctsPlayer::new(e, MctsConfig::default(), budget, "capped", 1);
    let start = Position::start(Variant::Dimy, RuleOptions::default());
    let c = player.choose(&History::new(start));
    assert!(c.search.unwrap().nodes <= 16 * 2);
}

/// The release networks committed under `checkpoints/release/` load as checkpoints (model
/// and meta.json only) and are found without naming them; a variant without one is an
/// error naming the places looked in.
#[test]
fn release_networks_are_found_and_load() {
    let device = Device::flex();
    // Dimy's is always there; tsivy's once one is released.
    assert!(checkpoint::release_dir(Variant::Dimy).is_ok());
    for v in [Variant::Dimy, Variant::Tsivy] {
        let Ok(dir) = checkpoint::release_dir(v) else {
            continue;
        };
        assert!(
            dir.ends_with(format!("checkpoints/release/{}", v.name())),
            "{}",
            dir.display()
        );
        let (_, meta, _) = checkpoint::load(&dir, &device, Some(v), None).unwrap();
        assert_eq!(meta.variant, v.name());
        // Small enough to commit: the model and meta.json, under 8 MB.
        let bytes: u64 = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        assert!(bytes < 8 << 20, "{bytes} bytes");
        assert!(!dir.join("optimizer.bpk").exists() && !dir.join("replay.bin").exists());
    }
    let e = CheckpointError::from(checkpoint::release_dir(Variant::Telo).unwrap_err());
    assert!(matches!(e, CheckpointError::NoRelease(_)));
    assert!(e.to_string().contains("checkpoints/release/telo"), "{e}");
}

/// The same seed draws the same network, another seed another one, whatever other tests
/// of this binary draw meanwhile.
#[test]
fn a_seeded_network_is_reproducible() {
    let device = Device::flex();
    let cfg = small(Variant::Dimy);
    let p = Position::start(Variant::Dimy, RuleOptions::default());
    let mut legal = Vec::new();
    p.legal_actions(&mut legal);
    let outputs = |net: fanorona_nn::Net| {
        let mut e = NetEvaluator::new(net.valid(), device.clone(), Variant::Dimy, false, 1);
        let mut priors = vec![Vec::new()];
        let mut wdl = [[0.0; 3]; 1];
        e.evaluate(&[&p], &[&legal], Outputs::new(&mut priors, &mut wdl));
        (priors.remove(0), wdl[0])
    };
    let a = outputs(cfg.init_seeded(&device, 7));
    let _unseeded = cfg.init(&device);
    let b = outputs(cfg.init_seeded(&device, 7));
    let c = outputs(cfg.init_seeded(&device, 8));
    assert_eq!(a, b);
    assert_ne!(a.0, c.0);
}
