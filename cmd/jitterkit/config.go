package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// loadConfig reads the YAML file path into o. Its keys are the flags'
// names; a flag given on the command line overrides the file. policy and
// clients may be lists. Keys of flags that command does not take are read
// and checked but not used, so that one file serves every command.
func loadConfig(ctx context.Context, path, command string, o *options) error {
	return readInput(ctx, "--config", path, maxConfigBytes, func(r io.Reader) error {
		return readConfig(r, path, command, o)
	})
}

func readConfig(r io.Reader, path, command string, o *options) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return inputError(fmt.Errorf("config %s: %w", path, err))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			return inputError(fmt.Errorf("%s:%s: %s", path, m[1], m[2]))
		}
		return inputError(fmt.Errorf("%s: %s", path, msg))
	}
	if len(doc.Content) == 0 {
		return nil // an empty file
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return inputError(fmt.Errorf("%s:%d: want a mapping of flag names to values, such as \"policy: full:base=100ms,cap=10s\"", path, root.Line))
	}
	fromFile := &options{given: map[string]bool{}}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		name := key.Value
		at := func(format string, args ...any) error {
			return inputError(fmt.Errorf("%s:%d: %s: %s", path, key.Line, name, fmt.Sprintf(format, args...)))
		}
		def := lookupFlag(name)
		if def == nil || name == "config" {
			return inputError(fmt.Errorf("%s:%d: unknown key %q%s", path, key.Line, name, suggestKey(name)))
		}
		if line, ok := seen[name]; ok {
			return at("given again (first on line %d)", line)
		}
		seen[name] = key.Line
		var values []*yaml.Node
		switch {
		case value.Kind == yaml.ScalarNode && value.Tag != "!!null":
			values = []*yaml.Node{value}
		case value.Kind == yaml.SequenceNode && (name == "policy" || name == "clients"):
			values = value.Content
		default:
			return at("want a single value%s", map[bool]string{true: " or a list", false: ""}[name == "policy" || name == "clients"])
		}
		for _, v := range values {
			if v.Kind != yaml.ScalarNode {
				return inputError(fmt.Errorf("%s:%d: %s: want a single value", path, v.Line, name))
			}
			if err := def.set(fromFile, v.Value); err != nil {
				return inputError(fmt.Errorf("%s:%d: %s: %v", path, v.Line, name, err))
			}
		}
		fromFile.given[name] = true
	}
	// Apply what the command line left unset.
	for name := range fromFile.given {
		if o.given[name] || !slices.Contains(commandFlags[command], name) {
			continue
		}
		copyFlag(name, fromFile, o)
		o.given[name] = true
	}
	return nil
}

// yamlLine matches the line number in a YAML syntax error.
var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// copyFlag copies the value of the flag name from src to dst.
func copyFlag(name string, src, dst *options) {
	switch name {
	case "policy":
		dst.policies, dst.specs = src.policies, src.specs
	case "exec":
		dst.exec = src.exec
	case "trace":
		dst.trace = src.trace
	case "cap":
		dst.cap = src.cap
	case "exec-timeout":
		dst.execTimeout = src.execTimeout
	case "scenario":
		dst.scenario = src.scenario
	case "clients":
		dst.clients = src.clients
	case "accept-rate":
		dst.acceptRate = src.acceptRate
	case "down":
		dst.down = src.down
	case "window":
		dst.window = src.window
	case "start-spread":
		dst.startSpread = src.startSpread
	case "horizon":
		dst.horizon = src.horizon
	case "retry-after":
		dst.retryAfter = src.retryAfter
	case "runs":
		dst.runs = src.runs
	case "seed":
		dst.seed = src.seed
	case "threshold":
		dst.threshold = src.threshold
	case "devices":
		dst.devices = src.devices
	case "min-cv":
		dst.minCV = src.minCV
	case "require-reproducible":
		dst.requireReproducible = src.requireReproducible
	case "memory-limit":
		dst.memoryLimit = src.memoryLimit
	case "report":
		dst.report = src.report
	case "json":
		dst.json = src.json
	default:
		panic("jitterkit: copyFlag: no flag " + name)
	}
}

func suggestKey(name string) string {
	var names []string
	for _, f := range flags {
		if f.name != "config" {
			names = append(names, f.name)
		}
	}
	s := suggest(name, names)
	return strings.Replace(s, "--", "", 1)
}
