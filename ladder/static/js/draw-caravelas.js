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
    const panel = 80 + n * 70;
    const svg = TW.svgRoot(width, mapHeight + panel, "Caravelas board at step " + frame.step);

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
      const tag = TW.el("g", { class: "cube-count" }, svg);
      TW.el("rect", { x: at[0] + 12, y: at[1] - 13, width: 14, height: 13, rx: 2,
        fill: left ? board.cube_fill[colour] : "#ccc", stroke: "#000" }, tag);
      TW.text(tag, at[0] + 19, at[1] - 3, left, { "text-anchor": "middle", "font-size": 10,
        fill: ["white", "yellow", "pink"].indexOf(colour) >= 0 ? "#000" : "#fff" });
      TW.title(tag, left + " " + colour + " cubes left at " + (board.names[place] || place));
    }

    // Discoveries: a ring in the discoverer's colour.
    st.discovered.forEach(function (places, s) {
      places.forEach(function (place) {
        const at = where[place];
        if (at) TW.el("circle", { cx: at[0], cy: at[1], r: 10 + s * 2.5, fill: "none",
          stroke: TW.seatColour(s), "stroke-width": 2 }, svg);
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
      const g = TW.el("g", { class: "fleet", "data-seat": s }, svg);
      TW.el("path", { d: "M" + (x - 13) + "," + (y - 6) + " h26 l-6,12 h-14 z", fill: TW.seatColour(s), stroke: "#000", "stroke-width": 1.5 }, g);
      TW.el("path", { d: "M" + x + "," + (y - 6) + " v-18 l12,12 z", fill: "#fff", stroke: "#000" }, g);
      TW.text(g, x, y + 4, s, { "text-anchor": "middle", "font-size": 9, fill: "#fff", "font-weight": "bold" });
      TW.title(g, "Seat " + TW.seatName(summary, s) + " fleet at " + (board.names[place] || place));
    });

    // Panel under the map: round, Jerónimos, and one row per seat.
    const top = mapHeight + 26;
    TW.el("rect", { x: 0, y: mapHeight, width: width, height: panel, fill: "#fbf8ef" }, svg);
    const who = st.seat === null ? "spectator" : "seat " + st.seat;
    TW.text(svg, 12, top, "Round " + st.round + " · " + st.phase + " · seat " + st.turn + " on move, "
      + st.cards_played + " cards played" + (st.end_triggered ? " · end triggered" : "")
      + " · Jerónimos " + st.jeronimos + " / " + st.jeronimos_size
      + " · movement deck " + st.movement_deck + " · discovery pile " + st.discovery_pile
      + " · viewing as " + who, { "font-size": 19, "font-weight": "bold" });
    for (let s = 0; s < n; s++) {
      const y = top + 38 + s * 70;
      const own = TW.privateOf(st, s);
      TW.el("rect", { x: 10, y: y - 15, width: 16, height: 16, fill: TW.seatColour(s), rx: 2 }, svg);
      TW.text(svg, 32, y, TW.seatName(summary, s) + ": " + st.scores[s] + " points · at "
        + (board.names[st.fleets[s]] || st.fleets[s]) + " · discovered " + st.discovered[s].length
        + (st.sunk[s].length ? " · sunk caravels " + st.sunk[s].join(", ") : ""),
      { "font-size": 18, "font-weight": st.turn === s && st.phase !== "over" ? "bold" : null });
      st.cargo[s].forEach(function (colour, k) {
        TW.el("rect", { x: 32 + k * 20, y: y + 10, width: 16, height: 16, fill: board.cube_fill[colour] || "#999", stroke: "#000" }, svg);
      });
      const counts = st.discovery_counts[s];
      let secret = "discovery cards: " + counts.green + " green, " + counts.yellow + " yellow";
      let hand = "movement cards: " + st.movement_counts[s];
      if (own && own.movement) {
        hand = "movement " + (own.movement.join(" ") || "none");
        secret = "discovery " + (own.discovery_cards.map(function (p) { return board.names[p] || p; }).join(", ") || "none")
          + (own.drawn && own.drawn.length ? " · drawn " + own.drawn.join(", ") : "");
      }
      TW.text(svg, 32 + Math.max(1, st.cargo[s].length) * 20 + 10, y + 24, hand + " · " + secret, { "font-size": 16, fill: "#234" });
    }
    return svg;
  };
})(window.Tradewinds);
