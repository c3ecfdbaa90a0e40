//! `cargo run --release -p fanorona-cli` and `cargo test --workspace --release` build the
//! binary's dependencies with the same features, so the second command reuses the
//! first's build (a dependency built with other features is built again: 39 crates,
//! burn among them, over six minutes on two cores before this crate existed).

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Output};

/// The workspace's root.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Runs cargo with `args` in the workspace's root, `--offline` so that no test waits on
/// the network. A machine whose registry lacks a crate these commands read (the GPU
/// feature's crates are downloaded by no build of the default features) gets them once
/// with `cargo fetch --locked`, the download `.ci/run` makes before the tests, and the
/// command runs again. `None` when they cannot be downloaded (no network), after saying
/// what to run; CI (`CI` set) fails instead.
fn cargo_offline(args: &[&str]) -> Option<Output> {
    let run = || {
        Command::new(env!("CARGO"))
            .current_dir(ROOT)
            .env("RUSTC_BOOTSTRAP", "1")
            .arg(args[0])
            .arg("--offline")
            .args(&args[1..])
            .output()
            .expect("cargo runs")
    };
    let out = run();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() || !stderr.contains("offline") {
        return Some(out);
    }
    eprintln!("cargo {args:?} needs crates this registry lacks: running `cargo fetch --locked`");
    let fetch = Command::new(env!("CARGO"))
        .current_dir(ROOT)
        .args(["fetch", "--locked"])
        .output()
        .expect("cargo runs");
    if fetch.status.success() {
        return Some(run());
    }
    let why = format!(
        "cargo {args:?} needs crates that are not in the cargo registry ({}), and \
         `cargo fetch --locked` could not download them:\n{}\n\
         Run `cargo fetch` with network access, then the tests again.",
        std::env::var("CARGO_HOME").unwrap_or_else(|_| "~/.cargo".into()),
        String::from_utf8_lossy(&fetch.stderr).trim()
    );
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// Each package of `cargo tree` for `args` (name and version) with the feature lists it
/// is built with (a package built for the host and the target may have two).
fn features(args: &[&str]) -> Option<BTreeMap<String, BTreeSet<String>>> {
    let out = cargo_offline(
        &[
            &["tree", "--prefix", "none", "--no-dedupe", "-f", "{p}|{f}"],
            args,
        ]
        .concat(),
    )?;
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        // Path crates (the workspace's own) are cheap and named by folder.
        if package.contains(" (/") || package.contains(" (\\") || package.contains("(*)") {
            continue;
        }
        let name = package.trim_end_matches(" (proc-macro)").trim().to_string();
        map.entry(name)
            .or_default()
            .insert(features.trim().to_string());
    }
    Some(map)
}

#[test]
fn the_binary_builds_its_dependencies_as_the_workspace_tests_do() {
    let (Some(binary), Some(tests)) = (
        features(&["-p", "fanorona-cli", "-e", "normal,build"]),
        features(&["--workspace", "-e", "normal,build,dev"]),
    ) else {
        return;
    };
    assert!(
        binary.len() > 100,
        "cargo tree listed {} packages",
        binary.len()
    );
    let mut differ = Vec::new();
    for (package, lists) in &binary {
        let theirs = tests.get(package).cloned().unwrap_or_default();
        for f in lists {
            if !theirs.contains(f) {
                differ.push(format!("{package}: binary [{f}], tests {theirs:?}"));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "built twice (add the tests' features to crates/hack/Cargo.toml):\n{}",
        differ.join("\n")
    );
}

/// The units cargo would compile for `fanorona-cli` with `extra` arguments: package,
/// features, mode and profile of each, the workspace's own crates left out (cargo's
/// `--unit-graph`, unstable, reached on the stable toolchain through RUSTC_BOOTSTRAP as
/// the fuzz targets are).
fn units(extra: &[&str]) -> Option<BTreeSet<String>> {
    let out = cargo_offline(
        &[
            &[
                "build",
                "--release",
                "-p",
                "fanorona-cli",
                "--unit-graph",
                "-Z",
                "unstable-options",
            ],
            extra,
        ]
        .concat(),
    )?;
    assert!(
        out.status.success(),
        "cargo build --unit-graph {extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let graph: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a unit graph");
    graph["units"]
        .as_array()
        .expect("units")
        .iter()
        .filter(|u| {
            !u["pkg_id"]
                .as_str()
                .unwrap_or_default()
                .starts_with("path+")
        })
        .map(|u| {
            let id = u["pkg_id"].as_str().unwrap_or_default();
            let name = id.rsplit('#').next().unwrap_or(id);
            format!("{name} {} {} {}", u["mode"], u["features"], u["profile"])
        })
        .collect::<BTreeSet<String>>()
        .into()
}

#[test]
fn the_gpu_feature_adds_its_own_crates_and_rebuilds_no_other() {
    // `--features wgpu` after the CPU build: a unit of the CPU build that the GPU build
    // compiles with other features is compiled again, and everything above it (before
    // these entries: serde, proc-macro2 and 39 more, so hyper, rustls and protobuf, 18
    // minutes on two cores).
    let (Some(cpu), Some(gpu)) = (units(&[]), units(&["--features", "wgpu"])) else {
        return;
    };
    assert!(
        cpu.len() > 100 && gpu.len() > cpu.len(),
        "{} and {} units",
        cpu.len(),
        gpu.len()
    );
    let rebuilt: Vec<&String> = cpu
        .difference(&gpu)
        // burn's own crates are what the feature changes.
        .filter(|u| !u.starts_with("burn") && !u.starts_with("cubecl"))
        .collect();
    assert!(
        rebuilt.is_empty(),
        "built again by --features wgpu (add the GPU build's features to crates/hack/Cargo.toml):\n{}",
        rebuilt
            .iter()
            .map(|u| u.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
