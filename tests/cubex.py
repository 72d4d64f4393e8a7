"""Writes small Score-P Cube 4 profiles (.cubex) for karte's tests.

A .cubex is a tar of anchor.xml (the metrics, the call tree of cnodes and the
system tree of processes and threads; Score-P gzips it) and, per metric ID,
ID.index (CUBEX.INDEX, the byte-order mark 1, a version, the index format 1
and the tree positions of the cnodes that have values) and ID.data (one row
of values per listed cnode, one value per location; raw after CUBEX.DATA, or
as zlib segments after ZCUBEX.DATA). Tree positions count the cnodes depth
first for an exclusive metric, and children-together (each node's children
listed when the node is reached) for an inclusive one, as Cube writes them.

    profile(tree, processes, threads, values, gzip_anchor=True, compress=True)

tree: ("main", [("init", []), ("solve", [("halo", [])])]); values: {metric:
{path: [value per location]}} with path "main->solve"; metrics are "time"
(INCLUSIVE, DOUBLE: give inclusive values), "visits" (EXCLUSIVE, UINT64:
give exclusive values), "xtime" (a time stored EXCLUSIVE: exclusive values)
and "energy" (INCLUSIVE, in J). Returns the .cubex bytes.
"""
import gzip
import io
import struct
import tarfile
import zlib

METRICS = {"time": (1, "INCLUSIVE", "DOUBLE", "sec"), "visits": (0, "EXCLUSIVE", "UINT64", "occ"),
           "xtime": (2, "EXCLUSIVE", "DOUBLE", "sec"), "energy": (3, "INCLUSIVE", "DOUBLE", "J")}


def _walk(tree, parent=""):
    """(path, node) in document order (depth first)."""
    name, children = tree
    path = f"{parent}->{name}" if parent else name
    yield path, tree
    for c in children:
        yield from _walk(c, path)


def _paths(tree):
    return [p for p, _ in _walk(tree)]


def _wide(tree):
    """Children-together order: the root, then each node's children listed when it is reached."""
    order = [tree[0]]
    stack = [(tree[0], tree)]
    while stack:
        path, node = stack.pop()
        kids = [(f"{path}->{c[0]}", c) for c in node[1]]
        order += [k for k, _ in kids]
        stack += list(reversed(kids))
    return order


def _anchor(tree, processes, threads, metrics):
    regions = {}
    for path, node in _walk(tree):
        regions.setdefault(node[0], len(regions))
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<cube version="4.3">',
           ' <attr key="Creator" value="karte tests/cubex.py"/>', ' <metrics>']
    for name in metrics:
        mid, mtype, dtype, uom = METRICS[name]
        out.append(f'  <metric id="{mid}" type="{mtype}"><disp_name>{name}</disp_name>'
                   f'<uniq_name>{name}</uniq_name><dtype>{dtype}</dtype><uom>{uom}</uom>'
                   f'<url></url><descr>{name}</descr></metric>')
    out += [' </metrics>', ' <program>']
    for rname, rid in regions.items():
        out.append(f'  <region id="{rid}" mod="mm.c" begin="1" end="2"><name>{rname}</name>'
                   f'<url></url><descr>compiler</descr></region>')
    ids = {p: i for i, p in enumerate(_paths(tree))}

    def cnode(path, node, depth):
        pad = "  " * depth
        lines = [f'{pad}<cnode id="{ids[path]}" calleeId="{regions[node[0]]}">']
        for c in node[1]:
            lines += cnode(f"{path}->{c[0]}", c, depth + 1)
        return lines + [f"{pad}</cnode>"]
    out += cnode(tree[0], tree, 1)
    out += [' </program>', ' <system>', '  <systemtreenode Id="0"><name>machine</name><class>machine</class>',
            '   <systemtreenode Id="1"><name>node</name><class>node</class>']
    loc = 0
    for p in range(processes):
        out.append(f'    <locationgroup Id="{p}"><name>rank {p}</name><rank>{p}</rank><type>process</type>')
        for t in range(threads):
            out.append(f'     <location Id="{loc}"><name>thread {t}</name><rank>{t}</rank><type>thread</type>'
                       '</location>')
            loc += 1
        out.append('    </locationgroup>')
    out += ['   </systemtreenode>', '  </systemtreenode>', ' </system>', '</cube>']
    return "\n".join(out).encode()


