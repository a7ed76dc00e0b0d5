// The guest's web page: one WebSocket to the host, which words every message for this seat.
// Plain script, no framework: real buttons, a polite and an assertive live region, the keyboard.
"use strict";
(function () {
  const VERSION = 1;
  const tokenKey = "voice-rang-seat:" + location.host;
  const body = document.body;
  const $ = (id) => document.getElementById(id);
  const news = $("news"), alertRegion = $("alert"), history = $("history"), board = $("board");
  const turnButton = $("turn"), autoSwitch = $("auto"), speechSwitch = $("speech"), verbosity = $("verbosity");
  const FATAL = ["version", "wrong_code", "wait", "full", "started", "unknown_token", "language", "flooding"];
  // Said at once (the assertive region): your turn, a match, a trick to your team, a court, the end.
  const URGENT_KINDS = ["your turn", "reveal match", "end", "trick ours", "court", "answer", "error"];
  let stopped = false, court = false, lastBoard = null, handShown = "", wasTurn = false;
  let socket = null, seat = -1, ended = false, retry = null, lastText = "", lastAt = 0;
  // How far this page was narrated: sent back when it takes its seat again, so a host taken up
  // again does not say again the reveals it makes a second time.
  let heardGame = -1, heardEvents = 0;

  function status(text) { $("status-line").textContent = text; }

  function speak(text, urgent) {
    if (!speechSwitch.checked || !("speechSynthesis" in window)) return;
    if (urgent) window.speechSynthesis.cancel();
    window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  }

  function announce(line) {
    const now = Date.now();
    // VoiceOver reads some announcements twice: an identical one within a moment is dropped.
    if (line.text === lastText && now - lastAt < 1000) return;
    lastText = line.text; lastAt = now;
    const urgent = URGENT_KINDS.includes(line.kind);
    const region = urgent ? alertRegion : news;
    const p = document.createElement("p");
    p.textContent = line.text;
    region.appendChild(p);
    while (region.childNodes.length > 3) region.removeChild(region.firstChild);
    const item = document.createElement("li");
    item.textContent = line.text;
    history.appendChild(item);
    history.scrollTop = history.scrollHeight;
    speak(line.text, urgent);
  }

  // The board is changed line by line, never rebuilt: a line that did not change keeps its node,
  // so a screen reader reading the board keeps its place and the page does not flash.
  function showBoard(lines) {
    lines.forEach((text, n) => {
      let item = board.children[n];
      if (!item) {
        item = document.createElement("li");
        board.appendChild(item);
      }
      if (item.textContent !== text) item.textContent = text;
    });
    while (board.children.length > lines.length) board.removeChild(board.lastChild);
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function connect(code) {
    const token = localStorage.getItem(tokenKey);
    const name = $("name").value || "";
    status(body.dataset.connecting);
    socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    socket.onopen = () => {
      const hello = { type: "hello", version: VERSION, name: name, narrate: true,
                      lang: document.documentElement.lang || "en", verbosity: verbosity.value };
      if (token) {
        hello.token = token;
        if (heardGame >= 0) { hello.heard_game = heardGame; hello.heard_events = heardEvents; }
      } else hello.code = code;
      socket.send(JSON.stringify(hello));
    };
    socket.onmessage = (event) => receive(JSON.parse(event.data));
    socket.onclose = () => {
      socket = null;
      turnButton.disabled = true;
      if (ended || stopped) return;
      if (localStorage.getItem(tokenKey)) {
        status(body.dataset.lost);
        retry = setTimeout(() => connect(null), 1000);
      }
    };
  }

  function receive(message) {
    switch (message.type) {
      case "welcome":
        seat = message.seat;
        court = message.game === "court-piece";
        $("rang-milanti").hidden = court;
        $("court").hidden = !court;
        localStorage.setItem(tokenKey, message.token);
        $("join").hidden = true;
        $("game").hidden = false;
        turnButton.disabled = false;
        autoSwitch.checked = false; // a new connection starts with auto-reveal off
        status("");
        break;
      case "narration":
        if (typeof message.game === "number") { heardGame = message.game; heardEvents = message.events; }
        for (const line of message.lines) announce(line);
        if (message.board.length) showBoard(message.board);
        break;
      case "private":
        if (message.seat !== seat) break; // never this seat's (the host never sends one)
        for (const line of message.lines) announce(line);
        if (message.board) showCourt(message.board);
        break;
      case "auto":
        if (seat >= 0) autoSwitch.checked = !!message.on[seat];
        break;
      case "bye":
        ended = true;
        // A host that ended mid-game may take it up again (host --resume): the seat is still ours.
        if (message.reason === "seat_taken") localStorage.removeItem(tokenKey);
        turnButton.disabled = true;
        break;
      case "error":
        if (message.code === "unknown_token") localStorage.removeItem(tokenKey);
        if (FATAL.includes(message.code)) {
          stopped = true;
          if (seat < 0) { $("join").hidden = false; $("game").hidden = true; }
          if (socket) socket.close();
        }
        break;
    }
  }

  // ----- Court Piece: the hand as buttons, a list per suit; the trick and the last trick as lists.

  function fillList(list, lines) {
    lines.forEach((text, n) => {
      let item = list.children[n];
      if (!item) { item = document.createElement("li"); list.appendChild(item); }
      if (item.textContent !== text) item.textContent = text;
    });
    while (list.children.length > lines.length) list.removeChild(list.lastChild);
  }

  function cardButtons() { return Array.from($("hand").querySelectorAll("button")); }

  function showCourt(state) {
    lastBoard = state;
    const shown = JSON.stringify(state.hand);
    if (shown !== handShown) {
      handShown = shown;
      const focused = document.activeElement && document.activeElement.dataset
        ? document.activeElement.dataset.code : null;
      const hand = $("hand");
      hand.textContent = "";
      for (const group of state.hand) {
        const heading = document.createElement("h3");
        heading.id = "suit-" + group.suit;
        heading.textContent = group.heading;
        const list = document.createElement("ul");
        list.setAttribute("aria-labelledby", heading.id);
        list.dataset.suit = group.suit;
        for (const card of group.cards) {
          const item = document.createElement("li");
          const button = document.createElement("button");
          button.type = "button";
          button.className = "card";
          button.dataset.code = card.code;
          button.dataset.playable = card.playable ? "1" : "";
          button.textContent = card.name;
          if (!card.playable) button.setAttribute("aria-disabled", "true");
          item.appendChild(button);
          list.appendChild(item);
        }
        hand.appendChild(heading);
        hand.appendChild(list);
      }
      if (focused) {
        const again = cardButtons().find((button) => button.dataset.code === focused);
        const first = cardButtons()[0];
        if (again) again.focus(); else if (first) first.focus();
      }
    }
    fillList($("trick"), state.trick);
    fillList($("last"), state.last);
    $("score-line").textContent = state.score;
    $("trumps-line").textContent = state.trumps;
    const choices = $("choices");
    choices.textContent = "";
    for (const choice of state.choices || []) {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      button.dataset.command = choice.code;
      button.textContent = choice.name;
      item.appendChild(button);
      choices.appendChild(item);
    }
    $("choices-part").hidden = !(state.choices || []).length;
    $("court").dataset.turn = state.turn ? "1" : "";
    // Your turn begins: the focus goes to the first card you may play (the terminal's cursor does
    // the same), unless you are in a form field.
    const active = document.activeElement;
    const elsewhere = active instanceof HTMLInputElement || active instanceof HTMLSelectElement;
    const begins = state.turn && !wasTurn;
    wasTurn = state.turn;
    if (begins && !elsewhere) {
      const target = choices.querySelector("button") ||
        cardButtons().find((button) => button.dataset.playable) || cardButtons()[0];
      if (target) target.focus();
    }
  }

  function say(text) { announce({ text: text, priority: 2, kind: "answer" }); }

  function playCard(button) {
    if (!button.dataset.playable) { say(button.textContent); return; }
    send({ type: "say", text: (lastBoard && lastBoard.face_down ? button.dataset.code + " face down"
                                                                 : "play " + button.dataset.code) });
  }

  $("hand").addEventListener("click", (event) => {
    const button = event.target.closest("button.card");
    if (button) playCard(button);
  });
  $("choices").addEventListener("click", (event) => {
    const button = event.target.closest("button.choice");
    if (button) send({ type: "say", text: button.dataset.command });
  });
  $("score").addEventListener("click", () => lastBoard && say(lastBoard.score));
  $("trumps").addEventListener("click", () => lastBoard && say(lastBoard.trumps));

  // Arrows through the hand as in the terminal: left and right card by card, up and down
  // between suits; p the score, u the trumps, t the trick, l the last trick.
  function courtKey(event) {
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return false;
    const cards = cardButtons();
    const at = cards.indexOf(target);
    const move = (to) => { if (cards[to]) cards[to].focus(); };
    const suitStart = (list) => list && list.querySelector("button");
    if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      if (at < 0) { move(0); return true; }
      move(Math.max(0, Math.min(cards.length - 1, at + (event.key === "ArrowRight" ? 1 : -1))));
      return true;
    }
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const lists = Array.from($("hand").querySelectorAll("ul"));
      const list = at < 0 ? null : target.closest("ul");
      let n = lists.indexOf(list);
      n = n < 0 ? 0 : Math.max(0, Math.min(lists.length - 1, n + (event.key === "ArrowDown" ? 1 : -1)));
      const first = suitStart(lists[n]);
      if (first) first.focus();
      return true;
    }
    if (!lastBoard || event.ctrlKey || event.altKey || event.metaKey) return false;
    const spoken = { p: lastBoard.score, u: lastBoard.trumps, t: lastBoard.trick.join("; "),
                     l: lastBoard.last.join("; ") }[event.key];
    if (spoken === undefined) return false;
    say(spoken || "-");
    return true;
  }

  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    stopped = false;
    connect($("code").value.trim());
  });
  turnButton.addEventListener("click", () => send({ type: "command", command: "turn" }));
  autoSwitch.addEventListener("change", () =>
    send({ type: "command", command: autoSwitch.checked ? "auto-reveal on" : "auto-reveal off" }));
  verbosity.addEventListener("change", () => send({ type: "settings", verbosity: verbosity.value }));
  document.addEventListener("keydown", (event) => {
    if (court) {
      if (!$("game").hidden && courtKey(event)) event.preventDefault();
      return;
    }
    const target = event.target;
    const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement ||
                   target instanceof HTMLButtonElement || target instanceof HTMLTextAreaElement;
    if (typing || $("game").hidden) return;
    if (event.key === " " || event.key === "Enter") {
      event.preventDefault();
      send({ type: "command", command: "turn" });
    }
  });

  const fromLink = new URLSearchParams(location.search).get("code");
  if (localStorage.getItem(tokenKey)) connect(null);
  else if (fromLink) { $("code").value = fromLink; connect(fromLink); }
})();
