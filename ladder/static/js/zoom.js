/* Tradewinds replay viewer: zoom and pan for a drawer that says it is
   `zoomable` (the Caravelas map). The state is where the view is centred
   (fractions of the whole board) and how far it is zoomed in; the drawer turns
   it into its viewBox (TW.zoomBox) and lays its labels out for that scale, so
   each change redraws the board. Buttons, keys (+ - 0, Shift+arrows), a drag,
   Ctrl+wheel (a touchpad's pinch) and a two-finger pinch drive it. */
"use strict";

window.Tradewinds = window.Tradewinds || { drawers: {} };

(function (TW) {
  const MAX_SCALE = 8;
  const STEP = 1.5; // one button press or key
  const PAN = 0.25; // of the view, per Shift+arrow

  /* [x, y, w, h] of a `width` x `height` board seen at `state` (null: the whole board). */
  TW.zoomBox = function (width, height, state) {
    if (!state || state.scale <= 1) return [0, 0, width, height];
    const w = width / state.scale;
    const h = height / state.scale;
    const x = Math.min(Math.max(state.cx * width - w / 2, 0), width - w);
    const y = Math.min(Math.max(state.cy * height - h / 2, 0), height - h);
    return [x, y, w, h];
  };

  function Zoom(viewer) {
    this.viewer = viewer;
    this.state = { scale: 1, cx: 0.5, cy: 0.5 };
    this.frame = 0;
    bind(viewer);
    this.show();
  }

  /* Zoom by `factor` keeping the point at (fx, fy) of the view (fractions) in place. */
  Zoom.prototype.by = function (factor, fx, fy) {
    const s = this.state;
    const scale = Math.min(MAX_SCALE, Math.max(1, s.scale * factor));
    const [x, y, w, h] = TW.zoomBox(1, 1, s);
    const px = x + (fx === undefined ? 0.5 : fx) * w;
    const py = y + (fy === undefined ? 0.5 : fy) * h;
    const nx = px - (fx === undefined ? 0.5 : fx) / scale;
    const ny = py - (fy === undefined ? 0.5 : fy) / scale;
    this.set(scale, nx + 0.5 / scale, ny + 0.5 / scale);
  };

  /* Move the view by (dx, dy), in fractions of the view. */
  Zoom.prototype.pan = function (dx, dy) {
    const s = this.state;
    this.set(s.scale, s.cx + dx / s.scale, s.cy + dy / s.scale);
  };

  Zoom.prototype.fit = function () { this.set(1, 0.5, 0.5); };

  Zoom.prototype.set = function (scale, cx, cy) {
    // Kept inside the board, so a pan past an edge does not pile up.
    const [x, y, w, h] = TW.zoomBox(1, 1, { scale: scale, cx: cx, cy: cy });
    this.state = { scale: scale, cx: x + w / 2, cy: y + h / 2 };
    this.show();
    const self = this;
    if (!this.frame) {
      this.frame = requestAnimationFrame(function () {
        self.frame = 0;
        self.viewer.redraw();
      });
    }
  };

  /* The buttons' states, the level shown, and whether a one-finger drag pans. */
  Zoom.prototype.show = function () {
    const $ = this.viewer.$;
    const scale = this.state.scale;
    if ($("zoom-in")) $("zoom-in").disabled = scale >= MAX_SCALE;
    if ($("zoom-out")) $("zoom-out").disabled = scale <= 1;
    if ($("zoom-fit")) $("zoom-fit").disabled = scale <= 1;
    if ($("zoom-level")) $("zoom-level").textContent = scale > 1 ? "×" + scale.toFixed(1) : "whole map";
    $("board").classList.toggle("zoomed", scale > 1);
  };

  /* A key for the zoom: + = in, - out, 0 whole map, Shift+arrows pan. True if used. */
  Zoom.prototype.key = function (event) {
    const pans = { ArrowLeft: [-PAN, 0], ArrowRight: [PAN, 0], ArrowUp: [0, -PAN], ArrowDown: [0, PAN] };
    if (event.shiftKey && pans[event.key]) {
      this.pan(pans[event.key][0], pans[event.key][1]);
      return true;
    }
    if (event.key === "+" || event.key === "=") this.by(STEP);
    else if (event.key === "-" || event.key === "_") this.by(1 / STEP);
    else if (event.key === "0") this.fit();
    else return false;
    return true;
  };

  /* Buttons, pointer and wheel listeners, bound once per viewer; they act on
     whichever Zoom the viewer holds (a newly opened replay gets a new one). */
  function bind(viewer) {
    if (viewer.zoomBound) return;
    viewer.zoomBound = true;
    const zoom = function () { return viewer.zoom; };
    const $ = viewer.$;
    const click = function (id, act) {
      const button = $(id);
      if (button) button.addEventListener("click", function () { if (zoom()) act(zoom()); });
    };
    click("zoom-in", function (z) { z.by(STEP); });
    click("zoom-out", function (z) { z.by(1 / STEP); });
    click("zoom-fit", function (z) { z.fit(); });

    const board = $("board");
    const pointers = new Map(); // pointerId -> [clientX, clientY]
    const SLOP = 5; // px a pointer moves before it drags: a tap on a target stays a click
    let start = null;
    const where = function (x, y) {
      const box = board.querySelector("svg").getBoundingClientRect();
      return { fx: (x - box.left) / box.width, fy: (y - box.top) / box.height, box: box };
    };
    board.addEventListener("pointerdown", function (event) {
      if (!zoom() || (event.pointerType === "mouse" && event.button !== 0)) return;
      pointers.set(event.pointerId, [event.clientX, event.clientY]);
      start = [event.clientX, event.clientY];
    });
    board.addEventListener("pointermove", function (event) {
      const z = zoom();
      const before = pointers.get(event.pointerId);
      if (!z || !before || !board.querySelector("svg")) return;
      if (!board.hasPointerCapture(event.pointerId)) {
        if (pointers.size === 1 && start
            && Math.hypot(event.clientX - start[0], event.clientY - start[1]) < SLOP) return;
        try { board.setPointerCapture(event.pointerId); } catch (error) { /* a synthetic pointer */ }
      }
      if (pointers.size === 1 && z.state.scale > 1) {
        // A drag pans: the map follows the pointer.
        const box = where(event.clientX, event.clientY).box;
        z.pan(-(event.clientX - before[0]) / box.width, -(event.clientY - before[1]) / box.height);
      } else if (pointers.size === 2) {
        // A pinch zooms about the fingers' midpoint by the change in their distance.
        const other = Array.from(pointers.entries()).find(function (e) { return e[0] !== event.pointerId; })[1];
        const was = Math.hypot(before[0] - other[0], before[1] - other[1]);
        const now = Math.hypot(event.clientX - other[0], event.clientY - other[1]);
        if (was > 0 && now > 0) {
          const mid = where((event.clientX + other[0]) / 2, (event.clientY + other[1]) / 2);
          z.by(now / was, mid.fx, mid.fy);
        }
      }
      pointers.set(event.pointerId, [event.clientX, event.clientY]);
    });
    const lift = function (event) { pointers.delete(event.pointerId); };
    board.addEventListener("pointerup", lift);
    board.addEventListener("pointercancel", lift);
    // Ctrl+wheel, and a touchpad's pinch (which the browser reports as one).
    board.addEventListener("wheel", function (event) {
      const z = zoom();
      if (!z || !event.ctrlKey || !board.querySelector("svg")) return;
      event.preventDefault();
      const at = where(event.clientX, event.clientY);
      z.by(Math.exp(-event.deltaY * 0.01), at.fx, at.fy);
    }, { passive: false });
  }

  TW.Zoom = Zoom;
})(window.Tradewinds);
