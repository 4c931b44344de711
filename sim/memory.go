package sim

import (
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/jitterkit/jitterkit/internal/prose"
	"github.com/jitterkit/jitterkit/kit"
)

// The memory a replay needs is estimated from its scenario and
// configuration alone, before any work, from what each part of the replay
// keeps at its peak. A replay keeps
//
//   - for each run replayed at once: the state of every device (its
//     policy's interface, its attempt counter, its time of success, its
//     pending arrivals in the calendar, and the room the calendar and the
//     selection of each second's first arrivals grow into), the devices'
//     policies and their ids, and the run's two histograms, 8 bytes a
//     window each;
//   - for every run, its figures (a Run) and its histograms: every run's
//     at 16 bytes a window, or with Config.RepresentativeOnly those of the
//     runs that may still be the representative one, at most half of the
//     runs, at 8 bytes a window;
//   - the summary's working lists, four numbers a run and one a resample;
//   - the scenario's IDs, when it sets them.
//
// The garbage collector lets the heap grow to about twice what is kept
// before it collects (GOGC=100): the policies of each finished run, the ids
// the devices are made with and the lists the engine outgrows are garbage,
// so the estimate counts what is kept twice. That holds for any factory,
// whose policies may allocate as they are asked for delays.
//
// The policies of a kit.Spec's factory make no garbage: the engine keeps
// them in 24 bytes a device, makes no policy nor id, and allocates its
// arrays once for all the runs it replays. What such a replay allocates in
// all, counted from the sizes of the arrays it allocates and of the size
// classes the allocator rounds them to (compactRun, keptAllocated), bounds
// its heap whatever the collector does, and is close to what it holds: it
// is the estimate when it is the smaller (budget). Its margin is in its
// worst cases: every second's arrivals counted twice, a partly filled
// chunk in every second the delays reach, the selection and the lists at
// the most they may hold, the allocator's partly used spans (spanSlack),
// and the runtime's records of the heap (runtimeShare).
const (
	// policyBytes is the allowance for one device's policy and its id: the
	// built-in strategies take 72 (a policy of 48 bytes and an id of 24).
	policyBytes = 96
	// deviceBytes is the engine's own state of one device: its policy's
	// interface (16), its attempt counter (4) and its time of success (8).
	// The policies of a kit.Spec's factory are kept instead in 24 bytes a
	// device (builtin.go), and make no policy or id: 36 bytes of the 124
	// that deviceBytes and policyBytes allow.
	deviceBytes = 16 + 4 + 8
	// calendarBytes is the calendar's and the selection's room per device,
	// at its largest: chunks for two events a device (the second being
	// processed, whose every device may retry in a later second), 16; the
	// list of arrivals further ahead than the ring, 16 a device, and the
	// lists of one second's arrivals and of its retries within the second,
	// 8 a device each, all three grown by a quarter at most; and the
	// chunks' places in the pool, their links and the free list, 2. The
	// chunks that the ring's seconds leave partly filled count apart
	// (runBytes).
	calendarBytes = 16 + 20 + 10 + 10 + 2
	// periodicBytes is the periodic kinds' state of one device: its offset
	// (8), its current firing (4) and its flags (1); its times of success
	// count 8 bytes a firing.
	periodicBytes = 8 + 4 + 1
	// runBytes is a run's fixed state beside its histograms: the
	// calendar's ring of buckets, and the room of one partly filled
	// chunk in each of the ring's 4,096 seconds (calendarChunk).
	runBytes = ringBytes
	// heapMinimum is the heap the garbage collector lets grow before it
	// first collects, whatever is kept.
	heapMinimum = 4 << 20
	// keptHistogramBytes is the size of the record of one kept run's
	// compact histograms, beside their counts.
	keptHistogramBytes = int64(unsafe.Sizeof(histogram{})) + 16
)

