/* The open-a-replay page: pick or drop a file, send it to the server (which
   checks it with the engine), then show it in the same viewer as a match. */
"use strict";

(function (TW) {
  /* Plain JSON is gzipped before upload when the browser can, so long games
     stay far below the upload limit; .json.gz files go as they are. */
  function packed(file) {
    return file.slice(0, 2).arrayBuffer().then(function (head) {
      const bytes = new Uint8Array(head);
      const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
      if (gzipped || typeof CompressionStream === "undefined") return file;
      const stream = file.stream().pipeThrough(new CompressionStream("gzip"));
      return new Response(stream).blob();
    });
  }

  function open(file) {
    const root = document.getElementById("replay-viewer");
    const error = document.getElementById("open-error");
    error.textContent = "";
    if (!file) return;
    if (TW.viewer) TW.viewer.pause();
    packed(file).then(function (blob) {
      const viewer = TW.viewer && TW.viewer.root === root ? TW.viewer : new TW.Viewer(root, null);
      viewer.source = TW.uploadSource(root, blob, file.name.replace(/(\.gz)?$/, ".gz"));
      viewer.cache = new Map();
      viewer.pending = new Map();
      viewer.step = 0;
      viewer.stage = "final";
      viewer.shown = null;
      TW.viewer = viewer;
      return viewer.start().then(function () {
        root.hidden = false;
        root.focus();
      });
    }).catch(function (problem) {
      root.hidden = true;
      error.textContent = "Cannot open " + file.name + ": " + problem.message;
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const input = document.getElementById("replay-file");
    const zone = document.getElementById("drop-zone");
    if (!input || !zone) return;
    input.addEventListener("change", function () { open(input.files[0]); });
    zone.addEventListener("dragover", function (event) {
      event.preventDefault();
      zone.classList.add("dragging");
    });
    zone.addEventListener("dragleave", function () { zone.classList.remove("dragging"); });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      zone.classList.remove("dragging");
      const file = event.dataTransfer && event.dataTransfer.files[0];
      open(file);
    });
  });
})(window.Tradewinds);
