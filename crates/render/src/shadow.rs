//! Shadows: the first directional light that casts them draws the depth of
//! every opaque object, as seen along the light, into a shadow map; the
//! scene pass darkens whatever that light would reach past something
//! nearer to it.
//!
//! The map covers what the camera sees, out to [`REACH`], cut down to the
//! box around the objects there, so a small scene gets sharp shadows and a
//! wide one still gets some. Its corner moves in whole texels, so shadows
//! hold still while the camera moves. Edges are filtered (four compared
//! samples, each blended between four texels). All of it is a function of
//! the scene, so the same state draws the same shadows.
//!
//! The map is 1024 texels a side: on a software adapter (lavapipe) a 2048
//! map made 1,000 cubes' frame 1.63 times as slow as without shadows, a
//! 1024 one 1.37 times (`moonloop-bench --only render`), and a fitted
//! small scene's texels are still under a centimetre.

use glam::camera::rh::proj::directx as proj;
use glam::camera::rh::view::look_to_mat4;
use glam::{Mat4, Vec3, Vec3Swizzles};

use super::DEPTH_FORMAT;

/// The shadow map's side, in texels (see the module's note).
pub(super) const SIZE: u32 = 1024;

/// How far from the camera shadows reach, in world units.
pub const REACH: f32 = 100.0;

/// The light's view of the scene, as the shader reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Fit {
    /// World to the shadow map's clip space.
    pub view_proj: Mat4,
    /// A texel's side, in world units (how far a lookup moves off a
    /// surface, against acne).
    pub texel: f32,
    /// How much nearer than the stored depth a point must be to be lit,
    /// in the map's depth units.
    pub bias: f32,
}

