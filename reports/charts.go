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
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/jitterkit/jitterkit/sim"
)

// The charts' size, in points, and colours.
var (
	chartWidth  = vg.Points(720)
	chartHeight = vg.Points(320)
	// histogramHeight leaves room for the legend below the plot.
	histogramHeight = vg.Points(370)

	colorArrivals = color.RGBA{R: 0xb8, G: 0xc7, B: 0xd9, A: 0xff}
	colorRetries  = color.RGBA{R: 0xd9, G: 0x5f, B: 0x2b, A: 0xff}
	colorBudget   = color.RGBA{R: 0x2e, G: 0x7d, B: 0x32, A: 0xff}
	colorLimit    = color.RGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff}
	colorDown     = color.RGBA{R: 0xe1, G: 0xe4, B: 0xe8, A: 0xff}
	colorBox      = color.RGBA{R: 0x1f, G: 0x5f, B: 0x99, A: 0xff}
	colorBoxFill  = color.RGBA{R: 0xdc, G: 0xe8, B: 0xf5, A: 0xff}
	colorWarn     = color.RGBA{R: 0xb2, G: 0x6a, B: 0x00, A: 0xff}
	colorText     = color.RGBA{R: 0x1d, G: 0x27, B: 0x33, A: 0xff}
	// colorPlotArea fills the data area of the arrival and comparison
	// charts, so that it shows apart from the legend and the labels.
	colorPlotArea = color.RGBA{R: 0xf7, G: 0xf9, B: 0xfb, A: 0xff}
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

// A legendItem is one entry of a legend that a chart draws below its plot,
// outside the data: a label and the thumbnails that show its style.
type legendItem struct {
	label  string
	thumbs []plot.Thumbnailer
}

// svg draws p as an SVG element of the given size to inline in HTML,
// labelled for screen readers, with the legend below the plot, in as many
// columns as fit, and right a column of width right that draw fills
// beside the data, or nothing when draw is nil. The plot's own legend is
// not drawn.
func svg(p *plot.Plot, width, height vg.Length, legend []legendItem, right vg.Length, drawRight func(c draw.Canvas, data draw.Canvas), label string) ([]byte, error) {
	c, dc := newSVG(width, height)
	l := layoutLegend(p.Legend, width, legend)
	plotArea := draw.Crop(dc, 0, -right, l.height, 0)
	sty := p.Legend.TextStyle
	p.Legend = plot.NewLegend() // drawn below, not over the data
	p.Draw(plotArea)
	data := p.DataCanvas(plotArea)
	if drawRight != nil {
		drawRight(draw.Crop(dc, width-right, 0, l.height, 0), data)
	}
	l.draw(dc, sty, p.Legend.ThumbnailWidth, data.Min.X, legend)
	return encodeSVG(c, label)
}

// newSVG returns an SVG canvas of the given size, filled white, and its
// drawing canvas.
func newSVG(width, height vg.Length) (*vgsvg.Canvas, draw.Canvas) {
	c := vgsvg.New(width, height)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	return c, dc
}

// A legendLayout places a legend's items in rows below a plot: as many
// columns of itemWidth as fit, and the height the rows take.
type legendLayout struct {
	cols, rows           int
	itemWidth, rowHeight vg.Length
	height               vg.Length
}

// layoutLegend lays out the items of legend, in the style of l, across a
// chart of the given width.
func layoutLegend(l plot.Legend, width vg.Length, legend []legendItem) legendLayout {
	sty := l.TextStyle
	out := legendLayout{cols: 1, rowHeight: sty.Rectangle("Ag").Max.Y + vg.Points(6)}
	for _, it := range legend {
		out.itemWidth = max(out.itemWidth, l.ThumbnailWidth+sty.Rectangle(" "+it.label).Max.X+vg.Points(18))
	}
	if len(legend) > 0 {
		out.cols = max(1, min(len(legend), int((width-vg.Points(60))/out.itemWidth)))
		out.rows = (len(legend) + out.cols - 1) / out.cols
	}
	out.height = vg.Length(out.rows) * out.rowHeight
	if out.rows > 0 {
		out.height += vg.Points(8)
	}
	return out
}

// draw draws the items of legend at the bottom of dc, from x on, in the
// text style sty with thumbnails thumb wide.
func (ll legendLayout) draw(dc draw.Canvas, sty text.Style, thumb vg.Length, x0 vg.Length, legend []legendItem) {
	for i, it := range legend {
		row, col := i/ll.cols, i%ll.cols
		x := x0 + vg.Length(col)*ll.itemWidth
		top := dc.Min.Y + ll.height - vg.Points(4) - vg.Length(row)*ll.rowHeight
		l := plot.NewLegend()
		l.TextStyle, l.ThumbnailWidth, l.Left, l.Top = sty, thumb, true, true
		l.Add(it.label, it.thumbs...)
		l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: top - ll.rowHeight},
			Max: vg.Point{X: x + ll.itemWidth, Y: top},
		}})
	}
}

// encodeSVG returns the SVG element that c holds, labelled for screen
// readers.
func encodeSVG(c *vgsvg.Canvas, label string) ([]byte, error) {
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

// drawing is a plotter made of a function that draws on the data canvas,
// with the plot's own transforms from data to the canvas.
type drawing func(c draw.Canvas, x, y func(float64) vg.Length)

// Plot draws d.
func (d drawing) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	d(c, x, y)
}

// swatch is a legend thumbnail: a filled box.
type swatch struct{ fill color.Color }

// Thumbnail draws the box.
func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	r.Min.Y += vg.Points(1)
	r.Max.Y -= vg.Points(1)
	c.SetColor(s.fill)
	c.Fill(r.Path())
}

// lineSwatch is a legend thumbnail: a line across the middle.
type lineSwatch struct{ draw.LineStyle }

// Thumbnail draws the line.
func (l lineSwatch) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.LineStyle, c.Min.X, y, c.Max.X, y)
}

