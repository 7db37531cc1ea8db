/* Shared helpers for the site's charts: read a page's JSON island, size a uPlot to its box. */
(function () {
  "use strict";

  function readJson(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  /* Draw once the library is here; the figure stays hidden (the table shows) otherwise. */
  function draw(figureId, height, build, data) {
    var figure = document.getElementById(figureId);
    if (!figure || typeof window.uPlot !== "function") {
      return null;
    }
    var box = figure.querySelector(".plot");
    var sketch = figure.querySelector(".sparkline");
    figure.hidden = false;
    if (sketch) {
      sketch.remove();  /* the server's no-script sketch gives way to the real chart */
    }
    var width = function () { return Math.max(box.clientWidth, 200); };
    var chart = new window.uPlot(build(width()), data, box);
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(function () {
        chart.setSize({ width: width(), height: height });
      }).observe(box);
    }
    figure.setAttribute("data-drawn", "true");
    return chart;
  }

  window.TradewindsCharts = { readJson: readJson, draw: draw };
})();
