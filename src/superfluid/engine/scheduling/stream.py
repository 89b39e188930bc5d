"""GenerationStream: the async face of one request's jobs on the engine thread."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence

from superfluid.engine import request_scope
from superfluid.engine.scheduling.job import EventSink, Job
from superfluid.engine.types import (
    Admitted,
    ChoiceResult,
    EngineEvent,
    Failed,
    Finished,
    GenerationResult,
    TextDelta,
)
from superfluid.errors import ConstraintUnsatisfiable, EngineFailure, SuperfluidError

ClientEvent = TextDelta | Finished


def _failure(event: Failed) -> SuperfluidError:
    if event.constraint is not None:
        return ConstraintUnsatisfiable(event.message, param=event.constraint)
    return EngineFailure(event.message)


class Gathered:
    """The TextDeltas of a reply read whole, taken on the engine thread (an EventSink's ``direct``).

    A reply nobody reads before it ends need not wake the loop for each token: at a hundred lanes those wake-ups
    and the coroutine steps they run cost more than sampling. The list is read on the loop only after every
    choice's Finished event, which the engine posts after that choice's last delta.
    """

    def __init__(self) -> None:
        self.deltas: list[TextDelta] = []
        self.append = self.deltas.append


class GenerationStream:
    """Iterate for TextDelta and Finished events of every choice; a Failed event raises EngineFailure (or
    ConstraintUnsatisfiable when an output grammar gave up).

    Leaving the iteration early (a client that went away) cancels every unfinished choice.
    """

    def __init__(self, jobs: Sequence[Job], sink: EventSink, cancel: Callable[[Job], None],
                 prompt_tokens: int) -> None:
        self._jobs = list(jobs)
        self._sink = sink
        self._cancel = cancel
        self.prompt_tokens = prompt_tokens
        self.cached_tokens: int | None = None
        self.restored_tokens = 0
        """Of ``cached_tokens``, those loaded from the prefix cache's tiers (known once admitted)."""
        self.restored_from = ""
        """``ram`` or ``disk``: the tier ``restored_tokens`` came from ("" when none)."""
        self._open = {job.index for job in jobs}
        self._early: list[EngineEvent] = []
        self._scope = request_scope.current()
        if self._scope is not None:
            self._scope.prompt_tokens = prompt_tokens
        self.gathered: Gathered | None = None
        """Where the engine put the deltas, when the sink's ``direct`` gathers them for ``collect``."""

    @property
    def n(self) -> int:
        return len(self._jobs)

    async def admitted(self) -> int:
        """Wait until the first choice has a lane; returns its prompt tokens already cached."""
        while self.cached_tokens is None:
            event = await self._sink.get()
            if event is None:
                continue
            if isinstance(event, Admitted):
                self._admit(event)
            elif isinstance(event, Failed):
                self.cancel()
                raise _failure(event)
            else:
                self._early.append(event)
        return self.cached_tokens

    async def events(self) -> AsyncIterator[ClientEvent]:
        """Events until every choice finished."""
        async for event in self.timed_events(None):
            if event is not None:
                yield event

    async def timed_events(self, keepalive_s: float | None) -> AsyncIterator[ClientEvent | None]:
        """Events until every choice finished, and ``None`` after each quiet ``keepalive_s`` (if given)."""
        if keepalive_s is not None:
            self._sink.keep_alive(keepalive_s)
        try:
            while self._open:
                event = self._early.pop(0) if self._early else await self._sink.get()
                if event is None:
                    yield None
                    continue
                if isinstance(event, Admitted):
                    if self.cached_tokens is None:
                        self._admit(event)
                    continue
                if isinstance(event, Failed):
                    raise _failure(event)
                if isinstance(event, Finished):
                    self._open.discard(event.index)
                    self._account(event)
                yield event
        finally:
            self._sink.stop()
            self.cancel()

    def _admit(self, event: Admitted) -> None:
        self.cached_tokens = event.cached_tokens
        self.restored_tokens = event.restored_tokens
        self.restored_from = event.restored_from
        if self._scope is not None:  # known now, so a request cut before it finishes still logs it
            self._scope.cached_tokens = event.cached_tokens

    def _account_cut(self) -> None:
        """A request ended before its choices finished (the client left): what they did still reaches the log."""
        scope = self._scope
        if scope is None:
            return
        for job in self._jobs:
            if job.index in self._open:
                scope.completion_tokens += job.generated
                if job.ttft_s is not None and (scope.ttft_s is None or job.ttft_s < scope.ttft_s):
                    scope.ttft_s = job.ttft_s

    def _account(self, event: Finished) -> None:
        """The request's figures for the access log (see request_scope)."""
        scope = self._scope
        if scope is None:
            return
        scope.cached_tokens = event.usage.cached_tokens if event.index == 0 else scope.cached_tokens
        scope.completion_tokens += event.usage.completion_tokens
        if event.ttft_s is not None and (scope.ttft_s is None or event.ttft_s < scope.ttft_s):
            scope.ttft_s = event.ttft_s

    def cancel(self) -> None:
        self._account_cut()
        for job in self._jobs:
            if job.index in self._open:
                self._cancel(job)
        self._open.clear()

    async def collect(self, *, deltas: bool = False) -> GenerationResult:
        """The whole reply, every choice folded (text, reasoning, log probabilities, tool calls); with ``deltas``
        each choice keeps its deltas in order too, for a renderer that builds its reply from them."""
        choices = {job.index: ChoiceResult(index=job.index) for job in self._jobs}
        texts: dict[int, list[TextDelta]] = {index: [] for index in choices}
        async for event in self.events():
            if isinstance(event, TextDelta):
                texts[event.index].append(event)
            else:
                choice = choices[event.index]
                choice.finish_reason = event.finish_reason
                choice.usage = event.usage
                choice.expired = event.expired
                choice.spec = event.spec
                choice.stop_sequence = event.stop_sequence
        if self.gathered is not None:  # every choice has finished: the engine handed over its last delta
            for delta in self.gathered.deltas:
                texts[delta.index].append(delta)
        for index, pieces in texts.items():
            _fold(choices[index], pieces)
            if deltas:
                choices[index].deltas = pieces
        ordered = [choices[i] for i in sorted(choices)]
        completion = sum(c.usage.completion_tokens for c in ordered if c.usage)
        cached = self.cached_tokens or 0
        return GenerationResult(choices=ordered, prompt_tokens=self.prompt_tokens,
                                completion_tokens=completion, cached_tokens=cached)


def _fold(choice: ChoiceResult, deltas: list[TextDelta]) -> None:
    """A choice's deltas, in order, into its whole text, reasoning, log probabilities and tool calls."""
    choice.content += "".join(delta.content for delta in deltas)
    choice.reasoning += "".join(delta.reasoning for delta in deltas)
    for delta in deltas:
        choice.logprobs.extend(delta.logprobs)
        for call in delta.tool_calls:
            if call.name is not None:
                choice.tool_calls.append({"id": call.id, "name": call.name, "arguments": ""})
            if choice.tool_calls:
                choice.tool_calls[-1]["arguments"] += call.arguments