def profile(tree, processes, threads, values, gzip_anchor=True, compress=True):
    locations = processes * threads
    files = {}
    anchor = _anchor(tree, processes, threads, list(values))
    files["anchor.xml"] = gzip.compress(anchor, mtime=0) if gzip_anchor else anchor
    for name, per_path in values.items():
        mid, mtype, dtype, _ = METRICS[name]
        order = _wide(tree) if mtype == "INCLUSIVE" else _paths(tree)
        listed = [p for p in order if p in per_path]
        positions = [order.index(p) for p in listed]
        files[f"{mid}.index"] = (b"CUBEX.INDEX" + struct.pack("<iHBi", 1, 0, 1, len(positions)) +
                                 struct.pack(f"<{len(positions)}i", *positions))
        fmt = "<d" if dtype == "DOUBLE" else "<Q"
        rows = []
        for p in listed:
            vals = per_path[p]
            assert len(vals) == locations, f"{p}: a value per location ({locations})"
            rows.append(b"".join(struct.pack(fmt, v) for v in vals))
        if compress:
            segs = [zlib.compress(r) for r in rows]
            head, at, pos = b"", 0, 0
            for r, s in zip(rows, segs):
                head += struct.pack("<qqq", at, pos, len(s))
                at += len(r)
                pos += len(s)
            files[f"{mid}.data"] = b"ZCUBEX.DATA" + struct.pack("<q", len(segs)) + head + b"".join(segs)
        else:
            files[f"{mid}.data"] = b"CUBEX.DATA" + b"".join(rows)
    return tar(files)


def tar(files):
    """A tar of {path: bytes}, as Score-P and users write them (files only)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


# ---- the experiment set of tests/data/import: a stencil code ------------------------

TREE = ("main", [("init", []), ("solve", [("halo", [])]), ("io", [])])


def mm_values(p, n, rep, threads=2):
    """Per-location values of the stencil at p processes, problem size n,
    repetition rep (1 or 2): times in seconds, inclusive; visits exclusive.
    The first location is the slowest: init 0.5, halo 0.05 log2(p), solve
    n / (100 p) + halo, io 0 (a region that took no time), main init +
    solve + io + 0.1 (0.3 in repetition 2); every other location solves
    (and exchanges halos) in half that time. So the parallel time, the
    slowest location's main, falls with p, while the sum over locations
    (the resource) does not."""
    import math
    halo = 0.05 * math.log2(p)
    solve = n / (100 * p) + halo
    extra = 0.1 if rep == 1 else 0.3
    loc = p * threads
    share = [1.0] + [0.5] * (loc - 1)
    time = {"main": [0.5 + solve * f + extra for f in share], "main->init": [0.5] * loc,
            "main->solve": [solve * f for f in share], "main->solve->halo": [halo * f for f in share],
            "main->io": [0.0] * loc}
    visits = {"main": [1] * loc, "main->init": [1] * loc, "main->solve": [10] * loc,
              "main->solve->halo": [10] * loc}	# io: no visits stored
    return {"time": time, "visits": visits}


def mm_set(ps=(2, 4, 8), ns=(1000, 2000), reps=(1, 2), spell=None, threads=2):
    """{archive path: .cubex bytes} of experiment directories mm.p{p}.n{n}.r{rep}/profile.cubex
    (spell(p, n, rep) gives another directory name). Every other profile is
    written raw with a plain anchor.xml, the rest as Score-P does."""
    out, k = {}, 0
    for p in ps:
        for n in ns:
            for rep in reps:
                d = spell(p, n, rep) if spell else f"mm.p{p}.n{n}.r{rep}"
                out[f"{d}/profile.cubex"] = profile(TREE, p, threads, mm_values(p, n, rep, threads),
                                                    gzip_anchor=k % 2 == 0, compress=k % 2 == 0)
                k += 1
    return out
