/* Manila board drawer: three lanes 0-13 with boats and crews, harbours,
   shipyards, the pirate ship, pilots, insurance, prices and each seat's cash
   and shares. Draws only what the frame's state holds. */
"use strict";

(function (TW) {
  const GOOD_FILL = { jade: "#2e8b57", silk: "#4169e1", ginseng: "#e0a100", nutmeg: "#8b5a2b" };
  const GOODS = ["jade", "silk", "ginseng", "nutmeg"];
  const PRICE_TRACK = [0, 5, 10, 20, 30];
  // Where each part sits: beside each other on a wide screen; stacked on a
  // phone in a narrower board with larger type, so it stays readable when scaled.
  const WIDE = {
    width: 920, font: 12, small: 11, tiny: 10, laneX: 100, cell: 40, numbersY: 60, laneY: [90, 160, 230],
    berth: function (i) { return [660, 82 + i * 34, 250]; }, berthWorker: 100, berthBoat: 190,
    roles: function (i) { return [i ? 180 + (i - 1) * 160 : 12, 300]; },
    pricesY: 340, seats: [360, 340], seatGap: 21, eventsY: 480,
  };
  const NARROW = {
    width: 490, font: 13, small: 12, tiny: 11, laneX: 90, cell: 28, numbersY: 92, laneY: [122, 192, 262],
    berth: function (i) { return [i < 3 ? 8 : 248, 332 + (i % 3) * 34, 234]; }, berthWorker: 92, berthBoat: 168,
    roles: function (i) { return [i % 2 ? 248 : 12, 446 + Math.floor(i / 2) * 28]; },
    pricesY: 510, seats: [12, 644], seatGap: 26, eventsY: null,
  };
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

  function drawBoat(svg, boat, x, y, L) {
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
    TW.text(hull, x, y + 4, boat.good, { "text-anchor": "middle", fill: "#fff", "font-size": L.tiny });
  }

  TW.drawers.manila = function (frame, summary) {
    const st = frame.state;
    const L = TW.isNarrow() ? NARROW : WIDE;
    const narrow = L === NARROW;
    const svg = TW.svgRoot(L.width, 620, "Manila board at step " + frame.step);
    const background = TW.el("rect", { width: L.width, height: 620, fill: "#f7f3e8" }, svg);
    const chars = function (size, bold) { return TW.charsIn(L.width - 24, size, bold); };

    const who = st.seat === null ? "spectator" : "seat " + st.seat;
    const dice = Object.entries(st.dice || {}).map(function (d) { return d[0] + " " + d[1]; });
    const rolls = "Rolls: " + st.rolls + (dice.length ? " (" + dice.join(", ") + ")" : "")
      + (st.auction ? " · auction: high bid " + st.auction.high_bid
        + (st.auction.high_bidder !== null ? " by seat " + st.auction.high_bidder : "") : "");
    if (narrow) {
      TW.text(svg, 12, 22, "Voyage " + st.voyage + " · " + st.phase, { "font-size": 16, "font-weight": "bold" });
      TW.text(svg, 12, 42, "harbour master: seat " + st.harbour_master + " · viewing as " + who, { "font-size": L.font });
      TW.textLines(svg, 12, 62, rolls, chars(L.small), 15, { "font-size": L.small });
    } else {
      TW.text(svg, 12, 22, "Voyage " + st.voyage + " · " + st.phase + " · harbour master: seat "
        + st.harbour_master + " · viewing as " + who, { "font-size": 15, "font-weight": "bold" });
      TW.text(svg, 12, 42, rolls);
    }

    // The lanes: spaces 0..13, space 13 is the pirates' space.
    const sea = TW.el("g", { class: "lanes" }, svg);
    for (let lane = 0; lane < 3; lane++) {
      const y = L.laneY[lane];
      for (let i = 0; i <= 13; i++) {
        TW.el("rect", {
          x: L.laneX + i * L.cell - L.cell / 2, y: y - 22, width: L.cell - 2, height: 44,
          fill: i === 13 ? "#f2c4c4" : "#cfe6f3", stroke: "#9bbcd0",
        }, sea);
        if (lane === 0) TW.text(sea, L.laneX + i * L.cell, L.numbersY, i, { "text-anchor": "middle", fill: "#456", "font-size": L.font });
      }
    }
    TW.text(svg, L.laneX + 13 * L.cell, L.laneY[2] + 38, "pirates", { "text-anchor": "middle", fill: "#a33", "font-size": L.tiny });

    const boats = st.boats || [];
    if (!boats.length) {
      TW.text(svg, L.laneX + 6 * L.cell, L.laneY[1] + 4, "No boats loaded yet this voyage",
        { "text-anchor": "middle", fill: "#456", "font-size": 14 });
    }
    // Berths: harbours and shipyards with their worker and docked boat.
    BERTHS.forEach(function (pair, i) {
      const [x, y, width] = L.berth(i);
      const key = pair[0];
      TW.el("rect", { x: x, y: y - 14, width: width, height: 30, rx: 4,
        fill: key.startsWith("harbour") ? "#e3f1d9" : "#eadccb", stroke: "#887" }, svg);
      TW.text(svg, x + 8, y + 5, pair[1], { "font-size": L.font });
      const worker = st.spaces ? st.spaces[key] : null;
      meeple(svg, x + L.berthWorker, y + 1, worker, worker === null || worker === undefined
        ? pair[1] + ": free" : pair[1] + ": seat " + worker);
      const docked = boats.find(function (b) { return b.berth === key; });
      if (docked) drawBoat(svg, docked, x + L.berthBoat, y + 6, L);
    });
    boats.forEach(function (boat, lane) {
      if (boat.berth) return;
      // Before the harbour master sets the start, a boat waits left of space 0.
      const unset = boat.position === null || boat.position === undefined;
      const x = unset ? (narrow ? 40 : L.laneX - L.cell - 8) : L.laneX + Math.min(boat.position, 13) * L.cell;
      drawBoat(svg, boat, x, L.laneY[lane] + 6, L);
    });

    // Pirate ship, pilots and insurance.
    const [px, py] = L.roles(0);
    TW.text(svg, px, py, "Pirate ship", { "font-weight": "bold", "font-size": L.font });
    for (let i = 0; i < 2; i++) {
      const pirate = st.pirates && i < st.pirates.length ? st.pirates[i] : null;
      meeple(svg, px + 98 + i * 20, py - 4, pirate, pirate === null ? "free" : (i ? "stern" : "captain") + ": seat " + pirate);
    }
    [["small_pilot", "Small pilot"], ["large_pilot", "Large pilot"], ["insurance", "Insurance"]].forEach(
      function (pair, i) {
        const [x, y] = L.roles(i + 1);
        TW.text(svg, x, y, pair[1], { "font-weight": "bold", "font-size": L.font });
        const holder = st.spaces ? st.spaces[pair[0]] : null;
        meeple(svg, x + 100, y - 4, holder, holder === null || holder === undefined ? "free" : "seat " + holder);
      });

    // Prices: the track 0, 5, 10, 20, 30 per good, current price marked.
    TW.text(svg, 12, L.pricesY, "Share prices (supply left)", { "font-weight": "bold", "font-size": L.font });
    GOODS.forEach(function (good, g) {
      const y = L.pricesY + 22 + g * 24;
      TW.el("rect", { x: 12, y: y - 12, width: 14, height: 14, fill: GOOD_FILL[good] }, svg);
      TW.text(svg, 32, y, good + (st.supply ? " (" + st.supply[good] + ")" : ""), { "font-size": L.font });
      PRICE_TRACK.forEach(function (price, k) {
        const current = st.prices && st.prices[good] === price;
        TW.el("rect", { x: 130 + k * 38, y: y - 13, width: 34, height: 18, rx: 3,
          fill: current ? GOOD_FILL[good] : "#fff", stroke: "#889" }, svg);
        TW.text(svg, 147 + k * 38, y, price, { "text-anchor": "middle", fill: current ? "#fff" : "#334", "font-size": L.font });
      });
    });

    // Seats: cash and accomplices, then shares (by good where this view may see them).
    const [sx, sy] = L.seats;
    const room = TW.charsIn(L.width - sx - 30, L.font, true);
    TW.text(svg, sx, sy, "Seats", { "font-weight": "bold", "font-size": L.font });
    let y = sy + 22;
    for (let s = 0; s < summary.players; s++) {
      const own = TW.privateOf(st, s);
      const name = TW.seatName(summary, s) + (st.seat === s ? " (this view)" : "");
      const purse = st.cash[s] + " pesos · " + st.accomplices[s] + " accomplices left" + (st.passed[s] ? " · passed" : "");
      const weight = { "font-weight": st.to_move === s ? "bold" : null, "font-size": L.font };
      TW.el("rect", { x: sx, y: y - 10, width: 12, height: 12, fill: TW.seatColour(s), rx: 2 }, svg);
      if (narrow) {
        y = TW.textLines(svg, sx + 18, y, name, room, 16, weight) + 16;
        TW.text(svg, sx + 18, y, purse, { "font-size": L.small });
      } else {
        TW.text(svg, sx + 18, y, name + ": " + purse, weight);
      }
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
      y = TW.textLines(svg, sx + 18, y + 15, shares, TW.charsIn(L.width - sx - 30, L.small), 15,
        { "font-size": L.small, fill: "#345" });
      y += L.seatGap; // from the shares line to the next seat
    }
    const events = (frame.events || []).slice(-6);
    y = narrow ? y + 4 : L.eventsY;
    TW.text(svg, 12, y, "This move:", { "font-weight": "bold", "font-size": L.font });
    y += narrow ? 4 : 3;
    events.forEach(function (event) {
      y = TW.textLines(svg, 12, y + 17, describe(event), chars(L.small), 15, { "font-size": L.small, fill: "#334" });
    });
    if (narrow) TW.setHeight(svg, Math.max(y + 20, 620), background);
    return svg;
  };

  function describe(event) {
    const rest = Object.entries(event).filter(function (kv) { return kv[0] !== "event"; })
      .map(function (kv) { return kv[0] + "=" + JSON.stringify(kv[1]); });
    return event.event + " " + rest.join(" ");
  }
  TW.describeEvent = describe;
})(window.Tradewinds);
