//! glTF models, loaded from bytes that came through the asset door.
//!
//! The `gltf` crate's importer opens every URI in a model itself
//! (`file:///etc/passwd`, `../../x`, `/dev/zero`), so we parse the
//! document alone and resolve each buffer here: the GLB's own chunk, a
//! `data:` URI of at most [`MAX_MODEL_BYTES`], or a relative path through
//! [`super::read`]. Images are never decoded (the scene's textures come
//! from `texture = "file.png"`).
//!
//! The model is what its default scene draws: each node's mesh placed by
//! the node's transform (translation, rotation and scale, or a matrix)
//! times its parents', every primitive with its own material's base color
//! (times its `COLOR_0` vertex colors), all baked into one list of
//! triangles, so the scene draws and picks the model as its artist made it.

use moonloop_core::Refusal;
use std::path::Path;

use base64::Engine as _;
use glam::{Mat3, Mat4, Vec3};
use tiny_skia::Pixmap;

use super::rig::{self, Rig};

/// The most bytes one model may hold: its file and every buffer together.
pub const MAX_MODEL_BYTES: u64 = 64 << 20;

/// The most vertices (and, times three, indices) one model may have.
pub const MAX_VERTICES: usize = 1 << 22;

/// The most node placements one model's scene may make (a node reached
/// through several parents counts each time), and the deepest nesting:
/// a file may share nodes so that its tree unfolds past any size.
pub const MAX_PLACEMENTS: usize = 1 << 16;

/// The deepest a node may nest under a scene's roots.
pub const MAX_NESTING: usize = 64;

/// A mesh loaded from a glTF file: triangles, and the box around them.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The file, relative to the game folder.
    pub name: String,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Vertex normals (flat, one per face, where the file has none).
    pub normals: Vec<[f32; 3]>,
    /// Texture coordinates (zero where the file has none).
    pub uvs: Vec<[f32; 2]>,
    /// Each vertex's color: its primitive's material base color times its
    /// `COLOR_0` (linear RGBA, as glTF writes them); the object's own
    /// `color` multiplies it.
    pub colors: Vec<[f32; 4]>,
    /// Each vertex's metallic and roughness (z, w unused): its
    /// primitive's material's, which an object's own replace.
    pub surfaces: Vec<[f32; 4]>,
    /// The light each vertex gives off (linear; w unused): its
    /// primitive's material's emissive color.
    pub emissive: Vec<[f32; 4]>,
    /// Triangle indices.
    pub indices: Vec<u32>,
    /// The smallest and largest corner of the positions.
    pub bounds: (Vec3, Vec3),
    /// Whether every vertex is opaque (alpha 1).
    pub opaque: bool,
    /// Its triangles in runs that share a base color texture, in index
    /// order, covering every index.
    pub parts: Vec<Part>,
    /// The base color images its parts use, decoded.
    pub images: Vec<Pixmap>,
    /// What the model uses that the host does not draw, one line each,
    /// naming the model: said once when it loads.
    pub notes: Vec<String>,
    /// Its nodes, clips and skins, where it has clips or skins: what
    /// poses it (its vertices above are its rest pose).
    pub rig: Option<Rig>,
}

/// A run of a model's triangles drawn with one base color texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// Its first index.
    pub first: u32,
    /// How many indices it holds.
    pub count: u32,
    /// An index into [`Model::images`]; none draws white (the vertex
    /// colors alone).
    pub image: Option<u32>,
    /// How the image is sampled.
    pub sampler: Sampler,
    /// Its normal map, an index into [`Model::images`]: a tangent-space
    /// normal a texel (x right, y up in the picture, z out of the
    /// surface), its material's `scale` already applied; none keeps the
    /// surface's own normal.
    pub normal: Option<u32>,
}

/// How a texture is sampled: a glTF sampler's filter and wrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Sampler {
    /// Whole pixels (pixel art), not blended between them.
    pub nearest: bool,
    /// Along u, then v.
    pub wrap: [Wrap; 2],
}

/// What a texture does past its edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Wrap {
    /// It repeats (glTF's default).
    #[default]
    Repeat,
    /// Its edge pixels stretch on.
    Clamp,
    /// It repeats, every other copy mirrored.
    Mirror,
}

impl Model {
    /// Returns the bytes its vertices, indices and images hold.
    pub fn bytes(&self) -> usize {
        self.positions.len() * 12
            + self.normals.len() * 12
            + self.uvs.len() * 8
            + self.colors.len() * 16
            + (self.surfaces.len() + self.emissive.len()) * 16
            + self.indices.len() * 4
            + self.images.iter().map(|i| i.data().len()).sum::<usize>()
    }
}

