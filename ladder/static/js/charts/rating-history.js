/* The bot page's rating history: skill (μ − 3σ) and μ after each rated match; the
   legend gives the latest match's values, or those of the match under the pointer. */
(function () {
  "use strict";
  var charts = window.TradewindsCharts;
  var data = charts && charts.readJson("rating-data");
  if (!data || data.skill.length === 0) {
    return;
  }
  var HEIGHT = 240;
  var SKILL = "#088395";
  var MU = "#7a8694";
  var xs = data.skill.map(function (_, i) { return i + 1; });
  var last = xs.length - 1;
  var at = function (idx) { return idx == null ? last : idx; };
  var fixed = function (v) { return v == null ? "none" : v.toFixed(2); };
  var keys = [
    {
      label: "after match",
      value: function (idx) {
        var i = at(idx);
        return "#" + data.match[i] + " (v" + data.version[i] + ")" + (idx == null ? ", the latest" : "");
      }
    },
    { label: "skill (μ − 3σ)", stroke: SKILL, value: function (idx) { return fixed(data.skill[at(idx)]); } },
    { label: "μ", stroke: MU, dash: true, value: function (idx) { return fixed(data.mu[at(idx)]); } }
  ];
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
        { label: "match" },
        { label: "skill (μ − 3σ)", stroke: SKILL, width: 2, points: { show: xs.length < 40 } },
        { label: "μ", stroke: MU, width: 1, dash: [5, 4], points: { show: false } }
      ]
    };
  }, [xs, data.skill, data.mu], keys);
})();
