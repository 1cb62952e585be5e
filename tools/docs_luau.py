#!/usr/bin/env python3
"""The Luau examples in docs/, held to the same tools as games/ and
runtime/: formats (or with --check, checks) every ```luau block with
StyLua and the repository's stylua.toml, or with --extract DIR writes each
block to DIR/PAGE-LINE.luau for selene.

  python3 tools/docs_luau.py STYLUA [--check]
  python3 tools/docs_luau.py --extract DIR
"""
import glob
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if sys.argv[1] == "--extract":
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for page in sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
        text = open(page).read()
        name = os.path.basename(page)[:-3]
        for match in re.finditer(r"```luau\n(.*?)```", text, flags=re.S):
            line = text[: match.start()].count("\n") + 2
            with open(os.path.join(out, f"{name}-{line}.luau"), "w") as f:
                f.write(match.group(1))
    sys.exit(0)
stylua, check = sys.argv[1], "--check" in sys.argv[2:]
config = os.path.join(root, "stylua.toml")
failed = []
for page in sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
    text = open(page).read()

    def fix(match):
        body = match.group(2)
        out = subprocess.run(
            [stylua, "--config-path", config, "-"], input=body, capture_output=True, text=True
        )
        if out.returncode != 0:
            failed.append(f"{os.path.relpath(page, root)}: {out.stderr.strip().splitlines()[0]}")
            return match.group(0)
        if out.stdout != body:
            line = text[: match.start()].count("\n") + 1
            failed.append(f"{os.path.relpath(page, root)}:{line}: not formatted")
        return match.group(1) + out.stdout + match.group(3)

    new = re.sub(r"(```luau\n)(.*?)(```)", fix, text, flags=re.S)
    if not check and new != text:
        open(page, "w").write(new)
if failed and check:
    print("\n".join(failed))
    sys.exit(1)
