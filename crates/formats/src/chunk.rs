//! The chunk format: a worker's games as one object of the store, and its key.

use crate::records::{self, GameRecord, Sample, fnv};
use crate::stats::SelfPlayStats;
use serde::{Deserialize, Serialize};

/// Version of the store layout.
pub const LAYOUT: u32 = 1;
/// Version of the chunk format written (2 added the deeper teacher's labels; version 1
/// chunks, without them, are still read).
pub const CHUNK_VERSION: u32 = 2;
/// The first bytes of a chunk.
pub const CHUNK_MAGIC: &[u8; 4] = b"FNRC";
/// The file in each learner checkpoint that says which chunks it has read.
pub const LEDGER_FILE: &str = "ledger.json";

/// What a chunk says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkHeader {
    /// [`CHUNK_VERSION`].
    pub version: u32,
    /// The run.
    pub run: String,
    /// The worker's ID.
    pub worker: String,
    /// The worker process's random session token.
    pub session: String,
    /// The worker's sequence number.
    pub seq: u64,
    /// Generation of the model that played the games.
    pub generation: u64,
    /// `tsivy`, `dimy` or `telo`.
    pub variant: String,
    /// Games in the chunk.
    pub games: u64,
    /// Samples in the chunk.
    pub samples: u64,
    /// What self-play measured while playing them.
    pub stats: SelfPlayStats,
    /// A tree run's chunk: labels of the worker's deeper teacher (its games give no
    /// samples).
    #[serde(default)]
    pub labels: u64,
}

/// A decoded chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// The header.
    pub header: ChunkHeader,
    /// Training samples.
    pub samples: Vec<Sample>,
    /// Game records.
    pub games: Vec<GameRecord>,
    /// A tree run's labels, as the label window's files hold them
    /// ([`crate::labels::encode_labels`]; the learner decodes them with the run's rules).
    pub labels: Vec<u8>,
}

/// Encodes a chunk.
pub fn encode_chunk(chunk: &Chunk) -> Vec<u8> {
    let variant = chunk.header.variant.parse().expect("a variant name");
    let header = serde_json::to_vec(&chunk.header).expect("headers serialise");
    let samples = records::encode_samples(variant, chunk.samples.iter());
    let mut games = String::new();
    for g in &chunk.games {
        games.push_str(&serde_json::to_string(g).expect("records serialise"));
        games.push('\n');
    }
    let mut b = Vec::with_capacity(header.len() + samples.len() + games.len() + 32);
    b.extend_from_slice(CHUNK_MAGIC);
    b.extend_from_slice(&CHUNK_VERSION.to_le_bytes());
    for part in [
        &header[..],
        &samples[..],
        games.as_bytes(),
        &chunk.labels[..],
    ] {
        b.extend_from_slice(&(part.len() as u32).to_le_bytes());
        b.extend_from_slice(part);
    }
    let h = fnv(&b);
    b.extend_from_slice(&h.to_le_bytes());
    b
}

/// Decodes and checks a chunk of `run`.
///
/// # Errors
/// What is wrong with the bytes.
pub fn decode_chunk(bytes: &[u8], run: &str) -> Result<Chunk, String> {
    if bytes.len() < 8 + 8 {
        return Err("too short".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err("checksum mismatch".into());
    }
    if &body[..4] != CHUNK_MAGIC {
        return Err("not a chunk (bad magic)".into());
    }
    let version = u32::from_le_bytes(body[4..8].try_into().expect("4 bytes"));
    if !(1..=CHUNK_VERSION).contains(&version) {
        return Err(format!(
            "chunk version {version}, this build reads 1 to {CHUNK_VERSION}"
        ));
    }
    let mut at = 8;
    let mut part = || -> Result<&[u8], String> {
        let len = body
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
            .ok_or("truncated")?;
        let p = body.get(at + 4..at + 4 + len).ok_or("truncated")?;
        at += 4 + len;
        Ok(p)
    };
    let (h, s, g) = (part()?, part()?, part()?);
    let labels = if version >= 2 {
        part()?.to_vec()
    } else {
        Vec::new()
    };
    if at != body.len() {
        return Err(format!("{} trailing bytes", body.len() - at));
    }
    let header: ChunkHeader = serde_json::from_slice(h).map_err(|e| format!("bad header: {e}"))?;
    if header.run != run {
        return Err(format!("a chunk of run `{}`", header.run));
    }
    let variant = header
        .variant
        .parse()
        .map_err(|_| format!("unknown variant `{}`", header.variant))?;
    let samples = records::decode_samples(s, variant)?;
    let text = std::str::from_utf8(g).map_err(|e| format!("records: {e}"))?;
    let games = text
        .lines()
        .map(serde_json::from_str::<GameRecord>)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("records: {e}"))?;
    // A tree run's chunk holds its games' labels, not their records.
    let records = if labels.is_empty() {
        games.len() as u64
    } else {
        header.games
    };
    if samples.len() as u64 != header.samples || records != header.games {
        return Err(format!(
            "header says {} games and {} samples, the chunk holds {} and {}",
            header.games,
            header.samples,
            games.len(),
            samples.len()
        ));
    }
    Ok(Chunk {
        header,
        samples,
        games,
        labels,
    })
}

/// The key of a chunk.
pub fn chunk_key(worker: &str, seq: u64) -> String {
    format!("chunks/{worker}/{seq:08}.chunk")
}

/// `(worker, seq)` of a chunk key; `None` for anything else.
pub fn parse_chunk_key(key: &str) -> Option<(String, u64)> {
    let rest = key.strip_prefix("chunks/")?;
    let (worker, file) = rest.split_once('/')?;
    let seq = file.strip_suffix(".chunk")?;
    if seq.len() != 8 || !seq.bytes().all(|b| b.is_ascii_digit()) || !valid_worker(worker) {
        return None;
    }
    Some((worker.to_string(), seq.parse().ok()?))
}

/// Whether a worker ID is usable in keys: 1-64 of `A-Z a-z 0-9 - _ .`, not starting
/// with a dot.
pub fn valid_worker(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}
