//! A model's animation: its nodes as a tree, the clips that move them, the
//! skins that bend meshes after them, and posing the model at a clip's
//! time.
//!
//! A pose is a function of the model, the clip and the time alone, worked
//! out on the CPU: the same time gives the same vertices, so replays,
//! rewind and golden pictures see the same model.
//!
//! Posing follows glTF: each channel sets a node's translation, rotation
//! or scale at the time (between key frames linearly, rotations along the
//! sphere, or held until the next with step interpolation); a node's
//! matrix is its parent's times its own; a mesh on a node is placed by
//! the node's matrix, and a skinned mesh by its joints' matrices (each
//! times the joint's inverse bind matrix), blended by up to four weights
//! a vertex.

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};

/// A model's nodes, clips and skins, and which of the model's vertices
/// each node places.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rig {
    /// Each node's parent.
    pub(super) parent: Vec<Option<u32>>,
    /// Each node's own transform when no clip moves it.
    pub(super) rest: Vec<Rest>,
    /// The nodes, every parent before its children.
    pub(super) order: Vec<u32>,
    /// Whether a clip moves each node.
    pub(super) animated: Vec<bool>,
    /// Runs of the model's vertices and what places them.
    pub(super) runs: Vec<Run>,
    pub(super) skins: Vec<Skin>,
    /// The clips, in the file's order.
    pub clips: Vec<Clip>,
}

/// A node's transform: translation, rotation, scale, or a matrix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Rest {
    Parts(Vec3, Quat, Vec3),
    Matrix(Mat4),
}

/// A run of the model's vertices: one primitive where one node holds it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Run {
    /// The node that places it (for a skinned mesh, the joints do).
    pub node: u32,
    /// Its first vertex in the model.
    pub first: u32,
    /// Its vertices and normals before any node places them; no normals
    /// where the model has none (each triangle then faces the way its
    /// corners turn, worked out again once posed).
    pub positions: Vec<Vec3>,
    pub normals: Option<Vec<Vec3>>,
    /// The skin that bends it: the skin, and each vertex's joints (into
    /// the skin's) and weights.
    pub skin: Option<(u32, Vec<[u16; 4]>, Vec<Vec4>)>,
}

/// A skin: the nodes that are its joints and their inverse bind matrices.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Skin {
    pub joints: Vec<u32>,
    pub inverse_bind: Vec<Mat4>,
}

/// An animation clip.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// Its name in the file, or `clip N` (from 1) where it has none.
    pub name: String,
    /// Its last key frame's time, in seconds.
    pub duration: f32,
    pub(super) channels: Vec<Channel>,
}

/// One channel: the key frames of one node's translation, rotation or
/// scale.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Channel {
    pub node: u32,
    pub property: Property,
    /// Held until the next key frame, rather than moved towards it.
    pub step: bool,
    pub times: Vec<f32>,
    /// One value a key frame (a rotation's x, y, z, w; xyz otherwise).
    pub values: Vec<Vec4>,
}

/// What a channel moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Property {
    Translation,
    Rotation,
    Scale,
}

/// Working space for posing, kept between poses so posing allocates only
/// the first time.
#[derive(Debug, Default)]
pub struct Scratch {
    parts: Vec<(Vec3, Quat, Vec3)>,
    world: Vec<Mat4>,
    joints: Vec<Mat4>,
}

impl Clip {
    /// Returns the time within the clip that `time` falls on: wrapped
    /// round when it loops, else held at either end.
    pub fn at(&self, time: f32, looped: bool) -> f32 {
        if self.duration.is_nan() || self.duration <= 0.0 || !time.is_finite() {
            return 0.0;
        }
        if looped {
            time.rem_euclid(self.duration)
        } else {
            time.clamp(0.0, self.duration)
        }
    }
}

impl Channel {
    /// The channel's value at `t`: the first key frame's before it, the
    /// last's after it.
    fn sample(&self, t: f32) -> Vec4 {
        let next = self.times.partition_point(|&k| k <= t);
        if next == 0 {
            return self.values[0];
        }
        if next >= self.times.len() || self.step {
            return self.values[next - 1];
        }
        let (t0, t1) = (self.times[next - 1], self.times[next]);
        let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
        let (a, b) = (self.values[next - 1], self.values[next]);
        match self.property {
            Property::Rotation => {
                let (qa, qb) = (Quat::from_vec4(a), Quat::from_vec4(b));
                Vec4::from(qa.normalize().slerp(qb.normalize(), f))
            }
            _ => a.lerp(b, f),
        }
    }
}

