//! Distributed chunks (formats 1 and 2, what workers put in the store): any bytes, tried
//! as they are and with their checksum put right (so that the fuzzer reaches past it).
//! Never a panic; a chunk that reads writes back as one that reads the same; chunk keys
//! and worker IDs as any text.
#![no_main]
use fanorona_formats::chunk::{chunk_key, decode_chunk, encode_chunk, parse_chunk_key};
use fanorona_rules::checksum::fnv1a;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut summed = data.to_vec();
    summed.extend_from_slice(&fnv1a(data).to_le_bytes());
    for bytes in [data, &summed[..]] {
        if let Ok(chunk) = decode_chunk(bytes, "fuzz") {
            let again = encode_chunk(&chunk);
            let back = decode_chunk(&again, "fuzz").expect("a written chunk reads");
            assert_eq!(back.header, chunk.header);
            assert_eq!(back.games, chunk.games);
            assert_eq!(back.labels, chunk.labels);
            assert_eq!(back.samples.len(), chunk.samples.len());
        }
    }
    if let Ok(key) = std::str::from_utf8(data)
        && let Some((worker, seq)) = parse_chunk_key(key)
    {
        assert_eq!(chunk_key(&worker, seq), key);
    }
});
