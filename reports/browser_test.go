//go:build unix

package reports_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
		// spread: three boxes; the comparison: four lines with their
		// points and error bars. Labels: title, axes, ticks and legend.
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
// output. It kills the browser's whole process group when it is done or
// after a minute.
func runBrowser(t *testing.T, browser, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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
