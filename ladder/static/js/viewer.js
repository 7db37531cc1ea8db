/* Tradewinds replay viewer core: controls, move list, seat views, keyboard and
   fetching frames in chunks. Every state shown comes from the server, which
   rebuilds it with the game engine; nothing here knows the rules.

   A position is a step and a stage: "final" (the state after the step's move)
   or "pause" (for a move that ends a Manila voyage or a Meuterer round: the
   board as it was settled, before the same move cleared it). Stepping and
   playing pass through a pause; the slider, the move list and Home / End land
   on a step's final stage. */
"use strict";

window.Tradewinds = window.Tradewinds || { drawers: {} };

(function (TW) {
  const CHUNK = 200;
  // How long playing holds a voyage's or round's end: several ticks, at least this.
  const PAUSE_HOLD_MS = 1200;
  const HASH_WAIT_MS = 300;

  /* Where summaries and frames come from: GET for a stored match, POST of the
     file for one the user opened (see open-replay.js). */
  TW.matchSource = function (root) {
    const getJson = function (url) {
      return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(readJson);
    };
    return {
      summary: function () { return getJson(root.dataset.summaryUrl); },
      frames: function (view, start, count) {
        const query = new URLSearchParams({ view: view, start: start, count: count });
        return getJson(root.dataset.framesUrl + "?" + query.toString());
      },
    };
  };

  TW.uploadSource = function (root, blob, filename) {
    const post = function (url, fields) {
      const form = new FormData();
      form.append("csrf_token", root.dataset.csrf);
      for (const [key, value] of Object.entries(fields || {})) form.append(key, String(value));
      form.append("file", blob, filename);
      return fetch(url, {
        method: "POST",
        body: form,
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": root.dataset.csrf },
      }).then(readJson);
    };
    return {
      summary: function () { return post(root.dataset.summaryUrl); },
      frames: function (view, start, count) {
        return post(root.dataset.framesUrl, { view: view, start: start, count: count });
      },
    };
  };

  function readJson(response) {
    return response.json().catch(function () { return {}; }).then(function (body) {
      if (!response.ok) {
        throw new Error(body.error || "the server answered " + response.status);
      }
      return body;
    });
  }

  function Viewer(root, source) {
    this.root = root;
    this.source = source;
    this.$ = function (id) { return root.querySelector("#" + id); };
    this.step = 0;
    this.stage = "final";
    this.summary = null;
    this.view = "spectator";
    this.cache = new Map(); // "view:step" -> frame
    this.pending = new Map(); // "view:chunkStart" -> promise
    this.timer = null;
    this.playing = false;
    this.drawn = -1;
  }

  Viewer.prototype.start = function () {
    const self = this;
    this.status("Loading the replay…");
    return this.source.summary().then(function (summary) {
      self.summary = summary;
      self.ctx = TW.context(summary);
      self.drawer = TW.drawers[summary.game] || TW.drawers._fallback;
      self.pauses = new Map((summary.pauses || []).map(function (step, i) { return [step, i + 1]; }));
      const wanted = self.fromHash();
      self.view = wanted.view;
      self.buildControls();
      // The first frame's state names what the moves refer to (Meuterer's islands, say).
      return self.frame(0).then(function (first) {
        self.ctx.start = first ? first.state : null;
        return self.begin(wanted.step, wanted.stage);
      });
    }).catch(function (error) {
      self.status("Cannot show this replay: " + error.message, true);
      throw error;
    });
  };

  /* Once the summary and the first frame are in: the move list, legend, zoom, keys. */
  Viewer.prototype.begin = function (step, stage) {
    this.buildMoves();
    TW.panels.legend(this);
    this.zoom = this.drawer.zoomable ? new TW.Zoom(this) : null;
    this.$("zoom-controls").hidden = !this.zoom;
    this.$("board").classList.toggle("zoomable", Boolean(this.zoom));
    this.root.classList.toggle("has-zoom", Boolean(this.zoom));
    this.bindKeys();
    this.status("");
    return this.goTo(step, stage);
  };

  /* The position a link names: /matches/7#step=40&view=1 (and &stage=pause at a
     voyage's or round's end). Anything else there is ignored: step 0, the first view. */
  Viewer.prototype.fromHash = function () {
    const wanted = new URLSearchParams(window.location.hash.slice(1));
    const perspectives = this.summary.perspectives;
    const step = /^\d+$/.test(wanted.get("step") || "") ? Number(wanted.get("step")) : 0;
    const ok = step <= this.summary.steps;
    return {
      step: ok ? step : 0,
      stage: ok && wanted.get("stage") === "pause" ? "pause" : "final",
      view: perspectives.indexOf(wanted.get("view")) >= 0 ? wanted.get("view") : perspectives[0],
    };
  };

  /* Keep the position in the address, so it can be shared: replaced, not a history
     entry per step, and at most every HASH_WAIT_MS while playing (browsers limit how
     often a page may do it). A file opened from disk has no address to share. */
  Viewer.prototype.rememberPosition = function () {
    if (this.root.dataset.upload || this.hashTimer) return;
    const self = this;
    this.hashTimer = setTimeout(function () {
      self.hashTimer = null;
      const query = new URLSearchParams({ step: self.step, view: self.view });
      if (self.stage === "pause") query.set("stage", "pause");
      // The start as everyone sees it needs no hash: a page just opened keeps its
      // address, and an anchor of its own (#stderr-seat-1) stays.
      const plain = !self.step && self.stage === "final" && self.view === self.summary.perspectives[0];
      const had = new URLSearchParams(window.location.hash.slice(1));
      if (plain && !had.has("step") && !had.has("view")) return;
      const address = window.location.pathname + window.location.search;
      history.replaceState(history.state, "", plain ? address : "#" + query.toString());
    }, HASH_WAIT_MS);
  };

  Viewer.prototype.status = function (message, isError) {
    const line = this.$("viewer-status");
    line.textContent = message;
    line.classList.toggle("error", Boolean(isError));
    line.hidden = !message;
  };

  /* "End of voyage 3" for a step whose move ends one, else "". */
  Viewer.prototype.pauseTitle = function (step) {
    const ordinal = this.pauses.get(step);
    if (!ordinal) return "";
    return this.drawer.pauseTitle ? this.drawer.pauseTitle(ordinal) : "End of part " + ordinal;
  };

  Viewer.prototype.buildControls = function () {
    const self = this;
    const summary = this.summary;
    const select = this.$("seat-view");
    select.textContent = "";
    for (const value of summary.perspectives) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = value === "spectator"
        ? "Spectator (everything)"
        : "Seat " + value + ": " + this.ctx.name(Number(value));
      select.appendChild(option);
    }
    select.value = this.view;
    const slider = this.$("step-slider");
    slider.max = String(summary.steps);
    slider.value = "0";
    if (this.bound) return;
    this.bound = true;
    select.addEventListener("change", function () {
      self.view = select.value;
      self.drawn = -1;
      self.goTo(self.step, self.stage);
    });
    slider.addEventListener("input", function () { self.goTo(Number(slider.value)); });
    this.$("to-start").addEventListener("click", function () { self.pause(); self.goTo(0); });
    this.$("to-end").addEventListener("click", function () { self.pause(); self.goTo(self.summary.steps); });
    this.$("step-back").addEventListener("click", function () { self.pause(); self.back(); });
    this.$("step-forward").addEventListener("click", function () { self.pause(); self.forward(); });
    this.$("play-pause").addEventListener("click", function () { self.toggle(); });
    this.$("speed").addEventListener("change", function () {
      if (self.playing) { self.pause(); self.play(); }
    });
  };

  /* One item per move (its sentence, who played it, its time), and a mark after
     each move that ends a voyage or round, which opens that pause. */
  Viewer.prototype.buildMoves = function () {
    const self = this;
    const list = this.$("move-list");
    list.textContent = "";
    this.moveItems = [null];
    this.pauseItems = new Map();
    const fragment = document.createDocumentFragment();
    for (const move of this.summary.moves) {
      const item = document.createElement("li");
      item.className = "move";
      item.dataset.step = String(move.step);
      item.value = move.step;
      const what = document.createElement("span");
      what.className = "move-action";
      what.appendChild(TW.render(TW.actionWords(this.drawer, move.seat, move.action, this.ctx), this.ctx));
      item.appendChild(what);
      const took = moveTime(this.summary, move);
      item.title = "Step " + move.step + ": seat " + move.seat + " (" + this.ctx.label(move.seat) + ")"
        + (took ? ", " + took : "");
      if (took) {
        const time = document.createElement("span");
        time.className = "move-time" + (move.ms == null ? " move-fallback" : "");
        time.textContent = took;
        item.append(time);
      }
      fragment.appendChild(item);
      this.moveItems.push(item);
      const title = this.pauseTitle(move.step);
      if (title) {
        const mark = document.createElement("li");
        mark.className = "pause-mark";
        mark.dataset.step = String(move.step);
        mark.dataset.stage = "pause";
        mark.textContent = title;
        mark.title = title + ": the board before it is cleared";
        fragment.appendChild(mark);
        this.pauseItems.set(move.step, mark);
      }
    }
    list.appendChild(fragment);
    if (this.listBound) return;
    this.listBound = true;
    list.addEventListener("click", function (event) {
      const item = event.target.closest("li");
      if (!item) return;
      self.pause();
      self.goTo(Number(item.dataset.step), item.dataset.stage || "final");
    });
  };

  /* "0.8 ms wall · 0.6 ms CPU": how long a move took (wall clock, and the bot's
     own CPU where the worker could measure it); "" for replays without times.
     No-break spaces keep each figure whole when a narrow list wraps it. */
  function moveTime(summary, move) {
    if (!summary.timed) return "";
    if (move.ms == null) return "fallback move";
    let text = TW.formatMs(move.ms) + "\u00a0wall";
    if (move.cpu_ms != null) text += " · " + TW.formatMs(move.cpu_ms) + "\u00a0CPU";
    return text;
  }

  TW.formatMs = function (ms) {
    if (ms >= 1000) return (ms / 1000).toFixed(2) + "\u00a0s";
    const shown = ms >= 10 ? Math.round(ms) : ms.toFixed(ms >= 1 ? 1 : 2);
    return shown + "\u00a0ms";
  };

  Viewer.prototype.bindKeys = function () {
    if (this.keysBound) return;
    this.keysBound = true;
    const self = this;
    const native = function (target) {
      // Let sliders and selects use arrows and Home/End themselves.
      return target.matches && target.matches("input[type=range], select, input[type=text]");
    };
    this.root.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || !self.summary) return;
      const key = event.key;
      if (key === " " || key === "Spacebar") {
        if (event.target.matches && event.target.matches("select, input")) return;
        event.preventDefault(); // no page scroll, no click of a focused button
        self.toggle();
        return;
      }
      if (native(event.target)) return;
      if (self.zoom && self.zoom.key(event)) {
        event.preventDefault();
        return;
      }
      const moves = {
        ArrowLeft: function () { self.back(); },
        ArrowRight: function () { self.forward(); },
        Home: function () { self.goTo(0); },
        End: function () { self.goTo(self.summary.steps); },
      };
      if (moves[key] && !event.shiftKey) {
        event.preventDefault();
        self.pause();
        moves[key]();
      }
    });
    this.root.addEventListener("keyup", function (event) {
      if ((event.key === " " || event.key === "Spacebar") && event.target.matches
          && event.target.matches("button")) {
        event.preventDefault();
      }
    });
  };

  /* One position on: a pause's final stage, or the next step (its pause first). */
  Viewer.prototype.forward = function () {
    if (this.stage === "pause") return this.goTo(this.step, "final");
    const next = this.step + 1;
    return this.goTo(next, this.pauses.has(next) ? "pause" : "final");
  };

  Viewer.prototype.back = function () {
    if (this.stage === "final" && this.pauses.has(this.step)) return this.goTo(this.step, "pause");
    return this.goTo(this.step - 1, "final");
  };

  Viewer.prototype.atEnd = function () {
    return this.step >= this.summary.steps && this.stage === "final";
  };

  /* The frame of `step` in the current view, fetching its chunk when missing. */
  Viewer.prototype.frame = function (step) {
    const view = this.view;
    const key = view + ":" + step;
    if (this.cache.has(key)) return Promise.resolve(this.cache.get(key));
    const first = Math.floor(step / CHUNK) * CHUNK;
    const chunkKey = view + ":" + first;
    const self = this;
    if (!this.pending.has(chunkKey)) {
      const promise = this.source.frames(view, first, CHUNK).then(function (body) {
        for (const frame of body.frames) self.cache.set(view + ":" + frame.step, frame);
      }).finally(function () { self.pending.delete(chunkKey); });
      this.pending.set(chunkKey, promise);
    }
    return this.pending.get(chunkKey).then(function () { return self.cache.get(key); });
  };

  Viewer.prototype.goTo = function (step, stage) {
    if (!this.summary) return Promise.resolve();
    const target = Math.max(0, Math.min(this.summary.steps, step));
    const wanted = stage === "pause" && this.pauses.has(target) ? "pause" : "final";
    this.step = target;
    this.stage = wanted;
    this.updatePosition();
    const view = this.view;
    const self = this;
    return this.frame(target).then(function (frame) {
      if (self.step !== target || self.stage !== wanted || self.view !== view || !frame) return; // overtaken
      self.draw(frame);
      self.prefetch(target);
    }).catch(function (error) {
      self.pause();
      self.status("Cannot load step " + target + ": " + error.message, true);
    });
  };

  Viewer.prototype.prefetch = function (step) {
    const next = (Math.floor(step / CHUNK) + 1) * CHUNK;
    if (this.playing && next <= this.summary.steps && step > next - CHUNK / 4) {
      this.frame(next).catch(function () {});
    }
  };

  Viewer.prototype.updatePosition = function () {
    const steps = this.summary.steps;
    const pausing = this.stage === "pause";
    this.$("step-slider").value = String(this.step);
    this.rememberPosition();
    this.$("step-label").textContent = "step " + this.step + " / " + steps
      + (pausing ? " · " + this.pauseTitle(this.step).toLowerCase() : "");
    const move = this.step > 0 ? this.summary.moves[this.step - 1] : null;
    const took = move ? moveTime(this.summary, move) : "";
    // Whose move it was, by the name the rest of the viewer gives that seat.
    const stepTime = this.$("step-time");
    stepTime.textContent = took ? this.ctx.name(move.seat) + ": " + took : "";
    stepTime.title = took ? "seat " + move.seat + ": " + this.ctx.label(move.seat) : "";
    const list = this.$("move-list");
    const old = list.querySelector("[aria-current]");
    if (old) old.removeAttribute("aria-current");
    const item = pausing ? this.pauseItems.get(this.step) : this.moveItems[this.step];
    if (item) {
      item.setAttribute("aria-current", "step");
      const top = item.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - item.offsetHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
    } else {
      list.scrollTop = 0;
    }
    const focused = document.activeElement;
    this.$("step-back").disabled = this.step === 0;
    this.$("to-start").disabled = this.step === 0;
    this.$("step-forward").disabled = this.atEnd();
    this.$("to-end").disabled = this.atEnd();
    // A button that just became disabled drops keyboard focus to the page body,
    // where the arrow keys no longer reach the viewer: keep focus on the board.
    if (focused && focused.disabled && this.root.contains(focused)) this.$("board").focus();
  };

  /* The frame as its stage shows it: at a pause, the settled board, the events
     logged until then, and nobody on move. */
  function staged(frame, stage) {
    if (stage !== "pause" || !frame.pause) return Object.assign({}, frame, { stage: "final" });
    return Object.assign({}, frame, {
      stage: "pause",
      state: frame.pause.state,
      events: frame.events.slice(0, frame.pause.events),
      to_move: null,
    });
  }

  Viewer.prototype.draw = function (frame) {
    const game = this.summary.game;
    this.narrow = TW.isNarrow();
    this.width = this.$("board").clientWidth;
    this.shown = frame;
    const shown = staged(frame, this.stage);
    this.ctx.zoom = this.zoom ? this.zoom.state : null;
    this.ctx.state = shown.state;
    let svg;
    try {
      svg = this.drawer(shown, this.summary, this.ctx);
    } catch (error) {
      svg = TW.drawers._fallback(shown, this.summary);
      this.status("This board could not be drawn (" + error.message + "); showing the raw state.", true);
    }
    svg.setAttribute("data-step", String(frame.step));
    svg.setAttribute("data-stage", shown.stage);
    svg.setAttribute("data-game", game);
    svg.setAttribute("data-view", this.view); // goTo drops a frame whose view was left
    this.$("board").replaceChildren(svg);
    TW.panels.update(this, shown, frame);
    this.drawn = frame.step;
  };

  /* Draw the shown frame again (a zoom, a resize), keeping the position. */
  Viewer.prototype.redraw = function () {
    if (this.shown && this.shown.step === this.step) this.draw(this.shown);
  };

  Viewer.prototype.toggle = function () {
    if (this.playing) this.pause();
    else this.play();
  };

  Viewer.prototype.play = function () {
    if (this.playing || !this.summary) return;
    if (this.atEnd()) this.goTo(0);
    this.playing = true;
    const button = this.$("play-pause");
    button.textContent = "Pause";
    button.setAttribute("aria-label", "Pause");
    button.setAttribute("aria-pressed", "true");
    const self = this;
    const tick = function () {
      if (!self.playing) return;
      if (self.atEnd()) { self.pause(); return; }
      const delay = 1000 / Number(self.$("speed").value || 5);
      const started = performance.now();
      self.forward().then(function () {
        if (!self.playing) return;
        // A voyage's or round's end stays on the board long enough to be read.
        const hold = self.stage === "pause" ? Math.max(4 * delay, PAUSE_HOLD_MS) : delay;
        self.timer = setTimeout(tick, Math.max(0, hold - (performance.now() - started)));
      });
    };
    this.timer = setTimeout(tick, 0);
  };

  Viewer.prototype.pause = function () {
    this.playing = false;
    clearTimeout(this.timer);
    const button = this.$("play-pause");
    button.textContent = "Play";
    button.setAttribute("aria-label", "Play");
    button.setAttribute("aria-pressed", "false");
  };

  /* For a game without a drawer: the state as text, so nothing is hidden. */
  TW.drawers._fallback = function (frame, summary) {
    const lines = JSON.stringify(frame.state, null, 1).split("\n").slice(0, 60);
    const svg = TW.svgRoot(800, 20 + lines.length * 14, summary.game + " state");
    TW.el("rect", { width: 800, height: 20 + lines.length * 14, fill: "#f4f6f8" }, svg);
    lines.forEach(function (line, i) {
      TW.text(svg, 8, 18 + i * 14, line, { "font-family": "monospace", "xml:space": "preserve" });
    });
    return svg;
  };

  TW.Viewer = Viewer;

  document.addEventListener("DOMContentLoaded", function () {
    const root = document.getElementById("replay-viewer");
    if (!root || root.dataset.upload) return; // open-replay.js starts it once a file is chosen
    TW.viewer = new Viewer(root, TW.matchSource(root));
    TW.viewer.start().catch(function () {});
  });

  // Drawers pick a phone or a wide layout from the board's width: a phone turned
  // sideways (or a resized window) crossing that line gets the board redrawn; a
  // zoomable map is redrawn on any width change, its labels being sized in pixels.
  let resizing = null;
  window.addEventListener("resize", function () {
    const viewer = TW.viewer;
    if (!viewer || !viewer.shown) return;
    clearTimeout(resizing);
    resizing = setTimeout(function () {
      const width = viewer.$("board").clientWidth;
      if (viewer.narrow !== TW.isNarrow() || (viewer.zoom && width !== viewer.width)) viewer.redraw();
    }, 100);
  });
})(window.Tradewinds);
