//! The built-in sounds: short synthesized blips a game can play before it
//! has sound files of its own.

use super::Clip;
use super::mixer::RATE;

/// The built-in sounds' names.
pub const BUILT_IN: [&str; 6] = ["blip", "coin", "hit", "jump", "explosion", "powerup"];

/// One segment of a built-in: a wave sweeping from one frequency to another.
struct Tone {
    wave: Wave,
    from_hz: f32,
    to_hz: f32,
    secs: f32,
}

#[derive(Clone, Copy)]
enum Wave {
    Square,
    Triangle,
    Noise,
}

/// Synthesizes the built-in called `name`.
pub fn built_in(name: &str) -> Option<Clip> {
    use Wave::*;
    let tone = |wave, from_hz, to_hz, secs| Tone {
        wave,
        from_hz,
        to_hz,
        secs,
    };
    let tones = match name {
        "blip" => vec![tone(Square, 880.0, 880.0, 0.06)],
        "coin" => vec![
            tone(Square, 988.0, 988.0, 0.07),
            tone(Square, 1319.0, 1319.0, 0.25),
        ],
        "hit" => vec![tone(Square, 440.0, 220.0, 0.08)],
        "jump" => vec![tone(Triangle, 300.0, 750.0, 0.18)],
        "explosion" => vec![tone(Noise, 4000.0, 400.0, 0.45)],
        "powerup" => vec![
            tone(Square, 523.0, 523.0, 0.07),
            tone(Square, 659.0, 659.0, 0.07),
            tone(Square, 784.0, 784.0, 0.07),
            tone(Square, 1047.0, 1047.0, 0.2),
        ],
        _ => return None,
    };
    let mut samples = Vec::new();
    let mut phase = 0.0f32;
    let mut noise = 0x9e37_79b9u32;
    let mut held = 0.0f32;
    for tone in &tones {
        let n = (tone.secs * RATE as f32) as usize;
        for i in 0..n {
            let t = i as f32 / n as f32;
            let hz = tone.from_hz + (tone.to_hz - tone.from_hz) * t;
            let before = phase;
            phase = (phase + hz / RATE as f32).fract();
            let value = match tone.wave {
                Wave::Square => {
                    if phase < 0.5 {
                        1.0
                    } else {
                        -1.0
                    }
                }
                Wave::Triangle => 1.0 - 4.0 * (phase - 0.5).abs(),
                Wave::Noise => {
                    // A new random level each cycle: lower `hz`, rougher noise.
                    if phase < before {
                        noise ^= noise << 13;
                        noise ^= noise >> 17;
                        noise ^= noise << 5;
                        held = noise as f32 / u32::MAX as f32 * 2.0 - 1.0;
                    }
                    held
                }
            };
            // A 2 ms attack and a linear release keep the edges from clicking.
            let attack = (i as f32 / (0.002 * RATE as f32)).min(1.0);
            samples.push(0.3 * value * attack * (1.0 - t));
        }
    }
    Some(Clip {
        rate: RATE,
        channels: 1,
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_is_a_short_quiet_clip() {
        for name in BUILT_IN {
            let clip = built_in(name).unwrap();
            let secs = clip.frames() as f32 / clip.rate as f32;
            assert!(secs > 0.05 && secs < 0.5, "{name}: {secs} s");
            let peak = clip.samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
            assert!(peak > 0.1 && peak <= 0.3, "{name}: peak {peak}");
            assert_eq!(clip.samples[0], 0.0, "{name} starts silent");
        }
        assert_eq!(built_in("nope"), None);
    }

    #[test]
    fn a_blip_is_a_square_wave_at_880_hz() {
        let clip = built_in("blip").unwrap();
        let rising = clip
            .samples
            .windows(2)
            .filter(|w| w[0] <= 0.0 && w[1] > 0.0)
            .count();
        // 880 Hz for 60 ms: 52.8 cycles, so 52 or 53 rising edges.
        assert!((52..=53).contains(&rising), "{rising}");
    }
}
