//! Clips: sounds decoded into memory, from WAV, Ogg Vorbis or FLAC files.

use moonloop_core::Refusal;
use std::path::Path;

/// A decoded sound: samples from -1 to 1, interleaved when stereo.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Frames per second.
    pub rate: u32,
    /// 1 (mono) or 2 (stereo).
    pub channels: usize,
    /// `frames() * channels` samples.
    pub samples: Vec<f32>,
}

impl Clip {
    /// Returns the clip's length in frames.
    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels
    }

    /// Returns the (left, right) sample a fraction `t` of the way from frame
    /// `at` to the next; the last frame holds.
    pub fn frame_at(&self, at: usize, t: f32) -> (f32, f32) {
        let next = (at + 1).min(self.frames() - 1);
        let c = self.channels;
        let lerp = |ch: usize| {
            let a = self.samples[at * c + ch];
            a + (self.samples[next * c + ch] - a) * t
        };
        if c == 1 {
            let s = lerp(0);
            (s, s)
        } else {
            (lerp(0), lerp(1))
        }
    }

    /// Loads a `.wav` or `.ogg` file of at most [`MAX_FILE`] bytes.
    ///
    /// # Errors
    /// The file cannot be read or is too big, or see [`Clip::decode`].
    pub fn load(path: &Path) -> Result<Clip, Refusal> {
        let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        if size > MAX_FILE {
            return Err(refuse!(
                "it is {} MB; sounds are at most {} MB",
                size >> 20,
                MAX_FILE >> 20
            ));
        }
        let bytes = crate::read_path(path, &path.to_string_lossy(), MAX_FILE)?;
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        Clip::decode(&bytes, &ext)
    }

    /// Decodes the bytes of a file whose name ends in `.ext`, whole.
    ///
    /// # Errors
    /// The extension is not `wav`, `ogg` or `flac`, the bytes are not that
    /// format, there are no frames, more than two channels, or more than
    /// ten minutes of sound.
    pub fn decode(bytes: &[u8], ext: &str) -> Result<Clip, Refusal> {
        let mut decoder = super::decode::Decoder::of_bytes(bytes.to_vec(), ext)?;
        let mut samples = Vec::new();
        let longest = decoder.rate as usize * 600 * decoder.channels;
        while decoder.next(&mut samples)? {
            if samples.len() > MAX_SAMPLES.min(longest) {
                return Err("it is longer than sounds may be (10 minutes)".into());
            }
        }
        if let Some(frames) = decoder.frames {
            samples.truncate((frames as usize).saturating_mul(decoder.channels));
        }
        if samples.is_empty() {
            return Err("it holds no sound".into());
        }
        Ok(Clip {
            rate: decoder.rate,
            channels: decoder.channels,
            samples,
        })
    }
}

/// The largest sound file a game may ship.
pub const MAX_FILE: u64 = 64 << 20;

/// The most samples a decoded sound may hold: 10 minutes of 48 kHz stereo
/// (a small Ogg file can decode to far more than its size).
const MAX_SAMPLES: usize = 48_000 * 2 * 600;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes a WAV file of whole-number samples.
    fn write_wav(path: &Path, channels: u16, rate: u32, bits: u16, samples: &[i32]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bytes = super::super::wav::encode(channels, rate, bits, samples);
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn wav_files_load_as_samples_from_minus_one_to_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wav");
        write_wav(&path, 2, 22_050, 16, &[0, 16384, -32768, 32767]);
        let clip = Clip::load(&path).unwrap();
        assert_eq!((clip.rate, clip.channels, clip.frames()), (22_050, 2, 2));
        assert_eq!(clip.samples[..3], [0.0, 0.5, -1.0]);
        assert_eq!(
            clip.frame_at(0, 0.5),
            (-0.5, 0.5 + (32767.0 / 32768.0 - 0.5) * 0.5)
        );
    }

    #[test]
    fn ogg_vorbis_files_load_as_samples_from_minus_one_to_one() {
        // A quarter second at 22,050 Hz: 440 Hz at 0.5 on the left, 660 Hz
        // at 0.25 on the right (written by libsndfile).
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sounds/tone.ogg");
        let clip = Clip::load(&path).unwrap();
        assert_eq!((clip.rate, clip.channels), (22_050, 2));
        assert_eq!(clip.frames(), 5512);
        let peak = |side: usize| {
            clip.samples
                .iter()
                .skip(side)
                .step_by(2)
                .fold(0.0f32, |m, s| m.max(s.abs()))
        };
        assert!((peak(0) - 0.5).abs() < 0.03, "left peak {}", peak(0));
        assert!((peak(1) - 0.25).abs() < 0.03, "right peak {}", peak(1));
    }

    // rule: H10
    #[test]
    fn an_ogg_comment_header_that_lies_about_its_lengths_is_refused() {
        // tone.ogg with its vendor string's length set to nearly 4 GB:
        // symphonia would allocate that before reading it.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sounds/tone.ogg");
        let bytes = std::fs::read(path).unwrap();
        let at = bytes.windows(7).position(|w| w == b"\x03vorbis").unwrap() + 7;
        let mut forged = bytes.clone();
        forged[at..at + 4].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
        assert_eq!(
            Clip::decode(&forged, "ogg").unwrap_err(),
            "an Ogg Vorbis file whose comment header claims more than it holds"
        );
        assert!(Clip::decode(&bytes, "ogg").is_ok(), "the original is fine");
    }

    #[test]
    fn bad_sound_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("x.wav");
        std::fs::write(&text, "not a sound").unwrap();
        assert!(
            Clip::load(&text).unwrap_err().starts_with("not a WAV file"),
            "{}",
            Clip::load(&text).unwrap_err()
        );
        let ogg = dir.path().join("x.ogg");
        std::fs::write(&ogg, "not a sound").unwrap();
        assert!(
            Clip::load(&ogg)
                .unwrap_err()
                .starts_with("not an Ogg Vorbis file")
        );
        let mp3 = dir.path().join("x.mp3");
        std::fs::write(&mp3, "").unwrap();
        assert_eq!(
            Clip::load(&mp3).unwrap_err(),
            "sounds are .wav, .ogg or .flac files"
        );
        let empty = dir.path().join("e.wav");
        write_wav(&empty, 1, 8000, 8, &[]);
        assert_eq!(Clip::load(&empty).unwrap_err(), "it holds no sound");
        let surround = dir.path().join("s.wav");
        write_wav(&surround, 6, 8000, 8, &[0; 6]);
        assert_eq!(
            Clip::load(&surround).unwrap_err(),
            "it has 6 channels; sounds are mono or stereo"
        );
    }
}
