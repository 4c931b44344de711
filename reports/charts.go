package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The charts' size, in points, and colours.
var (
	chartWidth  = vg.Points(720)
	chartHeight = vg.Points(320)

	colorArrivals = color.RGBA{R: 0xb8, G: 0xc7, B: 0xd9, A: 0xff}
	colorRetries  = color.RGBA{R: 0xd9, G: 0x5f, B: 0x2b, A: 0xff}
	colorBudget   = color.RGBA{R: 0x2e, G: 0x7d, B: 0x32, A: 0xff}
	colorLimit    = color.RGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff}
	colorDown     = color.RGBA{R: 0xee, G: 0xee, B: 0xee, A: 0xff}
	colorBox      = color.RGBA{R: 0x1f, G: 0x5f, B: 0x99, A: 0xff}
	colorBoxFill  = color.RGBA{R: 0xdc, G: 0xe8, B: 0xf5, A: 0xff}

	// palette colours the policies of a comparison, in order.
	palette = []color.Color{
		color.RGBA{R: 0x75, G: 0x75, B: 0x75, A: 0xff},
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
		color.RGBA{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
		color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	}
)

// newPlot returns a plot with a sans-serif title, axis labels and legend.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	sans := font.Font{Typeface: "Liberation", Variant: "Sans"}
	bold := sans
	bold.Weight = xfont.WeightBold
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(bold, 13)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text, p.Y.Label.Text = x, y
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 10)
		a.Padding = vg.Points(2)
	}
	p.Legend.TextStyle.Font = font.From(sans, 10)
	p.Legend.Padding = vg.Points(3)
	p.Y.Tick.Marker = numTicks{plot.DefaultTicks{}}
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Add(plotter.NewGrid())
	return p
}

// svg draws p as an SVG element to inline in HTML, labelled for screen
// readers.
func svg(p *plot.Plot, label string) ([]byte, error) {
	c := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	out := b.String()
	// Drop the XML declaration and the generator's comment: the element
	// sits inside an HTML document.
	if i := strings.Index(out, "<svg"); i >= 0 {
		out = out[i:]
	}
	out = strings.Replace(out, "<svg ", fmt.Sprintf(`<svg role="img" aria-label="%s" `, attrEscape(label)), 1)
	return []byte(out), nil
}

// attrEscape escapes s for a double-quoted XML attribute.
func attrEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace(s)
}

// histogramChart draws the arrival histogram of the replay's
// representative run: all arrivals and retry arrivals per window, the time
// the server is down, the accept budget and the threshold.
func histogramChart(rp *Replay) ([]byte, error) {
	s := rp.Scenario.WithDefaults()
	arrivals, retryArrivals := rp.Histogram()
	w := s.Window.Seconds()
	if w <= 0 {
		w = 1
	}
	budget := rp.Budget()
	threshold := s.Threshold * budget
	p := newPlot(
		fmt.Sprintf("Arrivals per %s window (run seed %d)", seconds(w), rp.Runs[rp.Representative].Seed),
		"time since the failure (s)", "arrivals per window")
	p.Legend.Left = false
	end := float64(len(arrivals)) * w
	top := float64(0)
	for _, n := range arrivals {
		top = math.Max(top, float64(n))
	}
	top = math.Max(top, math.Max(budget, threshold))
	if top == 0 {
		top = 1
	}
	if down := s.Down.Seconds(); down > 0 {
		area, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: down, Y: 0}, {X: down, Y: top * 1.3}, {X: 0, Y: top * 1.3}})
		if err != nil {
			return nil, err
		}
		area.Color = colorDown
		area.LineStyle.Width = 0
		p.Add(area)
		p.Legend.Add(fmt.Sprintf("server down (%s)", duration(s.Down)), area)
	}
	bars := func(counts []int, fill color.Color) *plotter.Histogram {
		hist := &plotter.Histogram{Width: w, FillColor: fill}
		for i, n := range counts {
			if n == 0 {
				continue // an empty bar draws nothing, and costs bytes
			}
			hist.Bins = append(hist.Bins, plotter.HistogramBin{Min: float64(i) * w, Max: float64(i+1) * w, Weight: float64(n)})
		}
		hist.LineStyle.Width = vg.Points(0.3)
		hist.LineStyle.Color = color.White
		return hist
	}
	all, retries := bars(arrivals, colorArrivals), bars(retryArrivals, colorRetries)
	p.Add(all, retries)
	p.Legend.Add("all arrivals", all)
	p.Legend.Add("retry arrivals", retries)
	if budget > 0 {
		budgetLine, err := hline(end, budget, colorBudget, nil)
		if err != nil {
			return nil, err
		}
		limit, err := hline(end, threshold, colorLimit, []vg.Length{vg.Points(6), vg.Points(3)})
		if err != nil {
			return nil, err
		}
		p.Add(budgetLine, limit)
		p.Legend.Add(fmt.Sprintf("accept budget (%s per window)", num(budget)), budgetLine)
		p.Legend.Add(fmt.Sprintf("threshold (%s × budget = %s)", num(s.Threshold), num(threshold)), limit)
	}
	p.X.Min, p.X.Max = 0, math.Max(end, w)
	p.Y.Min, p.Y.Max = 0, top*1.3 // headroom for the legend
	return svg(p, "Arrival histogram of the fleet replay")
}