// Memory estimates the most bytes Replay(ctx, f, s, cfg) holds at once,
// after defaults: the runs it replays at once, the results it keeps of
// every run, the summary, the ids, and the garbage the collector lets the
// heap grow by. Replay replays at most as many runs at once as fit within
// s.MemoryLimit, and at least one: Memory counts those. f may be nil when
// the policies are not known yet: the estimate is then that of a factory
// the replay knows nothing of, the most any needs.
func (s Scenario) Memory(f kit.Factory, cfg Config) int64 {
	return s.WithDefaults().budget(f, cfg.WithDefaults()).need
}

// A budget is the memory plan of a replay.
type budget struct {
	perRun  int64 // one run replayed, kept once
	kept    int64 // the results kept of every run, the summary and the ids, kept once
	workers int   // the runs replayed at once, within the limit; 0 if not even one fits
	need    int64 // the estimate, with workers runs at once (one if none fit)
	plan    plan  // the bound need is, of those that apply
	s       Scenario
	cfg     Config
}

// A plan is one bound of the heap a replay holds: kept, what it holds for
// its results, the runs' and the summary's, plus allowance, plus run for
// each run replayed at once.
type plan struct {
	kept, allowance, run int64
}

// need returns the plan's bound with workers runs at once.
func (p plan) need(workers int64) int64 {
	return add(p.kept, p.allowance, mul(workers, p.run))
}

// fits returns the most runs at once whose bound is within limit, or 0.
func (p plan) fits(limit int64) int64 {
	room := limit - p.kept - p.allowance
	if room < p.run || p.run <= 0 {
		return 0
	}
	return room / p.run
}

// budget plans the memory of a replay of s with cfg, both after defaults,
// with the policies f makes (nil: not known).
func (s Scenario) budget(f kit.Factory, cfg Config) budget {
	b := budget{s: s, cfg: cfg}
	runs := int64(max(cfg.Runs, 1))
	n := int64(max(s.Clients, 0))
	windows := s.windows()

	// One run.
	b.perRun = s.Kind.model().memory(s)

	// What is kept of every run. A kept histogram of RepresentativeOnly
	// takes 4 bytes a window, or 8 when a window can hold more than 2³¹−1
	// arrivals; the shortlist keeps a pointer a run and two heaps of
	// keys.
	histograms := mul(runs, mul(windows, 2*8))
	if cfg.RepresentativeOnly {
		count := int64(4)
		if mul(n, s.arrivalsPerDevice()) > math.MaxInt32 {
			count = 8
		}
		shortlisted := (runs+1)/2 + 1
		histograms = add(mul(runs, 8+2*16), mul(shortlisted, add(keptHistogramBytes, mul(windows, 2*count))), mul(windows, 2*8))
	}
	summary := add(mul(runs, 4*8), mul(int64(cfg.Resamples), 8))
	var ids int64
	for _, id := range s.IDs {
		ids += 16 + int64(len(id))
	}
	b.kept = add(mul(runs, int64(unsafe.Sizeof(Run{}))), histograms, summary, ids)

	// The heap is at most twice what is kept, and the collector's minimum
	// heap. With a Spec's policies, outside the server models, the runs
	// hold less (compactRun), which the collector doubles too; and the
	// heap is at most what the replay allocates in all, and the
	// allocator's partly used spans: those of the goroutine that
	// summarizes, and of each run's; with the runtime's records of that
	// heap (runtimeShare), which the doubled bounds leave room for.
	plans := []plan{{kept: mul(2, b.kept), allowance: heapMinimum, run: mul(2, b.perRun)}}
	if spec, ok := builtinSpec(f); ok && !s.Kind.ServerModel() {
		held, allocated := s.compactRun(spec)
		kept, run := s.keptAllocated(cfg), add(allocated, spanSlack)
		plans = append(plans,
			plan{kept: mul(2, b.kept), allowance: heapMinimum, run: mul(2, held)},
			plan{kept: add(kept, kept/runtimeShare), allowance: spanSlack, run: add(run, run/runtimeShare)})
	}
	workers := min(int64(max(cfg.Workers, 1)), runs)
	for _, p := range plans {
		b.workers = max(b.workers, int(min(workers, p.fits(s.MemoryLimit))))
	}
	at := int64(max(b.workers, 1))
	b.plan, b.need = plans[0], plans[0].need(at)
	for _, p := range plans[1:] {
		if need := p.need(at); need < b.need {
			b.plan, b.need = p, need
		}
	}
	return b
}