// drawText draws s on a chart in the charts' font, aligned to the point
// at.
func drawText(c draw.Canvas, size float64, bold bool, xalign draw.XAlignment, yalign draw.YAlignment, at vg.Point, s string) {
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if bold {
		f.Weight = xfont.WeightBold
	}
	sty := draw.TextStyle{Color: colorText, Font: font.From(f, vg.Length(size)), XAlign: xalign, YAlign: yalign, Handler: plot.DefaultTextHandler}
	c.FillText(sty, at, s)
}

// histogramScale returns the top of the arrival chart's value axis, and
// whether bars above it are cut: the axis is set by what decides the
// verdict (the peak of retry arrivals, the accept budget and the
// threshold) with room above them, so that the first attempts, which
// arrive together when the fleet fails and can outnumber the retries many
// times, do not squash them. A chart whose tallest bar is less than twice
// that scale keeps every bar whole.
func histogramScale(arrivals, retries []int, budget, limit float64) (top float64, cut bool) {
	var peak, tallest float64
	for _, n := range retries {
		peak = max(peak, float64(n))
	}
	for _, n := range arrivals {
		tallest = max(tallest, float64(n))
	}
	scale := max(peak, budget, limit)
	switch {
	case scale == 0 && tallest == 0:
		return 1, false
	case tallest > 2*scale && scale > 0:
		return roundUp(scale * 1.25), true
	}
	return roundUp(max(scale*1.25, tallest*1.08)), false
}

// roundUp rounds x > 0 up to two significant digits: 9,585 to 9,600.
func roundUp(x float64) float64 {
	if x <= 0 {
		return x
	}
	unit := math.Pow(10, math.Floor(math.Log10(x))-1)
	return math.Ceil(x/unit) * unit
}

// histogramChart draws the arrival histogram of the replay's
// representative run: the retry arrivals per window, the first attempts
// above them, the time the server is down, the accept budget and the
// threshold. The value axis is cut above the retries, the budget and the
// threshold (see histogramScale); a bar cut at the top shows a break and
// its value. The tallest retry bar is labelled with its count. The legend
// is below the plot.
func histogramChart(rp *Replay) ([]byte, error) {
	s := rp.Scenario.WithDefaults()
	arrivals, retryArrivals := rp.Histogram()
	w := s.Window.Seconds()
	if w <= 0 {
		w = 1
	}
	budget := rp.Budget()
	limit := s.Threshold * budget
	top, cut := histogramScale(arrivals, retryArrivals, budget, limit)
	p := newPlot(fmt.Sprintf("Arrivals per %s window: retries against the accept budget", seconds(w)),
		"time since the failure (s)", fmt.Sprintf("arrivals per %s window", seconds(w)))
	end := math.Max(float64(len(arrivals))*w, w)
	p.X.Min, p.X.Max = 0, end
	p.Y.Min, p.Y.Max = 0, top

	budgetStyle, limitStyle := histogramBudgetStyle, histogramLimitStyle
	down := s.Down.Seconds()
	legend := histogramLegend(s, budget, limit)

	p.Add(drawing(func(c draw.Canvas, x, y func(float64) vg.Length) {
		c.SetColor(colorPlotArea)
		c.Fill(c.Rectangle.Path())
		if down > 0 {
			c.SetColor(colorDown)
			c.Fill(vg.Rectangle{Min: vg.Point{X: x(0), Y: y(0)}, Max: vg.Point{X: x(math.Min(down, end)), Y: y(top)}}.Path())
		}
		bar := func(i int, n float64, fill color.Color) vg.Rectangle {
			r := vg.Rectangle{Min: vg.Point{X: x(float64(i) * w), Y: y(0)}, Max: vg.Point{X: x(float64(i+1) * w), Y: y(math.Min(n, top))}}
			if r.Max.X-r.Min.X > vg.Points(2) {
				r.Max.X -= vg.Points(0.4) // a hairline between neighbouring bars
			}
			c.SetColor(fill)
			c.Fill(r.Path())
			return r
		}
		tallest, peak := -1, -1
		for i, n := range arrivals {
			if n > 0 {
				bar(i, float64(n), colorArrivals)
			}
			if tallest < 0 || n > arrivals[tallest] {
				tallest = i
			}
		}
		for i, n := range retryArrivals {
			if n > 0 {
				bar(i, float64(n), colorRetries)
			}
			if n > 0 && (peak < 0 || n > retryArrivals[peak]) {
				peak = i
			}
		}
		if budget > 0 {
			c.StrokeLine2(budgetStyle, x(0), y(budget), x(end), y(budget))
			c.StrokeLine2(limitStyle, x(0), y(limit), x(end), y(limit))
		}
		// Each cut bar gets a break near its top; the tallest is labelled
		// with its value.
		if cut {
			markCutBars(c, x, y, arrivals, w, top, tallest)
		}
		if peak >= 0 {
			at, align := vg.Point{X: x(float64(peak+1)*w) + vg.Points(4), Y: y(float64(retryArrivals[peak]))}, draw.XLeft
			if at.X > c.Min.X+(c.Max.X-c.Min.X)*0.7 {
				at.X, align = x(float64(peak)*w)-vg.Points(4), draw.XRight
			}
			drawText(c, 10, true, align, draw.YCenter, at, fmt.Sprintf("peak %s retries", num(float64(retryArrivals[peak]))))
		}
	}))
	return svg(p, chartWidth, histogramHeight, legend, 0, nil, "Arrival histogram of the fleet replay")
}

