package reports_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/jitterkit/jitterkit/reports"
)

// TestVisible shows each class of hidden character as an escape, keeps
// every other character, and cuts long strings with a marker of how much
// was left out.
func TestVisible(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"plain", "dev-000017", 0, "dev-000017"},
		{"empty", "", 10, ""},
		{"text kept", `delays("dev-1")[2] = 10s; want spread (CV ≥ 0.1) … 東京 ✓ é`, 0, `delays("dev-1")[2] = 10s; want spread (CV ≥ 0.1) … 東京 ✓ é`},
		{"backslash and markup kept", `C:\jit\policy.exe <b>|x|</b>`, 0, `C:\jit\policy.exe <b>|x|</b>`},
		{"NUL", "a\x00b", 0, `a\x00b`},
		{"ESC sequence", "\x1b[2J\x1b]0;title\a", 0, `\x1b[2J\x1b]0;title\a`},
		{"BEL, BS, VT, FF", "\a\b\v\f", 0, `\a\b\v\f`},
		{"tab, CR, LF", "a\tb\r\nc", 0, `a\tb\r\nc`},
		{"other C0", "\x01\x02\x1f", 0, `\x01\x02\x1f`},
		{"DEL", "a\x7fb", 0, `a\x7fb`},
		{"C1 NEL and CSI", "a\u0085b\u009b31m", 0, `a\u0085b\u009b31m`},
		{"invalid UTF-8", "a\xffb\xc3(\xed\xa0\x80", 0, `a\xffb\xc3(\xed\xa0\x80`},
		{"right-to-left override", "evil\u202etxt.exe", 0, `evil\u202etxt.exe`},
		{"bidi isolates and marks", "\u2066\u2067\u2068\u2069\u200e\u200f\u061c", 0, `\u2066\u2067\u2068\u2069\u200e\u200f\u061c`},
		{"zero width and BOM", "a\u200bb\u200dc\ufeff", 0, `a\u200bb\u200dc\ufeff`},
		{"line and paragraph separators", "a\u2028b\u2029c", 0, `a\u2028b\u2029c`},
		{"tag character", "a\U000e0041", 0, `a\U000e0041`},
		{"private use and noncharacter", "\ue000\uffff", 0, `\ue000\uffff`},
		{"replacement character kept", "\ufffd", 0, "\ufffd"},
		{"forged line", "dev-1\nPASS  everything", 0, `dev-1\nPASS  everything`},
		{"at the limit", "abcdef", 6, "abcdef"},
		{"over the limit", "abcdefgh", 6, "abcdef…(2 bytes more)"},
		{"one byte over", "abcdefg", 6, "abcdef…(1 byte more)"},
		{"cut between characters", "ab東京", 4, "ab…(6 bytes more)"},
		{"an escape is not cut", "abcd\x1b", 6, "abcd…(1 byte more)"},
		{"escapes count toward the limit", strings.Repeat("\x1b", 10), 8, `\x1b\x1b…(8 bytes more)`},
		{"kilobytes", strings.Repeat("x", 12_345), 0, strings.Repeat("x", 12_345)},
		{"kilobytes cut", strings.Repeat("x", 12_345), 45, strings.Repeat("x", 45) + "…(12.3 kB more)"},
		{"megabytes cut", strings.Repeat("x", 50_000_000), 256, strings.Repeat("x", 256) + "…(50.0 MB more)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, reports.Visible(tt.in, tt.limit))
		})
	}
}

// TestVisibleShowsNothingHidden checks every code point, and every byte
// that cannot start one: the result is valid UTF-8 of graphic characters
// only.
func TestVisibleShowsNothingHidden(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // not encodable
		}
		assertShown(t, reports.Visible("<"+string(r)+">", 0))
	}
	for c := 0x80; c <= 0xff; c++ {
		assertShown(t, reports.Visible("<"+string([]byte{byte(c)})+">", 0))
	}
}

// assertShown fails unless s is valid UTF-8 holding only graphic
// characters.
func assertShown(t *testing.T, s string) {
	t.Helper()
	require.True(t, utf8.ValidString(s), "Visible returned invalid UTF-8: %q", s)
	// Not require.True for every rune: its bookkeeping would triple the
	// time of TestVisibleShowsNothingHidden.
	for _, r := range s {
		if !unicode.IsGraphic(r) {
			require.Failf(t, "a hidden character", "Visible returned %q, which holds %U", s, r)
		}
	}
}

// FuzzVisible: whatever the input, the result is one line of graphic
// characters within the limit and its marker.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"dev-1", "\x1b[31m", "a\nPASS", "\xff\xfe", "\u202e", strings.Repeat("é", 200)} {
		f.Add(s, 16)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit = limit%512 + 1
		if limit <= 0 {
			limit += 512
		}
		got := reports.Visible(s, limit)
		assertShown(t, got)
		text, _, cut := strings.Cut(got, "…(")
		if !cut || !strings.HasSuffix(got, " more)") {
			text = got
		}
		require.LessOrEqual(t, len(text), limit, "Visible(%q, %d) = %q: bytes before the marker", s, limit, got)
	})
}
