/* Caravelas board drawer: the house map (drawn on the server by
   engine/caravelas/svg.py and sent once with the summary), with each seat's
   fleet, discoveries, cubes left at each trading place, the Jerónimos
   monastery and the scores on top. */
"use strict";

(function (TW) {
  let mapCache = null; // [svg text, parsed <svg>]

  function parsedMap(board) {
    if (!mapCache || mapCache[0] !== board.svg) {
      const doc = new DOMParser().parseFromString(board.svg, "image/svg+xml");
      mapCache = [board.svg, doc.documentElement];
    }
    return mapCache[1];
  }

  TW.drawers.caravelas = function (frame, summary) {
    const st = frame.state;
    const board = summary.board;
    const map = parsedMap(board);
    const width = Number(map.getAttribute("width"));
    const mapHeight = Number(map.getAttribute("height"));
    const n = summary.players;
    // On a phone the whole map is shrunk to a third: its marks grow and the panel
    // under it uses type large enough to read at that scale, wrapped to the width.
    const narrow = TW.isNarrow();
    const grow = narrow ? 2.8 : 1;
    const panel = 80 + n * 70;
    const svg = TW.svgRoot(width, mapHeight + panel, "Caravelas board at step " + frame.step);
    // A mark drawn around the place at (x, y) inside `box` [left, top, right, bottom],
    // enlarged there on a phone and nudged back onto the map near its edges.
    const mark = function (x, y, box, attrs) {
      const g = TW.el("g", attrs, svg);
      if (grow === 1) return g;
      const edge = function (lo, hi, at, limit) {
        const low = at + (lo - at) * grow;
        const high = at + (hi - at) * grow;
        return low < 2 ? 2 - low : high > limit - 2 ? limit - 2 - high : 0;
      };
      const dx = edge(box[0], box[2], x, width);
      const dy = edge(box[1], box[3], y, mapHeight);
      g.setAttribute("transform", "translate(" + (x + dx) + " " + (y + dy) + ") scale(" + grow + ") translate("
        + -x + " " + -y + ")");
      return g;
    };

    // The map itself, moved into one group (the board holds a single <svg>).
    const base = TW.el("g", { class: "map" }, svg);
    for (const child of Array.from(map.childNodes)) {
      if (child.nodeType === 1) base.appendChild(document.importNode(child, true));
    }
    const where = board.where;

    // Cubes still waiting at each trading place.
    for (const [colour, place] of Object.entries(board.cube_places)) {
      const at = where[place];
      if (!at) continue;
      const left = st.cubes[colour];
      // Right of the place, or left of it where an enlarged tag would pass the edge.
      const tx = at[0] + 26 * grow > width - 2 ? at[0] - 26 : at[0] + 12;
      const tag = mark(at[0], at[1], [tx, at[1] - 13, tx + 14, at[1]], { class: "cube-count" });
      TW.el("rect", { x: tx, y: at[1] - 13, width: 14, height: 13, rx: 2,
        fill: left ? board.cube_fill[colour] : "#ccc", stroke: "#000" }, tag);
      TW.text(tag, tx + 7, at[1] - 3, left, { "text-anchor": "middle", "font-size": 10,
        fill: ["white", "yellow", "pink"].indexOf(colour) >= 0 ? "#000" : "#fff" });
      TW.title(tag, left + " " + colour + " cubes left at " + (board.names[place] || place));
    }

    // Discoveries: a ring in the discoverer's colour.
    st.discovered.forEach(function (places, s) {
      places.forEach(function (place) {
        const at = where[place];
        if (at) TW.el("circle", { cx: at[0], cy: at[1], r: (10 + s * 2.5) * Math.sqrt(grow), fill: "none",
          stroke: TW.seatColour(s), "stroke-width": 2 * Math.sqrt(grow) }, svg);
      });
    });

    // Fleets: one boat per seat, fanned out when they share a circle.
    const crowd = {};
    st.fleets.forEach(function (place, s) {
      const at = where[place];
      if (!at) return;
      const k = crowd[place] = (crowd[place] || 0) + 1;
      const x = at[0] - 20 + (k - 1) * 22;
      const y = at[1] + 24;
      const g = mark(at[0], at[1], [x - 13, y - 24, x + 13, y + 6], { class: "fleet", "data-seat": s });
      TW.el("path", { d: "M" + (x - 13) + "," + (y - 6) + " h26 l-6,12 h-14 z", fill: TW.seatColour(s), stroke: "#000", "stroke-width": 1.5 }, g);
      TW.el("path", { d: "M" + x + "," + (y - 6) + " v-18 l12,12 z", fill: "#fff", stroke: "#000" }, g);
      TW.text(g, x, y + 4, s, { "text-anchor": "middle", "font-size": 9, fill: "#fff", "font-weight": "bold" });
      TW.title(g, "Seat " + TW.seatName(summary, s) + " fleet at " + (board.names[place] || place));
    });

    // Panel under the map: round, Jerónimos, and one row per seat.
    const size = narrow ? { title: 32, line: 30, hand: 28, cube: 30 } : { title: 19, line: 18, hand: 16, cube: 16 };
    const chars = function (left, font, bold) { return TW.charsIn(width - left - 12, font, bold); };
    const sheet = TW.el("rect", { x: 0, y: mapHeight, width: width, height: panel, fill: "#fbf8ef" }, svg);
    const who = st.seat === null ? "spectator" : "seat " + st.seat;
    let y = TW.textLines(svg, 12, mapHeight + (narrow ? 44 : 26), "Round " + st.round + " · " + st.phase + " · seat " + st.turn + " on move, "
      + st.cards_played + " cards played" + (st.end_triggered ? " · end triggered" : "")
      + " · Jerónimos " + st.jeronimos + " / " + st.jeronimos_size
      + " · movement deck " + st.movement_deck + " · discovery pile " + st.discovery_pile
      + " · viewing as " + who, chars(12, size.title, true), size.title * 1.25, { "font-size": size.title, "font-weight": "bold" });
    for (let s = 0; s < n; s++) {
      y += s === 0 ? (narrow ? 56 : 38) : (narrow ? 64 : 46);
      const own = TW.privateOf(st, s);
      TW.el("rect", { x: 10, y: y - size.line * 0.85, width: size.line * 0.9, height: size.line * 0.9, fill: TW.seatColour(s), rx: 2 }, svg);
      const left = narrow ? 48 : 32;
      y = TW.textLines(svg, left, y, TW.seatName(summary, s) + ": " + st.scores[s] + " points · at "
        + (board.names[st.fleets[s]] || st.fleets[s]) + " · discovered " + st.discovered[s].length
        + (st.sunk[s].length ? " · sunk caravels " + st.sunk[s].join(", ") : ""),
      chars(left, size.line, true), size.line * 1.25,
      { "font-size": size.line, "font-weight": st.turn === s && st.phase !== "over" ? "bold" : null });
      const cube = size.cube;
      st.cargo[s].forEach(function (colour, k) {
        TW.el("rect", { x: left + k * (cube + 4), y: y + cube * 0.6, width: cube, height: cube, fill: board.cube_fill[colour] || "#999", stroke: "#000" }, svg);
      });
      const counts = st.discovery_counts[s];
      let secret = "discovery cards: " + counts.green + " green, " + counts.yellow + " yellow";
      let hand = "movement cards: " + st.movement_counts[s];
      if (own && own.movement) {
        hand = "movement " + (own.movement.join(" ") || "none");
        secret = "discovery " + (own.discovery_cards.map(function (p) { return board.names[p] || p; }).join(", ") || "none")
          + (own.drawn && own.drawn.length ? " · drawn " + own.drawn.join(", ") : "");
      }
      if (narrow) {
        // Cargo on its own row, then the hand on as many lines as it needs.
        if (st.cargo[s].length) y += cube + 8;
        y = TW.textLines(svg, left, y + size.hand * 1.3, hand + " · " + secret, chars(left, size.hand), size.hand * 1.25,
          { "font-size": size.hand, fill: "#234" });
      } else {
        const x = left + Math.max(1, st.cargo[s].length) * (cube + 4) + 10;
        y = TW.textLines(svg, x, y + 24, hand + " · " + secret, chars(x, size.hand), size.hand * 1.25,
          { "font-size": size.hand, fill: "#234" });
      }
    }
    // The panel grows with its wrapped lines.
    const bottom = y + (narrow ? 40 : 62);
    TW.setHeight(svg, bottom, null);
    sheet.setAttribute("height", bottom - mapHeight);
    return svg;
  };
})(window.Tradewinds);