// The styles of the histogram's accept budget and threshold.
var (
	histogramBudgetStyle = draw.LineStyle{Color: colorBudget, Width: vg.Points(1.8)}
	histogramLimitStyle  = draw.LineStyle{Color: colorLimit, Width: vg.Points(1.8), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
)

// histogramLegend returns the legend of the arrival histogram of s: the
// time the server is down, the bars, and the accept budget and the
// threshold limit when there is a budget.
func histogramLegend(s sim.Scenario, budget, limit float64) []legendItem {
	var legend []legendItem
	if s.Down > 0 {
		legend = append(legend, legendItem{fmt.Sprintf("server down (%s)", duration(s.Down)), []plot.Thumbnailer{swatch{colorDown}}})
	}
	legend = append(legend,
		legendItem{"retries", []plot.Thumbnailer{swatch{colorRetries}}},
		legendItem{"first attempts", []plot.Thumbnailer{swatch{colorArrivals}}})
	if budget > 0 {
		legend = append(legend,
			legendItem{fmt.Sprintf("accept budget (%s per window)", num(budget)), []plot.Thumbnailer{lineSwatch{histogramBudgetStyle}}},
			legendItem{fmt.Sprintf("threshold (%s × budget = %s)", num(s.Threshold), num(limit)), []plot.Thumbnailer{lineSwatch{histogramLimitStyle}}})
	}
	return legend
}

// markCutBars draws a break near the top of each bar of arrivals, in
// windows of w seconds, taller than the axis's top, and labels the
// tallest with its value.
func markCutBars(c draw.Canvas, x, y func(float64) vg.Length, arrivals []int, w, top float64, tallest int) {
	for i, n := range arrivals {
		if float64(n) <= top {
			continue
		}
		x0, x1, yb := x(float64(i)*w)-vg.Points(1), x(float64(i+1)*w)+vg.Points(1), y(top)-vg.Points(14)
		c.FillPolygon(color.White, []vg.Point{{X: x0, Y: yb}, {X: x1, Y: yb + vg.Points(3)}, {X: x1, Y: yb + vg.Points(7)}, {X: x0, Y: yb + vg.Points(4)}})
	}
	at, align := vg.Point{X: x(float64(tallest+1)*w) + vg.Points(4), Y: y(top) - vg.Points(3)}, draw.XLeft
	if at.X > c.Min.X+(c.Max.X-c.Min.X)*0.7 {
		at.X, align = x(float64(tallest)*w)-vg.Points(4), draw.XRight
	}
	drawText(c, 10, false, align, draw.YTop, at, fmt.Sprintf("%s arrivals, bar cut at the top", num(float64(arrivals[tallest]))))
}

// spreadChart draws the spread of each early delay across the devices as a
// box plot per attempt that some device reached, and returns nil when none
// did: a policy that gave no delay without a defect has no spread to draw.
func spreadChart(delays []AttemptDelays) ([]byte, error) {
	devices := 0
	for _, a := range delays {
		devices = max(devices, len(a.DelaysS))
	}
	p := newPlot(
		fmt.Sprintf("Spread of the first delays across %s devices", num(float64(devices))),
		"", "delay (s)")
	if devices == 0 {
		return nil, nil
	}
	var names []string
	for _, a := range delays {
		if len(a.DelaysS) == 0 {
			continue
		}
		// A box's position is its name's index on the nominal axis.
		box, err := plotter.NewBoxPlot(vg.Points(60), float64(len(names)), plotter.Values(a.DelaysS))
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
	return svg(p, chartWidth, chartHeight, nil, 0, nil, "Spread of the first delays across devices")
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

// comparisonThreshold returns the threshold a comparison's figure is held
// to, in the figure's own terms, and whether it has one: the scenario's
// threshold for the peak ratio, and that share of the accept budget for
// the peak of retry arrivals. The other figures have none.
func comparisonThreshold(c *Comparison) (float64, bool) {
	s := c.Scenario.WithDefaults()
	switch c.Figure {
	case sim.PeakRatio:
		return s.Threshold, s.Threshold > 0
	case sim.PeakRetryArrivals:
		t := s.Threshold * s.AcceptRate * s.Window.Seconds()
		return t, t > 0 && !s.Kind.ArrivalsOnly()
	}
	return 0, false
}

// thresholdPhrase says what a comparison's threshold is: "0.6" for the
// peak ratio, "30 retries in one window, 0.6 × the accept budget of 50"
// for the peak of retry arrivals; "" when the figure has none.
func thresholdPhrase(c *Comparison) string {
	limit, ok := comparisonThreshold(c)
	if !ok {
		return ""
	}
	if c.Figure == sim.PeakRetryArrivals {
		s := c.Scenario.WithDefaults()
		return fmt.Sprintf("%s retries in one window, %s × the accept budget of %s", num(limit), num(s.Threshold), num(s.AcceptRate*s.Window.Seconds()))
	}
	return num(limit)
}

// estimateColor colours an estimate by how it stands to the threshold:
// red when its median is over, amber when only its interval reaches
// over, green when it is all within; blue when there is no threshold.
func estimateColor(e sim.Estimate, limit float64, hasLimit bool) color.Color {
	switch {
	case !hasLimit:
		return colorBox
	case e.Median > limit:
		return colorLimit
	case e.High > limit:
		return colorWarn
	}
	return colorBudget
}

// comparisonChart draws a comparison as a row per policy (and fleet size,
// when there are several): a dot at the median, a bar across its
// interval with a cap at each end, the threshold as a dashed vertical
// line when the figure has one, and each row's median and interval
// written beside the plot. It shows the strings of c through Visible, cut
// at chartMax bytes. The value axis is logarithmic when the values span
// more than a factor of 20.
func comparisonChart(c *Comparison) ([]byte, error) {
	label, unit := figureLabel(c.Figure)
	const valuesWidth = 150
	label = Visible(label, chartMax)
	policies := make([]string, len(c.Policies))
	for i, name := range c.Policies {
		policies[i] = Visible(name, chartMax)
	}
	headings, note := columnHeadings(policies)
	rows := comparisonBars(c, headings)
	limit, hasLimit := comparisonThreshold(c)

	title := upperFirst(label) + " by policy"
	if len(c.Rows) == 1 {
		title += ", " + plural(c.Rows[0].Clients, "client")
	}
	yLabel := "policy"
	if note != "" {
		yLabel = "policy (" + note + ")"
	}
	p := newPlot(title, withUnit(label, unitWord(unit)), yLabel)
	scaleComparison(p, rows, limit, hasLimit)
	p.Title.Text = fitText(p.Title.TextStyle, p.Title.Text, chartWidth-vg.Points(20))
	p.X.Label.Text = fitText(p.X.Label.TextStyle, p.X.Label.Text, chartWidth-vg.Points(valuesWidth+40))
	n := len(rows)
	names := make([]string, n)
	for i, r := range rows {
		// The first row on top, and no name wider than a third of the
		// chart, so that the data keeps its room.
		names[n-1-i] = fitText(p.Y.Tick.Label, r.name, chartWidth/3)
	}
	if n > 0 {
		p.NominalY(names...)
	}
	p.Y.Tick.Label.Font.Size = vg.Points(11)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	if hasLimit {
		p.Y.Max += 0.7 // room for the threshold's label
	}

	ends := draw.LineStyle{Width: vg.Points(1.6)}
	limitStyle := draw.LineStyle{Color: colorLimit, Width: vg.Points(1.6), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
	p.Add(drawing(func(dc draw.Canvas, x, y func(float64) vg.Length) {
		dc.SetColor(colorPlotArea)
		dc.Fill(dc.Rectangle.Path())
		if hasLimit {
			dc.StrokeLine2(limitStyle, x(limit), y(-0.6), x(limit), y(float64(n)-0.4))
			drawText(dc, 10, true, draw.XCenter, draw.YBottom, vg.Point{X: x(limit), Y: y(float64(n) - 0.25)}, "threshold "+num(limit))
		}
		for i, r := range rows {
			yy := y(float64(n - 1 - i))
			col := estimateColor(r.e, limit, hasLimit)
			ends.Color = col
			bar := ends
			bar.Width = vg.Points(2.4)
			dc.StrokeLine2(bar, x(r.e.Low), yy, x(r.e.High), yy)
			for _, v := range []float64{r.e.Low, r.e.High} {
				dc.StrokeLine2(ends, x(v), yy-vg.Points(5), x(v), yy+vg.Points(5))
			}
			dc.DrawGlyph(draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}, vg.Point{X: x(r.e.Median), Y: yy})
		}
	}))

	values := func(right, data draw.Canvas) {
		_, y := p.Transforms(&data)
		drawText(right, 10, true, draw.XLeft, draw.YBottom, vg.Point{X: right.Min.X + vg.Points(10), Y: y(float64(n)-0.4) + vg.Points(2)}, "median [interval]")
		for i, r := range rows {
			drawText(right, 10, false, draw.XLeft, draw.YCenter, vg.Point{X: right.Min.X + vg.Points(10), Y: y(float64(n - 1 - i))}, chartCell(c, r.e))
		}
	}
	height := vg.Points(110 + 30*float64(n))
	return svg(p, chartWidth, height, nil, vg.Points(valuesWidth), values, "Comparison of policies")
}

// A comparisonBar is one bar of the comparison chart: a policy's
// estimate on one row, named by its column and, when there are several
// rows, by its row.
type comparisonBar struct {
	name string
	e    sim.Estimate
}

// comparisonBars returns the bars of c's chart, row by row, each policy's
// in its column's order, headings naming the columns; a cell with no
// value to draw has none.
func comparisonBars(c *Comparison, headings []string) []comparisonBar {
	var rows []comparisonBar
	for _, r := range c.Rows {
		for j, e := range r.Cells {
			if j >= len(headings) {
				break
			}
			if r.noValue(c.Figure, j) {
				continue // no time of serving to draw
			}
			name := headings[j]
			switch {
			case r.Budget != "":
				name += ", " + r.label()
			case len(c.Rows) > 1:
				name += ", " + plural(r.Clients, "client")
			}
			rows = append(rows, comparisonBar{name, e})
		}
	}
	return rows
}

// scaleComparison sets the value axis of the comparison chart p to hold
// every bar and the threshold: logarithmic when the values span more than
// a factor of 20, else linear from 0.
func scaleComparison(p *plot.Plot, rows []comparisonBar, limit float64, hasLimit bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		lo, hi = math.Min(lo, r.e.Low), math.Max(hi, r.e.High)
	}
	if hasLimit {
		lo, hi = math.Min(lo, limit), math.Max(hi, limit)
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	if lo > 0 && hi/lo > 20 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = numTicks{plot.LogTicks{Prec: -1}}
		p.X.Min, p.X.Max = lo/1.6, hi*1.6
		return
	}
	p.X.Tick.Marker = numTicks{plot.DefaultTicks{}}
	p.X.Min = math.Min(0, lo)
	p.X.Max = hi + (hi-p.X.Min)*0.06
	if p.X.Max == p.X.Min {
		p.X.Max = p.X.Min + 1
	}
}

// fitText returns s cut to fit within width in the style sty, with an
// ellipsis where it is cut.
func fitText(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && sty.Width(string(r)+"…") > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
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

// chartCell is a comparison chart's value of estimate e: "never" for a
// time to recover that never came.
func chartCell(c *Comparison, e sim.Estimate) string {
	if neverRecovered(c.Scenario, c.Figure, e) {
		return "never"
	}
	return cell(c.Figure, e)
}

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// seriesBins is the most bins a time-series chart draws: a longer run's
// seconds are averaged over wider bins, so that an hour stays readable and
// its SVG small.
const seriesBins = 300

// seriesBin returns the width in whole seconds of the bins that draw n
// seconds in at most seriesBins bins: 1, 2 or 5 times a power of ten.
func seriesBin(n int) int {
	for b := 1; ; b *= 10 {
		for _, m := range []int{1, 2, 5} {
			if n <= seriesBins*b*m {
				return b * m
			}
		}
	}
}

// binMeans returns the mean per second of xs over bins of w seconds; the
// last bin, which may be shorter, is the mean over its own seconds. A value
// that is not finite counts as 0.
func binMeans(w int, xs []float64) []float64 {
	out := make([]float64, 0, (len(xs)+w-1)/w)
	for i := 0; i < len(xs); i += w {
		j := min(i+w, len(xs))
		var sum float64
		for _, x := range xs[i:j] {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				sum += x
			}
		}
		out = append(out, sum/float64(j-i))
	}
	return out
}

// floats returns xs as float64s.
func floats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// sumSeries returns the sum of a and b, element by element, as long as the
// shorter.
func sumSeries(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] + b[i]
	}
	return out
}

