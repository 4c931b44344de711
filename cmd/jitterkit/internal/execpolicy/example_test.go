//go:build unix

package execpolicy_test

import (
	"context"
	"fmt"

	"github.com/jitterkit/jitterkit/cmd/jitterkit/internal/execpolicy"
	"github.com/jitterkit/jitterkit/kit"
)

// A policy written as a shell loop: every device waits 0.1s, 0.2s, 0.4s
// and then gives up. Any language that reads lines and writes lines will do.
func Example() {
	p, err := execpolicy.Start(context.Background(), `while read -r request; do echo '[0.1, 0.2, 0.4]'; done`, execpolicy.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	f := p.Factory()
	delays, err := kit.Delays(f(kit.Device{ID: "dev-000017"}), 10)
	fmt.Println(delays, err)
	// Output: [100ms 200ms 400ms] <nil>
}

// A program that answers with something other than delays is a protocol
// error naming the device and the line.
func Example_protocolError() {
	p, err := execpolicy.Start(context.Background(), `while read -r request; do echo 'ok'; done`, execpolicy.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	_, err = p.Factory()(kit.Device{ID: "dev-000017"}).Next()
	fmt.Println(err)
	// Output: exec "while read -r request; do echo 'ok'; done": device "dev-000017": the reply is not a JSON array of numbers: "ok"
}
