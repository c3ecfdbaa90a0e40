//! The rules and the engine in WebAssembly (wasm-bindgen), for a web page (in a Web
//! Worker, so that the page stays responsive while it thinks) or node: the same code as
//! the native crates, through [`fanorona_engine`], with the release's learned evaluation
//! inside the `.wasm`.
//!
//! Built by `crates/web/build.sh` (`wasm32-unknown-unknown`, then `wasm-bindgen`); from
//! JavaScript:
//!
//! ```js
//! import init, { Game, Engine } from "./pkg/fanorona_web.js";
//! await init();
//! const game = new Game("tsivy");
//! const engine = new Engine();
//! const a = JSON.parse(engine.analyse(game, "millis", 500));
//! game.play(a.best);
//! ```
//!
//! Errors come back as JavaScript exceptions whose message names the input.

use fanorona_engine::{Budget, EngineError};
use wasm_bindgen::prelude::*;

fn js(e: EngineError) -> JsError {
    JsError::new(&e.to_string())
}

/// One game of any board, played turn by turn in notation.
#[wasm_bindgen]
#[derive(Debug, Clone)]
pub struct Game {
    game: fanorona_engine::Game,
}

#[wasm_bindgen]
impl Game {
    /// The start of `board`: `"tsivy"`, `"dimy"` or `"telo"`.
    ///
    /// # Errors
    /// An unknown board.
    #[wasm_bindgen(constructor)]
    pub fn new(board: &str) -> Result<Game, JsError> {
        Ok(Game {
            game: fanorona_engine::Game::new(board).map_err(js)?,
        })
    }

    /// The position a FEN describes.
    ///
    /// # Errors
    /// A FEN that cannot be read, named with the reason.
    #[wasm_bindgen(js_name = fromFen)]
    pub fn from_fen(fen: &str) -> Result<Game, JsError> {
        Ok(Game {
            game: fanorona_engine::Game::from_fen(fen).map_err(js)?,
        })
    }

    /// `"tsivy"`, `"dimy"` or `"telo"`.
    pub fn board(&self) -> String {
        self.game.board().into()
    }

    /// The current position in FEN.
    pub fn fen(&self) -> String {
        self.game.fen()
    }

    /// `"white"` or `"black"`.
    pub fn side(&self) -> String {
        self.game.side().into()
    }

    /// The legal turns in notation (empty when the game is over).
    pub fn turns(&self) -> Vec<String> {
        self.game.turns()
    }

    /// Plays a turn in notation.
    ///
    /// # Errors
    /// A malformed or illegal turn, or a game that is over; the game is unchanged.
    pub fn play(&mut self, turn: &str) -> Result<(), JsError> {
        self.game.play(turn).map_err(js)
    }

    /// The legal steps, one decision each (a turn's first step, or inside a capture
    /// chain the next capture or `end`): `d3e3(+)`, `end`; telo: its moves.
    pub fn steps(&self) -> Vec<String> {
        self.game.steps()
    }

    /// Plays one step by name; the turn joins the history when its chain ends.
    ///
    /// # Errors
    /// A step that is not legal now, or a game that is over.
    pub fn step(&mut self, name: &str) -> Result<(), JsError> {
        self.game.step(name).map_err(js)
    }

    /// Takes back the last turn (inside a turn played step by step, its steps so far);
    /// false when none was played.
    pub fn undo(&mut self) -> bool {
        self.game.undo()
    }

    /// The turns played, in notation.
    pub fn history(&self) -> Vec<String> {
        self.game.history()
    }

    /// `"ongoing"`, `"white"`, `"black"` or `"draw"`.
    pub fn result(&self) -> String {
        self.game.result().into()
    }

    /// An independent copy.
    #[wasm_bindgen(js_name = clone)]
    pub fn copy(&self) -> Game {
        Clone::clone(self)
    }
}

/// The engine: alpha-beta with the release's learned evaluation (telo solved exactly).
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct Engine {
    engine: fanorona_engine::Engine,
}

fn budget(kind: &str, amount: f64) -> Result<Budget, JsError> {
    if !(amount.is_finite() && amount >= 1.0) {
        return Err(JsError::new(&format!("budget {amount}: at least 1")));
    }
    // Saturating: past u64 is past any budget.
    let n = amount as u64;
    match kind {
        "depth" => Ok(Budget::Depth(u32::try_from(n).unwrap_or(u32::MAX))),
        "nodes" => Ok(Budget::Nodes(n)),
        "millis" => Ok(Budget::Millis(n)),
        k => Err(JsError::new(&format!(
            "budget kind {}: depth, nodes or millis",
            fanorona_engine::quote(k)
        ))),
    }
}

