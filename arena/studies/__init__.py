"""Rating studies: a prompt set, methods and samples, resumable pre-generation, a lifecycle.

A study's settings are one `StudySpec` (arena/rating/study_spec.py), which every door builds and
`create_study(store, spec)` takes. One job per module: limits.py (what a study may hold), seeds.py,
prompt_sets.py, create.py,
slots.py (what is needed and stored), generate.py (the one generator: slots -> engine -> store),
lifecycle.py (draft -> open -> closed -> published), reserved.py (prompts of unpublished studies,
which every public run must refuse), quick.py (quick ratings from Compare: the study, its limits and
expiry), delete.py; `python -m arena.studies` is __main__.py.
The names below are the package's interface (`from arena import studies; studies.create_study`).
"""

from arena.inputs.prompts import PromptSpec, parse_pasted

from .create import EXCLUSION_RULES, StudySpec, check_exclusion_rules, create_study, read_rubric
from .delete import BACKUP_ENV, Deletion, backup_folder, delete_rater_ratings, delete_study
from .generate import GenerationReport, ProgressFn, generate_study, identical_texts
from .lifecycle import being_generated, close_study, generating, open_study, publish_study
from .limits import MAX_ITEMS, MAX_RESPONSES, MAX_SAMPLES, expected_slots, method_names_in
from .prompt_sets import builtin_prompts, parse_prompt_file, task_prompts
from .quick import QUICK_SCENARIO, quick_item
from .reserved import check_not_reserved
from .seeds import derive_seed, slots_seed
from .slots import pending_slots, ready_item_ids, ready_items

__all__ = [
    "BACKUP_ENV",
    "MAX_ITEMS",
    "MAX_RESPONSES",
    "MAX_SAMPLES",
    "QUICK_SCENARIO",
    "Deletion",
    "StudySpec",
    "GenerationReport",
    "ProgressFn",
    "PromptSpec",
    "backup_folder",
    "being_generated",
    "builtin_prompts",
    "check_not_reserved",
    "close_study",
    "EXCLUSION_RULES",
    "check_exclusion_rules",
    "create_study",
    "read_rubric",
    "delete_rater_ratings",
    "delete_study",
    "derive_seed",
    "expected_slots",
    "generate_study",
    "generating",
    "identical_texts",
    "method_names_in",
    "open_study",
    "parse_pasted",
    "parse_prompt_file",
    "pending_slots",
    "publish_study",
    "quick_item",
    "ready_item_ids",
    "ready_items",
    "slots_seed",
    "task_prompts",
]
