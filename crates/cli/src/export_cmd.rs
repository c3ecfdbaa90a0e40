//! `fanorona export`: a checkpoint as ONNX and safetensors files with `model.json`.

use crate::input_err;
use anyhow::{Context, Result};
use clap::{ArgGroup, Args, ValueEnum};
use fanorona_nn::export::{self, ExportError, Formats, Targets};
use std::path::PathBuf;

/// Which files `--out` gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// model.onnx (and model.json)
    Onnx,
    /// model.safetensors (and model.json)
    Safetensors,
    /// both (and model.json)
    All,
}

/// `fanorona export`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("target").required(true).args(["out", "onnx"])))]
pub struct ExportArgs {
    /// A checkpoint folder, or a run folder (its latest checkpoint).
    #[arg(long, value_name = "DIR")]
    pub checkpoint: PathBuf,
    /// Folder to write model.onnx, model.safetensors and model.json into (created).
    #[arg(long, value_name = "FOLDER")]
    pub out: Option<PathBuf>,
    /// What --out gets.
    #[arg(long, value_enum, default_value_t = Format::All, requires = "out")]
    pub format: Format,
    /// Write just an ONNX file here, with its description beside it (FILE with .json).
    #[arg(long, value_name = "FILE", conflicts_with = "out")]
    pub onnx: Option<PathBuf>,
    /// Test vectors to write beside model.json (reference.json): positions from random
    /// games with their FEN, planes, legal actions and this network's outputs, for
    /// checking a front end. 0 writes none.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub reference: usize,
    /// One line of JSON: checkpoint, variant, generation, run, files.
    #[arg(long)]
    pub json: bool,
}

/// Exports the checkpoint; a missing or damaged checkpoint is an input error (exit 2).
pub fn export(a: ExportArgs) -> Result<()> {
    let targets = match (&a.out, &a.onnx) {
        (_, Some(file)) => Targets::onnx_file(file),
        (Some(dir), None) => Targets::folder(
            dir,
            match a.format {
                Format::Onnx => Formats {
                    onnx: true,
                    safetensors: false,
                },
                Format::Safetensors => Formats {
                    onnx: false,
                    safetensors: true,
                },
                Format::All => Formats::ALL,
            },
        ),
        (None, None) => unreachable!("clap requires --out or --onnx"),
    };
    let targets = targets.with_reference(a.reference);
    let done = match export::export(&a.checkpoint, &targets, &crate::backend::device()) {
        Err(e @ ExportError::Checkpoint(_)) => return Err(input_err(e)),
        r => r.context("export failed")?,
    };
    let files: Vec<String> = done.files.iter().map(|f| f.display().to_string()).collect();
    if a.json {
        let v = serde_json::json!({
            "checkpoint": done.checkpoint.display().to_string(),
            "variant": done.meta.variant,
            "generation": done.meta.generation,
            "run": done.meta.run,
            "files": files,
        });
        println!("{v}");
    } else {
        println!(
            "exported {} generation {} ({}) from {}",
            done.meta.variant,
            done.meta.generation,
            done.meta.run.as_deref().unwrap_or("no run"),
            done.checkpoint.display()
        );
        for f in files {
            println!("  {f}");
        }
    }
    Ok(())
}
