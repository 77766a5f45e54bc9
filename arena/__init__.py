"""Decoding Arena: model loading, the generation runner, studies, the ratings store and the UI."""
