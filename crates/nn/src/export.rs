//! Export of a trained network for other front ends: an ONNX graph (burn-onnx), the raw
//! weights as safetensors (named as the ONNX initialisers), and `model.json`, which says
//! everything a front end needs to encode a position and read the outputs.
//!
//! ```text
//! <out>/
//!     model.onnx           input `planes` [batch, planes, height, width] f32;
//!                          outputs `policy_logits` [batch, actions], `wdl_logits` [batch, 3]
//!     model.safetensors    every initialiser of model.onnx, same names, shapes and values
//!     model.json           the description ([`ModelDescription`])
//! ```
//!
//! The ONNX file also carries `model.json` in its metadata (key `fanorona.model`), so
//! that the graph alone is enough.

use crate::checkpoint::{self, CheckpointError, CheckpointMeta, NetShape};
use crate::net::Net;
use burn::prelude::*;
use burn_onnx::export::{AxisSpec, InputSpec, OnnxExporter};
use fanorona_rules::{Direction, RuleOptions, Variant, num_actions};
use fanorona_sim::{plane_info, symmetries};
use protobuf::Message;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Version of the exported layout (`model.json`'s `format_version`).
pub const MODEL_FORMAT: u32 = 1;
/// Name of the ONNX input.
pub const INPUT: &str = "planes";
/// Name of the ONNX policy output.
pub const POLICY_OUTPUT: &str = "policy_logits";
/// Name of the ONNX value output.
pub const WDL_OUTPUT: &str = "wdl_logits";
/// Metadata key under which the ONNX file carries `model.json`.
pub const ONNX_METADATA_KEY: &str = "fanorona.model";

/// Which files to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Formats {
    /// `model.onnx`.
    pub onnx: bool,
    /// `model.safetensors`.
    pub safetensors: bool,
}

impl Formats {
    /// Both.
    pub const ALL: Formats = Formats {
        onnx: true,
        safetensors: true,
    };
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The checkpoint is missing or damaged.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// burn-onnx could not lower the network.
    #[error("ONNX export failed: {0}")]
    Onnx(String),
    /// The exported graph is not what this module expects (a bug, not bad input).
    #[error("exported ONNX graph: {0}")]
    Graph(String),
    /// The weights could not be written as safetensors.
    #[error("safetensors: {0}")]
    Safetensors(String),
    /// A file could not be written.
    #[error("`{path}`: {error}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

/// What [`export`] wrote.
#[derive(Debug)]
pub struct Exported {
    /// The checkpoint folder it read (a run folder resolves to its latest checkpoint).
    pub checkpoint: PathBuf,
    /// The checkpoint's metadata.
    pub meta: CheckpointMeta,
    /// The files written, `model.json` last.
    pub files: Vec<PathBuf>,
    /// The description written to `model.json`.
    pub description: ModelDescription,
}

/// Where [`export`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Targets {
    /// The ONNX file, if wanted.
    pub onnx: Option<PathBuf>,
    /// The safetensors file, if wanted.
    pub safetensors: Option<PathBuf>,
    /// The description (always written).
    pub json: PathBuf,
    /// Test vectors for front ends ([`ReferenceCase`]): the file and how many positions.
    pub reference: Option<(PathBuf, usize)>,
}

impl Targets {
    /// `model.onnx`, `model.safetensors` (as `formats` asks) and `model.json` in `dir`.
    pub fn folder(dir: &Path, formats: Formats) -> Targets {
        Targets {
            onnx: formats.onnx.then(|| dir.join("model.onnx")),
            safetensors: formats.safetensors.then(|| dir.join("model.safetensors")),
            json: dir.join("model.json"),
            reference: None,
        }
    }
    /// One ONNX file, with its description beside it (`net.onnx` and `net.json`).
    pub fn onnx_file(file: &Path) -> Targets {
        Targets {
            onnx: Some(file.to_path_buf()),
            safetensors: None,
            json: file.with_extension("json"),
            reference: None,
        }
    }
    /// Also `n` test vectors, beside the description (`reference.json` for a folder,
    /// `net.reference.json` for `net.onnx`); `n = 0` writes none.
    pub fn with_reference(mut self, n: usize) -> Targets {
        self.reference = (n > 0).then(|| {
            let name = match self.json.file_stem().and_then(|s| s.to_str()) {
                Some("model") | None => "reference.json".to_string(),
                Some(stem) => format!("{stem}.reference.json"),
            };
            (self.json.with_file_name(name), n)
        });
        self
    }
}

