//! Particles: an emitter's particles worked out from a time the state
//! gives, not simulated, so the same time draws the same particles (in
//! replays, after a rewind, in golden pictures) at any frame rate.
//!
//! Particle `k` is born at `k / rate`, where the rate keeps `count` alive
//! at once, and lives `lifetime` seconds. Its direction (within `spread`
//! of the emitter's `direction`) and speed (from 0.8 to 1.2 times
//! `speed`) come from a hash of the seed and `k`; where it is at an age
//! is where that start and `gravity` carry it. Its size and color move
//! from their first to their last value over its life.

use glam::{Quat, Vec3};

use moonloop_core::color::Rgba;

/// The most particles one emitter keeps alive.
pub const MAX_PARTICLES: u32 = 100_000;

/// The most particles a frame draws, all emitters together (the rest are
/// left out, and that is said once).
pub const MAX_FRAME_PARTICLES: usize = 250_000;

/// An emitter, as `render` posed it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Emitter {
    /// How many are alive at once, once it has run a lifetime.
    pub count: u32,
    /// Seconds each lives.
    pub lifetime: f32,
    /// Units a second each starts with.
    pub speed: f32,
    /// Radians either side of `direction` a particle may start towards.
    pub spread: f32,
    /// Where they go, in the object's space.
    pub direction: Vec3,
    /// Units a second squared pulling on them, in the object's space.
    pub gravity: Vec3,
    /// Size (a side, in world units) at birth and at death.
    pub size: [f32; 2],
    /// Color at birth and at death.
    pub color: [Rgba; 2],
    /// What makes one emitter's particles differ from another's.
    pub seed: u32,
    /// Seconds since it started.
    pub time: f32,
}

/// One particle at the emitter's time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Particle {
    /// Where it is, in the object's space.
    pub position: Vec3,
    /// Its width and height, in world units, at its age.
    pub size: f32,
    /// Its colour at its age.
    pub color: Rgba,
}

impl Emitter {
    /// Calls `each` with every particle alive at the emitter's time, oldest
    /// first. Allocates nothing.
    pub fn each(&self, mut each: impl FnMut(Particle)) {
        if !(self.time >= 0.0 && self.lifetime > 0.0) || self.count == 0 {
            return;
        }
        let rate = f64::from(self.count) / f64::from(self.lifetime);
        let time = f64::from(self.time);
        let newest = (time * rate).floor();
        let oldest = ((time - f64::from(self.lifetime)) * rate).floor() + 1.0;
        let first = oldest.max(0.0) as u64;
        let last = newest.max(-1.0);
        if last < 0.0 {
            return;
        }
        let last = last as u64;
        // However far apart rounding puts the two ends (a lifetime of
        // 1e-30 makes the rate 1e32, where f64 steps by 1e16), no more
        // than `count` are alive.
        let first = first.max(last.saturating_sub(u64::from(self.count)));
        let axis = self.direction.normalize_or(Vec3::Y);
        // A turn from +y to the emitter's direction, for the cone.
        let to_axis = Quat::from_rotation_arc(Vec3::Y, axis);
        for k in first..=last {
            let age = (time - k as f64 / rate) as f32;
            if !(0.0..self.lifetime).contains(&age) {
                continue;
            }
            let [a, b, c] = unit_randoms(self.seed, k);
            // Uniform over the cap of the cone.
            let cos_max = self.spread.cos();
            let cos = 1.0 - a * (1.0 - cos_max);
            let sin = (1.0 - cos * cos).max(0.0).sqrt();
            let turn = b * std::f32::consts::TAU;
            let local = Vec3::new(sin * turn.cos(), cos, sin * turn.sin());
            let velocity = to_axis * local * self.speed * (0.8 + 0.4 * c);
            let f = age / self.lifetime;
            each(Particle {
                position: velocity * age + 0.5 * self.gravity * age * age,
                size: self.size[0] + (self.size[1] - self.size[0]) * f,
                color: mix(self.color[0], self.color[1], f),
            });
        }
    }
}

fn mix(a: Rgba, b: Rgba, f: f32) -> Rgba {
    Rgba {
        r: a.r + (b.r - a.r) * f,
        g: a.g + (b.g - a.g) * f,
        b: a.b + (b.b - a.b) * f,
        a: a.a + (b.a - a.a) * f,
    }
}

/// Three numbers in [0, 1) from `seed` and `k` (SplitMix64).
fn unit_randoms(seed: u32, k: u64) -> [f32; 3] {
    let mut x = (u64::from(seed) << 40) ^ k;
    std::array::from_fn(|_| {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fountain(time: f32) -> Emitter {
        Emitter {
            count: 100,
            lifetime: 2.0,
            speed: 3.0,
            spread: 0.3,
            direction: Vec3::Y,
            gravity: Vec3::new(0.0, -9.8, 0.0),
            size: [0.2, 0.0],
            color: [Rgba::WHITE, Rgba::BLACK],
            seed: 7,
            time,
        }
    }

    fn all(e: &Emitter) -> Vec<Particle> {
        let mut out = Vec::new();
        e.each(|p| out.push(p));
        out
    }

    #[test]
    fn count_are_alive_once_it_has_run_a_lifetime() {
        assert_eq!(all(&fountain(0.5)).len(), 26, "a quarter of the way in");
        assert_eq!(all(&fountain(10.0)).len(), 100);
        assert_eq!(all(&fountain(-1.0)).len(), 0, "nothing before it starts");
    }

    #[test]
    fn the_same_time_gives_the_same_particles_and_another_seed_others() {
        assert_eq!(all(&fountain(3.7)), all(&fountain(3.7)));
        let mut other = fountain(3.7);
        other.seed = 8;
        assert_ne!(all(&other), all(&fountain(3.7)));
    }

    #[test]
    fn particles_start_within_the_spread_and_fall_under_gravity() {
        let mut e = fountain(10.0);
        e.gravity = Vec3::ZERO;
        for p in all(&e) {
            let angle = p.position.angle_between(Vec3::Y);
            assert!(p.position.length() < 1e-6 || angle <= 0.3 + 1e-4, "{angle}");
        }
        // With gravity, the oldest (born 2 s ago at up to 3.6 units a
        // second) have come back below where they started.
        let fallen = all(&fountain(10.0)).first().unwrap().position.y;
        assert!(fallen < 0.0, "{fallen}");
    }

    #[test]
    fn rates_past_float_precision_stay_bounded() {
        // A lifetime of 1e-30 would otherwise walk 1e16 particles a frame.
        for (lifetime, time) in [
            (1e-30, 1.0),
            (1e-30, 1e30),
            (1.0, 1e30),
            (f32::MAX, f32::MAX),
        ] {
            let mut e = fountain(time);
            e.lifetime = lifetime;
            e.count = MAX_PARTICLES;
            let mut n = 0u64;
            e.each(|_| n += 1);
            assert!(n <= u64::from(MAX_PARTICLES) + 1, "{lifetime} {time}: {n}");
        }
    }

    #[test]
    fn size_and_color_move_over_life() {
        let ps = all(&fountain(10.0));
        let (old, young) = (ps.first().unwrap(), ps.last().unwrap());
        assert!(old.size < young.size);
        assert!(old.color.r < young.color.r);
    }
}
