//! Reports: Markdown tables, CSV and JSON files, and the Elo-against-generation plot.

use crate::elo::{PairResult, PairedDiff, Pentanomial, Rating, Trend};
use fanorona_rules::durable::write_atomic;
use plotters::coord::Shift;
use plotters::coord::ranged1d::AsRangedCoord;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

fn fmt_elo(x: f64) -> String {
    format!("{x:+.0}")
}

/// The results of every pairing as a Markdown table, with the pentanomial counts of each
/// pairing's finished pairs (`pairs[i]` for `results[i]`: a start played once from each
/// side, binned by the first player's points over the two games, 0 to 2) and the Elo
/// they give, whose interval counts the pairs, not the games (fishtest's).
pub fn results_markdown(specs: &[String], results: &[PairResult], pairs: &[Pentanomial]) -> String {
    let mut s = String::from(
        "| player | opponent | wins | draws | losses | score | pairs 0 / ½ / 1 / 1½ / 2 | paired Elo [95 %] |\n|---|---|---:|---:|---:|---:|---|---|\n",
    );
    for (i, r) in results.iter().enumerate() {
        let g = (r.wins + r.draws + r.losses).max(1) as f64;
        let (bins, elo) = match pairs.get(i).filter(|p| p.pairs() > 0) {
            Some(p) => {
                let (e, lo, hi) = p.elo();
                let b = p.0.map(|n| n.to_string()).join(" / ");
                (
                    b,
                    format!("{} [{}, {}]", fmt_elo(e), fmt_elo(lo), fmt_elo(hi)),
                )
            }
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.1} % | {bins} | {elo} |",
            specs[r.a],
            specs[r.b],
            r.wins,
            r.draws,
            r.losses,
            100.0 * (r.wins as f64 + 0.5 * r.draws as f64) / g
        );
    }
    s
}

/// A gauntlet's checkpoint against an earlier one, on their twin games (see
/// [`crate::arena::paired_diff`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The checkpoint's spec.
    pub player: String,
    /// The spec of the earlier checkpoint.
    pub previous: String,
    /// Where the checkpoint stands on the gauntlet's axis (generation or seconds).
    pub x: u64,
    /// Where the other one stands.
    pub previous_x: u64,
    /// Its scores against the previous one's on the same games.
    pub diff: PairedDiff,
}

/// The steps as a Markdown table under `heading`; `x_label` names the axis.
pub fn steps_markdown(steps: &[Step], heading: &str, x_label: &str) -> String {
    let mut s = format!(
        "{heading}, on twin games (the same opponent, start and colours; bold: the 95 % \
         interval excludes 0):\n\n\
         | {x_label} | against | twin games | score | its score | difference, points [95 %] | Elo [95 %] | twins better-worse |\n\
         |---:|---:|---:|---:|---:|---|---|---|\n"
    );
    for st in steps {
        let d = &st.diff;
        let (e, lo, hi) = d.elo();
        let b = if d.significant() { "**" } else { "" };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} % | {:.1} % | {b}{:+.1} [{:+.1}, {:+.1}]{b} | {} [{}, {}] | {}-{} |",
            st.x,
            st.previous_x,
            d.games,
            100.0 * d.score_a,
            100.0 * d.score_b,
            100.0 * d.diff(),
            100.0 * (d.diff() - d.half),
            100.0 * (d.diff() + d.half),
            fmt_elo(e),
            fmt_elo(lo),
            fmt_elo(hi),
            d.better,
            d.worse
        );
    }
    s
}

/// The steps as JSON rows (scores and differences as fractions).
pub fn steps_json(steps: &[Step]) -> serde_json::Value {
    let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
    let r1 = |x: f64| (x * 10.0).round() / 10.0;
    serde_json::Value::Array(
        steps
            .iter()
            .map(|st| {
                let d = &st.diff;
                let (e, lo, hi) = d.elo();
                serde_json::json!({
                    "player": st.player,
                    "previous": st.previous,
                    "x": st.x,
                    "previous_x": st.previous_x,
                    "games": d.games,
                    "score": r3(d.score_a),
                    "previous_score": r3(d.score_b),
                    "diff": r3(d.diff()),
                    "low": r3(d.diff() - d.half),
                    "high": r3(d.diff() + d.half),
                    "elo": r1(e),
                    "elo_low": r1(lo),
                    "elo_high": r1(hi),
                    "better": d.better,
                    "worse": d.worse,
                    "significant": d.significant(),
                })
            })
            .collect(),
    )
}

