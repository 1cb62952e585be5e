//! PNG images, decoded within limits the header is checked against first.
//!
//! tiny-skia allocates whatever a PNG's header claims (a forged
//! 100000x100000 header asked for 40 GB and aborted the host), so the size
//! is read and checked before the pixels are decoded.

use moonloop_core::Refusal;
use std::path::Path;

use tiny_skia::Pixmap;

/// The widest or tallest image, in pixels (what GPUs take as a texture).
pub const MAX_SIDE: u32 = 8192;

/// The most pixels one image may have: 64 MiB decoded.
pub const MAX_PIXELS: u64 = 4096 * 4096;

/// The largest PNG file read.
pub const MAX_FILE: u64 = 64 << 20;

/// Reads and decodes PNG `name` from the game folder `root`.
///
/// # Errors
/// The door refuses the name, or the file is not a PNG within the limits.
pub fn load(root: Option<&Path>, name: &str) -> Result<Pixmap, Refusal> {
    let bytes = super::read(root, name, "image", MAX_FILE)?;
    decode(&bytes).map_err(|why| refuse!("`{}` {why}", moonloop_door::escape(name)))
}

/// Reads the width and height PNG `bytes` claim, from the header alone
/// (nothing is decoded or allocated for the pixels).
///
/// # Errors
/// The bytes do not start as a PNG does.
pub fn size(bytes: &[u8]) -> Result<(u32, u32), Refusal> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let info = decoder
        .read_header_info()
        .map_err(|e| refuse!("is not a PNG image ({e})"))?;
    Ok((info.width, info.height))
}

/// Decodes PNG `bytes` into premultiplied RGBA.
///
/// # Errors
/// Says why the bytes are not a PNG within [`MAX_SIDE`] and [`MAX_PIXELS`],
/// as a phrase that follows the file's name ("is not a PNG image (...)").
pub fn decode(bytes: &[u8]) -> Result<Pixmap, Refusal> {
    let not_png = |why: String| refuse!("is not a PNG image ({why})");
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let info = decoder
        .read_header_info()
        .map_err(|e| not_png(e.to_string()))?;
    let (w, h) = (info.width, info.height);
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(refuse!(
            "is {w}x{h} pixels; images are at most {MAX_SIDE} on a side and {MAX_PIXELS} pixels in all (H10)"
        ));
    }
    moonloop_core::contain::contain_panic(|| Pixmap::decode_png(bytes))
        .unwrap_or_else(|| Err(std::io::Error::other("the decoder failed on it").into()))
        .map_err(|e| not_png(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG whose header claims `w` x `h` (with no pixel data to match).
    fn header(w: u32, h: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, 1, 1);
        encoder.set_color(png::ColorType::Rgba);
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&[0; 4])
            .unwrap();
        // Patch the IHDR's size and its checksum.
        out[16..20].copy_from_slice(&w.to_be_bytes());
        out[20..24].copy_from_slice(&h.to_be_bytes());
        let crc = crc(&out[12..29]);
        out[29..33].copy_from_slice(&crc.to_be_bytes());
        out
    }

    fn crc(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    // rule: H10
    #[test]
    fn a_forged_size_is_refused_before_decoding() {
        assert_eq!(
            decode(&header(100_000, 100_000)).unwrap_err(),
            "is 100000x100000 pixels; images are at most 8192 on a side and 16777216 pixels in all (H10)"
        );
        assert!(
            decode(&header(8192, 4096))
                .unwrap_err()
                .contains("8192x4096")
        );
        assert!(
            decode(b"not a png")
                .unwrap_err()
                .starts_with("is not a PNG image")
        );
        assert_eq!(decode(&header(1, 1)).unwrap().width(), 1);
    }
}
