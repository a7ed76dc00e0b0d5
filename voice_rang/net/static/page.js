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
  let stopped = false;
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
    const urgent = line.kind === "your turn" || line.kind === "reveal match" || line.kind === "end";
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