/// The trend of a gauntlet's last `checkpoints` checkpoints (see [`Trend`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TrendRow {
    /// How many of the last checkpoints were fitted.
    pub checkpoints: usize,
    /// Where the first of them stands on the axis.
    pub from_x: u64,
    /// Where the last stands.
    pub to_x: u64,
    /// The slope per `per` (an hour on a seconds axis, a generation otherwise).
    pub trend: Trend,
    /// The slope's unit of the axis: `hour` or `generation`.
    pub per: &'static str,
}

/// The trends as a Markdown table; `x_label` names the axis.
pub fn trends_markdown(rows: &[TrendRow], x_label: &str) -> String {
    let per = rows.first().map_or("unit", |r| r.per);
    let mut s = format!(
        "The slope of the curve's end, fitted on twin games over the last checkpoints (bold: \
         the 95 % interval excludes 0):\n\n\
         | checkpoints | {x_label} | twins | score points per {per} [95 %] |\n|---:|---|---:|---|\n"
    );
    for r in rows {
        let t = &r.trend;
        let b = if t.significant() { "**" } else { "" };
        let _ = writeln!(
            s,
            "| {} | {} to {} | {} | {b}{:+.2} [{:+.2}, {:+.2}]{b} |",
            r.checkpoints,
            r.from_x,
            r.to_x,
            t.twins,
            100.0 * t.slope,
            100.0 * (t.slope - t.half),
            100.0 * (t.slope + t.half)
        );
    }
    s
}

/// The trends as JSON rows (slopes as fractions of a point per `per`).
pub fn trends_json(rows: &[TrendRow]) -> serde_json::Value {
    let r5 = |x: f64| (x * 1e5).round() / 1e5;
    serde_json::Value::Array(
        rows.iter()
            .map(|r| {
                let t = &r.trend;
                serde_json::json!({
                    "checkpoints": r.checkpoints,
                    "from_x": r.from_x,
                    "to_x": r.to_x,
                    "twins": t.twins,
                    "slope": r5(t.slope),
                    "low": r5(t.slope - t.half),
                    "high": r5(t.slope + t.half),
                    "per": r.per,
                    "significant": t.significant(),
                })
            })
            .collect(),
    )
}

/// Ratings, best first, as a Markdown table.
pub fn ratings_markdown(specs: &[String], r: &[Rating], anchor: usize) -> String {
    let mut order: Vec<usize> = (0..specs.len()).collect();
    order.sort_by(|&a, &b| r[b].elo.total_cmp(&r[a].elo));
    let mut s = String::from(
        "| player | Elo | 95 % interval | games | score |\n|---|---:|---|---:|---:|\n",
    );
    for &i in &order {
        let x = &r[i];
        let anchor_note = if i == anchor { " (anchor)" } else { "" };
        let prior = if x.prior { " *" } else { "" };
        let _ = writeln!(
            s,
            "| {}{anchor_note} | {}{prior} | [{}, {}] | {} | {:.1} % |",
            specs[i],
            fmt_elo(x.elo),
            fmt_elo(x.low),
            fmt_elo(x.high),
            x.games,
            100.0 * x.score
        );
    }
    if order.iter().any(|&i| r[i].prior) {
        let _ = writeln!(
            s,
            "\n\\* won or lost every game: rated with {} virtual draws per pairing (BayesElo's prior)",
            crate::elo::VIRTUAL_DRAWS
        );
    }
    s
}

/// A rating for JSON: one decimal. Ratings are always finite; a non-finite value (a bug)
/// would be written as 0 rather than `null`, which consumers cannot read as a number.
fn num(x: f64) -> serde_json::Value {
    debug_assert!(x.is_finite(), "ratings are finite");
    serde_json::json!(if x.is_finite() {
        (x * 10.0).round() / 10.0
    } else {
        0.0
    })
}

/// `{"ratings":[{"player","elo","low","high","games","score","prior"}..],"games":N}`: every
/// number finite, never `null`; `prior` marks a player rated through the virtual draws
/// (it won or lost every game).
pub fn ratings_json(specs: &[String], r: &[Rating], games: usize) -> serde_json::Value {
    let list: Vec<serde_json::Value> = specs
        .iter()
        .zip(r)
        .map(|(s, x)| {
            serde_json::json!({
                "player": s, "elo": num(x.elo), "low": num(x.low), "high": num(x.high),
                "games": x.games, "score": num_raw(x.score), "prior": x.prior,
            })
        })
        .collect();
    serde_json::json!({"ratings": list, "games": games})
}