/// Loads the glTF model `name` (`.gltf` or `.glb`) from the game folder
/// `root`.
///
/// # Errors
/// The name or a URI inside the file leaves the folder, a file is missing
/// or too big, or the model is not a readable glTF with triangles.
pub fn load(root: Option<&Path>, name: &str) -> Result<Model, Refusal> {
    let bytes = super::read(root, name, "model", MAX_MODEL_BYTES)?;
    let base = Path::new(name).parent().unwrap_or(Path::new(""));
    let decoded = moonloop_core::contain::contain_panic(|| {
        let gltf = gltf::Gltf::from_slice(&bytes).map_err(|e| Broken(e.to_string()))?;
        let mut budget = MAX_MODEL_BYTES.saturating_sub(bytes.len() as u64);
        let mut buffers = Vec::new();
        for buffer in gltf.document.buffers() {
            let data = match buffer.source() {
                gltf::buffer::Source::Bin => gltf.blob.clone().ok_or_else(|| {
                    Broken("a buffer refers to a GLB chunk the file lacks".into())
                })?,
                gltf::buffer::Source::Uri(uri) => {
                    buffer_from_uri(root, base, uri, budget, "model buffer")?
                }
            };
            if data.len() < buffer.length() {
                return Err(Broken(format!(
                    "buffer {} holds {} bytes where it declares {}",
                    buffer.index(),
                    data.len(),
                    buffer.length()
                )));
            }
            budget = budget.saturating_sub(data.len() as u64);
            buffers.push(data);
        }
        let mut images = Images {
            root,
            base,
            buffers: &buffers,
            budget,
            decoded: std::collections::HashMap::new(),
            normals: std::collections::HashMap::new(),
            runs: (gltf.document.animations().next().is_some()
                || gltf.document.skins().next().is_some())
            .then(Vec::new),
        };
        let mut model = triangles(&gltf.document, &mut images, name).map_err(Broken)?;
        if let Some(runs) = images.runs.take() {
            let rig = read_rig(&gltf.document, &buffers, runs, &mut model).map_err(Broken)?;
            // The rest pose is the rig's: a skinned mesh stands where its
            // joints put it, not where its node would.
            let (mut positions, mut normals) = (model.positions.clone(), model.normals.clone());
            rig.pose(
                usize::MAX,
                0.0,
                &mut rig::Scratch::default(),
                &mut positions,
                &mut normals,
            );
            model.bounds = bounds(&positions);
            model.positions = positions;
            model.normals = normals;
            model.rig = Some(rig);
        }
        unsupported(&gltf.document, &mut model);
        Ok(model)
    });
    let not_readable = |why: &str| refuse!("`{name}` is not a readable glTF model ({why})");
    match decoded {
        Some(Ok(model)) => Ok(model),
        Some(Err(Refused(why))) => Err(refuse!("`{name}`: {why}")),
        Some(Err(Broken(why))) => Err(not_readable(&why)),
        None => Err(not_readable("the glTF reader failed on it")),
    }
}

/// Why a model did not load: the door refused a buffer, or the file is
/// not a glTF the host can read.
enum Failure {
    Refused(String),
    Broken(String),
}

use Failure::{Broken, Refused};

/// Reads one buffer's URI: a `data:` URI, or a file beside the model.
fn buffer_from_uri(
    root: Option<&Path>,
    base: &Path,
    uri: &str,
    budget: u64,
    kind: &str,
) -> Result<Vec<u8>, Failure> {
    if let Some(data) = uri.strip_prefix("data:") {
        let (_, payload) = data
            .split_once(";base64,")
            .ok_or_else(|| Broken("a data: URI that is not base64".into()))?;
        // Base64 holds 3 bytes in every 4 characters.
        let size = payload.len() as u64 / 4 * 3;
        if size > budget {
            return Err(Refused(format!(
                "a data: URI of {} is more than a model may hold, {} (H10)",
                super::bytes(size),
                super::bytes(MAX_MODEL_BYTES)
            )));
        }
        return base64::engine::general_purpose::STANDARD
            .decode(payload)
            .map_err(|e| Broken(format!("a data: URI that is not valid base64 ({e})")));
    }
    if uri.contains(':') {
        return Err(Refused(format!(
            "the URI `{}` is not a file beside the model; a model's buffers and \
             images are files in the game folder or data: URIs (H10)",
            moonloop_door::escape(uri)
        )));
    }
    let path = percent_decode(uri).map_err(Broken)?;
    let rel = base.join(&path);
    super::read(root, &rel.to_string_lossy(), kind, budget).map_err(|r| Refused(r.into()))
}

/// Decodes `%XX` escapes in a URI path.
fn percent_decode(uri: &str) -> Result<String, String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    format!(
                        "the URI `{}` has a bad %-escape",
                        moonloop_door::escape(uri)
                    )
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "a URI that is not UTF-8".to_string())
}

