//! `fanorona serve`: the web page (embedded in the binary) and its JSON API.
//!
//! Every answer is JSON; bad input gets 400 with `{"error": ...}` naming the problem.
//! The server trusts no client (docs/API.md, "What a client may ask"):
//!
//! - A client chooses among players, never among files: a spec from a request may name
//!   `release`, `none`, the files of the server's own `--engine` and files under an
//!   `--allow` folder; any other path is refused before anything is read, and errors
//!   that come from reading the server's files reach the client without their bytes.
//! - A search's time, threads and hash are capped by the server's flags; analyses run
//!   under a concurrency limit with a bounded queue (past it `503` with `Retry-After`).
//! - Connections are bounded in number, headers in size and time, bodies in size and
//!   time, and a connection lives a bounded time.

use crate::engine::{EngineSpec, Nets};
use anyhow::{Context, Result};
use axum::Router;
use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use clap::Args;
use fanorona_engine::api;
use fanorona_nn::checkpoint;
use fanorona_nn::spec::NetSource;
use fanorona_rules::{AnyPosition, Variant, quote};
use fanorona_search::{Analysis, ClockState};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;

/// `fanorona serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on (`0.0.0.0` serves other machines: read docs/API.md,
    /// "Serving other machines", first).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// The engine of the page's replies and analysis when a request names none (default:
    /// alpha-beta with the release's learned evaluation and opening book, 1 s a turn, the
    /// strongest player shipped): `mcts:time=1s` (the release network),
    /// `mcts:ckpt=DIR,sims=400`, ... (telo: the exact solver unless a network is named).
    /// The files it names are files a request may name too.
    #[arg(long, default_value = fanorona_nn::spec::DEFAULT_PLAYER)]
    pub engine: String,
    /// A folder whose files (evaluations, books, checkpoints, tables) a request's engine
    /// may name, by a path inside it (repeat for more). Without it a request may name
    /// only `release`, `none` and the files of `--engine`.
    #[arg(long = "allow", value_name = "DIR")]
    pub allow: Vec<PathBuf>,
    /// The longest a search may take, whatever a request asks (e.g. `5s`).
    #[arg(long, default_value = "10s", value_parser = parse_cap)]
    pub max_time: Duration,
    /// The most threads one search may take, whatever a request asks (default: the
    /// machine's cores).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub max_threads: Option<u64>,
    /// The largest transposition table of one search, MiB, whatever a request asks.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub max_hash: u64,
    /// Analyses (`/api/analyze`, `/api/net`) that run at once (default: the machine's
    /// cores); the memory they can take is about this many times `--max-hash` plus the
    /// networks and tables they load.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub max_analyses: Option<u64>,
    /// Analyses that may wait for a free slot; past them a request is answered `503`
    /// with `Retry-After`.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    pub queue: u64,
}

fn parse_cap(s: &str) -> std::result::Result<Duration, String> {
    fanorona_nn::spec::parse_duration(s)
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{} is not a time such as 500ms or 5s", quote(s)))
}

/// The page, embedded in the binary.
const INDEX_HTML: &str = include_str!("../web/index.html");

/// Gumbel searches plan their simulations in advance: cap those instead of the time.
const MAX_GUMBEL_SIMS: u32 = 2_000;
/// The most simulations of one timed `mcts` search (its tree's memory).
const MAX_SIMS: u32 = 200_000;
/// The largest request body (`/api/play`, `/api/replay`: a game of a thousand turns is
/// a few tens of KiB).
pub const MAX_BODY: usize = 256 * 1024;
/// A request's headers must arrive within this; so must its body.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections open at once (each holds at most [`MAX_HEADER_BUF`] and
/// [`MAX_BODY`]); later ones wait to be accepted.
const MAX_CONNECTIONS: usize = 256;
/// A connection's read buffer (headers, query strings).
const MAX_HEADER_BUF: usize = 64 * 1024;
/// A kept-alive connection is closed after this long (gracefully: a request in
/// progress finishes).
const MAX_CONNECTION_AGE: Duration = Duration::from_secs(120);

/// What the server allows a client's engine spec to name.
struct FilePolicy {
    /// Paths named by the server's own `--engine`, allowed as they are.
    exact: Vec<PathBuf>,
    /// `--allow` folders: paths inside them (no `..`) are allowed.
    dirs: Vec<PathBuf>,
}