// steps returns the outline of a step function that holds v[i] over bin i,
// [i·w, (i+1)·w), in canvas coordinates, from the left end to the right
// (end, the run's last instant, ends the last bin), with one corner pair
// where the value changes and none where it does not.
func steps(v []float64, w, end float64, x, y func(float64) vg.Length) []vg.Point {
	var pts []vg.Point
	for i, f := range v {
		if i == 0 || f != v[i-1] {
			at := x(float64(i) * w)
			if i > 0 {
				pts = append(pts, vg.Point{X: at, Y: y(v[i-1])})
			}
			pts = append(pts, vg.Point{X: at, Y: y(f)})
		}
	}
	if len(v) > 0 {
		pts = append(pts, vg.Point{X: x(end), Y: y(v[len(v)-1])})
	}
	return pts
}

// band returns the polygon between the step functions low and high.
func band(low, high []float64, w, end float64, x, y func(float64) vg.Length) []vg.Point {
	pts := steps(high, w, end, x, y)
	bottom := steps(low, w, end, x, y)
	for i := len(bottom) - 1; i >= 0; i-- {
		pts = append(pts, bottom[i])
	}
	return pts
}

// polyline returns the points (at(i), v[i]) in canvas coordinates, less
// those in the middle of a run of equal values.
func polyline(v []float64, at func(int) float64, x, y func(float64) vg.Length) []vg.Point {
	var pts []vg.Point
	for i, f := range v {
		if i > 0 && i < len(v)-1 && f == v[i-1] && f == v[i+1] {
			continue
		}
		pts = append(pts, vg.Point{X: x(at(i)), Y: y(f)})
	}
	return pts
}

