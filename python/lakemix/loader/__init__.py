"""The training loader: a released mix as a deterministic, resumable, sharded PyTorch stream."""

from __future__ import annotations

from lakemix.loader.mix_loader import MixLoader, merge_states, resolve_release

__all__ = ["MixLoader", "merge_states", "resolve_release"]
