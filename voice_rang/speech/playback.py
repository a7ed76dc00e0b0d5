"""Playback of the speech queue on one output device, with recovery when the device fails.

The play half of :class:`~voice_rang.speech.spoken.SpeechOutput`. ``speech-play`` is the only
thread that touches the audio stream: it plays the head of the queue buffer by buffer (the
message's cue first), checks for cancellation between writes, and keeps the stream topped up
with a little silence while idle so the device never falls asleep. Emits ``(True, t)`` and
``(False, t)`` to the activity listeners around every utterance. A device that stalls or errs
is reopened once; one that will not come back, or fails again within
:data:`RECOVERY_INTERVAL`, is reported once through ``on_failure``. ``speech-watchdog`` catches
a device that hangs inside a PortAudio call, where the play thread cannot look.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from ..messages import Priority
from .pcm import is_silent, trim_leading_silence, trim_trailing_silence
from .player import PlaybackError, Player, PlayerUnavailable
from .rendering import Rendering, Utterance

__all__ = ["OPENING_S", "PAUSE_BETWEEN", "RECOVERY_INTERVAL", "ActivityListener", "Playback"]

PAUSE_BETWEEN = 0.12
"""Silence between two queued messages so they do not run together (skipped for URGENT)."""
OPENING_S = 0.04
"""How much of a message's first sound is gathered before it is handed over in place of the idle
cushion (:meth:`Player.write`'s ``over_cushion``): twice the 20 ms cushion, so a play thread held
up after that first write still has sound queued ahead of the play position, as it had with the
cushion before the sound. The synthesizer makes it in a millisecond or two (its first buffer or
two); a message gathered slower than this is queued behind the cushion as before."""
RECOVERY_INTERVAL = 60.0
"""Seconds after reopening a failed device during which a second failure is final: a device
that keeps failing is lost, and speech that stops every few seconds is worse than text."""
_REOPEN_RETRY = 0.5

ActivityListener = Callable[[bool, float], None]


class Playback(Rendering):
    """The playback and watchdog threads' loops, on the state :class:`Rendering` declares."""

    _player: Player
    _listeners: list[ActivityListener]
    _spoken: list[str]
    _cues_played: list[tuple[str, float]]
    _audible_until: float
    _reopening_since: float
    _reopened_at: float | None
    _on_failure: Callable[[str], None] | None

    def _notify(self, active: bool, when: float) -> None:
        with self._cond:
            listeners = list(self._listeners)
        for listener in listeners:
            with contextlib.suppress(Exception):
                listener(active, when)

    def _end(self, utterance: Utterance, when: float) -> None:
        """Send the one ``(False, when)`` that every started utterance gets."""
        with self._cond:
            if not utterance.started or utterance.ended:
                return
            utterance.ended = True
        self._notify(False, when)

    def _play_loop(self) -> None:
        try:
            self._serve_queue()
        except PlaybackError as error:
            self._fail(str(error))
        except Exception as error:  # a bug must not take the game down with it
            self._fail(f"{type(error).__name__}: {error}")

    def _serve_queue(self) -> None:
        """Play the queue until closed or failed; raises :class:`PlaybackError` once the device
        cannot be reopened."""
        while True:
            with self._cond:
                if self._closed or self._failure is not None:
                    return
                utterance = self._queue.popleft() if self._queue else None
                self._current = utterance
                if utterance is None:
                    self._cond.notify_all()
            try:
                if utterance is None:
                    wait = self._player.keep_alive()
                    with self._cond:
                        if not self._queue and not self._closed:
                            self._cond.wait(wait)
                    continue
                self._pause_before(utterance)
                self._play(utterance)
            except PlaybackError:
                if not self._reopen(utterance):
                    raise

    def _reopen(self, interrupted: Utterance | None) -> bool:
        """Open the stream of a device that stalled or erred again; False if it is lost.

        Keeps trying for one stall period (a restarting sound server needs a moment), then gives
        up. ``interrupted``, the sentence the failure cut (if any), is queued again, whole, at
        the front. A second failure within :data:`RECOVERY_INTERVAL` of a reopen is final.
        """
        now = time.monotonic()
        if self._reopened_at is not None and now - self._reopened_at < RECOVERY_INTERVAL:
            return False
        with self._cond:
            if self._closed or self._failure is not None:
                return False
            self._reopening_since = now
            if interrupted is not None and not interrupted.cancelled:
                # Queued before the device is back, so waiting for speech to end waits for it
                # and stop() still drops it.
                self._queue.appendleft(self._utterance(interrupted.message, interrupted.key[0]))
        player = self._player
        deadline = now + player.stall_seconds
        while True:
            try:
                player.reopen()
                if player.warm_up(timeout=player.stall_seconds):
                    break
            except (PlayerUnavailable, PlaybackError):
                pass
            with self._cond:
                if self._closed or self._failure is not None or time.monotonic() >= deadline:
                    return False
            time.sleep(_REOPEN_RETRY)
        with self._cond:
            if self._closed or self._failure is not None:
                return False
            self._reopened_at = time.monotonic()
            self._cond.notify_all()
        return True

    def _pause_before(self, utterance: Utterance) -> None:
        if utterance.message.priority >= Priority.URGENT:
            return
        until = self._audible_until + PAUSE_BETWEEN
        while time.monotonic() < until and not utterance.cancelled and not self._closed:
            self._player.keep_alive()
            time.sleep(0.005)

    def _play(self, utterance: Utterance) -> None:
        started_at: float | None = None
        leading = True
        cue = utterance.cue
        held: list[bytes] = []  # silent chunks kept until sound follows: no trailing silence
        self._player.new_utterance()
        try:
            while True:
                if cue:
                    sound, cue = cue, b""
                    if utterance.cancelled or self._closed:
                        break
                    started_at = self._begin(utterance, cue=True)
                    # Only the idle cushion is queued (the message's first write): the cue
                    # replaces it, as the words of a message without a cue do below.
                    if not self._player.write(sound, lambda: utterance.cancelled or self._closed,
                                              over_cushion=len(sound) >= self._opening_bytes()):
                        break
                    continue
                chunk: bytes | None
                with self._cond:
                    while (
                        not utterance.chunks
                        and not utterance.rendered
                        and not utterance.cancelled
                        and not self._closed
                    ):
                        self._cond.wait(0.005)
                        if not utterance.chunks:
                            break
                    if utterance.cancelled or self._closed:
                        break
                    if not utterance.chunks:
                        if utterance.rendered:
                            break
                        chunk = None
                    else:
                        chunk = utterance.chunks.popleft()
                if chunk is None:
                    self._player.keep_alive()
                    continue
                over = False
                if leading:
                    chunk = trim_leading_silence(chunk)
                    if not chunk:
                        continue
                    leading = False
                    with self._cond:
                        self._spoken.append(" ".join(utterance.message.text.split()))
                    if not utterance.cue:
                        # Only the idle cushion is queued: the words may replace it (after a
                        # cue they follow it).
                        chunk = self._opening(utterance, chunk)
                        over = len(chunk) >= self._opening_bytes()
                elif is_silent(chunk):
                    held.append(chunk)
                    continue
                if started_at is None:
                    started_at = self._begin(utterance, cue=False)
                if held:
                    chunk, held = b"".join(held) + chunk, []
                if not self._player.write(chunk, lambda: utterance.cancelled or self._closed,
                                          over_cushion=over):
                    break
        finally:
            if utterance.cancelled or self._closed:
                self._player.discard()
            ended = time.monotonic() + self._player.queued_seconds()
            if started_at is not None and not utterance.cancelled:
                # Keep the cushion filled while the tail drains, so the end is real sound.
                try:
                    while (
                        time.monotonic() < ended and not utterance.cancelled and not self._closed
                    ):
                        self._player.keep_alive()
                        time.sleep(0.003)
                except PlaybackError:
                    pass  # the write loop's own error, or the next keep_alive, reports it
                ended = min(ended, time.monotonic())
            with self._cond:
                if started_at is not None:
                    self._audible_until = ended
                if self._current is utterance:
                    self._current = None
                self._cond.notify_all()
            self._end(utterance, ended)

    def _opening_bytes(self) -> int:
        return int(self._player.source_rate * OPENING_S) * 2

    def _opening(self, utterance: Utterance, chunk: bytes) -> bytes:
        """The message's first sound and what follows it, up to :data:`OPENING_S` of it, waiting
        at most that long for the synthesizer; a message that ends within it loses its trailing
        silence, as one played chunk by chunk does."""
        parts, size, want = [chunk], len(chunk), self._opening_bytes()
        deadline = time.monotonic() + OPENING_S
        with self._cond:
            while size < want and not utterance.cancelled and not self._closed:
                if utterance.chunks:
                    part = utterance.chunks.popleft()
                    parts.append(part)
                    size += len(part)
                elif utterance.rendered or time.monotonic() >= deadline:
                    break
                else:
                    self._cond.wait(0.002)
            whole = utterance.rendered and not utterance.chunks
        opening = b"".join(parts)
        return trim_trailing_silence(opening) if whole else opening

    def _begin(self, utterance: Utterance, *, cue: bool) -> float:
        """The utterance's first frame (its cue's, or its words' when it has none) is about to be
        handed over: say so to the activity listeners; returns when."""
        now = time.monotonic()
        with self._cond:
            if cue:
                self._cues_played.append((utterance.message.cue, now))
            utterance.started = True
        self._notify(True, now)
        return now

    def _watchdog(self) -> None:
        """Report a device that hangs *inside* a PortAudio call, where the playback thread's own
        stall check cannot run (seen with a frozen PulseAudio server)."""
        limit = self._player.stall_seconds + 1.0
        while True:
            with self._cond:
                if self._closed or self._failure is not None:
                    return
                self._cond.wait(0.5)
                if self._closed or self._failure is not None:
                    return
            progress = max(self._player.last_progress, self._reopening_since)
            if time.monotonic() - progress > limit:
                self._fail("the audio output stopped responding", close_player=False)
                return

    def _fail(self, detail: str, *, close_player: bool = True) -> None:
        with self._cond:
            if self._failure is not None or self._closed:
                return
            # What is wrong and how to check it; the game's own line says that play goes on.
            reason = f"The speaker was lost ({detail}); run voice-rang doctor to check it."
            self._failure = reason
            for waiting in self._queue:
                waiting.cancelled = True
            self._queue.clear()
            self._to_render.clear()
            stuck = self._current
            self._current = None
            self._cond.notify_all()
        if close_player:
            self._player.close()
        if stuck is not None:
            self._end(stuck, time.monotonic())
        callback = self._on_failure
        if callback is not None:
            with contextlib.suppress(Exception):
                callback(reason)
