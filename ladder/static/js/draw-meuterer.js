/* Meuterer board drawer: the island circle (active or inactive side), the ship,
   cards face up on the table, reserved navigation counts, characters once
   revealed (or for the spectator), hands the view may see, and scores. */
"use strict";

(function (TW) {
  const CARD_FILL = {
    ruby: "#c0392b", salt: "#ecf0f1", wine: "#7d3c98", cloth: "#2980b9", grain: "#f1c40f",
    conflict: "#222", any: "#16a085",
  };
  // The island circle and type sizes: beside the seats on a wide screen; on a
  // phone a tighter circle above them, with type large enough once scaled down.
  const WIDE = { width: 920, cx: 290, cy: 330, r: 225, name: 9, label: 10, small: 11, font: 12 };
  const NARROW = { width: 520, cx: 260, cy: 318, r: 200, name: 12, label: 12, small: 12, font: 13 };

  function spot(G, i, count, radius) {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / count;
    return [G.cx + radius * Math.cos(angle), G.cy + radius * Math.sin(angle)];
  }

  function card(svg, x, y, name, owner) {
    const g = TW.el("g", { class: "card" }, svg);
    TW.el("rect", { x: x, y: y, width: 16, height: 22, rx: 2, fill: CARD_FILL[name] || "#999",
      stroke: owner === null || owner === undefined ? "#333" : TW.seatColour(owner), "stroke-width": 2 }, g);
    TW.title(g, name + (owner === null || owner === undefined ? "" : " from seat " + owner));
    return g;
  }

  TW.drawers.meuterer = function (frame, summary) {
    const st = frame.state;
    // Seats to the right of the circle, or under it on a phone.
    const narrow = TW.isNarrow();
    const G = narrow ? NARROW : WIDE;
    const { cx: CX, cy: CY, r: R } = G;
    const width = G.width;
    const height = narrow ? 620 + summary.players * 84 + 60 : 660;
    const svg = TW.svgRoot(width, height, "Meuterer board at step " + frame.step);
    const background = TW.el("rect", { width: width, height: height, fill: "#dbeef7" }, svg);
    const who = st.seat === null ? "spectator" : "seat " + st.seat;
    const round = "Round " + st.round + " / " + st.rounds + " · " + st.phase;
    const captain = "captain: seat " + st.captain + (st.promise !== null ? " (promises " + st.promise + ")" : "")
      + " · viewing as " + who;
    if (narrow) {
      TW.text(svg, 12, 22, round, { "font-size": 16, "font-weight": "bold" });
      TW.text(svg, 12, 42, captain, { "font-size": G.font });
    } else {
      TW.text(svg, 12, 22, round + " · " + captain, { "font-size": 15, "font-weight": "bold" });
    }

    const n = st.islands.length;
    TW.el("circle", { cx: CX, cy: CY, r: R, fill: "none", stroke: "#7fb3d5", "stroke-dasharray": "6,6" }, svg);
    const offered = {};
    for (const play of st.table || []) {
      const key = play.island === null || play.island === undefined ? "none" : play.island;
      (offered[key] = offered[key] || []).push(play);
    }
    st.islands.forEach(function (island, i) {
      const [x, y] = spot(G, i, n, R);
      const g = TW.el("g", { class: "island" + (island.active ? " active" : ""), "data-island": i }, svg);
      TW.el("circle", { cx: x, cy: y, r: 30, fill: island.active ? "#c8e6a0" : "#d5d2c8",
        stroke: island.active ? "#2e7d32" : "#8a8577", "stroke-width": island.active ? 3 : 1 }, g);
      TW.title(g, island.name + " — buys " + island.buys + ", navigation " + island.navigation
        + ", sale " + island.sale.join("/") + (island.active ? " (active side)" : " (inactive side)"));
      TW.el("rect", { x: x - 7, y: y - 22, width: 14, height: 10, fill: CARD_FILL[island.buys] || "#999", stroke: "#333" }, g);
      TW.text(g, x, y + 3, island.name, { "text-anchor": "middle", "font-size": G.name });
      TW.text(g, x, y + 6 + G.name, "nav " + island.navigation, { "text-anchor": "middle", "font-size": G.name, fill: "#345" });
      if (i === st.ship) {
        const [sx, sy] = spot(G, i, n, R - 52);
        const ship = TW.el("g", { class: "ship" }, svg);
        TW.el("path", { d: "M" + (sx - 16) + "," + (sy - 4) + " h32 l-6,12 h-20 z", fill: "#6e4b2a", stroke: "#222" }, ship);
        TW.el("path", { d: "M" + sx + "," + (sy - 4) + " v-22 l14,14 z", fill: "#fff", stroke: "#222" }, ship);
        TW.title(ship, "The ship, at " + island.name);
      }
      if (i === st.destination || i === st.mutineer_destination) {
        // Outside the island, kept whole on the board near its edges.
        const [gx, dy] = spot(G, i, n, R + (narrow ? 46 : 40));
        const goal = i === st.destination ? "captain's goal" : "mutineer's goal";
        const half = goal.length * G.label * 0.3;
        const dx = Math.min(Math.max(gx, half + 4), width - half - 4);
        TW.text(svg, dx, dy, goal, { "text-anchor": "middle", "font-size": G.label, fill: "#a33" });
      }
      (offered[i] || []).forEach(function (play, k) {
        const [ox, oy] = spot(G, i, n, R - 95);
        card(svg, ox - 24 + (k % 3) * 17, oy - 12 + Math.floor(k / 3) * 24, play.card, play.seat);
      });
    });
    const loose = offered.none || [];
    TW.text(svg, CX, CY - 10, loose.length ? "conflict cards played:" : "", { "text-anchor": "middle", "font-size": G.label });
    loose.forEach(function (play, k) { card(svg, CX - 40 + k * 18, CY, play.card, play.seat); });

    // Right panel (under the circle on a phone): seats with score, reserved
    // navigation, conflicts, character, hand.
    const x = narrow ? 20 : 570;
    const chars = TW.charsIn(width - x - 30, G.small);
    TW.text(svg, x, narrow ? 598 : 60, "Seats", { "font-weight": "bold", "font-size": G.font });
    let y = narrow ? 622 : 84;
    const lead = G.small + 5;
    for (let s = 0; s < summary.players; s++) {
      const own = TW.privateOf(st, s);
      const character = st.characters ? st.characters[s] : own ? own.character : null;
      TW.el("rect", { x: x, y: y - 11, width: 12, height: 12, fill: TW.seatColour(s), rx: 2 }, svg);
      TW.text(svg, x + 18, y, TW.seatName(summary, s) + (s === st.captain ? " ⚓" : ""),
        { "font-weight": st.current_player === s ? "bold" : null, "font-size": G.font });
      TW.text(svg, x + 18, y + lead + 1, "score " + st.scores[s] + " · reserved " + (st.reserved[s] === null ? "—" : st.reserved[s])
        + " · conflicts " + st.conflicts[s] + (st.passed[s] ? " · passed" : ""), { "font-size": G.small });
      TW.text(svg, x + 18, y + 2 * lead + 1, "character: " + (character || (st.characters ? "—" : "hidden"))
        + (st.characters ? "" : character ? " (secret)" : ""), { "font-size": G.small });
      const hand = own && own.hand ? own.hand : null;
      const row = y + 2 * lead + 8;
      if (hand) {
        hand.forEach(function (name, k) { card(svg, x + 18 + k * 18, row, name, null); });
        TW.text(svg, x + 24 + hand.length * 18, row + 16, hand.length + " cards", { "font-size": G.label });
      } else {
        TW.text(svg, x + 18, row + 16, st.hand_sizes[s] + " cards in hand (hidden)", { "font-size": G.small, fill: "#567" });
      }
      y = row + (narrow ? 56 : 44);
    }
    y = TW.textLines(svg, x, y + 4, "Deck " + st.deck + " · discards " + Object.entries(st.discards)
      .filter(function (kv) { return kv[1]; }).map(function (kv) { return kv[0] + "×" + kv[1]; }).join(" "),
    chars, lead, { "font-size": G.small });
    if (st.mutiny) {
      y = TW.textLines(svg, x, y + 18, "Mutiny: " + JSON.stringify(st.mutiny), TW.charsIn(width - x - 30, G.label),
        G.label + 4, { "font-size": G.label });
    }
    if (narrow) TW.setHeight(svg, y + 24, background);
    return svg;
  };
})(window.Tradewinds);