// spanSlack is the allowance for the allocator's partly used spans of one
// goroutine of a replay, in the bound of what the replay allocates: a span
// (8 KiB) of each size class the small objects it allocates take (its
// contexts, strings, the first arrays of its lists), which are a few dozen.
const spanSlack = 256 << 10

// runtimeShare bounds the runtime's own records of the heap, beside it, as
// a share of the heap: each span, of 8 KiB or more, has a record of about
// 160 bytes, and each 64 MiB arena a few pages of bitmaps, under a 32nd of
// the heap together. (A replay of 100 million devices had 0.33% of its
// heap beside it, MemStats.MSpanSys and GCSys.)
const runtimeShare = 32

// compactRun returns what one run replayed at once holds at its largest
// (held) and allocates in all (allocated) when the policies are those of
// a kit.Spec's factory, spec after defaults, and s is not a server model.
// The engine allocates its arrays once, for all the runs it replays, and
// then reuses them, so what it allocates is what it holds and the arrays
// its lists outgrew on the way:
//
//   - each device's policy (24 bytes), attempt counter (4) and room for
//     its times of success (8 a firing), and the periodic kinds' offset,
//     firing and flags (13); a storm keeps none;
//   - the two histograms, 8 bytes a window each;
//   - the calendar and its chunks: at most two pending arrivals a device,
//     the second being processed and the one each of its devices is
//     moved to, in full chunks, and one partly filled chunk in each
//     second that holds arrivals, and the one taken; the chunks' places
//     in their pool, links and free list, and the list of the chunks of
//     the second taken, at most the whole fleet's. Arrivals are at most
//     the longest delay ahead (the cap, or the Retry-After hint; in the
//     periodic kinds, the next firing, at most a period and the start
//     spread ahead), so only that many seconds of the ring hold
//     arrivals, and arrivals wait beyond the ring only when that is
//     further ahead than the ring reaches;
//   - the selection of a second's first arrivals (quotaLast), at most
//     selectMost events; in the seconds decided arrival by arrival (the
//     periodic kinds, a token bucket, the second the server comes up in
//     when that is not a whole second), the second's arrivals, at most
//     the fleet, and the heap of its retries within the second, as many,
//     each allocated once at that size.
func (s Scenario) compactRun(spec kit.Spec) (held, allocated int64) {
	n := int64(max(s.Clients, 0))
	windows := s.windows()
	fixed := mul(2, objectBytes(mul(windows, 8), false))
	fixed = add(fixed, objectBytes(int64(unsafe.Sizeof(engine{})), true), objectBytes(int64(unsafe.Sizeof(builtin{})), true))
	if s.Kind.model().arrivalsOnly() {
		// Each device's policy is on the stack while its arrivals are
		// counted.
		return fixed, fixed
	}
	fixed = add(fixed, objectBytes(mul(n, int64(unsafe.Sizeof(devState{}))), false), objectBytes(mul(n, 4), false), objectBytes(mul(n, mul(8, s.firings())), false))
	if s.Kind.Periodic() {
		fixed = add(fixed, objectBytes(mul(n, 8), false), objectBytes(mul(n, 4), false), objectBytes(n, false))
	}
	held, allocated = fixed, fixed

	// The calendar.
	ahead := max(spec.Cap, s.StartSpread)
	if s.Server == RetryAfter {
		ahead = max(s.RetryAfter, s.StartSpread)
	}
	if s.Kind.Periodic() {
		ahead = max(ahead, s.StartSpread+s.Period)
	}
	far := int64(ahead/time.Second) >= ringSize
	seconds := min(int64(ahead/time.Second)+1, ringSize, max(n, 1), int64(s.Horizon/time.Second)+1)
	chunk := calendarChunk(s.Clients)
	chunks := add((2*n+chunk-1)/chunk, seconds, 1)
	cal := add(objectBytes(int64(unsafe.Sizeof(calendar{})), true), mul(chunks, objectBytes(8*chunk, false)))
	held, allocated = add(held, cal), add(allocated, cal)
	grow := func(count, size int64, pointers bool) {
		h, a := appended(count, size, pointers)
		held, allocated = add(held, h), add(allocated, a)
	}
	grow(chunks, 24, true)            // the pool of chunks
	grow(chunks, 4, false)            // their links
	grow(chunks, 4, false)            // the free ones
	grow((n+chunk-1)/chunk, 24, true) // the chunks of the second taken
	if far {
		grow(n, int64(unsafe.Sizeof(farEvent{})), false)
	}

	// The selection, and the seconds decided arrival by arrival.
	ordered := s.Kind.Periodic() || s.Server == TokenBucket || s.Down%time.Second != 0
	if !ordered {
		grow(selectMost(s.Clients), 8, false)
		return held, allocated
	}
	// The list of a second's arrivals and the heap of its retries each
	// take room for the whole fleet once, the most a second holds (see
	// bucket and schedule), after the selection's arrays (quotaLast), which
	// the list replaces.
	selHeld, selAllocated := appended(selectMost(s.Clients), 8, false)
	list := objectBytes(mul(8, max(n, 1)), false)
	held, allocated = add(held, max(selHeld, list), list), add(allocated, selAllocated, list, list)
	return held, allocated
}

