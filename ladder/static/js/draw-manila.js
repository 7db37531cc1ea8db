/* Manila board drawer: three lanes 0-13 with boats and crews, harbours,
   shipyards, the pirate ship, pilots, insurance, prices and each seat's cash
   and shares; and Manila's words for its events and moves. Draws only what the
   frame's state holds. */
"use strict";

(function (TW) {
  const say = TW.say;
  const GOOD_FILL = { jade: "#2e8b57", silk: "#4169e1", ginseng: "#e0a100", nutmeg: "#8b5a2b" };
  const GOODS = ["jade", "silk", "ginseng", "nutmeg"];
  const PRICE_TRACK = [0, 5, 10, 20, 30];
  // Where each part sits: beside each other on a wide screen; stacked on a
  // phone in a narrower board with larger type, so it stays readable when scaled.
  const WIDE = {
    width: 920, font: 13, small: 12, tiny: 11, laneX: 100, cell: 40, numbersY: 20, laneY: [50, 120, 190],
    berth: function (i) { return [660, 42 + i * 37, 250]; }, berthWorker: 100, berthBoat: 190,
    roles: function (i) { return [i ? 180 + (i - 1) * 160 : 12, 266]; },
    pricesY: 304, seats: [360, 304], seatGap: 21,
  };
  const NARROW = {
    width: 490, font: 14, small: 13, tiny: 11, laneX: 90, cell: 28, numbersY: 20, laneY: [50, 120, 190],
    berth: function (i) { return [i < 3 ? 8 : 248, 260 + (i % 3) * 38, 234]; }, berthWorker: 106, berthBoat: 174,
    roles: function (i) { return [i % 2 ? 248 : 12, 382 + Math.floor(i / 2) * 28]; },
    pricesY: 446, seats: [12, 580], seatGap: 26,
  };
  const BERTHS = [
    ["harbour_a", "Harbour A"], ["harbour_b", "Harbour B"], ["harbour_c", "Harbour C"],
    ["shipyard_a", "Shipyard A"], ["shipyard_b", "Shipyard B"], ["shipyard_c", "Shipyard C"],
  ];
  const SPACE_WORDS = {
    harbour_a: "harbour A", harbour_b: "harbour B", harbour_c: "harbour C",
    shipyard_a: "shipyard A", shipyard_b: "shipyard B", shipyard_c: "shipyard C",
    pirate: "the pirate ship", small_pilot: "the small pilot", large_pilot: "the large pilot",
    insurance: "the insurance",
  };
  const PHASE_WORDS = {
    auction: "auction for the harbour master's office", buy: "the harbour master may buy a share",
    load: "the harbour master loads three boats", start: "the harbour master sets the boats' start",
    place: "placing accomplices", board: "pirates may board a boat on space 13",
    pilot: "the pilots may move boats", pilots: "the pilots may move boats",
    plunder: "the pirates choose where plundered boats go", roll: "the dice are rolled",
  };

  function meeple(svg, x, y, seat, label) {
    const dot = TW.el("circle", {
      cx: x, cy: y, r: 7, fill: seat === null || seat === undefined ? "#fff" : TW.seatColour(seat),
      stroke: "#123", "stroke-width": 1,
    }, svg);
    TW.title(dot, label);
    return dot;
  }

  function drawBoat(svg, boat, x, y, L, ctx) {
    const seats = boat.crew.length + boat.free_seats;
    const width = Math.max(46, seats * 16 + 8);
    const hull = TW.el("g", { class: "boat", "data-good": boat.good }, svg);
    TW.el("path", {
      d: "M" + (x - width / 2) + "," + (y - 10) + " h" + width + " l-8,20 h-" + (width - 16) + " z",
      fill: GOOD_FILL[boat.good] || "#999", stroke: "#123",
    }, hull);
    TW.title(hull, boat.good + " boat (profit " + boat.profit + ")"
      + (boat.position !== null ? ", space " + boat.position : "")
      + (boat.berth ? ", at " + SPACE_WORDS[boat.berth] : "") + (boat.plundered ? ", plundered" : ""));
    for (let i = 0; i < seats; i++) {
      const cx = x - (seats - 1) * 8 + i * 16;
      const seat = i < boat.crew.length ? boat.crew[i] : null;
      meeple(hull, cx, y - 16, seat, seat === null ? "free seat" : ctx.name(seat));
    }
    TW.text(hull, x, y + 4, boat.good, { "text-anchor": "middle", fill: "#fff", "font-size": L.tiny });
  }

  TW.drawers.manila = function (frame, summary, ctx) {
    ctx = ctx || TW.context(summary);
    const st = frame.state;
    const L = TW.isNarrow() ? NARROW : WIDE;
    const narrow = L === NARROW;
    const svg = TW.svgRoot(L.width, 620, "Manila board at step " + frame.step);
    const background = TW.el("rect", { width: L.width, height: 620, fill: "#f7f3e8" }, svg);

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
      const space = TW.el("g", { class: "space", "data-space": key }, svg);
      TW.el("rect", { x: x, y: y - 14, width: width, height: 30, rx: 4,
        fill: key.startsWith("harbour") ? "#e3f1d9" : "#eadccb", stroke: "#887" }, space);
      TW.text(space, x + 8, y + 5, pair[1], { "font-size": L.font });
      const worker = st.spaces ? st.spaces[key] : null;
      meeple(space, x + L.berthWorker, y + 1, worker, worker === null || worker === undefined
        ? pair[1] + ": free" : pair[1] + ": " + ctx.name(worker));
      const docked = boats.find(function (b) { return b.berth === key; });
      if (docked) drawBoat(svg, docked, x + L.berthBoat, y + 6, L, ctx);
    });
    boats.forEach(function (boat, lane) {
      if (boat.berth) return;
      // Before the harbour master sets the start, a boat waits left of space 0.
      const unset = boat.position === null || boat.position === undefined;
      const x = unset ? (narrow ? 40 : L.laneX - L.cell - 8) : L.laneX + Math.min(boat.position, 13) * L.cell;
      drawBoat(svg, boat, x, L.laneY[lane] + 6, L, ctx);
    });

    // Pirate ship, pilots and insurance.
    const [px, py] = L.roles(0);
    const pirateShip = TW.el("g", { class: "space", "data-space": "pirate" }, svg);
    TW.text(pirateShip, px, py, "Pirate ship", { "font-weight": "bold", "font-size": L.font });
    for (let i = 0; i < 2; i++) {
      const pirate = st.pirates && i < st.pirates.length ? st.pirates[i] : null;
      meeple(pirateShip, px + 98 + i * 20, py - 4, pirate, pirate === null ? "free" : (i ? "stern" : "captain") + ": " + ctx.name(pirate));
    }
    [["small_pilot", "Small pilot"], ["large_pilot", "Large pilot"], ["insurance", "Insurance"]].forEach(
      function (pair, i) {
        const [x, y] = L.roles(i + 1);
        const role = TW.el("g", { class: "space", "data-space": pair[0] }, svg);
        TW.text(role, x, y, pair[1], { "font-weight": "bold", "font-size": L.font });
        const holder = st.spaces ? st.spaces[pair[0]] : null;
        meeple(role, x + 100, y - 4, holder, holder === null || holder === undefined ? "free" : ctx.name(holder));
      });

    // Prices: the track 0, 5, 10, 20, 30 per good, current price marked.
    TW.text(svg, 12, L.pricesY, "Share prices (supply left)", { "font-weight": "bold", "font-size": L.font });
    let bottom = L.pricesY;
    GOODS.forEach(function (good, g) {
      const y = L.pricesY + 22 + g * 24;
      const row = TW.el("g", { class: "price-row", "data-price": good }, svg);
      TW.el("rect", { x: 12, y: y - 12, width: 14, height: 14, fill: GOOD_FILL[good] }, row);
      TW.text(row, 32, y, good + (st.supply ? " (" + st.supply[good] + ")" : ""), { "font-size": L.font });
      PRICE_TRACK.forEach(function (price, k) {
        const current = st.prices && st.prices[good] === price;
        TW.el("rect", { x: 130 + k * 38, y: y - 13, width: 34, height: 18, rx: 3,
          fill: current ? GOOD_FILL[good] : "#fff", stroke: "#889" }, row);
        TW.text(row, 147 + k * 38, y, price, { "text-anchor": "middle", fill: current ? "#fff" : "#334", "font-size": L.font });
      });
      bottom = y + 10;
    });

    // Seats: cash and accomplices, then shares (by good where this view may see them).
    const [sx, sy] = L.seats;
    const room = TW.charsIn(L.width - sx - 30, L.font, true);
    TW.text(svg, sx, sy, "Seats", { "font-weight": "bold", "font-size": L.font });
    let y = sy + 22;
    for (let s = 0; s < summary.players; s++) {
      const own = TW.privateOf(st, s);
      const name = ctx.name(s) + (st.harbour_master === s ? " (harbour master)" : "") + (st.seat === s ? " (this view)" : "");
      const purse = st.cash[s] + " pesos · " + TW.count(st.accomplices[s], "accomplice") + " left" + (st.passed[s] ? " · passed" : "");
      const weight = { "font-weight": frame.to_move === s ? "bold" : null, "font-size": L.font };
      TW.el("rect", { x: sx, y: y - 10, width: 12, height: 12, fill: TW.seatColour(s), rx: 2 }, svg);
      if (narrow) {
        y = TW.textLines(svg, sx + 18, y, name, room, 16, weight) + 16;
        TW.text(svg, sx + 18, y, purse, { "font-size": L.small });
      } else {
        TW.textLines(svg, sx + 18, y, name + ": " + purse, room, 16, weight);
      }
      let shares = TW.count(st.shares[s], "share");
      if (own && own.my_shares) {
        const list = GOODS.filter(function (g) { return own.my_shares[g]; })
          .map(function (g) { return g + "×" + own.my_shares[g]; });
        const pawned = GOODS.filter(function (g) { return own.my_mortgaged[g]; })
          .map(function (g) { return g + "×" + own.my_mortgaged[g]; });
        shares += ": " + (list.join(" ") || "none") + (pawned.length ? " · mortgaged " + pawned.join(" ") : "");
      } else if (st.mortgaged[s]) {
        shares += ", " + st.mortgaged[s] + " of them mortgaged";
      }
      y = TW.textLines(svg, sx + 18, y + 15, shares, TW.charsIn(L.width - sx - 30, L.small), 15,
        { "font-size": L.small, fill: "#345" });
      y += L.seatGap; // from the shares line to the next seat
    }
    TW.setHeight(svg, Math.max(y, bottom) + 8, background);
    return svg;
  };

  // -- words ------------------------------------------------------------------
  const drawer = TW.drawers.manila;
  drawer.scoreUnit = "pesos";

  /* Where on the board a person clicks for an action (live tables, table.js): the
     boat for a place on it, boarding or plundering; the space for a worker; a
     good's price row for buying, mortgaging or redeeming its share. */
  drawer.targets = function (action) {
    const boat = '.boat[data-good="' + action.good + '"]';
    switch (action.type) {
      case "place": return [action.space === "boat" ? boat : '[data-space="' + action.space + '"]'];
      case "board": case "plunder": return [boat];
      case "buy": case "mortgage": case "redeem": return ['[data-price="' + action.good + '"]'];
      default: return [];
    }
  };
  drawer.pauseTitle = function (voyage) { return "End of voyage " + voyage; };

  function party(who, ctx) { return who === "bank" ? "the bank" : ctx.seat(who); }

  function where(place) {
    if (place.space === "boat") return "on the " + place.good + " boat";
    if (/^(harbour|shipyard)_/.test(place.space)) return "in " + SPACE_WORDS[place.space];
    if (place.space === "pirate") return "on the pirate ship";
    return "as " + (SPACE_WORDS[place.space] || place.space).replace(/^the /, "");
  }

  function steps(moves) {
    if (!moves.length) return "no boat";
    return TW.listWords(moves.map(function (m) {
      const n = Math.abs(m.steps);
      return "the " + m.good + " boat " + TW.count(n, "space") + (m.steps > 0 ? " forward" : " back");
    }));
  }

  function positions(start) {
    return TW.listWords(GOODS.filter(function (g) { return g in start; })
      .map(function (g) { return g + " on " + start[g]; }));
  }

  function amounts(table) {
    return GOODS.filter(function (g) { return g in table; }).map(function (g) { return g + " " + table[g]; }).join(", ");
  }

  function payment(e, ctx, events, i) {
    const payer = party(e.payer, ctx);
    const payee = party(e.payee, ctx);
    const pesos = TW.count(e.amount, "peso");
    switch (e.reason) {
      case "harbour_master": return say`${payer} pays ${pesos} for the harbour master's office`;
      case "share": return say`${payer} pays ${pesos} for a share`;
      case "placement": {
        const next = events[i + 1];
        const placed = next && next.event === "placed" && next.seat === e.payer ? " " + where(next) : "";
        return say`${payer} pays ${pesos} to place an accomplice${placed}`;
      }
      case "stowaway": return say`${payer} pays all their cash, ${pesos}, to stow away`;
      case "insurance": return say`The bank pays ${payee} ${pesos} for taking the insurance`;
      case "mortgage": return say`${payee} mortgages a share: the bank lends ${pesos}`;
      case "forced_mortgage": return say`${payee} must mortgage a share to pay: the bank lends ${pesos}`;
      case "redeem": return say`${payer} redeems a share for ${pesos}`;
      case "plunder": return say`The bank pays pirate ${payee} ${pesos} of the plunder`;
      case "cargo": return say`The bank pays ${payee} ${pesos} for a place on a boat that reached harbour`;
      case "harbour": return say`The bank pays ${payee} ${pesos} for their harbour space`;
      case "shipyard": return say`The bank pays ${payee} ${pesos} for their shipyard space`;
      case "insurance_claim":
        return e.payee === "bank"
          ? say`Insurer ${payer} pays the bank ${pesos} for repairs`
          : say`Insurer ${payer} pays ${payee} ${pesos} for repairs at their shipyard`;
      default: return say`${payer} pays ${payee} ${pesos} (${String(e.reason).replace(/_/g, " ")})`;
    }
  }

  drawer.describeEvent = function (e, ctx, events, i) {
    const who = ctx.seat(e.seat);
    switch (e.event) {
      case "voyage": return say`Voyage ${e.number} begins; ${ctx.seat(e.auction_opens)} opens the auction`;
      case "pay": return payment(e, ctx, events, i);
      case "auction_pass": return say`${who} drops out of the auction`;
      case "bid": return say`${who} bids ${TW.count(e.amount, "peso")}`;
      case "harbour_master":
        return e.price
          ? say`${who} becomes harbour master for ${TW.count(e.price, "peso")}`
          : say`Nobody bid: ${who} stays harbour master for free`;
      case "share_bought": return say`${who} buys a ${e.good} share`;
      case "loaded": return say`The boats are loaded with ${TW.listWords(e.goods)}`;
      case "boats_start": return say`The boats start: ${positions(e.positions)}`;
      case "placement_pass": return say`${who} passes: no more placements this voyage`;
      case "placed": return say`${who} places an accomplice ${where(e)}${e.stowaway ? " as a stowaway" : ""}`;
      case "pirate_stays": return say`Pirate ${who} stays on the pirate ship`;
      case "evicted": return say`${who}'s accomplice is thrown off the ${e.good} boat`;
      case "boarded": return say`Pirate ${who} boards the ${e.good} boat`;
      case "pilot": return say`${who}, ${SPACE_WORDS[e.pilot] || e.pilot}, moves ${steps(e.moves)}`;
      case "plunder_to": return say`The pirates take the ${e.good} boat to ${SPACE_WORDS[e.berth] || e.berth}`;
      case "docked": return say`The ${e.good} boat reaches ${SPACE_WORDS[e.berth] || e.berth}`;
      case "to_shipyard": return say`The ${e.good} boat is still at sea: it goes to ${SPACE_WORDS[e.berth] || e.berth}`;
      case "roll": return say`Roll ${e.number} of 3: ${amounts(e.dice)}`;
      case "plundered": {
        const pirates = [];
        e.pirates.forEach(function (seat, k) {
          if (k) pirates.push(" and ");
          pirates.push(ctx.seat(seat));
        });
        return ["Pirate" + (e.pirates.length > 1 ? "s " : " ")].concat(pirates, [" seize the " + e.good + " boat on space 13"]);
      }
      case "prices": return say`Share prices now: ${amounts(e.prices)}`;
      case "game_over": return say`A share price reached 30: the game ends`;
      default: return null;
    }
  };

  drawer.describeAction = function (a, ctx, seat) {
    const who = ctx.seat(seat);
    switch (a.type) {
      case "bid": return say`${who} bids ${TW.count(a.amount, "peso")}`;
      case "pass": return say`${who} passes`;
      case "buy": return say`${who} buys a ${a.good} share`;
      case "load": return say`${who} loads ${TW.listWords(a.goods)}`;
      case "start": return say`${who} starts the boats: ${positions(a.positions)}`;
      case "place": return say`${who} places an accomplice ${where(a)}`;
      case "board":
        return a.evict === undefined
          ? say`${who} boards the ${a.good} boat`
          : say`${who} boards the ${a.good} boat, throwing off ${ctx.seat(a.evict)}`;
      case "stay": return say`${who} stays on the pirate ship`;
      case "pilot": return say`${who} pilots ${steps(a.moves)}`;
      case "plunder": return say`${who} sends the plundered ${a.good} boat to a ${a.to}`;
      case "mortgage": return say`${who} mortgages a ${a.good} share`;
      case "redeem": return say`${who} redeems a ${a.good} share`;
      default: return null;
    }
  };

  drawer.status = function (frame, ctx) {
    const st = frame.state;
    const summary = ctx.summary;
    if (frame.stage === "pause") {
      return say`End of voyage ${st.voyage}: the boats have docked or gone to the shipyards, everyone is paid and the prices of goods that reached harbour rose (Next › clears the board). Harbour master: ${ctx.seat(st.harbour_master)}.`;
    }
    if (summary.finished && frame.step === summary.steps && frame.stage === "final") {
      return say`Game over after voyage ${st.voyage}: a share price reached 30. Each score is a fortune: cash, plus shares at their price, less 15 per mortgaged share.`;
    }
    const parts = say`Voyage ${st.voyage}: ${PHASE_WORDS[st.phase] || st.phase}`;
    if (frame.to_move !== null && frame.to_move !== undefined) parts.push(...say`; ${ctx.seat(frame.to_move)} to move`);
    parts.push(...say`. Harbour master: ${ctx.seat(st.harbour_master)}.`);
    if (st.auction && st.phase === "auction") {
      const high = st.auction.high_bidder;
      if (high === null || high === undefined) parts.push(" No bid yet.");
      else parts.push(...say` High bid: ${TW.count(st.auction.high_bid, "peso")} by ${ctx.seat(high)}.`);
    }
    if (st.rolls) parts.push(" Rolls so far: " + st.rolls + " of 3 (" + amounts(st.dice || {}) + ").");
    return parts;
  };

  drawer.legend = function () {
    const boat = function (good) {
      return function (svg) {
        TW.el("path", { d: "M2,6 h24 l-5,12 h-14 z", fill: GOOD_FILL[good], stroke: "#123" }, svg);
      };
    };
    const dot = function (fill) {
      return function (svg) { TW.el("circle", { cx: 14, cy: 11, r: 7, fill: fill, stroke: "#123" }, svg); };
    };
    return [
      { icon: boat("jade"), text: "jade boat" }, { icon: boat("silk"), text: "silk boat" },
      { icon: boat("ginseng"), text: "ginseng boat" }, { icon: boat("nutmeg"), text: "nutmeg boat" },
      { icon: dot(TW.seatColour(0)), text: "an accomplice, in its seat's colour" },
      { icon: dot("#fff"), text: "a free seat or space" },
      { icon: function (svg) { TW.el("rect", { x: 4, y: 2, width: 20, height: 18, fill: "#f2c4c4", stroke: "#9bbcd0" }, svg); },
        text: "space 13: pirates may board or plunder a boat here" },
      { icon: function (svg) { TW.el("rect", { x: 2, y: 4, width: 24, height: 14, rx: 3, fill: "#e3f1d9", stroke: "#887" }, svg); },
        text: "harbour: pays when a boat docks there" },
      { icon: function (svg) { TW.el("rect", { x: 2, y: 4, width: 24, height: 14, rx: 3, fill: "#eadccb", stroke: "#887" }, svg); },
        text: "shipyard: pays when a boat fails to arrive" },
      { icon: function (svg) { TW.el("rect", { x: 2, y: 3, width: 24, height: 16, rx: 3, fill: GOOD_FILL.jade, stroke: "#889" }, svg); },
        text: "filled price box: the share's current price" },
    ];
  };
})(window.Tradewinds);
