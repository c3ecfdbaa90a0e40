//! The Python module `fanorona._fanorona`, re-exported by the package `fanorona`
//! (`crates/python/python/fanorona`): the rules ([`Game`], [`perft`]), the batched
//! simulator ([`VecEnv`]), engines ([`Engine`]) and networks ([`Net`]).
//!
//! Observations and actions are those of the simulator and of exported ONNX models: planes
//! `C x H x W` and action indices in the frame of the player to move (the board turned for
//! Black), so that a network trained in Python and the project's own tools read the same
//! tensors.

use fanorona_nn::NetEvaluator;
use fanorona_nn::burn::prelude::Device;
use fanorona_nn::checkpoint;
use fanorona_nn::spec::EngineSpec;
use fanorona_nn::spec::Nets;
use fanorona_rules::game::Game as _;
use fanorona_rules::notation::{format_turn, parse_turn};
use fanorona_rules::telo::TeloPosition;
use fanorona_rules::{
    AnyPosition, Color, History, Outcome, PointStyle, Position, RuleOptions, TurnMode, Variant,
    num_actions, quote,
};
use fanorona_search::{Player, analyse};
use fanorona_sim::{BatchSim, Encode, frame_action, num_planes};
use ndarray::{Array1, Array2, Array3, Array4};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArray3, PyArray4, PyReadonlyArray4};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use std::collections::HashMap;
use std::sync::Mutex;

fn bad(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// A variant from its name.
fn variant_of(name: &str) -> PyResult<Variant> {
    name.parse().map_err(|_| {
        bad(format!(
            "variant {}: expected tsivy, dimy or telo",
            quote(name)
        ))
    })
}

/// Rule options from a dict such as `{"vela": "black", "vela_form": "kely"}`.
fn rules_of(rules: Option<&Bound<'_, PyDict>>) -> PyResult<RuleOptions> {
    let mut r = RuleOptions::default();
    let Some(d) = rules else {
        return Ok(r);
    };
    for (k, v) in d.iter() {
        let key: String = k.extract().map_err(|_| {
            bad(format!(
                "rules: the key {} is not a string",
                quote(&k.to_string())
            ))
        })?;
        let value = if v.is_instance_of::<PyBool>() {
            if v.extract::<bool>()? {
                "true"
            } else {
                "false"
            }
            .to_string()
        } else {
            v.str()?.to_string()
        };
        r.set(&key, &value)
            .map_err(|e| bad(format!("rules: {e}")))?;
    }
    Ok(r)
}

/// The position of `variant` (default tsivy) or of `fen` (its variant checked against
/// `variant` when both are given).
fn position_of(
    variant: Option<&str>,
    fen: Option<&str>,
    rules: RuleOptions,
) -> PyResult<AnyPosition> {
    let want = variant.map(variant_of).transpose()?;
    match fen {
        None => Ok(AnyPosition::start(want.unwrap_or(Variant::Tsivy), rules)),
        Some(f) => {
            let p = AnyPosition::from_fen(f, rules).map_err(|e| bad(e.to_string()))?;
            if let Some(w) = want
                && w != p.variant()
            {
                return Err(bad(format!(
                    "variant {w} does not match the FEN {}, a {} board",
                    quote(f),
                    p.variant()
                )));
            }
            Ok(p)
        }
    }
}

/// Runs `$e` with `$g` bound to the game of either kind of position.
macro_rules! with_game {
    ($pos:expr, $g:ident => $e:expr) => {
        match $pos {
            AnyPosition::Fanorona($g) => $e,
            AnyPosition::Telo($g) => $e,
        }
    };
}

fn outcome_name(o: Option<Outcome>) -> &'static str {
    o.map_or("ongoing", Outcome::name)
}

/// One game of any variant, with whole-turn and step-level moves.
///
/// `Game(variant="tsivy", fen=None, rules=None)`. Step-level action ids, masks and
/// observations are in the frame of the player to move (as `VecEnv`'s and the ONNX
/// model's); `turns()` and `play()` use the notation of `fanorona turns`.
#[pyclass(module = "fanorona", name = "Game")]
#[derive(Clone)]
struct PyGame {
    pos: AnyPosition,
}