// keptAllocated returns what a replay of s with cfg, both after defaults,
// allocates in all for its results, beside its runs (compactRun): every
// run's figures and histograms, or with Config.RepresentativeOnly the
// compact histograms of every run that may be kept, the shortlist and the
// representative's; the summary's lists, each figure's; each run's context
// and the other small allocations of a run (runAllowance); and the
// scenario's IDs.
func (s Scenario) keptAllocated(cfg Config) int64 {
	runs := int64(max(cfg.Runs, 1))
	windows := s.windows()
	hist := objectBytes(mul(windows, 8), false)
	kept := add(objectBytes(mul(runs, int64(unsafe.Sizeof(Run{}))), true), mul(runs, add(runAllowance, mul(2, hist))))
	if cfg.RepresentativeOnly {
		count := int64(4)
		if mul(int64(max(s.Clients, 0)), s.arrivalsPerDevice()) > math.MaxInt32 {
			count = 8
		}
		compact := add(objectBytes(int64(unsafe.Sizeof(histogram{})), true), objectBytes(int64(unsafe.Sizeof([2][]int64{})), true), mul(2, objectBytes(mul(windows, count), false)))
		_, keys := appended(runs, int64(unsafe.Sizeof(runKey{})), false)
		kept = add(objectBytes(mul(runs, int64(unsafe.Sizeof(Run{}))), true), mul(runs, add(runAllowance, compact)), objectBytes(mul(runs, 8), true), mul(2, keys), mul(2, hist))
	}
	list := objectBytes(mul(runs, 8), false)
	summary := add(list, mul(int64(len(figureInfo)), add(mul(3, list), objectBytes(mul(int64(cfg.Resamples), 8), false))))
	var ids int64
	for _, id := range s.IDs {
		ids += 16 + int64(len(id))
	}
	return add(kept, summary, ids)
}

// runAllowance is the allowance for the small allocations of one run
// beside its figures: its context, the prefix of its fleet's ids, the
// summary's entry. A run of one device allocates 744 bytes, 320 of them
// its figures.
const runAllowance = 1 << 10

// sizeClasses are the sizes of the allocator's classes of small objects,
// up to 32 KiB (Go's internal/runtime/gc.SizeClassToSize);
// TestSizeClasses holds them to the runtime's.
var sizeClasses = []int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// objectBytes returns the bytes of heap an object of b bytes takes: its
// size class, with an 8-byte header when it holds pointers and is over
// 512 bytes, up to 32 KiB; whole pages of 8 KiB above.
func objectBytes(b int64, pointers bool) int64 {
	const page = 8 << 10
	if b > sizeClasses[len(sizeClasses)-1]-8 {
		return add(b, page-1) &^ (page - 1)
	}
	if pointers && b > 512 {
		b += 8
	}
	i, _ := slices.BinarySearch(sizeClasses, b)
	return sizeClasses[i]
}

