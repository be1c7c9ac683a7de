"""Mix policies: EXP3 (ODM) and excess loss (DoReMi-style), and splitting a loss by group."""

from __future__ import annotations

import math

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


def test_exp3_follows_a_change_of_losses() -> None:
    """After the losses swap, the weights follow within a few dozen updates; a smoothing of 1
    (rewards that never move) is refused."""
    policy = EXP3(NAMES)
    for step in range(300):
        policy.update(step, {"de": 1.0, "en": 1.0, "sw": 5.0})
    for step in range(300, 350):
        weights = policy.update(step, {"de": 1.0, "en": 5.0, "sw": 1.0})
    assert weights["en"] > weights["sw"]
    with pytest.raises(ValueError, match="smoothing"):
        EXP3(NAMES, smoothing=1.0)


def test_exp3_with_steady_losses_settles_instead_of_swinging() -> None:
    """With every group's loss steady, the weights settle (they swung between groups by 0.07 to
    0.21 with the cumulative rewards of the first implementation)."""
    names = tuple("abcdefghij")
    losses = dict(zip(names, (8.6, 5.7, 8.2, 8.5, 8.8, 8.1, 7.5, 7.7, 7.7, 8.0), strict=True))
    policy = EXP3(names)
    history = [policy.update(step, losses) for step in range(0, 400, 10)]
    late = [w["a"] for w in history[20:]]
    assert max(late) - min(late) < 0.01
    assert max(history[-1], key=history[-1].__getitem__) == "e"  # the highest loss, 8.8
    assert min(history[-1], key=history[-1].__getitem__) == "b"  # the lowest, 5.7


def test_exp3_exploring_toward_the_initial_weights_keeps_each_groups_share_of_the_floor() -> None:
    """With explore="initial" the exploration share is the initial mix's: a group with the
    lowest loss keeps K eps_t of its initial weight (uniform exploration gives it K eps_t / K),
    also after a resume from a policy built with other initial weights."""
    initial = {"de": 0.2, "en": 0.7, "sw": 0.1}
    losses = {"de": 5.0, "en": 1.0, "sw": 5.0}  # English is the cheapest to predict
    toward = EXP3(NAMES, initial, explore="initial")
    uniform = EXP3(NAMES, initial)
    for step in range(0, 400, 10):
        weights, plain = toward.update(step, losses), uniform.update(step, losses)
    eps = math.sqrt(math.log(3) / (3 * 391))
    assert weights["en"] >= 3 * eps * 0.7 - 1e-12
    assert plain["en"] < weights["en"]
    resumed = EXP3(NAMES, weights, explore="initial")  # a resume passes the current weights
    resumed.load_state_dict(toward.state_dict())
    assert resumed.update(400, losses) == toward.update(400, losses)
    with pytest.raises(ValueError, match="explore must be 'uniform' or 'initial'"):
        EXP3(NAMES, explore="prior")


def test_exp3_min_explore_keeps_that_share_of_the_mix_on_the_initial_weights() -> None:
    """With min_explore=0.5 and explore="initial", every group keeps at least half its initial
    weight however low its loss, where plain ODM lets the exploration share decay."""
    initial = {"de": 0.2, "en": 0.7, "sw": 0.1}
    losses = {"de": 5.0, "en": 1.0, "sw": 5.0}
    half = EXP3(NAMES, initial, explore="initial", min_explore=0.5)
    plain = EXP3(NAMES, initial, explore="initial")
    for step in range(0, 400, 10):
        weights, decayed = half.update(step, losses), plain.update(step, losses)
    assert all(weights[g] >= 0.5 * initial[g] - 1e-12 for g in NAMES)
    assert decayed["en"] < 0.5 * initial["en"]
    assert weights["de"] > initial["de"]  # the bandit's half still goes to the high losses
    assert EXP3(NAMES, initial, min_explore=1.0).update(0, losses) == pytest.approx(
        {g: 1 / 3 for g in NAMES}
    )
    with pytest.raises(ValueError, match=r"min_explore must be in \[0, 1\]"):
        EXP3(NAMES, min_explore=1.5)


