//! The WebAssembly module's `Api.call` (crates/web), natively: a path chosen by the
//! first byte among the page's (`/api/info`, `legal`, `play`, `replay`, and one that is
//! none), the rest as the request's JSON text. `/api/analyze` is left out: it searches
//! for up to ten seconds, and its search is the engine's (the protocol target's). Never
//! a panic; every answer JSON or an error.
#![no_main]
use libfuzzer_sys::fuzz_target;

const PATHS: [&str; 5] = [
    "/api/info",
    "/api/legal",
    "/api/play",
    "/api/replay",
    "/api/none",
];

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(request) = std::str::from_utf8(rest) else {
        return;
    };
    let path = PATHS[first as usize % PATHS.len()];
    let mut api = fanorona_web::Api::new();
    if let Ok(v) = api.answer(path, request) {
        assert!(v.is_object(), "{path}: {v}");
    }
});
