"""Court Piece on the web page, in a real browser (Debian's chromium, headless, by Playwright): four
people, the host, two ``join`` guests and the page, play a whole session; the page's hand is real
buttons a list per suit, and every frame its WebSocket receives holds only its own cards."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from court_piece_checker import check_file
from court_piece_wire import host_record, leaks
from test_net_court_piece import join, joined, start_host

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT_MS = 60_000


@pytest.fixture
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.fail("the web page tests need Debian's chromium: apt-get install chromium (scripts/dev setup)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


def test_four_people_a_host_two_join_guests_and_a_page_play_a_whole_session_of_court_piece(
        tmp_path: Path, browser: object) -> None:
    host, port = start_host(tmp_path, "--trump", "named", seed=7)
    guests = [join(tmp_path, port, "ann")]
    page = browser.new_page()  # type: ignore[attr-defined]
    frames: list[str] = []
    page.on("websocket", lambda socket: socket.on(
        "framereceived", lambda payload: frames.append(payload if isinstance(payload, str) else payload.decode())))
    disabled: list[str] = []
    headings: list[str] = []
    moved = False
    try:
        host.wait_for(joined(1), "ann")
        page.goto(f"http://127.0.0.1:{port}/?code=4719", wait_until="load")
        host.wait_for(joined(2), "the page")
        guests.append(join(tmp_path, port, "raj"))
        host.wait_for(joined(3), "raj")
        host.write("new game\nauto-play on\n", close=True)
        end = time.monotonic() + 60
        while host.popen.poll() is None and time.monotonic() < end:
            if page.locator('#court[data-turn="1"]').count() and page.locator("#choices button").count():
                page.locator("#choices button").first.focus()  # trumps to call: a suit
                page.keyboard.press("Enter")
                page.wait_for_timeout(100)
            elif page.locator('#court[data-turn="1"]').count():
                headings = page.locator("#hand h3").all_inner_texts() or headings
                disabled += page.locator('#hand button[aria-disabled="true"]').all_inner_texts()
                if not moved and page.locator("#hand button").count() > 1:
                    page.locator("#hand button").first.focus()
                    page.keyboard.press("ArrowRight")
                    second = page.locator("#hand button").nth(1).inner_text()
                    assert page.evaluate("document.activeElement.textContent") == second
                    moved = True
                    focused = page.locator("#hand button:not([aria-disabled])").first
                    if focused.count():
                        focused.focus()
                page.keyboard.press("Enter")
                page.wait_for_timeout(100)
            else:
                page.wait_for_timeout(50)
        assert host.popen.poll() is not None, ("\n".join(host.lines[-8:]) + "\n--\n"
                                               + "\n".join(guests[0].lines[-5:]) + "\n--\n"
                                               + "\n".join(guests[1].lines[-5:]) + "\n--\n"
                                               + page.locator("#history").inner_text()[-600:])
        assert host.finish() == 0, host.stderr()
        for guest in guests:
            assert guest.finish() == 0
        page.locator("#history li", has_text="Game over").first.wait_for(state="attached", timeout=WAIT_MS)
        history = page.locator("#history").inner_text()
        assert "You and " in history and " against " in history
        assert re.search(r"You (play|lead|trump)", history)
        page.keyboard.press("p")
        assert page.locator("#alert p", has_text="Score").count() >= 1
    finally:
        page.close()
        host.kill()
        for guest in guests:
            guest.kill()
    assert moved
    assert headings and all(re.fullmatch(r"\w+, \d+", heading) for heading in headings), headings
    assert all("can't play: " in name for name in disabled)
    assert check_file(tmp_path / "host.jsonl") == []
    assert leaks(frames, 2, host_record(tmp_path / "host.jsonl")) == []