fn num_raw(x: f64) -> serde_json::Value {
    serde_json::json!(if x.is_finite() { x } else { 0.0 })
}

/// Writes `results.csv`, `ratings.csv` and `ratings.json` into `dir`.
///
/// # Errors
/// A file that cannot be written.
pub fn save(
    dir: &Path,
    specs: &[String],
    results: &[PairResult],
    r: &[Rating],
    games: usize,
) -> std::io::Result<()> {
    let mut csv = String::from("player,opponent,wins,draws,losses\n");
    for p in results {
        let _ = writeln!(
            csv,
            "\"{}\",\"{}\",{},{},{}",
            specs[p.a], specs[p.b], p.wins, p.draws, p.losses
        );
    }
    write_atomic(&dir.join("results.csv"), csv.as_bytes())?;
    let mut csv = String::from("player,elo,low,high,games,score,prior\n");
    for (s, x) in specs.iter().zip(r) {
        let _ = writeln!(
            csv,
            "\"{s}\",{},{},{},{},{},{}",
            x.elo, x.low, x.high, x.games, x.score, x.prior
        );
    }
    write_atomic(&dir.join("ratings.csv"), csv.as_bytes())?;
    write_atomic(
        &dir.join("ratings.json"),
        serde_json::to_string_pretty(&ratings_json(specs, r, games))?.as_bytes(),
    )
}

