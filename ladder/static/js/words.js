/* Tradewinds replay viewer: sentences about seats. A drawer words its game's
   events and actions as a list of parts (plain strings, and {seat: n} where a
   bot is named), so the viewer can show each bot's name beside its colour and
   a test or a tooltip can read the same sentence as plain text. */
"use strict";

window.Tradewinds = window.Tradewinds || { drawers: {} };

(function (TW) {
  /* A tagged template: TW.say`${who} bids ${5}` -> [{seat}, " bids ", "5"]. */
  TW.say = function (strings) {
    const values = Array.prototype.slice.call(arguments, 1);
    const parts = [];
    strings.forEach(function (text, i) {
      if (text) parts.push(text);
      if (i < values.length) {
        const value = values[i];
        parts.push(value !== null && typeof value === "object" && !Array.isArray(value) ? value : String(value));
      }
    });
    return parts;
  };

  /* "jade, silk and nutmeg" */
  TW.listWords = function (items) {
    const words = items.map(String);
    if (words.length < 2) return words.join("");
    return words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
  };

  /* "1 card", "3 cards" */
  TW.count = function (n, one, many) {
    return n + " " + (n === 1 ? one : many || one + "s");
  };

  TW.ordinal = function (n) {
    const tens = n % 100;
    const suffix = tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] || "th";
    return n + suffix;
  };

  /* A bot's short name from its seat label: "alice/corsair v3" -> "corsair". */
  function shortName(label) {
    const text = String(label || "").trim();
    const name = text.replace(/\s+v\d+$/, "").replace(/^.*\//, "");
    return name || text;
  }

  /* What drawers and the viewer share about the seats of one replay. */
  TW.context = function (summary) {
    const labels = summary.seats || [];
    const names = labels.map(shortName);
    // Two seats of one bot (self-play, or two versions) keep their seat number.
    const shown = names.map(function (name, seat) {
      if (!name) return "seat " + seat;
      return names.indexOf(name) !== names.lastIndexOf(name) ? name + " (seat " + seat + ")" : name;
    });
    return {
      summary: summary,
      board: summary.board,
      zoom: null,
      name: function (seat) { return shown[seat] !== undefined ? shown[seat] : "seat " + seat; },
      label: function (seat) { return labels[seat] || "seat " + seat; },
      seat: function (seat) { return { seat: seat }; },
    };
  };

  /* Parts as DOM: a bot's name in bold after a square of its seat colour. */
  TW.render = function (parts, ctx) {
    const fragment = document.createDocumentFragment();
    for (const part of parts || []) {
      if (part && typeof part === "object") {
        const who = document.createElement("span");
        who.className = "who";
        const swatch = document.createElement("span");
        swatch.className = "swatch seat-" + (part.seat % TW.SEAT_COLOURS.length);
        swatch.setAttribute("aria-hidden", "true");
        const name = document.createElement("b");
        name.textContent = ctx.name(part.seat);
        who.append(swatch, name);
        who.title = "seat " + part.seat + ": " + ctx.label(part.seat);
        fragment.appendChild(who);
      } else {
        fragment.appendChild(document.createTextNode(String(part)));
      }
    }
    return fragment;
  };

  /* Parts as plain text (SVG labels, tooltips). */
  TW.plain = function (parts, ctx) {
    return (parts || []).map(function (part) {
      return part && typeof part === "object" ? ctx.name(part.seat) : String(part);
    }).join("");
  };

  /* A value as short text: lists joined, objects as key value pairs in key order. */
  function shortValue(value) {
    if (Array.isArray(value)) return "[" + value.map(shortValue).join(", ") + "]";
    if (value !== null && typeof value === "object") {
      return "{" + Object.keys(value).sort().map(function (k) { return k + " " + shortValue(value[k]); }).join(", ") + "}";
    }
    return String(value);
  }

  /* The words for what no drawer words: the kind, then the other fields in one
     order (a seat field named as a bot), as the server's action_text orders them. */
  TW.fallbackWords = function (item, kindKey, ctx) {
    const parts = [String(item[kindKey] === undefined ? "" : item[kindKey]).replace(/_/g, " ")];
    for (const key of Object.keys(item).sort()) {
      if (key === kindKey) continue;
      const value = item[key];
      parts.push(" · " + key.replace(/_/g, " ") + " ");
      if (key === "seat" && typeof value === "number") parts.push(ctx.seat(value));
      else parts.push(shortValue(value));
    }
    return parts;
  };

  /* A drawer's words for an event, or the fallback; never throws. `events` and
     `index` place it among its step's events (a payment may name what it paid for). */
  TW.eventWords = function (drawer, event, ctx, events, index) {
    try {
      const parts = drawer && drawer.describeEvent
        ? drawer.describeEvent(event, ctx, events || [event], index || 0) : null;
      if (parts) return parts;
    } catch (error) { /* a surprise field: fall back to the plain fields */ }
    return TW.fallbackWords(event, "event", ctx);
  };

  /* A drawer's words for a move (with the bot's name first), or the fallback. */
  TW.actionWords = function (drawer, seat, action, ctx) {
    try {
      const parts = drawer && drawer.describeAction ? drawer.describeAction(action, ctx, seat) : null;
      if (parts) return parts;
    } catch (error) { /* as above */ }
    return [ctx.seat(seat), ": "].concat(TW.fallbackWords(action || {}, "type", ctx));
  };
})(window.Tradewinds);
