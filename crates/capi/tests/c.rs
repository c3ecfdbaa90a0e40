//! The C library from both sides: its functions called as C would (null pointers, text
//! that is not UTF-8, illegal turns, one game shared by threads), the header checked
//! against cbindgen's, and `examples/play.c` compiled against `libfanorona.a`, run, and
//! its game replayed by `fanorona replay`.
//!
//! `cargo test` does not make the static library (nor the binary): `cargo build
//! --workspace --all-targets` does, beside this test. Without them the example's test
//! says so and passes, unless `FANORONA_C_TEST=1` (set by `.ci/run`) demands them.

// Calls the C ABI directly.
#![allow(unsafe_code)]

use fanorona::*;
use std::ffi::{CStr, CString, c_char};
use std::path::{Path, PathBuf};
use std::process::Command;

fn take(s: *mut c_char) -> String {
    assert!(!s.is_null());
    // SAFETY: a string the library returned, freed once.
    unsafe {
        let t = CStr::from_ptr(s).to_str().unwrap().to_string();
        fanorona_string_free(s);
        t
    }
}

fn last_error() -> String {
    // SAFETY: the library's string, read before the next call.
    unsafe { CStr::from_ptr(fanorona_last_error()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn bad_input_is_a_code_and_a_message_never_a_crash() {
    // SAFETY: every pointer is null, a live handle or a NUL-terminated string.
    unsafe {
        let mut g: *mut FanoronaGame = std::ptr::null_mut();
        assert_eq!(
            fanorona_game_new(std::ptr::null(), &mut g),
            FANORONA_ERR_ARGUMENT
        );
        assert!(last_error().contains("board"), "{}", last_error());
        assert_eq!(
            fanorona_game_new(c"chess".as_ptr(), &mut g),
            FANORONA_ERR_BOARD
        );
        assert!(last_error().contains("chess"));
        assert_eq!(
            fanorona_game_new(c"dimy".as_ptr(), std::ptr::null_mut()),
            FANORONA_ERR_ARGUMENT
        );
        let not_utf8 = [0xffu8, 0xfe, 0];
        assert_eq!(
            fanorona_game_from_fen(not_utf8.as_ptr().cast(), &mut g),
            FANORONA_ERR_ARGUMENT
        );
        assert_eq!(
            fanorona_game_from_fen(c"5/5/5 w".as_ptr(), &mut g),
            FANORONA_ERR_FEN
        );
        assert!(last_error().contains("5/5/5 w"), "{}", last_error());
        assert!(g.is_null());

        assert_eq!(fanorona_game_new(c"dimy".as_ptr(), &mut g), FANORONA_OK);
        let before = take(fanorona_game_fen(g));
        assert_eq!(fanorona_game_play(g, c"a1a9".as_ptr()), FANORONA_ERR_TURN);
        assert!(last_error().contains("a1a9"));
        assert_eq!(
            fanorona_game_play(g, std::ptr::null()),
            FANORONA_ERR_ARGUMENT
        );
        assert_eq!(
            take(fanorona_game_fen(g)),
            before,
            "a failed turn changes nothing"
        );
        assert_eq!(fanorona_game_undo(g), 0);
        assert_eq!(fanorona_game_undo(std::ptr::null_mut()), -1);
        assert!(fanorona_game_fen(std::ptr::null()).is_null());
        assert_eq!(
            CStr::from_ptr(fanorona_game_result(std::ptr::null())),
            c"invalid"
        );

        let e = fanorona_engine_new();
        let mut out: *mut c_char = std::ptr::null_mut();
        assert_eq!(
            fanorona_engine_best(e, g, 9, 3, &mut out),
            FANORONA_ERR_BUDGET
        );
        assert_eq!(
            fanorona_engine_best(e, g, FANORONA_DEPTH, 0, &mut out),
            FANORONA_ERR_BUDGET
        );
        assert_eq!(
            fanorona_engine_best(e, std::ptr::null(), FANORONA_DEPTH, 2, &mut out),
            FANORONA_ERR_ARGUMENT
        );
        assert_eq!(
            fanorona_engine_best(e, g, FANORONA_DEPTH, 2, std::ptr::null_mut()),
            FANORONA_ERR_ARGUMENT
        );
        assert_eq!(
            fanorona_engine_best_on_clock(e, g, 0, 0, &mut out),
            FANORONA_ERR_BUDGET
        );
        assert_eq!(
            fanorona_engine_best_on_clock(e, g, 1000, 10, std::ptr::null_mut()),
            FANORONA_ERR_ARGUMENT
        );
        assert_eq!(
            fanorona_engine_set_tables(e, c"dimy".as_ptr(), c"/no/such/folder".as_ptr()),
            FANORONA_ERR_TABLES
        );
        assert!(out.is_null());

        // A legal game goes on, and the analysis is the JSON of `analyze --json`.
        assert_eq!(
            fanorona_engine_analyse(e, g, FANORONA_DEPTH, 3, &mut out),
            FANORONA_OK
        );
        let json = take(out);
        assert!(
            json.starts_with('{') && json.contains("\"best\"") && json.contains("\"pv\""),
            "{json}"
        );
        let legal = take(fanorona_game_turns(g));
        assert_eq!(
            fanorona_engine_best(e, g, FANORONA_NODES, 5000, &mut out),
            FANORONA_OK
        );
        let best = take(out);
        assert!(legal.split(' ').any(|t| t == best), "{best} in {legal}");
        // On a clock (a second left, 10 ms a turn): a legal turn too.
        assert_eq!(
            fanorona_engine_best_on_clock(e, g, 1000, 10, &mut out),
            FANORONA_OK
        );
        let timed = take(out);
        assert!(legal.split(' ').any(|t| t == timed), "{timed} in {legal}");
        let c = CString::new(best.clone()).unwrap();
        assert_eq!(fanorona_game_play(g, c.as_ptr()), FANORONA_OK);
        assert_eq!(take(fanorona_game_history(g)), best);
        assert_eq!(fanorona_game_undo(g), 1);
        fanorona_engine_free(e);
        fanorona_game_free(g);
        fanorona_game_free(std::ptr::null_mut());
        fanorona_engine_free(std::ptr::null_mut());
        fanorona_string_free(std::ptr::null_mut());
    }
}

#[test]
fn an_error_quotes_a_huge_argument_briefly() {
    let huge = CString::new("W".repeat(5 << 20)).unwrap();
    let brief = |what: &str| {
        let e = last_error();
        assert!(!e.is_empty() && e.len() <= 300, "{what}: {} bytes", e.len());
    };
    // SAFETY: every pointer is a live handle or a NUL-terminated string.
    unsafe {
        let mut g: *mut FanoronaGame = std::ptr::null_mut();
        assert_eq!(fanorona_game_new(huge.as_ptr(), &mut g), FANORONA_ERR_BOARD);
        brief("board");
        assert_eq!(
            fanorona_game_from_fen(huge.as_ptr(), &mut g),
            FANORONA_ERR_FEN
        );
        brief("fen");
        assert_eq!(fanorona_game_new(c"tsivy".as_ptr(), &mut g), FANORONA_OK);
        assert_eq!(fanorona_game_play(g, huge.as_ptr()), FANORONA_ERR_TURN);
        brief("turn");
        let e = fanorona_engine_new();
        assert_eq!(
            fanorona_engine_set_tables(e, huge.as_ptr(), c"x".as_ptr()),
            FANORONA_ERR_BOARD
        );
        brief("tables' board");
        assert_eq!(
            fanorona_engine_set_tables(e, c"dimy".as_ptr(), huge.as_ptr()),
            FANORONA_ERR_TABLES
        );
        brief("tables' folder");
        fanorona_engine_free(e);
        fanorona_game_free(g);
    }
}

/// A raw handle moved to other threads (the library's handles are thread-safe).
#[derive(Clone, Copy)]
struct Shared(*mut FanoronaGame);
// SAFETY: the game behind it is locked by every call.
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

#[test]
fn one_game_and_engine_are_shared_by_threads() {
    let mut g: *mut FanoronaGame = std::ptr::null_mut();
    // SAFETY: a NUL-terminated string and a writable out pointer.
    assert_eq!(
        unsafe { fanorona_game_new(c"telo".as_ptr(), &mut g) },
        FANORONA_OK
    );
    let shared = Shared(g);
    let readers: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(move || {
                let s = shared;
                for _ in 0..200 {
                    // SAFETY: a live game, read under its lock.
                    let fen = take(unsafe { fanorona_game_fen(s.0) });
                    assert!(fen.contains('/'));
                }
            })
        })
        .collect();
    // SAFETY: a live game; every turn named is telo's notation.
    unsafe {
        let e = fanorona_engine_new();
        for _ in 0..4 {
            let mut out: *mut c_char = std::ptr::null_mut();
            assert_eq!(
                fanorona_engine_best(e, g, FANORONA_DEPTH, 1, &mut out),
                FANORONA_OK
            );
            assert_eq!(fanorona_game_play(g, out), FANORONA_OK);
            fanorona_string_free(out);
        }
        fanorona_engine_free(e);
    }
    for r in readers {
        r.join().unwrap();
    }
    // SAFETY: no thread uses it any more.
    unsafe {
        assert_eq!(take(fanorona_game_history(g)).split(' ').count(), 4);
        fanorona_game_free(g);
    }
}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The header cbindgen writes for `src/lib.rs` today.
fn header() -> String {
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_src(manifest().join("src/lib.rs"))
        .with_language(cbindgen::Language::C)
        .with_include_guard("FANORONA_H")
        .with_cpp_compat(true)
        .with_header(
            "/* libfanorona: Fanorona games and engine (crates/capi). Made by cbindgen from\n \
             * crates/capi/src/lib.rs: do not edit; `FANORONA_BLESS=1 cargo test -p\n \
             * fanorona-capi` rewrites it. */",
        )
        .generate()
        .expect("cbindgen reads src/lib.rs")
        .write(&mut out);
    String::from_utf8(out).expect("UTF-8")
}

#[test]
fn the_header_is_cbindgens_of_the_source() {
    let path = manifest().join("include/fanorona.h");
    let now = header();
    if std::env::var_os("FANORONA_BLESS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == now,
        "{} is out of date: FANORONA_BLESS=1 cargo test -p fanorona-capi --release rewrites it",
        path.display()
    );
    for f in [
        "fanorona_game_new",
        "fanorona_engine_best",
        "fanorona_engine_best_on_clock",
        "FANORONA_ERR_TURN",
        "typedef struct FanoronaGame",
    ] {
        assert!(now.contains(f), "{f} missing from the header");
    }
}

/// `target/<profile>/`, where `cargo build --all-targets` leaves the library and binary.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf()
}

