//! Self-play past one machine: stateless workers and one learner joined by object storage
//! (the shape of Minigo's and KataGo's loops), on the [`crate::store`] layer.
//!
//! Layout of a run in the store (version [`LAYOUT`]), every object written whole:
//!
//! ```text
//! <store>/<run>/
//!     layout.json                 {"layout": 1}: written first by the learner
//!     config.toml                 the run's configuration (the learner's)
//!     models/<gen:05>/meta.json   published networks, never changed once published
//!     models/<gen:05>/model.bpk
//!     models/LATEST               {"generation": g}: moved only after model g is whole
//!     chunks/<worker>/<seq:08>.chunk
//!                                 a worker's games: samples and records (format below)
//!     learner/<gen:05>/           the learner's checkpoint: model, optimizer, state.json,
//!                                 replay.bin (newest only), ledger.json (chunks consumed)
//!     learner/LATEST              {"generation": g}: moved after the checkpoint is whole
//!     quarantine/<worker>/<seq:08>.chunk
//!                                 damaged chunks, moved aside and skipped
//! ```
//!
//! A chunk: `"FNRC" | version u32 | header length u32 | header JSON | samples length u32 |
//! a sample file (see [`crate::records`]) | records length u32 | game records, JSON lines |
//! FNV-1a 64 of everything before`, little-endian. The header names the run, the worker,
//! its session (a random token per process), the sequence number, the generation of the
//! model that played it and the counts.
//!
//! Guarantees: a chunk is one object, so it is seen whole or not at all; the learner's
//! ledger, saved inside each checkpoint, lists every chunk the checkpoint holds, so a
//! restarted learner re-reads exactly the chunks after it; a chunk's key is
//! `(worker, seq)`, so a re-upload replaces nothing and is not counted twice; a worker
//! finding its sequence number taken by another session stops (two workers with one ID).

mod learner;
mod store;
mod teacher;
mod worker;

