//! `fanorona serve` on a loopback port: the JSON API, its errors, its time cap, concurrent
//! requests, the page; and (with FANORONA_BROWSER_TEST=1, as `.ci/run` sets) the page in
//! headless Chromium.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(extra: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["serve", "--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the binary starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .and_then(|a| a.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in `{line}`"));
    Server { child, port }
}

/// One HTTP/1.1 request: status and body.
fn http(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole response");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

fn json(port: u16, method: &str, path: &str, body: &str) -> (u16, Value) {
    let (status, text) = http(port, method, path, body);
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: `{text}`: {e}"));
    (status, v)
}

fn q(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

const DIMY: &str = "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0";
const TSIVY: &str = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0";

#[test]
fn the_api_answers_and_refuses_bad_input() {
    let s = start(&["--engine", "ab:depth=2", "--max-time", "1s"]);
    let p = s.port;
    // The page.
    let (status, page) = http(p, "GET", "/", "");
    assert_eq!(status, 200);
    assert!(page.contains("<svg") && page.contains("/api/legal"));
    // Legal turns and step actions.
    let (status, v) = json(p, "GET", &format!("/api/legal?fen={}", q(DIMY)), "");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"], "ongoing");
    assert_eq!(v["side"], "white");
    assert_eq!(v["turns"].as_array().unwrap().len(), 5);
    assert_eq!(v["openings"].as_array().unwrap().len(), 5);
    assert!(!v["actions"].as_array().unwrap().is_empty());
    // The start of a vela kely, asked by variant and rules.
    let (status, v) = json(
        p,
        "GET",
        &format!(
            "/api/legal?variant=tsivy&rules={}",
            q("vela=white,vela_form=kely")
        ),
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["fen"], "9/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0");
    assert_eq!(v["vela_phase"], "white");
    // A turn played.
    let (status, v) = json(
        p,
        "POST",
        "/api/play",
        &format!(r#"{{"fen":"{TSIVY}","turn":"d3e3(+1)"}}"#),
    );
    assert_eq!(status, 200, "{v}");
    assert!(
        v["fen"]
            .as_str()
            .unwrap()
            .starts_with("BBBBBBBBB/BBBBBBBBB/BWB1W1WBW/WWWWWWWWW/WWWWWWWWW b"),
        "{v}"
    );
    assert_eq!(v["result"], "ongoing");
    // Telo: a placement.
    let (status, v) = json(p, "POST", "/api/play", r#"{"fen":"3/3/3 w","turn":"b2"}"#);
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["fen"].as_str().unwrap().split(' ').next(),
        Some("3/1W1/3")
    );
    // Analysis, as `analyze --json`.
    let (status, v) = json(p, "GET", &format!("/api/analyze?fen={}", q(DIMY)), "");
    assert_eq!(status, 200, "{v}");
    for key in ["fen", "best", "score", "pv", "depth", "nodes"] {
        assert!(v.get(key).is_some(), "{key} in {v}");
    }
    assert_eq!(v["engine"], "ab:depth=2");
    // On the side's clock: the time manager decides, within its limit (a quarter of the
    // time left, 250 ms here; room left for a busy machine).
    let (status, v) = json(
        p,
        "GET",
        &format!(
            "/api/analyze?fen={}&engine=ab&left_ms=1000&increment_ms=10",
            q(DIMY)
        ),
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert!(v["best"].is_string(), "{v}");
    assert!(v["seconds"].as_f64().unwrap() < 1.5, "{v}");
    // A game replayed.
    let (status, v) = json(
        p,
        "POST",
        "/api/replay",
        r#"{"variant":"tsivy","turns":["d3e3(-1)","d4d3(+2)-c3(-1)-d2(+1)-e3(-1)"]}"#,
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["fens"].as_array().unwrap().len(), 3);
    // A training record's step-level actions, grouped into turns.
    let (status, legal) = json(p, "GET", &format!("/api/legal?fen={}", q(DIMY)), "");
    assert_eq!(status, 200);
    let first = &legal["actions"][0];
    let (status, v) = json(
        p,
        "POST",
        "/api/replay",
        &format!(r#"{{"variant":"dimy","actions":[{}]}}"#, first["index"]),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["fens"].as_array().unwrap().len(), 2);
    // A one-step capture: one of the legal turns (the lists' orders are not related).
    assert!(
        legal["turns"].as_array().unwrap().contains(&v["turns"][0]),
        "{v} {legal}"
    );
    // Bad input: 400 and an error that names the problem.
    for (method, path, body, needle) in [
        (
            "GET",
            format!("/api/legal?fen={}", q("BBB/xx w")),
            "",
            "fen",
        ),
        ("GET", "/api/legal".to_string(), "", "fen"),
        (
            "GET",
            format!("/api/legal?fen={}&rules=vela%3Dgreen", q(DIMY)),
            "",
            "vela",
        ),
        ("POST", "/api/play".to_string(), "{not json", "JSON"),
        (
            "POST",
            "/api/play".to_string(),
            r#"{"fen":"3/3/3 w"}"#,
            "turn",
        ),
        (
            "POST",
            "/api/play".to_string(),
            r#"{"fen":"BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0","turn":"a1a2"}"#,
            "a1a2",
        ),
        (
            "GET",
            format!("/api/analyze?fen={}&engine=chess", q(DIMY)),
            "",
            "chess",
        ),
        (
            "GET",
            format!("/api/analyze?fen={}&left_ms=soon", q(DIMY)),
            "",
            "left_ms",
        ),
        (
            "GET",
            format!(
                "/api/analyze?fen={}&engine={}",
                q(DIMY),
                q("mcts:ckpt=/nonexistent")
            ),
            "",
            "ckpt",
        ),
        (
            "POST",
            "/api/replay".to_string(),
            r#"{"variant":"dimy","turns":["a1a2"]}"#,
            "turn 1",
        ),
        (
            "POST",
            "/api/replay".to_string(),
            r#"{"variant":"dimy","actions":[5]}"#,
            "action 1",
        ),
        (
            "POST",
            "/api/replay".to_string(),
            r#"{"variant":"dimy"}"#,
            "turns",
        ),
        ("GET", format!("/api/net?fen={}", q("3/3/3 w")), "", "telo"),
    ] {
        let (status, v) = json(p, method, &path, body);
        assert_eq!(status, 400, "{method} {path} {body}: {v}");
        let e = v["error"].as_str().unwrap_or_default();
        assert!(
            e.contains(needle),
            "{path}: `{e}` should mention `{needle}`"
        );
    }
    let (status, v) = json(p, "GET", "/nothing/here", "");
    assert_eq!(status, 404);
    assert!(v["error"].is_string());
}

/// Every option and parameter that takes a path, tried on files outside what the
/// server allows: each refused alike (whether the file exists or not) with nothing of the
/// file in the answer; a damaged file the server allows, answered without its bytes or
/// name; an allowed good one, used.
#[test]
fn a_client_names_no_file_the_server_did_not_allow() {
    let dir = std::env::temp_dir().join(format!("fanorona-serve-files-{}", std::process::id()));
    let allowed = dir.join("allowed");
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::write(dir.join("secret.txt"), "SECRET-LINE-1\nSECRET-LINE-2\n").unwrap();
    std::fs::write(allowed.join("broken.txt"), "SECRET-LINE-3 is no book\n").unwrap();
    let release_eval = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../checkpoints/release/tsivy/eval.txt"
    );
    std::fs::copy(release_eval, allowed.join("eval.txt")).unwrap();
    let s = start(&[
        "--engine",
        "ab:depth=1",
        "--max-time",
        "1s",
        "--allow",
        allowed.to_str().unwrap(),
    ]);
    let p = s.port;
    let secret = dir.join("secret.txt");
    let outside = [
        "/etc/passwd".to_string(),
        secret.display().to_string(),
        dir.join("nonexistent").display().to_string(),
        format!("{}/../secret.txt", allowed.display()),
        "relative/secret.txt".to_string(),
    ];
    let mut refusals = std::collections::HashSet::new();
    for path in &outside {
        let mut asks: Vec<String> = ["eval", "book", "tb"]
            .iter()
            .map(|o| {
                format!(
                    "/api/analyze?fen={}&engine={}",
                    q(TSIVY),
                    q(&format!("ab:depth=1,{o}={path}"))
                )
            })
            .collect();
        asks.extend(["ckpt", "ab_eval", "tb", "book"].iter().map(|o| {
            format!(
                "/api/analyze?fen={}&engine={}",
                q(TSIVY),
                q(&format!("mcts:sims=2,{o}={path}"))
            )
        }));
        asks.push(format!("/api/net?fen={}&ckpt={}", q(TSIVY), q(path)));
        for ask in asks {
            let (status, v) = json(p, "GET", &ask, "");
            assert_eq!(status, 400, "{ask}: {v}");
            let e = v["error"].as_str().unwrap();
            assert!(!e.contains("SECRET") && !e.contains("root:"), "{ask}: {e}");
            assert!(e.contains("--allow"), "{ask}: {e}");
            refusals.insert(e.to_string());
        }
    }
    // One answer an option, whichever file was named: the refusal tells nothing of it.
    assert_eq!(refusals.len(), 5, "{refusals:?}");
    // A file the server allows but cannot use: none of its bytes come back, and nothing
    // of why (which line, what is wrong) beyond the spec the client sent.
    let broken = allowed.join("broken.txt").display().to_string();
    for spec in [
        format!("ab:depth=1,book={broken}"),
        format!("ab:depth=1,eval={broken}"),
    ] {
        let (status, v) = json(
            p,
            "GET",
            &format!("/api/analyze?fen={}&engine={}", q(TSIVY), q(&spec)),
            "",
        );
        assert_eq!(status, 400, "{spec}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(
            !e.contains("SECRET") && !e.contains("line") && e.contains("server's log"),
            "{spec}: {e}"
        );
    }
    // An allowed good file plays.
    let good = allowed.join("eval.txt").display().to_string();
    let (status, v) = json(
        p,
        "GET",
        &format!(
            "/api/analyze?fen={}&engine={}",
            q(TSIVY),
            q(&format!("ab:depth=2,eval={good}"))
        ),
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert!(v["best"].is_string(), "{v}");
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The server's memory and slots: a client's `hash` and `threads` lowered to the caps, a
/// full queue answered `503` with `Retry-After`, bodies bounded in size and time.
#[test]
fn requests_are_bounded() {
    let s = start(&[
        "--max-time",
        "2s",
        "--max-analyses",
        "1",
        "--queue",
        "1",
        "--max-hash",
        "16",
    ]);
    let p = s.port;
    // Far more hash than the cap: the table the server makes is the cap's (the
    // process's peak of address space grows by far less than the 8 GiB asked).
    let peak_kb = || -> u64 {
        #[cfg(target_os = "linux")]
        {
            let status = std::fs::read_to_string(format!("/proc/{}/status", s.child.id())).unwrap();
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmPeak:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
                .unwrap()
        }
        #[cfg(not(target_os = "linux"))]
        0
    };
    let (status, _) = json(
        p,
        "GET",
        &format!("/api/analyze?fen={}&engine=ab:depth=1", q(DIMY)),
        "",
    );
    assert_eq!(status, 200);
    let before = peak_kb();
    let (status, v) = json(
        p,
        "GET",
        &format!(
            "/api/analyze?fen={}&engine={}",
            q(DIMY),
            q("ab:time=200ms,hash=8192,threads=256")
        ),
        "",
    );
    assert_eq!(status, 200, "{v}");
    let grown = peak_kb() - before;
    assert!(
        grown < 2 * 1024 * 1024,
        "VmPeak grew {grown} kB: the 8 GiB table was made"
    );
    // One slot, one waiting place: of four searches at once, some are turned away.
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                raw_http(
                    p,
                    &format!(
                        "GET /api/analyze?fen={}&engine={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                        q(DIMY),
                        q("ab:time=1s")
                    ),
                )
            })
        })
        .collect();
    let answers: Vec<String> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let busy: Vec<&String> = answers
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 503"))
        .collect();
    let done = answers
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 200"))
        .count();
    assert!(
        !busy.is_empty() && done >= 1 && busy.len() + done == 4,
        "{answers:?}"
    );
    for b in busy {
        assert!(b.to_ascii_lowercase().contains("retry-after: 2"), "{b}");
    }
    // A body larger than the limit, and one that never arrives.
    let raw = raw_http(
        p,
        "POST /api/replay HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 307200\r\n\r\n",
    );
    assert!(raw.starts_with("HTTP/1.1 413"), "{raw}");
    let t = Instant::now();
    let raw = raw_http(
        p,
        "POST /api/play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    assert!(raw.starts_with("HTTP/1.1 408"), "{raw}");
    assert!(t.elapsed() < Duration::from_secs(30));
    // And the server still answers.
    let (status, _) = json(p, "GET", "/api/info", "");
    assert_eq!(status, 200);
}

/// Sends `request` as it is and reads the whole answer (the server closes).
fn raw_http(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let _ = s.write_all(request.as_bytes());
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    String::from_utf8_lossy(&raw).into_owned()
}

#[test]
fn searches_are_capped_and_requests_run_together() {
    let s = start(&["--max-time", "1s"]);
    let p = s.port;
    // A request for a search that would take hours stops at the server's cap.
    let t = Instant::now();
    let (status, v) = json(
        p,
        "GET",
        &format!("/api/analyze?fen={}&engine={}", q(TSIVY), q("ab:depth=40")),
        "",
    );
    assert_eq!(status, 200, "{v}");
    assert!(v["best"].is_string());
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    // Four searches at once all answer.
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                json(
                    p,
                    "GET",
                    &format!("/api/analyze?fen={}&engine={}", q(DIMY), q("ab:time=300ms")),
                    "",
                )
            })
        })
        .collect();
    for h in handles {
        let (status, v) = h.join().unwrap();
        assert_eq!(status, 200, "{v}");
        assert!(v["best"].is_string());
    }
}

