//go:build unix

package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStickyRefuses(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		dirUID, fileUID, euid int
		refuses               bool
	}{
		{"another's file in another's directory", 0, 1000, 65534, true},
		{"one's own file", 0, 65534, 65534, false},
		{"one's own directory", 65534, 1000, 65534, false},
		{"root", 1000, 1000, 0, false},
	} {
		assert.Equal(t, tt.refuses, stickyRefuses(tt.dirUID, tt.fileUID, tt.euid), tt.name)
	}
}
