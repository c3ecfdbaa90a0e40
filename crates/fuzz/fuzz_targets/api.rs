//! The JSON API's bodies and query strings (`fanorona serve`, the WebAssembly `Api`):
//! `legal`, `play` and `replay` on any JSON, and on any query string read as the server
//! reads it (an object of strings). Never a panic.
#![no_main]
use fanorona_engine::api;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut asks = Vec::new();
    if let Ok(v) = serde_json::from_slice::<Value>(data) {
        asks.push(v);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let q: serde_json::Map<String, Value> = text
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect();
        asks.push(Value::Object(q));
    }
    for v in asks {
        let _ = api::legal(&v);
        let _ = api::play(&v);
        let _ = api::replay(&v);
    }
});
