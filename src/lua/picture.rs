//! Pictures in tests (rule T3 in docs/testing.md): `e:picture()` is the
//! frame as a recording takes it, a value a test reads pixels from and
//! compares against a golden PNG in its game's folder.
//!
//! `picture:matches("tests/title.png", tolerance)` passes when every
//! channel of every pixel is within `tolerance` (default 0) of the
//! golden's. When it is not, the actual picture and a picture of where
//! they differ are written beside the golden (`title-actual.png`,
//! `title-difference.png`) and the error names them. Under `moonloop test
//! --bless` a golden that is missing or differs is written instead, and
//! the run says which.

use std::path::PathBuf;

use mlua::{Lua, UserData, UserDataFields, UserDataMethods};
use tiny_skia::Pixmap;

/// Marks a test file's VM as blessing goldens (`moonloop test --bless`):
/// the pictures its engines take write a golden that is missing or
/// differs rather than fail.
pub struct Blessing;

/// A frame's picture, in a test.
pub struct Picture {
    pixmap: Pixmap,
    /// The game folder goldens are named from.
    root: PathBuf,
    /// Whether a golden that is missing or differs is written instead.
    blessing: bool,
}

impl Picture {
    /// The picture `pixmap` of a game in `root`, blessing goldens when
    /// `blessing`.
    pub fn new(pixmap: Pixmap, root: PathBuf, blessing: bool) -> Picture {
        Picture {
            pixmap,
            root,
            blessing,
        }
    }
}

/// Where two pictures differ: how many pixels, by how much at most, and
/// a picture of it (black where they agree, red as bright as they differ).
struct Difference {
    pixels: usize,
    most: u8,
    picture: Pixmap,
}

/// Compares `actual` with `golden` (straight RGBA, demultiplied), a pixel
/// differing when a channel differs by more than `tolerance`.
fn difference(actual: &Pixmap, golden: &Pixmap, tolerance: u8) -> Difference {
    let mut picture = Pixmap::new(actual.width(), actual.height()).expect("a picture's size");
    let (mut pixels, mut most) = (0, 0u8);
    for (i, (a, g)) in actual.pixels().iter().zip(golden.pixels()).enumerate() {
        let (a, g) = (a.demultiply(), g.demultiply());
        let d = [
            a.red().abs_diff(g.red()),
            a.green().abs_diff(g.green()),
            a.blue().abs_diff(g.blue()),
            a.alpha().abs_diff(g.alpha()),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        most = most.max(d);
        let shown = if d > tolerance {
            pixels += 1;
            tiny_skia::PremultipliedColorU8::from_rgba(d.max(64), 0, 0, 255)
        } else {
            tiny_skia::PremultipliedColorU8::from_rgba(0, 0, 0, 255)
        };
        picture.pixels_mut()[i] = shown.expect("opaque is premultiplied");
    }
    Difference {
        pixels,
        most,
        picture,
    }
}

/// `name` with `-suffix` before its extension: `tests/title-actual.png`.
fn beside(name: &str, suffix: &str) -> String {
    match name.strip_suffix(".png") {
        Some(stem) => format!("{stem}-{suffix}.png"),
        None => format!("{name}-{suffix}.png"),
    }
}

impl Picture {
    /// Writes `pixmap` as game file `name` (inside the folder, through no
    /// link, H10).
    fn write(&self, name: &str, pixmap: &Pixmap) -> Result<(), String> {
        let path = crate::assets::output(&self.root, name)?;
        let bytes = pixmap.encode_png().map_err(|e| e.to_string())?;
        moonloop_door::write_whole(&path, &bytes, moonloop_door::Readers::All)
            .map_err(|e| format!("cannot write `{name}` ({e})"))
    }

    /// Checks the picture against golden `name`; see the module's doc.
    fn matches(&self, name: &str, tolerance: u8) -> Result<(), String> {
        let shown = crate::terminal::escape(name).into_owned();
        if !name.to_ascii_lowercase().ends_with(".png") {
            return Err(format!("matches: a golden is a .png file, not `{shown}`"));
        }
        // A name --bless would refuse is refused here too (it said "run
        // --bless to write it").
        let rel = crate::assets::check_name(name).map_err(|why| format!("matches: {why}"))?;
        let blessing = self.blessing;
        // Only a golden that is not there is new; one that cannot be read
        // or is not a picture says so (it read as "no golden yet").
        let there = std::fs::symlink_metadata(self.root.join(rel)).is_ok();
        // The golden's size is read from its header first: a header that
        // claims 60000x60000 is told apart by its size, never decoded
        // (H10), and one the picture's size is decoded within the bounds
        // of every image.
        let not_png = |why: crate::Refusal| {
            format!(
                "matches: the golden `{shown}` {}; run `moonloop test --bless` to write it \
                 again, and look at it",
                why.line()
            )
        };
        let picture = (self.pixmap.width(), self.pixmap.height());
        let golden = match crate::assets::read(Some(&self.root), name, "golden", 64 << 20) {
            Err(_) if !there => None,
            Err(why) => return Err(format!("matches: {why}")),
            Ok(bytes) => match crate::assets::png::size(&bytes) {
                Ok(size) if size != picture => Some(Err(size)),
                Ok(_) => match crate::assets::png::decode(&bytes) {
                    Ok(golden) => Some(Ok(golden)),
                    Err(_) if blessing => None,
                    Err(why) => return Err(not_png(why)),
                },
                Err(_) if blessing => None,
                Err(why) => return Err(not_png(why)),
            },
        };
        let Some(golden) = golden else {
            if blessing {
                self.write(name, &self.pixmap)?;
                crate::terminal::say!("blessed {shown} (new)");
                return Ok(());
            }
            return Err(format!(
                "matches: there is no golden `{shown}` yet; run `moonloop test --bless` to \
                 write it, and look at it"
            ));
        };
        let differs = match golden {
            Err((width, height)) => Some(format!(
                "is {}x{}, the golden {width}x{height}",
                picture.0, picture.1
            )),
            Ok(golden) => {
                let d = difference(&self.pixmap, &golden, tolerance);
                (d.pixels > 0).then(|| {
                    let _ = self.write(&beside(name, "difference"), &d.picture);
                    format!(
                        "differs at {} pixel{} (by up to {} in a channel; the tolerance is \
                         {tolerance})",
                        d.pixels,
                        if d.pixels == 1 { "" } else { "s" },
                        d.most
                    )
                })
            }
        };
        let Some(why) = differs else {
            return Ok(());
        };
        if blessing {
            self.write(name, &self.pixmap)?;
            crate::terminal::say!("blessed {shown} (it {why})");
            return Ok(());
        }
        let actual = beside(name, "actual");
        self.write(&actual, &self.pixmap)?;
        Err(format!(
            "matches: the picture {why} from `{shown}`; wrote `{}` and `{}` beside it (run \
             `moonloop test --bless` to take the new picture as the golden)",
            crate::terminal::escape(&actual),
            crate::terminal::escape(&beside(name, "difference"))
        ))
    }
}

impl UserData for Picture {
    fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
        fields.add_field_method_get("width", |_, this| Ok(this.pixmap.width()));
        fields.add_field_method_get("height", |_, this| Ok(this.pixmap.height()));
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        // The pixel at (x, y), from 0 at the top left, as 0-255 red,
        // green, blue and alpha (straight, not premultiplied).
        methods.add_method("pixel", |lua, this, (x, y): (f64, f64)| {
            let (w, h) = (this.pixmap.width(), this.pixmap.height());
            let inside = x.fract() == 0.0 && y.fract() == 0.0 && x >= 0.0 && y >= 0.0;
            if !inside || x >= w as f64 || y >= h as f64 {
                return Err(fail(
                    lua,
                    format!(
                        "pixel({}, {}): a pixel is at whole numbers from 0,0 to {},{}",
                        crate::terminal::Number(x),
                        crate::terminal::Number(y),
                        w - 1,
                        h - 1
                    ),
                ));
            }
            let c = this.pixmap.pixels()[y as usize * w as usize + x as usize].demultiply();
            Ok((c.red(), c.green(), c.blue(), c.alpha()))
        });
        methods.add_method(
            "matches",
            |lua, this, (name, tolerance): (String, Option<f64>)| {
                let tolerance = match tolerance {
                    None => 0,
                    Some(t) if (0.0..=255.0).contains(&t) && t.fract() == 0.0 => t as u8,
                    Some(t) => {
                        return Err(fail(
                            lua,
                            format!(
                                "matches: the tolerance is a whole number from 0 to 255, not {}",
                                crate::terminal::Number(t)
                            ),
                        ));
                    }
                };
                this.matches(&name, tolerance)
                    .map(|()| true)
                    .map_err(|why| fail(lua, why))
            },
        );
    }
}