impl FilePolicy {
    /// Whether `path` may be read for a client. Decided on the path's text alone, so
    /// that a refusal tells the client nothing of the server's files.
    fn allows(&self, path: &Path) -> bool {
        self.exact.iter().any(|p| p == path)
            || self.dirs.iter().any(|d| {
                path.strip_prefix(d).is_ok_and(|rest| {
                    rest.components().next().is_some()
                        && rest.components().all(|c| matches!(c, Component::Normal(_)))
                })
            })
    }

    /// Refuses a spec that names a file the server does not allow.
    fn check(&self, spec: &EngineSpec) -> std::result::Result<(), ApiError> {
        for (option, path) in spec.files() {
            if !self.allows(path) {
                return Err(ApiError::bad(format!(
                    "engine option `{option}`: this server lets a request name only `release`, `none`, \
                     the files of its own engine and files inside the folders it allows \
                     (`fanorona serve --allow DIR`)"
                )));
            }
        }
        Ok(())
    }
}

/// The analyses running and waiting, and the slots they take.
struct Limiter {
    slots: Arc<Semaphore>,
    /// Running plus waiting.
    pending: AtomicUsize,
    /// Most running plus waiting.
    bound: usize,
    /// `Retry-After` in seconds for a refused request.
    retry_after: u64,
}

/// Counts an analysis out of [`Limiter::pending`] however its request ends.
struct Pending<'a>(&'a AtomicUsize);

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

struct ServerState {
    engine: String,
    max_time: Duration,
    max_threads: usize,
    max_hash: usize,
    files: FilePolicy,
    limiter: Limiter,
}

impl ServerState {
    /// A client's spec (or the server's when the request names none), parsed, checked
    /// against the files the server allows, set to the side's clock (`left_ms`,
    /// `increment_ms`) when the request sends one, and capped.
    fn spec(
        &self,
        requested: Option<&str>,
        clock: Option<(u64, u64)>,
    ) -> std::result::Result<(String, EngineSpec), ApiError> {
        let text = requested
            .filter(|e| !e.trim().is_empty())
            .unwrap_or(&self.engine)
            .to_string();
        let spec =
            crate::engine::parse_interactive(&text).map_err(|e| ApiError::bad(format!("{e:#}")))?;
        self.files.check(&spec)?;
        let spec = match clock {
            Some((left, inc)) => spec.on_clock(&ClockState {
                left: Duration::from_millis(left),
                increment: Duration::from_millis(inc),
                turns_played: 0,
                moves_to_go: None,
            }),
            None => spec,
        };
        let spec = spec.capped(
            self.max_threads,
            self.max_hash,
            self.max_time,
            MAX_SIMS,
            MAX_GUMBEL_SIMS,
        );
        Ok((text, spec))
    }

    /// Runs `f` on a blocking thread once a slot is free; `503` when the queue is full.
    async fn analysis<F>(self: &Arc<Self>, f: F) -> ApiResult
    where
        F: FnOnce() -> std::result::Result<Value, ApiError> + Send + 'static,
    {
        let l = &self.limiter;
        let _pending = Pending(&l.pending);
        if l.pending.fetch_add(1, Ordering::AcqRel) >= l.bound {
            return Err(ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server is busy: {} analyses are running or waiting; try again later",
                    l.bound
                ),
                Some(l.retry_after),
            ));
        }
        let permit = l.slots.clone().acquire_owned().await.map_err(|_| {
            ApiError(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is stopping".into(),
                Some(l.retry_after),
            )
        })?;
        // The slot stays taken until the search ends, even if the client goes away.
        blocking(move || {
            let _permit = permit;
            f()
        })
        .await
    }
}

/// An error answer: a status, a message sent as `{"error": message}`, and for `503` the
/// seconds of its `Retry-After`.
#[derive(Debug)]
struct ApiError(StatusCode, String, Option<u64>);