fn triangles(
    document: &gltf::Document,
    images: &mut Images<'_>,
    name: &str,
) -> Result<Model, String> {
    let mut model = Model {
        name: name.to_string(),
        positions: Vec::new(),
        normals: Vec::new(),
        uvs: Vec::new(),
        colors: Vec::new(),
        surfaces: Vec::new(),
        emissive: Vec::new(),
        indices: Vec::new(),
        bounds: (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        opaque: true,
        parts: Vec::new(),
        images: Vec::new(),
        notes: Vec::new(),
        rig: None,
    };
    // The default scene, else the first; a file with no scene draws every
    // node no other node holds.
    let scene = document
        .default_scene()
        .or_else(|| document.scenes().next());
    let roots: Vec<gltf::Node<'_>> = match scene {
        Some(scene) => scene.nodes().collect(),
        None => {
            let held: std::collections::HashSet<usize> = document
                .nodes()
                .flat_map(|n| n.children().map(|c| c.index()))
                .collect();
            document
                .nodes()
                .filter(|n| !held.contains(&n.index()))
                .collect()
        }
    };
    let mut placements = 0usize;
    let mut stack: Vec<(gltf::Node<'_>, Mat4, usize)> = roots
        .into_iter()
        .rev()
        .map(|n| (n, Mat4::IDENTITY, 0))
        .collect();
    while let Some((node, parent, depth)) = stack.pop() {
        placements += 1;
        if placements > MAX_PLACEMENTS {
            return Err(format!(
                "its scene places nodes more than {MAX_PLACEMENTS} times, the most a model may"
            ));
        }
        if depth >= MAX_NESTING {
            return Err(format!(
                "its nodes nest more than {MAX_NESTING} deep, the most a model may"
            ));
        }
        let local = Mat4::from_cols_array_2d(&node.transform().matrix());
        let world = parent * local;
        if !world.is_finite() {
            return Err(format!(
                "node {} has a transform that is not finite",
                node.index()
            ));
        }
        if let Some(mesh) = node.mesh() {
            for primitive in mesh.primitives() {
                add_primitive(&mut model, &primitive, images, world, Some(&node))?;
            }
        }
        let children: Vec<_> = node.children().collect();
        stack.extend(children.into_iter().rev().map(|c| (c, world, depth + 1)));
    }
    // A file of meshes and no nodes at all (which glTF allows, drawing
    // nothing) is taken as its meshes, each once, where they stand.
    if document.nodes().next().is_none() {
        for mesh in document.meshes() {
            for primitive in mesh.primitives() {
                add_primitive(&mut model, &primitive, images, Mat4::IDENTITY, None)?;
            }
        }
    }
    if model.positions.is_empty() {
        return Err("it holds no triangles".into());
    }
    Ok(model)
}

/// Adds `primitive`'s triangles to `model`, placed by `world`.
fn add_primitive(
    model: &mut Model,
    primitive: &gltf::Primitive<'_>,
    images: &mut Images<'_>,
    world: Mat4,
    node: Option<&gltf::Node<'_>>,
) -> Result<(), String> {
    let buffers = images.buffers;
    let first_vertex = model.positions.len() as u32;
    let too_many =
        || format!("it has more than {MAX_VERTICES} vertices, the most a model may have");
    if primitive.mode() != gltf::mesh::Mode::Triangles {
        let mode = format!("{:?}", primitive.mode()).to_lowercase();
        note(
            model,
            format!("has {mode} primitives; the host draws triangles only"),
        );
        return Ok(());
    }
    let first = model.indices.len();
    // Declared counts are checked before anything is read: a sparse
    // accessor can claim billions of elements with no data at all.
    let counts = primitive
        .attributes()
        .map(|(_, a)| a.count())
        .chain(primitive.indices().map(|a| a.count()));
    for count in counts {
        if count > 3 * MAX_VERTICES || model.indices.len() + count > 3 * MAX_VERTICES {
            return Err(too_many());
        }
    }
    let factor = primitive
        .material()
        .pbr_metallic_roughness()
        .base_color_factor();
    let base = if factor.iter().all(|c| c.is_finite()) {
        factor.map(|c| c.clamp(0.0, 1.0))
    } else {
        [1.0; 4]
    };
    let reader = primitive.reader(|b| buffers.get(b.index()).map(|d| &d[..]));
    let Some(positions) = reader.read_positions() else {
        return Ok(());
    };
    let local: Vec<[f32; 3]> = positions.collect();
    let count = local.len();
    if model.positions.len() + count > MAX_VERTICES {
        return Err(too_many());
    }
    let mut indices: Vec<u32> = match reader.read_indices() {
        Some(indices) => indices.into_u32().collect(),
        None => (0..count as u32).collect(),
    };
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= count) {
        return Err(format!("index {bad} is past the {count} vertices"));
    }
    indices.truncate(indices.len() / 3 * 3);
    // A node that mirrors (a negative scale) turns its triangles inside
    // out: their corners go the other way round to face out again.
    let linear = Mat3::from_mat4(world);
    if linear.determinant() < 0.0 {
        for tri in indices.chunks_exact_mut(3) {
            tri.swap(1, 2);
        }
    }
    let normal_matrix = linear.inverse().transpose();
    let positions: Vec<[f32; 3]> = local
        .iter()
        .map(|p| world.transform_point3(Vec3::from(*p)).to_array())
        .collect();
    let uvs: Vec<[f32; 2]> = reader
        .read_tex_coords(0)
        .map(|t| t.into_f32().collect())
        .unwrap_or_else(|| vec![[0.0, 0.0]; count]);
    let colors: Vec<[f32; 4]> = match reader.read_colors(0) {
        Some(colors) => colors
            .into_rgba_f32()
            .map(|c| std::array::from_fn(|k| (c[k] * base[k]).clamp(0.0, 1.0)))
            .collect(),
        None => vec![base; count],
    };
    if uvs.len() != count || colors.len() != count {
        return Err("a primitive's attributes differ in length".into());
    }
    let placed = |n: [f32; 3]| {
        (normal_matrix * Vec3::from(n))
            .normalize_or(Vec3::Y)
            .to_array()
    };
    match reader.read_normals() {
        Some(normals) => {
            let normals: Vec<[f32; 3]> = normals.map(placed).collect();
            if normals.len() != count {
                return Err("a primitive's attributes differ in length".into());
            }
            let first = model.positions.len() as u32;
            model.indices.extend(indices.iter().map(|i| first + i));
            model.positions.extend(&positions);
            model.normals.extend(normals);
            model.uvs.extend(uvs);
            model.colors.extend(&colors);
        }
        None => {
            // Flat shading: each triangle gets its own three vertices,
            // facing the way its corners turn.
            if model.positions.len() + indices.len() > MAX_VERTICES {
                return Err(too_many());
            }
            for tri in indices.chunks_exact(3) {
                let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(positions[tri[k] as usize]));
                let normal = (b - a).cross(c - a).normalize_or(Vec3::Y).to_array();
                for &i in tri {
                    model.indices.push(model.positions.len() as u32);
                    model.positions.push(positions[i as usize]);
                    model.normals.push(normal);
                    model.uvs.push(uvs[i as usize]);
                    model.colors.push(colors[i as usize]);
                }
            }
        }
    }
    if let (Some(runs), Some(node)) = (images.runs.as_mut(), node) {
        let flat = reader.read_normals().is_none();
        let at = |i: u32| Vec3::from(local[i as usize]);
        let (run_positions, run_normals, order): (Vec<Vec3>, _, Vec<u32>) = if flat {
            let order: Vec<u32> = indices.clone();
            (order.iter().map(|&i| at(i)).collect(), None, order)
        } else {
            let normals: Vec<Vec3> = reader
                .read_normals()
                .map(|n| n.map(Vec3::from).collect())
                .unwrap_or_default();
            (
                (0..count as u32).map(at).collect(),
                Some(normals),
                (0..count as u32).collect(),
            )
        };
        let skin = match (node.skin(), reader.read_joints(0), reader.read_weights(0)) {
            (Some(skin), Some(joints), Some(weights)) => {
                let joints: Vec<[u16; 4]> = joints.into_u16().collect();
                let weights: Vec<glam::Vec4> = weights
                    .into_f32()
                    .map(|w| {
                        let w = glam::Vec4::from(w).max(glam::Vec4::ZERO);
                        let sum = w.element_sum();
                        if sum > 0.0 && sum.is_finite() {
                            w / sum
                        } else {
                            glam::Vec4::X
                        }
                    })
                    .collect();
                if joints.len() != count || weights.len() != count {
                    return Err(
                        "a primitive's joints or weights differ in length from its positions"
                            .into(),
                    );
                }
                Some((
                    skin.index() as u32,
                    order.iter().map(|&i| joints[i as usize]).collect(),
                    order.iter().map(|&i| weights[i as usize]).collect(),
                ))
            }
            _ => None,
        };
        runs.push(rig::Run {
            node: node.index() as u32,
            first: first_vertex,
            positions: run_positions,
            normals: run_normals,
            skin,
        });
    }
    // The material's metallic, roughness and emissive factors, the same
    // for each vertex it added. A primitive with no material at all is a
    // plain surface, as a built-in mesh is (glTF's default material would
    // be wholly metallic).
    let material = primitive.material();
    let (surface, emissive) = match material.index() {
        None => ([0.0, 1.0, 0.0, 0.0], [0.0; 4]),
        Some(_) => {
            let pbr = material.pbr_metallic_roughness();
            let unit = |v: f32| {
                if v.is_finite() {
                    v.clamp(0.0, 1.0)
                } else {
                    0.0
                }
            };
            let e = material.emissive_factor().map(unit);
            (
                [
                    unit(pbr.metallic_factor()),
                    unit(pbr.roughness_factor()),
                    0.0,
                    0.0,
                ],
                [e[0], e[1], e[2], 0.0],
            )
        }
    };
    let added = model.positions.len() - model.surfaces.len();
    model.surfaces.extend(std::iter::repeat_n(surface, added));
    model.emissive.extend(std::iter::repeat_n(emissive, added));
    model.opaque &= colors.iter().all(|c| c[3] >= 1.0);
    let (image, sampler) = base_texture(model, &primitive.material(), images);
    let (normal, normal_sampler) = normal_map(model, &primitive.material(), images);
    // One sampler a part: the base texture's, else the normal map's.
    let sampler = if image.is_none() && normal.is_some() {
        normal_sampler
    } else {
        sampler
    };
    let count = (model.indices.len() - first) as u32;
    match model.parts.last_mut() {
        // Runs that share their textures draw as one.
        Some(last) if (last.image, last.sampler, last.normal) == (image, sampler, normal) => {
            last.count += count;
        }
        _ => model.parts.push(Part {
            first: first as u32,
            count,
            image,
            sampler,
            normal,
        }),
    }
    for p in &positions {
        let v = Vec3::from(*p);
        if !v.is_finite() {
            return Err("a vertex position is not a finite number".into());
        }
        model.bounds = (model.bounds.0.min(v), model.bounds.1.max(v));
    }
    Ok(())
}

