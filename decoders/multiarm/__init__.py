"""Multi-arm sampling with verification and backtracking (article 003, §3).

`arms` holds the arm configurations and the batched per-arm sampler, `verifier` the pluggable
path scorer, `trace` the record of a run, `generate` the step loop that ties them together.
"""

from .arms import DEFAULT_ARMS, ArmConfig, RowwiseSampler
from .generate import MultiArmGenerator, MultiArmSettings
from .trace import ArmEvent, ArmStep, MultiArmTrace
from .verifier import SignalVerifier, Verifier

__all__ = [
    "DEFAULT_ARMS",
    "ArmConfig",
    "ArmEvent",
    "ArmStep",
    "MultiArmGenerator",
    "MultiArmSettings",
    "MultiArmTrace",
    "RowwiseSampler",
    "SignalVerifier",
    "Verifier",
]
