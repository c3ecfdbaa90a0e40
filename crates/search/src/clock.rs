//! Clocks: a game's time control (`60+0.6`: a minute for the game, 0.6 s added after
//! each turn), a side's clock as a player is told it, and the time manager's share of it
//! for one turn: the one place that turns a clock into a turn's time (the arena, `play`
//! and the engine protocol's `go wtime btime winc binc` all use it).

use crate::Limits;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The most a time control's base or increment may be: a day.
const MAX_SECONDS: f64 = 86_400.0;

/// A game's time control: each side's time for the game and the increment added to its
/// clock after each of its turns (Fischer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each side's time for the game.
    pub base: Duration,
    /// Added to a side's clock after each of its turns.
    pub increment: Duration,
}

/// A time control that does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("time control {}: {why} (write BASE+INCREMENT in seconds, e.g. 60+0.6, or BASE alone)", fanorona_rules::quote(.text))]
pub struct TimeControlError {
    text: String,
    why: &'static str,
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let err = |why| TimeControlError {
            text: text.to_string(),
            why,
        };
        let (base, increment) = match text.trim().split_once('+') {
            Some((b, i)) => (b, i),
            None => (text.trim(), "0"),
        };
        let seconds = |s: &str| -> Result<f64, TimeControlError> {
            let v: f64 = s
                .trim()
                .parse()
                .map_err(|_| err("not a number of seconds"))?;
            if !v.is_finite() || v < 0.0 {
                return Err(err("seconds must be zero or more"));
            }
            if v > MAX_SECONDS {
                return Err(err("more than a day"));
            }
            Ok(v)
        };
        let (base, increment) = (seconds(base)?, seconds(increment)?);
        if base == 0.0 && increment == 0.0 {
            return Err(err("no time at all"));
        }
        Ok(TimeControl {
            base: Duration::from_secs_f64(base),
            increment: Duration::from_secs_f64(increment),
        })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base.as_secs_f64(),
            self.increment.as_secs_f64()
        )
    }
}

/// One side's clock when it is to choose a turn: what a player on a clock is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockState {
    /// Time left on the side's clock.
    pub left: Duration,
    /// Added after the turn.
    pub increment: Duration,
    /// Turns this side has chosen in the game so far.
    pub turns_played: u32,
    /// Turns until the clock's next period, when the control has periods (the engine
    /// protocol's `movestogo`); `None`: the rest of the game.
    pub moves_to_go: Option<u32>,
}

impl ClockState {
    /// The time manager: how long the next turn may take. A share of the time left (a
    /// 40th, or the turns to go's share) plus most of the increment, never more than
    /// half of what is left, and at least a millisecond.
    pub fn turn_budget(&self) -> Duration {
        let share =
            self.left / self.moves_to_go.unwrap_or(40).max(1) + self.increment.mul_f64(0.75);
        share.min(self.left / 2).max(Duration::from_millis(1))
    }

    /// A turn's time on this clock for a player whose own limit a turn is `per_turn`:
    /// the shorter of the two.
    pub fn cap(&self, per_turn: Option<Duration>) -> Duration {
        let budget = self.turn_budget();
        per_turn.map_or(budget, |t| t.min(budget))
    }

    /// The time manager's two figures for a search that decides its own turn's length
    /// (alpha-beta's iterative deepening): the [`turn_budget`](Self::turn_budget) as the
    /// target it stretches or shrinks, and the limit no turn passes: [`LIMIT_TARGETS`]
    /// targets, never more than a [`LIMIT_SHARE`] of the time left, so that one long
    /// turn never brings the flag close.
    pub fn turn_time(&self) -> TurnTime {
        let target = self.turn_budget();
        let limit = (target * LIMIT_TARGETS)
            .min(self.left.mul_f64(LIMIT_SHARE))
            .max(target);
        TurnTime { target, limit }
    }

    /// Alpha-beta's limits for a turn on this clock, its own being `own`: a time a turn
    /// of its own stays, within the clock's limit; without one the time manager's target
    /// and limit decide ([`Limits::target`]); a depth or node limit still binds.
    pub fn limits(&self, own: Limits) -> Limits {
        let t = self.turn_time();
        match own.time {
            Some(time) => Limits {
                time: Some(time.min(t.limit)),
                ..own
            },
            None => Limits {
                time: Some(t.limit),
                target: Some(t.target),
                ..own
            },
        }
    }
}

/// The most a turn may take, in targets ([`ClockState::turn_time`]).
pub const LIMIT_TARGETS: u32 = 4;

/// The most a turn may take, as a share of the time left ([`ClockState::turn_time`]).
pub const LIMIT_SHARE: f64 = 0.25;

