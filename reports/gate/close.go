package gate

// CloseAll closes every policy of ps that has a Close, and returns the
// first failure.
func CloseAll(ps []Policy) error {
	var first error
	for _, p := range ps {
		if p.Close != nil {
			if err := p.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
