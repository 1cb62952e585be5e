//! Input: the frame's keys, buttons, pointer and actions, with edges that
//! close at frame step 11 (rule H6), and the scripted input that feeds it
//! in headless runs.
//!
//! Live input (a window), a script and a replay all arrive as the same
//! [`InputEvent`]s, queued until the next *delivered* frame: a declined tick
//! applies nothing, so an edge is never lost and never seen twice.

mod event;
mod frame;
mod keys;
mod script;

pub use event::{InputEvent, TextPiece, strip_comment, unquote};
pub use frame::{Binding, InputFrame, MAX_TEXT};
pub use keys::{Action, Axis, DEAD_ZONE, KEY_NAMES, Key, PAD_AXES, PAD_BUTTONS, PADS};
pub use script::{MAX_SCRIPT, Script, When};
