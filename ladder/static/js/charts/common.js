/* Shared helpers for the site's charts: read a page's JSON island, size a uPlot to its
   box, and our own legend under it. uPlot's legend is off: before a pointer hovers the
   plot it shows "--" for every value. Ours names every series with a value at rest
   (the latest point, or a summary) and the value under the cursor while it hovers. */
(function () {
  "use strict";

  function readJson(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  /* A list of keys: {label, value(idx) -> text (idx null: at rest), stroke?, fill?, dash?}.
     Returns the function that shows the values at a data index (null: at rest). */
  function legend(figure, keys) {
    var list = document.createElement("ul");
    list.className = "chart-legend";
    var values = keys.map(function (key) {
      var item = document.createElement("li");
      if (key.stroke || key.fill) {
        var swatch = document.createElement("span");
        swatch.className = "swatch" + (key.dash ? " dashed" : "") + (key.fill ? " filled" : "");
        swatch.style.borderColor = key.stroke || key.fill;
        if (key.fill) { swatch.style.backgroundColor = key.fill; }
        item.appendChild(swatch);
      }
      var name = document.createElement("span");
      name.className = "key";
      name.textContent = key.label;
      var value = document.createElement("span");
      value.className = "value";
      item.append(name, " ", value);
      list.appendChild(item);
      return value;
    });
    var caption = figure.querySelector("figcaption");
    figure.insertBefore(list, caption);
    var show = function (idx) {
      keys.forEach(function (key, i) { values[i].textContent = key.value(idx); });
      list.classList.toggle("at-rest", idx == null);
    };
    show(null);
    return show;
  }

  /* Draw once the library is here; the figure stays hidden (the table shows) otherwise.
     With `keys` the chart gets our legend (see legend()). */
  function draw(figureId, height, build, data, keys) {
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
    var show = keys ? legend(figure, keys) : null;
    var width = function () { return Math.max(box.clientWidth, 200); };
    var options = build(width());
    options.legend = { show: false };
    if (show) {
      options.hooks = options.hooks || {};
      options.hooks.setCursor = (options.hooks.setCursor || []).concat(function (u) {
        show(u.cursor.idx == null ? null : u.cursor.idx);
      });
    }
    var chart = new window.uPlot(options, data, box);
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(function () {
        chart.setSize({ width: width(), height: height });
      }).observe(box);
    }
    figure.setAttribute("data-drawn", "true");
    return chart;
  }

  /* A number with two decimals as the page's tables write it (Python's format): an
     exact tie, such as 25.125, goes to the even digit, where toFixed rounds it up. The
     legend and the table beside it then never differ in the last digit. */
  function twoPlaces(v) {
    if (Number.isInteger(v * 8) && !Number.isInteger(v * 4)) {  /* m/8, m odd: a tie */
      var low = Math.floor(v * 100);  /* exact: v * 100 is a multiple of 12.5 */
      return ((low % 2 === 0 ? low : low + 1) / 100).toFixed(2);
    }
    return v.toFixed(2);
  }

  window.TradewindsCharts = { readJson: readJson, draw: draw, twoPlaces: twoPlaces };
})();