/// Fits the map of a light shining along `direction` to what a camera sees:
/// `inverse_view_proj` takes its clip space to the world, `reach` is the
/// share of its depth range that shadows cover, and `objects` is the box
/// around the opaque objects (the casters and most receivers). None when
/// they do not meet.
pub(super) fn fit(
    direction: Vec3,
    inverse_view_proj: Mat4,
    reach: f32,
    objects: (Vec3, Vec3),
) -> Option<Fit> {
    let (lo, hi) = objects;
    if !(lo.cmple(hi).all() && lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let up = if direction.y.abs() > 0.99 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    let view = look_to_mat4(Vec3::ZERO, direction, up);
    // The camera's frustum, cut at `reach`, in the light's view (which
    // looks down -z: a larger z is nearer the light).
    let mut frustum = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for corner in 0..4 {
        let (x, y) = (
            if corner & 1 == 0 { -1.0 } else { 1.0 },
            if corner & 2 == 0 { -1.0 } else { 1.0 },
        );
        let near = inverse_view_proj.project_point3(Vec3::new(x, y, 0.0));
        let far = inverse_view_proj.project_point3(Vec3::new(x, y, 1.0));
        for p in [near, near + (far - near) * reach] {
            let q = view.transform_point3(p);
            frustum = (frustum.0.min(q), frustum.1.max(q));
        }
    }
    let mut around = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for corner in 0..8 {
        let p = Vec3::new(
            if corner & 1 == 0 { lo.x } else { hi.x },
            if corner & 2 == 0 { lo.y } else { hi.y },
            if corner & 4 == 0 { lo.z } else { hi.z },
        );
        let q = view.transform_point3(p);
        around = (around.0.min(q), around.1.max(q));
    }
    // Sideways, what both hold; along the light, every object nearer the
    // light than the frustum's far side (a caster outside the view still
    // throws its shadow into it).
    let min = frustum.0.max(around.0);
    let max = frustum.1.min(around.1);
    if min.x >= max.x || min.y >= max.y {
        return None;
    }
    let (nearest, farthest) = (around.1.z, frustum.0.z.max(around.0.z));
    if farthest >= nearest {
        return None;
    }
    // A square map, its corner moved in whole texels.
    let side = (max.x - min.x).max(max.y - min.y) * 1.02;
    let texel = side / SIZE as f32;
    let centre = (min.xy() + max.xy()) / 2.0;
    let corner = ((centre - side / 2.0) / texel).floor() * texel;
    let depth = nearest - farthest;
    let pad = depth * 0.01 + texel;
    let projection = proj::orthographic(
        corner.x,
        corner.x + side,
        corner.y,
        corner.y + side,
        -(nearest + pad),
        -(farthest - pad),
    );
    Some(Fit {
        view_proj: projection * view,
        texel,
        bias: 1.5 * texel / (depth + 2.0 * pad),
    })
}

/// The map and what reads it: the texture the shadow pass draws into and
/// the comparing sampler the scene pass reads it with.
pub(super) struct Map {
    pub view: wgpu::TextureView,
    pub sampler: wgpu::Sampler,
}

impl Map {
    pub fn new(device: &wgpu::Device) -> Map {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("shadow map"),
            size: wgpu::Extent3d {
                width: SIZE,
                height: SIZE,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow map"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        Map {
            view: texture.create_view(&Default::default()),
            sampler,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera() -> Mat4 {
        let view =
            glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 4.0, 8.0), Vec3::ZERO, Vec3::Y);
        (proj::perspective(1.0, 1.0, 0.1, 1000.0) * view).inverse()
    }

    fn inside(fit: &Fit, p: Vec3) -> bool {
        let c = fit.view_proj.project_point3(p);
        c.x.abs() <= 1.0 && c.y.abs() <= 1.0 && (0.0..=1.0).contains(&c.z)
    }

    #[test]
    fn the_map_holds_the_objects_in_view_and_no_more() {
        let objects = (Vec3::new(-2.0, 0.0, -2.0), Vec3::new(2.0, 1.0, 2.0));
        let down = Vec3::new(-0.3, -1.0, -0.2).normalize();
        let fit = fit(down, camera(), 0.1, objects).unwrap();
        for corner in 0..8 {
            let p = Vec3::new(
                if corner & 1 == 0 { -2.0 } else { 2.0 },
                if corner & 2 == 0 { 0.0 } else { 1.0 },
                if corner & 4 == 0 { -2.0 } else { 2.0 },
            );
            assert!(inside(&fit, p), "{p} is in the map");
        }
        // Four units of objects, not the hundred units of frustum: a texel
        // is under a centimetre.
        assert!(fit.texel < 0.01, "{}", fit.texel);
        // Nearer the light is nearer in the map.
        let high = fit.view_proj.project_point3(Vec3::new(0.0, 1.0, 0.0));
        let low = fit.view_proj.project_point3(Vec3::new(0.0, 0.0, 0.0));
        assert!(high.z < low.z);
    }

    #[test]
    fn a_caster_out_of_view_towards_the_light_still_casts() {
        // A tall pillar far above the camera's view, straight up the light.
        let objects = (Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 60.0, 1.0));
        let fit = fit(Vec3::NEG_Y, camera(), 0.1, objects).unwrap();
        assert!(inside(&fit, Vec3::new(0.0, 59.0, 0.0)));
    }

    #[test]
    fn objects_out_of_view_make_no_map() {
        let far_away = (Vec3::new(500.0, 0.0, 500.0), Vec3::new(501.0, 1.0, 501.0));
        assert_eq!(fit(Vec3::NEG_Y, camera(), 0.1, far_away), None);
    }

    #[test]
    fn the_map_moves_in_whole_texels() {
        let down = Vec3::new(-0.3, -1.0, -0.2).normalize();
        let a = (Vec3::new(-2.0, 0.0, -2.0), Vec3::new(2.0, 1.0, 2.0));
        let b = (a.0 + Vec3::X * 0.0001, a.1 + Vec3::X * 0.0001);
        let (fa, fb) = (
            fit(down, camera(), 0.1, a).unwrap(),
            fit(down, camera(), 0.1, b).unwrap(),
        );
        let p = Vec3::new(0.3, 0.2, 0.1);
        let moved = fb.view_proj.project_point3(p).x - fa.view_proj.project_point3(p).x;
        let texels = moved * SIZE as f32 / 2.0;
        assert!((texels - texels.round()).abs() < 0.01, "{texels}");
    }
}
