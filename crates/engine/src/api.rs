//! The rules' half of the page's JSON API (`docs/API.md`), with no transport: `fanorona
//! serve` answers `/api/legal`, `/api/play` and `/api/replay` with these functions over
//! HTTP, the offline page with the same functions in its Web Worker (`crates/web`).
//!
//! Each takes the request as a JSON object (a GET's parameters as strings, a POST's
//! body) and gives the answer, or a message naming the bad input.

use fanorona_rules::game::{action_from_index, telo_action_from_index};
use fanorona_rules::notation::{PointStyle, format_turn, parse_turn};
use fanorona_rules::{AnyPosition, Game, Outcome, RuleOptions, TurnMode, Variant, quote};
use serde_json::{Value, json};

/// An API answer: the JSON, or the message of a bad request.
pub type ApiResult = Result<Value, String>;

/// The string field `key` of a request, if present and not blank.
pub fn opt_str<'a>(q: &'a Value, key: &str) -> Option<&'a str> {
    q.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// The string field `key` of a request.
///
/// # Errors
/// Missing or blank.
pub fn field<'a>(q: &'a Value, key: &str) -> Result<&'a str, String> {
    opt_str(q, key).ok_or_else(|| format!("missing `{key}`"))
}

/// Rule options from `rules=vela=black,vela_form=kely` (empty: the defaults).
///
/// # Errors
/// An unknown key or a bad value.
pub fn rules_of(text: Option<&str>) -> Result<RuleOptions, String> {
    let mut rules = RuleOptions::default();
    for pair in text
        .unwrap_or("")
        .split(',')
        .filter(|s| !s.trim().is_empty())
    {
        rules.set_pair(pair).map_err(|e| format!("rules: {e}"))?;
    }
    Ok(rules)
}

/// The request's `rules` field read.
///
/// # Errors
/// As [`rules_of`].
pub fn request_rules(q: &Value) -> Result<RuleOptions, String> {
    rules_of(opt_str(q, "rules"))
}

/// The side to move's clock a request sends, in milliseconds: `left_ms` (its time left)
/// and `increment_ms` (added after its turn; 0 when absent), numbers or digits; `None`
/// without `left_ms`. A search given it decides its own time as on a game's clock.
///
/// # Errors
/// A value that is not a whole number of milliseconds, or an increment without the
/// time left.
pub fn request_clock(q: &Value) -> Result<Option<(u64, u64)>, String> {
    let ms =
        |key: &str| -> Result<Option<u64>, String> {
            match q.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(|| {
                    format!(
                        "`{key}` {}: not a whole number of milliseconds",
                        quote(&n.to_string())
                    )
                }),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| {
                    format!("`{key}` {}: not a whole number of milliseconds", quote(s))
                }),
                Some(v) => Err(format!(
                    "`{key}` {}: not a whole number of milliseconds",
                    quote(&v.to_string())
                )),
            }
        };
    match (ms("left_ms")?, ms("increment_ms")?) {
        (Some(left), inc) => Ok(Some((left, inc.unwrap_or(0)))),
        (None, Some(_)) => Err("`increment_ms` without `left_ms`: send the time left too".into()),
        (None, None) => Ok(None),
    }
}

