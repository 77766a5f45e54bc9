"""A sampler survey simulated to look like a published one, written in the long ratings format.

One prompt (a short story opening), four sampler settings, two questions on a 1-10 scale (quality and
diversity), 64 respondents, 16 of whom (a quarter) fail the attention check and answer at random.
Every number below is made up for this example; nothing here was rated by a person.

    python docs/sampler-survey/make_survey.py > docs/sampler-survey/survey.csv
    python -m evaluation.human docs/sampler-survey/survey.csv --exclude-failed-attention

The truth the analysis should find (latent points on the 1-10 scale, before rounding and clipping):
quality: min-p holds up at temperature 2 while top-p falls (-1.6); diversity: both settings at
temperature 2 are more diverse (+1.2 and +1.0). Each respondent has a severity (SD 0.9), a taste for
each setting on each question (SD 0.7) and noise on every answer (SD 1.8).
"""

from __future__ import annotations

import csv
import sys

import numpy as np

SETTINGS = ("T=1.0 top-p=0.9", "T=1.0 min-p=0.1", "T=2.0 top-p=0.9", "T=2.0 min-p=0.1")
EFFECTS = {"quality": (0.0, 0.2, -1.6, -0.2), "diversity": (0.0, 0.3, 1.2, 1.0)}
MEAN, SD_RATER, SD_TASTE, SD_NOISE = 5.5, 0.9, 0.7, 1.8
RESPONDENTS, FAILED, SEED = 64, 16, 34


def rows(rng: np.random.Generator) -> list[dict[str, object]]:
    failed = set(rng.choice(RESPONDENTS, FAILED, replace=False).tolist())
    out = []
    for r in range(RESPONDENTS):
        order = rng.permutation(len(SETTINGS))  # each respondent sees the four stories in their own order
        severity = rng.normal(0, SD_RATER)
        for position, m in enumerate(order):
            for question, effects in EFFECTS.items():
                latent = MEAN + effects[m] + severity + rng.normal(0, SD_TASTE) + rng.normal(0, SD_NOISE)
                score = int(rng.integers(1, 11)) if r in failed else int(np.clip(np.round(latent), 1, 10))
                out.append(
                    {
                        "study_id": "sampler-survey",
                        "item_id": "story-opening",
                        "rater": f"respondent-{r + 1:02d}",
                        "method": SETTINGS[m],
                        "dimension": question,
                        "score": score,
                        "position": position,
                        "attention_passed": "false" if r in failed else "true",
                        "scale_min": 1,
                        "scale_max": 10,
                    }
                )
    return out


def main() -> int:
    data = rows(np.random.default_rng(SEED))
    writer = csv.DictWriter(sys.stdout, fieldnames=list(data[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
