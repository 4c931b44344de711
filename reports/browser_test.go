//go:build unix

package reports_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
)

// measure is added to a copy of the page under test: it writes the drawn
// size and the number of shapes and labels of each chart into the DOM, for
// --dump-dom to show.
const measure = `<script>
for (const f of document.querySelectorAll("figure.chart")) {
  const s = f.querySelector("svg"), r = s.getBoundingClientRect();
  const p = document.createElement("pre");
  p.className = "measured";
  p.textContent = [f.id, Math.round(r.width), Math.round(r.height),
    s.querySelectorAll("path").length, s.querySelectorAll("text").length].join(" ");
  document.body.appendChild(p);
}
</script>`

var measured = regexp.MustCompile(`<pre class="measured">(\S+) (\d+) (\d+) (\d+) (\d+)</pre>`)

// TestHTMLInBrowser renders report.html in headless Chromium and checks
// that the three charts are drawn: each SVG laid out at a readable size,
// with its bars, lines and labels. A screenshot of the page must hold the
// charts' colours. It is skipped when no browser is installed.
func TestHTMLInBrowser(t *testing.T) {
	browser := findBrowser(t)
	dir := t.TempDir()
	r := failingReport()
	var page bytes.Buffer
	require.NoError(t, reports.WriteHTML(&page, r))
	plain := filepath.Join(dir, "report.html")
	probe := filepath.Join(dir, "probe.html")
	require.NoError(t, os.WriteFile(plain, page.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(probe, bytes.Replace(page.Bytes(), []byte("</body>"), []byte(measure+"</body>"), 1), 0o644))

	dom := runBrowser(t, browser, dir, "--dump-dom", "file://"+probe)
	bars := 0
	arrivals, retries := r.Replay.Histogram()
	for _, n := range arrivals {
		bars += min(n, 1)
	}
	for _, n := range retries {
		bars += min(n, 1)
	}
	want := map[string]struct{ paths, texts int }{
		// The histogram: a bar per window that has arrivals and one per
		// window that has retries, the down period, the two lines; the
		// spread: three boxes; the comparison: a dot, an interval bar and
		// two caps per cell, and the threshold. Labels: title, axes, ticks,
		// legend and the values beside the rows.
		"histogram-chart":  {paths: bars + 3, texts: 10},
		"spread-chart":     {paths: 12, texts: 8},
		"comparison-chart": {paths: 16, texts: 10},
	}
	found := 0
	for _, m := range measured.FindAllStringSubmatch(dom, -1) {
		id := m[1]
		w, _ := strconv.Atoi(m[2])
		h, _ := strconv.Atoi(m[3])
		paths, _ := strconv.Atoi(m[4])
		texts, _ := strconv.Atoi(m[5])
		min, ok := want[id]
		if !assert.True(t, ok, "unexpected chart %q", id) {
			continue
		}
		found++
		t.Logf("%s: %d×%d px, %d paths, %d labels", id, w, h, paths, texts)
		assert.GreaterOrEqual(t, w, 600, "%s's drawn width in px", id)
		assert.GreaterOrEqual(t, h, 250, "%s's drawn height in px", id)
		assert.GreaterOrEqual(t, paths, min.paths, "%s's paths", id)
		assert.GreaterOrEqual(t, texts, min.texts, "%s's labels", id)
	}
	require.Equal(t, len(want), found, "charts measured. DOM:\n%s", dom)

	shot := filepath.Join(dir, "report.png")
	runBrowser(t, browser, dir, "--window-size=1100,3400", "--screenshot="+shot, "file://"+plain)
	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, "screenshot")
	// The retry bars' orange and the verdict's red must be on screen.
	for name, c := range map[string]color.RGBA{
		"retry bars":   {R: 0xd9, G: 0x5f, B: 0x2b, A: 0xff},
		"FAIL verdict": {R: 0xc6, G: 0x28, B: 0x28, A: 0xff},
	} {
		assert.GreaterOrEqual(t, countColor(img, c), 200, "pixels of the %s' colour in the screenshot", name)
	}
	if out := os.Getenv("JITTERKIT_SCREENSHOT"); out != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(out, b, 0o644)
	}
}

// TestHostileHTMLInBrowser has Chromium parse the page of a report whose
// strings are hostile: the page it builds holds the elements the source
// holds, no more, and its text no control character.
func TestHostileHTMLInBrowser(t *testing.T) {
	browser := findBrowser(t)
	dir := t.TempDir()
	var page bytes.Buffer
	require.NoError(t, reports.WriteHTML(&page, hostileReport()))
	path := filepath.Join(dir, "report.html")
	require.NoError(t, os.WriteFile(path, page.Bytes(), 0o644))
	dom := runBrowser(t, browser, dir, "--dump-dom", "file://"+path)
	for _, tag := range []string{"<tr>", "<td>", "<code>", "<li>", "<details>", "<strong>"} {
		assert.Equal(t, strings.Count(page.String(), tag), strings.Count(dom, tag), "%s elements in the page Chromium built", tag)
	}
	for _, tag := range []string{"<script", "<b>", "<testcase", "<img"} {
		assert.NotContains(t, dom, tag)
	}
	assertNothingHidden(t, dom, true)
}

