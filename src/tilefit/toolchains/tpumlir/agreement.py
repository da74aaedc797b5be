"""Whether the replay reproduces an attempt: compared with TPU-MLIR's own trace round by
round (the order of the tensors, each one's candidate block), then every address placed
and the failure."""

from __future__ import annotations

from tilefit.toolchains.tpumlir.attempt import Attempt
from tilefit.toolchains.tpumlir.replay import Replayed


def differences(attempt: Attempt, replayed: Replayed) -> tuple[str, ...]:
    """Where the replay departs from TPU-MLIR's own trace of the attempt (empty: every
    round's order and candidates, every address and the failure reproduced)."""
    found = []
    for number, (theirs, ours) in enumerate(zip(attempt.rounds, replayed.rounds, strict=False)):
        names = tuple(c.name for c in theirs)
        if names != ours.order:
            found.append(
                f"round {number + 1}: TPU-MLIR took {', '.join(names)}; "
                f"the replay {', '.join(ours.order)}"
            )
            break
        addresses = tuple(c.addr for c in theirs)
        if addresses != ours.candidates:
            which = next(
                i for i, (a, b) in enumerate(zip(addresses, ours.candidates, strict=True)) if a != b
            )
            found.append(
                f"round {number + 1}: {names[which]}'s candidate is {addresses[which]} in "
                f"TPU-MLIR's trace, {ours.candidates[which]} in the replay"
            )
            break
    theirs_placed = tuple((t.name, t.addr) for t in attempt.placed)
    if not found and theirs_placed != replayed.placed:
        found.append(f"placed {theirs_placed} in TPU-MLIR's trace, {replayed.placed} in the replay")
    if attempt.success != replayed.success:
        found.append(
            f"TPU-MLIR's attempt {'succeeded' if attempt.success else 'failed'}, "
            f"the replay's {'succeeded' if replayed.success else 'failed'}"
        )
    elif {t.name for t in attempt.failed} != set(replayed.failed):
        found.append("the tensors left at the failure differ")
    return tuple(found)
