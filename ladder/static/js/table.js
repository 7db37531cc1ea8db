/* Tradewinds live table: the replay viewer's board, made playable. The page is drawn
   by the server; this keeps it live. It polls the fixed tables API (GET
   /api/v1/tables/<id>: every POLL_BOT ms while a bot thinks, POLL_FAST ms while
   another person is to move or the table waits, POLL_SLOW ms while it is this
   person's turn), draws the board from
   the seat's view (a spectator's is the public one) with the game's drawer, lists
   the legal actions as buttons worded by the drawer (labels of the replay's move
   list) and as places on the board to click (the drawer's `targets`), asks before a
   bid, and posts the move with the page's CSRF token. */
"use strict";

(function (TW) {
  const POLL_BOT = 150; // a bot is thinking: its answer is usually milliseconds away
  const POLL_FAST = 300; // another person is to move, or the table waits for its seats
  const POLL_SLOW = 2000; // this person's turn: only a resignation or a clock can change it
  const CONFIRM = { bid: true, promise: true }; // irreversible commitments: asked first
  const MAX_LOG = 300;
  const MAX_BUTTONS = 12; // more moves of one kind than this: a list to choose from

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* "bids 3 pesos" -> "Bid 3 pesos": a drawer's sentence about a move, as a command. */
  function imperative(parts) {
    const rest = parts.slice();
    if (rest.length && typeof rest[0] === "object") rest.shift(); // the mover's name
    if (typeof rest[0] === "string") {
      let text = rest[0].replace(/^[\s:]+/, "");
      text = text.replace(/^(\w+?)(sses|shes|ches|xes|s)\b/, function (_, stem, ending) {
        return stem + (ending === "s" ? "" : ending.slice(0, -2));
      });
      rest[0] = text.charAt(0).toUpperCase() + text.slice(1);
    }
    return rest;
  }

  function Table(root, data) {
    this.root = root;
    this.$ = function (id) { return document.getElementById(id); };
    this.api = root.dataset.apiUrl;
    this.logUrl = root.dataset.logUrl;
    this.csrf = root.dataset.csrf;
    this.board = data.board;
    this.logStep = -1;
    this.busy = false;
    this.timer = null;
    this.clockTimer = null;
    this.pendingAction = null;
    this.narrowed = null; // the legal actions a click on the board left to choose from
    this.targetActions = []; // per board target (data-target), the actions it stands for
    this.setTable(data.table);
  }

  /* The seats' names and the drawers' context, as the replay viewer builds them. */
  Table.prototype.context = function (table) {
    const labels = table.seats.map(function (s) {
      return s.player || (s.kind === "human" ? "open seat" : "seat " + s.seat);
    });
    this.summary = {
      game: table.game, players: table.players, seats: labels, board: this.board,
      finished: table.state === "over", steps: table.step, moves: [], pauses: [],
      perspectives: [], result: table.result || null,
    };
    const ctx = TW.context(this.summary);
    const mine = table.seat;
    if (mine !== null && mine !== undefined) {
      const name = ctx.name;
      ctx.name = function (seat) { return seat === mine ? name(seat) + " (you)" : name(seat); };
    }
    return ctx;
  };

  Table.prototype.setTable = function (table) {
    const first = !this.table;
    const before = this.table;
    this.table = table;
    this.received = performance.now();
    this.ctx = this.context(table);
    this.drawer = TW.drawers[table.game] || TW.drawers._fallback;
    if (first || before.step !== table.step || before.state !== table.state
        || JSON.stringify(before.legal) !== JSON.stringify(table.legal)) {
      this.narrowed = null;
      this.draw();
    }
    this.turn();
    if (table.state === "over" && before && before.state !== "over") {
      window.location.reload(); // the server draws the result, the replay link, Play again
      return;
    }
    if (first || before.step !== table.step) this.readLog();
  };

  Table.prototype.frame = function () {
    const t = this.table;
    const view = t.view || {};
    return {
      step: t.step, seat: null, action: null, stage: "final",
      to_move: t.to_move, events: view.events || [], state: view,
    };
  };

  Table.prototype.draw = function () {
    const frame = this.drawBoard();
    this.seats();
    this.recent(frame);
    this.actions();
  };

  /* The board alone, as for a zoom: the list of moves (and what is chosen in it) stays. */
  Table.prototype.redraw = function () {
    this.drawBoard();
    this.markTargets(this.legal());
  };

  Table.prototype.drawBoard = function () {
    const frame = this.frame();
    const board = this.$("board");
    this.ctx.state = frame.state;
    this.ctx.start = frame.state;
    this.ctx.zoom = this.zoom ? this.zoom.state : null;
    let svg;
    try {
      svg = this.drawer(frame, this.summary, this.ctx);
    } catch (error) {
      console.error("the " + this.table.game + " board could not be drawn:", error);
      svg = TW.drawers._fallback(frame, this.summary);
    }
    svg.setAttribute("data-step", String(frame.step));
    svg.setAttribute("data-game", this.table.game);
    board.replaceChildren(svg);
    const status = this.$("board-status");
    const parts = this.drawer.status ? this.drawer.status(frame, this.ctx) || [] : [];
    status.replaceChildren(TW.render(parts, this.ctx));
    status.hidden = !parts.length;
    const panel = this.$("board-panel");
    panel.replaceChildren(this.drawer.panel ? this.drawer.panel(frame, this.summary, this.ctx) : "");
    panel.hidden = !this.drawer.panel;
    return frame;
  };

  /* The seat list the server drew: who is to move, who was played out. */
  Table.prototype.seats = function () {
    const t = this.table;
    for (const item of this.root.querySelectorAll(".table-seats li")) {
      const seat = Number(item.dataset.seat);
      item.classList.toggle("to-move", t.to_move === seat);
    }
  };

  /* Whose turn, and the clock of the person to move (counting down here). */
  Table.prototype.turn = function () {
    const t = this.table;
    const words = this.$("turn-words");
    if (!words) return;
    const clock = this.$("clock");
    let parts;
    if (t.state === "waiting") parts = ["Waiting for every seat to be taken."];
    else if (t.state === "over") parts = ["The game is over."];
    else if (t.to_move === null || t.to_move === undefined) parts = ["Waiting for the table…"];
    else if (t.to_move === t.seat) parts = ["Your turn."];
    else {
      const seat = t.seats[t.to_move];
      parts = [this.ctx.seat(t.to_move), seat && seat.kind === "bot" ? " (bot) is thinking…" : " is to move."];
    }
    words.replaceChildren(TW.render(parts, this.ctx));
    this.root.classList.toggle("my-turn", t.state === "playing" && t.to_move === t.seat && t.seat !== null);
    clearInterval(this.clockTimer);
    const ticking = t.state === "playing" && typeof t.time_left_ms === "number"
      && (t.to_move === t.seat || t.seat === null);
    clock.hidden = !ticking;
    if (!ticking) return;
    const self = this;
    const show = function () {
      const left = Math.max(0, t.time_left_ms - (performance.now() - self.received));
      const seconds = Math.ceil(left / 1000);
      const text = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
      clock.textContent = (t.to_move === t.seat ? "Your time: " : "Time left: ") + text;
      clock.classList.toggle("low", left < 30000);
    };
    show();
    this.clockTimer = setInterval(show, 250);
  };

  /* "Since your last move": the events of the seat's view (the engine's own cut). */
  Table.prototype.recent = function (frame) {
    const list = this.$("recent");
    if (!list) return;
    list.replaceChildren();
    const events = frame.events;
    const self = this;
    events.forEach(function (event, i) {
      const item = el("li", "event");
      item.appendChild(TW.render(TW.eventWords(self.drawer, event, self.ctx, events, i), self.ctx));
      list.appendChild(item);
    });
    if (!events.length) list.appendChild(el("li", "muted", "Nothing yet."));
  };

  Table.prototype.legal = function () {
    const t = this.table;
    return t.state === "playing" && t.to_move === t.seat ? t.legal || [] : [];
  };

  /* The legal actions as buttons, grouped by kind (only those a click on the board
     left, when it left several); a bid asks for confirmation. */
  Table.prototype.actions = function () {
    const box = this.$("actions");
    if (!box) return;
    const legal = this.legal();
    box.hidden = !legal.length;
    this.hideConfirm();
    const list = this.$("action-list");
    const hadFocus = box.contains(document.activeElement);
    list.replaceChildren();
    this.markTargets(legal);
    if (!legal.length) return;
    const shown = this.narrowed || legal;
    const self = this;
    if (this.narrowed) {
      const note = el("div", "narrowed");
      note.appendChild(el("p", null, shown.length + " moves for what you picked on the board:"));
      const all = el("button", "show-all", "Show every move");
      all.type = "button";
      all.addEventListener("click", function () { self.narrowTo(null); });
      note.appendChild(all);
      list.appendChild(note);
    }
    const groups = new Map();
    for (const action of shown) {
      const kind = String(action.type || "move");
      if (!groups.has(kind)) groups.set(kind, []);
      groups.get(kind).push(action);
    }
    for (const [kind, actions] of groups) {
      const group = el("div", "action-group");
      group.setAttribute("role", "group");
      const heading = el("h3", "action-kind", kind.replace(/_/g, " ")
        + (actions.length > 1 ? " · " + actions.length + " choices" : ""));
      group.appendChild(heading);
      const buttons = el("div", "action-buttons");
      if (actions.length > MAX_BUTTONS) {
        buttons.appendChild(this.choiceList(kind, actions));
        group.appendChild(buttons);
        list.appendChild(group);
        continue;
      }
      for (const action of actions) {
        const words = this.words(action);
        const button = el("button", "action");
        button.type = "button";
        button.dataset.action = JSON.stringify(action);
        button.appendChild(TW.render(words, this.ctx));
        button.title = TW.plain(words, this.ctx);
        button.addEventListener("click", function () { self.choose(action, words); });
        buttons.appendChild(button);
      }
      group.appendChild(buttons);
      list.appendChild(group);
    }
    if (hadFocus || this.focusNext) {
      const first = list.querySelector(this.narrowed ? "button.action" : "button");
      if (first) first.focus({ preventScroll: true });
    }
    this.focusNext = false;
  };

  /* Many moves of one kind (a bid of 1 to 54 pesos): one list to choose from and a
     button, instead of a screenful of buttons. */
  Table.prototype.choiceList = function (kind, actions) {
    const self = this;
    const box = el("div", "action-choice");
    const select = el("select");
    select.setAttribute("aria-label", kind.replace(/_/g, " ") + ": choose one");
    actions.forEach(function (action, i) {
      const option = el("option", null, TW.plain(self.words(action), self.ctx));
      option.value = String(i);
      select.appendChild(option);
    });
    const button = el("button", "action choose", "Choose");
    button.type = "button";
    button.addEventListener("click", function () {
      const action = actions[Number(select.value)];
      self.choose(action, self.words(action));
    });
    box.append(select, button);
    return box;
  };

  Table.prototype.words = function (action) {
    return imperative(TW.actionWords(this.drawer, this.table.seat, action, this.ctx));
  };

  /* The places on the board that stand for legal actions (the drawer's `targets`,
     CSS selectors per action) become buttons: focusable, named by what they do, and
     highlighted. Only those standing for an action still in the list are marked. */
  Table.prototype.markTargets = function (legal) {
    const svg = this.$("board").querySelector("svg");
    this.targetActions = [];
    const hint = this.$("board-hint");
    if (!svg) return;
    for (const node of svg.querySelectorAll("[data-target]")) {
      node.classList.remove("target", "picked");
      for (const name of ["data-target", "tabindex", "role", "aria-label"]) node.removeAttribute(name);
      for (const hit of node.querySelectorAll(":scope > rect.hit")) hit.remove();
    }
    const found = new Map();
    if (legal.length && this.drawer.targets) {
      for (const action of this.narrowed || legal) {
        for (const selector of this.drawer.targets(action) || []) {
          for (const node of svg.querySelectorAll(selector)) {
            if (!found.has(node)) found.set(node, []);
            found.get(node).push(action);
          }
        }
      }
    }
    for (const [node, actions] of found) {
      const label = node.querySelector("title");
      const what = actions.length === 1
        ? TW.plain(this.words(actions[0]), this.ctx) : actions.length + " moves";
      node.setAttribute("data-target", String(this.targetActions.length));
      node.setAttribute("tabindex", "0");
      node.setAttribute("role", "button");
      node.setAttribute("aria-label", (label ? label.textContent + ": " : "") + what);
      node.classList.add("target");
      if (node.tagName.toLowerCase() === "g") {
        // A clear rectangle over the whole group: a click between its shapes counts too.
        const box = node.getBBox();
        const hit = TW.el("rect", { class: "hit", x: box.x - 3, y: box.y - 3, width: box.width + 6,
          height: box.height + 6, fill: "transparent" });
        node.insertBefore(hit, node.firstChild);
      }
      if (this.narrowed && actions.length === this.narrowed.length) node.classList.add("picked");
      this.targetActions.push(actions);
    }
    // Buttons inside an image are not announced: the board becomes a group while it has any.
    svg.setAttribute("role", found.size ? "group" : "img");
    // While there are targets, what is drawn over them (a fleet, a name) lets clicks through.
    svg.classList.toggle("choosing", found.size > 0);
    if (hint) hint.hidden = !found.size;
  };

  /* A click on a board target: its one action is chosen, or the list shows only the
     actions it shares with what was picked before (a card, then its island). */
  Table.prototype.pickTarget = function (node) {
    const actions = this.targetActions[Number(node.dataset.target)];
    if (!actions || this.busy) return;
    if (actions.length === 1) { this.choose(actions[0], this.words(actions[0])); return; }
    this.focusNext = true;
    this.narrowTo(actions);
  };

  Table.prototype.narrowTo = function (actions) {
    this.narrowed = actions;
    if (!actions) this.focusNext = true;
    this.actions();
  };

  Table.prototype.choose = function (action, words) {
    if (!CONFIRM[action.type]) { this.send(action); return; }
    this.pendingAction = action;
    const box = this.$("confirm");
    this.$("confirm-words").replaceChildren(
      TW.render(["Confirm: "].concat(words, [". This cannot be taken back."]), this.ctx));
    box.hidden = false;
    this.$("confirm-yes").focus();
  };

  Table.prototype.hideConfirm = function () {
    const box = this.$("confirm");
    if (box) box.hidden = true;
    this.pendingAction = null;
  };

  function readJson(response) {
    return response.json().catch(function () { return {}; }).then(function (body) {
      if (!response.ok) {
        const error = new Error(body.error || "the server answered " + response.status);
        error.status = response.status;
        throw error;
      }
      return body;
    });
  }

  Table.prototype.post = function (url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": this.csrf },
      body: JSON.stringify(body || {}),
    }).then(readJson);
  };

  Table.prototype.send = function (action) {
    const self = this;
    const error = this.$("move-error");
    error.hidden = true;
    this.hideConfirm();
    for (const button of this.$("action-list").querySelectorAll("button")) button.disabled = true;
    const note = this.$("action-list").querySelector(".narrowed");
    if (note) note.remove();
    this.narrowed = null;
    this.markTargets([]); // nothing on the board to click while the move is on its way
    this.busy = true;
    this.focusNext = true;
    this.post(this.api + "/move", { action: action }).then(function (table) {
      self.setTable(table);
    }).catch(function (problem) {
      error.textContent = "Not played: " + problem.message;
      error.hidden = false;
      self.actions();
    }).finally(function () {
      self.busy = false;
      self.schedule();
    });
  };

  Table.prototype.resign = function () {
    const self = this;
    this.post(this.api + "/resign").then(function (table) {
      self.setTable(table);
      self.$("resign-confirm").hidden = true;
      self.$("resign").hidden = true;
    }).catch(function (problem) {
      self.$("resign-words").textContent = "Could not resign: " + problem.message;
    });
  };

  /* The table's public events since the last read: the game log. */
  Table.prototype.readLog = function () {
    const list = this.$("game-log");
    if (!list || this.logging) return;
    this.logging = true;
    const self = this;
    fetch(this.logUrl + "?since=" + (this.logStep < 0 ? "" : this.logStep), {
      credentials: "same-origin", headers: { Accept: "application/json" },
    }).then(readJson).then(function (body) {
      const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
      const empty = list.querySelector(".muted");
      if (empty) empty.remove();
      body.events.forEach(function (event, i) {
        if (event.step <= self.logStep) return;
        const item = el("li", "event");
        item.dataset.step = String(event.step);
        item.appendChild(TW.render(TW.eventWords(self.drawer, event, self.ctx, body.events, i), self.ctx));
        list.appendChild(item);
      });
      while (list.children.length > MAX_LOG) list.removeChild(list.firstChild);
      if (!list.children.length) list.appendChild(el("li", "muted", "Nothing yet."));
      self.logStep = Math.max(self.logStep, body.step);
      if (atBottom) list.scrollTop = list.scrollHeight;
    }).catch(function () {}).finally(function () {
      self.logging = false;
      if (self.table.step > self.logStep) self.readLog();
    });
  };

  Table.prototype.poll = function () {
    const self = this;
    if (this.busy || document.hidden) { this.schedule(); return; }
    fetch(this.api, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(readJson)
      .then(function (table) { if (!self.busy) self.setTable(table); })
      .catch(function () {})
      .finally(function () { self.schedule(); });
  };

  Table.prototype.schedule = function () {
    clearTimeout(this.timer);
    const t = this.table;
    if (t.state === "over") return;
    const mine = t.state === "playing" && t.to_move === t.seat && t.seat !== null;
    const mover = t.state === "playing" && t.to_move !== null ? t.seats[t.to_move] : null;
    const wait = mine ? POLL_SLOW : mover && mover.kind === "bot" ? POLL_BOT : POLL_FAST;
    const self = this;
    this.timer = setTimeout(function () { self.poll(); }, wait);
  };

  Table.prototype.bind = function () {
    const self = this;
    const on = function (id, handler) {
      const node = self.$(id);
      if (node) node.addEventListener("click", handler);
    };
    on("confirm-yes", function () { if (self.pendingAction) self.send(self.pendingAction); });
    on("confirm-no", function () {
      self.hideConfirm();
      const first = self.$("action-list").querySelector("button");
      if (first) first.focus();
    });
    on("resign", function () {
      self.$("resign-confirm").hidden = false;
      self.$("resign-no").focus();
    });
    on("resign-no", function () { self.$("resign-confirm").hidden = true; self.$("resign").focus(); });
    on("resign-yes", function () { self.resign(); });
    const board = this.$("board");
    board.addEventListener("click", function (event) {
      const node = event.target.closest && event.target.closest("[data-target]");
      if (node && board.contains(node)) self.pickTarget(node);
    });
    board.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" && event.key !== " ") return;
      const node = event.target.closest && event.target.closest("[data-target]");
      if (!node) return;
      event.preventDefault();
      self.pickTarget(node);
    });
    if (this.drawer.zoomable && TW.Zoom && this.$("zoom-controls")) {
      this.zoom = new TW.Zoom(this);
      this.$("zoom-controls").hidden = false;
      board.classList.add("zoomable");
    }
    document.addEventListener("keydown", function (event) {
      const field = event.target.matches && event.target.matches("select, input, textarea, button");
      if (self.zoom && !field && self.zoom.key(event)) { event.preventDefault(); return; }
      if (event.key !== "Escape") return;
      if (self.narrowed) self.narrowTo(null);
      if (self.pendingAction) self.hideConfirm();
      const resign = self.$("resign-confirm");
      if (resign) resign.hidden = true;
    });
    for (const input of document.querySelectorAll(".invite-link")) {
      input.addEventListener("focus", function () { input.select(); });
    }
    document.addEventListener("visibilitychange", function () { if (!document.hidden) self.poll(); });
    let resizing = null;
    window.addEventListener("resize", function () {
      clearTimeout(resizing);
      resizing = setTimeout(function () { if (self.narrow !== TW.isNarrow()) { self.narrow = TW.isNarrow(); self.draw(); } }, 150);
    });
    this.narrow = TW.isNarrow();
  };

  document.addEventListener("DOMContentLoaded", function () {
    const root = document.getElementById("live-table");
    const data = document.getElementById("table-data");
    if (!root || !data) return;
    TW.table = new Table(root, JSON.parse(data.textContent));
    TW.table.bind();
    TW.table.schedule();
  });
})(window.Tradewinds);