impl Rig {
    /// Writes the model's vertices and normals posed by clip `clip` at
    /// `time` (seconds into the clip: see [`Clip::at`]) over `positions`
    /// and `normals`, which hold the model's as loaded.
    pub fn pose(
        &self,
        clip: usize,
        time: f32,
        scratch: &mut Scratch,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
    ) {
        let n = self.rest.len();
        scratch.parts.clear();
        scratch.parts.extend(self.rest.iter().map(|r| match *r {
            Rest::Parts(t, q, s) => (t, q, s),
            Rest::Matrix(m) => {
                let (s, q, t) = m.to_scale_rotation_translation();
                (t, q, s)
            }
        }));
        if let Some(clip) = self.clips.get(clip) {
            for channel in &clip.channels {
                let v = channel.sample(time);
                let part = &mut scratch.parts[channel.node as usize];
                match channel.property {
                    Property::Translation => part.0 = v.truncate(),
                    Property::Rotation => part.1 = Quat::from_vec4(v).normalize(),
                    Property::Scale => part.2 = v.truncate(),
                }
            }
        }
        scratch.world.clear();
        scratch.world.resize(n, Mat4::IDENTITY);
        for &node in &self.order {
            let node = node as usize;
            // A node no clip moves keeps its matrix exactly as written.
            let local = match self.rest[node] {
                Rest::Matrix(m) if !self.animated[node] => m,
                _ => {
                    let (t, q, s) = scratch.parts[node];
                    Mat4::from_scale_rotation_translation(s, q, t)
                }
            };
            scratch.world[node] = match self.parent[node] {
                Some(p) => scratch.world[p as usize] * local,
                None => local,
            };
        }
        for run in &self.runs {
            let first = run.first as usize;
            let out = &mut positions[first..first + run.positions.len()];
            let out_normals = &mut normals[first..first + run.positions.len()];
            match &run.skin {
                None => {
                    let m = scratch.world[run.node as usize];
                    let nm = Mat3::from_mat4(m).inverse().transpose();
                    for (k, p) in run.positions.iter().enumerate() {
                        out[k] = m.transform_point3(*p).to_array();
                        if let Some(ns) = &run.normals {
                            out_normals[k] = (nm * ns[k]).normalize_or(Vec3::Y).to_array();
                        }
                    }
                }
                Some((skin, joints, weights)) => {
                    let skin = &self.skins[*skin as usize];
                    scratch.joints.clear();
                    scratch.joints.extend(
                        skin.joints
                            .iter()
                            .zip(&skin.inverse_bind)
                            .map(|(&j, ib)| scratch.world[j as usize] * *ib),
                    );
                    for (k, p) in run.positions.iter().enumerate() {
                        let mut m = Mat4::ZERO;
                        for i in 0..4 {
                            let w = weights[k][i];
                            if w != 0.0 {
                                let j = joints[k][i] as usize;
                                m += scratch.joints.get(j).copied().unwrap_or(Mat4::IDENTITY) * w;
                            }
                        }
                        out[k] = m.transform_point3(*p).to_array();
                        if let Some(ns) = &run.normals {
                            out_normals[k] = Mat3::from_mat4(m)
                                .mul_vec3(ns[k])
                                .normalize_or(Vec3::Y)
                                .to_array();
                        }
                    }
                }
            }
            if run.normals.is_none() {
                // Flat: each three vertices are a triangle of their own.
                for t in 0..out.len() / 3 {
                    let [a, b, c] = [0, 1, 2].map(|i| Vec3::from(out[3 * t + i]));
                    let normal = (b - a).cross(c - a).normalize_or(Vec3::Y).to_array();
                    out_normals[3 * t..3 * t + 3].fill(normal);
                }
            }
        }
    }

    /// Names the clips, for a message that lists them.
    pub fn clip_names(&self) -> String {
        let names: Vec<&str> = self.clips.iter().map(|c| c.name.as_str()).collect();
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(property: Property, step: bool, times: &[f32], values: &[Vec4]) -> Channel {
        Channel {
            node: 0,
            property,
            step,
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    #[test]
    fn linear_channels_move_between_key_frames_and_hold_at_either_end() {
        let c = channel(
            Property::Translation,
            false,
            &[1.0, 3.0],
            &[Vec4::ZERO, Vec4::new(2.0, 0.0, 0.0, 0.0)],
        );
        assert_eq!(c.sample(0.0).x, 0.0);
        assert_eq!(c.sample(2.0).x, 1.0);
        assert_eq!(c.sample(5.0).x, 2.0);
    }

    #[test]
    fn step_channels_hold_each_key_frame_until_the_next() {
        let c = channel(
            Property::Translation,
            true,
            &[0.0, 1.0],
            &[Vec4::ZERO, Vec4::ONE],
        );
        assert_eq!(c.sample(0.99).x, 0.0);
        assert_eq!(c.sample(1.0).x, 1.0);
    }

    #[test]
    fn rotations_turn_along_the_sphere() {
        let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let c = channel(
            Property::Rotation,
            false,
            &[0.0, 1.0],
            &[Vec4::from(Quat::IDENTITY), Vec4::from(quarter)],
        );
        let half = Quat::from_vec4(c.sample(0.5));
        let eighth = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
        assert!(half.angle_between(eighth) < 1e-5, "{half}");
    }

    #[test]
    fn a_clip_loops_or_holds() {
        let clip = Clip {
            name: "walk".into(),
            duration: 2.0,
            channels: Vec::new(),
        };
        assert_eq!(clip.at(5.0, true), 1.0);
        assert_eq!(clip.at(-0.5, true), 1.5);
        assert_eq!(clip.at(5.0, false), 2.0);
        assert_eq!(clip.at(f32::NAN, true), 0.0);
    }
}