// place is added to a copy of the page under test: it writes where the
// verdict, its reason, what to change first and the changed policy are
// drawn, and the size of the window, for --dump-dom to show.
const place = `<script>
for (const [name, sel] of [["verdict", "#verdict"], ["reason", "#reason"], ["first-change", "#first-change p.first"], ["fix-policy", "#first-change p.fix-policy"]]) {
  const e = document.querySelector(sel);
  if (!e) continue;
  const r = e.getBoundingClientRect(), p = document.createElement("pre");
  p.className = "placed";
  p.textContent = [name, Math.round(r.top), Math.round(r.bottom), Math.round(r.left), Math.round(r.right), innerWidth, innerHeight].join(" ");
  document.body.appendChild(p);
}
</script>`

var placed = regexp.MustCompile(`<pre class="placed">(\S+) (-?\d+) (-?\d+) (-?\d+) (-?\d+) (\d+) (\d+)</pre>`)

// TestHTMLFirstScreen lays report.html out in Chromium in a desktop window
// and checks that the verdict, its reason and what to change first (the
// changed policy too, when the gate measured a fix) are drawn within the
// first screen, without scrolling.
func TestHTMLFirstScreen(t *testing.T) {
	browser := findBrowser(t)
	for name, tt := range firstScreenReports() {
		t.Run(name, func(t *testing.T) {
			dom := runBrowser(t, browser, t.TempDir(), "--window-size=1280,800", "--dump-dom", "file://"+probePage(t, tt.r, place))
			got := map[string]bool{}
			for _, m := range placed.FindAllStringSubmatch(dom, -1) {
				n := atoi(t, m[2:]...)
				top, bottom, left, right, vw, vh := n[0], n[1], n[2], n[3], n[4], n[5]
				// The window's frame takes some of its height from the page.
				require.Equal(t, 1280, vw, "the page's width")
				require.LessOrEqual(t, vh, 800, "the page's height")
				got[m[1]] = true
				assert.Greater(t, bottom, top, "%s has no height", m[1])
				assert.GreaterOrEqual(t, top, 0, "%s's top", m[1])
				assert.LessOrEqual(t, bottom, 800, "%s's bottom: below the first screen of 800 px", m[1])
				assert.GreaterOrEqual(t, left, 0, "%s's left", m[1])
				assert.LessOrEqual(t, right, vw, "%s's right: beyond the window", m[1])
			}
			for _, name := range tt.want {
				assert.True(t, got[name], "%s was not laid out. DOM:\n%s", name, lastLines(dom, 20))
			}
		})
	}
}

// firstScreenReports are the reports whose first screen the tests check,
// with the parts that must be on it.
func firstScreenReports() map[string]struct {
	r    reports.Report
	want []string
} {
	return map[string]struct {
		r    reports.Report
		want []string
	}{
		"failing, with a fix": {failingReport(), []string{"verdict", "reason", "first-change", "fix-policy"}},
		"passing":             {passingReport(), []string{"verdict", "reason", "first-change"}},
	}
}

// onScreen is added to a copy of the page under test: it covers the page
// with green when the verdict, its reason, what to change first and the
// changed policy, where there is one, are all drawn within the window,
// and with red when one is not, or the window is wider than a phone's.
// Headless Chromium lays a page out at least 500 px wide and resizes it to
// the screenshot's width before it takes the screenshot, so the probe
// looks again on every resize, and its finding goes out as a colour.
const onScreen = `<script>
const cover = document.createElement("div");
const check = () => {
  let ok = innerWidth <= 400;
  for (const sel of ["#verdict", "#reason", "#first-change p.first", "#first-change p.fix-policy"]) {
    const e = document.querySelector(sel);
    if (!e) { ok = ok && sel.includes("fix-policy"); continue; }
    const r = e.getBoundingClientRect();
    ok = ok && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
  }
  cover.style.cssText = "position:fixed;inset:0;z-index:10;background:" + (ok ? "rgb(0,200,1)" : "rgb(200,0,1)");
};
document.body.appendChild(cover);
check();
addEventListener("resize", check);
</script>`