#[wasm_bindgen]
impl Engine {
    /// A new engine (its hash kept between turns).
    #[wasm_bindgen(constructor)]
    pub fn new() -> Engine {
        Engine::default()
    }

    /// The engine's turn for the game's position within a budget (`kind` `"depth"`,
    /// `"nodes"` or `"millis"`); `undefined` when the game is over.
    ///
    /// # Errors
    /// A bad budget.
    pub fn best(
        &mut self,
        game: &Game,
        kind: &str,
        amount: f64,
    ) -> Result<Option<String>, JsError> {
        self.engine
            .best(&game.game, budget(kind, amount)?)
            .map_err(js)
    }

    /// The engine's turn on a game's clock: `left_ms` is the side to move's time left,
    /// `increment_ms` what its clock gains after the turn; the engine's time manager
    /// decides how long to think. `undefined` when the game is over.
    ///
    /// # Errors
    /// A clock with no time, or not whole milliseconds.
    #[wasm_bindgen(js_name = bestOnClock)]
    pub fn best_on_clock(
        &mut self,
        game: &Game,
        left_ms: f64,
        increment_ms: f64,
    ) -> Result<Option<String>, JsError> {
        let ms = |what: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(v as u64)
            } else {
                Err(JsError::new(&format!(
                    "{what} {v}: milliseconds, 0 or more"
                )))
            }
        };
        let clock = Budget::Clock {
            left_ms: ms("leftMs", left_ms)?,
            increment_ms: ms("incrementMs", increment_ms)?,
        };
        self.engine.best(&game.game, clock).map_err(js)
    }

    /// The engine's analysis as JSON, the fields of `fanorona analyze --json`: fen,
    /// best, score (hundredths of a piece for the side to move), pv, depth, nodes, mate,
    /// seconds, nodes_per_second.
    ///
    /// # Errors
    /// A bad budget.
    pub fn analyse(&mut self, game: &Game, kind: &str, amount: f64) -> Result<String, JsError> {
        Ok(self
            .engine
            .analyse(&game.game, budget(kind, amount)?)
            .map_err(js)?
            .to_json()
            .to_string())
    }

    /// Forgets what earlier searches learned (a new game).
    #[wasm_bindgen(js_name = newGame)]
    pub fn new_game(&mut self) {
        self.engine.new_game();
    }
}

/// The page's JSON API (`docs/API.md`) without a server, for the offline page's Web
/// Worker: `/api/info`, `/api/legal`, `/api/play`, `/api/replay` are `fanorona serve`'s
/// own code ([`fanorona_engine::api`]); `/api/analyze` is the built-in engine (alpha-beta
/// with the release's learned evaluation) for the time an `ab:time=...` or
/// `mcts:time=...` spec names (1 s otherwise, 10 s at most); `/api/net` (the network)
/// is the server's alone.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct Api {
    engine: fanorona_engine::Engine,
}

/// The page's default search time and the most a request may ask.
const DEFAULT_MS: u64 = 1000;
const MAX_MS: u64 = 10_000;

/// The time an engine spec names (`ab:time=500ms`, `mcts:time=2s`), in ms, read by the
/// one spec parser (`fanorona_players`): a spec it refuses is refused here with its
/// message; one without a time gets the page's default.
fn spec_millis(spec: &str) -> Result<u64, String> {
    use fanorona_players::EngineSpec;
    let time = match EngineSpec::parse(spec).map_err(|e| e.to_string())? {
        EngineSpec::Ab { limits, .. } => limits.time,
        EngineSpec::Mcts { time, .. } => time,
        EngineSpec::Random { .. } => None,
    };
    Ok(time
        .map_or(DEFAULT_MS, |d| {
            u64::try_from(d.as_millis()).unwrap_or(MAX_MS)
        })
        .clamp(1, MAX_MS))
}

#[wasm_bindgen]
impl Api {
    /// The API with its engine.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Api {
        Api::default()
    }

    /// Answers `path` (`/api/legal`, ...) for a request given as JSON (a GET's
    /// parameters as strings, or a POST's body); the answer is JSON.
    ///
    /// # Errors
    /// A bad request, with the server's message.
    pub fn call(&mut self, path: &str, request: &str) -> Result<String, JsError> {
        self.answer(path, request)
            .map(|v| v.to_string())
            .map_err(|e| JsError::new(&e))
    }
}

