package bubble

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
)

// TestIn asks from outside a bubble and from inside one, and runs a function
// in a bubble of its own only from outside.
func TestIn(t *testing.T) {
	assert.False(t, In(t), "In() outside a bubble")
	ran := false
	assert.True(t, Try(t, func() { ran = true }), "Try() outside a bubble")
	assert.True(t, ran, "Try() outside a bubble runs fn")
	synctest.Test(t, func(t *testing.T) {
		assert.True(t, In(t), "In() inside a bubble")
		ran := false
		assert.False(t, Try(t, func() { ran = true }), "Try() inside a bubble")
		assert.False(t, ran, "Try() inside a bubble does not run fn")
	})
	assert.False(t, Nested("another panic"), "Nested(another panic)")
}
