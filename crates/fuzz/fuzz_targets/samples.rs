//! Sample files (the network's replay window `replay.bin`, `--samples` files): the
//! first byte picks the board, the rest is the file, tried as it is and with its
//! checksum put right (so that the fuzzer reaches past it). Never a panic; samples that
//! read write back as a file that reads the same.
#![no_main]
use fanorona_formats::records::{decode_samples, encode_samples};
use fanorona_rules::Variant;
use fanorona_rules::checksum::fnv1a;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let variant = [Variant::Telo, Variant::Dimy, Variant::Tsivy][pick as usize % 3];
    let mut summed = body.to_vec();
    summed.extend_from_slice(&fnv1a(body).to_le_bytes());
    for bytes in [body, &summed[..]] {
        if let Ok(samples) = decode_samples(bytes, variant) {
            let again = encode_samples(variant, samples.iter());
            let back = decode_samples(&again, variant).expect("written samples read");
            assert_eq!(back.len(), samples.len());
            assert_eq!(encode_samples(variant, back.iter()), again);
        }
    }
});
