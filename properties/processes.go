package properties

import (
	"context"
	"fmt"

	"github.com/jitterkit/jitterkit/kit"
	"github.com/jitterkit/jitterkit/kit/verdict"
)

// Processes makes devices' policies in fresh processes of a policy's
// program, one process per device, as a fleet of devices runs it: each
// device starts the program, and nothing that one process drew or read
// reaches another. A program that draws from a generator seeded once per
// process (from its clock, say) gives every device the sequence of its own
// process: asked many devices in one process it spreads, while a fleet of
// processes started at one instant moves in lockstep. The gate sets
// Config.Processes for an exec policy.
type Processes interface {
	// Fresh makes the policy of each of devs in a fresh process of its
	// own and reads up to n of its delays. With frozen, each process's
	// clock stands still at its device's Boot. It returns a factory that
	// makes each of devs once from its process's reply; a device made
	// again, or not in devs, is made by the policy's own factory. Its
	// error is the source's failure, such as a process that broke its
	// protocol, naming the device.
	Fresh(ctx context.Context, devs []kit.Device, n int, frozen bool) (kit.Factory, error)
	// Unfrozen says why no process's clock can be frozen, or "" when
	// Fresh can freeze it.
	Unfrozen() string
}

// Devices made in fresh processes when Config.Processes is set. Each costs
// the start of a process: 20 ms for an interpreter on a quiet machine,
// half a second on a loaded 2-core runner.
const (
	// freshDevices is how many devices of the population are each made in
	// a fresh process: over three times the group that clusters fails as
	// lockstep at the default population (more than MaxLockstep, 10 of
	// 1000 devices), so that processes that share one generator state
	// show as such a group; and a third of the devices reproducibility
	// makes again, compared with the same devices made by one process.
	freshDevices = 32
	// frozenProcesses is how many devices frozen clock makes in processes
	// at one frozen instant, and again a second apart. A clock seed puts
	// every one of them in one group at every seed, and devices that
	// spread share no whole sequence of floating-point delays by chance:
	// the outcome depends on how the program seeds, not on sampling.
	frozenProcesses = 16
)

// freshDevices returns how many devices of the population the run makes
// each in a fresh process: freshDevices, or none without
// Config.Processes or when the policy is not a program's (Source is not
// kit.SourceExec), such as a built-in strategy checked beside it.
func (c Config) freshDevices(population int) int {
	if c.Processes == nil || c.Source != kit.SourceExec {
		return 0
	}
	return min(population, freshDevices)
}

// processesNote says in a check's detail which devices came from fresh
// processes.
func (r *runner) processesNote() string {
	if r.fresh == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of the %d devices each in a fresh process of its own, the others from one process)", r.fresh, r.main.total)
}

// noteProcesses marks a result judged on the population's devices with the
// devices made in fresh processes, and says how many in its detail. The
// checks that make devices of their own (frozen clock, id populations)
// and those that did not judge are left as they are.
func (r *runner) noteProcesses(res *Result) {
	if r.fresh == 0 || res.Name == NameFrozenClock || res.Name == NameIDPopulations {
		return
	}
	switch res.Status {
	case verdict.Pass, verdict.Fail, verdict.Warn:
		res.Processes = r.fresh
		res.Detail += r.processesNote()
	}
}
