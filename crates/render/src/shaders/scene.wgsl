// The lit scene: instanced meshes with a base color and texture, shaded by
// ambient, directional and point lights. All lighting is computed in linear
// color; the target's sRGB view encodes the result.

struct Globals {
    view_proj: mat4x4<f32>,
    camera: vec4<f32>,
    ambient: vec4<f32>,
    // x: directional lights, y: point lights.
    counts: vec4<u32>,
    dir_direction: array<vec4<f32>, 4>,
    dir_color: array<vec4<f32>, 4>,
    // xyz: position, w: range.
    point_position: array<vec4<f32>, 8>,
    point_color: array<vec4<f32>, 8>,
    // From clip space back to the world, for the sky's directions.
    inverse_view_proj: mat4x4<f32>,
    // The sky's colors, linear; w: 1 when there is a sky.
    sky_top: vec4<f32>,
    sky_bottom: vec4<f32>,
    // The fog's color, linear; w: 1 when there is fog.
    fog_color: vec4<f32>,
    // x: where the fog starts, y: where it is whole.
    fog_range: vec4<f32>,
    // From the world to the shadow map's clip space.
    light_view_proj: mat4x4<f32>,
    // x: which directional light casts shadows, plus one (0: none);
    // y: a shadow texel's side in world units; z: the depth bias.
    shadow: vec4<f32>,
    // The camera's right and up, for billboards.
    camera_right: vec4<f32>,
    camera_up: vec4<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(0) @binding(1) var shadow_map: texture_depth_2d;
@group(0) @binding(2) var shadow_sampler: sampler_comparison;
@group(1) @binding(0) var base_texture: texture_2d<f32>;
@group(1) @binding(1) var base_sampler: sampler;
// Tangent-space normals (0 to 1 for -1 to 1; x right and y up in the
// picture); a flat texel (0.5, 0.5, 1) leaves the surface's normal.
@group(1) @binding(2) var normal_texture: texture_2d<f32>;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) m0: vec4<f32>,
    @location(4) m1: vec4<f32>,
    @location(5) m2: vec4<f32>,
    @location(6) m3: vec4<f32>,
    // Linear RGBA.
    @location(10) color: vec4<f32>,
    // x: 1 when lit; y, z: how many times the texture repeats along u, v;
    // w: 1 for a billboard.
    @location(11) flags: vec4<f32>,
    // The vertex's own color (a model's material and COLOR_0), linear.
    @location(12) vertex_color: vec4<f32>,
    // x: metallic, y: roughness; z, w: 1 where they replace the vertex's.
    @location(13) surface: vec4<f32>,
    // The light it gives off itself, linear.
    @location(14) emissive: vec4<f32>,
    // The vertex's own metallic and roughness (a model's material's).
    @location(7) vertex_surface: vec4<f32>,
    // The light the vertex gives off (a model's material's), linear.
    @location(8) vertex_emissive: vec4<f32>,
};

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) color: vec4<f32>,
    @location(4) lit: f32,
    @location(5) surface: vec2<f32>,
    @location(6) emissive: vec3<f32>,
};

// Where a vertex is in the world: placed by the object's matrix, or for a
// billboard, turned to face the camera about the object's position and
// sized by its scale.
fn placed(v: VertexIn) -> vec4<f32> {
    let model = mat4x4<f32>(v.m0, v.m1, v.m2, v.m3);
    if (v.flags.w > 0.5) {
        let size = vec2<f32>(length(v.m0.xyz), length(v.m1.xyz));
        let offset = g.camera_right.xyz * v.position.x * size.x + g.camera_up.xyz * v.position.y * size.y;
        return vec4<f32>(v.m3.xyz + offset, 1.0);
    }
    return model * vec4<f32>(v.position, 1.0);
}

@vertex
fn vs_main(v: VertexIn) -> VertexOut {
    // The normal matrix (the inverse transpose of the model's 3x3) up to
    // scale: its cofactors, turned round where the model mirrors.
    let a = v.m0.xyz;
    let b = v.m1.xyz;
    let c = v.m2.xyz;
    let normal_matrix = mat3x3<f32>(cross(b, c), cross(c, a), cross(a, b)) * sign(dot(a, cross(b, c)));
    let world = placed(v);
    var out: VertexOut;
    out.clip = g.view_proj * world;
    out.world = world.xyz;
    out.normal = select(normal_matrix * v.normal, cross(g.camera_right.xyz, g.camera_up.xyz), v.flags.w > 0.5);
    out.uv = v.uv * v.flags.yz;
    out.color = v.color * v.vertex_color;
    out.lit = v.flags.x;
    out.surface = vec2<f32>(
        select(v.vertex_surface.x, v.surface.x, v.surface.z > 0.5),
        select(v.vertex_surface.y, v.surface.y, v.surface.w > 0.5),
    );
    out.emissive = v.emissive.rgb + v.vertex_emissive.rgb;
    return out;
}

