//! A deliberately naive generator written straight from docs/RULES.md (arrays of cells, (x, y)
//! coordinates, no bitboards, no tables), whose full turn lists must equal the fast
//! generator's on thousands of positions reached by random play.

use fanorona_rules::notation::format_turn;
use fanorona_rules::{
    Color, PointStyle, Position, RuleOptions, TurnMode, Variant, VelaForm, perft,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeSet;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Empty,
    Piece(Color),
}

#[derive(Clone)]
struct Naive {
    w: i32,
    h: i32,
    cells: Vec<Cell>,
    side: Color,
    ply: u16,
    rules: RuleOptions,
}

const DIRS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

impl Naive {
    fn from(pos: &Position) -> Naive {
        let g = pos.geometry();
        let (w, h) = (g.width as i32, g.height as i32);
        let mut cells = vec![Cell::Empty; (w * h) as usize];
        for c in [Color::White, Color::Black] {
            for p in pos.pieces(c) {
                cells[p.index()] = Cell::Piece(c);
            }
        }
        Naive {
            w,
            h,
            cells,
            side: pos.side_to_move(),
            ply: pos.ply(),
            rules: *pos.rules(),
        }
    }
    fn on(&self, x: i32, y: i32) -> bool {
        x >= 0 && y >= 0 && x < self.w && y < self.h
    }
    fn at(&self, x: i32, y: i32) -> Cell {
        self.cells[(y * self.w + x) as usize]
    }
    /// Is there a line from (x, y) one step in (dx, dy)?
    fn line(&self, x: i32, y: i32, dx: i32, dy: i32) -> bool {
        self.on(x + dx, y + dy) && (dx == 0 || dy == 0 || (x + y) % 2 == 0)
    }
    /// The board after the side to move's piece on `(x, y)` steps by `(dx, dy)` and
    /// takes the pieces on `run`.
    fn after_capture(&self, (x, y): (i32, i32), (dx, dy): (i32, i32), run: &[(i32, i32)]) -> Naive {
        let mut b = self.clone();
        b.cells[(y * self.w + x) as usize] = Cell::Empty;
        b.cells[((y + dy) * self.w + x + dx) as usize] = Cell::Piece(self.side);
        for &(cx, cy) in run {
            b.cells[(cy * self.w + cx) as usize] = Cell::Empty;
        }
        b
    }

    fn name(&self, x: i32, y: i32) -> String {
        format!("{}{}", (b'a' + x as u8) as char, y + 1)
    }
    fn count(&self, c: Color) -> usize {
        self.cells.iter().filter(|&&k| k == Cell::Piece(c)).count()
    }
    /// The run of enemy pieces starting at (x, y) going (dx, dy).
    fn run(&self, mut x: i32, mut y: i32, dx: i32, dy: i32, enemy: Color) -> Vec<(i32, i32)> {
        let mut v = Vec::new();
        loop {
            if !self.on(x, y) || self.at(x, y) != Cell::Piece(enemy) {
                return v;
            }
            v.push((x, y));
            // Runs follow the line: a diagonal run continues only where the line does.
            if !self.line(x, y, dx, dy) {
                return v;
            }
            x += dx;
            y += dy;
        }
    }
    /// Capturing steps of the piece at (x, y): (dx, dy, approach?, captured run).
    #[allow(clippy::type_complexity)]
    fn captures_from(&self, x: i32, y: i32) -> Vec<(i32, i32, bool, Vec<(i32, i32)>)> {
        let enemy = self.side.other();
        let mut v = Vec::new();
        for (dx, dy) in DIRS {
            if !self.line(x, y, dx, dy) || self.at(x + dx, y + dy) != Cell::Empty {
                continue;
            }
            let (tx, ty) = (x + dx, y + dy);
            if self.line(tx, ty, dx, dy) {
                let r = self.run(tx + dx, ty + dy, dx, dy, enemy);
                if !r.is_empty() {
                    v.push((dx, dy, true, r));
                }
            }
            if self.line(x, y, -dx, -dy) {
                let r = self.run(x - dx, y - dy, -dx, -dy, enemy);
                if !r.is_empty() {
                    v.push((dx, dy, false, r));
                }
            }
        }
        v
    }

