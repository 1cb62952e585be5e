#!/usr/bin/env python3
"""Formats (or with --check, checks) every ```luau block in docs/ with
StyLua, using the repository's stylua.toml: the docs' examples are held to
the same style as games/ and runtime/.

  python3 tools/format_docs.py STYLUA [--check]
"""
import glob
import os
import re
import subprocess
import sys

stylua, check = sys.argv[1], "--check" in sys.argv[2:]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