// Where an object is in the shadow map: the shadow pass draws only its
// depth.
@vertex
fn vs_shadow(v: VertexIn) -> @builtin(position) vec4<f32> {
    return g.light_view_proj * placed(v);
}

// How much of the shadowing light reaches a point with normal `n`, from 0
// (in shadow) to 1: four compared samples half a texel either side of it,
// each blended between the four texels around it, so an edge fades over
// three texels. The point moves off its surface by two texels first, so a
// surface does not shadow itself.
fn sunlit(world: vec3<f32>, n: vec3<f32>) -> f32 {
    let clip = g.light_view_proj * vec4<f32>(world + n * g.shadow.y * 2.0, 1.0);
    let p = clip.xyz / clip.w;
    let uv = vec2<f32>(p.x * 0.5 + 0.5, 0.5 - p.y * 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || p.z > 1.0) {
        return 1.0;
    }
    let depth = p.z - g.shadow.z;
    let half_texel = 0.5 / f32(textureDimensions(shadow_map).x);
    var sum = 0.0;
    sum = sum + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-half_texel, -half_texel), depth);
    sum = sum + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(half_texel, -half_texel), depth);
    sum = sum + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-half_texel, half_texel), depth);
    sum = sum + textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(half_texel, half_texel), depth);
    return sum / 4.0;
}

// The highlight a light of direction `to_light` makes seen from `to_eye`
// (Blinn-Phong): sharp and bright on a smooth surface, wide and faint on
// a rough one, none on a wholly rough one (the default), so matte objects
// shade as diffuse alone.
fn highlight(n: vec3<f32>, to_light: vec3<f32>, to_eye: vec3<f32>, roughness: f32) -> f32 {
    let smoothness = 1.0 - clamp(roughness, 0.0, 1.0);
    if (smoothness <= 0.0) {
        return 0.0;
    }
    let h = normalize(to_light + to_eye);
    let shininess = exp2(1.0 + 10.0 * smoothness);
    let normalize_energy = (shininess + 8.0) / 25.1327;
    return smoothness * normalize_energy * pow(max(dot(n, h), 0.0), shininess) * max(dot(n, to_light), 0.0);
}

// The surface's normal at a fragment, bent by the normal map: the map's
// tangent frame comes from how the position and the texture coordinates
// change across the screen (no tangents needed in the mesh). A flat texel
// (to within a bend of half a degree, which 8 bits cannot say exactly),
// or a surface whose coordinates do not change, keeps the normal.
fn bent(in: VertexOut, mapped: vec3<f32>) -> vec3<f32> {
    let n = normalize(in.normal);
    let dp1 = dpdx(in.world);
    let dp2 = dpdy(in.world);
    let duv1 = dpdx(in.uv);
    let duv2 = dpdy(in.uv);
    let dp2perp = cross(dp2, n);
    let dp1perp = cross(n, dp1);
    // Along u, and along v (down the picture), each times the area the
    // pixel's two steps span seen along the normal: negative where they
    // turn clockwise about it (the screen's y runs down).
    let t = dp2perp * duv1.x + dp1perp * duv2.x;
    let b = dp2perp * duv1.y + dp1perp * duv2.y;
    let area = dot(n, cross(dp1, dp2));
    let size = max(dot(t, t), dot(b, b));
    if (size < 1e-20 || abs(area) < 1e-20 || dot(mapped.xy, mapped.xy) < 1e-4) {
        return n;
    }
    let scale = inverseSqrt(size) * sign(area);
    // The map's y is up the picture: against v.
    return normalize(t * scale * mapped.x - b * scale * mapped.y + n * mapped.z);
}

