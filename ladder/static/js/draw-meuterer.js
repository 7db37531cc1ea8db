/* Meuterer board drawer: the island circle (active or inactive side), the ship,
   the captain's promise, cards face up on the table, reserved navigation
   counts, characters where this view knows them, hands the view may see, and
   scores; and Meuterer's words for its events and moves. */
"use strict";

(function (TW) {
  const say = TW.say;
  const CARD_FILL = {
    ruby: "#c0392b", salt: "#ecf0f1", wine: "#7d3c98", cloth: "#2980b9", grain: "#f1c40f",
    conflict: "#222", any: "#16a085",
  };
  const CARDS = ["ruby", "salt", "wine", "cloth", "grain", "conflict"];
  const CHARACTER_WORDS = {
    mutineer: "the mutineer", cabin_boy: "the cabin boy", boatswain: "the boatswain",
    merchant: "the merchant", stevedore: "the stevedore",
  };
  const PHASE_WORDS = {
    promise: "the captain makes his promise", offer: "offering cards to the islands",
    character: "a seat that passed takes a character", mutiny: "the mutiny: each side adds conflicts",
    discard: "the stevedore discards down to 5 cards", over: "over",
  };
  // The island circle and type sizes: beside the seats on a wide screen; on a
  // phone a tighter circle above them, with type large enough once scaled down.
  const WIDE = { width: 920, cx: 290, cy: 300, r: 225, name: 10, label: 12, small: 13, font: 14, height: 600 };
  const NARROW = { width: 520, cx: 260, cy: 272, r: 200, name: 12, label: 13, small: 13, font: 14, height: 540 };

  function spot(G, i, count, radius) {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / count;
    return [G.cx + radius * Math.cos(angle), G.cy + radius * Math.sin(angle)];
  }

  function card(svg, x, y, name, owner, ctx, held) {
    const g = TW.el("g", { class: held ? "card in-hand" : "card", "data-card": name }, svg);
    TW.el("rect", { x: x, y: y, width: 16, height: 22, rx: 2, fill: CARD_FILL[name] || "#999",
      stroke: owner === null || owner === undefined ? "#333" : TW.seatColour(owner), "stroke-width": 2 }, g);
    TW.title(g, name + (owner === null || owner === undefined ? "" : " played by " + ctx.name(owner)));
    return g;
  }

  function islandName(st, i) {
    const island = st && st.islands && st.islands[i];
    return island ? island.name : "island " + i;
  }

  /* What this view knows of a seat's role: "captain", "the merchant", both after
     a mutiny (the mutineer becomes captain), or "" (a character it cannot see). */
  function role(st, s) {
    const own = TW.privateOf(st, s);
    const character = st.characters ? st.characters[s] : own ? own.character : null;
    const roles = s === st.captain ? ["captain"] : [];
    if (character) roles.push((CHARACTER_WORDS[character] || character) + (st.characters ? "" : " (not yet revealed)"));
    return roles.join(", ");
  }

  TW.drawers.meuterer = function (frame, summary, ctx) {
    ctx = ctx || TW.context(summary);
    const st = frame.state;
    // Seats to the right of the circle, or under it on a phone.
    const narrow = TW.isNarrow();
    const G = narrow ? NARROW : WIDE;
    const { cx: CX, cy: CY, r: R } = G;
    const width = G.width;
    const height = narrow ? G.height + summary.players * 90 + 80 : G.height;
    const svg = TW.svgRoot(width, height, "Meuterer board at step " + frame.step);
    const background = TW.el("rect", { width: width, height: height, fill: "#dbeef7" }, svg);

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
      TW.title(g, island.name + ": buys " + island.buys + ", navigation " + island.navigation
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
      const goals = [];
      if (i === st.destination) goals.push("captain's goal");
      if (i === st.mutineer_destination) goals.push("mutineer's goal");
      // Above an island of the circle's upper half, below one of its lower half,
      // one line per goal, kept off the seats beside the circle.
      const below = y > CY + 1;
      const right = narrow ? width - 4 : 556;
      goals.forEach(function (goal, k) {
        const w = TW.textWidth(goal, G.label) + 2;
        const gx = Math.min(Math.max(x - w / 2, 4), right - w);
        const gy = below ? y + 30 + G.label + k * (G.label + 2) : y - 34 - (goals.length - 1 - k) * (G.label + 2);
        TW.text(svg, gx, gy, goal, { "font-size": G.label, fill: "#a33", class: "goal" });
      });
      (offered[i] || []).forEach(function (play, k) {
        const [ox, oy] = spot(G, i, n, R - 95);
        card(svg, ox - 24 + (k % 3) * 17, oy - 12 + Math.floor(k / 3) * 24, play.card, play.seat, ctx);
      });
    });

    // The middle (clear of the cards offered at the top and bottom islands): the
    // captain's promise card, and conflicts played face up.
    const promise = TW.el("g", { class: "promise" }, svg);
    const promised = st.promise !== null && st.promise !== undefined;
    TW.el("rect", { x: CX - 30, y: CY - 46, width: 60, height: 62, rx: 5, fill: promised ? "#fff7d6" : "#eee",
      stroke: "#8a6d1d", "stroke-width": 2 }, promise);
    TW.text(promise, CX, CY - 30, "promise", { "text-anchor": "middle", "font-size": G.name, fill: "#5a4a10" });
    TW.text(promise, CX, CY + 2, promised ? st.promise : "?", { "text-anchor": "middle", "font-size": 24, "font-weight": "bold", fill: "#5a4a10" });
    TW.title(promise, promised
      ? "The captain promises the boatswain " + TW.count(st.promise, "point")
      : "The captain has not promised yet");
    const loose = offered.none || [];
    if (loose.length) {
      TW.text(svg, CX, CY + 36, "conflicts played:", { "text-anchor": "middle", "font-size": G.label });
      loose.forEach(function (play, k) {
        card(svg, CX - (Math.min(loose.length, 8) * 18) / 2 + (k % 8) * 18, CY + 44 + Math.floor(k / 8) * 24, play.card, play.seat, ctx);
      });
    }

    // Right panel (under the circle on a phone): seats with score, role,
    // reserved cards, conflicts and hand.
    const x = narrow ? 20 : 570;
    const chars = TW.charsIn(width - x - 30, G.small);
    TW.text(svg, x, narrow ? G.height + 8 : 30, "Seats", { "font-weight": "bold", "font-size": G.font });
    let y = narrow ? G.height + 34 : 56;
    const lead = G.small + 5;
    for (let s = 0; s < summary.players; s++) {
      const own = TW.privateOf(st, s);
      TW.el("rect", { x: x, y: y - 11, width: 12, height: 12, fill: TW.seatColour(s), rx: 2 }, svg);
      const who = role(st, s);
      TW.text(svg, x + 18, y, ctx.name(s) + (who ? ": " + who : ""),
        { "font-weight": frame.to_move === s ? "bold" : null, "font-size": G.font });
      y += lead + 1;
      const facts = TW.count(st.scores[s], "point") + (st.passed[s]
        ? " · passed, " + TW.count(st.reserved[s] || 0, "card") + " reserved" : "")
        + (st.conflicts[s] ? " · " + TW.count(st.conflicts[s], "conflict") + " face up" : "");
      y = TW.textLines(svg, x + 18, y, facts, chars, lead, { "font-size": G.small });
      const hand = own && own.hand ? own.hand : null;
      const row = y + 7;
      if (hand) {
        hand.forEach(function (name, k) { card(svg, x + 18 + k * 18, row, name, null, ctx, true); });
        TW.text(svg, x + 24 + hand.length * 18, row + 16, TW.count(hand.length, "card") + " in hand", { "font-size": G.label });
      } else {
        TW.text(svg, x + 18, row + 16, TW.count(st.hand_sizes[s], "card") + " in hand", { "font-size": G.small, fill: "#567" });
      }
      y = row + (narrow ? 58 : 48);
    }
    const discards = CARDS.filter(function (c) { return st.discards[c]; })
      .map(function (c) { return c + " ×" + st.discards[c]; }).join(", ");
    y = TW.textLines(svg, x, y + 4, "Deck: " + TW.count(st.deck, "card") + ". Discards: " + (discards || "none") + ".",
      chars, lead, { "font-size": G.small });
    if (st.mutiny) {
      y = TW.textLines(svg, x, y + lead + 4, TW.plain(mutinyWords(st.mutiny), ctx), chars, lead,
        { "font-size": G.small, "font-weight": "bold", class: "mutiny" });
    }
    TW.setHeight(svg, Math.max(narrow ? 0 : G.height, y + 24), background);
    return svg;
  };

  // -- words ------------------------------------------------------------------
  const drawer = TW.drawers.meuterer;
  drawer.scoreUnit = "points";

  /* Where on the board a person clicks for an action (live tables, table.js): a card
     of the hand and the island it is offered to (a card, then an island, or the other
     way round), the promise card for a promise. */
  drawer.targets = function (action) {
    switch (action.type) {
      case "play": {
        const held = '.in-hand[data-card="' + action.card + '"]';
        return action.island === null || action.island === undefined
          ? [held] : [held, '.island[data-island="' + action.island + '"]'];
      }
      case "promise": return [".promise"];
      default: return [];
    }
  };
  drawer.pauseTitle = function (round) { return "End of round " + round; };

  function mutinyWords(m) {
    const sides = "the captain's side " + m.captain_strength + ", the mutineer's side " + m.mutineer_strength;
    return m.winner === "mutineer"
      ? say`Mutiny! ${sides}: the mutineer takes the ship`
      : say`Mutiny fails: ${sides}: the captain holds the ship`;
  }

  function cardWords(card, island, st) {
    if (card === "conflict") return "a conflict card";
    return "a " + card + " card at " + islandName(st, island);
  }

  drawer.describeEvent = function (e, ctx) {
    const who = ctx.seat(e.seat);
    const st = ctx.state || ctx.start;
    switch (e.event) {
      case "round": return say`Round ${e.round} begins; ${ctx.seat(e.captain)} is captain`;
      case "draw": return say`${who} draws ${TW.count(e.cards, "card")}`;
      case "reshuffle": return say`The discards are shuffled into a new deck of ${TW.count(e.cards, "card")}`;
      case "promise": return say`Captain ${who} promises the boatswain ${TW.count(e.points, "point")}`;
      case "play": return say`${who} plays ${cardWords(e.card, e.island, st)}`;
      case "pass": return say`${who} passes, keeping ${TW.count(e.reserved, "card")} in reserve`;
      case "destination": return say`Captain ${who}'s course: ${islandName(st, e.island)}`;
      case "character_taken": return say`${who} takes a character card, face down`;
      case "reveal": {
        const parts = ["Characters revealed: "];
        let first = true;
        e.characters.forEach(function (name, seat) {
          if (!name) return;
          if (!first) parts.push(", ");
          first = false;
          parts.push(ctx.seat(seat), " is " + (CHARACTER_WORDS[name] || name));
        });
        if (first) parts.push("none");
        return parts;
      }
      case "mutineer_destination": return say`Mutineer ${who}'s course: ${islandName(st, e.island)}`;
      case "mutiny_add":
        return e.conflicts
          ? say`${who} adds ${TW.count(e.conflicts, "conflict card")} to the mutiny`
          : say`${who} adds no conflict card to the mutiny`;
      case "mutiny": return mutinyWords(e);
      case "score": {
        const why = String(e.reason).startsWith("island ")
          ? "for goods sold at " + islandName(st, Number(String(e.reason).slice(7)))
          : "for their role";
        return say`${who} scores ${TW.count(e.points, "point")} ${why}`;
      }
      case "sail": return say`The ship sails from ${islandName(st, e.departure)} to ${islandName(st, e.arrival)}`;
      case "discard": return say`${who}, the stevedore, discards ${TW.listWords(e.cards)}`;
      case "game_over": return say`The last round is over: the game ends`;
      default: return null;
    }
  };

  drawer.describeAction = function (a, ctx, seat) {
    const who = ctx.seat(seat);
    const st = ctx.start || ctx.state;
    switch (a.type) {
      case "promise": return say`${who} promises ${TW.count(a.points, "point")}`;
      case "play": return say`${who} plays ${cardWords(a.card, a.island, st)}`;
      case "pass": return say`${who} passes`;
      case "character": return say`${who} takes ${CHARACTER_WORDS[a.name] || a.name}`;
      case "mutiny": return say`${who} adds ${TW.count(a.conflicts, "conflict")} to the mutiny`;
      case "discard": return say`${who} discards ${TW.listWords(a.cards)}`;
      default: return null;
    }
  };

  drawer.status = function (frame, ctx) {
    const st = frame.state;
    const summary = ctx.summary;
    const captain = ctx.seat(st.captain);
    if (frame.stage === "pause") {
      return say`End of round ${st.round} of ${st.rounds}: the cards, characters and scores of the round, the ship at its new island (Next › clears the table). Captain: ${captain}.`;
    }
    if (summary.finished && frame.step === summary.steps) return say`Game over after ${TW.count(st.rounds, "round")}.`;
    const parts = say`Round ${st.round} of ${st.rounds}: ${PHASE_WORDS[st.phase] || st.phase}`;
    if (frame.to_move !== null && frame.to_move !== undefined) parts.push(...say`; ${ctx.seat(frame.to_move)} to move`);
    parts.push(...say`. Captain: ${captain}`);
    if (st.promise !== null && st.promise !== undefined) parts.push(", promising " + TW.count(st.promise, "point"));
    parts.push(". The ship is at " + islandName(st, st.ship) + ".");
    return parts;
  };

  drawer.legend = function () {
    const cardIcon = function (name) {
      return function (svg) {
        TW.el("rect", { x: 6, y: 1, width: 14, height: 20, rx: 2, fill: CARD_FILL[name], stroke: "#333", "stroke-width": 1.5 }, svg);
      };
    };
    const items = CARDS.map(function (name) { return { icon: cardIcon(name), text: name + (name === "conflict" ? "" : " card") }; });
    return items.concat([
      { icon: function (svg) {
        TW.el("rect", { x: 6, y: 1, width: 14, height: 20, rx: 2, fill: CARD_FILL.wine, stroke: TW.seatColour(1), "stroke-width": 2.5 }, svg);
      }, text: "a card on the table, outlined in the colour of the seat that played it" },
      { icon: function (svg) { TW.el("circle", { cx: 14, cy: 11, r: 9, fill: "#c8e6a0", stroke: "#2e7d32", "stroke-width": 2.5 }, svg); },
        text: "active island: takes goods this round" },
      { icon: function (svg) { TW.el("circle", { cx: 14, cy: 11, r: 9, fill: "#d5d2c8", stroke: "#8a8577" }, svg); },
        text: "inactive island" },
      { icon: function (svg) { TW.el("rect", { x: 7, y: 5, width: 14, height: 10, fill: CARD_FILL.cloth, stroke: "#333" }, svg); },
        text: "square on an island: the good it buys; nav: its navigation value" },
      { icon: function (svg) {
        TW.el("path", { d: "M4,12 h20 l-4,8 h-12 z", fill: "#6e4b2a", stroke: "#222" }, svg);
        TW.el("path", { d: "M14,12 v-11 l8,7 z", fill: "#fff", stroke: "#222" }, svg);
      }, text: "the ship" },
      { icon: function (svg) {
        TW.el("rect", { x: 6, y: 1, width: 16, height: 20, rx: 2, fill: "#fff7d6", stroke: "#8a6d1d", "stroke-width": 1.5 }, svg);
        TW.text(svg, 14, 16, "2", { "text-anchor": "middle", "font-size": 12, "font-weight": "bold", fill: "#5a4a10" });
      }, text: "promise card: the points the captain promises the boatswain" },
    ]);
  };
})(window.Tradewinds);
