//! A chart described from data ([`Chart`]), and the option of the vendored
//! library it becomes ([`Chart::option`]). The layout rules live here, so
//! that every page gets them: category labels rotate upright when they
//! would not fit side by side and are thinned (hidden where they would
//! overlap) when even that is too tight; time axes zoom; several series
//! get a legend; every point can carry the text its hover shows.

use serde_json::{json, Value};

/// Colour of a plain bar.
pub const PLAIN: &str = "rgb(67,147,195)";
/// Colour of a flagged bar (a GPU below 90% of the best) and of shaded spans.
pub const FLAGGED: &str = "rgb(214,96,77)";

/// The plot width a chart of the page's full width gets in the narrowest
/// window the page is laid out for, in pixels: category labels that do not
/// fit side by side in it are rotated upright.
const NARROWEST_PLOT: f64 = 560.0;
/// Room taken by the y axis and margins beside the plot, in pixels.
const BESIDE_PLOT: f64 = 80.0;
/// Estimated width of one character of an axis label (12 px sans-serif)
/// and the gap kept between two labels, in pixels.
const CHAR_WIDTH: f64 = 7.0;
const LABEL_GAP: f64 = 10.0;
/// Points beyond which a chart is painted on a canvas rather than drawn
/// as SVG elements (thousands of hoverable dots, as a history of 20
/// benches over 200 runs, take seconds to lay out as SVG).
const SVG_POINTS: usize = 1000;
/// Longest an axis label is drawn, in pixels; longer ones end in "…" (the
/// hover shows the whole name).
const LABEL_WIDTH: u32 = 150;

/// What the x axis holds.
#[derive(Clone, Debug, PartialEq)]
pub enum XAxis {
    /// Named slots (configs, GPUs): a point's `x` is the slot's index.
    Categories(Vec<String>),
    /// Seconds: a point's `x` is a time; the axis zooms.
    Seconds,
    /// Dates: a point's `x` is milliseconds since the epoch; the axis
    /// zooms.
    Dates,
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A dot per point.
    Dots,
    /// A bar per point, with a whisker where the point has a range.
    Bars,
    /// A line through the points.
    Line,
    /// A larger dot per point in the flagged colour, above the other
    /// series: the points flagged on them (regressions).
    Flags,
}

/// One point of a series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Point {
    /// Slot index or time.
    pub x: f64,
    /// Value.
    pub y: f64,
    /// A range drawn as a whisker (bars only): low and high.
    pub range: Option<(f64, f64)>,
    /// Drawn in the flagged colour (bars only).
    pub flagged: bool,
    /// What hovering the point shows; without it, the series name and value.
    pub tip: Option<String>,
}

impl Point {
    /// A point with nothing but its coordinates.
    pub fn at(x: f64, y: f64) -> Self {
        Point { x, y, ..Point::default() }
    }
}

/// A named series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Name, shown in the legend and the hover.
    pub name: String,
    /// How it is drawn.
    pub kind: Kind,
    /// Its points.
    pub points: Vec<Point>,
}

/// A chart, independent of the library that draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// Title, above the plot.
    pub title: String,
    /// A line under the title (what shading means, what is absent).
    pub note: Option<String>,
    /// The x axis.
    pub x: XAxis,
    /// Name of the y axis.
    pub y_name: String,
    /// Unit of the values (hover and, for `%`, the axis labels).
    pub unit: String,
    /// Whether the y axis starts at zero (else it fits the values).
    pub y_from_zero: bool,
    /// The series.
    pub series: Vec<Series>,
    /// A dashed horizontal line at this value.
    pub reference: Option<f64>,
    /// Spans of x shaded in the flagged colour.
    pub shaded: Vec<(f64, f64)>,
    /// Width in pixels; `None`: the width of the page.
    pub width: Option<u32>,
    /// Height in pixels.
    pub height: u32,
    /// Charts of one group zoom and hover together.
    pub group: Option<String>,
}

