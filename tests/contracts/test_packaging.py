"""The distribution installs one top-level package, ``sigrec`` (design document, layout)."""

import subprocess
import sys
import zipfile

import pytest


def test_generic_top_level_names_are_not_importable(tmp_path):
    # outside the repository only what pip installed is importable
    code = ("import importlib.util as u, sigrec, sigrec.theory, sigrec.numerics, sigrec.verify;"
            "print([n for n in ('theory', 'numerics', 'verify') if u.find_spec(n) is not None]);"
            "print(sigrec.__version__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    found, version = out.stdout.splitlines()
    assert found == "[]"
    assert version[0].isdigit()


@pytest.mark.slow
def test_wheel_has_only_the_sigrec_top_level(tmp_path):
    """Build the wheel (pip, build isolation) and read what it would install."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(root)],
                   check=True, capture_output=True)
    (wheel,) = tmp_path.glob("sigrec-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        top = next(n for n in names if n.endswith("top_level.txt"))
        assert z.read(top).decode().split() == ["sigrec"]
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"sigrec"}
    for sub in ("sigrec/theory/__init__.py", "sigrec/numerics/__init__.py", "sigrec/verify/cli/__init__.py",
                "sigrec/__main__.py"):
        assert sub in names
