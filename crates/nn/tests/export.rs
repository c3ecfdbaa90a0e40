//! Export: the ONNX file, run by onnxruntime (`docs/check_export.py`, the front ends'
//! own check), gives burn's outputs on the reference positions, in one batch and one at
//! a time; the safetensors file holds the ONNX initialisers; `model.json` describes the
//! encoding; bad checkpoints are refused with a message.
//!
//! The interpreter is `$FANORONA_PYTHON` (else `python3`) with numpy and onnxruntime
//! (crates/python/requirements-test.txt, which `.ci/run` installs); without them the
//! runtime check says so and is skipped, unless `FANORONA_PYTHON_TEST=1` demands it.

use burn::prelude::*;
use fanorona_nn::checkpoint::{self, CheckpointMeta, FORMAT, NetShape};
use fanorona_nn::export::{self, ExportError, Formats, ModelDescription, Targets};
use fanorona_nn::{Batch, CheckpointError, Net, NetConfig, NetEvaluator, Trainer};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{Position, RuleOptions, Variant, num_actions};
use fanorona_sim::{Encode, num_planes};
use fanorona_testkit::{max_diff, random_planes, scratch};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A small network after a few training steps on random targets, so that the weights
/// and the batch-norm statistics are not their initial values, saved as a checkpoint.
fn trained_checkpoint(v: Variant, root: &Path, planes: &[f32]) -> (PathBuf, NetConfig) {
    let device = Device::flex();
    // dimy's carries an ownership head, which training uses and the export leaves out.
    let cfg = NetConfig::for_variant(v)
        .with_blocks(2)
        .with_channels(8)
        .with_ownership(v == Variant::Dimy);
    let mut t = Trainer::new(cfg.init(&device), cfg.clone(), &device, 1e-4);
    let size = cfg.planes * cfg.height * cfg.width;
    let n = 32.min(planes.len() / size);
    let mut rng = SmallRng::seed_from_u64(5);
    let mut policy = vec![0.0; n * cfg.actions];
    for row in policy.chunks_exact_mut(cfg.actions) {
        row[rng.random_range(0..cfg.actions)] = 1.0;
    }
    let wdl = (0..n).flat_map(|i| [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]][i % 3]);
    let batch = Batch {
        planes: planes[..n * size].to_vec(),
        policy,
        wdl: wdl.collect(),
        n,
        ..Batch::default()
    };
    for _ in 0..3 {
        t.step(&batch, 1e-2);
    }
    let dir = root.join("run").join("00003");
    let meta = CheckpointMeta::new(v, &cfg, 3, 3, Some("export-test"));
    checkpoint::save(&dir, &t.inference_net(), None, &meta).unwrap();
    (dir, cfg)
}