/// Exports a checkpoint (a checkpoint folder, or a run folder meaning its latest
/// checkpoint) to `targets` (folders are created; files of the same name are replaced,
/// each through a temporary file and a rename).
///
/// The network is loaded on `device` and traced on burn-onnx's capture device.
///
/// # Errors
/// A missing or damaged checkpoint; a file that cannot be written.
pub fn export(
    checkpoint: &Path,
    targets: &Targets,
    device: &Device,
) -> Result<Exported, ExportError> {
    let (net, meta, dir) = checkpoint::load(checkpoint, device, None, None)?;
    let variant: Variant = meta
        .variant
        .parse()
        .expect("checked when the meta was read");
    // The exporter leaves the module it traces unusable: the test vectors come first.
    let cases = targets
        .reference
        .as_ref()
        .map(|(_, n)| reference_cases(net.clone(), variant, *n, 1, device));
    let description = describe(&meta, targets);
    let onnx = onnx_model(net, &meta.net, device, Some(&description))?;
    let mut files = Vec::new();
    if let Some(path) = &targets.onnx {
        let bytes = onnx
            .write_to_bytes()
            .map_err(|e| ExportError::Graph(e.to_string()))?;
        files.push(write(path, &bytes)?);
    }
    if let Some(path) = &targets.safetensors {
        files.push(write(path, &safetensors_bytes(&onnx)?)?);
    }
    if let (Some((path, _)), Some(cases)) = (&targets.reference, cases) {
        let text = serde_json::to_string(&Reference {
            variant: variant.name().into(),
            cases,
        })
        .expect("test vectors serialise");
        files.push(write(path, text.as_bytes())?);
    }
    let json = serde_json::to_string_pretty(&description).expect("description serialises");
    files.push(write(&targets.json, json.as_bytes())?);
    Ok(Exported {
        checkpoint: dir,
        meta,
        files,
        description,
    })
}

