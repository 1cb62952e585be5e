//! Geometry: the built-in meshes as triangles, in the units the scene
//! documents (a unit cube, a sphere and cylinder of diameter 1, a 1x1
//! plane facing up).

use std::f32::consts::{PI, TAU};

/// One vertex: position, normal, texture coordinate.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    /// Position.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// Texture coordinate.
    pub uv: [f32; 2],
    /// Linear RGBA, which the object's color multiplies (white for the
    /// built-in meshes; a model's material and vertex colors).
    pub color: [f32; 4],
    /// Metallic and roughness (0 and 1 for the built-in meshes; a model's
    /// material's), which an object's own replace; z, w unused.
    pub surface: [f32; 4],
    /// The light it gives off (linear; a model's material's), which an
    /// object's own adds to; w unused.
    pub emissive: [f32; 4],
}

/// A model's vertices, placed at `positions` with `normals` (its own, or
/// a pose's), with the rest of each from the model.
pub fn model_vertices<'a>(
    model: &'a moonloop_assets::gltf::Model,
    positions: &'a [[f32; 3]],
    normals: &'a [[f32; 3]],
) -> impl Iterator<Item = Vertex> + 'a {
    (0..model.positions.len()).map(move |v| Vertex {
        position: positions[v],
        normal: normals[v],
        uv: model.uvs[v],
        color: model.colors[v],
        surface: model.surfaces[v],
        emissive: model.emissive[v],
    })
}

/// Triangles sharing a vertex list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Geometry {
    /// The vertices.
    pub vertices: Vec<Vertex>,
    /// Three indices a triangle, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

fn v(position: [f32; 3], normal: [f32; 3], uv: [f32; 2]) -> Vertex {
    Vertex {
        color: [1.0; 4],
        surface: [0.0, 1.0, 0.0, 0.0],
        emissive: [0.0; 4],
        position,
        normal,
        uv,
    }
}

/// A unit cube centered on the origin, each face with its own normals.
pub fn cube() -> Geometry {
    let mut g = Geometry::default();
    // (normal, u axis, v axis) per face; corners are n/2 ± u/2 ± v/2.
    let faces: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    for (n, u, w) in faces {
        let base = g.vertices.len() as u32;
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = [0, 1, 2].map(|i| 0.5 * n[i] + 0.5 * su * u[i] + 0.5 * sv * w[i]);
            g.vertices
                .push(v(p, n, [(su + 1.0) / 2.0, (1.0 - sv) / 2.0]));
        }
        g.indices
            .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    g
}

/// A 1x1 square in the xz plane, facing +y.
pub fn plane() -> Geometry {
    let n = [0.0, 1.0, 0.0];
    Geometry {
        vertices: vec![
            v([-0.5, 0.0, 0.5], n, [0.0, 1.0]),
            v([0.5, 0.0, 0.5], n, [1.0, 1.0]),
            v([0.5, 0.0, -0.5], n, [1.0, 0.0]),
            v([-0.5, 0.0, -0.5], n, [0.0, 0.0]),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
    }
}

/// A 1x1 square in the xy plane facing +z, its texture upright: what the
/// shader turns to face the camera for a billboard.
pub fn billboard() -> Geometry {
    let n = [0.0, 0.0, 1.0];
    Geometry {
        vertices: vec![
            v([-0.5, -0.5, 0.0], n, [0.0, 1.0]),
            v([0.5, -0.5, 0.0], n, [1.0, 1.0]),
            v([0.5, 0.5, 0.0], n, [1.0, 0.0]),
            v([-0.5, 0.5, 0.0], n, [0.0, 0.0]),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
    }
}

/// A sphere of diameter 1 from `segments` slices and half as many rings.
pub fn sphere(segments: u32) -> Geometry {
    let rings = segments / 2;
    let mut g = Geometry::default();
    for r in 0..=rings {
        let theta = PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let phi = TAU * s as f32 / segments as f32;
            let n = [
                theta.sin() * phi.cos(),
                theta.cos(),
                -theta.sin() * phi.sin(),
            ];
            g.vertices.push(v(
                n.map(|c| c * 0.5),
                n,
                [s as f32 / segments as f32, r as f32 / rings as f32],
            ));
        }
    }
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * row + s, (r + 1) * row + s);
            // At the poles one of the two triangles has no area: skip it.
            if r != 0 {
                g.indices.extend([a, b, a + 1]);
            }
            if r != rings - 1 {
                g.indices.extend([a + 1, b, b + 1]);
            }
        }
    }
    g
}

/// A cylinder of diameter 1 and height 1 along y, with caps.
pub fn cylinder(segments: u32) -> Geometry {
    let mut g = Geometry::default();
    for s in 0..=segments {
        let phi = TAU * s as f32 / segments as f32;
        let (x, z) = (phi.cos(), -phi.sin());
        let u = s as f32 / segments as f32;
        g.vertices
            .push(v([x * 0.5, -0.5, z * 0.5], [x, 0.0, z], [u, 1.0]));
        g.vertices
            .push(v([x * 0.5, 0.5, z * 0.5], [x, 0.0, z], [u, 0.0]));
    }
    for s in 0..segments {
        let a = s * 2;
        g.indices.extend([a, a + 2, a + 1, a + 1, a + 2, a + 3]);
    }
    for (y, n) in [(0.5f32, 1.0f32), (-0.5, -1.0)] {
        let center = g.vertices.len() as u32;
        g.vertices.push(v([0.0, y, 0.0], [0.0, n, 0.0], [0.5, 0.5]));
        for s in 0..=segments {
            let phi = TAU * s as f32 / segments as f32;
            let (x, z) = (phi.cos(), -phi.sin());
            g.vertices.push(v(
                [x * 0.5, y, z * 0.5],
                [0.0, n, 0.0],
                [0.5 + x * 0.5, 0.5 - z * 0.5],
            ));
        }
        for s in 0..segments {
            let (a, b) = (center + 1 + s, center + 2 + s);
            if n > 0.0 {
                g.indices.extend([center, a, b]);
            } else {
                g.indices.extend([center, b, a]);
            }
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle faces outward: its normal agrees with its vertices'.
    fn faces_outward(g: &Geometry) {
        for tri in g.indices.chunks(3) {
            let [a, b, c] =
                [0, 1, 2].map(|i| glam::Vec3::from(g.vertices[tri[i] as usize].position));
            let face = (b - a).cross(c - a);
            if face.length() < 1e-9 {
                continue;
            }
            let normal = glam::Vec3::from(g.vertices[tri[0] as usize].normal);
            assert!(face.dot(normal) > 0.0, "triangle {tri:?} winds inward");
        }
    }

    #[test]
    fn built_in_meshes_wind_outward_and_fit_the_unit_box() {
        for g in [cube(), plane(), sphere(32), cylinder(32)] {
            faces_outward(&g);
            for vertex in &g.vertices {
                assert!(vertex.position.iter().all(|c| c.abs() <= 0.5 + 1e-6));
            }
            assert!(g.indices.iter().all(|&i| (i as usize) < g.vertices.len()));
        }
        assert_eq!(cube().indices.len(), 36);
    }
}
