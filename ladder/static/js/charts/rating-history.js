/* The bot page's rating history: skill (μ − 3σ) and μ after each rated match. */
(function () {
  "use strict";
  var charts = window.TradewindsCharts;
  var data = charts && charts.readJson("rating-data");
  if (!data || data.skill.length === 0) {
    return;
  }
  var HEIGHT = 240;
  var xs = data.skill.map(function (_, i) { return i + 1; });
  charts.draw("rating-chart", HEIGHT, function (width) {
    return {
      width: width,
      height: HEIGHT,
      scales: { x: { time: false } },
      axes: [
        { label: "rated match", incrs: [1, 2, 5, 10, 20, 50, 100, 200] },
        { label: "rating", size: 56 }
      ],
      series: [
        {
          label: "match",
          value: function (u, x) {
            if (x == null) { return "—"; }
            return "#" + data.match[x - 1] + " (v" + data.version[x - 1] + ")";
          }
        },
        { label: "skill (μ − 3σ)", stroke: "#088395", width: 2, points: { show: xs.length < 40 } },
        { label: "μ", stroke: "#7a8694", width: 1, dash: [5, 4], points: { show: false } }
      ]
    };
  }, [xs, data.skill, data.mu]);
})();