// TestHTMLFirstScreenPhone checks the first screen of report.html on a
// phone, 390 px wide: the verdict, its reason and what to change first are
// drawn within it. Set JITTERKIT_SCREENSHOT to a directory to keep the
// screenshots, without the cover, for a look.
func TestHTMLFirstScreenPhone(t *testing.T) {
	browser := findBrowser(t)
	for name, tt := range firstScreenReports() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			shot := filepath.Join(dir, "phone.png")
			runBrowser(t, browser, dir, "--window-size=390,844", "--screenshot="+shot, "file://"+probePage(t, tt.r, onScreen))
			f, err := os.Open(shot)
			require.NoError(t, err)
			defer f.Close()
			img, err := png.Decode(f)
			require.NoError(t, err, "screenshot")
			require.Equal(t, 390, img.Bounds().Dx(), "the screenshot's width")
			all := img.Bounds().Dx() * img.Bounds().Dy()
			green := countColor(img, color.RGBA{R: 0, G: 200, B: 1, A: 0xff})
			assert.Greater(t, green, all*9/10, "green pixels of %d: the page's probe found the verdict, its reason or what to change first off the first screen (red %d)",
				all, countColor(img, color.RGBA{R: 200, G: 0, B: 1, A: 0xff}))
			if out := os.Getenv("JITTERKIT_SCREENSHOT"); out != "" {
				plain := filepath.Join(out, strings.NewReplacer(" ", "-", ",", "").Replace(name)+"-phone.png")
				runBrowser(t, browser, dir, "--window-size=390,844", "--screenshot="+plain, "file://"+probePage(t, tt.r, ""))
			}
		})
	}
}

// geometry is added to a copy of the page under test: it writes the
// drawn boxes of the charts' plot areas, retry bars, labels and line
// segments, for --dump-dom to show.
const geometry = `<script>
const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom].map(x => x.toFixed(1)).join(" "); };
const style = e => (e.getAttribute("style") || "").toLowerCase().replace(/ /g, "");
for (const f of document.querySelectorAll("figure.chart")) {
  const out = [];
  for (const e of f.querySelectorAll("path")) {
    const st = style(e);
    if (st === "fill:#f7f9fb") out.push("area " + box(e));
    else if (st === "fill:#d95f2b") out.push("retry " + box(e));
    else if (/^M[-\d.e]+,[-\d.e]+L[-\d.e]+,[-\d.e]+$/.test(e.getAttribute("d"))) out.push("segment " + box(e) + " " + st);
  }
  for (const e of f.querySelectorAll("text")) out.push("text " + box(e) + " " + e.textContent);
  const p = document.createElement("pre");
  p.className = "geometry";
  p.textContent = f.id + "\n" + out.join("\n");
  document.body.appendChild(p);
}
</script>`

// A shape is one line of what geometry wrote: a kind, a box in CSS
// pixels, and the rest of the line (a style or a text).
type shape struct {
	kind                     string
	left, top, right, bottom float64
	rest                     string
}

// ofKind returns the shapes of the given kind.
func ofKind(shapes []shape, kind string) []shape {
	var out []shape
	for _, s := range shapes {
		if s.kind == kind {
			out = append(out, s)
		}
	}
	return out
}

// chartShapes renders r in Chromium and returns the shapes of each chart
// by the chart's id.
func chartShapes(t *testing.T, browser string, r reports.Report) map[string][]shape {
	t.Helper()
	dom := runBrowser(t, browser, t.TempDir(), "--window-size=1280,800", "--dump-dom", "file://"+probePage(t, r, geometry))
	out := map[string][]shape{}
	for _, m := range regexp.MustCompile(`(?s)<pre class="geometry">(.*?)</pre>`).FindAllStringSubmatch(dom, -1) {
		lines := strings.Split(html.UnescapeString(m[1]), "\n")
		for _, line := range lines[1:] {
			f := strings.SplitN(line, " ", 6)
			require.GreaterOrEqual(t, len(f), 5, "a line of the chart's geometry: %q", line)
			var xs [4]float64
			for i := range xs {
				x, err := strconv.ParseFloat(f[i+1], 64)
				require.NoError(t, err, "a line of the chart's geometry: %q", line)
				xs[i] = x
			}
			sh := shape{kind: f[0], left: xs[0], top: xs[1], right: xs[2], bottom: xs[3]}
			if len(f) == 6 {
				sh.rest = f[5]
			}
			out[lines[0]] = append(out[lines[0]], sh)
		}
	}
	return out
}

