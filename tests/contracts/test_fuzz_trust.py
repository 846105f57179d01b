"""Property-based trust boundaries (issue 40): what sigrec loads from disk and runs.

* **Cache trees.** A generated tree of folders and files, like numba's cache, with zero to three
  defects planted (a file or folder writable by group or others, given to another user when the
  tests run as root, a symbolic link to a shared folder or file, a named pipe): the tree is trusted
  (:func:`sigrec.core.untrusted_path` is ``None``) exactly when nothing was planted, and a reason
  names a planted path; a planted index file is unpickled by the checked cache exactly when it
  and its folder are private (the pickle's code runs only then).
* **Altered generated code.** One byte of a shipped ``.code`` file changed (or the file cut short,
  or a byte appended): that file is not read, every untouched one still is.
* **Malformed evidence.** An ``evidence.json`` with one field replaced by a value of any JSON type,
  or removed: loaded, or refused with one ``ValueError`` line naming the file, never another
  exception.

The quick profiles run in the default test run; ``-m slow`` runs the long ones.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sigrec.core import untrusted_path

posix = pytest.mark.skipif(not hasattr(os, "getuid"), reason="owners and modes are POSIX")
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER = 12345
QUICK = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
LONG = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))

# cache trees ------------------------------------------------------------------------------------

DEFECTS = ("group-writable", "other-writable", "link-to-folder", "link-to-file", "pipe",
           *(("other-owner",) if ROOT else ()))


class _Plant:
    """A pickle that creates ``path`` when it is loaded."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@st.composite
def cache_trees(draw):
    """``(folders, files, defects)``: relative folder paths (parents first), relative file paths
    in them (index files end in ``.nbi``), and ``(entry, defect)`` pairs, at most one per entry."""
    folders = [""]
    for i in range(draw(st.integers(0, 4))):
        folders.append(os.path.join(draw(st.sampled_from(folders)), f"d{i}"))
    files = [os.path.join(draw(st.sampled_from(folders)), f"f{i}.{draw(st.sampled_from(['nbi', 'nbc']))}")
             for i in range(draw(st.integers(1, 5)))]
    entries = [f for f in folders if f] + files
    chosen = draw(st.lists(st.sampled_from(entries), max_size=min(3, len(entries)), unique=True))
    defects = [(entry, draw(st.sampled_from(DEFECTS))) for entry in chosen]
    return folders, files, defects


def _build(root: Path, folders, files, marker: Path) -> None:
    root.mkdir(mode=0o700)
    for folder in folders[1:]:
        (root / folder).mkdir(mode=0o700)
    for name in files:
        (root / name).write_bytes(pickle.dumps(_Plant(marker)))
        (root / name).chmod(0o600)


def _plant(root: Path, shared: Path, entry: str, defect: str) -> None:
    path = root / entry
    if defect == "group-writable":
        path.chmod(path.stat().st_mode | 0o020)
    elif defect == "other-writable":
        path.chmod(path.stat().st_mode | 0o002)
    elif defect == "other-owner":
        os.chown(path, OTHER, OTHER)
    else:  # replaced: by a link to a shared folder or file, or by a named pipe
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
        if defect == "pipe":
            os.mkfifo(path, 0o600)
        else:
            target = shared / ("folder" if defect == "link-to-folder" else "file")
            path.symlink_to(target, target_is_directory=defect == "link-to-folder")


def _check_tree(tree) -> None:
    from sigrec.numerics._simulate import _jitcache

    folders, files, defects = tree
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        base.chmod(0o700)
        shared = base / "shared"
        (shared / "folder").mkdir(parents=True)
        (shared / "file").write_bytes(b"")
        for p in (shared, shared / "folder", shared / "file"):
            p.chmod(0o777)
        marker = base / "planted-code-ran"
        root = base / "numba"
        _build(root, folders, files, marker)
        # deepest first; a defect below a folder replaced afterwards is gone with it
        for entry, defect in sorted(defects, key=lambda d: -d[0].count(os.sep)):
            _plant(root, shared, entry, defect)
        replaced = [e for e, d in defects if d in ("link-to-folder", "link-to-file", "pipe")]
        applied = [(e, d) for e, d in defects if not any(e.startswith(r + os.sep) for r in replaced)]
        reason = untrusted_path(root)
        if not applied:
            assert reason is None
        else:
            assert reason is not None and "\n" not in reason
            assert any(str(root / entry) in reason for entry, _ in applied), (reason, applied)
        # each index file that is still a file: unpickled (its code runs) only where private
        for name in files:
            path = root / name
            if not path.is_file() or path.is_symlink() or not name.endswith(".nbi"):
                continue
            # the file and its folder are checked when it is opened (the whole tree when the cache
            # is chosen, above)
            bad = {e for e, d in applied if d in ("group-writable", "other-writable", "other-owner")}
            private = name not in bad and os.path.dirname(name) not in bad
            cache_file = _jitcache._File(cache_path=str(path.parent), filename_base=path.stem, source_stamp=b"")
            try:
                cache_file._load_index()
            except Exception:  # numba's reader on our pickle: only whether it ran matters
                pass
            assert marker.exists() == private, (name, applied)
            marker.unlink(missing_ok=True)


