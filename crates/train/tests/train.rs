//! The training loop end to end on a tiny config: checkpoints, metrics, records, resume.

use fanorona_nn::burn::prelude::Device;
use fanorona_testkit::scratch;
use fanorona_train::records::{read_games, read_samples};
use fanorona_train::{Quiet, RunOptions, RunState, TrainConfig, TrainError, train};
use std::path::Path;

fn tiny(variant: &str, generations: u64) -> TrainConfig {
    let set: Vec<String> = [
        format!("variant={variant}"),
        "net.blocks=1".into(),
        "net.channels=8".into(),
        "selfplay.games_in_flight=4".into(),
        "selfplay.games_per_generation=4".into(),
        "selfplay.sims=8".into(),
        "selfplay.max_decisions=80".into(),
        "train.batch_size=16".into(),
        "train.min_replay=16".into(),
        "train.replay_window=1000".into(),
        format!("run.generations={generations}"),
    ]
    .into();
    TrainConfig::parse("<defaults>", "", &set).unwrap()
}

/// [`tiny`] with a warm start of 4 games of `ab:depth=1`, one pass.
fn tiny_warm(variant: &str, generations: u64) -> TrainConfig {
    let mut cfg = tiny(variant, generations);
    cfg.bootstrap.games = 4;
    cfg.bootstrap.depth = 1;
    cfg.bootstrap.epochs = 1.0;
    cfg
}

fn options(cfg: TrainConfig, root: &Path, run: &str) -> RunOptions {
    RunOptions {
        config: cfg,
        run: run.into(),
        checkpoints_root: root.join("checkpoints"),
        experiments_root: root.join("experiments"),
        device: Device::flex(),
    }
}

fn state(dir: &Path) -> RunState {
    RunState::read(dir).unwrap()
}

