/* The bot page's rating history: skill (μ − 3σ) and μ after each rated match, and, once
   the game's history has been re-solved, the re-solved skill at each day's last match;
   the legend gives the latest match's values, or those of the match under the pointer.
   The re-solved series is left out (legend and all) when there is no point of it. */
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
  var RESOLVED = "#b45309";
  var xs = data.skill.map(function (_, i) { return i + 1; });
  var last = xs.length - 1;
  var at = function (idx) { return idx == null ? last : idx; };
  var fixed = function (v) { return v == null ? "none" : charts.twoPlaces(v); };
  var resolved = data.resolved || [];
  var hasResolved = resolved.some(function (v) { return v != null; });
  /* The re-solved point at or before a match: the curve holds one a day. */
  var resolvedAt = function (idx) {
    for (var i = at(idx); i >= 0; i--) {
      if (resolved[i] != null) {
        return charts.twoPlaces(resolved[i]) + " (" + data.resolved_day[i] + ")";
      }
    }
    return "not re-solved before this match";
  };
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
  var series = [
    { label: "match" },
    { label: "skill (μ − 3σ)", stroke: SKILL, width: 2, points: { show: xs.length < 40 } },
    { label: "μ", stroke: MU, width: 1, dash: [5, 4], points: { show: false } }
  ];
  var columns = [xs, data.skill, data.mu];
  if (hasResolved) {
    keys.push({ label: "re-solved skill", stroke: RESOLVED, value: resolvedAt });
    series.push({
      label: "re-solved skill", stroke: RESOLVED, width: 2, spanGaps: true,
      points: { show: true, size: 6, fill: RESOLVED }
    });
    columns.push(resolved);
  }
  charts.draw("rating-chart", HEIGHT, function (width) {
    return {
      width: width,
      height: HEIGHT,
      scales: { x: { time: false } },
      axes: [
        { label: "rated match", incrs: [1, 2, 5, 10, 20, 50, 100, 200] },
        { label: "rating", size: 56 }
      ],
      series: series
    };
  }, columns, keys);
})();