    /// Every turn (every path) in notation.
    fn turns(&self) -> Vec<String> {
        let us = self.side;
        // The vela phase: while the riatra winner has more than 5 pieces (dimy, 5x5: 3).
        let limit = if self.w == 5 && self.h == 5 { 3 } else { 5 };
        let vela = self.rules.vela.filter(|&v| self.count(v.other()) > limit);
        let forbidden = vela.is_some_and(|v| v != us);
        let vela_single = vela == Some(us);
        let single = self.ply == 1 && !self.rules.reply_chains;
        let mut out = Vec::new();
        let mut any_capture = false;
        if !forbidden {
            for y in 0..self.h {
                for x in 0..self.w {
                    if self.at(x, y) != Cell::Piece(us) {
                        continue;
                    }
                    for (dx, dy, app, run) in self.captures_from(x, y) {
                        any_capture = true;
                        let run = if vela_single { run[..1].to_vec() } else { run };
                        let b = self.after_capture((x, y), (dx, dy), &run);
                        let text = format!(
                            "{}{}({}{})",
                            self.name(x, y),
                            self.name(x + dx, y + dy),
                            if app { '+' } else { '-' },
                            run.len()
                        );
                        out.push(text.clone());
                        if !single && !vela_single {
                            let visited = vec![(x, y), (x + dx, y + dy)];
                            b.chain(x + dx, y + dy, (dx, dy), visited, text, &mut out);
                        }
                    }
                }
            }
        }
        if any_capture || vela_single {
            return out;
        }
        for y in 0..self.h {
            for x in 0..self.w {
                if self.at(x, y) != Cell::Piece(us) {
                    continue;
                }
                for (dx, dy) in DIRS {
                    if self.line(x, y, dx, dy) && self.at(x + dx, y + dy) == Cell::Empty {
                        out.push(format!("{}{}", self.name(x, y), self.name(x + dx, y + dy)));
                    }
                }
            }
        }
        out
    }

    fn chain(
        &self,
        x: i32,
        y: i32,
        last: (i32, i32),
        visited: Vec<(i32, i32)>,
        prefix: String,
        out: &mut Vec<String>,
    ) {
        for (dx, dy, app, run) in self.captures_from(x, y) {
            if (dx, dy) == last || visited.contains(&(x + dx, y + dy)) {
                continue;
            }
            let b = self.after_capture((x, y), (dx, dy), &run);
            let text = format!(
                "{prefix}-{}({}{})",
                self.name(x + dx, y + dy),
                if app { '+' } else { '-' },
                run.len()
            );
            out.push(text.clone());
            let mut v = visited.clone();
            v.push((x + dx, y + dy));
            b.chain(x + dx, y + dy, (dx, dy), v, text, out);
        }
    }
}

/// The start position written out from docs/RULES.md (rows from the top, as FEN), with
/// vela kely's removal of the riatra winner's back row.
fn naive_start(variant: Variant, rules: &RuleOptions) -> Vec<Cell> {
    let rows: Vec<&str> = match variant {
        Variant::Tsivy => vec![
            "BBBBBBBBB",
            "BBBBBBBBB",
            "BWBW.BWBW",
            "WWWWWWWWW",
            "WWWWWWWWW",
        ],
        _ => vec!["BBBBB", "BBBBB", "BW.BW", "WWWWW", "WWWWW"],
    };
    let h = rows.len();
    let mut cells = Vec::new();
    // Cells are stored bottom row first (row 1 = index 0).
    for (y, row) in rows.iter().rev().enumerate() {
        let winner_back_row = match (rules.vela, rules.vela_form) {
            (Some(Color::White), VelaForm::Kely) => y == h - 1, // Black won: its top row
            (Some(Color::Black), VelaForm::Kely) => y == 0,     // White won: row 1
            _ => false,
        };
        for c in row.chars() {
            cells.push(match c {
                _ if winner_back_row => Cell::Empty,
                'W' => Cell::Piece(Color::White),
                'B' => Cell::Piece(Color::Black),
                _ => Cell::Empty,
            });
        }
    }
    cells
}

/// Checks the fast generator against the naive one at every node of the tree to `depth`.
fn check_tree(pos: &Position, depth: u32) -> u64 {
    check(pos);
    if depth == 0 {
        return 1;
    }
    let mut leaves = 0;
    for t in pos.turns(TurnMode::Distinct) {
        let mut next = *pos;
        next.play_unchecked(&t);
        leaves += check_tree(&next, depth - 1);
    }
    leaves
}

/// Positions reached by random play from the start (every position of every game).
fn random_positions(variant: Variant, rules: RuleOptions, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut turns = Vec::new();
    while out.len() < n {
        let mut pos = Position::start(variant, rules);
        loop {
            out.push(pos);
            if pos.outcome().is_some() || out.len() >= n {
                break;
            }
            pos.turns_into(&mut turns, TurnMode::Paths);
            let t = turns[rng.random_range(0..turns.len())];
            pos.play_unchecked(&t);
        }
    }
    out
}

fn check(pos: &Position) {
    let naive = Naive::from(pos);
    let mut expected = naive.turns();
    expected.sort();
    let fast = pos.turns(TurnMode::Paths);
    let mut got: Vec<String> = fast
        .iter()
        .map(|t| format_turn(pos, t, PointStyle::Algebraic))
        .collect();
    got.sort();
    assert_eq!(got, expected, "every path, position {}", pos.fen());
    // Distinct turns: one per (origin, end, captured set), and none lost.
    let distinct = pos.turns(TurnMode::Distinct);
    let keys: BTreeSet<_> = fast.iter().map(|t| t.key()).collect();
    let dkeys: BTreeSet<_> = distinct.iter().map(|t| t.key()).collect();
    assert_eq!(
        distinct.len(),
        dkeys.len(),
        "distinct turns repeat, {}",
        pos.fen()
    );
    assert_eq!(keys, dkeys, "distinct turns, {}", pos.fen());
}

