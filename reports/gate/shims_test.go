package gate_test

import (
	"os"
	"testing"

	"github.com/jitterkit/jitterkit/testdata/kittest"
)

// TestMain runs the tests with python3 the interpreter, not a shim that
// takes most of a second to start on a loaded machine.
func TestMain(m *testing.M) { os.Exit(kittest.RunWithoutShims(m)) }
