/* Caravelas board drawer: the house map (drawn on the server by
   engine/caravelas/svg.py and sent once with the summary) with each seat's
   fleet, discoveries and the cubes left at each trading place; place names
   laid out for the scale the map is seen at (labels.js); the seats under the
   map as HTML; and Caravelas' words for its events and moves. The map zooms
   and pans (zoom.js).
   On a small screen the marks grow to stay readable, so they are laid out by
   priority, each clear of those before it: the fleets (moved aside where
   another fleet is, never left out), the main ports' names, the cube counts,
   then the other names: the places, the open sea. A count or a name with no free spot is left
   out at this scale and comes back as the map is zoomed in. */
"use strict";

(function (TW) {
  const say = TW.say;
  let mapCache = null; // [svg text, parsed <svg>, circles]
  const LIGHT_CUBES = ["white", "yellow", "pink"];

  /* The map document parsed once, and its circles: id, kind, centre. */
  function parsedMap(board) {
    if (!mapCache || mapCache[0] !== board.svg) {
      const doc = new DOMParser().parseFromString(board.svg, "image/svg+xml");
      const circles = Array.from(doc.querySelectorAll("g[id^='circle-']")).map(function (g) {
        const id = g.id.slice("circle-".length);
        return { id: id, kind: g.getAttribute("class"), at: board.where[id], name: board.names[id] || id };
      });
      mapCache = [board.svg, doc.documentElement, circles];
    }
    return { svg: mapCache[1], circles: mapCache[2] };
  }

  function placeName(ctx, id) {
    return (ctx.board && ctx.board.names[id]) || id;
  }

  TW.drawers.caravelas = function (frame, summary, ctx) {
    ctx = ctx || TW.context(summary);
    const st = frame.state;
    const board = summary.board;
    const parsed = parsedMap(board);
    const map = parsed.svg;
    const width = Number(map.getAttribute("width"));
    const height = Number(map.getAttribute("height"));
    const svg = TW.svgRoot(width, height, "Caravelas map at step " + frame.step);
    const view = TW.zoomBox(width, height, ctx.zoom);
    svg.setAttribute("viewBox", view.map(function (v) { return v.toFixed(1); }).join(" "));
    // CSS pixels per map unit, as the board is shown now (the svg never grows past its width).
    const frameWidth = (document.getElementById("board") || {}).clientWidth || width;
    const scale = Math.min(frameWidth, width) / view[2];
    // Marks keep a readable size on a small screen: grown about their place,
    // and nudged back into the view near its edges.
    const grow = Math.max(1, 0.95 / scale);
    const edges = [view[0] + 2, view[1] + 2, view[0] + view[2] - 2, view[1] + view[3] - 2];
    const pad = 1.5 / scale; // CSS px kept free between two marks, in map units
    /* A mark's box around the place (x, y) as drawn: grown, shifted into the view. */
    const fitted = function (x, y, box) {
      const shift = function (lo, hi, at, min, max) {
        const low = at + (lo - at) * grow;
        const high = at + (hi - at) * grow;
        return low < min ? min - low : high > max ? max - high : 0;
      };
      // A place out of view keeps its marks with it, out of view too.
      const seen = x >= view[0] && x <= view[0] + view[2] && y >= view[1] && y <= view[1] + view[3];
      const dx = seen ? shift(box[0], box[2], x, edges[0], edges[2]) : 0;
      const dy = seen ? shift(box[1], box[3], y, edges[1], edges[3]) : 0;
      return {
        at: box, // where the shapes are drawn, before the transform
        box: [x + dx + (box[0] - x) * grow, y + dy + (box[1] - y) * grow,
          x + dx + (box[2] - x) * grow, y + dy + (box[3] - y) * grow],
        transform: grow !== 1 || dx || dy
          ? "translate(" + (x + dx) + " " + (y + dy) + ") scale(" + grow + ") translate(" + -x + " " + -y + ")"
          : null,
      };
    };
    /* The first of `boxes` around the place (x, y) that, as drawn, is clear of every
       box in `marks`; null when none is. */
    const firstFree = function (x, y, boxes, marks) {
      for (const box of boxes) {
        const spot = fitted(x, y, box);
        if (!marks.some(function (other) { return TW.boxesMeet(spot.box, other, pad); })) return spot;
      }
      return null;
    };
    /* Of `boxes` around the place (x, y), the one that, as drawn, covers least of `marks`. */
    const leastCovered = function (x, y, boxes, marks) {
      const covered = function (spot) {
        return marks.reduce(function (sum, o) {
          const b = spot.box;
          return sum + Math.max(0, Math.min(b[2], o[2]) - Math.max(b[0], o[0])) * Math.max(0, Math.min(b[3], o[3]) - Math.max(b[1], o[1]));
        }, 0);
      };
      return boxes.map(function (box) { return fitted(x, y, box); })
        .reduce(function (best, spot) { return covered(spot) < covered(best) ? spot : best; });
    };
    const markGroup = function (spot, attrs) {
      const g = TW.el("g", attrs, svg);
      if (spot.transform) g.setAttribute("transform", spot.transform);
      return g;
    };

    // The map itself, moved into one group (the board holds a single <svg>);
    // its own names are left out: the labels below are placed for this scale.
    const base = TW.el("g", { class: "map" }, svg);
    for (const child of Array.from(map.childNodes)) {
      if (child.nodeType === 1) base.appendChild(document.importNode(child, true));
    }
    for (const name of Array.from(base.querySelectorAll("g[id^='circle-'] > text"))) name.remove();
    const where = board.where;
    const labels = TW.el("g", { class: "labels" }, svg);
    const taken = []; // boxes of the marks drawn: later marks and the names leave them free
    const rings = {}; // place -> radius of its outermost discovery ring

    // Discoveries: a ring in the discoverer's colour.
    st.discovered.forEach(function (places, s) {
      places.forEach(function (place) {
        const at = where[place];
        if (!at) return;
        const r = (10 + s * 2.5) * Math.sqrt(grow);
        rings[place] = Math.max(rings[place] || 0, r + 1);
        const ring = TW.el("circle", { cx: at[0], cy: at[1], r: r, fill: "none",
          stroke: TW.seatColour(s), "stroke-width": 2 * Math.sqrt(grow), class: "discovery" }, svg);
        TW.title(ring, board.names[place] + " discovered by " + ctx.name(s));
      });
    });

    // Fleets first, never left out: the boats at one place side by side, below it,
    // or above, right or left of it where that is taken, a little farther if need be.
    const fleetsAt = new Map();
    st.fleets.forEach(function (place, s) {
      if (!where[place]) return;
      if (!fleetsAt.has(place)) fleetsAt.set(place, []);
      fleetsAt.get(place).push(s);
    });
    for (const [place, seats] of fleetsAt) {
      const at = where[place];
      const w = 26 * seats.length; // boats side by side, hull tops touching
      const spots = [];
      for (const far of [0, 14, 30]) {
        const x = at[0] - w / 2;
        const [below, above] = [at[1] + 2 + far, at[1] - 32 - far];
        const [right, left] = [at[0] + 9 + far, at[0] - 9 - far - w];
        spots.push([x, below, x + w, below + 30], [x, above, x + w, above + 30],
          [right, at[1] - 15, right + w, at[1] + 15], [left, at[1] - 15, left + w, at[1] + 15],
          [right, below, right + w, below + 30], [left, below, left + w, below + 30],
          [right, above, right + w, above + 30], [left, above, left + w, above + 30]);
      }
      const spot = firstFree(at[0], at[1], spots, taken) || leastCovered(at[0], at[1], spots, taken);
      taken.push(spot.box);
      seats.forEach(function (s, k) {
        const x = spot.at[0] + 13 + 26 * k;
        const y = spot.at[1] + 24;
        const g = markGroup(spot, { class: "fleet", "data-seat": s });
        TW.el("path", { d: "M" + (x - 13) + "," + (y - 6) + " h26 l-6,12 h-14 z", fill: TW.seatColour(s), stroke: "#000", "stroke-width": 1.5 }, g);
        TW.el("path", { d: "M" + x + "," + (y - 6) + " v-18 l12,12 z", fill: "#fff", stroke: "#000" }, g);
        TW.text(g, x, y + 4, s, { "text-anchor": "middle", "font-size": 9, fill: "#fff", "font-weight": "bold" });
        TW.title(g, ctx.name(s) + "'s fleet at " + (board.names[place] || place));
      });
    }

    // The main ports' names next (Lisboa, Calecute, the Cape), then the cube counts and
    // the other names, each clear of all before it.
    const names = function (tiers) {
      const placed = TW.placeLabels(parsed.circles, view, scale, taken, rings, frameWidth < 640, tiers);
      for (const label of placed) taken.push(label.box);
      return placed;
    };
    const mainNames = names([0, 0]);

    // Cubes still waiting at each trading place: right of it, or left, above, below or
    // a corner where that is taken; left out (shown once zoomed in) where none is free.
    for (const [colour, place] of Object.entries(board.cube_places)) {
      const at = where[place];
      if (!at) continue;
      const left = st.cubes[colour];
      const spots = [];
      for (const far of [0, 8]) {
        const [right, left, above, below] = [at[0] + 12 + far, at[0] - 26 - far, at[1] - 24 - far, at[1] + 11 + far];
        spots.push([right, at[1] - 13, right + 14, at[1]], [left, at[1] - 13, left + 14, at[1]],
          [at[0] - 7, above, at[0] + 7, above + 13], [at[0] - 7, below, at[0] + 7, below + 13],
          [right, above, right + 14, above + 13], [left, above, left + 14, above + 13],
          [right, below, right + 14, below + 13], [left, below, left + 14, below + 13]);
      }
      const spot = firstFree(at[0], at[1], spots, taken);
      if (!spot) continue;
      taken.push(spot.box);
      const [tx, ty] = spot.at;
      const tag = markGroup(spot, { class: "cube-count", "data-place": place });
      TW.el("rect", { x: tx, y: ty, width: 14, height: 13, rx: 2,
        fill: left ? board.cube_fill[colour] : "#ccc", stroke: "#000" }, tag);
      TW.text(tag, tx + 7, ty + 10, left, { "text-anchor": "middle", "font-size": 10,
        fill: LIGHT_CUBES.indexOf(colour) >= 0 ? "#000" : "#fff" });
      TW.title(tag, left + " " + colour + " cubes left at " + (board.names[place] || place));
    }

    // Names last but under the marks: placed where nothing else is.
    const placed = mainNames.concat(names([1, 9]));
    for (const label of placed) {
      if (label.leader) {
        const [x1, y1, x2, y2] = label.leader;
        TW.el("line", { x1: x1, y1: y1, x2: x2, y2: y2, stroke: "#0b2233", "stroke-width": (0.8 / scale).toFixed(2),
          class: "leader" }, labels);
      }
      TW.text(labels, label.x, label.y, label.text, {
        class: "place-label" + (label.secondary ? " secondary" : ""), "data-place": label.id,
        "font-size": label.size.toFixed(2), "font-weight": label.bold ? "bold" : null, fill: label.secondary ? "#29465b" : "#0b2233",
        stroke: "#d7ebf8", "stroke-width": (label.size * 0.22).toFixed(2), "paint-order": "stroke",
        "stroke-linejoin": "round",
      });
    }
    svg.insertBefore(labels, base.nextSibling);
    return svg;
  };

  // -- what the drawer adds around the board -------------------------------------
  const drawer = TW.drawers.caravelas;
  drawer.zoomable = true;

  /* Where on the map a person clicks for an action (live tables, table.js): the
     destination of a move, its circle or its name. */
  drawer.targets = function (action) {
    if (action.type !== "move") return [];
    return ['[id="circle-' + action.to + '"]', '.place-label[data-place="' + action.to + '"]'];
  };
  drawer.scoreUnit = "points";

  /* The seats under the map: points, where, discoveries, cargo, sunk caravels, cards. */
  drawer.panel = function (frame, summary, ctx) {
    const st = frame.state;
    const board = summary.board;
    const list = document.createElement("ul");
    list.className = "seat-rows";
    for (let s = 0; s < summary.players; s++) {
      const row = document.createElement("li");
      row.dataset.seat = String(s);
      if (frame.to_move === s) row.classList.add("to-move");
      const head = document.createElement("p");
      head.className = "seat-head";
      head.appendChild(TW.render(say`${ctx.seat(s)}: ${TW.count(st.scores[s], "point")}, fleet at ${placeName(ctx, st.fleets[s])}, ${TW.count(st.discovered[s].length, "discovery", "discoveries")}`, ctx));
      row.appendChild(head);
      const cargo = document.createElement("p");
      cargo.className = "seat-cargo";
      cargo.append("Cargo: ");
      if (!st.cargo[s].length) cargo.append("none");
      for (const colour of st.cargo[s]) {
        const cube = TW.icon(14, 14, function (icon) {
          TW.el("rect", { x: 1, y: 1, width: 12, height: 12, fill: board.cube_fill[colour] || "#999", stroke: "#000" }, icon);
        });
        TW.title(cube, colour + " cube");
        cargo.append(cube, " ");
      }
      if (st.sunk[s].length) cargo.append(" · sunk: caravel " + TW.listWords(st.sunk[s]));
      row.appendChild(cargo);
      const own = TW.privateOf(st, s);
      const counts = st.discovery_counts[s];
      const cards = document.createElement("p");
      cards.className = "seat-cards muted";
      if (own && own.movement) {
        cards.textContent = "Movement cards: " + (own.movement.join(", ") || "none") + ". Discovery cards: "
          + (own.discovery_cards.map(function (p) { return placeName(ctx, p); }).join(", ") || "none") + "."
          + (own.drawn && own.drawn.length ? " Choosing from: " + own.drawn.map(function (p) { return placeName(ctx, p); }).join(", ") + "." : "");
      } else {
        cards.textContent = TW.count(st.movement_counts[s], "movement card") + "; discovery cards: "
          + counts.green + " green, " + counts.yellow + " yellow.";
      }
      row.appendChild(cards);
      list.appendChild(row);
    }
    return list;
  };

  drawer.status = function (frame, ctx) {
    const st = frame.state;
    const who = ctx.seat(st.turn);
    let parts;
    if (st.phase === "over") {
      parts = say`Game over after round ${st.round}. The final scores add 2 points per cube a fleet carries away from Lisboa and take 2 per discovery card not discovered; the seats below show the points before that.`;
    } else if (st.phase === "keep") {
      parts = say`Round ${st.round}: ${who} chooses which of ${TW.count(st.drawn_count, "drawn discovery card")} to keep.`;
    } else if (st.phase === "sink") {
      parts = say`Round ${st.round}: the die at the Cape showed 1, ${who} must sink a caravel.`;
    } else if (st.phase === "discard") {
      parts = say`Round ${st.round}: ${who} ends the turn and may discard movement cards.`;
    } else {
      parts = say`Round ${st.round}: ${who} is sailing, ${TW.count(st.cards_played, "card")} played this turn${st.turn_closed ? " (the turn is closed: only drawing or ending it remains)" : ""}.`;
    }
    if (st.phase === "over") return parts;
    parts.push(" Jerónimos: " + st.jeronimos + " of " + st.jeronimos_size + " filled. Movement deck: "
      + TW.count(st.movement_deck, "card") + "; discovery pile: " + TW.count(st.discovery_pile, "card") + ".");
    if (st.end_triggered && st.phase !== "over") parts.push(" The end is triggered: this round is the last.");
    return parts;
  };

  drawer.legend = function (ctx) {
    const board = ctx.board;
    const circle = function (fill, dashed) {
      return function (svg) {
        TW.el("circle", { cx: 14, cy: 11, r: 7, fill: fill, stroke: "#1b4f72", "stroke-dasharray": dashed ? "3,2" : null }, svg);
      };
    };
    return [
      { icon: function (svg) {
        TW.el("path", { d: "M4,13 h20 l-5,8 h-10 z", fill: TW.seatColour(0), stroke: "#000" }, svg);
        TW.el("path", { d: "M14,13 v-12 l9,8 z", fill: "#fff", stroke: "#000" }, svg);
      }, text: "a seat's fleet, in its colour" },
      { icon: function (svg) {
        TW.el("circle", { cx: 14, cy: 11, r: 5, fill: "#f5e6b3", stroke: "#1b4f72" }, svg);
        TW.el("circle", { cx: 14, cy: 11, r: 9, fill: "none", stroke: TW.seatColour(1), "stroke-width": 2 }, svg);
      }, text: "a place that seat discovered" },
      { icon: function (svg) {
        TW.el("rect", { x: 6, y: 4, width: 15, height: 14, rx: 2, fill: board.cube_fill.blue, stroke: "#000" }, svg);
        TW.text(svg, 13.5, 15, "3", { "text-anchor": "middle", "font-size": 11, fill: "#fff" });
      }, text: "cubes of that colour left at a trading place" },
      { icon: circle("#c0392b"), text: "Lisboa and Calecute: draw discovery cards; Lisboa takes deliveries" },
      { icon: circle("#2c3e50"), text: "the Cape: the fleet stops and rolls the die" },
      { icon: circle("#f5e6b3"), text: "a place to discover" },
      { icon: circle("#ffffff"), text: "open sea" },
      { icon: circle("#d6eaf8", true), text: "sea skipped when following an arrow" },
      { icon: function (svg) {
        TW.el("line", { x1: 2, y1: 11, x2: 22, y2: 11, stroke: "#2471a3", "stroke-width": 2 }, svg);
        TW.el("path", { d: "M20,6 L27,11 L20,16 z", fill: "#2471a3" }, svg);
      }, text: "wind or current: one move along it" },
    ];
  };

  // -- words ------------------------------------------------------------------
  drawer.describeEvent = function (e, ctx) {
    const who = ctx.seat(e.seat);
    switch (e.event) {
      case "move": return say`${who} sails ${TW.count(e.card, "move")} to ${placeName(ctx, e.to)}`;
      case "discover": return say`${who} discovers ${placeName(ctx, e.place)}: ${TW.count(e.points, "point")}`;
      case "collect": return say`${who} loads a ${e.colour} cube`;
      case "deliver": {
        const what = e.cubes && e.cubes.length ? "delivers " + TW.listWords(e.cubes) + " cubes for " + TW.count(e.points, "point") : "delivers nothing";
        const fixed = e.repaired && e.repaired.length ? " and repairs caravel " + TW.listWords(e.repaired) : "";
        return say`At Lisboa ${who} ${what}${fixed}`;
      }
      case "roll": return e.face
        ? say`At the Cape ${who} rolls a 1: a caravel must sink`
        : say`At the Cape ${who} rolls a 0: safe passage`;
      case "no_disc": return say`No black disc is left: none of ${who}'s caravels sinks`;
      case "sink": return say`${who}'s caravel ${e.caravel} sinks${e.cubes && e.cubes.length ? ", losing " + TW.listWords(e.cubes) + " cubes" : ""}`;
      case "wrecked": return say`All of ${who}'s caravels are sunk: the fleet is towed home to Lisboa and repaired`;
      case "draw": return say`${who} draws ${TW.count(e.cards, "discovery card")}`;
      case "keep": return say`${who} keeps ${e.kept} and puts ${e.returned} under the pile`;
      case "discard": return e.cards && e.cards.length
        ? say`${who} discards movement cards ${TW.listWords(e.cards)}`
        : say`${who} keeps all movement cards`;
      case "reshuffle": return say`The used movement cards are shuffled into a new deck of ${TW.count(e.cards, "card")}`;
      case "end_turn": return say`${who} ends the turn`;
      case "end_triggered": {
        const why = { score: "reached 100 points", jeronimos: "filled the last Jerónimos circle", round_limit: "hit the round limit" }[e.reason] || e.reason;
        return say`${who} ${why}: this round is the last`;
      }
      case "game_over": return say`The game is over`;
      default: return null;
    }
  };

  drawer.describeAction = function (a, ctx, seat) {
    const who = ctx.seat(seat);
    switch (a.type) {
      case "move": return say`${who} sails ${TW.count(a.card, "move")} to ${placeName(ctx, a.to)}`;
      case "draw": return say`${who} draws discovery cards`;
      case "keep": return say`${who} keeps ${TW.listWords(a.places.map(function (p) { return placeName(ctx, p); }))}`;
      case "sink": return say`${who} sinks caravel ${a.caravel}`;
      case "discard": return a.cards.length
        ? say`${who} discards movement cards ${TW.listWords(a.cards)}`
        : say`${who} keeps all movement cards`;
      case "end_turn": return say`${who} ends the turn`;
      default: return null;
    }
  };
})(window.Tradewinds);
