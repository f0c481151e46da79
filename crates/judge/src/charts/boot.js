/* mlb charts: draws every chart of the page with the vendored ECharts.
 * Each chart is a <div class="chart"> holding a <script type="application/json">
 * with {renderer, width, height, group, unit, option}: the ECharts option, plain JSON,
 * which this script completes with the functions JSON cannot hold. */
(function () {
  "use strict";
  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function number(v, unit) {
    if (typeof v !== "number" || !isFinite(v)) return "-";
    var digits = Math.abs(v) >= 1000 ? 0 : Math.abs(v) >= 10 ? 1 : 3;
    return v.toLocaleString("en-US", { maximumFractionDigits: digits }) + (unit ? " " + unit : "");
  }
  // A whisker per data item [x, low, high]: a vertical line with caps.
  function whiskers(params, api) {
    var low = api.coord([api.value(0), api.value(1)]);
    var high = api.coord([api.value(0), api.value(2)]);
    var cap = api.size([1, 0])[0] * 0.12;
    var style = { stroke: "#222", lineWidth: 1.2 };
    var line = function (x1, y1, x2, y2) {
      return { type: "line", shape: { x1: x1, y1: y1, x2: x2, y2: y2 }, style: style };
    };
    return {
      type: "group",
      children: [
        line(low[0], low[1], high[0], high[1]),
        line(low[0] - cap, low[1], low[0] + cap, low[1]),
        line(high[0] - cap, high[1], high[0] + cap, high[1]),
      ],
    };
  }
  function complete(spec) {
    var option = spec.option;
    (option.series || []).forEach(function (s) {
      if (s.type === "custom" && s.renderItem === "whiskers") s.renderItem = whiskers;
    });
    if (option.tooltip && option.tooltip.trigger === "item") {
      // Each point carries its own text (`tip`), written where the figures are known.
      option.tooltip.formatter = function (p) {
        var tip = p.data && p.data.tip;
        return tip ? escapeHtml(tip).replace(/\n/g, "<br>") : escapeHtml(p.seriesName);
      };
    } else if (option.tooltip) {
      option.tooltip.valueFormatter = function (v) {
        return number(v, spec.unit);
      };
    }
    return option;
  }
  function draw(holder) {
    var source = holder.querySelector('script[type="application/json"]');
    var spec = JSON.parse(source.textContent);
    holder.style.width = spec.width ? spec.width + "px" : "100%";
    holder.style.height = spec.height + "px";
    var chart = echarts.init(holder, null, { renderer: spec.renderer || "svg" });
    chart.setOption(complete(spec));
    if (spec.group) chart.group = spec.group;
    return chart;
  }
  function drawAll() {
    var charts = Array.prototype.map.call(document.querySelectorAll("div.chart"), draw);
    var groups = {};
    charts.forEach(function (c) {
      if (c.group) groups[c.group] = true;
    });
    Object.keys(groups).forEach(function (g) {
      echarts.connect(g);
    });
    window.addEventListener("resize", function () {
      charts.forEach(function (c) {
        c.resize();
      });
    });
    document.documentElement.setAttribute("data-charts", String(charts.length));
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
  else drawAll();
})();
