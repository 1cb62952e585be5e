//! GIF frames as the difference from the one before (rule H4): only the
//! rectangle that changed is written, its unchanged pixels transparent over
//! the frame kept underneath, and a changed area of at most 255 colors is
//! indexed exactly, with no quantizing. Only an area of more colors goes
//! through NeuQuant, the one slow step.

use rustc_hash::FxHashMap;

use super::diff::changed;

/// How thoroughly NeuQuant samples an area of many colors: 1 is best, 30
/// fastest; 10 is the gif crate's own default.
const QUANTIZE_SPEED: i32 = 10;

/// The index unchanged pixels take in an exactly indexed frame.
const CLEAR: u8 = 255;

/// Turns whole frames into difference frames; keeps what it needs from one
/// frame to the next, so steady recording allocates nothing new.
#[derive(Debug, Default)]
pub struct Differ {
    /// The last frame, straight RGBA, as a viewer shows it now.
    shown: Vec<u8>,
    size: (u16, u16),
    /// Scratch: the changed area's pixels, its colors and its indices.
    area: Vec<u8>,
    colors: FxHashMap<u32, u8>,
    palette: Vec<u8>,
    indices: Vec<u8>,
    /// How many frames were indexed exactly.
    pub exact: u64,
}

impl Differ {
    /// Returns the frame to write for `rgba` (straight, `size` pixels).
    pub fn frame(&mut self, rgba: &[u8], size: (u16, u16)) -> gif::Frame<'static> {
        let (w, h) = (usize::from(size.0), usize::from(size.1));
        let first = self.size != size || self.shown.len() != rgba.len();
        let [x0, y0, x1, y1] = if first {
            [0, 0, w, h]
        } else {
            // Nothing changed: one transparent pixel carries the delay.
            changed(&self.shown, rgba, w, h).unwrap_or([0, 0, 1, 1])
        };
        self.area.clear();
        for y in y0..y1 {
            let row = (y * w + x0) * 4..(y * w + x1) * 4;
            if first {
                self.area.extend_from_slice(&rgba[row]);
                continue;
            }
            let new = rgba[row.clone()].chunks_exact(4);
            for (new, old) in new.zip(self.shown[row].chunks_exact(4)) {
                // An unchanged pixel is transparent: the last frame shows.
                self.area
                    .extend_from_slice(if new == old { &[0, 0, 0, 0] } else { new });
            }
        }
        self.size = size;
        self.shown.clear();
        self.shown.extend_from_slice(rgba);
        let (fw, fh) = ((x1 - x0) as u16, (y1 - y0) as u16);
        let mut frame = match self.index() {
            Some(frame) => frame,
            None => gif::Frame::from_rgba_speed(fw, fh, &mut self.area, QUANTIZE_SPEED),
        };
        frame.width = fw;
        frame.height = fh;
        frame.left = x0 as u16;
        frame.top = y0 as u16;
        frame.dispose = gif::DisposalMethod::Keep;
        frame
    }

    /// Indexes the changed area exactly when it holds at most 255 colors
    /// (transparent pixels taking the 256th); `None` when it holds more.
    fn index(&mut self) -> Option<gif::Frame<'static>> {
        self.colors.clear();
        self.palette.clear();
        self.indices.clear();
        let mut clear = false;
        for px in self.area.chunks_exact(4) {
            if px[3] == 0 {
                clear = true;
                self.indices.push(CLEAR);
                continue;
            }
            let next = self.colors.len();
            if next == 255 && !self.colors.contains_key(&key(px)) {
                return None;
            }
            let index = *self.colors.entry(key(px)).or_insert(next as u8);
            if usize::from(index) == next {
                self.palette.extend_from_slice(&px[..3]);
            }
            self.indices.push(index);
        }
        self.palette.resize(256 * 3, 0);
        self.exact += 1;
        Some(gif::Frame {
            palette: Some(self.palette.clone()),
            transparent: clear.then_some(CLEAR),
            buffer: std::borrow::Cow::Owned(self.indices.clone()),
            ..gif::Frame::default()
        })
    }
}

/// A pixel's color as a map key (GIF has no partial alpha).
fn key(px: &[u8]) -> u32 {
    u32::from_le_bytes([px[0], px[1], px[2], 0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Composes every frame of a GIF as a viewer shows it.
    fn decoded(bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(bytes).unwrap();
        let w = usize::from(decoder.width());
        let mut canvas = vec![0u8; w * usize::from(decoder.height()) * 4];
        let mut out = Vec::new();
        while let Some(f) = decoder.read_next_frame().unwrap() {
            for row in 0..usize::from(f.height) {
                for col in 0..usize::from(f.width) {
                    let src = (row * usize::from(f.width) + col) * 4;
                    if f.buffer[src + 3] == 0 {
                        continue;
                    }
                    let dst = ((usize::from(f.top) + row) * w + usize::from(f.left) + col) * 4;
                    canvas[dst..dst + 4].copy_from_slice(&f.buffer[src..src + 4]);
                }
            }
            out.push(canvas.clone());
        }
        out
    }

    fn encode(frames: &[Vec<u8>], size: (u16, u16)) -> (Vec<u8>, Differ) {
        let mut bytes = Vec::new();
        let mut differ = Differ::default();
        {
            let mut encoder = gif::Encoder::new(&mut bytes, size.0, size.1, &[]).unwrap();
            for f in frames {
                encoder.write_frame(&differ.frame(f, size)).unwrap();
            }
        }
        (bytes, differ)
    }

    fn solid(w: usize, h: usize, rgb: [u8; 3]) -> Vec<u8> {
        (0..w * h)
            .flat_map(|_| [rgb[0], rgb[1], rgb[2], 255])
            .collect()
    }

    // rule: H4
    #[test]
    fn few_colors_round_trip_exactly_and_only_the_change_is_written() {
        let (w, h) = (40, 30);
        let first = solid(w, h, [10, 20, 30]);
        let mut second = first.clone();
        for y in 5..9 {
            for x in 12..20 {
                second[(y * w + x) * 4..(y * w + x) * 4 + 4].copy_from_slice(&[250, 0, 0, 255]);
            }
        }
        let third = second.clone();
        let frames = vec![first, second, third];
        let (bytes, differ) = encode(&frames, (w as u16, h as u16));
        assert_eq!(decoded(&bytes), frames);
        assert_eq!(differ.exact, 3);
        let mut decoder = gif::DecodeOptions::new().read_info(&bytes[..]).unwrap();
        decoder.read_next_frame().unwrap();
        let f = decoder.read_next_frame().unwrap().unwrap();
        assert_eq!((f.left, f.top, f.width, f.height), (12, 5, 8, 4));
        let f = decoder.read_next_frame().unwrap().unwrap();
        assert_eq!(
            (f.width, f.height),
            (1, 1),
            "an unchanged frame is one clear pixel"
        );
    }

    // rule: H4
    #[test]
    fn many_colors_are_quantized_and_the_rest_stays_as_it_was() {
        let (w, h) = (32, 32);
        let first = solid(w, h, [0, 0, 0]);
        let mut second = first.clone();
        for (i, px) in second.chunks_exact_mut(4).enumerate().take(600) {
            px.copy_from_slice(&[(i % 256) as u8, (i / 3 % 256) as u8, 128, 255]);
        }
        let (bytes, differ) = encode(&[first.clone(), second], (w as u16, h as u16));
        assert_eq!(differ.exact, 1, "600 colors are more than a palette holds");
        let shown = decoded(&bytes);
        assert_eq!(shown[0], first);
        assert_eq!(shown[1][600 * 4..], first[600 * 4..]);
    }
}
