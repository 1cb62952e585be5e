//! Color: the ways a game writes a color, read into straight RGBA.
//!
//! `"#rgb"`, `"#rrggbb"`, `"#rrggbbaa"`, the CSS basic names plus a few
//! common ones, or four numbers from 0 to 1 (the binding reads `{r, g, b, a}`).

use crate::Refusal;

/// A color with straight (not premultiplied) channels from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rgba {
    /// Red.
    pub r: f32,
    /// Green.
    pub g: f32,
    /// Blue.
    pub b: f32,
    /// Alpha: 0 transparent, 1 opaque.
    pub a: f32,
}

impl Rgba {
    /// Opaque white.
    pub const WHITE: Rgba = Rgba::rgb8(255, 255, 255);
    /// Opaque black.
    pub const BLACK: Rgba = Rgba::rgb8(0, 0, 0);

    /// Creates an opaque color from 8-bit channels.
    pub const fn rgb8(r: u8, g: u8, b: u8) -> Rgba {
        Rgba {
            r: r as f32 / 255.0,
            g: g as f32 / 255.0,
            b: b as f32 / 255.0,
            a: 1.0,
        }
    }

    /// Creates a color from channels from 0 to 1.
    ///
    /// # Errors
    /// A channel is outside 0..=1 or not a number.
    pub fn from_unit(r: f64, g: f64, b: f64, a: f64) -> Result<Rgba, Refusal> {
        for (name, v) in [("r", r), ("g", g), ("b", b), ("a", a)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(refuse!(
                    "channel {name} is {}; channels go from 0 to 1",
                    crate::Number(v)
                ));
            }
        }
        Ok(Rgba {
            r: r as f32,
            g: g as f32,
            b: b as f32,
            a: a as f32,
        })
    }

    /// Reads a color string.
    ///
    /// # Errors
    /// The string is not a color; the message says what is.
    pub fn parse(text: &str) -> Result<Rgba, Refusal> {
        let bad = || {
            refuse!(
                "`{text}` is not a color (use \"#rgb\", \"#rrggbb\", \"#rrggbbaa\", a name like \"white\", or {{r, g, b, a}} from 0 to 1)"
            )
        };
        if let Some(hex) = text.strip_prefix('#') {
            let digit = |i: usize| {
                hex.as_bytes()
                    .get(i)
                    .and_then(|c| (*c as char).to_digit(16))
                    .map(|d| d as u8)
                    .ok_or_else(bad)
            };
            let pair = |i: usize| Ok::<u8, Refusal>(digit(i)? * 16 + digit(i + 1)?);
            return match hex.len() {
                3 => Ok(Rgba::rgb8(digit(0)? * 17, digit(1)? * 17, digit(2)? * 17)),
                6 => Ok(Rgba::rgb8(pair(0)?, pair(2)?, pair(4)?)),
                8 => Ok(Rgba {
                    a: pair(6)? as f32 / 255.0,
                    ..Rgba::rgb8(pair(0)?, pair(2)?, pair(4)?)
                }),
                _ => Err(bad()),
            };
        }
        NAMED
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(text))
            .map(|(_, c)| *c)
            .ok_or_else(bad)
    }

    /// Returns this color with its alpha multiplied by `alpha`.
    pub fn fade(self, alpha: f32) -> Rgba {
        Rgba {
            a: self.a * alpha,
            ..self
        }
    }
}

/// The named colors: CSS's sixteen basic names and a few common others.
const NAMED: &[(&str, Rgba)] = &[
    ("black", Rgba::rgb8(0, 0, 0)),
    ("silver", Rgba::rgb8(192, 192, 192)),
    ("gray", Rgba::rgb8(128, 128, 128)),
    ("grey", Rgba::rgb8(128, 128, 128)),
    ("white", Rgba::rgb8(255, 255, 255)),
    ("maroon", Rgba::rgb8(128, 0, 0)),
    ("red", Rgba::rgb8(255, 0, 0)),
    ("purple", Rgba::rgb8(128, 0, 128)),
    ("fuchsia", Rgba::rgb8(255, 0, 255)),
    ("magenta", Rgba::rgb8(255, 0, 255)),
    ("green", Rgba::rgb8(0, 128, 0)),
    ("lime", Rgba::rgb8(0, 255, 0)),
    ("olive", Rgba::rgb8(128, 128, 0)),
    ("yellow", Rgba::rgb8(255, 255, 0)),
    ("navy", Rgba::rgb8(0, 0, 128)),
    ("blue", Rgba::rgb8(0, 0, 255)),
    ("teal", Rgba::rgb8(0, 128, 128)),
    ("aqua", Rgba::rgb8(0, 255, 255)),
    ("cyan", Rgba::rgb8(0, 255, 255)),
    ("orange", Rgba::rgb8(255, 165, 0)),
    ("pink", Rgba::rgb8(255, 192, 203)),
    ("brown", Rgba::rgb8(165, 42, 42)),
    (
        "transparent",
        Rgba {
            r: 0.0,
            g: 0.0,
            b: 0.0,
            a: 0.0,
        },
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors_parse_in_every_form() {
        assert_eq!(Rgba::parse("#fff").unwrap(), Rgba::WHITE);
        assert_eq!(Rgba::parse("#ff0000").unwrap(), Rgba::rgb8(255, 0, 0));
        assert_eq!(Rgba::parse("#00ff0080").unwrap().a, 128.0 / 255.0);
        assert_eq!(Rgba::parse("Teal").unwrap(), Rgba::rgb8(0, 128, 128));
        assert_eq!(Rgba::from_unit(1.0, 0.5, 0.0, 1.0).unwrap().g, 0.5);
    }

    #[test]
    fn non_colors_are_named() {
        for text in ["#ggg", "#12345", "redd", "", "#"] {
            let err = Rgba::parse(text).unwrap_err();
            assert!(
                err.starts_with(&format!("`{text}` is not a color")),
                "{err}"
            );
        }
        assert_eq!(
            Rgba::from_unit(2.0, 0.0, 0.0, 1.0).unwrap_err(),
            "channel r is 2; channels go from 0 to 1"
        );
    }
}
