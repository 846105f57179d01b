"""``sigrec field``: the limit objective, slope, field and nuisance mass at given alignments.

One call of :func:`..studies.field_points` (:func:`theory.evaluate`): ``--rho`` gives alignments
to the scalar engine (one query on one signal direction); ``--r`` gives overlap vectors
(``--r 0.6,0.3 0.1,0.2``) to the subspace engine, the objective ``j(r)``, its gradient ``g`` and
the flow ``g - <r, g> r`` for any law (with a scalar prior ``--r x`` is that engine at ``k = 1``,
``r = rho``). With ``--heads H`` the ``H`` vectors of ``--r`` are the columns of one frame
``M = U^T Q`` (``k x H``): the summed objective, the reduced flow ``dM/dt = Gamma - M sym(M^T Gamma)``
(:func:`theory.heads_flow`) and the principal angles.
"""

from __future__ import annotations

from ..render import field_text
from ..studies import check_overlaps, field_points
from ._args import add_json_flag, add_model_arguments, finite_float, model_from_args
from ._output import emit
from ._subspace import add_heads_argument, overlap_vector


def register(sub) -> None:
    p = sub.add_parser(
        "field",
        help="evaluate j(rho), j'(rho), F(rho) and the nuisance mass",
        description="Evaluate the limit objective j, its slope j', the alignment field "
        "F = (1 - rho^2) j' and the limit nuisance attention mass at the given alignments (--rho). "
        "With a k-dimensional law (--prior 'onehot(k=2)') give overlap vectors r = U^T q instead "
        "(--r 0.6,0.3 0.1,0.2): the objective j(r), its gradient g and the flow g - <r, g> r. With --heads H "
        "the H vectors of --r are the columns m_h of one frame M = U^T Q: the summed objective, the reduced "
        "flow dM/dt and the principal angles between span Q and the signal span.",
    )
    add_model_arguments(p)
    p.add_argument("--rho", type=finite_float, nargs="+", default=None, help="alignments in [-1, 1] (scalar prior)")
    p.add_argument("--r", type=overlap_vector, nargs="+", default=None, metavar="R1,..,Rk",
                   help="overlap vectors r = U^T q, comma-separated, one per point, |r| <= 1 (k entries for a "
                   "k-dimensional law; with a scalar prior one entry: the subspace route at k = 1)")
    add_heads_argument(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    model = model_from_args(args)
    r = None if args.r is None else [check_overlaps("r", v, model.k) for v in args.r]
    return emit(args, field_points(model, rho=args.rho, r=r), field_text)