impl Chart {
    /// An empty chart of this title, x axis and height, full width.
    pub fn new(title: impl Into<String>, x: XAxis, height: u32) -> Self {
        Chart {
            title: title.into(),
            note: None,
            x,
            y_name: String::new(),
            unit: String::new(),
            y_from_zero: true,
            series: Vec::new(),
            reference: None,
            shaded: Vec::new(),
            width: None,
            height,
            group: None,
        }
    }

    /// Whether the category labels are drawn upright (rotated 90°): when,
    /// side by side, they would not fit the narrowest plot.
    pub fn upright_labels(&self) -> bool {
        let XAxis::Categories(labels) = &self.x else { return false };
        let plot = self.width.map_or(NARROWEST_PLOT, |w| f64::from(w) - BESIDE_PLOT);
        let cap = f64::from(LABEL_WIDTH);
        let wanted: f64 = labels.iter().map(|l| (l.chars().count() as f64 * CHAR_WIDTH).min(cap) + LABEL_GAP).sum();
        wanted > plot
    }

    /// The height upright labels add below the plot, in pixels: room for
    /// the longest (up to `LABEL_WIDTH`), so that the plot keeps its size.
    pub fn label_room(&self) -> u32 {
        match &self.x {
            XAxis::Categories(labels) if self.upright_labels() => {
                let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * CHAR_WIDTH;
                longest.min(f64::from(LABEL_WIDTH)).ceil() as u32
            }
            _ => 0,
        }
    }

    /// The names in the legend: every series, when there are several or
    /// they are dots or lines (whose colour stands for a device or source).
    fn legend(&self) -> Option<Vec<&str>> {
        let shown = self.series.len() > 1 || self.series.iter().any(|s| s.kind != Kind::Bars);
        shown.then(|| self.series.iter().map(|s| s.name.as_str()).collect())
    }

    fn x_axis(&self) -> Value {
        match &self.x {
            XAxis::Categories(labels) => {
                let mut axis = json!({
                    "type": "category",
                    "data": labels,
                    "axisTick": {"alignWithLabel": true},
                    "axisLabel": {
                        "interval": 0,
                        "hideOverlap": true,
                        "rotate": if self.upright_labels() { 90 } else { 0 },
                        "width": LABEL_WIDTH,
                        "overflow": "truncate",
                    },
                });
                if self.series.iter().any(|s| s.kind == Kind::Dots) {
                    // Dots of one slot spread sideways instead of hiding each other.
                    axis["jitter"] = json!(24);
                }
                axis
            }
            XAxis::Seconds => json!({
                "type": "value",
                "name": "time (s)",
                "nameLocation": "middle",
                "nameGap": 22,
                "min": 0,
            }),
            XAxis::Dates => json!({
                "type": "time",
                "axisLabel": {"hideOverlap": true, "formatter": {
                    "year": "{yyyy}", "month": "{MMM} {yyyy}", "day": "{MMM} {d}", "hour": "{HH}:{mm}", "minute": "{HH}:{mm}",
                }},
            }),
        }
    }

    fn y_axis(&self) -> Value {
        let mut axis = json!({"type": "value", "name": self.y_name, "scale": !self.y_from_zero});
        if self.unit == "%" {
            axis["axisLabel"] = json!({"formatter": "{value}%"});
        }
        axis
    }

