//! The files a config names (books, learned evaluations, endgame tables), read once and
//! checked against the run's board; errors name the config key.

use crate::config::TrainConfig;
use crate::selfplay;
use crate::state::TrainError;
use fanorona_nn::checkpoint;
use fanorona_rules::Position;
use std::path::Path;

/// The book of the periodic match, if the config names one.
pub(crate) fn read_arena_book(cfg: &TrainConfig) -> Result<Option<Vec<Position>>, TrainError> {
    read_book(cfg, "run.arena_book", &cfg.run.arena_book)
}

/// The book self-play starts from, if the config names one.
pub(crate) fn read_selfplay_book(cfg: &TrainConfig) -> Result<Option<Vec<Position>>, TrainError> {
    read_book(cfg, "selfplay.book", &cfg.selfplay.book)
}

/// What `selfplay.ab_eval` and `selfplay.tablebases` name, read and checked against the
/// run's variant.
pub(crate) fn read_selfplay_aids(cfg: &TrainConfig) -> Result<selfplay::Aids, TrainError> {
    let learned = read_ab_eval(cfg, "selfplay.ab_eval", &cfg.selfplay.ab_eval)?;
    let dir = &cfg.selfplay.tablebases;
    let tables = if dir.is_empty() {
        None
    } else {
        let t = fanorona_tb::Tablebase::open(Path::new(dir), cfg.variant())
            .map_err(|e| TrainError::Tables(format!("selfplay.tablebases = \"{dir}\": {e}")))?;
        Some(std::sync::Arc::new(t))
    };
    Ok(selfplay::Aids { learned, tables })
}

/// The learned evaluation at `path` (the config's `key`; empty: none), read once and
/// checked against the run's board.
pub(crate) fn read_ab_eval(
    cfg: &TrainConfig,
    key: &str,
    path: &str,
) -> Result<selfplay::AbLearned, TrainError> {
    if path.is_empty() {
        return Ok(None);
    }
    let named = |e: &dyn std::fmt::Display| TrainError::Eval(format!("{key} = \"{path}\": {e}"));
    let file = checkpoint::eval_path(Path::new(path), cfg.variant()).map_err(|e| named(&e))?;
    fanorona_search::LearnedEval::read(&file, cfg.variant())
        .map(|e| Some(std::sync::Arc::new(e)))
        .map_err(|e| named(&e))
}

/// The learned evaluation that the run's players search with, as its file's bytes: the
/// self-play searches' (`selfplay.ab_eval`), else the warm start's teacher's
/// (`bootstrap.ab_eval`). Every checkpoint carries it as [`checkpoint::EVAL_FILE`], so
/// that `mcts:ckpt=DIR` plays with the evaluation the network learned beside.
pub(crate) fn players_eval_file(cfg: &TrainConfig) -> Result<Option<Vec<u8>>, TrainError> {
    let (key, name) = if !cfg.selfplay.ab_eval.is_empty() {
        ("selfplay.ab_eval", &cfg.selfplay.ab_eval)
    } else if !cfg.bootstrap.ab_eval.is_empty() {
        ("bootstrap.ab_eval", &cfg.bootstrap.ab_eval)
    } else {
        return Ok(None);
    };
    let named = |e: &dyn std::fmt::Display| TrainError::Eval(format!("{key} = \"{name}\": {e}"));
    let file = checkpoint::eval_path(Path::new(name), cfg.variant()).map_err(|e| named(&e))?;
    std::fs::read(&file).map(Some).map_err(|e| named(&e))
}

/// The book at `path` (the config's `key`; empty: none), checked against the run's variant.
fn read_book(
    cfg: &TrainConfig,
    key: &str,
    path: &str,
) -> Result<Option<Vec<Position>>, TrainError> {
    if path.is_empty() {
        return Ok(None);
    }
    fanorona_search::book::read_book(Path::new(path), cfg.rule_options(), Some(cfg.variant()))
        .map(Some)
        .map_err(|e| TrainError::Book(format!("{key}: {e}")))
}
