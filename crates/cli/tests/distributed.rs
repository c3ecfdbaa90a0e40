//! `fanorona selfplay` and `fanorona learn` as separate processes: over a folder store
//! (the smoke example of docs/distributed.md) and over a real S3 protocol server on
//! loopback (s3s-fs serving a temporary folder), with faults: a worker killed with
//! SIGKILL, the learner killed and restarted, the server stopped and restarted, a damaged
//! chunk, two workers with one ID. Each ends with the learner's sample count equal to
//! what the games it consumed produced.

use fanorona_testkit::{repo_file, scratch};
use fanorona_train::distributed::{Ledger, decode_chunk, parse_chunk_key};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A child process killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Proc {
    /// Waits for the exit (at most `limit`): status, stdout, stderr.
    fn finish(mut self, limit: Duration) -> Output {
        let t0 = Instant::now();
        loop {
            if self.0.try_wait().unwrap().is_some() {
                break;
            }
            assert!(t0.elapsed() < limit, "a process ran past {limit:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let child = std::mem::replace(
            &mut self.0,
            Command::new("true").spawn().expect("`true` runs"),
        );
        child.wait_with_output().unwrap()
    }
}

fn spawn(args: &[String], env: &[(String, String)], log: &Path) -> Proc {
    let mut c = Command::new(env!("CARGO_BIN_EXE_fanorona"));
    // In the test's own folder (the log's), so that default paths such as
    // `experiments/` land there and not in the source tree.
    c.current_dir(log.parent().expect("the log is in the test's folder"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap());
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") {
            c.env_remove(k);
        }
    }
    for (k, v) in env {
        c.env(k, v);
    }
    Proc(c.spawn().expect("the binary starts"))
}

