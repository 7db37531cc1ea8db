/* The leaderboard's skill distribution: how many active bots fall in each skill bin;
   the legend gives the whole range at rest, or the bin under the pointer. */
(function () {
  "use strict";
  var charts = window.TradewindsCharts;
  var data = charts && charts.readJson("skill-data");
  if (!data || data.bins.length === 0) {
    return;
  }
  var HEIGHT = 220;
  var FILL = "rgba(8, 131, 149, 0.55)";
  var STROKE = "#0a4d68";
  var bins = data.bins;
  var width = bins[0].hi - bins[0].lo;
  var mids = bins.map(function (b) { return (b.lo + b.hi) / 2; });
  var counts = bins.map(function (b) { return b.count; });
  var total = counts.reduce(function (a, b) { return a + b; }, 0);
  var round = function (v) { return Math.round(v * 100) / 100; };
  var keys = [
    {
      label: "skill",
      value: function (idx) {
        var lo = idx == null ? bins[0].lo : bins[idx].lo;
        var hi = idx == null ? bins[bins.length - 1].hi : bins[idx].hi;
        return round(lo) + " to " + round(hi);
      }
    },
    {
      label: "bots",
      fill: FILL,
      stroke: STROKE,
      value: function (idx) { return String(idx == null ? total : counts[idx]); }
    }
  ];
  charts.draw("skill-chart", HEIGHT, function (w) {
    return {
      width: w,
      height: HEIGHT,
      scales: {
        x: { time: false, range: function () { return [bins[0].lo, bins[bins.length - 1].hi]; } },
        y: { range: function (u, lo, hi) { return [0, Math.max(1, hi)]; } }
      },
      axes: [
        { label: "skill (μ − 3σ)", incrs: [width, width * 2, width * 5, width * 10] },
        { label: "bots", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500], size: 48 }
      ],
      series: [
        { label: "skill" },
        {
          label: "bots",
          fill: FILL,
          stroke: STROKE,
          width: 1,
          points: { show: false },
          paths: window.uPlot.paths.bars({ size: [0.92, Infinity] })
        }
      ]
    };
  }, [mids, counts], keys);
})();
