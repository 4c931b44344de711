// Package sim replays a fleet of devices failing together against a server
// with an accept rate, and measures what their retry policy does to the
// server: the arrival histogram, its peak against the accept budget, the
// time until every device is served, and the attempts made.
//
// # The model
//
// A [Scenario] describes the fleet and the server; its zero value is a
// small fleet's outage: 400 devices fail together at t0, their first attempts
// spread over 10ms; the server accepts at most 50 requests in each whole
// second (the first to arrive) and none while it is down for the first 2s.
// A rejected attempt is answered at once and the device asks its policy for
// the next delay, until it is served, its policy stops ([kit.ErrStop]), or
// the horizon ends. Other kinds ([Storm], [LongOutage], [Periodic],
// [PeriodicAligned]) and servers ([TokenBucket], [RetryAfter]) run on the
// same engine.
//
// Each device's policy comes from a [kit.Factory], called once per device
// with the device's id and boot time. The ids of a run are a serial range
// chosen by the run's seed, such as dev-5f0e2a91-0000017 for device 17,
// unless the scenario fixes them (Scenario.IDs, a recorded fleet, whose
// device i is the same id in every run); every device of a run boots in
// the same second, so a policy seeded by device id draws different delays
// in every run, and one seeded from the clock shows its mistake.
//
// # Figures and verdict
//
// Each [Run] counts arrivals per window (1s by default). The busiest window
// counts every arrival; the peak of retry arrivals leaves out each device's
// first attempt, the failure itself. The peak ratio is that peak over the
// window's accept budget, AcceptRate·Window. [Replay] repeats the run with
// derived seeds, in parallel, and summarises each figure by its median and
// a BCa bootstrap confidence interval ([Estimate]). [Result.Status] judges
// the median peak ratio against the scenario's Threshold (0.6 by default:
// under 60% of what the server accepts is comfortable), and [Check] does the same inside a
// test. Within the threshold a replay warns ([Result.Warnings]) when the
// interval reaches over it, or when more than a share of the fleet
// ([Thresholds]) gave up or was still retrying in the median run: every
// rule is a statistic over the runs, which no device of one run decides.
//
// With Config.Runs left zero, a fleet replay makes its runs in batches (6,
// 12, then 20) and stops after a batch once every interval its
// verdict reads lies clear of its limit, or is too narrow to move off it
// ([StopMargin]); [Result.Stop] says how many runs it made and why. Run i
// is the same fleet whatever the batches, so the result is that of a
// replay of as many runs set, and the same seed gives the same result.
//
// A window wider than a second averages a burst over its width, as the
// server never does: such a replay also measures each run's peak of
// retries in one whole second (Run.PeakRetryArrivals1s), and warns when
// that peak is over the threshold of one second's budget while the wide
// window's is within it ([AveragedAway]), and fails when it is over in the
// median run, unless Config.AllowWideWindow. Config.FailWarnings makes
// every warning fail.
//
// # Recovery
//
// The server models [Overload] and [Reconnect] are judged on recovery
// (see Run.Recovered). Their runs are bimodal near a tipping point: most
// recover at once and some collapse for good, so the verdict reads every
// run, not the median: a run that never recovers is a counterexample and
// fails the replay, naming its seed, and a pass says what its runs bound
// of the chance of collapse ([Collapses], Config.CollapseBound for a
// tighter bound).
//
// # Timers
//
// In the periodic kinds ([Periodic], [PeriodicAligned]) every device fires
// a timer each period, and the firings are not retries: the timers' own
// load, the most firings in one window over its budget, is
// Run.TimerLoadRatio, and the retries that the peak ratio judges are the
// re-sends of rejected firings only. By default the offsets of the timers
// are the scenario's (kit.HashID of the id in Periodic, none in
// PeriodicAligned) and the policy times the re-sends and nothing else, so
// timers that crowd the server are reported, with what to change, but do
// not enter the verdict, unless they alone exceed the server: the firings
// it rejects in their busiest window on their first try are a wave over
// the threshold, and the replay fails with that figure ([TimersOverload]),
// whose fix is the timers' offsets, since no retry policy can fix them. With
// Scenario.TimerOffset [OffsetPolicy] each device's offset is its policy's
// first delay, the offset a fleet ships, and timers that crowd the server
// fail the replay as a storm of retries does ([OffsetsCrowd]). Each device
// keeps one policy for the whole replay. Served counts the firings served,
// FiringsMissed those never served, and GaveUp the devices that missed one.
//
// # The engine
//
// The per-second server ([PerSecond]) only needs, in each whole second, the
// arrivals that come first; so the replay keeps pending arrivals in a
// calendar of one bucket per second, and picks each second's first arrivals
// by selection rather than keeping every arrival in order. Each server
// model says, as a second starts, whether it decides the second so; the
// token bucket's seconds, whose tokens carry over, and the periodic kinds'
// are sorted when reached and decided arrival by arrival. Each worker replays
// its runs one after the other on one engine, whose arrays and histograms
// are sized once, for the whole horizon.
//
// The policies of a [kit.Spec]'s factory, which the engine recognises by
// the factory's code, are not called: the engine keeps each device's
// generator and window in 24 bytes and draws its delays itself, with kit's
// seeding and arithmetic, so that every device draws exactly the delays
// its policy would, and it processes the per-second server's seconds in
// one loop. On the default outage scaled to a million devices (125,000
// accepted a second, full jitter, 7.8 million attempts) a run then takes
// about 0.2s on one core, 20 to 30ns per attempt, and allocates about 55
// bytes a device in all. Any other factory's policies are called through
// their interface on the same calendar, at 55 to 100ns per attempt and
// about 120 bytes a device with the built-in policies, about ten times less
// than with a priority queue of every pending arrival. The cost per attempt
// stays about flat from 10,000 to 10 million devices (BenchmarkReplay).
//
// # Memory
//
// What a replay needs is known before it starts, from the factory, the
// scenario and the configuration alone ([Scenario.Memory]): the devices of
// the runs replayed at once and an allowance for their policies, each
// run's histograms, what is kept of every run, and the summary, counted
// twice for the garbage the collector lets pile up. A kit.Spec's policies
// make no garbage, and their replay is counted by what it allocates in
// all and the runtime's records of it, about 54 bytes a device in a large
// fleet, within a few percent of the memory it holds. Replay replays at once only as many runs as fit in
// the scenario's MemoryLimit, and [Scenario.Validate] refuses a replay
// that does not fit even one run at a time, saying what to change. Every
// run keeps its figures; its histograms, 16 bytes a window, are what grows
// with the runs, and Config.RepresentativeOnly keeps them for the
// representative run only ([Result.Representative]).
//
// # Bad policies and bad input
//
// A policy that panics, returns a negative delay or one a time.Duration
// cannot hold, or whose source fails, stops the replay with a
// [*DeviceError] naming the run, the device and the attempt. Cancelling the
// context stops it with an error saying where; a policy that never returns
// is named the same way once the context is done (see [StuckGrace]). When
// several runs fail, the replay reports the lowest-numbered one, whatever
// the number of runs replayed at once. [Scenario.Validate] refuses
// out-of-range fields with the field and its range, values that could not
// give finite figures among them, and replays that would need more than
// their MemoryLimit with the memory they would need.
package sim
