package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ReadConfig reads data, the YAML config file path, into o, recording in
// given each flag it sets. The file is one mapping whose keys are the
// flags' names; a list flag may take a list. A key of a flag that command
// does not take is read and checked on the options fresh returns, and
// left out, so that one file serves every command. The key skip names a
// flag no config may set. The errors name the file and the line.
func (t *Table[T]) ReadConfig(data []byte, path, command, skip string, o *T, given map[string]bool, fresh func() *T) error {
	doc, err := decodeConfig(data, path)
	if err != nil || doc == nil {
		return err
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: want a mapping of flag names to values, such as %q", path, root.Line, t.ConfigExample)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		if key.Kind != yaml.ScalarNode || key.Tag != "!!str" {
			// An alias, a tag or a collection as a key names no flag
			// by its text.
			return fmt.Errorf("%s:%d: a key must be a flag's name, written plainly", path, key.Line)
		}
		name := key.Value
		at := func(line int, format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s: %s", path, line, name, fmt.Sprintf(format, args...))
		}
		f := t.Lookup(name)
		switch {
		case name == skip:
			return fmt.Errorf("%s:%d: unknown key %q", path, key.Line, name)
		case f == nil:
			return fmt.Errorf("%s:%d: unknown key %q%s", path, key.Line, name, strings.Replace(t.suggest(name, ""), "--", "", 1))
		}
		if line, ok := seen[name]; ok {
			return at(key.Line, "given again (first on line %d)", line)
		}
		seen[name] = key.Line
		_, list := t.Lists[name]
		var values []*yaml.Node
		switch {
		case value.Kind == yaml.ScalarNode && value.Tag != "!!null":
			values = []*yaml.Node{value}
		case value.Kind == yaml.SequenceNode && list:
			values = value.Content
		case list:
			return at(key.Line, "want a single value or a list")
		default:
			return at(key.Line, "want a single value")
		}
		dst := o
		if !t.Takes(f, command) {
			dst = fresh()
		}
		for _, v := range values {
			if v.Kind != yaml.ScalarNode {
				return at(v.Line, "want a single value")
			}
			if err := f.Set(dst, v.Value); err != nil {
				return at(v.Line, "%v", err)
			}
		}
		if dst == o {
			given[name] = true
		}
	}
	return nil
}

// decodeConfig decodes data, the YAML config file path, into its one
// document, or returns nil for an empty file. The errors name the file
// and the line.
func decodeConfig(data []byte, path string) (*yaml.Node, error) {
	var doc, second yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		return nil, nil // an empty file
	}
	if err == nil {
		// A second document would be read by no one: refuse it rather
		// than ignore the flags it sets. An empty document, as after a
		// trailing "---", sets nothing.
		for err = dec.Decode(&second); err == nil; err = dec.Decode(&second) {
			if len(second.Content) > 0 && second.Content[0].Tag != "!!null" {
				return nil, fmt.Errorf("%s:%d: a second YAML document; a config is one mapping of flag names to values", path, max(second.Line, 1))
			}
			second = yaml.Node{}
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", path, m[1], m[2])
		}
		return nil, fmt.Errorf("%s: %s", path, msg)
	}
	return &doc, nil
}

// yamlLine matches the line number in a YAML syntax error.
var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)
