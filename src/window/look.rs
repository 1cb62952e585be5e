//! The window's look follows the game's config: title, fullscreen, the
//! pointer, the icon and vsync, when the window opens and again whenever a
//! reload changes them. F11 toggles fullscreen on top of the config.

use crate::Refusal;
use std::path::Path;

use winit::window::{Fullscreen, Icon, Window, WindowAttributes};

use crate::config::{Config, MAX_SCALE};

/// The largest icon, in pixels a side: window systems scale icons down to
/// at most a few hundred pixels.
pub const MAX_ICON_SIDE: u32 = 1024;

/// What the player chose on the command line about the window.
#[derive(Debug, Clone, Default)]
pub struct Choice {
    /// Opens fullscreen whatever the config says.
    pub fullscreen: bool,
    /// Window pixels a logical pixel takes when the window opens, over
    /// `config.scale`.
    pub scale: Option<u32>,
}

/// What the window shows now, to apply only what a reload changed.
#[derive(Debug, Clone)]
pub struct Look {
    title: String,
    fullscreen: bool,
    cursor: bool,
    icon: Option<String>,
    vsync: bool,
}

impl Look {
    /// The look `config` asks for, and the attributes to open a window
    /// with it; a warning if its icon cannot be used (the window opens
    /// without one).
    ///
    /// The player's `choice` (`--fullscreen`, `--scale`) wins over the
    /// config where it is given; a reload follows the config's own
    /// changes only.
    pub fn open(
        config: &Config,
        root: Option<&Path>,
        choice: &Choice,
    ) -> (Look, WindowAttributes, Option<Refusal>) {
        let (icon, warning) = match (&config.icon, root) {
            (Some(name), Some(root)) => match load_icon(root, name) {
                Ok(icon) => (Some(icon), None),
                Err(why) => (None, Some(why)),
            },
            _ => (None, None),
        };
        // V1: the window opens at a whole multiple of the logical size;
        // one past what a window system takes opens as large as it lets.
        let scale = choice.scale.unwrap_or(config.scale).clamp(1, MAX_SCALE);
        let attributes = Window::default_attributes()
            .with_title(config.title.clone())
            .with_inner_size(winit::dpi::LogicalSize::new(
                config.width * scale,
                config.height * scale,
            ))
            .with_resizable(true)
            .with_window_icon(icon)
            .with_fullscreen(
                (config.fullscreen || choice.fullscreen).then_some(Fullscreen::Borderless(None)),
            );
        let look = Look {
            title: config.title.clone(),
            fullscreen: config.fullscreen,
            cursor: config.cursor,
            icon: config.icon.clone(),
            vsync: config.vsync,
        };
        (look, attributes, warning)
    }

    /// Applies what changed in `config` since the window last followed it
    /// (after a reload). `root` gives the game folder, asked only when the
    /// icon changed: this runs every frame, and must not allocate. Returns
    /// whether the surface must be configured again (vsync changed), and a
    /// warning if the new icon cannot be used.
    pub fn follow(
        &mut self,
        window: &Window,
        config: &Config,
        root: impl FnOnce() -> Option<std::path::PathBuf>,
    ) -> (bool, Option<Refusal>) {
        if config.title != self.title {
            self.title.clone_from(&config.title);
            window.set_title(&self.title);
        }
        if config.fullscreen != self.fullscreen {
            self.fullscreen = config.fullscreen;
            window.set_fullscreen(self.fullscreen.then_some(Fullscreen::Borderless(None)));
        }
        if config.cursor != self.cursor {
            self.cursor = config.cursor;
            window.set_cursor_visible(self.cursor);
        }
        let mut warning = None;
        if config.icon != self.icon {
            self.icon.clone_from(&config.icon);
            let icon = match (&self.icon, root()) {
                (Some(name), Some(root)) => {
                    load_icon(&root, name).map_err(|w| warning = Some(w)).ok()
                }
                _ => None,
            };
            window.set_window_icon(icon);
        }
        let vsync_changed = config.vsync != self.vsync;
        self.vsync = config.vsync;
        (vsync_changed, warning)
    }

    /// Applies the pointer's visibility once the window exists (winit has
    /// no attribute for it).
    pub fn show_cursor(&self, window: &Window) {
        window.set_cursor_visible(self.cursor);
    }

    /// The present mode for the config's vsync: pacing stays the clock's
    /// job; vsync only decides whether presenting waits for the display.
    pub fn present_mode(&self) -> wgpu::PresentMode {
        if self.vsync {
            wgpu::PresentMode::AutoVsync
        } else {
            wgpu::PresentMode::AutoNoVsync
        }
    }
}

/// F11: leaves fullscreen, or enters it on the window's monitor. Leaving
/// gives the window back the size it had.
pub fn toggle_fullscreen(window: &Window) {
    let next = match window.fullscreen() {
        Some(_) => None,
        None => Some(Fullscreen::Borderless(None)),
    };
    window.set_fullscreen(next);
}

/// Reads the icon `name` from the game folder `root` through the asset
/// door (H10).
///
/// # Errors
/// One line naming the problem: the door refuses the name, the file is
/// not a PNG, or it is larger than [`MAX_ICON_SIDE`].
pub fn load_icon(root: &Path, name: &str) -> Result<Icon, Refusal> {
    let fail = |why: &dyn std::fmt::Display| refuse!("config.icon: {why}; the window has no icon");
    let pixmap = crate::assets::png::load(Some(root), name).map_err(|e| fail(&e))?;
    let (w, h) = (pixmap.width(), pixmap.height());
    if w > MAX_ICON_SIDE || h > MAX_ICON_SIDE {
        return Err(fail(&format_args!(
            "`{name}` is {w}x{h} pixels; an icon is at most {MAX_ICON_SIDE}x{MAX_ICON_SIDE}"
        )));
    }
    // Icons take straight alpha; the pixmap holds it premultiplied.
    let rgba: Vec<u8> = pixmap
        .pixels()
        .iter()
        .flat_map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue(), c.alpha()]
        })
        .collect();
    Icon::from_rgba(rgba, w, h).map_err(|e| fail(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H10
    #[test]
    fn an_icon_is_a_small_png_inside_the_game_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("fake.png"), b"GIF89a not a png").unwrap();
        let mut big = tiny_skia::Pixmap::new(MAX_ICON_SIDE + 1, 2).unwrap();
        big.fill(tiny_skia::Color::WHITE);
        big.save_png(dir.path().join("big.png")).unwrap();
        let mut ok = tiny_skia::Pixmap::new(32, 32).unwrap();
        ok.fill(tiny_skia::Color::from_rgba8(200, 40, 40, 128));
        ok.save_png(dir.path().join("icon.png")).unwrap();

        assert!(load_icon(dir.path(), "icon.png").is_ok());
        for (name, says) in [
            ("fake.png", "fake.png"),
            ("big.png", "1025x2 pixels; an icon is at most 1024x1024"),
            ("missing.png", "missing.png"),
            ("../outside.png", "is not a path inside the game folder"),
        ] {
            let err = load_icon(dir.path(), name).unwrap_err();
            assert!(
                err.starts_with("config.icon: ") && err.contains(says),
                "{name}: {err}"
            );
            assert!(
                err.ends_with("the window has no icon") && !err.contains('\n'),
                "{err}"
            );
        }
    }
}
