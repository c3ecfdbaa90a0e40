//! Tree learning's label window: a bounded store on disk, one file a generation and a
//! source, that a run keeps across stops and sessions.
//!
//! Each generation's labels go to `<run>/labels/<generation>-<source>.bin` (the players'
//! searches: `play`; the deeper teacher: `teacher`) before its checkpoint is written, and
//! each checkpoint lists the files of its window (`window.json`: generation, source,
//! labels and checksum of each). A resumed run reads the files its newest checkpoint
//! lists and deletes the others (a generation a stop interrupted is played again, with
//! the same seed: no label is lost or learned twice). Files the window has let go are
//! deleted once a checkpoint without them is written.
//!
//! In memory the window keeps the files' bytes (25 a label) and decodes a label when a
//! batch draws it, so tens of millions of labels fit in a few hundred megabytes. A batch
//! draws every label the window holds alike.

use fanorona_rules::checksum::fnv1a;
use fanorona_rules::durable;
use fanorona_rules::{Bitboard, ByColor, Color, Position, RuleOptions, Variant};
use fanorona_search::{Bound, NodeLabel};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// The first bytes of a checkpoint's whole-window file (before the window moved to
/// `labels/`): read when a run saved so resumes.
pub const LABELS_MAGIC: &[u8; 16] = b"fanorona-labels1";
/// The first bytes of a window file.
const SEGMENT_MAGIC: &[u8; 16] = b"fanorona-labels2";
/// Bytes of one label.
pub const LABEL_BYTES: usize = 25;
/// The window's folder in the run's folder.
pub const DIR: &str = "labels";
/// A checkpoint's list of its window's files.
pub const MANIFEST: &str = "window.json";

/// The run folder of checkpoint folder `dir`.
pub fn run_of(dir: &Path) -> &Path {
    durable::parent(dir)
}

/// Who searched a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelSource {
    /// The searches that played the games.
    Play,
    /// The deeper teacher (`tree.deep_gap`).
    Teacher,
}

impl LabelSource {
    fn name(self) -> &'static str {
        match self {
            LabelSource::Play => "play",
            LabelSource::Teacher => "teacher",
        }
    }
}

/// One file of the window, as a checkpoint lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentEntry {
    generation: u64,
    source: LabelSource,
    labels: u64,
    checksum: String,
}

/// A checkpoint's `window.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    segments: Vec<SegmentEntry>,
}

impl Manifest {
    /// Whether it lists no file.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The files it lists, oldest first.
    pub fn segments(&self) -> &[SegmentEntry] {
        &self.segments
    }
}

#[derive(Debug)]
struct Segment {
    entry: SegmentEntry,
    /// The labels' bytes, [`LABEL_BYTES`] each.
    body: Vec<u8>,
}

/// The window (see the module's notes).
#[derive(Debug)]
pub struct LabelWindow {
    dir: PathBuf,
    variant: Variant,
    rules: RuleOptions,
    capacity: usize,
    segments: VecDeque<Segment>,
    total: usize,
}

/// Draws labels from a window as it stands (built once a training round).
#[derive(Debug)]
pub struct Sampler<'a> {
    window: &'a LabelWindow,
    /// The segments' cumulative label counts, oldest first, with each one's index.
    cum: Vec<(usize, usize)>,
}

impl LabelWindow {
    /// An empty window storing its files in `run/labels/`, holding about `capacity`
    /// labels at most (the oldest generation's files go whole).
    pub fn new(run: &Path, variant: Variant, rules: RuleOptions, capacity: usize) -> LabelWindow {
        LabelWindow {
            dir: run.join(DIR),
            variant,
            rules,
            capacity,
            segments: VecDeque::new(),
            total: 0,
        }
    }

