package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/jitterkit/jitterkit/reports"
	"go.yaml.in/yaml/v3"
)

// loadConfig reads the YAML file path into o, before the command line's
// flags, which override it. Its keys are the flags' names; policy and
// clients may be lists. Keys of flags that command does not take are read
// and checked but not used, so that one file serves every command.
func loadConfig(ctx context.Context, path, command string, o *options) error {
	err := reports.ReadFile(ctx, path, maxConfigBytes, func(r io.Reader) error {
		data, err := io.ReadAll(r)
		if err == nil {
			err = readConfig(data, path, command, o)
		}
		return err
	})
	var e *exitError
	if err != nil && !errors.As(err, &e) {
		return fileError(ctx, "--config", path, err)
	}
	return err
}

// readConfig reads the config data, of the file path, into o.
func readConfig(data []byte, path, command string, o *options) error {
	var doc, second yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		return nil // an empty file
	}
	if err == nil {
		// A second document would be read by no one: refuse it rather
		// than ignore the flags it sets.
		// An empty document, as after a trailing "---", sets nothing.
		for err = dec.Decode(&second); err == nil; err = dec.Decode(&second) {
			if len(second.Content) > 0 && second.Content[0].Tag != "!!null" {
				return inputError(fmt.Errorf("%s:%d: a second YAML document; a config is one mapping of flag names to values", path, max(second.Line, 1)))
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
			return inputError(fmt.Errorf("%s:%s: %s", path, m[1], m[2]))
		}
		return inputError(fmt.Errorf("%s: %s", path, msg))
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return inputError(fmt.Errorf("%s:%d: want a mapping of flag names to values, such as \"policy: full:base=100ms,cap=10s\"", path, root.Line))
	}
	if o.given == nil {
		o.given = map[string]bool{}
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		if key.Kind != yaml.ScalarNode || key.Tag != "!!str" {
			// An alias, a tag or a collection as a key names no flag
			// by its text.
			return inputError(fmt.Errorf("%s:%d: a key must be a flag's name, written plainly", path, key.Line))
		}
		name := key.Value
		at := func(line int, format string, args ...any) error {
			return inputError(fmt.Errorf("%s:%d: %s: %s", path, line, name, fmt.Sprintf(format, args...)))
		}
		def := lookupFlag(name)
		if def == nil || name == "config" {
			return inputError(fmt.Errorf("%s:%d: unknown key %q%s", path, key.Line, name, strings.Replace(suggest(name, ""), "--", "", 1)))
		}
		if line, ok := seen[name]; ok {
			return at(key.Line, "given again (first on line %d)", line)
		}
		seen[name] = key.Line
		list := slices.Contains(listFlags, name)
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
		// A key of a flag that command does not take is checked on options
		// of its own and left out.
		dst := o
		if !def.takes(command) {
			dst = &options{}
		}
		for _, v := range values {
			if v.Kind != yaml.ScalarNode {
				return at(v.Line, "want a single value")
			}
			if err := def.set(dst, v.Value); err != nil {
				return at(v.Line, "%v", err)
			}
		}
		if dst == o {
			o.given[name] = true
		}
	}
	return nil
}

// yamlLine matches the line number in a YAML syntax error.
var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)
