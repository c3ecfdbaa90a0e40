//! Runs the Python package's tests (`tests/test_*.py`, pytest) against the extension this
//! build made: `lib_fanorona.so` beside the test binary, staged with the package's Python
//! files in a temporary folder on `PYTHONPATH`.
//!
//! The interpreter is `$FANORONA_PYTHON` (else `python3`); it needs numpy, pytest,
//! gymnasium and pettingzoo (`pip install "./crates/python[test]"`, or what `.ci/run`
//! installs). `cargo test` does not link the extension (a cdylib): `cargo build
//! --workspace --all-targets` does, with the same build. Without the interpreter's
//! packages or the extension the test says so and passes, unless `FANORONA_PYTHON_TEST=1`
//! (set by `.ci/run`) demands them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The extension `cargo build --workspace --all-targets` made beside this test binary, if
/// it is there and not much older than this binary (`Err`: why not).
fn extension() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/pytest-<hash> -> target/<profile>/
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let so = ["lib_fanorona.so", "lib_fanorona.dylib", "_fanorona.dll"]
        .iter()
        .map(|n| profile.join(n))
        .find(|p| p.exists())
        .ok_or_else(|| format!("the extension is not in {}", profile.display()))?;
    // Both come from one build; an extension left by an older build is not tested.
    let stale = match (modified(&so), modified(&exe)) {
        (Some(s), Some(e)) => s + std::time::Duration::from_secs(600) < e,
        _ => false,
    };
    if stale {
        return Err(format!("{} is older than this build", so.display()));
    }
    Ok(so)
}

#[test]
fn python_tests() {
    let python = std::env::var("FANORONA_PYTHON").unwrap_or_else(|_| "python3".into());
    let required = std::env::var_os("FANORONA_PYTHON_TEST").is_some();
    let has = Command::new(&python)
        .args(["-c", "import numpy, pytest, gymnasium, pettingzoo"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            !required,
            "FANORONA_PYTHON_TEST is set but `{python}` lacks numpy, pytest, gymnasium or pettingzoo"
        );
        eprintln!(
            "warning: `{python}` lacks numpy, pytest, gymnasium or pettingzoo: the Python tests are skipped (set FANORONA_PYTHON to an interpreter that has them)"
        );
        return;
    }
    let so = match extension() {
        Ok(so) => so,
        Err(why) => {
            let hint =
                "run `cargo build --workspace --all-targets --release` first (as .ci/run does)";
            assert!(!required, "{why}: {hint}");
            eprintln!("warning: {why}: the Python tests are skipped; {hint}");
            return;
        }
    };
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stage = std::env::temp_dir().join(format!("fanorona-python-{}", std::process::id()));
    let pkg = stage.join("fanorona");
    let _ = std::fs::remove_dir_all(&stage);
    std::fs::create_dir_all(&pkg).unwrap();
    for e in std::fs::read_dir(here.join("python/fanorona")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, pkg.join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(&so, pkg.join("_fanorona.abi3.so")).unwrap();
    let status = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(here.join("tests"))
        .env("PYTHONPATH", &stage)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .status()
        .expect("pytest starts");
    let _ = std::fs::remove_dir_all(&stage);
    assert!(status.success(), "pytest failed (its output is above)");
}
