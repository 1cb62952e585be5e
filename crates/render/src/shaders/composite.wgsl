// Lays a premultiplied RGBA image over the target, covering the rectangle
// given in clip space. The blend (one, one minus source alpha) runs on the
// target's plain (not sRGB) view, so pixels mix in the same gamma space
// tiny-skia drew them in, as a browser composites a canvas.

struct Rect {
    // x, y: clip-space top left; z, w: clip-space size.
    area: vec4<f32>,
};

@group(0) @binding(0) var image: texture_2d<f32>;
@group(0) @binding(1) var image_sampler: sampler;
@group(0) @binding(2) var<uniform> rect: Rect;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> VertexOut {
    // Two triangles over the unit square.
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(0.0, 1.0),
        vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
    );
    let c = corners[i];
    var out: VertexOut;
    out.clip = vec4<f32>(rect.area.x + c.x * rect.area.z, rect.area.y - c.y * rect.area.w, 0.0, 1.0);
    out.uv = c;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return textureSample(image, image_sampler, in.uv);
}

// The same, decoding sRGB to linear: for presenting on an sRGB surface,
// whose view encodes again.
@fragment
fn fs_present_srgb(in: VertexOut) -> @location(0) vec4<f32> {
    let c = textureSample(image, image_sampler, in.uv);
    let low = c.rgb / 12.92;
    let high = pow((c.rgb + 0.055) / 1.055, vec3<f32>(2.4));
    return vec4<f32>(select(high, low, c.rgb <= vec3<f32>(0.04045)), c.a);
}