/// Says `what` about the model once (in its notes).
fn note(model: &mut Model, what: String) {
    let line = format!("`{}` {what}", moonloop_door::escape(&model.name));
    if !model.notes.contains(&line) {
        model.notes.push(line);
    }
}

/// Where a model's images come from, and the ones decoded so far.
struct Images<'a> {
    root: Option<&'a Path>,
    /// The model's folder, which relative URIs start from.
    base: &'a Path,
    buffers: &'a [Vec<u8>],
    /// Bytes the model may still read.
    budget: u64,
    /// By glTF image index: its place in the model's images, or none when
    /// it could not be drawn (said in the notes).
    decoded: std::collections::HashMap<usize, Option<u32>>,
    /// The same for images read as normal maps, by glTF image index and
    /// the scale applied to them (its bits).
    normals: std::collections::HashMap<(usize, u32), Option<u32>>,
    /// The runs of vertices each node places, kept where the model has
    /// clips or skins.
    runs: Option<Vec<rig::Run>>,
}

/// The box around `positions`.
pub fn bounds(positions: &[[f32; 3]]) -> (Vec3, Vec3) {
    positions.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(Vec3::from(*p)), hi.max(Vec3::from(*p))),
    )
}

/// Reads the model's nodes, skins and clips around `runs`. A channel the
/// host cannot play is left out and noted.
fn read_rig(
    document: &gltf::Document,
    buffers: &[Vec<u8>],
    runs: Vec<rig::Run>,
    model: &mut Model,
) -> Result<Rig, String> {
    let n = document.nodes().len();
    let mut parent = vec![None; n];
    for node in document.nodes() {
        for child in node.children() {
            parent[child.index()] = Some(node.index() as u32);
        }
    }
    // Parents first, each node once, from the nodes nothing holds.
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut queue: std::collections::VecDeque<usize> =
        (0..n).filter(|&i| parent[i].is_none()).collect();
    while let Some(i) = queue.pop_front() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        order.push(i as u32);
        if let Some(node) = document.nodes().nth(i) {
            queue.extend(node.children().map(|c| c.index()));
        }
    }
    let rest = document
        .nodes()
        .map(|node| match node.transform() {
            gltf::scene::Transform::Matrix { matrix } => {
                rig::Rest::Matrix(Mat4::from_cols_array_2d(&matrix))
            }
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => rig::Rest::Parts(
                Vec3::from(translation),
                glam::Quat::from_array(rotation).normalize(),
                Vec3::from(scale),
            ),
        })
        .collect();
    let reader_of = |b: gltf::Buffer<'_>| buffers.get(b.index()).map(|d| &d[..]);
    let mut skins = Vec::new();
    for skin in document.skins() {
        let joints: Vec<u32> = skin.joints().map(|j| j.index() as u32).collect();
        if joints.len() > MAX_PLACEMENTS {
            return Err(format!("a skin has more than {MAX_PLACEMENTS} joints"));
        }
        let inverse_bind: Vec<Mat4> = match skin.reader(reader_of).read_inverse_bind_matrices() {
            Some(m) => m.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
            None => vec![Mat4::IDENTITY; joints.len()],
        };
        if inverse_bind.len() != joints.len() || inverse_bind.iter().any(|m| !m.is_finite()) {
            return Err(format!(
                "skin {} has {} joints and {} inverse bind matrices",
                skin.index(),
                joints.len(),
                inverse_bind.len()
            ));
        }
        skins.push(rig::Skin {
            joints,
            inverse_bind,
        });
    }
    let mut animated = vec![false; n];
    let mut clips = Vec::new();
    let mut keys = 0usize;
    for (k, animation) in document.animations().enumerate() {
        let mut channels = Vec::new();
        for channel in animation.channels() {
            let sampler = channel.sampler();
            keys += sampler.input().count() + sampler.output().count();
            if keys > MAX_VERTICES {
                return Err(format!(
                    "its clips hold more than {MAX_VERTICES} key frames, the most a model may"
                ));
            }
            let reader = channel.reader(reader_of);
            let node = channel.target().node().index();
            let (Some(times), Some(outputs)) = (reader.read_inputs(), reader.read_outputs()) else {
                continue;
            };
            let times: Vec<f32> = times.collect();
            use gltf::animation::util::ReadOutputs;
            let (property, values): (rig::Property, Vec<glam::Vec4>) = match outputs {
                ReadOutputs::Translations(t) => (
                    rig::Property::Translation,
                    t.map(|v| Vec3::from(v).extend(0.0)).collect(),
                ),
                ReadOutputs::Rotations(r) => (
                    rig::Property::Rotation,
                    r.into_f32().map(glam::Vec4::from).collect(),
                ),
                ReadOutputs::Scales(s) => (
                    rig::Property::Scale,
                    s.map(|v| Vec3::from(v).extend(0.0)).collect(),
                ),
                ReadOutputs::MorphTargetWeights(_) => {
                    note(
                        model,
                        "has clips that move morph target weights, which the host does not play"
                            .into(),
                    );
                    continue;
                }
            };
            use gltf::animation::Interpolation;
            let values = match sampler.interpolation() {
                Interpolation::CubicSpline => {
                    note(
                        model,
                        "has clips with cubic spline key frames; the host moves between them linearly"
                            .into(),
                    );
                    // Each key frame is an in tangent, a value, an out
                    // tangent: the values are the middle ones.
                    values.chunks_exact(3).map(|c| c[1]).collect()
                }
                _ => values,
            };
            let ordered = times.windows(2).all(|w| w[0] <= w[1]);
            if times.is_empty()
                || values.len() != times.len()
                || !ordered
                || times.iter().any(|t| !t.is_finite())
                || values.iter().any(|v| !v.is_finite())
            {
                note(
                    model,
                    format!(
                        "has a clip channel (animation {k}) whose key frames are not in order, \
                         not finite or not one a time: left out"
                    ),
                );
                continue;
            }
            animated[node] = true;
            channels.push(rig::Channel {
                node: node as u32,
                property,
                step: sampler.interpolation() == Interpolation::Step,
                times,
                values,
            });
        }
        let duration = channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0f32, f32::max);
        clips.push(rig::Clip {
            name: animation
                .name()
                .map_or_else(|| format!("clip {}", k + 1), str::to_string),
            duration,
            channels,
        });
    }
    Ok(Rig {
        parent,
        rest,
        order,
        animated,
        runs,
        skins,
        clips,
    })
}

