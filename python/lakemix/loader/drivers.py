"""Who iterates a ``MixLoader``: a trainer that needs lakemix's integration is refused at once.

Given a ``MixLoader`` straight, Lightning's ``Trainer.fit`` fetches a batch ahead and saves the
loader state of rank 0 only (every resume skips a batch, silently), and the Hugging Face
``Trainer`` resumes a data loader by skipping batches, which only a ``torch`` ``DataLoader``
can. Both would train, and be wrong only at the resume. The loader looks at who asks for its
first batch: a frame of one of those trainers means the integration was left out, and the
first batch is refused with one line naming it. The integrations hand the trainer the batches
of ``lakemix.loader.trainers.TrainedBatches``, so the loader's caller is lakemix's own code.
A ``MixLoader`` given as a dataset (the Trainer's ``train_dataset``, or wrapped in a
``DataLoader``) is refused when its length is asked.
"""

from __future__ import annotations

from types import FrameType

from lakemix.errors import LakemixError

# The packages whose frames drive a trainer's loop, and what to use instead.
INTEGRATIONS: dict[tuple[str, ...], str] = {
    ("lightning", "pytorch_lightning"): (
        "a MixLoader given straight to Lightning's Trainer skips a batch at every resume (it "
        "fetches one ahead and saves rank 0's state only): give Trainer(callbacks=[callback]) "
        "a lakemix.loader.lightning.MixLoaderCallback(loader) and pass callback.dataloader to "
        "Trainer.fit"
    ),
    ("transformers", "accelerate"): (
        "a MixLoader given straight to the Hugging Face Trainer cannot resume (the Trainer "
        "skips batches of a torch DataLoader only): use "
        "lakemix.loader.hf.MixTrainer(model=..., args=..., loader=loader)"
    ),
}


# What ``len(loader)`` says: a Trainer's ``train_dataset`` and a ``torch`` ``DataLoader`` ask first.
NOT_A_DATASET = (
    "a MixLoader is not a dataset: it yields whole batches, and an epoch's length is known only "
    "once it is read; iterate it, or give it to a trainer through its integration "
    "(lakemix.loader.hf.MixTrainer(model=..., args=..., loader=loader), "
    "lakemix.loader.lightning.MixLoaderCallback)"
)


class TrainerIntegrationError(LakemixError, TypeError):
    """A trainer iterates a ``MixLoader`` itself instead of lakemix's integration for it."""


def check_driver(frame: FrameType | None) -> None:
    """Refuse when ``frame`` (the one asking for the first batch) is a trainer's own code.

    Raises:
        TrainerIntegrationError: It is Lightning's, or the Hugging Face Trainer's (or
            accelerate's); the message names the integration to use.
    """
    module = "" if frame is None else str(frame.f_globals.get("__name__", ""))
    package = module.partition(".")[0]
    for packages, advice in INTEGRATIONS.items():
        if package in packages:
            raise TrainerIntegrationError(advice)
