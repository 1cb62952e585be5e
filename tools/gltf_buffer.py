"""One glTF buffer built up accessor by accessor, for the scripts that
write the example models (arm_model.py, gem_model.py)."""

import base64
import struct


class Buffer:
    def __init__(self):
        self.bytes = bytearray()
        self.views = []
        self.accessors = []

    def add(self, data, fmt, kind, component, extra=None):
        """Packs `data` (numbers, or tuples of them) with `fmt` into a view
        of its own, four-byte aligned, and returns its accessor's index."""
        while len(self.bytes) % 4:
            self.bytes.append(0)
        offset = len(self.bytes)
        for d in data:
            self.bytes.extend(struct.pack(fmt, *d) if isinstance(d, tuple) else struct.pack(fmt, d))
        self.views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(self.bytes) - offset})
        accessor = {"bufferView": len(self.views) - 1, "componentType": component, "count": len(data), "type": kind}
        accessor.update(extra or {})
        self.accessors.append(accessor)
        return len(self.accessors) - 1

    def document(self, generator, rest):
        """The glTF document: `rest` with the buffer (a data: URI), its
        views and accessors."""
        uri = "data:application/octet-stream;base64," + base64.b64encode(bytes(self.bytes)).decode()
        doc = {
            "asset": {"version": "2.0", "generator": generator},
            "buffers": [{"byteLength": len(self.bytes), "uri": uri}],
            "bufferViews": self.views,
            "accessors": self.accessors,
        }
        doc.update(rest)
        return doc