/// The base color texture of `material` (its image's place in the
/// model's images, decoded the first time) and its sampler; no image when
/// it has none or it cannot be drawn, which the notes say.
fn base_texture(
    model: &mut Model,
    material: &gltf::Material<'_>,
    images: &mut Images<'_>,
) -> (Option<u32>, Sampler) {
    let Some(info) = material.pbr_metallic_roughness().base_color_texture() else {
        return (None, Sampler::default());
    };
    if info.tex_coord() != 0 {
        note(
            model,
            format!(
                "has a base color texture on UV set {}; the host reads UV set 0",
                info.tex_coord()
            ),
        );
    }
    let texture = info.texture();
    let sampler = sampler_of(&texture);
    let image = texture.source();
    let index = image.index();
    if let Some(&known) = images.decoded.get(&index) {
        return (known, sampler);
    }
    let decoded = decode_image(model, &image, images, |pixmap| pixmap);
    images.decoded.insert(index, decoded);
    (decoded, sampler)
}

/// How `texture` is sampled, as its glTF sampler says.
fn sampler_of(texture: &gltf::Texture<'_>) -> Sampler {
    let sampler = texture.sampler();
    let wrap = |mode: gltf::texture::WrappingMode| match mode {
        gltf::texture::WrappingMode::ClampToEdge => Wrap::Clamp,
        gltf::texture::WrappingMode::MirroredRepeat => Wrap::Mirror,
        gltf::texture::WrappingMode::Repeat => Wrap::Repeat,
    };
    Sampler {
        nearest: sampler.mag_filter() == Some(gltf::texture::MagFilter::Nearest),
        wrap: [wrap(sampler.wrap_s()), wrap(sampler.wrap_t())],
    }
}

