//! Decoding sound files with symphonia (rule H13): WAV, Ogg Vorbis and
//! FLAC, packet by packet, so a clip is decoded whole and music is
//! streamed with the same code.
//!
//! Before symphonia sees a file, [`check_headers`] reads the lengths its
//! comment headers claim: symphonia allocates a comment's claimed length
//! before reading it, and a file may claim 4 GB (H10).

use moonloop_core::Refusal;
use std::io::Cursor;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{CODEC_TYPE_NULL, DecoderOptions};
use symphonia::core::errors::Error as Failure;
use symphonia::core::formats::{FormatOptions, FormatReader, SeekMode, SeekTo};
use symphonia::core::io::{MediaSource, MediaSourceStream};
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

/// The sound file formats, by extension.
pub const EXTENSIONS: [&str; 3] = ["wav", "ogg", "flac"];

/// The highest sample rate a sound may have.
const MAX_RATE: u32 = 384_000;

/// The most samples one packet may decode to (FLAC's largest block,
/// stereo); a file claiming more is broken.
pub const MAX_PACKET: usize = 2 * 65_536;

/// A sound file being decoded.
pub struct Decoder {
    format: Box<dyn FormatReader>,
    decoder: Box<dyn symphonia::core::codecs::Decoder>,
    track: u32,
    /// Frames per second.
    pub rate: u32,
    /// 1 or 2.
    pub channels: usize,
    /// The sound's length in frames, when the file says (decoding may give
    /// more: the last packet's padding).
    pub frames: Option<u64>,
    buffer: Option<SampleBuffer<f32>>,
    /// Frames decoded since the start (or the last rewind).
    pub decoded: u64,
    /// Damaged packets skipped since the start.
    pub skipped: u64,
}

impl Decoder {
    /// Opens the bytes of a file whose name ends in `.ext`.
    ///
    /// # Errors
    /// As [`Decoder::open`].
    pub fn of_bytes(bytes: Vec<u8>, ext: &str) -> Result<Decoder, Refusal> {
        check_headers(&bytes, ext, true)?;
        Decoder::open(Box::new(Cursor::new(bytes)), ext)
    }

    /// Opens `source`, a file whose name ends in `.ext` and whose headers
    /// [`check_headers`] has passed.
    ///
    /// # Errors
    /// The extension is not a sound format's, the bytes are not that
    /// format (a decoder that panics counts as that), or the sound is not
    /// mono or stereo at a sane rate.
    pub fn open(source: Box<dyn MediaSource>, ext: &str) -> Result<Decoder, Refusal> {
        let what = describe(ext)?;
        moonloop_core::contain::contain_panic(|| Decoder::open_unguarded(source, ext, what))
            .unwrap_or_else(|| {
                Err(refuse!(
                    "{} file that is broken",
                    what.replacen("a", "A", 1)
                ))
            })
    }

    fn open_unguarded(
        source: Box<dyn MediaSource>,
        ext: &str,
        what: &str,
    ) -> Result<Decoder, Refusal> {
        let stream = MediaSourceStream::new(source, Default::default());
        let mut hint = Hint::new();
        hint.with_extension(ext);
        let probed = symphonia::default::get_probe()
            .format(
                &hint,
                stream,
                &FormatOptions {
                    enable_gapless: true,
                    ..FormatOptions::default()
                },
                &MetadataOptions::default(),
            )
            .map_err(|e| format!("not {what} file ({e})"))?;
        let format = probed.format;
        let track = format
            .tracks()
            .iter()
            .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
            .ok_or_else(|| format!("not {what} file (no audio in it)"))?;
        let params = track.codec_params.clone();
        let channels = params.channels.map_or(0, |c| c.count());
        if !(1..=2).contains(&channels) {
            return Err(refuse!(
                "it has {channels} channels; sounds are mono or stereo"
            ));
        }
        let rate = params.sample_rate.unwrap_or(0);
        if rate == 0 || rate > MAX_RATE {
            return Err(refuse!(
                "its sample rate is {rate} Hz; sounds are up to {MAX_RATE} Hz"
            ));
        }
        let decoder = symphonia::default::get_codecs()
            .make(&params, &DecoderOptions::default())
            .map_err(|e| format!("{what} file the host cannot decode ({e})"))?;
        Ok(Decoder {
            frames: params.n_frames,
            track: track.id,
            format,
            decoder,
            rate,
            channels,
            buffer: None,
            decoded: 0,
            skipped: 0,
        })
    }

    /// Appends the next packet's samples (interleaved, -1 to 1) to `out`;
    /// returns false at the end of the sound.
    ///
    /// # Errors
    /// The file is broken past its headers.
    pub fn next(&mut self, out: &mut Vec<f32>) -> Result<bool, Refusal> {
        moonloop_core::contain::contain_panic(|| self.next_unguarded(out))
            .unwrap_or_else(|| Err("the sound file is broken".into()))
    }