// recoveryPhrase says whether the run recovered: "recovered 5s after the
// dip" or "never recovered within the 5m horizon".
func recoveryPhrase(s sim.Scenario, run sim.Run) string {
	if !run.Recovered {
		return fmt.Sprintf("never recovered within the %s horizon", duration(s.Horizon))
	}
	return fmt.Sprintf("recovered %s after %s", duration(run.RecoveredAfter), s.SeriesChart().End)
}

// budgetWords are what a time-series chart calls a budget's level: the
// value axis of its panel, the line's name, and whose level it is.
type budgetWords struct {
	axis, level, whose string
	// states labels the levels of a budget of a few states, from 0: a
	// breaker's closed, half-open and open.
	states []string
}

// budgetWordsOf returns the words of s's budget.
func budgetWordsOf(s sim.Scenario) budgetWords {
	b := s.Budget.WithDefaults()
	var w budgetWords
	w.axis, w.level, w.states = b.LevelWords()
	w.whose = "one budget for the fleet"
	if b.Scope != sim.ScopeFleet {
		w.whose = fmt.Sprintf("mean over the %s devices", num(float64(s.Clients)))
	}
	return w
}

// budgetStopped returns the retries the budget refused plus the attempts
// it rejected at the client in second i of ser.
func budgetStopped(ser *sim.Series, i int) int {
	n := 0
	if i < len(ser.Refused) {
		n += ser.Refused[i]
	}
	if i < len(ser.Throttled) {
		n += ser.Throttled[i]
	}
	return n
}

// retriesAllowedAgain returns the first whole second, from second from
// on, from which the budget of ser refuses no retry and rejects no
// attempt at the client for the rest of the run: the second after the
// last one, from from on, in which it did. stopped is false when it did
// neither from from on; ok is false when it still did in the run's last
// second.
func retriesAllowedAgain(ser *sim.Series, from int) (at int, stopped, ok bool) {
	n := max(len(ser.Refused), len(ser.Throttled))
	last := -1
	for i := max(from, 0); i < n; i++ {
		if budgetStopped(ser, i) > 0 {
			last = i
		}
	}
	switch {
	case last < 0:
		return 0, false, false
	case last+1 >= n:
		return 0, true, false
	}
	return last + 1, true, true
}

// sumInts returns the sum of xs.
func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// Colours of the time-series chart.
var (
	colorRamp     = color.RGBA{R: 0xee, G: 0xf0, B: 0xf2, A: 0xff}
	colorCapacity = color.RGBA{R: 0x1d, G: 0x27, B: 0x33, A: 0xff}
	colorRecover  = color.RGBA{R: 0x6a, G: 0x1b, B: 0x9a, A: 0xff}
	colorLevel    = color.RGBA{R: 0x00, G: 0x83, B: 0x8f, A: 0xff}
	colorRefused  = color.RGBA{R: 0xb2, G: 0x6a, B: 0x00, A: 0xff}
	colorThrottle = color.RGBA{R: 0xad, G: 0x14, B: 0x57, A: 0xff}
)

// seriesChart draws the representative run of a server model's replay
// second by second, or in wider bins over a long run (see seriesBin): in
// the upper panel, the first attempts and the retries sent, stacked, the
// successes and the failures the clients learned of and the server's
// capacity as lines, the trigger shaded and the instant the run recovered
// marked; in the lower panel, the jobs in the system (the sessions open,
// in a Reconnect), and an Overload's queue limit; with a budget, a third
// panel of its level. The legend is below them. It returns nil when the
// run has no series.
func seriesChart(rp *Replay) ([]byte, error) {
	v, ok := newSeriesView(rp)
	if !ok {
		return nil, nil
	}
	panels, heights := v.panels()
	legend := v.legend()
	return v.compose(panels, heights, legend, layoutLegend(panels[0].Legend, chartWidth, legend))
}