/// Writes `path` through a temporary file and a rename, so that a failed export never
/// leaves a half-written file under the real name.
fn write(path: &Path, bytes: &[u8]) -> Result<PathBuf, ExportError> {
    fanorona_rules::durable::write_atomic(path, bytes).map_err(|error| ExportError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(path.to_path_buf())
}

/// The network as an ONNX model with a dynamic batch axis and the stable names
/// [`INPUT`], [`POLICY_OUTPUT`] and [`WDL_OUTPUT`] (without the ownership head, which
/// only training uses). `net` is consumed: burn-onnx's
/// capture leaves the module it traced unusable.
///
/// # Errors
/// burn-onnx cannot lower the network, or its graph is not the expected one.
pub fn onnx_model(
    net: Net,
    shape: &NetShape,
    device: &Device,
    description: Option<&ModelDescription>,
) -> Result<onnx_ir::ModelProto, ExportError> {
    // burn-onnx writes every parameter of the module: the head only training uses goes.
    let net = net.without_ownership();
    let sample =
        |batch: usize| Tensor::<4>::zeros([batch, shape.planes, shape.height, shape.width], device);
    let spec = InputSpec::new([
        AxisSpec::dynamic("batch"),
        AxisSpec::Static,
        AxisSpec::Static,
        AxisSpec::Static,
    ]);
    let model = OnnxExporter::new()
        .export_dynamic(&net, sample(1), sample(2), &[spec], |m: &Net, x| {
            m.forward(x)
        })
        .map_err(|e| ExportError::Onnx(e.to_string()))?;
    let mut proto = onnx_ir::ModelProto::parse_from_bytes(model.as_bytes())
        .map_err(|e| ExportError::Graph(e.to_string()))?;
    name_boundaries(&mut proto)?;
    proto.producer_name = "fanorona".into();
    proto.producer_version = env!("CARGO_PKG_VERSION").into();
    if let Some(d) = description {
        proto.metadata_props.push(Default::default());
        let entry = proto.metadata_props.last_mut().expect("just pushed");
        entry.key = ONNX_METADATA_KEY.into();
        entry.value = serde_json::to_string(d).expect("description serialises");
        proto.doc_string = format!(
            "Fanorona ({}) policy/value network; see the `{ONNX_METADATA_KEY}` metadata",
            d.variant
        );
    }
    Ok(proto)
}

/// Renames the graph's input and outputs (generated names such as `tensor_226`) to the
/// stable ones, everywhere they are referenced.
fn name_boundaries(proto: &mut onnx_ir::ModelProto) -> Result<(), ExportError> {
    let graph = proto
        .graph
        .as_mut()
        .ok_or_else(|| ExportError::Graph("no graph".into()))?;
    let initialisers: std::collections::HashSet<String> =
        graph.initializer.iter().map(|t| t.name.clone()).collect();
    let inputs: Vec<usize> = (0..graph.input.len())
        .filter(|&i| !initialisers.contains(&graph.input[i].name))
        .collect();
    if inputs.len() != 1 || graph.output.len() != 2 {
        return Err(ExportError::Graph(format!(
            "expected 1 input and 2 outputs, found {} and {}",
            inputs.len(),
            graph.output.len()
        )));
    }
    let mut rename: HashMap<String, String> = HashMap::new();
    rename.insert(graph.input[inputs[0]].name.clone(), INPUT.into());
    rename.insert(graph.output[0].name.clone(), POLICY_OUTPUT.into());
    rename.insert(graph.output[1].name.clone(), WDL_OUTPUT.into());
    let fix = |name: &mut String| {
        if let Some(n) = rename.get(name.as_str()) {
            *name = n.clone();
        }
    };
    for v in graph
        .input
        .iter_mut()
        .chain(graph.output.iter_mut())
        .chain(graph.value_info.iter_mut())
    {
        fix(&mut v.name);
    }
    for node in graph.node.iter_mut() {
        node.input.iter_mut().for_each(fix);
        node.output.iter_mut().for_each(fix);
    }
    Ok(())
}

/// The float initialisers of an ONNX model (the network's weights and batch-norm
/// statistics, named by module path: `stem.conv.weight`, `blocks.0.a.bn.running_mean`,
/// ...) as a safetensors file, under the same names. Integer initialisers (the shapes
/// the graph's reshapes use) are left out: they are part of the graph, not weights.
///
/// # Errors
/// An initialiser of a type safetensors cannot hold.
pub fn safetensors_bytes(proto: &onnx_ir::ModelProto) -> Result<Vec<u8>, ExportError> {
    let graph = proto
        .graph
        .as_ref()
        .ok_or_else(|| ExportError::Graph("no graph".into()))?;
    let mut tensors: Vec<(String, safetensors::Dtype, Vec<usize>, Vec<u8>)> = Vec::new();
    for t in &graph.initializer {
        let shape: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
        let count: usize = shape.iter().product();
        let (dtype, size) = match t.data_type {
            1 => (safetensors::Dtype::F32, 4),
            6 | 7 => continue,
            other => {
                return Err(ExportError::Safetensors(format!(
                    "initialiser `{}` has ONNX data type {other}",
                    t.name
                )));
            }
        };
        let bytes: Vec<u8> = if t.raw_data.is_empty() {
            t.float_data.iter().flat_map(|x| x.to_le_bytes()).collect()
        } else {
            t.raw_data.to_vec()
        };
        if bytes.len() != count * size {
            return Err(ExportError::Safetensors(format!(
                "initialiser `{}`: {} bytes for shape {shape:?}",
                t.name,
                bytes.len()
            )));
        }
        tensors.push((t.name.clone(), dtype, shape, bytes));
    }
    let views = tensors
        .iter()
        .map(|(name, dtype, shape, bytes)| {
            safetensors::tensor::TensorView::new(*dtype, shape.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| ExportError::Safetensors(format!("`{name}`: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let metadata = HashMap::from([("format".to_string(), "fanorona".to_string())]);
    safetensors::tensor::serialize(views, Some(metadata))
        .map_err(|e| ExportError::Safetensors(e.to_string()))
}

/// Test vectors: positions with what this project computes for them, so that a front
/// end can check its encoder, its runtime and its masking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The variant.
    pub variant: String,
    /// The positions.
    pub cases: Vec<ReferenceCase>,
}

/// One test vector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceCase {
    /// The position (at the start of a turn, so that the FEN says everything; default
    /// rules).
    pub fen: String,
    /// Its observation, `[planes, height, width]` flattened, in the mover's frame.
    pub planes: Vec<f32>,
    /// The legal action indices, in the mover's frame, ascending.
    pub legal: Vec<usize>,
    /// The network's policy logits (burn, on the exporting machine's backend).
    pub policy_logits: Vec<f32>,
    /// The network's WDL logits.
    pub wdl_logits: Vec<f32>,
}

/// `n` test vectors from random games of `variant` (seeded), with `net`'s outputs.
pub fn reference_cases(
    net: Net,
    variant: Variant,
    n: usize,
    seed: u64,
    device: &Device,
) -> Vec<ReferenceCase> {
    let rules = RuleOptions::default();
    let mut cases = match variant {
        Variant::Telo => sample_positions(
            fanorona_rules::telo::TeloPosition::start(rules),
            n,
            seed,
            |p| p.fen(),
            |f| fanorona_rules::telo::TeloPosition::from_fen(f, rules).ok(),
        ),
        v => sample_positions(
            fanorona_rules::Position::start(v, rules),
            n,
            seed,
            |p| p.fen(),
            |f| fanorona_rules::Position::from_fen(f, rules).ok(),
        ),
    };
    let planes: Vec<f32> = cases
        .iter()
        .flat_map(|c| c.planes.iter().copied())
        .collect();
    let eval = crate::NetEvaluator::new(net, device.clone(), variant, false, 0);
    let (policy, wdl) = eval.forward_raw(planes, cases.len());
    let actions = num_actions(variant);
    for (i, c) in cases.iter_mut().enumerate() {
        c.policy_logits = policy[i * actions..(i + 1) * actions].to_vec();
        c.wdl_logits = wdl[i * 3..(i + 1) * 3].to_vec();
    }
    cases
}

/// Positions met in random games from `start` (restarted when one ends), kept only at
/// the start of a turn: where the FEN read back gives the same observation and moves.
fn sample_positions<G: fanorona_sim::Encode>(
    start: G,
    n: usize,
    seed: u64,
    fen: impl Fn(&G) -> String,
    read: impl Fn(&str) -> Option<G>,
) -> Vec<ReferenceCase> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let size = fanorona_sim::num_planes(start.variant()) * start.variant().points();
    let observe = |g: &G| {
        let mut planes = vec![0.0; size];
        g.encode(&mut planes);
        let mut legal = Vec::new();
        g.for_each_legal_in_frame(|a| legal.push(a));
        legal.sort_unstable();
        (planes, legal)
    };
    let mut out = Vec::with_capacity(n);
    let mut g = start.clone();
    let mut actions = Vec::new();
    while out.len() < n {
        g.legal_actions(&mut actions);
        if actions.is_empty() {
            g = start.clone();
            continue;
        }
        let text = fen(&g);
        let (planes, legal) = observe(&g);
        let same = |r: G| {
            let (p, l) = observe(&r);
            p == planes && l == legal
        };
        if read(&text).is_some_and(same) {
            out.push(ReferenceCase {
                fen: text,
                planes,
                legal,
                policy_logits: Vec::new(),
                wdl_logits: Vec::new(),
            });
        }
        g.apply(actions[rng.random_range(0..actions.len())]);
    }
    out
}

/// `model.json`: everything a front end needs besides the rules themselves.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelDescription {
    /// Always `fanorona-model`.
    pub format: String,
    /// [`MODEL_FORMAT`].
    pub format_version: u32,
    /// `tsivy`, `dimy` or `telo`.
    pub variant: String,
    /// The board and how points are numbered.
    pub board: Board,
    /// The files beside this one (names only).
    pub files: Files,
    /// The ONNX input.
    pub input: TensorSpec,
    /// The ONNX outputs: policy logits, then WDL logits.
    pub outputs: Vec<TensorSpec>,
    /// How the board is turned for the player to move.
    pub frame: String,
    /// The observation planes, in order.
    pub planes: Vec<Plane>,
    /// How a policy index maps to a move.
    pub actions: Actions,
    /// How to read the value head.
    pub value: Value,
    /// The board's symmetries (for averaging over them or augmenting data).
    pub symmetries: Vec<SymmetryTable>,
    /// The network's shape.
    pub net: NetShape,
    /// How the weights in the safetensors file are laid out and used.
    pub weights: Weights,
    /// The checkpoint it came from.
    pub source: Source,
}

/// The board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Board {
    /// Columns (`a`.. from the left).
    pub width: usize,
    /// Rows (`1`.. from the bottom, White's side).
    pub height: usize,
    /// `width * height`.
    pub points: usize,
    /// How a point is numbered.
    pub point_index: String,
    /// Which points have diagonal lines.
    pub diagonals: String,
}

/// File names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Files {
    /// The ONNX graph, if exported.
    pub onnx: Option<String>,
    /// The safetensors weights, if exported.
    pub safetensors: Option<String>,
}