def test_excess_loss_favours_groups_above_the_reference() -> None:
    policy = ExcessLoss(NAMES, {"de": 2.0, "en": 2.0, "sw": 2.0})
    for step in range(10):
        weights = policy.update(step, {"de": 2.5, "en": 1.0, "sw": 3.0})
    assert weights["sw"] > weights["de"] > weights["en"]
    assert weights["en"] >= 1e-3 / 3  # smoothing
    with pytest.raises(ValueError, match=r"group\(s\) fr this mix does not have"):
        ExcessLoss(NAMES, {"de": 1.0, "fr": 1.0})
    with pytest.warns(UserWarning, match=r"no loss for group\(s\) en, sw"):
        partial = ExcessLoss(NAMES, [(0, {"de": 1.0}), (10, {"de": 1.0})])
    weights = partial.update(10, {"de": 1.5, "en": 9.0, "sw": 9.0})  # no excess for en, sw
    assert weights["de"] > weights["en"] == weights["sw"]
    with pytest.raises(ValueError, match="must not decrease"):
        ExcessLoss(NAMES, [(10, {"de": 1.0, "en": 1.0, "sw": 1.0}), (0, {"sw": 1.0})])


def test_excess_loss_compares_with_the_reference_at_the_same_step() -> None:
    """A reference trajectory: at step 10 the run's losses equal the reference's (no excess:
    the weights stay), at step 20 only sw is above the reference of step 20 (en's reference
    is carried from step 10, where the reference logged none for it at 20)."""
    reference = [
        (10, {"de": 5.0, "en": 5.0, "sw": 5.0}),
        (20, {"de": 3.0, "sw": 3.0}),
    ]
    policy = ExcessLoss(NAMES, reference, initial={"de": 0.5, "en": 0.25, "sw": 0.25})
    assert policy.reference_at(0) == policy.reference_at(15) == reference[0][1]
    assert policy.reference_at(25) == {"de": 3.0, "en": 5.0, "sw": 3.0}
    same = policy.update(10, {"de": 5.0, "en": 5.0, "sw": 5.0})
    smoothed = {g: 0.999 * w + 1e-3 / 3 for g, w in {"de": 0.5, "en": 0.25, "sw": 0.25}.items()}
    assert same == pytest.approx(smoothed)
    moved = policy.update(20, {"de": 3.0, "en": 4.0, "sw": 3.5})
    assert moved["sw"] > same["sw"] and moved["en"] < same["en"]  # en: 4 < its 5


def test_excess_loss_keeps_an_absent_groups_latest_loss() -> None:
    """A group missing from an update keeps its latest excess: it is not pushed down for not
    being in the window (against the final loss of each group, with absent groups at no
    excess, the weights collapsed onto one group within three updates)."""
    policy = ExcessLoss(NAMES, {"de": 2.0, "en": 2.0, "sw": 2.0})
    policy.update(0, {"de": 3.0, "en": 3.0, "sw": 3.0})
    weights = policy.update(1, {"de": 3.0})  # en and sw absent: still 1.0 above
    assert weights["en"] == pytest.approx(weights["de"]) == pytest.approx(weights["sw"])
    state = policy.state_dict()
    again = ExcessLoss(NAMES, {"de": 2.0, "en": 2.0, "sw": 2.0})
    again.load_state_dict(state)
    assert again.update(2, {"sw": 2.5}) == policy.update(2, {"sw": 2.5})
    fresh = ExcessLoss(NAMES, {"de": 2.0, "en": 2.0, "sw": 2.0})
    first = fresh.update(0, {"de": 3.0})  # the others never seen: no excess yet
    assert first["de"] == pytest.approx(0.999 * math.e / (math.e + 2) + 1e-3 / 3)


def test_group_losses_split_per_token_losses() -> None:
    losses = torch.tensor([[1.0, 3.0, 5.0], [2.0, 0.0, 7.0]])
    ids = torch.tensor([[0, 0, 2], [2, -1, 0]])
    assert group_losses(losses, ids, NAMES) == {"de": pytest.approx(11 / 3), "sw": 3.5}