#[test]
fn the_release_network_answers_for_dimy() {
    let s = start(&[]);
    let (status, v) = json(s.port, "GET", &format!("/api/net?fen={}", q(DIMY)), "");
    assert_eq!(status, 200, "{v}");
    let wdl: Vec<f64> = v["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-3, "{wdl:?}");
    let policy = v["policy"].as_array().unwrap();
    assert!(!policy.is_empty());
    let total: f64 = policy.iter().map(|p| p["p"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-3, "{total}");
    // Highest first.
    assert!(policy[0]["p"].as_f64() >= policy[policy.len() - 1]["p"].as_f64());
}

/// The page in a real browser (chromium and playwright-core; `.ci/run` installs them and
/// sets FANORONA_BROWSER_TEST=1). The screenshot goes to target/browser/play.png.
#[test]
fn the_page_plays_in_a_browser() {
    if std::env::var("FANORONA_BROWSER_TEST").as_deref() != Ok("1") {
        eprintln!(
            "skipped: set FANORONA_BROWSER_TEST=1 (with chromium and playwright-core installed, see .ci/run)"
        );
        return;
    }
    let s = start(&["--engine", "ab:depth=2"]);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let shot = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/browser");
    std::fs::create_dir_all(&shot).unwrap();
    let out = Command::new("node")
        .current_dir(&dir)
        .arg("play.mjs")
        .arg(format!("http://127.0.0.1:{}/", s.port))
        .arg(shot.join("play.png"))
        .output()
        .expect("node runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("browser test passed"), "{text}");
    assert!(shot.join("play.png").is_file());
}

#[test]
fn by_default_the_page_plays_the_strongest_player() {
    // No --engine: the strongest player shipped, alpha-beta with the release's learned
    // evaluation and opening book on a clock (capped here to keep the test short): the
    // dimy start is in its book (no search); telo goes to the exact solver.
    let s = start(&["--max-time", "100ms"]);
    let p = s.port;
    let (status, v) = json(p, "GET", &format!("/api/analyze?fen={}", q(DIMY)), "");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["engine"], "ab:time=1s,eval=release,book=release");
    assert!(v["best"].is_string(), "{v}");
    assert_eq!(v["nodes"], 0, "played from the book: {v}");
    let (status, v) = json(p, "GET", &format!("/api/analyze?fen={}", q("3/3/3 w")), "");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["best"], "b2", "{v}");
}

#[test]
fn an_error_quotes_a_huge_field_briefly_and_info_names_no_path() {
    let s = start(&["--engine", "ab:depth=1", "--max-time", "1s"]);
    let p = s.port;
    // Fields as large as a body (256 KiB) or a query (a 64 KiB header buffer) allow.
    let body = "W".repeat(250 * 1024);
    let query = "W".repeat(60 * 1024);
    let posts = [
        (
            "/api/play",
            serde_json::json!({ "fen": body, "turn": "d3e3" }),
        ),
        (
            "/api/play",
            serde_json::json!({ "fen": DIMY, "turn": body }),
        ),
        (
            "/api/play",
            serde_json::json!({ "fen": DIMY, "turn": "a1b1", "rules": body }),
        ),
        (
            "/api/replay",
            serde_json::json!({ "variant": body, "turns": [] }),
        ),
        (
            "/api/replay",
            serde_json::json!({ "fen": DIMY, "turns": [body] }),
        ),
    ];
    let mut answers = Vec::new();
    for (path, v) in posts {
        let text = v.to_string();
        assert!(text.len() < 256 * 1024);
        answers.push((path.to_string(), json(p, "POST", path, &text)));
    }
    for path in [
        format!("/api/legal?fen={query}"),
        format!("/api/legal?variant={query}"),
        format!("/api/analyze?fen={}&engine={query}", q(DIMY)),
        format!("/api/analyze?fen={}&engine=ab:depth={query}", q(DIMY)),
        format!("/api/net?fen={query}&ckpt=none"),
        format!("/api/nonsense{query}"),
    ] {
        answers.push((path[..20].to_string(), json(p, "GET", &path, "")));
    }
    for (path, (status, v)) in answers {
        assert!((400..500).contains(&status), "{path}: {status} {v}");
        let e = v["error"].as_str().unwrap_or_else(|| panic!("{path}: {v}"));
        assert!(e.len() <= 300, "{path}: {} bytes: {}", e.len(), &e[..300]);
    }
    // Whether each release was found, and what it is; never where it lies.
    let (status, v) = json(p, "GET", "/api/info", "");
    assert_eq!(status, 200);
    for board in ["tsivy", "dimy"] {
        let r = &v["release"][board];
        assert!(r["found"].is_boolean(), "{v}");
        assert!(!r.to_string().contains('/'), "{board}: {r}");
        if r["found"] == true {
            assert!(r["provenance"].as_str().unwrap().starts_with("run "), "{r}");
        }
    }
}
