#!/usr/bin/env python3
"""Check docs/architecture.md against the code's own imports.

    python3 scripts/check-architecture.py            # exit 1 on any mismatch
    python3 scripts/check-architecture.py --print    # print what the code holds

It reads every `crate::`, `super::` and `self::` path in src/ (in `use` lines and in
expressions, its `#[cfg(test)]` module included), resolves each to the file that
defines it, and checks three things against the document:

1. the rooms: every top-level entry of src/ (a folder or a file, lib.rs and main.rs aside)
   appears in the room list (the lines starting `src/` in its first code block), every room
   listed exists, and a room imports only from rooms listed above it;
2. the circles: files that import each other, directly or around a loop, and folders that
   do (a folder's files taken together, at every level of the tree), are exactly those the
   section "Circles" lists, one `a <-> b` line each (none when it says `none`);
3. the imports running back up: a file importing from the `mod.rs` of a folder above it (the
   file that declares it) are exactly those the section "Imports running back up" lists.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SRC = os.path.join(ROOT, "src")
DOC = os.path.join(ROOT, "docs", "architecture.md")


def rust_files():
    out = []
    for d, _, files in os.walk(SRC):
        for f in files:
            if f.endswith(".rs"):
                out.append(os.path.relpath(os.path.join(d, f), ROOT))
    return sorted(out)


def module_of(path):
    """src/a/b.rs -> ['a', 'b']; src/a/mod.rs -> ['a']; src/lib.rs -> []."""
    parts = path[len("src/"):-len(".rs")].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def file_of(segments):
    """The file that defines the item at crate path `segments`."""
    here = SRC
    current = "src/lib.rs"
    for s in segments:
        if os.path.isfile(os.path.join(here, s, "mod.rs")):
            here = os.path.join(here, s)
            current = os.path.relpath(os.path.join(here, "mod.rs"), ROOT)
        elif os.path.isfile(os.path.join(here, s + ".rs")):
            return os.path.relpath(os.path.join(here, s + ".rs"), ROOT)
        else:
            return current
    return current


def strip(text):
    """The code without comments, strings and character literals."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            j = text.find('"' + hashes, i + 2 + len(hashes))
            out.append('""')
            i = n if j < 0 else j + 1 + len(hashes)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^'\\])'", text[i:]):
            i += len(re.match(r"'(\\.|[^'\\])'", text[i:]).group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def expand(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = tree.strip()
    depth = 0
    for i, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                prefix, inner = tree[:i], tree[i + 1 : tree.rindex("}")]
                items, level, start = [], 0, 0
                for j, c in enumerate(inner):
                    if c == "{":
                        level += 1
                    elif c == "}":
                        level -= 1
                    elif c == "," and level == 0:
                        items.append(inner[start:j])
                        start = j + 1
                items.append(inner[start:])
                return [p for it in items if it.strip() for p in expand(prefix + it.strip())]
            depth += 1
    return [re.split(r"\s+as\s+", tree)[0].strip()]


def paths_in(path, text):
    code = re.sub(r"pub\(in [\w:]+\)", "pub", strip(text))
    # A file's `#[cfg(test)] mod tests` counts too; its `super` is the file itself.
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", code)
    if cut:
        return paths_in_code(path, code[: cut.start()], module_of(path)) | paths_in_code(
            path, code[cut.start():], module_of(path) + ["tests"], inline=True
        )
    return paths_in_code(path, code, module_of(path))


def paths_in_code(path, code, mod, inline=False):
    is_dir_module = inline or path.endswith("mod.rs") or path.endswith("lib.rs")
    found = []
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        found += expand(m.group(1))
    found += re.findall(r"(?<![\w:])((?:crate|super|self)(?:::\w+)+)", code)
    if path == "src/main.rs":
        found += ["crate::" + p for p in re.findall(r"\bgamesman::((?:\w+::)*\w+)", code)]
    out = set()
    for p in found:
        segs = [s for s in p.split("::") if s]
        if not segs:
            continue
        if segs[0] == "crate":
            base, rest = [], segs[1:]
        elif segs[0] in ("super", "self"):
            # A file's own module is `mod`; `super` of src/a/b.rs is a, of src/a/mod.rs the crate.
            base = list(mod)
            rest = segs
            while rest and rest[0] in ("super", "self"):
                if rest[0] == "super":
                    base = base[:-1]
                rest = rest[1:]
            if segs[0] == "self" and not is_dir_module:
                continue  # `self::x` in a leaf file names its own items
        else:
            continue
        target = file_of(base + [s for s in rest if s != "*"])
        if target != path:
            out.add(target)
    return out


def graph():
    g = {}
    for f in rust_files():
        with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
            g[f] = paths_in(f, fh.read())
    return g


def sccs(nodes, edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def circles(g):
    """Pairs (a, b) inside a strongly connected component, at file level and at every
    folder level (siblings in one folder, each a file or a folder taken whole)."""
    found = set()

    def add(comp, edges):
        for a in comp:
            for b in edges.get(a, ()):
                if b in comp and a < b and a in edges.get(b, ()):
                    found.add((a, b))
        # A loop of three or more with no pair: name its members in order.
        if not any(a in comp and b in comp for a, b in found):
            found.add(tuple(comp))

    comps = sccs(g.keys(), g)
    for c in comps:
        add(set(c), g)
    folders = {os.path.dirname(f) for f in g}
    for folder in sorted(folders):
        def unit(f):
            rel = os.path.relpath(f, folder)
            if rel.startswith(".."):
                return None
            head = rel.split(os.sep)[0]
            return os.path.join(folder, head) + ("/" if not head.endswith(".rs") else "")

        edges = {}
        for a, targets in g.items():
            ua = unit(a)
            if ua is None:
                continue
            for b in targets:
                ub = unit(b)
                if ub is not None and ub != ua:
                    edges.setdefault(ua, set()).add(ub)
        # Folder units only: a file-level circle is counted above.
        for c in sccs(edges.keys(), edges):
            if any(u.endswith("/") for u in c):
                add(set(c), edges)
    return sorted(" <-> ".join(c) for c in found)


def back_up(g):
    out = []
    for a, targets in g.items():
        for b in targets:
            if b.endswith("mod.rs") and a != b and a.startswith(os.path.dirname(b) + "/"):
                out.append(f"{a} -> {b}")
    return sorted(out)


def rooms():
    out = []
    for e in sorted(os.listdir(SRC)):
        if e in ("lib.rs", "main.rs"):
            continue
        if os.path.isdir(os.path.join(SRC, e)):
            out.append(f"src/{e}/")
        elif e.endswith(".rs"):
            out.append(f"src/{e}")
    return out


def section(doc, title):
    m = re.search(r"^##+ " + re.escape(title) + r"\s*$(.*?)(?=^## |\Z)", doc, re.M | re.S)
    if not m:
        return None
    lines = []
    for line in m.group(1).splitlines():
        line = line.strip()
        if line.startswith("- `") and "`" in line[3:]:
            lines.append(line[3 : line.index("`", 3)])
    return [] if lines == ["none"] else sorted(lines)


def main():
    g = graph()
    have_rooms, have_circles, have_up = rooms(), circles(g), back_up(g)
    if "--print" in sys.argv:
        print("rooms:", *have_rooms, sep="\n  ")
        print("circles:", *have_circles, sep="\n  ")
        print("imports running back up:", *have_up, sep="\n  ")
        return 0
    with open(DOC, encoding="utf-8") as fh:
        doc = fh.read()
    block = re.search(r"```\n(.*?)```", doc, re.S)
    in_order = [line.split()[0] for line in block.group(1).splitlines() if line.startswith("src/")] if block else []
    listed = sorted(set(in_order))
    failures = []

    def room(f):
        return next((r for r in in_order if f == r or (r.endswith("/") and f.startswith(r))), None)

    for a, targets in sorted(g.items()):
        for b in sorted(targets):
            ra, rb = room(a), room(b)
            if ra and rb and ra != rb and in_order.index(rb) > in_order.index(ra):
                failures.append(f"{a} imports {b}, but {rb} is listed below {ra}")
    if sorted(have_rooms) != listed:
        failures.append(
            "rooms: the code has %s; the document lists %s"
            % (sorted(set(have_rooms) - set(listed)) or "no other", sorted(set(listed) - set(have_rooms)) or "no other")
        )
    for title, have in (("Circles", have_circles), ("Imports running back up", have_up)):
        said = section(doc, title)
        if said is None:
            failures.append(f'the document has no section "{title}"')
        elif said != have:
            extra = sorted(set(have) - set(said))
            gone = sorted(set(said) - set(have))
            if extra:
                failures.append(f"{title.lower()} in the code but not in the document: " + "; ".join(extra))
            if gone:
                failures.append(f"{title.lower()} in the document but not in the code: " + "; ".join(gone))
    for f in failures:
        print(f"docs/architecture.md: {f}", file=sys.stderr)
    if not failures:
        print(f"docs/architecture.md agrees with the code: {len(have_rooms)} rooms, "
              f"{len(have_circles)} circles, {len(have_up)} imports running back up")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
