//! A built executable's own command line (rule H12): the game's name,
//! title and version, and the options a player uses; the game it carries
//! stands in `run`'s arguments until it is unpacked.

use super::run::RunArgs;

/// The options a built game shows its player: how to play it, not how
/// to build or test it. The rest of `run`'s still work (a CI run of the
/// built game, `--headless --frames 60 --print-state`), unlisted.
const PLAYER_OPTIONS: &[&str] = &[
    "fullscreen",
    "scale",
    "scaling",
    "audio",
    "save_dir",
    "headless",
    "help",
    "version",
];

/// A built executable's own command line: the game's name, title and
/// version, and the options a player uses.
pub(super) fn carried_command(name: &str, about: &crate::package::About) -> clap::Command {
    use clap::Args as _;
    let title = if about.title.is_empty() {
        name.to_string()
    } else {
        about.title.clone()
    };
    let version = about
        .version
        .clone()
        .unwrap_or_else(|| "(no version: the game's config.version is not set)".into());
    let command = clap::Command::new(name.to_string())
        .about(format!("{title}: a game made with moonloop"))
        .version(version)
        .override_usage(format!("{name} [OPTIONS]"))
        .disable_help_subcommand(true);
    RunArgs::augment_args(command).mut_args(|arg| {
        let shown = PLAYER_OPTIONS.contains(&arg.get_id().as_str());
        arg.hide(!shown)
    })
}

/// Where a built executable's game goes in `run`'s arguments until it is
/// unpacked.
pub(super) const CARRIED: &str = "\u{0}carried game";
