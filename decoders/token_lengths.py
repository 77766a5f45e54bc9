"""How many characters each token id adds to a text, one dense tensor per tokenizer and width.

Decoding one token at a time miscounts: a Chinese character split over two byte-level tokens
decodes to two replacement characters. Counted in bytes instead, a text's characters are exactly
its UTF-8 lead bytes (every byte that is not a continuation byte 0b10xxxxxx), and that count adds
up token by token. So each token gets the number of lead bytes in its byte string:

* byte-level BPE (GPT-2, Llama 3, SmolLM2): the token's string is bytes written in GPT-2's
  byte-to-character alphabet; it is mapped back to bytes;
* SentencePiece with byte fallback (Gemma, Llama 2): ``<0xE4>`` is one byte, ``▁`` a space, any
  other piece its UTF-8 bytes.

Special tokens (end of sequence, chat markers) and padding rows of the output layer add 0, as
`skip_special_tokens=True` leaves them out of the text.
"""

from __future__ import annotations

import re
import threading
import weakref

import torch

_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _byte_alphabet() -> dict[str, int]:
    """GPT-2's printable stand-in character for each byte, inverted: character -> byte."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    printable += list(range(ord("®"), ord("ÿ") + 1))
    chars = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + extra)
            extra += 1
    return {c: b for b, c in chars.items()}


_ALPHABET = _byte_alphabet()


def piece_bytes(piece: str) -> bytes:
    """The bytes a vocabulary entry stands for (see the module doc for the two conventions)."""
    fallback = _BYTE_PIECE.fullmatch(piece)
    if fallback:
        return bytes([int(fallback.group(1), 16)])
    if "▁" not in piece and all(c in _ALPHABET for c in piece):
        return bytes(_ALPHABET[c] for c in piece)
    return piece.replace("▁", " ").encode("utf-8")


def lead_bytes(data: bytes) -> int:
    """Characters that `data` starts: its bytes that are not UTF-8 continuation bytes.

    >>> lead_bytes("面积 cm²".encode())
    6
    >>> sum(lead_bytes(part) for part in ("面".encode()[:2], "面".encode()[2:]))
    1
    """
    return sum(1 for b in data if b & 0xC0 != 0x80)


def char_lengths(tokenizer, width: int | None = None) -> torch.Tensor:
    """float32 (width,): characters each token id adds; `width` defaults to the tokenizer's size.
    Built once per tokenizer object and width (a 49k vocabulary takes a few tenths of a second)."""
    width = len(tokenizer) if width is None else int(width)
    with _lock:
        try:
            known = _cache.get(tokenizer, {}).get(width)
        except TypeError:  # an object that cannot be weakly referenced: built every time
            known = None
        if known is not None:
            return known
    n = min(len(tokenizer), width)
    pieces = tokenizer.convert_ids_to_tokens(list(range(n)))
    special = set(getattr(tokenizer, "all_special_ids", []) or [])
    lengths = torch.zeros(width, dtype=torch.float32)
    lengths[:n] = torch.tensor(
        [0 if i in special or p is None else lead_bytes(piece_bytes(p)) for i, p in enumerate(pieces)],
        dtype=torch.float32,
    )
    with _lock:
        try:
            _cache.setdefault(tokenizer, {})[width] = lengths
        except TypeError:
            pass
    return lengths