    fn series_options(&self) -> Vec<Value> {
        let mut out = Vec::new();
        // Several bar series stand side by side in the library's colours.
        let grouped = self.series.iter().filter(|s| s.kind == Kind::Bars).count() > 1;
        for (i, s) in self.series.iter().enumerate() {
            let data: Vec<Value> = s.points.iter().map(|p| point(s.kind, p)).collect();
            let mut option = match s.kind {
                Kind::Dots => json!({"type": "scatter", "symbolSize": 7, "itemStyle": {"opacity": 0.85}}),
                Kind::Bars if grouped => json!({"type": "bar", "barMaxWidth": 40}),
                Kind::Bars => json!({"type": "bar", "barWidth": "60%", "itemStyle": {"color": PLAIN}}),
                // A point with its own hover text is drawn, to be hovered.
                Kind::Line => {
                    let dots = s.points.iter().any(|p| p.tip.is_some());
                    json!({"type": "line", "showSymbol": dots, "lineStyle": {"width": 2}})
                }
                Kind::Flags => json!({"type": "scatter", "symbolSize": 12, "z": 5, "itemStyle": {"color": FLAGGED}}),
            };
            option["name"] = json!(s.name);
            option["data"] = json!(data);
            if i == 0 {
                self.marks(&mut option);
            }
            out.push(option);
            let ranges: Vec<Value> =
                s.points.iter().filter_map(|p| p.range.map(|(lo, hi)| json!([p.x, lo, hi]))).collect();
            if s.kind == Kind::Bars && !ranges.is_empty() {
                out.push(json!({
                    "type": "custom",
                    "name": format!("{} (range)", s.name),
                    "renderItem": "whiskers",
                    "data": ranges,
                    "z": 3,
                    "silent": true,
                    "tooltip": {"show": false},
                }));
            }
        }
        out
    }

    /// The reference line and the shaded spans, carried by the first series.
    fn marks(&self, series: &mut Value) {
        if let Some(y) = self.reference {
            series["markLine"] = json!({
                "silent": true, "symbol": "none", "label": {"show": false},
                "lineStyle": {"color": "#777", "type": "dashed"}, "data": [{"yAxis": y}],
            });
        }
        if !self.shaded.is_empty() {
            let spans: Vec<Value> = self.shaded.iter().map(|(a, b)| json!([{"xAxis": a}, {"xAxis": b}])).collect();
            series["markArea"] = json!({
                "silent": true, "itemStyle": {"color": FLAGGED, "opacity": 0.25}, "data": spans,
            });
        }
    }

    /// The library's option for this chart.
    pub fn option(&self) -> Value {
        let legend = self.legend();
        let zoom = matches!(self.x, XAxis::Seconds | XAxis::Dates);
        let top = 40 + if self.note.is_some() { 18 } else { 0 } + if legend.is_some() { 24 } else { 0 };
        let mut option = json!({
            "animation": false,
            "title": {
                "text": self.title, "subtext": self.note.as_deref().unwrap_or(""), "left": "center",
                "itemGap": 4, "textStyle": {"fontSize": 14}, "subtextStyle": {"fontSize": 12},
            },
            "grid": {
                "left": 16, "right": 24, "top": top, "bottom": if zoom { 26 } else { 8 },
                "outerBoundsMode": "same", "outerBoundsContain": "all",
            },
            "xAxis": self.x_axis(),
            "yAxis": self.y_axis(),
            "series": self.series_options(),
            "tooltip": {
                "trigger": if self.has_tips() { "item" } else { "axis" },
                "className": "chart-tip",
                "confine": true,
            },
        });
        if let Some(names) = legend {
            option["legend"] = json!({"type": "scroll", "top": top - 26, "data": names});
        }
        if zoom {
            option["dataZoom"] = json!([
                {"type": "inside", "zoomOnMouseWheel": "ctrl", "moveOnMouseWheel": false},
                {"type": "slider", "height": 14, "bottom": 4},
            ]);
            option["toolbox"] = json!({"right": 8, "feature": {"dataZoom": {"yAxisIndex": "none"}, "restore": {}}});
        }
        option
    }

    fn has_tips(&self) -> bool {
        self.series.iter().flat_map(|s| &s.points).any(|p| p.tip.is_some())
    }

    /// What the page hands the drawing script: size (the height with the
    /// room of upright labels), group, unit, renderer (SVG, whose labels
    /// are elements of the page, or a canvas for a dense chart), option.
    pub fn to_json(&self) -> Value {
        let points: usize = self.series.iter().map(|s| s.points.len()).sum();
        json!({
            "renderer": if points > SVG_POINTS { "canvas" } else { "svg" },
            "width": self.width,
            "height": self.height + self.label_room(),
            "group": self.group,
            "unit": self.unit,
            "option": self.option(),
        })
    }
}