    /// Labels held.
    pub fn len(&self) -> usize {
        self.total
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Labels held from `source`.
    pub fn count(&self, source: LabelSource) -> usize {
        self.segments
            .iter()
            .filter(|s| s.entry.source == source)
            .map(|s| s.entry.labels as usize)
            .sum()
    }

    fn path(&self, generation: u64, source: LabelSource) -> PathBuf {
        self.dir
            .join(format!("{generation:05}-{}.bin", source.name()))
    }

    /// Adds generation `generation`'s labels from `source`, written to their file first;
    /// the oldest generations go past the capacity.
    ///
    /// # Errors
    /// The file cannot be written (named).
    pub fn push(
        &mut self,
        generation: u64,
        source: LabelSource,
        labels: &[NodeLabel],
    ) -> Result<(), (PathBuf, std::io::Error)> {
        if labels.is_empty() {
            return Ok(());
        }
        let mut body = Vec::with_capacity(labels.len() * LABEL_BYTES);
        for l in labels {
            encode_one(&mut body, l);
        }
        let entry = SegmentEntry {
            generation,
            source,
            labels: labels.len() as u64,
            checksum: String::new(),
        };
        let bytes = self.file_bytes(&entry, &body);
        let entry = SegmentEntry {
            checksum: format!("{:016x}", fnv1a(&bytes)),
            ..entry
        };
        let path = self.path(generation, source);
        durable::write_atomic(&path, &bytes).map_err(|e| (path.clone(), e))?;
        self.total += body.len() / LABEL_BYTES;
        self.segments.push_back(Segment { entry, body });
        while self.total > self.capacity
            && let Some(front) = self.segments.pop_front()
        {
            self.total -= front.entry.labels as usize;
        }
        Ok(())
    }

    /// A window file: magic, board, source, generation, count, then the labels.
    fn file_bytes(&self, entry: &SegmentEntry, body: &[u8]) -> Vec<u8> {
        let name = self.variant.name().as_bytes();
        let mut out = Vec::with_capacity(64 + body.len());
        out.extend_from_slice(SEGMENT_MAGIC);
        out.push(name.len() as u8);
        out.extend_from_slice(name);
        out.push(entry.source as u8);
        out.extend_from_slice(&entry.generation.to_le_bytes());
        out.extend_from_slice(&entry.labels.to_le_bytes());
        out.extend_from_slice(body);
        out
    }

    /// The labels' bytes of window file `bytes`, which `entry` (a checkpoint's list) lists:
    /// its checksum, header and length as the list says, every label a position of the
    /// window's board (a label that is none would stop a later draw).
    ///
    /// # Errors
    /// What is wrong with the file.
    pub fn read_segment(&self, entry: &SegmentEntry, bytes: &[u8]) -> Result<Vec<u8>, String> {
        if format!("{:016x}", fnv1a(bytes)) != entry.checksum {
            return Err("damaged (its checksum is not the one its checkpoint lists)".into());
        }
        let header = self.file_bytes(entry, &[]);
        let body = bytes
            .strip_prefix(header.as_slice())
            .ok_or("not this window's file (its header differs)")?;
        if Some(body.len() as u64) != entry.labels.checked_mul(LABEL_BYTES as u64) {
            return Err(format!(
                "cut: {} bytes of labels where its checkpoint lists {} labels",
                body.len(),
                entry.labels
            ));
        }
        for (i, c) in body.chunks_exact(LABEL_BYTES).enumerate() {
            decode_one(c, self.variant, self.rules).map_err(|e| format!("label {i}: {e}"))?;
        }
        Ok(body.to_vec())
    }

    /// The list a checkpoint keeps.
    pub fn manifest(&self) -> Manifest {
        Manifest {
            segments: self.segments.iter().map(|s| s.entry.clone()).collect(),
        }
    }

    /// The window `manifest` lists, read from `run/labels/`; files it does not list are
    /// deleted (a generation a stop interrupted, or let go).
    ///
    /// # Errors
    /// A listed file missing, damaged or of another board (named).
    pub fn open(
        run: &Path,
        variant: Variant,
        rules: RuleOptions,
        capacity: usize,
        manifest: &Manifest,
    ) -> Result<LabelWindow, String> {
        let mut w = LabelWindow::new(run, variant, rules, capacity);
        for entry in &manifest.segments {
            let path = w.path(entry.generation, entry.source);
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let body = w
                .read_segment(entry, &bytes)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            w.total += body.len() / LABEL_BYTES;
            w.segments.push_back(Segment {
                entry: entry.clone(),
                body,
            });
        }
        w.prune();
        Ok(w)
    }

    /// Deletes the files of `run/labels/` the window does not hold.
    pub fn prune(&self) {
        let keep: std::collections::HashSet<PathBuf> = self
            .segments
            .iter()
            .map(|s| self.path(s.entry.generation, s.entry.source))
            .collect();
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for e in entries.flatten() {
                if !keep.contains(&e.path()) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }

    /// A sampler of the window as it stands: every label alike.
    pub fn sampler(&self) -> Sampler<'_> {
        let mut sum = 0usize;
        let cum = self
            .segments
            .iter()
            .enumerate()
            .map(|(i, s)| {
                sum += s.entry.labels as usize;
                (sum, i)
            })
            .collect();
        Sampler { window: self, cum }
    }
}

impl Sampler<'_> {
    /// One label, drawn as the sampler weighs them.
    ///
    /// # Panics
    /// The window is empty.
    pub fn draw(&self, rng: &mut impl rand::Rng) -> NodeLabel {
        let cum = &self.cum;
        let total = cum.last().expect("a label in the window").0;
        let x = rng.random_range(0..total);
        let k = cum.partition_point(|(c, _)| *c <= x);
        let (end, s) = cum[k];
        let seg = &self.window.segments[s];
        let i = x + seg.entry.labels as usize - end;
        decode_one(
            &seg.body[i * LABEL_BYTES..(i + 1) * LABEL_BYTES],
            self.window.variant,
            self.window.rules,
        )
        .expect("checked when written or read")
    }
}