@posix
@QUICK
@given(cache_trees())
def test_cache_trees_quick(tree):
    _check_tree(tree)


@posix
@pytest.mark.slow
@LONG
@given(cache_trees())
def test_cache_trees_long(tree):
    _check_tree(tree)


# altered generated code -------------------------------------------------------------------------

@st.composite
def alterations(draw):
    """``(file index, how, position, byte)`` for one shipped ``.code`` file."""
    return (draw(st.integers(0, 10**6)), draw(st.sampled_from(["flip", "cut", "append"])),
            draw(st.integers(0, 10**9)), draw(st.integers(0, 255)))


@pytest.fixture(scope="module")
def shipped_copy(tmp_path_factory):
    """A copy of the shipped folder, the real one put back after the module."""
    from sigrec.theory._codegen import _cache as cache

    folder = tmp_path_factory.mktemp("shipped") / "gen"
    shutil.copytree(cache.SHIPPED, folder)
    real = cache.SHIPPED
    cache.SHIPPED = folder
    cache._shipped_manifest.cache_clear()
    try:
        yield folder
    finally:
        cache.SHIPPED = real
        cache._shipped_manifest.cache_clear()


def _check_alteration(folder: Path, alteration) -> None:
    from sigrec.theory._codegen import _cache as cache

    names = sorted(p.stem for p in folder.glob("*.code"))
    assert names, "the package ships generated code"
    index, how, position, byte = alteration
    name = names[index % len(names)]
    path = folder / f"{name}.code"
    original = path.read_bytes()
    data = bytearray(original)
    at = position % len(data)
    if how == "flip":
        data[at] = data[at] ^ (byte or 1)  # a byte that differs
    elif how == "cut":
        del data[at:]
    else:
        data.append(byte)
    path.write_bytes(bytes(data))
    cache._shipped_manifest.cache_clear()
    try:
        assert not cache.shipped_current()
        assert cache._shipped_source(name) is None
        for other in names:
            if other != name:
                assert cache._shipped_source(other) == (folder / f"{other}.code").read_text()
    finally:
        path.write_bytes(original)
        cache._shipped_manifest.cache_clear()
    assert cache._shipped_source(name) == original.decode()


@QUICK
@given(alterations())
def test_altered_generated_code_quick(shipped_copy, alteration):
    _check_alteration(shipped_copy, alteration)


@pytest.mark.slow
@LONG
@given(alterations())
def test_altered_generated_code_long(shipped_copy, alteration):
    _check_alteration(shipped_copy, alteration)


# malformed evidence -----------------------------------------------------------------------------

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                 max_size=3),
                     max_leaves=6)


@pytest.fixture(scope="module")
def evidence(tmp_path_factory):
    """A real evidence file's fields (a quick suite on two theory checks)."""
    from sigrec.verify import Case, SuiteConfig, run_suite
    from sigrec.verify.render import write_report
    from sigrec.verify.studies import Evidence

    out = tmp_path_factory.mktemp("rep")
    write_report(run_suite(SuiteConfig(checks=("field.monotone",), cases=(Case("mine", 0.5, 0.1),), seed=3)), out)
    return Evidence.from_report(out).as_dict()


@st.composite
def damaged(draw, good):
    """``good`` with one to three fields replaced by any JSON value or removed; a record may be
    damaged the same way."""
    doc = json.loads(json.dumps(good))
    for _ in range(draw(st.integers(1, 3))):
        # an earlier round may have replaced the records by any JSON value: damage a record only of a list
        if isinstance(doc.get("records"), list) and doc["records"] and draw(st.booleans()):
            target = doc["records"][draw(st.integers(0, len(doc["records"]) - 1))]
            if not isinstance(target, dict):
                continue
        else:
            target = doc
        key = draw(st.sampled_from(sorted(target)))
        if draw(st.integers(0, 4)) == 0:
            del target[key]
        else:
            target[key] = draw(_JSON)
    return doc


def _check_evidence(doc) -> None:
    from sigrec.verify.studies import EVIDENCE_FILE, Evidence

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / EVIDENCE_FILE
        path.write_text(json.dumps(doc))
        try:
            Evidence.load(path)
        except ValueError as exc:
            assert "\n" not in str(exc) and str(path) in str(exc), str(exc)


def test_evidence_fuzz_quick(evidence):
    @QUICK
    @given(damaged(evidence))
    def run(doc):
        _check_evidence(doc)

    run()


@pytest.mark.slow
def test_evidence_fuzz_long(evidence):
    @LONG
    @given(damaged(evidence))
    def run(doc):
        _check_evidence(doc)

    run()
