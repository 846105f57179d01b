"""Argument helpers shared by the commands (model flags, finite floats)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from ...numerics import ROUTE_METHODS, Problem, Schedule, executor
from ...theory import Model, parse_law
from . import _limits
from ._limits import bounded, count, finite_float


def add_model_arguments(parser: argparse.ArgumentParser, need_alpha: bool = True) -> None:
    """``--theta``, the size flags (:func:`add_size_arguments`: ``--alpha`` or ``--R`` with ``--L``/``--N``
    when ``need_alpha``), ``--beta``, ``--sigma2``, ``--prior``."""
    parser.add_argument("--theta", type=finite_float, required=True, help="signal strength (>= 0)")
    if need_alpha:
        add_size_arguments(parser, fraction=True)
    parser.add_argument("--beta", type=finite_float, default=1.0, help="inverse temperature (> 0), default 1")
    parser.add_argument("--sigma2", type=finite_float, default=1.0, help="noise variance (> 0), default 1")
    parser.add_argument("--prior", type=prior_arg, default="fixed", metavar="PRIOR", help=PRIOR_HELP)


def add_size_arguments(parser, *, fraction: bool, alpha_type=None, alpha_help: str = "") -> None:
    """The one set of size flags of every command that takes a model: ``--R`` with ``--L`` or ``--N``
    (``L = R + N``); with ``fraction``, ``--alpha`` (``R / L``) instead of the counts. Resolved after
    parsing by :func:`resolve_sizes` (``args.alpha``, or ``args.R`` and ``args.L``)."""
    if fraction:
        parser.add_argument("--alpha", type=alpha_type or finite_float, default=None,
                            help="informative fraction R/L in [0, 1]; 0 = sparse regime (field rescaled by 1/alpha)"
                            + alpha_help + "; or give --R with --L or --N")
    parser.add_argument("--R", type=count("R"), default=None, help="number of informative tokens")
    parser.add_argument("--L", type=count("L"), default=None, help="number of tokens (R <= L); or --N")
    parser.add_argument("--N", type=count("N"), default=None, help="number of nuisance tokens (L = R + N); or --L")
    parser.set_defaults(_sizes="fraction" if fraction else "counts")


def resolve_sizes(args) -> None:
    """Complete the size flags of :func:`add_size_arguments` in place: ``args.L`` from ``--N``, and
    for a fraction ``args.alpha = R / L``; one way of giving the sizes, else ``ValueError`` naming the
    flags. A namespace without size flags is left alone."""
    kind = getattr(args, "_sizes", None)
    if kind is None:
        return
    R, L, N = args.R, args.L, args.N
    if L is not None and N is not None:
        raise ValueError(f"give one of `L` and `N` (L = R + N), not both (got --L {L} --N {N})")
    counts = R is not None or L is not None or N is not None
    if kind == "fraction" and getattr(args, "alpha", None) is not None:
        if counts:
            raise ValueError("give `alpha` or the counts `R` with `L` or `N`, not both")
        return
    if R is None or (L is None and N is None):
        what = "`alpha`, or " if kind == "fraction" else ""
        raise ValueError(f"the sizes are required: {what}`R` with `L` or `N` (L = R + N)")
    if N is not None:
        args.L = R + N
    if args.R > args.L:
        raise ValueError(f"`R` must satisfy R <= L = {args.L}, got R = {args.R}")  # the library's words
    if kind == "fraction":
        args.alpha = args.R / args.L


#: the help text of every --prior flag
PRIOR_HELP = ("signal prior: fixed (default), rademacher or rademacher(p), bernoulli(p), gaussian(mu, tau), "
              "discrete(values=[...], probs=[...]); or a k-dimensional signal law onehot(k=2), "
              "onehot(k=3, probs=[...]), gaussian(k=2, tau=1), discrete(vectors=[[1,0],[0,1]], probs=[1/2,1/2]) "
              "(the subspace model); quote it in the shell")


def prior_arg(text: str) -> str:
    """``argparse`` type of ``--prior``: the canonical spec of the signal law (a scalar prior, or a
    k-dimensional law, :func:`theory.parse_law`); else one clear message."""
    try:
        return parse_law(text).spec
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("`prior` ", "", 1).replace("`law` ", "", 1)) from None


def model_from_args(args) -> Model:
    """The :class:`theory.Model` of the model flags (``--heads`` where the command has it)."""
    return Model(theta=args.theta, alpha=args.alpha, beta=args.beta, sigma2=args.sigma2, prior=args.prior,
                 heads=getattr(args, "heads", 1))


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout (nothing else)")


def add_problem_arguments(parser: argparse.ArgumentParser) -> None:
    """Finite instance and schedule flags shared by ``simulate`` and ``predict``
    (the model flags except ``--alpha``, which is ``R / L`` here)."""
    add_model_arguments(parser, need_alpha=False)
    add_size_arguments(parser, fraction=False)
    parser.add_argument("--d", type=count("d"), required=True, help="dimension (>= 2)")
    parser.add_argument("--steps", type=count("steps"), required=True, help="number of steps K (>= 1)")
    parser.add_argument("--eta0", type=finite_float, default=0.5, help="step scale, default 0.5")
    parser.add_argument("--k0", type=bounded("k0"), default=10.0, help="step offset (> 0), default 10")
    parser.add_argument("--power", type=bounded("power"), default=0.75,
                        help="eta_k = eta0/(k+k0)^power, k from 0; 0 = constant step; default 0.75")
    parser.add_argument("--batch", type=count("batch"), default=1,
                        help="token collections averaged per step, default 1")


def problem_and_schedule(args):
    """``(numerics.Problem, numerics.Schedule)`` from :func:`add_problem_arguments` flags."""

    problem = Problem(theta=args.theta, R=args.R, L=args.L, d=args.d, beta=args.beta,
                      sigma2=args.sigma2, prior=args.prior, batch=args.batch).with_heads(getattr(args, "heads", 1))
    schedule = Schedule.constant(args.eta0) if args.power == 0 else Schedule(eta0=args.eta0, k0=args.k0,
                                                                             power=args.power)
    return problem, schedule


def add_out_argument(parser: argparse.ArgumentParser, default: str, help_text: str = "output folder") -> None:
    """``--out DIR``; a path that exists and is not a folder is refused when parsing."""
    parser.add_argument("--out", type=_folder, default=Path(default), help=f"{help_text} (default ./{default})")


def _folder(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("must be a folder name, got ''")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"must be a folder, got the file {text!r}")
    _check_creatable(path, text)
    return path


def _check_creatable(path: Path, text: str) -> None:
    """Refuse (``ArgumentTypeError``) a path that cannot be created or written: one under
    a regular file, or in a location where no file can be created (``/proc/x``).
    Probes the nearest existing folder with a temporary file, removed at once."""
    base = path if path.is_dir() else path.parent
    while not base.exists() and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise argparse.ArgumentTypeError(f"cannot be created under the file {str(base)!r}, got {text!r}")
    try:
        with tempfile.TemporaryFile(dir=base):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise argparse.ArgumentTypeError(f"{str(base)!r} is not writable ({reason}), got {text!r}") from None


def npz_file(text: str) -> Path:
    """argparse type for ``--save FILE``: a writable ``.npz`` path (suffix added)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must be a file name, got ''")
    path = Path(text if text.endswith(".npz") else text + ".npz")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"must be a file, got the folder {str(path)!r}")
    _check_creatable(path, text)
    return path


