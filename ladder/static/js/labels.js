/* Tradewinds replay viewer: place names on a map, laid out by its geometry.
   Each name gets a size in screen pixels whatever the zoom, and the first spot
   around its circle (right, left, above, below, then the diagonals) where it
   stays inside the view and touches no circle, mark or other name (a little
   farther out when none is free close by). Important
   places go first; a name that fits nowhere is shortened (a main port's down
   to its last two words), and one that still does not fit is left out: its
   circle keeps the name as a tooltip, and zooming in makes room for it. */
"use strict";

window.Tradewinds = window.Tradewinds || { drawers: {} };

(function (TW) {
  const TIER = { lisboa: 0, calecute: 0, cape: 0, place: 1, sea: 2, dashed: 3 };
  const CIRCLE_R = 8; // the map's circles (r 7) and their stroke
  const ASCENT = 0.95; // of the font size, above the baseline (with a little room)
  const DESCENT = 0.28;

  /* "Cabo da Boa Esperança" -> "C. da B. Esperança": long words but the last to initials. */
  TW.shortName = function (name) {
    const words = String(name).split(" ");
    return words.map(function (word, i) {
      return i < words.length - 1 && word.length > 3 ? word[0] + "." : word;
    }).join(" ");
  };

  function tierOf(circle) {
    return TIER[circle.kind] === undefined ? 9 : TIER[circle.kind];
  }

  function overlaps(a, b, pad) {
    return a[0] < b[2] + pad && b[0] < a[2] + pad && a[1] < b[3] + pad && b[1] < a[3] + pad;
  }

  /* Whether boxes [x0, y0, x1, y1] `a` and `b` come closer than `pad` (the drawers' marks). */
  TW.boxesMeet = overlaps;

  /* Where each name goes: [{id, text, x, y (baseline, text starts at x), size, secondary, bold, box,
     leader: [x1, y1, x2, y2] or null}].
     `circles`: [{id, kind, at: [x, y], name}]; `view`: [x, y, w, h] of the map shown;
     `scale`: CSS pixels per map unit; `taken`: boxes [x0, y0, x1, y1] already drawn on;
     `rings`: {id: radius} of circles drawn larger (rings around discovered places);
     `tiers`: [lowest, highest] tier named (0 the main ports ... 3 skipped sea), all if left out. */
  TW.placeLabels = function (circles, view, scale, taken, rings, narrow, tiers) {
    const radius = function (c) { return Math.max(CIRCLE_R, (rings && rings[c.id]) || 0); };
    const unit = 1 / scale; // one CSS pixel in map units
    const gap = 2.5 * unit;
    const pad = 2 * unit;
    const inside = [view[0] + 2 * unit, view[1] + 2 * unit, view[0] + view[2] - 2 * unit, view[1] + view[3] - 2 * unit];
    const named = function (c) { return !tiers || (tierOf(c) >= tiers[0] && tierOf(c) <= tiers[1]); };
    const shown = circles.filter(function (c) {
      return c.at && named(c) && c.at[0] >= view[0] && c.at[0] <= view[0] + view[2] && c.at[1] >= view[1] && c.at[1] <= view[1] + view[3];
    });
    const blocked = taken.slice();
    const circleBox = new Map();
    const seaBoxes = new Set(); // circles of open sea, which the main ports' names may cover
    for (const c of circles) {
      if (!c.at) continue;
      const r = radius(c);
      const box = [c.at[0] - r, c.at[1] - r, c.at[0] + r, c.at[1] + r];
      circleBox.set(c.id, box);
      if (tierOf(c) >= 2 && r === CIRCLE_R) seaBoxes.add(box);
      blocked.push(box);
    }
    const order = shown.slice().sort(function (a, b) { return tierOf(a) - tierOf(b); });
    const placed = [];
    for (const c of order) {
      const tier = tierOf(c);
      const secondary = tier >= 2;
      const px = secondary ? (narrow ? 10 : 10.5) : tier === 0 ? 13 : narrow ? 11.5 : 12;
      const size = px * unit;
      const texts = [c.name];
      const short = TW.shortName(c.name);
      if (short !== c.name) texts.push(short);
      // A main port's long name has a last resort: its last two words ("Boa Esperança").
      const words = c.name.split(" ");
      if (tier === 0 && words.length > 2) texts.push(words.slice(-2).join(" "));
      // Close to the circle first (the full name, then the short one), then farther
      // out with a leader line; the main ports may go farther than the rest (past
      // the fleets that gather there on a phone's screen, Lisboa's at the start).
      const distances = tier === 0 ? [0, 6, 14, 26, 40, 60] : [0, 6, 14];
      let spot = null;
      for (let k = 0; k < distances.length && !spot; k++) {
        for (const text of texts) {
          spot = fit(c, text, size, tier === 0, distances[k] * unit, tier === 0 ? seaBoxes : null);
          if (spot) break;
        }
      }
      if (!spot) continue;
      blocked.push(spot.box);
      placed.push({ id: c.id, text: spot.text, x: spot.x, y: spot.y, size: size, secondary: secondary,
        bold: tier === 0, box: spot.box, leader: spot.leader });
    }
    return placed;

    function fit(c, text, size, bold, far, ignored) {
      const w = TW.textWidth(text, size, bold) * 1.03;
      const [cx, cy] = c.at;
      const up = DESCENT * size; // baseline to the box's bottom
      const down = ASCENT * size; // box top to the baseline
      const r = radius(c) + gap + far;
      const d = r * 0.75;
      const spots = [
        [cx + r, cy + 0.34 * size], [cx - r - w, cy + 0.34 * size],
        [cx - w / 2, cy - r - up], [cx - w / 2, cy + r + down],
        [cx + d, cy - d - up], [cx + d, cy + d + down], [cx - d - w, cy - d - up], [cx - d - w, cy + d + down],
      ];
      // A main port's name set apart may also lie between those eight ways, its edge at r.
      if (bold && far) {
        for (let k = 1; k < 16; k += 2) {
          const ux = Math.cos(k * Math.PI / 8);
          const uy = Math.sin(k * Math.PI / 8);
          const middle = cy + uy * r + uy * (up + down) / 2; // the box's middle, height-wise
          spots.push([cx + ux * r + (ux - 1) * w / 2, middle + (down - up) / 2]);
        }
      }
      const own = circleBox.get(c.id);
      for (const [x, y] of spots) {
        const box = [x, y - down, x + w, y + up];
        if (box[0] < inside[0] || box[1] < inside[1] || box[2] > inside[2] || box[3] > inside[3]) continue;
        const hit = blocked.some(function (other) {
          return other !== own && !(ignored && ignored.has(other)) && overlaps(box, other, pad);
        });
        if (hit) continue;
        return { text: text, x: x, y: y, box: box, leader: far ? leader(c, box) : null };
      }
      return null;
    }

    /* A line from the circle's edge to the nearest point of a name set apart from it. */
    function leader(c, box) {
      const [cx, cy] = c.at;
      const nx = Math.min(Math.max(cx, box[0]), box[2]);
      const ny = Math.min(Math.max(cy, box[1]), box[3]);
      const length = Math.hypot(nx - cx, ny - cy) || 1;
      const r = radius(c);
      return [cx + (nx - cx) * r / length, cy + (ny - cy) * r / length, nx, ny];
    }
  };
})(window.Tradewinds);
