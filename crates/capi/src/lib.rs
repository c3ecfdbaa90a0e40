//! libfanorona, the C library: games of every board in notation and the engine
//! (alpha-beta with the release's learned evaluation built in; telo solved), over
//! [`fanorona_engine`]. The header is `include/fanorona.h` (made by cbindgen from this
//! file; the tests check it is current); `examples/play.c` plays a game with it.
//!
//! Conventions: functions that can fail return an `int32_t` code, `FANORONA_OK` (0) or
//! one of `FANORONA_ERR_*`, and leave a message naming the input and the problem for
//! `fanorona_last_error()` on the calling thread. Strings the library returns as
//! `char *` are the caller's, freed with `fanorona_string_free`; `const char *` ones are
//! the library's. Handles are thread-safe (each call takes the handle's lock), and no
//! input, however bad (null pointers, text that is not UTF-8, an illegal turn), crashes
//! the caller: a panic inside is caught and returned as `FANORONA_ERR_INTERNAL`.

// The C ABI reads the caller's pointers: this crate is the project's one FFI boundary,
// every `unsafe` is a documented pointer contract of a function below.
#![allow(unsafe_code)]

use fanorona_engine::{Budget, Engine, EngineError, Game};
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, MutexGuard};

/// Success.
pub const FANORONA_OK: i32 = 0;
/// A board name that is not `tsivy`, `dimy` or `telo`.
pub const FANORONA_ERR_BOARD: i32 = 1;
/// A FEN that cannot be read.
pub const FANORONA_ERR_FEN: i32 = 2;
/// A turn that is malformed or not legal in the position.
pub const FANORONA_ERR_TURN: i32 = 3;
/// The game is over: no turn may be played.
pub const FANORONA_ERR_OVER: i32 = 4;
/// A budget of zero, out of range, or of an unknown kind.
pub const FANORONA_ERR_BUDGET: i32 = 5;
/// Endgame tables that cannot be read.
pub const FANORONA_ERR_TABLES: i32 = 6;
/// A null pointer or text that is not UTF-8.
pub const FANORONA_ERR_ARGUMENT: i32 = 7;
/// A fault inside the library (a bug: please report it with the message).
pub const FANORONA_ERR_INTERNAL: i32 = 8;

/// Budget kind: whole turns deep (1 to 64).
pub const FANORONA_DEPTH: i32 = 0;
/// Budget kind: about this many nodes.
pub const FANORONA_NODES: i32 = 1;
/// Budget kind: about this many milliseconds.
pub const FANORONA_MILLIS: i32 = 2;

/// A game (opaque): `fanorona_game_new` or `fanorona_game_from_fen`, freed with
/// `fanorona_game_free`.
#[derive(Debug)]
pub struct FanoronaGame {
    game: Mutex<Game>,
}

/// An engine (opaque): `fanorona_engine_new`, freed with `fanorona_engine_free`. It keeps
/// its hash table between searches; one search at a time per engine.
#[derive(Debug)]
pub struct FanoronaEngine {
    engine: Mutex<Engine>,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// An error as its code, its message kept for `fanorona_last_error`.
fn fail(code: i32, msg: &str) -> i32 {
    set_error(msg);
    code
}

fn engine_error(e: &EngineError) -> i32 {
    fail(e.code(), &e.to_string())
}

/// Runs `f`, a panic turned into `FANORONA_ERR_INTERNAL`.
fn guarded(f: impl FnOnce() -> i32) -> i32 {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        fail(FANORONA_ERR_INTERNAL, &format!("internal error: {what}"))
    })
}

