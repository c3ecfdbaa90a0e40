//! Training samples and game records: one versioned format, read and written here only.
//!
//! Sample files (`*.bin`):
//!
//! ```text
//! magic "FNRS" | version u32 | variant u8 | planes u16 | points u16 | actions u16 | count u32
//! count x ( planes*points f32 | n u16 | n x (action u16, probability f32) | wdl 3 x f32
//!           | m u16 | m x ownership i8 )
//! FNV-1a 64 checksum of everything before it (u64)
//! ```
//!
//! all little-endian; `m` is 0 (no ownership target) or `points`. Version 1 files, from
//! before the ownership target, have no `m` and are still read. A file with a wrong magic, version, shape or checksum is refused
//! with the path and the reason. Game records are JSON lines (`games.jsonl`), one game a
//! line with a `version` field; a damaged line is reported and skipped.

use fanorona_rules::{Color, Variant, num_actions};
use fanorona_sim::{Encode, num_planes};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Version of the sample format (1: without the ownership target, still read).
pub const SAMPLE_VERSION: u32 = 2;
/// Version of the game record format.
pub const GAME_VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"FNRS";

/// One training sample, in the mover's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Observation planes (`planes * points`).
    pub planes: Vec<f32>,
    /// The search policy: (action in the mover's frame, probability), probabilities > 0.
    pub policy: Vec<(u16, f32)>,
    /// The game's result for the mover: win, draw, loss.
    pub wdl: [f32; 3],
    /// The game's last position in the mover's frame, a value a point
    /// (`fanorona_sim::Encode::ownership`: 1 the mover's piece, -1 the opponent's, 0
    /// empty), the ownership head's target; empty where there is none (a sample that is
    /// not from a finished game, or read from a version 1 file).
    pub ownership: Vec<i8>,
}

/// The ownership targets of a game that ended at `last`: for a sample of either mover,
/// the last position in that mover's frame (`Sample::ownership`).
pub fn ownership_targets<G: Encode>(last: &G) -> impl Fn(Color) -> Vec<i8> + use<G> {
    let [white, black] = [Color::White, Color::Black].map(|c| {
        let mut o = vec![0i8; last.variant().points()];
        last.ownership(c, &mut o);
        o
    });
    move |mover| match mover {
        Color::White => white.clone(),
        Color::Black => black.clone(),
    }
}

/// A record file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Reading or writing failed.
    #[error("record file `{path}`: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The content is damaged or of another kind.
    #[error("record file `{path}` is damaged: {reason}")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

pub(crate) use fanorona_rules::checksum::fnv1a as fnv;

use fanorona_rules::durable::write_atomic;

/// Encodes samples of `variant` into the file format.
pub fn encode_samples<'a>(
    variant: Variant,
    samples: impl ExactSizeIterator<Item = &'a Sample>,
) -> Vec<u8> {
    let per = num_planes(variant) * variant.points();
    let mut b = Vec::with_capacity(32 + samples.len() * (per * 4 + 64));
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&SAMPLE_VERSION.to_le_bytes());
    b.push(variant as u8);
    b.extend_from_slice(&(num_planes(variant) as u16).to_le_bytes());
    b.extend_from_slice(&(variant.points() as u16).to_le_bytes());
    b.extend_from_slice(&(num_actions(variant) as u16).to_le_bytes());
    b.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    for s in samples {
        assert_eq!(s.planes.len(), per, "sample of another shape");
        for v in &s.planes {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&(s.policy.len() as u16).to_le_bytes());
        for (a, p) in &s.policy {
            b.extend_from_slice(&a.to_le_bytes());
            b.extend_from_slice(&p.to_le_bytes());
        }
        for v in s.wdl {
            b.extend_from_slice(&v.to_le_bytes());
        }
        assert!(
            s.ownership.is_empty() || s.ownership.len() == variant.points(),
            "ownership of another shape"
        );
        b.extend_from_slice(&(s.ownership.len() as u16).to_le_bytes());
        b.extend(s.ownership.iter().map(|&o| o as u8));
    }
    let h = fnv(&b);
    b.extend_from_slice(&h.to_le_bytes());
    b
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let s = self
            .b
            .get(self.i..self.i + n)
            .ok_or_else(|| format!("truncated at byte {}", self.i))?;
        self.i += n;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
}

