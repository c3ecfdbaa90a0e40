//! A run's counters, its errors and what it reports as it goes: what every part of
//! training (the warm start, the learner loop, self-play workers) shares.

use crate::records;
use fanorona_nn::checkpoint;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Counters carried from checkpoint to checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Generations completed.
    pub generation: u64,
    /// Self-play games played.
    pub games: u64,
    /// Samples generated.
    pub samples: u64,
    /// Optimizer steps.
    pub steps: u64,
    /// Seconds of training so far (over every session).
    pub seconds: f64,
    /// Samples of the last generation not yet trained on (with `train.overlap`, the next
    /// generation trains on them while it plays).
    #[serde(default)]
    pub untrained_samples: u64,
    /// Teacher games the warm start has learned from, in a checkpoint of generation 0
    /// saved by it; `None` before this was kept (such a warm start is complete).
    #[serde(default)]
    pub bootstrap_games: Option<u64>,
}

impl RunState {
    /// The file that holds a checkpoint's counters, in the checkpoint's folder.
    pub const FILE: &'static str = "state.json";

    /// The counters saved in checkpoint folder `dir` (a run's checkpoints and its
    /// warm-start snapshots have them).
    ///
    /// # Errors
    /// The file is missing, unreadable or not a run's state.
    pub fn read(dir: &Path) -> Result<RunState, TrainError> {
        read_json(&dir.join(Self::FILE))
    }

    /// The seconds of training, rounded to whole seconds (what a warm start's snapshot is
    /// named by and a gauntlet's `--x seconds` orders by).
    pub fn whole_seconds(&self) -> u64 {
        self.seconds.max(0.0).round() as u64
    }

    pub(crate) fn to_json(self) -> Vec<u8> {
        serde_json::to_vec_pretty(&self).expect("state serialises")
    }
}

/// Things the loop reports as it goes (the binary draws progress bars from them).
pub trait Progress {
    /// A line for the person watching.
    fn message(&mut self, line: &str);
    /// Self-play of a generation starts (by default: nothing to show).
    fn selfplay_started(&mut self, _generation: u64, _games: usize) {}
    /// `n` games of the generation are finished.
    fn game_finished(&mut self, _n: usize) {}
    /// Self-play of the generation is over.
    fn selfplay_finished(&mut self) {}
    /// The run's latest standing in a few words (a tree run's curve point: both players'
    /// Elo against its opponents), for a display that keeps it in view; the full line
    /// comes through [`Progress::message`] too.
    fn standing(&mut self, _summary: &str) {}
}

/// A progress reporter that says nothing.
#[derive(Debug, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn message(&mut self, _: &str) {}
}

/// Keeps the messages, one line each (what tests and callers that show them later use).
impl Progress for Vec<String> {
    fn message(&mut self, line: &str) {
        self.push(line.to_string());
    }
}

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A file or folder could not be written or read.
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    /// A checkpoint could not be used.
    #[error(transparent)]
    Checkpoint(#[from] checkpoint::CheckpointError),
    /// The checkpoint `train.init` names cannot start the run.
    #[error("train.init = \"{0}\": {1}")]
    Init(String, checkpoint::CheckpointError),
    /// A record file could not be used.
    #[error(transparent)]
    Record(#[from] records::RecordError),
    /// The run folder holds a different configuration.
    #[error("run `{0}` was started with another configuration: {1}")]
    ConfigChanged(String, String),
    /// A book the config names (`run.arena_book`, `selfplay.book`) cannot be used; the
    /// message names the key.
    #[error("{0}")]
    Book(String),
    /// The learned evaluation `selfplay.ab_eval` names cannot be used; the message names
    /// the key and the file.
    #[error("{0}")]
    Eval(String),
    /// The endgame tables `selfplay.tablebases` names cannot be used; the message names
    /// the key and the folder.
    #[error("{0}")]
    Tables(String),
    /// Object storage kept failing, or its URL is unusable.
    #[error(transparent)]
    Store(Box<crate::store::StoreError>),
    /// The store holds something this command cannot go on with (another configuration,
    /// another layout version, a second worker of the same ID).
    #[error("{0}")]
    Distributed(String),
    /// A player failed in the periodic match (a bug, never a result).
    #[error("the periodic match: {0}")]
    Arena(String),
}

impl From<crate::store::StoreError> for TrainError {
    fn from(e: crate::store::StoreError) -> TrainError {
        // Boxed: object_store's errors are large and would bloat every `Result`.
        TrainError::Store(Box::new(e))
    }
}

pub(crate) fn io(p: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |e| TrainError::Io(p.to_path_buf(), e)
}

/// The JSON file `p` read as a `T` (malformed JSON is reported as invalid data in `p`).
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(p: &Path) -> Result<T, TrainError> {
    let text = std::fs::read_to_string(p).map_err(io(p))?;
    serde_json::from_str(&text).map_err(|e| {
        TrainError::Io(
            p.to_path_buf(),
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })
}

/// What a finished run reports.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The state at the end.
    pub state: RunState,
    /// Where its last checkpoint is.
    pub last_checkpoint: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_state_reads_back_and_names_a_bad_file() {
        let dir = std::env::temp_dir().join(format!("fanorona-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let state = RunState {
            generation: 3,
            games: 40,
            samples: 5000,
            steps: 77,
            seconds: 12.5,
            untrained_samples: 9,
            bootstrap_games: Some(30),
        };
        std::fs::write(dir.join(RunState::FILE), state.to_json()).unwrap();
        assert_eq!(RunState::read(&dir).unwrap(), state);

        std::fs::write(dir.join(RunState::FILE), "{\"generation\": ").unwrap();
        let e = RunState::read(&dir).unwrap_err().to_string();
        assert!(e.contains("state.json"), "{e}");

        std::fs::remove_file(dir.join(RunState::FILE)).unwrap();
        let e = RunState::read(&dir).unwrap_err().to_string();
        assert!(e.contains("state.json"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
