"""`scale`: a whole number on an integer scale of 2 to 11 points (1-5, 1-7, 1-10, 0-10...), higher
is better, with anchor texts for some points; the default type (a question without "type")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common import messages
from common.errors import UserError

from .base import Dimension, QuestionType


class Scale(QuestionType):
    name = "scale"
    allowed = frozenset({"low", "high", "anchors"})

    def fields(self, data: Mapping[str, Any], name: str) -> dict[str, Any]:
        anchors = data.get("anchors") or {}
        if not isinstance(anchors, Mapping):
            raise UserError(messages.text("scale_anchors_object", name=repr(name)))
        try:
            low, high = int(data.get("low", 1)), int(data.get("high", 5))
            pairs = tuple(sorted((int(p), str(t)) for p, t in anchors.items()))
        except (TypeError, ValueError):
            raise UserError(messages.text("scale_not_whole", name=repr(name))) from None
        return {"low": low, "high": high, "anchors": pairs}

    def to_dict(self, q: Dimension) -> dict[str, Any]:
        out: dict[str, Any] = {"low": q.low, "high": q.high}
        if q.anchors:
            out["anchors"] = {str(p): t for p, t in q.anchors}
        return out  # no "type": a scale's JSON is what it was before types existed

    def options(self, q: Dimension) -> list[tuple[str, int]]:
        return [(str(v), v) for v in self.values(q)]

    def check(self, q: Dimension, value: object) -> int:
        try:
            return int(super().check(q, value))
        except UserError:
            raise UserError(f"{q.name} must be a whole number from {q.low} to {q.high}, got {value!r}") from None


SCALE = Scale()