/// The text behind `ptr`, named `what` in errors.
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string.
unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, i32> {
    if ptr.is_null() {
        return Err(fail(
            FANORONA_ERR_ARGUMENT,
            &format!("{what}: a null pointer"),
        ));
    }
    // SAFETY: non-null and NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|e| fail(FANORONA_ERR_ARGUMENT, &format!("{what}: not UTF-8 ({e})")))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A handle's contents, or `FANORONA_ERR_ARGUMENT` for a null one.
///
/// # Safety
/// `ptr` is null or a live handle of this library.
unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, i32> {
    // SAFETY: a live handle by the caller's contract.
    unsafe { ptr.as_ref() }
        .ok_or_else(|| fail(FANORONA_ERR_ARGUMENT, &format!("{what}: a null handle")))
}

/// Stores a new string for the caller in `out`.
///
/// # Safety
/// `out` is null or valid for a write.
unsafe fn put(out: *mut *mut c_char, s: Option<String>) -> i32 {
    if out.is_null() {
        return fail(FANORONA_ERR_ARGUMENT, "out: a null pointer");
    }
    let p = s.map_or(std::ptr::null_mut(), |s| {
        CString::new(s.replace('\0', " "))
            .unwrap_or_default()
            .into_raw()
    });
    // SAFETY: `out` is non-null and writable by the caller's contract.
    unsafe { *out = p };
    FANORONA_OK
}

/// A new string for the caller (null only if `s` has a NUL, which no notation has).
fn owned(s: String) -> *mut c_char {
    CString::new(s).map_or(std::ptr::null_mut(), CString::into_raw)
}

/// The message of the last error on this thread (empty when none); valid until the
/// next call into the library on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn fanorona_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version, `"0.1.0"`.
#[unsafe(no_mangle)]
pub extern "C" fn fanorona_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Frees a string the library returned as `char *` (null is ignored).
///
/// # Safety
/// `s` is null or a string from this library not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: made by `CString::into_raw` here, by the caller's contract.
        drop(unsafe { CString::from_raw(s) });
    }
}

/// A game at the start of `board` (`"tsivy"`, `"dimy"` or `"telo"`), stored in `*out`.
///
/// # Safety
/// `board` is null or a NUL-terminated string; `out` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_new(
    board: *const c_char,
    out: *mut *mut FanoronaGame,
) -> i32 {
    // SAFETY: the caller's contract, passed on.
    guarded(|| unsafe {
        new_game(out, || {
            Game::new(text(board, "board")?).map_err(|e| engine_error(&e))
        })
    })
}

/// A game from the position a FEN describes (its board from its size), in `*out`.
///
/// # Safety
/// `fen` is null or a NUL-terminated string; `out` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_from_fen(
    fen: *const c_char,
    out: *mut *mut FanoronaGame,
) -> i32 {
    // SAFETY: the caller's contract, passed on.
    guarded(|| unsafe {
        new_game(out, || {
            Game::from_fen(text(fen, "fen")?).map_err(|e| engine_error(&e))
        })
    })
}

/// # Safety
/// `out` is null or writable.
unsafe fn new_game(out: *mut *mut FanoronaGame, make: impl FnOnce() -> Result<Game, i32>) -> i32 {
    if out.is_null() {
        return fail(FANORONA_ERR_ARGUMENT, "out: a null pointer");
    }
    match make() {
        Ok(game) => {
            let b = Box::new(FanoronaGame {
                game: Mutex::new(game),
            });
            // SAFETY: non-null and writable by the caller's contract.
            unsafe { *out = Box::into_raw(b) };
            FANORONA_OK
        }
        Err(code) => code,
    }
}

/// Frees a game (null is ignored).
///
/// # Safety
/// `game` is null or a game of this library not freed before, used by no other thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_free(game: *mut FanoronaGame) {
    if !game.is_null() {
        // SAFETY: made by `Box::into_raw` in `new_game`, by the caller's contract.
        drop(unsafe { Box::from_raw(game) });
    }
}

/// Reads a game, or null with `FANORONA_ERR_ARGUMENT`.
///
/// # Safety
/// `game` is null or a live game.
unsafe fn read_game<R>(game: *const FanoronaGame, f: impl FnOnce(&Game) -> R) -> Option<R> {
    // SAFETY: the caller's contract.
    let g = unsafe { handle(game, "game") }.ok()?;
    Some(f(&lock(&g.game)))
}

/// The current position in FEN (the caller frees it); null for a null game.
///
/// # Safety
/// `game` is null or a live game.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_fen(game: *const FanoronaGame) -> *mut c_char {
    // SAFETY: the caller's contract.
    unsafe { read_game(game, |g| owned(g.fen())) }.unwrap_or(std::ptr::null_mut())
}

/// The legal turns in notation, separated by single spaces (empty when the game is
/// over; the caller frees it); null for a null game.
///
/// # Safety
/// `game` is null or a live game.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_turns(game: *const FanoronaGame) -> *mut c_char {
    // SAFETY: the caller's contract.
    unsafe { read_game(game, |g| owned(g.turns().join(" "))) }.unwrap_or(std::ptr::null_mut())
}

