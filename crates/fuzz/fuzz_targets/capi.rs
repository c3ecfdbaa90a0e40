//! The C library's functions on any strings (built with AddressSanitizer by cargo-fuzz):
//! a FEN (or a board name), then turns, one a line; each game is listed, analysed at depth
//! 1 and freed. Never a panic, a leak of a handle or a bad access.
#![no_main]
use fanorona::*;
use libfuzzer_sys::fuzz_target;
use std::ffi::{CString, c_char};
use std::ptr;

fuzz_target!(|data: &[u8]| {
    let mut lines = data.split(|&b| b == b'\n');
    let Some(first) = lines.next() else {
        return;
    };
    let Ok(first) = CString::new(first) else {
        return;
    };
    unsafe {
        let mut game = ptr::null_mut();
        if fanorona_game_from_fen(first.as_ptr(), &mut game) != FANORONA_OK
            && fanorona_game_new(first.as_ptr(), &mut game) != FANORONA_OK
        {
            assert!(game.is_null());
            return;
        }
        for line in lines {
            let Ok(turn) = CString::new(line) else {
                continue;
            };
            let _ = fanorona_game_play(game, turn.as_ptr());
        }
        for s in [
            fanorona_game_fen(game),
            fanorona_game_turns(game),
            fanorona_game_history(game),
        ] {
            assert!(!s.is_null());
            fanorona_string_free(s);
        }
        let engine = fanorona_engine_new();
        let mut best: *mut c_char = ptr::null_mut();
        let _ = fanorona_engine_best(engine, game, FANORONA_DEPTH, 1, &mut best);
        if !best.is_null() {
            fanorona_string_free(best);
        }
        // Null arguments are errors, not crashes.
        assert_ne!(fanorona_game_play(game, ptr::null()), FANORONA_OK);
        assert_ne!(
            fanorona_engine_best(ptr::null_mut(), game, FANORONA_DEPTH, 1, &mut best),
            FANORONA_OK
        );
        fanorona_engine_free(engine);
        fanorona_game_free(game);
    }
});