fn run(variant: Variant, rules: RuleOptions, seed: u64) {
    let positions = random_positions(variant, rules, 10_000, seed);
    assert_eq!(positions.len(), 10_000);
    let mut chains = 0;
    for pos in &positions {
        check(pos);
        chains += pos
            .turns(TurnMode::Paths)
            .iter()
            .filter(|t| t.len() > 1)
            .count();
        if !rules.reply_chains && pos.side_to_move() == Color::Black {
            // The reply rule bites only at turn 1: check every position as if it were.
            let as_reply = Position::new(
                pos.variant(),
                rules,
                fanorona_rules::ByColor {
                    white: pos.pieces(Color::White),
                    black: pos.pieces(Color::Black),
                },
                pos.side_to_move(),
                0,
                1,
            )
            .unwrap();
            check(&as_reply);
        }
    }
    assert!(chains > 1000, "random play met capture chains ({chains})");
}

#[test]
fn reference_tsivy_default() {
    run(Variant::Tsivy, RuleOptions::default(), 1);
}

#[test]
fn reference_tsivy_single_reply() {
    run(
        Variant::Tsivy,
        RuleOptions {
            reply_chains: false,
            ..RuleOptions::default()
        },
        2,
    );
}

#[test]
fn reference_dimy_default() {
    run(Variant::Dimy, RuleOptions::default(), 3);
}

#[test]
fn reference_dimy_single_reply() {
    run(
        Variant::Dimy,
        RuleOptions {
            reply_chains: false,
            ..RuleOptions::default()
        },
        4,
    );
}

#[test]
fn vela_kely_and_dimy_vela_starts() {
    for variant in [Variant::Tsivy, Variant::Dimy] {
        for v in [Color::White, Color::Black] {
            for form in [VelaForm::Be, VelaForm::Kely] {
                let rules = RuleOptions {
                    vela: Some(v),
                    vela_form: form,
                    ..RuleOptions::default()
                };
                let start = Position::start(variant, rules);
                let naive = Naive::from(&start);
                assert!(
                    naive.cells == naive_start(variant, &rules),
                    "{variant} vela={v:?} {form}: start {}",
                    start.fen()
                );
                assert_eq!(start.side_to_move(), v, "the vela player moves first");
                // Every node of the first three turns, compared turn list by turn list.
                let leaves = check_tree(&start, 3);
                assert_eq!(leaves, perft(&start, 3, TurnMode::Distinct));
                assert!(leaves > 0);
            }
        }
    }
    // The example of the issue: vela kely with White as the vela player.
    let mut rules = RuleOptions::default();
    rules.set_pair("vela=white").unwrap();
    rules.set_pair("vela_form=kely").unwrap();
    assert_eq!(
        Position::start(Variant::Tsivy, rules).fen(),
        "9/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0"
    );
}

#[test]
fn reference_vela_kely_and_dimy_vela() {
    for (variant, v, form, seed) in [
        (Variant::Tsivy, Color::White, VelaForm::Kely, 11),
        (Variant::Tsivy, Color::Black, VelaForm::Kely, 12),
        (Variant::Dimy, Color::White, VelaForm::Be, 13),
        (Variant::Dimy, Color::Black, VelaForm::Kely, 14),
    ] {
        let rules = RuleOptions {
            vela: Some(v),
            vela_form: form,
            ..RuleOptions::default()
        };
        let positions = random_positions(variant, rules, 3_000, seed);
        for p in &positions {
            check(p);
        }
        assert!(
            positions.iter().any(|p| p.vela_phase().is_none()),
            "{variant} {form}: the vela phase ended somewhere"
        );
        assert!(
            positions.iter().any(|p| p.vela_phase().is_some()),
            "{variant} {form}: the vela phase was played"
        );
        if variant == Variant::Dimy {
            // Dimy's vela lasts while the winner has more than 3 pieces: 4 still restricts.
            assert!(
                positions
                    .iter()
                    .any(|p| p.vela_phase().is_some() && p.pieces(v.other()).count() == 4),
                "dimy vela phase with 4 pieces"
            );
        }
    }
}

#[test]
fn reference_vela() {
    for (v, seed) in [(Color::Black, 5), (Color::White, 6)] {
        let rules = RuleOptions {
            vela: Some(v),
            ..RuleOptions::default()
        };
        let positions = random_positions(Variant::Tsivy, rules, 3_000, seed);
        for p in &positions {
            check(p);
        }
        assert!(
            positions.iter().any(|p| p.vela_phase().is_none()),
            "vela phase ended somewhere"
        );
    }
}