impl ApiError {
    fn bad(msg: impl std::fmt::Display) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, msg.to_string(), None)
    }

    /// A player that could not be made from the server's files for a `variant`
    /// position: the client learns that and which engine, never the files' names or
    /// bytes (the server's standard error has them).
    fn unusable(engine: &str, variant: Variant, e: impl std::fmt::Display) -> ApiError {
        eprintln!("serve: engine `{engine}` for {variant}: {e}");
        ApiError::bad(format!(
            "engine {} cannot play {variant} on this server: the files it needs are \
             missing or unusable (the server's log says why)",
            quote(engine)
        ))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.0, axum::Json(json!({ "error": self.1 }))).into_response();
        if let Some(s) = self.2 {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        r
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
        Err(_) => Err(ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request failed inside the server".into(),
            None,
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
    for d in &a.allow {
        if !d.is_dir() {
            return Err(crate::input_err(format!(
                "--allow {}: not a folder",
                d.display()
            )));
        }
    }
    let cores = crate::engine::cores();
    let max_analyses = a.max_analyses.map_or(cores, |n| n as usize);
    let state = Arc::new(ServerState {
        engine: a.engine.clone(),
        max_time: a.max_time,
        max_threads: a.max_threads.map_or(cores, |n| n as usize),
        max_hash: a.max_hash as usize,
        files: FilePolicy {
            exact: spec
                .files()
                .into_iter()
                .map(|(_, p)| p.to_path_buf())
                .collect(),
            dirs: a.allow.clone(),
        },
        limiter: Limiter {
            slots: Arc::new(Semaphore::new(max_analyses)),
            pending: AtomicUsize::new(0),
            bound: max_analyses + a.queue as usize,
            retry_after: a.max_time.as_secs().max(1),
        },
    });
    let app = router(state.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Blocking threads: the analyses' slots plus the quick calls' (legal, play, replay).
        .max_blocking_threads(max_analyses + 4 * cores)
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
            "listening on http://{addr}/ (engine {}, searches capped at {:?}, {} threads, {} MiB, {} at once, {} waiting)",
            a.engine,
            a.max_time,
            state.max_threads,
            state.max_hash,
            max_analyses,
            a.queue
        );
        use std::io::Write;
        let _ = std::io::stdout().flush();
        tokio::select! {
            r = accept_loop(listener, app) => r,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}

/// Accepts connections, at most [`MAX_CONNECTIONS`] open at once, each served over
/// HTTP/1.1 with bounded headers, a header timeout and a bounded age.
async fn accept_loop(listener: tokio::net::TcpListener, app: Router) -> Result<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::service::TowerToHyperService;
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let permit = open.clone().acquire_owned().await.context("accepting")?;
        let (stream, _) = match listener.accept().await {
            Ok(s) => s,
            // Out of file descriptors or a connection reset before it was accepted:
            // wait a moment and go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let app = app.clone();
        tokio::spawn(async move {
            // Held for the connection's life.
            let _permit = permit;
            let mut builder = Builder::new(TokioExecutor::new()).http1_only();
            builder
                .http1()
                .timer(TokioTimer::new())
                .header_read_timeout(READ_TIMEOUT)
                .max_buf_size(MAX_HEADER_BUF);
            let conn =
                builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = tokio::time::sleep(MAX_CONNECTION_AGE) => {
                    // No new request; the one in progress (its body and its search
                    // bounded) finishes.
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.as_mut().await;
                }
            }
        });
    }
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
        .fallback(|| async {
            ApiError(
                StatusCode::NOT_FOUND,
                "no such page or API call".into(),
                None,
            )
        })
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

/// `GET /api/info`: the default engine, the time cap, the starts and, for each board,
/// whether its release network was found and where it came from (its run and training
/// step), never where it lies: a client learns nothing of the server's files.
async fn info(State(s): State<Arc<ServerState>>) -> ApiResult {
    let nets: HashMap<&str, Value> = [Variant::Tsivy, Variant::Dimy]
        .into_iter()
        .map(|v| {
            let found = match checkpoint::release_dir(v) {
                Ok(dir) => match checkpoint::read_meta(&dir) {
                    Ok(m) => json!({
                        "found": true,
                        "provenance": format!(
                            "run {}, generation {}, {} training steps, {} blocks x {} channels",
                            m.run.as_deref().unwrap_or("unnamed"),
                            m.generation,
                            m.step,
                            m.net.blocks,
                            m.net.channels
                        ),
                    }),
                    Err(e) => {
                        eprintln!("serve: the {v} release network: {e}");
                        json!({ "found": false })
                    }
                },
                Err(_) => json!({ "found": false }),
            };
            (v.name(), found)
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

/// A request's body as JSON: at most [`MAX_BODY`] bytes, arriving within
/// [`READ_TIMEOUT`].
async fn body_json(body: Body) -> std::result::Result<Value, ApiError> {
    use axum::body::HttpBody;
    let too_large = || {
        ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than {MAX_BODY} bytes"),
            None,
        )
    };
    // A `Content-Length` past the limit is refused before anything is read.
    if body.size_hint().lower() > MAX_BODY as u64 {
        return Err(too_large());
    }
    let bytes = match tokio::time::timeout(READ_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await
    {
        Err(_) => {
            return Err(ApiError(
                StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {READ_TIMEOUT:?}"),
                None,
            ));
        }
        Ok(Err(_)) => return Err(too_large()),
        Ok(Ok(b)) => b,
    };
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad(format!("the request body is not JSON: {e}")))
}

/// `POST /api/play` ([`api::play`]).
async fn play(body: Body) -> ApiResult {
    let v = body_json(body).await?;
    blocking(move || api::play(&v).map_err(ApiError::bad)).await
}

/// `GET /api/analyze?fen=F[&engine=SPEC][&rules=R][&left_ms=L&increment_ms=I]`: the
/// fields of `fanorona analyze --json`; with the side's clock the search decides its own
/// time as on a game's clock (within the server's cap).
async fn analyze_route(State(s): State<Arc<ServerState>>, Query(q): Params) -> ApiResult {
    let fen = param(&q, "fen")?.to_string();
    let rules = api::rules_of(q.get("rules").map(String::as_str)).map_err(ApiError::bad)?;
    let clock = api::request_clock(&json!(q)).map_err(ApiError::bad)?;
    let (engine, spec) = s.spec(q.get("engine").map(String::as_str), clock)?;
    // A bad FEN is answered at once, without waiting for a slot.
    let pos = api::position(&fen, rules).map_err(ApiError::bad)?;
    s.analysis(move || {
        let tb = match &pos {
            AnyPosition::Fanorona(p) => crate::tb_cmd::tb_json(p, None),
            AnyPosition::Telo(_) => None,
        };
        let a: Analysis = spec
            .analyse(&pos, "analyze", &Nets::on(&crate::backend::device()))
            .map_err(|e| ApiError::unusable(&engine, pos.variant(), e))?;
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
async fn net(State(s): State<Arc<ServerState>>, Query(q): Params) -> ApiResult {
    let fen = param(&q, "fen")?.to_string();
    let rules = api::rules_of(q.get("rules").map(String::as_str)).map_err(ApiError::bad)?;
    let ckpt = match q.get("ckpt").map(String::as_str) {
        None | Some("") => NetSource::Release,
        Some("none") => NetSource::Fresh,
        Some(d) => NetSource::Dir(d.into()),
    };
    let spec = EngineSpec::network(ckpt, 1);
    s.files.check(&spec)?;
    let pos = api::position(&fen, rules).map_err(ApiError::bad)?;
    s.analysis(move || {
        fn evaluate<G: fanorona_sim::Encode>(
            g: &G,
            spec: &EngineSpec,
        ) -> std::result::Result<Value, ApiError> {
            let mut eval = crate::engine::evaluator(spec, g.variant())
                .map_err(|e| ApiError::unusable("the network", g.variant(), e))?;
            let mut legal = Vec::new();
            if g.outcome().is_none() {
                g.legal_actions(&mut legal);
            }
            let mut priors = vec![Vec::new()];
            let mut wdl = vec![[0.0f32; 3]];
            use fanorona_search::{Evaluator, Outputs};
            eval.evaluate(
                &[g],
                &[legal.as_slice()],
                Outputs::new(&mut priors, &mut wdl),
            );
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
        match pos {
            AnyPosition::Fanorona(p) => evaluate(&p, &spec),
            AnyPosition::Telo(t) => evaluate(&t, &spec),
        }
    })
    .await
}

/// `POST /api/replay` ([`api::replay`]).
async fn replay(body: Body) -> ApiResult {
    let v = body_json(body).await?;
    blocking(move || api::replay(&v).map_err(ApiError::bad)).await
}