// appended returns the bytes of heap a slice of elements of size bytes
// holds once append has grown it, one element at a time, to hold n, and
// the bytes of every array it took on the way, that one included, as
// runtime.growslice grows it: doubling a capacity below 256 elements, and
// then adding a quarter and 192 more, each array rounded up to what its
// size class holds.
func appended(n, size int64, pointers bool) (held, allocated int64) {
	var c int64
	for c < n {
		next := 2 * c
		switch {
		case c == 0:
			next = 1
		case c >= 256:
			next = c + (c+3*256)/4
		}
		held = objectBytes(mul(next, size), pointers)
		allocated = add(allocated, held)
		header := int64(0)
		if pointers && mul(next, size) > 512 && held <= sizeClasses[len(sizeClasses)-1] {
			header = 8
		}
		c = (held - header) / size
	}
	return held, allocated
}

// The state of a server model's run that the estimate counts ahead: what
// grows with the run's events beyond it (an overload's queue, a
// reconnect's kept delays) is held to the room the limit leaves each run
// (budget.room) as the run goes.
const (
	// modelDeviceBytes is a device's id and its policy, made once a run.
	modelDeviceBytes = policyBytes
	// overloadRequestBytes is an overload request's device and state (8),
	// and its policy's interface (16), in lists grown by doubling.
	overloadRequestBytes = 2 * (8 + 16)
	// overloadEventBytes is an event in the overload's queues (16), in
	// rings grown by doubling.
	overloadEventBytes = 2 * 16
	// reconnectDeviceBytes is a reconnect device's policy interface (16),
	// its connects sent (4), its id (16+24), its row of kept delays (a
	// seqRow: its place in them, their number and the first seqInline)
	// and the list of the others (24) with room for 16 delays in all
	// (keptDelayBytes each beyond the row's), room for two events under
	// way in the rings (16 each, grown by doubling), and its connect in
	// the calendar queue (calendarQueueBytes).
	reconnectDeviceBytes = 16 + 4 + 40 + int64(unsafe.Sizeof(seqRow{})) + 24 + (16-seqInline)*keptDelayBytes + 2*2*16 + calendarQueueBytes
	// calendarQueueBytes is the room of an event in a calendarQueue, at
	// its largest: in the calendar's chunks (8) or its list of events
	// further ahead than the ring (16), in the sorted second (8) or among
	// the late events (16), those lists grown by doubling, and its share
	// of the counts that sort a second (8). The chunks that the ring's
	// seconds leave partly filled count apart (modelRunBytes).
	calendarQueueBytes = 8 + 2*16 + 2*8 + 2*16 + 8
	// contentionClientBytes is a contention client's state (14), its
	// policy's interface (16) and room for two events in the heap (24
	// each, grown by doubling).
	contentionClientBytes = 14 + 16 + 2*2*24
	// keptDelayBytes is a delay a reconnect's built-in policy gave and the
	// engine keeps for the device's resets (8), in lists grown by
	// doubling.
	keptDelayBytes = 2 * 8
	// seriesBytes is a second of a server model's Series.
	seriesBytes = 8 * 8
)

