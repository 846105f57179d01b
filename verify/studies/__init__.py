"""Studies built on the checks and simulators: the paper's reproduction, the
certified phase diagram, resumable parameter sweeps and the appendix's data. They return
data; ``verify.render`` draws and typesets it."""

from ._appendix import AppendixData, Landscape, appendix_data
from ._certify import CertifyResult, FlowTime, certify_study
from ._commands import FieldPoints, PredictionRequest, ScalarPrediction, SubspacePrediction, field_points, prediction
from ._evidence import EVIDENCE_FILE, Evidence
from ._finite_field import LABEL as LIMIT_LABEL
from ._finite_field import FiniteField, LimitDistance, Measurement, finite_field, limit_distance
from ._guard import check_overlaps
from ._heads_phase import HeadsCell, HeadsDiagram, heads_diagram
from ._limit_map import (
    LimitMap,
    LimitRequest,
    LimitStudy,
    TokensNeeded,
    ladder_sizes,
    limit_map,
    limit_study,
    tokens_needed,
)
from ._phase import PhaseDiagram, TransitionDiagram, phase_diagram, transition_diagram
from ._phase import write_csv as write_phase_csv
from ._phase_modes import PhaseRegion, heads_grid, phase_mode, phase_region, phase_region_k2
from ._region_figure import RegionLine, region_boundaries
from ._reproduce import (
    PAPER_MEAN_FINAL_ALIGNMENT,
    PROTOCOL,
    ConfigResult,
    Protocol,
    configurations,
    markdown_table,
    run_config,
    run_configs,
)
from ._reproduce import PRESETS as REPRODUCE_PRESETS
from ._sampled import ComplexityRequest, ComplexityStudy, SimulationRequest, SimulationRun, complexity_study, simulation
from ._scaling import ScalingReport, measure_scaling
from ._sweep import PRESETS as SWEEP_PRESETS
from ._sweep import (
    SubspaceSweep,
    SubspaceSweepSpec,
    SweepFigure,
    SweepResult,
    SweepSpec,
    make_spec,
    run_subspace_sweep,
    run_sweep,
)
from ._sweep import figure_data as sweep_figure_data
from ._sweep import load as load_sweep
from ._sweep import spec_from as sweep_spec
from ._validate import PROFILES as VALIDATE_PROFILES
from ._validate import Validation, draw_models, run_validation

__all__ = [
    "check_overlaps",
    "CertifyResult",
    "FlowTime",
    "certify_study",
    "run_subspace_sweep",
    "AppendixData",
    "Landscape",
    "EVIDENCE_FILE",
    "Evidence",
    "FiniteField",
    "HeadsCell",
    "HeadsDiagram",
    "heads_diagram",
    "LIMIT_LABEL",
    "LimitDistance",
    "LimitMap",
    "LimitRequest",
    "LimitStudy",
    "limit_study",
    "Measurement",
    "TokensNeeded",
    "finite_field",
    "ladder_sizes",
    "limit_distance",
    "limit_map",
    "tokens_needed",
    "ConfigResult",
    "PAPER_MEAN_FINAL_ALIGNMENT",
    "PROTOCOL",
    "PhaseDiagram",
    "Protocol",
    "RegionLine",
    "REPRODUCE_PRESETS",
    "SWEEP_PRESETS",
    "ScalingReport",
    "SubspaceSweep",
    "SubspaceSweepSpec",
    "SweepFigure",
    "SweepResult",
    "SweepSpec",
    "VALIDATE_PROFILES",
    "Validation",
    "appendix_data",
    "configurations",
    "draw_models",
    "load_sweep",
    "make_spec",
    "measure_scaling",
    "markdown_table",
    "phase_diagram",
    "PhaseRegion",
    "heads_grid",
    "phase_mode",
    "phase_region",
    "phase_region_k2",
    "transition_diagram",
    "TransitionDiagram",
    "region_boundaries",
    "run_config",
    "run_configs",
    "run_sweep",
    "run_validation",
    "sweep_figure_data",
    "sweep_spec",
    "write_phase_csv",
    "ComplexityRequest",
    "ComplexityStudy",
    "FieldPoints",
    "PredictionRequest",
    "ScalarPrediction",
    "SimulationRequest",
    "SimulationRun",
    "SubspacePrediction",
    "complexity_study",
    "field_points",
    "prediction",
    "simulation",
]
