package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON is report.json, the report for programs: see [WriteJSON].
const JSON Format = "report.json"

var _ = register(format{file: JSON, position: 10, render: renderJSON, written: func(head []byte) bool {
	return bytes.HasPrefix(head, []byte("{\n  \"schema\": \"")) && bytes.Contains(head, []byte("\n  \"verdict\": \""))
}})

// WriteJSON writes r as report.json: an indented object of the shape that
// [Report.Schema] names. It returns an error, and writes nothing, when r holds a
// number that is not finite.
//
// report.json is for programs, and keeps each string of r as it is, with
// two exceptions that a reader can tell by their marks: a string longer
// than its limit (256 bytes for ids and names, 4096 for sentences and
// commands) is cut and ends with the marker of [Visible], such as
// "…(49.9 MB more)"; and a byte that is not valid UTF-8, which JSON cannot
// hold, is read back as U+FFFD. It does not escape as Visible does, since
// a JSON string can carry any text and a script matching a device id needs
// the id itself; instead every character that Visible would escape is
// written as a JSON escape (\u001b, \u202e), so the file itself holds no
// control or invisible character and shows each one when printed.
func WriteJSON(w io.Writer, r Report) error {
	return write(w, r, renderJSON)
}

func renderJSON(r Report) ([]byte, error) {
	r = mapStrings(r,
		func(s string) string { return shorten(s, nameMax) },
		func(s string) string { return shorten(s, textMax) })
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return escapeHidden(b.Bytes()), nil
}

// escapeHidden writes each hidden character (see hidden) of an encoded JSON
// value as a JSON escape. The encoder already escapes the ASCII controls,
// U+2028 and U+2029, and replaces invalid UTF-8; the others it writes as
// they are. Outside strings JSON holds only ASCII, so every character
// changed here is inside a string.
func escapeHidden(b []byte) []byte {
	var out []byte
	done := 0
	for i := 0; i < len(b); {
		if b[i] < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if hidden(r) {
			out = append(out, b[done:i]...)
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
			done = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// write renders r and writes it to w in one piece, so that a report that
// cannot be rendered writes nothing.
func write(w io.Writer, r Report, render func(Report) ([]byte, error)) error {
	r, err := prepare(r)
	if err != nil {
		return err
	}
	b, err := render(r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