pub use fanorona_formats::chunk::*;
pub use learner::*;
pub use store::*;
pub use worker::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TrainConfig;
    use crate::metrics::jsonl_has_step;
    use crate::records::{self, GameRecord, Sample};
    use crate::selfplay::SelfPlayStats;
    use crate::state::Quiet;
    use crate::store::Store;
    use fanorona_nn::burn::prelude::Device;
    use fanorona_rules::checksum::fnv1a as fnv;
    use std::path::PathBuf;
    use std::time::Duration;

    fn smoke() -> TrainConfig {
        TrainConfig::parse(
            "<defaults>",
            "",
            &[
                "variant=dimy".into(),
                "net.blocks=1".into(),
                "net.channels=8".into(),
                "selfplay.games_in_flight=4".into(),
                "selfplay.games_per_generation=8".into(),
                "selfplay.sims=8".into(),
                "selfplay.max_decisions=60".into(),
                "train.batch_size=16".into(),
                "train.replay_window=4000".into(),
                "train.min_replay=16".into(),
                "train.train_ratio=1.0".into(),
                "distributed.poll_seconds=0.05".into(),
                "distributed.retry_seconds=2".into(),
            ],
        )
        .unwrap()
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("fanorona-dist-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    /// A folder store in a fresh temporary folder, and the options of run `r`'s learners
    /// and workers over it.
    struct Fixture {
        dir: PathBuf,
        store: Store,
        cfg: TrainConfig,
    }

    impl Fixture {
        fn new(name: &str, cfg: TrainConfig) -> Fixture {
            let dir = tmp(name);
            let store = Store::open(
                &format!("file://{}", dir.join("store").display()),
                Duration::from_secs(2),
            )
            .unwrap();
            Fixture { dir, store, cfg }
        }
        fn learner(&self, generations: u64) -> LearnerOptions {
            LearnerOptions {
                run: "r".into(),
                config: self.cfg.clone(),
                generations: Some(generations),
                device: Device::default(),
                cache: self.dir.join("lcache"),
                experiments_root: self.dir.join("exp"),
                checkpoints: self.dir.join("ckpt"),
            }
        }
        fn worker(&self, id: &str, games: u64) -> WorkerOptions {
            WorkerOptions {
                run: "r".into(),
                config: Some(self.cfg.clone()),
                games: Some(games),
                worker: id.into(),
                device: Device::default(),
                cache: self.dir.join(format!("wcache-{id}")),
            }
        }
    }

    #[test]
    fn chunks_round_trip_and_damage_is_named() {
        let cfg = smoke();
        let sample = Sample {
            planes: vec![0.5; fanorona_sim::num_planes(cfg.variant()) * 25],
            policy: vec![(1, 1.0)],
            wdl: [1.0, 0.0, 0.0],
            ownership: vec![1; 25],
        };
        let chunk = Chunk {
            header: ChunkHeader {
                version: CHUNK_VERSION,
                run: "r".into(),
                worker: "w1".into(),
                session: "abc".into(),
                seq: 3,
                generation: 2,
                variant: "dimy".into(),
                games: 1,
                samples: 2,
                stats: SelfPlayStats::default(),
                labels: 0,
            },
            samples: vec![sample.clone(), sample],
            games: vec![GameRecord {
                version: records::GAME_VERSION,
                variant: "dimy".into(),
                generation: 2,
                result: "draw".into(),
                actions: vec![1, 2],
                moves: vec!["a".into(), "b".into()],
                resigned: false,
                tablebase: false,
                start: Some("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0".into()),
            }],
            labels: Vec::new(),
        };
        let b = encode_chunk(&chunk);
        assert_eq!(decode_chunk(&b, "r").unwrap(), chunk);
        // A version 1 chunk (no labels part) written before labels were added still reads.
        let mut v1 = b[..b.len() - 8 - 4].to_vec();
        v1[4..8].copy_from_slice(&1u32.to_le_bytes());
        let sum = fnv(&v1);
        v1.extend_from_slice(&sum.to_le_bytes());
        assert_eq!(decode_chunk(&v1, "r").unwrap(), chunk);
        let mut v9 = b.clone();
        v9[4..8].copy_from_slice(&9u32.to_le_bytes());
        let n = v9.len() - 8;
        let sum = fnv(&v9[..n]);
        v9[n..].copy_from_slice(&sum.to_le_bytes());
        assert!(decode_chunk(&v9, "r").unwrap_err().contains("version 9"));
        assert!(decode_chunk(&b, "other").unwrap_err().contains("run `r`"));
        for i in [0, 9, b.len() / 2, b.len() - 1] {
            let mut d = b.clone();
            d[i] ^= 1;
            assert!(decode_chunk(&d, "r").is_err(), "byte {i}");
        }
        assert!(decode_chunk(&b[..b.len() - 1], "r").is_err());
        assert_eq!(
            parse_chunk_key("chunks/w1/00000003.chunk"),
            Some(("w1".into(), 3))
        );
        for bad in [
            "chunks/w1/3.chunk",
            "chunks/w1/00000003.bin",
            "models/00001/meta.json",
            "chunks/.x/00000001.chunk",
        ] {
            assert_eq!(parse_chunk_key(bad), None, "{bad}");
        }
    }

    /// The whole loop in one process over a folder store: a worker's chunks, a damaged
    /// chunk set aside, a learner killed (dropped) between generations and resumed, a
    /// second worker with the same ID refused; every finished game's samples counted
    /// once.
    #[test]
    fn workers_and_learner_over_a_folder_store() {
        let f = Fixture::new("loop", smoke());
        let (cfg, dir, store) = (&f.cfg, &f.dir, &f.store);
        let lopts = |generations| f.learner(generations);
        // Three generations under another configuration.
        let with_config = |config| LearnerOptions { config, ..lopts(3) };
        // A warm start is `fanorona train`'s: the learner refuses one, naming the key.
        let mut warm = lopts(0);
        warm.config.bootstrap.games = 10;
        let e = learn(store, &warm, &mut Quiet).unwrap_err();
        assert!(e.to_string().contains("bootstrap.games"), "{e}");
        // The learner creates the run and model 0 (nothing to train on yet: generation 0).
        let s = learn(store, &lopts(0), &mut Quiet).unwrap();
        assert_eq!(s.state.generation, 0);
        let wopts = |id: &str, games| f.worker(id, games);
        let w = selfplay_worker(store, &wopts("w1", 16), &mut Quiet).unwrap();
        assert_eq!((w.chunks, w.games), (4, 16));
        // A damaged chunk from a "worker" that died mid-write, and an object that is no
        // chunk at all (reported once, then ignored).
        store
            .put("r/chunks/w9/00000000.chunk", b"FNRC half a chunk")
            .unwrap();
        store.put("r/chunks/evil/junk.bin", b"junk").unwrap();
        let mut lines = Vec::<String>::new();
        let s = learn(store, &lopts(1), &mut lines).unwrap();
        let stray: Vec<_> = lines.iter().filter(|l| l.contains("junk.bin")).collect();
        assert_eq!(stray.len(), 1, "{:?}", lines);
        assert!(stray[0].contains("r/chunks/evil/junk.bin") && stray[0].contains("not a chunk"));
        store.delete("r/chunks/evil/junk.bin").unwrap();
        assert_eq!((s.state.generation, s.state.games), (1, 8));
        assert!(store.exists("r/quarantine/w9/00000000.chunk").unwrap());
        assert!(!store.exists("r/chunks/w9/00000000.chunk").unwrap());
        // Restart (a new learner process): generation 2 takes the other 8 games.
        let s = learn(store, &lopts(2), &mut Quiet).unwrap();
        assert_eq!((s.state.generation, s.state.games), (2, 16));
        let produced: u64 = store
            .list("r/chunks")
            .unwrap()
            .iter()
            .map(|k| {
                decode_chunk(&store.get(k).unwrap().unwrap(), "r")
                    .unwrap()
                    .header
                    .samples
            })
            .sum();
        assert_eq!(s.state.samples, produced);
        assert_eq!(
            store.get("r/models/LATEST").unwrap().unwrap(),
            br#"{"generation":2}"#
        );
        // The same worker ID again from another session: its first upload goes to the
        // next sequence number; a clash with a sequence number another session wrote is
        // refused.
        let taken = Chunk {
            header: ChunkHeader {
                version: CHUNK_VERSION,
                run: "r".into(),
                worker: "w1".into(),
                session: "another".into(),
                seq: 4,
                generation: 2,
                variant: "dimy".into(),
                games: 0,
                samples: 0,
                stats: SelfPlayStats::default(),
                labels: 0,
            },
            samples: vec![],
            games: vec![],
            labels: vec![],
        };
        let rs = RunStore {
            store,
            run: "r".into(),
        };
        upload_chunk(&rs, &taken).unwrap();
        upload_chunk(&rs, &taken).unwrap(); // a retried upload of the same session
        let mut clash = taken.clone();
        clash.header.session = "mine".into();
        let e = upload_chunk(&rs, &clash).unwrap_err().to_string();
        assert!(e.contains("w1") && e.contains("another worker"), "{e}");
        // Staleness: a copy of a chunk played by model 0, arriving when the learner is at
        // generation 2 with max_staleness 1, is dropped and counted; eight fresh games
        // make generation 3.
        let mut old = decode_chunk(
            &store.get("r/chunks/w1/00000000.chunk").unwrap().unwrap(),
            "r",
        )
        .unwrap();
        assert_eq!(old.header.generation, 0);
        old.header.worker = "old".into();
        old.header.seq = 0;
        store
            .put(&format!("r/{}", chunk_key("old", 0)), &encode_chunk(&old))
            .unwrap();
        selfplay_worker(store, &wopts("w1", 8), &mut Quiet).unwrap();
        let mut strict = cfg.clone();
        strict.distributed.max_staleness = 1;
        let s3 = learn(store, &with_config(strict), &mut Quiet).unwrap();
        assert_eq!((s3.state.generation, s3.state.games), (3, 24));
        let ledger: Ledger =
            serde_json::from_slice(&store.get("r/learner/00003/ledger.json").unwrap().unwrap())
                .unwrap();
        assert_eq!(ledger.stale_chunks, 1);
        assert_eq!(ledger.stale_samples, old.header.samples);
        assert!(ledger.consumed["old"].contains(&0));
        // Chunks of four games (games_in_flight): sequence numbers 5 and 6.
        let fresh: u64 = [5, 6]
            .iter()
            .map(|q| {
                let bytes = store.get(&format!("r/{}", chunk_key("w1", *q))).unwrap();
                let c = decode_chunk(&bytes.unwrap(), "r").unwrap();
                assert_eq!(c.header.generation, 2);
                c.header.samples
            })
            .sum();
        assert_eq!(s3.state.samples, s.state.samples + fresh);
        // Another configuration is refused, naming the run.
        let mut other = cfg.clone();
        other.selfplay.sims = 99;
        let e = learn(store, &with_config(other), &mut Quiet)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("run `r`") && e.contains("another configuration"),
            "{e}"
        );
        // A worker with the quarantined chunk's ID continues after it: the key the ledger
        // counts as read is never written again, and every one of its games is read.
        let w = selfplay_worker(store, &wopts("w9", 8), &mut Quiet).unwrap();
        assert_eq!((w.chunks, w.games), (2, 8));
        assert!(!store.exists("r/chunks/w9/00000000.chunk").unwrap());
        assert!(store.exists("r/chunks/w9/00000001.chunk").unwrap());
        assert!(store.exists("r/chunks/w9/00000002.chunk").unwrap());
        let s4 = learn(store, &lopts(4), &mut Quiet).unwrap();
        assert_eq!((s4.state.generation, s4.state.games), (4, 32));
        std::fs::remove_dir_all(dir).ok();
    }

    /// Two workers far faster than the learner (`max_staleness = 1`): they wait instead
    /// of running ahead, nothing is dropped, and when the learner stops every game they
    /// finished is either trained on or waiting in its status.
    #[test]
    fn workers_faster_than_the_learner_wait_and_lose_nothing() {
        let mut cfg = smoke();
        cfg.distributed.max_staleness = 1;
        // A slower learner: more training steps per sample.
        cfg.train.train_ratio = 4.0;
        let f = Fixture::new("fast", cfg);
        let (dir, store) = (&f.dir, &f.store);
        let lopts = |generations| f.learner(generations);
        learn(store, &lopts(0), &mut Quiet).unwrap();
        let wopts = |id: &str| f.worker(id, 400);
        let (mut a_lines, mut b_lines) = (Vec::<String>::new(), Vec::<String>::new());
        let (summary, a, b) = std::thread::scope(|s| {
            let l = s.spawn(|| learn(store, &lopts(4), &mut Quiet).unwrap());
            // The workers once the learner runs (one that has stopped ends them).
            while !store
                .get("r/learner/status.json")
                .unwrap()
                .is_some_and(|b| serde_json::from_slice::<LearnerStatus>(&b).unwrap().running)
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            let a = s.spawn(|| selfplay_worker(store, &wopts("a"), &mut a_lines).unwrap());
            let b = s.spawn(|| selfplay_worker(store, &wopts("b"), &mut b_lines).unwrap());
            (l.join().unwrap(), a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!((summary.state.generation, summary.state.games), (4, 32));
        // The workers stopped early, saying why, once the learner had stopped.
        assert!(a.games < 400 && b.games < 400, "{a:?} {b:?}");
        // Which of the two meets the budget first is a matter of timing.
        assert!(
            [&a_lines, &b_lines]
                .iter()
                .any(|lines| lines.iter().any(|l| l.contains("wait for the learner"))),
            "{:?} {:?}",
            a_lines,
            b_lines
        );
        for lines in [&a_lines, &b_lines] {
            assert!(
                lines.last().unwrap().contains("nothing more to play for"),
                "{:?}",
                lines
            );
        }
        let ledger: Ledger =
            serde_json::from_slice(&store.get("r/learner/00004/ledger.json").unwrap().unwrap())
                .unwrap();
        assert_eq!((ledger.stale_chunks, ledger.stale.len()), (0, 0));
        let status: LearnerStatus =
            serde_json::from_slice(&store.get("r/learner/status.json").unwrap().unwrap()).unwrap();
        assert!(!status.running);
        // Every finished game is in the store, and trained on or waiting.
        let mut stored = 0;
        for k in store.list("r/chunks").unwrap() {
            stored += decode_chunk(&store.get(&k).unwrap().unwrap(), "r")
                .unwrap()
                .header
                .games;
        }
        assert_eq!(stored, a.games + b.games);
        // The workers stopped at the budget (a generation, max_staleness = 1) and no more
        // than a generation past it: a restarted learner trains on what waits, drops
        // nothing, and its status counts the rest.
        let unread = stored - summary.state.games;
        assert!((8..24).contains(&unread), "{unread} games unread");
        let s5 = learn(store, &lopts(4 + unread / 8), &mut Quiet).unwrap();
        assert_eq!(s5.state.games, 32 + unread / 8 * 8);
        let ledger: Ledger = serde_json::from_slice(
            &store
                .get(&format!("r/learner/{:05}/ledger.json", s5.state.generation))
                .unwrap()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(ledger.stale_chunks, 0);
        let status: LearnerStatus =
            serde_json::from_slice(&store.get("r/learner/status.json").unwrap().unwrap()).unwrap();
        assert_eq!(s5.state.games + status.waiting_games, stored);
        // Its metrics line: written with the checkpoint and into metrics.jsonl once.
        let jsonl = std::fs::read_to_string(dir.join("exp/r/metrics.jsonl")).unwrap();
        let lines_of = |step: u64| {
            jsonl
                .lines()
                .filter(|l| {
                    l.contains("\"loss/policy\"") && l.contains(&format!("\"step\":{step},"))
                })
                .count()
        };
        assert_eq!((lines_of(4), lines_of(s5.state.generation)), (1, 1));
        std::fs::remove_dir_all(dir).ok();
    }

    /// A learner killed after its checkpoint and before its metrics line writes the line
    /// when it resumes, once.
    #[test]
    fn a_generation_s_metrics_survive_a_kill_after_the_checkpoint() {
        let f = Fixture::new("metrics", smoke());
        let (dir, store) = (&f.dir, &f.store);
        let lopts = |generations| f.learner(generations);
        learn(store, &lopts(0), &mut Quiet).unwrap();
        let w = f.worker("w", 8);
        selfplay_worker(store, &w, &mut Quiet).unwrap();
        learn(store, &lopts(1), &mut Quiet).unwrap();
        let path = dir.join("exp/r/metrics.jsonl");
        let whole = std::fs::read_to_string(&path).unwrap();
        assert!(jsonl_has_step(&path, 1));
        // As if killed before the line: the file without it.
        std::fs::write(&path, "").unwrap();
        learn(store, &lopts(1), &mut Quiet).unwrap();
        let again = std::fs::read_to_string(&path).unwrap();
        let tags = |t: &str| -> Vec<String> {
            t.lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    format!("{}@{}={}", v["tag"], v["step"], v["value"])
                })
                .collect()
        };
        assert_eq!(tags(&again), tags(&whole));
        // Resumed once more with the line in place: not written twice.
        learn(store, &lopts(1), &mut Quiet).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), again);
        std::fs::remove_dir_all(dir).ok();
    }

    /// A tree run over a folder store: the learner publishes its evaluation, a worker
    /// labels positions of its games 3 turns past the players' 2, the learner reads
    /// each chunk's labels into its window once (a damaged chunk set aside), a learner
    /// killed before its checkpoint reads them again once when it resumes.
    #[test]
    fn a_tree_run_s_worker_labels_deeper_over_a_folder_store() {
        let cfg = TrainConfig::parse(
            "<tree>",
            "",
            &[
                "variant=dimy".into(),
                "tree.method=treestrap".into(),
                "tree.hidden=8".into(),
                "tree.depth=2".into(),
                "tree.label_depth=1".into(),
                "tree.games=3".into(),
                "tree.threads=1".into(),
                "tree.deep_positions=2".into(),
                "train.batch_size=32".into(),
                "train.min_replay=32".into(),
                "train.replay_window=1000000".into(),
                "distributed.poll_seconds=0.05".into(),
                "distributed.retry_seconds=2".into(),
            ],
        )
        .unwrap();
        cfg.validate().unwrap();
        let f = Fixture::new("tree", cfg.clone());
        let store = &f.store;
        // The learner's own deeper teacher is off: every teacher label is the worker's.
        learn(store, &f.learner(0), &mut Quiet).unwrap();
        assert_eq!(
            store.get("r/models/LATEST").unwrap().unwrap(),
            br#"{"generation":0}"#
        );
        // A worker of a run whose teacher is off has nothing to label without a gap.
        let e = selfplay_worker(store, &f.worker("w0", 2), &mut Quiet).unwrap_err();
        assert!(e.to_string().contains("distributed.teacher_gap"), "{e}");
        let worker = |games| {
            let mut w = f.worker("w1", games);
            let c = w.config.as_mut().unwrap();
            (c.distributed.teacher_gap, c.distributed.chunk_games) = (3, 2);
            selfplay_worker(store, &w, &mut Quiet).unwrap()
        };
        let first = worker(4);
        assert_eq!((first.chunks, first.games), (2, 4));
        assert!(first.samples > 0);
        let rs = RunStore {
            store,
            run: "r".into(),
        };
        let chunk = decode_chunk(&rs.get(&chunk_key("w1", 0)).unwrap().unwrap(), "r").unwrap();
        let labels =
            crate::tree::decode_labels(&chunk.labels, cfg.variant(), cfg.rule_options()).unwrap();
        assert_eq!(labels.len() as u64, chunk.header.labels);
        assert!(
            labels.iter().all(|l| l.depth > 2),
            "deeper than the players"
        );
        // The roots at 2 + 3 turns at most (a search that proves the result sooner
        // stops sooner: about one run in fifty has no root at 5).
        assert!(
            labels.iter().all(|l| l.depth <= 5),
            "the roots, 2 + 3 turns"
        );
        store
            .put("r/chunks/w2/00000000.chunk", b"not a chunk")
            .unwrap();

        let teacher = |g: u64| {
            let dir = f.dir.join(format!("ckpt/r/{g:05}"));
            crate::tree::EvalLearner::resume(&dir, &cfg)
                .unwrap()
                .labels(crate::tree::LabelSource::Teacher)
        };
        learn(store, &f.learner(2), &mut Quiet).unwrap();
        assert_eq!(teacher(2) as u64, first.samples);
        assert!(
            store
                .get("r/quarantine/w2/00000000.chunk")
                .unwrap()
                .is_some()
        );
        assert_eq!(
            store.get("r/models/LATEST").unwrap().unwrap(),
            br#"{"generation":2}"#
        );
        assert!(
            store.get("r/models/00000/eval.txt").unwrap().is_none(),
            "older ones go"
        );
        let second = worker(2);
        learn(store, &f.learner(3), &mut Quiet).unwrap();
        assert_eq!(teacher(3) as u64, first.samples + second.samples);
        // Killed before generation 3's checkpoint: resumed, it reads that chunk once.
        std::fs::remove_dir_all(f.dir.join("ckpt/r/00003")).unwrap();
        learn(store, &f.learner(3), &mut Quiet).unwrap();
        assert_eq!(teacher(3) as u64, first.samples + second.samples);
        std::fs::remove_dir_all(&f.dir).ok();
    }
}