fn strings(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

/// `ROLE --store URL --run r --config CONFIG --json EXTRA...`
fn run_args(role: &str, url: &str, config: &str, extra: &[&str]) -> Vec<String> {
    let mut a = strings(&[
        role, "--store", url, "--run", "r", "--config", config, "--json",
    ]);
    a.extend(strings(extra));
    a
}

/// A learner's arguments: `--generations N --experiments DIR/exp` after `common`.
fn learner_args(mut common: Vec<String>, generations: u64, dir: &Path) -> Vec<String> {
    common.extend(strings(&[
        "--generations",
        &generations.to_string(),
        "--experiments",
    ]));
    common.push(dir.join("exp").display().to_string());
    common
}

fn wait_for(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(t0.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn json_line(o: &Output) -> serde_json::Value {
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: `{text}`"))
}

/// The chunk files of a run folder (`<run>/chunks/<worker>/<seq>.chunk`).
fn chunk_files(run_dir: &Path) -> Vec<(String, u64, PathBuf)> {
    let mut out = Vec::new();
    let Ok(workers) = std::fs::read_dir(run_dir.join("chunks")) else {
        return out;
    };
    for w in workers.flatten() {
        for f in std::fs::read_dir(w.path()).unwrap().flatten() {
            let key = format!(
                "chunks/{}/{}",
                w.file_name().to_string_lossy(),
                f.file_name().to_string_lossy()
            );
            if let Some((worker, seq)) = parse_chunk_key(&key) {
                out.push((worker, seq, f.path()));
            }
        }
    }
    out
}

fn pointer(path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str::<serde_json::Value>(&text).ok()?["generation"].as_u64()
}

/// Checks the learner's final checkpoint in a run folder: its sample and game counts
/// equal the sums over the chunks its ledger lists as consumed (less those set aside).
fn check_counts(run_dir: &Path, run: &str) -> (u64, u64) {
    let g = pointer(&run_dir.join("learner/LATEST")).expect("a learner checkpoint");
    let ck = run_dir.join(format!("learner/{g:05}"));
    let ledger: Ledger =
        serde_json::from_str(&std::fs::read_to_string(ck.join("ledger.json")).unwrap()).unwrap();
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ck.join("state.json")).unwrap()).unwrap();
    let (mut games, mut samples) = (0, 0);
    for (worker, seq, path) in chunk_files(run_dir) {
        if !ledger
            .consumed
            .get(&worker)
            .is_some_and(|s| s.contains(&seq))
        {
            continue;
        }
        let c = decode_chunk(&std::fs::read(&path).unwrap(), run).unwrap();
        games += c.header.games;
        samples += c.header.samples;
    }
    samples -= ledger.stale_samples;
    assert_eq!(state["samples"].as_u64().unwrap(), samples, "samples");
    assert_eq!(state["games"].as_u64().unwrap(), games, "games");
    (games, samples)
}

#[test]
fn the_smoke_example_over_a_folder_store() {
    let dir = scratch("smoke");
    let url = format!("file://{}", dir.join("store").display());
    let config = repo_file("configs/smoke.toml");
    let common = |role: &str| run_args(role, &url, &config, &[]);
    let learn = learner_args(common("learn"), 2, &dir);
    let mut work = common("selfplay");
    work.extend(strings(&["--games", "64", "--worker", "w1", "--quiet"]));
    // The worker first: it waits for the learner's first model.
    let w = spawn(&work, &[], &dir.join("w.log"));
    std::thread::sleep(Duration::from_millis(300));
    let l = spawn(&learn, &[], &dir.join("l.log"));
    let lo = l.finish(Duration::from_secs(300));
    let wo = w.finish(Duration::from_secs(300));
    let log = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
    assert!(lo.status.success(), "{}", log("l.log"));
    assert!(wo.status.success(), "{}", log("w.log"));
    let (lj, wj) = (json_line(&lo), json_line(&wo));
    assert_eq!(lj["generation"], 2);
    // The worker plays ahead of the learner as far as the run allows (4 generations of 8
    // games) and no further; once the learner has stopped it ends, saying why.
    let (games, chunks) = (
        wj["games"].as_u64().unwrap(),
        wj["chunks"].as_u64().unwrap(),
    );
    assert!((48..=64).contains(&games) && games == chunks * 8, "{wj}");
    if games < 64 {
        let out = String::from_utf8_lossy(&wo.stdout);
        assert!(out.contains("nothing more to play for"), "{out}");
    }
    let run_dir = dir.join("store/r");
    for f in [
        "layout.json",
        "config.toml",
        "models/LATEST",
        "models/00002/model.bpk",
        "learner/LATEST",
    ] {
        assert!(run_dir.join(f).exists(), "{f}");
    }
    assert_eq!(pointer(&run_dir.join("models/LATEST")), Some(2));
    let (games, _) = check_counts(&run_dir, "r");
    assert_eq!(games, 16, "two generations of 8 games");
    assert!(dir.join("exp/r/metrics.jsonl").exists());
    // Bad input: a relative file URL, an unknown scheme, a bad worker ID.
    for (args, needle) in [
        (
            strings(&["learn", "--store", "file://rel/path", "--run", "r"]),
            "absolute",
        ),
        (
            strings(&["learn", "--store", "ftp://x", "--run", "r"]),
            "ftp://x",
        ),
        (
            strings(&["selfplay", "--store", &url, "--run", "r", "--worker", "a/b"]),
            "a/b",
        ),
    ] {
        let o = spawn(&args, &[], &dir.join("bad.log")).finish(Duration::from_secs(60));
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(log("bad.log").contains(needle), "{}", log("bad.log"));
    }
    // Another configuration for the same run is refused.
    let mut other = common("learn");
    other.extend(strings(&[
        "--set",
        "selfplay.sims=99",
        "--generations",
        "3",
    ]));
    let o = spawn(&other, &[], &dir.join("bad.log")).finish(Duration::from_secs(60));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        log("bad.log").contains("another configuration"),
        "{}",
        log("bad.log")
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A tree run (configs/zero.toml, made tiny): the learner keeps its checkpoints on its
/// own disk and publishes its evaluation; one worker labels positions of its games 2
/// turns deeper and the learner's next generation reads them, once.
#[test]
fn a_tree_run_s_worker_over_a_folder_store() {
    let dir = scratch("tree");
    let url = format!("file://{}", dir.join("store").display());
    let config = repo_file("configs/zero.toml");
    let tiny = [
        "variant=dimy",
        "tree.hidden=8",
        "tree.depth=2",
        "tree.label_depth=1",
        "tree.games=4",
        "tree.threads=1",
        "tree.deep_positions=2",
        "train.min_replay=32",
        "train.batch_size=32",
        "run.arena_every=0",
        "run.curve_minutes=0",
        "run.arena_book=",
        "distributed.poll_seconds=0.05",
    ];
    let common = |role: &str, extra: &[&str]| {
        let mut a = run_args(role, &url, &config, extra);
        for t in tiny {
            a.extend(strings(&["--set", t]));
        }
        a
    };
    let ckpt = dir.join("ckpt").display().to_string();
    let learn = |n: u64| {
        let a = learner_args(common("learn", &["--checkpoints", &ckpt]), n, &dir);
        let o = spawn(&a, &[], &dir.join("l.log")).finish(Duration::from_secs(300));
        let log = std::fs::read_to_string(dir.join("l.log")).unwrap();
        assert!(o.status.success(), "{log}");
        (
            json_line(&o),
            String::from_utf8_lossy(&o.stdout).to_string(),
        )
    };
    assert_eq!(learn(0).0["generation"], 0);
    let run_dir = dir.join("store/r");
    assert_eq!(pointer(&run_dir.join("models/LATEST")), Some(0));
    let work = common(
        "selfplay",
        &[
            "--games",
            "4",
            "--worker",
            "w1",
            "--quiet",
            "--set",
            "distributed.teacher_gap=2",
        ],
    );
    let wo = spawn(&work, &[], &dir.join("w.log")).finish(Duration::from_secs(300));
    let wlog = std::fs::read_to_string(dir.join("w.log")).unwrap();
    assert!(wo.status.success(), "{wlog}");
    let wj = json_line(&wo);
    assert_eq!(wj["games"], 4, "{wj}");
    let labels = wj["samples"].as_u64().unwrap();
    assert!(labels > 0, "{wj}");
    let chunks = chunk_files(&run_dir);
    assert_eq!(chunks.len(), 1, "one chunk of tree.games = 4 games");
    let c = decode_chunk(&std::fs::read(&chunks[0].2).unwrap(), "r").unwrap();
    assert_eq!(c.header.labels, labels);
    let (lj, out) = learn(2);
    assert_eq!(lj["generation"], 2);
    assert_eq!(pointer(&run_dir.join("models/LATEST")), Some(2));
    assert!(run_dir.join("models/00002/eval.txt").exists());
    let ledger: Ledger = serde_json::from_str(
        &std::fs::read_to_string(dir.join("ckpt/r/00002/ledger.json")).unwrap(),
    )
    .unwrap();
    assert!(ledger.consumed["w1"].contains(&0), "{ledger:?}");
    assert!(
        out.contains(&format!("{labels} labels from 1 chunks of the workers")),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn two_workers_with_one_id_are_detected() {
    let dir = scratch("same-id");
    let url = format!("file://{}", dir.join("store").display());
    let config = repo_file("configs/smoke.toml");
    let l = spawn(
        &strings(&[
            "learn",
            "--store",
            &url,
            "--run",
            "r",
            "--config",
            &config,
            "--generations",
            "0",
            // Workers far ahead of a learner that has stopped would end before they meet.
            "--set",
            "distributed.max_staleness=1000",
        ]),
        &[],
        &dir.join("l.log"),
    )
    .finish(Duration::from_secs(120));
    assert!(l.status.success());
    let worker = strings(&[
        "selfplay", "--store", &url, "--run", "r", "--games", "400", "--worker", "same", "--quiet",
    ]);
    let a = spawn(&worker, &[], &dir.join("a.log"));
    wait_for("the first chunk", Duration::from_secs(120), || {
        !chunk_files(&dir.join("store/r")).is_empty()
    });
    let b = spawn(&worker, &[], &dir.join("b.log"));
    // The two now race for the same sequence numbers: one of them must stop, saying why.
    let t0 = Instant::now();
    let (mut a, mut b) = (Some(a), Some(b));
    let mut failed = Vec::new();
    while failed.is_empty() && t0.elapsed() < Duration::from_secs(240) {
        for (p, log) in [(&mut a, "a.log"), (&mut b, "b.log")] {
            if let Some(st) = p.as_mut().and_then(|p| p.0.try_wait().unwrap()) {
                *p = None;
                if !st.success() {
                    failed.push(std::fs::read_to_string(dir.join(log)).unwrap());
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(failed.len(), 1, "one worker stops");
    assert!(
        failed[0].contains("worker ID `same` is in use by another worker"),
        "{}",
        failed[0]
    );
    drop((a, b));
    std::fs::remove_dir_all(&dir).ok();
}

/// An S3 server (s3s-fs) on a loopback port, in a thread of this test process.
struct S3Server {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    port: u16,
}

impl S3Server {
    fn start(root: &Path, port: u16) -> S3Server {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let (ptx, prx) = std::sync::mpsc::channel();
        let root = root.to_path_buf();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                use hyper_util::rt::{TokioExecutor, TokioIo};
                use hyper_util::server::conn::auto::Builder;
                let fs = s3s_fs::FileSystem::new(&root).unwrap();
                let mut b = s3s::service::S3ServiceBuilder::new(fs);
                b.set_auth(s3s::auth::SimpleAuth::from_single(
                    "test-key",
                    "test-secret",
                ));
                let service = b.build();
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                    .await
                    .unwrap();
                ptx.send(listener.local_addr().unwrap().port()).unwrap();
                let mut rx = rx;
                loop {
                    tokio::select! {
                        r = listener.accept() => {
                            let Ok((socket, _)) = r else { continue };
                            let conn = Builder::new(TokioExecutor::new())
                                .serve_connection(TokioIo::new(socket), service.clone())
                                .into_owned();
                            tokio::spawn(async move { let _ = conn.await; });
                        }
                        _ = &mut rx => break,
                    }
                }
            });
            // Dropping the runtime ends every open connection.
        });
        let port = prx
            .recv_timeout(Duration::from_secs(30))
            .expect("the server starts");
        S3Server {
            stop: Some(tx),
            thread: Some(thread),
            port,
        }
    }

    fn env(&self) -> Vec<(String, String)> {
        [
            ("AWS_ACCESS_KEY_ID", "test-key".to_string()),
            ("AWS_SECRET_ACCESS_KEY", "test-secret".to_string()),
            ("AWS_REGION", "us-east-1".to_string()),
            ("AWS_ENDPOINT", format!("http://127.0.0.1:{}", self.port)),
            ("AWS_ALLOW_HTTP", "true".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[test]
fn faults_over_an_s3_server_lose_nothing_and_count_nothing_twice() {
    let dir = scratch("s3");
    let root = dir.join("s3");
    std::fs::create_dir_all(root.join("bucket")).unwrap();
    let mut server = S3Server::start(&root, 0);
    let env = server.env();
    let url = "s3://bucket/runs";
    let run_dir = root.join("bucket/runs/r");
    let config = repo_file("configs/smoke.toml");
    let common = |role: &str| {
        run_args(
            role,
            url,
            &config,
            &[
                "--set",
                "distributed.poll_seconds=0.2",
                "--set",
                "distributed.max_staleness=1000",
            ],
        )
    };
    let learn = learner_args(common("learn"), 6, &dir);
    let worker = |id: &str, games: &str| {
        let mut w = common("selfplay");
        w.extend(strings(&["--worker", id, "--games", games, "--quiet"]));
        w
    };
    let l1 = spawn(&learn, &env, &dir.join("l1.log"));
    let wa = spawn(&worker("wa", "1000"), &env, &dir.join("wa.log"));
    // The learner killed (SIGKILL) after its first checkpoint, then restarted.
    wait_for(
        "the learner's first checkpoint",
        Duration::from_secs(180),
        || pointer(&run_dir.join("learner/LATEST")).is_some_and(|g| g >= 1),
    );
    drop(l1);
    // The worker killed wherever it is (playing or uploading) after a few chunks.
    wait_for("three chunks", Duration::from_secs(180), || {
        chunk_files(&run_dir).len() >= 3
    });
    drop(wa);
    // A damaged chunk, as a crashed or buggy worker might leave.
    std::fs::create_dir_all(run_dir.join("chunks/wz")).unwrap();
    std::fs::write(
        run_dir.join("chunks/wz/00000000.chunk"),
        b"FNRC and then nothing",
    )
    .unwrap();
    // The server stops; the learner and a new worker start during the outage (their
    // first calls fail and are retried); three seconds later it is back on the same port.
    let port = server.port;
    drop(server);
    let l2 = spawn(&learn, &env, &dir.join("l2.log"));
    let wb = spawn(&worker("wb", "48"), &env, &dir.join("wb.log"));
    std::thread::sleep(Duration::from_secs(3));
    server = S3Server::start(&root, port);
    let lo = l2.finish(Duration::from_secs(400));
    let log = |n: &str| std::fs::read_to_string(dir.join(n)).unwrap();
    assert!(lo.status.success(), "{}", log("l2.log"));
    let wo = wb.finish(Duration::from_secs(400));
    assert!(wo.status.success(), "{}", log("wb.log"));
    assert_eq!(json_line(&lo)["generation"], 6);
    // Both met the outage, retried and said so.
    assert!(
        log("l2.log").contains("retrying") && log("wb.log").contains("retrying"),
        "no retry reported:\n{}\n{}",
        log("l2.log"),
        log("wb.log")
    );
    assert!(
        String::from_utf8_lossy(&lo.stdout).contains("damaged"),
        "{}",
        String::from_utf8_lossy(&lo.stdout)
    );
    assert!(run_dir.join("quarantine/wz/00000000.chunk").exists());
    let (games, samples) = check_counts(&run_dir, "r");
    assert!(games >= 48 && samples > 0);
    assert_eq!(json_line(&lo)["samples"].as_u64(), Some(samples));
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

/// Two workers far faster than the learner, over the S3 server, with the run's default
/// `max_staleness` (4 generations of 8 games): they wait rather than run ahead, the
/// learner drops nothing, and every game they finished is in the store, counted once.
#[test]
fn workers_faster_than_the_learner_lose_no_game_over_s3() {
    let dir = scratch("fast");
    let root = dir.join("s3");
    std::fs::create_dir_all(root.join("bucket")).unwrap();
    let server = S3Server::start(&root, 0);
    let env = server.env();
    let run_dir = root.join("bucket/runs/r");
    let config = repo_file("configs/smoke.toml");
    let common = |role: &str| {
        run_args(
            role,
            "s3://bucket/runs",
            &config,
            // A slow learner: eight training samples per new one.
            &[
                "--set",
                "distributed.poll_seconds=0.1",
                "--set",
                "train.train_ratio=8",
            ],
        )
    };
    let learn = learner_args(common("learn"), 3, &dir);
    let l = spawn(&learn, &env, &dir.join("l.log"));
    let workers: Vec<Proc> = ["f1", "f2"]
        .iter()
        .map(|id| {
            let mut w = common("selfplay");
            w.extend(strings(&["--worker", id, "--games", "1000"]));
            spawn(&w, &env, &dir.join(format!("{id}.log")))
        })
        .collect();
    let lo = l.finish(Duration::from_secs(300));
    assert!(
        lo.status.success(),
        "{}",
        std::fs::read_to_string(dir.join("l.log")).unwrap()
    );
    let (mut played, mut waited) = (0, false);
    for w in workers {
        let o = w.finish(Duration::from_secs(120));
        assert!(o.status.success());
        let out = String::from_utf8_lossy(&o.stdout);
        // Which of the two meets the budget first is a matter of timing.
        waited |= out.contains("wait for the learner");
        assert!(out.contains("nothing more to play for"), "{out}");
        played += json_line(&o)["games"].as_u64().unwrap();
    }
    assert!(waited, "a worker waited for the learner");
    assert_eq!(json_line(&lo)["generation"], 3);
    let stored: u64 = chunk_files(&run_dir)
        .iter()
        .map(|(_, _, p)| {
            decode_chunk(&std::fs::read(p).unwrap(), "r")
                .unwrap()
                .header
                .games
        })
        .sum();
    assert_eq!(stored, played, "every finished game is in the store");
    // At most the budget ahead (32 games), plus what the two had in flight.
    assert!((24 + 32..24 + 32 + 16).contains(&stored), "{stored} games");
    let (games, _) = check_counts(&run_dir, "r");
    assert_eq!(games, 24);
    let ledger: Ledger = serde_json::from_str(
        &std::fs::read_to_string(run_dir.join("learner/00003/ledger.json")).unwrap(),
    )
    .unwrap();
    assert_eq!((ledger.stale_chunks, ledger.stale.len()), (0, 0));
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

/// Errors that retrying cannot mend end the command at once with their cause: a missing
/// bucket (for the worker, not "no model yet"), a wrong secret, an unknown access key.
#[test]
fn permanent_store_errors_end_the_command_at_once() {
    let dir = scratch("permanent");
    let root = dir.join("s3");
    std::fs::create_dir_all(root.join("bucket")).unwrap();
    let server = S3Server::start(&root, 0);
    let config = repo_file("configs/smoke.toml");
    let run = |role: &[&str], url: &str, env: &[(String, String)], log: &str| {
        let mut args = strings(role);
        args.extend(strings(&[
            "--store", url, "--run", "r", "--config", &config,
        ]));
        let t0 = Instant::now();
        let o = spawn(&args, env, &dir.join(log)).finish(Duration::from_secs(60));
        let text = std::fs::read_to_string(dir.join(log)).unwrap();
        (o, text, t0.elapsed())
    };
    let worker = ["selfplay", "--worker", "w1", "--games", "4"];
    let learner = ["learn", "--generations", "1"];
    let good = server.env();
    let with = |key: &str, value: &str| -> Vec<(String, String)> {
        good.iter()
            .map(|(k, v)| (k.clone(), if k == key { value.into() } else { v.clone() }))
            .collect()
    };
    for (role, url, env, want) in [
        (
            &worker[..],
            "s3://missing/runs",
            good.clone(),
            "the bucket does not exist",
        ),
        (
            &learner[..],
            "s3://missing/runs",
            good.clone(),
            "the bucket does not exist",
        ),
        (
            &learner[..],
            "s3://bucket/runs",
            with("AWS_SECRET_ACCESS_KEY", "wrong"),
            "credentials",
        ),
        (
            &worker[..],
            "s3://bucket/runs",
            with("AWS_ACCESS_KEY_ID", "nobody"),
            "credentials",
        ),
    ] {
        let (o, log, took) = run(role, url, &env, "run.log");
        assert_eq!(o.status.code(), Some(1), "{role:?} {url}: {log}");
        assert!(
            log.contains(want) && !log.contains("retrying"),
            "{role:?} {url}: {log}"
        );
        // The default retry time is 600 s; a permanent error is not retried at all.
        assert!(took < Duration::from_secs(30), "{role:?} {url}: {took:?}");
    }
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}

/// Games per second of one worker, then of two, with a learner, through the S3 server
/// (a measurement, not a check: `cargo test --release -p fanorona-cli --test distributed
/// -- --ignored --nocapture`).
#[test]
#[ignore]
fn throughput_of_one_and_two_workers() {
    let dir = scratch("throughput");
    let root = dir.join("s3");
    std::fs::create_dir_all(root.join("bucket")).unwrap();
    let server = S3Server::start(&root, 0);
    let env = server.env();
    let config = repo_file("configs/dimy-warm.toml");
    for workers in [1usize, 2] {
        let run = format!("t{workers}");
        let common = |role: &str| {
            strings(&[
                "--store",
                "s3://bucket",
                "--run",
                &run,
                "--config",
                &config,
                "--json",
            ])
            .into_iter()
            .fold(vec![role.to_string()], |mut v, s| {
                v.push(s);
                v
            })
        };
        let mut learn = common("learn");
        learn.extend(strings(&["--generations", "1000000", "--experiments"]));
        learn.push(dir.join("exp").display().to_string());
        let l = spawn(&learn, &env, &dir.join(format!("l{workers}.log")));
        let t0 = Instant::now();
        let ws: Vec<Proc> = (0..workers)
            .map(|i| {
                let mut w = common("selfplay");
                w.extend(strings(&[
                    "--worker",
                    &format!("w{i}"),
                    "--games",
                    "256",
                    "--quiet",
                ]));
                spawn(&w, &env, &dir.join(format!("w{workers}-{i}.log")))
            })
            .collect();
        let outs: Vec<Output> = ws
            .into_iter()
            .map(|w| w.finish(Duration::from_secs(3600)))
            .collect();
        let wall = t0.elapsed().as_secs_f64();
        let games: u64 = outs
            .iter()
            .map(|o| json_line(o)["games"].as_u64().unwrap())
            .sum();
        println!(
            "{workers} worker(s) + learner: {games} games in {wall:.1} s = {:.2} games/s",
            games as f64 / wall
        );
        drop(l);
    }
    drop(server);
}

// Kills at random (issue 99): the main job's recipe in small, and a distributed tree
// run (a learner and two workers over a folder store), each SIGKILLed at random moments
// and restarted with the same command. `crates/cli/bench/chaos.sh` runs the long version
// (20 kills over 10 minutes each); `cargo test` a short one.

/// The chaos's length, kills and seed: `FANORONA_CHAOS_SECONDS` (default 12),
/// `FANORONA_CHAOS_KILLS` (default 4), `FANORONA_CHAOS_SEED` (default: the clock).
fn chaos_plan() -> (Vec<Duration>, u64) {
    let var = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let secs = var("FANORONA_CHAOS_SECONDS").unwrap_or(12);
    let kills = var("FANORONA_CHAOS_KILLS").unwrap_or(4);
    let seed = var("FANORONA_CHAOS_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
    });
    // A splitmix64 stream: enough randomness for when to kill.
    let mut x = seed;
    let mut next = || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut at: Vec<Duration> = (0..kills)
        .map(|_| Duration::from_millis(next() % (secs * 1000).max(1)))
        .collect();
    at.sort();
    eprintln!("chaos: {kills} kills over {secs} s, FANORONA_CHAOS_SEED={seed}");
    (at, seed)
}

/// [`spawn`] with stdout to the log as well: a long run fills a pipe nobody reads.
fn spawn_logged(args: &[String], log: &Path) -> Proc {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let c = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .current_dir(log.parent().expect("the log is in the test's folder"))
        .args(args)
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .expect("the binary starts");
    Proc(c)
}

/// The highest numbered checkpoint folder in `dir` (0 if none).
fn newest(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0)
}

#[test]
fn the_main_jobs_recipe_killed_at_random_loses_and_repeats_nothing() {
    let dir = scratch("chaos-train");
    let config = dir.join("tiny.toml");
    std::fs::write(
        &config,
        "variant = \"dimy\"\n[tree]\nmethod = \"treestrap\"\nhidden = 8\ndepth = 2\nlabel_depth = 1\ngames = 6\nthreads = 1\ndeep_gap = 1\ndeep_positions = 2\noutcome_positions = 2\n[net]\nblocks = 1\nchannels = 8\npositions = 2\nwindow = 2000\n[train]\nbatch_size = 32\nreplay_window = 3000\nmin_replay = 32\n[run]\narena_every = 0\n",
    )
    .unwrap();
    let ck = dir.join("ck");
    let train = |run: &str, gens: u64| {
        strings(&[
            "train",
            "--config",
            &config.display().to_string(),
            "--run",
            run,
            "--checkpoints",
            &ck.display().to_string(),
            "--experiments",
            &dir.join("ex").display().to_string(),
            "--quiet",
            "--set",
            &format!("run.generations={gens}"),
        ])
    };
    let (kills, _) = chaos_plan();
    let log = dir.join("k.log");
    let t0 = Instant::now();
    let mut p = spawn_logged(&train("k", 1_000_000), &log);
    for at in &kills {
        std::thread::sleep(at.saturating_sub(t0.elapsed()));
        let _ = p.0.kill();
        let _ = p.0.wait();
        p = spawn_logged(&train("k", 1_000_000), &log);
    }
    std::thread::sleep(Duration::from_millis(300));
    drop(p);
    let until = newest(&ck.join("k")) + 2;
    eprintln!(
        "chaos: the run reached generation {} through {} kills",
        until - 2,
        kills.len()
    );
    for run in ["k", "once"] {
        let o = spawn_logged(&train(run, until), &dir.join(format!("{run}-end.log")))
            .finish(Duration::from_secs(1800));
        let text = std::fs::read_to_string(dir.join(format!("{run}-end.log"))).unwrap();
        assert!(o.status.success(), "{text}");
    }
    let read = |run: &str, file: &str| {
        std::fs::read(ck.join(run).join(file)).unwrap_or_else(|e| panic!("{run}/{file}: {e}"))
    };
    let g = format!("{until:05}");
    for file in [
        format!("{g}/eval.txt"),
        format!("{g}/window.json"),
        format!("net/{g}/replay.bin"),
        format!("net/{g}/state.json"),
    ] {
        assert_eq!(read("k", &file), read("once", &file), "{file}");
    }
    let state = |run: &str| -> serde_json::Value {
        serde_json::from_slice(&read(run, &format!("{g}/state.json"))).unwrap()
    };
    for key in ["generation", "games", "samples", "steps"] {
        assert_eq!(state("k")[key], state("once")[key], "{key}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_distributed_tree_run_killed_at_random_loses_and_repeats_nothing() {
    let dir = scratch("chaos-dist");
    let url = format!("file://{}", dir.join("store").display());
    let config = repo_file("configs/zero.toml");
    let tiny = [
        "variant=dimy",
        "tree.hidden=8",
        "tree.depth=2",
        "tree.label_depth=1",
        "tree.games=4",
        "tree.threads=1",
        "tree.deep_positions=2",
        "train.min_replay=32",
        "train.batch_size=32",
        // A window that keeps every label: the checkpoint then lists them all.
        "train.replay_window=100000000",
        "run.arena_every=0",
        "run.curve_minutes=0",
        "run.arena_book=",
        "distributed.poll_seconds=0.05",
        // The learner's own deeper teacher off: every teacher label is a worker's.
        "tree.deep_gap=0",
        "distributed.teacher_gap=2",
    ];
    let ckpt = dir.join("ckpt").display().to_string();
    let args = |role: &str, extra: &[&str]| {
        let mut a = run_args(role, &url, &config, extra);
        for t in tiny {
            a.extend(strings(&["--set", t]));
        }
        a
    };
    let learner = |n: u64| learner_args(args("learn", &["--checkpoints", &ckpt]), n, &dir);
    let worker = |id: &str| {
        args(
            "selfplay",
            &["--games", "100000", "--worker", id, "--quiet"],
        )
    };
    let (kills, seed) = chaos_plan();
    let mut procs = vec![
        spawn_logged(&learner(1_000_000), &dir.join("l.log")),
        spawn_logged(&worker("w1"), &dir.join("w1.log")),
        spawn_logged(&worker("w2"), &dir.join("w2.log")),
    ];
    let t0 = Instant::now();
    for (i, at) in kills.iter().enumerate() {
        std::thread::sleep(at.saturating_sub(t0.elapsed()));
        let k = (seed as usize).wrapping_add(i * 7) % 3;
        let _ = procs[k].0.kill();
        let _ = procs[k].0.wait();
        procs[k] = match k {
            0 => spawn_logged(&learner(1_000_000), &dir.join("l.log")),
            1 => spawn_logged(&worker("w1"), &dir.join("w1.log")),
            _ => spawn_logged(&worker("w2"), &dir.join("w2.log")),
        };
    }
    std::thread::sleep(Duration::from_millis(300));
    // The learner stopped and finished two generations on: the workers then end.
    let _ = procs[0].0.kill();
    let _ = procs[0].0.wait();
    let run_dir = dir.join("store/r");
    let ck_dir = dir.join("ckpt/r");
    let reached = newest(&ck_dir);
    let l = spawn(&learner(reached + 2), &[], &dir.join("l-end.log"));
    let lo = l.finish(Duration::from_secs(600));
    let log = std::fs::read_to_string(dir.join("l-end.log")).unwrap();
    assert!(lo.status.success(), "{log}");
    procs.truncate(1);
    // Every checkpoint the learner kept reads as a tree checkpoint, and its counters are
    // the sums over the chunks its ledger consumed.
    let g = newest(&ck_dir);
    assert_eq!(g, reached + 2);
    let ck = ck_dir.join(format!("{g:05}"));
    let ledger: Ledger =
        serde_json::from_str(&std::fs::read_to_string(ck.join("ledger.json")).unwrap()).unwrap();
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ck.join("state.json")).unwrap()).unwrap();
    let (mut games, mut labels, mut chunks) = (0, 0, 0);
    for (worker, seq, path) in chunk_files(&run_dir) {
        if ledger
            .consumed
            .get(&worker)
            .is_some_and(|s| s.contains(&seq))
        {
            let c = decode_chunk(&std::fs::read(&path).unwrap(), "r").unwrap();
            games += c.header.games;
            labels += c.header.labels;
            chunks += 1;
        }
    }
    assert!(chunks > 0 && games > 0);
    // The window holds every label learned: the workers' (the teacher's) are those of
    // the chunks consumed, less the stale ones dropped; the learner's own and the
    // workers' together are the run's count.
    let window: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ck.join("window.json")).unwrap()).unwrap();
    let held = |source: &str| -> u64 {
        window["segments"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["source"] == source)
            .map(|s| s["labels"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(held("teacher") + ledger.stale_samples, labels, "{ledger:?}");
    eprintln!(
        "chaos: the learner at generation {g}: {chunks} chunks consumed ({games} games, \
         {labels} labels, {} stale), {} labels learned",
        ledger.stale_chunks,
        held("teacher") + held("play")
    );
    assert_eq!(
        state["samples"].as_u64().unwrap(),
        held("teacher") + held("play"),
        "labels: {state}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
