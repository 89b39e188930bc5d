"""Jobs (one choice of one request) and lanes (one llama.cpp sequence), shared by admission and the tick."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from superfluid.engine.decoding.call_repeats import RepeatGuard
from superfluid.engine.decoding.grammar import GrammarState, LazyGrammar
from superfluid.engine.decoding.lane_sampler import LaneSampler
from superfluid.engine.decoding.sampling import EffectiveSampling
from superfluid.engine.decoding.text_output import TextOutput
from superfluid.engine.decoding.tool_readers import CallReader
from superfluid.engine.models.adapter_types import AdapterSet
from superfluid.engine.scheduling.checkpoints import Checkpoint
from superfluid.engine.scheduling.speculation import DraftIndex, SpecStats
from superfluid.engine.types import EngineEvent, TextDelta, TokenLogprob

# Scheduling classes (x-superfluid-qos), most urgent first. Lower rank is admitted and prefilled first.
QOS_RANK = {"interactive": 0, "completion": 0, "agent": 1, "background": 2}
QOS_CLASSES = tuple(QOS_RANK)

_arrivals = itertools.count()


class EventSink:
    """Hands events from the engine thread to one request's stream on its event loop.

    A deque and at most one waiting future, rather than an asyncio.Queue: one reader, one writer (the loop's
    thread), and a token's trip through the loop is the hot path of every stream. With keep-alives on, a timer on
    the loop adds ``None`` whenever no event came for the interval — one timer per stream, not a timeout per event.

    ``direct``, when given, takes every TextDelta on the engine thread itself, in order, instead of the loop: a
    stream that can write its bytes without the loop (see superfluid.http.direct) skips the loop's wake-up per
    token. It must be quick, must not raise, and must not touch the loop. Other events still go to the loop.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, direct: Callable[[TextDelta], None] | None = None) -> None:
        self.loop = loop
        self.direct = direct
        self._events: deque[EngineEvent | None] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._last = time.monotonic()
        self._interval: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def deliver(self, event: EngineEvent) -> None:
        """On the loop's thread: hand the event to the stream."""
        self._last = time.monotonic()
        self._push(event)

    def hand_over(self, delta: TextDelta) -> None:
        """On the engine thread, for a sink with ``direct``: the delta goes out without the loop."""
        self._last = time.monotonic()
        assert self.direct is not None
        self.direct(delta)

    def _push(self, item: EngineEvent | None) -> None:
        self._events.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> EngineEvent | None:
        """The next event, or None for a keep-alive; waits while there is none."""
        while not self._events:
            self._waiter = self.loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._events.popleft()

    def keep_alive(self, interval_s: float) -> None:
        """Start adding ``None`` to the stream after every quiet ``interval_s`` (on the loop's thread)."""
        self._interval = interval_s
        self._last = time.monotonic()
        self._timer = self.loop.call_later(interval_s, self._check)

    def _check(self) -> None:
        assert self._interval is not None
        quiet = time.monotonic() - self._last
        if quiet >= self._interval:
            self._last = time.monotonic()
            self._push(None)
            quiet = 0.0
        self._timer = self.loop.call_later(self._interval - quiet, self._check)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class Outbox:
    """Events the engine thread produced, handed to their event loops in one call per loop and batch.

    The engine flushes just before it releases the GIL for a long llama.cpp call (a decode) or before it goes
    idle. A loop woken any earlier would take the GIL while the engine thread still needs it between two decodes,
    and every token would wait for the loop's work on the previous one.
    """

    def __init__(self) -> None:
        self._items: list[tuple[EventSink, EngineEvent]] = []

    def post(self, sink: EventSink, event: EngineEvent) -> None:
        self._items.append((sink, event))

    def flush(self) -> None:
        if not self._items:
            return
        items, self._items = self._items, []
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[EventSink, EngineEvent]]] = {}
        for sink, event in items:
            by_loop.setdefault(sink.loop, []).append((sink, event))
        for loop, batch in by_loop.items():
            with contextlib.suppress(RuntimeError):  # a loop that is gone has nobody listening
                loop.call_soon_threadsafe(_deliver_all, batch)


def _deliver_all(batch: list[tuple[EventSink, EngineEvent]]) -> None:
    for sink, event in batch:
        sink.deliver(event)