fn fail(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(format!("{}{message}", super::location(lua, 1)))
}

/// Says whether `root` holds golden `name` (for a test of this module).
#[cfg(test)]
fn has(root: &std::path::Path, name: &str) -> bool {
    root.join(name).is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(r: u8) -> Pixmap {
        let mut p = Pixmap::new(4, 3).unwrap();
        p.fill(tiny_skia::Color::from_rgba8(r, 10, 20, 255));
        p
    }

    // rule: T3
    #[test]
    fn a_golden_outside_the_folder_or_not_a_picture_is_named_not_called_new() {
        let dir = tempfile::tempdir().unwrap();
        let picture = Picture::new(filled(100), dir.path().to_path_buf(), false);
        let outside = picture.matches("../title.png", 0).unwrap_err();
        assert!(
            outside.contains("is not a path inside the game folder"),
            "{outside}"
        );
        std::fs::write(dir.path().join("junk.png"), "junk").unwrap();
        let junk = picture.matches("junk.png", 0).unwrap_err();
        assert!(
            junk.contains("the golden `junk.png` is not a PNG image"),
            "{junk}"
        );
    }

    // rule: T3
    #[test]
    fn a_golden_passes_within_its_tolerance_and_fails_with_pictures_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tests")).unwrap();
        let name = "tests/title.png";
        let picture = Picture::new(filled(100), dir.path().to_path_buf(), false);
        let missing = picture.matches(name, 0).unwrap_err();
        assert!(
            missing.contains("no golden `tests/title.png` yet"),
            "{missing}"
        );
        Picture::new(filled(100), dir.path().to_path_buf(), true)
            .matches(name, 0)
            .unwrap();
        assert!(has(dir.path(), name), "blessed");
        picture.matches(name, 0).unwrap();
        // One pixel off by one: within a tolerance of 1, not of 0.
        let mut off = filled(100);
        let c = tiny_skia::PremultipliedColorU8::from_rgba(101, 10, 20, 255).unwrap();
        off.pixels_mut()[5] = c;
        let picture = Picture::new(off, dir.path().to_path_buf(), false);
        picture.matches(name, 1).unwrap();
        let err = picture.matches(name, 0).unwrap_err();
        assert!(
            err.contains("differs at 1 pixel (by up to 1 in a channel"),
            "{err}"
        );
        assert!(has(dir.path(), "tests/title-actual.png"));
        assert!(has(dir.path(), "tests/title-difference.png"));
    }
}