    fn next_unguarded(&mut self, out: &mut Vec<f32>) -> Result<bool, Refusal> {
        loop {
            let packet = match self.format.next_packet() {
                Ok(packet) => packet,
                Err(Failure::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    return Ok(false);
                }
                Err(Failure::ResetRequired) => return Ok(false),
                Err(e) => return Err(refuse!("the sound file is broken ({e})")),
            };
            if packet.track_id() != self.track {
                continue;
            }
            let decoded = match self.decoder.decode(&packet) {
                Ok(decoded) => decoded,
                // A damaged packet is skipped, as players do, and counted.
                Err(Failure::DecodeError(_)) => {
                    self.skipped += 1;
                    continue;
                }
                Err(e) => return Err(refuse!("the sound file is broken ({e})")),
            };
            let frames = decoded.frames();
            self.decoded += frames as u64;
            let spec = *decoded.spec();
            if spec.channels.count() != self.channels || frames * self.channels > MAX_PACKET {
                return Err("the sound file changes shape midway".into());
            }
            let most = decoded.capacity().max(frames);
            let buffer = match &mut self.buffer {
                Some(b) if b.capacity() >= frames * self.channels => b,
                slot => slot.insert(SampleBuffer::new(most as u64, spec)),
            };
            buffer.copy_interleaved_ref(decoded);
            // NaN or infinite samples would poison the whole mix: silence.
            out.extend(buffer.samples().iter().map(|&s| {
                if s.is_finite() {
                    s.clamp(-1.0, 1.0)
                } else {
                    0.0
                }
            }));
            return Ok(true);
        }
    }

    /// What is wrong with a sound that played to its end, if anything:
    /// it ended before the length its header gives, or damaged packets
    /// were skipped. (A sound that plays as silence says why.)
    pub fn ending_fault(&self) -> Option<Refusal> {
        let seconds = |frames: u64| frames as f64 / f64::from(self.rate.max(1));
        match self.frames {
            Some(said) if self.decoded < said => Some(refuse!(
                "the file ends at {:.2} s, before the {:.2} s its header gives (cut short?)",
                seconds(self.decoded),
                seconds(said)
            )),
            _ if self.skipped > 0 => Some(refuse!(
                "{} damaged packet{} skipped, played as silence",
                self.skipped,
                if self.skipped == 1 { " was" } else { "s were" }
            )),
            _ => None,
        }
    }

    /// Goes back to the start (a streamed sound that loops).
    ///
    /// # Errors
    /// The file cannot seek.
    pub fn rewind(&mut self) -> Result<(), Refusal> {
        let track = self.track;
        let seeked = moonloop_core::contain::contain_panic(|| {
            self.format.seek(
                SeekMode::Accurate,
                SeekTo::TimeStamp {
                    ts: 0,
                    track_id: track,
                },
            )
        });
        match seeked {
            Some(Ok(_)) => {
                self.decoder.reset();
                self.decoded = 0;
                Ok(())
            }
            _ => Err("the sound file cannot go back to its start".into()),
        }
    }
}

/// The format's name with its article: "a WAV", "an Ogg Vorbis".
fn describe(ext: &str) -> Result<&'static str, Refusal> {
    match ext {
        "wav" => Ok("a WAV"),
        "ogg" => Ok("an Ogg Vorbis"),
        "flac" => Ok("a FLAC"),
        _ => Err("sounds are .wav, .ogg or .flac files".into()),
    }
}

/// What a header walk found.
enum Found {
    /// The comment header's body.
    Comments(Vec<u8>),
    /// No comment header (or not this format: the decoder will say).
    None,
    /// The bytes ended inside the comment header: what there was of it.
    Partial(Vec<u8>),
    /// The bytes ended before the headers did.
    RanOut,
}

/// Checks the lengths an Ogg Vorbis or FLAC file's comment header claims
/// against the bytes there are. `bytes` is the whole file when `whole`,
/// else its first part, and headers that run past it are refused.
///
/// # Errors
/// A comment header claims more than it holds, or the headers run past
/// the part given.
pub fn check_headers(bytes: &[u8], ext: &str, whole: bool) -> Result<(), Refusal> {
    let found = match ext {
        "ogg" => ogg_comment_packet(bytes),
        "flac" => flac_comment_block(bytes),
        _ => return Ok(()),
    };
    let body = match found {
        Found::Comments(body) => body,
        // A file cut short inside its comments is judged on what it has:
        // a claim past the end fails, as it should.
        Found::Partial(body) if whole => body,
        Found::None => return Ok(()),
        // Cut short before them: the decoder will say so.
        Found::RanOut if whole => return Ok(()),
        Found::Partial(_) | Found::RanOut => {
            return Err(refuse!(
                "{} file whose headers run past its first {} (a picture in them?); \
                 the host reads no further before playing it",
                describe(ext)?,
                crate::bytes(bytes.len() as u64)
            ));
        }
    };
    let body = match ext {
        "ogg" => match body.strip_prefix(b"\x03vorbis".as_slice()) {
            Some(rest) => rest.to_vec(),
            None => return Ok(()),
        },
        _ => body,
    };
    if comments_fit(&body) {
        Ok(())
    } else {
        Err(refuse!(
            "{} file whose comment header claims more than it holds",
            describe(ext)?
        ))
    }
}

