//! Sound files (rule H13): WAV, Ogg Vorbis and FLAC, checked and decoded
//! with the same bounds as every other asset. Playing them (the mixer,
//! the device, music streamed from a file) is the host's.

mod clip;
pub mod decode;
pub mod wav;

pub use clip::{Clip, MAX_FILE};
