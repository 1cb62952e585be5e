//! Config: what a game says about itself that the host acts on (its
//! title, logical size, background, actions, limits, developer controls,
//! sounds), with no Lua in it. A Luau game's `config` table fills one
//! (`lua/config.rs`) and a reload refreshes it; a game written in Rust
//! makes its own.

use std::time::Duration;

use crate::color::Rgba;
use crate::input::Action;

/// The widest or tallest logical size a game may ask for: what a recording
/// or a headless picture is drawn at, so it must fit any GPU's textures
/// and readback buffers.
pub const MAX_SIDE: u32 = 4096;

/// The longest window title, in characters.
pub const MAX_TITLE: usize = 200;

/// The most players a game may take (N2): one a pad.
pub const MAX_PLAYERS: usize = crate::input::PADS;

/// The most actions one table of actions binds.
pub const MAX_ACTIONS: usize = 256;

/// A game's config.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The window title. Default: "moonloop" (a Luau game's: its folder's name).
    pub title: String,
    /// Logical width. Default: 1280.
    pub width: u32,
    /// Logical height. Default: 720.
    pub height: u32,
    /// The clear color. Default: black.
    pub background: Rgba,
    /// Named actions bound to keys. Default: none.
    pub actions: Vec<Action>,
    /// Each player's actions, first player first (N2). Default: none (one
    /// player, reading `actions`).
    pub players: Vec<Vec<Action>>,
    /// Each call's time budget. Default: 1 s.
    pub budget: Duration,
    /// The VM's memory cap in bytes. Default: 512 MiB.
    pub memory: usize,
    /// Whether losing the window's focus pauses the simulation. Default: true.
    pub pause_on_blur: bool,
    /// Whether the host's developer keys (F1-F8) work. Default: true.
    pub dev_controls: bool,
    /// Cue names mapped to a sound file or a built-in sound (H7). Default: none.
    pub sounds: Vec<(String, String)>,
    /// The game's id, which names its save folder (H12). Default: none,
    /// and a game without one cannot save.
    pub id: Option<String>,
    /// Whether the window starts fullscreen (F11 toggles it). Default: false.
    pub fullscreen: bool,
    /// Whether presenting waits for the display's refresh. Pacing stays
    /// the clock's job either way. Default: true.
    pub vsync: bool,
    /// Whether the pointer shows over the window. Default: true.
    pub cursor: bool,
    /// A PNG in the game folder for the window's icon. Default: none.
    pub icon: Option<String>,
    /// The game's version, as a built executable's `--version` shows it
    /// (at most 64 printable characters). Default: none.
    pub version: Option<String>,
    /// How the logical area grows to fill a window (V1). Default: fit.
    pub scaling: Scaling,
    /// How many window pixels a logical pixel takes when the window opens
    /// (V1): a 320x180 game at 4 opens 1280x720. Default: 1.
    pub scale: u32,
}

/// The largest window scale a game or a player may ask for.
pub const MAX_SCALE: u32 = 16;

/// How the logical area grows to fill a window or a screen (V1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scaling {
    /// As large as fits, at any scale: drawing is done at the window's
    /// resolution, so shapes and text stay sharp.
    #[default]
    Fit,
    /// The largest whole scale that fits: the frame is drawn at the
    /// logical size and each logical pixel becomes a square of whole
    /// window pixels, with no blur (pixel art). Bars fill the rest.
    Whole,
}

impl Scaling {
    /// Reads `"fit"` or `"whole"`.
    pub fn parse(name: &str) -> Option<Scaling> {
        match name {
            "fit" => Some(Scaling::Fit),
            "whole" => Some(Scaling::Whole),
            _ => None,
        }
    }
}

impl Config {
    /// Every action the game binds: its own, then each player's.
    pub fn every_action(&self) -> impl Iterator<Item = &Action> {
        self.actions.iter().chain(self.players.iter().flatten())
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            title: "moonloop".into(),
            width: 1280,
            height: 720,
            background: Rgba::BLACK,
            actions: Vec::new(),
            players: Vec::new(),
            budget: Duration::from_secs(1),
            memory: 512 << 20,
            pause_on_blur: true,
            dev_controls: true,
            sounds: Vec::new(),
            id: None,
            fullscreen: false,
            vsync: true,
            cursor: true,
            icon: None,
            version: None,
            scaling: Scaling::Fit,
            scale: 1,
        }
    }
}

impl Config {
    /// Returns the logical size the game draws in.
    pub fn logical(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}

/// Returns the default config, for a game that has no other.
pub fn default_config() -> &'static Config {
    static DEFAULT: std::sync::OnceLock<Config> = std::sync::OnceLock::new();
    DEFAULT.get_or_init(Config::default)
}