impl PyGame {
    fn mover(&self) -> Color {
        with_game!(&self.pos, g => g.to_move())
    }
    fn legal(&self) -> Vec<usize> {
        let mut v = Vec::new();
        with_game!(&self.pos, g => g.for_each_legal_in_frame(|a| v.push(a)));
        v.sort_unstable();
        v
    }
    fn fanorona_turn_start(&self) -> PyResult<Option<&Position>> {
        match &self.pos {
            AnyPosition::Fanorona(p) if p.chain().is_some() => Err(bad(format!(
                "`{}` is in the middle of a capture chain: finish it with actions() and step()",
                p.fen()
            ))),
            AnyPosition::Fanorona(p) => Ok(Some(p)),
            AnyPosition::Telo(_) => Ok(None),
        }
    }
}

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (variant=None, fen=None, rules=None))]
    fn new(
        variant: Option<&str>,
        fen: Option<&str>,
        rules: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        Ok(PyGame {
            pos: position_of(variant, fen, rules_of(rules)?)?,
        })
    }
    /// `"tsivy"`, `"dimy"` or `"telo"`.
    #[getter]
    fn variant(&self) -> &'static str {
        self.pos.variant().name()
    }
    /// Size of the action space (1081 tsivy, 601 dimy, 81 telo).
    #[getter]
    fn num_actions(&self) -> usize {
        num_actions(self.pos.variant())
    }
    /// `(C, H, W)` of `observation()`.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let v = self.pos.variant();
        (num_planes(v), v.height(), v.width())
    }
    /// The position in FEN.
    fn fen(&self) -> String {
        self.pos.fen()
    }
    /// The player who decides now: `"white"` or `"black"`.
    fn side(&self) -> &'static str {
        self.mover().name()
    }
    /// The legal whole turns in notation (at the start of a turn).
    fn turns(&self) -> PyResult<Vec<String>> {
        Ok(match self.fanorona_turn_start()? {
            Some(p) => p
                .turns(TurnMode::Distinct)
                .iter()
                .map(|t| format_turn(p, t, PointStyle::Algebraic))
                .collect(),
            None => match &self.pos {
                AnyPosition::Telo(t) => t.moves().into_iter().map(|m| t.format_move(m)).collect(),
                AnyPosition::Fanorona(_) => unreachable!(),
            },
        })
    }
    /// Plays a whole turn in notation (`"d2d3"`, `"e2e3-f3-g3"`...).
    fn play(&mut self, turn: &str) -> PyResult<()> {
        let fen = self.pos.fen();
        let illegal = |e: String| bad(format!("turn {} in `{fen}`: {e}", quote(turn)));
        if self.fanorona_turn_start()?.is_some() {
            let AnyPosition::Fanorona(p) = &mut self.pos else {
                unreachable!()
            };
            let t = parse_turn(p, turn).map_err(|e| illegal(e.problem()))?;
            p.play(&t).map_err(|e| illegal(e.to_string()))
        } else {
            let AnyPosition::Telo(p) = &mut self.pos else {
                unreachable!()
            };
            let m = p.parse_move(turn).map_err(|e| illegal(e.problem()))?;
            p.play(m).map_err(|e| illegal(e.to_string()))
        }
    }
    /// The legal step-level action ids (mover's frame), ascending.
    fn actions(&self) -> Vec<usize> {
        self.legal()
    }
    /// Plays one step-level action (mover's frame).
    fn step(&mut self, action: usize) -> PyResult<()> {
        if !self.legal().contains(&action) {
            return Err(bad(format!(
                "action {action} is not legal in `{}` (result {})",
                self.pos.fen(),
                self.result()
            )));
        }
        let (v, mover) = (self.pos.variant(), self.mover());
        with_game!(&mut self.pos, g => g.apply(frame_action(v, mover, action)));
        Ok(())
    }
    /// An action id (mover's frame) written for people: `d3e3(-)`, `end`, a telo move.
    fn action_name(&self, action: usize) -> PyResult<String> {
        let (v, mover) = (self.pos.variant(), self.mover());
        if action >= num_actions(v) {
            return Err(bad(format!(
                "action {action}: the {v} action space has {} actions",
                num_actions(v)
            )));
        }
        Ok(with_game!(&self.pos, g => g.action_name(frame_action(v, mover, action))))
    }
    /// `"ongoing"`, `"white"`, `"black"` or `"draw"`.
    fn result(&self) -> &'static str {
        outcome_name(with_game!(&self.pos, g => g.outcome()))
    }
    /// An independent copy.
    fn copy(&self) -> Self {
        self.clone()
    }
    fn __copy__(&self) -> Self {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }
    /// The observation planes, float32 `(C, H, W)`, in the mover's frame.
    fn observation<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<f32>> {
        let (c, h, w) = self.observation_shape();
        let mut out = vec![0.0; c * h * w];
        with_game!(&self.pos, g => g.encode(&mut out));
        Array3::from_shape_vec((c, h, w), out)
            .expect("the shape of the planes")
            .into_pyarray(py)
    }
    /// The legal-action mask, bool `(num_actions,)`, in the mover's frame.
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut m = Array1::from_elem(self.num_actions(), false);
        for a in self.legal() {
            m[a] = true;
        }
        m.into_pyarray(py)
    }
    fn __repr__(&self) -> String {
        format!("Game(fen='{}')", self.pos.fen())
    }
    fn __str__(&self) -> String {
        match &self.pos {
            AnyPosition::Fanorona(p) => p.to_string(),
            AnyPosition::Telo(p) => p.fen(),
        }
    }
}