def add_executor_arguments(parser: argparse.ArgumentParser, default_workers=None) -> None:
    """``--workers N`` and ``--scheduler ADDRESS`` (docs/design.md section 8): where the
    independent units of the command run. Neither changes a result."""
    default = ("sized to the machine (one per CPU, at most one per GiB of available memory)"
               if default_workers is None else str(default_workers))
    parser.add_argument("--workers", type=count("workers"), default=default_workers,
                        help=f"worker processes of the local dask cluster, one thread each (1 = in-process); "
                        f"results do not depend on it; default {default}")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="run on an existing dask.distributed cluster at tcp://HOST:PORT (e.g. "
                        "tcp://127.0.0.1:8786; no other scheme, no scheduler file), refused unless a dask "
                        f"scheduler answers within {_limits.SCHEDULER_TIMEOUT_S:g} s; "
                        "default $SIGREC_SCHEDULER, else a local cluster of --workers")


def add_method_arguments(parser: argparse.ArgumentParser, what: str = "the diffusion") -> None:
    """``--method`` and ``--drift-se``: which law feeds the diffusion (:func:`sigrec.numerics.route_tables`)."""
    parser.add_argument("--method", choices=ROUTE_METHODS, default="auto",
                        help=f"the drift and variance of {what}: 'expansion' (the derived O(eta) expansion), "
                        "'measured' (the exact chain's one-step law at the schedule's steps, by Monte Carlo with "
                        "a control variate; seconds at L = 10^4) or 'auto' (the expansion inside its stated "
                        "validity, the measured law outside); default auto")
    parser.add_argument("--drift-se", type=finite_float, default=None, metavar="SE",
                        help="measured law: the requested standard error of its drift at every grid point "
                        "(> 0), default 0.02 of the drift's scale max(1, max |drift|)")


def executor_from_args(args):
    """The :func:`sigrec.numerics.executor` context of :func:`add_executor_arguments` flags."""

    if args.workers is not None and args.workers < 1:
        raise ValueError(f"`workers` must be >= 1, got {args.workers}")
    # read at call time: the limit is one row of _limits
    return executor(workers=args.workers, scheduler=args.scheduler, timeout=_limits.SCHEDULER_TIMEOUT_S)