#[test]
fn a_bootstrapped_run_learns_from_the_engine_first_and_only_once() {
    let root = scratch("bootstrap");
    let mut cfg = tiny_warm("dimy", 1);
    let mut log = Vec::<String>::new();
    let s = train(&options(cfg.clone(), &root, "b"), &mut log).unwrap();
    assert_eq!(s.state.generation, 1);
    assert!(
        log.iter()
            .any(|m| m.starts_with("bootstrap: 4 games of ab:depth=1")),
        "{:?}",
        log
    );
    // Checkpoint 0 holds the network trained on the engine's games, and its window.
    let ck = root.join("checkpoints/b");
    let zero = state(&ck.join("00000"));
    assert_eq!(zero.generation, 0);
    assert_eq!(zero.games, 0, "engine games are not self-play games");
    assert!(zero.samples > 0 && zero.steps > 0, "{zero:?}");
    // Self-play then adds its own samples on top (with `train.overlap`, generation 1's
    // are trained while generation 2 plays).
    assert!(s.state.samples > zero.samples && s.state.steps >= zero.steps);
    assert_eq!(s.state.games, 4);
    // Resuming goes on from generation 1 without playing the engine's games again.
    cfg.run.generations = 2;
    let mut log = Vec::<String>::new();
    let s2 = train(&options(cfg, &root, "b"), &mut log).unwrap();
    assert_eq!(s2.state.generation, 2);
    assert_eq!(s2.state.games, 8);
    assert!(!log.iter().any(|m| m.starts_with("bootstrap")), "{:?}", log);
    assert!(s2.state.steps > zero.steps);
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn a_run_still_at_its_warm_start_continues_it_with_more_games() {
    let root = scratch("more");
    let mut cfg = tiny_warm("dimy", 1);
    cfg.bootstrap.games = 32;
    train(&options(cfg.clone(), &root, "m"), &mut Quiet).unwrap();
    let ck = root.join("checkpoints/m");
    let first = state(&ck.join("00000"));
    assert_eq!(first.bootstrap_games, Some(32));
    // As if the run had stopped after its warm start (`run.max_seconds`, or the machine).
    std::fs::remove_dir_all(ck.join("00001")).unwrap();
    // Asking for more games (a change the run accepts) plays games 32 to 40 on the same
    // network, then goes on with self-play.
    cfg.bootstrap.games = 40;
    let mut log = Vec::<String>::new();
    let s = train(&options(cfg.clone(), &root, "m"), &mut log).unwrap();
    for line in [
        "continuing the warm start: games 32 to 40",
        "bootstrap: 8 games of ab:depth=1 (games 32 to 40)",
    ] {
        assert!(log.iter().any(|m| m.starts_with(line)), "{line}: {:?}", log);
    }
    let zero = state(&ck.join("00000"));
    assert_eq!(zero.bootstrap_games, Some(40));
    assert_eq!(zero.generation, 0);
    assert!(
        zero.samples > first.samples && zero.steps > first.steps,
        "{zero:?}"
    );
    assert!(zero.seconds >= first.seconds);
    assert_eq!(s.state.generation, 1);
    // Done: resuming again does not go back to the engine.
    cfg.run.generations = 2;
    let mut log = Vec::<String>::new();
    train(&options(cfg, &root, "m"), &mut log).unwrap();
    assert!(
        !log.iter()
            .any(|m| m.starts_with("bootstrap") || m.starts_with("continuing")),
        "{:?}",
        log
    );
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn the_warm_start_trains_as_the_games_arrive_and_takes_the_steps_it_owes() {
    let root = scratch("warm");
    let zero = |overlap: bool| {
        let mut cfg = tiny("dimy", 1);
        // Two chunks of games (32 a chunk), so that training starts before the last.
        cfg.bootstrap.games = 40;
        cfg.bootstrap.depth = 1;
        cfg.bootstrap.epochs = 1.5;
        cfg.bootstrap.overlap = overlap;
        let run = format!("w{overlap}");
        let mut log = Vec::<String>::new();
        train(&options(cfg, &root, &run), &mut log).unwrap();
        let zero = state(&root.join("checkpoints").join(&run).join("00000"));
        (zero, log)
    };
    let (streamed, log) = zero(true);
    let (batched, _) = zero(false);
    // The same engine games either way, and ceil(1.5 passes) of 16-sample batches.
    assert!(streamed.samples > 0);
    assert_eq!(streamed.samples, batched.samples);
    let owed = (1.5 * streamed.samples as f64 / 16.0).ceil() as u64;
    assert_eq!(streamed.steps, owed, "{log:?}");
    assert_eq!(batched.steps, owed);
    assert!(
        log.iter()
            .any(|m| m.starts_with(&format!("bootstrap: {owed} steps, done in"))),
        "{log:?}"
    );
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn runs_checkpoints_and_resumes() {
    let root = scratch("resume");
    let s = train(&options(tiny("dimy", 2), &root, "r"), &mut Quiet).unwrap();
    assert_eq!(s.state.generation, 2);
    assert_eq!(s.state.games, 8);
    let ck = root.join("checkpoints/r");
    for g in ["00001", "00002"] {
        for f in ["meta.json", "model.bpk", "optimizer.bpk", "state.json"] {
            assert!(ck.join(g).join(f).is_file(), "{g}/{f}");
        }
    }
    // Only the newest checkpoint keeps the replay window, and it reads back.
    assert!(!ck.join("00001/replay.bin").exists());
    let window = read_samples(&ck.join("00002/replay.bin"), fanorona_rules::Variant::Dimy).unwrap();
    assert_eq!(window.len() as u64, s.state.samples);
    assert!(
        window
            .iter()
            .all(|x| (x.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-6)
    );
    // Metrics in JSON lines and TensorBoard events, the resolved config, the games.
    let exp = root.join("experiments/r");
    let metrics = std::fs::read_to_string(exp.join("metrics.jsonl")).unwrap();
    for tag in [
        "loss/policy",
        "loss/value",
        "policy/entropy",
        "value/accuracy",
        "selfplay/games_per_second",
        "selfplay/simulations_per_second",
        "selfplay/evaluations_per_second",
        "selfplay/game_length",
        "selfplay/draw_rate",
        "selfplay/distinct_openings",
    ] {
        assert!(
            metrics.contains(&format!("\"tag\":\"{tag}\"")),
            "{tag} missing"
        );
    }
    assert!(std::fs::read_dir(exp.join("tb")).unwrap().count() >= 1);
    let resolved: TrainConfig =
        toml::from_str(&std::fs::read_to_string(exp.join("config.toml")).unwrap()).unwrap();
    assert_eq!(resolved, tiny("dimy", 2));
    let (games, bad) = read_games(&exp.join("games/00002.jsonl")).unwrap();
    assert_eq!((games.len(), bad.len()), (4, 0));
    // Each checkpoint holds its generation's metrics; a run killed between the checkpoint
    // and the metrics line writes the line when it resumes, once.
    assert!(ck.join("00002/metrics.json").is_file());
    let lines = |step: u64| {
        std::fs::read_to_string(exp.join("metrics.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"train/lr\"") && l.contains(&format!("\"step\":{step},")))
            .count()
    };
    assert_eq!(lines(2), 1);
    let kept: String = metrics
        .lines()
        .filter(|l| !l.contains("\"step\":2,"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(exp.join("metrics.jsonl"), kept).unwrap();
    assert_eq!(lines(2), 0);
    // Resume: the same run with a later limit continues from the checkpoint's counters.
    let s = train(&options(tiny("dimy", 3), &root, "r"), &mut Quiet).unwrap();
    assert_eq!((lines(2), lines(3)), (1, 1));
    assert_eq!(s.state.generation, 3);
    assert_eq!(s.state.games, 12);
    let st = state(&ck.join("00003"));
    assert_eq!(st, s.state);
    assert!(st.steps > state(&ck.join("00002")).steps);
    // Another configuration under the same run name is refused.
    let mut other = tiny("dimy", 4);
    other.selfplay.sims = 9;
    assert!(matches!(
        train(&options(other, &root, "r"), &mut Quiet),
        Err(TrainError::ConfigChanged(..))
    ));
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn a_damaged_replay_window_is_reported_not_used() {
    let root = scratch("damaged");
    train(&options(tiny("telo", 1), &root, "d"), &mut Quiet).unwrap();
    let rb = root.join("checkpoints/d/00001/replay.bin");
    let mut bytes = std::fs::read(&rb).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xFF;
    std::fs::write(&rb, bytes).unwrap();
    let mut c: Vec<String> = Vec::new();
    let s = train(&options(tiny("telo", 2), &root, "d"), &mut c).unwrap();
    assert_eq!(s.state.generation, 2);
    assert!(
        c.iter()
            .any(|l| l.contains("replay.bin") && l.contains("damaged")),
        "{:?}",
        c
    );
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn trains_the_vela_kely_game_on_dimy() {
    let root = scratch("vela");
    let set: Vec<String> = [
        "variant=dimy",
        "rules.vela=black",
        "rules.vela_form=kely",
        "net.blocks=1",
        "net.channels=8",
        "selfplay.games_in_flight=4",
        "selfplay.games_per_generation=4",
        "selfplay.sims=8",
        "selfplay.max_decisions=80",
        "train.batch_size=16",
        "train.min_replay=16",
        "train.replay_window=1000",
        "run.generations=2",
    ]
    .map(String::from)
    .into();
    let cfg = TrainConfig::parse("<defaults>", "", &set).unwrap();
    let rules = cfg.rule_options();
    assert_eq!(rules.vela, Some(fanorona_rules::Color::Black));
    assert_eq!(rules.vela_form, fanorona_rules::VelaForm::Kely);
    let s = train(&options(cfg, &root, "v"), &mut Quiet).unwrap();
    assert_eq!(s.state.generation, 2);
    assert!(s.state.steps > 0, "the second generation trained");
    // The first sample of the first game is the vela kely start, Black (the vela player)
    // to move with White's back row gone.
    let start = fanorona_rules::Position::start(fanorona_rules::Variant::Dimy, rules);
    assert_eq!(start.pieces(fanorona_rules::Color::White).count(), 7);
    let mut planes = vec![0.0; fanorona_sim::num_planes(start.variant()) * 25];
    fanorona_sim::Encode::encode(&start, &mut planes);
    let window = read_samples(
        &root.join("checkpoints/v/00002/replay.bin"),
        fanorona_rules::Variant::Dimy,
    )
    .unwrap();
    assert_eq!(window[0].planes, planes);
    // Bad vela settings are refused with the key named.
    for bad in ["rules.vela=green", "rules.vela_form=petit"] {
        let e = TrainConfig::parse("<defaults>", "", &[bad.to_string()]).unwrap_err();
        assert!(e.to_string().contains("vela"), "{e}");
    }
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn trains_in_turn_without_overlap() {
    // train.overlap=false: every generation trains on its own samples at once.
    let root = scratch("sequential");
    let mut cfg = tiny("dimy", 1);
    cfg.train.overlap = false;
    let s = train(&options(cfg, &root, "s"), &mut Quiet).unwrap();
    assert!(s.state.steps > 0);
    assert_eq!(s.state.untrained_samples, 0);
    // With overlap, the first generation leaves its samples to the next one.
    let s = train(&options(tiny("dimy", 1), &root, "o"), &mut Quiet).unwrap();
    assert_eq!(s.state.steps, 0);
    assert_eq!(s.state.untrained_samples, s.state.samples);
    std::fs::remove_dir_all(&root).ok();
}

fn eval_on_cpu(net: &fanorona_nn::Net, device: &Device) -> bool {
    fanorona_nn::NetEvaluator::new(
        net.clone(),
        device.clone(),
        fanorona_rules::Variant::Dimy,
        false,
        1,
    )
    .on_cpu()
}

#[test]
fn self_play_workers_play_the_games_one_worker_plays() {
    // selfplay.workers=3: game n goes to worker n % 3, each on a thread of its own with
    // its own copy of the network. A game's seed is its number and (without random
    // symmetries) each search sees the same evaluations, so the games are those of one
    // worker, come back in the order of their numbers whichever finished first, and a
    // run is reproducible; the caller's evaluator counts the workers' calls.
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&tiny("dimy", 1)).init(&device);
    let play = |workers: usize, games: usize| {
        let mut cfg = tiny("dimy", 1);
        cfg.selfplay.workers = workers;
        cfg.selfplay.games_in_flight = 6;
        let mut eval =
            fanorona_nn::NetEvaluator::new(net.clone(), device.clone(), cfg.variant(), false, 7);
        let start = fanorona_rules::Position::start(cfg.variant(), cfg.rule_options());
        let mut seen = Vec::new();
        let (g, stats) = fanorona_train::selfplay::play(
            &[(start, None)],
            &cfg,
            &mut eval,
            &Default::default(),
            games,
            1,
            7,
            &mut |n| seen.push(n),
        );
        assert_eq!(
            seen,
            (1..=games).collect::<Vec<_>>(),
            "progress counts each game once"
        );
        assert_eq!((eval.calls, eval.positions), (stats.calls, stats.evals));
        assert_eq!(stats.games, games as u64);
        let actions: Vec<Vec<u16>> = g.iter().map(|f| f.record.actions.clone()).collect();
        (actions, stats)
    };
    let (one, one_stats) = play(1, 14);
    let (three, three_stats) = play(3, 14);
    assert!(one.iter().all(|g| !g.is_empty()));
    let sorted = |mut v: Vec<Vec<u16>>| {
        v.sort();
        v
    };
    assert_eq!(sorted(one.clone()), sorted(three.clone()));
    assert_eq!(one_stats.evals, three_stats.evals);
    assert_eq!(one_stats.decisions, three_stats.decisions);
    // Each worker's calls hold its own games' leaves only.
    assert!(three_stats.calls > one_stats.calls);
    // In the order of the games' numbers, every time.
    assert_eq!(play(3, 14).0, three);
    // More workers than games: one a game.
    assert_eq!(sorted(play(8, 2).0), sorted(play(1, 2).0));
    // Automatic: one a core on the CPU, one on a GPU.
    let c = TrainConfig::default();
    assert_eq!(c.selfplay.worker_count(true), rayon::current_num_threads());
    assert_eq!(c.selfplay.worker_count(false), 1);
    assert!(eval_on_cpu(&net, &device));
}

#[test]
fn drawish_searches_adjudicate_a_draw_and_check_games_measure_it() {
    // selfplay.draw_value=p, draw_decisions=k: k decisions in a row whose search gives a
    // draw at least p end the game as a draw, except in the check games
    // (resign_check_share), which are played out and counted.
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&tiny("dimy", 1)).init(&device);
    let play = |draw_value: f32, check: f32| {
        let mut cfg = tiny("dimy", 1);
        cfg.selfplay.draw_value = draw_value;
        cfg.selfplay.draw_decisions = 3;
        cfg.selfplay.resign_check_share = check;
        cfg.validate().unwrap();
        let mut eval =
            fanorona_nn::NetEvaluator::new(net.clone(), device.clone(), cfg.variant(), false, 7);
        let start = fanorona_rules::Position::start(cfg.variant(), cfg.rule_options());
        fanorona_train::selfplay::play(
            &[(start, None)],
            &cfg,
            &mut eval,
            &Default::default(),
            4,
            1,
            7,
            &mut |_| {},
        )
    };
    // An untrained network always gives a draw some probability: every game ends at its
    // third search, a sample but no move.
    let (games, stats) = play(1e-6, 0.0);
    assert_eq!(stats.adjudicated, 4);
    for g in &games {
        assert_eq!(g.record.actions.len(), 2);
        assert_eq!(g.samples.len(), 3);
        assert_eq!(g.record.result, "draw");
        assert!(g.samples.iter().all(|s| s.wdl[1] == 1.0));
    }
    // Check games are played out to the end and measured instead.
    let (games, stats) = play(1e-6, 1.0);
    assert_eq!((stats.adjudicated, stats.draw_checks), (0, 4));
    let not_drawn = games.iter().filter(|g| g.record.result != "draw").count() as u64;
    assert_eq!(stats.draw_false, not_drawn);
    assert!(games.iter().all(|g| g.record.actions.len() > 3));
    // Off: nothing adjudicated, the same games as the check games.
    let (off, stats) = play(0.0, 1.0);
    assert_eq!((stats.adjudicated, stats.draw_checks), (0, 0));
    let actions = |v: &[fanorona_train::selfplay::FinishedGame]| {
        v.iter()
            .map(|g| g.record.actions.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(actions(&off), actions(&games));
    let e =
        TrainConfig::parse("<defaults>", "", &["selfplay.draw_value=2".to_string()]).unwrap_err();
    assert!(e.to_string().contains("draw_value"), "{e}");
}

#[test]
fn value_targets_mix_the_result_with_the_search() {
    // selfplay.value_q_weight=w: each sample's target is (1 - w) of the game's result for
    // the mover plus w of the root search's win/draw/loss, so still a distribution.
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&tiny("dimy", 1)).init(&device);
    let play = |w: f32| {
        let mut cfg = tiny("dimy", 1);
        cfg.selfplay.value_q_weight = w;
        let mut eval =
            fanorona_nn::NetEvaluator::new(net.clone(), device.clone(), cfg.variant(), false, 7);
        let start = fanorona_rules::Position::start(cfg.variant(), cfg.rule_options());
        fanorona_train::selfplay::play(
            &[(start, None)],
            &cfg,
            &mut eval,
            &Default::default(),
            4,
            1,
            7,
            &mut |_| {},
        )
    };
    let (pure, _) = play(0.0);
    let (mixed, _) = play(0.5);
    assert_eq!(pure.len(), mixed.len());
    for (p, m) in pure.iter().zip(&mixed) {
        // Same seeds, same games: only the targets differ.
        assert_eq!(p.record.actions, m.record.actions);
        for (a, b) in p.samples.iter().zip(&m.samples) {
            let result = a
                .wdl
                .iter()
                .position(|&x| x == 1.0)
                .expect("one-hot result");
            assert_eq!(a.wdl.iter().sum::<f32>(), 1.0);
            assert!(
                (b.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5,
                "{:?}",
                b.wdl
            );
            assert!(b.wdl[result] >= 0.5 - 1e-6, "{:?} from {:?}", b.wdl, a.wdl);
            assert!(b.wdl.iter().all(|x| (0.0..=1.0).contains(x)));
        }
    }
    // The search is not certain of every result: some targets are soft.
    let soft = mixed
        .iter()
        .flat_map(|g| &g.samples)
        .filter(|s| s.wdl.iter().all(|&x| x < 1.0 - 1e-6))
        .count();
    assert!(soft > 0);
    let e = TrainConfig::parse(
        "<defaults>",
        "",
        &["selfplay.value_q_weight=1.5".to_string()],
    )
    .unwrap_err();
    assert!(e.to_string().contains("value_q_weight"), "{e}");
}

#[test]
fn blended_self_play_searches_with_alpha_beta_values() {
    // selfplay.blend=1: leaf values are half the network's, half a one-turn
    // alpha-beta search's. Same seeds and network, so every difference in the searches'
    // policies comes from the blended values.
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&tiny("dimy", 1)).init(&device);
    let play = |depth: u32| {
        let mut cfg = tiny("dimy", 1);
        cfg.selfplay.search.blend = depth;
        let mut eval =
            fanorona_nn::NetEvaluator::new(net.clone(), device.clone(), cfg.variant(), false, 7);
        let start = fanorona_rules::Position::start(cfg.variant(), cfg.rule_options());
        fanorona_train::selfplay::play(
            &[(start, None)],
            &cfg,
            &mut eval,
            &Default::default(),
            4,
            1,
            7,
            &mut |_| {},
        )
    };
    let (pure, _) = play(0);
    let (blended, _) = play(1);
    assert_eq!(blended.len(), 4);
    let policies = |games: &[fanorona_train::selfplay::FinishedGame]| {
        games
            .iter()
            .flat_map(|g| g.samples.iter().map(|s| s.policy.clone()))
            .collect::<Vec<_>>()
    };
    let (p, b) = (policies(&pure), policies(&blended));
    assert!(!b.is_empty());
    for policy in &b {
        let sum: f32 = policy.iter().map(|&(_, x)| x).sum();
        assert!((sum - 1.0).abs() < 1e-4, "{policy:?}");
    }
    assert_ne!(p, b, "the blended values changed no search");
    for (set, want) in [
        ("selfplay.blend=9", "selfplay.blend"),
        ("selfplay.blend_depth=9", "selfplay.blend"),
        ("selfplay.blend_weight=2", "selfplay.blend_weight"),
    ] {
        let set = [set.to_string(), "selfplay.blend=1".to_string()];
        let set = if set[0].starts_with("selfplay.blend_weight") {
            &set[..]
        } else {
            &set[..1]
        };
        let e = TrainConfig::parse("<defaults>", "", set).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
    }
    let e = TrainConfig::parse(
        "<defaults>",
        "",
        &["variant=telo".to_string(), "selfplay.blend=1".to_string()],
    )
    .unwrap_err();
    assert!(e.to_string().contains("telo"), "{e}");
}

#[test]
fn self_play_searches_with_a_learned_evaluation_when_one_is_named() {
    // selfplay.ab_eval=FILE: the blend's (and the guard's) alpha-beta searches score
    // their leaves with the learned evaluation, so the same seeds search differently;
    // each self-play thread keeps its engine between calls, and must not keep one made
    // with another evaluation.
    let release = |v: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../checkpoints/release/{v}/eval.txt"))
    };
    let learned =
        fanorona_search::LearnedEval::read(&release("dimy"), fanorona_rules::Variant::Dimy)
            .unwrap();
    let learned = std::sync::Arc::new(learned);
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&tiny("dimy", 1)).init(&device);
    let play = |ab_eval: &fanorona_train::selfplay::AbLearned| {
        let mut cfg = tiny("dimy", 1);
        cfg.selfplay.search.blend = 2;
        cfg.selfplay.search.blend_weight = 1.0;
        // One worker: the searches run on the caller's pool, whose thread outlives a call.
        cfg.selfplay.workers = 1;
        let mut eval =
            fanorona_nn::NetEvaluator::new(net.clone(), device.clone(), cfg.variant(), false, 7);
        let start = fanorona_rules::Position::start(cfg.variant(), cfg.rule_options());
        let (games, _) = fanorona_train::selfplay::play(
            &[(start, None)],
            &cfg,
            &mut eval,
            &fanorona_train::selfplay::Aids {
                learned: ab_eval.clone(),
                tables: None,
            },
            4,
            1,
            7,
            &mut |_| {},
        );
        games
            .iter()
            .flat_map(|g| g.samples.iter().map(|s| s.policy.clone()))
            .collect::<Vec<_>>()
    };
    // One thread of its own, so that the searches (whose tables outlive a leaf) come in
    // the same order each time, and no other test's engine is on it.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    pool.install(|| {
        let hand = play(&None);
        let with = play(&Some(learned.clone()));
        assert!(!with.is_empty());
        assert_ne!(hand, with, "the learned evaluation changed no search");
        assert_eq!(play(&None), hand, "a thread kept the learned evaluation");
        assert_eq!(play(&Some(learned.clone())), with);
    });

    // Without a search to use it, the key is an error; a missing file or another
    // board's evaluation stops the run before it plays, naming the key and the file.
    let e = TrainConfig::parse("<defaults>", "", &["selfplay.ab_eval=eval.txt".to_string()])
        .unwrap_err();
    assert!(e.to_string().contains("selfplay.ab_eval"), "{e}");
    let root = scratch("ab-eval");
    let mut cfg = tiny("dimy", 1);
    cfg.selfplay.search.blend = 1;
    cfg.selfplay.ab_eval = root.join("nope.txt").display().to_string();
    let e = train(&options(cfg.clone(), &root, "m"), &mut Quiet).unwrap_err();
    assert!(matches!(e, TrainError::Eval(_)), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("selfplay.ab_eval") && msg.contains("nope.txt"),
        "{msg}"
    );
    cfg.selfplay.ab_eval = release("tsivy").display().to_string();
    let e = train(&options(cfg.clone(), &root, "t"), &mut Quiet).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("selfplay.ab_eval") && msg.contains("tsivy"),
        "{msg}"
    );
    // The right board's file runs.
    cfg.selfplay.ab_eval = release("dimy").display().to_string();
    let s = train(&options(cfg, &root, "d"), &mut Quiet).unwrap();
    assert_eq!(s.state.generation, 1);

    // bootstrap.ab_eval, the warm start's teacher: the same checks, and a warm start
    // with the right board's file runs (the bootstrap module's tests show what it changes).
    let e = TrainConfig::parse(
        "<defaults>",
        "",
        &["bootstrap.ab_eval=eval.txt".to_string()],
    )
    .unwrap_err();
    assert!(e.to_string().contains("bootstrap.ab_eval"), "{e}");
    let mut cfg = tiny("dimy", 1);
    cfg.bootstrap.games = 2;
    cfg.bootstrap.depth = 1;
    cfg.bootstrap.ab_eval = release("tsivy").display().to_string();
    let e = train(&options(cfg.clone(), &root, "bt"), &mut Quiet).unwrap_err();
    assert!(matches!(e, TrainError::Eval(_)), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("bootstrap.ab_eval") && msg.contains("tsivy"),
        "{msg}"
    );
    cfg.bootstrap.ab_eval = release("dimy").display().to_string();
    let s = train(&options(cfg.clone(), &root, "bd"), &mut Quiet).unwrap();
    assert_eq!(s.state.generation, 1);
    assert_eq!(s.state.bootstrap_games, Some(2));
    // Every checkpoint carries the evaluation the run searched with, so that
    // `mcts:ckpt=RUN` plays with it; `release` names the release folder's.
    let want = std::fs::read(release("dimy")).unwrap();
    for g in ["00000", "00001"] {
        let got = std::fs::read(root.join("checkpoints/bd").join(g).join("eval.txt")).unwrap();
        assert_eq!(got, want, "checkpoint {g}");
    }
    cfg.bootstrap.ab_eval = "release".into();
    train(&options(cfg, &root, "br"), &mut Quiet).unwrap();
    let got = std::fs::read(root.join("checkpoints/br/00001/eval.txt")).unwrap();
    assert_eq!(got, want);
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn forced_playouts_change_the_self_play_searches_and_targets_stay_distributions() {
    // selfplay.forced_playouts=2: every root child is searched at least sqrt(2 P N)
    // times and the targets are pruned of those visits (the search crate's tests check
    // both); here: the option reaches the search, and the pruned targets are still
    // probability distributions over legal turns.
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&tiny("dimy", 1)).init(&device);
    let play = |k: f32| {
        let mut cfg = tiny("dimy", 1);
        cfg.selfplay.sims = 48;
        cfg.selfplay.search.forced_playouts = k;
        let mut eval =
            fanorona_nn::NetEvaluator::new(net.clone(), device.clone(), cfg.variant(), false, 7);
        let start = fanorona_rules::Position::start(cfg.variant(), cfg.rule_options());
        fanorona_train::selfplay::play(
            &[(start, None)],
            &cfg,
            &mut eval,
            &Default::default(),
            4,
            1,
            7,
            &mut |_| {},
        )
    };
    let policies = |games: &[fanorona_train::selfplay::FinishedGame]| {
        games
            .iter()
            .flat_map(|g| g.samples.iter().map(|s| s.policy.clone()))
            .collect::<Vec<_>>()
    };
    let (plain, _) = play(0.0);
    let (forced, _) = play(2.0);
    assert_eq!(forced.len(), 4);
    let (p, f) = (policies(&plain), policies(&forced));
    assert!(!f.is_empty());
    for policy in &f {
        let sum: f32 = policy.iter().map(|&(_, x)| x).sum();
        assert!((sum - 1.0).abs() < 1e-4, "{policy:?}");
        assert!(policy.iter().all(|&(_, x)| x > 0.0), "{policy:?}");
    }
    assert_ne!(p, f, "forced playouts changed no search");
    let e = TrainConfig::parse(
        "<defaults>",
        "",
        &["selfplay.forced_playouts=-1".to_string()],
    )
    .unwrap_err();
    assert!(e.to_string().contains("forced_playouts"), "{e}");
}

#[test]
fn self_play_games_open_with_random_turns_that_are_recorded_but_not_learned() {
    // selfplay.opening_turns=N: each game first plays 0 to N uniformly random turns. They
    // are in the record (which still replays from the start position) but make no
    // samples: the first sample is the position the opening reached, at a turn boundary.
    use fanorona_rules::Game;
    use fanorona_sim::Encode;
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&tiny("dimy", 1)).init(&device);
    let play = |turns: u32| {
        let mut cfg = tiny("dimy", 1);
        cfg.selfplay.opening_turns = turns;
        let mut eval =
            fanorona_nn::NetEvaluator::new(net.clone(), device.clone(), cfg.variant(), false, 7);
        let start = fanorona_rules::Position::start(cfg.variant(), cfg.rule_options());
        let (games, _) = fanorona_train::selfplay::play(
            &[(start, None)],
            &cfg,
            &mut eval,
            &Default::default(),
            8,
            1,
            11,
            &mut |_| {},
        );
        (start, games)
    };
    let (_, plain) = play(0);
    for g in &plain {
        assert_eq!(
            g.samples.len(),
            g.record.actions.len(),
            "every decision searched"
        );
    }
    let (start, opened) = play(6);
    assert_eq!(opened.len(), 8);
    let mut openings = 0;
    for g in &opened {
        let actions = &g.record.actions;
        assert_eq!(actions.len(), g.record.moves.len());
        assert!(g.samples.len() <= actions.len());
        let opening = actions.len() - g.samples.len();
        // The whole record replays legally from the start.
        let mut pos = start;
        let mut legal = Vec::new();
        for (i, &a) in actions.iter().enumerate() {
            if i == opening {
                let mut planes = vec![0.0; g.samples[0].planes.len()];
                pos.encode(&mut planes);
                assert_eq!(
                    planes, g.samples[0].planes,
                    "first sample after the opening"
                );
            }
            pos.legal_actions(&mut legal);
            assert!(legal.contains(&(a as usize)), "action {i} of {actions:?}");
            assert_eq!(pos.action_name(a as usize), g.record.moves[i]);
            let mover = pos.to_move();
            pos.apply(a as usize);
            if i + 1 == opening {
                assert_ne!(pos.to_move(), mover, "the opening ends with a whole turn");
            }
        }
        if opening > 0 {
            openings += 1;
        }
    }
    // Some of 8 games drew a random opening (each draws 0 to 6 turns).
    assert!(openings > 0);
}

#[test]
fn self_play_samples_hold_the_last_position_as_each_mover_sees_it() {
    use fanorona_rules::Game;
    use fanorona_sim::Encode;
    let device = Device::flex();
    let cfg = tiny("dimy", 1);
    let net = fanorona_train::learner::net_config(&cfg).init(&device);
    let mut eval = fanorona_nn::NetEvaluator::new(net, device, cfg.variant(), false, 7);
    let start = fanorona_rules::Position::start(cfg.variant(), cfg.rule_options());
    let (games, _) = fanorona_train::selfplay::play(
        &[(start, None)],
        &cfg,
        &mut eval,
        &Default::default(),
        4,
        1,
        5,
        &mut |_| {},
    );
    assert_eq!(games.len(), 4);
    for g in &games {
        // No opening: a sample a decision, in the record's order.
        assert_eq!(g.samples.len(), g.record.actions.len());
        let mut pos = start;
        let mut movers = Vec::new();
        for &a in &g.record.actions {
            movers.push(pos.to_move());
            pos.apply(a as usize);
        }
        for (s, mover) in g.samples.iter().zip(movers) {
            let mut want = vec![0i8; 25];
            pos.ownership(mover, &mut want);
            assert_eq!(s.ownership, want);
        }
    }
}

#[test]
fn an_ownership_head_trains_from_the_warm_start_on_and_resumes() {
    let root = scratch("ownership");
    let mut cfg = tiny_warm("dimy", 1);
    cfg.train.ownership_weight = 1.5;
    let mut log = Vec::<String>::new();
    train(&options(cfg.clone(), &root, "o"), &mut log).unwrap();
    // The warm start's progress shows the ownership loss beside the other two.
    assert!(
        log.iter()
            .any(|m| m.starts_with("bootstrap: step") && m.contains(" o ")),
        "{:?}",
        log
    );
    let ck = root.join("checkpoints/o");
    // Both checkpoints have the head; the window's samples all have a target (the engine's
    // games and self-play's), each a value a point.
    for g in ["00000", "00001"] {
        let meta: fanorona_nn::CheckpointMeta =
            serde_json::from_str(&std::fs::read_to_string(ck.join(g).join("meta.json")).unwrap())
                .unwrap();
        assert!(meta.net.ownership, "{g}");
    }
    let window = read_samples(&ck.join("00001/replay.bin"), fanorona_rules::Variant::Dimy).unwrap();
    assert!(!window.is_empty());
    assert!(window.iter().all(|s| s.ownership.len() == 25));
    // The run resumes with its head; a network without one is not it.
    cfg.run.generations = 2;
    let s = train(&options(cfg.clone(), &root, "o"), &mut Quiet).unwrap();
    assert_eq!(s.state.generation, 2);
    // Its loss is logged (generation 1's samples train during generation 2), a finite
    // number.
    let metrics = std::fs::read_to_string(root.join("experiments/o/metrics.jsonl")).unwrap();
    let line = metrics
        .lines()
        .find(|l| l.contains("\"tag\":\"loss/ownership\""))
        .expect("loss/ownership logged");
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert!(v["value"].as_f64().unwrap().is_finite(), "{line}");
    let (net, _, _) = fanorona_nn::checkpoint::load(&ck, &Device::flex(), None, None).unwrap();
    assert!(net.has_ownership());
    let plain = fanorona_train::learner::net_config(&tiny("dimy", 1));
    assert!(fanorona_nn::checkpoint::load(&ck, &Device::flex(), None, Some(&plain)).is_err());
    let e = TrainConfig::parse("<defaults>", "", &["train.ownership_weight=-1".to_string()])
        .unwrap_err();
    assert!(e.to_string().contains("ownership_weight"), "{e}");
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn self_play_starts_from_the_positions_of_its_book() {
    // selfplay.book: every game begins at one of the book's positions, its record names
    // that position (FEN) and replays from it, and the first sample is that position.
    use fanorona_rules::{Game, Position, RuleOptions, TurnMode, Variant};
    use fanorona_sim::Encode;
    use std::collections::HashSet;
    let root = scratch("book");
    let mut book = Vec::new();
    let mut pos = Position::start(Variant::Dimy, RuleOptions::default());
    for i in 0..3 {
        let turns = pos.turns(TurnMode::Distinct);
        pos.play_unchecked(&turns[i % turns.len()]);
        book.push(pos.fen());
    }
    let path = root.join("train.fen");
    std::fs::write(&path, format!("# three positions\n{}\n", book.join("\n"))).unwrap();
    let mut cfg = tiny("dimy", 1);
    cfg.selfplay.games_per_generation = 8;
    cfg.selfplay.book = path.display().to_string();
    train(&options(cfg.clone(), &root, "b"), &mut Quiet).unwrap();
    let (games, bad) = read_games(&root.join("experiments/b/games/00001.jsonl")).unwrap();
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(games.len(), 8);
    let mut starts = HashSet::new();
    for g in &games {
        let fen = g.start.as_deref().expect("a book game names its start");
        assert!(book.iter().any(|b| b == fen), "{fen} is not in the book");
        starts.insert(fen);
        let mut pos = Position::from_fen(fen, RuleOptions::default()).unwrap();
        let mut legal = Vec::new();
        for (i, &a) in g.actions.iter().enumerate() {
            pos.legal_actions(&mut legal);
            assert!(legal.contains(&(a as usize)), "action {i} from {fen}");
            assert_eq!(pos.action_name(a as usize), g.moves[i]);
            pos.apply(a as usize);
        }
    }
    assert!(
        starts.len() > 1,
        "8 games drew one of 3 positions every time"
    );
    // The samples of one game played directly: the first is its book position.
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&cfg).init(&device);
    let mut eval = fanorona_nn::NetEvaluator::new(net, device, cfg.variant(), false, 7);
    let p = Position::from_fen(&book[1], RuleOptions::default()).unwrap();
    let (played, _) = fanorona_train::selfplay::play(
        &[(p, Some(book[1].clone()))],
        &cfg,
        &mut eval,
        &Default::default(),
        1,
        1,
        3,
        &mut |_| {},
    );
    let mut planes = vec![0.0; played[0].samples[0].planes.len()];
    p.encode(&mut planes);
    assert_eq!(played[0].samples[0].planes, planes);
    assert_eq!(played[0].record.start.as_deref(), Some(&book[1][..]));

    // A book that is missing, or of another board, is named in the error.
    let mut missing = cfg.clone();
    missing.selfplay.book = root.join("nope.fen").display().to_string();
    let e = train(&options(missing, &root, "m"), &mut Quiet).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("selfplay.book") && msg.contains("nope.fen"),
        "{msg}"
    );
    let tsivy = root.join("tsivy.fen");
    let t = Position::start(Variant::Tsivy, RuleOptions::default());
    std::fs::write(&tsivy, format!("{}\n", t.fen())).unwrap();
    let mut other = cfg.clone();
    other.selfplay.book = tsivy.display().to_string();
    let e = train(&options(other, &root, "t"), &mut Quiet).unwrap_err();
    assert!(matches!(e, TrainError::Book(_)), "{e}");
    assert!(e.to_string().contains("selfplay.book"), "{e}");
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn guarded_self_play_plays_only_the_turns_the_guard_keeps() {
    // selfplay.guard=2 with no margin: every whole turn of every game is one that a
    // guard of its own keeps in that position; without it, an untrained network plays
    // some the guard would not have.
    use fanorona_rules::{Game, History, Position};
    use fanorona_search::{GuardConfig, TurnGuard};
    let device = Device::flex();
    let net = fanorona_train::learner::net_config(&tiny("dimy", 1)).init(&device);
    let play = |guard: u32| {
        let mut cfg = tiny("dimy", 1);
        cfg.selfplay.sims = 16;
        cfg.selfplay.search.guard = guard;
        cfg.selfplay.search.guard_margin = 0;
        let mut eval =
            fanorona_nn::NetEvaluator::new(net.clone(), device.clone(), cfg.variant(), false, 3);
        let start = Position::start(cfg.variant(), cfg.rule_options());
        fanorona_train::selfplay::play(
            &[(start, None)],
            &cfg,
            &mut eval,
            &Default::default(),
            4,
            1,
            3,
            &mut |_| {},
        )
        .0
    };
    // (turns judged, turns the guard would not keep)
    let judge = |games: &[fanorona_train::selfplay::FinishedGame]| {
        let (mut turns, mut unsound) = (0, 0);
        for g in games {
            let mut pos = Position::start(
                fanorona_rules::Variant::Dimy,
                fanorona_rules::RuleOptions::default(),
            );
            let mut actions = g.record.actions.iter().map(|&a| a as usize).peekable();
            while actions.peek().is_some() {
                let before = pos;
                let mover = pos.to_move();
                let mut turn = Vec::new();
                for a in actions.by_ref() {
                    pos.apply(a);
                    turn.push(a);
                    if pos.to_move() != mover || pos.outcome().is_some() {
                        break;
                    }
                }
                if pos.to_move() == mover && pos.outcome().is_none() {
                    break; // cut short by max_decisions
                }
                let mut guard = TurnGuard::new(GuardConfig {
                    depth: 2,
                    margin: 0,
                });
                let sound = guard.sound_turns(&History::new(before));
                turns += 1;
                if !sound.contains(&turn) {
                    unsound += 1;
                }
            }
        }
        (turns, unsound)
    };
    let guarded = play(2);
    assert_eq!(guarded.len(), 4);
    let (turns, unsound) = judge(&guarded);
    assert!(turns > 20, "{turns} turns");
    assert_eq!(unsound, 0, "{unsound} of {turns} turns outside the guard's");
    let (turns, unsound) = judge(&play(0));
    assert!(
        unsound > 0,
        "without the guard all {turns} turns were sound"
    );
    // Deterministic for a seed, as self-play is without the guard.
    let again = play(2);
    let actions = |g: &[fanorona_train::selfplay::FinishedGame]| {
        g.iter()
            .map(|g| g.record.actions.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(actions(&again), actions(&guarded));
    let e = TrainConfig::parse("<defaults>", "", &["selfplay.guard=1".to_string()]).unwrap_err();
    assert!(e.to_string().contains("guard"), "{e}");
}

/// The outputs of `net` (dimy) on one input of ones: equal outputs, equal networks.
fn dimy_outputs(net: &fanorona_nn::Net, device: &Device) -> Vec<f32> {
    use fanorona_nn::burn::prelude::Tensor;
    let c = fanorona_nn::NetConfig::for_variant(fanorona_rules::Variant::Dimy);
    let x = Tensor::<4>::ones([1, c.planes, c.height, c.width], device);
    let (p, v) = net.forward(x);
    let mut out: Vec<f32> = p.into_data().try_to_vec().unwrap();
    out.extend(v.into_data().try_to_vec::<f32>().unwrap());
    out
}

#[test]
fn a_new_run_starts_from_the_network_train_init_names() {
    use fanorona_train::Learner;
    let root = scratch("init");
    let device = Device::flex();
    // Another seed than the new runs' (one overlapped generation may not train yet).
    let mut first = tiny("dimy", 1);
    first.seed = 5;
    train(&options(first, &root, "a"), &mut Quiet).unwrap();
    let a = root.join("checkpoints/a/00001");
    let (saved, _, _) = fanorona_nn::checkpoint::load(&a, &device, None, None).unwrap();
    let mut cfg = tiny("dimy", 1);
    cfg.train.init = a.display().to_string();
    let from = Learner::start(&cfg, &device).unwrap();
    assert_eq!(
        dimy_outputs(&from.trainer.inference_net(), &device),
        dimy_outputs(&saved, &device)
    );
    assert_eq!(from.state, RunState::default());
    let fresh = Learner::start(&tiny("dimy", 1), &device).unwrap();
    assert_ne!(
        dimy_outputs(&fresh.trainer.inference_net(), &device),
        dimy_outputs(&saved, &device)
    );
    // A start from a wrong path fails and may be retried with the right one; the run
    // folder of the checkpoint works as well as a generation's (its latest).
    let mut wrong = cfg.clone();
    wrong.train.init = root.join("checkpoints/nowhere").display().to_string();
    let e = train(&options(wrong, &root, "b"), &mut Quiet).unwrap_err();
    assert!(matches!(e, TrainError::Init(..)), "{e}");
    cfg.train.init = root.join("checkpoints/a").display().to_string();
    let mut log = Vec::<String>::new();
    let s = train(&options(cfg.clone(), &root, "b"), &mut log).unwrap();
    assert_eq!(s.state.generation, 1);
    assert!(
        log.iter().any(|l| l.contains("from the network of")),
        "{:?}",
        log
    );
    let mut wide = cfg.clone();
    wide.net.channels = 16;
    let mut missing = tiny("dimy", 1);
    missing.train.init = root.join("nowhere").display().to_string();
    let mut telo = tiny("telo", 1);
    telo.train.init = cfg.train.init.clone();
    for (bad, what) in [(wide, "a"), (missing, "nowhere"), (telo, "a")] {
        let e = Learner::start(&bad, &device).unwrap_err().to_string();
        assert!(e.starts_with("train.init = ") && e.contains(what), "{e}");
    }
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn self_play_with_tables_ends_games_where_they_cover_and_learns_their_result() {
    // selfplay.tablebases=DIR: from 2-against-2 dimy positions and the 3-piece tables, a
    // game ends at the first position the tables cover, with their result; its record
    // says so, and every sample's value target is that result.
    use fanorona_rules::{Color, Game, Position, RuleOptions, Variant};
    use fanorona_tb::{Class, Tablebase, Wdl};
    let root = scratch("tables");
    let tables = root.join("tb");
    let tb = Tablebase::build(Variant::Dimy, 100, 3, None, &mut |_| {}).unwrap();
    tb.save(&tables).unwrap();
    let class = Class { white: 2, black: 2 };
    let mut book = Vec::new();
    for i in 0..40u64 {
        let pos =
            fanorona_testkit::class_position(Variant::Dimy, class, i * 7919 + 13, Color::White);
        if pos.has_capture() && pos.outcome().is_none() {
            book.push(pos.fen());
        }
    }
    assert!(book.len() > 4);
    let path = root.join("two-two.fen");
    std::fs::write(&path, book.join("\n") + "\n").unwrap();
    let mut cfg = tiny("dimy", 1);
    cfg.selfplay.games_per_generation = 8;
    cfg.selfplay.book = path.display().to_string();
    cfg.selfplay.tablebases = tables.display().to_string();
    train(&options(cfg.clone(), &root, "t"), &mut Quiet).unwrap();
    let (games, bad) = read_games(&root.join("experiments/t/games/00001.jsonl")).unwrap();
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(games.len(), 8);
    let mut ended = 0;
    for g in &games {
        let mut pos =
            Position::from_fen(g.start.as_deref().unwrap(), RuleOptions::default()).unwrap();
        for &a in &g.actions {
            assert!(
                !tb.covers(&pos) || pos.chain().is_some(),
                "played on past the tables"
            );
            pos.apply(a as usize);
        }
        if g.tablebase {
            ended += 1;
            let (w, _) = tb.wdl(&pos).expect("ended where the tables cover");
            let winner = match w {
                Wdl::Win => Some(pos.to_move()),
                Wdl::Draw => None,
                Wdl::Loss => Some(pos.to_move().other()),
            };
            let expected = match winner {
                Some(Color::White) => "white",
                Some(Color::Black) => "black",
                None => "draw",
            };
            assert_eq!(g.result, expected);
        } else {
            assert!(pos.outcome().is_some(), "a game ended neither way");
        }
    }
    assert!(ended > 0, "no game reached the tables");
    // Every sample's value target is its game's result (value_q_weight = 0).
    let window = read_samples(&root.join("checkpoints/t/00001/replay.bin"), Variant::Dimy).unwrap();
    let draws = games.iter().filter(|g| g.result == "draw").count();
    for s in &window {
        assert!(s.wdl.iter().all(|&x| x == 0.0 || x == 1.0), "{:?}", s.wdl);
    }
    if draws == 0 {
        assert!(window.iter().all(|s| s.wdl[1] == 0.0));
    }

    // A folder without tables, or telo, is named in the error.
    let mut missing = cfg.clone();
    missing.selfplay.tablebases = root.join("nope").display().to_string();
    let e = train(&options(missing, &root, "m"), &mut Quiet).unwrap_err();
    assert!(
        matches!(e, TrainError::Tables(_)) && e.to_string().contains("selfplay.tablebases"),
        "{e}"
    );
    let e = TrainConfig::parse(
        "<defaults>",
        "",
        &["variant=telo".into(), "selfplay.tablebases=x".into()],
    )
    .unwrap_err();
    assert!(e.to_string().contains("selfplay.tablebases"), "{e}");
    std::fs::remove_dir_all(&root).ok();
}