#[test]
fn the_c_example_plays_a_game_that_replays() {
    let dir = profile_dir();
    let (lib, bin) = (dir.join("libfanorona.a"), dir.join("fanorona"));
    if !lib.exists() || !bin.exists() {
        assert!(
            std::env::var_os("FANORONA_C_TEST").is_none(),
            "FANORONA_C_TEST is set but {} or {} is missing (cargo build --workspace --all-targets makes them)",
            lib.display(),
            bin.display()
        );
        eprintln!(
            "warning: {} or {} missing: the C example is not tested (cargo build --workspace --all-targets makes them)",
            lib.display(),
            bin.display()
        );
        return;
    }
    let tmp = std::env::temp_dir().join(format!("fanorona-c-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let exe = tmp.join("play");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&cc)
        .arg(manifest().join("examples/play.c"))
        .arg("-I")
        .arg(manifest().join("include"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .expect("a C compiler (cc, or $CC)");
    assert!(
        built.status.success(),
        "compiling play.c: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(&exe).args(["dimy", "3"]).output().unwrap();
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "play.c failed: {log}");
    assert!(
        log.contains("a broken FEN: code 2") && log.contains("an illegal turn: code 3"),
        "{log}"
    );
    let turns: Vec<String> = String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert!(turns.len() > 5, "{turns:?}");
    let replay = Command::new(&bin)
        .args(["replay", "--variant", "dimy", "--json"])
        .args(&turns)
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "fanorona replay rejects the C example's game: {}",
        String::from_utf8_lossy(&replay.stderr)
    );
    let out = String::from_utf8_lossy(&replay.stdout);
    let result = log
        .split("result ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .expect("the example prints its result");
    assert!(
        out.contains(&format!("\"result\":\"{result}\"")),
        "{out} against {result}"
    );
    std::fs::remove_dir_all(&tmp).ok();
}
