"""Mix policies: EXP3 (ODM) and excess loss (DoReMi-style), and splitting a loss by group."""

from __future__ import annotations

import pytest
import torch

from lakemix.loader.policies import EXP3, ExcessLoss, group_losses

NAMES = ("de", "en", "sw")


def test_exp3_moves_weight_to_the_group_with_the_highest_loss() -> None:
    policy = EXP3(NAMES)
    for step in range(200):
        weights = policy.update(step, {"de": 2.0, "en": 1.0, "sw": 5.0})
    assert sum(weights.values()) == pytest.approx(1.0)
    assert weights["sw"] > weights["de"] > weights["en"]
    assert min(weights.values()) > 0  # exploration keeps every group in the draw
    again = EXP3(NAMES)
    again.load_state_dict(policy.state_dict())
    assert again.update(200, {"sw": 1.0}) == policy.update(200, {"sw": 1.0})


def test_excess_loss_favours_groups_above_the_reference() -> None:
    policy = ExcessLoss(NAMES, {"de": 2.0, "en": 2.0, "sw": 2.0})
    for step in range(10):
        weights = policy.update(step, {"de": 2.5, "en": 1.0, "sw": 3.0})
    assert weights["sw"] > weights["de"] > weights["en"]
    assert weights["en"] >= 1e-3 / 3  # smoothing
    with pytest.raises(ValueError, match="no loss for group"):
        ExcessLoss(NAMES, {"de": 1.0})


def test_group_losses_split_per_token_losses() -> None:
    losses = torch.tensor([[1.0, 3.0, 5.0], [2.0, 0.0, 7.0]])
    ids = torch.tensor([[0, 0, 2], [2, -1, 0]])
    assert group_losses(losses, ids, NAMES) == {"de": pytest.approx(11 / 3), "sw": 3.5}
