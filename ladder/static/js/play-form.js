/* The play form: show only the opponents a table of the chosen size seats (without
   scripts every field shows, and the server uses the first players − 1). */
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  for (const form of document.querySelectorAll(".play-form")) {
    const players = form.querySelector("select[name=players]");
    const seat = form.querySelector("select[name=seat]");
    const note = form.querySelector(".opponents .muted");
    const update = function () {
      const n = Number(players.value);
      for (const box of form.querySelectorAll(".opponent")) {
        box.hidden = Number(box.dataset.index) > n - 1;
      }
      for (const option of seat.options) option.hidden = option.value !== "random" && Number(option.value) >= n;
      if (note) note.hidden = true;
    };
    players.addEventListener("change", update);
    update();
  }
});