/// A named tensor with its shape (`"batch"` for the dynamic axis).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorSpec {
    /// Its name in the ONNX graph.
    pub name: String,
    /// Its shape; the batch axis is the string `batch`.
    pub shape: Vec<serde_json::Value>,
    /// Element type.
    pub dtype: String,
    /// What it holds.
    pub meaning: String,
}

/// One observation plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plane {
    /// Index in the input's second axis.
    pub index: usize,
    /// Short name.
    pub name: String,
    /// What it holds.
    pub meaning: String,
}

/// The action space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Actions {
    /// Size of the policy output.
    pub count: usize,
    /// The index formula, in words.
    pub encoding: String,
    /// The eight directions in index order, with `(dx, dy)` (`dy = 1` towards row 5).
    pub directions: Vec<DirectionSpec>,
    /// The step kinds in index order (Fanorona variants; empty for telo).
    pub kinds: Vec<String>,
    /// The index of `end turn` (stop a capture chain), if the variant has one.
    pub end_turn: Option<usize>,
    /// How to turn an index into a move of the real board.
    pub legality: String,
}

/// A direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DirectionSpec {
    /// Its index.
    pub index: usize,
    /// `N`, `NE`, ...
    pub name: String,
    /// Column change.
    pub dx: i32,
    /// Row change (`+1` towards the top row).
    pub dy: i32,
}