/// How long a managed turn should take ([`ClockState::turn_time`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnTime {
    /// What the search aims at: it stops between iterations sooner when its best turn
    /// stays, later when it changes or its score falls ([`Limits::target`]).
    pub target: Duration,
    /// What the turn never passes: the search stops there, mid-iteration if need be.
    pub limit: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_print() {
        let tc: TimeControl = "60+0.6".parse().unwrap();
        assert_eq!(tc.base, Duration::from_secs(60));
        assert_eq!(tc.increment, Duration::from_millis(600));
        assert_eq!(tc.to_string(), "60+0.6");
        let tc: TimeControl = "10".parse().unwrap();
        assert_eq!(
            (tc.base, tc.increment),
            (Duration::from_secs(10), Duration::ZERO)
        );
        assert_eq!(
            " 2+0.02 ".parse::<TimeControl>().unwrap().to_string(),
            "2+0.02"
        );
        assert_eq!("0+1".parse::<TimeControl>().unwrap().base, Duration::ZERO);
        for bad in [
            "", "+", "x+1", "1+y", "-1+0", "1+-1", "NaN", "inf+1", "0+0", "1e9",
        ] {
            let e = bad.parse::<TimeControl>().unwrap_err().to_string();
            assert!(e.contains("time control"), "{bad}: {e}");
        }
        // A long input is quoted short.
        let long = "9".repeat(1_000_000);
        let e = long.parse::<TimeControl>().unwrap_err().to_string();
        assert!(e.len() < 300, "{} bytes", e.len());
    }

    #[test]
    fn the_time_manager_spends_a_share_and_never_half_the_clock() {
        let at = |left_ms: u64, inc_ms: u64| ClockState {
            left: Duration::from_millis(left_ms),
            increment: Duration::from_millis(inc_ms),
            turns_played: 0,
            moves_to_go: None,
        };
        // 60 s + 0.6 s: 1.5 s + 0.45 s.
        assert_eq!(at(60_000, 600).turn_budget(), Duration::from_millis(1950));
        // Little left: at most half of it.
        assert_eq!(at(100, 600).turn_budget(), Duration::from_millis(50));
        assert_eq!(at(0, 0).turn_budget(), Duration::from_millis(1));
        let c = ClockState {
            moves_to_go: Some(10),
            ..at(10_000, 0)
        };
        assert_eq!(c.turn_budget(), Duration::from_secs(1));
        // A player's own limit a turn caps it.
        let c = at(60_000, 600);
        assert_eq!(
            c.cap(Some(Duration::from_millis(100))),
            Duration::from_millis(100)
        );
        assert_eq!(c.cap(None), Duration::from_millis(1950));
    }

    #[test]
    fn alpha_beta_keeps_its_own_time_a_turn_or_takes_the_managers() {
        let ms = Duration::from_millis;
        let c = ClockState {
            left: ms(60_000),
            increment: ms(600),
            turns_played: 3,
            moves_to_go: None,
        };
        let own = |time: Option<u64>, depth: Option<u32>| Limits {
            time: time.map(ms),
            depth,
            ..Limits::default()
        };
        let l = c.limits(own(None, None));
        assert_eq!(
            (l.target, l.time, l.depth),
            (Some(ms(1950)), Some(ms(7800)), None)
        );
        let l = c.limits(own(None, Some(9)));
        assert_eq!((l.target, l.depth), (Some(ms(1950)), Some(9)));
        let l = c.limits(own(Some(300), None));
        assert_eq!((l.target, l.time), (None, Some(ms(300))));
        let l = c.limits(own(Some(60_000), None));
        assert_eq!((l.target, l.time), (None, Some(ms(7800))));
    }

    #[test]
    fn a_managed_turn_may_stretch_but_never_near_the_flag() {
        let at = |left_ms: u64, inc_ms: u64| ClockState {
            left: Duration::from_millis(left_ms),
            increment: Duration::from_millis(inc_ms),
            turns_played: 0,
            moves_to_go: None,
        };
        // 60 s + 0.6 s: the target is the budget, the limit four of them.
        let t = at(60_000, 600).turn_time();
        assert_eq!(t.target, Duration::from_millis(1950));
        assert_eq!(t.limit, Duration::from_millis(7800));
        // 10 s + 0.1 s with 2 s left: the limit is a quarter of what is left.
        let t = at(2_000, 100).turn_time();
        assert_eq!(t.target, Duration::from_millis(125));
        assert_eq!(t.limit, Duration::from_millis(500));
        // Nearly flagged: the limit never falls below the target, itself half the clock.
        let t = at(100, 600).turn_time();
        assert_eq!(
            (t.target, t.limit),
            (Duration::from_millis(50), Duration::from_millis(50))
        );
        for left in [0, 1, 7, 99, 1_000, 10_000, 100_000] {
            for inc in [0, 10, 100, 1_000] {
                let t = at(left, inc).turn_time();
                assert!(t.target <= t.limit, "{left} + {inc}");
                assert!(
                    t.limit <= (Duration::from_millis(left) / 2).max(Duration::from_millis(1)),
                    "{left} + {inc}: {t:?}"
                );
            }
        }
    }
}