/// Runs `docs/check_export.py` on an exported folder (onnxruntime against burn's logits
/// in `reference.json`, the encoding, the numpy rebuild, the action decoding), if the
/// interpreter has numpy and onnxruntime.
fn check_with_onnxruntime(folder: &Path) {
    let python = std::env::var("FANORONA_PYTHON").unwrap_or_else(|_| "python3".into());
    let has = Command::new(&python)
        .args(["-c", "import numpy, onnxruntime"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var_os("FANORONA_PYTHON_TEST").is_none(),
            "FANORONA_PYTHON_TEST is set but `{python}` lacks numpy or onnxruntime"
        );
        eprintln!(
            "warning: `{python}` lacks numpy or onnxruntime: the ONNX file is not run (set FANORONA_PYTHON to an interpreter that has them)"
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/check_export.py");
    let o = Command::new(&python)
        .arg(&script)
        .arg(folder)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    eprint!("{out}");
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("onnxruntime"), "{out}");
}

fn check_variant<G: Encode>(start: G, n: usize) {
    let v = start.variant();
    let root = scratch(v.name());
    let planes = random_planes(start, n, 11);
    let (ckpt, cfg) = trained_checkpoint(v, &root, &planes);
    let out = root.join("export");
    // The run folder resolves to its latest checkpoint.
    let done = export::export(
        &root.join("run"),
        &Targets::folder(&out, Formats::ALL).with_reference(n),
        &Device::flex(),
    )
    .unwrap();
    assert_eq!(done.checkpoint, ckpt);
    for f in [
        "model.onnx",
        "model.safetensors",
        "model.json",
        "reference.json",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    // The reference logits are the checkpoint's on the CPU evaluator.
    let (net, _, _) = checkpoint::load(&ckpt, &Device::flex(), Some(v), Some(&cfg)).unwrap();
    let e = NetEvaluator::new(net, Device::flex(), v, false, 0);
    let refs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("reference.json")).unwrap())
            .unwrap();
    let cases = refs["cases"].as_array().expect("reference cases");
    assert!(!cases.is_empty());
    let size = cfg.planes * cfg.height * cfg.width;
    let case_planes: Vec<f32> = cases
        .iter()
        .flat_map(|c| c["planes"].as_array().unwrap().iter())
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    assert_eq!(case_planes.len(), cases.len() * size);
    let (cp, cw) = e.forward_raw(case_planes, cases.len());
    let json_floats = |key: &str| -> Vec<f32> {
        cases
            .iter()
            .flat_map(|c| c[key].as_array().unwrap().iter())
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    assert!(max_diff(&cp, &json_floats("policy_logits")) < 1e-5);
    assert!(max_diff(&cw, &json_floats("wdl_logits")) < 1e-5);
    // onnxruntime runs the graph, at the batch size of the cases and at batch 1
    // (dynamic axis).
    check_with_onnxruntime(&out);

    // The graph's boundary names, and model.json carried in its metadata.
    let proto = {
        use protobuf::Message;
        let bytes = std::fs::read(out.join("model.onnx")).unwrap();
        onnx_ir::ModelProto::parse_from_bytes(&bytes).unwrap()
    };
    let graph = proto.graph.as_ref().unwrap();
    let inits: Vec<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
    let inputs: Vec<&str> = graph
        .input
        .iter()
        .map(|i| i.name.as_str())
        .filter(|n| !inits.contains(n))
        .collect();
    let outputs: Vec<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(inputs, ["planes"]);
    assert_eq!(outputs, ["policy_logits", "wdl_logits"]);
    let json = std::fs::read_to_string(out.join("model.json")).unwrap();
    let desc: ModelDescription = serde_json::from_str(&json).unwrap();
    let meta = proto
        .metadata_props
        .iter()
        .find(|p| p.key == export::ONNX_METADATA_KEY)
        .expect("model.json in the ONNX metadata");
    assert_eq!(
        serde_json::from_str::<ModelDescription>(&meta.value).unwrap(),
        desc
    );

    // The description matches the network and the encoders.
    assert_eq!(desc.variant, v.name());
    assert_eq!(desc.planes.len(), num_planes(v));
    assert_eq!(desc.input.shape[1], cfg.planes);
    assert_eq!(desc.actions.count, num_actions(v));
    assert_eq!(desc.outputs[0].shape[1], num_actions(v));
    assert_eq!(desc.value.order, ["win", "draw", "loss"]);
    assert_eq!(desc.source.generation, 3);
    assert_eq!(desc.source.run.as_deref(), Some("export-test"));
    assert_eq!(
        desc.net,
        NetShape {
            ownership: false,
            ..NetShape::from(&cfg)
        }
    );
    assert_eq!(desc.symmetries[0].name, "identity");
    assert_eq!(
        desc.symmetries.len(),
        if v == Variant::Tsivy { 4 } else { 8 }
    );

    // Every float initialiser is in the safetensors file with the same shape and bytes,
    // and nothing else is.
    let st_bytes = std::fs::read(out.join("model.safetensors")).unwrap();
    let st = safetensors::SafeTensors::deserialize(&st_bytes).unwrap();
    let floats: Vec<_> = graph
        .initializer
        .iter()
        .filter(|t| t.data_type == 1)
        .collect();
    assert_eq!(st.len(), floats.len());
    for t in floats {
        let view = st.tensor(&t.name).unwrap();
        let dims: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
        assert_eq!(view.shape(), dims.as_slice(), "{}", t.name);
        let raw: Vec<u8> = if t.raw_data.is_empty() {
            t.float_data.iter().flat_map(|x| x.to_le_bytes()).collect()
        } else {
            t.raw_data.to_vec()
        };
        if !raw.is_empty() {
            assert_eq!(view.data(), raw.as_slice(), "{}", t.name);
        }
    }
    // The weights proper are there under their module paths.
    assert!(st.names().iter().any(|n| n.starts_with("stem.")));
    assert!(
        !st.names().iter().any(|n| n.starts_with("ownership")),
        "the ownership head is not exported"
    );
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn dimy_export_matches_burn() {
    check_variant(Position::start(Variant::Dimy, RuleOptions::default()), 300);
}

#[test]
fn tsivy_export_matches_burn() {
    check_variant(Position::start(Variant::Tsivy, RuleOptions::default()), 200);
}

#[test]
fn telo_export_matches_burn() {
    check_variant(TeloPosition::start(RuleOptions::default()), 100);
}

#[test]
fn only_the_formats_asked_for_are_written() {
    let root = scratch("formats");
    let planes = random_planes(Position::start(Variant::Dimy, RuleOptions::default()), 8, 1);
    let (ckpt, _) = trained_checkpoint(Variant::Dimy, &root, &planes);
    let out = root.join("st");
    let formats = Formats {
        onnx: false,
        safetensors: true,
    };
    let done = export::export(&ckpt, &Targets::folder(&out, formats), &Device::flex()).unwrap();
    assert_eq!(done.files.len(), 2);
    assert!(!out.join("model.onnx").exists());
    assert_eq!(done.description.files.onnx, None);
    // One ONNX file with its description beside it.
    let file = root.join("nets").join("dimy-3.onnx");
    let done = export::export(&ckpt, &Targets::onnx_file(&file), &Device::flex()).unwrap();
    assert_eq!(
        done.files,
        [file.clone(), root.join("nets").join("dimy-3.json")]
    );
    assert_eq!(done.description.files.onnx.as_deref(), Some("dimy-3.onnx"));
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn bad_checkpoints_are_refused_with_a_message() {
    let root = scratch("bad");
    let out = root.join("out");
    let device = Device::flex();
    // Missing.
    let e = export::export(
        &root.join("nowhere"),
        &Targets::folder(&out, Formats::ALL),
        &device,
    )
    .unwrap_err();
    assert!(
        matches!(e, ExportError::Checkpoint(CheckpointError::Io { .. })),
        "{e}"
    );
    assert!(e.to_string().contains("nowhere"), "{e}");
    // A folder with no checkpoint.
    let e = export::export(&root, &Targets::folder(&out, Formats::ALL), &device).unwrap_err();
    assert!(
        matches!(e, ExportError::Checkpoint(CheckpointError::NotFound(_))),
        "{e}"
    );
    // Damaged weights, then damaged metadata.
    let cfg = NetConfig::for_variant(Variant::Dimy)
        .with_blocks(1)
        .with_channels(8);
    let net: Net = cfg.init(&device);
    let dir = root.join("00001");
    let meta = CheckpointMeta::new(Variant::Dimy, &cfg, 1, 0, None);
    checkpoint::save(&dir, &net, None, &meta).unwrap();
    let model = std::fs::read(dir.join("model.bpk")).unwrap();
    std::fs::write(dir.join("model.bpk"), &model[..model.len() / 2]).unwrap();
    let e = export::export(&dir, &Targets::folder(&out, Formats::ALL), &device).unwrap_err();
    assert!(
        matches!(e, ExportError::Checkpoint(CheckpointError::Weights { .. })),
        "{e}"
    );
    assert!(e.to_string().contains("model.bpk"), "{e}");
    std::fs::write(dir.join("meta.json"), b"{\"format\": 1").unwrap();
    let e = export::export(&dir, &Targets::folder(&out, Formats::ALL), &device).unwrap_err();
    assert!(
        matches!(e, ExportError::Checkpoint(CheckpointError::Meta { .. })),
        "{e}"
    );
    // A format from a newer build: refused, saying so.
    let newer = serde_json::to_string(&meta).unwrap().replace(
        &format!("\"format\":{FORMAT}"),
        &format!("\"format\":{}", FORMAT + 1),
    );
    std::fs::write(dir.join("meta.json"), newer).unwrap();
    let e = export::export(&dir, &Targets::folder(&out, Formats::ALL), &device).unwrap_err();
    assert!(e.to_string().contains("newer build"), "{e}");
    assert!(!out.join("model.onnx").exists(), "nothing written");
    std::fs::remove_dir_all(&root).ok();
}

/// The CPU inference path (batch norm folded, one matrix product a convolution) gives
/// burn's outputs: the release networks (trained batch-norm statistics) and a fresh telo
/// network, single positions and batches across the path's chunks, on one thread and on
/// rayon's pool.
#[test]
fn cpu_path_gives_burns_outputs() {
    let device = Device::flex();
    let mut nets: Vec<(Variant, Net)> = [Variant::Tsivy, Variant::Dimy]
        .into_iter()
        .filter_map(|v| {
            let dir = checkpoint::release_dir(v).ok()?;
            Some((v, checkpoint::load(&dir, &device, Some(v), None).unwrap().0))
        })
        .collect();
    assert!(!nets.is_empty(), "a release network to compare on");
    nets.push((
        Variant::Telo,
        NetConfig::for_variant(Variant::Telo).init_seeded(&device, 3),
    ));
    for (v, net) in nets {
        let e = NetEvaluator::new(net.valid(), device.clone(), v, false, 0);
        let cpu = fanorona_nn::CpuNet::new(&net.valid(), v.height(), v.width());
        assert_eq!(cpu.actions(), num_actions(v));
        for n in [1, 13, 40] {
            let planes = match v {
                Variant::Telo => {
                    random_planes(TeloPosition::start(RuleOptions::default()), n, n as u64)
                }
                _ => random_planes(Position::start(v, RuleOptions::default()), n, n as u64),
            };
            let (bp, bw) = e.forward_burn(planes.clone(), n);
            for threads in [1, 2] {
                let (cp, cw) = cpu.forward(&planes, n, threads);
                assert_eq!((cp.len(), cw.len()), (bp.len(), bw.len()));
                let worst = cp
                    .iter()
                    .zip(&bp)
                    .chain(cw.iter().zip(&bw))
                    .map(|(a, b)| (a - b).abs() / (1.0 + b.abs()))
                    .fold(0.0f32, f32::max);
                assert!(worst < 1e-4, "{v} batch {n}, {threads} threads: {worst}");
            }
            // The evaluator takes the CPU path.
            let (ep, _) = e.forward_raw(planes.clone(), n);
            assert_eq!(ep, cpu.forward(&planes, n, 1).0);
        }
    }
}