/// The value head.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Value {
    /// `["win", "draw", "loss"]`.
    pub order: Vec<String>,
    /// From whose side.
    pub perspective: String,
    /// How to get probabilities and a scalar.
    pub reading: String,
}

/// One symmetry as permutation tables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SymmetryTable {
    /// Its name.
    pub name: String,
    /// Image of each point (`points[p]`).
    pub points: Vec<usize>,
    /// Image of each direction.
    pub directions: Vec<usize>,
}

/// The weights, for front ends that rebuild the network from the safetensors file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// The forward pass, layer by layer, with the tensor names.
    pub architecture: String,
    /// Tensor layouts.
    pub layout: String,
}

/// Where the network came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// The training run, if known.
    pub run: Option<String>,
    /// Training generation.
    pub generation: u64,
    /// Optimizer steps.
    pub step: u64,
    /// The quiet limit the `quiet` plane is divided by (the rules' default).
    pub quiet_limit: u16,
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// The description of a checkpoint's network, as written to `model.json`.
pub fn describe(meta: &CheckpointMeta, targets: &Targets) -> ModelDescription {
    let variant: Variant = meta
        .variant
        .parse()
        .expect("checked when the meta was read");
    let (w, h, n) = (variant.width(), variant.height(), variant.points());
    let telo = variant == Variant::Telo;
    let batch = serde_json::Value::from("batch");
    let rules = RuleOptions::default();
    let directions = Direction::ALL
        .iter()
        .map(|d| DirectionSpec {
            index: d.index(),
            name: format!("{d:?}"),
            dx: d.delta().0,
            dy: d.delta().1,
        })
        .collect();
    let actions = if telo {
        Actions {
            count: num_actions(variant),
            encoding: "index < 9: place a piece on point `index` (placing phase); \
                       index >= 9: index = 9 + origin * 8 + direction, move the piece on \
                       `origin` one point in `direction` (moving phase)"
                .into(),
            directions,
            kinds: Vec::new(),
            end_turn: None,
            legality: "indices are in the mover's frame (see `frame`); only the moves the \
                       rules allow are legal: set every other logit to -infinity before \
                       the softmax"
                .into(),
        }
    } else {
        Actions {
            count: num_actions(variant),
            encoding: format!(
                "index = (origin * 8 + direction) * 3 + kind for one step of a piece from \
                 `origin` to the neighbouring point in `direction`; index {} = end turn \
                 (stop a capture chain). A turn is played step by step: a capture chain is \
                 one action per capture, by the same piece, until end turn or no capture \
                 remains",
                n * 24
            ),
            directions,
            kinds: ["paika", "approach", "withdrawal"].map(String::from).into(),
            end_turn: Some(n * 24),
            legality: "indices are in the mover's frame (see `frame`); only the steps the \
                       rules allow now are legal (mandatory capture, chain rules): set every \
                       other logit to -infinity before the softmax"
                .into(),
        }
    };
    ModelDescription {
        format: "fanorona-model".into(),
        format_version: MODEL_FORMAT,
        variant: variant.name().into(),
        board: Board {
            width: w,
            height: h,
            points: n,
            point_index: "p = y * width + x, x = 0 the left column (a), y = 0 the bottom \
                          row (1), where White starts"
                .into(),
            diagonals: if telo {
                "every point: lines run along rows, columns and both long diagonals".into()
            } else {
                "points with x + y even have diagonal lines".into()
            },
        },
        files: Files {
            onnx: targets.onnx.as_deref().map(file_name),
            safetensors: targets.safetensors.as_deref().map(file_name),
        },
        input: TensorSpec {
            name: INPUT.into(),
            shape: vec![batch.clone(), meta.net.planes.into(), h.into(), w.into()],
            dtype: "float32".into(),
            meaning: "observation planes [batch, plane, y, x] in the mover's frame".into(),
        },
        outputs: vec![
            TensorSpec {
                name: POLICY_OUTPUT.into(),
                shape: vec![batch.clone(), meta.net.actions.into()],
                dtype: "float32".into(),
                meaning: "policy logits over the action indices, in the mover's frame".into(),
            },
            TensorSpec {
                name: WDL_OUTPUT.into(),
                shape: vec![batch, 3.into()],
                dtype: "float32".into(),
                meaning: "value logits (win, draw, loss) for the player to move".into(),
            },
        ],
        frame: "the network sees the board from the player to move: for White as it is, \
                for Black turned 180 degrees (point p becomes points - 1 - p, each \
                direction its opposite, index + 4 mod 8). Turn the planes before running \
                the model and turn the policy's moves back (the map is its own inverse)"
            .into(),
        planes: plane_info(variant)
            .iter()
            .enumerate()
            .map(|(index, (name, meaning))| Plane {
                index,
                name: (*name).into(),
                meaning: (*meaning).into(),
            })
            .collect(),
        actions,
        value: Value {
            order: ["win", "draw", "loss"].map(String::from).into(),
            perspective: "the player to move".into(),
            reading: "softmax of wdl_logits gives the probabilities; win - loss is a \
                      scalar value in [-1, 1]"
                .into(),
        },
        symmetries: symmetries(variant)
            .iter()
            .map(|s| SymmetryTable {
                name: s.name().into(),
                points: (0..n)
                    .map(|p| s.point(fanorona_rules::Point(p as u8)).index())
                    .collect(),
                directions: Direction::ALL.iter().map(|&d| s.dir(d).index()).collect(),
            })
            .collect(),
        // The exported network: the ownership head, if the checkpoint has one, stays out.
        net: NetShape {
            ownership: false,
            ..meta.net
        },
        weights: Weights {
            architecture: "x = relu(bn(conv3x3(planes))) [stem]; for each block i: \
                           y = relu(bn(conv3x3(x))) [blocks.i.a], \
                           x = relu(x + bn(conv3x3(y))) [blocks.i.b]; \
                           policy_logits = linear(flatten(relu(bn(conv1x1(x))) [policy_conv])) \
                           [policy_fc]; wdl_logits = linear(relu(linear(flatten(relu(bn(\
                           conv1x1(x))) [value_conv])) [value_fc1])) [value_fc2]. \
                           Convolutions have no bias and `same` padding; flatten is over \
                           (channel, y, x) in that order"
                .into(),
            layout: "conv weight [out, in, kh, kw]; linear weight [in, out] with \
                     y = x . weight + bias (the transpose of PyTorch's); batch norm \
                     y = gamma * (x - running_mean) / sqrt(running_var + 1e-5) + beta"
                .into(),
        },
        source: Source {
            run: meta.run.clone(),
            generation: meta.generation,
            step: meta.step,
            quiet_limit: if telo {
                rules.telo_quiet_limit()
            } else {
                rules.fanorona_quiet_limit()
            },
        },
    }
}
