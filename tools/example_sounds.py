#!/usr/bin/env python3
"""Writes the examples' music and pong's rally hum: games/pong/music/theme.wav
and games/catch/music/theme.wav (eight-second arpeggios that loop
seamlessly) and games/pong/sounds/rally.wav
(a soft tone a whole number of periods long, so it loops without a click).
8-bit mono at 11,025 Hz keeps both small. Ours, under the project's license.

    python3 tools/example_sounds.py
"""
import math
import struct
import wave

RATE = 11025


def write(path, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(RATE)
        w.writeframes(bytes(max(0, min(255, 128 + round(s * 127))) for s in samples))


def note(freq, seconds, volume):
    n = round(seconds * RATE)
    out = []
    for i in range(n):
        square = 1 if (i * freq / RATE) % 1 < 0.5 else -1
        envelope = min(1, (n - i) / (0.02 * RATE), i / (0.005 * RATE))
        out.append(square * volume * envelope)
    return out


def theme(chords):
    # Eight bars of eighth-note arpeggios at 120 bpm over four chords.
    out = []
    for bar in range(8):
        chord = chords[bar % 4]
        for step in range(8):
            freq = chord[[0, 1, 2, 1][step % 4]] * (2 if step >= 4 and bar % 2 else 1)
            out += note(freq, 0.125, 0.18)
    return out


def rally():
    period = 100  # samples: 110.25 Hz
    return [0.25 * (2 * abs(2 * ((i / period) % 1) - 1) - 1) for i in range(period * 55)]


# A minor, F, C, G for pong; C, A minor, F, G for catch.
write("games/pong/music/theme.wav", theme([(220.0, 261.6, 329.6), (174.6, 220.0, 261.6), (130.8, 164.8, 196.0), (196.0, 246.9, 293.7)]))
write("games/catch/music/theme.wav", theme([(261.6, 329.6, 392.0), (220.0, 261.6, 329.6), (174.6, 220.0, 261.6), (196.0, 246.9, 293.7)]))
write("games/pong/sounds/rally.wav", rally())
