//! Engine specs and checkpoint metadata, mutated at random from valid ones (bytes
//! flipped, inserted, deleted, cut, pieces of other inputs spliced in): never a panic,
//! and an error names the input. These readers sit above burn, where the libFuzzer
//! targets of `crates/fuzz` do not reach yet (docs/fuzzing.md); this is their fuzzing.

use fanorona_nn::checkpoint;
use fanorona_nn::spec::EngineSpec;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// `seed` mutated a few times.
fn mutate(rng: &mut SmallRng, seed: &[u8], others: &[&[u8]]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..rng.random_range(1..4) {
        let at = rng.random_range(0..=b.len());
        match rng.random_range(0..6) {
            0 if at < b.len() => b[at] ^= 1 << rng.random_range(0..8),
            1 => b.insert(at, rng.random_range(0..=255)),
            2 if at < b.len() => {
                b.remove(at);
            }
            3 => b.truncate(at),
            4 => {
                let o = others[rng.random_range(0..others.len())];
                let from = rng.random_range(0..=o.len());
                let to = rng.random_range(from..=o.len());
                b.splice(at..at, o[from..to].iter().copied());
            }
            _ => b.insert(at, b",=:%."[rng.random_range(0..5)]),
        }
    }
    b
}

#[test]
fn mutated_engine_specs_parse_or_are_refused_naming_the_spec() {
    let seeds: &[&[u8]] = &[
        b"ab:depth=8",
        b"ab:time=1s,eval=release,book=release",
        b"ab:nodes=100000,hash=64,threads=2,tb=none",
        b"mcts:ckpt=none,sims=400,guard=4,ptemp=2",
        b"mcts:time=200ms,ab_eval=none,blend=0,reuse=true,seed=3",
        b"mcts:sims=64,gumbel=true,gumbel_actions=8",
        b"random:seed=3",
    ];
    let mut rng = SmallRng::seed_from_u64(88);
    for i in 0..50_000 {
        let bytes = mutate(&mut rng, seeds[i % seeds.len()], seeds);
        let text = String::from_utf8_lossy(&bytes);
        match EngineSpec::parse(&text) {
            Ok(spec) => {
                // A spec that parses lists its files and caps without trouble.
                let _ = spec.files();
                let _ = spec.capped(2, 64, std::time::Duration::from_secs(1), 1000, 100);
            }
            Err(e) => {
                let e = e.to_string();
                assert!(!e.is_empty(), "`{text}`");
            }
        }
    }
}

#[test]
fn mutated_checkpoint_metadata_is_refused_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("fanorona-mutated-meta-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let release = checkpoint::release_dir(fanorona_rules::Variant::Dimy).unwrap();
    let seed = std::fs::read(release.join("meta.json")).unwrap();
    let mut rng = SmallRng::seed_from_u64(88);
    for _ in 0..5_000 {
        let bytes = mutate(&mut rng, &seed, &[&seed, b"{}[]\"format\": 2,"]);
        std::fs::write(dir.join("meta.json"), &bytes).unwrap();
        if let Err(e) = checkpoint::read_meta(&dir) {
            assert!(e.to_string().contains("meta.json"), "{e}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