// TestArrivalChartLegend checks, in the drawn arrival chart, that the
// retry bars lie in the plot's data area and that every entry of the
// legend lies below it, overlapping none of the data.
func TestArrivalChartLegend(t *testing.T) {
	browser := findBrowser(t)
	r := failingReport()
	shapes := chartShapes(t, browser, r)["histogram-chart"]
	require.NotEmpty(t, shapes, "the arrival chart's shapes")
	area := ofKind(shapes, "area")
	require.Len(t, area, 1, "the arrival chart's data area")
	data := area[0]
	require.Greater(t, data.right-data.left, 400.0, "the data area's width in px")
	require.Greater(t, data.bottom-data.top, 200.0, "the data area's height in px")

	_, retries := r.Replay.Histogram()
	windows := 0
	for _, n := range retries {
		windows += min(n, 1)
	}
	inside := 0
	for _, s := range shapes {
		if s.kind == "retry" && within(s, data) {
			inside++
		}
	}
	assert.Equal(t, windows, inside, "retry bars inside the data area: one per window with retries")

	legend := []string{"server down (", "retries", "first attempts", "accept budget (", "threshold ("}
	found := 0
	for _, s := range shapes {
		if s.kind != "text" || !slices.ContainsFunc(legend, func(l string) bool { return strings.HasPrefix(s.rest, l) }) {
			continue
		}
		found++
		assert.GreaterOrEqual(t, s.top, data.bottom, "legend entry %q (top %.1f px) overlaps the data area (bottom %.1f px)", s.rest, s.top, data.bottom)
	}
	assert.Equal(t, len(legend), found, "legend entries drawn")
}

// TestComparisonChartThreshold checks, in the drawn comparison chart, the
// threshold's dashed line across the rows, and an interval bar with two
// caps for every cell, each within the data area.
func TestComparisonChartThreshold(t *testing.T) {
	browser := findBrowser(t)
	r := failingReport()
	shapes := chartShapes(t, browser, r)["comparison-chart"]
	require.NotEmpty(t, shapes, "the comparison chart's shapes")
	var data shape
	for _, s := range shapes {
		if s.kind == "area" {
			data = s
		}
	}
	require.Greater(t, data.bottom-data.top, 100.0, "the data area's height in px")
	cells := 0
	for _, row := range r.Comparisons[0].Rows {
		cells += len(row.Cells)
	}
	var thresholds, bars, caps int
	for _, s := range shapes {
		if s.kind != "segment" {
			continue
		}
		switch {
		case strings.Contains(s.rest, "stroke:#c62828") && strings.Contains(s.rest, "stroke-dasharray"):
			thresholds++
			assert.Less(t, s.right-s.left, 1.0, "the threshold line is vertical")
			assert.Greater(t, s.bottom-s.top, 0.9*(data.bottom-data.top), "the threshold line spans the rows")
		case strings.Contains(s.rest, "stroke-width:2.4"):
			bars++
			assert.Less(t, s.bottom-s.top, 0.5, "an interval bar is horizontal")
			assert.True(t, within(s, data), "an interval bar lies in the data area")
		case strings.Contains(s.rest, "stroke-width:1.6") && s.right-s.left < 0.5 && s.bottom-s.top > 4:
			caps++
			assert.True(t, within(s, data), "an interval's cap lies in the data area")
		}
	}
	assert.Equal(t, 1, thresholds, "threshold lines")
	assert.Equal(t, cells, bars, "interval bars: one per cell")
	assert.Equal(t, 2*cells, caps, "interval caps: two per cell")
}

// within reports whether s lies in the box b, to half a pixel.
func within(s, b shape) bool {
	return s.left >= b.left-0.5 && s.right <= b.right+0.5 && s.top >= b.top-0.5 && s.bottom <= b.bottom+0.5
}

// probePage writes r's page with script added at the end of its body
// into a temporary directory, and returns its path.
func probePage(t *testing.T, r reports.Report, script string) string {
	t.Helper()
	var page bytes.Buffer
	require.NoError(t, reports.WriteHTML(&page, r))
	path := filepath.Join(t.TempDir(), "probe.html")
	require.NoError(t, os.WriteFile(path, bytes.Replace(page.Bytes(), []byte("</body>"), []byte(script+"</body>"), 1), 0o644))
	return path
}

// atoi converts the numbers a probe wrote.
func atoi(t *testing.T, ss ...string) []int {
	t.Helper()
	out := make([]int, len(ss))
	for i, s := range ss {
		n, err := strconv.Atoi(s)
		require.NoError(t, err)
		out[i] = n
	}
	return out
}

// findBrowser returns the path of headless Chromium, or skips the test
// when none is installed or under -short.
func findBrowser(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser; skipped under -short")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium installed (apt-get install -y chromium)")
	return ""
}

// runBrowser runs headless Chromium with args and returns its standard
// output. It kills the browser's whole process group when it is done, or
// after ten minutes: a limit only to stop a browser that hangs, far above
// what a loaded machine takes to render a page.
func runBrowser(t *testing.T, browser, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	profile, err := os.MkdirTemp(dir, "profile")
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, browser, append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
		"--user-data-dir=" + profile,
	}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	require.NoError(t, err, "%s %s\n%s", browser, strings.Join(args, " "), lastLines(stderr.String(), 10))
	return stdout.String()
}

func countColor(img image.Image, c color.RGBA) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(bl>>8) == c.B {
				n++
			}
		}
	}
	return n
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… %d lines", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
