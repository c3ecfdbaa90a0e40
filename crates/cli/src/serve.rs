//! `fanorona serve`: the web page (embedded in the binary) and its JSON API.
//!
//! Every answer is JSON; bad input gets 400 with `{"error": ...}` naming the problem.
//! Searches run on blocking threads, each bounded by the server's time cap whatever the
//! request asks. The API is documented in `docs/API.md`.

use crate::engine::EngineSpec;
use anyhow::{Context, Result};
use axum::Router;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use clap::Args;
use fanorona_nn::checkpoint;
use fanorona_nn::spec::NetSource;
use fanorona_rules::notation::{format_turn, parse_turn};
use fanorona_rules::{AnyPosition, Game, Outcome, PointStyle, RuleOptions, TurnMode, Variant};
use fanorona_search::Analysis;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// `fanorona serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on (`0.0.0.0` to serve other machines).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// The engine of the page's replies and analysis when a request names none:
    /// `mcts:time=1s` (the release network and its learned evaluation: the strongest
    /// player shipped), `ab:time=1s`, `mcts:ckpt=DIR,sims=400`, ... (telo: the exact
    /// solver unless a network is named).
    #[arg(long, default_value = "mcts:time=1s")]
    pub engine: String,
    /// The longest a search may take, whatever a request asks (e.g. `5s`).
    #[arg(long, default_value = "10s", value_parser = parse_cap)]
    pub max_time: Duration,
}

