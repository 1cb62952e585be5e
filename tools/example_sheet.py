#!/usr/bin/env python3
"""Writes the sprite sheet the sprites docs and games/swarm draw from.

A 128x32 PNG of 16x16 cells, numbered from 1 left to right, top row first:
  1 the ship, 2-5 a drone's four animation frames, 6 a shot, 7 a spark,
  8 blank, 9-12 floor tiles (plain, cracked, lit, wall), 13-16 unused.

Pure Python (zlib and struct), so it runs anywhere:
  python3 tools/example_sheet.py docs/assets/sheet.png games/swarm/sheet.png
"""
import struct
import sys
import zlib

W, H, CELL = 128, 32, 16
pixels = [[(0, 0, 0, 0)] * W for _ in range(H)]


def put(cell, x, y, rgba):
    cx, cy = ((cell - 1) % (W // CELL)) * CELL, ((cell - 1) // (W // CELL)) * CELL
    if 0 <= x < CELL and 0 <= y < CELL:
        pixels[cy + y][cx + x] = rgba


def art(cell, rows, palette):
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch != ".":
                put(cell, x, y, palette[ch])


SHIP = [
    "................",
    ".......ww.......",
    ".......ww.......",
    "......wccw......",
    "......wccw......",
    ".....wwccww.....",
    ".....wwwwww.....",
    "....wwwwwwww....",
    "...wwwwwwwwww...",
    "..wwwrwwwwrwww..",
    ".wwwrrwwwwrrwww.",
    ".www.rr..rr.www.",
    ".ww..........ww.",
    "...ooo....ooo...",
    "....o......o....",
    "................",
]
art(1, SHIP, {"w": (230, 235, 245, 255), "c": (80, 200, 255, 255), "r": (230, 70, 70, 255), "o": (255, 170, 40, 200)})

# A drone: a body whose lights chase around it over four frames.
for frame in range(4):
    cell = 2 + frame
    for y in range(16):
        for x in range(16):
            dx, dy = x - 7.5, y - 7.5
            d = (dx * dx + dy * dy) ** 0.5
            if d < 4.0:
                put(cell, x, y, (150, 60, 200, 255))
            elif d < 5.0:
                put(cell, x, y, (150, 60, 200, 128))
    lights = [(8, 4), (12, 8), (8, 12), (4, 8)]
    for i, (x, y) in enumerate(lights):
        color = (255, 240, 120, 255) if i == frame else (90, 30, 120, 255)
        for ox in (0, 1):
            for oy in (0, 1):
                put(cell, x + ox - 1, y + oy - 1, color)
    for x in range(7, 9):
        for y in range(7, 9):
            put(cell, x, y, (40, 10, 60, 255))

for y in range(3, 13):
    for x in range(7, 9):
        put(6, x, y, (120, 255, 160, 255))
for y in range(5, 11):
    put(6, 6, y, (120, 255, 160, 110))
    put(6, 9, y, (120, 255, 160, 110))

for i in range(16):
    put(7, i, i, (255, 220, 120, 255))
    put(7, 15 - i, i, (255, 220, 120, 255))
    put(7, 7, i, (255, 255, 255, 180))
    put(7, i, 7, (255, 255, 255, 180))

floor = (38, 44, 58, 255)
edge = (30, 34, 46, 255)
for cell in (9, 10, 11):
    for y in range(16):
        for x in range(16):
            put(cell, x, y, edge if x == 0 or y == 0 else floor)
for x, y in [(4, 3), (5, 4), (5, 5), (6, 6), (7, 6), (8, 7), (8, 8), (9, 9), (11, 10), (10, 10)]:
    put(10, x, y, edge)
for y in range(5, 11):
    for x in range(5, 11):
        put(11, x, y, (70, 90, 130, 255))
for y in range(7, 9):
    for x in range(7, 9):
        put(11, x, y, (140, 200, 255, 255))
for y in range(16):
    for x in range(16):
        shade = 90 if (x // 4 + y // 4) % 2 else 75
        put(12, x, y, (shade, shade - 10, shade + 20, 255))


def png(path):
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


for out in sys.argv[1:] or ["sheet.png"]:
    png(out)
