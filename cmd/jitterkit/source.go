package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jitterkit/jitterkit/cmd/jitterkit/internal/execpolicy"
	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports"
)

// A source is one policy, ready to check or replay.
type source struct {
	// name is what the output calls the policy: its spec, its command or
	// its trace file.
	name    string
	kind    string // "spec", "exec" or "trace"
	factory kit.Factory
	// spec is the policy's spec, for a built-in strategy; nil otherwise.
	spec *kit.Spec
	// ids are the devices of a trace; nil for the other sources.
	ids []string
	// program is the running exec program, and again a second instance
	// of it for the reproducibility check; nil for the other sources.
	program *execpolicy.Program
	again   func() (*execpolicy.Program, error)
	started []*execpolicy.Program
}

// checkOneSource returns a usage error unless o names exactly one policy.
func checkOneSource(command string, o *options) error {
	var given []string
	if len(o.policies) > 0 {
		given = append(given, "--policy")
	}
	if o.exec != "" {
		given = append(given, "--exec")
	}
	if o.trace != "" {
		given = append(given, "--trace")
	}
	switch {
	case len(given) == 0:
		return usageError("%s needs a policy: --policy SPEC, --exec CMD, --trace FILE, or a --config file that names one", command)
	case len(given) > 1:
		return usageError("%s checks one policy, got %s", command, strings.Join(given, " and "))
	case len(o.policies) > 1:
		return usageError("%s checks one policy, got %d specs (%s); compare takes several", command, len(o.policies), strings.Join(o.policies, "; "))
	}
	return nil
}

// openSources opens every policy o names, specs first, then the program,
// then the trace. The caller closes them.
func openSources(ctx context.Context, o *options) ([]*source, error) {
	var out []*source
	for _, s := range o.specs {
		spec := s
		out = append(out, &source{name: spec.String(), kind: "spec", factory: spec.Factory(), spec: &spec})
	}
	if o.exec != "" {
		src, err := openExec(ctx, o)
		if err != nil {
			return out, err
		}
		out = append(out, src)
	}
	if o.trace != "" {
		src, err := openTrace(ctx, o.trace, memoryLimit(o)/traceBytesPerMemory)
		if err != nil {
			return out, err
		}
		out = append(out, src)
	}
	return out, nil
}

func openExec(ctx context.Context, o *options) (*source, error) {
	opt := execpolicy.Options{Timeout: o.execTimeout}
	src := &source{name: o.exec, kind: "exec"}
	src.again = func() (*execpolicy.Program, error) {
		p, err := execpolicy.Start(ctx, o.exec, opt)
		if err != nil {
			return nil, inputError(fmt.Errorf("--exec: %w", err))
		}
		src.started = append(src.started, p)
		return p, nil
	}
	p, err := src.again()
	if err != nil {
		return nil, err
	}
	src.program, src.factory = p, p.Factory()
	return src, nil
}

// openTrace reads the trace at path, of at most max bytes.
func openTrace(ctx context.Context, path string, max int64) (*source, error) {
	var t *kit.Trace
	err := readInput(ctx, "--trace", path, max, func(r io.Reader) error {
		var err error
		t, err = kit.ReadTrace(r)
		var te *kit.TraceError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return inputError(fmt.Errorf("%s:%d: %s: %v", path, te.Line, te.Field, te.Err))
		case errors.As(err, &te):
			return inputError(fmt.Errorf("%s:%d: %v", path, te.Line, te.Err))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &source{name: path, kind: "trace", factory: t.Factory(), ids: t.IDs()}, nil
}

// protocolError returns the first protocol error of an exec source's
// programs so far, or nil.
func (s *source) protocolError() error {
	for _, p := range s.started {
		if err := p.Err(); err != nil {
			var pe *execpolicy.ProtocolError
			if errors.As(err, &pe) {
				return err
			}
		}
	}
	return nil
}

// close stops the source's programs, if any, and returns the first
// protocol error one made, including a line too many written after its
// last reply. It may be called more than once.
func (s *source) close() error {
	var first error
	for _, p := range s.started {
		if err := p.Close(); err != nil && first == nil {
			var pe *execpolicy.ProtocolError
			if errors.As(err, &pe) {
				first = err
			}
		}
	}
	return first
}

// closeAll closes every source and returns the first protocol error.
func closeAll(sources []*source) error {
	var first error
	for _, s := range sources {
		if err := s.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// reportPolicy describes the source for a report.
func (s *source) reportPolicy() reports.Policy {
	p := reports.Policy{Name: s.name, Source: s.kind}
	switch s.kind {
	case "spec":
		p.Spec = s.spec.String()
	case "exec":
		p.Command = s.name
	}
	return p
}