/// Decodes a sample file's bytes; checks everything.
///
/// # Errors
/// The reason the bytes are not a valid file for `variant`.
pub fn decode_samples(bytes: &[u8], variant: Variant) -> Result<Vec<Sample>, String> {
    if bytes.len() < 8 + 4 {
        return Err("too short".into());
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fnv(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err("checksum mismatch".into());
    }
    let mut r = Reader { b: body, i: 0 };
    if r.take(4)? != MAGIC {
        return Err("not a sample file (bad magic)".into());
    }
    let version = r.u32()?;
    if !(1..=SAMPLE_VERSION).contains(&version) {
        return Err(format!(
            "version {version}, this build reads 1 to {SAMPLE_VERSION}"
        ));
    }
    let v = r.take(1)?[0];
    if v != variant as u8 {
        return Err(format!("samples of variant {v}, expected {variant}"));
    }
    let (planes, points, actions) = (r.u16()? as usize, r.u16()? as usize, r.u16()? as usize);
    if planes != num_planes(variant)
        || points != variant.points()
        || actions != num_actions(variant)
    {
        return Err(format!(
            "shape {planes}x{points}, {actions} actions does not match {variant}"
        ));
    }
    let count = r.u32()? as usize;
    let per = planes * points;
    let mut out = Vec::with_capacity(count.min(1 << 20));
    for _ in 0..count {
        let mut pl = Vec::with_capacity(per);
        for _ in 0..per {
            pl.push(r.f32()?);
        }
        let n = r.u16()? as usize;
        let mut policy = Vec::with_capacity(n);
        for _ in 0..n {
            let a = r.u16()?;
            if a as usize >= actions {
                return Err(format!("action {a} out of range"));
            }
            policy.push((a, r.f32()?));
        }
        let wdl = [r.f32()?, r.f32()?, r.f32()?];
        let mut ownership = Vec::new();
        if version >= 2 {
            let m = r.u16()? as usize;
            if m != 0 && m != points {
                return Err(format!("ownership of {m} points, expected 0 or {points}"));
            }
            ownership.extend(r.take(m)?.iter().map(|&o| o as i8));
            if ownership.iter().any(|o| !(-1..=1).contains(o)) {
                return Err("ownership value out of range (-1 to 1)".into());
            }
        }
        out.push(Sample {
            planes: pl,
            policy,
            wdl,
            ownership,
        });
    }
    if r.i != body.len() {
        return Err(format!("{} trailing bytes", body.len() - r.i));
    }
    Ok(out)
}

/// Writes samples to `path` atomically.
///
/// # Errors
/// The file cannot be written.
pub fn write_samples<'a>(
    path: &Path,
    variant: Variant,
    samples: impl ExactSizeIterator<Item = &'a Sample>,
) -> Result<(), RecordError> {
    write_atomic(path, &encode_samples(variant, samples)).map_err(|error| RecordError::Io {
        path: path.into(),
        error,
    })
}

/// Reads a sample file.
///
/// # Errors
/// Missing, damaged, or of another variant.
pub fn read_samples(path: &Path, variant: Variant) -> Result<Vec<Sample>, RecordError> {
    let bytes = std::fs::read(path).map_err(|error| RecordError::Io {
        path: path.into(),
        error,
    })?;
    decode_samples(&bytes, variant).map_err(|reason| RecordError::Damaged {
        path: path.into(),
        reason,
    })
}

/// One finished self-play game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// [`GAME_VERSION`].
    pub version: u32,
    /// The variant.
    pub variant: String,
    /// Generation that played it.
    pub generation: u64,
    /// `white`, `black` or `draw`.
    pub result: String,
    /// Every decision as an action index (real board), in order.
    pub actions: Vec<u16>,
    /// The same decisions written for people.
    pub moves: Vec<String>,
    /// Whether a side resigned.
    #[serde(default)]
    pub resigned: bool,
    /// Whether the game ended at a position the endgame tables cover, with their result
    /// (`selfplay.tablebases`): the actions stop there.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tablebase: bool,
    /// The position the game began from (FEN), where it is not the variant's start
    /// position (`selfplay.book`); `actions` are played from there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
}

/// Appends game records to a JSON-lines file.
///
/// # Errors
/// The file cannot be written.
pub fn append_games(path: &Path, games: &[GameRecord]) -> Result<(), RecordError> {
    let mut text = String::new();
    for g in games {
        text.push_str(&serde_json::to_string(g).expect("records serialise"));
        text.push('\n');
    }
    fanorona_rules::durable::Appender::open(path, true)
        .and_then(|mut f| f.line(&text))
        .map_err(|error| RecordError::Io {
            path: path.into(),
            error,
        })
}

/// Writes game records to a JSON-lines file atomically (replacing it).
///
/// # Errors
/// The file cannot be written.
pub fn write_games(path: &Path, games: &[GameRecord]) -> Result<(), RecordError> {
    let mut text = String::new();
    for g in games {
        text.push_str(&serde_json::to_string(g).expect("records serialise"));
        text.push('\n');
    }
    write_atomic(path, text.as_bytes()).map_err(|error| RecordError::Io {
        path: path.into(),
        error,
    })
}

/// Reads game records; damaged lines are returned as errors beside the good records.
///
/// # Errors
/// The file cannot be read at all.
pub fn read_games(path: &Path) -> Result<(Vec<GameRecord>, Vec<String>), RecordError> {
    let bytes = std::fs::read(path).map_err(|error| RecordError::Io {
        path: path.into(),
        error,
    })?;
    Ok(parse_games(&bytes, &path.display().to_string()))
}

