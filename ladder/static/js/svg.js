/* Tradewinds replay viewer: a few helpers shared by the board drawers.
   Drawers register themselves in Tradewinds.drawers[game]; each is a function
   (frame, summary, ctx) -> <svg> element, drawing only from the frame's dicts
   (ctx: the seats' names, see words.js). A drawer may also carry
   describeEvent / describeAction (sentences), status (the line above the
   board), legend, panel (HTML under the board), pauseTitle and scoreUnit. */
"use strict";

window.Tradewinds = window.Tradewinds || { drawers: {} };

(function (TW) {
  const NS = "http://www.w3.org/2000/svg";

  /* One SVG element with attributes, appended to `parent` when given. */
  TW.el = function (tag, attrs, parent) {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) node.setAttribute(key, String(value));
    }
    if (parent) parent.appendChild(node);
    return node;
  };

  /* A text element; the text is set as text, never parsed as markup. */
  TW.text = function (parent, x, y, content, attrs) {
    const node = TW.el("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
    node.textContent = String(content);
    return node;
  };

  /* A tooltip for a shape (read by screen readers too). */
  TW.title = function (parent, content) {
    const node = TW.el("title", {}, parent);
    node.textContent = String(content);
    return node;
  };

  /* A board's root: the viewBox keeps the aspect ratio while CSS scales it to
     the frame's width; it never grows past its natural size on a big screen. */
  TW.svgRoot = function (width, height, label) {
    const svg = TW.el("svg", {
      xmlns: NS,
      viewBox: "0 0 " + width + " " + height,
      role: "img",
      "aria-label": label,
      "font-family": "system-ui, sans-serif",
      "font-size": 12,
    });
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    svg.style.maxWidth = width + "px";
    return svg;
  };

  /* Sets the height of a board once its panels are laid out (and of its background). */
  TW.setHeight = function (svg, height, background) {
    height = Math.ceil(height);
    const box = svg.viewBox.baseVal;
    svg.setAttribute("viewBox", "0 0 " + box.width + " " + height);
    if (background) background.setAttribute("height", height);
  };

  /* `content` cut into lines of at most `chars` characters, at spaces where it can:
     SVG text never wraps by itself, and a line past the edge would be cut off. */
  TW.wrap = function (content, chars) {
    const lines = [];
    let line = "";
    for (let word of String(content).split(" ")) {
      while (word.length > chars) {
        if (line) { lines.push(line); line = ""; }
        lines.push(word.slice(0, chars));
        word = word.slice(chars);
      }
      if (line && line.length + 1 + word.length > chars) { lines.push(line); line = ""; }
      line = line ? line + " " + word : word;
    }
    if (line || !lines.length) lines.push(line);
    return lines;
  };

  /* Wrapped text from (x, y), a line every `lead` units; returns the y of the last line. */
  TW.textLines = function (parent, x, y, content, chars, lead, attrs) {
    const lines = TW.wrap(content, chars);
    lines.forEach(function (line, i) { TW.text(parent, x, y + i * lead, line, attrs); });
    return y + (lines.length - 1) * lead;
  };

  /* How many characters of a sans-serif font of `size` fit in `width` units
     (an average glyph is a little over half an em wide, a bold one wider). */
  TW.charsIn = function (width, size, bold) {
    return Math.floor(width / (size * (bold ? 0.62 : 0.56)));
  };

  /* Colours of seats 0..4, readable on white and on the sea. */
  TW.SEAT_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"];
  TW.seatColour = function (seat) {
    return TW.SEAT_COLOURS[seat % TW.SEAT_COLOURS.length];
  };

  /* Width of `content` in a sans-serif font of `size` units, measured by the
     browser (a canvas never drawn), so labels can be placed before they exist. */
  let measure = null;
  TW.textWidth = function (content, size, bold) {
    if (!measure) measure = document.createElement("canvas").getContext("2d");
    measure.font = (bold ? "bold " : "") + "100px system-ui, sans-serif";
    return measure.measureText(String(content)).width * size / 100;
  };

  /* A small picture for a legend: an <svg> of `width` x `height` drawn by `draw(svg)`. */
  TW.icon = function (width, height, draw) {
    const svg = TW.el("svg", { xmlns: NS, viewBox: "0 0 " + width + " " + height, width: width, height: height,
      class: "icon", "aria-hidden": "true" });
    draw(svg);
    return svg;
  };

  /* Whether the board is phone-narrow, so a drawer may stack its panels. */
  TW.isNarrow = function () {
    const board = document.getElementById("board");
    return Boolean(board && board.clientWidth && board.clientWidth < 640);
  };

  /* The private part of seat `seat` in a frame state: a spectator's list entry,
     or the seat's own view (where the same keys sit at the top level). */
  TW.privateOf = function (state, seat) {
    if (state.private) return state.private[seat] || null;
    return state.seat === seat ? state : null;
  };
})(window.Tradewinds);
