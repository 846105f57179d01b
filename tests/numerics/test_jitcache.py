"""numba's cache of the compiled loops (``numerics/_simulate/_jitcache.py``): written in the
private cache folder and nowhere else, and nothing in it loaded unless the folder, the path to it
and every file in it are this user's and private (issue 40, item 1: an index file of another user,
world-writable, was unpickled and its code ran; a subfolder replaced by a symbolic link to a
world-writable folder was followed; ``NUMBA_CACHE_DIR`` was used unchecked)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from sigrec.core import private_cache_folder, untrusted_path

OTHER = 12345  # a uid that is not this process's
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="giving a file to another user needs root")
posix = pytest.mark.skipif(not hasattr(os, "getuid"), reason="owners and modes are POSIX")


class _Plant:
    """A pickle that creates ``path`` when it is loaded (as code planted in a cache would run)."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _tree(root: Path) -> Path:
    """A private cache tree like numba's: ``root/numba/<sub>/{f.nbi, f.1.nbc}``."""
    sub = root / "numba" / "_simulate_abc"
    sub.mkdir(parents=True, mode=0o700)
    for p in (root, root / "numba"):
        p.chmod(0o700)
    for name in ("f.nbi", "f.1.nbc"):
        (sub / name).write_bytes(b"x")
        (sub / name).chmod(0o600)
    return root / "numba"


@posix
def test_a_private_tree_is_trusted(tmp_path):
    assert untrusted_path(_tree(tmp_path)) is None


@posix
def test_a_file_writable_by_others_is_not(tmp_path):
    folder = _tree(tmp_path)
    (folder / "_simulate_abc" / "f.nbi").chmod(0o666)
    assert "writable by group or others" in untrusted_path(folder)


@posix
@needs_root
def test_a_file_of_another_user_is_not(tmp_path):
    folder = _tree(tmp_path)
    os.chown(folder / "_simulate_abc" / "f.1.nbc", OTHER, OTHER)
    assert f"another user (uid {OTHER})" in untrusted_path(folder)


@posix
def test_a_subfolder_replaced_by_a_symbolic_link_is_not(tmp_path):
    folder = _tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o777)
    elsewhere.chmod(0o777)
    (folder / "_simulate_abc").rename(tmp_path / "old")
    (folder / "_simulate_abc").symlink_to(elsewhere, target_is_directory=True)
    assert "symbolic link" in untrusted_path(folder)


@posix
def test_a_folder_above_it_that_others_can_write_is_not_unless_sticky(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    folder = _tree(shared / "me")
    shared.chmod(0o777)
    assert f"{shared} can be written by another user" == untrusted_path(folder)
    shared.chmod(0o1777)  # as /tmp: others cannot rename what is not theirs
    assert untrusted_path(folder) is None


@posix
@needs_root
def test_numba_cache_dir_of_another_user_writable_by_all_is_refused(tmp_path, monkeypatch):
    from sigrec.numerics._simulate import _jitcache

    folder = tmp_path / "numba-cache"
    folder.mkdir()
    folder.chmod(0o777)
    os.chown(folder, OTHER, OTHER)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    chosen, reason = _jitcache._choose()
    assert chosen is None and f"NUMBA_CACHE_DIR={folder} cannot be trusted" in reason
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(_tree(tmp_path / "mine")))
    assert _jitcache._choose() == (tmp_path / "mine" / "numba", None)


@posix
def test_the_cache_off_by_the_user_is_off_without_a_warning(monkeypatch):
    from sigrec.numerics._simulate import _jitcache

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")
    assert _jitcache._choose() == (None, None)


@posix
def test_a_file_is_checked_again_when_it_is_opened(tmp_path):
    """What passed at import but changed since: an index file made writable by others is not
    unpickled (the planted code does not run), a data file is not read."""
    from sigrec.numerics._simulate import _jitcache

    folder = _tree(tmp_path)
    marker = tmp_path / "ran"
    index = folder / "_simulate_abc" / "g.nbi"
    index.write_bytes(pickle.dumps(_Plant(marker)))
    index.chmod(0o666)
    cache_file = _jitcache._File(cache_path=str(index.parent), filename_base="g", source_stamp=b"")
    assert cache_file._load_index() == {}
    with pytest.raises(OSError, match="not private"):
        data = index.parent / "g.1.nbc"
        data.write_bytes(pickle.dumps(_Plant(marker)))
        data.chmod(0o622)
        cache_file._load_data("g.1.nbc")
    assert not marker.exists()
    index.chmod(0o600)
    assert cache_file._load_index() == {}  # a private file is read (the user's own): the plant runs
    assert marker.exists()


