//! The camera: where it is, where it looks, how it projects; and what it
//! was at the last step 7, which the next frame's pointer is cast through.

use glam::camera::rh::proj::directx as proj;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat4, Vec3};
use moonloop_core::Refusal;

/// How the camera projects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// Perspective with a vertical field of view.
    Perspective {
        /// Vertical field of view in radians. Default: 60 degrees.
        fov: f32,
        /// Near plane. Default: 0.1.
        near: f32,
        /// Far plane. Default: 1000.
        far: f32,
    },
    /// Orthographic, showing `height` world units from top to bottom.
    Orthographic {
        /// Visible height in world units.
        height: f32,
        /// Near plane.
        near: f32,
        /// Far plane.
        far: f32,
    },
}

/// The camera: where it is, where it looks, how it projects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Camera-to-world transform (the inverse of the view).
    pub pose: Mat4,
    /// The projection.
    pub projection: Projection,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            pose: look_at_mat4(Vec3::new(0.0, 2.0, 5.0), Vec3::ZERO, Vec3::Y).inverse(),
            projection: Projection::Perspective {
                fov: 60f32.to_radians(),
                near: 0.1,
                far: 1000.0,
            },
        }
    }
}

impl Camera {
    /// Poses the camera at `position` looking at `target`.
    ///
    /// # Errors
    /// The two points coincide, or the view is straight along `up`.
    pub fn look_at(&mut self, position: Vec3, target: Vec3, up: Vec3) -> Result<(), Refusal> {
        let forward = target - position;
        if forward.length_squared() < 1e-12 {
            return Err("`position` and `target` are the same point".into());
        }
        if forward
            .normalize()
            .cross(up.normalize_or_zero())
            .length_squared()
            < 1e-12
        {
            return Err("the camera looks straight along `up`; give another `up`".into());
        }
        self.pose = look_at_mat4(position, target, up).inverse();
        Ok(())
    }

    /// Returns the view matrix (world to camera).
    pub fn view(&self) -> Mat4 {
        self.pose.inverse()
    }

    /// Returns the projection matrix for a viewport of `aspect` (w / h),
    /// with depth from 0 to 1 and y up, as wgpu expects (glam calls this
    /// the DirectX convention).
    pub fn projection_matrix(&self, aspect: f32) -> Mat4 {
        match self.projection {
            Projection::Perspective { fov, near, far } => proj::perspective(fov, aspect, near, far),
            Projection::Orthographic { height, near, far } => {
                let (hw, hh) = (height * aspect / 2.0, height / 2.0);
                proj::orthographic(-hw, hw, -hh, hh, near, far)
            }
        }
    }
}

/// What the camera was at the last step 7: the next frame's pointer ray is
/// cast through it, so a click picks what the player saw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    /// World to clip space.
    pub view_projection: Mat4,
    /// Clip space to world.
    pub inverse_view_projection: Mat4,
}