/// Leaf positions `depth` whole turns ahead of a FEN or of a variant's start.
#[pyfunction]
#[pyo3(signature = (fen_or_variant, depth, rules=None))]
fn perft(
    py: Python<'_>,
    fen_or_variant: &str,
    depth: u32,
    rules: Option<&Bound<'_, PyDict>>,
) -> PyResult<u64> {
    let rules = rules_of(rules)?;
    let pos = match fen_or_variant.parse::<Variant>() {
        Ok(v) => AnyPosition::start(v, rules),
        Err(_) => position_of(None, Some(fen_or_variant), rules)?,
    };
    Ok(py.detach(|| pos.perft(depth)))
}

/// Size of the action space of a variant.
#[pyfunction(name = "num_actions")]
fn py_num_actions(variant: &str) -> PyResult<usize> {
    Ok(num_actions(variant_of(variant)?))
}

/// `(C, H, W)` of a variant's observations.
#[pyfunction]
fn observation_shape(variant: &str) -> PyResult<(usize, usize, usize)> {
    let v = variant_of(variant)?;
    Ok((num_planes(v), v.height(), v.width()))
}

enum Batch {
    Fanorona(BatchSim<Position>),
    Telo(BatchSim<TeloPosition>),
}

macro_rules! with_sim {
    ($b:expr, $s:ident => $e:expr) => {
        match $b {
            Batch::Fanorona($s) => $e,
            Batch::Telo($s) => $e,
        }
    };
}

/// Many games stepped together in Rust (parallel, the GIL released), as numpy arrays.
///
/// `VecEnv(variant, num_envs, seed=0, rules=None)`. Finished games restart at once: the
/// observation after a finishing step is the new game's first.
#[pyclass(module = "fanorona", name = "VecEnv")]
struct VecEnv {
    sim: Batch,
    obs: Array4<f32>,
    mask: Array2<bool>,
    seed: u64,
}

impl VecEnv {
    fn arrays<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray4<f32>>, Bound<'py, PyArray2<bool>>) {
        (
            PyArray4::from_array(py, &self.obs),
            PyArray2::from_array(py, &self.mask),
        )
    }
}

/// Integer actions from any integer array or sequence.
fn actions_of(a: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    // numpy's own conversion (no copy for an int64 array): lists and other integer dtypes.
    fn bad_input<E>(_: E) -> PyErr {
        bad("actions: expected a 1-D array or sequence of integers")
    }
    let arr = a
        .py()
        .import("numpy")?
        .call_method1("asarray", (a, "int64"))
        .map_err(bad_input)?;
    let arr = arr
        .extract::<numpy::PyReadonlyArray1<'_, i64>>()
        .map_err(bad_input)?;
    arr.as_array()
        .iter()
        .map(|&x| usize::try_from(x).map_err(|_| bad(format!("action {x} is negative"))))
        .collect()
}