/// The turns played, in notation, separated by single spaces (the caller frees it);
/// null for a null game.
///
/// # Safety
/// `game` is null or a live game.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_history(game: *const FanoronaGame) -> *mut c_char {
    // SAFETY: the caller's contract.
    unsafe { read_game(game, |g| owned(g.history().join(" "))) }.unwrap_or(std::ptr::null_mut())
}

/// `"ongoing"`, `"white"`, `"black"` or `"draw"` (the library's string); `"invalid"` for
/// a null game.
///
/// # Safety
/// `game` is null or a live game.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_result(game: *const FanoronaGame) -> *const c_char {
    let name = |s: &'static str| match s {
        "white" => c"white",
        "black" => c"black",
        "draw" => c"draw",
        _ => c"ongoing",
    };
    // SAFETY: the caller's contract.
    unsafe { read_game(game, |g| name(g.result())) }
        .unwrap_or(c"invalid")
        .as_ptr()
}

/// The side to move, `"white"` or `"black"` (the library's string); `"invalid"` for a
/// null game.
///
/// # Safety
/// `game` is null or a live game.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_side(game: *const FanoronaGame) -> *const c_char {
    // SAFETY: the caller's contract.
    unsafe {
        read_game(game, |g| {
            if g.side() == "white" {
                c"white"
            } else {
                c"black"
            }
        })
    }
    .unwrap_or(c"invalid")
    .as_ptr()
}

/// Plays a turn in notation (`"d2d3"`, `"e2e3-f3-g3"`, a telo move). On an error the
/// game is unchanged.
///
/// # Safety
/// `game` is null or a live game; `turn` is null or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_play(game: *mut FanoronaGame, turn: *const c_char) -> i32 {
    guarded(|| {
        // SAFETY: the caller's contract.
        let (g, t) = match unsafe { (handle(game, "game"), text(turn, "turn")) } {
            (Ok(g), Ok(t)) => (g, t),
            (Err(c), _) | (_, Err(c)) => return c,
        };
        match lock(&g.game).play(t) {
            Ok(()) => FANORONA_OK,
            Err(e) => engine_error(&e),
        }
    })
}

/// Takes back the last turn: 1 when one was taken back, 0 when none was played, -1 for
/// a null game.
///
/// # Safety
/// `game` is null or a live game.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_game_undo(game: *mut FanoronaGame) -> i32 {
    // SAFETY: the caller's contract.
    match unsafe { handle(game, "game") } {
        Ok(g) => i32::from(lock(&g.game).undo()),
        Err(_) => -1,
    }
}

/// A new engine (alpha-beta with the release's learned evaluation, one thread; telo
/// solved), freed with `fanorona_engine_free`.
#[unsafe(no_mangle)]
pub extern "C" fn fanorona_engine_new() -> *mut FanoronaEngine {
    Box::into_raw(Box::new(FanoronaEngine {
        engine: Mutex::new(Engine::new()),
    }))
}

/// Frees an engine (null is ignored).
///
/// # Safety
/// `engine` is null or an engine of this library not freed before, used by no other
/// thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_engine_free(engine: *mut FanoronaEngine) {
    if !engine.is_null() {
        // SAFETY: made by `Box::into_raw` in `fanorona_engine_new`.
        drop(unsafe { Box::from_raw(engine) });
    }
}

/// The engine uses the endgame tables of `board` in folder `dir` (as `fanorona tb build`
/// writes them) from its next search on.
///
/// # Safety
/// `engine` is null or a live engine; `board` and `dir` null or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_engine_set_tables(
    engine: *mut FanoronaEngine,
    board: *const c_char,
    dir: *const c_char,
) -> i32 {
    guarded(|| {
        // SAFETY: the caller's contract.
        let args = unsafe {
            (
                handle(engine, "engine"),
                text(board, "board"),
                text(dir, "dir"),
            )
        };
        let (e, b, d) = match args {
            (Ok(e), Ok(b), Ok(d)) => (e, b, d),
            (Err(c), _, _) | (_, Err(c), _) | (_, _, Err(c)) => return c,
        };
        match lock(&e.engine).set_tables(b, std::path::Path::new(d)) {
            Ok(()) => FANORONA_OK,
            Err(e) => engine_error(&e),
        }
    })
}