/// Decodes `image` into the model's images through `then` (which may
/// change its pixels), and answers its place there; none when it cannot
/// be drawn, which the notes say.
fn decode_image(
    model: &mut Model,
    image: &gltf::Image<'_>,
    images: &mut Images<'_>,
    then: impl FnOnce(Pixmap) -> Pixmap,
) -> Option<u32> {
    let index = image.index();
    match image_bytes(image, images).and_then(|bytes| {
        if bytes.starts_with(&[0xff, 0xd8]) {
            return Err("is a JPEG; the host decodes PNG images".into());
        }
        // Counted from its header before a pixel is decoded: the images a
        // model decodes (one a texture, one a normal map and scale) share
        // its budget, however its materials name them.
        let (w, h) = super::png::size(&bytes).map_err(String::from)?;
        if u64::from(w) * u64::from(h) * 4 > images.budget {
            return Err(format!(
                "is {w}x{h} pixels, past what is left of the model's {} MiB with its other \
                 images",
                MAX_MODEL_BYTES >> 20
            ));
        }
        super::png::decode(&bytes).map_err(String::from)
    }) {
        Ok(pixmap) => {
            images.budget = images.budget.saturating_sub(pixmap.data().len() as u64);
            model.images.push(then(pixmap));
            Some(model.images.len() as u32 - 1)
        }
        Err(why) => {
            note(model, format!("image {index} {why}: drawn without it"));
            None
        }
    }
}

/// The normal map of `material`, decoded the first time with its
/// `scale` applied (the normal's x and y scaled, then made unit again),
/// and its sampler; none when it has none or it cannot be drawn, which
/// the notes say.
fn normal_map(
    model: &mut Model,
    material: &gltf::Material<'_>,
    images: &mut Images<'_>,
) -> (Option<u32>, Sampler) {
    let Some(info) = material.normal_texture() else {
        return (None, Sampler::default());
    };
    if info.tex_coord() != 0 {
        note(
            model,
            format!(
                "has a normal map on UV set {}; the host reads UV set 0",
                info.tex_coord()
            ),
        );
    }
    let scale = info.scale();
    let sampler = sampler_of(&info.texture());
    let image = info.texture().source();
    let key = (image.index(), scale.to_bits());
    if let Some(&known) = images.normals.get(&key) {
        return (known, sampler);
    }
    let decoded = decode_image(model, &image, images, |pixmap| {
        scaled_normals(pixmap, scale)
    });
    images.normals.insert(key, decoded);
    (decoded, sampler)
}

/// A normal map's texels with `scale` applied to each normal's x and y,
/// opaque (a normal map's alpha means nothing, and the premultiplied
/// pixmap would darken the normal by it).
fn scaled_normals(mut pixmap: Pixmap, scale: f32) -> Pixmap {
    for p in pixmap.pixels_mut() {
        let c = p.demultiply();
        let unit = |v: u8| f32::from(v) / 255.0 * 2.0 - 1.0;
        let n = Vec3::new(
            unit(c.red()) * scale,
            unit(c.green()) * scale,
            unit(c.blue()),
        );
        let n = n.try_normalize().unwrap_or(Vec3::Z);
        let byte = |v: f32| ((v * 0.5 + 0.5) * 255.0).round().clamp(0.0, 255.0) as u8;
        *p = tiny_skia::PremultipliedColorU8::from_rgba(byte(n.x), byte(n.y), byte(n.z), 255)
            .expect("an opaque pixel is premultiplied");
    }
    pixmap
}

/// Reads an image's bytes: from a buffer view, a `data:` URI or a file
/// beside the model, within the model's budget.
fn image_bytes(image: &gltf::Image<'_>, images: &Images<'_>) -> Result<Vec<u8>, String> {
    match image.source() {
        gltf::image::Source::View { view, .. } => {
            let buffer = images
                .buffers
                .get(view.buffer().index())
                .ok_or("names a buffer the model lacks")?;
            let end = view.offset().checked_add(view.length());
            end.and_then(|end| buffer.get(view.offset()..end))
                .map(<[u8]>::to_vec)
                .ok_or_else(|| "lies past the end of its buffer".to_string())
        }
        gltf::image::Source::Uri { uri, .. } => {
            match buffer_from_uri(images.root, images.base, uri, images.budget, "model image") {
                Ok(bytes) => Ok(bytes),
                Err(Refused(why) | Broken(why)) => Err(format!("cannot be read ({why})")),
            }
        }
    }
}

