/* Tradewinds replay viewer: the words around the board. The status line above
   it, the game-over banner, the drawer's own panel and legend, and "This move":
   the move and every event it caused, as sentences (words.js), nothing cut. */
"use strict";

window.Tradewinds = window.Tradewinds || { drawers: {} };

(function (TW) {
  const STATUS_WORDS = {
    ok: "finished",
    timeout: "timed out",
    crash: "crashed",
    invalid: "sent unreadable output",
    illegal: "made an illegal move",
    killed: "stopped at a limit",
  };

  /* A score as shown: whole numbers as such, anything else to one decimal. */
  TW.scoreText = function (score) {
    if (typeof score !== "number") return "—";
    return Number.isInteger(score) ? String(score) : score.toFixed(1);
  };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* The legend under the board, from the drawer (static for a replay). */
  function legend(viewer) {
    const box = viewer.$("board-legend");
    if (!box) return;
    const items = viewer.drawer.legend ? viewer.drawer.legend(viewer.ctx) : [];
    const list = box.querySelector("ul");
    list.textContent = "";
    for (const item of items) {
      const entry = el("li");
      if (item.icon) entry.appendChild(TW.icon(item.width || 28, item.height || 22, item.icon));
      entry.appendChild(el("span", "", item.text));
      list.appendChild(entry);
    }
    box.hidden = !items.length;
  }

  function update(viewer, shown, frame) {
    status(viewer, shown);
    gameOver(viewer, shown);
    const panel = viewer.$("board-panel");
    if (panel) {
      const drawer = viewer.drawer;
      panel.replaceChildren(drawer.panel ? drawer.panel(shown, viewer.summary, viewer.ctx) : "");
      panel.hidden = !drawer.panel;
    }
    thisMove(viewer, shown, frame);
  }

  function status(viewer, shown) {
    const line = viewer.$("board-status");
    if (!line) return;
    const ctx = viewer.ctx;
    let parts = viewer.drawer.status ? viewer.drawer.status(shown, ctx) || [] : [];
    if (shown.stage === "pause" && !viewer.drawer.status) {
      parts = [viewer.pauseTitle(shown.step) + ", before the board is cleared."];
    }
    if (viewer.view !== "spectator") parts = parts.concat([" · seen by ", ctx.seat(Number(viewer.view))]);
    line.replaceChildren(TW.render(parts, ctx));
    line.hidden = !parts.length;
  }

  /* At the last step of a finished game: who won, each seat's rank, score and status. */
  function gameOver(viewer, shown) {
    const box = viewer.$("game-over");
    if (!box) return;
    const summary = viewer.summary;
    const over = summary.finished && shown.step === summary.steps && shown.stage === "final";
    box.hidden = !over;
    if (!over) { box.textContent = ""; return; }
    const ctx = viewer.ctx;
    const scores = summary.result ? summary.result.scores : [];
    const ranks = summary.ranks || (summary.result ? summary.result.ranks : []);
    const statuses = summary.statuses || [];
    const unit = viewer.drawer.scoreUnit || "points";
    const order = scores.map(function (_, seat) { return seat; })
      .sort(function (a, b) { return ranks[a] - ranks[b] || a - b; });
    const winners = order.filter(function (seat) { return ranks[seat] === 1; });
    const heading = el("h3", "game-over-title");
    heading.appendChild(TW.render(
      ["Game over: "].concat(winners.length === 1
        ? [ctx.seat(winners[0]), " wins"]
        : joinSeats(winners, ctx).concat([" share first place"])),
      ctx));
    const table = el("table", "standings");
    const head = el("tr");
    for (const title of ["Rank", "Bot", "Score", "Status"]) head.appendChild(el("th", "", title));
    table.appendChild(head);
    for (const seat of order) {
      const row = el("tr");
      row.dataset.seat = String(seat);
      row.appendChild(el("td", "rank", TW.ordinal(ranks[seat])));
      const who = el("td", "bot");
      who.appendChild(TW.render([ctx.seat(seat)], ctx));
      row.appendChild(who);
      row.appendChild(el("td", "score", TW.scoreText(scores[seat]) + " " + unit));
      const state = statuses[seat] || "ok";
      row.appendChild(el("td", "status status-" + state, STATUS_WORDS[state] || state));
      table.appendChild(row);
    }
    box.replaceChildren(heading, table);
  }

  function joinSeats(seats, ctx) {
    const parts = [];
    seats.forEach(function (seat, i) {
      if (i) parts.push(i === seats.length - 1 ? " and " : ", ");
      parts.push(ctx.seat(seat));
    });
    return parts;
  }

  /* "This move": the move, then each event it caused; at a voyage's or round's
     end, a mark where the board was settled (the pause stops there). */
  function thisMove(viewer, shown, frame) {
    const box = viewer.$("step-events");
    if (!box) return;
    const ctx = viewer.ctx;
    const drawer = viewer.drawer;
    const head = el("p", "step-move");
    if (shown.step === 0) {
      head.textContent = "The start, before the first move.";
    } else {
      head.appendChild(el("span", "step-number", "Step " + shown.step + ": "));
      head.appendChild(TW.render(TW.actionWords(drawer, shown.seat, shown.action, ctx), ctx));
    }
    const list = el("ol", "events");
    const cut = frame.pause ? frame.pause.events : -1;
    shown.events.forEach(function (event, i) {
      const item = el("li", "event");
      item.dataset.event = String(event.event);
      item.appendChild(TW.render(TW.eventWords(drawer, event, ctx, shown.events, i), ctx));
      list.appendChild(item);
      if (i === cut - 1) {
        const mark = el("li", "pause-mark", viewer.pauseTitle(shown.step)
          + (shown.stage === "pause" ? ": the board as it was settled. Next › clears it." : ""));
        list.appendChild(mark);
      }
    });
    if (!shown.events.length && shown.step > 0) list.appendChild(el("li", "muted", "Nothing else happened."));
    box.replaceChildren(head, list);
    box.scrollTop = 0;
  }

  TW.panels = { legend: legend, update: update };
})(window.Tradewinds);
