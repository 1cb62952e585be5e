#!/usr/bin/env python3
"""Writes games/marble/gem.gltf: the gold gem that floats over the goal.

  python3 tools/gem_model.py games/marble/gem.gltf

An octahedron 0.5 across and 0.7 tall, on a node `gem` that one clip,
`spin`, turns once about y every 2 seconds (five key frames, a quarter turn
apart: between two, glTF turns the short way) while it bobs 0.12 up and
back down. Its material is gold: metallic, fairly smooth, and a little
emissive so it reads in shadow. No normals: the host gives each face its
own.
"""

import json
import math
import sys

from gltf_buffer import Buffer


def main(out):
    r, h = 0.25, 0.35
    top, bottom = (0.0, h, 0.0), (0.0, -h, 0.0)
    ring = [(r * math.cos(a), 0.0, -r * math.sin(a)) for a in (0, math.pi / 2, math.pi, 3 * math.pi / 2)]
    positions, indices = [], []
    for k in range(4):
        a, b = ring[k], ring[(k + 1) % 4]
        # Counter-clockwise seen from outside: the ring runs counter-clockwise
        # seen from above.
        for tri in ((a, b, top), (b, a, bottom)):
            indices += [len(positions), len(positions) + 1, len(positions) + 2]
            positions += list(tri)

    buf = Buffer()
    add = buf.add

    pos = add(positions, "<3f", "VEC3", 5126, {"min": [-r, -h, -r], "max": [r, h, r]})
    idx = add(indices, "<H", "SCALAR", 5123)
    times = [0.0, 0.5, 1.0, 1.5, 2.0]
    t = add(times, "<f", "SCALAR", 5126, {"min": [0.0], "max": [2.0]})
    turns = [(0.0, math.sin(a / 2), 0.0, math.cos(a / 2)) for a in (0, math.pi / 2, math.pi, 3 * math.pi / 2, 2 * math.pi)]
    rot = add(turns, "<4f", "VEC4", 5126)
    heights = [(0.0, y, 0.0) for y in (0.0, 0.06, 0.12, 0.06, 0.0)]
    bob = add(heights, "<3f", "VEC3", 5126)

    doc = buf.document("moonloop tools/gem_model.py", {
        "materials": [{"name": "gold", "pbrMetallicRoughness": {
            "baseColorFactor": [1.0, 0.72, 0.2, 1.0], "metallicFactor": 1.0, "roughnessFactor": 0.35},
            "emissiveFactor": [0.25, 0.15, 0.02]}],
        "meshes": [{"name": "gem", "primitives": [{"attributes": {"POSITION": pos}, "indices": idx, "material": 0}]}],
        "nodes": [{"name": "gem", "mesh": 0}],
        "animations": [{"name": "spin",
                        "samplers": [{"input": t, "output": rot}, {"input": t, "output": bob}],
                        "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                                     {"sampler": 1, "target": {"node": 0, "path": "translation"}}]}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    })
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "games/marble/gem.gltf")