/// Notes what the model uses that the host does not draw.
fn unsupported(document: &gltf::Document, model: &mut Model) {
    for extension in document.extensions_used() {
        note(
            model,
            format!(
                "uses the glTF extension {}, which the host does not support",
                moonloop_door::escape(extension)
            ),
        );
    }
    let mut morphs = false;
    let mut maps = Vec::new();
    for mesh in document.meshes() {
        morphs |= mesh
            .primitives()
            .any(|p| p.morph_targets().next().is_some());
    }
    for material in document.materials() {
        let pbr = material.pbr_metallic_roughness();
        let unused = [
            ("occlusion", material.occlusion_texture().is_some()),
            ("emissive", material.emissive_texture().is_some()),
            (
                "metallic-roughness",
                pbr.metallic_roughness_texture().is_some(),
            ),
        ];
        for (map, used) in unused {
            if used && !maps.contains(&map) {
                maps.push(map);
            }
        }
    }
    if morphs {
        note(
            model,
            "has morph targets, which the host does not draw".into(),
        );
    }
    if !maps.is_empty() {
        note(
            model,
            format!(
                "has {} textures, which the host does not draw (it draws base color textures \
                 and normal maps)",
                maps.join(", ")
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-triangle glTF whose buffer is `uri`, with normals or not.
    fn triangle(uri: &str, normals: bool) -> String {
        let normal_attr = if normals { r#", "NORMAL": 1"# } else { "" };
        let normal_accessor = if normals {
            r#", { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" }"#
        } else {
            ""
        };
        format!(
            r#"{{ "asset": {{ "version": "2.0" }},
  "buffers": [ {{ "uri": "{uri}", "byteLength": 36 }} ],
  "bufferViews": [ {{ "buffer": 0, "byteLength": 36 }} ],
  "accessors": [ {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [1, 1, 0] }}{normal_accessor} ],
  "meshes": [ {{ "primitives": [ {{ "attributes": {{ "POSITION": 0{normal_attr} }} }} ] }} ] }}"#
        )
    }

    fn corners() -> Vec<u8> {
        [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect()
    }

    fn folder(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        dir
    }

    // rule: H10
    #[test]
    fn buffers_load_from_beside_the_model_and_from_data_uris() {
        let data = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(corners())
        );
        let dir = folder(&[
            (
                "models/tri.gltf",
                triangle("tri%20data.bin", true).as_bytes(),
            ),
            ("models/tri data.bin", &corners()),
            ("inline.gltf", triangle(&data, true).as_bytes()),
        ]);
        for name in ["models/tri.gltf", "inline.gltf"] {
            let model = load(Some(dir.path()), name).unwrap();
            assert_eq!(model.positions.len(), 3, "{name}");
            assert_eq!(model.bounds, (Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0)));
        }
    }

    // rule: H10
    #[test]
    fn buffer_uris_cannot_leave_the_folder() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.bin"), corners()).unwrap();
        let absolute = outside.path().join("secret.bin");
        let cases = [
            ("file:///etc/passwd", "is not a file beside the model"),
            ("../../secret.bin", "is not a path inside the game folder"),
            (
                absolute.to_str().unwrap(),
                "is not a path inside the game folder",
            ),
            ("%zz.bin", "has a bad %-escape"),
            ("http://example.com/x.bin", "is not a file beside the model"),
            ("missing.bin", "no model buffer `missing.bin`"),
        ];
        for (uri, expected) in cases {
            let dir = folder(&[("m.gltf", triangle(uri, true).as_bytes())]);
            let err = load(Some(dir.path()), "m.gltf").unwrap_err();
            assert!(err.contains(expected), "{uri}: {err}");
        }
        let dir = folder(&[("m.gltf", triangle("zero.bin", true).as_bytes())]);
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.bin")).unwrap();
        let err = load(Some(dir.path()), "m.gltf").unwrap_err();
        assert!(err.contains("leads outside the game folder"), "{err}");
    }

    #[test]
    fn a_model_without_normals_gets_flat_ones() {
        let dir = folder(&[
            ("m.gltf", triangle("c.bin", false).as_bytes()),
            ("c.bin", &corners()),
        ]);
        let model = load(Some(dir.path()), "m.gltf").unwrap();
        assert_eq!(
            model.normals,
            vec![[0.0, 0.0, 1.0]; 3],
            "the face turns towards +z"
        );
    }

    // rule: H10
    #[test]
    fn a_model_the_gltf_crate_panics_on_is_refused() {
        // Found by fuzzing: gltf-json 1.4.1's validator indexes the
        // accessor a primitive names without checking that it exists.
        let dir = folder(&[(
            "m.gltf",
            br#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}]}"#,
        )]);
        assert_eq!(
            load(Some(dir.path()), "m.gltf").unwrap_err(),
            "`m.gltf` is not a readable glTF model (the glTF reader failed on it)"
        );
    }

    // rule: H10
    #[test]
    fn a_buffer_shorter_than_it_declares_is_refused() {
        let dir = folder(&[
            ("m.gltf", triangle("c.bin", true).as_bytes()),
            ("c.bin", &corners()[..20]),
        ]);
        let err = load(Some(dir.path()), "m.gltf").unwrap_err();
        assert!(err.contains("holds 20 bytes where it declares 36"), "{err}");
    }

    // rule: H10
    #[test]
    fn the_images_a_model_decodes_share_its_budget_however_its_materials_name_them() {
        // One 2048x2048 PNG (16 MiB decoded, a few KiB as a file), read
        // as a normal map at eight scales by eight materials: each scale
        // is a picture of its own, until the model's 64 MiB are spent.
        let png = tiny_skia::Pixmap::new(2048, 2048)
            .unwrap()
            .encode_png()
            .unwrap();
        let encode = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let (corners, png) = (encode(&corners()), encode(&png));
        let materials: Vec<String> = (1..=8)
            .map(|n| format!(r#"{{ "normalTexture": {{ "index": 0, "scale": {n} }} }}"#))
            .collect();
        let primitives: Vec<String> = (0..8)
            .map(|n| format!(r#"{{ "attributes": {{ "POSITION": 0 }}, "material": {n} }}"#))
            .collect();
        let gltf = format!(
            r#"{{ "asset": {{ "version": "2.0" }},
  "buffers": [ {{ "uri": "data:application/octet-stream;base64,{corners}", "byteLength": 36 }} ],
  "bufferViews": [ {{ "buffer": 0, "byteLength": 36 }} ],
  "accessors": [ {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [1, 1, 0] }} ],
  "images": [ {{ "uri": "data:image/png;base64,{png}" }} ],
  "textures": [ {{ "source": 0 }} ],
  "materials": [ {} ],
  "meshes": [ {{ "primitives": [ {} ] }} ] }}"#,
            materials.join(", "),
            primitives.join(", ")
        );
        let dir = folder(&[("m.gltf", gltf.as_bytes())]);
        let model = load(Some(dir.path()), "m.gltf").unwrap();
        let decoded: usize = model.images.iter().map(|i| i.data().len()).sum();
        assert!(decoded as u64 <= MAX_MODEL_BYTES, "{decoded} bytes decoded");
        assert_eq!(
            model.images.len(),
            3,
            "three fit beside the model's own bytes"
        );
        assert!(
            model
                .notes
                .iter()
                .any(|n| n.contains("image 0 is 2048x2048 pixels, past what is left")),
            "{:?}",
            model.notes
        );
    }

    // rule: H2
    #[test]
    fn what_a_model_uses_that_the_host_does_not_draw_is_noted_by_name() {
        let corners = base64::engine::general_purpose::STANDARD.encode(corners());
        let jpeg = base64::engine::general_purpose::STANDARD.encode([0xff, 0xd8, 0xff, 0xe0]);
        let gltf = format!(
            r#"{{ "asset": {{ "version": "2.0" }},
  "extensionsUsed": [ "KHR_materials_clearcoat" ],
  "buffers": [ {{ "uri": "data:application/octet-stream;base64,{corners}", "byteLength": 36 }} ],
  "bufferViews": [ {{ "buffer": 0, "byteLength": 36 }} ],
  "accessors": [ {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [1, 1, 0] }} ],
  "images": [ {{ "uri": "data:image/jpeg;base64,{jpeg}" }} ],
  "textures": [ {{ "source": 0 }} ],
  "materials": [ {{ "pbrMetallicRoughness": {{ "baseColorTexture": {{ "index": 0 }} }},
                   "occlusionTexture": {{ "index": 0 }} }} ],
  "meshes": [ {{ "primitives": [ {{ "attributes": {{ "POSITION": 0 }}, "material": 0 }},
                                 {{ "attributes": {{ "POSITION": 0 }}, "mode": 1 }} ] }} ] }}"#
        );
        let dir = folder(&[("m.gltf", gltf.as_bytes())]);
        let model = load(Some(dir.path()), "m.gltf").unwrap();
        assert_eq!(
            model.notes,
            [
                "`m.gltf` image 0 is a JPEG; the host decodes PNG images: drawn without it",
                "`m.gltf` has lines primitives; the host draws triangles only",
                "`m.gltf` uses the glTF extension KHR_materials_clearcoat, which the host does not support",
                "`m.gltf` has occlusion textures, which the host does not draw (it draws base \
                 color textures and normal maps)",
            ]
        );
        // The triangle is drawn all the same, untextured.
        assert_eq!(model.positions.len(), 3);
        assert_eq!(
            model.parts,
            [Part {
                first: 0,
                count: 3,
                image: None,
                sampler: Sampler::default(),
                normal: None,
            }]
        );
    }

    // rule: H10
    #[test]
    fn a_model_image_cannot_leave_the_folder_and_is_decoded_within_bounds() {
        let corners = base64::engine::general_purpose::STANDARD.encode(corners());
        let with_image = |uri: &str| {
            format!(
                r#"{{ "asset": {{ "version": "2.0" }},
  "buffers": [ {{ "uri": "data:application/octet-stream;base64,{corners}", "byteLength": 36 }} ],
  "bufferViews": [ {{ "buffer": 0, "byteLength": 36 }} ],
  "accessors": [ {{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [1, 1, 0] }} ],
  "images": [ {{ "uri": "{uri}" }} ], "textures": [ {{ "source": 0 }} ],
  "materials": [ {{ "pbrMetallicRoughness": {{ "baseColorTexture": {{ "index": 0 }} }} }} ],
  "meshes": [ {{ "primitives": [ {{ "attributes": {{ "POSITION": 0 }}, "material": 0 }} ] }} ] }}"#
            )
        };
        for (uri, said) in [
            ("../secret.png", "is not a path inside the game folder"),
            ("file:///etc/passwd", "is not a file beside the model"),
            ("missing.png", "no model image `missing.png`"),
        ] {
            let dir = folder(&[("m.gltf", with_image(uri).as_bytes())]);
            let model = load(Some(dir.path()), "m.gltf").unwrap();
            assert!(model.notes[0].contains(said), "{uri}: {:?}", model.notes);
            assert!(model.images.is_empty());
        }
    }

    // rule: H17
    #[test]
    fn a_skinned_arm_bends_and_hops_as_its_clips_say() {
        let dir = folder(&[("arm.gltf", include_bytes!("../../../docs/assets/arm.gltf"))]);
        let model = load(Some(dir.path()), "arm.gltf").unwrap();
        assert!(model.notes.is_empty(), "{:?}", model.notes);
        let rig = model.rig.as_ref().unwrap();
        assert_eq!(rig.clip_names(), "bend, hop");
        // The rest pose: a column from 0 to 2.
        assert_eq!(model.bounds.1.y, 2.0);
        let posed = |clip: usize, time: f32| {
            let (mut p, mut n) = (model.positions.clone(), model.normals.clone());
            rig.pose(clip, time, &mut rig::Scratch::default(), &mut p, &mut n);
            p
        };
        // The top ring (the last 4 vertices as written; flat shading puts
        // every triangle's corners apart, so look by rest height).
        let top = |p: &[[f32; 3]]| -> Vec<[f32; 3]> {
            (0..p.len())
                .filter(|&i| model.positions[i][1] == 2.0)
                .map(|i| p[i])
                .collect()
        };
        // Bent a right angle about z at time 1: the forearm points along
        // -x from the elbow, so its end is 1 left of it.
        for [x, y, _] in top(&posed(0, 1.0)) {
            assert!((x + 1.0).abs() < 1e-4, "x {x}");
            assert!((y - 1.0).abs() <= 0.2 + 1e-4, "y {y}");
        }
        // Halfway through, half of that: 45 degrees.
        for [x, _, _] in top(&posed(0, 0.5)) {
            assert!((x + 0.5f32.sqrt()).abs() < 0.2 + 1e-3, "x {x}");
        }
        // The hop holds each key frame: not up at 0.49, all the way at 0.5.
        let low = posed(1, 0.49);
        let high = posed(1, 0.5);
        assert_eq!(low, model.positions);
        for (a, b) in model.positions.iter().zip(&high) {
            assert!((b[1] - a[1] - 0.5).abs() < 1e-6);
        }
    }
}
