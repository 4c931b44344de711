//go:build unix

package execpolicy_test

import (
	"context"
	"fmt"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/reports/gate/internal/execpolicy"
)

// A policy written as a shell loop: every device waits 0.1s, 0.2s, 0.4s
// and then gives up. Any language that reads lines and writes lines will do.
// The delays can be trusted once Close, which reads the program's output to
// its end, has found nothing wrong.
func Example() {
	p, err := execpolicy.Start(context.Background(), `while read -r request; do echo '[0.1, 0.2, 0.4]'; done`, execpolicy.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := p.Factory()
	delays, err := kit.Delays(f(kit.Device{ID: "dev-000017"}), 10)
	fmt.Println(delays, err)
	fmt.Println(p.Close())
	// Output:
	// [100ms 200ms 400ms] <nil>
	// <nil>
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

// A program that answers a request twice gives every later device the
// reply meant for the one before it, and nothing in the lines shows it; it
// writes one line more than it was asked for, and Close finds that line.
func Example_answeredTwice() {
	p, err := execpolicy.Start(context.Background(), `read -r a; read -r b; echo '[1]'; echo '[1]'; cat >/dev/null; echo '[2]'`, execpolicy.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := p.Factory()
	first, second := f(kit.Device{ID: "dev-000001"}), f(kit.Device{ID: "dev-000002"})
	fmt.Println(first.Next())
	fmt.Println(second.Next())
	fmt.Println(p.Close())
	// Output:
	// 1s <nil>
	// 1s <nil>
	// exec "read -r a; read -r b; echo '[1]'; echo '[1]'; cat >/dev/null; echo '[2]'": it wrote more lines than it was asked for: a line after the reply to the last request, to device "dev-000002"; if it answered a request twice, every reply after that one went to the wrong device: "[2]"
}