/// Whether a Vorbis comment body's lengths fit inside it.
fn comments_fit(mut rest: &[u8]) -> bool {
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
    let mut check = || {
        skip(&mut rest)?; // the vendor
        let count = length(&mut rest)?;
        if count > rest.len() / 4 {
            return None;
        }
        for _ in 0..count {
            skip(&mut rest)?;
        }
        Some(())
    };
    check().is_some()
}

/// The second packet of an Ogg stream (a Vorbis stream's comments), read
/// from its pages.
fn ogg_comment_packet(bytes: &[u8]) -> Found {
    let (mut at, mut packet, mut index) = (0usize, Vec::new(), 0);
    loop {
        if at + 27 > bytes.len() {
            return if index == 1 {
                Found::Partial(packet)
            } else {
                Found::RanOut
            };
        }
        if &bytes[at..at + 4] != b"OggS" {
            return Found::None;
        }
        let segments = usize::from(bytes[at + 26]);
        let Some(table) = bytes.get(at + 27..at + 27 + segments) else {
            return Found::RanOut;
        };
        let mut body = at + 27 + segments;
        for &lace in table {
            let Some(piece) = bytes.get(body..body + usize::from(lace)) else {
                if index == 1 {
                    packet.extend_from_slice(bytes.get(body..).unwrap_or_default());
                    return Found::Partial(packet);
                }
                return Found::RanOut;
            };
            body += usize::from(lace);
            if index == 1 {
                packet.extend_from_slice(piece);
            }
            if lace < 255 {
                if index == 1 {
                    return Found::Comments(packet);
                }
                index += 1;
            }
        }
        at = body;
    }
}

/// A FLAC file's VORBIS_COMMENT block, walking the metadata blocks.
fn flac_comment_block(bytes: &[u8]) -> Found {
    if bytes.len() < 4 {
        return Found::RanOut;
    }
    if &bytes[..4] != b"fLaC" {
        return Found::None;
    }
    let mut at = 4;
    loop {
        let Some(header) = bytes.get(at..at + 4) else {
            return Found::RanOut;
        };
        let (last, kind) = (header[0] & 0x80 != 0, header[0] & 0x7f);
        let len =
            usize::from(header[1]) << 16 | usize::from(header[2]) << 8 | usize::from(header[3]);
        at += 4;
        if kind == 4 {
            return match bytes.get(at..at + len) {
                Some(block) => Found::Comments(block.to_vec()),
                None => Found::Partial(bytes.get(at..).unwrap_or_default().to_vec()),
            };
        }
        if last {
            return Found::None;
        }
        at += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_lengths_are_checked_against_what_the_header_holds() {
        let mut body = Vec::new();
        body.extend_from_slice(&3u32.to_le_bytes());
        body.extend_from_slice(b"abc");
        body.extend_from_slice(&1u32.to_le_bytes());
        body.extend_from_slice(&2u32.to_le_bytes());
        body.extend_from_slice(b"k=");
        assert!(comments_fit(&body));
        body[0..4].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
        assert!(!comments_fit(&body), "a vendor of 4 GB");
    }

    /// A FLAC file's start: the marker, and a VORBIS_COMMENT block whose
    /// header says `len` bytes, of which `body` are there.
    fn flac(len: usize, body: &[u8]) -> Vec<u8> {
        let mut f = b"fLaC".to_vec();
        f.push(0x80 | 4);
        f.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
        f.extend_from_slice(body);
        f
    }

    // rule: H10
    #[test]
    fn a_flac_comment_cut_short_is_judged_on_what_it_holds() {
        let mut claim = 0xffff_fff0u32.to_le_bytes().to_vec();
        claim.extend_from_slice(b"vendor");
        let cut = flac(1000, &claim);
        assert!(
            check_headers(&cut, "flac", true).is_err(),
            "a 4 GB vendor in a cut file"
        );
        let mut fine = 6u32.to_le_bytes().to_vec();
        fine.extend_from_slice(b"vendor");
        fine.extend_from_slice(&0u32.to_le_bytes());
        assert!(check_headers(&flac(fine.len(), &fine), "flac", true).is_ok());
        assert!(
            check_headers(b"not flac at all", "flac", true).is_ok(),
            "the decoder refuses it"
        );
    }

    // rule: H10
    #[test]
    fn a_streamed_file_whose_headers_run_past_the_part_read_is_refused() {
        let mut fine = 6u32.to_le_bytes().to_vec();
        fine.extend_from_slice(b"vendor");
        fine.extend_from_slice(&0u32.to_le_bytes());
        let big = flac(100_000, &fine);
        assert!(
            check_headers(&big, "flac", true).is_ok(),
            "the whole file: judged on what it has"
        );
        let refused = check_headers(&big, "flac", false).unwrap_err();
        assert!(refused.contains("headers run past its first"), "{refused}");
    }
}
