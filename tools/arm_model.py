#!/usr/bin/env python3
"""Writes docs/assets/arm.gltf: a skinned arm for the animation examples
and tests.

  python3 tools/arm_model.py docs/assets/arm.gltf

A square column 0.4 wide and 2 tall, standing on the origin, skinned to two
joints: `shoulder` at the origin and `elbow` 1 above it. Rings of vertices
every 0.5: those at and below 0.5 follow the shoulder, the one at 1 is
shared half and half, those above follow the elbow. Two clips:

- `bend`: the elbow turns from straight (time 0) to a right angle about z
  (time 1), linearly, so the forearm ends pointing along -x.
- `hop`: the shoulder stands at 0 until time 0.5, then at 0.5 up (step
  interpolation: no in between).

The forearm is orange (COLOR_0), the upper arm blue. No normals: the host
gives each triangle its own, posed.
"""

import json
import sys

from gltf_buffer import Buffer

RINGS = [0.0, 0.5, 1.0, 1.5, 2.0]
HALF = 0.2
CORNERS = [(-HALF, -HALF), (HALF, -HALF), (HALF, HALF), (-HALF, HALF)]


def weights(y):
    if y <= 0.5:
        return (1.0, 0.0)
    if y >= 1.5:
        return (0.0, 1.0)
    return (0.5, 0.5)


def main(out):
    positions, joints, weight_list, colors, indices = [], [], [], [], []
    for y in RINGS:
        for x, z in CORNERS:
            positions.append((x, y, z))
            joints.append((0, 1, 0, 0))
            w0, w1 = weights(y)
            weight_list.append((w0, w1, 0.0, 0.0))
            colors.append((0.9, 0.22, 0.03, 1.0) if y > 1.0 else (0.03, 0.12, 0.6, 1.0))
    # Sides, outward-facing (counter-clockwise seen from outside).
    for r in range(len(RINGS) - 1):
        for c in range(4):
            a, b = r * 4 + c, r * 4 + (c + 1) % 4
            a2, b2 = a + 4, b + 4
            indices += [a, a2, b2, a, b2, b]
    # The caps.
    top = (len(RINGS) - 1) * 4
    indices += [0, 1, 2, 0, 2, 3]
    indices += [top, top + 3, top + 2, top, top + 2, top + 1]

    buf = Buffer()
    add = buf.add

    pos = add(positions, "<3f", "VEC3", 5126, {
        "min": [-HALF, 0.0, -HALF], "max": [HALF, 2.0, HALF]})
    jnt = add(joints, "<4H", "VEC4", 5123)
    wgt = add(weight_list, "<4f", "VEC4", 5126)
    col = add(colors, "<4f", "VEC4", 5126)
    idx = add(indices, "<H", "SCALAR", 5123)
    identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
    down_one = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]
    ibm = add([tuple(identity), tuple(down_one)], "<16f", "MAT4", 5126)
    s = 0.5 ** 0.5
    bend_t = add([0.0, 1.0], "<f", "SCALAR", 5126, {"min": [0.0], "max": [1.0]})
    bend_r = add([(0.0, 0.0, 0.0, 1.0), (0.0, 0.0, s, s)], "<4f", "VEC4", 5126)
    hop_t = add([0.0, 0.5], "<f", "SCALAR", 5126, {"min": [0.0], "max": [0.5]})
    hop_v = add([(0.0, 0.0, 0.0), (0.0, 0.5, 0.0)], "<3f", "VEC3", 5126)

    doc = buf.document("moonloop tools/arm_model.py", {
        "meshes": [{"name": "arm", "primitives": [{
            "attributes": {"POSITION": pos, "JOINTS_0": jnt, "WEIGHTS_0": wgt, "COLOR_0": col},
            "indices": idx}]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "nodes": [
            {"name": "arm", "mesh": 0, "skin": 0},
            {"name": "shoulder", "children": [2]},
            {"name": "elbow", "translation": [0, 1, 0]},
        ],
        "animations": [
            {"name": "bend", "samplers": [{"input": bend_t, "output": bend_r}],
             "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]},
            {"name": "hop", "samplers": [{"input": hop_t, "output": hop_v, "interpolation": "STEP"}],
             "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}]},
        ],
        "scenes": [{"nodes": [0, 1]}],
        "scene": 0,
    })
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/assets/arm.gltf")