/// The position of a FEN under `rules`.
///
/// # Errors
/// A FEN that cannot be read, named.
pub fn position(fen: &str, rules: RuleOptions) -> Result<AnyPosition, String> {
    AnyPosition::from_fen(fen.trim(), rules)
        .map_err(|e| format!("fen {}: {}", quote(fen.trim()), e.kind))
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

/// The start FEN of every board (the page's `/api/info` `starts`).
pub fn starts() -> Value {
    let mut m = serde_json::Map::new();
    for v in [Variant::Tsivy, Variant::Dimy, Variant::Telo] {
        m.insert(
            v.name().into(),
            AnyPosition::start(v, RuleOptions::default()).fen().into(),
        );
    }
    Value::Object(m)
}

/// The start of board `v` under `rules`.
///
/// # Errors
/// An unknown board, or telo with a vela.
pub fn start_fen(v: &str, rules: RuleOptions) -> Result<String, String> {
    let variant: Variant = v.parse().map_err(|e| format!("variant: {e}"))?;
    Ok(match variant {
        Variant::Telo if rules.vela.is_some() => return Err("rules: telo has no vela".into()),
        v => AnyPosition::start(v, rules).fen(),
    })
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

/// `GET /api/legal?fen=F[&rules=R]` (or `variant=V` for its start under the rules, the
/// vela start included): every legal turn (each capture path) in notation, the
/// step-level actions, the side to move and the result.
///
/// # Errors
/// A bad FEN, board or rules.
pub fn legal(q: &Value) -> ApiResult {
    let rules = request_rules(q)?;
    let fen = match (field(q, "fen"), opt_str(q, "variant")) {
        (Ok(f), _) => f.to_string(),
        (Err(_), Some(v)) => start_fen(v, rules)?,
        (Err(e), None) => return Err(e),
    };
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
}

/// `POST /api/play` `{"fen": F, "turn": T[, "rules": R]}`: the position after the turn.
///
/// # Errors
/// A bad FEN or rules, a game that is over, a malformed or illegal turn.
pub fn play(v: &Value) -> ApiResult {
    let fen = field(v, "fen")?;
    let turn = field(v, "turn")?;
    let rules = request_rules(v)?;
    let over = || format!("fen {}: the game is over", quote(fen));
    match position(fen, rules)? {
        AnyPosition::Fanorona(mut p) => {
            if p.outcome().is_some() {
                return Err(over());
            }
            let t = parse_turn(&p, turn).map_err(|e| e.to_string())?;
            let text = format_turn(&p, &t, PointStyle::Algebraic);
            p.play_unchecked(&t);
            Ok(json!({ "fen": p.fen(), "turn": text, "result": result_name(p.outcome()) }))
        }
        AnyPosition::Telo(mut t) => {
            if t.outcome().is_some() {
                return Err(over());
            }
            let m = t.parse_move(turn).map_err(|e| e.to_string())?;
            let text = t.format_move(m);
            t.play_unchecked(m);
            Ok(json!({ "fen": t.fen(), "turn": text, "result": result_name(t.outcome()) }))
        }
    }
}

/// `POST /api/replay` `{"turns": [TURN, ...] | "actions": [INDEX, ...], "fen": F |
/// "variant": V[, "rules": R]}`: every position of a game at the end of each turn, and
/// the turns in notation, for the game viewer. `turns` are notation (arena records);
/// `actions` are step-level action indices (training records), grouped here into whole
/// turns.
///
/// # Errors
/// A bad start, rules, turn or action, named with its number.
pub fn replay(v: &Value) -> ApiResult {
    enum Moves {
        Turns(Vec<String>),
        Actions(Vec<usize>),
    }
    let rules = request_rules(v)?;
    let fen = match opt_str(v, "fen") {
        Some(f) => f.to_string(),
        None => start_fen(field(v, "variant")?, rules)?,
    };
    let moves = if let Some(t) = v.get("turns").and_then(Value::as_array) {
        Moves::Turns(
            t.iter()
                .map(|t| t.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or("`turns` must be strings")?,
        )
    } else if let Some(a) = v.get("actions").and_then(Value::as_array) {
        Moves::Actions(
            a.iter()
                .map(|x| x.as_u64().and_then(|x| usize::try_from(x).ok()))
                .collect::<Option<_>>()
                .ok_or("`actions` must be action indices")?,
        )
    } else {
        return Err("missing array field `turns` (or `actions`)".into());
    };
    let mut fens = Vec::new();
    let mut texts = Vec::new();
    let result = match (position(&fen, rules)?, moves) {
        (AnyPosition::Fanorona(mut p), Moves::Turns(turns)) => {
            fens.push(p.fen());
            for (i, text) in turns.iter().enumerate() {
                let t = parse_turn(&p, text).map_err(|e| format!("turn {}: {e}", i + 1))?;
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
                    return Err(format!(
                        "action {} ({a}) is not legal in the game at that point",
                        i + 1
                    ));
                }
                step.apply(a);
                pending.push(action_from_index(points, a).expect("a legal action has a step"));
                if step.chain().is_none() {
                    let t = p
                        .turn_of_actions(&pending)
                        .ok_or_else(|| format!("actions up to {} are not a whole turn", i + 1))?;
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
                        .map_err(|e| format!("turn {}: {e}", i + 1))?,
                    Moves::Actions(v) => telo_action_from_index(v[i])
                        .filter(|m| t.moves().contains(m))
                        .ok_or_else(|| format!("action {} ({}) is not legal", i + 1, v[i]))?,
                };
                texts.push(t.format_move(m));
                t.play_unchecked(m);
                fens.push(t.fen());
            }
            result_name(t.outcome())
        }
    };
    Ok(json!({ "fens": fens, "turns": texts, "result": result }))
}