#[pymethods]
impl VecEnv {
    #[new]
    #[pyo3(signature = (variant, num_envs, seed=0, rules=None))]
    fn new(
        variant: &str,
        num_envs: usize,
        seed: u64,
        rules: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        if num_envs == 0 {
            return Err(bad("num_envs must be at least 1"));
        }
        let start = AnyPosition::start(variant_of(variant)?, rules_of(rules)?);
        let mut sim = match start {
            AnyPosition::Fanorona(p) => Batch::Fanorona(BatchSim::new(p, num_envs, seed)),
            AnyPosition::Telo(p) => Batch::Telo(BatchSim::new(p, num_envs, seed)),
        };
        let (mut obs, mut mask) = with_sim!(&sim, s => s.buffers());
        with_sim!(&mut sim, s => {
            s.set_auto_reset(true);
            s.observe(&mut obs, &mut mask);
        });
        Ok(VecEnv {
            sim,
            obs,
            mask,
            seed,
        })
    }
    /// Games in the batch.
    #[getter]
    fn num_envs(&self) -> usize {
        self.mask.nrows()
    }
    /// Size of the action space.
    #[getter]
    fn num_actions(&self) -> usize {
        self.mask.ncols()
    }
    /// `(C, H, W)` of one observation.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let s = self.obs.shape();
        (s[1], s[2], s[3])
    }
    /// Every game back to the start; returns `(obs, mask)`.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<u64>,
    ) -> (Bound<'py, PyArray4<f32>>, Bound<'py, PyArray2<bool>>) {
        if let Some(s) = seed {
            self.seed = s;
        }
        let seed = self.seed;
        let VecEnv { sim, obs, mask, .. } = self;
        py.detach(|| {
            with_sim!(sim, s => {
                s.reset(seed);
                s.observe(obs, mask);
            })
        });
        self.arrays(py)
    }
    /// One action per game (mover's frame, legal in the last mask); returns `(obs, mask,
    /// reward, terminated, truncated)`: reward +1 or -1 to the player who made a game's
    /// last move as it won or lost, 0 otherwise; truncated is always false (the quiet
    /// limit is a rule, so a drawn game is terminated).
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyArray4<f32>>,
        Bound<'py, PyArray2<bool>>,
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        let actions = actions_of(actions)?;
        let n = self.num_envs();
        let VecEnv { sim, obs, mask, .. } = self;
        let (reward, terminated) = py
            .detach(|| {
                with_sim!(sim, s => {
                    let movers: Vec<Color> = s.games().map(|g| g.to_move()).collect();
                    let results = s.step(&actions).map_err(|e| e.to_string())?;
                    let mut reward = Array1::zeros(n);
                    let mut terminated = Array1::from_elem(n, false);
                    for (i, r) in results.iter().enumerate() {
                        if let Some(o) = r.outcome {
                            terminated[i] = true;
                            reward[i] = match o {
                                Outcome::Win(c) if c == movers[i] => 1.0,
                                Outcome::Win(_) => -1.0,
                                Outcome::Draw => 0.0,
                            };
                        }
                    }
                    s.observe(obs, mask);
                    Ok::<_, String>((reward, terminated))
                })
            })
            .map_err(|e| bad(format!("step: {e}")))?;
        let (o, m) = self.arrays(py);
        Ok((
            o,
            m,
            reward.into_pyarray(py),
            terminated.into_pyarray(py),
            Array1::from_elem(n, false).into_pyarray(py),
        ))
    }
    /// A uniformly random legal action per game (from the last mask), drawn in Rust.
    fn sample_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let mut a = vec![0usize; self.num_envs()];
        with_sim!(&mut self.sim, s => s.sample_random(&mut a));
        Array1::from_iter(a.into_iter().map(|x| x as i64)).into_pyarray(py)
    }
    /// Every game's position in FEN.
    fn fens(&self) -> Vec<String> {
        with_sim!(&self.sim, s => s.games().map(|g| g.fen()).collect())
    }
    fn __repr__(&self) -> String {
        format!(
            "VecEnv('{}', num_envs={})",
            with_sim!(&self.sim, s => s.variant()).name(),
            self.num_envs()
        )
    }
}

/// A player of `fanorona play`/`arena` specs: `"ab:time=100ms"`, `"ab:depth=6"`,
/// `"mcts:sims=400"` (the release network), `"mcts:ckpt=DIR,sims=400"`, `"random"`.
/// Telo positions are answered by the exact solver (or by a telo network's `mcts` spec).
#[pyclass(module = "fanorona", name = "Engine")]
struct Engine {
    spec: EngineSpec,
    text: String,
    rules: RuleOptions,
    players: Mutex<HashMap<Variant, Box<dyn Player>>>,
}

