//! The binary's contract: command names, flags, `--json` fields, exit codes.

use fanorona_testkit::{repo_file, scratch};
use std::process::{Command, Output};

fn fanorona(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(args)
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every line of a successful command's output, as JSON.
fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    assert!(o.status.success(), "{}", stderr(o));
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    let line = stdout(o).lines().last().unwrap_or_default().to_string();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

#[test]
fn fanorona_device_is_cpu_or_gpu() {
    let run = |value: &str| {
        Command::new(env!("CARGO_BIN_EXE_fanorona"))
            .args(["perft", "--depth", "2", "--json"])
            .env("FANORONA_DEVICE", value)
            .output()
            .expect("runs")
    };
    for ok in ["cpu", "CPU", "gpu", ""] {
        assert_eq!(json(&run(ok))["nodes"], 39, "FANORONA_DEVICE={ok}");
    }
    let o = run("tpu");
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("FANORONA_DEVICE=`tpu`") && e.contains("`cpu`"),
        "{e}"
    );
}

#[test]
fn perft_json() {
    let v = json(&fanorona(&["perft", "--depth", "4", "--json"]));
    assert_eq!(v["variant"], "tsivy");
    assert_eq!(v["depth"], 4);
    assert_eq!(v["nodes"], 18026);
    assert!(v["seconds"].as_f64().is_some() && v["nodes_per_second"].as_f64().is_some());
    let v = json(&fanorona(&[
        "perft",
        "--depth",
        "4",
        "--variant",
        "dimy",
        "--json",
    ]));
    assert_eq!(v["nodes"], 3469);
    let v = json(&fanorona(&[
        "perft",
        "--depth",
        "4",
        "--rule",
        "vela=black",
        "--json",
    ]));
    assert_eq!(v["nodes"], 817);
    let v = json(&fanorona(&[
        "perft",
        "--depth",
        "3",
        "--rule",
        "reply_chains=false",
        "--json",
    ]));
    assert_eq!(v["nodes"], 198);
    let v = json(&fanorona(&["perft", "--depth", "5", "--paths", "--json"]));
    assert_eq!(v["nodes"], 431852);
}

#[test]
fn perft_divide_sums() {
    let o = fanorona(&["perft", "--depth", "3", "--divide"]);
    assert!(o.status.success());
    let out = stdout(&o);
    let sum: u64 = out
        .lines()
        .filter_map(|l| {
            l.rsplit_once(' ').and_then(|(t, n)| {
                (!t.starts_with("perft"))
                    .then(|| n.parse::<u64>().ok())
                    .flatten()
            })
        })
        .sum();
    assert_eq!(sum, 724, "{out}");
    assert!(out.contains("d3e3(-1) "), "{out}");
}

#[test]
fn turns_lists_the_five_openings() {
    let o = fanorona(&["turns"]);
    let mut lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    lines.sort();
    assert_eq!(
        lines,
        ["d2e3(+2)", "d3e3(+1)", "d3e3(-1)", "e2e3(+2)", "f2e3(+2)"]
    );
    let o = fanorona(&[
        "turns",
        "--numbers",
        "--fen",
        "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0",
    ]);
    assert!(stdout(&o).contains("22-23(-1)"));
    let o = fanorona(&["turns", "--variant", "telo"]);
    assert_eq!(stdout(&o).lines().count(), 9);
}

#[test]
fn replay_json_and_errors() {
    let v = json(&fanorona(&[
        "replay",
        "--json",
        "d3e3(-1) d4d3(+2)-c3(-1)-d2(+1)-e3(-1)",
    ]));
    assert_eq!(
        v["fen"],
        "BBBBBBBBB/BBB1BBBBB/BW2BBWBW/WWW1WWWWW/WW3WWWW w 0 2"
    );
    assert_eq!(v["turns"], 2);
    assert_eq!(v["result"], "ongoing");
    // Separate arguments and move numbers work too.
    let v = json(&fanorona(&[
        "replay",
        "--json",
        "1.",
        "d3e3(-1);",
        "d4d3-c3(-)-d2-e3",
    ]));
    assert_eq!(v["turns"], 2);
    // A game that ends: White captures Black's last pieces.
    let v = json(&fanorona(&[
        "replay",
        "--json",
        "--fen",
        "9/9/9/9/BB1W5 w",
        "d1c1",
    ]));
    assert_eq!(v["result"], "white");
    for (game, what) in [
        ("d3e3", "ambiguous"),
        ("e2e3(+2) e2e3", "illegal"),
        ("d3e3(+2)", "wrong capture count"),
        ("d3e3(-1) zz", "malformed"),
    ] {
        let o = fanorona(&["replay", game]);
        assert_eq!(o.status.code(), Some(2), "{game}");
        let e = stderr(&o);
        assert!(e.contains(what), "{game}: {e}");
        assert!(e.contains("turn 1") || e.contains("turn 2"), "{game}: {e}");
        assert!(
            e.contains(" w 0 0`") || e.contains(" b 0 1`") || e.contains("malformed"),
            "{game}: {e}"
        );
    }
}