// hline returns a horizontal line at y from 0 to end.
func hline(end, y float64, c color.Color, dashes []vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: y}, {X: end, Y: y}})
	if err != nil {
		return nil, err
	}
	l.Color = c
	l.Width = vg.Points(1.6)
	l.Dashes = dashes
	return l, nil
}

// spreadChart draws the spread of each early delay across the devices as a
// box plot per attempt.
func spreadChart(delays []AttemptDelays) ([]byte, error) {
	devices := 0
	for _, a := range delays {
		devices = max(devices, len(a.DelaysS))
	}
	p := newPlot(
		fmt.Sprintf("Spread of the first delays across %s devices", num(float64(devices))),
		"", "delay (s)")
	var names []string
	for i, a := range delays {
		if len(a.DelaysS) == 0 {
			continue
		}
		box, err := plotter.NewBoxPlot(vg.Points(60), float64(i), plotter.Values(a.DelaysS))
		if err != nil {
			return nil, err
		}
		box.FillColor = colorBoxFill
		box.BoxStyle.Color = colorBox
		box.BoxStyle.Width = vg.Points(1.2)
		box.MedianStyle.Color = colorBox
		box.MedianStyle.Width = vg.Points(2)
		box.WhiskerStyle.Color = colorBox
		box.CapWidth = vg.Points(24)
		box.GlyphStyle.Color = colorBox
		box.GlyphStyle.Radius = vg.Points(1.2)
		p.Add(box)
		names = append(names, fmt.Sprintf("delay %d (CV %s)", a.Attempt, num(round3(cv(a.DelaysS)))))
	}
	p.NominalX(names...)
	p.X.Tick.Label.Font.Size = vg.Points(11)
	p.Y.Min = 0
	if p.Y.Max <= 0 {
		p.Y.Max = 1
	}
	p.Y.Max *= 1.08
	return svg(p, "Spread of the first delays across devices")
}

// cv returns the coefficient of variation of xs (population standard
// deviation over the mean); 0 when the mean is 0.
func cv(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if mean == 0 {
		return 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss/float64(len(xs))) / math.Abs(mean)
}

// round3 rounds x to three decimals, so that a sum's last bits do not show.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// comparisonChart draws a comparison: a line per policy across the fleet
// sizes, each point the median with its interval. It shows the strings of
// c through Visible, cut at chartMax bytes. The value axis is
// logarithmic when the medians span more than a factor of 20.
func comparisonChart(c *Comparison) ([]byte, error) {
	label, unit := figureLabel(c.Figure)
	label = Visible(label, chartMax)
	p := newPlot(fmt.Sprintf("%s by fleet size (%s)", upperFirst(label), Visible(string(c.Scenario.WithDefaults().Kind), chartMax)),
		"clients", withUnit(label, unitWord(unit)))
	p.Legend.Left = true
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range c.Rows {
		for _, iv := range row.Cells {
			lo, hi = math.Min(lo, iv.Low), math.Max(hi, iv.High)
		}
	}
	logY := lo > 0 && hi/lo > 20
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = numTicks{plot.LogTicks{Prec: -1}}
	}
	n := len(c.Policies)
	for j, name := range c.Policies {
		type points struct {
			plotter.XYs
			plotter.YErrors
		}
		var pts points
		for i, row := range c.Rows {
			iv := row.Cells[j]
			// Spread the policies a little around each fleet size so that
			// their intervals do not hide one another.
			x := float64(i) + 0.06*(float64(j)-float64(n-1)/2)
			pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: iv.Median})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{iv.Median - iv.Low, iv.High - iv.Median})
		}
		line, dots, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return nil, err
		}
		col := palette[j%len(palette)]
		line.Color, line.Width = col, vg.Points(1.6)
		dots.Color, dots.Radius = col, vg.Points(3)
		dots.Shape = draw.CircleGlyph{}
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		bars.Color, bars.Width, bars.CapWidth = col, vg.Points(1.2), vg.Points(6)
		p.Add(line, dots, bars)
		p.Legend.Add(Visible(name, chartMax), line, dots)
	}
	var sizes []string
	for _, row := range c.Rows {
		sizes = append(sizes, num(float64(row.Clients)))
	}
	p.NominalX(sizes...)
	p.X.Min, p.X.Max = -0.5, float64(len(c.Rows))-0.5
	if !logY {
		p.Y.Min = math.Min(0, lo)
		p.Y.Max = hi + (hi-p.Y.Min)*0.35 // headroom for the legend
	} else {
		p.Y.Min, p.Y.Max = lo/2, hi*8 // room below the lowest interval, and for the legend above
	}
	return svg(p, "Comparison of policies by fleet size")
}

// numTicks labels the ticks of another Ticker as the tables write numbers.
type numTicks struct{ plot.Ticker }

func (t numTicks) Ticks(min, max float64) []plot.Tick {
	ticks := t.Ticker.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = num(ticks[i].Value)
		}
	}
	return ticks
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
