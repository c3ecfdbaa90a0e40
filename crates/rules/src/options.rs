//! Rule options: every choice where the traditional sources differ (docs/RULES.md).

use crate::bitboard::Color;
use std::fmt;

/// The rule options of a game, in one place. `Default` gives the project's default rules.
///
/// Options are set by name from the command line (`--rule key=value`) with
/// [`RuleOptions::set`]; [`RuleOptions::KEYS`] lists the names.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RuleOptions {
    /// Black's first turn (the reply, turn number 1) may chain captures (default `true`).
    /// `false`: that turn is a single capturing step.
    pub reply_chains: bool,
    /// Draw after this many consecutive turns without a capture (for telo: moves of the
    /// moving phase). `None`: the variant's default, 100 for tsivy and dimy, 50 for telo.
    pub quiet_limit: Option<u16>,
    /// The third occurrence of a position with the same side to move is a draw (default off).
    pub repetition_draw: bool,
    /// The vela handicap game (docs/RULES.md section 8): `Some(c)` names the vela player.
    pub vela: Option<Color>,
    /// The form of the vela agreed for the match (only used with `vela`).
    pub vela_form: VelaForm,
}

/// The two forms of the vela (docs/RULES.md section 8).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum VelaForm {
    /// Vela be: from the normal start position.
    #[default]
    Be,
    /// Vela kely: the riatra winner's back row is removed before the vela starts.
    Kely,
}

impl VelaForm {
    /// `be` or `kely`.
    pub const fn name(self) -> &'static str {
        match self {
            VelaForm::Be => "be",
            VelaForm::Kely => "kely",
        }
    }
}

impl fmt::Display for VelaForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for VelaForm {
    type Err = RuleOptionError;
    fn from_str(s: &str) -> Result<VelaForm, RuleOptionError> {
        match s {
            "be" => Ok(VelaForm::Be),
            "kely" => Ok(VelaForm::Kely),
            _ => Err(RuleOptionError::BadValue {
                key: "vela_form".into(),
                value: s.into(),
                expected: "be or kely",
            }),
        }
    }
}

impl Default for RuleOptions {
    fn default() -> Self {
        RuleOptions {
            reply_chains: true,
            quiet_limit: None,
            repetition_draw: false,
            vela: None,
            vela_form: VelaForm::Be,
        }
    }
}

/// Default quiet limit of tsivy and dimy.
pub const DEFAULT_QUIET_LIMIT: u16 = 100;
/// Default quiet limit of telo (moves of the moving phase).
pub const DEFAULT_TELO_QUIET_LIMIT: u16 = 50;

/// Error for `--rule key=value` with an unknown key or a bad value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleOptionError {
    /// Not of the form `key=value`.
    Syntax(String),
    /// No such option.
    UnknownKey(String),
    /// The value does not fit the option.
    BadValue {
        /// The option.
        key: String,
        /// The value given.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
}

impl fmt::Display for RuleOptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleOptionError::Syntax(s) => {
                write!(
                    f,
                    "rule option {} is not of the form key=value",
                    crate::quote(s)
                )
            }
            RuleOptionError::UnknownKey(k) => write!(
                f,
                "unknown rule option {} (known: {})",
                crate::quote(k),
                RuleOptions::KEYS.join(", ")
            ),
            RuleOptionError::BadValue {
                key,
                value,
                expected,
            } => {
                write!(
                    f,
                    "bad value {} for rule option {}: expected {expected}",
                    crate::quote(value),
                    crate::quote(key)
                )
            }
        }
    }
}
impl std::error::Error for RuleOptionError {}

impl RuleOptions {
    /// The option names accepted by [`RuleOptions::set`].
    pub const KEYS: [&'static str; 5] = [
        "reply_chains",
        "quiet_limit",
        "repetition_draw",
        "vela",
        "vela_form",
    ];

    /// Sets one option by name.
    ///
    /// Values: booleans `true`/`false`; `quiet_limit` a number of turns (1..=65535) or
    /// `default`; `vela` one of `white`, `black`, `none`; `vela_form` `be` or `kely`.
    ///
    /// # Errors
    /// An unknown key or a value of the wrong form.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RuleOptionError> {
        let bad = |expected| RuleOptionError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            expected,
        };
        let boolean = |v: &str| match v {
            "true" | "on" | "yes" | "1" => Some(true),
            "false" | "off" | "no" | "0" => Some(false),
            _ => None,
        };
        match key {
            "reply_chains" => {
                self.reply_chains = boolean(value).ok_or_else(|| bad("true or false"))?
            }
            "repetition_draw" => {
                self.repetition_draw = boolean(value).ok_or_else(|| bad("true or false"))?
            }
            "quiet_limit" => {
                self.quiet_limit = if value == "default" {
                    None
                } else {
                    match value.parse::<u16>() {
                        Ok(n) if n > 0 => Some(n),
                        _ => return Err(bad("a number of turns from 1 to 65535, or `default`")),
                    }
                }
            }
            "vela" => {
                self.vela = match value {
                    "white" | "w" => Some(Color::White),
                    "black" | "b" => Some(Color::Black),
                    "none" | "off" => None,
                    _ => return Err(bad("white, black or none")),
                }
            }
            "vela_form" => self.vela_form = value.parse()?,
            _ => return Err(RuleOptionError::UnknownKey(key.to_string())),
        }
        Ok(())
    }

    /// Sets one option from `key=value`.
    ///
    /// # Errors
    /// As [`RuleOptions::set`], or text without `=`.
    pub fn set_pair(&mut self, pair: &str) -> Result<(), RuleOptionError> {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| RuleOptionError::Syntax(pair.to_string()))?;
        self.set(k.trim(), v.trim())
    }

    /// The quiet limit in force for a Fanorona (tsivy, dimy) game.
    #[inline]
    pub fn fanorona_quiet_limit(&self) -> u16 {
        self.quiet_limit.unwrap_or(DEFAULT_QUIET_LIMIT)
    }
    /// The quiet limit in force for a telo game.
    #[inline]
    pub fn telo_quiet_limit(&self) -> u16 {
        self.quiet_limit.unwrap_or(DEFAULT_TELO_QUIET_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_by_name() {
        let mut o = RuleOptions::default();
        o.set_pair("vela=black").unwrap();
        o.set_pair("reply_chains=false").unwrap();
        o.set_pair("quiet_limit=40").unwrap();
        o.set_pair("repetition_draw=true").unwrap();
        o.set_pair("vela_form=kely").unwrap();
        assert_eq!(
            o,
            RuleOptions {
                reply_chains: false,
                quiet_limit: Some(40),
                repetition_draw: true,
                vela: Some(Color::Black),
                vela_form: VelaForm::Kely,
            }
        );
        assert!(matches!(
            o.set_pair("vela_form=petit"),
            Err(RuleOptionError::BadValue { .. })
        ));
        assert!(matches!(
            o.set_pair("colour=red"),
            Err(RuleOptionError::UnknownKey(_))
        ));
        assert!(matches!(
            o.set_pair("vela=green"),
            Err(RuleOptionError::BadValue { .. })
        ));
        assert!(matches!(
            o.set_pair("quiet_limit=0"),
            Err(RuleOptionError::BadValue { .. })
        ));
        assert!(matches!(
            o.set_pair("vela"),
            Err(RuleOptionError::Syntax(_))
        ));
        assert!(
            o.set_pair("colour=red")
                .unwrap_err()
                .to_string()
                .contains("colour")
        );
    }
}