/// One label's [`LABEL_BYTES`] (little-endian: White's and Black's points as two 64-bit
/// masks, the side to move plus twice the turn number up to 2, the quiet counter, the
/// score, the bound, the depth).
fn encode_one(out: &mut Vec<u8>, l: &NodeLabel) {
    let p = &l.position;
    out.extend_from_slice(&p.pieces(Color::White).0.to_le_bytes());
    out.extend_from_slice(&p.pieces(Color::Black).0.to_le_bytes());
    // The side, and the turn number where the rules tell the first two turns apart.
    out.push(p.side_to_move().index() as u8 | (p.ply().min(2) as u8) << 1);
    out.extend_from_slice(&p.quiet().to_le_bytes());
    out.extend_from_slice(&l.score.to_le_bytes());
    out.push(match l.bound {
        Bound::Exact => 0,
        Bound::Lower => 1,
        Bound::Upper => 2,
    });
    out.push(l.depth);
}

/// Reads [`encode_one`]'s form.
fn decode_one(c: &[u8], variant: Variant, rules: RuleOptions) -> Result<NodeLabel, String> {
    let u64_at = |k: usize| u64::from_le_bytes(c[k..k + 8].try_into().expect("8 bytes"));
    let side = match c[16] & 1 {
        0 => Color::White,
        _ => Color::Black,
    };
    let ply = u16::from(c[16] >> 1);
    if ply > 2 {
        return Err(format!("side byte {}", c[16]));
    }
    let quiet = u16::from_le_bytes([c[17], c[18]]);
    let score = i32::from_le_bytes(c[19..23].try_into().expect("4 bytes"));
    let bound = match c[23] {
        0 => Bound::Exact,
        1 => Bound::Lower,
        2 => Bound::Upper,
        b => return Err(format!("bound {b}")),
    };
    let pieces = ByColor {
        white: Bitboard(u64_at(0)),
        black: Bitboard(u64_at(8)),
    };
    let position =
        Position::new(variant, rules, pieces, side, quiet, ply).map_err(|e| format!("{e:?}"))?;
    if position.pieces(Color::White) != pieces.white
        || position.pieces(Color::Black) != pieces.black
    {
        return Err("pieces off the board or on one point".into());
    }
    Ok(NodeLabel {
        position,
        score,
        bound,
        depth: c[24],
    })
}

/// A whole window as one file of the older form ([`LABELS_MAGIC`], the board's name's
/// length and name, then the labels).
pub fn encode_labels<'a>(variant: Variant, labels: impl Iterator<Item = &'a NodeLabel>) -> Vec<u8> {
    let name = variant.name().as_bytes();
    let mut out = Vec::new();
    out.extend_from_slice(LABELS_MAGIC);
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    for l in labels {
        encode_one(&mut out, l);
    }
    out
}