impl Engine {
    fn analysis(&self, py: Python<'_>, fen: &str) -> PyResult<fanorona_search::Analysis> {
        let pos = match position_of(None, Some(fen), self.rules)? {
            AnyPosition::Fanorona(p) => p,
            AnyPosition::Telo(t) => {
                // Telo is solved exactly (or searched by a telo network's `mcts` spec).
                return py
                    .detach(|| self.spec.analyse_telo(&t, &Nets::on(&Device::default())))
                    .map_err(|e| bad(format!("engine {}: {e}", quote(&self.text))));
            }
        };
        let v = pos.variant();
        py.detach(|| {
            let mut players = self.players.lock().unwrap_or_else(|e| e.into_inner());
            let player = match players.entry(v) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(
                    self.spec
                        .player(&self.text, v, &Nets::on(&Device::default()))
                        .map_err(|e| e.to_string())?,
                ),
            };
            Ok(analyse(player.as_mut(), &History::new(pos)))
        })
        .map_err(|e: String| bad(format!("engine {}: {e}", quote(&self.text))))
    }
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (spec=fanorona_nn::spec::DEFAULT_PLAYER, rules=None))]
    fn new(spec: &str, rules: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let parsed = EngineSpec::parse_interactive(spec).map_err(|e| bad(e.to_string()))?;
        Ok(Engine {
            spec: parsed,
            text: spec.to_string(),
            rules: rules_of(rules)?,
            players: Mutex::new(HashMap::new()),
        })
    }
    /// The spec it was made from.
    #[getter]
    fn spec(&self) -> String {
        self.text.clone()
    }
    /// The engine's turn in notation for the position (`None` when the game is over).
    fn best(&self, py: Python<'_>, fen: &str) -> PyResult<Option<String>> {
        Ok(self.analysis(py, fen)?.best)
    }
    /// The fields of `fanorona analyze --json`: fen, best, score, pv, depth, nodes, mate,
    /// seconds, nodes_per_second.
    fn analyze<'py>(&self, py: Python<'py>, fen: &str) -> PyResult<Bound<'py, PyAny>> {
        let text = self.analysis(py, fen)?.to_json().to_string();
        py.import("json")?.call_method1("loads", (text,))
    }
    fn __repr__(&self) -> String {
        format!("Engine('{}')", self.text)
    }
}

/// A checkpoint's network: `Net(path)` (a checkpoint folder or a run folder, whose newest
/// checkpoint is taken) or `Net.release(variant)`.
#[pyclass(module = "fanorona", name = "Net")]
struct Net {
    eval: Mutex<NetEvaluator>,
    variant: Variant,
    path: String,
}

/// Two float32 matrices.
type Pair<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<f32>>);

#[pymethods]
impl Net {
    #[new]
    fn new(path: std::path::PathBuf) -> PyResult<Self> {
        let device = Device::default();
        let (net, meta, dir) =
            checkpoint::load(&path, &device, None, None).map_err(|e| bad(e.to_string()))?;
        let variant: Variant = meta.variant.parse().expect("checked when loading");
        Ok(Net {
            eval: Mutex::new(NetEvaluator::new(net, device, variant, false, 0)),
            variant,
            path: dir.display().to_string(),
        })
    }
    /// The release network of a variant (`checkpoints/release/<variant>`).
    #[staticmethod]
    fn release(variant: &str) -> PyResult<Self> {
        let dir = checkpoint::release_dir(variant_of(variant)?).map_err(|e| bad(e.to_string()))?;
        Net::new(dir)
    }
    /// The variant it plays.
    #[getter]
    fn variant(&self) -> &'static str {
        self.variant.name()
    }
    /// The checkpoint folder.
    #[getter]
    fn path(&self) -> String {
        self.path.clone()
    }
    /// Policy logits `(N, num_actions)` and WDL probabilities `(N, 3)` (win, draw, loss
    /// for the player to move), float32, of observations `(N, C, H, W)`.
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        obs: PyReadonlyArray4<'py, f32>,
    ) -> PyResult<Pair<'py>> {
        let v = self.variant;
        let want = [num_planes(v), v.height(), v.width()];
        let shape = obs.as_array().shape().to_vec();
        if shape[1..] != want {
            return Err(bad(format!(
                "observations of shape {shape:?}: a {v} network takes (N, {}, {}, {})",
                want[0], want[1], want[2]
            )));
        }
        let n = shape[0];
        if n == 0 {
            return Ok((
                Array2::<f32>::zeros((0, num_actions(v))).into_pyarray(py),
                Array2::<f32>::zeros((0, 3)).into_pyarray(py),
            ));
        }
        let planes: Vec<f32> = obs.as_array().iter().copied().collect();
        let (p, w) = py.detach(|| {
            let e = self.eval.lock().unwrap_or_else(|e| e.into_inner());
            e.forward_raw(planes, n)
        });
        let mut wdl = Array2::from_shape_vec((n, 3), w).expect("n x 3 logits");
        for mut row in wdl.rows_mut() {
            let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            row.mapv_inplace(|x| (x - m).exp());
            let s = row.sum();
            row.mapv_inplace(|x| x / s);
        }
        Ok((
            Array2::from_shape_vec((n, num_actions(v)), p)
                .expect("n x actions logits")
                .into_pyarray(py),
            wdl.into_pyarray(py),
        ))
    }
    fn __repr__(&self) -> String {
        format!("Net('{}')", self.path)
    }
}

#[pymodule]
fn _fanorona(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGame>()?;
    m.add_class::<VecEnv>()?;
    m.add_class::<Engine>()?;
    m.add_class::<Net>()?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(py_num_actions, m)?)?;
    m.add_function(wrap_pyfunction!(observation_shape, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
