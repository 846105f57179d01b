"""The text of ``sigrec reproduce``: ``reproduce.md`` and the lines printed on the
console, from the JSON document of the run and the comparison table it is given."""

from __future__ import annotations

from pathlib import Path


def _protocol_line(p: dict) -> str:
    return (f"protocol: d={p['d']}, steps={p['steps']}, runs={p['runs']}, "
            f"eta_k={p['eta0']:g}/(k+{p['k0']:g})^{p['power']:g}, {p['note']}")


def reproduce_markdown(doc: dict, table: str) -> str:
    """``reproduce.md``: the protocol, ``table`` (Markdown) and the figures of ``doc`` (the
    run's JSON document: ``protocol`` and ``figures``)."""
    p = doc["protocol"]
    return ("# sigrec reproduce\n\n"
            f"Protocol (not reported by the paper; fixed here): d = {p['d']}, {p['steps']} steps, "
            f"{p['runs']} runs, schedule eta_k = {p['eta0']:g}/(k + {p['k0']:g})^{p['power']:g}, "
            f"batch {p['batch']}, {p['note']}, seed {p['seed']}.\n\n" + table + "\n\n"
            + "\n".join(f"![{Path(f).stem}]({Path(f).name})" for f in doc["figures"]) + "\n")


def reproduce_summary(doc: dict, table: str, out) -> tuple[str, str, str]:
    """The three console lines of ``sigrec reproduce``: the protocol, ``table`` and what
    was written into the folder ``out``."""
    return (_protocol_line(doc["protocol"]), table,
            f"wrote {Path(out) / 'reproduce.md'}, reproduce.json and {len(doc['figures'])} figures")
