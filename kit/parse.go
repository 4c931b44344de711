package kit

import (
	"strings"
)

// ParseSpecs parses a list of policy specs separated by commas or
// semicolons, such as "none:base=1s,cap=30s,full" (two specs). A spec's own
// key=value pairs are separated by commas too, but a strategy never holds
// "=", so a part without one (or with a colon before it) starts the next
// spec. It takes time linear in the length of text. The error is the first
// spec's that does not parse (see ParseSpec).
func ParseSpecs(text string) ([]Spec, error) {
	var specs []Spec
	for _, part := range splitSpecs(text) {
		s, err := ParseSpec(part)
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	return specs, nil
}

// splitSpecs splits text into the texts of its specs, trimmed.
func splitSpecs(text string) []string {
	var specs []string
	var parts []string // the parts of the spec being read
	flush := func() {
		if len(parts) > 0 {
			specs = append(specs, strings.Join(parts, ","))
			parts = parts[:0]
		}
	}
	for _, group := range strings.Split(text, ";") {
		for _, part := range strings.Split(group, ",") {
			trimmed := strings.TrimSpace(part)
			colon, eq := strings.Index(trimmed, ":"), strings.Index(trimmed, "=")
			startsSpec := trimmed != "" && (eq < 0 || (colon >= 0 && colon < eq))
			if startsSpec || len(specs) == 0 && len(parts) == 0 {
				flush()
			}
			parts = append(parts, trimmed)
		}
	}
	flush()
	return specs
}
