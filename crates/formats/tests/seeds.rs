//! The fuzz targets' seeds of this crate's formats (`crates/fuzz/seeds/<target>/`): one
//! valid file of each, made here by the writers, so that the fuzzer starts from inputs
//! that read (a seed a format change left behind would only start it from nothing).
//! `FANORONA_WRITE_SEEDS=1 cargo test --release --workspace --test seeds` writes them
//! again after a format changes; otherwise each committed seed must read.

use fanorona_formats::arena;
use fanorona_formats::checkpoint::{CheckpointMeta, NetShape, parse_meta};
use fanorona_formats::chunk::{CHUNK_VERSION, Chunk, ChunkHeader, decode_chunk, encode_chunk};
use fanorona_formats::config::TrainConfig;
use fanorona_formats::labels::{LabelSource, LabelWindow, decode_labels, encode_labels};
use fanorona_formats::records::{
    GAME_VERSION, GameRecord, Sample, decode_samples, encode_samples, parse_games,
};
use fanorona_formats::stats::SelfPlayStats;
use fanorona_rules::checksum::fnv1a;
use fanorona_rules::{RuleOptions, Variant, num_actions};
use fanorona_search::{Bound, NodeLabel};
use fanorona_sim::num_planes;
use fanorona_testkit::{random_positions, repo_file, scratch};
use std::path::PathBuf;

fn seeds(target: &str) -> PathBuf {
    PathBuf::from(repo_file(&format!("crates/fuzz/seeds/{target}")))
}

fn writing() -> bool {
    std::env::var_os("FANORONA_WRITE_SEEDS").is_some()
}

/// Writes `files` as the seeds of `target` when asked, then checks that each reads.
fn check(
    target: &str,
    files: &[(String, Vec<u8>)],
    reads: impl Fn(&str, &[u8]) -> Result<(), String>,
) {
    let dir = seeds(target);
    if writing() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    for (name, _) in files {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| {
            panic!("seed {target}/{name}: {e} (FANORONA_WRITE_SEEDS=1 writes it)")
        });
        reads(name, &bytes).unwrap_or_else(|e| panic!("seed {target}/{name} does not read: {e}"));
    }
}

fn sample(v: Variant, k: f32) -> Sample {
    let per = num_planes(v) * v.points();
    Sample {
        planes: (0..per)
            .map(|i| if (i as f32 * k).sin() > 0.5 { 1.0 } else { 0.0 })
            .collect(),
        policy: vec![(0, 0.25), (num_actions(v) as u16 - 1, 0.75)],
        wdl: [k, 0.0, 1.0 - k],
        ownership: if k < 0.5 {
            (0..v.points()).map(|p| (p % 3) as i8 - 1).collect()
        } else {
            Vec::new()
        },
    }
}

fn game(v: Variant) -> GameRecord {
    GameRecord {
        version: GAME_VERSION,
        variant: v.name().into(),
        generation: 3,
        result: "draw".into(),
        actions: vec![1, 2, 3],
        moves: vec!["b2c2".into(), "c1b2".into()],
        resigned: false,
        tablebase: v == Variant::Dimy,
        start: None,
    }
}

fn labels(v: Variant) -> Vec<NodeLabel> {
    random_positions(v, 3, 12, 7)
        .into_iter()
        .enumerate()
        .map(|(i, position)| NodeLabel {
            position,
            score: i as i32 * 37 - 40,
            bound: [Bound::Exact, Bound::Lower, Bound::Upper][i % 3],
            depth: i as u8 + 1,
        })
        .collect()
}

/// A board's index in the targets' first byte (telo, dimy, tsivy).
fn pick(v: Variant) -> u8 {
    match v {
        Variant::Telo => 0,
        Variant::Dimy => 1,
        Variant::Tsivy => 2,
    }
}

fn variant_of(b: u8) -> Variant {
    [Variant::Telo, Variant::Dimy, Variant::Tsivy][(b & 3) as usize % 3]
}

/// The bytes with their checksum, as the targets try them.
fn summed(body: &[u8]) -> Vec<u8> {
    let mut b = body.to_vec();
    b.extend_from_slice(&fnv1a(body).to_le_bytes());
    b
}

