"""Cases a user defines: from command-line values or a TOML file (docs/design.md section 4).

TOML schema: one ``[[case]]`` table per case::

    [[case]]
    name = "mine"          # optional; default "case-<i>"
    theta = 0.5            # required, >= 0
    R = 300                # a finite instance: R, L (or N = L - R) and d together ...
    L = 3300
    d = 30
    # alpha = 0.1          # ... or alpha alone (0 = sparse regime): a theory-only case
    beta = 1.0             # optional, default 1
    sigma2 = 1.0           # optional, default 1
    prior = "fixed"        # optional: fixed, rademacher, "gaussian(mu=1, tau=0.5)", ...
    checks = ["field.*"]   # optional: ids or families; default every applicable check
    description = "..."    # optional

Unknown keys, missing or contradictory sizes and duplicate names are refused with a
``ValueError`` that names the case and the key.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ...theory import validate
from ..checks import Case

_KEYS = {"name", "theta", "alpha", "R", "L", "N", "d", "beta", "sigma2", "prior", "checks", "description"}


def make_case(name: str | None = None, *, theta, alpha=None, R=None, L=None, N=None, d=None, beta=1.0,
              sigma2=1.0, prior="fixed", checks=("*",), description="", where: str = "") -> Case:
    """One :class:`Case` (which validates its fields): a finite instance (``R``, ``L`` or
    ``N``, ``d``) or, with ``alpha`` alone, a theory-only case. Checked here only what the
    input forms add (``N`` for ``L - R``, which sizes go together); ``where`` prefixes
    error messages."""
    pre = f"{where}: " if where else ""
    try:
        sizes = {"R": R, "L": L, "N": N, "d": d}
        given = {k for k, v in sizes.items() if v is not None}
        if given and alpha is not None:
            raise ValueError("give either `alpha` (a theory-only case) or `R`, `L` (or `N`) and `d`, not both")
        if not given and alpha is None:
            raise ValueError("give `R`, `L` (or `N`) and `d` for a simulated case, or `alpha` for a theory-only case")
        if L is not None and N is not None:
            raise ValueError("give `L` or `N` (= L - R), not both")
        if given:
            missing = [k for k in ("R", "d") if sizes[k] is None] + ([] if L is not None or N is not None else ["L"])
            if missing:
                raise ValueError(f"a simulated case needs {', '.join(f'`{k}`' for k in missing)} too")
            if N is not None:  # L = R + N; the case checks R, L and d itself
                L = validate.integer("R", R, 0) + validate.integer("N", N, 0)
        case = Case(name or "case", theta, alpha, beta=beta, sigma2=sigma2, prior=prior, R=R, L=L, d=d,
                    description=description, checks=checks)
    except ValueError as exc:
        raise ValueError(f"{pre}{exc}") from None
    return case


def cases_from_toml(path) -> tuple[Case, ...]:
    """The cases of a TOML file (schema in the module docstring)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"`cases`: no such file: {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"`cases`: cannot read {str(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"`cases`: {path.name} is not valid TOML: {exc}") from None
    extra = set(data) - {"case"}
    if extra:
        raise ValueError(f"`cases`: {path.name}: unknown top-level key(s) {sorted(extra)}; use [[case]] tables")
    tables = data.get("case")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise ValueError(f"`cases`: {path.name} has no [[case]] tables")
    out, names = [], set()
    for i, t in enumerate(tables, 1):
        where = f"{path.name}: case {i}"
        unknown = set(t) - _KEYS
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
        if "theta" not in t:
            raise ValueError(f"{where}: `theta` is required")
        name = t.get("name", f"case-{i}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{where}: `name` must be a non-empty string")
        if name in names:
            raise ValueError(f"{where}: duplicate case name {name!r}")
        names.add(name)
        checks = t.get("checks", ["*"])
        if not isinstance(checks, list) or not all(isinstance(c, str) for c in checks):
            raise ValueError(f"{where}: `checks` must be a list of check ids")
        kw = {k: t[k] for k in ("alpha", "R", "L", "N", "d", "beta", "sigma2", "prior", "description") if k in t}
        out.append(make_case(name, theta=t["theta"], checks=checks, where=where, **kw))
    return tuple(out)
