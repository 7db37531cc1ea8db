/* Manila board drawer: three lanes 0-13 with boats and crews, harbours,
   shipyards, the pirate ship, pilots, insurance, prices and each seat's cash
   and shares. Draws only what the frame's state holds. */
"use strict";

(function (TW) {
  const GOOD_FILL = { jade: "#2e8b57", silk: "#4169e1", ginseng: "#e0a100", nutmeg: "#8b5a2b" };
  const GOODS = ["jade", "silk", "ginseng", "nutmeg"];
  const PRICE_TRACK = [0, 5, 10, 20, 30];
  const LANE_X = 100;
  const CELL = 40;
  const LANE_Y = [90, 160, 230];
  const BERTHS = [
    ["harbour_a", "Harbour A"], ["harbour_b", "Harbour B"], ["harbour_c", "Harbour C"],
    ["shipyard_a", "Shipyard A"], ["shipyard_b", "Shipyard B"], ["shipyard_c", "Shipyard C"],
  ];

  function meeple(svg, x, y, seat, label) {
    const dot = TW.el("circle", {
      cx: x, cy: y, r: 7, fill: seat === null || seat === undefined ? "#fff" : TW.seatColour(seat),
      stroke: "#123", "stroke-width": 1,
    }, svg);
    TW.title(dot, label);
    return dot;
  }

  function drawBoat(svg, boat, x, y) {
    const seats = boat.crew.length + boat.free_seats;
    const width = Math.max(46, seats * 16 + 8);
    const hull = TW.el("g", { class: "boat", "data-good": boat.good }, svg);
    TW.el("path", {
      d: "M" + (x - width / 2) + "," + (y - 10) + " h" + width + " l-8,20 h-" + (width - 16) + " z",
      fill: GOOD_FILL[boat.good] || "#999", stroke: "#123",
    }, hull);
    TW.title(hull, boat.good + " boat (profit " + boat.profit + ")"
      + (boat.position !== null ? ", space " + boat.position : "")
      + (boat.berth ? ", at " + boat.berth : ""));
    for (let i = 0; i < seats; i++) {
      const cx = x - (seats - 1) * 8 + i * 16;
      const seat = i < boat.crew.length ? boat.crew[i] : null;
      meeple(hull, cx, y - 16, seat, seat === null ? "free seat" : "seat " + seat);
    }
    TW.text(hull, x, y + 4, boat.good, { "text-anchor": "middle", fill: "#fff", "font-size": 10 });
  }

  TW.drawers.manila = function (frame, summary) {
    const st = frame.state;
    const svg = TW.svgRoot(920, 620, "Manila board at step " + frame.step);
    TW.el("rect", { width: 920, height: 620, fill: "#f7f3e8" }, svg);

    const who = st.seat === null ? "spectator" : "seat " + st.seat;
    TW.text(svg, 12, 22, "Voyage " + st.voyage + " · " + st.phase + " · harbour master: seat "
      + st.harbour_master + " · viewing as " + who, { "font-size": 15, "font-weight": "bold" });
    const dice = Object.entries(st.dice || {}).map(function (d) { return d[0] + " " + d[1]; });
    TW.text(svg, 12, 42, "Rolls: " + st.rolls + (dice.length ? " (" + dice.join(", ") + ")" : "")
      + (st.auction ? " · auction: high bid " + st.auction.high_bid
        + (st.auction.high_bidder !== null ? " by seat " + st.auction.high_bidder : "") : ""));

    // The lanes: spaces 0..13, space 13 is the pirates' space.
    const sea = TW.el("g", { class: "lanes" }, svg);
    for (let lane = 0; lane < 3; lane++) {
      const y = LANE_Y[lane];
      for (let i = 0; i <= 13; i++) {
        TW.el("rect", {
          x: LANE_X + i * CELL - CELL / 2, y: y - 22, width: CELL - 2, height: 44,
          fill: i === 13 ? "#f2c4c4" : "#cfe6f3", stroke: "#9bbcd0",
        }, sea);
        if (lane === 0) TW.text(sea, LANE_X + i * CELL, 60, i, { "text-anchor": "middle", fill: "#456" });
      }
    }
    TW.text(svg, LANE_X + 13 * CELL, 268, "pirates", { "text-anchor": "middle", fill: "#a33", "font-size": 10 });

    const boats = st.boats || [];
    if (!boats.length) {
      TW.text(svg, LANE_X + 6 * CELL, LANE_Y[1] + 4, "No boats loaded yet this voyage",
        { "text-anchor": "middle", fill: "#456", "font-size": 14 });
    }
    // Berths on the right: harbours and shipyards with their worker and docked boat.
    const berthX = 660;
    BERTHS.forEach(function (pair, i) {
      const y = 82 + i * 34;
      const key = pair[0];
      TW.el("rect", { x: berthX, y: y - 14, width: 250, height: 30, rx: 4,
        fill: key.startsWith("harbour") ? "#e3f1d9" : "#eadccb", stroke: "#887" }, svg);
      TW.text(svg, berthX + 8, y + 5, pair[1]);
      const worker = st.spaces ? st.spaces[key] : null;
      meeple(svg, berthX + 100, y + 1, worker, worker === null || worker === undefined
        ? pair[1] + ": free" : pair[1] + ": seat " + worker);
      const docked = boats.find(function (b) { return b.berth === key; });
      if (docked) drawBoat(svg, docked, berthX + 190, y + 6);
    });
    boats.forEach(function (boat, lane) {
      if (boat.berth) return;
      // Before the harbour master sets the start, a boat waits left of space 0.
      const unset = boat.position === null || boat.position === undefined;
      const x = unset ? LANE_X - CELL - 8 : LANE_X + Math.min(boat.position, 13) * CELL;
      drawBoat(svg, boat, x, LANE_Y[lane] + 6);
    });

    // Pirate ship, pilots and insurance.
    const row = 300;
    TW.text(svg, 12, row, "Pirate ship", { "font-weight": "bold" });
    for (let i = 0; i < 2; i++) {
      const pirate = st.pirates && i < st.pirates.length ? st.pirates[i] : null;
      meeple(svg, 110 + i * 20, row - 4, pirate, pirate === null ? "free" : (i ? "stern" : "captain") + ": seat " + pirate);
    }
    [["small_pilot", "Small pilot"], ["large_pilot", "Large pilot"], ["insurance", "Insurance"]].forEach(
      function (pair, i) {
        const x = 180 + i * 160;
        TW.text(svg, x, row, pair[1], { "font-weight": "bold" });
        const holder = st.spaces ? st.spaces[pair[0]] : null;
        meeple(svg, x + 100, row - 4, holder, holder === null || holder === undefined ? "free" : "seat " + holder);
      });

    // Prices: the track 0, 5, 10, 20, 30 per good, current price marked.
    TW.text(svg, 12, 340, "Share prices (supply left)", { "font-weight": "bold" });
    GOODS.forEach(function (good, g) {
      const y = 362 + g * 24;
      TW.el("rect", { x: 12, y: y - 12, width: 14, height: 14, fill: GOOD_FILL[good] }, svg);
      TW.text(svg, 32, y, good + (st.supply ? " (" + st.supply[good] + ")" : ""));
      PRICE_TRACK.forEach(function (price, k) {
        const current = st.prices && st.prices[good] === price;
        TW.el("rect", { x: 130 + k * 38, y: y - 13, width: 34, height: 18, rx: 3,
          fill: current ? GOOD_FILL[good] : "#fff", stroke: "#889" }, svg);
        TW.text(svg, 147 + k * 38, y, price, { "text-anchor": "middle", fill: current ? "#fff" : "#334" });
      });
    });

    // Seats: cash and accomplices, then shares (by good where this view may see them).
    TW.text(svg, 360, 340, "Seats", { "font-weight": "bold" });
    for (let s = 0; s < summary.players; s++) {
      const y = 362 + s * 36;
      const own = TW.privateOf(st, s);
      TW.el("rect", { x: 360, y: y - 10, width: 12, height: 12, fill: TW.seatColour(s), rx: 2 }, svg);
      TW.text(svg, 378, y, TW.seatName(summary, s) + (st.seat === s ? " (this view)" : "") + ": "
        + st.cash[s] + " pesos · " + st.accomplices[s] + " accomplices left" + (st.passed[s] ? " · passed" : ""),
      { "font-weight": st.to_move === s ? "bold" : null });
      let shares = st.shares[s] + " shares";
      if (own && own.my_shares) {
        const list = GOODS.filter(function (g) { return own.my_shares[g]; })
          .map(function (g) { return g + "×" + own.my_shares[g]; });
        const pawned = GOODS.filter(function (g) { return own.my_mortgaged[g]; })
          .map(function (g) { return g + "×" + own.my_mortgaged[g]; });
        shares += ": " + (list.join(" ") || "none") + (pawned.length ? " · mortgaged " + pawned.join(" ") : "");
      } else if (st.mortgaged[s]) {
        shares += " (" + st.mortgaged[s] + " mortgaged, goods hidden)";
      } else {
        shares += " (goods hidden)";
      }
      TW.text(svg, 378, y + 15, shares, { "font-size": 11, fill: "#345" });
    }
    const events = (frame.events || []).slice(-6);
    TW.text(svg, 12, 480, "This move:", { "font-weight": "bold" });
    events.forEach(function (event, i) {
      TW.text(svg, 12, 500 + i * 17, describe(event), { "font-size": 11, fill: "#334" });
    });
    return svg;
  };

  function describe(event) {
    const rest = Object.entries(event).filter(function (kv) { return kv[0] !== "event"; })
      .map(function (kv) { return kv[0] + "=" + JSON.stringify(kv[1]); });
    return event.event + " " + rest.join(" ");
  }
  TW.describeEvent = describe;
})(window.Tradewinds);
