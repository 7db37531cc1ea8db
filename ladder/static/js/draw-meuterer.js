/* Meuterer board drawer: the island circle (active or inactive side), the ship,
   cards face up on the table, reserved navigation counts, characters once
   revealed (or for the spectator), hands the view may see, and scores. */
"use strict";

(function (TW) {
  const CARD_FILL = {
    ruby: "#c0392b", salt: "#ecf0f1", wine: "#7d3c98", cloth: "#2980b9", grain: "#f1c40f",
    conflict: "#222", any: "#16a085",
  };
  const CX = 290;
  const CY = 330;
  const R = 225;

  function spot(i, count, radius) {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / count;
    return [CX + radius * Math.cos(angle), CY + radius * Math.sin(angle)];
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
    const width = narrow ? 590 : 920;
    const height = narrow ? 620 + summary.players * 84 + 60 : 660;
    const svg = TW.svgRoot(width, height, "Meuterer board at step " + frame.step);
    TW.el("rect", { width: width, height: height, fill: "#dbeef7" }, svg);
    const who = st.seat === null ? "spectator" : "seat " + st.seat;
    TW.text(svg, 12, 22, (narrow ? "R" : "Round ") + st.round + " / " + st.rounds + " · " + st.phase + " · captain: seat "
      + st.captain + (st.promise !== null ? " (promises " + st.promise + ")" : "") + " · viewing as " + who,
    { "font-size": 15, "font-weight": "bold" });

    const n = st.islands.length;
    TW.el("circle", { cx: CX, cy: CY, r: R, fill: "none", stroke: "#7fb3d5", "stroke-dasharray": "6,6" }, svg);
    const offered = {};
    for (const play of st.table || []) {
      const key = play.island === null || play.island === undefined ? "none" : play.island;
      (offered[key] = offered[key] || []).push(play);
    }
    st.islands.forEach(function (island, i) {
      const [x, y] = spot(i, n, R);
      const g = TW.el("g", { class: "island" + (island.active ? " active" : ""), "data-island": i }, svg);
      TW.el("circle", { cx: x, cy: y, r: 30, fill: island.active ? "#c8e6a0" : "#d5d2c8",
        stroke: island.active ? "#2e7d32" : "#8a8577", "stroke-width": island.active ? 3 : 1 }, g);
      TW.title(g, island.name + " — buys " + island.buys + ", navigation " + island.navigation
        + ", sale " + island.sale.join("/") + (island.active ? " (active side)" : " (inactive side)"));
      TW.el("rect", { x: x - 7, y: y - 22, width: 14, height: 10, fill: CARD_FILL[island.buys] || "#999", stroke: "#333" }, g);
      TW.text(g, x, y + 3, island.name, { "text-anchor": "middle", "font-size": 9 });
      TW.text(g, x, y + 15, "nav " + island.navigation, { "text-anchor": "middle", "font-size": 9, fill: "#345" });
      if (i === st.ship) {
        const [sx, sy] = spot(i, n, R - 52);
        const ship = TW.el("g", { class: "ship" }, svg);
        TW.el("path", { d: "M" + (sx - 16) + "," + (sy - 4) + " h32 l-6,12 h-20 z", fill: "#6e4b2a", stroke: "#222" }, ship);
        TW.el("path", { d: "M" + sx + "," + (sy - 4) + " v-22 l14,14 z", fill: "#fff", stroke: "#222" }, ship);
        TW.title(ship, "The ship, at " + island.name);
      }
      if (i === st.destination || i === st.mutineer_destination) {
        const [dx, dy] = spot(i, n, R + 40);
        TW.text(svg, dx, dy, i === st.destination ? "captain's goal" : "mutineer's goal",
          { "text-anchor": "middle", "font-size": 10, fill: "#a33" });
      }
      (offered[i] || []).forEach(function (play, k) {
        const [ox, oy] = spot(i, n, R - 95);
        card(svg, ox - 24 + (k % 3) * 17, oy - 12 + Math.floor(k / 3) * 24, play.card, play.seat);
      });
    });
    const loose = offered.none || [];
    TW.text(svg, CX, CY - 10, loose.length ? "conflict cards played:" : "", { "text-anchor": "middle", "font-size": 10 });
    loose.forEach(function (play, k) { card(svg, CX - 40 + k * 18, CY, play.card, play.seat); });

    // Right panel: seats with score, reserved navigation, conflicts, character, hand.
    const x = narrow ? 20 : 570;
    TW.text(svg, x, narrow ? 600 : 60, "Seats", { "font-weight": "bold" });
    let y = narrow ? 624 : 84;
    for (let s = 0; s < summary.players; s++) {
      const own = TW.privateOf(st, s);
      const character = st.characters ? st.characters[s] : own ? own.character : null;
      TW.el("rect", { x: x, y: y - 11, width: 12, height: 12, fill: TW.seatColour(s), rx: 2 }, svg);
      TW.text(svg, x + 18, y, TW.seatName(summary, s) + (s === st.captain ? " ⚓" : ""),
        { "font-weight": st.current_player === s ? "bold" : null });
      TW.text(svg, x + 18, y + 17, "score " + st.scores[s] + " · reserved " + (st.reserved[s] === null ? "—" : st.reserved[s])
        + " · conflicts " + st.conflicts[s] + (st.passed[s] ? " · passed" : ""), { "font-size": 11 });
      TW.text(svg, x + 18, y + 33, "character: " + (character || (st.characters ? "—" : "hidden"))
        + (st.characters ? "" : character ? " (secret)" : ""), { "font-size": 11 });
      const hand = own && own.hand ? own.hand : null;
      if (hand) {
        hand.forEach(function (name, k) { card(svg, x + 18 + k * 18, y + 40, name, null); });
        TW.text(svg, x + 24 + hand.length * 18, y + 56, hand.length + " cards", { "font-size": 10 });
      } else {
        TW.text(svg, x + 18, y + 56, st.hand_sizes[s] + " cards in hand (hidden)", { "font-size": 11, fill: "#567" });
      }
      y += 84;
    }
    TW.text(svg, x, y + 4, "Deck " + st.deck + " · discards " + Object.entries(st.discards)
      .filter(function (kv) { return kv[1]; }).map(function (kv) { return kv[0] + "×" + kv[1]; }).join(" "),
    { "font-size": 11 });
    if (st.mutiny) {
      TW.text(svg, x, y + 22, "Mutiny: " + JSON.stringify(st.mutiny), { "font-size": 10 });
    }
    return svg;
  };
})(window.Tradewinds);