#[test]
fn replay_reads_files() {
    let dir = std::env::temp_dir().join(format!("fanorona-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("game.txt");
    std::fs::write(&f, "1. e2e3(+2) f4e5(-3)\n").unwrap();
    let v = json(&fanorona(&[
        "replay",
        "--json",
        "--file",
        f.to_str().unwrap(),
    ]));
    assert_eq!(v["turns"], 2);
    let o = fanorona(&[
        "replay",
        "--file",
        dir.join("missing.txt").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.txt"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn plot_draws_against_generations_or_wall_seconds() {
    let dir = std::env::temp_dir().join(format!("fanorona-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let m = dir.join("metrics.jsonl");
    // Two generations 600 s apart; a line that is not JSON is skipped with a warning.
    std::fs::write(
        &m,
        "{\"step\":1,\"tag\":\"elo\",\"time\":1000.0,\"value\":-40.0}\n\
         not json\n\
         {\"step\":2,\"tag\":\"elo\",\"time\":1600.0,\"value\":70.0}\n",
    )
    .unwrap();
    // Generation ticks run 1.0, 1.1, .. 2.0; wall seconds 0.0, 100.0, .. 600.0.
    for (x, label, tick, not_tick) in [
        ("step", "generation", "1.9", "600.0"),
        ("seconds", "wall seconds", "600.0", "1.9"),
    ] {
        let out = dir.join(format!("{x}.svg"));
        let o = fanorona(&[
            "plot",
            "--metrics",
            m.to_str().unwrap(),
            "--tag",
            "elo",
            "--x",
            x,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(":2: not a metrics line"),
            "{}",
            stderr(&o)
        );
        let svg = std::fs::read_to_string(&out).unwrap();
        assert!(svg.contains(label), "{x}: no `{label}` axis");
        assert!(svg.contains(tick), "{x}: no tick {tick}");
        assert!(!svg.contains(not_tick), "{x}: a tick {not_tick}");
    }
    // Against CPU-hours (tree learning's curve): x from `curve/cpu_hours` at the step,
    // bars from the tag's `_low` and `_high`, which widen the Elo axis.
    let c = dir.join("curve.jsonl");
    let line = |step: u32, tag: &str, value: f64| {
        format!("{{\"step\":{step},\"tag\":\"{tag}\",\"time\":0.0,\"value\":{value}}}\n")
    };
    let text: String = [
        line(3, "curve/vs_hand", -40.0),
        line(3, "curve/vs_hand_low", -260.0),
        line(3, "curve/vs_hand_high", 10.0),
        line(3, "curve/cpu_hours", 0.5),
        line(7, "curve/vs_hand", 20.0),
        line(7, "curve/vs_hand_low", 0.0),
        line(7, "curve/vs_hand_high", 40.0),
        line(7, "curve/cpu_hours", 1.0),
    ]
    .concat();
    std::fs::write(&c, text).unwrap();
    let out = dir.join("cpu.svg");
    let o = fanorona(&[
        "plot",
        "--metrics",
        c.to_str().unwrap(),
        "--tag",
        "curve/vs_hand",
        "--x",
        "cpu-hours",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("CPU-hours"), "no CPU-hours axis");
    assert!(svg.contains("\n-250.0\n"), "the bars' ends widen the axis");
    // A tag with no values is an input error naming it and the file.
    let o = fanorona(&[
        "plot",
        "--metrics",
        m.to_str().unwrap(),
        "--tag",
        "loss/value",
        "--out",
        dir.join("none.svg").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("loss/value"), "{}", stderr(&o));
    assert!(stderr(&o).contains("metrics.jsonl"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_says_what_the_binary_does() {
    let o = fanorona(&["--help"]);
    let text = stdout(&o);
    for word in ["training", "arena", "book", "export"] {
        assert!(text.contains(word), "{word}: {text}");
    }
    let o = fanorona(&["book", "--help"]);
    assert!(stdout(&o).contains("--max-score"));
}

#[test]
fn bad_input_is_a_clear_error() {
    for (args, what) in [
        (
            vec![
                "perft",
                "--depth",
                "2",
                "--fen",
                "BBBBB/BBBBB/BW1B/WWWWW/WWWWW w",
            ],
            "row 3",
        ),
        (
            vec!["perft", "--depth", "2", "--rule", "colour=red"],
            "colour",
        ),
        (
            vec![
                "turns",
                "--fen",
                "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW",
            ],
            "side to move is missing",
        ),
        (
            vec!["perft", "--depth", "2", "--rule", "vela=green"],
            "green",
        ),
        (
            vec![
                "turns",
                "--variant",
                "dimy",
                "--fen",
                "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w",
            ],
            "does not match",
        ),
        (vec!["turns", "--variant", "chess"], "chess"),
    ] {
        let o = fanorona(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(what), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
}

#[test]
fn telo_replay() {
    let v = json(&fanorona(&[
        "replay",
        "--variant",
        "telo",
        "--json",
        "b2 a1 c1 a3 a2",
    ]));
    assert_eq!(v["result"], "ongoing");
    let v = json(&fanorona(&[
        "replay",
        "--variant",
        "telo",
        "--json",
        "b2 a1 c1 a2 a3",
    ]));
    assert_eq!(v["result"], "white", "a3 b2 c1 is a diagonal");
}

#[test]
fn bench_json_lines() {
    let o = fanorona(&["bench", "rules", "--json", "--seconds", "0.05"]);
    let v = json(&o);
    assert_eq!(v["perft6_nodes"], 9_204_447);
    for k in [
        "perft6_seconds",
        "playouts_per_second_1thread",
        "playouts_per_second",
    ] {
        assert!(v[k].as_f64().is_some_and(|x| x > 0.0), "{k}: {v}");
    }
    let o = fanorona(&[
        "bench",
        "sim",
        "--json",
        "--seconds",
        "0.05",
        "--batch",
        "64",
    ]);
    let lines = json_lines(&o);
    assert!(lines.len() >= 2);
    for v in lines {
        assert_eq!(v["batch"], 64);
        assert!(v["variant"] == "tsivy" || v["variant"] == "dimy");
        assert!(v["threads"].as_u64().is_some_and(|t| t >= 1));
        assert!(v["steps_per_second"].as_f64().is_some_and(|x| x > 0.0));
        assert!(v["games_per_second"].as_f64().is_some());
    }
}

fn fanorona_stdin(args: &[&str], input: &str) -> Output {
    fanorona_testkit::run_with_input(
        Command::new(env!("CARGO_BIN_EXE_fanorona")).args(args),
        input,
    )
}

#[test]
fn play_from_stdin() {
    // Illegal and malformed input get a message and a new prompt; `?` lists the turns;
    // undo takes back the person's turn and the reply; quit ends cleanly.
    let o = fanorona_stdin(
        &["play", "--engine", "ab:depth=2"],
        "?\nc4c3\nnonsense\nd3e3\nd3e3(-1)\nundo\nundo\nd3e3(+1)\nquit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("d2e3(+2)") && out.contains("f2e3(+2)"),
        "? lists the turns: {out}"
    );
    assert!(out.contains("turn `c4c3`: illegal"), "{out}");
    assert!(out.contains("turn `nonsense`: malformed"), "{out}");
    assert!(out.contains("turn `d3e3`: ambiguous"), "{out}");
    assert!(out.contains("You play d3e3(-1)"), "{out}");
    assert!(out.contains("Engine plays"), "{out}");
    assert!(out.contains("Taken back."), "{out}");
    assert!(out.contains("Nothing to take back."), "{out}");
    assert!(out.contains("You play d3e3(+1)"), "{out}");
    assert!(out.contains("Game abandoned."), "{out}");
    assert!(
        out.contains("a b c d e f g h i"),
        "the board is drawn with coordinates"
    );
    // With no --engine the opponent is the default player: from the dimy start, as
    // White, it plays a turn of the release's opening book.
    let o = fanorona_stdin(&["play", "--variant", "dimy", "--color", "black"], "quit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let book = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../checkpoints/release/dimy/book.txt"
    ))
    .unwrap();
    let start = book
        .lines()
        .find(|l| l.starts_with("BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w"))
        .unwrap();
    let played = stdout(&o)
        .lines()
        .find_map(|l| {
            l.split("Engine plays ")
                .nth(1)
                .map(|t| t.split_whitespace().next().unwrap_or("").to_string())
        })
        .expect("the engine plays first");
    assert!(
        start.contains(&format!("\t{played} ")),
        "{played} not in {start}"
    );
    // End of input is not a crash either; the person may play Black.
    let o = fanorona_stdin(
        &[
            "play",
            "--engine",
            "random",
            "--color",
            "black",
            "--variant",
            "dimy",
        ],
        "",
    );
    assert!(o.status.success());
    assert!(stdout(&o).contains("Engine plays"));
    // Telo against the exact solver, which wins as White from the centre.
    let o = fanorona_stdin(
        &["play", "--variant", "telo", "--color", "black"],
        "a1\nc3\nzz\na3\nc1\n",
    );
    assert!(o.status.success());
    assert!(stdout(&o).contains("Engine plays b2"), "{}", stdout(&o));
}

#[test]
fn play_to_the_end() {
    // The person's capture takes Black's last pieces: the game ends and says so.
    let o = fanorona_stdin(
        &["play", "--engine", "random", "--fen", "9/9/9/9/BB1W5 w"],
        "d1c1\n",
    );
    assert!(o.status.success());
    assert!(
        stdout(&o).contains("Game over: white (you win)"),
        "{}",
        stdout(&o)
    );
    // And the engine's: Black to move captures White's last pieces.
    let o = fanorona_stdin(
        &["play", "--engine", "ab:depth=2", "--fen", "9/9/9/9/WW1B5 b"],
        "",
    );
    assert!(
        stdout(&o).contains("Game over: black (the engine wins)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn analyze_json_and_files() {
    let v = json(&fanorona(&["analyze", "--engine", "ab:depth=4", "--json"]));
    assert_eq!(
        v["fen"],
        "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0"
    );
    assert_eq!(v["depth"], 4);
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["score"].as_i64().is_some());
    let pv = v["pv"].as_array().unwrap();
    assert_eq!(pv[0], v["best"]);
    // A won position: mate in one.
    let v = json(&fanorona(&[
        "analyze",
        "--engine",
        "ab:depth=3",
        "--json",
        "--fen",
        "9/9/9/9/BB1W5 w",
    ]));
    assert_eq!(v["best"], "d1c1(+2)");
    assert_eq!(v["mate"], 1);
    // A file of positions of every variant, one line each.
    let dir = std::env::temp_dir().join(format!("fanorona-analyze-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("fens.txt");
    std::fs::write(
        &f,
        "# a comment\nBBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0\n\n3/3/3 w 0 0\n9/9/9/9/BB1W5 w\n",
    )
    .unwrap();
    let o = fanorona(&[
        "analyze",
        "--engine",
        "ab:depth=3",
        "--json",
        "--fen-file",
        f.to_str().unwrap(),
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[1]["best"], "b2",
        "the telo solver places in the centre"
    );
    assert!(lines[1]["mate"].as_i64().unwrap() > 0);
    std::fs::write(
        &f,
        "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0\nBBBBB/BBXBB/BW1BW/WWWWW/WWWWW w\n",
    )
    .unwrap();
    let o = fanorona(&[
        "analyze",
        "--engine",
        "ab:depth=1",
        "--fen-file",
        f.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 2"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
    let o = fanorona(&["analyze", "--engine", "ab:depth=zero"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("depth"));
}

/// `analyze --record` and `--game`: every turn scored, a summary line, and bad records
/// or turns named.
#[test]
fn analyze_reviews_games() {
    let dir = std::env::temp_dir().join(format!("fanorona-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("games.jsonl");
    let record = |turns: &str| {
        format!(
            r#"{{"white":"a","black":"b","opening":0,"result":"white","turns":[{turns}],"key":"k","fen":"9/9/9/9/BB1W5 w"}}"#
        )
    };
    std::fs::write(
        &f,
        format!(
            "{}\n{}\nnot json\n",
            record(r#""d1c1(+2)""#),
            record(r#""d1d2""#)
        ),
    )
    .unwrap();
    let file = f.to_str().unwrap();
    let o = fanorona(&[
        "analyze",
        "--engine",
        "ab:depth=2",
        "--json",
        "--record",
        file,
        "--line",
        "1",
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 2, "one turn and the summary");
    assert_eq!(lines[0]["turn"], 1);
    assert_eq!(lines[0]["side"], "white");
    assert_eq!(lines[0]["played"], "d1c1(+2)");
    assert_eq!(lines[0]["best"], "d1c1(+2)");
    assert_eq!(lines[0]["loss"], 0);
    assert!(lines[0]["mark"].is_null());
    assert_eq!(lines[1]["result"], "white");
    assert_eq!(lines[1]["summary"][0]["turns"], 1);
    assert_eq!(lines[1]["summary"][0]["blunders"], 0);
    assert_eq!(lines[1]["white"], "a");
    // Every game of a file (blank lines skipped): a line each, then each player's totals.
    let two = dir.join("two.jsonl");
    std::fs::write(
        &two,
        format!(
            "{}\n\n{}\n",
            record(r#""d1c1(+2)""#),
            record(r#""d1c1(+2)""#)
        ),
    )
    .unwrap();
    let two = two.to_str().unwrap();
    let o = fanorona(&[
        "analyze",
        "--engine",
        "ab:depth=2",
        "--json",
        "--record",
        two,
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 6, "two games of a turn each, and two players");
    assert_eq!(lines[2]["game"], format!("`{two}`, line 3"));
    assert_eq!(lines[2]["turn"], 1);
    assert_eq!(lines[3]["game"], lines[2]["game"]);
    assert_eq!(lines[3]["result"], "white");
    assert_eq!(
        (lines[4]["player"].clone(), lines[4]["games"].clone()),
        ("a".into(), 2.into())
    );
    assert_eq!(lines[4]["turns"], 2);
    assert_eq!(lines[5]["player"], "b");
    assert_eq!(lines[5]["turns"], 0, "Black never moved");
    // The same game in notation from standard input, in words.
    let o = fanorona_stdin(
        &[
            "analyze",
            "--engine",
            "ab:depth=2",
            "--game",
            "-",
            "--fen",
            "9/9/9/9/BB1W5 w",
        ],
        "1. d1c1(+2)\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("1 turn, result: white"),
        "{}",
        stdout(&o)
    );
    // An illegal turn, a line that is not a record, a line that is not there.
    for (line, want) in [
        ("2", "line 2: turn 1: illegal turn `d1d2`"),
        ("3", "line 3: not a game record"),
        ("9", "no line 9"),
    ] {
        let o = fanorona(&[
            "analyze",
            "--engine",
            "ab:depth=2",
            "--record",
            file,
            "--line",
            line,
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(want), "{want}: {}", stderr(&o));
    }
    // --turns and --line belong to a review.
    for extra in [["--turns", "4"], ["--line", "1"]] {
        let o = fanorona(&["analyze", "--engine", "ab:depth=2", extra[0], extra[1]]);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `analyze --judge`: each position's engine choice judged by another engine.
#[test]
fn analyze_judges_an_engines_choices() {
    let dir = std::env::temp_dir().join(format!("fanorona-judge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("fens.txt");
    std::fs::write(
        &f,
        "9/9/9/9/BB1W5 w\n# dimy's start\nBBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0\n",
    )
    .unwrap();
    let file = f.to_str().unwrap();
    let o = fanorona(&[
        "analyze",
        "--engine",
        "random:seed=3",
        "--judge",
        "ab:depth=3",
        "--json",
        "--fen-file",
        file,
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines.len(), 3, "two positions and the totals");
    // The only turn of the first position wins at once.
    assert_eq!(lines[0]["played"], "d1c1(+2)");
    assert_eq!(lines[0]["loss"], 0);
    for l in &lines[..2] {
        let (score, after) = (
            l["score"].as_i64().unwrap(),
            l["played_score"].as_i64().unwrap(),
        );
        let cap = |s: i64| s.clamp(-1000, 1000);
        let want = if l["played"] == l["best"] {
            0
        } else {
            cap(score) - cap(after)
        };
        assert_eq!(l["loss"].as_i64().unwrap(), want, "{l}");
    }
    assert_eq!(lines[2]["positions"], 2);
    std::fs::write(&f, "3/3/3 w 0 0\n").unwrap();
    let o = fanorona(&[
        "analyze",
        "--engine",
        "ab:depth=1",
        "--judge",
        "ab:depth=3",
        "--fen-file",
        file,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("line 1: --judge is for tsivy and dimy"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bench_ab_json() {
    let v = json(&fanorona(&["bench", "ab", "--json", "--seconds", "0"]));
    assert_eq!(v["positions"], 16);
    assert_eq!(v["runs"], 3, "three runs at least, the median reported");
    assert!(v["nodes_per_second_min"].as_f64() <= v["nodes_per_second"].as_f64());
    assert!(v["nodes"].as_u64().unwrap() > 1_000_000);
    assert!(v["nodes_per_second"].as_f64().unwrap() > 0.0);
    // With the release learned evaluation of dimy: dimy's two positions only.
    let args = [
        "bench",
        "ab",
        "--json",
        "--variant",
        "dimy",
        "--eval",
        "release",
        "--seconds",
        "0",
    ];
    let v = json(&fanorona(&args));
    assert_eq!(v["positions"], 2);
    assert_eq!(v["eval"], "release");
    assert!(v["eval_hidden"].as_u64().unwrap() >= 1);
    assert!(["avx512", "avx2", "baseline"].contains(&v["simd"].as_str().unwrap()));
    assert!(v["nodes"].as_u64().unwrap() > 1000);
    let o = fanorona(&[
        "bench",
        "ab",
        "--variant",
        "dimy",
        "--eval",
        "no-such-eval.txt",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no-such-eval.txt"), "{}", stderr(&o));
}

#[test]
fn mcts_engine_in_analyze_and_play() {
    let v = json(&fanorona(&[
        "analyze",
        "--engine",
        "mcts:ckpt=none,sims=32",
        "--json",
        "--variant",
        "dimy",
    ]));
    assert!(v["best"].is_string());
    assert!(
        v["nodes"].as_u64().unwrap() >= 32,
        "simulations are reported as nodes: {v}"
    );
    let o = fanorona_stdin(
        &[
            "play",
            "--engine",
            "mcts:ckpt=none,sims=8",
            "--variant",
            "dimy",
            "--color",
            "black",
        ],
        "quit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Engine plays"));
    // A checkpoint that is not there, or not a checkpoint, is a clear error.
    let o = fanorona(&["analyze", "--engine", "mcts:ckpt=/nonexistent/run,sims=8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/run"), "{}", stderr(&o));
    let empty = std::env::temp_dir().join(format!("fanorona-empty-run-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let spec = format!("mcts:ckpt={},sims=8", empty.display());
    let o = fanorona(&["analyze", "--engine", &spec]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no meta.json"), "{}", stderr(&o));
    std::fs::remove_dir_all(&empty).ok();
}

#[test]
fn bench_nn_and_mcts_json() {
    let o = fanorona(&["bench", "nn", "--json", "--seconds", "0.1"]);
    let lines = json_lines(&o);
    let whats: Vec<(String, u64, String)> = lines
        .iter()
        .map(|v| {
            (
                v["what"].as_str().unwrap().to_string(),
                v["batch"].as_u64().unwrap(),
                v["engine"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let inference = |batch, engine: &str| ("inference".to_string(), batch, engine.to_string());
    assert_eq!(
        whats,
        [
            inference(1, "cpu"),
            inference(1, "burn"),
            inference(64, "cpu"),
            inference(64, "burn"),
            inference(256, "cpu"),
            inference(256, "burn"),
            ("training".into(), 256, String::new())
        ]
    );
    assert!(
        lines
            .iter()
            .all(|v| v["per_second"].as_f64().unwrap() > 0.0)
    );
    // The default tsivy network, named in every line; another shape on request.
    assert!(
        lines
            .iter()
            .all(|v| v["blocks"] == 4 && v["channels"] == 32)
    );
    let o = fanorona(&[
        "bench",
        "nn",
        "--json",
        "--seconds",
        "0.05",
        "--variant",
        "dimy",
        "--blocks",
        "2",
        "--channels",
        "16",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().all(|l| {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        v["blocks"] == 2 && v["channels"] == 16
    }));
    let o = fanorona(&["bench", "nn", "--channels", "0"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--channels"), "{}", stderr(&o));
    let o = fanorona(&["bench", "mcts", "--json", "--seconds", "0.1"]);
    let lines = json_lines(&o);
    assert!(lines.iter().any(|v| v["evaluator"] == "uniform"));
    assert!(lines.iter().any(|v| v["evaluator"] == "network"));
    assert!(
        lines
            .iter()
            .all(|v| v["simulations_per_second"].as_f64().unwrap() > 0.0
                && v["threads"].as_u64().is_some()
                && v["minimax_weight"] == 0.5)
    );
    // Without implicit minimax backups: named in every line; a weight above 1 is refused.
    let o = fanorona(&[
        "bench",
        "mcts",
        "--json",
        "--seconds",
        "0.05",
        "--minimax",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().all(|l| {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        v["minimax_weight"] == 0.0 && v["simulations_per_second"].as_f64().unwrap() > 0.0
    }));
    let o = fanorona(&["bench", "mcts", "--minimax", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--minimax"), "{}", stderr(&o));
}

/// A fresh folder with the smoke config's two generations trained as run `run`
/// (checkpoints under `c/`, experiments under `e/`).
fn smoke_run(name: &str, run: &str) -> std::path::PathBuf {
    smoke_run_with(name, run, &[])
}

/// The arguments of `fanorona train --config <config> --run <run>` with checkpoints in
/// `root/c`, experiments in `root/e` and `--set` each of `sets`.
fn train_args(config: &str, run: &str, root: &std::path::Path, sets: &[&str]) -> Vec<String> {
    let mut args = vec![
        "train".to_string(),
        "--config".into(),
        repo_file(config),
        "--run".into(),
        run.into(),
        "--checkpoints".into(),
        root.join("c").display().to_string(),
        "--experiments".into(),
        root.join("e").display().to_string(),
    ];
    for s in sets {
        args.extend(["--set".to_string(), s.to_string()]);
    }
    args
}

/// [`train_args`] run with `--quiet`.
fn train(config: &str, run: &str, root: &std::path::Path, sets: &[&str]) -> Output {
    let mut args = train_args(config, run, root, sets);
    args.push("--quiet".into());
    fanorona(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A quiet smoke-config run `run` under a fresh temporary folder (checkpoints in `c`,
/// experiments in `e`), with more `--set`s.
fn smoke_run_with(name: &str, run: &str, sets: &[&str]) -> std::path::PathBuf {
    let root = scratch(name);
    let sets: Vec<&str> = ["run.arena_every=0"].iter().chain(sets).copied().collect();
    let o = train("configs/smoke.toml", run, &root, &sets);
    assert!(o.status.success(), "{}", stderr(&o));
    root
}

#[test]
fn training_plays_its_periodic_match_from_a_book() {
    let root = scratch("train-book");
    let run = |book: &str| {
        train(
            "configs/smoke.toml",
            "b",
            &root,
            &[&format!("run.arena_book={book}")],
        )
    };
    // The smoke config trains dimy and plays its match every 2 generations.
    let o = run(&repo_file("configs/books/dimy.fen"));
    assert!(o.status.success(), "{}", stderr(&o));
    let metrics = std::fs::read_to_string(root.join("e/b/metrics.jsonl")).unwrap();
    assert!(metrics.contains("arena/score"), "{metrics}");
    // A book that cannot be used stops the run before it starts, naming the key.
    let _ = std::fs::remove_dir_all(&root);
    let o = run(&repo_file("configs/books/tsivy.fen"));
    assert!(!o.status.success());
    assert!(stderr(&o).contains("run.arena_book"), "{}", stderr(&o));
    let o = run("no-such-book.fen");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no-such-book.fen"), "{}", stderr(&o));
    // A relative path is read from the working folder, and the error says which.
    assert!(
        stderr(&o).contains("relative to the working folder"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn lines_said_while_a_progress_bar_is_up_reach_a_log() {
    // Output to a pipe hides the bars; the warm start's lines come while its bar is up
    // (with `bootstrap.overlap` it trains as the games arrive) and must not be lost.
    let root = scratch("train-log");
    let args = train_args(
        "configs/smoke.toml",
        "l",
        &root,
        &[
            "run.arena_every=0",
            "run.generations=1",
            "bootstrap.games=40",
            "bootstrap.depth=1",
            "bootstrap.epochs=30",
        ],
    );
    let o = fanorona(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("bootstrap: step 500,"), "{out}");
    assert!(out.contains("bootstrap: 40 games of ab:depth=1"), "{out}");
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn tree_learning_is_killed_and_resumes_losing_and_repeating_no_label() {
    // The label window lives in files (one a generation and a source) that the
    // checkpoints list: a run killed anywhere and resumed with the same command ends
    // where a run never stopped ends, byte for byte.
    let root = scratch("tree-kill");
    std::fs::create_dir_all(&root).unwrap();
    let config = root.join("tree.toml");
    std::fs::write(
        &config,
        "variant = \"dimy\"\n[tree]\nmethod = \"treestrap\"\nhidden = 8\ndepth = 2\nlabel_depth = 1\ngames = 6\nthreads = 1\ndeep_gap = 1\ndeep_positions = 2\n[train]\nbatch_size = 32\nreplay_window = 3000\nmin_replay = 32\n[run]\narena_every = 0\n",
    )
    .unwrap();
    let args = |run: &str, gens: u64| -> Vec<String> {
        [
            "train",
            "--config",
            &config.display().to_string(),
            "--run",
            run,
            "--checkpoints",
            &root.join("ck").display().to_string(),
            "--experiments",
            &root.join("ex").display().to_string(),
            "--set",
            &format!("run.generations={gens}"),
            "--quiet",
        ]
        .map(String::from)
        .to_vec()
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(args("k", 1000))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let second = root.join("ck/k/00002/meta.json");
    let t = std::time::Instant::now();
    while !second.exists() && t.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(second.exists(), "a second checkpoint was written");
    let reached: u64 = std::fs::read_dir(root.join("ck/k"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .max()
        .unwrap();
    let until = reached + 3;
    let o = fanorona(
        &args("k", until)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("resuming run `k` from generation {reached}")),
        "{}",
        stdout(&o)
    );
    let o = fanorona(
        &args("once", until)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |run: &str, file: &str| {
        std::fs::read_to_string(root.join(format!("ck/{run}/{until:05}/{file}"))).unwrap()
    };
    for file in ["eval.txt", "window.json"] {
        assert_eq!(read("k", file), read("once", file), "{file}");
    }
    let state = |run: &str| -> serde_json::Value {
        serde_json::from_str(&read(run, "state.json")).unwrap()
    };
    for key in ["generation", "games", "samples", "steps"] {
        assert_eq!(state("k")[key], state("once")[key], "{key}");
    }
    // The window's files: those its newest checkpoint lists, the same bytes.
    let files = |run: &str| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = std::fs::read_dir(root.join(format!("ck/{run}/labels")))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (k, once) = (files("k"), files("once"));
    assert!(
        k.iter().any(|(n, _)| n.ends_with("-teacher.bin")),
        "{:?}",
        k.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(k == once, "the same window files");
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn train_is_killed_and_resumes() {
    let root = scratch("train-kill");
    std::fs::create_dir_all(&root).unwrap();
    let ck = root.join("checkpoints");
    let ex = root.join("experiments");
    let args = |gens: u64| -> Vec<String> {
        vec![
            "train".into(),
            "--config".into(),
            repo_file("configs/smoke.toml"),
            "--run".into(),
            "k".into(),
            "--checkpoints".into(),
            ck.display().to_string(),
            "--experiments".into(),
            ex.display().to_string(),
            "--set".into(),
            format!("run.generations={gens}"),
            "--set".into(),
            "run.arena_every=0".into(),
            "--quiet".into(),
        ]
    };
    // Start a long run and kill it once its first checkpoint is on disk.
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(args(1000))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let first = ck.join("k/00001/meta.json");
    let t = std::time::Instant::now();
    while !first.exists() && t.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.exists(), "a first checkpoint was written");
    // Whatever generation it reached, the latest complete checkpoint is consistent.
    let latest = std::fs::read_dir(ck.join("k"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.len() == 5 && n.chars().all(|c| c.is_ascii_digit()))
        .max()
        .unwrap();
    let reached: u64 = latest.parse().unwrap();
    let o = fanorona(
        &args(reached + 2)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(&format!("resuming run `k` from generation {reached}")),
        "{out}"
    );
    let state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(ck.join(format!("k/{:05}/state.json", reached + 2))).unwrap(),
    )
    .unwrap();
    assert_eq!(state["generation"], reached + 2);
    assert_eq!(
        state["games"],
        (reached + 2) * 8,
        "the counters continue where the checkpoint left them"
    );
    // The checkpoint plays.
    let spec = format!("mcts:ckpt={},sims=8", ck.join("k").display());
    let v = json(&fanorona(&[
        "analyze",
        "--variant",
        "dimy",
        "--engine",
        &spec,
        "--json",
    ]));
    assert!(v["best"].is_string());
    // A dimy checkpoint is refused for a tsivy position.
    let o = fanorona(&["analyze", "--engine", &spec]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("dimy"), "{}", stderr(&o));
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn train_rejects_bad_configs_and_oracle_judges_telo() {
    let o = fanorona(&[
        "train",
        "--config",
        &repo_file("configs/smoke.toml"),
        "--set",
        "selfplay.simz=3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("simz"), "{}", stderr(&o));
    let o = fanorona(&["train", "--config", "/nonexistent.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent.toml"));
    // A one-generation telo network, judged by the solver (no strength expected).
    let root = scratch("oracle");
    let o = train(
        "configs/telo.toml",
        "t",
        &root,
        &["run.generations=1", "selfplay.games_per_generation=8"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&fanorona(&[
        "oracle",
        "--checkpoint",
        &root.join("c/t").display().to_string(),
        "--sims",
        "4",
        "--json",
    ]));
    assert!(v["positions"].as_u64().unwrap() > 100);
    let share = v["share"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&share));
    // The telo network answers analyze --fen-file too.
    let f = root.join("telo.txt");
    std::fs::write(&f, "3/3/3 w 0 0\nB2/1W1/W2 b 0 3\n").unwrap();
    let spec = format!("mcts:ckpt={},sims=8", root.join("c/t").display());
    let o = fanorona(&[
        "analyze",
        "--engine",
        &spec,
        "--json",
        "--fen-file",
        &f.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 2);
    // The players' default blend is not telo's; another one is refused.
    let spec = format!("{spec},blend=2");
    let o = fanorona(&["analyze", "--engine", &spec, "--fen", "3/3/3 w 0 0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not telo"), "{}", stderr(&o));
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn arena_on_a_clock_reports_times_and_keeps_its_games_apart() {
    let out = scratch("arena-clock");
    let o = out.display().to_string();
    let args = |tc: &'static str| {
        vec![
            "arena",
            "--players",
            "ab:depth=60",
            "random",
            "--variant",
            "dimy",
            "--games",
            "2",
            "--threads",
            "1",
            "--tc",
            tc,
            "--out",
            &o,
            "--json",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    let run = |a: &[String]| fanorona(&a.iter().map(String::as_str).collect::<Vec<_>>());
    // Depth 60: only the clock stops alpha-beta's searches.
    let v = json(&run(&args("1+0.01")));
    assert_eq!(v["games"], 2);
    let times = v["times"].as_array().unwrap();
    assert_eq!(times.len(), 2, "{v}");
    for t in times {
        assert_eq!(t["lost_on_time"], 0, "{t}");
        let (mean, longest) = (t["mean"].as_f64().unwrap(), t["longest"].as_f64().unwrap());
        assert!(mean <= longest && longest < 0.6, "{t}");
    }
    let ab = times.iter().find(|t| t["player"] == "ab:depth=60").unwrap();
    assert!(
        ab["longest"].as_f64().unwrap() > 0.005,
        "the searches used the clock: {ab}"
    );
    let games = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    for line in games.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(r["tc"], "1+0.01", "{r}");
        assert!(r["longest"].as_array().is_some(), "{r}");
    }
    // Games of another clock are not this match's: refused, naming both.
    let o2 = run(&args("2+0.01"));
    assert_ne!(o2.status.code(), Some(0));
    let e = stderr(&o2);
    assert!(
        e.contains("tc 1+0.01") && e.contains("tc 2+0.01") && e.contains("--out"),
        "{e}"
    );
    // A clock that does not read is named.
    let o3 = run(&args("1+x"));
    assert_eq!(o3.status.code(), Some(2), "{}", stderr(&o3));
    assert!(stderr(&o3).contains("time control"), "{}", stderr(&o3));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn arena_round_robin_resumes_and_reports() {
    let out = scratch("arena");
    let o = out.display().to_string();
    let args = [
        "arena",
        "--players",
        "random",
        "ab:depth=1",
        "ab:depth=3",
        "--variant",
        "dimy",
        "--games",
        "4",
        "--out",
        &o,
        "--json",
    ];
    let v = json(&fanorona(&args));
    assert_eq!(v["games"], 12);
    let r = v["ratings"].as_array().unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!(r[0]["player"], "random");
    // Random lost everything here, so a player with a finite rating anchors instead.
    assert_eq!(
        r.iter().filter(|p| p["elo"] == 0.0).count(),
        1,
        "one anchor: {r:?}"
    );
    assert!(r[2]["elo"].as_f64().unwrap() >= r[1]["elo"].as_f64().unwrap());
    for p in r {
        assert_eq!(p["games"], 8);
        // Every rating finite, perfect and zero scores included: never null.
        for k in ["elo", "low", "high", "score"] {
            assert!(p[k].as_f64().is_some(), "{k}: {p}");
        }
        assert!(p["low"].as_f64() <= p["elo"].as_f64() && p["elo"].as_f64() <= p["high"].as_f64());
    }
    assert_eq!(r[0]["score"], 0.0);
    assert_eq!(
        r[0]["prior"], true,
        "random lost everything: rated through the prior"
    );
    for f in ["games.jsonl", "results.csv", "ratings.csv", "ratings.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let lines = std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(lines, 12);
    // A rerun plays nothing again; more games per pairing plays only the new ones.
    let v = json(&fanorona(&args));
    assert_eq!(v["games"], 12);
    assert_eq!(
        std::fs::read_to_string(out.join("games.jsonl"))
            .unwrap()
            .lines()
            .count(),
        12
    );
    let mut more = args.to_vec();
    more[8] = "6";
    let v = json(&fanorona(&more));
    assert_eq!(v["games"], 18);
    // Deterministic players give the same games with the same seed.
    let out2 = out.join("again");
    let o2 = out2.display().to_string();
    fanorona(&[
        "arena",
        "--players",
        "ab:depth=1",
        "ab:depth=3",
        "--variant",
        "dimy",
        "--games",
        "4",
        "--out",
        &o2,
        "--json",
    ]);
    let games = |p: &std::path::Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_to_string(p.join("games.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| {
                l.contains("\"white\":\"ab:depth=1\"") || l.contains("\"white\":\"ab:depth=3\"")
            })
            .filter(|l| !l.contains("random"))
            .map(|l| {
                // The measured thinking time differs from run to run; the game must not.
                let mut g: serde_json::Value = serde_json::from_str(l).unwrap();
                // Times differ from run to run; the games do not.
                let g = g.as_object_mut().unwrap();
                g.remove("seconds");
                g.remove("longest");
                serde_json::Value::from(g.clone()).to_string()
            })
            .collect();
        v.sort();
        v
    };
    let first: Vec<String> = games(&out)
        .into_iter()
        .filter(|l| {
            ["| 0\"", "| 1\"", "| 2\"", "| 3\""]
                .iter()
                .any(|k| l.contains(k))
        })
        .collect();
    assert_eq!(first, games(&out2));
    // The Markdown tables.
    let o = fanorona(&[
        "arena",
        "--players",
        "random",
        "ab:depth=1",
        "--variant",
        "dimy",
        "--games",
        "2",
        "--out",
        &o,
    ]);
    let text = stdout(&o);
    assert!(
        text.contains(
            "| player | opponent | wins | draws | losses | score | pairs 0 / ½ / 1 / 1½ / 2 | paired Elo [95 %] |"
        ),
        "{text}"
    );
    assert!(
        text.contains("| player | Elo | 95 % interval | games | score |"),
        "{text}"
    );
    // Bad input.
    let o = fanorona(&["arena", "--players", "random"]);
    assert_eq!(o.status.code(), Some(2));
    let o = fanorona(&["arena", "--players", "random", "ab:depth=x"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn arena_plays_from_a_fen() {
    let out = scratch("arena-fen");
    let fen = "B1BB1/B3B/4W/W2BW/W3W w 0 4";
    let v = json(&fanorona(&[
        "arena",
        "--players",
        "ab:depth=2",
        "ab:depth=4",
        "--fen",
        fen,
        "--games",
        "2",
        "--out",
        &out.display().to_string(),
        "--json",
    ]));
    assert_eq!(v["games"], 2);
    let text = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    for line in text.lines() {
        let g: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(g["fen"], fen, "the game starts from the FEN");
        // Its turns replay from there (dimy, White to move).
        let mut args = vec!["replay", "--fen", fen, "--json"];
        let turns: Vec<String> = g["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        args.extend(turns.iter().map(String::as_str));
        let r = json(&fanorona(&args));
        assert_eq!(r["result"], g["result"], "{line}");
    }
    // A finished position or a telo FEN is refused.
    let o = fanorona(&[
        "arena",
        "--players",
        "random",
        "ab:depth=1",
        "--fen",
        "3/3/3 w 0 0",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn book_then_arena_with_the_book_and_sprt() {
    let dir = scratch("book");
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("dimy.fen");
    let b = book.display().to_string();
    let make = [
        "book",
        "--variant",
        "dimy",
        "--count",
        "12",
        "--turns",
        "3",
        "--depth",
        "2",
        "--max-score",
        "60",
    ];
    let o = fanorona(&[&make[..], &["--out", &b]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&book).unwrap();
    assert!(text.starts_with("# Fanorona opening book"), "{text}");
    let fens: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(fens.len(), 12);
    // The same arguments make the same book.
    let o2 = fanorona(&make);
    assert_eq!(stdout(&o2), text);
    // --exclude: a second book (a training book) shares no position with the first.
    let o3 = fanorona(&[&make[..], &["--seed", "2", "--exclude", &b]].concat());
    assert!(o3.status.success(), "{}", stderr(&o3));
    let other = stdout(&o3);
    assert!(other.contains("--exclude"), "{other}");
    let board = |f: &str| f.split(' ').take(2).collect::<Vec<_>>().join(" ");
    let held: std::collections::HashSet<String> = fens.iter().map(|f| board(f)).collect();
    let new: Vec<&str> = other.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(new.len(), 12);
    assert!(new.iter().all(|f| !held.contains(&board(f))), "{other}");
    let missing = dir.join("missing.fen").display().to_string();
    let o4 = fanorona(&[&make[..], &["--exclude", &missing]].concat());
    assert_eq!(o4.status.code(), Some(2));
    assert!(stderr(&o4).contains("missing.fen"), "{}", stderr(&o4));
    // Every pairing plays each position twice; --games 8 takes the first 4 positions.
    let out = dir.join("arena");
    let args = [
        "arena",
        "--players",
        "ab:depth=1",
        "ab:depth=2",
        "--book",
        &b,
        "--games",
        "8",
        "--out",
        &out.display().to_string(),
        "--json",
    ];
    let v = json(&fanorona(&args));
    assert_eq!(v["games"], 8);
    let games = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let used: std::collections::BTreeSet<String> = games
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["fen"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let want: std::collections::BTreeSet<String> =
        fens[..4].iter().map(|s| s.to_string()).collect();
    assert_eq!(used, want);
    // A rerun resumes: nothing is played again.
    let v = json(&fanorona(&args));
    assert_eq!(v["games"], 8);
    assert_eq!(
        std::fs::read_to_string(out.join("games.jsonl"))
            .unwrap()
            .lines()
            .count(),
        8
    );
    // SPRT: alpha-beta against random decides H1 long before the book runs out.
    let v = json(&fanorona(&[
        "arena",
        "--players",
        "ab:depth=2",
        "random",
        "--book",
        &b,
        "--sprt",
        "0,100",
        "--min-pairs",
        "10",
        "--games",
        "60",
        "--out",
        &dir.join("sprt").display().to_string(),
        "--json",
    ]));
    let s = &v["sprt"];
    assert_eq!(s["result"], "H1", "{v}");
    assert!(s["llr"].as_f64().unwrap() >= s["upper"].as_f64().unwrap());
    assert!((s["lower"].as_f64().unwrap() + 2.944).abs() < 0.01);
    // It decides at the 10th pair (--min-pairs); a game in flight may finish one more.
    let pairs = s["pairs"].as_u64().unwrap();
    assert!((10..=11).contains(&pairs), "{v}");
    assert!(v["games"].as_u64().unwrap() < 30, "stopped early: {v}");
    // Bad input: a book line that is no FEN, --sprt with three players, a bad --sprt.
    std::fs::write(
        dir.join("bad.fen"),
        "# x\nBBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0\nnonsense\n",
    )
    .unwrap();
    let o = fanorona(&[
        "arena",
        "--players",
        "random",
        "ab:depth=1",
        "--book",
        &dir.join("bad.fen").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.fen:3"), "{}", stderr(&o));
    let o = fanorona(&[
        "arena",
        "--players",
        "random",
        "ab:depth=1",
        "ab:depth=2",
        "--book",
        &b,
        "--sprt",
        "0,10",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = fanorona(&[
        "arena",
        "--players",
        "random",
        "ab:depth=1",
        "--book",
        &b,
        "--sprt",
        "10,0",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = fanorona(&["book", "--variant", "telo", "--count", "3"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_warm_start_keeps_snapshots_that_a_gauntlet_plays_against_time() {
    let root = smoke_run_with(
        "warm-snap",
        "w",
        &[
            "run.generations=1",
            "bootstrap.games=40",
            "bootstrap.depth=1",
            "bootstrap.checkpoint_seconds=1",
        ],
    );
    let warm = root.join("c/w/warm");
    let mut snaps: Vec<String> = std::fs::read_dir(&warm)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    snaps.sort();
    assert!(
        !snaps.is_empty(),
        "at least the warm start's last checkpoint"
    );
    for s in &snaps {
        assert_eq!(s.len(), 6, "zero-padded seconds: {s}");
        for f in ["meta.json", "model.bpk", "state.json"] {
            assert!(warm.join(s).join(f).is_file(), "{s}/{f}");
        }
        // The network alone: no optimizer, no window.
        assert!(!warm.join(s).join("replay.bin").exists());
    }
    // The run's own checkpoints are unaffected: the snapshots' folder is not one.
    assert!(root.join("c/w/00001/meta.json").is_file());
    let out = root.join("g");
    let (warm_s, out_s) = (warm.display().to_string(), out.display().to_string());
    let gauntlet = |x: &[&str]| {
        let mut args = vec!["arena", "--gauntlet", &warm_s, "--out", &out_s, "--json"];
        args.extend_from_slice(&["--player-opts", "guard=0,blend=0", "--vs", "random"]);
        args.extend_from_slice(&["--sims", "4", "--games", "2"]);
        args.extend_from_slice(x);
        json(&fanorona(&args))
    };
    let v = gauntlet(&["--x", "seconds"]);
    assert_eq!(v["games"], 2 * snaps.len() as u64, "{v}");
    let ratings = v["ratings"].as_array().unwrap();
    assert!(
        ratings.iter().any(|r| r["player"]
            .as_str()
            .is_some_and(|p| p.ends_with(",guard=0,blend=0"))),
        "{v}"
    );
    let svg = std::fs::read_to_string(out.join("elo.svg")).unwrap();
    assert!(svg.contains("seconds of training"));
    // Each snapshot against the one before it, on their twin games against `random`.
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), snaps.len() - 1, "{v}");
    for (st, pair) in steps.iter().zip(snaps.windows(2)) {
        assert!(st["player"].as_str().unwrap().contains(&pair[1]), "{st}");
        assert!(st["previous"].as_str().unwrap().contains(&pair[0]), "{st}");
        assert_eq!(st["x"], pair[1].parse::<u64>().unwrap(), "{st}");
        assert_eq!(st["games"], 2, "{st}");
        let (diff, low, high) = (
            st["diff"].as_f64().unwrap(),
            st["low"].as_f64().unwrap(),
            st["high"].as_f64().unwrap(),
        );
        assert!(low <= diff && diff <= high, "{st}");
    }
    // The slope of the curve's end over the last 3, 4, ... snapshots, per hour.
    let trends = v["trends"].as_array().unwrap();
    assert_eq!(trends.len(), snaps.len().saturating_sub(2), "{v}");
    for (t, k) in trends.iter().zip(3..) {
        assert_eq!(t["checkpoints"], k, "{t}");
        assert_eq!(t["per"], "hour", "{t}");
        assert_eq!(t["twins"], 2, "{t}");
    }
    // The last snapshot against each earlier one.
    let from_last = v["from_last"].as_array().unwrap();
    assert_eq!(from_last.len(), snaps.len() - 1, "{v}");
    for (st, earlier) in from_last.iter().zip(&snaps) {
        assert!(
            st["player"]
                .as_str()
                .unwrap()
                .contains(snaps.last().unwrap()),
            "{st}"
        );
        assert_eq!(st["previous_x"], earlier.parse::<u64>().unwrap(), "{st}");
    }
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("steps.json")).unwrap()).unwrap();
    assert_eq!(&saved["steps"], &v["steps"]);
    assert_eq!(&saved["from_last"], &v["from_last"]);
    // A warm folder is ordered by seconds without being told (the same games: none new).
    std::fs::remove_file(out.join("elo.svg")).unwrap();
    let again = gauntlet(&[]);
    assert_eq!(again["games"], v["games"]);
    assert_eq!(again["steps"], v["steps"]);
    let svg = std::fs::read_to_string(out.join("elo.svg")).unwrap();
    assert!(svg.contains("seconds of training"));
    // Generation order does not tell the snapshots apart; a run without state.json in
    // its checkpoints cannot be ordered by time.
    std::fs::remove_file(warm.join(&snaps[0]).join("state.json")).unwrap();
    let o = fanorona(&[
        "arena",
        "--gauntlet",
        &warm.display().to_string(),
        "--x",
        "seconds",
        "--vs",
        "random",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("state.json"), "{}", stderr(&o));
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn arena_gauntlet_over_a_run() {
    let root = smoke_run("gauntlet", "g");
    let out = root.join("gauntlet");
    let v = json(&fanorona(&[
        "arena",
        "--gauntlet",
        &root.join("c/g").display().to_string(),
        "--vs",
        "random",
        "ab:depth=1",
        "--sims",
        "4",
        "--games",
        "2",
        "--out",
        &out.display().to_string(),
        "--json",
    ]));
    assert_eq!(v["games"], 8, "two checkpoints x two opponents x two games");
    // The later checkpoint against the earlier on their four twin games.
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{v}");
    let st = &steps[0];
    assert_eq!(st["games"], 4, "{st}");
    assert_ne!(st["player"], st["previous"]);
    let b = st["better"].as_u64().unwrap() + st["worse"].as_u64().unwrap();
    assert!(b <= 4, "{st}");
    let s = |k: &str| st[k].as_f64().unwrap();
    assert!(
        (s("diff") - (s("score") - s("previous_score"))).abs() < 2e-3,
        "{st}"
    );
    assert!(s("low") <= s("diff") && s("diff") <= s("high"), "{st}");
    // With two checkpoints the last against the earlier is the one step, and there is
    // no end to fit a slope to beyond it.
    assert_eq!(v["from_last"], v["steps"]);
    assert_eq!(v["trends"], serde_json::json!([]));
    assert!(out.join("steps.json").is_file());
    assert!(out.join("ratings.json").is_file());
    assert!(
        std::fs::read_to_string(out.join("elo.svg"))
            .map(|s| s.contains("<svg"))
            .unwrap_or(false)
    );
    assert!(
        v["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["elo"].is_number())
    );
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn export_writes_the_model_files_and_refuses_bad_checkpoints() {
    let root = smoke_run("export", "x");
    // A run folder means its latest checkpoint.
    let out = root.join("out");
    let v = json(&fanorona(&[
        "export",
        "--checkpoint",
        &root.join("c/x").display().to_string(),
        "--out",
        &out.display().to_string(),
        "--reference",
        "20",
        "--json",
    ]));
    assert_eq!(v["variant"], "dimy");
    assert_eq!(v["generation"], 2);
    assert_eq!(v["run"], "x");
    assert!(v["checkpoint"].as_str().unwrap().ends_with("00002"));
    assert_eq!(v["files"].as_array().unwrap().len(), 4);
    for f in [
        "model.onnx",
        "model.safetensors",
        "model.json",
        "reference.json",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let desc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("model.json")).unwrap()).unwrap();
    assert_eq!(desc["input"]["name"], "planes");
    assert_eq!(desc["actions"]["end_turn"], 600);
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("reference.json")).unwrap())
            .unwrap();
    assert_eq!(reference["cases"].as_array().unwrap().len(), 20);
    // The documented form (docs/front-ends.md): one ONNX file, its description beside it.
    let file = root.join("nets/dimy.onnx");
    let o = fanorona(&[
        "export",
        "--checkpoint",
        &root.join("c/x/00001").display().to_string(),
        "--onnx",
        &file.display().to_string(),
        "--reference",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(file.is_file() && root.join("nets/dimy.json").is_file());
    assert!(!root.join("nets/dimy.reference.json").exists());
    // Missing and damaged checkpoints: exit 2, the path named, nothing written.
    let bad = root.join("bad");
    let o = fanorona(&[
        "export",
        "--checkpoint",
        &root.join("c/none").display().to_string(),
        "--out",
        &bad.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("c/none"), "{}", stderr(&o));
    let model = root.join("c/x/00002/model.bpk");
    let bytes = std::fs::read(&model).unwrap();
    std::fs::write(&model, &bytes[..bytes.len() / 3]).unwrap();
    let o = fanorona(&[
        "export",
        "--checkpoint",
        &root.join("c/x").display().to_string(),
        "--out",
        &bad.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("model.bpk"), "{}", stderr(&o));
    assert!(!bad.exists());
    // Neither --out nor --onnx: a usage error.
    let o = fanorona(&["export", "--checkpoint", "x"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&root).ok();
}

/// A reader that stops early (`fanorona analyze ... | head -1`) ends the command as it
/// ends other Unix tools, by SIGPIPE, and never with a panic.
#[cfg(unix)]
#[test]
fn a_closed_pipe_is_no_panic() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    // More output than a pipe buffers (64 KiB): 1 200 positions, a JSON line each.
    let book = std::fs::read_to_string(repo_file("configs/books/tsivy.fen")).unwrap();
    let dir = std::env::temp_dir().join(format!("fanorona-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fens = dir.join("many.fen");
    std::fs::write(&fens, book.repeat(5)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["analyze", "--engine", "ab:depth=1", "--json", "--fen-file"])
        .arg(&fens)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped here: the pipe is closed with most of the output unwritten.
    assert!(first.starts_with('{'), "{first}");
    let o = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    // SIGPIPE is 13 on Linux and macOS.
    assert_eq!(o.status.signal(), Some(13), "{:?}", o.status);
}

#[test]
fn tune_eval_then_alpha_beta_plays_with_it() {
    let dir = scratch("tune-eval");
    std::fs::create_dir_all(&dir).unwrap();
    let eval = dir.join("eval.txt").display().to_string();
    let data = dir.join("labels.txt").display().to_string();
    let fit = [
        "tune-eval",
        "--variant",
        "dimy",
        "--games",
        "6",
        "--play-depth",
        "1",
        "--label-depth",
        "2",
        "--max-turns",
        "30",
        "--hidden",
        "8",
        "--epochs",
        "2",
        "--threads",
        "2",
    ];
    let o = fanorona(&[&fit[..], &["--out", &eval, "--save-data", &data]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("held-out loss"), "{}", stderr(&o));
    // Not a terminal: the progress comes as lines.
    assert!(stderr(&o).contains("labelled 3/6 games"), "{}", stderr(&o));
    let text = std::fs::read_to_string(&eval).unwrap();
    assert!(text.starts_with("fanorona-learned-eval 2\nvariant dimy\nhidden 8\nbase hand\n"));
    // The saved labels fit again without playing, to the same network.
    let again = dir.join("again.txt").display().to_string();
    let o = fanorona(&[&fit[..], &["--out", &again, "--data", &data]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);
    // A round that plays and labels with the network just fitted.
    let round = dir.join("round.txt").display().to_string();
    let o = fanorona(&[&fit[..], &["--out", &round, "--label-eval", &eval]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    // Alpha-beta and the network player's guard play with it.
    let spec = format!("ab:depth=2,eval={eval}");
    let mcts = format!("mcts:ckpt=none,sims=4,guard=2,blend=1,ab_eval={eval}");
    let out = dir.join("arena").display().to_string();
    let args = [
        "arena",
        "--variant",
        "dimy",
        "--players",
        &spec,
        &mcts,
        "--games",
        "2",
        "--out",
        &out,
        "--json",
    ];
    let v = json(&fanorona(&args));
    assert_eq!(v["games"], 2);
    // Bad files: named, exit status 2, no panic.
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        "fanorona-learned-eval 1\nvariant dimy\nhidden 8\n1 2 x\n",
    )
    .unwrap();
    for (variant, file, needle) in [
        (
            "dimy",
            bad.display().to_string(),
            "weight 2 is not a finite number",
        ),
        (
            "dimy",
            dir.join("none.txt").display().to_string(),
            "none.txt",
        ),
        ("tsivy", eval.clone(), "made for dimy, not tsivy"),
    ] {
        let spec = format!("ab:depth=1,eval={file}");
        let o = fanorona(&[
            "arena",
            "--variant",
            variant,
            "--players",
            &spec,
            "ab:depth=1",
            "--games",
            "2",
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
    let bad_data = dir.join("bad-data.txt");
    std::fs::write(&bad_data, "not a fen ; 12\n").unwrap();
    let o = fanorona(
        &[
            &fit[..],
            &["--out", &again, "--data", &bad_data.display().to_string()],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad-data.txt line 1"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn opening_books_are_made_resumed_and_played_from() {
    let dir = scratch("opening");
    let file = dir.join("book.txt");
    let f = file.to_str().unwrap();
    let make = || {
        fanorona(&[
            "book",
            "--variant",
            "dimy",
            "--opening",
            "--plies",
            "2",
            "--depth",
            "3",
            "--eval",
            "none",
            "--out",
            f,
        ])
    };
    let o = make();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# Fanorona opening book: dimy"), "{text}");
    let positions = text.lines().filter(|l| !l.starts_with('#')).count();
    assert!(positions > 1, "{text}");
    // Run again, it goes on from the file: nothing is searched twice.
    let o = make();
    assert!(
        stderr(&o).contains(&format!("going on from its {positions} positions")),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("(0 new)"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // A player with the book plays the start from it, without searching.
    let a = json(&fanorona(&[
        "analyze",
        "--variant",
        "dimy",
        "--engine",
        &format!("ab:depth=4,book={f}"),
        "--json",
    ]));
    assert_eq!(a["nodes"].as_u64(), Some(0), "{a}");
    let first = text.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(
        first.contains(&format!("\t{} ", a["best"].as_str().unwrap())),
        "{a} not in {first}"
    );
    // Bad input: a missing book, another board's book, --opening without --out.
    let o = fanorona(&[
        "analyze",
        "--variant",
        "dimy",
        "--engine",
        "ab:depth=2,book=/no/such/book.txt",
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("/no/such/book.txt"),
        "{}",
        stderr(&o)
    );
    let o = fanorona(&[
        "analyze",
        "--variant",
        "tsivy",
        "--engine",
        &format!("ab:depth=2,book={f}"),
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("not a tsivy book"),
        "{}",
        stderr(&o)
    );
    let o = fanorona(&["book", "--variant", "dimy", "--opening"]);
    assert!(
        !o.status.success() && stderr(&o).contains("--out"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_opening_book_learns_from_a_lost_game() {
    let dir = scratch("book-learn");
    let file = dir.join("book.txt");
    let f = file.to_str().unwrap();
    let o = fanorona(&[
        "book",
        "--variant",
        "dimy",
        "--opening",
        "--plies",
        "2",
        "--depth",
        "2",
        "--eval",
        "none",
        "--out",
        f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    let start = text.lines().find(|l| !l.starts_with('#')).unwrap();
    let (board, best) = {
        let mut cols = start.split('\t');
        let board = cols.next().unwrap().to_string();
        (
            board,
            cols.next().unwrap().split(' ').next().unwrap().to_string(),
        )
    };
    // An arena's record: White played the book's best turn and lost; another game
    // was won with it.
    let games = dir.join("games.jsonl");
    let record = |result: &str, key: &str| {
        format!(
            r#"{{"white":"a","black":"b","opening":0,"result":"{result}","turns":["{best}"],"key":"{key}"}}"#
        )
    };
    std::fs::write(
        &games,
        format!("{}\n{}\n", record("black", "1"), record("white", "2")),
    )
    .unwrap();
    let learn = |games: &str| {
        fanorona(&[
            "book",
            "--variant",
            "dimy",
            "--learn",
            games,
            "--depth",
            "4",
            "--eval",
            "none",
            "--out",
            f,
        ])
    };
    let o = learn(games.to_str().unwrap());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with(&format!("{board}  {best}: 2 games, 1.0 points, 1 lost")),
        "{out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    // The book still reads, its start's line replaced (depth 4's scores), the others
    // as they were, and its header says what it learned.
    let learned = std::fs::read_to_string(&file).unwrap();
    assert!(learned.contains("# Learned from 2 games"), "{learned}");
    let body = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect()
    };
    let (before, after) = (body(&text), body(&learned));
    assert_eq!(before.len(), after.len());
    assert_ne!(before[0], after[0]);
    assert_eq!(before[1..], after[1..]);
    let a = json(&fanorona(&[
        "analyze",
        "--variant",
        "dimy",
        "--engine",
        &format!("ab:depth=2,book={f}"),
        "--json",
    ]));
    assert_eq!(a["nodes"].as_u64(), Some(0), "{a}");
    // Bad input: no --out, a damaged record, a turn that is not legal.
    let o = fanorona(&[
        "book",
        "--variant",
        "dimy",
        "--learn",
        games.to_str().unwrap(),
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("--out"),
        "{}",
        stderr(&o)
    );
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{not json\n").unwrap();
    let o = learn(bad.to_str().unwrap());
    assert!(
        !o.status.success() && stderr(&o).contains("bad.jsonl"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&bad, record("white", "3").replace(&best, "a1a5")).unwrap();
    let o = learn(bad.to_str().unwrap());
    assert!(
        !o.status.success() && stderr(&o).contains("turn 1"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tablebases_build_probe_and_analyze() {
    let dir = scratch("tb-cmd");
    let d = dir.to_str().unwrap();
    let o = fanorona(&[
        "tb",
        "build",
        "--variant",
        "dimy",
        "--pieces",
        "3",
        "--out",
        d,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("dimy tables of up to 3 pieces"),
        "{}",
        stdout(&o)
    );
    assert!(stderr(&o).contains("dimy 2v1"), "{}", stderr(&o));
    // White's c3b3 takes a3 by approach: the last black piece.
    let fen = "4W/5/B1W2/5/5 w 0 2";
    let p = json(&fanorona(&[
        "tb", "probe", "--fen", fen, "--tb", d, "--json",
    ]));
    assert_eq!(
        (p["wdl"].as_str(), p["dtc"].as_u64()),
        (Some("win"), Some(1)),
        "{p}"
    );
    assert_eq!(p["best"], "c3b3(+1)");
    // analyze shows the tables' answer beside the engine's.
    let a = json(&fanorona(&[
        "analyze",
        "--fen",
        fen,
        "--engine",
        "ab:depth=2",
        "--tb",
        d,
        "--json",
    ]));
    assert_eq!(a["tb"]["wdl"], "win", "{a}");
    // The engine plays from them: a covered root is not searched.
    let e = json(&fanorona(&[
        "analyze",
        "--fen",
        fen,
        "--engine",
        &format!("ab:depth=6,tb={d}"),
        "--json",
    ]));
    assert_eq!(
        (e["best"].as_str(), e["nodes"].as_u64()),
        (Some("c3b3(+1)"), Some(1)),
        "{e}"
    );
    // Tables in the default folder ($FANORONA_TB) are the interactive players' without
    // a tb= option; tb=none keeps a player without them.
    let found = |engine: &str| {
        json(
            &Command::new(env!("CARGO_BIN_EXE_fanorona"))
                .args(["analyze", "--fen", fen, "--engine", engine, "--json"])
                .env("FANORONA_TB", d)
                .output()
                .expect("runs"),
        )
    };
    assert_eq!(found("ab:depth=6")["nodes"].as_u64(), Some(1));
    assert!(found("ab:depth=6,tb=none")["nodes"].as_u64() > Some(1));
    // The benchmark: probes alone and inside alpha-beta, with the counts it checks.
    let b = json(&fanorona(&[
        "bench",
        "tb",
        "--tb",
        d,
        "--variant",
        "dimy",
        "--seconds",
        "0.1",
        "--depth",
        "6",
        "--json",
    ]));
    assert!(b["probes_per_second"].as_f64().unwrap() > 0.0, "{b}");
    assert!(b["ab_tb_hits"].as_u64().unwrap() > 0, "{b}");
    assert!(
        b["ab_nodes_with"].as_u64() < b["ab_nodes_without"].as_u64(),
        "{b}"
    );
    // The arena adjudicates with them when asked: from a 2-against-2 book, every game
    // ends at its first covered position (three pieces) with the tables' result.
    let book = dir.join("two-two.fen");
    std::fs::write(&book, "5/1W3/2B2/1B1W1/5 w 0 2\n5/W3B/5/B3W/5 w 0 2\n").unwrap();
    let arena = dir.join("arena");
    let args = [
        "arena",
        "--players",
        "ab:depth=1",
        "random",
        "--variant",
        "dimy",
        "--book",
        book.to_str().unwrap(),
        "--games",
        "4",
        "--threads",
        "1",
        "--adjudicate",
        d,
        "--out",
        arena.to_str().unwrap(),
    ];
    let o = fanorona(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("ended by the endgame tables"),
        "{}",
        stdout(&o)
    );
    let games = std::fs::read_to_string(arena.join("games.jsonl")).unwrap();
    let mut ended = 0;
    for line in games.lines() {
        let g: serde_json::Value = serde_json::from_str(line).unwrap();
        if g["adjudicated"] == true {
            ended += 1;
            // Replayed, the game stops at a covered position whose value is the result.
            let mut pos = fanorona_rules::Position::from_fen(
                g["fen"].as_str().unwrap(),
                fanorona_rules::RuleOptions::default(),
            )
            .unwrap();
            for t in g["turns"].as_array().unwrap() {
                let turn = fanorona_rules::notation::parse_turn(&pos, t.as_str().unwrap()).unwrap();
                pos.play_unchecked(&turn);
            }
            assert!(pos.occupied().count() <= 3, "{line}");
            let p = json(&fanorona(&[
                "tb",
                "probe",
                "--fen",
                &pos.fen(),
                "--tb",
                d,
                "--json",
            ]));
            let expected = match (p["wdl"].as_str().unwrap(), pos.side_to_move()) {
                ("draw", _) => "draw",
                ("win", fanorona_rules::Color::White) | ("loss", fanorona_rules::Color::Black) => {
                    "white"
                }
                _ => "black",
            };
            assert_eq!(g["result"], expected, "{line}");
        }
    }
    assert!(ended > 0, "{games}");
    let v = json(&fanorona(&[&args[..], &["--json"]].concat()));
    assert_eq!(v["adjudicated"].as_u64(), Some(ended), "{v}");

    // Bad input: too many pieces, no tables, a damaged spec.
    for (args, needle) in [
        (
            vec![
                "tb",
                "probe",
                "--fen",
                "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW w 0 0",
                "--tb",
                d,
            ],
            "hold up to 3",
        ),
        (
            vec!["tb", "probe", "--fen", fen, "--tb", "/no/such/dir"],
            "fanorona tb build",
        ),
        (
            vec![
                "tb",
                "build",
                "--variant",
                "telo",
                "--pieces",
                "3",
                "--out",
                d,
            ],
            "telo",
        ),
        (
            vec!["analyze", "--fen", fen, "--engine", "ab:tb=/no/such/dir"],
            "/no/such/dir",
        ),
        (
            vec![
                "arena",
                "--players",
                "random",
                "ab:depth=1",
                "--variant",
                "dimy",
                "--adjudicate",
                "/no/such/dir",
            ],
            "--adjudicate /no/such/dir",
        ),
    ] {
        let o = fanorona(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The command fails with a clear, short error: every line of it at most 300 bytes.
fn brief_error(args: &[&str]) {
    let o = fanorona(args);
    let what: Vec<String> = args.iter().map(|a| a.chars().take(40).collect()).collect();
    assert_eq!(o.status.code(), Some(2), "{what:?}");
    let e = stderr(&o);
    assert!(e.contains("error"), "{what:?}: {}", &e[..e.len().min(300)]);
    assert!(!e.contains("panicked"), "{what:?}");
    for line in e.lines() {
        assert!(
            line.len() <= 300,
            "{what:?}: {} bytes: {}",
            line.len(),
            &line[..300]
        );
    }
}

#[test]
fn an_error_quotes_a_huge_input_briefly() {
    // An argument may be 128 KiB at most (the kernel's limit); a file any size.
    let arg = "W".repeat(120 * 1024);
    let rule = format!("vela={arg}");
    let set = format!("tree.method={arg}");
    let time = format!("ab:time={arg}");
    for args in [
        vec!["perft", "--depth", "1", "--fen", &arg],
        vec!["perft", "--depth", "1", "--rule", &rule],
        vec!["perft", "--depth", "1", "--rule", &arg],
        vec!["turns", "--variant", &arg],
        vec!["replay", "--fen", &arg, "d3e3"],
        vec!["replay", &arg],
        vec!["analyze", "--engine", &arg],
        vec!["analyze", "--engine", &time],
        vec!["arena", "--players", &arg, "random"],
        vec!["train", "--set", &arg],
        vec!["train", "--set", &set],
    ] {
        brief_error(&args);
    }
    let dir = std::env::temp_dir().join(format!("fanorona-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let huge = "W".repeat(5 << 20);
    let file = |name: &str, text: String| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let game = file("game.txt", format!("1. {huge}\n"));
    let config = file("config.toml", format!("variant = \"{huge}\"\n"));
    let broken = file("broken.toml", format!("[run]\n{huge}\n"));
    let book = file("book.fen", format!("{huge}\n"));
    let eval = file("eval.txt", format!("{huge}\n"));
    let eval_spec = format!("ab:depth=1,eval={eval}");
    for args in [
        vec!["replay", "--file", &game],
        vec!["train", "--config", &config],
        vec!["train", "--config", &broken],
        vec![
            "arena",
            "--players",
            "random",
            "ab:depth=1",
            "--book",
            &book,
        ],
        vec!["analyze", "--engine", &eval_spec],
    ] {
        brief_error(&args);
    }
    std::fs::remove_dir_all(&dir).ok();
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The binary run with its writes limited to `kib` KiB a file (`ulimit -f`): a write past
/// it fails as on a full disk.
#[cfg(unix)]
fn fanorona_limited(kib: u32, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -f {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_fanorona"))
        .args(args)
        .output()
        .expect("sh runs")
}

/// A run, a match, an opening book and tables whose writes start failing stop with an
/// error naming the file, keep what they had written whole, and go on with the same
/// command to what a run never stopped makes.
#[cfg(unix)]
#[test]
fn writes_that_fail_stop_naming_the_file_and_the_same_command_goes_on() {
    let root = scratch("write-fails");
    std::fs::create_dir_all(&root).unwrap();
    let at = |p: &str| root.join(p).display().to_string();
    let failed = |o: &Output, file: &str| {
        assert_eq!(o.status.code(), Some(1), "{}", stderr(o));
        let e = stderr(o);
        assert!(e.contains(file) && e.contains("File too large"), "{e}");
        assert!(!e.contains("panicked"), "{e}");
    };

    // The main job's recipe in small (an evaluation and a network learning from the same
    // games), stopped by failing writes at several sizes: labels, checkpoints, the
    // network's replay window, its model and its optimizer.
    let config = at("tree.toml");
    std::fs::write(
        &config,
        "variant = \"dimy\"\n[tree]\nmethod = \"treestrap\"\nhidden = 8\ndepth = 2\nlabel_depth = 1\ngames = 6\nthreads = 1\ndeep_gap = 1\ndeep_positions = 2\n[net]\nblocks = 1\nchannels = 8\npositions = 2\nwindow = 2000\n[train]\nbatch_size = 32\nreplay_window = 3000\nmin_replay = 32\n[run]\narena_every = 0\n",
    )
    .unwrap();
    let (ck, ex) = (at("ck"), at("ex"));
    let train = |run: &str, gens: u64| -> Vec<String> {
        let mut a: Vec<String> = ["train", "--config", &config, "--run", run]
            .map(String::from)
            .to_vec();
        a.extend(["--checkpoints", &ck, "--experiments", &ex, "--quiet"].map(String::from));
        a.extend(["--set".to_string(), format!("run.generations={gens}")]);
        a
    };
    let o = fanorona(&strs(&train("f", 2)));
    assert!(o.status.success(), "{}", stderr(&o));
    let mut stops = 0;
    for kib in [4, 12, 20, 40, 300] {
        let o = fanorona_limited(kib, &strs(&train("f", 8)));
        if !o.status.success() {
            failed(&o, &ck);
            stops += 1;
        }
        // What is on disk reads: the next command resumes from it.
    }
    assert!(stops >= 4, "the limits stopped {stops} runs");
    let o = fanorona(&strs(&train("f", 8)));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = fanorona(&strs(&train("once", 8)));
    assert!(o.status.success(), "{}", stderr(&o));
    let read = |run: &str, file: &str| std::fs::read(root.join(format!("ck/{run}/00008/{file}")));
    for file in ["eval.txt", "window.json"] {
        assert_eq!(
            read("f", file).unwrap(),
            read("once", file).unwrap(),
            "{file}"
        );
    }
    let state = |run: &str| -> serde_json::Value {
        serde_json::from_slice(&read(run, "state.json").unwrap()).unwrap()
    };
    for key in ["generation", "games", "samples", "steps"] {
        assert_eq!(state("f")[key], state("once")[key], "{key}");
    }
    // The network's counters and replay window (its float sums are not bitwise
    // repeatable across runs, so its weights are not compared).
    for file in ["net/00008/state.json", "net/00008/replay.bin"] {
        let f = std::fs::read(root.join("ck/f").join(file)).unwrap();
        assert_eq!(
            f,
            std::fs::read(root.join("ck/once").join(file)).unwrap(),
            "{file}"
        );
    }

    // A match whose record stops growing: stopped, whole lines kept, then finished.
    let arena = |out: &str| {
        [
            "arena",
            "--players",
            "random",
            "ab:depth=1",
            "--games",
            "60",
            "--variant",
            "dimy",
            "--out",
            out,
        ]
        .map(String::from)
        .to_vec()
    };
    let (out, once) = (at("ar"), at("ar-once"));
    let o = fanorona_limited(4, &strs(&arena(&out)));
    failed(&o, "games.jsonl");
    let text = std::fs::read_to_string(root.join("ar/games.jsonl")).unwrap();
    assert!(!text.is_empty() && text.ends_with('\n'));
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("a whole record");
    }
    for dir in [&out, &once] {
        let o = fanorona(&strs(&arena(dir)));
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let results = |d: &str| std::fs::read_to_string(root.join(d).join("results.csv")).unwrap();
    assert_eq!(results("ar"), results("ar-once"));

    // An opening book being built, and tables.
    let book = |file: &str| {
        [
            "book",
            "--opening",
            "--variant",
            "dimy",
            "--plies",
            "4",
            "--margin",
            "100000",
            "--depth",
            "2",
            "--eval",
            "none",
            "--out",
            file,
        ]
        .map(String::from)
        .to_vec()
    };
    let (b, b_once) = (at("book.txt"), at("book-once.txt"));
    failed(&fanorona_limited(4, &strs(&book(&b))), "book.txt");
    for file in [&b, &b_once] {
        let o = fanorona(&strs(&book(file)));
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let positions = |f: &str| {
        let mut v: Vec<String> = std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect();
        v.sort();
        v
    };
    assert_eq!(positions(&b), positions(&b_once));
    let tb = |dir: &str| {
        [
            "tb",
            "build",
            "--variant",
            "dimy",
            "--pieces",
            "4",
            "--out",
            dir,
        ]
        .map(String::from)
        .to_vec()
    };
    let (t, t_once) = (at("tb"), at("tb-once"));
    failed(&fanorona_limited(64, &strs(&tb(&t))), ".fntb");
    for dir in [&t, &t_once] {
        let o = fanorona(&strs(&tb(dir)));
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let files = |d: &str| {
        let mut v: Vec<(std::ffi::OsString, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.file_name(), std::fs::read(e.path()).unwrap())
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(files(&t), files(&t_once));
    std::fs::remove_dir_all(&root).ok();
}