fn parse_cap(s: &str) -> std::result::Result<Duration, String> {
    fanorona_nn::spec::parse_duration(s)
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{s}` is not a time such as 500ms or 5s"))
}

/// The page, embedded in the binary.
const INDEX_HTML: &str = include_str!("../web/index.html");

/// Gumbel searches plan their simulations in advance: cap those instead of the time.
const MAX_GUMBEL_SIMS: u32 = 2_000;

struct ServerState {
    engine: String,
    max_time: Duration,
}

/// An error answer: a status and a message, sent as `{"error": message}`.
#[derive(Debug)]
struct ApiError(StatusCode, String);

impl ApiError {
    fn bad(msg: impl std::fmt::Display) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, msg.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, axum::Json(json!({ "error": self.1 }))).into_response()
    }
}

type ApiResult = std::result::Result<axum::Json<Value>, ApiError>;

/// Runs `f` on a blocking thread; a panic inside becomes a 500 answer, never a crash.
async fn blocking<F>(f: F) -> ApiResult
where
    F: FnOnce() -> std::result::Result<Value, ApiError> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(v)) => Ok(axum::Json(v)),
        Ok(Err(e)) => Err(e),
        Err(e) => Err(ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the request failed inside the server: {e}"),
        )),
    }
}

/// Starts the server and serves until interrupted.
pub fn serve(a: ServeArgs) -> Result<()> {
    // Check the default engine now rather than at the first request.
    let spec = crate::engine::parse_interactive(&a.engine)?;
    if let EngineSpec::Mcts {
        ckpt: NetSource::Dir(dir),
        ..
    } = &spec
    {
        checkpoint::resolve(dir).map_err(crate::input_err)?;
    }
    let state = Arc::new(ServerState {
        engine: a.engine.clone(),
        max_time: a.max_time,
    });
    let app = router(state);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the server's runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((a.bind.as_str(), a.port))
            .await
            .map_err(|e| {
                crate::input_err(format!("cannot listen on {}:{}: {e}", a.bind, a.port))
            })?;
        let addr = listener.local_addr()?;
        println!(
            "listening on http://{addr}/ (engine {}, searches capped at {:?})",
            a.engine, a.max_time
        );
        use std::io::Write;
        let _ = std::io::stdout().flush();
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .context("serving")?;
        Ok(())
    })
}

fn router(state: Arc<ServerState>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route("/api/info", get(info))
        .route("/api/legal", get(legal))
        .route("/api/play", post(play))
        .route("/api/analyze", get(analyze_route))
        .route("/api/net", get(net))
        .route("/api/replay", post(replay))
        .fallback(|| async { ApiError(StatusCode::NOT_FOUND, "no such page or API call".into()) })
        .with_state(state)
}

async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
        .into_response()
}

type Params = Query<HashMap<String, String>>;

fn param<'a>(q: &'a HashMap<String, String>, key: &str) -> std::result::Result<&'a str, ApiError> {
    q.get(key)
        .map(String::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ApiError::bad(format!("missing `{key}`")))
}

/// Rule options from `rules=vela=black,vela_form=kely` (empty: the defaults).
fn rules_of(text: Option<&str>) -> std::result::Result<RuleOptions, ApiError> {
    let mut rules = RuleOptions::default();
    for pair in text
        .unwrap_or("")
        .split(',')
        .filter(|s| !s.trim().is_empty())
    {
        rules
            .set_pair(pair)
            .map_err(|e| ApiError::bad(format!("rules: {e}")))?;
    }
    Ok(rules)
}

fn position(fen: &str, rules: RuleOptions) -> std::result::Result<AnyPosition, ApiError> {
    AnyPosition::from_fen(fen.trim(), rules)
        .map_err(|e| ApiError::bad(format!("fen `{}`: {e}", fen.trim())))
}

fn result_name(o: Option<Outcome>) -> &'static str {
    o.map_or("ongoing", |o| o.name())
}

fn rules_text(r: &RuleOptions) -> String {
    let mut parts = Vec::new();
    if let Some(v) = r.vela {
        parts.push(format!("vela={}", v.name()));
        parts.push(format!("vela_form={}", r.vela_form));
    }
    if !r.reply_chains {
        parts.push("reply_chains=false".into());
    }
    parts.join(",")
}

async fn info(State(s): State<Arc<ServerState>>) -> ApiResult {
    let nets: HashMap<&str, Option<String>> = [Variant::Tsivy, Variant::Dimy]
        .into_iter()
        .map(|v| {
            (
                v.name(),
                checkpoint::release_dir(v)
                    .ok()
                    .map(|p| p.display().to_string()),
            )
        })
        .collect();
    let starts: HashMap<&str, String> = [Variant::Tsivy, Variant::Dimy, Variant::Telo]
        .into_iter()
        .map(|v| {
            (
                v.name(),
                AnyPosition::start(v, RuleOptions::default()).fen(),
            )
        })
        .collect();
    Ok(axum::Json(json!({
        "engine": s.engine,
        "max_time_ms": s.max_time.as_millis() as u64,
        "release": nets,
        "starts": starts,
    })))
}

/// `GET /api/legal?fen=F[&rules=R]` (or `variant=V` for its start under the rules, the
/// vela start included): every legal turn (each capture path) in notation, the
/// step-level actions, the side to move and the result.
async fn legal(Query(q): Params) -> ApiResult {
    let rules = rules_of(q.get("rules").map(String::as_str))?;
    let fen = match (param(&q, "fen"), q.get("variant")) {
        (Ok(f), _) => f.to_string(),
        (Err(_), Some(v)) => start_fen(v, rules)?,
        (Err(e), None) => return Err(e),
    };
    blocking(move || {
        Ok(match position(&fen, rules)? {
            AnyPosition::Fanorona(p) => {
                let turns: Vec<String> = if p.outcome().is_some() {
                    Vec::new()
                } else {
                    p.turns(TurnMode::Paths)
                        .iter()
                        .map(|t| format_turn(&p, t, PointStyle::Algebraic))
                        .collect()
                };
                let openings: Vec<String> = if p.ply() == 0 && p.outcome().is_none() {
                    p.turns(TurnMode::Distinct)
                        .iter()
                        .map(|t| format_turn(&p, t, PointStyle::Algebraic))
                        .collect()
                } else {
                    Vec::new()
                };
                json!({
                    "fen": p.fen(), "variant": p.variant().name(),
                    "side": p.side_to_move().name(), "turns": turns,
                    "actions": actions(&p), "result": result_name(p.outcome()),
                    "openings": openings, "rules": rules_text(p.rules()),
                    "vela_phase": p.vela_phase().map(|c| c.name()),
                })
            }
            AnyPosition::Telo(t) => {
                let turns: Vec<String> = if t.outcome().is_some() {
                    Vec::new()
                } else {
                    t.moves().into_iter().map(|m| t.format_move(m)).collect()
                };
                json!({
                    "fen": t.fen(), "variant": "telo", "side": t.side_to_move().name(),
                    "turns": turns, "actions": actions(&t), "result": result_name(t.outcome()),
                    "openings": [], "rules": "", "vela_phase": null,
                })
            }
        })
    })
    .await
}

/// The step-level actions of a position: index and name.
fn actions<G: Game>(g: &G) -> Vec<Value> {
    let mut v = Vec::new();
    if g.outcome().is_none() {
        g.legal_actions(&mut v);
    }
    v.into_iter()
        .map(|a| json!({ "index": a, "name": g.action_name(a) }))
        .collect()
}

fn body_json(body: &str) -> std::result::Result<Value, ApiError> {
    serde_json::from_str(body)
        .map_err(|e| ApiError::bad(format!("the request body is not JSON: {e}")))
}

fn field<'a>(v: &'a Value, key: &str) -> std::result::Result<&'a str, ApiError> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ApiError::bad(format!("missing string field `{key}`")))
}

/// `POST /api/play` `{"fen": F, "turn": T[, "rules": R]}`: the position after the turn.
async fn play(body: String) -> ApiResult {
    let v = body_json(&body)?;
    let fen = field(&v, "fen")?.to_string();
    let turn = field(&v, "turn")?.to_string();
    let rules = rules_of(v.get("rules").and_then(Value::as_str))?;
    blocking(move || match position(&fen, rules)? {
        AnyPosition::Fanorona(mut p) => {
            if p.outcome().is_some() {
                return Err(ApiError::bad(format!("fen `{fen}`: the game is over")));
            }
            let t = parse_turn(&p, &turn).map_err(ApiError::bad)?;
            let text = format_turn(&p, &t, PointStyle::Algebraic);
            p.play_unchecked(&t);
            Ok(json!({ "fen": p.fen(), "turn": text, "result": result_name(p.outcome()) }))
        }
        AnyPosition::Telo(mut t) => {
            if t.outcome().is_some() {
                return Err(ApiError::bad(format!("fen `{fen}`: the game is over")));
            }
            let m = t.parse_move(&turn).map_err(ApiError::bad)?;
            let text = t.format_move(m);
            t.play_unchecked(m);
            Ok(json!({ "fen": t.fen(), "turn": text, "result": result_name(t.outcome()) }))
        }
    })
    .await
}

/// The spec with the server's time cap applied.
fn capped(mut spec: EngineSpec, cap: Duration) -> EngineSpec {
    let clamp = |t: Option<Duration>| Some(t.map_or(cap, |t| t.min(cap)));
    match &mut spec {
        EngineSpec::Ab { limits, .. } => limits.time = clamp(limits.time),
        // Gumbel plans its simulations in advance: cap those instead of the time.
        EngineSpec::Mcts {
            sims, time, search, ..
        } => {
            if search.named("gumbel") == Some("true") {
                *sims = (*sims).min(MAX_GUMBEL_SIMS);
            } else {
                *time = clamp(*time);
            }
        }
        EngineSpec::Random { .. } => {}
    }
    spec
}

/// `GET /api/analyze?fen=F[&engine=SPEC][&rules=R]`: the fields of `fanorona analyze --json`.
async fn analyze_route(State(s): State<Arc<ServerState>>, Query(q): Params) -> ApiResult {
    let fen = param(&q, "fen")?.to_string();
    let rules = rules_of(q.get("rules").map(String::as_str))?;
    let engine = q
        .get("engine")
        .filter(|e| !e.trim().is_empty())
        .cloned()
        .unwrap_or_else(|| s.engine.clone());
    let spec =
        EngineSpec::parse_with_threads(&engine, crate::engine::cores()).map_err(ApiError::bad)?;
    let spec = capped(spec, s.max_time);
    blocking(move || {
        let pos = position(&fen, rules)?;
        let tb = match &pos {
            AnyPosition::Fanorona(p) => crate::tb_cmd::tb_json(p, None),
            AnyPosition::Telo(_) => None,
        };
        let a: Analysis = spec
            .analyse(&pos, "analyze", &crate::backend::device())
            .map_err(|e| ApiError::bad(format!("{e:#}")))?;
        let mut v = a.to_json();
        v["engine"] = json!(engine);
        if let Some(t) = tb {
            v["tb"] = t;
        }
        Ok(v)
    })
    .await
}

/// `GET /api/net?fen=F[&ckpt=DIR][&rules=R]`: the network's win/draw/loss for the side to
/// move and its policy over the step-level actions (highest first), by default from the
/// release network of the variant.
async fn net(Query(q): Params) -> ApiResult {
    let fen = param(&q, "fen")?.to_string();
    let rules = rules_of(q.get("rules").map(String::as_str))?;
    let ckpt = match q.get("ckpt").map(String::as_str) {
        None | Some("") => NetSource::Release,
        Some("none") => NetSource::Fresh,
        Some(d) => NetSource::Dir(d.into()),
    };
    blocking(move || {
        let spec = EngineSpec::network(ckpt, 1);
        fn evaluate<G: fanorona_sim::Encode>(
            g: &G,
            spec: &EngineSpec,
        ) -> std::result::Result<Value, ApiError> {
            let mut eval = crate::engine::evaluator(spec, g.variant())
                .map_err(|e| ApiError::bad(format!("{e:#}")))?;
            let mut legal = Vec::new();
            if g.outcome().is_none() {
                g.legal_actions(&mut legal);
            }
            let mut priors = vec![Vec::new()];
            let mut wdl = vec![[0.0f32; 3]];
            use fanorona_search::Evaluator;
            eval.evaluate(&[g], &[legal.as_slice()], &mut priors, &mut wdl);
            let mut policy: Vec<(usize, f32)> = legal
                .iter()
                .copied()
                .zip(priors[0].iter().copied())
                .collect();
            policy.sort_by(|a, b| b.1.total_cmp(&a.1));
            Ok(json!({
                "wdl": wdl[0],
                "policy": policy.iter().map(|&(a, p)| json!({
                    "index": a, "name": g.action_name(a), "p": p,
                })).collect::<Vec<_>>(),
            }))
        }
        match position(&fen, rules)? {
            AnyPosition::Fanorona(p) => evaluate(&p, &spec),
            AnyPosition::Telo(t) => evaluate(&t, &spec),
        }
    })
    .await
}

/// The start of variant `v` under `rules`.
fn start_fen(v: &str, rules: RuleOptions) -> std::result::Result<String, ApiError> {
    let variant: Variant = v
        .parse()
        .map_err(|e| ApiError::bad(format!("variant: {e}")))?;
    Ok(match variant {
        Variant::Telo if rules.vela.is_some() => {
            return Err(ApiError::bad("rules: telo has no vela"));
        }
        v => AnyPosition::start(v, rules).fen(),
    })
}

/// `POST /api/replay` `{"turns": [TURN, ...] | "actions": [INDEX, ...], "fen": F | "variant": V[, "rules": R]}`:
/// every position of a game at the end of each turn, and the turns in notation, for the
/// game viewer. `turns` are notation (arena records); `actions` are step-level action
/// indices (training records), grouped here into whole turns.
async fn replay(body: String) -> ApiResult {
    let v = body_json(&body)?;
    let rules = rules_of(v.get("rules").and_then(Value::as_str))?;
    let fen = match v.get("fen").and_then(Value::as_str) {
        Some(f) => f.to_string(),
        None => start_fen(field(&v, "variant")?, rules)?,
    };
    enum Moves {
        Turns(Vec<String>),
        Actions(Vec<usize>),
    }
    let moves = if let Some(t) = v.get("turns").and_then(Value::as_array) {
        Moves::Turns(
            t.iter()
                .map(|t| t.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| ApiError::bad("`turns` must be strings"))?,
        )
    } else if let Some(a) = v.get("actions").and_then(Value::as_array) {
        Moves::Actions(
            a.iter()
                .map(|x| x.as_u64().map(|x| x as usize))
                .collect::<Option<_>>()
                .ok_or_else(|| ApiError::bad("`actions` must be action indices"))?,
        )
    } else {
        return Err(ApiError::bad("missing array field `turns` (or `actions`)"));
    };
    blocking(move || {
        let mut fens = Vec::new();
        let mut texts = Vec::new();
        let result = match (position(&fen, rules)?, moves) {
            (AnyPosition::Fanorona(mut p), Moves::Turns(turns)) => {
                fens.push(p.fen());
                for (i, text) in turns.iter().enumerate() {
                    let t = parse_turn(&p, text)
                        .map_err(|e| ApiError::bad(format!("turn {}: {e}", i + 1)))?;
                    texts.push(format_turn(&p, &t, PointStyle::Algebraic));
                    p.play_unchecked(&t);
                    fens.push(p.fen());
                }
                result_name(p.outcome())
            }
            (AnyPosition::Fanorona(mut p), Moves::Actions(actions)) => {
                fens.push(p.fen());
                let points = p.variant().points();
                let mut step = p;
                let mut pending = Vec::new();
                let mut legal = Vec::new();
                for (i, &a) in actions.iter().enumerate() {
                    legal.clear();
                    if step.outcome().is_none() {
                        step.legal_actions(&mut legal);
                    }
                    if !legal.contains(&a) {
                        return Err(ApiError::bad(format!(
                            "action {} ({a}) is not legal in the game at that point",
                            i + 1
                        )));
                    }
                    step.apply(a);
                    pending
                        .push(fanorona_rules::game::action_from_index(points, a).expect("legal"));
                    if step.chain().is_none() {
                        let t = p.turn_of_actions(&pending).ok_or_else(|| {
                            ApiError::bad(format!("actions up to {} are not a whole turn", i + 1))
                        })?;
                        texts.push(format_turn(&p, &t, PointStyle::Algebraic));
                        p.play_unchecked(&t);
                        fens.push(p.fen());
                        pending.clear();
                    }
                }
                result_name(p.outcome())
            }
            (AnyPosition::Telo(mut t), moves) => {
                fens.push(t.fen());
                let n = match &moves {
                    Moves::Turns(v) => v.len(),
                    Moves::Actions(v) => v.len(),
                };
                for i in 0..n {
                    let m = match &moves {
                        Moves::Turns(v) => t
                            .parse_move(&v[i])
                            .map_err(|e| ApiError::bad(format!("turn {}: {e}", i + 1)))?,
                        Moves::Actions(v) => fanorona_rules::game::telo_action_from_index(v[i])
                            .filter(|m| t.moves().contains(m))
                            .ok_or_else(|| {
                                ApiError::bad(format!("action {} ({}) is not legal", i + 1, v[i]))
                            })?,
                    };
                    texts.push(t.format_move(m));
                    t.play_unchecked(m);
                    fens.push(t.fen());
                }
                result_name(t.outcome())
            }
        };
        Ok(json!({ "fens": fens, "turns": texts, "result": result }))
    })
    .await
}