// budgetBytes returns what a server model's budget holds in a run of at
// most attempts attempts: a state for the fleet or for each device (its
// interface, its fields and, for the kinds that count over a window, the
// rings' first 16 amounts each), and the amounts the windows hold at once:
// the attempts of a window's span, spread evenly over the horizon (a run
// whose attempts crowd into one span holds more, within the room of
// budget.room), 16 bytes each in rings grown by doubling.
func (s Scenario) budgetBytes(attempts int64) int64 {
	b := s.Budget
	if b.Kind == NoBudget {
		return 0
	}
	states := int64(1)
	if b.Scope == ScopeDevice {
		states = int64(max(s.Clients, 1))
	}
	per, windows, span := int64(0), int64(0), time.Duration(0)
	if m, ok := b.Kind.model(); ok {
		per, windows, span = m.memory(b)
	}
	per += 16 + 96
	if span < s.Horizon && s.Horizon > 0 {
		attempts = int64(float64(attempts)*span.Seconds()/s.Horizon.Seconds()) + 1
	}
	return add(mul(states, per), mul(windows, mul(attempts, 2*16)))
}

// room returns what the limit leaves each of a server model's runs
// beyond the state its estimate counts ahead, for the state that grows as
// it goes, counted once (the garbage collector's doubling aside): the half
// of the run's estimate kept for it, and its share of what the limit
// leaves beyond the estimate.
func (b budget) room() int64 {
	workers := int64(max(b.workers, 1))
	left := max((b.s.MemoryLimit-heapMinimum)/2-b.kept-workers*b.perRun, 0)
	return b.perRun/2 + left/workers
}

// grownError is the error of a run whose state grew past the room the
// memory limit leaves it (see budget.room): what grew, to how much, and
// when.
func grownError(run int, seed uint64, what string, at int64, room int64) error {
	return &kit.ConfigError{Package: "sim", Memory: true, Err: fmt.Errorf("run %d (seed %d): %s at %v, more than the %s the memory limit leaves each run: replay fewer clients or runs at once, over a shorter horizon, or raise the limit",
		run, seed, what, time.Duration(at), prose.FormatBytes(room))}
}

// arrivalsPerDevice returns the most arrivals of one device in a run.
func (s Scenario) arrivalsPerDevice() int64 { return s.Kind.model().arrivals(s) }

// refusal explains a budget that does not fit even one run at a time: the
// memory it would need, the part that needs the most, and what to change.
func (b budget) refusal() error {
	s, cfg := b.s, b.cfg
	fleet := prose.FormatCount(int64(s.Clients)) + " clients"
	if s.Clients == 1 {
		fleet = "1 client"
	}
	runs := prose.FormatCount(int64(cfg.Runs)) + " runs"
	if cfg.Runs == 1 {
		runs = "1 run"
	}
	// What to change names only what the scenario takes: the server
	// models have no windows to widen.
	over, shorter := fmt.Sprintf("over %v", s.Horizon), "over a shorter horizon"
	if s.Kind.model().takes("window") {
		over, shorter = fmt.Sprintf("over %v in %v windows", s.Horizon, s.Window), "over a shorter horizon or in wider windows"
	}
	part := fmt.Sprintf("one run needs %s; replay fewer clients, %s", prose.FormatBytes(b.plan.run), shorter)
	if b.plan.kept > b.plan.run {
		part = fmt.Sprintf("what is kept of %s needs %s; replay fewer runs, %s", runs, prose.FormatBytes(b.plan.kept), shorter)
		if !cfg.RepresentativeOnly {
			part += ", keep only the representative run's histograms (Config.RepresentativeOnly)"
		}
	}
	return &kit.ConfigError{Package: "sim", Memory: true, Err: fmt.Errorf("%s of %s %s would need about %s, above the memory limit of %s: %s, or raise the limit",
		runs, fleet, over, prose.FormatBytes(b.need), prose.FormatBytes(s.MemoryLimit), part)}
}

// calendarChunk returns the events a calendar chunk holds in a fleet of n
// devices (see newCalendar).
func calendarChunk(n int) int64 {
	return int64(min(max(n/1024, 32), 4096))
}

// mul returns a·b for a, b ≥ 0, or MaxInt64 when it overflows.
func mul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// add returns the sum of xs ≥ 0, or MaxInt64 when it overflows.
func add(xs ...int64) int64 {
	var sum int64
	for _, x := range xs {
		if x > math.MaxInt64-sum {
			return math.MaxInt64
		}
		sum += x
	}
	return sum
}