// The base color lit (or not), with the base alpha: diffuse light (half
// of it on a metal, which stands for what a metal would mirror of its
// surroundings), highlights (a metal's take its color, anything else's
// the light's), and what the surface gives off itself.
fn shade(in: VertexOut) -> vec4<f32> {
    let base = in.color * textureSample(base_texture, base_sampler, in.uv);
    let mapped = textureSample(normal_texture, base_sampler, in.uv).xyz * 2.0 - 1.0;
    let n = bent(in, mapped);
    if (in.lit < 0.5) {
        return vec4<f32>(base.rgb + in.emissive, base.a);
    }
    let to_eye = normalize(g.camera.xyz - in.world);
    let metallic = clamp(in.surface.x, 0.0, 1.0);
    let roughness = in.surface.y;
    var light = g.ambient.rgb;
    var shine = vec3<f32>(0.0);
    let caster = u32(g.shadow.x + 0.5);
    var sun = 1.0;
    if (caster > 0u) {
        sun = sunlit(in.world, n);
    }
    for (var i = 0u; i < g.counts.x; i = i + 1u) {
        let to_light = -normalize(g.dir_direction[i].xyz);
        let reach = select(1.0, sun, i + 1u == caster);
        light = light + g.dir_color[i].rgb * reach * max(dot(n, to_light), 0.0);
        shine = shine + g.dir_color[i].rgb * reach * highlight(n, to_light, to_eye, roughness);
    }
    for (var i = 0u; i < g.counts.y; i = i + 1u) {
        let offset = g.point_position[i].xyz - in.world;
        let distance = length(offset);
        let fade = clamp(1.0 - distance / g.point_position[i].w, 0.0, 1.0);
        let to_light = offset / max(distance, 1e-4);
        light = light + g.point_color[i].rgb * fade * fade * max(dot(n, to_light), 0.0);
        shine = shine + g.point_color[i].rgb * fade * fade * highlight(n, to_light, to_eye, roughness);
    }
    let tint = mix(vec3<f32>(0.04), base.rgb, metallic);
    let lit = base.rgb * light * (1.0 - 0.5 * metallic) + shine * tint + in.emissive;
    return vec4<f32>(lit, base.a);
}

// The color faded into the fog by the point's distance from the camera.
fn fogged(in: VertexOut, c: vec3<f32>) -> vec3<f32> {
    if (g.fog_color.w < 0.5) {
        return c;
    }
    let d = distance(in.world, g.camera.xyz);
    let f = clamp((d - g.fog_range.x) / max(g.fog_range.y - g.fog_range.x, 1e-4), 0.0, 1.0);
    return mix(c, g.fog_color.rgb, f);
}

// Opaque objects: a texel less than half opaque is a hole (a cut-out
// sprite on a billboard, leaves on a card).
@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let c = shade(in);
    if (c.a < 0.5) {
        discard;
    }
    return vec4<f32>(fogged(in, c.rgb), 1.0);
}

// Translucent objects: premultiplied, for the blending pipeline.
@fragment
fn fs_translucent(in: VertexOut) -> @location(0) vec4<f32> {
    let c = shade(in);
    return vec4<f32>(fogged(in, c.rgb) * c.a, c.a);
}

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

// One triangle covering the viewport.
@vertex
fn vs_sky(@builtin(vertex_index) i: u32) -> SkyOut {
    let xy = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u)) * 2.0 - 1.0;
    var out: SkyOut;
    out.clip = vec4<f32>(xy, 1.0, 1.0);
    out.ndc = xy;
    return out;
}

// The sky by the direction the pixel looks: the bottom color at the
// horizon and below, the top color straight up.
@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    let near = g.inverse_view_proj * vec4<f32>(in.ndc, 0.0, 1.0);
    let far = g.inverse_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let direction = normalize(far.xyz / far.w - near.xyz / near.w);
    if (g.sky_top.w > 1.5) {
        // A picture all the way round: across by the heading, from
        // straight up at its top to straight down at its bottom.
        let u = atan2(direction.x, -direction.z) / 6.2831853 + 0.5;
        let v = acos(clamp(direction.y, -1.0, 1.0)) / 3.14159265;
        return vec4<f32>(textureSampleLevel(base_texture, base_sampler, vec2<f32>(u, v), 0.0).rgb, 1.0);
    }
    let t = clamp(direction.y, 0.0, 1.0);
    return vec4<f32>(mix(g.sky_bottom.rgb, g.sky_top.rgb, t), 1.0);
}
