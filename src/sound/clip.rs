//! Clips: sounds decoded into memory, from WAV or Ogg Vorbis files.

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
    pub fn load(path: &Path) -> Result<Clip, String> {
        let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        if size > MAX_FILE {
            return Err(format!(
                "it is {} MB; sounds are at most {} MB",
                size >> 20,
                MAX_FILE >> 20
            ));
        }
        let bytes = crate::assets::read_path(path, &path.to_string_lossy(), MAX_FILE)?;
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        Clip::decode(&bytes, &ext)
    }

    /// Decodes the bytes of a file whose name ends in `.ext`.
    ///
    /// # Errors
    /// The extension is not `wav` or `ogg`, the bytes are not that format
    /// (a decoder that panics on them counts as that), there are no
    /// frames, or there are more than two channels.
    pub fn decode(bytes: &[u8], ext: &str) -> Result<Clip, String> {
        let decoded = match ext {
            "wav" => crate::error::contain_panic(|| Clip::from_wav(bytes))
                .unwrap_or_else(|| Err("a broken WAV file".into()))?,
            "ogg" => crate::error::contain_panic(|| Clip::from_ogg(bytes))
                .unwrap_or_else(|| Err("a broken Ogg Vorbis file".into()))?,
            _ => return Err("sounds are .wav or .ogg files".into()),
        };
        if !(1..=2).contains(&decoded.channels) {
            return Err(format!(
                "it has {} channels; sounds are mono or stereo",
                decoded.channels
            ));
        }
        if decoded.frames() == 0 || decoded.rate == 0 {
            return Err("it holds no sound".into());
        }
        Ok(decoded)
    }

    fn from_wav(bytes: &[u8]) -> Result<Clip, String> {
        let reader = hound::WavReader::new(std::io::Cursor::new(bytes))
            .map_err(|e| format!("not a WAV file: {e}"))?;
        let spec = reader.spec();
        let samples: Result<Vec<f32>, hound::Error> = match spec.sample_format {
            // NaN or infinite samples would poison the whole mix: silence.
            hound::SampleFormat::Float => reader
                .into_samples::<f32>()
                .map(|s| s.map(|s| if s.is_finite() { s } else { 0.0 }))
                .collect(),
            hound::SampleFormat::Int => {
                let full = (1i64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
                reader
                    .into_samples::<i32>()
                    .map(|s| s.map(|s| s as f32 / full))
                    .collect()
            }
        };
        Ok(Clip {
            rate: spec.sample_rate,
            channels: usize::from(spec.channels),
            samples: samples.map_err(|e| format!("a broken WAV file: {e}"))?,
        })
    }

    fn from_ogg(bytes: &[u8]) -> Result<Clip, String> {
        check_ogg_comments(bytes)?;
        let mut reader = lewton::inside_ogg::OggStreamReader::new(std::io::Cursor::new(bytes))
            .map_err(|e| format!("not an Ogg Vorbis file: {e}"))?;
        let mut samples = Vec::new();
        while let Some(packet) = reader
            .read_dec_packet_itl()
            .map_err(|e| format!("a broken Ogg Vorbis file: {e}"))?
        {
            samples.extend(packet.iter().map(|&s| f32::from(s) / 32768.0));
            if samples.len() > MAX_SAMPLES {
                return Err("it is longer than sounds may be (10 minutes)".into());
            }
        }
        // The last page's granule position is the stream's true length:
        // the last packet decodes to more, which is padding.
        let channels = usize::from(reader.ident_hdr.audio_channels);
        if let Some(frames) = reader.get_last_absgp() {
            samples.truncate((frames as usize).saturating_mul(channels));
        }
        Ok(Clip {
            rate: reader.ident_hdr.audio_sample_rate,
            channels,
            samples,
        })
    }
}

/// Checks the lengths in an Ogg Vorbis file's comment header against the
/// header's own size. lewton allocates whatever they say before reading
/// (fuzzing found a file asking for 56 GB), which would abort the host.
fn check_ogg_comments(bytes: &[u8]) -> Result<(), String> {
    let mut packets = ogg::PacketReader::new(std::io::Cursor::new(bytes));
    let mut next = || {
        packets
            .read_packet_expected()
            .map(|p| p.data)
            .map_err(|e| format!("not an Ogg Vorbis file: {e}"))
    };
    next()?;
    let comments = next()?;
    let Some(mut rest) = comments.strip_prefix(b"\x03vorbis".as_slice()) else {
        return Ok(()); // not a comment header: lewton refuses it
    };
    // A length, then that many bytes.
    fn length(rest: &mut &[u8]) -> Option<usize> {
        let (n, tail) = rest.split_first_chunk::<4>()?;
        *rest = tail;
        Some(u32::from_le_bytes(*n) as usize)
    }
    fn skip(rest: &mut &[u8]) -> Option<()> {
        let n = length(rest)?;
        *rest = rest.get(n..)?;
        Some(())
    }
    let broken = || "a broken Ogg Vorbis file: its comment header is cut short".to_string();
    skip(&mut rest).ok_or_else(broken)?; // the vendor
    let count = length(&mut rest).ok_or_else(broken)?;
    if count > rest.len() / 4 {
        return Err(broken());
    }
    for _ in 0..count {
        skip(&mut rest).ok_or_else(broken)?;
    }
    Ok(())
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
    pub(crate) fn write_wav(path: &Path, channels: u16, rate: u32, bits: u16, samples: &[i32]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let spec = hound::WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: bits,
            sample_format: hound::SampleFormat::Int,
        };
        let mut writer = hound::WavWriter::create(path, spec).unwrap();
        for &s in samples {
            writer.write_sample(s).unwrap();
        }
        writer.finalize().unwrap();
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
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sounds/tone.ogg");
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

    // rule: H9
    #[test]
    fn an_ogg_comment_header_that_lies_about_its_lengths_is_refused() {
        // tone.ogg's packets again, with the vendor string's length set to
        // nearly 4 GB: lewton alone would try to allocate it.
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sounds/tone.ogg");
        let bytes = std::fs::read(path).unwrap();
        let mut reader = ogg::PacketReader::new(std::io::Cursor::new(&bytes[..]));
        let mut writer = ogg::PacketWriter::new(Vec::new());
        let mut index = 0;
        while let Some(packet) = reader.read_packet().unwrap() {
            let mut data = packet.data.clone();
            if index == 1 {
                data[7..11].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
            }
            let end = if packet.last_in_stream() {
                ogg::PacketWriteEndInfo::EndStream
            } else {
                ogg::PacketWriteEndInfo::NormalPacket
            };
            let (serial, absgp) = (packet.stream_serial(), packet.absgp_page());
            writer
                .write_packet(data.into_boxed_slice(), serial, end, absgp)
                .unwrap();
            index += 1;
        }
        let forged = writer.into_inner();
        assert_eq!(
            Clip::decode(&forged, "ogg").unwrap_err(),
            "a broken Ogg Vorbis file: its comment header is cut short"
        );
        assert!(Clip::decode(&bytes, "ogg").is_ok(), "the original is fine");
    }

    #[test]
    fn bad_sound_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("x.wav");
        std::fs::write(&text, "not a sound").unwrap();
        assert!(Clip::load(&text).unwrap_err().starts_with("not a WAV file"));
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
            "sounds are .wav or .ogg files"
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
