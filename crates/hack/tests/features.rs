//! `cargo run --release -p fanorona-cli` and `cargo test --workspace --release` build the
//! binary's dependencies with the same features, so the second command reuses the
//! first's build (a dependency built with other features is built again: 39 crates,
//! burn among them, over six minutes on two cores before this crate existed).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Each package of `cargo tree` for `args` (name and version) with the feature lists it
/// is built with (a package built for the host and the target may have two).
fn features(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let out = Command::new(env!("CARGO"))
        .current_dir(root)
        .args([
            "tree",
            "--offline",
            "--prefix",
            "none",
            "--no-dedupe",
            "-f",
            "{p}|{f}",
        ])
        .args(args)
        .output()
        .expect("cargo runs");
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
    map
}

#[test]
fn the_binary_builds_its_dependencies_as_the_workspace_tests_do() {
    let binary = features(&["-p", "fanorona-cli", "-e", "normal,build"]);
    let tests = features(&["--workspace", "-e", "normal,build,dev"]);
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
