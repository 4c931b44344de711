# A fleet 97% in lockstep, speaking jitterkit's exec protocol: one JSON
# request per line in, one JSON array of delays in seconds out. 97% of the
# devices, chosen by a hash of the id, wait the capped exponential window
# (base 100ms, cap 10s) plus at most 1ms of jitter, kept within the cap;
# the other 3% draw full jitter, which lifts the fleet's CV above 0.05.
BEGIN {
	for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i
	m = 2147483647
}
{
	id = $0
	sub(/.*"device":"/, "", id)
	sub(/".*/, "", id)
	n = $0
	sub(/.*"attempts":/, "", n)
	sub(/[^0-9].*/, "", n)
	h = 7
	for (i = 1; i <= length(id); i++) h = (h * 31 + ord[substr(id, i, 1)]) % m
	s = h % (m - 1) + 1
	spread = (h % 100 < 3)
	out = "["
	for (a = 0; a < n; a++) {
		w = 0.1 * 2 ^ a
		if (w > 10) w = 10
		s = (s * 48271) % m
		u = s / m
		if (spread) d = u * w
		else { d = w + u * 0.001; if (d > 10) d = 10 }
		out = out (a ? "," : "") sprintf("%.9f", d)
	}
	print out "]"
	fflush()
}