/// A data item: its value, and its hover text and colour when it has them.
fn point(kind: Kind, p: &Point) -> Value {
    let value = match kind {
        Kind::Bars => json!(p.y),
        Kind::Dots | Kind::Line | Kind::Flags => json!([p.x, p.y]),
    };
    let mut item = json!({"value": value});
    if let Some(tip) = &p.tip {
        item["tip"] = json!(tip);
    }
    if p.flagged {
        item["itemStyle"] = json!({"color": FLAGGED});
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    fn categories(n: usize, name: &str) -> Chart {
        let labels = (0..n).map(|i| format!("{name}-{i}")).collect();
        let mut chart = Chart::new("t", XAxis::Categories(labels), 300);
        chart.series.push(Series {
            name: "GPU 0".into(),
            kind: Kind::Dots,
            points: (0..n).map(|i| Point { tip: Some(format!("p{i}")), ..Point::at(i as f64, 1.0) }).collect(),
        });
        chart
    }

    #[test]
    fn labels_turn_upright_when_they_do_not_fit_and_are_always_thinned_rather_than_overlapped() {
        let few = categories(4, "vae");
        assert_eq!(few.label_room(), 0);
        let few = few.option();
        assert_eq!(few["xAxis"]["axisLabel"]["rotate"], 0);
        // 25 configs of 20 letters: 25 x 150 px wanted, far more than 560.
        let many = categories(25, "resnet50-bs256-fp16");
        assert_eq!(many.label_room(), 150, "22 letters of 7 px, capped at the longest drawn");
        assert_eq!(many.to_json()["height"], 300 + 150, "the plot keeps its height");
        let many = many.option();
        assert_eq!(many["xAxis"]["axisLabel"]["rotate"], 90);
        for option in [few, many] {
            let label = &option["xAxis"]["axisLabel"];
            assert_eq!((label["interval"].clone(), label["hideOverlap"].clone()), (json!(0), json!(true)));
            assert_eq!(label["overflow"], "truncate");
        }
        // A fixed narrow chart turns short labels upright sooner.
        let mut narrow = categories(5, "GPU");
        assert!(!narrow.upright_labels());
        narrow.width = Some(200);
        assert!(narrow.upright_labels());
    }

    #[test]
    fn dots_get_a_legend_jitter_and_their_own_hover_text() {
        let mut chart = categories(2, "c");
        chart.series.push(Series { name: "GPU 1".into(), kind: Kind::Dots, points: vec![Point::at(1.0, 0.9)] });
        chart.unit = "%".into();
        chart.reference = Some(100.0);
        let option = chart.option();
        assert_eq!(option["legend"]["data"], json!(["GPU 0", "GPU 1"]));
        assert_eq!(option["tooltip"]["trigger"], "item");
        assert_eq!(option["xAxis"]["jitter"], 24);
        assert_eq!(option["yAxis"]["axisLabel"]["formatter"], "{value}%");
        let series = &option["series"];
        assert_eq!(series[0]["type"], "scatter");
        assert_eq!(series[0]["data"][1], json!({"value": [1.0, 1.0], "tip": "p1"}));
        assert_eq!(series[1]["data"][0], json!({"value": [1.0, 0.9]}));
        assert_eq!(series[0]["markLine"]["data"], json!([{"yAxis": 100.0}]));
        assert!(series[1].get("markLine").is_none(), "one reference line");
        assert!(option.get("dataZoom").is_none(), "categories do not zoom");
    }

    #[test]
    fn bars_flag_points_and_draw_their_ranges_as_whiskers_without_a_legend() {
        let mut chart = Chart::new("vae", XAxis::Categories(vec!["GPU 0".into(), "GPU 1".into()]), 260);
        chart.width = Some(380);
        chart.series.push(Series {
            name: "mean".into(),
            kind: Kind::Bars,
            points: vec![
                Point { range: Some((9.0, 11.0)), ..Point::at(0.0, 10.0) },
                Point { range: Some((7.0, 8.0)), flagged: true, ..Point::at(1.0, 7.5) },
            ],
        });
        let option = chart.option();
        assert!(option.get("legend").is_none());
        assert_eq!(option["tooltip"]["trigger"], "axis", "no point has its own text");
        let series = option["series"].as_array().unwrap();
        assert_eq!(series.len(), 2);
        assert_eq!(series[0]["data"][0], json!({"value": 10.0}));
        assert_eq!(series[0]["data"][1], json!({"value": 7.5, "itemStyle": {"color": FLAGGED}}));
        assert_eq!(series[1]["renderItem"], "whiskers");
        assert_eq!(series[1]["data"], json!([[0.0, 9.0, 11.0], [1.0, 7.0, 8.0]]));
        assert_eq!(chart.to_json()["width"], 380);
    }

    #[test]
    fn several_bar_series_stand_side_by_side_in_their_own_colours() {
        let mut chart = Chart::new("compare", XAxis::Categories(vec!["vae".into(), "wlm".into()]), 300);
        for system in ["a", "b"] {
            let points = vec![Point::at(0.0, 1.0), Point::at(1.0, 2.0)];
            chart.series.push(Series { name: system.into(), kind: Kind::Bars, points });
        }
        let option = chart.option();
        assert_eq!(option["legend"]["data"], json!(["a", "b"]));
        for s in option["series"].as_array().unwrap() {
            assert!(s.get("barWidth").is_none() && s.get("itemStyle").is_none(), "{s}");
        }
    }

    #[test]
    fn dates_zoom_and_flagged_points_are_drawn_above_in_the_flagged_colour() {
        let mut chart = Chart::new("history", XAxis::Dates, 300);
        let day = 86_400_000.0;
        let points = vec![Point::at(0.0, 10.0), Point::at(day, 8.0)];
        chart.series.push(Series { name: "vae".into(), kind: Kind::Line, points });
        chart.series.push(Series {
            name: "regression".into(),
            kind: Kind::Flags,
            points: vec![Point { tip: Some("slower".into()), ..Point::at(day, 8.0) }],
        });
        let option = chart.option();
        assert_eq!(option["xAxis"]["type"], "time");
        assert_eq!(option["dataZoom"][1]["type"], "slider");
        assert_eq!(option["series"][0]["showSymbol"], false, "no point of the line has its own hover text");
        assert_eq!(option["series"][1]["itemStyle"]["color"], FLAGGED);
        assert_eq!(option["series"][1]["data"], json!([{"value": [day, 8.0], "tip": "slower"}]));
        assert_eq!(option["legend"]["data"], json!(["vae", "regression"]));
    }

    #[test]
    fn time_series_zoom_and_shade_their_spans() {
        let mut chart = Chart::new("power", XAxis::Seconds, 220);
        chart.series.push(Series {
            name: "gpu0.power_w".into(),
            kind: Kind::Line,
            points: vec![Point::at(0.5, 300.0)],
        });
        chart.shaded = vec![(2.0, 3.0)];
        chart.group = Some("t0".into());
        let option = chart.option();
        assert_eq!(option["xAxis"]["type"], "value");
        assert_eq!(option["dataZoom"][1]["type"], "slider");
        assert_eq!(option["series"][0]["markArea"]["data"], json!([[{"xAxis": 2.0}, {"xAxis": 3.0}]]));
        assert_eq!(option["series"][0]["data"], json!([{"value": [0.5, 300.0]}]));
        assert_eq!(option["legend"]["data"], json!(["gpu0.power_w"]), "a line's legend names its source");
        assert_eq!(chart.to_json()["group"], "t0");
        assert_eq!(chart.to_json()["width"], Value::Null);
        assert_eq!(chart.to_json()["renderer"], "svg");
        chart.series[0].points = (0..=SVG_POINTS).map(|i| Point::at(i as f64, 1.0)).collect();
        assert_eq!(chart.to_json()["renderer"], "canvas", "a dense chart is painted");
    }
}