def test_every_compiled_loop_of_the_package_is_cached_in_the_checked_folder():
    """Every numba function of sigrec (the fused kernels and the control variate's features, whose
    cache once went beside the sources because it was decorated after the kernels restored numba's
    setting) has the checked cache, in :data:`FOLDER`."""
    import numba

    import sigrec.numerics._gradient._features as features
    import sigrec.numerics._simulate._fused as fused
    from sigrec.numerics._simulate import _jitcache

    if _jitcache.FOLDER is None:
        pytest.skip(f"the cache is off in this process ({_jitcache._REASON})")
    loops = [obj for module in (fused, features) for obj in vars(module).values()
             if isinstance(obj, numba.core.dispatcher.Dispatcher)]
    assert len(loops) >= 10 and features.group_features in loops
    for loop in loops:
        cache = getattr(loop, "_cache", None)  # the folder its compiled code is cached in
        where = cache.cache_path if isinstance(cache, _jitcache._Cache) else None
        assert where is not None and Path(where).parent == _jitcache.FOLDER, (loop, where)


_RUN = ("import numpy as np\n"
        "from sigrec.numerics import Problem, Schedule, simulate\n"
        "from sigrec.numerics._gradient._features import group_features\n"
        "s = simulate(Problem(theta=1.0, R=3, L=30, d=4), Schedule.constant(0.1), steps=2, runs=2, seed=0)\n"
        "z = np.linspace(-1, 1, 7); out = np.zeros(14)\n"
        "group_features((z, z, z), z, False, (1.0, 0.5, 0.2), (0.0, 0.0), out)\n"
        "print(repr(s.rho.tolist()), repr(out.tolist()))\n")


def _run(env):
    done = subprocess.run([sys.executable, "-c", _RUN], env=env, capture_output=True, text=True,
                          timeout=600, check=True)
    return done.stdout, done.stderr


@posix
def test_loops_are_cached_in_the_private_folder_and_a_planted_index_does_not_run(tmp_path):
    """End to end, in fresh processes: the first run writes the cache into ``numba/`` of
    ``SIGREC_CACHE_DIR`` (mode 0700) and nothing beside the sources; then every index file is
    replaced by a pickle that creates a marker file, made writable by others (and given to another
    user when running as root), and a subfolder by a symbolic link to a folder others can write:
    the next run does not load them (no marker), says so in one warning, and prints the same
    numbers."""
    import sigrec.numerics

    package = Path(sigrec.numerics.__file__).parent
    before = {p: p.stat().st_mtime for p in package.rglob("*.nb*")}
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["SIGREC_CACHE_DIR"] = str(tmp_path / "cache")
    first, _ = _run(env)
    numba_dir = tmp_path / "cache" / "numba"
    indexes = sorted(numba_dir.rglob("*.nbi"))
    assert {p.parent.name.split("_")[1] for p in indexes} == {"simulate", "gradient"}
    assert numba_dir.stat().st_mode & 0o777 == 0o700
    assert {p: p.stat().st_mtime for p in package.rglob("*.nb*")} == before
    assert _run(env)[0] == first  # from the cache, the same numbers
    marker = tmp_path / "planted-code-ran"
    for index in indexes:
        index.write_bytes(pickle.dumps(_Plant(marker)))
        index.chmod(0o666)
        if ROOT:
            os.chown(index, OTHER, OTHER)
    out, err = _run(env)
    assert not marker.exists() and out == first
    warning = [line for line in err.splitlines() if "CacheWarning" in line]
    reason = f"another user (uid {OTHER})" if ROOT else "writable by group or others"
    assert len(warning) == 1 and reason in warning[0], err
    # the planted files as the only problem, in a subfolder that is now a link to a shared folder
    shared = tmp_path / "shared"
    gradient = next(p.parent for p in indexes if "_gradient_" in p.parent.name)
    gradient.rename(shared)
    shared.chmod(0o777)
    gradient.symlink_to(shared, target_is_directory=True)
    for index in indexes:
        if index.parent != gradient:
            index.unlink()
    out, err = _run(env)
    assert not marker.exists() and out == first
    assert "is a symbolic link" in err


def test_private_cache_folder_refuses_what_is_not_private(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")
    assert private_cache_folder("numba") is None
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path / "c"))
    folder = private_cache_folder("numba")
    assert folder == tmp_path / "c" / "numba" and folder.stat().st_mode & 0o777 == 0o700
    os.chmod(folder, 0o777)  # writable by others: not used
    assert private_cache_folder("numba") is None


@posix
def test_the_command_line_says_the_cache_is_off_in_one_warning_line(tmp_path):
    """``NUMBA_CACHE_DIR`` writable by everyone: ``sigrec simulate`` runs, compiles in memory, and
    says why in one ``warning:`` line (no Python warning with its file and source line)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(shared)}
    done = subprocess.run([sys.executable, "-m", "sigrec", "simulate", "--theta", "1", "--d", "4", "--R", "3",
                           "--L", "30", "--steps", "2", "--runs", "1", "--seed", "0"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines == [f"warning: numba's cache of compiled loops is off for this process (NUMBA_CACHE_DIR={shared} "
                     f"cannot be trusted: {shared} is writable by group or others); they are compiled again "
                     "in each process"], done.stderr
    assert not any(shared.iterdir())  # nothing written there
    assert "final rho" in done.stdout