impl Api {
    /// [`Api::call`]'s answer as Rust sees it (what the fuzz target calls: `JsError`
    /// exists only in a browser).
    ///
    /// # Errors
    /// A bad request, with the server's message.
    pub fn answer(&mut self, path: &str, request: &str) -> fanorona_engine::api::ApiResult {
        use fanorona_engine::api;
        let q: serde_json::Value =
            serde_json::from_str(request).map_err(|e| format!("the request is not JSON: {e}"))?;
        match path {
            "/api/info" => Ok(serde_json::json!({
                "engine": "ab:time=1s",
                "max_time_ms": MAX_MS,
                "release": {},
                "starts": api::starts(),
                "offline": true,
            })),
            "/api/legal" => api::legal(&q),
            "/api/play" => api::play(&q),
            "/api/replay" => api::replay(&q),
            "/api/analyze" => {
                let fen = api::field(&q, "fen")?;
                let rules = api::request_rules(&q)?;
                let spec = api::opt_str(&q, "engine").unwrap_or("ab:time=1s");
                let clock = api::request_clock(&q)?;
                let game = fanorona_engine::Game::from_position(api::position(fen, rules)?);
                let ms = spec_millis(spec)?;
                // On the side's clock the time manager decides; its limit is a quarter of
                // the time left, so 40 s left keep a turn within the page's 10 s.
                let (budget, engine) = match clock {
                    Some((left, inc)) => (
                        Budget::Clock {
                            left_ms: left.min(4 * MAX_MS),
                            increment_ms: inc.min(MAX_MS),
                        },
                        "ab (on the clock)".to_string(),
                    ),
                    None => (Budget::Millis(ms), format!("ab:time={ms}ms")),
                };
                let a = self
                    .engine
                    .analyse(&game, budget)
                    .map_err(|e| e.to_string())?;
                let mut v = a.to_json();
                v["engine"] = engine.into();
                Ok(v)
            }
            "/api/net" => Err(
                "the network's view needs `fanorona serve`: the offline page has the engine alone"
                    .into(),
            ),
            p => Err(format!("no such API call {}", fanorona_engine::quote(p))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_of_a_spec_is_read_by_the_spec_parser() {
        assert_eq!(spec_millis("ab:time=500ms"), Ok(500));
        assert_eq!(spec_millis("mcts:time=2s"), Ok(2000));
        assert_eq!(spec_millis("ab:depth=4"), Ok(DEFAULT_MS));
        assert_eq!(spec_millis("random"), Ok(DEFAULT_MS));
        assert_eq!(spec_millis("ab:time=600s"), Ok(MAX_MS));
        let e = spec_millis("ab:speed=3").unwrap_err();
        assert!(e.contains("speed"), "{e}");
        assert!(spec_millis("ab:time=soon").is_err());
    }

    #[test]
    fn the_offline_engine_plays_on_the_sides_clock() {
        let mut api = Api::new();
        let fen = "9/9/9/9/BB1W5 w";
        let v = api
            .answer(
                "/api/analyze",
                &serde_json::json!({ "fen": fen, "left_ms": 2000, "increment_ms": 20 }).to_string(),
            )
            .unwrap();
        assert!(v["best"].is_string(), "{v}");
        assert_eq!(v["engine"], "ab (on the clock)");
        // The limit: a quarter of the time left (500 ms), with room for a busy machine.
        assert!(v["seconds"].as_f64().unwrap() < 1.5, "{v}");
        let e = api
            .answer(
                "/api/analyze",
                &serde_json::json!({ "fen": fen, "left_ms": "soon" }).to_string(),
            )
            .unwrap_err();
        assert!(e.contains("left_ms"), "{e}");
    }

    #[test]
    fn an_error_quotes_a_huge_request_briefly() {
        let huge = "W".repeat(5 << 20);
        let mut api = Api::new();
        let fen = serde_json::json!({ "fen": huge }).to_string();
        let engine = serde_json::json!({
            "fen": "9/9/9/9/BB1W5 w", "engine": format!("ab:time={huge}")
        })
        .to_string();
        let spec = serde_json::json!({ "fen": "9/9/9/9/BB1W5 w", "engine": huge }).to_string();
        for (path, request) in [
            (huge.as_str(), "{}"),
            ("/api/legal", huge.as_str()),
            ("/api/legal", fen.as_str()),
            ("/api/analyze", fen.as_str()),
            ("/api/analyze", engine.as_str()),
            ("/api/analyze", spec.as_str()),
        ] {
            let e = api.answer(path, request).unwrap_err();
            assert!(e.len() <= 300, "{} bytes: {}", e.len(), &e[..300]);
        }
    }
}