@dataclass(eq=False)
class Job:
    """One choice of one request, from admission to its Finished event."""

    index: int
    prompt: tuple[int, ...]
    max_new_tokens: int
    sampling: EffectiveSampling
    output: TextOutput
    sink: EventSink
    ignore_eos: bool = False
    qos: str = "interactive"
    deadline: float | None = None
    """Monotonic time after which the reply is cut short (completion class)."""
    batch_invariant: bool = False
    """Decode in ticks of its own, from a cold lane, so results do not depend on other traffic."""
    after: Job | None = None
    """A sibling (same request, same prompt) whose prefill this job reuses instead of its own."""
    cancelled: bool = False
    queued: bool = False
    """Counted against the queue limit (from submit until admitted, cancelled or failed; the scheduler's lock)."""
    arrival: int = field(default_factory=lambda: next(_arrivals))
    created: float = field(default_factory=time.monotonic)
    """When the job was made (monotonic): the start of its time to first token."""
    grammar: GrammarState | None = None
    lazy_grammar: LazyGrammar | None = None
    """A grammar that engages once the reply writes its trigger."""
    lazy_state: GrammarState | None = None
    """The lazy grammar's matcher, built with the prompt (else built when the trigger appears)."""
    grammar_param: str | None = None
    """The request parameter behind the grammar (``response_format``, ``tools``...), named if it gives up."""
    calls: CallReader | None = None
    preserve: frozenset[int] = frozenset()
    """Control tokens written out as their text (a call format's markers), not dropped like other specials."""
    logprobs: int | None = None
    adapters: AdapterSet = ()
    """The LoRA adapters active when the request was queued; the job decodes under them to its end."""
    generation_prompt: int = 0
    """Tokens of the chat template's generation prompt at the prompt's end (0: none, or not a chat prompt): where
    a checkpoint of a rollback-free lane goes (checkpoints.branch_points)."""
    disk: Any = None
    """A prefix of the prompt read from the disk tier (kv_disk.Found, payload loaded), if it holds more of the
    prompt than the lanes did when the request was queued."""
    # engine-thread state
    raw_text: str = ""
    calls_made: int = 0
    repeats: RepeatGuard = field(default_factory=RepeatGuard)
    """Ends the reply at a call that repeats an earlier one (engine/decoding/call_repeats.py)."""
    pending_logprobs: list[TokenLogprob] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    branch_points: list[int] = field(default_factory=list)
    """Token counts at which the lane saves a checkpoint of its recurrent state (rollback-free models only)."""
    cached: int = 0
    restored: int = 0
    """Of ``cached``, the tokens loaded from the prefix cache's tiers."""
    restored_from: str = ""
    """Which tier gave ``restored`` back: ``ram`` or ``disk`` ("" when none did)."""
    from_checkpoint: bool = False
    """``cached`` ends at a checkpoint of recurrent state loaded back (checkpoints.py), not at a lane's end."""
    generated: int = 0
    reasoning_generated: int = 0
    """Of ``generated``, the tokens fed while the reasoning block was open (or that opened it)."""
    next_token: int | None = None
    sampler: LaneSampler | None = None
    lane: Lane | None = None
    finished: bool = False
    expired: bool = False
    spec: SpecStats = field(default_factory=SpecStats)
    spec_pause: int = 0
    drafts: DraftIndex = field(default_factory=DraftIndex)
    ttft_s: float | None = None
    last_token_at: float = 0.0

    @property
    def rank(self) -> int:
        return QOS_RANK.get(self.qos, 0)

    @property
    def prefilled(self) -> bool:
        """Its prompt is all in the KV cache (or it is already done)."""
        return self.finished or (self.lane is not None and not self.pending)


@dataclass(eq=False)
class Lane:
    seq: int
    ctx: Any
    """The llama_context this lane's sequence lives in."""
    memory: Any
    tokens: list[int] = field(default_factory=list)
    """Tokens whose keys and values are in the KV cache for this sequence, in order."""
    adapters: AdapterSet = ()
    """The LoRA adapters those keys and values were computed under: a prefix is reused under the same set only."""
    job: Job | None = None
    last_used: float = 0.0
    checkpoints: list[Checkpoint] = field(default_factory=list)
    """Saved recurrent states at earlier token counts, in token order (rollback-free models: checkpoints.py)."""


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
