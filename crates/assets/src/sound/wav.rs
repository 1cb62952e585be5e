//! WAV files the host writes: `--audio`'s mix, and sounds in tests.

/// The bytes of a PCM WAV file of whole-number `samples` (interleaved),
/// `bits` wide (8, 16, 24 or 32).
pub fn encode(channels: u16, rate: u32, bits: u16, samples: &[i32]) -> Vec<u8> {
    let width = usize::from(bits / 8);
    let mut out = header(channels, rate, bits, (samples.len() * width) as u32);
    for &s in samples {
        if bits == 8 {
            // 8-bit WAV is unsigned.
            out.push((s + 128) as u8);
        } else {
            out.extend_from_slice(&s.to_le_bytes()[..width]);
        }
    }
    out
}

/// The 44-byte header of a PCM WAV file whose data is `data_bytes` long.
pub fn header(channels: u16, rate: u32, bits: u16, data_bytes: u32) -> Vec<u8> {
    let block = channels * (bits / 8);
    let mut h = Vec::with_capacity(44);
    h.extend_from_slice(b"RIFF");
    h.extend_from_slice(&(36 + data_bytes).to_le_bytes());
    h.extend_from_slice(b"WAVEfmt ");
    h.extend_from_slice(&16u32.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes());
    h.extend_from_slice(&channels.to_le_bytes());
    h.extend_from_slice(&rate.to_le_bytes());
    h.extend_from_slice(&(rate * u32::from(block)).to_le_bytes());
    h.extend_from_slice(&block.to_le_bytes());
    h.extend_from_slice(&bits.to_le_bytes());
    h.extend_from_slice(b"data");
    h.extend_from_slice(&data_bytes.to_le_bytes());
    h
}