/// An SVG plot of Elo (with its interval) against training generation or time (`x_desc`
/// names the axis).
///
/// # Errors
/// The file cannot be drawn.
pub fn plot_elo(
    path: &Path,
    title: &str,
    x_desc: &str,
    points: &[(u64, f64, f64, f64)],
) -> Result<(), String> {
    let finite: Vec<&(u64, f64, f64, f64)> = points.iter().filter(|p| p.1.is_finite()).collect();
    if finite.is_empty() {
        return Err("no finite rating to plot".into());
    }
    let x_max = points.iter().map(|p| p.0).max().unwrap_or(1).max(1);
    let lo = finite
        .iter()
        .map(|p| if p.2.is_finite() { p.2 } else { p.1 })
        .fold(f64::INFINITY, f64::min);
    let hi = finite
        .iter()
        .map(|p| if p.3.is_finite() { p.3 } else { p.1 })
        .fold(f64::NEG_INFINITY, f64::max);
    let pad = ((hi - lo) * 0.1).max(20.0);
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (800, 480)).into_drawing_area();
    let mut chart = chart_on(&root, title, 0u64..x_max + 1, (lo - pad)..(hi + pad))?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("Elo")
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(finite.iter().map(|p| {
            let (l, h) = (
                if p.2.is_finite() { p.2 } else { p.1 },
                if p.3.is_finite() { p.3 } else { p.1 },
            );
            PathElement::new(vec![(p.0, l), (p.0, h)], BLUE.mix(0.4))
        }))
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(LineSeries::new(finite.iter().map(|p| (p.0, p.1)), &BLUE))
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(
            finite
                .iter()
                .map(|p| Circle::new((p.0, p.1), 3, BLUE.filled())),
        )
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    drop(chart);
    drop(root);
    write_atomic(path, svg.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

/// An SVG plot of several series `(name, points)` against a shared x axis, with
/// vertical bars `(x, low, high)` for series `i` from `bars[i]` (intervals; none where
/// `bars` is shorter).
///
/// # Errors
/// Nothing finite to plot, or the file cannot be drawn.
pub fn plot_series(
    path: &Path,
    title: &str,
    x_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    bars: &[Vec<(f64, f64, f64)>],
) -> Result<(), String> {
    let ends = bars
        .iter()
        .flatten()
        .flat_map(|&(x, l, h)| [(x, l), (x, h)]);
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .chain(ends)
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    if pts.is_empty() {
        return Err("nothing to plot".into());
    }
    let (x0, x1) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
    let (y0, y1) = pts
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
    let pad = ((y1 - y0) * 0.05).max(1e-3);
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (800, 480)).into_drawing_area();
    let mut chart = chart_on(&root, title, x0..x1.max(x0 + 1.0), (y0 - pad)..(y1 + pad))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .draw()
        .map_err(|e| e.to_string())?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    for (i, (name, points)) in series.iter().enumerate() {
        let c = colors[i % colors.len()];
        chart
            .draw_series(LineSeries::new(
                points.iter().copied().filter(|p| p.1.is_finite()),
                c.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        if let Some(b) = bars.get(i) {
            chart
                .draw_series(
                    b.iter()
                        .filter(|p| p.1.is_finite() && p.2.is_finite())
                        .map(|&(x, l, h)| PathElement::new(vec![(x, l), (x, h)], c.mix(0.5))),
                )
                .map_err(|e| e.to_string())?;
        }
    }
    let pad_range = ((x0, x1.max(x0 + 1.0)), (y0 - pad, y1 + pad));
    chart
        .configure_series_labels()
        .position(legend_corner(series, pad_range))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    drop(chart);
    drop(root);
    write_atomic(path, svg.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

/// The corner of the plot whose lines pass least through it, for the legend: each
/// series' segments sampled evenly, the samples counted in each corner's box (the outer
/// 45 % of the width and 35 % of the height). Ties go to the upper right, then upper
/// left, lower right, lower left.
fn legend_corner(
    series: &[(String, Vec<(f64, f64)>)],
    ((x0, x1), (y0, y1)): ((f64, f64), (f64, f64)),
) -> SeriesLabelPosition {
    let (w, h) = ((x1 - x0).max(1e-12), (y1 - y0).max(1e-12));
    // Corners as (right, upper).
    let corners = [(true, true), (false, true), (true, false), (false, false)];
    let mut counts = [0usize; 4];
    for (_, points) in series {
        let finite: Vec<(f64, f64)> = points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect();
        let samples = finite.windows(2).flat_map(|s| {
            (0..20).map(move |k| {
                let t = f64::from(k) / 20.0;
                (
                    s[0].0 + t * (s[1].0 - s[0].0),
                    s[0].1 + t * (s[1].1 - s[0].1),
                )
            })
        });
        for (x, y) in samples.chain(finite.last().copied()) {
            let (fx, fy) = ((x - x0) / w, (y - y0) / h);
            for (c, &(right, upper)) in counts.iter_mut().zip(&corners) {
                let in_x = if right { fx >= 0.55 } else { fx <= 0.45 };
                let in_y = if upper { fy >= 0.65 } else { fy <= 0.35 };
                if in_x && in_y {
                    *c += 1;
                }
            }
        }
    }
    let best = (0..4).min_by_key(|&i| counts[i]).expect("four corners");
    match corners[best] {
        (true, true) => SeriesLabelPosition::UpperRight,
        (false, true) => SeriesLabelPosition::UpperLeft,
        (true, false) => SeriesLabelPosition::LowerRight,
        (false, false) => SeriesLabelPosition::LowerLeft,
    }
}

/// A plot's chart on an SVG drawing, over axes of types `X` and `Y`.
type Chart<'a, 'b, X, Y> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<<X as AsRangedCoord>::CoordDescType, <Y as AsRangedCoord>::CoordDescType>,
>;

/// The plots' chart: `root` filled white, `title` on top, axes over `x` and `y`.
fn chart_on<'a, 'b, X: AsRangedCoord, Y: AsRangedCoord>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &str,
    x: X,
    y: Y,
) -> Result<Chart<'a, 'b, X, Y>, String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x, y)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_goes_where_the_lines_are_not() {
        let range = ((0.0, 10.0), (0.0, 10.0));
        let line = |pts: &[(f64, f64)]| vec![("a".to_string(), pts.to_vec())];
        // A rising line leaves the upper left and the lower right empty: the upper left
        // wins the tie-break after the upper right is ruled out.
        let rising = line(&[(0.0, 0.0), (10.0, 10.0)]);
        assert!(matches!(
            legend_corner(&rising, range),
            SeriesLabelPosition::UpperLeft
        ));
        // A falling line: the upper right is empty.
        let falling = line(&[(0.0, 10.0), (10.0, 0.0)]);
        assert!(matches!(
            legend_corner(&falling, range),
            SeriesLabelPosition::UpperRight
        ));
        // A line along the top: a lower corner.
        let top = line(&[(0.0, 9.0), (10.0, 9.0)]);
        assert!(matches!(
            legend_corner(&top, range),
            SeriesLabelPosition::LowerRight
        ));
        // The segments count, not only their ends: a line across the bottom from one
        // point to another crosses both lower corners; a second line up the right side
        // rules out the upper right.
        let two = vec![
            ("a".to_string(), vec![(0.0, 1.0), (10.0, 1.0)]),
            ("b".to_string(), vec![(9.0, 0.0), (9.0, 10.0)]),
        ];
        assert!(matches!(
            legend_corner(&two, range),
            SeriesLabelPosition::UpperLeft
        ));
    }
}