// The styles of the time-series chart's lines.
var (
	seriesSuccStyle      = draw.LineStyle{Color: colorBudget, Width: vg.Points(1.6)}
	seriesFailStyle      = draw.LineStyle{Color: colorLimit, Width: vg.Points(1.6)}
	seriesCapStyle       = draw.LineStyle{Color: colorCapacity, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	seriesRecStyle       = draw.LineStyle{Color: colorRecover, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
	seriesJobsStyle      = draw.LineStyle{Color: colorBox, Width: vg.Points(1.4)}
	seriesLimitStyle     = draw.LineStyle{Color: colorLimit, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
	seriesRefusedStyle   = draw.LineStyle{Color: colorRefused, Width: vg.Points(1.4)}
	seriesThrottledStyle = draw.LineStyle{Color: colorThrottle, Width: vg.Points(1.4)}
	seriesLevelStyle     = draw.LineStyle{Color: colorLevel, Width: vg.Points(1.6)}
	seriesAgainStyle     = draw.LineStyle{Color: colorLevel, Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}}
)

// A seriesView is the representative run of a server model's replay as
// its time-series chart draws it: the series in bins of bw seconds, the
// panels' tops, and what the chart marks on them.
type seriesView struct {
	rp  *Replay
	run sim.Run
	s   sim.Scenario
	c   sim.SeriesChart
	w   int     // seconds a bin
	bw  float64 // the same, as a float
	end float64 // the run's length, in seconds

	first, sent, succ, fail, capacity, jobs, zeros []float64

	// budgeted is set for an Overload with a budget, whose panel draws
	// its level and what it stopped.
	budgeted             bool
	bwords               budgetWords
	refused, throttled   []float64
	level                []float64
	nRefused, nThrottled int
	againAt              int
	stopped, again       bool
	top, jobsTop         float64
	queueLimit           float64
	recoveredAt          float64
}

// newSeriesView bins the representative run of rp, or reports false when
// the run has no series.
func newSeriesView(rp *Replay) (*seriesView, bool) {
	if rp.Representative < 0 || rp.Representative >= len(rp.Runs) {
		return nil, false
	}
	run := rp.Runs[rp.Representative]
	ser := run.Series
	if ser == nil || len(ser.FirstSent) == 0 {
		return nil, false
	}
	s := rp.Scenario.WithDefaults()
	n := len(ser.FirstSent)
	w := seriesBin(n)
	v := &seriesView{rp: rp, run: run, s: s, c: s.SeriesChart(), w: w, bw: float64(w), end: float64(n)}
	v.first = binMeans(w, floats(ser.FirstSent))
	v.sent = sumSeries(v.first, binMeans(w, floats(ser.RetriesSent)))
	v.succ = binMeans(w, floats(ser.Successes))
	v.fail = binMeans(w, floats(ser.Failures))
	v.capacity = binMeans(w, ser.Capacity)
	v.jobs = binMeans(w, floats(ser.Jobs))
	v.zeros = make([]float64, len(v.first))
	v.budgeted = v.c.Budgeted && len(ser.Budget) > 0
	if v.budgeted {
		v.refused, v.throttled, v.level = binMeans(w, floats(ser.Refused)), binMeans(w, floats(ser.Throttled)), binMeans(w, ser.Budget)
		v.nRefused, v.nThrottled = sumInts(ser.Refused), sumInts(ser.Throttled)
		v.againAt, v.stopped, v.again = retriesAllowedAgain(ser, int(math.Ceil(v.c.From)))
		v.bwords = budgetWordsOf(s)
	}
	for _, xs := range [][]float64{v.sent, v.succ, v.fail, v.capacity, v.refused, v.throttled} {
		for _, f := range xs {
			v.top = max(v.top, f)
		}
	}
	for _, f := range v.jobs {
		v.jobsTop = max(v.jobsTop, f)
	}
	if s.QueueLimit > 0 {
		v.queueLimit = float64(s.QueueLimit)
		v.jobsTop = max(v.jobsTop, v.queueLimit)
	}
	v.top, v.jobsTop = max(roundUp(v.top*1.08), 1), max(roundUp(v.jobsTop*1.08), 1)
	v.recoveredAt = (s.RecoveryFrom() + run.RecoveredAfter).Seconds()
	return v, true
}

// binned says how the series are binned, for the title: "second by
// second", or in bins of several seconds.
func (v *seriesView) binned() string {
	if v.w > 1 {
		return fmt.Sprintf("in %s bins", seconds(v.bw))
	}
	return "second by second"
}

// panels returns the chart's panels, from the top, and their heights: the
// traffic, the jobs, and with a budget its level; each draws its series.
func (v *seriesView) panels() ([]*plot.Plot, []vg.Length) {
	title := fmt.Sprintf("Run %d of %d, %s: %s", v.rp.Representative+1, len(v.rp.Runs), v.binned(), recoveryPhrase(v.s, v.run))
	upper := newPlot(title, "", "attempts and outcomes per second")
	upper.Title.Text = fitText(upper.Title.TextStyle, upper.Title.Text, chartWidth-vg.Points(20))
	upper.X.Min, upper.X.Max = 0, v.end
	upper.Y.Min, upper.Y.Max = 0, v.top
	upper.X.Tick.Marker = numTicks{plot.DefaultTicks{}}
	timeAxis := "time since the start of the run (s)"
	lower := newPlot("", timeAxis, v.c.JobsAxis)
	lower.X.Min, lower.X.Max = 0, v.end
	lower.Y.Min, lower.Y.Max = 0, v.jobsTop
	lower.X.Tick.Marker = numTicks{plot.DefaultTicks{}}
	upper.Add(drawing(v.drawTraffic))
	lower.Add(drawing(v.drawJobs))
	panels, heights := []*plot.Plot{upper, lower}, []vg.Length{vg.Points(300), vg.Points(150)}
	if v.budgeted {
		lower.X.Label.Text = ""
		panels, heights = append(panels, v.budgetPanel(timeAxis)), append(heights, vg.Points(140))
	}
	return panels, heights
}

// budgetPanel returns the panel of the budget's level: its states, or
// its level's range.
func (v *seriesView) budgetPanel(timeAxis string) *plot.Plot {
	p := newPlot("", timeAxis, v.bwords.axis)
	p.X.Min, p.X.Max = 0, v.end
	p.X.Tick.Marker = numTicks{plot.DefaultTicks{}}
	if v.bwords.states != nil {
		var ticks plot.ConstantTicks
		for i, st := range v.bwords.states {
			ticks = append(ticks, plot.Tick{Value: float64(i), Label: st})
		}
		p.Y.Tick.Marker = ticks
		p.Y.Min, p.Y.Max = -0.15, float64(len(v.bwords.states)-1)+0.15
	} else {
		lo, hi := 0.0, 0.0
		for _, f := range v.level {
			lo, hi = min(lo, f), max(hi, f)
		}
		p.Y.Min, p.Y.Max = -roundUp(-lo*1.08), max(roundUp(hi*1.08), 1)
		if v.s.Budget.Kind == sim.Adaptive {
			p.Y.Max = min(p.Y.Max, 1)
		}
	}
	p.Add(drawing(func(c draw.Canvas, x, y func(float64) vg.Length) {
		lo, hi := p.Y.Min, p.Y.Max
		v.shade(c, x, y, hi)
		if v.bwords.states != nil {
			// A state holds from one sample to the next: a line between
			// two states would pass through a third.
			c.StrokeLines(seriesLevelStyle, steps(v.level, v.bw, v.end, x, y))
		} else {
			c.StrokeLines(seriesLevelStyle, polyline(v.level, v.sample, x, y))
		}
		v.markRecovery(c, x, y, hi, false)
		v.markAllowed(c, x, y, lo, hi, true)
	}))
	return p
}

// legend returns the chart's legend, in the order the panels draw.
func (v *seriesView) legend() []legendItem {
	legend := []legendItem{{v.c.Trigger, []plot.Thumbnailer{swatch{colorDown}}}}
	if v.c.Ramp != "" {
		legend = append(legend, legendItem{v.c.Ramp, []plot.Thumbnailer{swatch{colorRamp}}})
	}
	legend = append(legend,
		legendItem{v.c.First, []plot.Thumbnailer{swatch{colorArrivals}}},
		legendItem{v.c.Retries, []plot.Thumbnailer{swatch{colorRetries}}},
		legendItem{v.c.Successes, []plot.Thumbnailer{lineSwatch{seriesSuccStyle}}},
		legendItem{v.c.Failures, []plot.Thumbnailer{lineSwatch{seriesFailStyle}}},
		legendItem{v.c.Capacity, []plot.Thumbnailer{lineSwatch{seriesCapStyle}}})
	if v.nRefused > 0 {
		legend = append(legend, legendItem{fmt.Sprintf("retries the budget refused (%s)", num(float64(v.nRefused))), []plot.Thumbnailer{lineSwatch{seriesRefusedStyle}}})
	}
	if v.nThrottled > 0 {
		legend = append(legend, legendItem{fmt.Sprintf("attempts it rejected at the client (%s)", num(float64(v.nThrottled))), []plot.Thumbnailer{lineSwatch{seriesThrottledStyle}}})
	}
	if v.run.Recovered {
		legend = append(legend, legendItem{fmt.Sprintf("recovered (at %s)", seconds(v.recoveredAt)), []plot.Thumbnailer{lineSwatch{seriesRecStyle}}})
	}
	legend = append(legend, legendItem{v.c.Jobs, []plot.Thumbnailer{lineSwatch{seriesJobsStyle}}})
	if v.queueLimit > 0 {
		legend = append(legend, legendItem{fmt.Sprintf("queue limit (%s jobs)", num(v.queueLimit)), []plot.Thumbnailer{lineSwatch{seriesLimitStyle}}})
	}
	if v.budgeted {
		legend = append(legend, legendItem{fmt.Sprintf("%s (%s)", v.bwords.level, v.bwords.whose), []plot.Thumbnailer{lineSwatch{seriesLevelStyle}}})
		switch {
		case v.again:
			legend = append(legend, legendItem{fmt.Sprintf("retries allowed again (from %s)", seconds(float64(v.againAt))), []plot.Thumbnailer{lineSwatch{seriesAgainStyle}}})
		case v.stopped:
			legend = append(legend, legendItem{"retries never allowed again: the budget still stops some in the run's last second", nil})
		}
	}
	return legend
}

// mid is the middle of bin i, where a rate's mean is drawn.
func (v *seriesView) mid(i int) float64 { return math.Min((float64(i)+0.5)*v.bw, v.end) }

// sample is where the mean of bin i of the capacity or the jobs is drawn:
// they are sampled at whole seconds, and a bin's mean sits at the mean of
// its instants.
func (v *seriesView) sample(i int) float64 {
	return float64(i)*v.bw + (math.Min(v.bw, v.end-float64(i)*v.bw)-1)/2
}

// shade fills a panel's data area up to top, and shades the trigger and
// the ramp after it.
func (v *seriesView) shade(c draw.Canvas, x, y func(float64) vg.Length, top float64) {
	c.SetColor(colorPlotArea)
	c.Fill(c.Rectangle.Path())
	fill := func(from, to float64, col color.Color) {
		from, to = math.Max(from, 0), math.Min(to, v.end)
		if to <= from {
			return
		}
		// At least 2pt wide, so that a short trigger shows on a long run.
		r := vg.Rectangle{Min: vg.Point{X: x(from), Y: y(0)}, Max: vg.Point{X: max(x(to), x(from)+vg.Points(2)), Y: y(top)}}
		c.SetColor(col)
		c.Fill(r.Path())
	}
	fill(v.c.From, v.c.To, colorDown)
	fill(v.c.To, v.c.RampTo, colorRamp)
}

// markRecovery marks the instant the run recovered, up to top, labelled
// when label is set.
func (v *seriesView) markRecovery(c draw.Canvas, x, y func(float64) vg.Length, top float64, label bool) {
	at := v.recoveredAt
	if !v.run.Recovered || at > v.end {
		return
	}
	c.StrokeLine2(seriesRecStyle, x(at), y(0), x(at), y(top))
	if !label {
		return
	}
	pt, align := vg.Point{X: x(at) + vg.Points(4), Y: y(top) - vg.Points(3)}, draw.XLeft
	if pt.X > c.Min.X+(c.Max.X-c.Min.X)*0.7 {
		pt.X, align = x(at)-vg.Points(4), draw.XRight
	}
	drawText(c, 10, true, align, draw.YTop, pt, fmt.Sprintf("recovered at %s", seconds(at)))
}

// markAllowed marks the second from which the budget lets every retry
// through again, labelled halfway up the panel when label is set.
func (v *seriesView) markAllowed(c draw.Canvas, x, y func(float64) vg.Length, bottom, top float64, label bool) {
	at := float64(v.againAt)
	if !v.again || at > v.end {
		return
	}
	c.StrokeLine2(seriesAgainStyle, x(at), y(bottom), x(at), y(top))
	if !label {
		return
	}
	// The label goes left of the mark near the right edge, or where the
	// recovery's mark follows close behind.
	pt, align := vg.Point{X: x(at) + vg.Points(4), Y: y((bottom + top) / 2)}, draw.XLeft
	close := v.run.Recovered && v.recoveredAt > at && x(v.recoveredAt)-x(at) < vg.Points(150)
	if pt.X > c.Min.X+(c.Max.X-c.Min.X)*0.7 || close && x(at)-c.Min.X > vg.Points(150) {
		pt.X, align = x(at)-vg.Points(4), draw.XRight
	}
	drawText(c, 10, true, align, draw.YCenter, pt, fmt.Sprintf("retries allowed again at %s", seconds(at)))
}

// drawTraffic draws the upper panel: the attempts sent, stacked, and the
// outcomes and the capacity as lines.
func (v *seriesView) drawTraffic(c draw.Canvas, x, y func(float64) vg.Length) {
	v.shade(c, x, y, v.top)
	// The retries are the band between the first attempts and all that
	// was sent: the whole stack in their colour, the first attempts over
	// its foot, which saves the band's lower edge.
	c.FillPolygon(colorRetries, band(v.zeros, v.sent, v.bw, v.end, x, y))
	c.FillPolygon(colorArrivals, band(v.zeros, v.first, v.bw, v.end, x, y))
	c.StrokeLines(seriesCapStyle, steps(v.capacity, v.bw, v.end, x, y))
	c.StrokeLines(seriesSuccStyle, polyline(v.succ, v.mid, x, y))
	c.StrokeLines(seriesFailStyle, polyline(v.fail, v.mid, x, y))
	if v.nRefused > 0 {
		c.StrokeLines(seriesRefusedStyle, polyline(v.refused, v.mid, x, y))
	}
	if v.nThrottled > 0 {
		c.StrokeLines(seriesThrottledStyle, polyline(v.throttled, v.mid, x, y))
	}
	v.markRecovery(c, x, y, v.top, true)
	v.markAllowed(c, x, y, 0, v.top, false)
}

// drawJobs draws the lower panel: the jobs in the system and an
// Overload's queue limit.
func (v *seriesView) drawJobs(c draw.Canvas, x, y func(float64) vg.Length) {
	v.shade(c, x, y, v.jobsTop)
	if v.queueLimit > 0 {
		c.StrokeLine2(seriesLimitStyle, x(0), y(v.queueLimit), x(v.end), y(v.queueLimit))
	}
	c.StrokeLines(seriesJobsStyle, polyline(v.jobs, v.sample, x, y))
	v.markRecovery(c, x, y, v.jobsTop, false)
	v.markAllowed(c, x, y, 0, v.jobsTop, false)
}

// compose draws the panels, each above the next and the last above the
// legend, laid out as l, into one SVG with its accessible label.
func (v *seriesView) compose(panels []*plot.Plot, heights []vg.Length, legend []legendItem, l legendLayout) ([]byte, error) {
	upper := panels[0]
	height := l.height
	for _, h := range heights {
		height += h
	}
	c, dc := newSVG(chartWidth, height)
	sty := upper.Legend.TextStyle
	// A little room on the right for the last tick's label, which sits at
	// the run's end.
	areas := make([]draw.Canvas, len(panels))
	var above vg.Length
	left := vg.Length(0)
	for i, p := range panels {
		p.Legend = plot.NewLegend()
		below := height - above - heights[i]
		areas[i] = draw.Crop(dc, 0, -vg.Points(8), below, -above)
		above += heights[i]
		left = max(left, p.DataCanvas(areas[i]).Min.X)
	}
	// The panels share the time axis: their data areas start where the
	// widest of the value axes leaves room.
	for i, p := range panels {
		areas[i] = draw.Crop(areas[i], left-p.DataCanvas(areas[i]).Min.X, 0, 0, 0)
		p.Draw(areas[i])
	}
	l.draw(dc, sty, upper.Legend.ThumbnailWidth, left, legend)
	per := "per second"
	if v.w > 1 {
		per = fmt.Sprintf("per second, mean over %s bins", seconds(v.bw))
	}
	label := fmt.Sprintf("Time series of run %d of %d: %s and %s, %s, %s and %s %s, with %s below",
		v.rp.Representative+1, len(v.rp.Runs), v.c.First, v.c.Retries, v.c.Successes, v.c.Failures, v.c.Capacity, per, v.c.Jobs)
	if v.budgeted {
		label += fmt.Sprintf(", and below them the %s (%s)", v.bwords.level, v.bwords.whose)
	}
	label += "; " + recoveryPhrase(v.s, v.run)
	return encodeSVG(c, label)
}
