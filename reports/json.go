package reports

import (
	"bytes"
	"encoding/json"
	"io"
)

// WriteJSON writes r as report.json: an indented object of the shape that
// [Schema] names. It returns an error, and writes nothing, when r holds a
// number that is not finite.
func WriteJSON(w io.Writer, r Report) error {
	return write(w, r, renderJSON)
}

func renderJSON(r Report) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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