/// The game records of a JSON-lines file's bytes, and a message for each line that is
/// not one of this build's version (`name:line: why`; blank lines are skipped).
pub fn parse_games(bytes: &[u8], name: &str) -> (Vec<GameRecord>, Vec<String>) {
    crate::jsonl::parse(bytes, name, |g: &GameRecord| {
        if g.version == GAME_VERSION {
            Ok(())
        } else {
            Err(format!("game record version {}", g.version))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn sample(v: Variant, k: f32) -> Sample {
        let per = num_planes(v) * v.points();
        Sample {
            planes: (0..per).map(|i| ((i as f32) * k).sin()).collect(),
            policy: vec![(3, 0.25), (17, 0.75)],
            wdl: [k, 0.0, 1.0 - k],
            // Every other sample with an ownership target.
            ownership: if k < 0.3 {
                (0..v.points()).map(|p| (p % 3) as i8 - 1).collect()
            } else {
                Vec::new()
            },
        }
    }

    /// A version 1 file, as builds before the ownership target wrote it.
    fn encode_v1(v: Variant, samples: &[Sample]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.push(v as u8);
        b.extend_from_slice(&(num_planes(v) as u16).to_le_bytes());
        b.extend_from_slice(&(v.points() as u16).to_le_bytes());
        b.extend_from_slice(&(num_actions(v) as u16).to_le_bytes());
        b.extend_from_slice(&(samples.len() as u32).to_le_bytes());
        for s in samples {
            s.planes
                .iter()
                .for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
            b.extend_from_slice(&(s.policy.len() as u16).to_le_bytes());
            for (a, p) in &s.policy {
                b.extend_from_slice(&a.to_le_bytes());
                b.extend_from_slice(&p.to_le_bytes());
            }
            s.wdl
                .iter()
                .for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
        }
        let h = fnv(&b);
        b.extend_from_slice(&h.to_le_bytes());
        b
    }

    #[test]
    fn version_1_files_read_without_ownership() {
        let v = Variant::Tsivy;
        let s: Vec<Sample> = (0..4).map(|i| sample(v, i as f32 / 4.0)).collect();
        assert!(s.iter().any(|x| !x.ownership.is_empty()));
        let read = decode_samples(&encode_v1(v, &s), v).unwrap();
        assert_eq!(read.len(), s.len());
        for (a, b) in read.iter().zip(&s) {
            assert!(a.ownership.is_empty());
            assert_eq!((&a.planes, &a.policy, a.wdl), (&b.planes, &b.policy, b.wdl));
        }
        // A version from the future is refused by number.
        let mut future = encode_samples(v, s.iter());
        future[4..8].copy_from_slice(&(SAMPLE_VERSION + 1).to_le_bytes());
        let n = future.len() - 8;
        let h = fnv(&future[..n]);
        future[n..].copy_from_slice(&h.to_le_bytes());
        let e = decode_samples(&future, v).unwrap_err();
        assert!(e.contains("version 3"), "{e}");
    }

    #[test]
    fn ownership_values_out_of_range_are_refused() {
        let v = Variant::Dimy;
        let mut s = sample(v, 0.0);
        s.ownership[4] = 2;
        let e = decode_samples(&encode_samples(v, [s].iter()), v).unwrap_err();
        assert!(e.contains("ownership"), "{e}");
    }

    #[test]
    fn samples_round_trip_and_damage_is_caught() {
        let v = Variant::Dimy;
        let s: Vec<Sample> = (0..5).map(|i| sample(v, i as f32 / 5.0)).collect();
        assert!(s.iter().any(|x| x.ownership.is_empty()));
        assert!(s.iter().any(|x| x.ownership.len() == v.points()));
        let bytes = encode_samples(v, s.iter());
        assert_eq!(decode_samples(&bytes, v).unwrap(), s);
        let other = decode_samples(&bytes, Variant::Tsivy).unwrap_err();
        assert!(other.contains("variant"), "{other}");
        for i in [0, 5, 20, bytes.len() / 2, bytes.len() - 1] {
            let mut d = bytes.clone();
            d[i] ^= 0x40;
            assert!(decode_samples(&d, v).is_err(), "flipped byte {i}");
        }
        assert!(decode_samples(&bytes[..bytes.len() - 3], v).is_err());
        assert!(decode_samples(b"", v).is_err());
        let dir = std::env::temp_dir().join(format!("fanorona-rec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("s.bin");
        write_samples(&p, v, s.iter()).unwrap();
        assert_eq!(read_samples(&p, v).unwrap(), s);
        std::fs::write(&p, b"junk").unwrap();
        let e = read_samples(&p, v).unwrap_err();
        assert!(
            e.to_string().contains("s.bin") && e.to_string().contains("damaged"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn games_round_trip_and_bad_lines_are_reported() {
        let dir = std::env::temp_dir().join(format!("fanorona-games-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("games.jsonl");
        let g = GameRecord {
            version: GAME_VERSION,
            variant: "telo".into(),
            generation: 3,
            result: "white".into(),
            actions: vec![4, 0, 8],
            moves: vec!["b2".into(), "a1".into(), "c3".into()],
            resigned: false,
            tablebase: false,
            start: None,
        };
        append_games(&p, &[g.clone(), g.clone()]).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"{broken\n")
            .unwrap();
        let (good, bad) = read_games(&p).unwrap();
        assert_eq!(good, vec![g.clone(), g]);
        assert_eq!(bad.len(), 1);
        assert!(bad[0].contains("games.jsonl`:3"), "{bad:?}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