/// Reads [`encode_labels`]'s form, for `variant` under `rules`.
///
/// # Errors
/// Another format or board, a cut file, or a label that is no position.
pub fn decode_labels(
    bytes: &[u8],
    variant: Variant,
    rules: RuleOptions,
) -> Result<Vec<NodeLabel>, String> {
    let rest = bytes
        .strip_prefix(LABELS_MAGIC)
        .ok_or("not a label file (its first bytes are wrong)")?;
    let (&len, rest) = rest.split_first().ok_or("cut before its board's name")?;
    let len = len as usize;
    if rest.len() < len {
        return Err("cut before its board's name".into());
    }
    let (name, body) = rest.split_at(len);
    if name != variant.name().as_bytes() {
        return Err(format!(
            "labels of {}, not {variant}",
            String::from_utf8_lossy(name)
        ));
    }
    if !body.len().is_multiple_of(LABEL_BYTES) {
        return Err(format!(
            "cut: {} bytes after the header, not a multiple of {LABEL_BYTES}",
            body.len()
        ));
    }
    body.chunks_exact(LABEL_BYTES)
        .enumerate()
        .map(|(i, c)| decode_one(c, variant, rules).map_err(|e| format!("label {i}: {e}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn label(variant: Variant, score: i32) -> NodeLabel {
        NodeLabel {
            position: Position::start(variant, RuleOptions::default()),
            score,
            bound: Bound::Exact,
            depth: 3,
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fanorona-window-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_window_reopens_as_its_checkpoint_listed_it_and_forgets_the_rest() {
        let run = scratch("reopen");
        let (v, rules) = (Variant::Dimy, RuleOptions::default());
        let mut w = LabelWindow::new(&run, v, rules, 25);
        for g in 1..=3u64 {
            let play: Vec<_> = (0..10).map(|i| label(v, (g * 100 + i) as i32)).collect();
            w.push(g, LabelSource::Play, &play).unwrap();
            w.push(g, LabelSource::Teacher, &play[..2]).unwrap();
        }
        // 36 labels pushed, capacity 25: the first generation went (24 held).
        assert_eq!((w.len(), w.count(LabelSource::Teacher)), (24, 4));
        let manifest = w.manifest();
        // A fourth generation written, then a stop before its checkpoint.
        w.push(4, LabelSource::Play, &[label(v, 7)]).unwrap();
        w.prune();
        assert!(run.join(DIR).join("00004-play.bin").exists());
        assert!(!run.join(DIR).join("00001-play.bin").exists());
        let back = LabelWindow::open(&run, v, rules, 25, &manifest).unwrap();
        assert_eq!(back.manifest(), manifest);
        assert!(
            !run.join(DIR).join("00004-play.bin").exists(),
            "the interrupted generation's file goes"
        );
        // Every label drawn is one of those held, each alike.
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let all = back.sampler();
        let scores: std::collections::BTreeSet<i32> =
            (0..2000).map(|_| all.draw(&mut rng).score).collect();
        assert_eq!(scores.len(), 20, "{scores:?}");
        assert!(
            scores
                .iter()
                .all(|&s| (200..210).contains(&s) || (300..310).contains(&s))
        );
        // A flipped byte, a cut file and a missing one are errors that name the file.
        let p = run.join(DIR).join("00002-play.bin");
        let mut bytes = std::fs::read(&p).unwrap();
        bytes[40] ^= 1;
        std::fs::write(&p, &bytes).unwrap();
        let e = LabelWindow::open(&run, v, rules, 25, &manifest).unwrap_err();
        assert!(e.contains("00002-play.bin") && e.contains("damaged"), "{e}");
        std::fs::remove_file(&p).unwrap();
        let e = LabelWindow::open(&run, v, rules, 25, &manifest).unwrap_err();
        assert!(e.contains("00002-play.bin"), "{e}");
        std::fs::remove_dir_all(&run).unwrap();
    }

    /// A window file whose checksum its list matches (both written by a stranger) but
    /// whose labels are no positions: refused when read (it was accepted, and the first
    /// batch that drew such a label panicked); a label count that overflows is refused.
    #[test]
    fn a_file_whose_labels_are_no_positions_is_refused_when_read_not_when_drawn() {
        let (v, rules) = (Variant::Dimy, RuleOptions::default());
        let w = LabelWindow::new(Path::new("/nonexistent"), v, rules, 100);
        let entry = |labels: u64, bytes: &[u8]| SegmentEntry {
            generation: 3,
            source: LabelSource::Play,
            labels,
            checksum: format!("{:016x}", fnv1a(bytes)),
        };
        let mut body = Vec::new();
        encode_one(&mut body, &label(v, 5));
        // White and Black on one point.
        let mut bad = body.clone();
        bad.copy_within(0..8, 8);
        for (body, want) in [(&body, None), (&bad, Some("label 0"))] {
            let header = w.file_bytes(&entry(1, &[]), &[]);
            let file = [header.as_slice(), body.as_slice()].concat();
            let got = w.read_segment(&entry(1, &file), &file);
            match want {
                None => assert_eq!(got.unwrap(), *body),
                Some(w) => assert!(got.unwrap_err().contains(w)),
            }
        }
        let huge = entry(u64::MAX / 2, &[]);
        let file = w.file_bytes(&huge, &[]);
        let e = w
            .read_segment(&entry(u64::MAX / 2, &file), &file)
            .unwrap_err();
        assert!(e.contains("cut"), "{e}");
    }
}