fn budget(kind: i32, amount: u64) -> Result<Budget, i32> {
    match kind {
        FANORONA_DEPTH => Ok(Budget::Depth(u32::try_from(amount).unwrap_or(u32::MAX))),
        FANORONA_NODES => Ok(Budget::Nodes(amount)),
        FANORONA_MILLIS => Ok(Budget::Millis(amount)),
        k => Err(fail(
            FANORONA_ERR_BUDGET,
            &format!("budget kind {k}: FANORONA_DEPTH, FANORONA_NODES or FANORONA_MILLIS"),
        )),
    }
}

/// Searches the game's position under a budget; `what` picks the answer.
///
/// # Safety
/// As the public functions that call it.
unsafe fn search(
    engine: *mut FanoronaEngine,
    game: *const FanoronaGame,
    kind: i32,
    amount: u64,
    out: *mut *mut c_char,
    what: fn(fanorona_engine::Analysis) -> Option<String>,
) -> i32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { search_within(engine, game, || budget(kind, amount), out, what) }
}

/// [`search`] for a budget `make` gives (an error code once it is refused).
///
/// # Safety
/// As the public functions that call it.
unsafe fn search_within(
    engine: *mut FanoronaEngine,
    game: *const FanoronaGame,
    make: impl FnOnce() -> Result<Budget, i32>,
    out: *mut *mut c_char,
    what: fn(fanorona_engine::Analysis) -> Option<String>,
) -> i32 {
    guarded(|| {
        // SAFETY: the caller's contract.
        let (e, g) = match unsafe { (handle(engine, "engine"), handle(game, "game")) } {
            (Ok(e), Ok(g)) => (e, g),
            (Err(c), _) | (_, Err(c)) => return c,
        };
        if out.is_null() {
            return fail(FANORONA_ERR_ARGUMENT, "out: a null pointer");
        }
        let b = match make() {
            Ok(b) => b,
            Err(c) => return c,
        };
        // The game's lock is not held while the engine thinks.
        let game = lock(&g.game).clone();
        match lock(&e.engine).analyse(&game, b) {
            // SAFETY: `out` is non-null and writable by the caller's contract.
            Ok(a) => unsafe { put(out, what(a)) },
            Err(err) => engine_error(&err),
        }
    })
}

/// The engine's turn for the game's position within the budget (`kind` one of
/// `FANORONA_DEPTH`, `FANORONA_NODES`, `FANORONA_MILLIS`), in `*turn` (the caller frees
/// it; null when the game is over).
///
/// # Safety
/// `engine` and `game` null or live handles; `turn` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_engine_best(
    engine: *mut FanoronaEngine,
    game: *const FanoronaGame,
    kind: i32,
    amount: u64,
    turn: *mut *mut c_char,
) -> i32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { search(engine, game, kind, amount, turn, |a| a.best) }
}

/// The engine's analysis as one line of JSON in `*json` (the caller frees it), the
/// fields of `fanorona analyze --json`: fen, best, score (hundredths of a piece for the
/// side to move), pv, depth, nodes, mate, seconds, nodes_per_second.
///
/// # Safety
/// `engine` and `game` null or live handles; `json` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_engine_analyse(
    engine: *mut FanoronaEngine,
    game: *const FanoronaGame,
    kind: i32,
    amount: u64,
    json: *mut *mut c_char,
) -> i32 {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        search(engine, game, kind, amount, json, |a| {
            Some(a.to_json().to_string())
        })
    }
}

/// The engine's turn for the game's position on a game's clock, in `*turn` as
/// `fanorona_engine_best` gives it: `left_ms` is the side to move's time left and
/// `increment_ms` what its clock gains after the turn; the engine's time manager decides
/// how long to think (a share of the clock, longer while unsure, never near the flag).
/// Both zero is `FANORONA_ERR_BUDGET`.
///
/// # Safety
/// `engine` and `game` null or live handles; `turn` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fanorona_engine_best_on_clock(
    engine: *mut FanoronaEngine,
    game: *const FanoronaGame,
    left_ms: u64,
    increment_ms: u64,
    turn: *mut *mut c_char,
) -> i32 {
    let clock = || {
        Ok(Budget::Clock {
            left_ms,
            increment_ms,
        })
    };
    // SAFETY: the caller's contract, passed on.
    unsafe { search_within(engine, game, clock, turn, |a| a.best) }
}
