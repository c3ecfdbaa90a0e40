//! The README's GPU command on a GPU: `fanorona train --config configs/smoke.toml`
//! built with `--features wgpu` runs to its end on wgpu (lavapipe in CI), and its
//! checkpoint plays on the CPU backend. Without `FANORONA_GPU_TEST=1` it returns at once
//! (a machine without Vulkan); `.ci/run` sets it after installing lavapipe.
#![cfg(feature = "wgpu")]

use std::process::Command;

#[test]
fn smoke_training_on_the_gpu_gives_a_checkpoint_the_cpu_plays() {
    if std::env::var("FANORONA_GPU_TEST").is_err() {
        eprintln!("FANORONA_GPU_TEST unset: the GPU training is skipped");
        return;
    }
    let root = std::env::temp_dir().join(format!("fanorona-gpu-train-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let config = format!("{}/../../configs/smoke.toml", env!("CARGO_MANIFEST_DIR"));
    let (ck, ex) = (root.join("c"), root.join("e"));
    let o = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["train", "--config", &config, "--run", "gpu", "--quiet"])
        .arg("--checkpoints")
        .arg(&ck)
        .arg("--experiments")
        .arg(&ex)
        .env("XDG_RUNTIME_DIR", &root)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("backend: wgpu"), "{out}");
    assert!(ck.join("gpu/00002/meta.json").is_file(), "{out}");
    // The checkpoint on the CPU backend: it loads and plays a legal turn.
    let spec = format!("mcts:ckpt={},sims=8", ck.join("gpu").display());
    let o = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["analyze", "--variant", "dimy", "--engine", &spec, "--json"])
        .env("FANORONA_DEVICE", "cpu")
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert!(v["best"].as_str().is_some_and(|b| !b.is_empty()), "{v}");
    std::fs::remove_dir_all(&root).ok();
}
