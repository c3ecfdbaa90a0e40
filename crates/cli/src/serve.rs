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
use fanorona_engine::api;
use fanorona_nn::checkpoint;
use fanorona_nn::spec::NetSource;
use fanorona_rules::{AnyPosition, Variant};
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
    /// The engine of the page's replies and analysis when a request names none (default:
    /// alpha-beta with the release's learned evaluation and opening book, 1 s a turn, the
    /// strongest player shipped): `mcts:time=1s` (the release network),
    /// `mcts:ckpt=DIR,sims=400`, ... (telo: the exact solver unless a network is named).
    #[arg(long, default_value = fanorona_nn::spec::DEFAULT_PLAYER)]
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

/// A GET's parameters as the JSON object the API functions read.
fn query_json(q: &HashMap<String, String>) -> Value {
    Value::Object(
        q.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
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
    let starts = api::starts();
    Ok(axum::Json(json!({
        "engine": s.engine,
        "max_time_ms": s.max_time.as_millis() as u64,
        "release": nets,
        "starts": starts,
    })))
}

/// `GET /api/legal` ([`api::legal`]).
async fn legal(Query(q): Params) -> ApiResult {
    let q = query_json(&q);
    blocking(move || api::legal(&q).map_err(ApiError::bad)).await
}

fn body_json(body: &str) -> std::result::Result<Value, ApiError> {
    serde_json::from_str(body)
        .map_err(|e| ApiError::bad(format!("the request body is not JSON: {e}")))
}

/// `POST /api/play` ([`api::play`]).
async fn play(body: String) -> ApiResult {
    let v = body_json(&body)?;
    blocking(move || api::play(&v).map_err(ApiError::bad)).await
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
    let rules = api::rules_of(q.get("rules").map(String::as_str)).map_err(ApiError::bad)?;
    let engine = q
        .get("engine")
        .filter(|e| !e.trim().is_empty())
        .cloned()
        .unwrap_or_else(|| s.engine.clone());
    let spec =
        crate::engine::parse_interactive(&engine).map_err(|e| ApiError::bad(format!("{e:#}")))?;
    let spec = capped(spec, s.max_time);
    blocking(move || {
        let pos = api::position(&fen, rules).map_err(ApiError::bad)?;
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
    let rules = api::rules_of(q.get("rules").map(String::as_str)).map_err(ApiError::bad)?;
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
        match api::position(&fen, rules).map_err(ApiError::bad)? {
            AnyPosition::Fanorona(p) => evaluate(&p, &spec),
            AnyPosition::Telo(t) => evaluate(&t, &spec),
        }
    })
    .await
}

/// `POST /api/replay` ([`api::replay`]).
async fn replay(body: String) -> ApiResult {
    let v = body_json(&body)?;
    blocking(move || api::replay(&v).map_err(ApiError::bad)).await
}