#[test]
fn config_seeds_read() {
    let files: Vec<(String, Vec<u8>)> = ["tsivy", "dimy", "telo", "smoke"]
        .iter()
        .map(|n| {
            let mut b = std::fs::read(repo_file(&format!("configs/{n}.toml"))).unwrap();
            b.extend_from_slice(b"\0tree.threads=1\nrun.curve_minutes=60");
            (n.to_string(), b)
        })
        .collect();
    check("config", &files, |_, b| {
        let i = b.iter().position(|&x| x == 0).ok_or("no NUL")?;
        let text = std::str::from_utf8(&b[..i]).map_err(|e| e.to_string())?;
        let sets: Vec<String> = std::str::from_utf8(&b[i + 1..])
            .map_err(|e| e.to_string())?
            .lines()
            .map(String::from)
            .collect();
        TrainConfig::parse("seed", text, &sets)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
}

#[test]
fn checkpoint_seeds_read() {
    let shape = NetShape {
        planes: num_planes(Variant::Dimy),
        height: 5,
        width: 5,
        actions: num_actions(Variant::Dimy),
        blocks: 2,
        channels: 16,
        policy_channels: 2,
        value_channels: 1,
        value_hidden: 32,
        ownership: true,
    };
    let meta = CheckpointMeta::new(Variant::Dimy, shape, 4, 120, Some("seed"));
    let files = vec![
        (
            "meta".to_string(),
            serde_json::to_vec_pretty(&meta).unwrap(),
        ),
        (
            "checksums".to_string(),
            format!(
                "model.bpk {:016x}\noptimizer.bpk {:016x}\n",
                fnv1a(b"model.bpk"),
                7
            )
            .into_bytes(),
        ),
    ];
    check("checkpoint", &files, |name, b| {
        if name == "meta" {
            parse_meta(b).map(|m| assert_eq!(m, meta))
        } else {
            Ok(())
        }
    });
}

#[test]
fn sample_seeds_read() {
    let files: Vec<(String, Vec<u8>)> = [Variant::Telo, Variant::Dimy]
        .iter()
        .map(|&v| {
            let file = encode_samples(v, [sample(v, 0.25), sample(v, 0.75)].iter());
            let mut b = vec![pick(v)];
            // The target appends the checksum.
            b.extend_from_slice(&file[..file.len() - 8]);
            (v.name().to_string(), b)
        })
        .collect();
    check("samples", &files, |_, b| {
        decode_samples(&summed(&b[1..]), variant_of(b[0])).map(|s| assert_eq!(s.len(), 2))
    });
}

#[test]
fn game_seeds_read() {
    let text = |g: &GameRecord| serde_json::to_string(g).unwrap() + "\n";
    let files = vec![(
        "games".to_string(),
        (text(&game(Variant::Dimy)) + &text(&game(Variant::Tsivy)) + "{\"cut\n").into_bytes(),
    )];
    check("games", &files, |_, b| {
        let (good, bad) = parse_games(b, "seed");
        (good.len() == 2 && bad.len() == 1)
            .then_some(())
            .ok_or(format!("{good:?} {bad:?}"))
    });
}

#[test]
fn label_seeds_read() {
    let rules = RuleOptions::default();
    let window = |v: Variant| {
        let dir = scratch(&format!("seed-labels-{}", v.name()));
        let mut w = LabelWindow::new(&dir, v, rules, 1000);
        w.push(12, LabelSource::Teacher, &labels(v)).unwrap();
        let file = std::fs::read(dir.join("labels/00012-teacher.bin")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (w, file)
    };
    let mut files = Vec::new();
    // Telo's positions are of another type: a label is of dimy or tsivy.
    for v in [Variant::Dimy, Variant::Tsivy] {
        let mut b = vec![pick(v) | 4];
        b.extend_from_slice(&12u64.to_le_bytes());
        b.extend_from_slice(&window(v).1);
        files.push((format!("window-{}", v.name()), b));
        let mut b = vec![pick(v)];
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&encode_labels(v, labels(v).iter()));
        files.push((format!("whole-{}", v.name()), b));
    }
    check("labels", &files, |name, b| {
        let v = variant_of(b[0]);
        if name.starts_with("whole") {
            return decode_labels(&b[9..], v, rules).map(|l| assert_eq!(l.len(), 3));
        }
        let (w, _) = window(v);
        let entry = w.manifest().segments()[0].clone();
        w.read_segment(&entry, &b[9..]).map(|_| ())
    });
}

#[test]
fn chunk_seeds_read() {
    let header = |v: Variant, labels: u64| ChunkHeader {
        version: CHUNK_VERSION,
        run: "fuzz".into(),
        worker: "w-1".into(),
        session: "s".into(),
        seq: 2,
        generation: 5,
        variant: v.name().into(),
        games: 1,
        samples: if labels > 0 { 0 } else { 2 },
        stats: SelfPlayStats {
            games: 1,
            samples: 2,
            seconds: 1.5,
            ..Default::default()
        },
        labels,
    };
    let v = Variant::Telo;
    let games = Chunk {
        header: header(v, 0),
        samples: vec![sample(v, 0.25), sample(v, 0.75)],
        games: vec![game(v)],
        labels: Vec::new(),
    };
    let tree = Chunk {
        header: header(Variant::Dimy, 3),
        samples: Vec::new(),
        games: Vec::new(),
        labels: encode_labels(Variant::Dimy, labels(Variant::Dimy).iter()),
    };
    let files: Vec<(String, Vec<u8>)> = [("games", games), ("tree", tree)]
        .into_iter()
        .map(|(n, c)| {
            let b = encode_chunk(&c);
            (n.to_string(), b[..b.len() - 8].to_vec())
        })
        .collect();
    check("chunk", &files, |_, b| {
        decode_chunk(&summed(b), "fuzz").map(|_| ())
    });
}

#[test]
fn arena_record_seeds_read() {
    let r = arena::GameRecord {
        white: "ab:depth=2".into(),
        black: "random".into(),
        opening: 3,
        result: "white".into(),
        turns: vec!["d3e3(+1)".into()],
        key: "0-1".into(),
        fen: None,
        pair: Some("p0".into()),
        seconds: Some([0.5, 0.25]),
        chosen: Some([3, 2]),
        vela: None,
        adjudicated: false,
        longest: None,
        tc: None,
        flagged: None,
    };
    let line = serde_json::to_string(&r).unwrap();
    let files = vec![(
        "games".to_string(),
        format!("{line}\n\n{line}\n{{\"white\"").into_bytes(),
    )];
    check("arena_records", &files, |_, b| {
        let (good, bad) = arena::parse_records(b, "seed");
        (good.len() == 2 && bad.len() == 1)
            .then_some(())
            .ok_or(format!("{bad:?}"))
    });
}
