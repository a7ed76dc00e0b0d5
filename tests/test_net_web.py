"""The web page a guest plays from, in a real browser: Debian's chromium, headless, by Playwright."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from net_game import Process, joined, start_guest, start_host
from rules_checker import check_file

from voice_rang.games.rang_milanti import Card, Revealed
from voice_rang.games.rang_milanti.narration import RangMilantiNarrator

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


def reveals(log: Path) -> list[dict[str, object]]:
    return [event for event in map(json.loads, log.read_text().splitlines()) if event["event"] == "reveal"]


def sentence(event: dict[str, object]) -> str:
    """The words the narration uses for that reveal, as guest 1 hears them."""
    narrator = RangMilantiNarrator.load("en", seats=2, listener=1)
    under = event["under"]
    revealed = Revealed(int(event["n"]), int(event["seat"]), Card(str(event["card"])),  # type: ignore[call-overload]
                        None if under is None else Card(str(under)), bool(event["match"]), int(event["moved"]),  # type: ignore[call-overload]
                        tuple(event["stacks"]), tuple(event["collected"]), int(event["pile"]))  # type: ignore[arg-type, call-overload]
    return narrator.event(revealed)[0].text


def test_the_page_turns_the_guests_card_announces_it_and_a_reload_turns_auto_reveal_off(
        tmp_path: Path, browser: object) -> None:
    host, port = start_host(tmp_path, 2, "--beat", "0.2", seed=8)
    page = browser.new_page()  # type: ignore[attr-defined]
    try:
        page.goto(f"http://127.0.0.1:{port}/?code=4719", wait_until="load")
        host.wait_line(r"Guest 1 joined the table\.")
        turn = page.get_by_role("button", name="Turn my card")
        turn.wait_for(timeout=WAIT_MS)
        host.write("start\n")
        host.wait_line(r"^Your turn")
        host.write("turn\n")  # the host's own card; then it is the guest's turn, said assertively
        page.locator("#alert p", has_text="Your turn").last.wait_for(state="attached", timeout=WAIT_MS)
        before = len(reveals(tmp_path / "host.jsonl"))
        turn.click()
        host.wait_for(lambda _: len(reveals(tmp_path / "host.jsonl")) > before, "the guest's reveal")
        mine = next(event for event in reveals(tmp_path / "host.jsonl") if event["seat"] == 1)
        said = sentence(mine)
        assert said.startswith("You turned")
        region = "#alert" if mine["match"] else "#news"
        page.locator(f"{region} p", has_text=said).wait_for(state="attached", timeout=WAIT_MS)
        assert said in page.locator("#history").inner_text()
        # The accessibility tree: the named button, the switch, the board as a list of lines.
        tree = page.locator("main").aria_snapshot()
        assert 'button "Turn my card"' in tree
        assert re.search(r'switch "Auto-reveal: turn my cards by themselves"', tree), tree
        board = page.locator("#board").aria_snapshot()
        assert f"Reveal {mine['n']} of 5,000." in board or "Reveal" in board
        assert "You: stack" in board and "The host: stack" in board
        # Auto-reveal on, then a reload: the seat comes back with it off, as on the rules page.
        auto = page.get_by_role("switch", name=re.compile("Auto-reveal"))
        auto.check()
        host.wait_line(r"Auto-reveal on for guest 1")
        page.reload(wait_until="load")
        page.get_by_role("button", name="Turn my card").wait_for(timeout=WAIT_MS)
        host.wait_line(r"Guest 1 is back at the table\.")
        assert not page.get_by_role("switch", name=re.compile("Auto-reveal")).is_checked()
        # Off at the host too: when the turn comes round, the page is asked to turn the card.
        host.write("turn\n")
        page.locator("#alert p", has_text="Your turn").last.wait_for(state="attached", timeout=WAIT_MS)
        # The keyboard: space anywhere on the page turns the card.
        count = len([e for e in reveals(tmp_path / "host.jsonl") if e["seat"] == 1])
        page.evaluate("document.activeElement && document.activeElement.blur()")
        page.keyboard.press("Space")
        host.wait_for(lambda _: len([e for e in reveals(tmp_path / "host.jsonl") if e["seat"] == 1]) > count,
                      "the guest's card turned by the space key")
    finally:
        page.close()
        host.kill()


def test_the_board_changes_line_by_line_so_a_screen_reader_keeps_its_place(
        tmp_path: Path, browser: object) -> None:
    """A reveal changes some lines of the board; the others keep their nodes. Rebuilt at every
    message, the list flashed at the deal and threw a screen reader reading it back to its top."""
    host, port = start_host(tmp_path, 2, "--beat", "0.2", seed=8)
    page = browser.new_page()  # type: ignore[attr-defined]
    try:
        page.goto(f"http://127.0.0.1:{port}/?code=4719", wait_until="load")
        host.wait_line(r"Guest 1 joined the table\.")
        turn = page.get_by_role("button", name="Turn my card")
        turn.wait_for(timeout=WAIT_MS)
        host.write("start\n")
        host.wait_line(r"^Your turn")
        host.write("turn\n")
        page.locator("#alert p", has_text="Your turn").last.wait_for(state="attached", timeout=WAIT_MS)
        page.locator("#board li", has_text="Reveal").wait_for(state="attached", timeout=WAIT_MS)
        before = page.evaluate("""() => Array.from(document.querySelectorAll('#board li'), (li, n) => {
            li.dataset.seen = String(n); return li.textContent; })""")
        turn.click()
        page.wait_for_function("(before) => Array.from(document.querySelectorAll('#board li'), "
                               "li => li.textContent).join('|') !== before.join('|')", arg=before,
                               timeout=WAIT_MS)
        after = page.evaluate("""() => Array.from(document.querySelectorAll('#board li'),
            li => [li.dataset.seen ?? null, li.textContent])""")
    finally:
        page.close()
        host.kill()
    assert len(after) == len(before), (before, after)
    assert [seen for seen, _ in after] == [str(n) for n in range(len(before))], after  # the same nodes
    changed = [n for n, (_, text) in enumerate(after) if text != before[n]]
    assert changed and len(changed) < len(before), (before, after)


def test_three_people_at_three_devices_a_host_a_join_guest_and_a_page_play_to_the_end(
        tmp_path: Path, browser: object) -> None:
    host, port = start_host(tmp_path, 3, seed=11)
    guest = start_guest(tmp_path, port, "bo")
    page = browser.new_page()  # type: ignore[attr-defined]
    try:
        host.wait_for(joined(1), "the join guest")
        page.goto(f"http://127.0.0.1:{port}/", wait_until="load")
        page.get_by_label("Join code").fill("4719")
        page.get_by_label("Your name (optional)").fill("ann")
        page.get_by_role("button", name="Join").click()
        host.wait_for(joined(2), "the page's guest")
        page.get_by_role("button", name="Turn my card").wait_for(timeout=WAIT_MS)
        host.write("start\n")
        page.locator("#history li").first.wait_for(state="attached", timeout=WAIT_MS)
        page.get_by_role("switch", name=re.compile("Auto-reveal")).check()
        host.wait_line(r"Auto-reveal on for guest 2")
        host.write("auto-reveal on\n", close=True)
        assert host.finish() == 0, host.stderr()
        assert guest.finish() == 0, guest.stderr()
        page.locator("#history li", has_text="The host ended the table.").wait_for(state="attached",
                                                                                  timeout=WAIT_MS)
        history = page.locator("#history").inner_text()
        ending = next(line for line in host.lines if line.startswith("Game over"))
        assert ending.split(":")[0] in history  # the page heard the end, in its own words
        assert "You turned" in history and "The host turned" in history
        assert page.locator("#alert p", has_text="Game over").count() == 1
    finally:
        page.close()
        host.kill()
        guest.kill()
    report = check_file(tmp_path / "bo.jsonl")
    assert report.ok, report.violations


def switch_auto_on(page: Any, host: Process) -> None:
    """Flip guest 1's auto-reveal switch on the page; wait until the host has it on and the page
    shows it. The deal or a seat taken back publishes every seat's switch, and that message may
    cross the click: the page shows the host's word, and the host's last word is "on"."""
    page.get_by_role("switch", name=re.compile("Auto-reveal")).click()
    host.wait_line(r"Auto-reveal on for guest 1")
    page.wait_for_function("document.getElementById('auto').checked", timeout=WAIT_MS)


def test_a_page_back_at_a_host_killed_and_resumed_hears_each_reveal_once(tmp_path: Path, browser: object) -> None:
    """The host is killed with ``kill -9`` while every seat turns by itself and taken up again
    from its save, a moment behind what the page heard: the page takes its seat back by itself,
    and no reveal is said to it twice."""
    from test_host_resume import SEATS, SEED, resume_host, saved_at_least, wait_until

    host, port = start_host(tmp_path, SEATS, "--grace", "30", seed=SEED)
    page = browser.new_page()  # type: ignore[attr-defined]
    processes = [host]
    save = tmp_path / "host-state" / "voice-rang" / "host.json"
    try:
        page.goto(f"http://127.0.0.1:{port}/?code=4719", wait_until="load")
        host.wait_line(r"Guest 1 joined the table\.")
        page.get_by_role("button", name="Turn my card").wait_for(timeout=WAIT_MS)
        host.write("start\nauto-reveal on\n")
        auto = page.get_by_role("switch", name=re.compile("Auto-reveal"))
        switch_auto_on(page, host)
        wait_until(saved_at_least(save, 150), "150 reveals saved")
        host.kill()
        again = resume_host(tmp_path, "--grace", "30")
        processes.append(again)
        again.wait_line(r"^Resumed game 1 at reveal \d+: ")
        again.wait_line(r"^Guest 1 is back at the table\.")
        page.locator("#history li", has_text="You are guest 1").nth(1).wait_for(state="attached", timeout=WAIT_MS)
        assert not auto.is_checked()  # auto-reveal is off again after a resume, for every seat
        switch_auto_on(page, again)
        again.write("auto-reveal on\n", close=True)
        assert again.finish() == 0, again.stderr()
        page.locator("#history li", has_text="The host ended the table.").wait_for(state="attached",
                                                                                  timeout=WAIT_MS)
        history = page.locator("#history li").all_inner_texts()
    finally:
        page.close()
        for process in processes:
            process.kill()
    said = [int(m.group(1).replace(",", "")) for line in history
            if (m := re.search(r"Reveal ([\d,]+) of 5,000\.", line))]
    assert len(said) >= 150
    assert len(said) == len(set(said)), sorted(n for n in set(said) if said.count(n) > 1)
