//! The offline page in Chromium (`crates/cli/tests/browser/offline.mjs`): served once,
//! then with the server stopped and the network cut it plays a whole dimy game against
//! the engine in its Web Worker and shows an analysis. Needs the site `crates/web/build.sh`
//! makes (`crates/web/dist`), chromium and playwright-core (`.ci/run` installs them); the
//! test says what is missing and passes, unless `FANORONA_BROWSER_TEST=1` and
//! `FANORONA_WASM_TEST=1` (set by `.ci/run`) demand it. The screenshot goes to
//! target/browser/offline.png.

use std::path::Path;
use std::process::Command;

#[test]
fn the_offline_page_plays_a_whole_game_with_no_network() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let site = root.join("crates/web/dist");
    let browser = root.join("crates/cli/tests/browser");
    let ready = site.join("index.html").exists()
        && browser.join("node_modules/playwright-core").exists()
        && Command::new("chromium").arg("--version").output().is_ok();
    if !ready {
        let required = std::env::var_os("FANORONA_BROWSER_TEST").is_some()
            && std::env::var_os("FANORONA_WASM_TEST").is_some();
        assert!(
            !required,
            "the offline page, chromium or playwright-core is missing"
        );
        eprintln!(
            "warning: crates/web/dist, chromium or playwright-core missing: the offline page is not tested"
        );
        return;
    }
    let shots = root.join("target/browser");
    std::fs::create_dir_all(&shots).unwrap();
    let out = Command::new("node")
        .arg(browser.join("offline.mjs"))
        .arg(&site)
        .arg(shots.join("offline.png"))
        .output()
        .expect("node");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("offline browser test passed"), "{text}");
}
