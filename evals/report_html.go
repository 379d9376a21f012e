package evals

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

//go:embed report_html.tmpl
var htmlSource string

// htmlTemplate escapes every value by context (html/template); the page loads nothing from
// outside: styles and charts are inline.
var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct": pct,
	"ms":  func(f float64) string { return fmt.Sprintf("%.0f", f) },
	"set": setString,
}).Parse(htmlSource))

// WriteHTML renders the report as one self-contained HTML page (report.html).
func (r *Report) WriteHTML(w io.Writer) error {
	v := htmlView{R: r, Passed: r.Passed(), Generated: r.GeneratedAt.Format("2006-01-02 15:04:05 UTC"), Judge: "–"}
	if r.Judge.Status == "ok" {
		v.Judge = fmt.Sprintf("%.2f / 5", r.Judge.Mean)
	}
	for _, id := range r.verticalOrder() {
		v.Verticals = append(v.Verticals, namedVertical{ID: id, V: r.Verticals[id], Answer: r.answerCell(id)})
	}
	if _, ok := r.Answers[noneLabel]; ok {
		v.NoneAnswer = r.answerCell(noneLabel)
	}
	for _, name := range sortedKeys(r.Datasets) {
		v.Datasets = append(v.Datasets, namedDataset{Name: name, D: r.Datasets[name]})
	}
	v.Bars = barChart(v.Verticals, r.Settings.MinAccuracy)
	v.Heat = heatMap(r.Confusion)
	v.Missing = r.missingWordsByAgent()
	if r.Baseline != nil {
		var b strings.Builder
		_ = r.Baseline.WriteText(&b)
		v.Baseline = b.String()
	}
	if err := htmlTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("evals: render html: %w", err)
	}
	return nil
}

type htmlView struct {
	R         *Report
	Passed    bool
	Generated string
	Judge     string
	Verticals []namedVertical
	// NoneAnswer is answer accuracy over turns expecting no sub-agent; empty when none asserts.
	NoneAnswer string
	Datasets   []namedDataset
	Bars       bars
	Heat       heat
	Baseline   string
	Missing    []namedWords
}

type namedVertical struct {
	ID     string
	V      VerticalScore
	Answer string // see [Report.answerCell]
}

type namedDataset struct {
	Name string
	D    DatasetScore
}

type bars struct {
	Width, Height, Left, Span int
	MinX                      int
	Rows                      []bar
}

type bar struct {
	Label, Value, Fill     string
	Y, H, W, TextY, ValueX int
}

func barChart(vs []namedVertical, min float64) bars {
	const left, span, rowH, barH = 110, 420, 30, 20
	b := bars{Width: left + span + 70, Height: max(1, len(vs)) * rowH, Left: left, Span: span}
	b.MinX = left + int(math.Round(clamp01(min)*span))
	for i, nv := range vs {
		acc := nv.V.Accuracy
		fill := "#1e8e4e"
		if acc+epsilon < min {
			fill = "#c62828"
		}
		value := pct(acc)
		if nv.V.Turns == 0 {
			fill, value = "#9aa0ad", "no turns"
		}
		w := int(math.Round(clamp01(acc) * span))
		b.Rows = append(b.Rows, bar{
			Label: nv.ID, Value: value, Fill: fill, Y: i*rowH + (rowH-barH)/2, H: barH, W: w,
			TextY: i*rowH + rowH/2 + 4, ValueX: left + w + 6,
		})
	}
	return b
}

type heat struct {
	Width, Height        int
	ColLabels, RowLabels []svgText
	Cells                []heatCell
}

type svgText struct {
	X, Y int
	Text string
}

type heatCell struct {
	X, Y, Size, TX, TY, N int
	Fill, Title           string
}

// heatMap lays the confusion matrix out as a grid: the diagonal in green shades, the rest in
// red shades, both scaled to the largest count.
func heatMap(c Confusion) heat {
	const left, top, size = 90, 24, 56
	n := len(c.Labels)
	h := heat{Width: left + n*size + 10, Height: top + n*size + 10}
	peak := 0
	for _, row := range c.Matrix {
		for _, v := range row {
			peak = max(peak, v)
		}
	}
	for j, l := range c.Labels {
		h.ColLabels = append(h.ColLabels, svgText{X: left + j*size + size/2, Y: top - 8, Text: l})
	}
	for i, l := range c.Labels {
		h.RowLabels = append(h.RowLabels, svgText{X: left - 8, Y: top + i*size + size/2 + 4, Text: l})
		for j := range c.Labels {
			v := 0
			if i < len(c.Matrix) && j < len(c.Matrix[i]) {
				v = c.Matrix[i][j]
			}
			h.Cells = append(h.Cells, heatCell{
				X: left + j*size, Y: top + i*size, Size: size, TX: left + j*size + size/2, TY: top + i*size + size/2 + 4, N: v,
				Fill: heatColor(v, peak, i == j), Title: fmt.Sprintf("expected %s, invoked %s: %d", l, c.Labels[j], v),
			})
		}
	}
	return h
}

func heatColor(v, peak int, diagonal bool) string {
	if v == 0 || peak == 0 {
		return "#f4f5f9"
	}
	t := 0.15 + 0.85*float64(v)/float64(peak)
	mix := func(a, b int) int { return int(math.Round(float64(a) + (float64(b)-float64(a))*t)) }
	if diagonal {
		return fmt.Sprintf("#%02x%02x%02x", mix(0xf4, 0x4c), mix(0xf5, 0xaf), mix(0xf9, 0x50))
	}
	return fmt.Sprintf("#%02x%02x%02x", mix(0xf4, 0xe5), mix(0xf5, 0x39), mix(0xf9, 0x35))
}

func clamp01(f float64) float64 { return math.Max(0, math.Min(1, f)) }
